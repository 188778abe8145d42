"""Store.read_ahead: a hint that must never change what a read returns. On Neo4j it
reads the nodes' records, neighbourhoods and same-name lookups in one transaction and
later reads around them are answered from what it kept; on the embedded store it does
nothing. Every backend: the reads after a read-ahead equal the reads of a store that
had none, at every limit, detail and predicate, hubs included."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from kgstore import Entity, Fact, Literal, Store, open_store
from tests.kgstore.conftest import StoreFactory

PREDICATES = ("p.a", "p.b", "p.lit")
HUB = "hub"


def _kg() -> tuple[list[Entity], list[Fact]]:
    """Entities with shared names, a few predicates, literal objects, and a hub with
    more incoming facts than a window reads."""
    rng = random.Random(3)
    entities = [Entity(f"e{i:03d}", f"name {i % 40}", aliases=(f"alias {i % 7}",))
                for i in range(120)] + [Entity(HUB, "The Hub")]
    facts = []
    for _ in range(700):
        s = f"e{rng.randrange(120):03d}"
        p = rng.choice(PREDICATES)
        o: str | Literal = (Literal(str(rng.randrange(9)), "xsd:integer") if p == "p.lit"
                            else f"e{rng.randrange(120):03d}")
        facts.append(Fact(s, p, o))
    facts += [Fact(f"e{i:03d}", rng.choice(PREDICATES[:2]), HUB) for i in range(120)]
    return entities, facts


@pytest.fixture
def stores(store_factory: StoreFactory, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[tuple[Store, Store]]:
    """Two read-only handles on one store holding :func:`_kg` (the hub indexed)."""
    monkeypatch.setenv("KGBENCH_HUB_MIN_DEGREE", "50")
    writable = store_factory()
    writable.ingest(*_kg())
    location = writable.location
    if writable.backend == "ladybug":
        writable.close()
    plain, ahead = open_store(location, read_only=True), open_store(location, read_only=True)
    yield plain, ahead
    plain.close()
    ahead.close()


def _reads(store: Store, id: str) -> list[Any]:
    out: list[Any] = []
    for limit in (1, 3, 40, 250):
        for detail in ("brief", "lean", "full"):
            out.append(store.adjacency(id, limit=limit, detail=detail))  # type: ignore[arg-type]
        out += [store.facts_out(id, limit=limit), store.facts_in(id, limit=limit)]
        for p in PREDICATES:
            out += [store.facts_out(id, predicate=p, limit=limit),
                    store.facts_in(id, predicate=p, limit=limit),
                    store.linked_entities(id, p, outgoing=True, limit=limit),
                    store.linked_entities(id, p, outgoing=False, limit=limit)]
    for p in PREDICATES:
        for outgoing in (True, False):
            out.append(store.facts_many([id, "e001", "e002"], predicate=p, outgoing=outgoing,
                                        limit=60))
    entity = store.entity(id)
    out.append(entity)
    if entity is not None and entity.name:
        out += [store.find_by_name(entity.name, limit=n) for n in (1, 2, 50, 80)]
        out += [store.find_by_name(alias, limit=5) for alias in entity.aliases]
    return out


def test_reads_after_a_read_ahead_are_the_same(stores: tuple[Store, Store]) -> None:
    plain, ahead = stores
    ids = [HUB, *(f"e{i:03d}" for i in range(0, 120, 7)), "no-such-entity"]
    ahead.read_ahead(ids[:6], names=True)
    ahead.read_ahead(ids)   # some again, the rest without names
    for id in ids:
        assert _reads(ahead, id) == _reads(plain, id), id


def _count_round_trips(store: Store) -> list[int]:
    """Counts the store's read transactions from now on (Neo4j's one read path)."""
    counted = [0]
    read_many = store._read_many  # type: ignore[attr-defined]

    def counting(queries: Any) -> Any:
        counted[0] += 1
        return read_many(queries)

    store._read_many = counting  # type: ignore[attr-defined]
    return counted


def test_neo4j_answers_reads_around_the_nodes_from_what_it_read_ahead(
        stores: tuple[Store, Store]) -> None:
    _, ahead = stores
    if not ahead.round_trip_reads:
        pytest.skip("the embedded store reads locally: read_ahead does nothing")
    ids = ["e005", "e017", HUB]
    ahead.predicates(), ahead._hub_ids()  # type: ignore[attr-defined]  # kept anyway
    trips = _count_round_trips(ahead)
    ahead.read_ahead(ids, names=True)
    assert trips[0] == 1
    ahead.read_ahead(ids)   # kept: nothing read
    assert trips[0] == 1
    entity = ahead.entity("e005")
    assert entity is not None and entity.name
    ahead.find_by_name(entity.name)
    for id in ids[:2]:   # nodes with fewer facts than a window: all of them were read
        ahead.adjacency(id, limit=200, detail="brief")   # the records read ahead are brief
        for p in PREDICATES:
            ahead.facts_out(id, predicate=p, limit=5)
            ahead.facts_in(id, predicate=p, limit=5)
    ahead.facts_out(HUB, limit=10)
    ahead.facts_many(ids[:2], predicate="p.a", outgoing=True, limit=100)
    assert trips[0] == 1
    ahead.facts_in(HUB, predicate="p.a", limit=10)   # a hub's incoming facts: read now
    assert trips[0] == 2


def test_neo4j_hub_window_from_its_slots(stores: tuple[Store, Store]) -> None:
    """A hub's incoming window, merged from its hub-index slots, is the filtered one."""
    plain, _ = stores
    if plain.backend != "neo4j":
        pytest.skip("Neo4j's query")
    from kgstore.backends.neo4j import queries as q

    assert HUB in plain._hub_ids()  # type: ignore[attr-defined]
    for detail, cols in q.DETAIL_COLS.items():
        for n in (1, 2, 30, 200):
            merged = plain._read(*q.in_facts(HUB, None, cols, n, hub=True))  # type: ignore[attr-defined]
            assert merged == plain._read(*q.in_facts(HUB, None, cols, n, hub=False)), (detail, n)  # type: ignore[attr-defined]
            assert len(merged) == min(n, 120)
