"""FastAPI dependencies every router uses: the settings, a store handle, the data
directory, the write-token check, and :class:`Reader`, which runs a store read in a
worker thread with a wall-clock bound.

A route that reads the store should take ``reader: Reader = Depends(reader)`` and
``await reader.run(fn, ...)``: the handle is waited for without a thread, ``fn`` runs
on the pool's own threads, and the handle is returned only when ``fn`` ends, so a
request that timed out (504) never hands a handle still in use to the next request.
``await reader.run(fn, ..., short=True)`` says ``fn`` is a few indexed reads with
little JSON (an entity page): when its request is the only one the server is handling,
it runs on the event loop's own thread instead, for at most
:data:`INLINE_BUDGET_S` (:meth:`Reader.run`). ``Depends(store)`` gives a handle for the
whole request, for routes whose reads are small and bounded by construction.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from kgbench.service.cypher_workers import CypherWorkers
from kgbench.service.errors import ApiError
from kgbench.service.protocol import alone
from kgbench.service.security import token_presented_ok
from kgbench.service.settings import ServiceSettings
from kgbench.service.storepool import StorePool
from kgstore import Store
from kgstore.errors import QueryTimeoutError

__all__ = ["CypherWorkersDep", "DataRootDep", "Reader", "ReaderDep", "SettingsDep", "StoreDep",
           "StorePoolDep", "WriteToken", "cypher_workers", "data_root", "reader",
           "require_write_token", "settings", "store", "store_pool"]

T = TypeVar("T")
WALL_CLOCK_GRACE_S = 2.0
"""How long past the query timeout a read may take before the request gets its 504
(the engine's own timeout usually stops a Cypher query first)."""
INLINE_BUDGET_S = 0.02
"""The longest a ``short`` read runs on the event loop's thread (:meth:`Reader.run`):
an entity page of 20 facts a direction takes 0.2-1 ms on the 5M-fact store, a hub's
included, and up to ~11 ms cold; past this the loop would keep other clients waiting."""


# The dependencies are coroutines although none waits for anything: FastAPI runs a
# plain function dependency in its thread pool, a thread hop per request (on a busy
# machine each hop waits for a core; the 1-client entity page spent a fifth of its time
# so).

def _settings(request: Request) -> ServiceSettings:
    found: ServiceSettings = request.app.state.settings
    return found


def _pool(request: Request) -> StorePool:
    pool: StorePool = request.app.state.stores
    return pool


async def settings(request: Request) -> ServiceSettings:
    """The server's settings."""
    return _settings(request)


async def store_pool(request: Request) -> StorePool:
    """The server's pool of read-only store handles."""
    return _pool(request)


async def cypher_workers(request: Request) -> CypherWorkers:
    """The server's Cypher worker processes (Cypher runs there, not on the pool)."""
    workers: CypherWorkers = request.app.state.cypher
    return workers


def store(request: Request) -> Iterator[Store]:
    """One read-only handle for this request (returned when it ends; the wait for it
    may block, so this one runs in the thread pool)."""
    with _pool(request).checkout() as handle:
        yield handle


async def data_root(request: Request) -> Path:
    """The data directory (resolved); every request path goes through
    :func:`kgbench.service.paths.resolve_under` with it."""
    return _settings(request).data_dir


async def require_write_token(request: Request) -> None:
    """401 unless the request carries the token, when one is set: put it on every
    route that starts or cancels a job or writes anything. (The security middleware
    checks the same rule for every non-read request already; this makes it explicit
    where the route is declared, and holds if a route is mounted elsewhere.)"""
    conf = _settings(request)
    if conf.auth and not token_presented_ok(conf, request.headers):
        raise ApiError(401, "this needs the server's token",
                       "send Authorization: Bearer TOKEN, or log in at /login")


@dataclass(frozen=True, slots=True)
class Reader:
    """Runs store reads for one request: in a worker thread, on a pooled handle, at
    most ``timeout_s`` of wall-clock time (then 504)."""

    pool: StorePool
    timeout_s: float
    alone: bool = False
    """Whether this request is the only one the server is handling
    (:func:`kgbench.service.protocol.alone`): a ``short`` read may then run on the event
    loop's thread."""

    async def run(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None,
                  short: bool = False, **kwargs: Any) -> T:
        """``fn(store, *args, **kwargs)`` on a handle of its own, within ``timeout_s``
        (default: the server's query timeout) plus a grace for the engine's own stop.

        ``short``: the caller knows ``fn`` is a few indexed reads with bounded Python
        work around them (an entity page of a few facts). On the embedded store, when
        the request is :attr:`alone` and no other read is running (a job's, a request
        of FastAPI's own thread pool), it then runs on the event loop's own thread, which
        saves the two thread hand-overs of a worker thread (a third of an entity
        page's round trip at one client), under a deadline of
        :data:`INLINE_BUDGET_S`: one that runs past it is stopped by the engine and
        run again on a worker thread with the time left, so the loop is held up
        :data:`INLINE_BUDGET_S` at most, whatever was asked."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        left = limit
        if short and self.alone and self.pool.local and limit > INLINE_BUDGET_S:
            handle = self.pool.take_if_quiet()
            if handle is not None:
                started = time.monotonic()
                try:
                    with handle.deadline(INLINE_BUDGET_S):
                        return fn(handle, *args, **kwargs)
                except QueryTimeoutError:
                    left = limit - (time.monotonic() - started)   # the rest on a worker
                finally:
                    self.pool.release(handle)
        return await self._on_worker(fn, args, kwargs, limit, left)

    async def _on_worker(self, fn: Callable[..., T], args: tuple[Any, ...],
                         kwargs: dict[str, Any], limit: float, left: float) -> T:
        """``fn`` on one of the pool's threads within ``left`` of the request's
        ``limit`` seconds (the errors name ``limit``)."""
        # The wait for a handle holds no thread; the read then runs on the pool's own
        # threads, one per handle (kgbench.service.storepool).
        handle = await self.pool.acquire()
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()

        def work() -> None:
            settle: Callable[[asyncio.Future[T], Any], None]
            try:
                # The store's own deadline stops the engine's work too, so an abandoned
                # read gives its handle back soon instead of holding it as long as it runs.
                with handle.deadline(left):
                    outcome: Any = fn(handle, *args, **kwargs)
                settle = _succeed
            except QueryTimeoutError as exc:
                outcome, settle = (exc if left == limit else QueryTimeoutError(limit)), _fail
            except BaseException as exc:   # noqa: BLE001 - handed to the request
                outcome, settle = exc, _fail
            finally:
                # The handle goes back when the read ends, not when the request gave up.
                self.pool.release(handle)
            loop.call_soon_threadsafe(settle, answer, outcome)

        try:
            self.pool.executor.submit(work)
        except BaseException:
            self.pool.release(handle)
            raise
        # The request's own future, settled by the read or by this timer, whichever comes
        # first (cheaper than wrapping the executor's future, shielding it and waiting
        # for it with wait_for: an event loop's work per request is most of an entity
        # page's overhead).
        timer = loop.call_later(left + WALL_CLOCK_GRACE_S, _abandon, answer, limit)
        try:
            return await answer
        finally:
            timer.cancel()


def _succeed(answer: asyncio.Future[Any], value: Any) -> None:
    if not answer.done():   # not abandoned or cancelled meanwhile
        answer.set_result(value)


def _fail(answer: asyncio.Future[Any], exc: BaseException) -> None:
    if not answer.done():
        answer.set_exception(exc)


def _abandon(answer: asyncio.Future[Any], limit: float) -> None:
    _fail(answer, ApiError(504, f"the request ran past the server's time limit of "
                           f"{limit:g} s and was abandoned",
                           "narrow it (fewer hops, lower caps, a LIMIT)"))


async def reader(request: Request) -> Reader:
    """The :class:`Reader` of this request."""
    return Reader(_pool(request), _settings(request).query_timeout_s, alone(request.scope))


# Parameter types for routes: ``def route(conf: SettingsDep, reader: ReaderDep)``;
# ``dependencies=[WriteToken]`` on a route that starts, cancels or writes anything.
SettingsDep = Annotated[ServiceSettings, Depends(settings)]
StorePoolDep = Annotated[StorePool, Depends(store_pool)]
CypherWorkersDep = Annotated[CypherWorkers, Depends(cypher_workers)]
StoreDep = Annotated[Store, Depends(store)]
DataRootDep = Annotated[Path, Depends(data_root)]
ReaderDep = Annotated[Reader, Depends(reader)]
WriteToken = Depends(require_write_token)
