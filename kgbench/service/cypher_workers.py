"""Users' Cypher in worker processes: a capacity of its own, a memory limit, and a
crash that costs one request.

``POST /api/cypher`` used to run on the store handles that serve the page reads, in
the server's process (issue 32): one slow query held a handle for its whole timeout,
so entity and stats requests waited behind it (19 s, and a 503 only after 9 s), and one
query that crashed the engine or ate the machine's memory killed ``kgbench serve``.
Now each query goes to one of ``size`` worker processes (:mod:`kgstore.cypher.worker`,
each with its own read-only handle), and the page reads never wait for them:

* **capacity**: a query waits for a free worker first come, first served, at most
  ``wait_s`` (5 s, as the page reads wait for a handle), then gets a 503; the wait
  holds no thread, so waiting queries do not hold up anything else either;
* **memory**: while a query runs, its worker's resident memory is read every 50 ms,
  and a worker past ``memory_mb`` is killed: the query gets a 400 that says so (the
  embedded engine's buffer pool in a worker is half the limit, so caching pages does
  not count against a query);
* **crashes**: a worker that dies (a segfault in the engine) costs its query a 400
  naming the signal;
* **time**: a worker still busy ``GRACE_S`` past the query's timeout (the engine did
  not stop it, e.g. while compiling) is killed, and the query gets a 504.

A killed or dead worker is replaced in the background; the others keep serving. The
answer is the JSON the worker built (:func:`kgstore.models.json_ready`), at most
:data:`MAX_ANSWER_BYTES`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections import deque
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import kgstore
from kgbench.service.errors import ApiError
from kgstore import errors as store_errors
from kgstore.cypher.worker import MAX_ANSWER_ENV, MEMORY_ENV
from kgstore.cypher.worker_client import error_from_answer, signal_name

__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_WORKERS", "MAX_ANSWER_BYTES", "CypherWorkers"]

DEFAULT_WORKERS = 2
DEFAULT_MEMORY_MB = 2048
DEFAULT_WAIT_S = 5.0
MAX_ANSWER_BYTES = 64 * 1024 * 1024
"""The longest answer a worker sends (a longer one is an error): 10,000 rows of a few
kB each fit; the server never reads an unbounded line."""
START_TIMEOUT_S = 120.0
POLL_S = 0.05
GRACE_S = 2.0
"""How long past a query's timeout its worker may stay busy before it is killed."""
STOP_TIMEOUT_S = 5.0

log = logging.getLogger("kgbench.service")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
_SOURCE_ROOT = str(Path(kgstore.__file__).resolve().parents[1])


def _resident_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid`` (None where /proc cannot tell)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return None


def _store_error(doc: Mapping[str, Any]) -> Exception:
    """The exception a worker's ``{"type", "message"}`` stands for; an internal error is
    logged (:func:`kgstore.cypher.worker_client.error_from_answer`)."""
    exc = error_from_answer(doc)
    if type(exc) is RuntimeError:
        log.error("%s", exc)
        return RuntimeError("internal error in a Cypher worker")
    return exc


class _Worker:
    """One worker process and what it was started with."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None

    async def stop(self) -> None:
        """Close its stdin (it exits), then kill it if it lingers."""
        if self.proc.stdin is not None:
            with contextlib.suppress(Exception):
                self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            await self.kill()

    async def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        await self.proc.wait()


class CypherWorkers:
    """``size`` worker processes running Cypher on the store at ``location``, each
    killed past ``memory_mb`` of resident memory; a query waits at most ``wait_s``
    for one. Use :meth:`running` around the server's life."""

    def __init__(self, location: str, size: int = DEFAULT_WORKERS, *,
                 memory_mb: int = DEFAULT_MEMORY_MB, wait_s: float = DEFAULT_WAIT_S) -> None:
        if size < 1:
            raise ValueError("a Cypher worker pool needs at least one worker")
        self.location = location
        self.size = size
        self.memory_mb = memory_mb
        self.wait_s = wait_s
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._waiters: deque[asyncio.Future[_Worker]] = deque()
        self._replacing: set[asyncio.Task[None]] = set()
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[CypherWorkers]:
        """Start the workers (all ready, or an error naming why not); stop them at the
        end."""
        try:
            workers = await asyncio.gather(*(self._spawn() for _ in range(self.size)))
            self._idle.extend(workers)
            yield self
        finally:
            await self.close()

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        # The worker imports the same kgstore as this server, installed or not.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SOURCE_ROOT, env.get("PYTHONPATH")]))
        env[MEMORY_ENV] = str(self.memory_mb)
        env[MAX_ANSWER_ENV] = str(MAX_ANSWER_BYTES)
        return env

    async def _spawn(self) -> _Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "kgstore.cypher.worker", self.location,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=self._environment(), start_new_session=True,
            limit=MAX_ANSWER_BYTES + 1024 * 1024)
        worker = _Worker(proc)
        assert proc.stdout is not None
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), START_TIMEOUT_S)
            doc = json.loads(line) if line else {"error": {
                "message": f"the worker process ended ({signal_name(await proc.wait())})"}}
        except (TimeoutError, ValueError) as exc:
            doc = {"error": {"message": f"the worker process did not start ({exc!r})"}}
        if doc.get("ready") is not True:
            await worker.kill()
            message = str((doc.get("error") or {}).get("message", "unknown error"))
            raise store_errors.StoreError(f"a Cypher worker could not open the store: {message}")
        return worker

    async def close(self) -> None:
        """Stop every worker (the server is stopping)."""
        self._closed = True
        for task in list(self._replacing):
            task.cancel()
        workers = self._idle + list(self._busy)
        self._idle, self._busy = [], set()
        await asyncio.gather(*(w.stop() for w in workers), return_exceptions=True)
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.cancel()

    # -- lending workers ----------------------------------------------------------------
    async def _acquire(self) -> _Worker:
        if self._idle and not self._waiters:
            return self._idle.pop()
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), self.wait_s)
        except TimeoutError:
            if waiter.done() and not waiter.cancelled():
                return waiter.result()   # handed over just as time ran out
            waiter.cancel()
            with contextlib.suppress(ValueError):
                self._waiters.remove(waiter)
            raise ApiError(503, f"server busy: all {self.size} Cypher workers are in use",
                           "retry in a moment, or start the server with more "
                           "--cypher-workers") from None

    def _release(self, worker: _Worker) -> None:
        """A ready worker goes to the longest waiter, else back to the idle ones."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._idle.append(worker)

    def _replace(self, worker: _Worker) -> None:
        """Kill ``worker`` (if it still runs) and start another in the background."""
        async def replace() -> None:
            await worker.kill()
            if self._closed:
                return
            try:
                fresh = await self._spawn()
            except Exception:   # noqa: BLE001 - logged; the pool serves with one fewer
                log.exception("could not replace a Cypher worker")
                return
            if self._closed:
                await fresh.stop()
            else:
                self._release(fresh)

        task = asyncio.get_running_loop().create_task(replace())
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    # -- running a query ----------------------------------------------------------------
    async def run(self, query: str, params: Mapping[str, Any], *, max_rows: int,
                  timeout_s: float) -> dict[str, Any]:
        """The answer of ``store.cypher(query, params, max_rows=..., timeout_s=...)``
        on a worker, as JSON-ready data; the store's errors are raised as they are,
        and :class:`~kgbench.service.errors.ApiError` for a worker that died, ran out
        of memory or of time (see the module docstring)."""
        request = json.dumps({"query": query, "params": dict(params), "max_rows": max_rows,
                              "timeout_s": timeout_s}) + "\n"
        worker = await self._acquire()
        self._busy.add(worker)
        clean = False
        try:
            doc = await self._exchange(worker, request.encode("utf-8"), timeout_s)
            clean = True
        finally:
            self._busy.discard(worker)
            if clean and worker.alive and not self._closed:
                self._release(worker)
            elif not self._closed:
                self._replace(worker)   # dead, killed, or left mid-answer
        if "result" in doc:
            result: dict[str, Any] = doc["result"]
            return result
        raise _store_error(doc.get("error") or {})

    async def _exchange(self, worker: _Worker, request: bytes,
                        timeout_s: float) -> dict[str, Any]:
        proc = worker.proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(request)
        await proc.stdin.drain()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s + GRACE_S
        limit = self.memory_mb * 1024 * 1024
        reading = asyncio.ensure_future(proc.stdout.readline())
        try:
            while not reading.done():
                await asyncio.wait({reading}, timeout=POLL_S)
                if reading.done():
                    break
                resident = _resident_bytes(proc.pid)
                if resident is not None and resident > limit:
                    await worker.kill()
                    raise ApiError(
                        400, f"the query needed more than {self.memory_mb:,} MB of memory and "
                        "was stopped", "narrow it: fewer rows, shorter strings and lists")
                if loop.time() > deadline:
                    await worker.kill()
                    raise ApiError(504, f"the request ran past the server's time limit of "
                                   f"{timeout_s:g} s and was abandoned",
                                   "narrow it (fewer hops, lower caps, a LIMIT)")
        finally:
            if not reading.done():
                reading.cancel()
        try:
            line = reading.result()
        except (ValueError, asyncio.LimitOverrunError):
            await worker.kill()
            raise ApiError(400, "the answer is too large to send", "ask for fewer rows") from None
        if not line:
            code = await proc.wait()
            raise ApiError(400, f"the engine crashed on this query (its worker process ended "
                           f"with {signal_name(code)}); the server and other queries are "
                           "not affected", "narrow the query: the engine crashes when it "
                           "builds strings or lists of billions of items")
        doc: dict[str, Any] = json.loads(line)
        return doc
