"""``kgbench serve``'s uvicorn server run with its event loop on a thread of its own.

The embedded engine asks Python for the SIGINT handler (``signal.getsignal``) on every
statement it runs from the main thread, so that Ctrl-C can stop the statement; from any
other thread it does not ask. The server runs a short read of a request that is alone
on the event loop's own thread (:meth:`kgbench.service.deps.Reader.run`), so with the
loop on the main thread every entity page paid that question once per statement (five
of them): ~15 of the page's ~280 microseconds of store work, and ~6% of its round trip
at one client (``bench/service_bench.py``). The loop runs on a thread of its own
instead. The main thread keeps the signals (only it receives them): SIGINT and SIGTERM
go to uvicorn's own handler (a graceful shutdown; a second Ctrl-C forces it), and once
the server has stopped they are raised again, as uvicorn raises them, so the process
ends as it did with the loop on the main thread. The process's garbage collector runs
paced by the clock while it serves (:mod:`kgbench.service.gcpacing`).
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

import uvicorn
from uvicorn.server import HANDLED_SIGNALS

from kgbench.service.gcpacing import HeapPacer

__all__ = ["STARTUP_FAILURE", "run_server"]

STARTUP_FAILURE = 3
"""The exit status of a server that did not start (uvicorn's own)."""
JOIN_POLL_S = 0.25
"""How often the main thread looks up from its wait for the server (signals reach
Python's handlers between two waits)."""


def run_server(config: uvicorn.Config) -> None:
    """Serve ``config`` until SIGINT or SIGTERM, the event loop on a thread of its own
    (the module docstring). Exits with :data:`STARTUP_FAILURE` when the server did not
    start, as ``uvicorn.run`` does; an error or exit of the server's thread is raised
    here."""
    config.load_app()
    server = uvicorn.Server(config)
    captured: list[int] = []
    failure: list[BaseException] = []

    def on_signal(sig: int, frame: FrameType | None) -> None:
        captured.append(sig)
        server.handle_exit(sig, frame)

    def serve() -> None:
        try:
            server.run()
        except BaseException as exc:   # noqa: BLE001 - raised again on the main thread
            failure.append(exc)

    loop_thread = threading.Thread(target=serve, name="kgbench-serve-loop")
    originals = {sig: signal.signal(sig, on_signal) for sig in HANDLED_SIGNALS}
    pacer = HeapPacer().start()   # the collector by the clock (kgbench.service.gcpacing)
    try:
        loop_thread.start()
        while loop_thread.is_alive():
            loop_thread.join(JOIN_POLL_S)
    finally:
        pacer.stop()
        for sig, handler in originals.items():
            signal.signal(sig, handler)
    if failure:   # a SystemExit of uvicorn's included
        raise failure[0]
    for caught in reversed(captured):   # as uvicorn does after a shutdown by a signal
        signal.raise_signal(caught)
    if not server.started:
        sys.exit(STARTUP_FAILURE)
