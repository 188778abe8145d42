"""``kgbench export``: a generated benchmark -> CAQA / AttrScore CSV, ALCE JSON, flat JSONL.

The conversion is :mod:`extension.outputs.export`; this module is the command around it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from extension.core.labels import (
    DEFAULT_LABEL_MAPS,
    DROP,
    EXPORT_FORMATS,
    SPLIT_CHOICES,
    ExportFormat,
    SplitChoice,
)
from kgbench.cli.errors import NOTHING_WRITTEN, CliError, on_interrupt
from kgbench.cli.options import JsonOpt, readable_input
from kgbench.cli.output import emit_json, note, out, progress, task_label

if TYPE_CHECKING:
    from extension.outputs.export import ExportError, ExportReport
    from extension.outputs.sample_schema import BenchmarkSample

# extension.outputs.export (and the sample models under it) is imported when the command runs:
# registering it keeps `kgbench --help` and the other commands quick.


def _maps_help() -> str:
    return "; ".join(f"{fmt}: " + ", ".join(f"{k}={v}" for k, v in mapping.items())
                     for fmt, mapping in DEFAULT_LABEL_MAPS.items() if fmt in ("caqa", "attrscore"))


def _option_error(exc: ExportError) -> CliError:
    """A bad option: a usage error (exit 2)."""
    return CliError(str(exc), exc.hint, code=2)


def _counted(samples: Iterable[BenchmarkSample], description: str) -> Iterator[BenchmarkSample]:
    """``samples`` with a progress line on stderr (a large benchmark takes a while to
    validate)."""
    with progress() as display:
        task = display.add_task(task_label(description), total=None)
        for sample in samples:
            display.advance(task)
            yield sample


def export_cmd(
    directory: Annotated[
        Path, typer.Argument(metavar="DIR", show_default=False, readable=False,
                             help="Benchmark directory written by `kgbench generate` "
                             "(its samples.jsonl is read), or that samples.jsonl itself.")],
    fmt: Annotated[
        str, typer.Option("--to", "-t", metavar="FORMAT", show_default=False,
                          help="caqa (CSV query,answer,reference,label,id; Support / Missing / "
                          "Contradictory / Irrelevant), attrscore (same CSV; Attributable / "
                          "Extrapolatory / Contradictory), alce (JSON list of {question, "
                          "answer citing [1][2], docs:[{title, text}]}) or jsonl (flat: id, question, "
                          "question_extended, answer, citation, label, complexity, split).")],
    out_path: Annotated[
        Path, typer.Option("--out", "-o", metavar="FILE", show_default=False,
                           help="Output file (written as FILE.part, then renamed).")],
    split: Annotated[
        str, typer.Option("--split", metavar="SPLIT",
                          help="train, test or all: which split's samples to export.")
    ] = "all",
    label_map: Annotated[
        list[str] | None,
        typer.Option("--label-map", "-m", metavar="LABEL=TARGET",
                     help="Map one of our labels (supportive, partially_supportive, "
                     "contradictory, irrelevant) to a label of the format, or to "
                     f"'{DROP}' to leave those samples out; repeatable. Defaults: "
                     f"{_maps_help()}; alce and jsonl keep our labels.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Export a benchmark to the formats attribution evaluators read.

    Reads DIR/samples.jsonl (each line is validated; a bad line stops the export with
    its line number) and writes FILE. Nothing half-written is left under FILE: the
    output is written to FILE.part and renamed when complete. Prints the samples
    written per output label.

    Papers disagree on how four-way labels map to AttrScore's three: the default sends
    partially_supportive and irrelevant to Extrapolatory ("the reference lacks sufficient
    information"); CAQA read Extrapolatory as Irrelevant. Change it with --label-map.

    Example: kgbench export bench/ --to attrscore --out attrscore.test.csv --split test
    --label-map partially_supportive=Contradictory --label-map irrelevant=drop
    """
    from extension.outputs.export import (
        ExportError,
        export_samples,
        find_samples_file,
        iter_benchmark_samples,
        parse_label_map,
        resolve_label_map,
    )
    from extension.outputs.output_file import output_target

    choice = fmt.strip().lower()
    if choice not in EXPORT_FORMATS:
        raise CliError(f"unknown export format {fmt!r}",
                       f"use --to with one of {', '.join(EXPORT_FORMATS)}", code=2)
    if split not in SPLIT_CHOICES:
        raise CliError(f"unknown split {split!r}",
                       f"use --split with one of {', '.join(SPLIT_CHOICES)}", code=2)
    export_format = cast(ExportFormat, choice)
    try:
        overrides = parse_label_map(label_map or [])
        resolve_label_map(export_format, overrides)
    except ExportError as exc:
        raise _option_error(exc) from None
    output_target(out_path, option="--out", inputs=[directory])
    try:
        with on_interrupt(NOTHING_WRITTEN):
            source = readable_input(find_samples_file(directory))
            report = export_samples(
                _counted(iter_benchmark_samples(source), f"exporting {source.name}"),
                out_path, export_format, split=cast(SplitChoice, split), label_map=overrides,
                source=source)
    except ExportError as exc:
        raise CliError(str(exc), exc.hint) from None
    if as_json:
        emit_json(report.to_json())
        return
    _print_report(report)


def _print_report(report: ExportReport) -> None:
    table = Table(title=f"Exported to {report.format}: samples per label", box=box.SIMPLE_HEAD,
                  title_justify="left")
    table.add_column("label")
    table.add_column("from")
    table.add_column("samples", justify="right")
    for target, count in report.by_label.items():
        sources = [k for k, v in report.label_map.items() if v == target]
        table.add_row(escape(target), ", ".join(sources), f"{count:,}")
    for label, count in report.dropped.items():
        table.add_row(f"[dim]({DROP})[/]", label, f"[dim]{count:,}[/]")
    out.print(table)
    left_out = []
    if report.other_split:
        left_out.append(f"{report.other_split:,} not in the {report.split} split")
    if report.dropped:
        left_out.append(f"{sum(report.dropped.values()):,} dropped by --label-map")
    note(f"wrote {report.written:,} of {report.read:,} samples to {report.output}"
         + (f" ({'; '.join(left_out)})" if left_out else ""))
    if report.written == 0:
        note("nothing matched: check --split and --label-map")

