"""Type samples kept for a seed (kgstore.type_samples), on every backend: a read-only
store answers sample_entities from them exactly as the per-type scan does, for every
type it keeps; an import makes them stale."""

from __future__ import annotations

import random

import pytest

import kgstore.type_samples as type_samples
from kgstore import Entity, Store, open_store
from tests.kgstore.conftest import StoreFactory

TYPES = {"t.big": 900, "t.mid": 300, "t.small": 40, "t.tiny": 3}


def _entities() -> list[Entity]:
    """2,000 entities; each type's members drawn at random, some nameless or CVTs (a
    typed sample leaves those out), some with a type listed twice."""
    rng = random.Random(5)
    out = []
    members = {t: set(rng.sample(range(2_000), n)) for t, n in TYPES.items()}
    for i in range(2_000):
        types = tuple(t for t in TYPES if i in members[t])
        if i % 97 == 0 and types:
            types += types[:1]
        out.append(Entity(f"m.{i:05d}", None if i % 13 == 0 else f"entity {i}",
                          types=types, is_cvt=i % 29 == 0))
    return out


@pytest.fixture(autouse=True)
def _small_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    # heads of about a quarter of the 2,000 entities: the cut falls inside every type
    monkeypatch.setattr(type_samples, "HEAD_ENTITIES", 500)


def test_kept_samples_are_the_scanned_ones(store_factory: StoreFactory) -> None:
    store = store_factory()
    store.ingest(_entities())
    ks = (1, 5, 21, 60, 150, 400, 1_000)
    expected = {(seed, t, k): store.sample_entities(k, seed=seed, type_id=t)
                for seed in (0, 7) for t in (*TYPES, "t.none") for k in ks}
    assert store.keep_type_samples(7) is True
    assert store.keep_type_samples(7) is False   # kept already
    reader = open_store(store.location, read_only=True)
    try:
        samples = type_samples.kept(reader, 7)
        assert samples is not None
        # small types whole, the others cut; a type's head is the start of its sample
        assert samples.complete >= {"t.small", "t.tiny"} and "t.big" not in samples.complete
        assert 0 < len(samples.heads["t.big"]) < 900
        served = {(t, k) for t in TYPES for k in ks if samples.sample(t, k) is not None}
        assert ("t.big", 21) in served and ("t.tiny", 1_000) in served
        assert ("t.big", 1_000) not in served   # beyond the head: scanned
        for (seed, t, k), entities in expected.items():
            assert reader.sample_entities(k, seed=seed, type_id=t) == entities, (seed, t, k)
    finally:
        reader.close()


def test_an_import_makes_them_stale(store: Store) -> None:
    store.ingest(_entities())
    store.keep_type_samples(0)
    assert type_samples.kept(store, 0) is not None
    store.ingest([Entity("m.new", "A new one", types=("t.tiny",))])
    assert type_samples.kept(store, 0) is None
    before = store.sample_entities(10, seed=0, type_id="t.tiny")
    assert "m.new" in {e.id for e in before}
    store.keep_type_samples(0)
    reader = open_store(store.location, read_only=True)
    try:
        assert reader.sample_entities(10, seed=0, type_id="t.tiny") == before
    finally:
        reader.close()
