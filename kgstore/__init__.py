"""kgstore: one ``Store`` interface over graph-database backends.

``open_store(location)`` picks the backend from the location, a string: a filesystem
path opens (or with ``create=True`` creates) an embedded LadybugDB store; a Neo4j URI
(``bolt://host:7687``, ``neo4j://``, ``neo4j+s://``, optionally ``/database``) opens a
database on a Neo4j 5 server (:mod:`kgstore.backends.neo4j`; credentials from
``KGBENCH_NEO4J_AUTH``, see :mod:`kgstore.location`).
"""

from __future__ import annotations

from kgstore.errors import (
    IncompatibleStoreError,
    QueryError,
    ReadOnlyQueryError,
    StagingError,
    StoreError,
    StoreLockedError,
    StoreNotADirectoryError,
    StoreNotFoundError,
    StorePermissionError,
)
from kgstore.location import (
    NEO4J_SCHEMES,
    StoreLocationError,
    checked_location,
    is_neo4j,
    is_uri,
    local_store_path,
    location_scheme,
    store_directory,
)
from kgstore.models import (
    Entity,
    Fact,
    FactPath,
    Literal,
    Predicate,
    SourceRecord,
    StoreStats,
    Subgraph,
    normalize_name,
    to_jsonable,
)
from kgstore.patterns import (
    HasType,
    IsCvt,
    IsEntity,
    MatchResult,
    NotEqual,
    NotIn,
    PatternQuery,
    TriplePattern,
    Var,
)
from kgstore.store import SCHEMA_VERSION, CypherResult, ImportReport, Store


def open_store(location: str, *, create: bool = False, read_only: bool = False,
               pool_size: int = 4) -> Store:
    """Open the store at ``location``: a directory path (embedded LadybugDB) or a Neo4j
    URI (:func:`kgstore.location.is_neo4j`).

    ``create=True`` makes a new empty store if none exists there. ``read_only=True``
    opens without taking the write lock (several readers may share a store); on Neo4j
    it reads in read transactions only. ``pool_size``: Bolt connections a Neo4j store
    may hold (one per worker thread that shares it).
    Raises :class:`StoreNotFoundError`, :class:`StoreLockedError`,
    :class:`IncompatibleStoreError` or :class:`StoreLocationError` with a message
    saying what to do.
    """
    if is_neo4j(location):
        from kgstore.backends.neo4j import Neo4jStore

        return Neo4jStore(location, create=create, read_only=read_only, pool_size=pool_size)
    path = local_store_path(location)
    from kgstore.backends.ladybug import LadybugStore

    return LadybugStore(path, create=create, read_only=read_only)


def open_readers(location: str, count: int) -> list[Store]:
    """``count`` read-only handles on the store at ``location``, for as many threads
    reading at once: no handle may be used by two threads at a time (the embedded
    store runs explicit transactions on its one connection; the Neo4j store holds one
    driver session and unsynchronised read caches). Embedded handles share one engine
    database, so one buffer pool (:meth:`LadybugStore.reader`); each Neo4j handle has
    one Bolt connection. Raises as :func:`open_store` does."""
    if count < 1:
        raise ValueError("open_readers needs a count of at least 1")
    handles: list[Store] = []
    try:
        if is_neo4j(location):
            from kgstore.backends.neo4j import Neo4jStore

            for _ in range(count):
                handles.append(Neo4jStore(location, read_only=True, pool_size=1))
        else:
            from kgstore.backends.ladybug import LadybugStore

            first = LadybugStore(local_store_path(location), read_only=True)
            handles.append(first)
            handles.extend(first.reader() for _ in range(count - 1))
    except BaseException:
        for handle in handles:
            handle.close()
        raise
    return handles


def store_exists(location: str) -> bool:
    """Whether ``location`` holds a kgbench store (:class:`StoreLocationError` for a
    URI: no backend that could answer is available; :class:`StoreNotADirectoryError`
    for a file, :class:`StorePermissionError` for a directory this user may not read).
    A store whose creation was interrupted is none (the next create starts it again)."""
    if is_neo4j(location):
        from kgstore.backends.neo4j import neo4j_store_exists

        return neo4j_store_exists(location)
    path = local_store_path(location)
    from kgstore.backends.ladybug import MARKER, has_marker
    from kgstore.backends.ladybug.directory import interrupted_creation

    return has_marker(path, MARKER) and not interrupted_creation(path / MARKER)


def remove_store(location: str) -> None:
    """Delete the store at ``location`` (``--force`` rebuilds); refuses a directory that
    is not a store, and a URI."""
    if is_neo4j(location):
        from kgstore.backends.neo4j import remove_neo4j_store

        remove_neo4j_store(location)
        return
    path = local_store_path(location)
    from kgstore.backends.ladybug import remove_store as remove_directory_store

    remove_directory_store(path)


__all__ = [
    "SCHEMA_VERSION", "CypherResult", "Entity", "Fact", "FactPath", "HasType",
    "ImportReport", "IncompatibleStoreError", "IsCvt", "IsEntity", "Literal", "MatchResult",
    "NEO4J_SCHEMES", "NotEqual", "NotIn", "PatternQuery", "Predicate", "QueryError",
    "ReadOnlyQueryError", "SourceRecord", "StagingError", "Store", "StoreError",
    "StoreLocationError", "StoreLockedError", "StoreNotADirectoryError", "StoreNotFoundError",
    "StorePermissionError", "StoreStats", "Subgraph", "checked_location",
    "TriplePattern", "Var", "is_neo4j", "is_uri", "local_store_path", "location_scheme", "normalize_name",
    "open_readers", "open_store", "remove_store", "store_directory", "store_exists",
    "to_jsonable",
]
