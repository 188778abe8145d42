"""``kgbench evaluate BENCH_DIR --baseline KIND``: the shortcut-baseline branch of the
evaluate command (:mod:`scoring.evaluate.baselines`): run it, print CAQA Table 6's
tables and the chance levels beside the shortcut, and record it in the benchmark's
``baselines.json`` and ``report.html``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, CliError, on_interrupt
from kgbench.cli.output import emit_json, field, note, out

if TYPE_CHECKING:
    from scoring.evaluate.baselines import ShortcutReport
    from scoring.evaluate.schemes import LabelScheme

__all__ = ["run_baseline"]


def chance_table(result: ShortcutReport) -> Table:
    """The shortcut's F1 per label, macro-F1 and micro-F1 beside the two chance levels."""
    block, scheme = result.baseline, result.report.scheme
    table = Table(title="What a shortcut gets, beside chance (test split)",
                  box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("")
    for title in (*scheme.titles, "macro-F1", "micro-F1"):
        table.add_column(title, justify="right", no_wrap=True)

    def row(name: str, scores: dict[str, Any]) -> None:
        table.add_row(field(name), *(f"{scores['per_label_f1'][label]:.3f}"
                                     for label in scheme.labels),
                      f"{scores['macro_f1']:.3f}", f"{scores['micro_f1']:.3f}")

    row(result.report.evaluator, block)
    for name, level in block["chance"].items():
        what = (f"chance: every sample {level['label']}" if name == "majority"
                else f"chance: random, train shares ({level['draws']} draws)")
        row(what, level)
    return table


def run_baseline(directory: Path, baseline: str, scheme: LabelScheme, *, split: str,
                 device: str, as_json: bool, out_path: Path | None,
                 blind_labels: Path | None, blind_column: str | None,
                 compare: Sequence[Path], sub_facts: Path | None,
                 save_predictions: Path | None) -> None:
    """Run the shortcut baseline ``baseline`` (``overlap``, ``length``, ``embed:DIR``)
    on ``directory`` and print / write what ``kgbench evaluate`` does for an evaluator,
    plus the ``baseline`` block; then record it in the benchmark's report."""
    from extension.outputs.output_file import write_atomic
    from kgbench.cli.evaluate import _print_report
    from scoring.errors import ScoringError
    from scoring.evaluate.baselines import evaluate_shortcut, parse_baseline, record_shortcut

    if split != "test":
        raise CliError(f"--baseline fits on the train split and is scored on the test split, "
                       f"not --split {split}", "leave --split out", code=2)
    try:
        spec = parse_baseline(baseline)
    except ScoringError as exc:
        raise CliError(str(exc), exc.hint, code=2) from None
    with on_interrupt(NOTHING_WRITTEN):
        result = evaluate_shortcut(directory, spec, scheme, device=device,
                                   blind_labels=blind_labels, blind_column=blind_column,
                                   compare=compare, sub_facts=sub_facts,
                                   save_predictions=save_predictions)
    doc = result.to_json()
    if out_path is not None:
        write_atomic(out_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)
                     + "\n", option="--out")
    for line in result.report.notes:
        note(line)
    if as_json:
        emit_json(doc)
    else:
        _print_report(result.report)
        out.print(chance_table(result))
    page = record_shortcut(result)
    note(f"recorded in {page.parent / 'baselines.json'} and the \"What a shortcut gets\" "
         f"section of {page}")
