"""Network round trips of a Neo4j store's reads: a read-only store keeps what every
question asks again, and one read that needs two queries sends them in one transaction
(bench/extend_bench.py --store counts them: each transaction costs round trips).

The transactions are counted by wrapping the store's one read path, ``_read_many``,
which still does the reading; the answers are compared with a writable store's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kgstore import Store, open_store
from tests.kgstore.kgdata import KG
from tests.neo4j_server import URI, requires_neo4j

pytestmark = requires_neo4j


def _count_transactions(store: Store) -> list[int]:
    """Queries per read transaction of ``store`` from now on."""
    transactions: list[int] = []
    neo: Any = store
    read_many = neo._read_many

    def counted(queries: Any) -> Any:
        transactions.append(len(queries))
        return read_many(queries)

    neo._read_many = counted
    return transactions


def _film_stores(store_factory: Callable[[], Store], film_kg: KG) -> tuple[Store, Store]:
    """The film KG in a fresh Neo4j store, and the same database opened read-only."""
    writable = store_factory()
    film_kg.load(writable)
    assert URI is not None
    return writable, open_store(URI, read_only=True)


@pytest.mark.parametrize("backend", ["neo4j"])
def test_read_only_store_reads_the_predicates_once(
        store_factory: Callable[[], Store], film_kg: KG) -> None:
    writable, opened = _film_stores(store_factory, film_kg)
    with opened as read_only:
        transactions = _count_transactions(read_only)
        everything = writable.predicates()
        assert read_only.predicates() == everything
        assert read_only.predicates(limit=2) == everything[:2]
        assert read_only.predicates(limit=0) == []
        read_only.predicates().clear()   # a caller's list is its own
        assert read_only.predicates() == everything
        assert transactions == [1]


@pytest.mark.parametrize("backend", ["neo4j"])
def test_facts_out_reads_entity_and_literal_objects_in_one_transaction(
        store_factory: Callable[[], Store], film_kg: KG) -> None:
    writable, opened = _film_stores(store_factory, film_kg)
    with opened as read_only:
        transactions = _count_transactions(read_only)
        for id in sorted(film_kg.entity_ids):
            for limit in (1, 3, 100):
                transactions.clear()
                assert read_only.facts_out(id, limit=limit) == writable.facts_out(id, limit=limit)
                assert transactions == [2], (id, limit)
            for predicate in sorted({f.predicate for f in film_kg.facts}):
                first = read_only.facts_out(id, predicate=predicate, limit=100)
                transactions.clear()
                assert read_only.facts_out(id, predicate=predicate, limit=2) == first[:2]
                assert first == writable.facts_out(id, predicate=predicate, limit=100)
                assert transactions == []   # kept from the first read
