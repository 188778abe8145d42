"""Rows that both backends' reads return in the same column order, as records: an
entity's record (``id, name, aliases, types, is_cvt, description``) and the columns of
one fact of an expansion (the neighbour's id, or a literal's value, datatype and
language)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgstore.models import Entity, Fact, Literal

__all__ = ["entity_from_row", "expansion_fact"]


def entity_from_row(row: Sequence[Any]) -> Entity:
    """``id, name, aliases, types, is_cvt, description`` -> :class:`Entity`."""
    return Entity(
        id=row[0], name=row[1], aliases=tuple(row[2] or ()), types=tuple(row[3] or ()),
        is_cvt=bool(row[4]), description=row[5],
    )


def expansion_fact(kind: str, id: str, predicate: str, columns: Sequence[Any]) -> Fact:
    """The fact of one expansion row of entity ``id`` over ``predicate``: ``kind``
    "out" (object id), "in" (subject id) or "literal" (value, datatype, lang)."""
    if kind == "out":
        return Fact(id, predicate, columns[0])
    if kind == "in":
        return Fact(columns[0], predicate, id)
    return Fact(id, predicate, Literal(columns[0], columns[1], columns[2]))
