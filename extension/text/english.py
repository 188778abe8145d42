"""Small English helpers shared by every text the templates write: lists, articles,
sentence ends and capitals. One home, so a citation, a seed question and an answer
statement punctuate alike."""

from __future__ import annotations

from collections.abc import Sequence


def join(items: Sequence[str]) -> str:
    """``["a", "b", "c"]`` -> "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def article(noun: str) -> str:
    """``noun`` with its indefinite article: "an actor", "a film"."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def sentence(text: str) -> str:
    """``text`` ended with a full stop unless it already ends a sentence."""
    return text if text.endswith((".", "!", "?")) else f"{text}."


def capitalized(text: str) -> str:
    """``text`` with its first letter upper-cased and the rest untouched (``str.capitalize``
    would lower-case the names inside)."""
    return text[:1].upper() + text[1:]


def plural(noun: str) -> str:
    """The plural of a noun phrase's last word: "film" -> "films", "country" ->
    "countries", "actress" -> "actresses"; "one" -> "ones". Regular forms only: a
    phrase that already ends in "s" is left as it is."""
    head, space, last = noun.rpartition(" ")
    if last.endswith(("ss", "sh", "ch", "x")):
        last += "es"
    elif last.endswith("s"):
        pass
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        last = last[:-1] + "ies"
    elif last:
        last += "s"
    return f"{head}{space}{last}"


_PLURAL_VERBS = {"is": "are", "was": "were", "has": "have"}


def plural_clause(clause: str) -> str:
    """A relative clause about several things: "that was directed by X" -> "that were
    directed by X", "that has music by" -> "that have music by", "that contains" ->
    "that contain"; "whose …" clauses unchanged."""
    rel, _, rest = clause.partition(" ")
    verb, space, tail = rest.partition(" ")
    if rel != "that":
        return clause
    if verb in _PLURAL_VERBS:
        verb = _PLURAL_VERBS[verb]
    elif verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3 and verb.isalpha() \
            and verb.islower() and tail:
        verb = verb[:-1]   # "contains" -> "contain", "features" -> "feature"
    else:
        return clause
    return f"{rel} {verb}{space}{tail}"
