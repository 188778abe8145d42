"""``questions ground`` as a function: parsed questions + a store -> per-question
results (JSONL) and a summary scored against the gold answers, printing nothing.

:func:`grounding_record` is one output line; :func:`ground_parsed_file` runs a whole
file (through ``FILE.part``, renamed when complete) and writes ``grounding.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extension.core.grounding import (
    DEFAULT_MAX_BINDINGS,
    AnswerScore,
    Grounder,
    Grounding,
    GroundingSummary,
    score_answers,
)
from extension.inputs.parsed_file import check_parsed_file, read_parsed
from extension.inputs.question_parsing import SHOWN_ISSUES
from extension.inputs.questions import ParsedQuestion
from extension.outputs.output_file import atomic_output, output_target, write_atomic
from kgstore import Store, to_jsonable

__all__ = ["GroundingRun", "ground_parsed_file", "grounding_record"]


def grounding_record(q: ParsedQuestion, g: Grounding | None
                     ) -> tuple[dict[str, Any], AnswerScore | None]:
    """One line of the ``questions ground`` output, and the answer score (``None``
    when the question was skipped or has no gold answers)."""
    gold = [(a.kind, a.value) for a in q.answers]
    doc: dict[str, Any] = {"id": q.id, "question": q.question, "shape": q.shape,
                           "gold": [a.model_dump(exclude_none=True) for a in q.answers]}
    if g is None:
        doc.update(outcome="skipped", detail=f"unsupported: {q.reason}")
        return doc, None
    score = score_answers(g.answers, gold) if q.answers else None
    doc.update(
        outcome=g.outcome, detail=g.detail, missing=list(g.missing),
        answers=to_jsonable(list(g.answers)), truncated=g.truncated,
        bindings=len(g.bindings),
        facts=[[f.subject, f.predicate, to_jsonable(f.object)] for f in g.facts],
    )
    if score is not None:
        doc.update(precision=score.precision, recall=score.recall, f1=score.f1)
    return doc, score


@dataclass(frozen=True, slots=True)
class GroundingRun:
    """What :func:`ground_parsed_file` did: ``report`` is the summary written to
    ``report_path`` (outcomes, macro precision / recall / F1 overall and by shape, bad
    lines); ``bad_lines`` every skipped line as ``FILE:LINE: reason``."""

    report: dict[str, Any]
    bad_lines: list[str]
    output: Path
    report_path: Path


def ground_parsed_file(store: Store, parsed: Path, target: Path, *, store_name: str,
                       classes: bool = True, max_bindings: int = DEFAULT_MAX_BINDINGS,
                       strict: bool = False,
                       on_question: Callable[[], None] | None = None) -> GroundingRun:
    """Ground each question of ``parsed`` (a ``questions parse`` output) in ``store``
    into ``target`` and ``grounding.json`` beside it.

    Supported questions are compiled to triple patterns and matched (``classes``:
    with class constraints; at most ``max_bindings`` solutions each); unsupported
    ones are recorded as skipped. Lines that are not parsed questions are skipped and
    listed (``strict`` raises :class:`~extension.inputs.parsed_file.ParsedFileError` at the
    first); a file without any parsed question raises it before anything is written.
    ``store_name`` is what the report calls the store; ``on_question`` is called for
    each line read (progress).
    """
    report_path = target.with_name("grounding.json")
    check_parsed_file(parsed)       # not parsed questions at all: refused, nothing written
    for path in (target, report_path):
        output_target(path)         # a directory or a device there: refused before any work
    summary = GroundingSummary()
    by_shape: dict[str, GroundingSummary] = {}
    bad: list[str] = []
    started = time.perf_counter()
    grounder = Grounder(store, classes=classes, max_bindings=max_bindings)
    with atomic_output(target) as sink:
        for number, item in read_parsed(parsed, strict=strict):
            if on_question is not None:
                on_question()
            if isinstance(item, str):
                bad.append(f"{parsed}:{number}: {item}")
                continue
            g = grounder.ground(item.query) if item.shape != "unsupported" and item.query else None
            doc, score = grounding_record(item, g)
            sink.write(json.dumps(doc, ensure_ascii=False) + "\n")
            for agg in (summary, by_shape.setdefault(item.shape, GroundingSummary())):
                agg.add(doc["outcome"], score)
    seconds = time.perf_counter() - started
    report = {
        "input": str(parsed), "store": store_name, "output": str(target),
        "questions": summary.questions, "outcomes": summary.outcomes, "scored": summary.scored,
        **summary.means(), "exact": summary.exact, "any_hit": summary.any_hit,
        "by_shape": {shape: {"questions": agg.questions, "outcomes": agg.outcomes,
                             "scored": agg.scored, **agg.means()}
                     for shape, agg in sorted(by_shape.items())},
        "bad_lines": len(bad), "bad_line_examples": bad[:SHOWN_ISSUES],
        "seconds": round(seconds, 3),
    }
    write_atomic(report_path, json.dumps(report, indent=2) + "\n")
    return GroundingRun(report, bad, target, report_path)
