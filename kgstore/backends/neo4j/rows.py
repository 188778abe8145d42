"""Neo4j result rows as kgbench records (entities, predicates, the facts of an
expansion), for the Bolt store and its read-ahead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgstore.models import Entity, EntityDetail, Fact, Literal, Predicate

__all__ = ["entity_from_row", "fact_from_columns", "predicate_from_row", "row_at_detail"]


def entity_from_row(row: Sequence[Any]) -> Entity:
    """``id, name, aliases, types, is_cvt, description`` -> :class:`Entity`."""
    return Entity(id=row[0], name=row[1], aliases=tuple(row[2] or ()),
                  types=tuple(row[3] or ()), is_cvt=bool(row[4]), description=row[5])


def row_at_detail(kind: str, row: list[Any], detail: EntityDetail | None) -> list[Any]:
    """A row read ahead (``[predicate, *brief record]``, or a literal's) at ``detail``
    (``None``: the neighbour's id only; else "brief")."""
    return row[:2] if kind != "literal" and detail is None else list(row)


def fact_from_columns(kind: str, id: str, predicate: str, columns: Sequence[Any]) -> Fact:
    """The fact of one expansion row of entity ``id`` over ``predicate``: ``kind``
    "out" (object id), "in" (subject id) or "literal" (value, datatype, lang)."""
    if kind == "out":
        return Fact(id, predicate, columns[0])
    if kind == "in":
        return Fact(columns[0], predicate, id)
    return Fact(id, predicate, Literal(columns[0], columns[1], columns[2]))


def predicate_from_row(row: Sequence[Any]) -> Predicate:
    """``p.id, p.label, p.count, p.aliases`` -> :class:`Predicate` (a predicate stored
    before predicates had aliases has none)."""
    return Predicate(row[0], row[1], int(row[2] or 0), tuple(row[3] or ()))
