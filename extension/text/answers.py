"""The answer statement ã (:func:`answer_statement`): the extended question's answers as
one sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

from extension.samples import AnswerEntity
from extension.text import english
from extension.text.literals import render_literal


def answer_statement(question: str, answers: Sequence[AnswerEntity]) -> str:
    """The answer statement ã (CAQA §4.4): ``question`` and its answers as one
    declarative sentence — 'The answer to "who directed the godfather?" is Francis Ford
    Coppola.', 'The answers to "…" are A, B and C.'. Entities by name (their id where
    there is none), literal values rendered (:func:`render_literal`)."""
    texts = [_answer_text(a) for a in answers]
    if not texts:
        return f'The question "{question}" has no answer.'
    if len(texts) == 1:
        return english.sentence(f'The answer to "{question}" is {texts[0]}')
    return english.sentence(f'The answers to "{question}" are {english.join(texts)}')


def _answer_text(a: AnswerEntity) -> str:
    if a.value is not None:
        return render_literal(a.value, a.datatype, a.lang)
    return a.name or a.id or ""


__all__ = ["answer_statement"]
