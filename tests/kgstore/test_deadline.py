"""``Store.deadline``: reads in the block stop with ``QueryTimeoutError`` once the time
is up, the engine's own work included, and the handle answers normally after it (the
HTTP server gives each request's reads one, so an abandoned read frees its handle)."""

from __future__ import annotations

import time

import pytest

from kgstore import PatternQuery, Store, TriplePattern, Var
from kgstore.errors import QueryTimeoutError


def test_no_read_starts_after_the_deadline(film_store: Store) -> None:
    with film_store.deadline(0.05):
        time.sleep(0.1)
        with pytest.raises(QueryTimeoutError, match="0.05 s"):
            film_store.facts_out("m.godfather", limit=10)
    assert film_store.facts_out("m.godfather", limit=10)   # no deadline after the block


def test_the_engine_stops_a_long_read_at_the_deadline(film_store: Store) -> None:
    # Six unconnected all-variable patterns: a cartesian product of the facts, far
    # longer than the deadline, run as one engine query. The deadline is short because
    # the product's joins fill the embedded engine's 2 GiB buffer pool within about half
    # a second on a fast run ("Unable to allocate memory!", a QueryError, not the timeout).
    query = PatternQuery(tuple(TriplePattern(Var(f"s{i}"), Var(f"p{i}"), Var(f"o{i}"))
                               for i in range(6)))
    started = time.perf_counter()
    with pytest.raises(QueryTimeoutError), film_store.deadline(0.15):
        film_store.match(query)
    assert time.perf_counter() - started < 5
    assert film_store.entity("m.pacino") is not None


@pytest.fixture
def embedded(film_store: Store) -> Store:
    if film_store.backend != "ladybug":
        pytest.skip("the embedded engine's interrupter")
    return film_store


def test_the_embedded_engine_is_stopped_by_an_interrupt_at_the_deadline(embedded: Store) -> None:
    """No engine timeout per statement (it handed each statement to a scheduler thread
    of the engine, which cost an entity page a third more): one interrupt, at the
    deadline."""
    from kgstore.backends.ladybug.interrupter import INTERRUPTER

    query = PatternQuery(tuple(TriplePattern(Var(f"s{i}"), Var(f"p{i}"), Var(f"o{i}"))
                               for i in range(6)))
    before = INTERRUPTER.interrupts
    started = time.perf_counter()
    with pytest.raises(QueryTimeoutError), embedded.deadline(0.15):   # (the buffer pool)
        embedded.match(query)
    assert 0.15 <= time.perf_counter() - started < 5
    assert INTERRUPTER.interrupts > before


def test_a_deadline_whose_block_ended_interrupts_nothing(embedded: Store) -> None:
    from kgstore.backends.ladybug.interrupter import INTERRUPTER

    before = INTERRUPTER.interrupts
    for _ in range(20):
        with embedded.deadline(0.05):
            assert embedded.facts_out("m.godfather", limit=10)
    time.sleep(0.2)   # past every one of those deadlines
    assert INTERRUPTER.interrupts == before
    assert embedded.facts_out("m.godfather", limit=10)
