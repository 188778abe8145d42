"""Python's cyclic garbage collector during long loops over questions.

A loop that extends thousands of questions keeps a large heap alive: the parsed
questions, the read-only store's caches of neighbourhoods, expansions and entity
records (:mod:`kgstore.readcache`), the grounder's compiled queries. CPython's
collector scans that whole heap at every full (generation 2) collection, and it starts
one each time a quarter as many objects again have survived the younger generations;
with the caches filling, those scans came every few seconds. Measured on the extension
benchmark's 5M-fact store, one process, with :data:`gc.callbacks`: on 1,500 questions
the collector took 7.9 of 41 seconds (20 full collections, the longest 528 ms); in
``kgbench generate`` on 2,000 questions it took 5.9 s, and 1.4 s under
:class:`PacedCollection`.

:class:`PacedCollection` keeps the collector on for young objects, so garbage cycles
made while one question is processed are still freed, but every ``every`` questions it
collects the young generations and then *freezes* what survived (:func:`gc.freeze`):
frozen objects are never scanned again. Nothing the loop keeps is lost; what it drops
later (an evicted cache entry) is freed by reference counting as usual. Only a frozen
object that later dies inside a reference cycle waits until the pacing stops, when
everything is unfrozen again.
"""

from __future__ import annotations

import gc
from types import TracebackType

COLLECT_EVERY = 100
"""Questions between two collections of the young generations (followed by a freeze)."""


class PacedCollection:
    """Paced garbage collection for a loop over questions: :meth:`start` it (or use it
    as a context manager), call :meth:`tick` once per question, :meth:`stop` it at the
    end. Every ``every`` ticks the young generations are collected and the objects alive
    then are frozen out of later collections. :meth:`stop` unfreezes them, leaving the
    process-wide state as it was (objects an enclosing freeze had frozen are refrozen).
    Raises ``ValueError`` for ``every < 1``."""

    def __init__(self, every: int = COLLECT_EVERY) -> None:
        if every < 1:
            raise ValueError(f"every must be at least 1, got {every}")
        self.every = every
        self.ticks = 0
        self.active = False
        self._outer = False

    def start(self) -> PacedCollection:
        if not self.active:
            self._outer = gc.get_freeze_count() > 0
            gc.freeze()   # what lived before the loop is not the loop's garbage either
            self.active = True
        return self

    def tick(self) -> None:
        """One question done."""
        self.ticks += 1
        if self.active and self.ticks % self.every == 0:
            gc.collect(1)
            gc.freeze()

    def stop(self) -> None:
        if self.active:
            self.active = False
            gc.unfreeze()
            if self._outer:
                gc.freeze()

    def __enter__(self) -> PacedCollection:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
