"""Checks of a sample's text that need no reader: placeholder words, doubled words, and a
rough score that ranks samples for the report's showcase (issue 34, item 7).

Blind readers rated the text 1 (garbled, ids) to 5 (fluent); what pulled their
ratings down was mechanical and is caught here: placeholders where a noun was missing
("something", "Which entity", "the one that"), doubled words ("with with", "whose album
is Queen is Queen"), ids, and length (a citation of fifteen sentences). The score is no
substitute for readers; it picks, among samples a reader would judge alike, the ones
that read best.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

PLACEHOLDERS = ("something", "someone", "which entity", "the one", "one that", "an entry",
                "is related to", "a fact", "what entity")
"""Words a template writes where it had no noun or phrase for a thing."""

_PLACEHOLDER = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in PLACEHOLDERS) + r")\b",
                          re.IGNORECASE)
_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)
_ID = re.compile(r"\b(?:[PQ]\d+|[mg]\.[0-9a-z_]+)\b|_|\w\.\w+\.\w")


def _without(text: str, names: Iterable[str]) -> str:
    """``text`` with each of ``names`` blanked (a name's own words are no fault)."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = text.replace(name, " NAME ")
    return text


def placeholder_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """The placeholder words of ``text`` outside the entity ``names``."""
    return [m.group(0) for m in _PLACEHOLDER.finditer(_without(text, names))]


def doubled_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """Words written twice in a row in ``text`` outside the entity ``names`` ("with
    with"); "NAME NAME" (two names side by side) is not counted."""
    return [m.group(0) for m in _DOUBLED.finditer(_without(text, names))
            if m.group(1) != "NAME"]


def text_score(question: str, answer: str, citation: str, names: Iterable[str] = ()) -> float:
    """A rough 1-5 score of a sample's text: 5 less a point per placeholder, doubled
    word or id, less a little per word beyond a plain question (14 words), statement
    (20) or citation (60)."""
    names = list(names)
    faults = 0
    for text in (question, answer, citation):
        faults += len(placeholder_words(text, names)) + len(doubled_words(text, names))
        faults += len(_ID.findall(_without(text, names)))
    length = (max(0, len(question.split()) - 14) / 10 + max(0, len(answer.split()) - 20) / 15
              + max(0, len(citation.split()) - 60) / 40)
    return max(1.0, 5.0 - faults - length)


__all__ = ["PLACEHOLDERS", "doubled_words", "placeholder_words", "text_score"]
