"""The serve process's paced garbage collection (:mod:`kgbench.service.gcpacing`): what
lives is frozen out of later scans, young garbage cycles are still freed, a frozen
object that dies in a cycle is freed by the next full pass, and stopping leaves the
process's collector as it was."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from kgbench.service.gcpacing import HeapPacer, collect_everything
from tests.gc_cycles import Node, cycle


def _wait_for(done: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture(autouse=True)
def _no_freeze_left() -> Iterator[None]:
    gc.unfreeze()   # whatever an earlier test of this process left frozen
    yield
    gc.unfreeze()


def test_what_lives_is_frozen_and_young_cycles_are_still_freed() -> None:
    kept = [Node() for _ in range(1000)]
    pacer = HeapPacer(pace_s=0.02, full_s=1000).start()
    try:
        _wait_for(lambda: pacer.passes >= 2)
        assert gc.get_freeze_count() >= len(kept)
        node, dead = cycle()   # made after the freeze: young, collected as usual
        del node
        gc.collect(0)
        assert dead() is None
    finally:
        pacer.stop()
    assert gc.get_freeze_count() == 0   # stopping unfreezes
    assert pacer.full == 0


def test_a_frozen_object_that_dies_in_a_cycle_is_freed_by_the_next_full_pass() -> None:
    node, dead = cycle()
    pacer = HeapPacer(pace_s=0.02, full_s=0.1).start()
    try:
        _wait_for(lambda: pacer.passes >= 1)   # frozen now: young collections miss it
        del node
        _wait_for(lambda: pacer.full >= 1)
        _wait_for(lambda: dead() is None)
    finally:
        pacer.stop()


def test_an_enclosing_freeze_is_kept_after_stop() -> None:
    gc.freeze()
    outer = gc.get_freeze_count()
    pacer = HeapPacer(pace_s=0.02, full_s=1000).start()
    _wait_for(lambda: pacer.passes >= 1)
    pacer.stop()
    assert gc.get_freeze_count() >= outer


def test_bad_periods_are_refused() -> None:
    for pace, full in ((0, 10), (-1, 10), (5, 1)):
        with pytest.raises(ValueError):
            HeapPacer(pace_s=pace, full_s=full)


def test_a_full_pass_waits_for_a_collection_another_thread_is_running() -> None:
    # gc.collect() returns at once while another thread's collection runs (here held
    # in a finalizer): that pass must not count, nor freeze the heap again, until a
    # full collection has run and freed the frozen cycle.
    release = threading.Event()

    class Blocker:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            release.wait(10)

    node, dead = cycle()
    pacer = HeapPacer(pace_s=0.02, full_s=0.1).start()
    other: threading.Thread | None = None
    try:
        _wait_for(lambda: pacer.passes >= 1)   # the cycle is frozen now
        del node

        def collect_in_a_finalizer() -> None:
            Blocker()
            gc.collect()

        other = threading.Thread(target=collect_in_a_finalizer)
        other.start()
        time.sleep(0.5)   # several full passes fell due meanwhile
        assert pacer.full == 0 and dead() is not None
        release.set()
        other.join()
        _wait_for(lambda: pacer.full >= 1)
        _wait_for(lambda: dead() is None)
    finally:
        release.set()
        if other is not None:
            other.join()
        pacer.stop()


def test_collect_everything_says_a_full_collection_ran() -> None:
    assert collect_everything() is True
