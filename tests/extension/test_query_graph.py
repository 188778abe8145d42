"""The query-graph model (extension.core.query_graph): validation, building, CVT flags,
lossless JSON round trip and the networkx view. Every expected value is hand-written."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from extension.core.query_graph import (
    TYPE_PREDICATE,
    Comparison,
    OrderBy,
    QueryEdge,
    QueryGraph,
    QueryNode,
    Term,
    build_query_graph,
    constant_node,
    is_cvt_variable,
    known_mediator_types,
    predicate_domain,
    variable_id,
)
from kgstore.models import Literal

CVT = frozenset({"people.marriage", "film.performance", "education.education"})


def node(node_id: str, kind: str = "", **kw: object) -> QueryNode:
    """A node; the kind defaults to variable for ``?ids`` and entity otherwise."""
    if not kind:
        kind = "variable" if node_id.startswith("?") else "entity"
    if kind in ("entity", "literal") and "value" not in kw:
        kw["value"] = node_id
    return QueryNode(id=node_id, kind=kind, **kw)  # type: ignore[arg-type]


def edge(s: str, p: str, o: str) -> QueryEdge:
    return QueryEdge(source=s, predicate=p, target=o)


def simple(**kw: object) -> QueryGraph:
    """``(m.1, p.q.r, ?a)`` with the given extra fields."""
    fields: dict[str, object] = dict(nodes=(node("m.1"), node("?a", "answer")),
                                     edges=(edge("m.1", "p.q.r", "?a"),), answer="?a")
    fields.update(kw)
    return QueryGraph(**fields)  # type: ignore[arg-type]


# -- node validation -----------------------------------------------------------------------
@pytest.mark.parametrize("kw, message", [
    (dict(id="x", kind="variable"), "variable ids start with '?'"),
    (dict(id="?x", kind="entity", value="m.1"), "variable ids start with '?'"),
    (dict(id="?x", kind="answer", value="m.1"), r"variable \?x has a value"),
    (dict(id="m.1", kind="entity"), "constant 'm.1' has no value"),
    (dict(id="lit:1", kind="literal"), "constant 'lit:1' has no value"),
    (dict(id="m.1", kind="entity", value="m.1", is_cvt=True), "cannot be flagged as a CVT"),
    (dict(id="?x", kind="variable", colour="red"), "Extra inputs are not permitted"),
    (dict(id="?x", kind="class"), "Input should be 'entity', 'literal', 'answer' or"),
])
def test_node_validation(kw: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        QueryNode(**kw)  # type: ignore[arg-type]


def test_node_is_variable_and_literal() -> None:
    assert node("?x").is_variable and node("?a", "answer").is_variable
    assert not node("m.1").is_variable
    lit = Literal("1961", "http://www.w3.org/2001/XMLSchema#gYear")
    n = constant_node(lit)
    assert (n.id, n.kind, n.value, n.datatype, n.lang) == (lit.key, "literal", "1961",
                                                           "xsd:gYear", None)
    assert n.literal() == lit
    with pytest.raises(ValueError, match="not a literal"):
        node("m.1").literal()


def test_nodes_are_frozen() -> None:
    n = node("?x")
    with pytest.raises(ValidationError):
        n.is_cvt = True  # type: ignore[misc]


# -- graph validation ----------------------------------------------------------------------
def test_duplicate_node_ids() -> None:
    with pytest.raises(ValidationError, match=r"duplicate node ids \['m.1'\]"):
        simple(nodes=(node("m.1"), node("m.1"), node("?a", "answer")))


@pytest.mark.parametrize("nodes, answer, found", [
    ((node("m.1"), node("?a")), "?a", r"\[\]"),
    ((node("m.1"), node("?a", "answer"), node("?b", "answer")), "?a", r"\['\?a', '\?b'\]"),
    ((node("m.1"), node("?a", "answer")), "?b", r"\['\?a'\]"),
])
def test_exactly_one_answer(nodes: tuple[QueryNode, ...], answer: str, found: str) -> None:
    with pytest.raises(ValidationError, match="exactly one answer node expected.*found " + found):
        simple(nodes=nodes, answer=answer)


def test_needs_an_edge() -> None:
    with pytest.raises(ValidationError, match="at least one edge"):
        simple(edges=())


@pytest.mark.parametrize("kw, message", [
    (dict(edges=(edge("m.1", "p.q.r", "?zz"),)), "unknown node '\\?zz'"),
    (dict(edges=(edge("m.9", "p.q.r", "?a"),)), "unknown node 'm.9'"),
    (dict(not_equal=(("?a", "m.2"),)), r"not_equal \(\?a, m.2\) names an unknown node"),
    (dict(comparisons=(Comparison(node="?b", op="<", value="3"),)), "comparison on unknown"),
    (dict(comparisons=(Comparison(node="?a", op="<", other="?b"),)), "comparison on unknown"),
    (dict(order=OrderBy(node="?d")), "order by unknown node '\\?d'"),
    (dict(function="median"), "Input should be 'none', 'count'"),
])
def test_references_must_be_known(kw: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        simple(**kw)


def test_lookups() -> None:
    g = build_query_graph([("m.1", "a.b.c", "?y"), ("?y", "d.e.f", "?a"), ("?y", "a.b.c", "m.2"),
                           ("m.1", "a.b.c", "?y")], answer="a")
    assert g.entity_ids() == ["m.1", "m.2"]
    assert g.predicates() == ["a.b.c", "d.e.f"]
    assert g.node("?y").kind == "variable"
    with pytest.raises(KeyError):
        g.node("?nope")
    assert len(g.edges) == 3   # the repeated pattern is kept once


# -- building --------------------------------------------------------------------------------
def test_variable_id() -> None:
    assert variable_id("x") == variable_id("?x") == "?x"


def test_build_answer_and_constants() -> None:
    lit = Literal("1961", "xsd:gYear")
    g = build_query_graph([("m.1", "people.person.date_of_birth", "?a"),
                           ("?a", "x.y.z", lit), ("?b", "x.y.w", lit)],
                          answer="?a", names={"m.1": "Barack Obama"})
    assert g.answer == "?a"
    assert [(n.id, n.kind) for n in g.nodes] == [("m.1", "entity"), ("?a", "answer"),
                                                 (lit.key, "literal"), ("?b", "variable")]
    assert g.node("m.1").name == "Barack Obama"
    assert g.node(lit.key).value == "1961" and g.node(lit.key).datatype == "xsd:gYear"
    assert [e.target for e in g.edges][1:] == [lit.key, lit.key]   # one node per constant


def test_build_class_triples_become_classes() -> None:
    g = build_query_graph([("?a", TYPE_PREDICATE, "film.film"), ("m.1", "film.director.film", "?a"),
                           ("?a", TYPE_PREDICATE, "common.topic"),
                           ("?a", TYPE_PREDICATE, "film.film")], answer="?a")
    assert g.node("?a").classes == ("film.film", "common.topic")
    assert g.edges == (edge("m.1", "film.director.film", "?a"),)
    assert TYPE_PREDICATE not in g.predicates()


def test_build_type_edge_with_variable_class_or_constant_subject_stays_an_edge() -> None:
    g = build_query_graph([("m.1", "p.q.r", "?a"), ("?a", TYPE_PREDICATE, "?t"),
                           ("m.1", TYPE_PREDICATE, "people.person")], answer="?a")
    assert g.node("?a").classes == ()
    assert [e.predicate for e in g.edges] == ["p.q.r", TYPE_PREDICATE, TYPE_PREDICATE]


def test_build_errors() -> None:
    with pytest.raises(ValueError, match="the answer variable \\?x appears in no triple"):
        build_query_graph([("m.1", "p.q.r", "?a")], answer="x")
    with pytest.raises(ValueError, match="literal '3' in subject position"):
        build_query_graph([(Literal("3"), "p.q.r", "?a")], answer="a")


def test_build_constraints() -> None:
    lit = Literal("x", lang="EN")
    g = build_query_graph(
        [("m.1", "p.q.r", "?a"), ("?a", "p.q.s", "?b")], answer="?a",
        not_equal=[("?a", "m.1"), ("?a", "m.1"), ("?a", "?b"), ("?a", lit), ("?a", "m.9")],
        answer_languages=("en",), function="argmax",
        comparisons=[Comparison(node="?b", op=">=", value="3", datatype="xsd:int")],
        order=OrderBy(node="?b", descending=True, limit=1))
    assert g.not_equal == (("?a", "m.1"), ("?a", "?b"), ("?a", lit.key), ("?a", "m.9"))
    # a constant only a filter names still becomes a node (the pair must name nodes) ...
    assert g.node("m.9").kind == "entity" and g.node(lit.key).lang == "en"
    # ... but no edge
    assert {e.source for e in g.edges} | {e.target for e in g.edges} == {"m.1", "?a", "?b"}
    assert (g.answer_languages, g.function, g.order) == (
        ("en",), "argmax", OrderBy(node="?b", descending=True, limit=1))
    assert g.comparisons[0].value == "3"


# -- CVT flags ---------------------------------------------------------------------------------
def test_predicate_domain() -> None:
    assert predicate_domain("people.marriage.spouse") == "people.marriage"
    assert predicate_domain("base.schemastaging.athlete_salary.team") == \
        "base.schemastaging.athlete_salary"
    assert predicate_domain("P57") is None
    assert predicate_domain("a.b") is None


def test_cvt_by_predicate_domain_of_outgoing_edges() -> None:
    g = build_query_graph([("m.1", "people.person.spouse_s", "?y"),
                           ("?y", "people.marriage.spouse", "?a")], answer="?a", cvt_types=CVT)
    assert g.node("?y").is_cvt
    assert not g.node("?a").is_cvt


def test_cvt_not_from_incoming_edges() -> None:
    # ?y is only the object of a people.marriage property: the subject side decides
    g = build_query_graph([("m.1", "film.film.directed_by", "?y"),
                           ("?x", "people.marriage.spouse", "?y"),
                           ("?y", "people.person.place_of_birth", "?a")],
                          answer="?a", cvt_types=CVT)
    assert not g.node("?y").is_cvt
    assert g.node("?x").is_cvt


def test_cvt_by_class() -> None:
    g = build_query_graph([("m.1", "a.b.c", "?y"), ("?y", TYPE_PREDICATE, "film.performance"),
                           ("?y", "x.y.z", "?a")], answer="?a", cvt_types=CVT)
    assert g.node("?y").is_cvt and g.node("?y").classes == ("film.performance",)


def test_answer_and_constants_are_never_flagged() -> None:
    g = build_query_graph([("m.1", "people.person.spouse_s", "?a"),
                           ("?a", "people.marriage.spouse", "m.2")], answer="?a", cvt_types=CVT)
    assert not g.node("?a").is_cvt
    g = build_query_graph([("m.1", "people.marriage.spouse", "?a")], answer="?a", cvt_types=CVT)
    assert not g.node("m.1").is_cvt


def test_no_cvt_types_no_flags() -> None:
    g = build_query_graph([("m.1", "people.person.spouse_s", "?y"),
                           ("?y", "people.marriage.spouse", "?a")], answer="?a")
    assert not any(n.is_cvt for n in g.nodes)


def test_is_cvt_variable_direct() -> None:
    edges = (edge("?y", "people.marriage.spouse", "?a"), edge("m.1", "film.performance.actor", "?y"))
    assert is_cvt_variable("?y", edges, (), CVT)
    assert not is_cvt_variable("?a", edges, (), CVT)
    assert is_cvt_variable("?a", edges, ("education.education",), CVT)
    assert not is_cvt_variable("?y", edges, (), frozenset())


def test_known_mediator_types() -> None:
    types = known_mediator_types()
    assert {"people.marriage", "film.performance", "education.education",
            "government.government_position_held", "sports.sports_team_roster"} <= types
    assert "people.person" not in types and "film.film" not in types
    assert not any(t.startswith("#") or t != t.strip() or not t for t in types)


# -- round trip and networkx view -------------------------------------------------------------
def full_graph() -> QueryGraph:
    lit = Literal("2011-01-01", "xsd:date")
    return build_query_graph(
        [("m.1", "people.person.spouse_s", "?y"), ("?y", "people.marriage.spouse", "?a"),
         ("?y", "people.marriage.from", "?d"), ("?a", TYPE_PREDICATE, "people.person"),
         ("?a", "x.y.z", lit), ("?a", "x.y.w", Literal("Obama", lang="en"))],
        answer="?a", names={"m.1": "Michelle"}, cvt_types=CVT, not_equal=[("?a", "m.1")],
        answer_languages=("en", ""), function="argmin",
        comparisons=[Comparison(node="?y", op="<=", value="2015", datatype="xsd:dateTime",
                                predicate="people.marriage.from", if_present=True),
                     Comparison(node="?d", op="!=", other="?a")],
        order=OrderBy(node="?d", limit=1, offset=2))


def test_json_round_trip_hand_built() -> None:
    g = full_graph()
    text = g.model_dump_json()
    again = QueryGraph.model_validate_json(text)
    assert again == g
    assert again.model_dump_json() == text
    data = json.loads(text)
    assert data["answer"] == "?a" and data["not_equal"] == [["?a", "m.1"]]
    assert [n["id"] for n in data["nodes"] if n["is_cvt"]] == ["?y"]
    assert data["order"] == {"node": "?d", "descending": False, "limit": 1, "offset": 2}
    assert QueryGraph.model_validate(data) == g


def test_to_networkx() -> None:
    g = full_graph()
    nxg = g.to_networkx()
    assert nxg.is_directed() and nxg.is_multigraph()
    assert set(nxg.nodes) == {n.id for n in g.nodes}
    assert nxg.nodes["?y"]["is_cvt"] is True
    assert nxg.nodes["?a"]["kind"] == "answer"
    assert nxg.nodes["?a"]["classes"] == ("people.person",)
    assert nxg.nodes["m.1"]["name"] == "Michelle"
    assert "id" not in nxg.nodes["m.1"]
    assert nxg["?y"]["?a"]["people.marriage.spouse"] == {"predicate": "people.marriage.spouse"}
    assert nxg.number_of_edges() == len(g.edges) == 5
    assert not nxg.has_edge("?a", "?y")   # direction as in the KG


def test_to_networkx_parallel_edges_keyed_by_predicate() -> None:
    g = build_query_graph([("m.1", "a.b.c", "?a"), ("m.1", "a.b.d", "?a")], answer="?a")
    nxg = g.to_networkx()
    assert sorted(nxg["m.1"]["?a"]) == ["a.b.c", "a.b.d"]


# -- property: random graphs round-trip ------------------------------------------------------
SCALE = int(os.environ.get("KGBENCH_PROPERTY_SCALE", "1"))
PREDICATES = ["p.q.r", "people.marriage.spouse", "film.performance.actor", "P57"]
literals = st.one_of(
    st.builds(Literal, st.text(max_size=6)),
    st.builds(Literal, st.text(max_size=6), st.sampled_from(["xsd:date", "xsd:integer",
                                                             "http://example.org/dt"])),
    st.builds(Literal, st.text(max_size=6), lang=st.sampled_from(["en", "DE"])),
)


@st.composite
def random_graphs(draw: st.DrawFn) -> QueryGraph:
    variables = ["?a"] + [f"?v{i}" for i in range(draw(st.integers(0, 3)))]
    entities = [f"m.{i}" for i in range(draw(st.integers(0, 3)))]
    lits = draw(st.lists(literals, max_size=2))
    subjects = variables + entities
    objects = subjects + lits
    triples: list[tuple[Term, str, Term]] = draw(st.lists(st.tuples(
        st.sampled_from(subjects),
        st.sampled_from(PREDICATES + [TYPE_PREDICATE]),
        st.sampled_from(objects + ["film.film"])), min_size=1, max_size=6))
    triples.append(("?a", draw(st.sampled_from(PREDICATES)), draw(st.sampled_from(objects))))
    names = {e: draw(st.text(max_size=5)) for e in entities}
    pairs: list[tuple[Term, Term]] = draw(st.lists(
        st.tuples(st.sampled_from(variables), st.sampled_from(objects)), max_size=2))
    g = build_query_graph(triples, answer="?a", names=names,
                          cvt_types=frozenset({"people.marriage"}), not_equal=pairs,
                          answer_languages=tuple(draw(st.lists(st.sampled_from(["en", ""]),
                                                               max_size=2, unique=True))),
                          function=draw(st.sampled_from(["none", "count", "argmax", "<="])))
    ids = [n.id for n in g.nodes if n.is_variable]
    comparisons = draw(st.lists(st.builds(
        Comparison, node=st.sampled_from(ids), op=st.sampled_from(["<", "=", "!="]),
        value=st.one_of(st.none(), st.text(max_size=4)), other=st.sampled_from([None, *ids]),
        predicate=st.sampled_from([None, "p.q.r"]), if_present=st.booleans()), max_size=2))
    order = draw(st.one_of(st.none(), st.builds(
        OrderBy, node=st.sampled_from(ids), descending=st.booleans(),
        limit=st.one_of(st.none(), st.integers(0, 5)), offset=st.integers(0, 3))))
    return g.model_copy(update={"comparisons": tuple(comparisons), "order": order})


@settings(deadline=None, max_examples=60 * SCALE, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_json_round_trip_property(g: QueryGraph) -> None:
    text = g.model_dump_json()
    again = QueryGraph.model_validate_json(text)
    assert again == g
    assert again.model_dump_json() == text
    nxg = again.to_networkx()
    assert nxg.number_of_nodes() == len(g.nodes)
    assert sorted((s, t, k) for s, t, k in nxg.edges(keys=True)) == sorted(
        (e.source, e.target, e.predicate) for e in g.edges)
    for n in g.nodes:
        assert n.is_cvt == (n.kind == "variable" and is_cvt_variable(
            n.id, g.edges, n.classes, frozenset({"people.marriage"})))
