"""Write transactions of the online import, several at once: each on a session of its
own, from a small pool of threads, while the importing thread prepares the next batches.

Why several: a batch's time is nearly all the server's (creating the records, updating
the indexes, writing the transaction log: about 25 µs of server CPU per relationship,
measured with JFR on Neo4j 5.26), one transaction runs on one server thread, and the
client's share is a fifth of it. Several writers keep several server threads busy and
overlap the client's work with the server's. Batches of one step touch disjoint rows and Neo4j takes a
relationship's locks at commit in a sorted order, so they do not deadlock; a transient
error (a deadlock, a leader switch) is retried (the driver's managed transactions, or the
whole task for an implicit transaction). Batches commit in no fixed order, so a kill
leaves some of them, not a prefix: the import computes what is missing again anyway.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, TypeVar

import neo4j

from kgstore.backends.neo4j.connection import translated_errors
from kgstore.errors import StoreError

if TYPE_CHECKING:
    from kgstore.backends.neo4j.queries import Query
    from kgstore.backends.neo4j.store import Neo4jStore

__all__ = ["WRITERS_ENV", "WritePool", "Writer", "import_writers"]

WRITERS_ENV = "KGBENCH_NEO4J_WRITERS"
DEFAULT_WRITERS = 4
"""Write transactions at once. 200k facts on the 2-core test machine (shared, load
12-15): 1, 2, 3, 4 writers gave 3.1-4.3k, 4.1k, 5.4-5.5k, 5.5-6.0k facts/s for the same
server and client CPU; a server with more cores takes more (``KGBENCH_NEO4J_WRITERS``).
At most the store's Bolt connections (``open_store(pool_size=4)``)."""
MAX_WRITERS = 32
# Tries of a task whose implicit transaction hit a transient error.
_TASK_TRIES = 3

T = TypeVar("T")


def import_writers() -> int:
    """``KGBENCH_NEO4J_WRITERS`` (1 to 32), else :data:`DEFAULT_WRITERS`."""
    text = os.environ.get(WRITERS_ENV, "").strip()
    if not text:
        return DEFAULT_WRITERS
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_WRITERS:
        raise StoreError(f"{WRITERS_ENV}={text!r}: give the number of write transactions "
                         f"at once, 1 to {MAX_WRITERS} (default {DEFAULT_WRITERS})")
    return value


class Writer:
    """One session, used by one thread at a time. Its errors are the driver's (the
    pool turns them into store errors)."""

    def __init__(self, store: Neo4jStore) -> None:
        self.session = store._new_session()

    def write(self, *queries: Query) -> list[list[list[Any]]]:
        """The rows of each query, all in one managed write transaction."""
        def work(tx: neo4j.ManagedTransaction) -> list[list[list[Any]]]:
            return [tx.run(query, params).values() for query, params in queries]

        return self.session.execute_write(work)

    def autocommit(self, query: Query) -> None:
        """A query in an implicit transaction (``CALL ... IN TRANSACTIONS``)."""
        self.session.run(*query).consume()


class WritePool:
    """:func:`import_writers` writers in threads (at most the store's Bolt connections);
    :meth:`run` feeds them tasks."""

    def __init__(self, store: Neo4jStore, writers: int | None = None) -> None:
        self._store = store
        self.size = min(writers or import_writers(), store.pool_size)
        self._local = threading.local()
        self._writers: list[Writer] = []
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(self.size, thread_name_prefix="kgbench-neo4j-write")

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        for writer in self._writers:
            writer.session.close()
        self._writers.clear()

    def __enter__(self) -> WritePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writer(self) -> Writer:
        writer = getattr(self._local, "writer", None)
        if writer is None:
            writer = self._local.writer = Writer(self._store)
            with self._lock:
                self._writers.append(writer)
        return writer

    def _task(self, task: Callable[[Writer], T], retry: bool) -> T:
        writer = self._writer()
        with translated_errors(self._store.neo4j_location):
            for attempt in range(1, _TASK_TRIES):
                try:
                    return task(writer)
                except neo4j.exceptions.TransientError:
                    if not retry:
                        raise
                    time.sleep(0.2 * attempt)
            return task(writer)

    def run(self, tasks: Iterable[tuple[Callable[[Writer], T], int]],
            done: Callable[[T, int], None], *, retry: bool = False) -> None:
        """Run each ``(task, rows)`` of ``tasks`` (drawn as writers free up, so the
        batches are made while others are written) on a writer; ``done(result, rows)``
        in this thread as each finishes. ``retry``: a task that raises a transient
        error runs again from its start (it must be idempotent). On an error, or an
        exception from ``done`` (a progress callback that stops the import), tasks not
        started are dropped and the ones running finish before it propagates."""
        pending: dict[Future[T], int] = {}

        def finish(futures: Iterable[Future[T]]) -> None:
            for future in futures:
                rows = pending.pop(future)
                done(future.result(), rows)

        try:
            for task, rows in tasks:
                while len(pending) >= 2 * self.size:
                    finish(wait(pending, return_when=FIRST_COMPLETED).done)
                pending[self._executor.submit(self._task, task, retry)] = rows
            while pending:
                finish(wait(pending, return_when=FIRST_COMPLETED).done)
        except BaseException:
            for future in pending:
                future.cancel()
            wait(pending)
            raise

