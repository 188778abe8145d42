"""Short reads on the event loop's own thread (:meth:`kgbench.service.deps.Reader.run`
with ``short=True``), the requests the server says are in flight
(:func:`kgbench.service.protocol.alone`), and each answer in one write
(:class:`kgbench.service.protocol.HeadWithBody`).

A short read skips two thread hand-overs, but the loop serves every client: a read
that runs long must give the loop back within :data:`~kgbench.service.deps.INLINE_BUDGET_S`
and finish on a worker thread with the rest of its time."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn

from kgbench.service.deps import INLINE_BUDGET_S, Reader
from kgbench.service.protocol import HttpProtocol, alone
from kgbench.service.storepool import StorePool
from kgstore import PatternQuery, Store, TriplePattern, Var
from kgstore.errors import QueryTimeoutError
from tests.service.conftest import free_port
from tests.service.test_api_json import TITANIC

# Six unconnected all-variable patterns: a cartesian product of the demo's facts, far
# longer than any time limit here, run as one engine query (tests/kgstore/test_deadline.py).
LONG_WALK = PatternQuery(tuple(TriplePattern(Var(f"n{i}"), Var(f"p{i}"), Var(f"n{i + 1}"))
                               for i in range(6)))
"""Every walk of six facts: runs for seconds on the demo store. Not a product of six
unrelated patterns, whose joins filled the engine's 2 GiB buffer pool inside the time
limit on a fast run ("Unable to allocate memory!", a QueryError, not the timeout)."""


@pytest.fixture(scope="module")
def pool(demo_store_path: str) -> Iterator[StorePool]:
    with StorePool(demo_store_path, 2) as readers:
        yield readers


def on_thread(ran: list[str], loop_thread: list[int], fn: Callable[[Store], Any]
              ) -> Callable[[Store], Any]:
    """``fn``, noting in ``ran`` the thread it runs on: "loop" for the event loop's
    (whose id the coroutine puts in ``loop_thread``), else the thread's name."""
    def read(store: Store) -> Any:
        here = threading.current_thread()
        ran.append("loop" if here.ident in loop_thread else here.name)
        return fn(store)

    return read


def threads_of(pool: StorePool, *, alone: bool, short: bool) -> tuple[Any, list[str]]:
    """What ``Reader.run`` answers for an entity read and the threads it ran on."""
    ran: list[str] = []
    loop_thread: list[int] = []

    async def main() -> Any:
        loop_thread.append(threading.get_ident())
        read = on_thread(ran, loop_thread, lambda store: store.entity(TITANIC))
        return await Reader(pool, 30.0, alone).run(read, short=short)

    return asyncio.run(main()), ran


def test_a_short_read_of_a_request_alone_runs_on_the_event_loops_thread(pool: StorePool) -> None:
    entity, ran = threads_of(pool, alone=True, short=True)
    assert entity is not None and entity.id == TITANIC
    assert ran == ["loop"]


@pytest.mark.parametrize(("alone", "short"), [(False, True), (True, False)])
def test_other_reads_run_on_the_pools_threads(pool: StorePool, alone: bool, short: bool) -> None:
    """Not short (a neighbourhood's JSON), or other requests waiting for the loop: a
    worker thread, as before."""
    entity, ran = threads_of(pool, alone=alone, short=short)
    assert entity is not None and entity.id == TITANIC
    assert len(ran) == 1 and ran[0].startswith("store-read")


def test_a_short_read_waits_its_turn_on_a_worker_while_another_read_runs(
        pool: StorePool) -> None:
    """A read in flight (a job's, or one the loop handed to a worker) means the loop has
    other work: the short read goes to a worker thread too."""
    with pool.checkout():
        entity, ran = threads_of(pool, alone=True, short=True)
    assert entity is not None
    assert len(ran) == 1 and ran[0].startswith("store-read")


def test_a_short_read_that_runs_long_gives_the_loop_back_and_keeps_its_time(
        pool: StorePool) -> None:
    """A "short" read that is not (a hub, a cold cache): the engine stops it at the
    inline budget, the loop goes on serving (the ticker's gaps stay small), and the read
    runs again on a worker thread with the time left, here until the request's own
    limit (504)."""
    limit = 0.6
    ran: list[str] = []
    loop_thread: list[int] = []
    gaps: list[float] = []
    read = on_thread(ran, loop_thread, lambda store: store.match(LONG_WALK))

    async def ticker(stop: asyncio.Event) -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    async def main() -> float:
        loop_thread.append(threading.get_ident())
        stop = asyncio.Event()
        ticks = asyncio.create_task(ticker(stop))
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        try:
            with pytest.raises(QueryTimeoutError, match=f"time limit of {limit:g} s"):
                await Reader(pool, limit, alone=True).run(read, short=True)
            return time.perf_counter() - started
        finally:
            stop.set()
            await ticks

    elapsed = asyncio.run(main())
    assert ran[0] == "loop" and len(ran) == 2 and ran[1].startswith("store-read")
    assert limit * 0.9 <= elapsed < limit + 3   # the read kept the request's time limit
    # The loop was held for the inline budget and the engine's stop, not the read's
    # second; a busy 2-core machine adds its own scheduling delay to any gap.
    assert max(gaps) < INLINE_BUDGET_S + 0.25, max(gaps)
    assert sum(gaps) > 0.9 * elapsed


# --------------------------------------------------------------------------------------
# The protocol: which requests are in flight, and one write per answer
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def running(app: Any) -> Iterator[int]:
    """``app`` served by uvicorn with :class:`HttpProtocol` in a thread of this process;
    yields its port."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, http=HttpProtocol,
                                           loop="asyncio", log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def get(port: int, path: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                     .encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_request_is_alone_unless_others_arrived_while_it_ran() -> None:
    """uvicorn makes a request's task when its head is read: the second request, sent
    while the first waits, sees two; the first alone saw one."""
    seen: dict[str, bool] = {}
    second_in = threading.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        path = scope["path"]
        seen[path] = alone(scope)
        if path == "/first":
            while not second_in.is_set():   # until the other request is in
                await asyncio.sleep(0.01)
        elif path == "/second":
            second_in.set()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    with running(app) as port:
        assert get(port, "/alone").endswith(b"ok")
        first = threading.Thread(target=get, args=(port, "/first"))
        first.start()
        while "/first" not in seen:
            time.sleep(0.01)
        assert get(port, "/second").endswith(b"ok")
        first.join(10)
    assert seen == {"/alone": True, "/first": True, "/second": False}
    assert not alone({"type": "http"})   # not served by HttpProtocol: never alone


class RecordingTransport(asyncio.Transport):
    """asyncio's transport interface, keeping what is written (one entry a write)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5555), "sockname": ("127.0.0.1", 8765)}.get(
            name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_an_answer_leaves_in_one_write(method: str) -> None:
    """uvicorn writes the head, then the body: two segments with TCP_NODELAY, two wake-ups
    of the client. Head and body go as one; a HEAD request's head alone, at the end of
    the loop's turn; nothing is left held."""
    body = b'{"answer":' + b"1" * 5000 + b"}"

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def main() -> list[bytes]:
        config = uvicorn.Config(app, http=HttpProtocol, lifespan="off", log_level="warning")
        protocol = HttpProtocol(config, uvicorn.server.ServerState(), {})
        transport = RecordingTransport()
        protocol.connection_made(transport)
        protocol.data_received(f"{method} /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        for _ in range(50):
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return transport.writes

    writes = asyncio.run(main())
    assert len(writes) == 1
    head, _, rest = writes[0].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert rest == (body if method == "GET" else b"")
