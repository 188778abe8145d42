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

from kgbench.service.models import GraphEdge, GraphJson, GraphNode
from kgstore import Entity, Fact, Literal, Subgraph

__all__ = ["edge_id", "literal_node_id", "subgraph_graph"]

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


def subgraph_graph(sub: Subgraph, *, center: str | None = None,
                   highlight: Iterable[Triple] = ()) -> GraphJson:
    """``sub`` as nodes and edges; ``center`` is flagged, and facts named in
    ``highlight`` (``(subject, predicate, object)``, a literal object by its value)
    are flagged as edited."""
    wanted = set(highlight)
    nodes: dict[str, GraphNode] = {}

    def entity_node(id: str) -> None:
        if id in nodes:
            return
        entity = sub.entities.get(id)
        nodes[id] = GraphNode(
            id=id, label=_entity_label(entity, id),
            kind="cvt" if entity is not None and entity.is_cvt else "entity",
            types=list(entity.types) if entity is not None else [], center=id == center)

    if center is not None:
        entity_node(center)
    for id in sub.entities:
        entity_node(id)
    edges: dict[str, GraphEdge] = {}
    for fact in sub.facts:
        entity_node(fact.subject)
        if isinstance(fact.object, Literal):
            target = literal_node_id(fact.subject, fact.predicate, fact.object)
            nodes.setdefault(target, GraphNode(
                id=target, label=fact.object.value, kind="literal",
                types=[fact.object.datatype] if fact.object.datatype else []))
        else:
            target = fact.object
            entity_node(target)
        key = edge_id(fact)
        edges.setdefault(key, GraphEdge(
            id=key, source=fact.subject, target=target, predicate=fact.predicate,
            label=fact.predicate.rsplit(".", 1)[-1], highlight=_highlighted(fact, wanted)))
    return GraphJson(nodes=list(nodes.values()), edges=list(edges.values()),
                     truncated=sub.truncated)
