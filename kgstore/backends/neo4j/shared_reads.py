"""One read transaction shared by the reads of a block
(:meth:`Neo4jStore.read_transaction <kgstore.backends.neo4j.store.Neo4jStore.read_transaction>`),
and the store's count of its read transactions and queries.

Why: each read transaction of its own costs the driver's managed-transaction machinery
and a COMMIT round trip on top of its queries' (on the 2-core benchmark machine 1.2 ms
for an empty one against 0.4 ms for one query more in an open transaction); the
extension engine's reads of one question, made one after another because each decides
the next, then cost one transaction instead of eight.

The transaction is begun by the block's first read, on a session of its own (the
store's session stays free for reads outside the block), and rolled back (a read
transaction has nothing to commit) when a block ends after it has been open
:data:`KEEP_OPEN_S` seconds, or when the store closes: the blocks that follow one
another (a generation's questions) share it too, which saves each its BEGIN and its
end, two of the nine round trips of an extension benchmark question (issue 35). A read
that fails in it drops it; the store then reads in a managed transaction of its own,
which the driver retries on transient errors and whose errors the store translates,
and the block's next read begins a new shared one (so a server that ends an idle
transaction, by a timeout or an admin's TERMINATE, costs one read again). Nothing
read can change meanwhile: a shared transaction is only taken on a store opened
read-only, whose data must not change while it reads (the store's contract).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j

__all__ = ["KEEP_OPEN_S", "ReadCounts", "SharedReads"]

KEEP_OPEN_S = 5.0
"""How long a shared transaction serves the blocks that follow its own: it ends with
the first block to end after that (a server holds nothing for an open read
transaction but its connection; bounded all the same, so that a store left open ends
it soon after its last block)."""

Queries = Sequence[tuple[str, dict[str, Any]]]
Rows = list[list[list[Any]]]


@dataclass(slots=True)
class ReadCounts:
    """Read transactions, queries and network round trips a store's reads have cost
    (what ``bench/extend_bench.py --store`` reports per question). A query is one
    round trip (RUN and PULL go together; a result over the driver's fetch size takes
    more, not counted), ending a transaction one more; a managed transaction's BEGIN
    goes with its first query, a shared one's costs a round trip of its own."""

    transactions: int = 0
    queries: int = 0
    round_trips: int = 0

    def add(self, queries: int, *, transactions: int = 0, round_trips: int = 0) -> None:
        self.transactions += transactions
        self.queries += queries
        self.round_trips += queries + round_trips


class SharedReads:
    """The shared read transaction of a store: :meth:`enter` / :meth:`exit` bracket a
    block (blocks nest; consecutive outermost ones share the transaction until it is
    :data:`KEEP_OPEN_S` old), :meth:`read` runs queries in it."""

    def __init__(self, new_session: Callable[[], neo4j.Session], counts: ReadCounts) -> None:
        self._new_session = new_session
        self._counts = counts
        self._session: neo4j.Session | None = None
        self._tx: neo4j.Transaction | None = None
        self._began = 0.0   # time.monotonic() of the transaction's BEGIN
        self.depth = 0

    @property
    def active(self) -> bool:
        return self.depth > 0

    def enter(self) -> None:
        self.depth += 1

    def exit(self) -> None:
        self.depth -= 1
        if self.depth == 0 and time.monotonic() - self._began >= KEEP_OPEN_S:
            self.end()

    def read(self, run: Callable[[Any, Queries], Rows], queries: Queries) -> Rows:
        """``run(tx, queries)`` in the shared transaction, begun here if need be. Any
        error drops the transaction and propagates (the caller reads elsewhere)."""
        try:
            if self._tx is None:
                if self._session is None:
                    self._session = self._new_session()
                self._tx = self._session.begin_transaction()
                self._began = time.monotonic()
                self._counts.add(0, transactions=1, round_trips=2)   # BEGIN, and its end
            self._counts.add(len(queries))
            return run(self._tx, queries)
        except BaseException:
            self.drop()
            raise

    def end(self) -> None:
        """Roll the transaction back (it only read), if one is open."""
        tx, self._tx = self._tx, None
        if tx is not None:
            try:
                tx.close()
            except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError):
                self.drop()

    def drop(self) -> None:
        """Forget the transaction and its session after a failure (the session may be
        broken; the next read opens a new one)."""
        tx, self._tx = self._tx, None
        session, self._session = self._session, None
        for thing in (tx, session):
            if thing is not None:
                with contextlib.suppress(Exception):
                    thing.close()

    def close(self) -> None:
        self.end()
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):
                session.close()
