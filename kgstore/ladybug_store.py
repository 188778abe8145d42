"""Embedded LadybugDB backend: a store is a directory on disk, no server.

Directory layout::

    STORE/
      kgbench-store.json   marker: backend, schema version (read before opening the DB)
      graph.lbdb           the LadybugDB database
      staging/             loaders' staged Parquet (removed after a successful import)

Graph schema (all Cypher for this backend lives in this module)::

    (:Entity {id PK, name, aliases[], types[], is_cvt, description})
    (:Literal {id PK = Literal.key, value, datatype, lang, num, date})
    (:Entity)-[:Fact {predicate}]->(:Entity | :Literal)
    (:Name {key PK})-[:NAMES]->(:Entity)          normalised names and aliases
    (:Predicate {id PK, label, count})
    (:Meta {key PK, value})   (:Source {id PK, file, checksum, format, counts, loaded_at, status})
    (:InSlot {key PK = hub<US>predicate, predicate})-[:IN_SLOT]->(:Entity)   hub index
    (:Hub {id PK})            entities whose incoming facts the hub index holds

``Name`` nodes turn case-insensitive name/alias lookup into a primary-key hash lookup
(LadybugDB has no secondary indexes); ``InSlot`` nodes do the same for one predicate of
a hub's incoming facts (:data:`HUB_INDEX_DDL`). A store opened read-only cannot change while it
is open, so it keeps its recent reads (neighbourhoods, single-predicate expansions,
entity records, type samples) in bounded least-recently-used caches: graph walks and
the extension engine come back to the same hubs question after question. Bulk import merges a staged directory with DuckDB
and loads it with ``COPY``; every step reads the current store state, so an import that
died half-way is completed by running it again, without duplicates.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import os
import queue
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import ladybug as lb
import pyarrow as pa

from kgstore.cypher_guard import assert_read_only
from kgstore.cypher_params import parameters_for
from kgstore.diskspace import disk_full_error
from kgstore.enginepaths import cypher_path, duckdb_read_path
from kgstore.errors import (
    DamagedStoreError,
    IncompatibleStoreError,
    QueryError,
    QueryTimeoutError,
    ReadOnlyQueryError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
)
from kgstore.expansion import join_order, match_by_expansion
from kgstore.ladybug_recovery import check_indexes, checkpoint_interrupted, mark_damaged
from kgstore.location import local_store_path
from kgstore.models import (
    ENTITY_DETAILS,
    NORMALIZE_NAME_SQL,
    Adjacency,
    Entity,
    EntityDetail,
    Fact,
    Literal,
    Predicate,
    SourceRecord,
    StoreStats,
    normalize_name,
)
from kgstore.patterns import (
    Binding,
    HasType,
    IsCvt,
    IsEntity,
    MatchResult,
    NotEqual,
    NotIn,
    PatternQuery,
    Var,
)
from kgstore.staging import SCHEMAS, read_manifest, staged_parts
from kgstore.store import SCHEMA_VERSION, CypherResult, ImportReport, ProgressCallback, Store
from kgstore.store_directory import has_marker, holds_files, make_directory, permission_denied

MARKER = "kgbench-store.json"
DB_FILE = "graph.lbdb"

# The incoming-fact index of hub entities (see hub_min_in_degree). An entity's incoming
# facts of one predicate are otherwise found by scanning all of its incoming facts:
# LadybugDB keeps a rel property in the adjacency list itself, with no way to skip to
# one predicate's facts (sorting the facts by predicate before the COPY did not help:
# the scan still starts at the top). On the extension benchmark's 5M-fact KG the 320
# entities with at least 1,000 incoming facts hold 47% of the facts, and reading one
# predicate of them took 15% of the extension time (19 ms for a rare predicate of the
# biggest, 405k facts; 0.1-0.3 ms through the index). `InSlot` is one (hub, predicate)
# pair, keyed ``hub<US>predicate``, linked to the subjects of those facts in the order a
# scan of the hub's facts meets them; `Hub` lists the hubs whose slots are complete.
# Stores written before the index existed get the tables with their next import (the
# IF NOT EXISTS forms), and until then read by scans.
HUB_INDEX_DDL = (
    "CREATE NODE TABLE IF NOT EXISTS Hub(id STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS InSlot(key STRING, predicate STRING, PRIMARY KEY(key))",
    "CREATE REL TABLE IF NOT EXISTS IN_SLOT(FROM InSlot TO Entity)",
)
SLOT_SEPARATOR = "\x1f"
"""Between the hub id and the predicate of an ``InSlot`` key (the ASCII unit separator,
which N-Triples IRIs and tab-separated ids cannot hold)."""

SCHEMA_DDL = (
    "CREATE NODE TABLE Meta(key STRING, value STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE Source(id STRING, file STRING, checksum STRING, format STRING, "
    "counts STRING, loaded_at STRING, status STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE Entity(id STRING, name STRING, aliases STRING[], types STRING[], "
    "is_cvt BOOLEAN, description STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE Literal(id STRING, value STRING, datatype STRING, lang STRING, "
    "num DOUBLE, date DATE, PRIMARY KEY(id))",
    "CREATE NODE TABLE Name(key STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE Predicate(id STRING, label STRING, count INT64, PRIMARY KEY(id))",
    "CREATE REL TABLE Fact(FROM Entity TO Entity, FROM Entity TO Literal, predicate STRING)",
    "CREATE REL TABLE NAMES(FROM Name TO Entity)",
    *(ddl.replace(" IF NOT EXISTS", "") for ddl in HUB_INDEX_DDL),
)

_ENTITY_COLS = "e.id, e.name, e.aliases, e.types, e.is_cvt, e.description"
# Object of a fact: entity or literal; the unused columns come back null.
_OBJECT_COLS = "label(o) AS kind, o.id AS id, o.value AS value, o.datatype AS datatype, o.lang AS lang"
# Expansions of one entity (bound as `c`) along Fact edges; one labelled target table
# each, see LadybugStore._expand. Fact reads need the neighbour's id only; neighbourhood
# reads (adjacency) want its record. Aliases and descriptions are most of what a
# record costs to read (a hub's 200 neighbours: 4.1 ms with them, 2.5 ms without, 1.3 ms
# for ids alone, on 5M facts): "lean" reads leave them out, in the same column layout.
# "brief" reads leave the types list out as well: for a walk's typical 110 neighbours,
# 1.8 ms lean, 1.1-1.2 ms brief.
_DETAIL_COLS = {
    "full": _ENTITY_COLS,
    "lean": "e.id, e.name, NULL, e.types, e.is_cvt, NULL",
    "brief": "e.id, e.name, NULL, NULL, e.is_cvt, NULL",
}
_EXPANSIONS = {
    "out": ("-[f:Fact]->(e:Entity)", "e.id"),
    "in": ("<-[f:Fact]-(e:Entity)", "e.id"),
    **{f"{direction}-{detail}": (pattern, cols) for detail, cols in _DETAIL_COLS.items()
       for direction, pattern in (("out", "-[f:Fact]->(e:Entity)"),
                                  ("in", "<-[f:Fact]-(e:Entity)"))},
    "literal": ("-[f:Fact]->(e:Literal)", "e.value, e.datatype, e.lang"),
}
# Ids per UNWIND query of a batch lookup (bounds one parameter list and one result).
_BATCH = 2_000
# Fewest ids that facts_many reads in one UNWIND query: on 5M facts the batch query
# costs ~2.5 ms however short (its plan scans the node table with a semi-mask) plus
# ~20 us per id, one plain expansion ~0.15 ms.
_MANY_MIN = 16
# Facts held by a read-only store's cache of neighbourhoods (about 20 MB), rows held by
# its cache of single-predicate expansions and samples (about 20 MB), entity records
# held by its cache of lookups (about 10 MB).
_ADJACENCY_CACHE_FACTS = 100_000
_EXPANSION_CACHE_ROWS = 200_000
_ENTITY_CACHE_RECORDS = 50_000
# Entities a read-only store keeps per seed to serve typed samples (ids and types:
# about 2 MB; a type of 1% of the entities gets about 160 of them).
_TYPE_SAMPLE_ENTITIES = 16_384
# Seeds (with the two flags) whose typed samples a read-only store keeps: a run uses
# one; a long-lived service asked for many keeps the last few.
_TYPE_SAMPLE_KEYS = 4
# Prepared statements kept per store (distinct parameterized query texts).
_STATEMENT_CACHE = 256
# Most entities sharing one name that find_by_name reads before sorting by id.
_NAME_MATCH_CAP = 100_000
_LOCK_RE = re.compile(r"Could not set lock|Lock is held", re.IGNORECASE)
# A write committed but its checkpoint failed (a full disk): the engine opens the
# database read-only again only after a read-write open has replayed the log.
_RECOVERY_RE = re.compile(r"checkpoint recovery is pending", re.IGNORECASE)
_NUMERIC_DT = (
    "xsd:integer", "xsd:int", "xsd:long", "xsd:short", "xsd:decimal", "xsd:double",
    "xsd:float", "xsd:nonNegativeInteger", "xsd:positiveInteger", "xsd:negativeInteger",
    "xsd:nonPositiveInteger", "xsd:unsignedInt", "xsd:unsignedLong", "xsd:byte",
    "xsd:unsignedShort", "xsd:unsignedByte",
)
_DATE_DT = ("xsd:date", "xsd:dateTime", "xsd:gYear", "xsd:gYearMonth")


def _buffer_pool_bytes() -> int:
    """Buffer pool size: ``KGBENCH_BUFFER_POOL_MB`` or 2 GiB (LadybugDB's own default is
    80% of RAM, which would crowd out DuckDB during imports)."""
    return int(os.environ.get("KGBENCH_BUFFER_POOL_MB", "2048")) * 1024 * 1024


def hub_min_in_degree() -> int:
    """Incoming facts from which an entity is a hub, whose incoming facts an import
    indexes by predicate (see :data:`HUB_INDEX_DDL`): ``KGBENCH_HUB_MIN_DEGREE`` or 1,000.
    On the extension benchmark's KG, 1,000 and 200 gave about the same speed-up and
    5,000 about half of it (one process, 2,000 questions); the index holds 47% of that
    KG's facts at 1,000."""
    return max(int(os.environ.get("KGBENCH_HUB_MIN_DEGREE", "1000")), 1)


def _fetch_rows(result: Any) -> list[list[Any]]:
    """All rows of a LadybugDB query result as lists.

    Reads the native result directly when the binding exposes it: the Python wrapper's
    iterator checks the result is open on every row, which cost a quarter of a
    130-row neighbourhood read (1.57 -> 1.20 ms on 5M facts)."""
    native = getattr(result, "_query_result", None)
    if native is None or not hasattr(native, "getNext"):
        return [list(row) for row in result.get_all()]
    rows = []
    while native.hasNext():
        rows.append(native.getNext())
    return rows


def _sample_conditions(named_only: bool, include_cvt: bool) -> list[str]:
    """The WHERE conditions on entity ``e`` of :meth:`LadybugStore.sample_entities`'s
    two flags (the typed-sample prefix scan must select exactly the same entities)."""
    conditions = []
    if named_only:
        conditions.append("e.name IS NOT NULL")
    if not include_cvt:
        conditions.append("NOT e.is_cvt")
    return conditions


def _limit(n: int) -> str:
    """A LIMIT clause with the count inlined. LadybugDB plans ``LIMIT $param`` without
    pushing the limit down (measured 6-9x slower per lookup), so the count is written
    into the query text; it is validated as a non-negative int, never user text."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"limit must be a non-negative integer, got {n!r}")
    return f"LIMIT {n}"


def _bucket(n: int) -> int:
    """``n`` rounded up to ``2**k + 1`` (a window plus the row that tells truncation):
    limits computed from earlier reads then share a few query texts."""
    return n if n <= 2 else (1 << (n - 2).bit_length()) + 1


def _expansion_fact(kind: str, id: str, predicate: str, columns: list[Any]) -> Fact:
    """The fact of one expansion row of entity ``id`` (``kind`` "out", "in", "literal")."""
    if kind == "out":
        return Fact(id, predicate, columns[0])
    if kind == "in":
        return Fact(columns[0], predicate, id)
    return Fact(id, predicate, Literal(columns[0], columns[1], columns[2]))


class _Lru:
    """Reads of a read-only store, least recently used dropped first once the sizes
    given with them add up to more than ``budget``."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.size = 0

    def get(self, key: Hashable) -> Any:
        entry = self.entries.get(key)
        if entry is None:
            return None
        self.entries.move_to_end(key)
        return entry[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        if key in self.entries:
            self.size -= self.entries.pop(key)[1]
        self.entries[key] = (value, size)
        self.size += size
        while self.size > self.budget:
            _, (_, dropped) = self.entries.popitem(last=False)
            self.size -= dropped

    def clear(self) -> None:
        self.entries.clear()
        self.size = 0


def _adjacency_prefix(read: Adjacency, limit: int) -> Adjacency:
    """The first ``limit`` facts of a neighbourhood ``read`` (as a fresh Adjacency) with
    the entities at their ends: what a read with that smaller window returns."""
    if len(read.facts) <= limit:
        return Adjacency(list(read.facts), dict(read.entities), read.truncated)
    facts = read.facts[:limit]
    ends = {f.subject for f in facts} | {f.object_key for f in facts}
    return Adjacency(facts, {k: v for k, v in read.entities.items() if k in ends}, True)


def _entity_from_row(row: list[Any]) -> Entity:
    return Entity(
        id=row[0], name=row[1], aliases=tuple(row[2] or ()), types=tuple(row[3] or ()),
        is_cvt=bool(row[4]), description=row[5],
    )


def _object_from_cols(kind: str, oid: str, value: Any, datatype: Any, lang: Any) -> str | Literal:
    if kind == "Literal":
        return Literal(value, datatype, lang)
    return str(oid)


class LadybugStore(Store):
    """A store in a local directory, backed by an embedded LadybugDB database."""

    backend = "ladybug"

    def __init__(self, path: Path, *, create: bool = False, read_only: bool = False) -> None:
        self.path = local_store_path(path)   # a URI folded into a Path is no directory
        self.read_only = read_only
        marker = self.path / MARKER
        fresh = not has_marker(self.path, MARKER)
        if fresh:
            if not create:
                raise StoreNotFoundError(
                    f"no kgbench store at {self.path}: load data first "
                    f"(`kgbench load triples FILE --store {self.path}`) or pass another --store"
                )
            if read_only:
                raise StoreNotFoundError(f"no kgbench store at {self.path} to open read-only")
            if holds_files(self.path):
                raise StoreError(
                    f"{self.path} exists and is not a kgbench store; choose an empty or new "
                    "directory for --store"
                )
        else:
            self._check_marker(marker)
        make_directory(self.path)
        recovering = checkpoint_interrupted(self.path / DB_FILE)
        try:
            self._db = self._database(read_only)
            # A read-only store serves lookups (extension, generation, the HTTP API):
            # 1-3 ms queries that one thread runs faster than several (a 130-row
            # neighbourhood on 5M facts: 1.20 -> 1.08 ms; and worker processes then use
            # one core each); table scans get every thread back (_rows(scan=True)).
            self._lookup_threads = 1 if read_only else 0
            self._conn: lb.Connection | None = lb.Connection(
                self._db, num_threads=self._lookup_threads)
            self._statements: dict[str, Any] = {}
            # Reads kept while the store is open read-only (it cannot change then).
            self._adjacency_cache = _Lru(_ADJACENCY_CACHE_FACTS)
            self._expansion_cache = _Lru(_EXPANSION_CACHE_ROWS)
            self._entity_cache = _Lru(_ENTITY_CACHE_RECORDS)
            # Per (seed, named_only, include_cvt), for the last few: the types sampled
            # so far, then the samples of every type at once (_type_sample_prefix).
            self._sampled_types = _Lru(_TYPE_SAMPLE_KEYS)
            self._type_prefixes = _Lru(_TYPE_SAMPLE_KEYS)
            self._hubs: frozenset[str] | None = None   # read on first use (_hub_ids)
        except RuntimeError as exc:
            if _LOCK_RE.search(str(exc)):
                pid = re.search(r"PID (\d+)", str(exc))
                who = f" (process {pid.group(1)})" if pid else ""
                raise StoreLockedError(
                    f"store {self.path} is in use by another process{who}; wait for it to "
                    "finish or close it, then retry"
                ) from None
            full = disk_full_error(exc, self.path / DB_FILE)
            if full is not None:
                raise full from None
            if "permission denied" in str(exc).lower():
                raise permission_denied(self.path, "read" if read_only else "write") from None
            raise StoreError(f"cannot open store {self.path}: {exc}") from None
        if fresh:
            self._create_schema()
            marker.write_text(json.dumps(
                {"backend": self.backend, "schema_version": SCHEMA_VERSION}, indent=2
            ))
        else:
            if recovering:
                try:
                    check_indexes(self)
                except DamagedStoreError as exc:
                    self.close()
                    mark_damaged(marker, str(exc))  # the next open recovers nothing
                    raise
            stored = self._meta("schema_version")
            if stored is not None and int(stored) != SCHEMA_VERSION:
                self.close()
                raise self._incompatible(int(stored))

    def _database(self, read_only: bool) -> lb.Database:
        """The engine's database, opened read-only or not. A store whose last write
        committed but could not checkpoint (its disk was full) is refused read-only
        until a read-write open replays its log: that open is done here first, so a
        read-only command works again once there is space (the store's contents do not
        change; a writer holding the store makes it fail as StoreLockedError)."""
        def open_db(read_only: bool) -> lb.Database:
            return lb.Database(str(self.path / DB_FILE), read_only=read_only,
                               buffer_pool_size=_buffer_pool_bytes())

        try:
            return open_db(read_only)
        except RuntimeError as exc:
            if not (read_only and _RECOVERY_RE.search(str(exc))):
                raise
        open_db(False).close()
        return open_db(True)

    # -- lifecycle ------------------------------------------------------------------
    @property
    def location(self) -> str:
        return str(self.path)

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            self._statements.clear()
            self._adjacency_cache.clear()
            self._expansion_cache.clear()
            self._entity_cache.clear()
            conn.close()
            self._db.close()
            self._conn = None

    def _incompatible(self, version: int) -> IncompatibleStoreError:
        return IncompatibleStoreError(
            f"store {self.path} has schema version {version}, this kgbench reads version "
            f"{SCHEMA_VERSION}; reload the data into a new store (`kgbench load ... --store "
            "NEW_DIR`) or use the kgbench release that wrote it"
        )

    def _check_marker(self, marker: Path) -> None:
        try:
            info = json.loads(marker.read_text())
            version = int(info["schema_version"])
            backend = info["backend"]
        except PermissionError:
            raise permission_denied(self.path, "read") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise IncompatibleStoreError(f"{marker} is damaged ({exc}); rebuild the store") from None
        if info.get("damaged"):
            raise DamagedStoreError(str(info["damaged"]))
        if backend != self.backend:
            raise IncompatibleStoreError(f"{self.path} is a {backend} store, not {self.backend}")
        if version != SCHEMA_VERSION:
            raise self._incompatible(version)

    def _create_schema(self) -> None:
        for ddl in SCHEMA_DDL:
            self._rows(ddl)
        now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        for key, value in (("schema_version", str(SCHEMA_VERSION)), ("created_at", now),
                           ("cvt_types", "[]")):
            self._set_meta(key, value)

    # -- low-level execution --------------------------------------------------------
    def _rows(self, query: str, params: dict[str, Any] | None = None, *,
              scan: bool = False) -> list[list[Any]]:
        """The rows of ``query``. ``scan`` marks a query that reads whole tables
        (samples, counts, compiled matches): it runs on all the engine's threads even
        where the store's lookups run on one (see ``__init__``)."""
        if self._conn is None:
            raise StoreError("store is closed")
        try:
            with self._threads(0) if scan else contextlib.nullcontext():
                if params:
                    result = self._conn.execute(self._prepared(query), params)
                else:
                    result = self._conn.execute(query)
        except RuntimeError as exc:
            # A write that filled the disk is not a query problem (an import's COPY, a
            # checkpoint after it).
            raise disk_full_error(exc, self.path / DB_FILE) or QueryError(str(exc)) from None
        assert not isinstance(result, list)
        return _fetch_rows(result)

    @contextlib.contextmanager
    def _threads(self, n: int) -> Iterator[None]:
        """Queries in the block run on ``n`` engine threads (0: every thread), also
        where the store's lookups run on another number (one in a read-only store, see
        ``__init__``)."""
        assert self._conn is not None
        if n == self._lookup_threads:
            yield
            return
        self._conn.set_max_threads_for_exec(n)
        try:
            yield
        finally:
            self._conn.set_max_threads_for_exec(self._lookup_threads)

    def _prepared(self, query: str) -> Any:
        """The prepared statement for ``query``, prepared once per connection.

        ``execute(text, params)`` re-plans on every call; reusing the prepared
        statement halves a primary-key lookup (0.16 -> 0.08 ms). Parameterized queries
        are a small fixed set of texts, so the cache stays small. LadybugDB 0.22 marks
        separate prepare() as deprecated but it is the only way to reuse a plan."""
        statement = self._statements.get(query)
        if statement is None:
            assert self._conn is not None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                statement = self._conn.prepare(query)
            if not statement.is_success():
                raise RuntimeError(statement.get_error_message())
            if len(self._statements) < _STATEMENT_CACHE:
                self._statements[query] = statement
        return statement

    def _arrow(self, query: str, params: dict[str, Any] | None = None) -> pa.Table:
        assert self._conn is not None
        result = self._conn.execute(query, params or {})
        assert not isinstance(result, list)
        return result.get_as_arrow()

    def _meta(self, key: str) -> str | None:
        rows = self._rows("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})
        return rows[0][0] if rows else None

    def _set_meta(self, key: str, value: str) -> None:
        self._rows("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value})

    def _count(self, query: str) -> int:
        return int(self._rows(query, scan=True)[0][0])

    # -- metadata -------------------------------------------------------------------
    def cvt_types(self) -> frozenset[str]:
        return frozenset(json.loads(self._meta("cvt_types") or "[]"))

    def stats(self) -> StoreStats:
        entity_facts = self._count("MATCH (:Entity)-[f:Fact]->(:Entity) RETURN count(f)")
        literal_facts = self._count("MATCH (:Entity)-[f:Fact]->(:Literal) RETURN count(f)")
        return StoreStats(
            backend=self.backend,
            location=self.location,
            schema_version=int(self._meta("schema_version") or SCHEMA_VERSION),
            entities=self._count("MATCH (e:Entity) RETURN count(e)"),
            cvt_entities=self._count("MATCH (e:Entity) WHERE e.is_cvt RETURN count(e)"),
            literals=self._count("MATCH (l:Literal) RETURN count(l)"),
            facts=entity_facts + literal_facts,
            entity_facts=entity_facts,
            literal_facts=literal_facts,
            predicates=self._count("MATCH (p:Predicate) RETURN count(p)"),
            sources=self.sources(),
        )

    def sources(self) -> list[SourceRecord]:
        rows = self._rows(
            "MATCH (s:Source) RETURN s.file, s.checksum, s.format, s.counts, s.loaded_at, "
            "s.status ORDER BY s.loaded_at, s.file"
        )
        return [SourceRecord(r[0], r[1], r[2], json.loads(r[3] or "{}"), r[4], r[5])
                for r in rows]

    def record_source(self, source: SourceRecord) -> None:
        self._rows(
            "MERGE (s:Source {id: $id}) SET s.file = $file, s.checksum = $checksum, "
            "s.format = $format, s.counts = $counts, s.loaded_at = $loaded_at, "
            "s.status = $status",
            {
                "id": f"{source.file}#{source.checksum}", "file": source.file,
                "checksum": source.checksum, "format": source.format,
                "counts": json.dumps(source.counts, sort_keys=True),
                "loaded_at": source.loaded_at, "status": source.status,
            },
        )

    # -- entity lookups -------------------------------------------------------------
    def entity(self, id: str) -> Entity | None:
        return self.entities([id]).get(id)

    def entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        # `UNWIND $ids AS i MATCH (e:Entity {id: i})` is one primary-key lookup per id
        # in a single query (50 ids: 0.7 ms, against 5 ms for 50 separate lookups);
        # `e.id IN $ids` would scan the whole table. One id keeps the plain lookup,
        # which has no UNWIND overhead. A read-only store keeps the records it read (and
        # the ids it did not find): the same hubs and answers come back question after
        # question. Callers get copies.
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Entity | None] = {}
        missing = []
        for id in wanted:
            kept = self._entity_cache.get(id) if self.read_only else None
            if kept is None:
                missing.append(id)
            else:
                found[id] = kept[0]
        if len(missing) == 1:
            rows = self._rows(f"MATCH (e:Entity {{id: $id}}) RETURN {_ENTITY_COLS}",
                              {"id": missing[0]})
        else:
            rows = [r for start in range(0, len(missing), _BATCH) for r in self._rows(
                f"UNWIND $ids AS i MATCH (e:Entity {{id: i}}) RETURN {_ENTITY_COLS}",
                {"ids": missing[start:start + _BATCH]})]
        read = {r[0]: _entity_from_row(r) for r in rows}
        for id in missing:
            found[id] = read.get(id)
            if self.read_only:
                self._entity_cache.put(id, (found[id],), 1)
        return {id: dataclasses.replace(e) for id in wanted if (e := found[id]) is not None}

    def find_by_name(self, name: str, *, limit: int = 50) -> list[Entity]:
        # Ids come back unsorted and are sorted here: an ORDER BY in the query costs
        # ~1 ms, four times the lookup itself. The cap bounds pathological names.
        rows = self._rows(
            f"MATCH (n:Name {{key: $k}})-[:NAMES]->(e:Entity) RETURN {_ENTITY_COLS} "
            f"{_limit(_NAME_MATCH_CAP)}",
            {"k": normalize_name(name)},
        )
        rows.sort(key=lambda r: r[0])
        return [_entity_from_row(r) for r in rows[:limit]]

    def search_prefix(self, prefix: str, *, limit: int = 20) -> list[Entity]:
        key = normalize_name(prefix)
        if not key:
            return []
        rows = self._rows(
            f"MATCH (n:Name)-[:NAMES]->(e:Entity) WHERE starts_with(n.key, $k) "
            f"AND NOT e.is_cvt AND e.name IS NOT NULL WITH DISTINCT e RETURN {_ENTITY_COLS} "
            f"ORDER BY size(e.name), e.name, e.id {_limit(limit)}",
            {"k": key},
        )
        return [_entity_from_row(r) for r in rows]

    def predicates(self, *, limit: int | None = None) -> list[Predicate]:
        query = "MATCH (p:Predicate) RETURN p.id, p.label, p.count ORDER BY p.count DESC, p.id"
        params: dict[str, Any] = {}
        if limit is not None:
            query += " " + _limit(limit)
        return [Predicate(r[0], r[1], int(r[2] or 0)) for r in self._rows(query, params)]

    def predicate_ends(self) -> dict[str, tuple[int, int, int, int]]:
        # Two grouped scans of the fact table (3.9 s each on 5M facts), instead of one
        # filtered scan per predicate (0.47 s each, 300 predicates).
        ends: dict[str, list[int]] = {}
        for column, target, at in (("s.id", "(o)", 0), ("o.id", "(o:Entity)", 2)):
            rows = self._rows(
                f"MATCH (s:Entity)-[f:Fact]->{target} WITH f.predicate AS p, {column} AS e, "
                "count(*) AS c RETURN p, count(*) AS n_ends, "
                "sum(CASE WHEN c = 1 THEN 1 ELSE 0 END) AS n_single", {}, scan=True)
            for p, n, single in rows:
                row = ends.setdefault(str(p), [0, 0, 0, 0])
                row[at], row[at + 1] = int(n), int(single)
        return {p: (a, b, c, d) for p, (a, b, c, d) in ends.items()}

    def type_counts(self) -> dict[str, int]:
        rows = self._rows("MATCH (e:Entity) UNWIND e.types AS t RETURN t, count(*)", {})
        return {str(t): int(n) for t, n in rows}

    # -- facts ----------------------------------------------------------------------
    # Each direction/target table is its own labelled query: LadybugDB answers a
    # labelled one-table expansion in ~0.15 ms, while one query over the Entity|Literal
    # union (or a UNION ALL of the parts) costs 3-6x more.
    def _expand(self, id: str, kind: str, predicate: str | None, limit: int, *,
                remainder: bool = False) -> list[list[Any]]:
        """Rows ``[predicate, *columns]`` of one expansion of entity ``id`` (at most
        ``limit``): ``kind`` is a key of ``_EXPANSIONS`` ("out"/"in" for neighbour ids,
        "-full"/"-lean" for their records, "literal" for literal objects).

        ``remainder`` marks a limit computed from an earlier read (what is left of a
        window): it is rounded up (:func:`_bucket`) in the query text and the rows are
        cut here, since every distinct text is prepared once (~1.5 ms) and the statement
        cache would fill with one text per possible remainder. A LIMIT takes a prefix of
        the same scan, so the cut rows are the ones the exact limit gives.

        A read-only store keeps the rows of single-predicate expansions: a complete
        read answers every later limit, a cut one every limit up to its length."""
        key = (id, kind, predicate)
        cache = self.read_only and predicate is not None
        if cache:
            kept = self._expansion_cache.get(key)
            if kept is not None and (kept[1] or len(kept[0]) >= limit):
                return kept[0][:limit]
        pattern, columns = _EXPANSIONS[kind]
        cap = _bucket(limit) if remainder else limit
        if predicate is not None and kind.startswith("in") and id in self._hub_ids():
            # The same rows, in the same order, as the scan below, from the hub index.
            rows = self._rows(
                f"MATCH (k:InSlot {{key: $k}})-[:IN_SLOT]->(e:Entity) "
                f"RETURN k.predicate, {columns} {_limit(cap)}",
                {"k": f"{id}{SLOT_SEPARATOR}{predicate}"},
            )
        else:
            where, params = "", {"id": id}
            if predicate is not None:
                where, params["p"] = "WHERE f.predicate = $p ", predicate
            rows = self._rows(
                f"MATCH (c:Entity {{id: $id}}){pattern} {where}"
                f"RETURN f.predicate, {columns} {_limit(cap)}",
                params,
            )
        if cache:
            self._expansion_cache.put(key, (rows, len(rows) < cap), len(rows) + 1)
            return rows[:limit]   # a copy: the kept list stays as read
        return rows[:limit] if len(rows) > limit else rows

    def _hub_ids(self) -> frozenset[str]:
        """The entities whose incoming facts the hub index holds (none in a store
        written before the index existed, until its next import)."""
        if self._hubs is None:
            tables = {r[0] for r in self._rows("CALL show_tables() RETURN name")}
            self._hubs = frozenset(
                r[0] for r in self._rows("MATCH (h:Hub) RETURN h.id")) if "Hub" in tables \
                else frozenset()
        return self._hubs

    def _out_literal_facts(self, id: str, predicate: str | None, limit: int) -> list[Fact]:
        return [Fact(id, r[0], Literal(r[1], r[2], r[3]))
                for r in self._expand(id, "literal", predicate, limit, remainder=True)]

    def facts_out(self, id: str, *, predicate: str | None = None, limit: int = 100) -> list[Fact]:
        facts = [Fact(id, r[0], r[1]) for r in self._expand(id, "out", predicate, limit)]
        if len(facts) < limit:
            facts += self._out_literal_facts(id, predicate, limit - len(facts))
        return facts

    def facts_in(self, id: str, *, predicate: str | None = None, limit: int = 100) -> list[Fact]:
        return [Fact(r[1], r[0], id) for r in self._expand(id, "in", predicate, limit)]

    def facts_many(self, ids: Sequence[str], *, predicate: str, outgoing: bool, limit: int,
                   literals: bool = True) -> tuple[dict[str, list[Fact]], bool]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, list[Fact]] = {id: [] for id in wanted}
        kinds = ("out", "literal") if outgoing and literals else ("out",) if outgoing else ("in",)
        left = limit
        for kind in kinds:
            # Few ids, or ids whose facts are kept: one plain expansion each.
            batch = []
            for id in wanted:
                kept = self._expansion_cache.get((id, kind, predicate)) if self.read_only else None
                # A hub's facts come from the hub index, one read each (a batch
                # query would scan the hub's incoming facts).
                if len(wanted) >= _MANY_MIN and (kept is None or not kept[1]) \
                        and not (kind == "in" and id in self._hub_ids()):
                    batch.append(id)
                    continue
                rows = self._expand(id, kind, predicate, left + 1, remainder=True)
                found[id] += [_expansion_fact(kind, id, predicate, r[1:]) for r in rows]
                left -= len(rows)
                if left < 0:
                    return found, True
            for start in range(0, len(batch), _BATCH):
                chunk = batch[start:start + _BATCH]
                # Room for one null row per id, rounded up so that few distinct query
                # texts get prepared: `left` facts or fewer means every fact came back.
                rows = self._expand_many(chunk, kind, predicate, _bucket(left + len(chunk) + 1))
                read: dict[str, list[list[Any]]] = {id: [] for id in chunk}
                for r in rows:
                    if r[1] is not None:   # OPTIONAL MATCH: nulls for an id without facts
                        read[r[0]].append([predicate, *r[1:]])
                        left -= 1
                if left < 0:
                    for id, got in read.items():
                        found[id] += [_expansion_fact(kind, id, predicate, r[1:]) for r in got]
                    return found, True
                for id, got in read.items():
                    found[id] += [_expansion_fact(kind, id, predicate, r[1:]) for r in got]
                    if self.read_only:   # complete: it answers later reads of this id
                        self._expansion_cache.put((id, kind, predicate), (got, True),
                                                  len(got) + 1)
        return found, False

    def _expand_many(self, ids: list[str], kind: str, predicate: str, cap: int) -> list[list[Any]]:
        """Rows ``[id, *columns]`` of one expansion of every entity in ``ids`` over
        ``predicate`` (``kind`` "out", "in" or "literal", as in :meth:`_expand`); an id
        without such facts gives one row of nulls. At most ``cap`` rows."""
        pattern, columns = _EXPANSIONS[kind]
        # UNWIND + a primary-key MATCH + OPTIONAL MATCH is a batch of index lookups;
        # an UNWIND straight into the two-node pattern, a MATCH ... MATCH or an
        # `IN $ids` filter all make LadybugDB 0.22 scan every edge (0.5 s on 1M facts).
        return self._rows(
            f"UNWIND $ids AS i MATCH (c:Entity {{id: i}}) OPTIONAL MATCH (c){pattern} "
            f"WHERE f.predicate = $p RETURN c.id, {columns} {_limit(cap)}",
            {"ids": ids, "p": predicate},
        )

    def linked_entities(self, id: str, predicate: str, *, outgoing: bool,
                        limit: int) -> tuple[list[Entity], bool]:
        # One labelled expansion with lean records (a read-only store keeps it, see
        # _expand); literal objects live in their own table and never come back.
        rows = self._expand(id, "out-lean" if outgoing else "in-lean", predicate, limit + 1)
        return [_entity_from_row(r[1:]) for r in rows[:limit]], len(rows) > limit

    def adjacency(self, id: str, *, limit: int, detail: EntityDetail = "full") -> Adjacency:
        # A read-only store keeps neighbourhoods (least recently used out first): graph
        # walks come back to the same hubs again and again (41% of the reads of the
        # extension benchmark's 300 questions repeat one). A kept read at a richer
        # detail answers a poorer one, and a kept read of a larger window (or of the
        # whole neighbourhood) a smaller one: a window is a prefix of the same scan (see
        # _read_adjacency). Callers get fresh lists and dicts; the Entity records are
        # shared.
        if self.read_only:
            for level in ENTITY_DETAILS[:ENTITY_DETAILS.index(detail) + 1]:
                kept = self._adjacency_cache.get((id, level))
                if kept is not None and (kept[1] >= limit or not kept[0].truncated):
                    return _adjacency_prefix(kept[0], limit)
        result = self._read_adjacency(id, limit, detail)
        if self.read_only:
            kept = self._adjacency_cache.get((id, detail))
            if kept is None or kept[1] < limit:   # a copy: callers' edits stay theirs
                self._adjacency_cache.put((id, detail), (_adjacency_prefix(result, limit), limit),
                                          len(result.facts) + 1)
        return result

    def _read_adjacency(self, id: str, limit: int, detail: EntityDetail) -> Adjacency:
        result = Adjacency()
        for kind, outgoing in ((f"out-{detail}", True), (f"in-{detail}", False)):
            # The facts are cut to `limit` in the order out, in, literal, so each read
            # only needs what is left of limit + 1 (the +1 tells truncation): a hub's
            # incoming facts are not read at all once its outgoing ones fill the window.
            # A LIMIT takes a prefix of the same scan, so the kept facts are the same.
            wanted = limit + 1 - len(result.facts)
            if wanted <= 0:
                break
            for r in self._expand(id, kind, None, wanted, remainder=not outgoing):
                entity = _entity_from_row(r[1:])
                result.entities[entity.id] = entity
                result.facts.append(Fact(id, r[0], entity.id) if outgoing
                                    else Fact(entity.id, r[0], id))
        if len(result.facts) <= limit:
            result.facts += self._out_literal_facts(id, None, limit + 1 - len(result.facts))
        return _adjacency_prefix(result, limit)   # limit + 1 facts tell truncation

    def facts_around(self, id: str, *, limit: int) -> tuple[list[Fact], bool]:
        adjacency = self.adjacency(id, limit=limit)
        return adjacency.facts, adjacency.truncated

    # -- pattern matching -----------------------------------------------------------
    def match(self, query: PatternQuery) -> MatchResult:
        # One-hop expansions joined in Python beat one multi-MATCH query here by 100x
        # on large stores (see kgstore.expansion), and a single pattern read as one
        # expansion beats the compiled query's DISTINCT ... ORDER BY (0.3 against 3 ms
        # on 5M facts); it declines what it cannot do well and the compiled query runs
        # instead.
        result = match_by_expansion(self, query)
        if result is not None:
            return result
        cypher, params, columns = _compile_match(query)
        rows = self._rows(cypher, params, scan=True)
        variables = [v.name for v in query.selected()]
        truncated = query.limit is not None and len(rows) > query.limit
        if truncated:
            rows = rows[: query.limit]
        bindings: list[Binding] = []
        for row in rows:
            binding: Binding = {}
            i = 0
            for name, kind in columns:
                if kind == "object":
                    binding[name] = _object_from_cols(*row[i:i + 5])
                    i += 5
                else:
                    binding[name] = row[i]
                    i += 1
            bindings.append(binding)
        return MatchResult(variables=variables, bindings=bindings, truncated=truncated)

    # -- sampling -------------------------------------------------------------------
    def sample_entities(
        self, k: int, *, seed: int, type_id: str | None = None, named_only: bool = True,
        include_cvt: bool = False,
    ) -> list[Entity]:
        conditions = _sample_conditions(named_only, include_cvt)
        params: dict[str, Any] = {"salt": f":{seed}"}
        if type_id is not None:
            conditions.insert(0, "list_contains(e.types, $t)")
            params["t"] = type_id
        where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
        # A read-only store keeps samples: each scans every entity of the type (0.2 s on
        # 1M entities), and a sample of k is the first k of a longer one.
        key = ("sample", seed, type_id, named_only, include_cvt)
        kept = self._expansion_cache.get(key) if self.read_only else None
        if kept is not None and (kept[1] or len(kept[0]) >= k):
            return [dataclasses.replace(e) for e in kept[0][:k]]
        if self.read_only and type_id is not None:
            prefix = self._type_sample_prefix(seed, type_id, named_only, include_cvt)
            if prefix is not None and len(prefix) >= k:
                records = self.entities(prefix[:k])
                return [records[i] for i in prefix[:k]]
        # Ordering by a salted hash of the id is a seeded shuffle that needs no RNG state
        # in the database and gives the same sample for the same store and seed.
        rows = self._rows(
            f"MATCH (e:Entity) {where} RETURN {_ENTITY_COLS}, md5(concat(e.id, $salt)) AS h "
            f"ORDER BY h {_limit(k)}",
            params, scan=True,
        )
        sample = [_entity_from_row(r) for r in rows]
        if self.read_only:
            self._expansion_cache.put(key, (sample, len(sample) < k), len(sample) + 1)
            return [dataclasses.replace(e) for e in sample]
        return sample

    def _type_sample_prefix(self, seed: int, type_id: str, named_only: bool,
                            include_cvt: bool) -> list[str] | None:
        """The ids that start ``type_id``'s seeded sample (the order of
        :meth:`sample_entities`), from one scan that serves every type; ``None`` until
        a second type is asked for with the same seed and flags.

        A per-type sample scans the whole entity table (0.2 s on 1M entities), and the
        contradictory edit asks for dozens of types. This scan (0.5 s) keeps the
        entities whose salted hash falls below a cut that leaves about
        ``_TYPE_SAMPLE_ENTITIES`` of them, grouped by type in hash order. Every entity
        of a type that comes before the cut is in it, so each group is exactly the first
        entities of that type's sample; a group shorter than a caller's ``k`` sends the
        caller to the per-type scan. The first type asked for takes the per-type scan:
        a run that samples one type never pays for all of them."""
        key = (seed, named_only, include_cvt)
        prefixes: dict[str, list[str]] | None = self._type_prefixes.get(key)
        if prefixes is None:
            seen: set[str] | None = self._sampled_types.get(key)
            if seen is None:
                seen = set()
                self._sampled_types.put(key, seen, 1)
            seen.add(type_id)
            if len(seen) < 2:
                return None
            entities = self._count("MATCH (e:Entity) RETURN count(e)")
            fraction = min(1.0, _TYPE_SAMPLE_ENTITIES / max(entities, 1))
            # md5 is 32 hex digits: comparing with an 8-digit prefix keeps that fraction.
            cut = "g" if fraction >= 1.0 else f"{int(fraction * 16 ** 8):08x}"
            conditions = ["h < $cut", *_sample_conditions(named_only, include_cvt)]
            rows = self._rows(
                "MATCH (e:Entity) WITH e, md5(concat(e.id, $salt)) AS h "
                f"WHERE {' AND '.join(conditions)} "
                "UNWIND e.types AS t RETURN t, e.id, h ORDER BY h",
                {"salt": f":{seed}", "cut": cut}, scan=True,
            )
            prefixes = {}
            for t, id, _ in rows:
                group = prefixes.setdefault(t, [])
                if not group or group[-1] != id:   # a type listed twice on one entity
                    group.append(id)
            self._type_prefixes.put(key, prefixes, 1)
        return prefixes.get(type_id, [])

    def sample_facts(self, k: int, *, seed: int, predicate: str | None = None) -> list[Fact]:
        params: dict[str, Any] = {"salt": f":{seed}"}
        where = ""
        if predicate is not None:
            where = "WHERE f.predicate = $p"
            params["p"] = predicate
        rows = self._rows(
            f"MATCH (s:Entity)-[f:Fact]->(o) {where} "
            f"RETURN s.id, f.predicate, {_OBJECT_COLS}, "
            f"md5(concat(s.id, '|', f.predicate, '|', o.id, $salt)) AS h ORDER BY h {_limit(k)}",
            params, scan=True,
        )
        return [Fact(r[0], r[1], _object_from_cols(*r[2:7])) for r in rows]

    # -- power users ----------------------------------------------------------------
    def cypher(self, query: str, params: dict[str, Any] | None = None, *,
               max_rows: int | None = None, timeout_s: float | None = None) -> CypherResult:
        assert_read_only(query)
        params = parameters_for(query, params)
        if self._conn is None:
            raise StoreError("store is closed")
        # Two layers: the allow-list check above is what stops files, native code and
        # extensions (the engine runs COPY ... TO, LOAD and UNINSTALL inside a read-only
        # transaction); the read-only transaction backs it up for writes to the store.
        # A power user's query may scan whole tables: it gets every thread.
        with self._threads(0):
            self._conn.execute("BEGIN TRANSACTION READ ONLY")
            try:
                if timeout_s is not None:   # applies from the next statement: the query
                    self._conn.set_query_timeout(max(1, round(timeout_s * 1000)))
                result = self._conn.execute(query, params)
                if isinstance(result, list):
                    # Several statements: the check lets one through, so only a gap in it
                    # gets here; say so instead of returning the first result.
                    for part in result:
                        part.close()
                    raise QueryError(f"the query holds {len(result)} statements; the cypher "
                                     "command runs one read-only query at a time")
                columns = result.get_column_names()
                # The engine holds the whole result; Python objects are made only for
                # the rows returned (3M rows made 890 MB of them).
                rows: list[Any] = []
                while (max_rows is None or len(rows) < max_rows) and result.has_next():
                    rows.append(result.get_next())
                truncated = result.has_next()
                result.close()
            except RuntimeError as exc:
                if "read-only" in str(exc).lower():
                    raise ReadOnlyQueryError(
                        "the query tries to modify the store; the cypher command runs read-only "
                        "queries only"
                    ) from None
                if timeout_s is not None and "interrupted" in str(exc).lower():
                    raise QueryTimeoutError(timeout_s) from None
                raise QueryError(str(exc)) from None
            finally:
                if timeout_s is not None:
                    self._conn.set_query_timeout(0)   # none for the store's own queries
                # A failed statement already ended the transaction; only end a live one.
                with contextlib.suppress(RuntimeError):
                    self._conn.execute("ROLLBACK")
        return CypherResult(columns=columns, rows=[_plain(r) for r in rows],
                            truncated=truncated)

    # -- bulk import ----------------------------------------------------------------
    def import_stage(
        self,
        stage_dir: str | Path,
        *,
        nameless_is_cvt: bool = False,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; cannot import")
        manifest = read_manifest(stage_dir)
        # Work folders of imports that were killed; we hold the write lock, so no live
        # import owns them.
        for stale in self.path.glob("merge-*"):
            shutil.rmtree(stale, ignore_errors=True)
        for ddl in HUB_INDEX_DDL:   # a store written before the hub index existed
            self._rows(ddl)
        try:
            with tempfile.TemporaryDirectory(prefix="merge-", dir=self.path) as work:
                merger = _StageMerger(self, Path(stage_dir), Path(work), manifest, progress)
                try:
                    return merger.run(nameless_is_cvt=nameless_is_cvt)
                finally:
                    self._hubs = None   # the import may have indexed more hubs
        except Exception as exc:
            # DuckDB's work files (exports, spill) share the store's disk.
            full = disk_full_error(exc, self.path)
            if full is None or full is exc:
                raise
            raise full from exc


def _plain(value: Any) -> Any:
    """Cypher result values -> JSON-friendly Python (nodes/rels lose internal ids)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in ("_ID", "_SRC", "_DST")}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    return value


# --------------------------------------------------------------------------------------
# Pattern query -> Cypher
# --------------------------------------------------------------------------------------


def _compile_match(query: PatternQuery) -> tuple[str, dict[str, Any], list[tuple[str, str]]]:
    """Compile a :class:`PatternQuery` into one parameterized Cypher query.

    Returns (cypher, params, columns) where columns lists (variable, kind) in RETURN
    order; kind is "entity" (one column), "object" (five: kind, id, value, datatype,
    lang) or "predicate" (one). One MATCH clause per triple pattern keeps SPARQL's
    semantics (two patterns may match the same edge) on every Cypher engine. Only
    parameters carry values; node/rel variable names are generated here.

    Each MATCH carries its own predicate filter and is followed by ``WITH *``, and the
    patterns are visited in a connected order starting from constants
    (:func:`kgstore.expansion.join_order`). Both matter: LadybugDB 0.22 returns wrong (missing) rows
    when the filters of several MATCH clauses that close a cycle are pooled into one
    WHERE (its multi-way join drops matches; see
    ``tests/kgstore/test_properties.py::test_match_agrees_with_brute_force``).
    """
    params: dict[str, Any] = {}
    node_names: dict[str, str] = {}   # variable name or constant key -> cypher variable
    subject_vars = query.subject_variables()
    entity_object_vars: set[str] = set()
    for c in query.constraints:
        if isinstance(c, HasType | IsCvt) or (isinstance(c, IsEntity) and c.value):
            entity_object_vars.add(c.var.name)
    predicate_of: dict[str, list[str]] = {}  # predicate variable -> rel variables
    clauses: list[str] = []
    where: list[str] = []
    declared: set[str] = set()

    def node(term: Var | str | Literal) -> str:
        if isinstance(term, Var):
            key = "v:" + term.name
            name = node_names.setdefault(key, f"v{len(node_names)}")
            if name in declared:
                return f"({name})"
            declared.add(name)
            if term.name in subject_vars or term.name in entity_object_vars:
                return f"({name}:Entity)"
            return f"({name})"
        key = ("l:" + term.key) if isinstance(term, Literal) else ("e:" + term)
        name = node_names.setdefault(key, f"c{len(node_names)}")
        if name in declared:
            return f"({name})"
        declared.add(name)
        params[name] = term.key if isinstance(term, Literal) else term
        label = "Literal" if isinstance(term, Literal) else "Entity"
        return f"({name}:{label} {{id: ${name}}})"

    for i in join_order(query.patterns):
        pattern = query.patterns[i]
        rel = f"f{i}"
        s, o = node(pattern.subject), node(pattern.object)
        if isinstance(pattern.predicate, Var):
            predicate_of.setdefault(pattern.predicate.name, []).append(rel)
            clauses.append(f"MATCH {s}-[{rel}:Fact]->{o}")
        else:
            params[f"p{i}"] = pattern.predicate
            clauses.append(f"MATCH {s}-[{rel}:Fact]->{o} WHERE {rel}.predicate = $p{i}")
    for rels in predicate_of.values():
        where.extend(f"{rels[0]}.predicate = {r}.predicate" for r in rels[1:])

    def value_expr(var: Var) -> str:
        if var.name in predicate_of:
            return f"{predicate_of[var.name][0]}.predicate"
        return f"{node_names['v:' + var.name]}.id"

    def const_param(value: str | Literal) -> str:
        name = f"k{len(params)}"
        params[name] = value.key if isinstance(value, Literal) else value
        return f"${name}"

    for c in query.constraints:
        target = value_expr(c.var)
        if isinstance(c, NotEqual):
            other = value_expr(c.value) if isinstance(c.value, Var) else const_param(c.value)
            where.append(f"{target} <> {other}")
        elif isinstance(c, NotIn):
            name = f"k{len(params)}"
            params[name] = [v.key if isinstance(v, Literal) else v for v in c.values]
            where.append(f"NOT {target} IN ${name}")
        elif isinstance(c, HasType):
            name = f"k{len(params)}"
            params[name] = c.type_id
            where.append(f"list_contains({node_names['v:' + c.var.name]}.types, ${name})")
        elif isinstance(c, IsCvt):
            n = node_names["v:" + c.var.name]
            where.append(f"{n}.is_cvt = {'true' if c.value else 'false'}")
        elif isinstance(c, IsEntity):
            n = node_names["v:" + c.var.name]
            where.append(f"label({n}) = '{'Entity' if c.value else 'Literal'}'")

    returns: list[str] = []
    columns: list[tuple[str, str]] = []
    for i, var in enumerate(query.selected()):
        if var.name in predicate_of:
            returns.append(f"{predicate_of[var.name][0]}.predicate AS r{i}")
            columns.append((var.name, "predicate"))
        elif var.name in subject_vars or var.name in entity_object_vars:
            returns.append(f"{node_names['v:' + var.name]}.id AS r{i}")
            columns.append((var.name, "entity"))
        else:
            n = node_names["v:" + var.name]
            returns.extend([f"label({n}) AS r{i}k", f"{n}.id AS r{i}", f"{n}.value AS r{i}v",
                            f"{n}.datatype AS r{i}d", f"{n}.lang AS r{i}l"])
            columns.append((var.name, "object"))
    order = ", ".join(r.rsplit(" AS ", 1)[1] for r in returns)
    cypher = " WITH * ".join(clauses)
    if where:
        cypher += " WITH * WHERE " + " AND ".join(where)
    cypher += f" RETURN DISTINCT {', '.join(returns)} ORDER BY {order}"
    if query.limit is not None:
        cypher += " " + _limit(query.limit + 1)
    return cypher, params, columns


# --------------------------------------------------------------------------------------
# Bulk import: staged Parquet -> merged with the store in DuckDB -> COPY
# --------------------------------------------------------------------------------------

# LadybugDB 0.22 keeps everything one COPY loads in its buffer pool until the COPY
# commits, and a COPY that does not fit fails ("Unable to allocate memory! The buffer
# pool is full") rather than spilling. Measured: a 2 GiB pool takes one COPY of 14M
# facts with 26-character predicates, not of 23M (so up to ~150 bytes a fact: both
# directions keep the rel and a copy of its predicate); a 1 GiB pool takes one COPY of
# 8M 35-character Name keys, not of 10M (~130 bytes a row, mostly the primary-key
# index). Imports therefore COPY in batches that fill at most 2/3 of the pool by these
# estimates (the rest for the index pages a COPY reads). A COPY into a non-empty table
# costs more than one into an empty table, and more the bigger the table (five COPYs of
# 4.7M facts each: 10, 23, 29, 37, 30 s; 4.7M facts in four COPYs: 26-31 s, in one:
# 10-19 s), so batches are as large as the pool allows, and an import that fits stays
# one COPY per table.
_REL_ROW_BYTES = 100  # plus twice the mean length of the rel's property (the predicate)
_NODE_ROW_BYTES = 130
_COPY_POOL_SHARE = 2 / 3
_MIN_COPY_ROWS = 10_000
# Up to this many batches are written by one filtered export each; more by a single
# partitioned pass (7.2M facts in 2 batches: 7.6 s filtered, 14.6 s partitioned).
_FILTERED_BATCHES = 4
# DuckDB's memory during an import: it runs beside LadybugDB's buffer pool (2 GiB by
# default), so the two stay within about 3 GiB; past it, DuckDB spills to the import's
# work folder (20M-line stage, 300 MB limit vs 2 GB: fact dedupe 13% and entity
# aggregation 27% slower).
_IMPORT_DUCKDB_MEMORY = "1GB"
# NORMALIZE_NAME_SQL without its regular expression where it cannot change anything:
# a name with no run of spaces and none of the other characters RE2's \s matches
# (\t \n \f \r) is only lower-cased, and trimmed when it starts or ends with a space.
# The 1M names and aliases of a 20M-line Freebase stage: 1.5 CPU-s instead of 5.
_NAME_KEY_SQL = (
    "CASE WHEN contains(x, '  ') OR contains(x, chr(9)) OR contains(x, chr(10)) "
    "OR contains(x, chr(12)) OR contains(x, chr(13)) "
    f"THEN {NORMALIZE_NAME_SQL.format(x='x')} "
    "WHEN starts_with(x, ' ') OR ends_with(x, ' ') THEN trim(lower(x), ' ') "
    "ELSE lower(x) END"
)


def _copy_batch_rows(kind: str, property_chars: float = 0.0) -> int:
    """Most rows one COPY (or one batched update) of a ``kind`` table (``"node"`` or
    ``"rel"``, whose property values average ``property_chars`` characters) takes:
    ``$KGBENCH_COPY_BATCH_ROWS`` when set, else what fits in the buffer pool (see
    :data:`_REL_ROW_BYTES`)."""
    forced = os.environ.get("KGBENCH_COPY_BATCH_ROWS")
    if forced:
        return max(int(forced), 1)
    per_row = _NODE_ROW_BYTES if kind == "node" else _REL_ROW_BYTES + 2 * property_chars
    return max(int(_buffer_pool_bytes() * _COPY_POOL_SHARE / per_row), _MIN_COPY_ROWS)


class _StoreWrites:
    """Runs the store writes of an import, in the order they are submitted, in one
    background thread, so LadybugDB's ``COPY`` of one table overlaps DuckDB computing
    the next (LadybugDB releases the GIL while it works). The store connection is only
    used by this thread until :meth:`drain` returns; the first failure is re-raised by
    :meth:`drain` and the writes after it are skipped."""

    def __init__(self, store: LadybugStore) -> None:
        self.store = store
        self._queue: queue.Queue[tuple[str, int] | None] = queue.Queue()
        self._error: BaseException | None = None
        self._cancelled = False
        self._thread = threading.Thread(target=self._run, name="kgbench-import-writes",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (write := self._queue.get()) is not None:
            try:
                if self._error is None and not self._cancelled:
                    query, threads = write
                    with self.store._threads(threads):
                        self.store._rows(query)
            except BaseException as exc:  # handed to drain()
                self._error = exc
            finally:
                self._queue.task_done()
        self._queue.task_done()

    def submit(self, query: str, *, threads: int = 0) -> None:
        """Queue one Cypher write, to run on ``threads`` engine threads (0: all) after
        every write submitted before it."""
        if self._error is not None:
            raise self._error
        self._queue.put((query, threads))

    def drain(self) -> None:
        """Wait until every submitted write ran; raise the first failure."""
        self._queue.join()
        if self._error is not None:
            raise self._error

    def close(self, *, cancel: bool = False) -> None:
        """Stop the thread once the write in flight finished (a write cannot be stopped
        half-way); the queued ones run first unless ``cancel``. Raises nothing."""
        self._cancelled = cancel
        self._queue.put(None)
        self._thread.join()


class _StageMerger:
    """One import of a stage. Each step computes what is missing from the store *now*
    and adds exactly that, which is what makes a re-run after a crash safe.

    Store reads happen on this thread, store writes on :class:`_StoreWrites` in the
    order the steps submit them (a kill leaves a prefix of them, as before). The sizes
    of the store's tables are read once, before any write; a step that needs more of
    the store's contents (a non-empty store) first waits for the writes before it."""

    def __init__(self, store: LadybugStore, stage: Path, work: Path,
                 manifest: dict[str, Any], progress: ProgressCallback | None) -> None:
        self.store = store
        self.stage = stage
        self.work = work
        self.manifest = manifest
        self.progress = progress
        self.report = ImportReport()
        # In memory (spilling to `work` past memory_limit): measured 2.4x faster on the
        # fact dedupe than a database file.
        self.db = duckdb.connect()
        # Paths and settings as parameters: never SQL text (a store path may hold quotes).
        self._sql("SET temp_directory = ?", [str(work / "spill")])
        memory = os.environ.get("KGBENCH_DUCKDB_MEMORY", _IMPORT_DUCKDB_MEMORY)
        self._sql("SET memory_limit = ?", [memory])
        self._sql("SET preserve_insertion_order = false")
        # A SQL macro rather than a Python UDF: 10x faster on millions of names.
        self._sql(f"CREATE MACRO normalize_name(x) AS {_NAME_KEY_SQL}")
        # Which store tables are empty, read once before this import writes anything.
        self.empty = {table: store._count(query) == 0 for table, query in (
            ("Entity", "MATCH (e:Entity) RETURN count(e)"),
            ("Literal", "MATCH (l:Literal) RETURN count(l)"),
            ("Fact", "MATCH ()-[f:Fact]->() RETURN count(f)"),
            ("Name", "MATCH (n:Name) RETURN count(n)"),
            ("Predicate", "MATCH (p:Predicate) RETURN count(p)"))}
        self.writes: _StoreWrites | None = None
        self._step_started = time.perf_counter()
        self._steps = 0

    def _step(self, name: str) -> None:
        now = time.perf_counter()
        self.report.steps[name] = round(now - self._step_started, 3)
        self._step_started = now
        self._steps += 1
        if self.progress:
            self.progress(f"import: {name}", self._steps, len(_IMPORT_STEPS))

    def _sql(self, sql: str, params: list[Any] | dict[str, Any] | None = None
             ) -> list[tuple[Any, ...]]:
        """Run one DuckDB statement to completion (DuckDB 2 refuses new work on a
        connection while a result is pending)."""
        return self.db.execute(sql, params).fetchall()

    def _scalar(self, sql: str, params: list[Any] | None = None) -> int:
        rows = self._sql(sql, params)
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    def _export(self, sql: str, name: str, params: dict[str, Any] | None = None) -> str:
        """Write the rows of ``sql`` to ``<work>/<name>.parquet``; return its path.
        ``params`` are the named parameters of ``sql`` (``$path`` is taken)."""
        path = str(self.work / f"{name}.parquet")
        self._sql(f"COPY ({sql}) TO $path (FORMAT parquet, COMPRESSION uncompressed)",
                  {**(params or {}), "path": path})
        return path

    def _write(self, cypher: str, *, threads: int = 0) -> None:
        """Submit a store write (it runs after the writes submitted before it)."""
        assert self.writes is not None
        self.writes.submit(cypher, threads=threads)

    def _copy(self, table: str, path: str, options: str = "") -> None:
        self._write(f"COPY {table} FROM {cypher_path(path)}{options}")

    def _write_batches(self, sql: str, name: str, rows: int, batch: int, key: str,
                       write: str, order: str = "", threads: int = 0) -> None:
        """Export ``sql`` (``rows`` rows) as Parquet and submit the Cypher ``write`` for
        it, ``{path}`` in it standing for the file (as a Cypher string literal), in
        batches of about ``batch`` rows:
        consecutive ranges of column ``key`` (the rows of one key stay together, so a
        batch exceeds ``batch`` by less than the rows of one key). Facts cut by subject
        ranges made the later COPYs of 4 x 1.2M facts 7 s each; cut by a hash of the
        subject, 8-10 s and growing. Each batch is its own transaction: a kill leaves
        a prefix of them, which a re-run completes. With ``order`` (a list of columns)
        each batch's rows are written in that order; the writes run on ``threads``
        engine threads (0: all)."""
        def submit(literal: str) -> None:
            self._write(write.replace("{path}", literal), threads=threads)

        sort = f" ORDER BY {order}" if order else ""
        if rows <= batch:
            submit(cypher_path(self._export(f"SELECT * FROM ({sql}){sort}", name)))
            return
        # Which batch each key goes to: running row counts over the sorted keys (a
        # sort of the distinct keys, not of the rows).
        self._sql(f"""
            CREATE OR REPLACE TEMP TABLE batch_of AS
            SELECT k, (sum(n) OVER (ORDER BY k) - n) // {int(batch)} AS batch
            FROM (SELECT {key} AS k, count(*) AS n FROM ({sql}) GROUP BY k)
        """)
        firsts = [row[0] for row in self._sql(
            "SELECT min(k) FROM batch_of GROUP BY batch ORDER BY batch")]
        # Each batch is submitted once its file is written, so the store copies it
        # while the next one is exported.
        # DuckDB's partitioned write reads a backslash in its folder as a separator
        # (and writes elsewhere): such a store exports each batch on its own instead.
        if len(firsts) <= _FILTERED_BATCHES or "\\" in str(self.work):
            for i, first in enumerate(firsts):
                upper = f" AND {key} < $next" if i + 1 < len(firsts) else ""
                params = {"first": first, **({"next": firsts[i + 1]} if upper else {})}
                submit(cypher_path(self._export(
                    f"SELECT * FROM ({sql}) WHERE {key} >= $first{upper}{sort}",
                    f"{name}-{i}", params)))
        else:
            parts = self.work / name
            self._sql(f"COPY (SELECT r.*, b.batch FROM ({sql}) r JOIN batch_of b "
                      f"ON r.{key} = b.k) TO $path "
                      "(FORMAT parquet, COMPRESSION uncompressed, PARTITION_BY (batch))",
                      {"path": str(parts)})
            for i in range(len(firsts)):
                part = parts / f"batch={i}"
                if not order:
                    submit(cypher_path(part, "*.parquet"))
                    continue
                # A partitioned write scatters rows over its threads' buffers whatever
                # order they come in: each (small) batch is sorted on its own, and its
                # unsorted files go at once (the work folder holds one extra batch).
                files = [duckdb_read_path(f) for f in sorted(part.glob("*.parquet"))]
                submit(cypher_path(self._export(
                    f"SELECT * FROM read_parquet($files, hive_partitioning = false){sort}",
                    f"{name}-{i}", {"files": files})))
                shutil.rmtree(part)
        self._sql("DROP TABLE batch_of")

    def _copy_batches(self, table: str, sql: str, name: str, rows: int, batch: int,
                      key: str, options: str = "", order: str = "", threads: int = 0) -> None:
        """``COPY table`` from ``sql`` in batches (see :meth:`_write_batches`)."""
        self._write_batches(sql, name, rows, batch, key,
                            f"COPY {table} FROM {{path}}{options}", order, threads)

    def _read_store(self) -> LadybugStore:
        """The store, for reading, once the writes submitted so far have run."""
        if self.writes is not None:
            self.writes.drain()
        return self.store

    def _existing(self, name: str, cypher: str, schema: str) -> None:
        """Materialise a store query as DuckDB table ``name`` (empty when nothing)."""
        arrow = self._read_store()._arrow(cypher)
        if arrow.num_rows:
            self.db.register("_arrow_tmp", arrow)
            self._sql(f"CREATE TABLE {name} AS SELECT * FROM _arrow_tmp")
            self.db.unregister("_arrow_tmp")
        else:
            self._sql(f"CREATE TABLE {name} ({schema})")

    def run(self, *, nameless_is_cvt: bool) -> ImportReport:
        started = time.perf_counter()
        self.writes = _StoreWrites(self.store)
        done = False
        try:
            self._stage_tables()
            self._step("read stage")
            self._merge_entities(nameless_is_cvt)
            self._step("entities")
            self._import_literals()
            self._step("literals")
            self._import_facts()
            self._step("facts")
            self._index_hubs()
            self._step("hubs")
            self._import_names()
            self._step("names")
            self._import_predicates()
            self.writes.drain()  # the step's time includes waiting for the writes
            self._step("predicates")
            done = True
        finally:
            self.writes.close(cancel=not done)  # a failed or interrupted import stops soon
            self.db.close()
        self.report.seconds = round(time.perf_counter() - started, 3)
        return self.report

    def _stage_tables(self) -> None:
        def read(table: str) -> str:
            """A view of the parts of ``table`` the manifest lists (files added to the
            stage's folders later are not read)."""
            name = f"staged_{table}"
            files = staged_parts(self.stage, self.manifest, table)
            if files:
                self.db.read_parquet([duckdb_read_path(f) for f in files]).create_view(name)
            else:  # an empty relation with the layout's columns
                self.db.register(name, SCHEMAS[table].empty_table())
            return name

        self._sql(
            "CREATE TABLE stage_facts AS SELECT DISTINCT subject, predicate, object, object_kind "
            f"FROM {read('facts')}"
        )
        # Facts per object kind and their rows per COPY (which depends on how long the
        # predicates are, see _copy_batch_rows).
        self.fact_kinds: dict[str, tuple[int, int]] = {
            kind: (int(n), _copy_batch_rows("rel", float(chars)))
            for kind, n, chars in self._sql(
                "SELECT object_kind, count(*), avg(length(predicate)) FROM stage_facts "
                "GROUP BY object_kind")}
        self.stage_fact_rows = sum(n for n, _ in self.fact_kinds.values())
        self.report.facts_duplicate = (int(self.manifest["counts"].get("facts", 0))
                                       - self.stage_fact_rows)
        # Scalars, aliases and types are aggregated separately and joined: a list of
        # lists per id (most rows carry one alias or type, or none) cost 30% more CPU
        # (20M-line Freebase stage: 9.7 s vs 6.9 s); the result is the same.
        self._sql(f"""
            CREATE TABLE stage_entities AS
            WITH rows AS (SELECT * FROM {read('entities')}),
            scalars AS (
                SELECT id, arg_min(name, seq) FILTER (WHERE name IS NOT NULL) AS name,
                       bool_or(is_cvt) AS is_cvt,
                       arg_min(description, seq) FILTER (WHERE description IS NOT NULL)
                           AS description
                FROM rows GROUP BY id),
            aliases AS (
                SELECT id, list(a ORDER BY a) AS aliases FROM (
                    SELECT DISTINCT id, unnest(aliases) AS a FROM rows WHERE len(aliases) > 0)
                WHERE a IS NOT NULL GROUP BY id),
            types AS (
                SELECT id, list(t ORDER BY t) AS types FROM (
                    SELECT DISTINCT id, unnest(types) AS t FROM rows WHERE len(types) > 0)
                WHERE t IS NOT NULL GROUP BY id)
            SELECT s.id, s.name, coalesce(a.aliases, []) AS aliases,
                   coalesce(t.types, []) AS types, s.is_cvt, s.description,
                   false AS placeholder
            FROM scalars s LEFT JOIN aliases a USING (id) LEFT JOIN types t USING (id)
        """)
        # Endpoints of facts that no entity row describes become placeholder entities.
        self._sql(
            "INSERT INTO stage_entities SELECT id, NULL, [], [], NULL, NULL, true FROM ("
            "SELECT subject AS id FROM stage_facts UNION "
            "SELECT object FROM stage_facts WHERE object_kind = 'E') "
            "WHERE id NOT IN (SELECT id FROM stage_entities)"
        )
        self._sql(
            "CREATE TABLE stage_literals AS SELECT DISTINCT ON (id) id, value, datatype, lang "
            f"FROM {read('literals')}"
        )
        self._sql(
            "CREATE TABLE stage_predicates AS SELECT id, max(label) AS label FROM ("
            "SELECT DISTINCT predicate AS id, NULL::VARCHAR AS label FROM stage_facts UNION ALL "
            f"SELECT id, label FROM {read('predicates')}"
            ") GROUP BY id"
        )
        known = json.loads(self.store._meta("cvt_types") or "[]")
        new = [r[0] for r in self._sql(f"SELECT DISTINCT type FROM {read('cvt_types')}")]
        self.cvt_types = sorted(set(known) | set(new))
        if self.cvt_types != sorted(known):
            # Directly: no write is queued yet.
            self.store._set_meta("cvt_types", json.dumps(self.cvt_types))

    def _merge_entities(self, nameless_is_cvt: bool) -> None:
        if self.empty["Entity"]:
            self._sql("CREATE TABLE old_entities (id VARCHAR, name VARCHAR, aliases VARCHAR[], "
                       "types VARCHAR[], is_cvt BOOLEAN, description VARCHAR)")
        else:
            self._existing(
                "old_entities",
                "MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.aliases AS aliases, "
                "e.types AS types, e.is_cvt AS is_cvt, e.description AS description",
                "",
            )
        self._sql("CREATE TEMP TABLE cvt_types AS SELECT unnest(?::VARCHAR[]) AS type",
                   [self.cvt_types])
        subject_rule = (
            "OR (m.name IS NULL AND m.id IN (SELECT subject FROM stage_facts))"
            if nameless_is_cvt else ""
        )
        # Merge rule: new non-null scalar wins; lists are unioned; CVT if either side or
        # a mediator type or (optionally) the nameless-subject rule says so. Into an
        # empty store the stage's rows are the result (their lists are already sorted
        # and distinct): no join and no list merging (1.5-2.2 s of a 20M-line import).
        if self.empty["Entity"]:
            m = ("SELECT s.id, s.name, s.aliases, s.types, coalesce(s.is_cvt, false) AS is_cvt, "
                 "s.description, false AS existed, s.placeholder, NULL::VARCHAR AS o_name, "
                 "NULL::VARCHAR[] AS o_aliases, NULL::VARCHAR[] AS o_types, "
                 "NULL::BOOLEAN AS o_is_cvt, NULL::VARCHAR AS o_description "
                 "FROM stage_entities s")
        else:
            # A replaced name stays as an alias: a second names file (FB15k-237's
            # mid2name after entity2text) must not make the first one's names unfindable.
            m = """
                SELECT s.id,
                       coalesce(s.name, o.name) AS name,
                       list_sort(list_distinct(list_concat(coalesce(o.aliases, []), s.aliases,
                           CASE WHEN s.name <> o.name THEN [o.name] ELSE [] END))) AS aliases,
                       list_sort(list_distinct(list_concat(coalesce(o.types, []), s.types))) AS types,
                       coalesce(s.is_cvt, false) OR coalesce(o.is_cvt, false) AS is_cvt,
                       coalesce(s.description, o.description) AS description,
                       o.id IS NOT NULL AS existed, s.placeholder,
                       o.name AS o_name, o.aliases AS o_aliases, o.types AS o_types,
                       o.is_cvt AS o_is_cvt, o.description AS o_description
                FROM stage_entities s LEFT JOIN old_entities o ON s.id = o.id"""
        self._sql(f"""
            CREATE TABLE merged AS
            WITH m AS ({m})
            SELECT m.id, m.name, m.aliases, m.types,
                   m.is_cvt OR list_has_any(m.types, (SELECT coalesce(list(type), []) FROM cvt_types))
                   {subject_rule} AS is_cvt,
                   m.description, m.existed, m.placeholder,
                   m.existed AND (m.name IS DISTINCT FROM m.o_name
                       OR m.aliases IS DISTINCT FROM list_sort(coalesce(m.o_aliases, []))
                       OR m.types IS DISTINCT FROM list_sort(coalesce(m.o_types, []))
                       OR m.description IS DISTINCT FROM m.o_description) AS changed,
                   m.o_is_cvt, m.existed AND m.name <> m.o_name AS renamed
            FROM m
        """)
        self._sql("UPDATE merged SET changed = true WHERE existed AND is_cvt IS DISTINCT FROM o_is_cvt")
        cols = "id, name, aliases, types, is_cvt, description"
        self.report.entities_new = self._scalar("SELECT count(*) FROM merged WHERE NOT existed")
        self.report.entities_placeholder = self._scalar(
            "SELECT count(*) FROM merged WHERE NOT existed AND placeholder")
        self.report.entities_updated = self._scalar("SELECT count(*) FROM merged WHERE changed")
        self.report.names_replaced = self._scalar(
            "SELECT count(*) FROM merged WHERE renamed")
        self._sql("DROP TABLE stage_entities")
        self._sql("DROP TABLE old_entities")
        if self.report.entities_new:
            # Stored in id order, always: a store then reads the same windows of a
            # neighbourhood (LIMIT n, a prefix of the order it keeps a node's facts
            # in, which follows their other ends' node offsets) however often, and on
            # whichever machine, the same files are loaded, so a seeded benchmark is
            # the same too. The facts' own order matters most (see _import_facts);
            # ordering nodes as well costs 0.3 s of a 5M-line load and keeps offsets
            # from depending on the order a parallel DISTINCT hands rows over.
            # Facts copied in batches are also cut into ranges of their subjects'
            # ids: a batch then touches the node groups of a range of subjects only.
            self._copy_batches("Entity", f"SELECT {cols} FROM merged WHERE NOT existed",
                               "new_entities", self.report.entities_new,
                               _copy_batch_rows("node"), "id", order="id")
        if self.report.entities_updated:
            self._write_batches(
                f"SELECT {cols} FROM merged WHERE changed", "upd_entities",
                self.report.entities_updated, _copy_batch_rows("node"), "id",
                "LOAD FROM {path} MATCH (e:Entity {id: id}) SET e.name = name, "
                "e.aliases = aliases, e.types = types, e.is_cvt = is_cvt, "
                "e.description = description")

    def _import_literals(self) -> None:
        if self.empty["Literal"]:
            self._sql("CREATE TABLE new_literals AS SELECT * FROM stage_literals")
        else:
            self._existing("old_literals", "MATCH (l:Literal) RETURN l.id AS id", "id VARCHAR")
            self._sql("CREATE TABLE new_literals AS SELECT * FROM stage_literals "
                       "WHERE id NOT IN (SELECT id FROM old_literals)")
        self.report.literals_new = self._scalar("SELECT count(*) FROM new_literals")
        if not self.report.literals_new:
            return
        numeric = ", ".join(f"'{d}'" for d in _NUMERIC_DT)
        dates = ", ".join(f"'{d}'" for d in _DATE_DT)
        self._copy_batches(
            "Literal",
            "SELECT id, value, datatype, lang, "
            f"CASE WHEN datatype IN ({numeric}) THEN TRY_CAST(value AS DOUBLE) END AS num, "
            f"CASE WHEN datatype IN ({dates}) THEN COALESCE(TRY_CAST(left(value, 10) AS DATE), "
            "TRY_CAST(left(value, 4) || '-01-01' AS DATE)) END AS date FROM new_literals",
            "new_literals", self.report.literals_new, _copy_batch_rows("node"), "id",
            order="id")
        self._sql("DROP TABLE stage_literals")
        self._sql("DROP TABLE new_literals")

    def _import_facts(self) -> None:
        if self.empty["Fact"]:
            self._sql("CREATE VIEW new_facts AS SELECT * FROM stage_facts")
        else:
            # Only subjects that existed before can already have these facts.
            subjects = self._export(
                "SELECT DISTINCT subject AS sid FROM stage_facts "
                "WHERE subject IN (SELECT id FROM merged WHERE existed)", "old_subjects")
            self._existing(
                "old_facts",
                f"LOAD FROM {cypher_path(subjects)} MATCH (s:Entity {{id: sid}})-[f:Fact]->(o) "
                "RETURN s.id AS subject, f.predicate AS predicate, o.id AS object",
                "subject VARCHAR, predicate VARCHAR, object VARCHAR",
            )
            self._sql("CREATE VIEW new_facts AS SELECT f.* FROM stage_facts f ANTI JOIN "
                       "old_facts o USING (subject, predicate, object)")
        new_count = self._scalar("SELECT count(*) FROM new_facts")
        self.report.facts_duplicate += self.stage_fact_rows - new_count
        self.report.facts_new = new_count
        if self.empty["Fact"]:
            # The store's facts will be exactly these: count them here rather than
            # scanning every stored fact afterwards (see _import_predicates).
            self._sql("CREATE TABLE fact_counts AS SELECT predicate AS id, count(*) AS n "
                      "FROM new_facts GROUP BY predicate")
        for kind, target in (("E", "Entity"), ("L", "Literal")):
            n = self._scalar(f"SELECT count(*) FROM new_facts WHERE object_kind = '{kind}'")
            if n:
                self._copy_batches(
                    "Fact", 'SELECT subject AS "from", object AS "to", predicate FROM new_facts '
                    f"WHERE object_kind = '{kind}'", f"facts_{kind}", n,
                    self.fact_kinds[kind][1], '"from"', f" (from='Entity', to='{target}')",
                    # Sorted, and copied on one thread: otherwise DuckDB's export and
                    # LadybugDB's parallel COPY hand a node's facts over in another
                    # order every load (tests/kgstore: same_windows). Cost, runs
                    # interleaved on a 2-core VM: 5M-line Freebase import 7.0-7.9 s ->
                    # 7.8-9.8 s (3 each); 20M-line import, median of 4, 44.1 -> 48.8 s.
                    order='"from", predicate, "to"', threads=1)

    def _index_hubs(self) -> None:
        """Bring the hub index (:data:`HUB_INDEX_DDL`) up to date with this stage's facts.

        Into an empty store, the hubs are the objects of at least
        :func:`hub_min_in_degree` of the new facts, indexed from the stage. Otherwise
        every hub among this stage's objects (by its in-degree in the store, now) is
        indexed anew from the store: its `Hub` row goes first and comes back last, so
        a kill in between leaves it unindexed (read by scans, which are always right)
        until a re-run, which indexes it again. Slots list subjects in id order: the
        order of a scan in a store loaded by one import (its facts are copied by
        subject); after a merge, a scan lists the older facts first."""
        minimum = hub_min_in_degree()
        entity_facts = "SELECT subject, predicate, object FROM stage_facts WHERE object_kind = 'E'"
        merging = not self.empty["Fact"]
        if merging:
            objects = self._export(f"SELECT DISTINCT object AS oid FROM ({entity_facts})",
                                   "fact_objects")
            self._existing("hub_degrees",
                           f"LOAD FROM {cypher_path(objects)} MATCH (o:Entity {{id: oid}})"
                           "<-[f:Fact]-(:Entity) RETURN oid AS id, count(*) AS n",
                           "id VARCHAR, n BIGINT")
            self._sql(f"CREATE TABLE hubs AS SELECT id FROM hub_degrees WHERE n >= {minimum}")
            hubs = self._export("SELECT id AS hid FROM hubs", "hubs")
            self._existing("hub_facts",
                           f"LOAD FROM {cypher_path(hubs)} MATCH (o:Entity {{id: hid}})"
                           "<-[f:Fact]-(s:Entity) RETURN o.id AS hub, "
                           "f.predicate AS predicate, s.id AS subject",
                           "hub VARCHAR, predicate VARCHAR, subject VARCHAR")
        else:
            self._sql(f"""
                CREATE TABLE hub_facts AS
                WITH facts AS ({entity_facts})
                SELECT object AS hub, predicate, subject FROM facts WHERE object IN (
                    SELECT object FROM facts GROUP BY object HAVING count(*) >= {minimum})
            """)
            hubs = self._export("SELECT DISTINCT hub AS hid FROM hub_facts", "hubs")
        # Written out: the stage's facts are not needed again (memory for what follows).
        self._sql("DROP VIEW new_facts")
        self._sql("DROP TABLE stage_facts")
        links = self._scalar("SELECT count(*) FROM hub_facts")
        if not links:
            return
        key = f"hub || '{SLOT_SEPARATOR}' || predicate"
        slots = self._export(f"SELECT DISTINCT {key} AS key, predicate FROM hub_facts", "slots")
        if merging:
            self._write(f"LOAD FROM {cypher_path(hubs)} MATCH (h:Hub {{id: hid}}) DELETE h")
            self._write(f"LOAD FROM {cypher_path(slots)} MATCH (k:InSlot {{key: key}}) "
                        "DETACH DELETE k")
        self._copy("InSlot", slots)
        self._copy_batches("IN_SLOT", f'SELECT {key} AS "from", subject AS "to" FROM hub_facts',
                           "slot_links", links, _copy_batch_rows("rel"), '"from"',
                           order='"from", "to"', threads=1)
        self._copy("Hub", hubs)
        self._sql("DROP TABLE hub_facts")

    def _import_names(self) -> None:
        self._sql("""
            CREATE TABLE wanted_names AS SELECT DISTINCT key, id FROM (
                SELECT normalize_name(name) AS key, id FROM merged WHERE name IS NOT NULL
                UNION ALL
                SELECT normalize_name(unnest(aliases)) AS key, id FROM merged
            ) WHERE key IS NOT NULL AND key <> ''
        """)
        if self.empty["Name"]:
            self._sql("CREATE TABLE old_name_keys (key VARCHAR)")
            self._sql("CREATE TABLE old_names (key VARCHAR, id VARCHAR)")
        else:
            self._existing("old_name_keys", "MATCH (n:Name) RETURN n.key AS key", "key VARCHAR")
            ids = self._export("SELECT DISTINCT id AS eid FROM merged WHERE existed", "name_ids")
            self._existing(
                "old_names",
                f"LOAD FROM {cypher_path(ids)} MATCH (n:Name)-[:NAMES]->(e:Entity {{id: eid}}) "
                "RETURN n.key AS key, e.id AS id",
                "key VARCHAR, id VARCHAR",
            )
        if self.empty["Name"]:
            # Nothing to subtract (the EXCEPTs took 2.5-3.4 s of a 20M-line import).
            new_keys = "SELECT DISTINCT key FROM wanted_names"
            new_links = "SELECT key, id FROM wanted_names"
            stale = ""
        else:
            new_keys = "SELECT DISTINCT key FROM wanted_names EXCEPT SELECT key FROM old_name_keys"
            new_links = "SELECT key, id FROM wanted_names EXCEPT SELECT key, id FROM old_names"
            # A replaced name must stop finding the entity (aliases are only ever added).
            stale = "SELECT key, id FROM old_names EXCEPT SELECT key, id FROM wanted_names"
        links = self._scalar(f"SELECT count(*) FROM ({new_links})")
        keys = self._scalar(f"SELECT count(*) FROM ({new_keys})")
        if keys:
            # In key order when the links come in batches (see _merge_entities).
            order = " ORDER BY key" if links > _copy_batch_rows("rel") else ""
            self._copy_batches("Name", new_keys + order, "new_names", keys,
                               _copy_batch_rows("node"), "key")
        if links:
            self._copy_batches("NAMES", f'SELECT key AS "from", id AS "to" FROM ({new_links})',
                               "new_name_links", links, _copy_batch_rows("rel"), '"from"')
        stale_links = self._scalar(f"SELECT count(*) FROM ({stale})") if stale else 0
        if stale_links:
            self._write_batches(
                f"SELECT key AS k, id AS eid FROM ({stale})", "stale_names", stale_links,
                _copy_batch_rows("rel"), "k",
                "LOAD FROM {path} MATCH (n:Name {key: k})-[r:NAMES]->(e:Entity {id: eid}) "
                "DELETE r")

    def _import_predicates(self) -> None:
        if self.empty["Predicate"]:
            self._sql("CREATE TABLE old_predicates (id VARCHAR, label VARCHAR)")
        else:
            self._existing("old_predicates",
                           "MATCH (p:Predicate) RETURN p.id AS id, p.label AS label",
                           "id VARCHAR, label VARCHAR")
        self._sql("CREATE TABLE new_predicates AS SELECT s.id, s.label, 0::BIGINT AS count "
                   "FROM stage_predicates s ANTI JOIN old_predicates o USING (id)")
        self.report.predicates_new = self._scalar("SELECT count(*) FROM new_predicates")
        if self.report.predicates_new:
            self._copy("Predicate", self._export("SELECT * FROM new_predicates", "new_predicates"))
        relabel = self._export(
            "SELECT s.id, s.label FROM stage_predicates s JOIN old_predicates o USING (id) "
            "WHERE s.label IS NOT NULL AND s.label IS DISTINCT FROM o.label", "relabel")
        if self._scalar("SELECT count(*) FROM read_parquet(?)", [duckdb_read_path(relabel)]):
            self._write(f"LOAD FROM {cypher_path(relabel)} MATCH (p:Predicate {{id: id}}) "
                        "SET p.label = label")
        # Counts are recomputed from the facts themselves, so they are right even after
        # an interrupted import that stored facts but not counts (into a store that had
        # no facts, _import_facts counted the facts it stored).
        if not self.empty["Fact"]:
            self._existing("fact_counts",
                           "MATCH ()-[f:Fact]->() RETURN f.predicate AS id, count(*) AS n",
                           "id VARCHAR, n BIGINT")
        counts = self._export("SELECT id, n FROM fact_counts", "predicate_counts")
        self._write(f"LOAD FROM {cypher_path(counts)} MATCH (p:Predicate {{id: id}}) "
                    "SET p.count = n")


_IMPORT_STEPS = ("read stage", "entities", "literals", "facts", "hubs", "names", "predicates")


def remove_store(path: str | Path) -> None:
    """Delete a store directory (used by ``--force`` rebuilds); refuses non-stores."""
    p = local_store_path(path)
    if not has_marker(p, MARKER):
        raise StoreError(f"{p} is not a kgbench store; refusing to delete it")
    try:
        shutil.rmtree(p)
    except PermissionError:
        raise permission_denied(p, "remove") from None
