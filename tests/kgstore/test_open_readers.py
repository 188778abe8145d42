"""``open_readers``: several read-only handles on one store for threads reading at
once (the HTTP server's pool). Each answers like the store itself from its own
thread; embedded handles share one engine database, which closes with the last."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from kgstore import Store, StoreError, open_readers, open_store
from kgstore.backends.ladybug import LadybugStore
from tests.kgstore.conftest import StoreFactory
from tests.kgstore.kgdata import KG

IDS = ("m.godfather", "m.godfather2", "m.pacino", "m.coppola")


def answers(store: Store) -> list[object]:
    return [(store.entity(i), store.facts_out(i, limit=50), store.facts_in(i, limit=50),
             store.neighborhood(i, hops=2).facts) for i in IDS]


def test_readers_answer_alike_from_many_threads(store_factory: StoreFactory,
                                                film_kg: KG) -> None:
    store = store_factory()
    film_kg.load(store)
    location = store.location
    store.close()
    readers = open_readers(location, 3)
    try:
        expected = answers(readers[0])
        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(lambda h: [answers(h) for _ in range(20)], readers))
        assert all(r == expected for rs in results for r in rs)
        assert all(h.read_only for h in readers)
    finally:
        for handle in readers:
            handle.close()


def test_embedded_readers_share_one_database_until_the_last_closes(
        store_factory: StoreFactory, film_kg: KG, backend: str) -> None:
    if backend != "ladybug":
        pytest.skip("the embedded backend's database sharing")
    store = store_factory()
    film_kg.load(store)
    location = store.location
    with pytest.raises(StoreError, match="read-only"):
        assert isinstance(store, LadybugStore)
        store.reader()
    store.close()
    first, second, third = open_readers(location, 3)
    assert isinstance(first, LadybugStore) and isinstance(second, LadybugStore)
    assert first._db is second._db
    first.close()   # the others still read
    assert second.entity("m.pacino") is not None and third.entity("m.pacino") is not None
    second.close()
    third.close()
    # The database is closed: the store can be opened for writing again.
    with open_store(location) as writable:
        assert writable.entity("m.pacino") is not None
