"""``kgbench extend``: parsed questions -> structured attribution samples.

The command adds itself to the main app (it builds on :mod:`kgbench.cli`'s helpers).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from extension.defaults import DEFAULT_MAX_ANSWERS
from extension.labels import COMPLEXITIES, LABELS
from kgbench.cli import (
    JsonOpt,
    StoreOpt,
    _emit_json,
    _note,
    _progress,
    _reading,
    app,
    err,
    out,
)
from kgbench.questions_cli import read_parsed


def extend_cmd(
    ctx: typer.Context,
    parsed: Annotated[Path, typer.Argument(help="Output of `kgbench questions parse`.")],
    store: StoreOpt = None,
    out_path: Annotated[
        Path, typer.Option("--out", "-o", metavar="FILE",
                           help="Structured samples (JSONL); failures.jsonl and extend.json "
                           "are written beside it.")
    ] = Path("structured.jsonl"),
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice.")] = 0,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N questions.")
    ] = None,
    max_answers: Annotated[
        int, typer.Option("--max-answers", min=1,
                          help="Reject extensions with more answers than this.")
    ] = DEFAULT_MAX_ANSWERS,
    classes: Annotated[
        bool, typer.Option("--classes/--no-classes",
                           help="Apply class constraints when grounding.")
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Extend, ground and edit questions into labelled attribution samples (CAQA).

    Each supported question gets a seeded extension rule (union, intersection way 1 or
    2, or none), is grounded to its supporting subgraph G (supportive), and G is edited
    into partially supportive, contradictory and irrelevant samples. The same --seed
    gives byte-identical files.

    Example: kgbench extend parsed.jsonl --store kgbench-data/store --seed 7
    """
    # The engine is imported here, not with the command (see kgbench.generate_cli).
    from extension.extend import ExtensionConfig
    from extension.grounding import Grounder
    from extension.heap import PacedCollection
    from extension.samples import SampleConfig, structured_samples

    config = SampleConfig(extension=ExtensionConfig(max_answers=max_answers), classes=classes)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    failures_path = out_path.with_name("failures.jsonl")
    counts: Counter[tuple[str, str]] = Counter()
    stages: Counter[str] = Counter()
    questions = 0
    started = time.perf_counter()
    tmp, tmp_fail = (p.with_name(p.name + ".part") for p in (out_path, failures_path))
    with _reading(ctx, store) as s, tmp.open("w", encoding="utf-8") as sink, \
            tmp_fail.open("w", encoding="utf-8") as fail_sink, _progress() as progress, \
            PacedCollection() as collection:
        grounder = Grounder(s, classes=classes)
        task = progress.add_task(f"extending {parsed.name}", total=None)
        for number, item in read_parsed(parsed):
            if limit is not None and questions >= limit:
                break
            progress.advance(task)
            if isinstance(item, str):
                fail_sink.write(json.dumps({"qid": f"{parsed}:{number}", "stage": "read",
                                            "reason": item}) + "\n")
                stages["read"] += 1
                continue
            questions += 1
            samples, failures = structured_samples(s, grounder, item, seed=seed, config=config)
            for sample in samples:
                sink.write(sample.model_dump_json() + "\n")
                counts[(sample.label, sample.complexity)] += 1
            for failure in failures:
                fail_sink.write(failure.model_dump_json() + "\n")
                stages[failure.stage] += 1
            collection.tick()
    tmp.replace(out_path)
    tmp_fail.replace(failures_path)
    seconds = time.perf_counter() - started
    report: dict[str, Any] = {
        "input": str(parsed), "output": str(out_path), "failures": str(failures_path),
        "seed": seed, "questions": questions, "samples": sum(counts.values()),
        "by_label_complexity": {label: {c: counts.get((label, c), 0) for c in COMPLEXITIES}
                                for label in LABELS},
        "failures_by_stage": dict(sorted(stages.items())),
        "seconds": round(seconds, 3),
    }
    out_path.with_name("extend.json").write_text(json.dumps(report, indent=2) + "\n",
                                                 encoding="utf-8")
    if as_json:
        _emit_json(report)
        return
    table = Table(title="Structured samples: label × complexity", box=box.SIMPLE_HEAD)
    table.add_column("label")
    for c in (*COMPLEXITIES, "total"):
        table.add_column(c, justify="right")
    for label in LABELS:
        row = [counts.get((label, c), 0) for c in COMPLEXITIES]
        table.add_row(label, *(f"{n:,}" for n in row), f"{sum(row):,}")
    out.print(table)
    if stages:
        err.print("failures by stage: " + ", ".join(f"{k} {v:,}" for k, v in sorted(stages.items()))
                  + f" (see {failures_path})")
    _note(f"{questions:,} questions -> {sum(counts.values()):,} samples in {out_path} "
          f"({questions / seconds if seconds else 0:,.1f} questions/s)")


app.command("extend")(extend_cmd)
