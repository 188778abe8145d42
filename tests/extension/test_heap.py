"""extension.run.heap: paced garbage collection for long loops over questions."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from extension.run.heap import PacedCollection
from tests.gc_cycles import cycle


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """Only the collections PacedCollection (or the test) asks for run, so what a tick
    does is not blurred by a collection the allocator happened to start."""
    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def test_a_tick_collects_the_young_garbage_every_n_questions(no_automatic_collection: None) -> None:
    with PacedCollection(every=3) as paced:
        node, ref = cycle()
        del node
        paced.tick()
        paced.tick()
        assert ref() is not None   # not the third tick yet: nothing collected
        paced.tick()
        assert ref() is None


def test_what_is_alive_at_a_tick_is_frozen_until_the_loop_ends(
        no_automatic_collection: None) -> None:
    assert gc.get_freeze_count() == 0
    with PacedCollection(every=2) as paced:
        entered = gc.get_freeze_count()
        assert entered > 0   # the heap before the loop
        kept = [cycle()[0] for _ in range(50)]
        paced.tick()
        assert gc.get_freeze_count() == entered   # only every second tick
        paced.tick()
        assert gc.get_freeze_count() >= entered + 100   # the 50 two-node cycles
        # A frozen cycle that becomes garbage waits for the loop's end ...
        ref = weakref.ref(kept[0])
        del kept
        gc.collect()
        assert ref() is not None
    assert gc.get_freeze_count() == 0
    gc.collect()   # ... and is freed by the next full collection after it
    assert ref() is None


def test_an_enclosing_freeze_is_kept(no_automatic_collection: None) -> None:
    gc.freeze()
    with PacedCollection(every=1) as paced:
        paced.tick()
    assert gc.get_freeze_count() > 0


def test_a_stopped_or_unstarted_collection_freezes_nothing(
        no_automatic_collection: None) -> None:
    paced = PacedCollection(every=1)
    paced.tick()   # not started: a tick is only counted
    assert gc.get_freeze_count() == 0
    paced.start()
    paced.start()   # starting twice is starting once
    paced.stop()
    assert gc.get_freeze_count() == 0
    paced.tick()
    assert gc.get_freeze_count() == 0
    assert paced.ticks == 2


def test_every_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        PacedCollection(every=0)
