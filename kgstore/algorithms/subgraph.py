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
from fnmatch import fnmatchcase
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
    exclude_predicates: Iterable[str] = (),
) -> list[FactPath]:
    """Simple paths (no repeated entity) between two entities, each once, at most
    ``max_length`` hops, the most telling first, at most ``limit``. Facts may be walked
    in either direction; literals are not used.

    **Hops** are counted as :func:`neighborhood` counts them (CAQA §4.1): a step into a
    CVT and the step out of it are one hop, so ``actor → performance (CVT) → film`` is
    one. **One path once**: a path is its sequence of entities; when several facts link
    two of them (Freebase stores ``film.actor.film`` and its inverse
    ``film.performance.actor``), the path shows one, the one walked forward (then by
    predicate). ``exclude_predicates`` are glob patterns (``people.person.gender``,
    ``common.*``) of facts not to walk.

    **Order**: paths through a hub (an intermediate entity with more than
    ``max_per_node`` facts: a country, a gender; ``through_hub``) come after all
    others, as they say little ("both are male"); then shorter first; then through less
    connected entities first (the largest intermediate degree, as read); then by the
    entities' ids, so the order is deterministic.

    A breadth-first walk from ``source`` over ``facts_around`` with a fan-out cap of
    ``max_per_node`` facts per entity (so a hub's list is a sample of it).
    """
    if not 1 <= max_length <= 3:
        raise ValueError("max_length must be between 1 and 3")
    if source == target:
        return []
    patterns = list(exclude_predicates)
    reads: dict[str, tuple[dict[str, list[Fact]], int, bool]] = {}
    cvt: dict[str, bool] = {}

    def around(node: str) -> tuple[dict[str, list[Fact]], int, bool]:
        """``node``'s neighbours with the facts linking them, its facts read (a degree
        capped at ``max_per_node``), and whether it has more (a hub)."""
        if node not in reads:
            facts, more = store.facts_around(node, limit=max_per_node)
            linked: dict[str, list[Fact]] = {}
            for fact in facts:
                other = _other_end(fact, node)
                if other is None or other == node or any(
                        fnmatchcase(fact.predicate, p) for p in patterns):
                    continue
                linked.setdefault(other, []).append(fact)
            reads[node] = (linked, len(facts), more)
        return reads[node]

    def learn_cvts(ids: Iterable[str]) -> None:
        unknown = [i for i in ids if i not in cvt]
        if unknown:
            found = store.entities(unknown)
            for i in unknown:
                cvt[i] = i in found and found[i].is_cvt

    found: list[FactPath] = []
    # Partial paths: (entities visited, hops so far). A step onto a CVT (not the target)
    # costs no hop; the step off it does.
    layer: list[tuple[list[str], int]] = [([source], 0)]
    for _ in range(3 * max_length):   # a CVT per hop at most, and chains of them
        learn_cvts(other for nodes, _ in layer for other in around(nodes[-1])[0])
        next_layer = []
        for nodes, hops in layer:
            for other in around(nodes[-1])[0]:
                if other in nodes:
                    continue
                via_cvt = cvt[other] and other != target
                length = hops if via_cvt else hops + 1
                if length > max_length or (via_cvt and length == max_length):
                    continue   # no hop left to step off the CVT
                if other == target:
                    found.append(_fact_path(nodes + [other], length, reads, cvt))
                else:
                    next_layer.append((nodes + [other], length))
        layer = next_layer
        if not layer:
            break
    found.sort(key=lambda p: (p.through_hub, p.length, _widest(p, reads, cvt), p.nodes,
                              [(f.subject, f.predicate) for f in p.facts]))
    return found[:limit]


def _fact_path(nodes: list[str], length: int,
               reads: dict[str, tuple[dict[str, list[Fact]], int, bool]],
               cvt: dict[str, bool]) -> FactPath:
    """The path through ``nodes``: one fact per step, the one walked forward first,
    then by predicate and object."""
    facts = [min(reads[u][0][v], key=lambda f: (f.subject != u, f.predicate, f.object_key))
             for u, v in zip(nodes, nodes[1:], strict=False)]
    hub = any(reads[n][2] and not cvt.get(n, False) for n in nodes[1:-1])
    return FactPath(nodes, facts, length=length, through_hub=hub)


def _widest(path: FactPath, reads: dict[str, tuple[dict[str, list[Fact]], int, bool]],
            cvt: dict[str, bool]) -> int:
    """The most facts read around one of the path's intermediate entities."""
    return max((reads[n][1] for n in path.nodes[1:-1] if not cvt.get(n, False)), default=0)
