"""CONNER input records and the sentence splitter that turns knowledge into the
sentences ``k = {s_1, …, s_m}`` of §3.3.

An input file is JSON Lines, one record per line::

    {"id": "nq-17", "query": "who wrote the hobbit",
     "knowledge": "The Hobbit is a novel by J. R. R. Tolkien. It was published in 1937.",
     "answer": "J. R. R. Tolkien", "gold_answer": "Tolkien",
     "evidence": ["The Hobbit is a 1937 children's fantasy novel by J. R. R. Tolkien."]}

``id``, ``query`` and ``knowledge`` are required (non-empty strings; an integer id is
read as its decimal string); ``answer`` (the downstream answer generated from the
knowledge, §3.4), ``gold_answer`` (a*, for span answers, Eq. 7) and ``evidence`` (a list
of texts, Eq. 1 and 8) may be left out or null. Under ``--protocol released`` two more
may be given: ``topic`` (the ``{topic}`` of the informativeness prompt) and
``demonstrations`` (this record's few-shot samples for helpfulness, a list of
``{"knowledge", "query", "answer"}``, see :mod:`scoring.conner.prompts`). Other fields are ignored, so a system's
own output with extra fields can be scored as it is. Blank lines are skipped. Every
problem is a :class:`~scoring.errors.ScoringError` naming ``file:line``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from llm.prompt_file import PromptFileError
from loaders.input_file import open_input
from scoring.conner.prompts import Demonstration, demonstrations_of
from scoring.errors import ScoringError

__all__ = ["ABBREVIATIONS", "ConnerRecord", "read_records", "split_sentences"]

_FORMAT_HINT = ('each line must be a JSON object {"id", "query", "knowledge", "answer"?, '
                '"gold_answer"?, "evidence"?: [text, ...]}')


@dataclass(frozen=True)
class ConnerRecord:
    """One query, the knowledge a system acquired for it, and what the extrinsic
    perspectives need: the answer generated from the knowledge, the gold answer,
    evidence texts."""

    id: str
    query: str
    knowledge: str
    answer: str | None = None
    gold_answer: str | None = None
    evidence: tuple[str, ...] = ()
    topic: str | None = None
    demonstrations: tuple[Demonstration, ...] | None = None


def read_records(path: Path) -> list[ConnerRecord]:
    """The records of the JSONL file ``path``, in file order. A line that is not a
    JSON object, a missing or empty required field, a field of the wrong type and an
    id used twice are each a :class:`ScoringError` naming ``path:line``; so is a file
    without records."""
    try:
        with open_input(path) as stream:
            data = stream.read()
    except FileNotFoundError:
        raise ScoringError(f"{path}: no such file",
                           "pass JSONL files of CONNER records") from None
    except IsADirectoryError:
        raise ScoringError(f"{path}: a directory, not a JSONL file",
                           "pass JSONL files of CONNER records") from None
    except OSError as exc:
        raise ScoringError(f"{path}: cannot be read ({exc.strerror})",
                           "check the file's permissions") from None
    records: list[ConnerRecord] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        record = _record(path, number, line)
        if record.id in seen:
            raise ScoringError(f"{path}:{number}: id {record.id!r} already used on line "
                               f"{seen[record.id]}",
                               "give every record of a file its own id")
        seen[record.id] = number
        records.append(record)
    if not records:
        raise ScoringError(f"{path}: no records (the file is empty)", _FORMAT_HINT)
    return records


def _record(path: Path, number: int, line: bytes) -> ConnerRecord:
    where = f"{path}:{number}"
    try:
        doc = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ScoringError(f"{where}: not JSON ({exc})", _FORMAT_HINT) from None
    if not isinstance(doc, dict):
        raise ScoringError(f"{where}: a JSON {type(doc).__name__}, not an object",
                           _FORMAT_HINT)
    raw_id = doc.get("id")
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)
    if not isinstance(raw_id, str) or not raw_id.strip():
        raise ScoringError(f"{where}: \"id\" missing or not a non-empty string", _FORMAT_HINT)
    return ConnerRecord(
        id=raw_id, query=_text(doc, "query", where, required=True) or "",
        knowledge=_text(doc, "knowledge", where, required=True) or "",
        answer=_text(doc, "answer", where), gold_answer=_text(doc, "gold_answer", where),
        evidence=_evidence(doc.get("evidence"), where), topic=_text(doc, "topic", where),
        demonstrations=_demonstrations(doc.get("demonstrations"), where))


def _demonstrations(value: Any, where: str) -> tuple[Demonstration, ...] | None:
    if value is None:
        return None
    try:
        return demonstrations_of(value, where)
    except PromptFileError as exc:
        raise ScoringError(str(exc), _FORMAT_HINT) from None


def _text(doc: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = doc.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        state = "missing" if value is None else f"a {type(value).__name__}, not a string"
        raise ScoringError(f"{where}: \"{key}\" {state}", _FORMAT_HINT)
    if required and not value.strip():
        raise ScoringError(f"{where}: \"{key}\" is empty",
                           f"give every record a non-empty \"{key}\"")
    return value


def _evidence(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ScoringError(f"{where}: \"evidence\" must be a list of strings", _FORMAT_HINT)
    return tuple(v for v in value if v.strip())


ABBREVIATIONS: frozenset[str] = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "gen", "col", "lt",
    "sgt", "capt", "cmdr", "gov", "sen", "rep", "rev", "hon", "pres", "vs", "no", "nos",
    "vol", "vols", "fig", "figs", "p", "pp", "ch", "sec", "art", "ed", "eds", "inc",
    "ltd", "co", "corp", "bros", "dept", "univ", "est", "approx", "ca", "cf", "al",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})
"""Words that end with a period without ending a sentence ("Dr.", "Jan.", "Inc."),
lowercased, without the period. "etc." is left out: it usually does end one."""

_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_DOTTED = re.compile(r"(?:[A-Za-z]\.)+$")     # U.S.  e.g.  J.  (initials, acronyms)
_PARAGRAPH = re.compile(r"\n\s*\n")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (CONNER's ``k = {s_1, …, s_m}``), stripped, in order.

    Rule: a sentence ends at a run of ``.``, ``!`` or ``?`` (with any closing quotes or
    brackets after it) that is followed by white space, and at a blank line. A single
    ``.`` does *not* end a sentence when the word it closes is an abbreviation of
    :data:`ABBREVIATIONS` ("Dr.", "Inc.") or a dotted initial or acronym ("J.", "U.S.",
    "e.g."), nor when the next word starts with a lowercase letter (an abbreviation we
    do not know: "approx. three"). Decimals ("3.14") and dotted names never split:
    the period is not followed by white space. So "He moved to the U.S. in 1990."
    is one sentence, and so is the rarer "He moved to the U.S. He stayed." (an acronym
    at a sentence's end is not told apart from one inside it). Text without end
    punctuation is one sentence; empty text has none."""
    sentences: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        start = 0
        for match in _END.finditer(paragraph):
            if _continues(paragraph, match):
                continue
            sentences.append(paragraph[start:match.end()])
            start = match.end()
        sentences.append(paragraph[start:])
    return [" ".join(s.split()) for s in sentences if s.strip()]


def _continues(text: str, match: re.Match[str]) -> bool:
    """Whether the sentence goes on past this end mark (see :func:`split_sentences`)."""
    rest = text[match.end():].lstrip()
    if rest[:1].islower():
        return True
    if match.group().rstrip("\"'”’)]") != ".":
        return False
    word = text[:match.start() + 1].split()[-1] if text[:match.start()].strip() else ""
    word = word.lstrip("\"'“‘([")
    return word[:-1].lower() in ABBREVIATIONS or bool(_DOTTED.fullmatch(word))

