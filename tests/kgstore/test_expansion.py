"""Index nested-loop matching (kgstore.algorithms.expansion) against the engine's single query.

Both evaluations run on the same real store; they must give the same solutions in the
same order, and the expansion must decline the queries it is not meant for.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgstore import Entity, Fact, Literal, Store
from kgstore.algorithms.expansion import join_order, match_by_expansion
from kgstore.backends.ladybug import LadybugStore
from kgstore.patterns import (
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
from tests.kgstore.kgdata import ACTOR, CHARACTER, DIRECTED_BY, NATIONALITY, STARRING

x, y, z, p = Var("x"), Var("y"), Var("z"), Var("p")

QUERIES = {
    "path through a CVT": PatternQuery((TriplePattern("m.godfather", STARRING, y),
                                        TriplePattern(y, ACTOR, x))),
    "CVT with a qualifier": PatternQuery((TriplePattern(y, CHARACTER, "m.michael"),
                                          TriplePattern(z, STARRING, y),
                                          TriplePattern(y, ACTOR, x))),
    "tree": PatternQuery((TriplePattern(x, DIRECTED_BY, "m.coppola"),
                          TriplePattern(x, STARRING, y), TriplePattern(y, ACTOR, "m.pacino"))),
    "literal objects": PatternQuery((TriplePattern("m.coppola", NATIONALITY, z),
                                     TriplePattern(x, DIRECTED_BY, "m.coppola"),
                                     TriplePattern(x, "film.film.initial_release_date", y))),
    "constraints": PatternQuery(
        (TriplePattern(x, DIRECTED_BY, "m.coppola"), TriplePattern(x, STARRING, y),
         TriplePattern(y, ACTOR, z)),
        (NotEqual(x, "m.godfather2"), HasType(x, "film.film"), IsCvt(y),
         NotIn(z, ("m.brando",)), IsEntity(y))),
    "no solution": PatternQuery((TriplePattern("m.godfather", STARRING, y),
                                 TriplePattern(y, ACTOR, "m.coppola"))),
    "limit": PatternQuery((TriplePattern(x, DIRECTED_BY, "m.coppola"),
                           TriplePattern(x, STARRING, y), TriplePattern(y, ACTOR, z)), limit=2),
}



def _single_query(store: LadybugStore, query: PatternQuery):
    return store._compiled_match(query).bindings


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_expansion_equals_single_query(film_store: Store, name: str) -> None:
    query = QUERIES[name]
    result = match_by_expansion(film_store, query)
    assert result is not None
    expected = _single_query(film_store, query)  # type: ignore[arg-type]
    assert result.bindings == expected
    assert result.truncated == (name == "limit")


def test_expansion_finds_the_known_answers(film_store: Store) -> None:
    result = match_by_expansion(film_store, QUERIES["tree"])
    assert result is not None and result.values("x") == ["m.godfather", "m.godfather2"]


@pytest.mark.parametrize("query", [
    PatternQuery((TriplePattern("m.godfather", p, y), TriplePattern(y, ACTOR, x))),
    PatternQuery((TriplePattern(x, STARRING, y), TriplePattern(y, ACTOR, z))),
], ids=["predicate variable", "no constant to start from"])
def test_expansion_declines(film_store: Store, query: PatternQuery) -> None:
    assert match_by_expansion(film_store, query) is None
    # ... and Store.match still answers it with one engine query
    assert film_store.match(query).bindings


def test_frontier_cap_declines(film_store: Store) -> None:
    query = PatternQuery((TriplePattern(x, NATIONALITY, "m.usa"), TriplePattern(x, STARRING, y)))
    assert match_by_expansion(film_store, query, max_frontier=1) is None
    assert match_by_expansion(film_store, query) is not None


def test_join_order_starts_from_constants_and_stays_connected() -> None:
    patterns = (TriplePattern(x, STARRING, y), TriplePattern(y, ACTOR, z),
                TriplePattern(z, NATIONALITY, "m.usa"))
    assert join_order(patterns) == [2, 1, 0]


# -- seeds (SPARQL VALUES) and exists (ASK), against the in-memory matcher ---------------------

def test_seeds_restrict_the_solutions(film_store: Store) -> None:
    query = QUERIES["constraints"]
    every = match_by_expansion(film_store, query)
    assert every is not None and every.bindings
    for x_values in (["m.godfather"], ["m.godfather2", "m.nowhere"], []):
        seeded = match_by_expansion(film_store, query, seeds=[{"x": v} for v in x_values])
        assert seeded is not None
        assert seeded.bindings == [b for b in every.bindings if b["x"] in x_values]


def test_seeds_bind_the_same_variables_of_the_query(film_store: Store) -> None:
    with pytest.raises(ValueError):
        match_by_expansion(film_store, QUERIES["tree"], seeds=[{"x": "m.godfather"}, {}])
    with pytest.raises(ValueError):
        match_by_expansion(film_store, QUERIES["tree"], seeds=[{"nope": "m.godfather"}])


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_exists_answers_whether_a_solution_passes(film_store: Store, name: str) -> None:
    query = QUERIES[name]
    every = match_by_expansion(film_store, PatternQuery(query.patterns, query.constraints))
    assert every is not None
    for keep in (lambda b: True, lambda b: False, lambda b: "m.pacino" in b.values()):
        asked = match_by_expansion(film_store, query, exists=keep)
        assert asked is not None
        wanted = [b for b in every.bindings if keep(b)]
        assert len(asked.bindings) == (1 if wanted else 0)
        assert all(b in wanted for b in asked.bindings)


IDS = [f"e{i:02d}" for i in range(30)]
PREDICATES = ["p", "q", "r"]
LITERALS = [Literal("1", "xsd:integer"), Literal("x", lang="en")]


@st.composite
def hub_kgs(draw: st.DrawFn) -> tuple[list[Entity], list[Fact]]:
    """30 entities, three predicates; ``e00`` and ``e01`` are hubs (most facts touch
    them), so the join order and the batch reads (16 ids and more) both matter."""
    node = st.sampled_from(IDS) | st.sampled_from(IDS[:2])
    facts = draw(st.lists(st.builds(Fact, node, st.sampled_from(PREDICATES),
                                    node | st.sampled_from(LITERALS)),
                          min_size=10, max_size=120, unique=True))
    entities = [Entity(e, e.upper(), types=("t.even",) if int(e[1:]) % 2 == 0 else ())
                for e in IDS]
    return entities, facts


@st.composite
def connected_queries(draw: st.DrawFn) -> PatternQuery:
    variables = [Var("a"), Var("b"), Var("c")]
    terms = st.sampled_from(variables) | st.sampled_from(IDS[:4])
    patterns = [TriplePattern(draw(st.sampled_from(IDS[:4])), draw(st.sampled_from(PREDICATES)),
                              draw(st.sampled_from(variables)))]
    for _ in range(draw(st.integers(0, 2))):
        used = [v for t in patterns for v in t.variables()]
        shared = draw(st.sampled_from(used))
        other = draw(terms | st.sampled_from(LITERALS))
        patterns.append(TriplePattern(shared, draw(st.sampled_from(PREDICATES)), other)
                        if draw(st.booleans()) or isinstance(other, Literal)
                        else TriplePattern(other, draw(st.sampled_from(PREDICATES)), shared))
    names = sorted({v.name for t in patterns for v in t.variables()})
    constraints: list = []
    if draw(st.booleans()):
        constraints.append(NotEqual(Var(draw(st.sampled_from(names))), draw(st.sampled_from(IDS))))
    if draw(st.booleans()):
        constraints.append(HasType(Var(draw(st.sampled_from(names))), "t.even"))
    return PatternQuery(tuple(patterns), tuple(constraints))


@settings(deadline=None, max_examples=30,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(kg=hub_kgs(), query_list=st.lists(connected_queries(), min_size=3, max_size=6),
       data=st.data())
def test_expansion_agrees_with_the_in_memory_matcher(
    backend_factory: Callable[[Path], Store], kg: tuple[list[Entity], list[Fact]],
    query_list: list[PatternQuery], data: st.DataObject,
) -> None:
    entities, facts = kg
    records = {e.id: e for e in entities}
    with tempfile.TemporaryDirectory() as tmp, backend_factory(Path(tmp)) as store:
        store.ingest(entities, facts)
        for query in query_list:
            want = match_facts(query, facts, records)
            got = match_by_expansion(store, query)
            if got is not None:
                assert got.bindings == want, query
            name = data.draw(st.sampled_from([v.name for v in query.variables()]))
            values = data.draw(st.lists(st.sampled_from(IDS) | st.sampled_from(LITERALS),
                                        max_size=25))
            seeds = [{name: v} for v in values]
            seeded = match_by_expansion(store, query, seeds=seeds)
            if seeded is not None:
                assert seeded.bindings == [b for b in want if b[name] in values], (query, seeds)
            asked = match_by_expansion(store, query, seeds=seeds, exists=lambda b: True)
            if asked is not None:
                assert bool(asked.bindings) == any(b[name] in values for b in want)
