"""How an evaluation looks on a terminal: CAQA Table 6's row, the per-label scores,
the confusion matrix, CAQA §6.2's consistency and §6.3's sub-fact tables. Shared by
``kgbench evaluate`` and its shortcut baselines."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from kgbench.cli.output import field, note, out

if TYPE_CHECKING:
    from scoring.evaluate.run import EvaluationReport

__all__ = ["confusion_table", "label_detail", "print_evaluation_report", "table6"]

CAQA_COMPLEXITY_ORDER = ("single", "concatenation", "intersection", "union")
"""CAQA Table 6's complexity columns: S. C. I. U."""
COMPLEXITY_TITLES = {"single": "S.", "concatenation": "C.", "intersection": "I.", "union": "U."}


def _split_text(split: str) -> str:
    return "all samples" if split == "all" else f"the {split} split"


def _number(value: float | None) -> str:
    """A score as the tables print it; the released code's NaN (null in the JSON) as NaN."""
    return "NaN" if value is None or math.isnan(value) else f"{value:.3f}"


def _score(value: float, support: int) -> str:
    return _number(value) if support else "–"


def table6(report: EvaluationReport) -> Table:
    """One row in CAQA Table 6's layout: F1 per label, overall micro-F1, micro-F1 per
    complexity (S. C. I. U.); "–" where there is no sample."""
    doc, scheme = report.document, report.scheme
    table = Table(title=f"{field(report.evaluator)} on {_split_text(report.split)} ({scheme.name} "
                  "labels): F1 per label, micro-F1 overall and per complexity"
                  + (", as the released code computes them" if report.protocol == "released"
                     else ""),
                  box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False,
                  show_edge=False)
    # Numbers never wrap; a long evaluator name folds in its own column.
    table.add_column("Evaluator", overflow="fold", min_width=9)
    for title in (*scheme.titles, "Overall", *(COMPLEXITY_TITLES[c]
                                               for c in CAQA_COMPLEXITY_ORDER)):
        table.add_column(title, justify="right", no_wrap=True)
    per_label, per_complexity = doc["per_label"], doc["per_complexity"]
    table.add_row(field(report.evaluator),
                  *(_score(per_label[label]["f1"], per_label[label]["support"])
                    for label in scheme.labels),
                  _score(doc["overall_micro_f1"], doc["n"]),
                  *(_score(per_complexity[c]["micro_f1"], per_complexity[c]["support"])
                    for c in CAQA_COMPLEXITY_ORDER))
    return table


def label_detail(report: EvaluationReport) -> Table:
    """Precision, recall, F1 and support per label, then macro-F1 and n."""
    doc = report.document
    table = Table(title="Per label", box=box.SIMPLE_HEAD, title_justify="left")
    for name in ("label", "precision", "recall", "F1", "support"):
        table.add_column(name, justify="left" if name == "label" else "right")
    for label, scores in doc["per_label"].items():
        table.add_row(field(label), _number(scores["precision"]), _number(scores["recall"]),
                      _number(scores["f1"]), f"{scores['support']:,}",
                      end_section=label == report.scheme.labels[-1])
    table.add_row("macro-F1", "", "", _number(doc["macro_f1"]), "")
    table.add_row("micro-F1 (accuracy)", "", "", _number(doc["overall_micro_f1"]),
                  f"{doc['n']:,}")
    return table


def confusion_table(report: EvaluationReport) -> Table:
    """Gold label (rows) × predicted label (columns), with the unparsed column."""
    confusion = report.document["confusion"]
    columns = list(next(iter(confusion.values())))
    table = Table(title="Confusion: gold (rows) × predicted (columns)", box=box.SIMPLE_HEAD,
                  title_justify="left")
    table.add_column("gold")
    for column in columns:
        table.add_column(field(column), justify="right")
    for gold, row in confusion.items():
        table.add_row(field(gold), *(f"{row[c]:,}" for c in columns))
    return table


def consistency_table(block: dict[str, Any]) -> Table:
    """CAQA §6.2 in small: each evaluator's micro-F1 on generated vs blind labels."""
    pearson = block["pearson"]
    shown = "undefined (needs two evaluators whose scores vary)" if pearson is None \
        else f"{pearson:.3f}"
    table = Table(title=f"Consistency with blind labels (CAQA §6.2): {block['samples']:,} "
                  f"samples, label agreement {block['label_agreement']:.3f}, Pearson r "
                  f"{shown}", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("evaluator")
    table.add_column("micro-F1 (generated)", justify="right")
    table.add_column("micro-F1 (blind)", justify="right")
    for row in block["evaluators"]:
        table.add_row(field(row["name"]), f"{row['micro_f1_generated']:.3f}",
                      f"{row['micro_f1_blind']:.3f}")
    return table


def fine_grained_table(block: dict[str, Any]) -> Table:
    """CAQA §6.3 / Table 7: FActScore and error rate against the benchmark's sub-facts."""
    def number(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f}"

    table = Table(title=f"Sub-facts (CAQA §6.3, Table 7): {block['sub_facts']:,} sub-facts "
                  f"of {block['samples']:,} samples", box=box.SIMPLE_HEAD,
                  title_justify="left")
    for name in ("FS (evaluator)", "FS (benchmark)", "ER", "agreement"):
        table.add_column(name, justify="right")
    table.add_row(number(block["factscore"]), number(block["factscore_benchmark"]),
                  number(block["error_rate"]), number(block["agreement"]))
    return table


def print_evaluation_report(report: EvaluationReport) -> None:
    """CAQA Table 6's row, the per-label and confusion tables, the consistency and
    sub-fact tables when there are any, and a note of what was scored."""
    out.print(table6(report))
    out.print()
    out.print(label_detail(report))
    out.print(confusion_table(report))
    if report.consistency is not None:
        out.print(consistency_table(report.consistency))
    if report.fine_grained is not None:
        out.print(fine_grained_table(report.fine_grained))
    doc = report.document
    counted = ("left out of every score, as the released code drops them"
               if report.protocol == "released" else "counted as wrong")
    note(f"{doc['n']:,} samples ({_split_text(report.split)}) of {report.source}; "
         f"{doc['unparsed']:,} unparsed ({counted}); protocol {report.protocol}")
