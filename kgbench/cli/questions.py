"""``kgbench questions parse|ground``: KGQA questions -> query graphs -> grounded answers.

``parse`` reads a dataset (WebQSP, GrailQA, JSONL), turns each question's logical form
into a query graph, classifies it (single / path / tree / unsupported with a reason)
and writes one JSON line per question plus ``coverage.json``
(:func:`extension.inputs.question_parsing.parse_questions_file`). ``ground`` runs parsed
questions against a store and scores the answers against gold
(:func:`extension.inputs.question_grounding.ground_parsed_file`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, CliError, on_interrupt
from kgbench.cli.options import (
    JsonOpt,
    StoreOpt,
    any_store,
    readable_input,
    reading,
    store_location,
)
from kgbench.cli.output import emit_json, err, note, out, progress, task_label
from kgstore import open_store
from loaders.kgqa import FORMATS, ReadIssue
from loaders.sources import data_name

if TYPE_CHECKING:
    from extension.inputs.question_parsing import ParseRun

# The engine (networkx, rdflib, pydantic models: about a second to import) is imported
# inside the commands, so registering them keeps `kgbench --help` and the other
# commands quick.

questions_app: typer.Typer = typer.Typer(
    help=(
        "Turn KGQA questions into query graphs, classify them, and ground them in a store.\n\n"
        "Example: kgbench questions parse WebQSP.test.json --out parsed.jsonl && "
        "kgbench questions ground parsed.jsonl --store S"
    ),
    no_args_is_help=True,
)

SHOWN_ISSUES = 10
"""Malformed records (bad lines) listed on the terminal; the summary file has them."""


def _default_out(path: Path, suffix: str) -> Path:
    """``<input name>.<suffix>.jsonl`` beside the input, wherever the command runs."""
    name = data_name(path).removesuffix(".jsonl").removesuffix(".json")
    return path.parent / f"{name}.{suffix}.jsonl"


@questions_app.command("parse")
def parse_cmd(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(
        help="Question file (.json/.jsonl, optionally .gz/.bz2/.zst).", readable=False)],
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", metavar="FORMAT",
                     help=f"One of {', '.join(FORMATS)}; detected from the content when omitted."),
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE",
                     help="Output JSONL (default: <input name>.parsed.jsonl beside the "
                     "input). "
                     "coverage.json is written beside it."),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option("--store", metavar="PATH", show_default=False,
                     help="Also use the CVT (mediator) types recorded in this store."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first malformed record.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Parse and classify KGQA questions (CAQA shapes: single, path, tree).

    Each question's logical form (WebQSP SPARQL, GrailQA graph_query, JSONL sparql or
    triples) becomes a query graph; a hop through a CVT counts as one. The parse kept
    is the first supported one among a question's parses, else the first. Malformed
    records are listed with their id and skipped (--strict stops instead).

    Example: kgbench questions parse WebQSP.test.json --out webqsp.parsed.jsonl
    """
    from extension.inputs.question_parsing import parse_questions_file
    from extension.outputs.output_file import output_target

    if fmt is not None and fmt.lower() not in FORMATS:
        raise CliError(f"unknown format {fmt!r}", f"use one of {', '.join(FORMATS)}", code=2)
    if not file.exists():
        raise CliError(f"{file}: no such file", "check the path")
    readable_input(file)
    target = out_path or _default_out(file, "parsed")
    output_target(target, option="--out" if out_path else None,
                  inputs=[file, *([any_store(store)] if store is not None else [])])
    store_types: frozenset[str] = frozenset()
    if store is not None:
        with open_store(any_store(store), read_only=True) as s:
            store_types = s.cvt_types()
    with on_interrupt(NOTHING_WRITTEN), progress() as display:
        task = display.add_task(task_label(f"parsing {file.name}"), total=None)
        run = parse_questions_file(file, fmt, target, cvt_types=store_types, strict=strict,
                                   on_question=lambda: display.advance(task))
    if as_json:
        emit_json(run.coverage)
        return
    _print_coverage(run)
    seconds = run.seconds
    note(f"wrote {run.questions:,} questions to {run.output} and the coverage to "
         f"{run.coverage_path} ({run.questions / seconds if seconds else 0:,.0f} questions/s)")


def _print_coverage(run: ParseRun) -> None:
    from extension.core.shapes import REASONS

    coverage, issues = run.coverage, run.issues
    total = coverage["questions"] or 1
    table = Table(title="Questions by shape", box=box.SIMPLE_HEAD)
    table.add_column("shape")
    table.add_column("questions", justify="right")
    table.add_column("share", justify="right")
    for shape, count in coverage["shapes"].items():
        table.add_row(shape, f"{count:,}", f"{100 * count / total:.1f}%")
    out.print(table)
    if coverage["reasons"]:
        table = Table(title="Unsupported, by reason", box=box.SIMPLE_HEAD)
        table.add_column("reason")
        table.add_column("questions", justify="right")
        table.add_column("meaning")
        for reason, count in coverage["reasons"].items():
            table.add_row(reason, f"{count:,}", escape(REASONS[reason]))
        out.print(table)
    if coverage["cross_check"]:
        out.print("graph_query vs sparql_query: " + ", ".join(
            f"{k} {v:,}" for k, v in sorted(coverage["cross_check"].items())))
    _print_issues(issues)


def _print_issues(issues: list[ReadIssue]) -> None:
    if issues:
        err.print(f"[yellow]{len(issues):,} malformed record(s) skipped:[/]")
        for issue in issues[:SHOWN_ISSUES]:
            err.print(f"  {escape(str(issue))}", soft_wrap=True)
        if len(issues) > SHOWN_ISSUES:
            err.print(f"  … and {len(issues) - SHOWN_ISSUES:,} more (see coverage.json)")


@questions_app.command("ground")
def ground_cmd(
    ctx: typer.Context,
    parsed: Annotated[Path, typer.Argument(help="Output of `kgbench questions parse`.",
                                           readable=False)],
    store: StoreOpt = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE",
                     help="Per-question results (default: <input name>.grounded.jsonl beside "
                     "the input); "
                     "grounding.json with the summary is written beside it."),
    ] = None,
    classes: Annotated[
        bool, typer.Option("--classes/--no-classes",
                           help="Apply class constraints (turn off for stores without types).")
    ] = True,
    max_bindings: Annotated[
        int, typer.Option("--max-bindings", min=1, help="Solutions fetched per question.")
    ] = 10_000,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad line.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Ground parsed questions in a store and score them against the gold answers.

    Supported questions (single, path, tree) are compiled to triple patterns and
    matched; each result has the answers, the supporting facts and per-question
    precision / recall / F1. An unknown entity or predicate is reported as the outcome.

    Example: kgbench questions ground parsed.jsonl --store kgbench-data/store
    """
    from extension.inputs.question_grounding import ground_parsed_file
    from extension.outputs.output_file import output_target

    readable_input(parsed)
    target = out_path or _default_out(parsed, "grounded")
    location = store_location(ctx, store)
    output_target(target, option="--out" if out_path else None, inputs=[parsed, location])
    with on_interrupt(NOTHING_WRITTEN), reading(ctx, location) as s, progress() as display:
        task = display.add_task(task_label(f"grounding {parsed.name}"), total=None)
        run = ground_parsed_file(s, parsed, target, store_name=location,
                                 classes=classes, max_bindings=max_bindings, strict=strict,
                                 on_question=lambda: display.advance(task))
    if as_json:
        emit_json(run.report)
        return
    _print_grounding(run.report)
    for line in run.bad_lines[:SHOWN_ISSUES]:
        err.print(f"[yellow]skipped[/] {escape(line)}", soft_wrap=True)
    note(f"wrote per-question results to {run.output} and the summary to {run.report_path}")


def _print_grounding(report: dict[str, Any]) -> None:
    table = Table(title="Grounding", box=box.SIMPLE_HEAD)
    for col in ("shape", "questions", "answered", "scored", "precision", "recall", "F1"):
        table.add_column(col, justify="left" if col == "shape" else "right")
    rows = [*report["by_shape"].items(), ("all", report)]
    for shape, agg in rows:
        table.add_row(shape, f"{agg['questions']:,}", f"{agg['outcomes'].get('answered', 0):,}",
                      f"{agg['scored']:,}", f"{agg['precision']:.3f}", f"{agg['recall']:.3f}",
                      f"{agg['f1']:.3f}")
    out.print(table)
    out.print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report["outcomes"].items())))
    out.print(f"exact answer sets: {report['exact']:,}; at least one gold answer: "
              f"{report['any_hit']:,} of {report['scored']:,} scored")
