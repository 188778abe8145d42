"""The embedded store's layout: its directory, its marker file and its graph schema.

Directory layout::

    STORE/
      kgbench-store.json   marker: backend, schema version (read before opening the DB)
      graph.lbdb           the LadybugDB database
      generation           a token each writer changes (generation.py)
      search-index.json    names the current search-index-*/ folder (kgstore.search_index)
      staging/             loaders' staged Parquet (removed after a successful import)
      merge-*/             an import's DuckDB work folder (removed after it)

Graph schema::

    (:Entity {id PK, name, aliases[], types[], is_cvt, description})
    (:Literal {id PK = Literal.key, value, datatype, lang, num, date})
    (:Entity)-[:Fact {predicate}]->(:Entity | :Literal)
    (:Name {key PK})-[:NAMES]->(:Entity)          normalised names and aliases
    (:Predicate {id PK, label, count, aliases[]})
    (:Meta {key PK, value})   (:Source {id PK, file, checksum, format, counts, loaded_at, status})
    (:InSlot {key PK = hub<US>predicate, predicate})-[:IN_SLOT]->(:Entity)   hub index
    (:Hub {id PK})            entities whose incoming facts the hub index holds

``Name`` nodes turn case-insensitive name/alias lookup into a primary-key hash lookup
(LadybugDB has no secondary indexes); ``InSlot`` nodes do the same for one predicate of
a hub's incoming facts (:mod:`~kgstore.backends.ladybug.hub_index`).
"""

from __future__ import annotations

from kgstore.backends.ladybug.hub_index import HUB_INDEX_DDL

__all__ = ["DB_FILE", "MARKER", "PREDICATE_ALIASES_DDL", "SCHEMA_DDL", "STAGING_DIR"]

MARKER = "kgbench-store.json"
DB_FILE = "graph.lbdb"
STAGING_DIR = "staging"
"""Where loaders stage the inputs of this store (kept after a failed import, so a
re-run reuses the stage)."""

SCHEMA_DDL = (
    "CREATE NODE TABLE Meta(key STRING, value STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE Source(id STRING, file STRING, checksum STRING, format STRING, "
    "counts STRING, loaded_at STRING, status STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE Entity(id STRING, name STRING, aliases STRING[], types STRING[], "
    "is_cvt BOOLEAN, description STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE Literal(id STRING, value STRING, datatype STRING, lang STRING, "
    "num DOUBLE, date DATE, PRIMARY KEY(id))",
    "CREATE NODE TABLE Name(key STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE Predicate(id STRING, label STRING, count INT64, aliases STRING[], "
    "PRIMARY KEY(id))",
    "CREATE REL TABLE Fact(FROM Entity TO Entity, FROM Entity TO Literal, predicate STRING)",
    "CREATE REL TABLE NAMES(FROM Name TO Entity)",
    *(ddl.replace(" IF NOT EXISTS", "") for ddl in HUB_INDEX_DDL),
)

PREDICATE_ALIASES_DDL = "ALTER TABLE Predicate ADD IF NOT EXISTS aliases STRING[]"
"""Adds predicate aliases (issue 34) to a store written before them, when it is opened
for writing: an additive column, so the schema version stays and older stores are
upgraded in place rather than refused. Until then, reads see no aliases."""
