"""Node and relationship values of a power user's Cypher result, shaped alike on both
backends.

A backend turns each node into ``{"_LABEL": label, "_ID": engine id, **properties}``
and each relationship into ``{"_LABEL": type, "_SRC": engine id, "_DST": engine id,
**properties}`` (the engine ids are what each engine calls its records: an element id,
a table and offset). :func:`link_graph_values` then gives every relationship whose
ends the result also returns ``"_START"`` and ``"_END"``: the ``id`` property of
those nodes (an entity's id, a literal's key), which is what a reader of the result
can follow (the web UI draws the rows as a graph with them), and drops the engine ids.
It also drops null properties: an untyped node of the embedded store reads every
property of every node table, all null but its own, which no reader wants to see.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["END", "ENGINE_ID", "ENGINE_SRC", "ENGINE_DST", "LABEL", "START",
           "link_graph_values"]

LABEL = "_LABEL"
ENGINE_ID, ENGINE_SRC, ENGINE_DST = "_ID", "_SRC", "_DST"
START, END = "_START", "_END"
_ENGINE_KEYS = (ENGINE_ID, ENGINE_SRC, ENGINE_DST)


def _walk(value: Any) -> Iterable[dict[str, Any]]:
    """Every node or relationship value inside ``value`` (lists and maps included)."""
    if isinstance(value, dict):
        if LABEL in value:
            yield value
        for inner in value.values():
            yield from _walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _walk(inner)


def _clean(value: Any, ids: dict[Any, str]) -> Any:
    if isinstance(value, list):
        return [_clean(v, ids) for v in value]
    if not isinstance(value, dict):
        return value
    graph = LABEL in value
    cleaned = {k: _clean(v, ids) for k, v in value.items()
               if k not in _ENGINE_KEYS and not (graph and v is None)}
    if graph:
        for engine_key, key in ((ENGINE_SRC, START), (ENGINE_DST, END)):
            end = ids.get(value.get(engine_key))
            if end is not None:
                cleaned[key] = end
    return cleaned


def link_graph_values(rows: list[list[Any]]) -> list[list[Any]]:
    """``rows`` with the node and relationship values shaped as the module docstring
    says (relationship ends by node ``id``, no engine ids, no null properties)."""
    ids: dict[Any, str] = {}
    for row in rows:
        for value in _walk(row):
            engine = value.get(ENGINE_ID)
            if engine is not None and value.get("id") is not None:
                ids[engine] = str(value["id"])
    return [[_clean(v, ids) for v in row] for row in rows]
