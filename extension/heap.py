"""Python's cyclic garbage collector during long loops over questions.

A loop that extends thousands of questions keeps a large heap alive: the parsed
questions, the read-only store's caches of neighbourhoods, expansions and entity
records (:mod:`kgstore.ladybug_store`), the grounder's compiled queries. CPython's
collector scans that whole heap at every full (generation 2) collection, and it starts
one each time a quarter as many objects again have survived the younger generations;
with the caches filling, those scans came every few seconds. Measured on the extension
benchmark's 5M-fact store, 1,500 questions, one process: the collector took 7.9 of 41
seconds (20 full collections, the longest 528 ms), and the run took 36.2-36.9 s with it
running as usual, 28.0-31.6 s under :func:`paced_collection` (29.1-29.5 s with the
collector off).

:func:`paced_collection` keeps the collector on for young objects, so garbage cycles
made while one question is processed are still freed, but every ``every`` questions it
collects the young generations and then *freezes* what survived
(:func:`gc.freeze`): frozen objects are never scanned again. Nothing the loop keeps is
lost; what it drops later (an evicted cache entry) is freed by reference counting as
usual. Only a frozen object that later dies inside a reference cycle waits until the
loop ends, when everything is unfrozen again.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

COLLECT_EVERY = 100
"""Questions between two collections of the young generations (followed by a freeze)."""


@contextlib.contextmanager
def paced_collection(every: int = COLLECT_EVERY) -> Iterator[Callable[[], None]]:
    """A context for a loop over questions; it yields ``tick``, to call once per
    question. Every ``every`` ticks the young generations are collected and the objects
    alive then are frozen out of later collections; on exit they are unfrozen (the
    process-wide state is as before, frozen objects of an enclosing loop included, which
    are refrozen). Raises ``ValueError`` for ``every < 1``."""
    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    outer = gc.get_freeze_count()
    gc.freeze()   # what lived before the loop is not the loop's garbage either
    ticks = 0

    def tick() -> None:
        nonlocal ticks
        ticks += 1
        if ticks % every == 0:
            gc.collect(1)
            gc.freeze()

    try:
        yield tick
    finally:
        gc.unfreeze()
        if outer:
            gc.freeze()
