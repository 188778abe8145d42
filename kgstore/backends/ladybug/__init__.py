"""The embedded LadybugDB backend: a store is a directory on disk.

:mod:`~kgstore.backends.ladybug.store` (the :class:`LadybugStore` reads and writes),
:mod:`~kgstore.backends.ladybug.queries` (every Cypher statement it runs),
:mod:`~kgstore.backends.ladybug.rows` (result rows as lists, fact objects, batches),
:mod:`~kgstore.backends.ladybug.sampling` (seeded samples),
:mod:`~kgstore.backends.ladybug.schema` (directory layout, marker, graph schema),
:mod:`~kgstore.backends.ladybug.importer` (bulk import with ``COPY``),
:mod:`~kgstore.backends.ladybug.hub_index` (one predicate of a hub's incoming facts),
:mod:`~kgstore.backends.ladybug.engine` (buffer pool and batch sizes),
:mod:`~kgstore.backends.ladybug.opening` (opening the engine's database, its errors as ours),
:mod:`~kgstore.backends.ladybug.directory` (checks of the store's directory and marker,
removal),
:mod:`~kgstore.backends.ladybug.recovery` (a store whose checkpoint was interrupted),
:mod:`~kgstore.backends.ladybug.search` (the entity search index beside the database),
:mod:`~kgstore.backends.ladybug.user_query` (a user's read-only Cypher),
:mod:`~kgstore.backends.ladybug.generation` (the token a writer changes).
"""

from __future__ import annotations

from kgstore.backends.ladybug.directory import has_marker, remove_store
from kgstore.backends.ladybug.schema import MARKER
from kgstore.backends.ladybug.store import LadybugStore

__all__ = ["MARKER", "LadybugStore", "has_marker", "remove_store"]
