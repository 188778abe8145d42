"""``kgbench extend``: parsed questions -> structured attribution samples.

The loop is :func:`extension.run.extend_file.extend_parsed_file`; this module is the
command around it (options, progress, the label × complexity table).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from extension.core.labels import COMPLEXITIES, LABELS
from extension.defaults import DEFAULT_MAX_ANSWERS
from kgbench.cli.errors import NOTHING_WRITTEN, on_interrupt
from kgbench.cli.options import (
    CaqaStrictOpt,
    ClassesOpt,
    JsonOpt,
    QuestionLimitOpt,
    StoreOpt,
    readable_input,
    reading,
    store_location,
)
from kgbench.cli.output import emit_json, err, note, out, progress, task_label


def extend_cmd(
    ctx: typer.Context,
    parsed: Annotated[Path, typer.Argument(help="Output of `kgbench questions parse`.",
                                           readable=False)],
    store: StoreOpt = None,
    out_path: Annotated[
        Path, typer.Option("--out", "-o", metavar="FILE",
                           help="Structured samples (JSONL); failures.jsonl and extend.json "
                           "are written beside it.")
    ] = Path("structured.jsonl"),
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice.")] = 0,
    limit: QuestionLimitOpt = None,
    max_answers: Annotated[
        int, typer.Option("--max-answers", min=1,
                          help="Reject extensions with more answers than this.")
    ] = DEFAULT_MAX_ANSWERS,
    classes: ClassesOpt = True,
    caqa_strict: CaqaStrictOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Extend, ground and edit questions into labelled attribution samples (CAQA).

    Each supported question gets a seeded extension rule (union, intersection way 1 or
    2, or none), is grounded to its supporting subgraph G (supportive), and G is edited
    into partially supportive, contradictory and irrelevant samples. The same --seed
    gives byte-identical files.

    Example: kgbench extend parsed.jsonl --store kgbench-data/store --seed 7
    """
    # The engine is imported here, not with the command (see kgbench.cli.generate).
    from extension.core.extend import ExtensionConfig
    from extension.core.samples import SampleConfig
    from extension.outputs.output_file import output_target
    from extension.run.extend_file import extend_parsed_file

    readable_input(parsed)
    config = SampleConfig(extension=ExtensionConfig(max_answers=max_answers), classes=classes,
                          caqa_strict=caqa_strict)
    # Before the store is opened.
    output_target(out_path, option="--out", inputs=[parsed, store_location(ctx, store)])
    with on_interrupt(NOTHING_WRITTEN), reading(ctx, store) as s, progress() as display:
        task = display.add_task(task_label(f"extending {parsed.name}"), total=None)
        run = extend_parsed_file(s, parsed, out_path, seed=seed, config=config, limit=limit,
                                 on_question=lambda: display.advance(task))
    if as_json:
        emit_json(run.report)
        return
    table = Table(title="Structured samples: label × complexity", box=box.SIMPLE_HEAD)
    table.add_column("label")
    for c in (*COMPLEXITIES, "total"):
        table.add_column(c, justify="right")
    for label in LABELS:
        row = [run.counts.get((label, c), 0) for c in COMPLEXITIES]
        table.add_row(label, *(f"{n:,}" for n in row), f"{sum(row):,}")
    out.print(table)
    stages = run.failures_by_stage
    if stages:
        err.print("failures by stage: " + ", ".join(f"{k} {v:,}" for k, v in sorted(stages.items()))
                  + f" (see {run.failures_path})")
    seconds = run.seconds
    note(f"{run.questions:,} questions -> {run.samples:,} samples in {run.output} "
         f"({run.questions / seconds if seconds else 0:,.1f} questions/s)")
