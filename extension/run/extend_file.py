"""``kgbench extend`` as a function: parsed questions + a store -> labelled structured
samples (JSONL), their failures and a report, printing nothing.

Each supported question gets a seeded extension rule, is grounded to its supporting
subgraph and edited into the other labels (:func:`extension.core.samples.structured_samples`).
:func:`extend_parsed_file` writes ``samples`` and ``failures.jsonl`` beside it (each
through ``FILE.part``, renamed when complete) and ``extend.json``, and returns the
counts by label × complexity and failures by stage.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extension.core.grounding import Grounder
from extension.core.labels import COMPLEXITIES, LABELS
from extension.core.samples import SampleConfig, structured_samples
from extension.inputs.parsed_file import check_parsed_file, read_parsed
from extension.outputs.output_file import atomic_output, output_target, write_atomic
from extension.run.heap import PacedCollection
from kgstore import Store

__all__ = ["ExtendRun", "extend_parsed_file"]


@dataclass(frozen=True, slots=True)
class ExtendRun:
    """What :func:`extend_parsed_file` did. ``counts`` are samples by (label,
    complexity); ``failures_by_stage`` counts the failures (``read`` for lines that
    are not parsed questions); ``report`` is the document written to
    ``report_path`` (``extend.json``)."""

    counts: Counter[tuple[str, str]]
    failures_by_stage: Counter[str]
    questions: int
    output: Path
    failures_path: Path
    report: dict[str, Any]
    report_path: Path
    seconds: float

    @property
    def samples(self) -> int:
        return sum(self.counts.values())


def extend_parsed_file(store: Store, parsed: Path, out_path: Path, *, seed: int = 0,
                       config: SampleConfig | None = None, limit: int | None = None,
                       on_question: Callable[[], None] | None = None) -> ExtendRun:
    """Extend, ground and edit the questions of ``parsed`` (at most ``limit``) into
    structured samples in ``out_path``, failures in ``failures.jsonl`` beside it and
    the report in ``extend.json``. The same ``seed`` gives byte-identical files.
    ``config`` defaults to :class:`SampleConfig`'s defaults; ``on_question`` is called
    for each line read (progress). A file without any parsed question raises
    :class:`~extension.inputs.parsed_file.ParsedFileError` before anything is written."""
    config = config or SampleConfig()
    failures_path = out_path.with_name("failures.jsonl")
    report_path = out_path.with_name("extend.json")
    check_parsed_file(parsed)       # not parsed questions at all: refused, nothing written
    for path in (out_path, failures_path, report_path):
        output_target(path)         # a directory or a device there: refused before any work
    counts: Counter[tuple[str, str]] = Counter()
    stages: Counter[str] = Counter()
    questions = 0
    started = time.perf_counter()
    with atomic_output(out_path) as sink, atomic_output(failures_path) as fail_sink, \
            PacedCollection() as collection:
        grounder = Grounder(store, classes=config.classes)
        for number, item in read_parsed(parsed):
            if limit is not None and questions >= limit:
                break
            if on_question is not None:
                on_question()
            if isinstance(item, str):
                fail_sink.write(json.dumps({"qid": f"{parsed}:{number}", "stage": "read",
                                            "reason": item}) + "\n")
                stages["read"] += 1
                continue
            questions += 1
            samples, failures = structured_samples(store, grounder, item, seed=seed,
                                                   config=config)
            for sample in samples:
                sink.write(sample.model_dump_json() + "\n")
                counts[(sample.label, sample.complexity)] += 1
            for failure in failures:
                fail_sink.write(failure.model_dump_json() + "\n")
                stages[failure.stage] += 1
            collection.tick()
    seconds = time.perf_counter() - started
    report: dict[str, Any] = {
        "input": str(parsed), "output": str(out_path), "failures": str(failures_path),
        "seed": seed, "caqa_strict": config.caqa_strict, "questions": questions, "samples": sum(counts.values()),
        "by_label_complexity": {label: {c: counts.get((label, c), 0) for c in COMPLEXITIES}
                                for label in LABELS},
        "failures_by_stage": dict(sorted(stages.items())),
        "seconds": round(seconds, 3),
    }
    write_atomic(report_path, json.dumps(report, indent=2) + "\n")
    return ExtendRun(counts, stages, questions, out_path, failures_path, report,
                     report_path, seconds)
