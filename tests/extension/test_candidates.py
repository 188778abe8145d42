"""The contradictory edit's replacement search (:func:`same_type_replacements`) on a
hand-built KG where siblings, nearby entities and the type-scan fallback are known."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from extension.candidates import same_type_replacements, similar_subgraph
from kgstore import Entity, Fact, Store, open_store

DIRECTED, FAVOURITE, BORN, LIVES = ("film.film.directed_by", "film.director.favourite",
                                   "people.person.place_of_birth", "people.person.lives_in")
FILM, CITY, TOPIC = "film.film", "location.citytown", "common.topic"

ENTITIES = [
    Entity("m.dir", "Dora Director", types=(TOPIC, "people.person")),
    *(Entity(f"m.f{i}", f"Film {i}", types=(TOPIC, FILM)) for i in range(1, 5)),
    Entity("m.fav", "Favourite Film", types=(TOPIC, FILM)),
    Entity("m.cvtfilm", None, types=(FILM,), is_cvt=True),
    Entity("m.nameless", None, types=(FILM,)),
    Entity("m.p", "Pat Person", types=(TOPIC, "people.person")),
    Entity("m.born", "Borntown", types=(TOPIC, CITY)),
    Entity("m.home", "Hometown", types=(TOPIC, CITY)),
    Entity("m.far1", "Far City One", types=(TOPIC, CITY)),
    Entity("m.far2", "Far City Two", types=(TOPIC, CITY)),
    Entity("m.lonely", "Lonely Thing", types=(TOPIC, "odd.lonely_type")),
    Entity("m.q", "Quinn", types=(TOPIC,)),
    Entity("m.generic", "Generic", types=(TOPIC,)),
]
FACTS = [
    # f1..f4 share the director: siblings of one another; the director's favourite
    # film is linked over another relation (nearby, second choice).
    *(Fact(f"m.f{i}", DIRECTED, "m.dir") for i in range(1, 5)),
    Fact("m.cvtfilm", DIRECTED, "m.dir"), Fact("m.nameless", DIRECTED, "m.dir"),
    Fact("m.dir", FAVOURITE, "m.fav"),
    # Borntown has no sibling (Pat was born once) but Pat lives in Hometown.
    Fact("m.p", BORN, "m.born"), Fact("m.p", LIVES, "m.home"),
    # the far cities are linked to nothing near Borntown; Lonely's neighbour has no
    # other neighbour of its type, and no other entity has it.
    Fact("m.far1", LIVES, "m.far2"), Fact("m.q", LIVES, "m.lonely"),
    Fact("m.q", LIVES, "m.generic"),
]


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    path: Path = tmp_path_factory.mktemp("candidates") / "store"
    with open_store(path, create=True) as s:
        s.ingest(ENTITIES, FACTS)
    with open_store(path, read_only=True) as s:
        yield s


def _replacements(kg: Store, id: str, **kw: object) -> list[tuple[str, str]]:
    entity = kg.entity(id)
    assert entity is not None
    return [(e.id, t) for e, t in same_type_replacements(kg, entity, seed=0, **kw)]  # type: ignore[arg-type]


def test_siblings_come_first_and_sorted(kg: Store) -> None:
    # Other films of the same director; not the favourite (another relation), not the
    # CVT or the nameless film, not the excluded one.
    assert _replacements(kg, "m.f1", exclude={"m.f3"}) == [("m.f2", FILM), ("m.f4", FILM)]
    assert _replacements(kg, "m.f1", exclude=set(), k=1) == [("m.f2", FILM)]


def test_nearby_entities_when_there_is_no_sibling(kg: Store) -> None:
    # Excluding every sibling leaves the favourite film, linked to the director over
    # another relation; Borntown has no sibling at all, Hometown is next to Pat.
    assert _replacements(kg, "m.f1", exclude={"m.f2", "m.f3", "m.f4"}) == [("m.fav", FILM)]
    assert _replacements(kg, "m.born", exclude=set()) == [("m.home", CITY)]


def test_type_sample_when_nothing_nearby_shares_the_type(kg: Store) -> None:
    # Nothing next to Borntown is left once Hometown is excluded: the seeded sample of
    # the type gives the far cities, none of them excluded.
    got = _replacements(kg, "m.born", exclude={"m.home"})
    assert sorted(got) == [("m.far1", CITY), ("m.far2", CITY)]


def test_no_replacement_for_a_unique_or_generic_type(kg: Store) -> None:
    # A type no other entity has; an entity with only generic types (every entity is a
    # common.topic: sharing it makes no contradiction).
    assert _replacements(kg, "m.lonely", exclude=set()) == []
    assert _replacements(kg, "m.generic", exclude=set()) == []


# -- the irrelevant edit's walk ---------------------------------------------------------
AVOID, ASKED, OTHER = "test.avoided", "test.asked", "test.other"


@pytest.fixture(scope="module")
def walk_kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """``m.s`` has five outgoing facts over an avoided predicate and one usable
    incoming fact (from ``m.x``). A window lists outgoing facts before incoming ones
    (whatever order the storage keeps within each), so a window of up to five facts
    holds only avoided ones."""
    path: Path = tmp_path_factory.mktemp("walk") / "store"
    entities = [Entity(f"m.{n}", f"Node {n}") for n in ("s", "a", "x", "y1", "y2", "y3", "y4",
                                                         "y5")]
    facts = [*(Fact("m.s", AVOID, f"m.y{i}") for i in range(1, 6)), Fact("m.x", OTHER, "m.s")]
    with open_store(path, create=True) as s:
        s.ingest(entities, facts)
    with open_store(path, read_only=True) as s:
        yield s


def _walk(kg: Store, **kw: object) -> list[Fact] | None:
    return similar_subgraph(kg, [Fact("m.s", ASKED, "m.a")], "m.s", avoid_entities={"m.a"},
                            avoid_predicates={ASKED, AVOID}, cvt_nodes=(),
                            rng=random.Random(0), **kw)  # type: ignore[arg-type]


def test_walk_reads_a_larger_window_when_the_first_has_no_way(walk_kg: Store) -> None:
    first_two = walk_kg.adjacency("m.s", limit=2, detail="brief").facts
    assert {f.predicate for f in first_two} == {AVOID}   # the first window has no option
    assert _walk(walk_kg, limit=200, first_window=2) == [Fact("m.x", OTHER, "m.s")]
    assert _walk(walk_kg, limit=200) == [Fact("m.x", OTHER, "m.s")]
    assert _walk(walk_kg, limit=2, first_window=2) is None   # no larger window to fall back to
    assert _walk(walk_kg, limit=2) is None
