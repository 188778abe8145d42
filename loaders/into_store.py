"""Loading into a store at a location: what every ``kgbench load <format>`` does around
its loader, without printing anything (the command line and a future service share it).

:func:`load_into_store` checks the inputs before touching the store, with ``force``
removes the old store, opens (or creates) the store, runs one loader, and when parsing
fails (strict mode, corrupt or wrong-format data) removes a store it created, so
nothing is left behind. :func:`load_report_doc` is the JSON document of a load.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgstore import Store, StoreError, StoreStats, open_store, remove_store, store_exists
from kgstore.store import ProgressCallback
from loaders.errors import LoaderError
from loaders.pipeline import LoadReport, check_readable

__all__ = ["LoadFunction", "StoreLoad", "check_inputs", "load_into_store", "load_report_doc",
           "store_totals"]

LoadFunction = Callable[[Store, ProgressCallback | None], LoadReport]
"""``load(store, progress)``: runs one loader (what :func:`load_into_store` wraps)."""


@dataclass(frozen=True, slots=True)
class StoreLoad:
    """The outcome of :func:`load_into_store`: the loader's report, and whether an old
    store was removed first (``force``)."""

    report: LoadReport
    removed_old_store: bool


def check_inputs(paths: Sequence[Path]) -> None:
    """Fail before touching the store when an input cannot be read at all
    (:class:`~loaders.errors.InputFileError` naming the file and what to do)."""
    for p in paths:
        check_readable(p)


def load_into_store(location: str, inputs: Sequence[Path], load: LoadFunction, *,
                    force: bool = False, progress: ProgressCallback | None = None
                    ) -> StoreLoad:
    """Check ``inputs``, with ``force`` delete the store at ``location``, open (or
    create) it and run ``load(store, progress)``.

    A :class:`~loaders.errors.LoaderError` (strict mode, unreadable data) imports
    nothing: a store this call created is removed again before the error propagates.
    """
    check_inputs(inputs)
    removed = False
    if force and store_exists(location):
        remove_store(location)
        removed = True
    created = not store_exists(location)
    try:
        with open_store(location, create=True) as store:
            return StoreLoad(load(store, progress), removed)
    except LoaderError:
        # Parse-phase failures (strict mode, unreadable data) import nothing: do not
        # leave behind an empty store that this call created.
        if created and store_exists(location):
            remove_store(location)
        raise


def store_totals(location: str) -> StoreStats | None:
    """The store's counts after a load, or ``None`` when it cannot be read now."""
    with contextlib.suppress(StoreError):
        with open_store(location, read_only=True) as s:
            return s.stats()
    return None


def load_report_doc(report: LoadReport, location: str, *,
                    totals: StoreStats | None = None) -> dict[str, Any]:
    """The JSON document of a load (``--json`` and ``--report FILE``): the full report,
    ``totals`` (lines, triples, malformed), ``summary`` (:meth:`LoadReport.summary`:
    dropped by reason, top predicates, store changes), malformed examples and the
    store's totals after the load."""
    doc: dict[str, Any] = {
        "store": location, "report": report,
        "totals": {"lines": report.lines, "triples": report.triples,
                   "malformed": report.malformed},
        "summary": report.summary(),
        "malformed_examples": report.examples,
    }
    if totals is not None:
        doc["store_totals"] = {"entities": totals.entities, "cvt_entities": totals.cvt_entities,
                               "literals": totals.literals, "facts": totals.facts,
                               "predicates": totals.predicates}
    return doc
