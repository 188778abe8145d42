"""Small English helpers shared by every text the templates write: lists, articles,
sentence ends and capitals. One home, so a citation, a seed question and an answer
statement punctuate alike."""

from __future__ import annotations

import re
from collections.abc import Sequence

_LOCALE_SUFFIX = re.compile(r"-(?:GB|US)$")


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
    """The plural of a noun phrase's head: its last word ("film" -> "films", "country"
    -> "countries", "actress" -> "actresses"; "one" -> "ones"), or the word before an
    "of" ("form of government" -> "forms of government"). Regular forms only: a head
    that already ends in "s" is left as it is."""
    before, of, after = noun.partition(" of ")
    if of and before:
        return f"{plural(before)}{of}{after}"
    head, space, last = noun.rpartition(" ")
    if last in _IRREGULAR_PLURALS:
        last = _IRREGULAR_PLURALS[last]
    elif last in _IRREGULAR_SINGULARS:
        pass   # already plural: "people"
    elif last.endswith(("ss", "sh", "ch", "x")):
        last += "es"
    elif last.endswith("s"):
        pass
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        last = last[:-1] + "ies"
    elif last:
        last += "s"
    return f"{head}{space}{last}"


def singular(noun: str) -> str:
    """The singular of a noun phrase whose head a label gives in the plural
    ("production companies" -> "production company", "languages" -> "language",
    "films of" heads likewise); words that end in "s" in the singular are kept
    ("series", "status", "address")."""
    before, of, after = noun.partition(" of ")
    if of and before:
        return f"{singular(before)}{of}{after}"
    head, space, last = noun.rpartition(" ")
    if last in _IRREGULAR_SINGULARS:
        last = _IRREGULAR_SINGULARS[last]
    elif last in _SINGULAR_S or last.endswith(("ss", "us", "is")) or len(last) < 4:
        pass
    elif last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("sses", "shes", "ches", "xes")):
        last = last[:-2]
    elif last.endswith("s"):
        last = last[:-1]
    return f"{head}{space}{last}"


_SINGULAR_S = frozenset({"series", "species", "news", "physics", "mathematics", "politics",
                         "economics", "athletics", "gymnastics", "lens", "alias", "canvas"})

_IRREGULAR_PLURALS = {"person": "people", "man": "men", "woman": "women", "child": "children"}
_IRREGULAR_SINGULARS = {v: k for k, v in _IRREGULAR_PLURALS.items()}

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
    article, _, rest = tail.partition(" ")
    if verb == "are" and article in ("a", "an") and rest:
        noun, space2, after = rest.partition(" ")   # "are a citizen of" -> "are citizens of"
        tail = f"{plural(noun)}{space2}{after}"
    return f"{rel} {verb}{space}{tail}"


def display_name(name: str | None) -> str | None:
    """An entity's name as the text shows it: FB15k-237's ``entity2text.txt`` marks some
    names with the locale of the label they came from ("Inventor-GB", "50th Annual
    Grammy Awards-US"); the suffix is no part of the name and is dropped here, in the
    text layer, so the store keeps the names exactly as loaded."""
    if name is None:
        return None
    return _LOCALE_SUFFIX.sub("", name) or name


_TYPE_WORDS = {"citytown": "city", "us state": "state", "us county": "county",
               "music contributor": "composer", "film character": "character",
               "tv program": "TV series", "tv actor": "actor", "film actor": "actor",
               "olympic games": "Olympic Games", "sports team": "team",
               "professional sports team": "team", "award category": "award"}
"""Freebase type names that are no English noun, and the noun a reader would use."""


def type_word(noun: str) -> str:
    """A type's name as a noun a reader knows: Freebase's ``location.citytown`` reads
    "citytown", which a question shows as "city" ("Which city contains …?")."""
    return _TYPE_WORDS.get(noun, noun)
