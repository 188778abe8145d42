"""Entity search on the embedded store (:mod:`kgstore.search_index` says what matches
and how it is ranked): the Arrow index is built from one read of the named entities and
the facts per entity, and saved beside the database for the store's generation
(:mod:`~kgstore.backends.ladybug.generation`), so every handle and process maps the
same files. An import rebuilds it as its last step; a store written before there was
one builds it on its first search."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from kgstore.backends.ladybug import queries as q
from kgstore.search_index import EntitySearchIndex, write_index

if TYPE_CHECKING:
    from kgstore.backends.ladybug.store import LadybugStore
    from kgstore.store import ProgressCallback

__all__ = ["build_search_index"]


def build_search_index(store: LadybugStore, generation: str,
                       progress: ProgressCallback | None = None,
                       degrees: pa.Table | None = None) -> EntitySearchIndex:
    """The search index of what ``store`` holds now, saved beside it for
    ``generation`` (kept in memory only where the folder cannot be written).
    ``degrees`` (``id``, ``n_sum``): every entity's facts where the caller knows them
    (an import into an empty store: its own facts), else they are counted here."""
    def step(name: str, done: int) -> None:
        if progress:
            progress(f"search index: {name}", done, 3)

    names = store._arrow(*q.searchable_entities())
    step("names", 1)
    if degrees is None:   # two grouped scans of the facts (5M facts: 3-5 s)
        with store._threads(0):
            counts = pa.concat_tables([store._arrow(*q.fact_degrees(outgoing))
                                       for outgoing in (True, False)])
        degrees = counts.group_by("id").aggregate([("n", "sum")])
    at = pc.index_in(names.column("id"), value_set=degrees.column("id"))
    table = names.append_column("degree", pc.fill_null(
        pc.take(degrees.column("n_sum"), at), 0).cast(pa.int64()))
    step("facts per entity", 2)
    index = EntitySearchIndex.build(table)
    # A folder this user may only read: the index lives as long as the handle.
    with contextlib.suppress(OSError):
        write_index(store.path, index, generation)
    step("sorted", 3)
    return index
