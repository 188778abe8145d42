"""Seeded samples of the Neo4j store, in the embedded store's orders (the same sample
for the same store and seed on either backend): entities and facts sorted by a salted
md5 of their keys, computed here since Cypher has no hash function, the orders kept by
a read-only store; and the heads of every type's sample from one pass over the named
entities (:mod:`kgstore.type_samples`)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from kgstore.backends.neo4j import queries as q
from kgstore.models import Entity, Fact, Literal
from kgstore.type_samples import SMALL_TYPE, group, head_cut, salted

if TYPE_CHECKING:
    from kgstore.backends.neo4j.store import Neo4jStore

__all__ = ["sample_entities", "sample_facts", "type_sample_heads"]


def sample_entities(store: Neo4jStore, k: int, *, seed: int, type_id: str | None = None,
                    named_only: bool = True, include_cvt: bool = False) -> list[Entity]:
    """:meth:`~kgstore.store.Store.sample_entities` of the Neo4j store."""
    kept = store._kept_type_sample(k, seed, type_id, named_only, include_cvt)
    if kept is not None:
        records = store.entities(kept)
        return [records[i] for i in kept if i in records]
    ordered = _sample_order(
        store, ("entities", seed, type_id, named_only, include_cvt),
        q.sample_entity_ids(type_id, named_only, include_cvt), f":{seed}")
    ids = [r[0] for r in ordered[:max(k, 0)]]
    records = store.entities(ids)
    return [records[i] for i in ids if i in records]


def type_sample_heads(store: Neo4jStore, seed: int) -> tuple[dict[str, list[str]], set[str]]:
    """:meth:`~kgstore.store.Store._type_sample_heads` of the Neo4j store."""
    # One pass over the named entities, hashed here (Cypher has no md5): the head
    # rows, and every member of each type while it has no more than SMALL_TYPE.
    cut = head_cut(int(store._read(*q.entity_count())[0][0]))
    head_rows: list[tuple[str, str, str]] = []
    members: dict[str, list[tuple[str, str]] | None] = {}
    for batch in store._stream(q.named_entity_types()[0], 10_000, list):
        for id, types in batch:
            h = salted(id, seed)
            for t in types or ():
                if h < cut:
                    head_rows.append((h, t, id))
                kept = members.setdefault(t, [])
                if kept is not None:
                    kept.append((h, id))
                    if len(kept) > SMALL_TYPE:
                        members[t] = None
    small = {t for t, m in members.items() if m is not None}
    rows = set(head_rows) | {(h, t, id) for t in small for h, id in members[t] or ()}
    return group((t, id) for _, t, id in sorted(rows)), small


def sample_facts(store: Neo4jStore, k: int, *, seed: int,
                 predicate: str | None = None) -> list[Fact]:
    """:meth:`~kgstore.store.Store.sample_facts` of the Neo4j store."""
    ordered = _sample_order(store, ("facts", seed, predicate),
                            q.sample_fact_keys(predicate), f":{seed}")
    chosen = ordered[:max(k, 0)]
    literal_ids = [r[3] for r in chosen if r[4]]
    literals: dict[str, Literal] = {}
    if literal_ids:
        literals = {r[0]: Literal(r[1], r[2], r[3])
                    for r in store._read(*q.literals(literal_ids))}
    return [Fact(r[1], r[2], literals[r[3]] if r[4] else r[3]) for r in chosen]


def _sample_order(store: Neo4jStore, key: tuple[Any, ...], query: q.Query,
                  salt: str) -> list[Any]:
    """The rows of ``query`` (first column: the key that is hashed) sorted by the
    embedded store's salted md5 order; a read-only store keeps them."""
    kept = store._sample_ids.get(key) if store.read_only else None
    if kept is None:
        rows = store._read(*query)
        kept = [r for _, r in sorted((_salted(r[0], salt), r) for r in rows)]
        if store.read_only:
            store._sample_ids.put(key, kept, 1)
    return list(kept)


def _salted(key: str, salt: str) -> str:
    """The embedded store's sample order key: ``md5(key || salt)`` in hex."""
    return hashlib.md5((key + salt).encode("utf-8")).hexdigest()
