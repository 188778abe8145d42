"""LadybugDB result rows as Python lists, fact objects and batches of records, for the
embedded store and its sampling (entities and expansion facts: :mod:`kgstore.cypher.rows`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kgstore.models import Literal


def fetch_rows(result: Any) -> list[list[Any]]:
    """All rows of a LadybugDB query result as lists.

    Reads the native result directly when the binding exposes it: the Python wrapper's
    iterator checks the result is open on every row, which cost a quarter of a
    130-row neighbourhood read (1.57 -> 1.20 ms on 5M facts)."""
    native = getattr(result, "_query_result", None)
    if native is None or not hasattr(native, "getNext"):
        return [list(row) for row in result.get_all()]
    rows = []
    while native.hasNext():
        rows.append(native.getNext())
    return rows


def object_from_cols(kind: str, oid: str, value: Any, datatype: Any, lang: Any) -> str | Literal:
    if kind == "Literal":
        return Literal(value, datatype, lang)
    return str(oid)


def record_batches(result: Any, batch: int,
                   record: Callable[[list[Any]], Any]) -> Iterator[list[Any]]:
    """The rows of a LadybugDB query ``result`` made into records, ``batch`` at a time
    (Python objects for one batch at a time); the result is closed at the end, or when
    the caller stops early."""
    try:
        while True:
            rows: list[Any] = []
            while len(rows) < batch and result.has_next():
                rows.append(record(list(result.get_next())))
            if not rows:
                return
            yield rows
    finally:
        result.close()
