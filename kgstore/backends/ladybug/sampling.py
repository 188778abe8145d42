"""Seeded samples of the embedded store: entities and facts in the order of a salted
md5 of their keys (the same sample for the same store and seed, and the order the Neo4j
store computes too), kept by a read-only store, and the typed samples of many types
served from one scan (:func:`_type_sample_prefix`)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from kgstore.backends.ladybug import queries as q
from kgstore.backends.ladybug.rows import object_from_cols
from kgstore.cypher.rows import entity_from_row
from kgstore.models import Entity, Fact
from kgstore.type_samples import SMALL_TYPE, group, head_cut

if TYPE_CHECKING:
    from kgstore.backends.ladybug.store import LadybugStore

# Seeds (with the two flags) whose typed samples a read-only store keeps: a run uses
# one; a long-lived service asked for many keeps the last few.
TYPE_SAMPLE_KEYS = 4


def sample_entities(store: LadybugStore, k: int, *, seed: int, type_id: str | None = None,
                    named_only: bool = True, include_cvt: bool = False) -> list[Entity]:
    """:meth:`~kgstore.store.Store.sample_entities` of the embedded store."""
    # A read-only store keeps samples: each scans every entity of the type (0.2 s on
    # 1M entities), and a sample of k is the first k of a longer one.
    ids = store._kept_type_sample(k, seed, type_id, named_only, include_cvt)
    if ids is not None:
        records = store.entities(ids)
        return [records[i] for i in ids if i in records]
    key = ("sample", seed, type_id, named_only, include_cvt)
    kept = store._expansion_cache.get(key) if store.read_only else None
    if kept is not None and (kept[1] or len(kept[0]) >= k):
        return [dataclasses.replace(e) for e in kept[0][:k]]
    if store.read_only and type_id is not None:
        prefix = _type_sample_prefix(store, seed, type_id, named_only, include_cvt)
        if prefix is not None and len(prefix) >= k:
            records = store.entities(prefix[:k])
            return [records[i] for i in prefix[:k]]
    rows = store._rows(*q.sample_entities(k, f":{seed}", type_id, named_only, include_cvt),
                      scan=True)
    sample = [entity_from_row(r) for r in rows]
    if store.read_only:
        store._expansion_cache.put(key, (sample, len(sample) < k), len(sample) + 1)
        return [dataclasses.replace(e) for e in sample]
    return sample


def _type_sample_prefix(store: LadybugStore, seed: int, type_id: str, named_only: bool,
                        include_cvt: bool) -> list[str] | None:
    """The ids that start ``type_id``'s seeded sample (the order of
    :func:`sample_entities`), from one scan that serves every type; ``None`` until
    a second type is asked for with the same seed and flags.

    A per-type sample scans the whole entity table (0.2 s on 1M entities), and the
    contradictory edit asks for dozens of types. This scan (0.5 s) keeps the
    entities whose salted hash falls below a cut that leaves about
    :data:`~kgstore.type_samples.HEAD_ENTITIES` of them, grouped by type in hash
    order. Every entity of a type that comes before the cut is in it, so each group
    is exactly the first entities of that type's sample; a group shorter than a
    caller's ``k`` sends the caller to the per-type scan. The first type asked for
    takes the per-type scan: a run that samples one type never pays for all of
    them. (A store that keeps type samples for the seed,
    :meth:`~kgstore.store.Store.keep_type_samples`, answers from them first.)"""
    key = (seed, named_only, include_cvt)
    prefixes: dict[str, list[str]] | None = store._type_prefixes.get(key)
    if prefixes is None:
        seen: set[str] | None = store._sampled_types.get(key)
        if seen is None:
            seen = set()
            store._sampled_types.put(key, seen, 1)
        seen.add(type_id)
        if len(seen) < 2:
            return None
        cut = head_cut(store._count(*q.entity_count()))
        rows = store._rows(*q.typed_sample_heads(f":{seed}", cut, named_only, include_cvt),
                          scan=True)
        prefixes = group((t, id) for t, id, _ in rows)
        store._type_prefixes.put(key, prefixes, 1)
    return prefixes.get(type_id, [])


def sample_facts(store: LadybugStore, k: int, *, seed: int, predicate: str | None = None) -> list[Fact]:
    rows = store._rows(*q.sample_facts(k, f":{seed}", predicate), scan=True)
    return [Fact(r[0], r[1], object_from_cols(*r[2:7])) for r in rows]


def type_sample_heads(store: LadybugStore, seed: int
                      ) -> tuple[dict[str, list[str]], set[str]]:
    """:meth:`~kgstore.store.Store._type_sample_heads` of the embedded store: the head
    rows of every type and all members of the small types, from two scans."""
    small = sorted(str(t) for t, n in store._rows(*q.named_type_counts(), scan=True)
                   if int(n) <= SMALL_TYPE)
    cut = head_cut(store._count(*q.entity_count()))
    rows = store._rows(*q.type_sample_rows(f":{seed}", cut, small), scan=True)
    return group((str(t), str(id)) for t, id in rows), set(small)
