"""The serve process's paced garbage collection (:mod:`kgbench.service.gcpacing`): what
lives is frozen out of later scans, young garbage cycles are still freed, a frozen
object that dies in a cycle is freed by the next full pass, and stopping leaves the
process's collector as it was."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator

import pytest

from kgbench.service.gcpacing import HeapPacer
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
