"""Index nested-loop matching (kgstore.expansion) against the engine's single query.

Both evaluations run on the same real store; they must give the same solutions in the
same order, and the expansion must decline the queries it is not meant for.
"""

from __future__ import annotations

import pytest

from kgstore import Store
from kgstore.expansion import join_order, match_by_expansion
from kgstore.ladybug_store import LadybugStore
from kgstore.patterns import (
    HasType,
    IsCvt,
    IsEntity,
    NotEqual,
    NotIn,
    PatternQuery,
    TriplePattern,
    Var,
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
    from kgstore.ladybug_store import _compile_match, _object_from_cols

    cypher, params, columns = _compile_match(query)
    rows = store._rows(cypher, params)
    out = []
    for row in rows[: query.limit] if query.limit else rows:
        b, i = {}, 0
        for name, kind in columns:
            if kind == "object":
                b[name] = _object_from_cols(*row[i:i + 5])
                i += 5
            else:
                b[name] = row[i]
                i += 1
        out.append(b)
    return out


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
