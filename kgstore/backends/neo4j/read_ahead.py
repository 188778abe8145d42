"""Reading ahead on the Neo4j store (:meth:`~kgstore.store.Store.read_ahead`): the
records and neighbourhoods of the nodes a caller is about to read around, and the
entities that share their names, in one transaction, kept by a read-only store so that
the reads of one question cost a few round trips instead of one each."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kgstore.backends.neo4j import queries as q
from kgstore.cypher.rows import entity_from_row
from kgstore.models import Entity, EntityDetail

if TYPE_CHECKING:
    from kgstore.backends.neo4j.store import Neo4jStore

__all__ = ["AHEAD_DETAIL", "NAMES_AHEAD", "READ_AHEAD_FACTS", "read_around"]

# Facts of each kind (out, in, literal) that read_ahead reads per node: all of them for
# 99% of the nodes of the 1M-fact benchmark KG (degree p99 62), while a node with
# thousands costs no more than a window. Reading 200 (the engine's window,
# extension.core.candidates.Limits) doubled the client's CPU per question.
READ_AHEAD_FACTS = 64
# The detail of the neighbours' records read ahead (what the extension engine's
# neighbourhood reads ask for; types lists would be most of the bytes), and the
# expansion cache's key for a node's facts of all predicates (only read_ahead keeps those).
AHEAD_DETAIL: EntityDetail = "brief"
# Entities per name that read_ahead(names=True) reads (find_by_name's default limit).
NAMES_AHEAD = 50


def read_around(store: Neo4jStore, ids: Iterable[str], *, names: bool = False,
                limit: int = READ_AHEAD_FACTS) -> None:
    """:meth:`Neo4jStore.read_ahead <kgstore.backends.neo4j.store.Neo4jStore.read_ahead>`:
    reads and keeps the records and neighbourhoods of those of ``ids`` a read-only
    ``store`` does not keep yet (with ``names``, their name lookups too)."""
    if not store.read_only:
        return
    wanted = [i for i in dict.fromkeys(ids)
              if store._expansion_cache.get((i, "out", None, AHEAD_DETAIL)) is None]
    if not wanted:
        return
    records = [i for i in wanted if store._entity_cache.get(i) is None]
    kinds = ("out", "in", "literal")
    # A hub's incoming facts are not read ahead: a window of them sorts all of
    # them (400k facts: 200 ms), and they are never all read, so a single
    # predicate of them is read through the hub index anyway.
    hubs = store._hub_ids()
    queries = [q.neighbourhoods(kind, [i for i in wanted if i not in hubs]
                                if kind == "in" else wanted, limit + 1) for kind in kinds]
    if names:
        queries.append(q.names_of(wanted, NAMES_AHEAD + 1))
    batch = q.IDS_PER_QUERY
    queries += [q.entities(records[i:i + batch]) for i in range(0, len(records), batch)]
    results = store._read_together(queries)
    if names:
        named: dict[str, list[Entity]] = {}
        for r in results[len(kinds)]:
            named.setdefault(r[0], []).append(entity_from_row(r[1:]))
        for key, found_by_name in named.items():
            store._names.put(key, (found_by_name, len(found_by_name) <= NAMES_AHEAD),
                             len(found_by_name))
        kinds_read = len(kinds) + 1
    else:
        kinds_read = len(kinds)
    found = {r[0]: entity_from_row(r) for rows in results[kinds_read:] for r in rows}
    for id in records:
        store._entity_cache.put(id, (found.get(id),), 1)
    by_id: dict[str, dict[str, list[list[Any]]]] = {i: {k: [] for k in kinds} for i in wanted}
    for kind, rows in zip(kinds, results, strict=False):
        for r in rows:
            by_id[r[0]][kind].append(r[1:])
    # Rows only: records are made when a read asks (_kept, _read_adjacency).
    for id, rows_of in by_id.items():
        for kind, rows in rows_of.items():
            if kind != "in" or id not in hubs:
                store._expansion_cache.put((id, kind, None, AHEAD_DETAIL),
                                           (rows, len(rows) <= limit), len(rows) + 1)
