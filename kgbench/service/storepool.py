"""Read-only store handles shared by the server's request threads.

Neither backend's handle may be used by two threads at once: the embedded store holds
one engine connection and runs explicit transactions on it, and the Neo4j store holds
one driver session and unsynchronised read caches. So the pool opens ``size``
read-only handles (:func:`kgstore.open_readers`: embedded ones share one buffer pool)
and lends each to one thread at a time (``with pool.checkout() as
store:``); a request that waits longer than ``wait_s`` for one is told the server is
busy (503) instead of queueing without end.

Waiting threads are served first come, first served: a returned handle goes straight
to the longest waiter. (A plain queue let the thread that had just returned a handle
take it back before the woken waiter ran, so under load a few threads kept the
handles and the others timed out into 503s while the server was merely busy:
bench/service_bench.py with 32 clients on 4 handles.)
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Iterator

from kgbench.service.errors import ApiError
from kgstore import Store, open_readers

__all__ = ["StorePool"]

DEFAULT_WAIT_S = 5.0


class _Waiter:
    """A thread waiting for a handle, and the handle once it is handed over."""

    __slots__ = ("handle", "ready")

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.handle: Store | None = None


class StorePool:
    """``size`` read-only handles on the store at ``location``, lent one thread at a
    time. Opening fails as :func:`kgstore.open_store` does (no store there, ...)."""

    def __init__(self, location: str, size: int, *, wait_s: float = DEFAULT_WAIT_S) -> None:
        if size < 1:
            raise ValueError("a store pool needs at least one handle")
        self.location = location
        self.size = size
        self.wait_s = wait_s
        self._lock = threading.Lock()
        self._waiters: deque[_Waiter] = deque()
        self._handles = open_readers(location, size)
        self.backend = self._handles[0].backend
        self.dialect = self._handles[0].dialect
        self._idle: list[Store] = list(self._handles)

    @contextlib.contextmanager
    def checkout(self) -> Iterator[Store]:
        """One handle for this thread alone, returned when the block ends; 503 when
        none frees up within ``wait_s``."""
        handle = self._acquire()
        try:
            yield handle
        finally:
            self._release(handle)

    def _acquire(self) -> Store:
        with self._lock:
            if self._idle and not self._waiters:
                return self._idle.pop()
            waiter = _Waiter()
            self._waiters.append(waiter)
        waiter.ready.wait(self.wait_s)
        with self._lock:
            if waiter.handle is not None:     # handed over, perhaps just as time ran out
                return waiter.handle
            self._waiters.remove(waiter)
        raise ApiError(503, f"server busy: all {self.size} store readers are in use",
                       "retry in a moment, or start the server with more --readers")

    def _release(self, handle: Store) -> None:
        with self._lock:
            if self._waiters:
                waiter = self._waiters.popleft()
                waiter.handle = handle
                waiter.ready.set()
            else:
                self._idle.append(handle)

    @property
    def idle(self) -> int:
        """Handles not lent right now."""
        with self._lock:
            return len(self._idle)

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
