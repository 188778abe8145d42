"""Seeded samples of each type's entities, kept in the store for a run's seed.

The contradictory edit (CAQA §4.3) replaces an answer by a member of its type when
nothing fills the answer's role (:func:`extension.core.candidates.type_replacements`):
:meth:`~kgstore.store.Store.sample_entities` with the run's seed, whose order is the
salted md5 of the entity id. Drawing it scans every entity of the store: 0.2 s per type
on 1M embedded entities, 1.7 s on a Neo4j server (no index on a list property), in
every process of every run. The sample depends on the seed, so no import can keep it;
a run keeps it for its seed instead (:func:`keep`, called by ``kgbench generate``
before its workers start), once per store and seed:

* every type's **head**: its members whose salted hash falls below a cut that leaves
  about :data:`HEAD_ENTITIES` entities of the store, in hash order, which is exactly the
  start of the type's sample (a caller wanting more than a head holds scans as before);
* every member of a type with at most :data:`SMALL_TYPE` members (its whole sample).

Kept in the ``Meta`` row ``type_samples:<seed>`` with the store's import token
(:data:`~kgstore.predicate_stats.IMPORT_TOKEN_KEY`, new at every import): an import
since makes it stale, and the next run keeps it again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgstore.predicate_stats import IMPORT_TOKEN_KEY

if TYPE_CHECKING:
    from kgstore.store import Store

__all__ = ["HEAD_ENTITIES", "SMALL_TYPE", "TypeSamples", "head_cut", "keep", "kept",
           "salted"]

HEAD_ENTITIES = 16_384
"""About how many entities the heads of all types hold together (ids and types: about
2 MB); a type of 1% of a store's entities gets about 160 of them."""
SMALL_TYPE = 256
"""A type with at most this many (named, non-CVT) members is kept whole."""
KEY_PREFIX = "type_samples:"
VERSION = 1


def salted(id: str, seed: int) -> str:
    """An entity's place in a seeded sample: ``md5(id || ":" || seed)`` in hex, as the
    stores order them."""
    return hashlib.md5(f"{id}:{seed}".encode()).hexdigest()


def head_cut(entities: int) -> str:
    """The hash below which an entity is in its types' heads, for a store of
    ``entities`` entities ("g": every hash is below it)."""
    fraction = min(1.0, HEAD_ENTITIES / max(entities, 1))
    # md5 is 32 hex digits: comparing with an 8-digit prefix keeps that fraction.
    return "g" if fraction >= 1.0 else f"{int(fraction * 16 ** 8):08x}"


@dataclass(frozen=True, slots=True)
class TypeSamples:
    """Per type, the start of its seeded sample (named, non-CVT members, hash order),
    and the types whose whole sample that is."""

    heads: dict[str, list[str]]
    complete: frozenset[str]

    def sample(self, type_id: str, k: int) -> list[str] | None:
        """The ids of the type's first ``k``, or ``None`` when they are not kept."""
        head = self.heads.get(type_id)
        if type_id in self.complete or (head is not None and len(head) >= k):
            return (head or [])[:k]
        return None


def group(rows: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """(type, id) rows in hash order, grouped by type (an entity listing a type twice
    counts once)."""
    heads: dict[str, list[str]] = {}
    for t, id in rows:
        members = heads.setdefault(t, [])
        if not members or members[-1] != id:
            members.append(id)
    return heads


def _key(seed: int) -> str:
    return f"{KEY_PREFIX}{seed}"


def kept(store: Store, seed: int) -> TypeSamples | None:
    """The samples the store keeps for ``seed``, ``None`` when none or stale."""
    text = store._meta(_key(seed))
    if not text:
        return None
    try:
        doc = json.loads(text)
        if doc.get("version") != VERSION or doc.get("token") != store._meta(IMPORT_TOKEN_KEY):
            return None
        return TypeSamples({str(t): [str(i) for i in ids] for t, ids in doc["heads"].items()},
                           frozenset(map(str, doc["complete"])))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def keep(store: Store, seed: int) -> bool:
    """Compute and keep the samples for ``seed`` unless kept already; whether it
    computed them. The store must be writable."""
    if kept(store, seed) is not None:
        return False
    token = store._meta(IMPORT_TOKEN_KEY)
    heads, complete = store._type_sample_heads(seed)
    store._write_meta({_key(seed): json.dumps(
        {"version": VERSION, "token": token, "heads": heads, "complete": sorted(complete)},
        separators=(",", ":"))})
    return True
