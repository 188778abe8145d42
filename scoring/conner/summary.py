"""The summary of a CONNER run: one row per input file (one system), laid out like
CONNER's Tables 2–3 — Factuality (Fact-cons., Non-verif., Fact-incon.), Relevance,
Coherence (Coh-sent., Coh-para.), Inform., Helpful., Validity — so that several systems
compare side by side.

Each value is the mean over the file's records that have it (a record without an
answer has no helpfulness; one without gold answer or evidence no validity), and
``scored`` says how many records each mean is over. The three factuality values are
the means of the records' vectors, so they still sum to 1 as the Tables' percentages
sum to 100%. A perspective whose model the run did not have is ``null``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.protocol import PROTOCOL_KEY
from scoring.score.records import significant

__all__ = ["COLUMNS", "Column", "ConnerReport", "summary_row"]


@dataclass(frozen=True)
class Column:
    """One column of Tables 2–3: its group, its header, the summary key, and whether
    the paper prints it as a percentage."""

    group: str
    header: str
    key: str
    percent: bool = False


COLUMNS: tuple[Column, ...] = (
    Column("Factuality", "Fact-cons.", "factual_consistent", percent=True),
    Column("Factuality", "Non-verif.", "non_verified", percent=True),
    Column("Factuality", "Fact-incon.", "factual_inconsistent", percent=True),
    Column("Relevance", "Relevance", "relevance"),
    Column("Coherence", "Coh-sent.", "coherence_sentence"),
    Column("Coherence", "Coh-para.", "coherence_paragraph"),
    Column("Inform.", "Inform.", "informativeness"),
    Column("Helpful.", "Helpful.", "helpfulness"),
    Column("Validity", "Validity", "validity", percent=True),
)
"""Tables 2–3's columns, in the paper's order."""

_FACTUALITY = (("factual_consistent", "consistent"), ("non_verified", "non_verified"),
               ("factual_inconsistent", "inconsistent"))


def summary_row(path: Path, records: Sequence[Mapping[str, Any]],
                scores_file: Path | None = None, *, rounded: bool = True) -> dict[str, Any]:
    """The row of one input file from its records' score documents; ``rounded``: each
    mean to :func:`~scoring.score.records.significant` digits (the released protocol
    keeps full precision)."""

    def mean(values: Sequence[float]) -> float | None:
        if not values:
            return None
        value = sum(values) / len(values)
        return significant(value) if rounded else value

    row: dict[str, Any] = {"system": path.stem, "file": str(path), "records": len(records)}
    scored: dict[str, int] = {}
    facts = [r["factuality"] for r in records if r.get("factuality") is not None]
    for key, part in _FACTUALITY:
        row[key] = mean([f[part] for f in facts])
        scored[key] = len(facts)
    for column in COLUMNS[3:]:
        values = [float(r[column.key]) for r in records if r.get(column.key) is not None]
        row[column.key] = mean(values)
        scored[column.key] = len(values)
    row["scored"] = scored
    row["scores_file"] = str(scores_file) if scores_file is not None else None
    return row


@dataclass
class ConnerReport:
    """What a run scored: the summary rows (one per input file), the options that
    shape the numbers, the models and the runtime that really ran them, and notes (a
    perspective left null and why, records without answer or evidence)."""

    rows: list[dict[str, Any]]
    aggregate: str
    helpfulness_u: int
    seed: int
    models: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    out_dir: Path | None = None
    seconds: float = 0.0
    protocol: str = "kgbench"
    task: str | None = None
    """The released scripts followed (``nq`` or ``wow``), under ``released`` only."""

    def to_json(self) -> dict[str, Any]:
        return {PROTOCOL_KEY: self.protocol, "task": self.task,
                "columns": [{"group": c.group, "header": c.header, "key": c.key,
                             "percent": c.percent} for c in COLUMNS],
                "rows": self.rows, "aggregate": self.aggregate,
                "helpfulness_u": self.helpfulness_u, "seed": self.seed,
                "models": self.models, "notes": self.notes,
                "out_dir": str(self.out_dir) if self.out_dir is not None else None,
                "seconds": round(self.seconds, 3)}
