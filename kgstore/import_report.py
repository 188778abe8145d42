"""What a bulk import reports (:meth:`~kgstore.store.Store.import_stage`): its counts,
and the clock of its steps that every backend's importer shares, so that both backends
report the same steps to a progress display."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgstore.store import ProgressCallback

__all__ = ["IMPORT_STEPS", "ImportReport", "ImportSteps"]


@dataclass(slots=True)
class ImportReport:
    """What a bulk import changed. ``*_new`` rows were absent before; duplicates of
    stored facts (or repeated within the input) are counted in ``facts_duplicate``;
    ``names_replaced`` counts stored entities whose name changed (the old name is
    kept as an alias, so it still finds the entity)."""

    entities_new: int = 0
    entities_updated: int = 0
    names_replaced: int = 0
    entities_placeholder: int = 0
    literals_new: int = 0
    facts_new: int = 0
    facts_duplicate: int = 0
    predicates_new: int = 0
    seconds: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)


IMPORT_STEPS = ("read stage", "entities", "literals", "facts", "hubs", "names", "predicates",
                "statistics", "search index")
"""The steps of every backend's bulk import, in order (its progress counts them)."""


class ImportSteps:
    """The clock of one bulk import: :meth:`done` records a step's seconds in
    ``report.steps`` and reports it to ``progress`` as one of :data:`IMPORT_STEPS`."""

    def __init__(self, report: ImportReport, progress: ProgressCallback | None) -> None:
        self.report = report
        self.progress = progress
        self._started = time.perf_counter()
        self._count = 0

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.report.steps[name] = round(now - self._started, 3)
        self._started = now
        self._count += 1
        if self.progress:
            self.progress(f"import: {name}", self._count, len(IMPORT_STEPS))
