"""``questions parse`` as a function: a KGQA question file -> parsed questions (JSONL)
and a coverage summary, printing nothing.

Each question's logical form becomes a query graph classified into a CAQA shape
(:func:`extension.inputs.questions.parse_question`); :func:`parse_questions_file` writes one
line per question (through ``FILE.part``, renamed when complete) and ``coverage.json``
beside it, and returns the coverage document with the skipped records.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extension.core.query_graph import known_mediator_types
from extension.core.shapes import REASONS
from extension.inputs.questions import parse_question
from extension.outputs.output_file import atomic_output, output_target, write_atomic
from loaders.errors import InputFileError
from loaders.kgqa import ReadIssue, read_questions

__all__ = ["SHAPES", "SHOWN_ISSUES", "ParseRun", "parse_questions_file"]

SHAPES = ("single", "path", "tree", "unsupported")
SHOWN_ISSUES = 10
"""How many malformed records (or bad lines) a summary quotes."""


@dataclass(frozen=True, slots=True)
class ParseRun:
    """What :func:`parse_questions_file` did: ``coverage`` is the document written to
    ``coverage_path`` (questions by shape, unsupported by reason, cross-check counts,
    malformed records); ``issues`` every record that was skipped."""

    coverage: dict[str, Any]
    issues: list[ReadIssue]
    output: Path
    coverage_path: Path
    questions: int
    seconds: float


def parse_questions_file(file: Path, fmt: str | None, target: Path, *,
                         cvt_types: frozenset[str] = frozenset(), strict: bool = False,
                         on_question: Callable[[], None] | None = None) -> ParseRun:
    """Parse and classify the questions of ``file`` (``fmt`` one of
    :data:`loaders.kgqa.FORMATS`, detected when ``None``) into ``target`` and
    ``coverage.json`` beside it.

    ``cvt_types`` adds mediator types (e.g. a store's) to the known ones. Malformed
    records are skipped and listed (``strict`` raises at the first, leaving no output
    under ``target``); a file with no usable record at all raises
    :class:`~loaders.errors.InputFileError` naming the first record's problem, and
    writes nothing. An output path that is not a file (a directory, a device) raises
    :class:`~extension.outputs.output_file.OutputPathError` before the input is read.
    ``on_question`` is called after each question (progress).
    """
    types = known_mediator_types() | cvt_types
    coverage_path = target.with_name("coverage.json")
    for path in (target, coverage_path):
        output_target(path)   # a directory or a device there: refused before any work
    issues: list[ReadIssue] = []
    shapes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    started = time.perf_counter()
    n = 0
    # The format is detected here, so a file that is no question file at all is
    # refused before the output's folder is made.
    questions = read_questions(file, fmt, strict=strict, issues=issues)
    with atomic_output(target) as sink:  # no half-written output under the real name
        for question in questions:
            parsed = parse_question(question, cvt_types=types)
            sink.write(parsed.model_dump_json(exclude_defaults=False) + "\n")
            shapes[parsed.shape] += 1
            if parsed.reason:
                reasons[parsed.reason] += 1
            checks[parsed.cross_check] += 1
            n += 1
            if on_question is not None:
                on_question()
        if n == 0:
            raise _no_questions(file, issues)
    seconds = time.perf_counter() - started
    coverage = {
        "file": str(file), "format": fmt, "output": str(target), "questions": n,
        "shapes": {s: shapes.get(s, 0) for s in SHAPES},
        "reasons": dict(reasons.most_common()),
        "reason_meanings": {r: REASONS[r] for r in reasons},
        "cross_check": {k: v for k, v in checks.items() if k != "not_checked"},
        "malformed_records": len(issues),
        "malformed_examples": [str(i) for i in issues[:SHOWN_ISSUES]],
        "seconds": round(seconds, 3),
    }
    write_atomic(coverage_path, json.dumps(coverage, indent=2) + "\n")
    return ParseRun(coverage, issues, target, coverage_path, n, seconds)


def _no_questions(file: Path, issues: list[ReadIssue]) -> InputFileError:
    """A file that gave no question: say why, from its first malformed record."""
    if not issues:
        return InputFileError(file, "holds no questions; check that it is the question file "
                                    "you meant (and its --format)")
    first = issues[0]
    return InputFileError(file, f"no usable question: all {len(issues):,} record(s) are "
                                f"malformed; the first, {first.record}: {first.reason}")
