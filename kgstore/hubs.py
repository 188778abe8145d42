"""The hub index both backends keep: one predicate of a hub's incoming facts read
through a key lookup instead of a scan of all of them (the embedded store's
:mod:`~kgstore.backends.ladybug.hub_index`, the Neo4j store's
:mod:`~kgstore.backends.neo4j.schema`). Which entities are hubs and how a slot is keyed
is the same on both, so a store copied between them, or exported for ``neo4j-admin``,
keeps its index.
"""

from __future__ import annotations

import os

__all__ = ["SLOT_SEPARATOR", "hub_min_in_degree", "slot_key"]

SLOT_SEPARATOR = "\x1f"
"""Between the hub id and the predicate of an ``InSlot`` key (the ASCII unit separator,
which N-Triples IRIs and tab-separated ids cannot hold)."""


def slot_key(hub: str, predicate: str) -> str:
    """The ``InSlot`` key of ``hub``'s incoming facts over ``predicate``."""
    return f"{hub}{SLOT_SEPARATOR}{predicate}"


def hub_min_in_degree() -> int:
    """Incoming facts from which an entity is a hub, whose incoming facts an import
    indexes by predicate: ``KGBENCH_HUB_MIN_DEGREE`` or 1,000. On the extension
    benchmark's KG, 1,000 and 200 gave about the same speed-up and 5,000 about half of
    it (one process, 2,000 questions); the index holds 47% of that KG's facts at 1,000."""
    return max(int(os.environ.get("KGBENCH_HUB_MIN_DEGREE", "1000")), 1)
