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
