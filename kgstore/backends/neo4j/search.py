"""Entity search on the Neo4j store (:mod:`kgstore.search_index` says what matches and
how it is ranked): the search key of every ``Name`` node is its ``fold`` property, with
a range index (exact, ``STARTS WITH``) and a text index (``CONTAINS``), and the ranking
is one ordered read (:func:`~kgstore.backends.neo4j.queries.search_words`).

Imports write the key with each new name. A store written before there were keys gets
them once (:func:`complete_search_keys`: on the first search of a handle that may
write, by ``kgbench store search-index``, or by the next load into it); the ``Meta``
row :data:`SEARCH_KEYS_META` says every name has one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from kgstore.backends.neo4j import queries as q
from kgstore.errors import StoreError
from kgstore.models import Entity
from kgstore.search_index import MATCH_KINDS, SearchHit, fold, fold_texts

if TYPE_CHECKING:
    from kgstore.backends.neo4j.store import Neo4jStore
    from kgstore.store import ProgressCallback

__all__ = ["SEARCH_KEYS_META", "complete_search_keys", "search", "with_fold_column", "with_folds"]

SEARCH_KEYS_META = "search_keys"
_KEYS_PER_WRITE = 10_000


def with_folds(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` of Name keys (``k``) with their search keys (``f``)."""
    folds = fold_texts(pa.array([r["k"] for r in rows], pa.string())).to_pylist()
    return [{**r, "f": f} for r, f in zip(rows, folds, strict=True)]


def with_fold_column(cols: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Columns of Name keys (``k``) with their search keys added (``f``)."""
    return {**cols, "f": fold_texts(pa.array(cols["k"], pa.string())).to_pylist()}


def search(store: Neo4jStore, text: str, limit: int,
           entity: Any) -> list[SearchHit]:
    """The best ``limit`` entities for ``text`` (``entity(row)`` makes a record)."""
    query = fold(text)
    if not query or limit <= 0:
        return []
    ready(store)
    rows = store._read(*q.search_words(query, limit))
    if len(rows) < limit:
        rows += store._read(*q.search_substrings(query, [r[0] for r in rows],
                                                 limit - len(rows)))
    hits: list[SearchHit] = []
    for row in rows:
        record: Entity = entity(row[:6])
        hits.append(SearchHit(record, MATCH_KINDS[int(row[6])], int(row[7])))
    return hits


def ready(store: Neo4jStore) -> None:
    """Raise a one-line :class:`StoreError` when the store's names have no search keys
    yet and this handle may not write them; write them when it may."""
    if store._search_ready:
        return
    if store._meta(SEARCH_KEYS_META) != "1":
        if store.read_only:
            raise StoreError(
                f"the store {store.location} was loaded before kgbench searched by words, "
                "so its names have no search keys yet; add them once with `kgbench store "
                f"search-index --store {store.location}` (or load anything into it)")
        complete_search_keys(store, None)
    store._search_ready = True


def complete_search_keys(store: Neo4jStore, progress: ProgressCallback | None) -> bool:
    """Give every ``Name`` node without one its search key, page by page in key order,
    then mark the store as having them all; whether any was missing."""
    if store._search_ready or store._meta(SEARCH_KEYS_META) == "1":
        store._search_ready = True
        return False
    after, done = "", 0
    while True:
        keys = [r[0] for r in store._read(*q.names_without_fold(after, _KEYS_PER_WRITE))]
        if not keys:
            break
        store._write(*q.set_folds(with_folds([{"k": k} for k in keys])))
        after, done = keys[-1], done + len(keys)
        if progress:
            progress("search index: names", done, None)
    store._write_meta({SEARCH_KEYS_META: "1"})
    store._search_ready = True
    return True
