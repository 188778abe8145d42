"""The values and warnings of a user's read-only Cypher on the Neo4j store
(:meth:`~kgstore.backends.neo4j.store.Neo4jStore.cypher`, which runs it): Bolt values
made JSON-friendly in the embedded store's shapes, and the first name a query uses that
the kgbench schema does not know."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

import neo4j

from kgstore.backends.neo4j.schema import LABELS, PROPERTY_KEYS, REL_TYPES
from kgstore.cypher.values import ENGINE_DST, ENGINE_ID, ENGINE_SRC, LABEL

__all__ = ["plain_value", "unknown_names"]


def plain_value(value: Any) -> Any:
    """Bolt values -> JSON-friendly Python, shaped as the embedded store's rows."""
    if isinstance(value, neo4j.graph.Node):
        return {LABEL: next(iter(sorted(value.labels)), None), ENGINE_ID: value.element_id,
                **plain_value(dict(value))}
    if isinstance(value, neo4j.graph.Relationship):
        ends = (value.start_node, value.end_node)
        return {LABEL: value.type, ENGINE_SRC: getattr(ends[0], "element_id", None),
                ENGINE_DST: getattr(ends[1], "element_id", None), **plain_value(dict(value))}
    if isinstance(value, neo4j.graph.Path):
        return [plain_value(r) for r in value.relationships]
    if isinstance(value, dict):
        return {k: plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, _dt.date | _dt.datetime | _dt.time):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return str(value)
    return value


# GQL status of Neo4j's warnings about a label, relationship type or property key that
# the database does not know, and how each names it.
_UNKNOWN = {"01N50": "label", "01N51": "relationship type", "01N52": "property"}
_UNKNOWN_NAME = re.compile(r"`((?:[^`]|``)*)`")


def unknown_names(summary: neo4j.ResultSummary) -> str | None:
    """"property 'x'" for the first name of a user query that is not in the kgbench
    schema (:data:`~kgstore.backends.neo4j.schema.PROPERTY_KEYS`), else ``None``."""
    known = {"label": set(LABELS), "relationship type": set(REL_TYPES),
             "property": PROPERTY_KEYS}
    for status in summary.gql_status_objects:
        kind = _UNKNOWN.get(status.gql_status)
        found = _UNKNOWN_NAME.search(status.status_description) if kind else None
        if kind and found:
            name = found.group(1).replace("``", "`")
            if name not in known[kind]:
                return f"{kind} {name!r}"
    return None
