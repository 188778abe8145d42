"""kgstore: one ``Store`` interface over graph-database backends.

``open_store(location)`` picks the backend from the location, a string: a filesystem
path opens (or with ``create=True`` creates) an embedded LadybugDB store; a URI
(``bolt://``, ``neo4j://``: a Neo4j database) is refused with one clear error until
that backend lands (:mod:`kgstore.location`).
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
    is_uri,
    local_store_path,
    location_scheme,
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


def open_store(location: str, *, create: bool = False, read_only: bool = False) -> Store:
    """Open the store at ``location`` (a directory path; a URI is refused, see
    :func:`kgstore.location.local_store_path`).

    ``create=True`` makes a new empty store if none exists there. ``read_only=True``
    opens without taking the write lock (several readers may share a store).
    Raises :class:`StoreNotFoundError`, :class:`StoreLockedError`,
    :class:`IncompatibleStoreError` or :class:`StoreLocationError` with a message
    saying what to do.
    """
    path = local_store_path(location)
    from kgstore.backends.ladybug import LadybugStore

    return LadybugStore(path, create=create, read_only=read_only)


def store_exists(location: str) -> bool:
    """Whether ``location`` holds a kgbench store (:class:`StoreLocationError` for a
    URI: no backend that could answer is available; :class:`StoreNotADirectoryError`
    for a file, :class:`StorePermissionError` for a directory this user may not read)."""
    path = local_store_path(location)
    from kgstore.backends.ladybug import MARKER, has_marker

    return has_marker(path, MARKER)


def remove_store(location: str) -> None:
    """Delete the store at ``location`` (``--force`` rebuilds); refuses a directory that
    is not a store, and a URI."""
    path = local_store_path(location)
    from kgstore.backends.ladybug import remove_store as remove_directory_store

    remove_directory_store(path)


__all__ = [
    "SCHEMA_VERSION", "CypherResult", "Entity", "Fact", "FactPath", "HasType",
    "ImportReport", "IncompatibleStoreError", "IsCvt", "IsEntity", "Literal", "MatchResult",
    "NEO4J_SCHEMES", "NotEqual", "NotIn", "PatternQuery", "Predicate", "QueryError",
    "ReadOnlyQueryError", "SourceRecord", "StagingError", "Store", "StoreError",
    "StoreLocationError", "StoreLockedError", "StoreNotADirectoryError", "StoreNotFoundError",
    "StorePermissionError", "StoreStats", "Subgraph",
    "TriplePattern", "Var", "is_uri", "local_store_path", "location_scheme", "normalize_name",
    "open_store", "remove_store", "store_exists", "to_jsonable",
]
