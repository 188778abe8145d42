"""kgstore: one ``Store`` interface over graph-database backends.

``open_store(location)`` picks the backend from the location: a filesystem path opens
(or with ``create=True`` creates) an embedded LadybugDB store; a ``bolt://`` or
``neo4j://`` URI a Neo4j database.
"""

from __future__ import annotations

from pathlib import Path

from kgstore.errors import (
    IncompatibleStoreError,
    QueryError,
    ReadOnlyQueryError,
    StagingError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
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

NETWORK_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


def open_store(
    location: str | Path, *, create: bool = False, read_only: bool = False
) -> Store:
    """Open the store at ``location``.

    ``create=True`` makes a new empty store if none exists there. ``read_only=True``
    opens without taking the write lock (several readers may share a store).
    Raises :class:`StoreNotFoundError`, :class:`StoreLockedError` or
    :class:`IncompatibleStoreError` with a message saying what to do.
    """
    loc = str(location)
    if loc.startswith(NETWORK_SCHEMES):
        raise StoreError(
            f"{loc}: the Neo4j backend is not available in this version; use a directory "
            "path for the embedded LadybugDB store"
        )
    from kgstore.ladybug_store import LadybugStore

    return LadybugStore(Path(loc), create=create, read_only=read_only)


__all__ = [
    "SCHEMA_VERSION", "CypherResult", "Entity", "Fact", "FactPath", "HasType",
    "ImportReport", "IncompatibleStoreError", "IsCvt", "IsEntity", "Literal", "MatchResult",
    "NotEqual", "NotIn", "PatternQuery", "Predicate", "QueryError", "ReadOnlyQueryError",
    "SourceRecord", "StagingError", "Store", "StoreError", "StoreLockedError",
    "StoreNotFoundError", "StoreStats", "Subgraph", "TriplePattern", "Var", "normalize_name",
    "open_store", "to_jsonable",
]
