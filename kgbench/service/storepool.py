"""Read-only store handles shared by the server's request threads.

Neither backend's handle may be used by two threads at once: the embedded store holds
one engine connection and runs explicit transactions on it, and the Neo4j store holds
one driver session and unsynchronised read caches. So the pool opens ``size``
read-only handles (:func:`kgstore.open_readers`: embedded ones share one buffer pool)
and lends each to one thread at a time (``with pool.checkout() as
store:``); a request that waits longer than ``wait_s`` for one is told the server is
busy (503) instead of queueing without end.

Waiters are served first come, first served: a returned handle goes straight to the
longest waiter. (A plain queue let the thread that had just returned a handle take it
back before the woken waiter ran, so under load a few threads kept the handles and
the others timed out into 503s while the server was merely busy:
bench/service_bench.py with 32 clients on 4 handles.)

A read-only handle keeps reading what the store held when it was opened, so after
``kgbench load`` into the served store the pool would serve the old data (issue 38).
Before lending a handle it compares the store's generation
(:meth:`kgstore.store.Store.generation`: a few bytes of a file on the embedded store, a
``Meta`` row on Neo4j; at most every :data:`GENERATION_CHECK_S`) with the one its
handles were opened at, and when a writer changed it, opens new handles and retires
the old ones (each closed when its current read ends), logging one line.

The embedded store's handles are :attr:`local`: a read on one is work of this process
(the engine's threads), not a wait for a server, which is what lets a short one run on
the event loop's thread (:meth:`take_if_quiet`).

The routes wait without a thread (:meth:`StorePool.acquire`, awaited), and run their
read on the pool's own ``size`` threads once they hold a handle (:attr:`executor`).
When they waited in a thread of the event loop's shared executor (6 threads on 2
cores), requests beyond those threads queued before their 5 s even began, and got
their answer or their 503 only after 7-10 s (issue 32).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

from kgbench.service.errors import ApiError
from kgstore import Store, StoreError, open_readers

__all__ = ["StorePool"]

DEFAULT_WAIT_S = 5.0
GENERATION_CHECK_S = 0.5
"""How often (at most) the pool asks whether the store changed: a request after a load
reads the new contents within this."""
log = logging.getLogger("kgbench.service")


def _ready(handles: list[Store]) -> list[Store]:
    """``handles`` with their search index ready: a store loaded before there was one
    builds it here, once, before the server answers (not in the first searches, each
    on its own handle); a Neo4j store that needs ``kgbench store search-index`` says so
    in the log, and its searches say so too."""
    for handle in handles:
        try:
            handle.prepare_search()
        except StoreError as exc:
            log.warning("%s", exc)
            break
    return handles


class _Waiter:
    """A thread or a coroutine waiting for a handle, and the handle once it is handed
    over (``wake`` tells the waiter, from whichever thread returns the handle)."""

    __slots__ = ("handle", "wake")

    def __init__(self, wake: Callable[[], None]) -> None:
        self.wake = wake
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
        self._handles = _ready(open_readers(location, size))
        self.backend = self._handles[0].backend
        self.dialect = self._handles[0].dialect
        self.local = self.backend == "ladybug"
        """Whether a read is this process's own work (the embedded store), not a wait
        for a database server."""
        self._idle: list[Store] = list(self._handles)
        self._generation = self._handles[0].generation()
        self._checked_at = time.monotonic()
        self._reopening = threading.Lock()
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="store-read")
        """Threads for reads that hold a handle: one per handle, so none ever queues."""

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
        ready = threading.Event()
        handle, waiter = self._take_or_queue(ready.set)
        if handle is not None:
            return handle
        assert waiter is not None
        ready.wait(self.wait_s)
        return self._handed_over(waiter)

    async def acquire(self) -> Store:
        """One handle for the caller alone, waited for without holding a thread (503
        after ``wait_s``); give it back with :meth:`release`."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def set_ready() -> None:
            if not ready.done():   # not timed out meanwhile
                ready.set_result(None)

        def wake() -> None:   # called by whichever thread returns a handle
            loop.call_soon_threadsafe(set_ready)

        handle, waiter = self._take_or_queue(wake)
        if handle is not None:
            return handle
        assert waiter is not None
        try:
            await asyncio.wait_for(ready, self.wait_s)
        except TimeoutError:
            pass
        except BaseException:   # the request was cancelled: leave no handle behind
            self._abandon(waiter)
            raise
        return self._handed_over(waiter)

    def take_if_quiet(self) -> Store | None:
        """A handle for the caller alone when no read holds one now (every handle idle,
        nobody waiting), else ``None`` at once; give it back with :meth:`release`. The
        server runs a short read on the event loop's own thread only then
        (:meth:`kgbench.service.deps.Reader.run`): with other reads running, the loop
        has their requests to tend."""
        self.reopen_if_changed()
        with self._lock:
            if len(self._idle) == self.size and not self._waiters:
                return self._idle.pop()
        return None

    def release(self, handle: Store) -> None:
        """Give back a handle of :meth:`acquire` (from any thread)."""
        self._release(handle)

    def _take_or_queue(self, wake: Callable[[], None]) -> tuple[Store | None, _Waiter | None]:
        self.reopen_if_changed()
        with self._lock:
            if self._idle and not self._waiters:
                return self._idle.pop(), None
            waiter = _Waiter(wake)
            self._waiters.append(waiter)
            return None, waiter

    def _handed_over(self, waiter: _Waiter) -> Store:
        with self._lock:
            if waiter.handle is not None:     # handed over, perhaps just as time ran out
                return waiter.handle
            self._waiters.remove(waiter)
        raise ApiError(503, f"server busy: all {self.size} store readers are in use",
                       "retry in a moment, or start the server with more --readers")

    def _abandon(self, waiter: _Waiter) -> None:
        with self._lock:
            handle = waiter.handle
            if handle is None:
                self._waiters.remove(waiter)
        if handle is not None:
            self._release(handle)

    def reopen_if_changed(self) -> bool:
        """Open new handles if a writer changed the store since the current ones were
        opened (asked at most every :data:`GENERATION_CHECK_S`); whether it did. A
        store that cannot be opened now (a writer is rebuilding it) keeps the old
        handles, and the next check tries again."""
        now = time.monotonic()
        if now - self._checked_at < GENERATION_CHECK_S or not self._reopening.acquire(
                blocking=False):
            return False
        try:
            self._checked_at = now
            with self._lock:
                handles = list(self._handles)
            if not handles:
                return False
            try:
                generation = handles[0].generation()
                if generation == self._generation:
                    return False
                fresh = _ready(open_readers(self.location, self.size))
            except Exception as exc:   # noqa: BLE001 - keep serving what we have
                log.warning("the store %s changed but cannot be reopened yet (%s); "
                            "serving what it held before", self.location, exc)
                return False
            with self._lock:
                retired, self._handles = self._handles, fresh
                idle, self._idle = self._idle, list(fresh)
                self._generation = generation
                while self._waiters and self._idle:
                    waiter = self._waiters.popleft()
                    waiter.handle = self._idle.pop()
                    waiter.wake()
            for handle in idle:   # the lent ones close when they come back (_release)
                with contextlib.suppress(Exception):
                    handle.close()
            log.warning("the store %s changed (a load into it): reopened its %d readers, "
                        "%d still finishing a read on the old ones", self.location,
                        self.size, len(retired) - len(idle))
            return True
        finally:
            self._reopening.release()

    def _release(self, handle: Store) -> None:
        with self._lock:
            retired = not any(handle is current for current in self._handles)
            if retired:
                pass   # opened before the store changed: closed, not lent again
            elif self._waiters:
                waiter = self._waiters.popleft()
                waiter.handle = handle
                waiter.wake()
            else:
                self._idle.append(handle)
        if retired:
            with contextlib.suppress(Exception):
                handle.close()

    @property
    def idle(self) -> int:
        """Handles not lent right now."""
        with self._lock:
            return len(self._idle)

    def close(self) -> None:
        """Close every handle (the server is stopping)."""
        self.executor.shutdown(wait=False, cancel_futures=True)
        handles, self._handles = self._handles, []
        for handle in handles:
            with contextlib.suppress(Exception):
                handle.close()

    def __enter__(self) -> StorePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
