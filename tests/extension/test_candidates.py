"""The contradictory edit's replacement look-ups (same role, siblings, the type sample,
the closest by type) on a hand-built KG where each is known."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from extension.core.candidates import (
    closest_by_type,
    role_replacements,
    sibling_replacements,
    similar_subgraph,
    type_replacements,
)
from kgstore import Entity, Fact, Store, open_store
from tests.extension.stores import read_only_store

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
    yield from read_only_store(tmp_path_factory, "candidates", ENTITIES, FACTS)


def _closest(kg: Store, id: str, pool: list[Entity]) -> list[tuple[str, str | None]]:
    entity = kg.entity(id)
    assert entity is not None
    return [(e.id, t) for e, t in closest_by_type(entity, pool)]


def _entity(kg: Store, id: str) -> Entity:
    entity = kg.entity(id)
    assert entity is not None
    return entity


def test_same_role_is_the_other_fillers_of_the_predicate(kg: Store) -> None:
    # Other objects of lives_in; not the CVT or the nameless film of directed_by.
    got = role_replacements(kg, LIVES, answer_is_object=True, exclude={"m.home"})
    assert [e.id for e in got] == ["m.far2", "m.generic", "m.lonely"]
    films = role_replacements(kg, DIRECTED, answer_is_object=False, exclude={"m.f1"})
    assert [e.id for e in films] == ["m.f2", "m.f3", "m.f4"]


def test_siblings_share_a_neighbour_over_the_same_predicate(kg: Store) -> None:
    # Other films of the same director; not the favourite (another relation), not the
    # CVT or the nameless film, not the excluded one. Borntown has no sibling.
    got = sibling_replacements(kg, _entity(kg, "m.f1"), exclude={"m.f3"})
    assert [e.id for e in got] == ["m.f2", "m.f4"]
    assert sibling_replacements(kg, _entity(kg, "m.born"), exclude=set()) == []


def test_type_sample_of_the_first_specific_type(kg: Store) -> None:
    got = type_replacements(kg, _entity(kg, "m.born"), exclude={"m.home"}, seed=0)
    assert sorted(e.id for e in got) == ["m.far1", "m.far2"]
    assert type_replacements(kg, _entity(kg, "m.generic"), exclude=set(), seed=0) == []


def test_closest_by_type_keeps_the_most_alike(kg: Store) -> None:
    # A city is replaced by a city, never by a person or a thing of a lonely type; an
    # entity with only generic types (every entity is a common.topic) has no match.
    pool = [_entity(kg, i) for i in ("m.p", "m.home", "m.lonely", "m.far1")]
    assert _closest(kg, "m.born", pool) == [("m.home", CITY), ("m.far1", CITY)]
    assert _closest(kg, "m.lonely", [_entity(kg, "m.home")]) == []
    assert _closest(kg, "m.generic", pool) == [(e.id, None) for e in pool]


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


def test_walk_hands_back_the_records_it_read_of_its_entities(walk_kg: Store) -> None:
    # The irrelevant sample names the walk's entities from these, instead of reading
    # their records again (a round trip each time on Neo4j).
    records: dict[str, Entity] = {}
    walk = similar_subgraph(walk_kg, [Fact("m.s", ASKED, "m.a")], "m.s",
                            avoid_entities={"m.a"}, avoid_predicates={ASKED, AVOID},
                            cvt_nodes=(), rng=random.Random(0), records=records)
    assert walk == [Fact("m.x", OTHER, "m.s")]
    assert set(records) == {"m.x"}   # the root's own record is no neighbour's
    full = walk_kg.entities(["m.x"])["m.x"]
    assert (records["m.x"].name, records["m.x"].is_cvt) == (full.name, full.is_cvt) \
        == ("Node x", False)
