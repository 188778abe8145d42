"""A :class:`~kgstore.Subgraph` as graph JSON for drawing (the web UI's
neighbourhood view and a sample's subgraph).

Entities are nodes; CVTs are nodes of kind ``"cvt"`` (drawn as small mediators);
every literal fact gets a leaf of its own (``"literal"``), so two films of 1997 do not
share a node "1997". Ids are stable: a literal leaf's id hashes its fact, an edge's id
its triple, so a client can merge a graph expanded from another node into the one it
has.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from kgbench.service.models import GraphJson
from kgstore import Entity, Fact, Literal, Subgraph

__all__ = ["edge_id", "graph_doc", "literal_node_id", "subgraph_graph"]

Triple = tuple[str, str, str]


def _digest(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8", "surrogatepass"),
                        usedforsecurity=False).hexdigest()[:20]


def literal_node_id(subject: str, predicate: str, literal: Literal) -> str:
    """The id of the leaf that draws ``literal`` as the object of one fact."""
    return "lit:" + _digest(subject, predicate, literal.value, literal.datatype or "",
                            literal.lang or "")


def edge_id(fact: Fact) -> str:
    """The id of the edge that draws ``fact``."""
    obj = fact.object
    third = obj if isinstance(obj, str) else f"{obj.value}\x1e{obj.datatype or ''}\x1e{obj.lang or ''}"
    return "e:" + _digest(fact.subject, fact.predicate, third)


def _entity_label(entity: Entity | None, id: str) -> str:
    """A name; for a nameless CVT, the last part of its type (``performance``)."""
    if entity is None:
        return id
    if entity.name:
        return entity.name
    if entity.is_cvt and entity.types:
        return entity.types[0].rsplit(".", 1)[-1]
    return id


def _highlighted(fact: Fact, wanted: set[Triple]) -> bool:
    """Whether a highlight triple names ``fact``: its object given as the entity id,
    or as a literal's value or key."""
    obj = fact.object
    thirds = (obj,) if isinstance(obj, str) else (obj.value, obj.key, str(obj))
    return any((fact.subject, fact.predicate, third) in wanted for third in thirds)


def graph_doc(sub: Subgraph, *, center: str | None = None,
              highlight: Iterable[Triple] = ()) -> dict[str, Any]:
    """``sub`` as nodes and edges, as plain JSON values in the shape of
    :class:`~kgbench.service.models.GraphJson` (every field given); ``center`` is
    flagged, and facts named in ``highlight`` (``(subject, predicate, object)``, a
    literal object by its value) are flagged as edited. Plain values, not models: a
    2-hop neighbourhood has thousands of nodes and edges, and a model per node cost a
    fifth of its answer."""
    wanted = set(highlight)
    nodes: dict[str, dict[str, Any]] = {}

    def entity_node(id: str) -> None:
        if id in nodes:
            return
        entity = sub.entities.get(id)
        nodes[id] = {"id": id, "label": _entity_label(entity, id),
                     "kind": "cvt" if entity is not None and entity.is_cvt else "entity",
                     "types": list(entity.types) if entity is not None else [],
                     "center": id == center}

    if center is not None:
        entity_node(center)
    for id in sub.entities:
        entity_node(id)
    edges: dict[str, dict[str, Any]] = {}
    for fact in sub.facts:
        entity_node(fact.subject)
        if isinstance(fact.object, Literal):
            target = literal_node_id(fact.subject, fact.predicate, fact.object)
            if target not in nodes:
                nodes[target] = {"id": target, "label": fact.object.value, "kind": "literal",
                                 "types": [fact.object.datatype] if fact.object.datatype else [],
                                 "center": False}
        else:
            target = fact.object
            entity_node(target)
        key = edge_id(fact)
        if key not in edges:
            edges[key] = {"id": key, "source": fact.subject, "target": target,
                          "predicate": fact.predicate,
                          "label": fact.predicate.rsplit(".", 1)[-1],
                          # (a neighbourhood highlights nothing: 8% of a 2-hop answer)
                          "highlight": bool(wanted) and _highlighted(fact, wanted)}
    return {"nodes": list(nodes.values()), "edges": list(edges.values()),
            "truncated": sub.truncated}


def subgraph_graph(sub: Subgraph, *, center: str | None = None,
                   highlight: Iterable[Triple] = ()) -> GraphJson:
    """:func:`graph_doc` as the model (a sample's subgraph, checked on the way)."""
    return GraphJson.model_validate(graph_doc(sub, center=center, highlight=highlight))
