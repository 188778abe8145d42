"""The query graph: one typed model for a KGQA logical query.

Every reader's logical form (WebQSP SPARQL, GrailQA ``graph_query``, JSONL triples)
becomes a :class:`QueryGraph`; classification (:mod:`extension.core.shapes`), grounding
(:mod:`extension.core.grounding`) and the extension rules work on it.

Nodes
    * ``entity`` — a KG entity constant (``m.03_r3``, ``Q42``);
    * ``literal`` — a literal constant (``"10"``, ``"2011-01-01"^^xsd:date``);
    * ``answer`` — the answer variable (exactly one);
    * ``variable`` — an intermediate variable; ``is_cvt`` flags CVT/mediator variables.

  Node ids: ``?name`` for variables, the entity id for entities and ``lit:<hash>``
  (:attr:`kgstore.models.Literal.key`) for literals, so a constant appears once however
  often the query mentions it.

Edges
    ``(source, predicate, target)``: one triple pattern, direction as in the KG.

Constraints kept beside the graph (they never become edges)
    * ``classes`` on a node — ``?x type.object.type C``;
    * ``not_equal`` — ``FILTER(?x != ns:m.…)`` or ``?x0 != ?x1``;
    * ``answer_languages`` — WebQSP's ``lang(?x) = '' OR langMatches(lang(?x), 'en')``;
    * ``function`` — ``none``, ``count``, ``argmax``, ``argmin`` or a comparative
      (``<``, ``<=``, ``>``, ``>=``);
    * ``comparisons`` — literal comparisons (WebQSP time constraints, GrailQA
      comparatives) and ``order`` — ``ORDER BY … LIMIT`` (WebQSP superlatives).

The model is pydantic (it crosses the JSON boundary: ``kgbench questions parse``
writes it, later stages read it back); :meth:`QueryGraph.to_networkx` gives the graph
view the shape rules and isomorphism checks use. ``QueryGraph.model_validate_json(
g.model_dump_json()) == g`` for every graph (lossless round trip).
"""

from __future__ import annotations

from typing import Literal as TypingLiteral

import networkx as nx
from pydantic import BaseModel, ConfigDict, model_validator

from kgstore.models import Literal

NodeKind = TypingLiteral["entity", "literal", "answer", "variable"]
Function = TypingLiteral["none", "count", "argmax", "argmin", "<", "<=", ">", ">="]
ComparisonOp = TypingLiteral["<", "<=", ">", ">=", "=", "!="]

TYPE_PREDICATE = "type.object.type"
"""Freebase's class membership predicate; patterns on it become node ``classes``."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class QueryNode(_Frozen):
    """One node. ``value`` is the entity id or the literal's lexical form (``None``
    for variables); ``name`` a readable label when the dataset gives one."""

    id: str
    kind: NodeKind
    value: str | None = None
    datatype: str | None = None
    lang: str | None = None
    name: str | None = None
    is_cvt: bool = False
    classes: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> QueryNode:
        is_var = self.kind in ("answer", "variable")
        if is_var != self.id.startswith("?"):
            raise ValueError(f"node {self.id!r}: variable ids start with '?', constants' do not")
        if is_var and self.value is not None:
            raise ValueError(f"variable {self.id} has a value")
        if not is_var and self.value is None:
            raise ValueError(f"constant {self.id!r} has no value")
        if self.is_cvt and not is_var:
            raise ValueError(f"constant {self.id!r} cannot be flagged as a CVT variable")
        return self

    @property
    def is_variable(self) -> bool:
        return self.kind in ("answer", "variable")

    def literal(self) -> Literal:
        """The :class:`~kgstore.models.Literal` of a literal node."""
        if self.kind != "literal" or self.value is None:
            raise ValueError(f"node {self.id} is not a literal")
        return Literal(self.value, self.datatype, self.lang)


class QueryEdge(_Frozen):
    """One triple pattern ``(source, predicate, target)`` between node ids."""

    source: str
    predicate: str
    target: str


class Comparison(_Frozen):
    """A literal comparison: ``node op value`` with a literal value
    (``"2011-12-31"^^xsd:dateTime``) or another node (``other``).

    With ``predicate`` set, the compared value is ``node``'s ``predicate`` value rather
    than the node itself: WebQSP time constraints compare a CVT's ``from``/``to`` date.
    ``if_present`` means the constraint also holds when that value is missing
    (``FILTER(NOT EXISTS {…} || EXISTS {… FILTER(…)})``).
    """

    node: str
    op: ComparisonOp
    value: str | None = None
    datatype: str | None = None
    other: str | None = None
    predicate: str | None = None
    if_present: bool = False


class OrderBy(_Frozen):
    """``ORDER BY [DESC](node) LIMIT limit OFFSET offset`` — a superlative."""

    node: str
    descending: bool = False
    limit: int | None = None
    offset: int = 0


class QueryGraph(_Frozen):
    nodes: tuple[QueryNode, ...]
    edges: tuple[QueryEdge, ...]
    answer: str
    not_equal: tuple[tuple[str, str], ...] = ()
    answer_languages: tuple[str, ...] = ()
    function: Function = "none"
    comparisons: tuple[Comparison, ...] = ()
    order: OrderBy | None = None

    @model_validator(mode="after")
    def _check(self) -> QueryGraph:
        ids = [n.id for n in self.nodes]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"duplicate node ids {dup}")
        known = set(ids)
        answers = [n.id for n in self.nodes if n.kind == "answer"]
        if answers != [self.answer]:
            raise ValueError(f"exactly one answer node expected, named {self.answer!r}; "
                             f"found {answers}")
        if not self.edges:
            raise ValueError("a query graph needs at least one edge")
        for e in self.edges:
            for end in (e.source, e.target):
                if end not in known:
                    raise ValueError(f"edge {e.source} {e.predicate} {e.target}: "
                                     f"unknown node {end!r}")
        for a, b in self.not_equal:
            if a not in known or b not in known:
                raise ValueError(f"not_equal ({a}, {b}) names an unknown node")
        for c in self.comparisons:
            if c.node not in known or (c.other is not None and c.other not in known):
                raise ValueError(f"comparison on unknown node {c.node!r}")
        if self.order is not None and self.order.node not in known:
            raise ValueError(f"order by unknown node {self.order.node!r}")
        return self

    # -- lookups ----------------------------------------------------------------------
    def node(self, node_id: str) -> QueryNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def entity_ids(self) -> list[str]:
        """Entity constants in node order."""
        return [n.id for n in self.nodes if n.kind == "entity"]

    def predicates(self) -> list[str]:
        """Distinct edge predicates in edge order."""
        return list(dict.fromkeys(e.predicate for e in self.edges))

    def to_networkx(self) -> nx.MultiDiGraph:
        """A ``MultiDiGraph``: nodes carry the :class:`QueryNode` fields as attributes,
        edges are keyed by predicate (``G[s][t][predicate]``)."""
        g = nx.MultiDiGraph()
        for n in self.nodes:
            g.add_node(n.id, **n.model_dump(exclude={"id"}))
        for e in self.edges:
            g.add_edge(e.source, e.target, key=e.predicate, predicate=e.predicate)
        return g


def variable_id(name: str) -> str:
    """``x`` or ``?x`` -> ``?x``."""
    return "?" + name.removeprefix("?")


def constant_node(value: str | Literal, *, name: str | None = None) -> QueryNode:
    """The node for an entity id or a :class:`~kgstore.models.Literal` constant."""
    if isinstance(value, Literal):
        return QueryNode(id=value.key, kind="literal", value=value.value,
                         datatype=value.datatype, lang=value.lang)
    return QueryNode(id=value, kind="entity", value=value, name=name)


Term = str | Literal
"""A triple term while building: ``?var``, an entity id or a Literal."""


def build_query_graph(
    triples: list[tuple[Term, str, Term]],
    *,
    answer: str,
    names: dict[str, str] | None = None,
    cvt_types: frozenset[str] = frozenset(),
    not_equal: list[tuple[Term, Term]] | None = None,
    answer_languages: tuple[str, ...] = (),
    function: Function = "none",
    comparisons: list[Comparison] | None = None,
    order: OrderBy | None = None,
) -> QueryGraph:
    """Assemble a :class:`QueryGraph` from triple patterns.

    ``triples`` hold ``?var`` strings, entity ids or :class:`Literal` objects;
    ``(?x, type.object.type, C)`` becomes a class constraint on ``?x`` instead of an
    edge. ``answer`` names the answer variable. Variables are flagged ``is_cvt`` by
    :func:`is_cvt_variable` against ``cvt_types``. ``names`` gives readable names of
    entity constants. Raises ``ValueError`` when the triples do not mention the answer.
    """
    names = names or {}
    answer = variable_id(answer)
    classes: dict[str, list[str]] = {}
    edges: list[QueryEdge] = []
    nodes: dict[str, QueryNode] = {}

    def add(term: Term) -> str:
        if isinstance(term, Literal):
            node = constant_node(term)
        elif term.startswith("?"):
            node = QueryNode(id=term, kind="answer" if term == answer else "variable")
        else:
            node = constant_node(term, name=names.get(term))
        nodes.setdefault(node.id, node)
        return node.id

    for s, p, o in triples:
        if isinstance(s, Literal):
            raise ValueError(f"literal {s.value!r} in subject position")
        if p == TYPE_PREDICATE and isinstance(s, str) and s.startswith("?") \
                and isinstance(o, str) and not o.startswith("?"):
            add(s)
            classes.setdefault(s, [])
            if o not in classes[s]:
                classes[s].append(o)
            continue
        edge = QueryEdge(source=add(s), predicate=p, target=add(o))
        if edge not in edges:
            edges.append(edge)
    if answer not in nodes:
        raise ValueError(f"the answer variable {answer} appears in no triple pattern")
    for var, types in classes.items():
        nodes[var] = nodes[var].model_copy(update={"classes": tuple(types)})
    for node_id, node in nodes.items():
        if node.kind == "variable" and is_cvt_variable(node_id, edges, node.classes, cvt_types):
            nodes[node_id] = node.model_copy(update={"is_cvt": True})
    pairs = []
    for a, b in not_equal or ():
        pair = (add(a), add(b))
        if pair not in pairs:
            pairs.append(pair)
    return QueryGraph(
        nodes=tuple(nodes.values()), edges=tuple(edges), answer=answer,
        not_equal=tuple(pairs), answer_languages=answer_languages, function=function,
        comparisons=tuple(comparisons or ()), order=order,
    )


def predicate_domain(predicate: str) -> str | None:
    """The type a Freebase property belongs to: ``people.marriage.spouse`` ->
    ``people.marriage`` (a property id is ``domain.type.property``); ``None`` for ids of
    other shapes (Wikidata ``P57``)."""
    parts = predicate.split(".")
    return ".".join(parts[:-1]) if len(parts) >= 3 else None


def is_cvt_variable(var: str, edges: list[QueryEdge] | tuple[QueryEdge, ...],
                    classes: tuple[str, ...], cvt_types: frozenset[str]) -> bool:
    """Whether variable ``var`` stands for a CVT (mediator) node.

    Its candidate types are its class constraints and the domain type of every
    property it is the subject of (``?y people.marriage.spouse ?x`` makes ``?y`` a
    ``people.marriage``); it is a CVT when one of them is in ``cvt_types``. Freebase
    CVT properties always start from the mediator type, which is why the subject side
    suffices.
    """
    types = set(classes)
    types.update(d for e in edges if e.source == var
                 if (d := predicate_domain(e.predicate)) is not None)
    return not types.isdisjoint(cvt_types)


def known_mediator_types() -> frozenset[str]:
    """The curated Freebase mediator types shipped beside this module."""
    from importlib.resources import files

    text = files("extension.core").joinpath("freebase_mediator_types.txt").read_text("utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )
