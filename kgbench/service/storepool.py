"""Read-only store handles shared by the server's request threads.

Neither backend's handle may be used by two threads at once: the embedded store holds
one engine connection and runs explicit transactions on it, and the Neo4j store holds
one driver session and unsynchronised read caches. So the pool opens ``size``
read-only handles (:func:`kgstore.open_readers`: embedded ones share one buffer pool)
and lends each to one thread at a time (``with pool.checkout() as
store:``); a request that waits longer than ``wait_s`` for one is told the server is
busy (503) instead of queueing without end.
"""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Iterator

from kgbench.service.errors import ApiError
from kgstore import Store, is_neo4j, open_readers

__all__ = ["StorePool"]

DEFAULT_WAIT_S = 5.0


class StorePool:
    """``size`` read-only handles on the store at ``location``, lent one thread at a
    time. Opening fails as :func:`kgstore.open_store` does (no store there, ...)."""

    def __init__(self, location: str, size: int, *, wait_s: float = DEFAULT_WAIT_S) -> None:
        if size < 1:
            raise ValueError("a store pool needs at least one handle")
        self.location = location
        self.size = size
        self.wait_s = wait_s
        self.backend = "neo4j" if is_neo4j(location) else "ladybug"
        self._idle: queue.LifoQueue[Store] = queue.LifoQueue()
        self._handles = open_readers(location, size)
        for handle in self._handles:
            self._idle.put(handle)

    @contextlib.contextmanager
    def checkout(self) -> Iterator[Store]:
        """One handle for this thread alone, returned when the block ends; 503 when
        none frees up within ``wait_s``."""
        try:
            handle = self._idle.get(timeout=self.wait_s)
        except queue.Empty:
            raise ApiError(503, f"server busy: all {self.size} store readers are in use",
                           "retry in a moment, or start the server with more --readers"
                           ) from None
        try:
            yield handle
        finally:
            self._idle.put(handle)

    def close(self) -> None:
        """Close every handle (the server is stopping)."""
        handles, self._handles = self._handles, []
        for handle in handles:
            with contextlib.suppress(Exception):
                handle.close()

    def __enter__(self) -> StorePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
