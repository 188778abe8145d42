"""``kgbench serve`` runs its event loop off the main thread
(:mod:`kgbench.service.serving`): the embedded engine asks for the SIGINT handler on every
statement run from the main thread, and the server runs short reads on the loop's own
thread. The main thread keeps the signals: Ctrl-C still shuts the server down
gracefully and ends the process as before."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from typing import Any

import httpx
import pytest
import uvicorn

from kgbench.service.protocol import HttpProtocol
from kgbench.service.serving import STARTUP_FAILURE, run_server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _config(app: Any, port: int, lifespan: str = "on") -> uvicorn.Config:
    return uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                          http=HttpProtocol, loop="uvloop", lifespan=lifespan)


def test_the_event_loop_runs_off_the_main_thread_and_ctrl_c_still_stops_it() -> None:
    seen: list[bool] = []
    pacing: list[bool] = []
    events: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                kind = message["type"].rpartition(".")[2]
                events.append(kind)
                await send({"type": f"lifespan.{kind}.complete"})
                if kind == "shutdown":
                    return
        seen.append(threading.current_thread() is threading.main_thread())
        pacing.append(any(t.name == "kgbench-gc-pacer" for t in threading.enumerate()))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    port = _free_port()
    answers: list[int] = []

    def client() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not answers:
            try:
                answers.append(httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code)
            except httpx.TransportError:
                time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)   # Ctrl-C, received by the main thread

    # Python's own SIGINT handler, as a command line has it (a pytest-xdist worker
    # ignores SIGINT, and the server raises again whatever it found)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=client, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):   # raised again after the graceful shutdown
            run_server(_config(app, port))
        restored = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert answers == [200]
    assert seen == [False]                   # the request ran on the loop's own thread
    assert events == ["startup", "shutdown"]   # the lifespan ran its shutdown
    assert restored is signal.default_int_handler   # the handler it found, back
    # the collector ran paced while it served (kgbench.service.gcpacing), not after
    assert pacing == [True]
    assert not any(t.name == "kgbench-gc-pacer" for t in threading.enumerate())


def test_a_port_the_server_cannot_bind_ends_it_as_uvicorn_does() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:   # never reached
        raise AssertionError("no request expected")

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        with pytest.raises(SystemExit) as stopped:
            run_server(_config(app, port, lifespan="off"))
    assert stopped.value.code == STARTUP_FAILURE   # what uvicorn.run exits with


def test_a_server_whose_startup_fails_exits_with_uvicorns_startup_failure() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "no store"})

    with pytest.raises(SystemExit) as stopped:
        run_server(_config(app, _free_port()))
    assert stopped.value.code == STARTUP_FAILURE
