"""Backend-neutral subgraph operations built on ``Store.adjacency``.

Both functions walk the graph hop by hop with a fan-out cap per node, so a hub (a
country with millions of edges) costs at most ``max_per_node`` facts instead of
its whole adjacency list. They read only the Store interface, so every backend gets
the same semantics.

Hop counting follows CAQA §4.1: a CVT (mediator) node is not a stop of its own. Reaching
a CVT expands it in the same hop, so ``film -> performance(CVT) -> actor`` is one hop.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgstore.models import Fact, FactPath, Subgraph

if TYPE_CHECKING:
    from kgstore.store import Store


def _other_end(fact: Fact, node: str) -> str | None:
    """The entity at the other end of ``fact`` from ``node`` (None for literal objects)."""
    if fact.subject == node:
        return None if fact.is_literal else fact.object_key
    return fact.subject


def neighborhood(
    store: Store,
    ids: str | Iterable[str],
    *,
    hops: int = 1,
    max_per_node: int = 50,
    max_facts: int = 2_000,
    include_literals: bool = True,
) -> Subgraph:
    """The ``hops``-hop neighbourhood of one or more centre entities.

    Inputs: centre ids; ``hops`` in 0..3; ``max_per_node`` facts read per expanded node
    (CVTs included); ``max_facts`` overall. Output: a :class:`Subgraph` with every
    reached entity (and its hop distance), the facts traversed and ``truncated=True``
    when a cap dropped edges. Unknown centre ids are left out.
    """
    if not 0 <= hops <= 3:
        raise ValueError("hops must be between 0 and 3")
    centres = [ids] if isinstance(ids, str) else list(dict.fromkeys(ids))
    result = Subgraph(entities=store.entities(centres))
    result.hops = {c: 0 for c in centres if c in result.entities}
    seen_facts: set[Fact] = set()

    def expand(node: str, hop: int) -> list[str]:
        """Read ``node``'s facts into the result; return the entities it newly reaches."""
        budget = min(max_per_node, max_facts - len(result.facts))
        if budget <= 0:
            result.truncated = True
            return []
        adjacency = store.adjacency(node, limit=budget)
        result.truncated |= adjacency.truncated
        reached = []
        for fact in adjacency.facts:
            if fact in seen_facts or (fact.is_literal and not include_literals):
                continue
            seen_facts.add(fact)
            result.facts.append(fact)
            other = _other_end(fact, node)
            if other is not None and other not in result.hops:
                result.hops[other] = hop
                result.entities[other] = adjacency.entities[other]
                reached.append(other)
        return reached

    frontier = list(result.hops)
    for hop in range(1, hops + 1):
        pending = [n for node in frontier for n in expand(node, hop)]
        # CVTs reached in this hop are expanded at once, so they do not cost a hop of
        # their own; what they reach is at the same distance.
        frontier = []
        while pending:
            cvts = [n for n in pending if result.entities[n].is_cvt]
            frontier.extend(n for n in pending if not result.entities[n].is_cvt)
            pending = [n for cvt in cvts for n in expand(cvt, hop)]
        if not frontier:
            break
    return result


def paths(
    store: Store,
    source: str,
    target: str,
    *,
    max_length: int = 3,
    limit: int = 20,
    max_per_node: int = 200,
) -> list[FactPath]:
    """Simple paths (no repeated entity) between two entities, up to ``max_length``
    facts, shortest first, at most ``limit``. Edges may be walked in either direction.

    Implemented as a breadth-first search from ``source`` over ``facts_around`` with a
    fan-out cap, so cost is bounded by ``max_per_node ** (max_length - 1)`` reads.
    Output order is deterministic (length, then the visited ids).
    """
    if not 1 <= max_length <= 3:
        raise ValueError("max_length must be between 1 and 3")
    if source == target:
        return []
    adjacency: dict[str, list[Fact]] = {}

    def around(node: str) -> list[Fact]:
        if node not in adjacency:
            facts, _ = store.facts_around(node, limit=max_per_node)
            adjacency[node] = [f for f in facts if not f.is_literal]
        return adjacency[node]

    found: list[FactPath] = []
    # Each partial path: (nodes visited, facts used).
    layer: list[tuple[list[str], list[Fact]]] = [([source], [])]
    for _ in range(max_length):
        next_layer = []
        for nodes, facts in layer:
            for fact in around(nodes[-1]):
                other = _other_end(fact, nodes[-1])
                if other is None or other in nodes:
                    continue
                if other == target:
                    found.append(FactPath(nodes + [other], facts + [fact]))
                else:
                    next_layer.append((nodes + [other], facts + [fact]))
        layer = next_layer
        if not layer:
            break
    found.sort(key=lambda p: (p.length, p.nodes, [(f.subject, f.predicate) for f in p.facts]))
    unique: list[FactPath] = []
    keys: set[tuple[Fact, ...]] = set()
    for p in found:
        k = tuple(p.facts)
        if k not in keys:
            keys.add(k)
            unique.append(p)
    return unique[:limit]
