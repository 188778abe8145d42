"""Garbage cycles for the tests of paced collection (``extension.run.heap``,
``kgbench.service.gcpacing``): an object in a reference cycle and a weak reference that
tells whether the collector freed it."""

from __future__ import annotations

import weakref


class Node:
    """A weak-referenceable object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    """Two nodes that refer to each other: the first, and a weak reference to it."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)
