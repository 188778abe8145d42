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
def test_facts_out_and_facts_many_read_entity_and_literal_objects_in_one_statement(
        store_factory: Callable[[], Store], film_kg: KG) -> None:
    writable, opened = _film_stores(store_factory, film_kg)
    with opened as read_only:
        transactions = _count_transactions(read_only)
        for id in sorted(film_kg.entity_ids):
            for limit in (1, 3, 100):
                transactions.clear()
                assert read_only.facts_out(id, limit=limit) == writable.facts_out(id, limit=limit)
                assert transactions == [1], (id, limit)   # one statement
            for predicate in sorted({f.predicate for f in film_kg.facts}):
                first = read_only.facts_out(id, predicate=predicate, limit=100)
                transactions.clear()
                assert read_only.facts_out(id, predicate=predicate, limit=2) == first[:2]
                assert first == writable.facts_out(id, predicate=predicate, limit=100)
                assert transactions == []   # kept from the first read
    with open_store(URI, read_only=True) as read_only:   # nothing kept yet
        transactions = _count_transactions(read_only)
        ids = [*sorted(film_kg.entity_ids), "m.missing"]   # an unknown id reads as none
        for predicate in sorted({f.predicate for f in film_kg.facts}):
            for limit in (0, 1, 2, 100):   # a limit the entity objects alone may reach
                transactions.clear()
                found = read_only.facts_many(ids, predicate=predicate, outgoing=True,
                                             limit=limit)
                assert found == writable.facts_many(ids, predicate=predicate, outgoing=True,
                                                    limit=limit), (predicate, limit)
                assert transactions in ([1], []), (predicate, limit)   # [] when all kept


def _open_transactions() -> int:
    """Transactions open on the server now, besides the one that asks (SHOW TRANSACTIONS
    lists every session's: the server's own count, not the store's)."""
    from tests.neo4j_server import run_query

    rows = run_query("SHOW TRANSACTIONS YIELD transactionId, currentQuery "
                     "WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS' "
                     "RETURN transactionId")
    return len(rows)


@pytest.mark.parametrize("backend", ["neo4j"])
def test_reads_in_a_read_transaction_block_share_one_transaction_on_the_server(
        store_factory: Callable[[], Store], film_kg: KG) -> None:
    writable, opened = _film_stores(store_factory, film_kg)
    ids = sorted(film_kg.entity_ids)
    with opened as read_only:
        counts: Any = read_only.read_counts   # type: ignore[attr-defined]
        before = counts.transactions
        assert _open_transactions() == 0
        with read_only.read_transaction():
            assert read_only.facts_out(ids[0], limit=5) == writable.facts_out(ids[0], limit=5)
            assert _open_transactions() == 1   # held open between the block's reads
            with read_only.read_transaction():   # nested: the same transaction
                assert read_only.entities(ids) == writable.entities(ids)
            assert read_only.facts_in(ids[1], limit=5) == writable.facts_in(ids[1], limit=5)
            assert _open_transactions() == 1
        assert counts.transactions - before == 1
        read_only.facts_in(ids[2], limit=5)   # outside a block: a transaction of its own
        assert counts.transactions - before == 2
        # Kept for the next block (a generation's next question): no BEGIN again.
        assert _open_transactions() == 1
        with read_only.read_transaction():
            assert read_only.facts_out(ids[3], limit=5) == writable.facts_out(ids[3], limit=5)
        assert counts.transactions - before == 2
    assert _open_transactions() == 0   # ended when the store closed


@pytest.mark.parametrize("backend", ["neo4j"])
def test_a_shared_transaction_open_long_enough_ends_with_its_block(
        store_factory: Callable[[], Store], film_kg: KG,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from kgstore.backends.neo4j import shared_reads

    writable, opened = _film_stores(store_factory, film_kg)
    ids = sorted(film_kg.entity_ids)
    with opened as read_only:
        counts: Any = read_only.read_counts   # type: ignore[attr-defined]
        before = counts.transactions
        with read_only.read_transaction():
            read_only.facts_out(ids[0], limit=5)
        assert _open_transactions() == 1   # younger than KEEP_OPEN_S: kept
        monkeypatch.setattr(shared_reads, "KEEP_OPEN_S", 0.0)
        with read_only.read_transaction():
            assert read_only.facts_in(ids[1], limit=5) == writable.facts_in(ids[1], limit=5)
        assert _open_transactions() == 0   # old enough: ended with the block
        with read_only.read_transaction():
            read_only.facts_out(ids[2], limit=5)
        assert counts.transactions - before == 2   # the next block began a new one


@pytest.mark.parametrize("backend", ["neo4j"])
def test_a_read_whose_shared_transaction_was_terminated_is_read_again(
        store_factory: Callable[[], Store], film_kg: KG) -> None:
    """The server ends the shared transaction between two reads of a block (an admin's
    TERMINATE TRANSACTION, a server-side timeout): the next read still answers, from a
    transaction of its own, and the block's reads after it share a new one."""
    from tests.neo4j_server import run_query

    writable, opened = _film_stores(store_factory, film_kg)
    ids = sorted(film_kg.entity_ids)
    with opened as read_only:
        counts: Any = read_only.read_counts   # type: ignore[attr-defined]
        with read_only.read_transaction():
            read_only.facts_out(ids[0], limit=5)
            open_ids = run_query("SHOW TRANSACTIONS YIELD transactionId, currentQuery "
                                 "WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS' "
                                 "RETURN transactionId")
            assert len(open_ids) == 1
            run_query("TERMINATE TRANSACTIONS $ids", {"ids": [open_ids[0][0]]})
            before = counts.transactions
            assert read_only.facts_in(ids[1], limit=5) == writable.facts_in(ids[1], limit=5)
            assert read_only.facts_out(ids[2], limit=5) == writable.facts_out(ids[2], limit=5)
            assert read_only.facts_in(ids[3], limit=5) == writable.facts_in(ids[3], limit=5)
            # The terminated one's read in one of its own, then one shared by the rest.
            assert counts.transactions - before == 2
    assert _open_transactions() == 0


@pytest.mark.parametrize("backend", ["neo4j"])
def test_a_writable_store_shares_no_transaction(
        store_factory: Callable[[], Store], film_kg: KG) -> None:
    """A writable store's reads see its writes: a block shares nothing there."""
    writable, _ = _film_stores(store_factory, film_kg)
    counts: Any = writable.read_counts   # type: ignore[attr-defined]
    ids = sorted(film_kg.entity_ids)
    with writable.read_transaction():
        before = counts.transactions
        writable.facts_out(ids[0], limit=5)
        assert _open_transactions() == 0
        writable.facts_out(ids[1], limit=5)
        assert counts.transactions - before == 2
