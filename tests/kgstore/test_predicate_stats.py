"""Predicate statistics kept by every import (kgstore.predicate_stats), on every backend:
they must equal what the scans measure (Store.predicate_ends, Store.sample_facts with
the kept seed) after a first import, after imports that add facts, after an
interrupted import, after a copy, and after a refresh of a store that had none."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kgstore import Entity, Fact, Literal, Store, open_store
from kgstore.predicate_stats import (
    PENDING_KEY,
    SAMPLE_FACTS,
    SAMPLE_SEED,
    STATS_KEY,
    ensure,
    sample_key,
)
from tests.kgstore.conftest import StoreFactory

ENTITIES = [Entity(f"e{i:03d}", f"entity {i}") for i in range(400)]
PREDICATES = ("p.single", "p.multi", "p.lit", "p.wide")


def random_facts(n: int, seed: int, predicates: tuple[str, ...] = PREDICATES) -> list[Fact]:
    """``n`` facts (repeats allowed): ``p.single`` mostly one object per subject,
    ``p.multi`` many per subject into few objects, ``p.lit`` literal objects."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        p = rng.choice(predicates)
        s = f"e{rng.randrange(400):03d}"
        if p == "p.lit":
            o: str | Literal = Literal(str(rng.randrange(60)), "xsd:integer")
        else:
            o = f"e{rng.randrange(30 if p == 'p.multi' else 400):03d}"
        out.append(Fact(s, p, o))
    return out


def assert_exact(store: Store) -> None:
    """The kept statistics are the scans' numbers and samples, for every predicate."""
    stats = store.predicate_stats()
    assert stats is not None
    assert {p: s.ends() for p, s in stats.items()} == store.predicate_ends()
    counts = {p.id: p.count for p in store.predicates() if p.count}
    assert {p: s.facts for p, s in stats.items()} == counts
    for p in stats:
        scanned = store.sample_facts(SAMPLE_FACTS, seed=SAMPLE_SEED, predicate=p)
        assert store.predicate_sample(p) == scanned, p


def test_first_import_keeps_them(store: Store) -> None:
    store.ingest(ENTITIES, random_facts(1_500, 1))
    assert_exact(store)
    stats = store.predicate_stats()
    assert stats is not None and set(stats) == set(PREDICATES)
    # the samples are cut: each predicate has more facts than a sample holds
    assert all(s.facts > SAMPLE_FACTS for s in stats.values())
    assert all(len(store.predicate_sample(p)) == SAMPLE_FACTS for p in PREDICATES)
    assert any(f.is_literal for f in store.predicate_sample("p.lit"))


def test_later_imports_add_to_them(store: Store) -> None:
    store.ingest(ENTITIES, random_facts(1_500, 1, PREDICATES[:3]))
    before = store.predicate_stats()
    # New facts on old subjects and objects (a single subject gets a second object),
    # repeats of stored facts, and a new predicate.
    store.ingest([], random_facts(1_500, 2) + random_facts(300, 1, PREDICATES[:3]))
    assert_exact(store)
    after = store.predicate_stats()
    assert before is not None and after is not None
    assert after["p.single"].single_subjects != before["p.single"].single_subjects
    assert "p.wide" in after and "p.wide" not in before
    # Nothing new: the statistics do not change.
    store.ingest([], random_facts(500, 2))
    assert store.predicate_stats() == after


def test_an_interrupted_import_is_recomputed(store: Store) -> None:
    store.ingest(ENTITIES, random_facts(1_000, 1))
    # What a killed import leaves: facts written past the kept statistics.
    store._write_meta({PENDING_KEY: "1"})
    assert store.predicate_stats() is None
    # Without statistics a sample is drawn by a scan: the same facts.
    assert store.predicate_sample("p.multi") == store.sample_facts(
        SAMPLE_FACTS, seed=SAMPLE_SEED, predicate="p.multi")
    store.ingest([], random_facts(200, 3))
    assert_exact(store)


@pytest.mark.parametrize("damage", ["", "{not json", '{"version": 99}'])
def test_a_store_without_them_is_refreshed(store: Store, damage: str) -> None:
    store.ingest(ENTITIES, random_facts(1_000, 1))
    store._write_meta({STATS_KEY: damage})   # as loaded by an older kgbench, or damaged
    assert store.predicate_stats() is None
    assert store.refresh_predicate_stats() == len(PREDICATES)
    assert_exact(store)
    # an import into it adds to the refreshed statistics
    store.ingest([], random_facts(800, 4))
    assert_exact(store)


def test_a_damaged_sample_is_sampled_again(store: Store) -> None:
    store.ingest(ENTITIES, random_facts(1_000, 1))
    store._write_meta({sample_key("p.multi"): "[[1"})
    assert store.predicate_sample("p.multi") == store.sample_facts(
        SAMPLE_FACTS, seed=SAMPLE_SEED, predicate="p.multi")
    assert store.predicate_sample("no.such.predicate") == []
    store.ingest([], random_facts(300, 5))   # the import starts the samples over
    assert_exact(store)


def test_copy_keeps_them(store_factory: StoreFactory, tmp_path: Path) -> None:
    from kgstore.transfer import copy_store

    source = store_factory()
    source.ingest(ENTITIES, random_facts(1_200, 6))
    expected = source.predicate_stats()
    copy_store(source.location, str(tmp_path / "copy"))
    with open_store(str(tmp_path / "copy"), read_only=True) as copy:
        assert copy.predicate_stats() == expected
        assert_exact(copy)


def test_ensure_computes_them_once(tmp_path: Path) -> None:
    location = str(tmp_path / "kg")
    with open_store(location, create=True) as s:
        s.ingest(ENTITIES, random_facts(600, 7))
        s._write_meta({STATS_KEY: ""})
    assert ensure(location) == "computed"
    assert ensure(location) == "kept"
    with open_store(location, read_only=True) as s:
        assert_exact(s)
