"""Python's cyclic garbage collector in the ``kgbench serve`` process.

The server keeps a large heap alive: its store handles' read caches (neighbourhoods,
expansions, entity records: :mod:`kgstore.readcache`), the app, the job manager.
CPython's collector scans that whole heap at each full (generation 2) collection, and
a 2-hop neighbourhood answer makes thousands of dicts, so full collections came every
few seconds: at one client on the 1M-fact KG, 4,332 collections took 1.16 s of 20 s
of 2-hop pages, the longest 147 ms, a pause any request caught in it waits through
(``bench/service_bench.py``'s KG, measured with :data:`gc.callbacks`).

:class:`HeapPacer` does for the server what
:class:`extension.run.heap.PacedCollection` does for a loop over questions, by the
clock: every :data:`PACE_S` it collects the young generations and freezes what
survived (:func:`gc.freeze`), so the long-lived heap is not scanned again; young
garbage cycles are still freed as they come. The same run took 0.31 s of collections,
the longest 29 ms. A frozen object that later dies inside a reference cycle (a request
that was in flight at a freeze) would wait for the pacing to stop, so every
:data:`FULL_S` the pacer unfreezes, collects everything once, and freezes again: what
such cycles hold is freed within that time. A collection asked for while another
thread's is running does nothing (CPython returns at once), so a full pass counts, and
the heap is frozen again, only once a full collection has run (seen through
:data:`gc.callbacks`); until then the heap stays unfrozen and the pass is tried again at
the next pace.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

__all__ = ["FULL_S", "PACE_S", "HeapPacer", "collect_everything"]

PACE_S = 2.0
"""Seconds between two collections of the young generations (each followed by a freeze)."""
FULL_S = 600.0
"""Seconds between two full collections of everything, frozen objects included."""


class HeapPacer:
    """Paced garbage collection for a server process, on a daemon thread of its own:
    :meth:`start` it, :meth:`stop` it at shutdown (which unfreezes everything).
    Raises ``ValueError`` for periods that are not positive or a full period shorter
    than the pace."""

    def __init__(self, pace_s: float = PACE_S, full_s: float = FULL_S) -> None:
        if pace_s <= 0 or full_s < pace_s:
            raise ValueError(f"need 0 < pace_s <= full_s, got {pace_s} and {full_s}")
        self.pace_s = pace_s
        self.full_s = full_s
        self.passes = 0
        """Collections done so far, young or full, each followed by a freeze."""
        self.full = 0
        """Full collections among them."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._outer = False

    def start(self) -> HeapPacer:
        if self._thread is None:
            self._outer = gc.get_freeze_count() > 0
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="kgbench-gc-pacer",
                                            daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        next_full = time.monotonic() + self.full_s
        while not self._stop.wait(self.pace_s):
            if time.monotonic() >= next_full:
                gc.unfreeze()
                if not collect_everything():
                    continue   # another thread was collecting: again at the next pace
                self.full += 1
                next_full = time.monotonic() + self.full_s
            else:
                gc.collect(1)
            gc.freeze()
            self.passes += 1

    def stop(self) -> None:
        """Stop pacing and unfreeze; if a freeze was in force when the pacer started,
        freeze everything alive now again (as
        :class:`~extension.run.heap.PacedCollection` does)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join()
        gc.unfreeze()
        if self._outer:
            gc.freeze()


def collect_everything() -> bool:
    """A full collection by this thread; whether one ran (``gc.collect()`` returns 0
    both when it found nothing and when another thread's collection was running)."""
    me = threading.get_ident()
    ran: list[bool] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info.get("generation") == 2 and threading.get_ident() == me:
            ran.append(True)

    gc.callbacks.append(seen)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(seen)
    return bool(ran)
