"""Stops the engine's work at a read's deadline by interrupting its connection.

:meth:`kgstore.store.Store.deadline` promises that the engine stops a statement once
the block's time is up. The engine's own per-statement limit (``set_query_timeout``)
keeps that promise expensively: with a limit set, every statement is handed to one of
the engine's scheduler threads and waited for there, and the limit is set and cleared
around each one. An entity page (three indexed lookups, 50 pages 15 times on the
5M-fact store, minimum of the rounds) took 342 us with it against 145 us without on a
quiet machine (212 against 151 at load 11), and the server paid it on every read; with
the interrupter, 140 against 130.

So a deadline registers its connection with the :data:`INTERRUPTER` instead: one thread
for the process, asleep until the earliest deadline registered, that interrupts each
connection whose deadline has passed, and again every :data:`RETRY_S` while its block
lasts (an interrupt that lands between two statements stops nothing; the next statement
is refused before it starts, by :meth:`~kgstore.store.Store._time_left`). A connection
is interrupted only inside its block: leaving it unregisters the connection under the
same lock the interrupts are sent under. Registering costs a dictionary insert; the
thread is woken only for a deadline earlier than the time it sleeps until (with nothing
registered, :data:`IDLE_S` at most), not for every read.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["IDLE_S", "INTERRUPTER", "RETRY_S", "Interrupter"]

RETRY_S = 0.05
"""How often a connection past its deadline is interrupted again while its block lasts."""
IDLE_S = 1.0
"""How long the thread sleeps with nothing registered: a deadline further away than
that (a server's, 30 s) registers without waking it; a nearer one wakes it."""


class Interrupter:
    """Interrupts registered connections at their deadlines (module docstring)."""

    def __init__(self) -> None:
        self._wake = threading.Condition(threading.Lock())
        self._watched: dict[int, tuple[float, Any]] = {}
        self._keys = itertools.count()
        self._waking_at = 0.0
        self._thread: threading.Thread | None = None
        self.interrupts = 0
        """Interrupts sent so far (for tests and diagnostics)."""

    @contextlib.contextmanager
    def watching(self, connection: Any, deadline: float) -> Iterator[None]:
        """``connection.interrupt()`` from ``deadline`` (``time.monotonic()``) on,
        until the block ends."""
        key = next(self._keys)
        with self._wake:
            self._watched[key] = (deadline, connection)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="ladybug-deadlines")
                self._thread.start()
            elif deadline < self._waking_at:
                self._wake.notify()
        try:
            yield
        finally:
            with self._wake:
                del self._watched[key]

    def _run(self) -> None:
        with self._wake:
            while True:
                now = time.monotonic()
                due = [conn for deadline, conn in self._watched.values() if deadline <= now]
                for connection in due:
                    with contextlib.suppress(Exception):   # a connection closing meanwhile
                        connection.interrupt()
                self.interrupts += len(due)
                later = [d for d, _ in self._watched.values() if d > now]
                self._waking_at = min([*later, now + RETRY_S] if due else later,
                                      default=now + IDLE_S)
                self._wake.wait(self._waking_at - now)


INTERRUPTER = Interrupter()
