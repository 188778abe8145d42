"""A content checksum of a whole store, the same on every backend for the same content.

Two stores hold the same knowledge graph when they hold the same entities (id, name,
aliases, types, CVT flag, description), the same facts (literal objects with their
value, datatype and language), the same predicates with their labels and aliases and
the same CVT types. :func:`content_checksum` condenses exactly that into 64 hex digits, so a copy
between backends (:mod:`kgstore.transfer`) can be verified, and two stores on two
machines compared, without moving either.

The checksum is ORDER-INDEPENDENT: it is the sum, modulo 2**256, of the SHA-256 of each
record's canonical form (:class:`ContentHash`). Backends list records in their engine's
string order (:meth:`~kgstore.store.Store.iter_entities`), and engines disagree on it:
Neo4j compares strings as Java does (UTF-16 code units), LadybugDB by UTF-8 bytes, so
an id with a character beyond U+FFFF sorts differently. A sum needs no order and no
memory. Every record is unique in a store (entities by id, facts by subject, predicate
and object), so a sum of distinct records is as good as a set digest here.

Left out on purpose: what a store derives from its content (predicate fact counts,
name keys, literal keys, typed literal values, the hub index) and its bookkeeping (the
sources loaded, schema version): those are the backend's, and two stores with the same
content may have different load histories.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

from kgstore.models import Entity, Fact, Literal, Predicate
from kgstore.store import ProgressCallback, Store

__all__ = ["CHECKSUM_SCHEME", "ContentHash", "content_checksum"]

CHECKSUM_SCHEME = "kgbench-content-v1"
"""Names the canonical records and the sum below; changes whenever either does, so a
checksum written down today is never compared with one computed another way."""

_MODULUS_MASK = (1 << 256) - 1


class ContentHash:
    """Accumulates the checksum of records given one at a time, in any order."""

    def __init__(self) -> None:
        self._sum = 0
        self.records = 0

    def entity(self, entity: Entity) -> None:
        self._add(["E", entity.id, entity.name, sorted(entity.aliases), sorted(entity.types),
                   bool(entity.is_cvt), entity.description])

    def fact(self, fact: Fact) -> None:
        obj = fact.object
        if isinstance(obj, Literal):
            self._add(["F", fact.subject, fact.predicate, "L", obj.value, obj.datatype,
                       obj.lang])
        else:
            self._add(["F", fact.subject, fact.predicate, "E", obj])

    def predicate(self, predicate: Predicate) -> None:
        # The names only: a predicate's fact count is derived from the facts. Aliases
        # join the record only when there are some, so a store without any keeps the
        # checksum it had before predicates had aliases.
        record: list[Any] = ["P", predicate.id, predicate.label]
        if predicate.aliases:
            record.append(sorted(predicate.aliases))
        self._add(record)

    def cvt_type(self, type_id: str) -> None:
        self._add(["C", type_id])

    def _add(self, record: list[Any]) -> None:
        # JSON is an unambiguous encoding of the record (no separator can be forged by
        # a value); surrogatepass keeps a lone surrogate an engine returns hashable.
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        self._sum = (self._sum + int.from_bytes(digest, "big")) & _MODULUS_MASK
        self.records += 1

    def hexdigest(self) -> str:
        """The checksum so far: 64 lower-case hex digits."""
        return f"{self._sum:064x}"


def content_checksum(store: Store, *, progress: ProgressCallback | None = None,
                     label: str = "checksum", batch: int = 10_000) -> str:
    """The checksum of everything ``store`` holds (see the module docstring): one scan
    of its entities and facts. ``progress`` hears ``"<label> entities"`` and
    ``"<label> facts"`` with rows done and the store's total."""
    content = ContentHash()
    stats = store.stats()
    _scan(store.iter_entities(batch=batch), content.entity, progress,
          f"{label} entities", stats.entities)
    _scan(store.iter_facts(batch=batch), content.fact, progress, f"{label} facts", stats.facts)
    for predicate in store.predicates():
        content.predicate(predicate)
    for type_id in store.cvt_types():
        content.cvt_type(type_id)
    return content.hexdigest()


def _scan(batches: Iterable[list[Any]], add: Callable[[Any], None], progress: ProgressCallback | None,
          description: str, total: int) -> None:
    done = 0
    if progress is not None:
        progress(description, 0, total)
    for rows in batches:
        for row in rows:
            add(row)
        done += len(rows)
        if progress is not None:
            progress(description, done, total)
