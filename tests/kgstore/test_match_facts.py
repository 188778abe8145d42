"""In-memory pattern matching (kgstore.patterns.match_facts).

Hand cases for each constraint, ``select`` and distinctness, and a property test:
on random small KGs, random pattern queries give the same solutions in memory as
through ``Store.match`` (the entity records passed along, so type and CVT
constraints are decided the same way).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgstore import Entity, Fact, Literal, Store
from kgstore.models import Object
from kgstore.patterns import (
    Binding,
    Constraint,
    HasType,
    IsCvt,
    IsEntity,
    NotEqual,
    NotIn,
    PatternQuery,
    TriplePattern,
    Var,
    match_facts,
)
from tests.kgstore.kgdata import KG

Factory = Callable[[Path], Store]

A, B, C, P = Var("a"), Var("b"), Var("c"), Var("p")
ONE = Literal("1", "xsd:integer")
EN = Literal("one", lang="en")
FACTS = [
    Fact("m.film", "directed_by", "m.dee"),
    Fact("m.film", "starring", "m.perf"),
    Fact("m.perf", "actor", "m.ann"),
    Fact("m.film2", "directed_by", "m.dee"),
    Fact("m.film2", "directed_by", "m.eve"),
    Fact("m.film", "rating", ONE),
    Fact("m.film", "label", EN),
    Fact("m.ann", "knows", "m.ann"),
]
ENTITIES = {
    "m.film": Entity("m.film", "Film", types=("film.film",)),
    "m.dee": Entity("m.dee", "Dee", types=("people.person", "film.director")),
    "m.perf": Entity("m.perf", types=("film.performance",), is_cvt=True),
    "m.ann": Entity("m.ann", "Ann", types=("people.person",)),
}


def q(*patterns: tuple[object, object, object], constraints: tuple[Constraint, ...] = (),
      select: tuple[Var, ...] | None = None) -> PatternQuery:
    return PatternQuery(tuple(TriplePattern(*p) for p in patterns),  # type: ignore[arg-type]
                        constraints, select=select)


def rows(bindings: list[Binding]) -> list[tuple[tuple[str, Object], ...]]:
    return [tuple(sorted(b.items())) for b in bindings]


# -- hand cases ----------------------------------------------------------------------------


def test_one_pattern_with_constants() -> None:
    assert match_facts(q(("m.film2", "directed_by", A)), FACTS) == [{"a": "m.dee"},
                                                                     {"a": "m.eve"}]
    assert match_facts(q((A, "directed_by", "m.dee")), FACTS) == [{"a": "m.film"},
                                                                  {"a": "m.film2"}]
    assert match_facts(q(("m.film", "rating", A)), FACTS) == [{"a": ONE}]
    assert match_facts(q(("m.film", "rating", ONE), (A, "actor", B)), FACTS) == [
        {"a": "m.perf", "b": "m.ann"}]
    assert match_facts(q(("m.nowhere", "directed_by", A)), FACTS) == []


def test_joins_and_repeated_variables() -> None:
    assert match_facts(q((A, "starring", B), (B, "actor", C)), FACTS) == [
        {"a": "m.film", "b": "m.perf", "c": "m.ann"}]
    assert match_facts(q((A, "knows", A)), FACTS) == [{"a": "m.ann"}]
    # two patterns may match the same fact (SPARQL semantics)
    assert match_facts(q((A, "directed_by", B), (A, "directed_by", C)), FACTS) == [
        {"a": "m.film", "b": "m.dee", "c": "m.dee"},
        {"a": "m.film2", "b": "m.dee", "c": "m.dee"},
        {"a": "m.film2", "b": "m.dee", "c": "m.eve"},
        {"a": "m.film2", "b": "m.eve", "c": "m.dee"},
        {"a": "m.film2", "b": "m.eve", "c": "m.eve"}]


def test_predicate_variables() -> None:
    got = match_facts(q(("m.film2", P, A)), FACTS)
    assert got == [{"p": "directed_by", "a": "m.dee"}, {"p": "directed_by", "a": "m.eve"}]
    assert match_facts(q((A, P, "m.dee"), ("m.film2", P, B)), FACTS) == [
        {"a": "m.film", "p": "directed_by", "b": "m.dee"},
        {"a": "m.film", "p": "directed_by", "b": "m.eve"},
        {"a": "m.film2", "p": "directed_by", "b": "m.dee"},
        {"a": "m.film2", "p": "directed_by", "b": "m.eve"}]


def test_not_equal() -> None:
    base = ((A, "directed_by", B),)
    assert rows(match_facts(q(*base, constraints=(NotEqual(B, "m.dee"),)), FACTS)) == [
        (("a", "m.film2"), ("b", "m.eve"))]
    two = ((A, "directed_by", B), (A, "directed_by", C))
    got = match_facts(q(*two, constraints=(NotEqual(B, C),)), FACTS)
    assert {(b["b"], b["c"]) for b in got} == {("m.dee", "m.eve"), ("m.eve", "m.dee")}
    assert match_facts(q(("m.film", "rating", A), constraints=(NotEqual(A, ONE),)), FACTS) == []
    assert match_facts(q(("m.film", "rating", A),
                         constraints=(NotEqual(A, Literal("1")),)), FACTS) == [{"a": ONE}]


def test_not_in() -> None:
    got = match_facts(q(("m.film", P, A), constraints=(NotIn(P, ("starring", "label")),)),
                      FACTS)
    assert [b["p"] for b in got] == ["directed_by", "rating"]
    got = match_facts(q(("m.film", P, A), constraints=(NotIn(A, (ONE, "m.dee", EN)),)), FACTS)
    assert got == [{"p": "starring", "a": "m.perf"}]


def test_is_entity() -> None:
    pattern = ("m.film", P, A)
    entities = match_facts(q(pattern, constraints=(IsEntity(A),)), FACTS)
    literals = match_facts(q(pattern, constraints=(IsEntity(A, False),)), FACTS)
    assert {b["a"] for b in entities} == {"m.dee", "m.perf"}
    assert {b["a"] for b in literals} == {ONE, EN}


def test_has_type_with_and_without_entity_records() -> None:
    query = q((A, "directed_by", B), constraints=(HasType(B, "film.director"),))
    # with records: m.eve has none in ENTITIES, so it is not checked; m.dee has the type
    assert {b["b"] for b in match_facts(query, FACTS, ENTITIES)} == {"m.dee", "m.eve"}
    records = {**ENTITIES, "m.eve": Entity("m.eve", "Eve", types=("people.person",))}
    assert {b["b"] for b in match_facts(query, FACTS, records)} == {"m.dee"}
    # without records every entity passes
    assert len(match_facts(query, FACTS)) == 3
    wrong = q((A, "directed_by", B), constraints=(HasType(B, "film.film"),))
    assert match_facts(wrong, FACTS, records) == []


def test_type_and_cvt_constraints_never_hold_for_literals() -> None:
    # the store puts these variables on entity nodes only
    assert match_facts(q(("m.film", "rating", A), constraints=(HasType(A, "t"),)), FACTS) == []
    assert match_facts(q(("m.film", "rating", A), constraints=(IsCvt(A, False),)), FACTS) == []


def test_is_cvt() -> None:
    query = q(("m.film", P, A), constraints=(IsCvt(A), IsEntity(A)))
    assert match_facts(query, FACTS, ENTITIES) == [{"p": "starring", "a": "m.perf"}]
    not_cvt = q(("m.film", P, A), constraints=(IsCvt(A, False),))
    assert {b["a"] for b in match_facts(not_cvt, FACTS, ENTITIES)} == {"m.dee"}


def test_select_gives_distinct_rows() -> None:
    got = match_facts(q((A, "directed_by", B), select=(B,)), FACTS)
    assert got == [{"b": "m.dee"}, {"b": "m.eve"}]


def test_duplicate_facts_and_iterables() -> None:
    doubled = iter(FACTS + FACTS)
    assert match_facts(q(("m.film2", "directed_by", A)), doubled) == [{"a": "m.dee"},
                                                                      {"a": "m.eve"}]
    assert match_facts(q((A, "directed_by", B)), []) == []


def test_a_query_without_variables_has_one_empty_solution_or_none() -> None:
    assert match_facts(q(("m.film", "directed_by", "m.dee")), FACTS) == [{}]
    assert match_facts(q(("m.film", "directed_by", "m.eve")), FACTS) == []


def test_order_is_deterministic() -> None:
    query = q((A, P, B))
    assert match_facts(query, FACTS) == match_facts(query, list(reversed(FACTS)))


# -- agreement with Store.match on random KGs ---------------------------------------------

IDS = ["e0", "e1", "e2", "e3", "e4"]
PREDICATES = ["p", "q", "r"]
TYPES = ["t.a", "t.b"]
LITERALS = [Literal("1", "xsd:integer"), Literal("x"), Literal("x", lang="en")]
VARS = [Var("a"), Var("b"), Var("c")]


@st.composite
def small_kgs(draw: st.DrawFn) -> KG:
    entities = [Entity(e, e.upper(), types=tuple(draw(st.lists(st.sampled_from(TYPES),
                                                               unique=True, max_size=2))),
                       is_cvt=draw(st.booleans())) for e in IDS[:4]]   # e4: a placeholder
    node = st.sampled_from(IDS)
    facts = draw(st.lists(st.builds(Fact, node, st.sampled_from(PREDICATES),
                                    node | st.sampled_from(LITERALS)),
                          min_size=1, max_size=20, unique=True))
    return KG(entities, facts)


@st.composite
def queries(draw: st.DrawFn) -> PatternQuery:
    n = draw(st.integers(1, 3))
    patterns = []
    for _ in range(n):
        s = draw(st.sampled_from(VARS) | st.sampled_from(IDS))
        p = draw(st.sampled_from(PREDICATES) | st.just(Var("p")))
        o = draw(st.sampled_from(VARS) | st.sampled_from(IDS) | st.sampled_from(LITERALS))
        patterns.append(TriplePattern(s, p, o))
    if not any(t.variables() for t in patterns):   # Store.match needs a variable to return
        patterns[0] = TriplePattern(Var("a"), patterns[0].predicate, patterns[0].object)
    used = {v for t in patterns for v in (t.subject, t.object) if isinstance(v, Var)}
    predicate_vars = {t.predicate for t in patterns if isinstance(t.predicate, Var)}
    constraints: list[Constraint] = []
    for var in sorted(used, key=str):
        kind = draw(st.sampled_from(["none", "ne", "ne_var", "notin", "type", "cvt", "entity"]))
        if kind == "ne":
            constraints.append(NotEqual(var, draw(st.sampled_from(IDS + LITERALS))))
        elif kind == "ne_var" and len(used) > 1:
            constraints.append(NotEqual(var, draw(st.sampled_from(sorted(used - {var}, key=str)))))
        elif kind == "notin":
            constraints.append(NotIn(var, tuple(draw(st.lists(st.sampled_from(IDS + LITERALS),
                                                              max_size=3)))))
        elif kind == "type":
            constraints.append(HasType(var, draw(st.sampled_from(TYPES))))
        elif kind == "cvt":
            constraints.append(IsCvt(var, draw(st.booleans())))
        elif kind == "entity":
            constraints.append(IsEntity(var, draw(st.booleans())))
    for var in predicate_vars:
        if draw(st.booleans()):
            constraints.append(NotIn(var, (draw(st.sampled_from(PREDICATES)),)))
    names = sorted(used | predicate_vars, key=str)
    select = None
    if draw(st.booleans()):
        select = tuple(draw(st.lists(st.sampled_from(names), min_size=1, unique=True)))
    return PatternQuery(tuple(patterns), tuple(constraints), select=select)


@pytest.fixture(scope="module")
def factory(backend_factory: Factory) -> Factory:
    """Every backend's store (conftest's ``backend`` parameter)."""
    return backend_factory


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(kg=small_kgs(), query_list=st.lists(queries(), min_size=5, max_size=12))
def test_match_facts_agrees_with_the_store(factory: Factory, kg: KG,
                                           query_list: list[PatternQuery]) -> None:
    with tempfile.TemporaryDirectory() as tmp, factory(Path(tmp)) as store:
        kg.load(store)
        records = store.entities(IDS)
        for query in query_list:
            want = store.match(query).bindings
            got = match_facts(query, kg.facts, records)
            assert sorted(rows(got), key=repr) == sorted(rows(want), key=repr), query
            assert len(got) == len({tuple(r) for r in rows(got)})
