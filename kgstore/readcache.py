"""The reads a read-only store keeps (every backend): it cannot change while it is open, and
graph walks and the extension engine come back to the same hubs question after question.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from kgstore.models import Adjacency

__all__ = ["ADJACENCY_CACHE_FACTS", "ENTITY_CACHE_RECORDS", "EXPANSION_CACHE_ROWS", "Lru",
           "adjacency_prefix"]

# Facts held by a read-only store's cache of neighbourhoods (about 20 MB), rows held by
# its cache of single-predicate expansions and samples (about 20 MB), entity records
# held by its cache of lookups (about 10 MB).
ADJACENCY_CACHE_FACTS = 100_000
EXPANSION_CACHE_ROWS = 200_000
ENTITY_CACHE_RECORDS = 50_000


class Lru:
    """Reads of a read-only store, least recently used dropped first once the sizes
    given with them add up to more than ``budget``."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.size = 0

    def get(self, key: Hashable) -> Any:
        entry = self.entries.get(key)
        if entry is None:
            return None
        self.entries.move_to_end(key)
        return entry[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        if key in self.entries:
            self.size -= self.entries.pop(key)[1]
        self.entries[key] = (value, size)
        self.size += size
        while self.size > self.budget:
            _, (_, dropped) = self.entries.popitem(last=False)
            self.size -= dropped

    def clear(self) -> None:
        self.entries.clear()
        self.size = 0


def adjacency_prefix(read: Adjacency, limit: int) -> Adjacency:
    """The first ``limit`` facts of a neighbourhood ``read`` (as a fresh Adjacency) with
    the entities at their ends: what a read with that smaller window returns."""
    if len(read.facts) <= limit:
        return Adjacency(list(read.facts), dict(read.entities), read.truncated)
    facts = read.facts[:limit]
    ends = {f.subject for f in facts} | {f.object_key for f in facts}
    return Adjacency(facts, {k: v for k, v in read.entities.items() if k in ends}, True)
