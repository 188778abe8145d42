"""Neo4j result rows as kgbench records: predicates, and the rows a read-ahead keeps
at the detail a later read asks for (entities and expansion facts:
:mod:`kgstore.cypher.rows`, shared with the embedded store)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgstore.models import EntityDetail, Predicate

__all__ = ["predicate_from_row", "row_at_detail"]


def row_at_detail(kind: str, row: list[Any], detail: EntityDetail | None) -> list[Any]:
    """A row read ahead (``[predicate, *brief record]``, or a literal's) at ``detail``
    (``None``: the neighbour's id only; else "brief")."""
    return row[:2] if kind != "literal" and detail is None else list(row)


def predicate_from_row(row: Sequence[Any]) -> Predicate:
    """``p.id, p.label, p.count, p.aliases`` -> :class:`Predicate` (a predicate stored
    before predicates had aliases has none)."""
    return Predicate(row[0], row[1], int(row[2] or 0), tuple(row[3] or ()))
