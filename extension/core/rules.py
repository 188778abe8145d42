"""Query extension rules of CAQA (Table 4) as pure functions on query graphs.

Reference: Hu et al., CAQA, §4.2 and Table 4. From a query of shape

* **single** ``(e0, r0, ?a)``: *union* ``∨_i (e_i, r0, ?a)`` over entities sharing
  e0's name; *intersection way 1* ``(e1, rn, e0) ∧ (e0, r0, ?a)`` (a path);
  *intersection way 2* ``(e0, r0, ?a) ∧ (e1, rn, ?a)`` (a tree); or *none*;
* **path**: way 1 (prepend a hop at the topic entity) or way 2 (add a branch at ?a);
* **tree** ``∧(e_i, r_i, ?a)``: way 1 (prepend a hop at one subject e_k) or way 2.

When a hop is prepended the old topic entity becomes an intermediate variable: the
extended question names e1 and the relation, not e0 ("who composed the music of *the
film James Cameron directed*?").

Complexity of the extended query (Table 4): single-tree -> ``single``, union-tree ->
``union``, tree -> ``intersection``, path -> ``concatenation``.

Nothing here touches the store: candidates come in as arguments (see
:mod:`extension.core.candidates`), so each rule is testable on its own.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral
from typing import TypeVar

from extension.core.asked_relations import asked_weight
from extension.core.labels import Complexity
from extension.core.query_graph import QueryEdge, QueryGraph, QueryNode

Rule = TypingLiteral["none", "union", "intersection_way1", "intersection_way2"]
ResultShape = TypingLiteral["single", "path", "tree"]

RULES_BY_SHAPE: dict[str, tuple[Rule, ...]] = {
    "single": ("union", "intersection_way1", "intersection_way2", "none"),
    "path": ("intersection_way1", "intersection_way2"),
    "tree": ("intersection_way1", "intersection_way2"),
}
"""The rules Table 4 allows for each input shape (each equally likely)."""


def rule_order(shape: str, rng: random.Random, first: Rule | None = None) -> list[Rule]:
    """The rules of ``shape`` in the order to try them: the first is the drawn rule
    (uniformly), the rest the fail-over order; both come from ``rng``. ``first`` (a
    rule of ``shape``: a ``--domain`` seed question's, drawn for a complexity) goes
    first instead, the others keeping their drawn order; ``rng`` is drawn from alike."""
    if shape not in RULES_BY_SHAPE:
        raise ValueError(f"no extension rules for shape {shape!r}")
    rules = list(RULES_BY_SHAPE[shape])
    rng.shuffle(rules)
    if first is not None:
        # "none" fits every shape: a domain seed question may already be the question
        # of its complexity (extension.inputs.complexity_mix).
        if first in rules:
            rules.remove(first)
        if first in rules or first == "none" or first in RULES_BY_SHAPE[shape]:
            rules.insert(0, first)
    return rules


def result_shape(rule: Rule, shape: str) -> ResultShape:
    """Shape of the extended query (Table 4): way 1 gives a path (a tree stays a
    tree with one longer branch), way 2 a tree; union and none keep the shape."""
    if rule == "intersection_way2":
        return "tree"
    if rule == "intersection_way1":
        return "tree" if shape == "tree" else "path"
    return "single" if shape == "single" else shape  # type: ignore[return-value]


def complexity_of(rule: Rule, shape: ResultShape) -> Complexity:
    """Table 4: single-tree -> single, union-tree -> union, tree -> intersection,
    path -> concatenation."""
    if rule == "union":
        return "union"
    if shape == "path":
        return "concatenation"
    if shape == "tree":
        return "intersection"
    return "single"


@dataclass(frozen=True, slots=True)
class Hop:
    """A candidate edge between a new entity and a node of the query: ``(entity,
    predicate, node)`` when ``entity_is_subject`` else ``(node, predicate, entity)``.

    A dataclass, not a pydantic model: it never crosses a JSON boundary, and
    :func:`seeded_sample` sorts candidates by ``repr`` (the dataclass repr is the same
    text as the model's, at a fraction of the cost: 14% of a question's CPU before)."""

    entity: str
    predicate: str
    entity_is_subject: bool = True
    name: str | None = None

    def edge(self, node: str) -> QueryEdge:
        if self.entity_is_subject:
            return QueryEdge(source=self.entity, predicate=self.predicate, target=node)
        return QueryEdge(source=node, predicate=self.predicate, target=self.entity)


def fresh_variable(graph: QueryGraph, stem: str = "v") -> str:
    """A variable id not used in ``graph`` (``?v1``, ``?v2``, …)."""
    used = {n.id for n in graph.nodes}
    i = 1
    while f"?{stem}{i}" in used:
        i += 1
    return f"?{stem}{i}"


def replace_constant(graph: QueryGraph, old: str, new: QueryNode) -> QueryGraph:
    """``graph`` with constant node ``old`` replaced by ``new`` (edges, ``not_equal``
    and comparisons follow). ``new.id`` must not already be in the graph."""
    if any(n.id == new.id for n in graph.nodes):
        raise ValueError(f"{new.id} is already a node of the query")
    if graph.node(old).is_variable:
        raise ValueError(f"{old} is a variable, not a constant")

    def sub(node_id: str) -> str:
        return new.id if node_id == old else node_id

    return graph.model_copy(update={
        "nodes": tuple(new if n.id == old else n for n in graph.nodes),
        "edges": tuple(QueryEdge(source=sub(e.source), predicate=e.predicate,
                                 target=sub(e.target)) for e in graph.edges),
        "not_equal": tuple((sub(a), sub(b)) for a, b in graph.not_equal),
        "comparisons": tuple(c.model_copy(update={"node": sub(c.node), "other": c.other and
                                                  sub(c.other)}) for c in graph.comparisons),
    })


def union_disjuncts(graph: QueryGraph, subject: str, alternatives: Sequence[QueryNode],
                    predicates: Sequence[str] | None = None) -> tuple[QueryGraph, ...]:
    """Union rule: the original query plus one copy per same-name entity in place of
    ``subject`` — the disjuncts of ``∨_i (e_i, r0, ?a)``. With ``predicates`` (one per
    alternative), the subject's edge of each copy takes that predicate: a relation of
    r0's family (a TV episode's ``directed_by`` beside a film's)."""
    if not alternatives:
        raise ValueError("the union rule needs at least one same-name entity")
    if predicates is not None and len(predicates) != len(alternatives):
        raise ValueError("one predicate per same-name entity")
    out = [graph]
    for i, alt in enumerate(alternatives):
        copy = replace_constant(graph, subject, alt)
        if predicates is not None:
            copy = copy.model_copy(update={"edges": tuple(
                QueryEdge(source=e.source, predicate=predicates[i], target=e.target)
                if alt.id in (e.source, e.target) else e for e in copy.edges)})
        out.append(copy)
    return tuple(out)


def prepend_hop(graph: QueryGraph, subject: str, hop: Hop) -> QueryGraph:
    """Intersection way 1: ``(e1, rn, e_k)`` before subject ``e_k``, which becomes an
    intermediate variable (its id stays as the variable's ``name`` hint)."""
    old = graph.node(subject)
    if old.is_variable:
        raise ValueError(f"{subject} is not a constant subject")
    if hop.entity in {n.id for n in graph.nodes}:
        raise ValueError(f"{hop.entity} is already in the query")
    var = QueryNode(id=fresh_variable(graph), kind="variable", name=old.name)
    extended = replace_constant(graph, subject, var)
    # The new topic entity is no answer of its own question (WebQSP writes the same
    # FILTER(?x != topic) for its topic entities).
    return extended.model_copy(update={
        "nodes": (*extended.nodes, QueryNode(id=hop.entity, kind="entity", value=hop.entity,
                                             name=hop.name)),
        "edges": (hop.edge(var.id), *extended.edges),
        "not_equal": (*extended.not_equal, (extended.answer, hop.entity)),
    })


def add_branch(graph: QueryGraph, hop: Hop) -> QueryGraph:
    """Intersection way 2: ``(e1, rn, ?a)`` (or ``(?a, rn, e1)``), a new branch
    converging on the answer."""
    if hop.entity in {n.id for n in graph.nodes}:
        raise ValueError(f"{hop.entity} is already in the query")
    return graph.model_copy(update={
        "nodes": (*graph.nodes, QueryNode(id=hop.entity, kind="entity", value=hop.entity,
                                          name=hop.name)),
        "edges": (*graph.edges, hop.edge(graph.answer)),
    })


_T = TypeVar("_T")


def weighted_order(items: Sequence[_T], weights: Sequence[float], rng: random.Random
                   ) -> list[_T]:
    """A random order of ``items`` drawn without replacement with probability
    proportional to ``weights`` (Efraimidis & Spirakis 2006: sort by ``log(u) / w``)."""
    keys = [math.log(1.0 - rng.random()) / w for w in weights]
    return [items[i] for i in sorted(range(len(items)), key=lambda i: -keys[i])]


def asked_sample(hops: Sequence[Hop], k: int, rng: random.Random,
                 weight: Callable[[str], float] = asked_weight) -> list[Hop]:
    """Up to ``k`` candidate hops in a random order where relations people ask about
    come first more often (:func:`extension.core.asked_relations.asked_weight`, the
    prior from WebQSP's and GrailQA's logical forms); sorted first, as
    :func:`seeded_sample`, so the draw depends only on the values and the seed."""
    pool = sorted(hops, key=repr)
    return weighted_order(pool, [weight(h.predicate) for h in pool], rng)[:k]


def seeded_sample(items: Sequence[object], k: int, rng: random.Random) -> list[object]:
    """Up to ``k`` items in a random order drawn from ``rng``; ``items`` are sorted
    first so the result depends only on their values and the seed, not on the order a
    store returned them in."""
    pool = sorted(items, key=repr)
    rng.shuffle(pool)
    return pool[:k]
