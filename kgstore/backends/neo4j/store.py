"""The Neo4j backend: a store is one database on a Neo4j 5 server, reached over Bolt.

Every method is one explicit transaction (``execute_read`` / ``execute_write``, with
the driver's managed retries) of parameterized queries, since each transaction costs
network round trips (about 1 ms on loopback against 0.1 ms for an embedded lookup);
the reads that one method needs go as one statement (:func:`~kgstore.backends.neo4j.queries.together`),
and inside :meth:`Neo4jStore.read_transaction` a read-only store's reads share one
transaction (:mod:`~kgstore.backends.neo4j.shared_reads`: the extension engine holds one
per question, and consecutive questions share it). The batched primitives (:meth:`Neo4jStore.entities`,
:meth:`Neo4jStore.facts_many`) are one query per batch.

**Order.** Neo4j returns a node's relationships in no defined order, while the embedded
store returns them in the order its import wrote them. Seeded generation must give the
same bytes on both backends, so every read here orders explicitly, in the embedded
store's order: a node's outgoing facts by (predicate, object id), entity objects before
literals; its incoming facts by (subject id, predicate); windows (``LIMIT``) are
prefixes of those orders. Samples are ordered by the same salted md5 of the id as on
the embedded store, computed in Python (:mod:`~kgstore.backends.neo4j.sampling`;
Cypher has no hash function).

A store opened read-only keeps what it reads (:mod:`kgstore.readcache`), as the
embedded store does: nothing it reads can change while generation runs read-only, by
contract with the user (a shared Neo4j written to during a run is not detected).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import neo4j

from kgstore.backends.neo4j import queries as q
from kgstore.backends.neo4j import sampling as neo4j_sampling
from kgstore.backends.neo4j.connection import (
    Neo4jLocation,
    connect,
    parse_location,
    translated_errors,
)
from kgstore.backends.neo4j.read_ahead import AHEAD_DETAIL, READ_AHEAD_FACTS, read_around
from kgstore.backends.neo4j.rows import predicate_from_row, row_at_detail
from kgstore.backends.neo4j.schema import CONSTRAINTS, INDEXES, LABELS
from kgstore.backends.neo4j.search import SEARCH_KEYS_META, complete_search_keys
from kgstore.backends.neo4j.search import ready as search_ready
from kgstore.backends.neo4j.search import search as search_entities
from kgstore.backends.neo4j.shared_reads import ReadCounts, SharedReads
from kgstore.backends.neo4j.user_query import plain_value, unknown_names
from kgstore.backends.neo4j.workdir import staging_folder
from kgstore.cypher import bookkeeping
from kgstore.cypher.guard import assert_read_only
from kgstore.cypher.params import parameters_for
from kgstore.cypher.plan_check import explain_neo4j
from kgstore.cypher.rows import entity_from_row, expansion_fact
from kgstore.cypher.values import link_graph_values
from kgstore.errors import (
    IncompatibleStoreError,
    QueryError,
    ReadOnlyQueryError,
    StoreError,
    StoreNotFoundError,
)
from kgstore.models import (
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
from kgstore.readcache import Lru, adjacency_prefix
from kgstore.search_index import SearchHit
from kgstore.store import SCHEMA_VERSION, CypherResult, ImportReport, ProgressCallback, Store

__all__ = ["READ_AHEAD_FACTS", "Neo4jStore"]

_BATCH = q.IDS_PER_QUERY
# The records of find_by_name lookups read ahead that a read-only store keeps.
_NAME_CACHE_RECORDS = 20_000
# Salted sample orders a read-only store keeps.
_SAMPLE_CACHE_KEYS = 8
_NAME_MATCH_CAP = 100_000
GENERATION_META = "generation"
"""The ``Meta`` row a writer changes after an import or a recorded source
(:meth:`Neo4jStore.generation`)."""
# Meta keys a new store writes before its schema version (which marks it a store).
_META_BEFORE_VERSION = ("created_at", "cvt_types", "backend")


def _schema_version(value: Any) -> int | None:
    """The stored schema version as a number, ``None`` when it is not one."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class Neo4jStore(Store):
    """A store in one database of a Neo4j 5 server."""

    backend = "neo4j"
    dialect = "neo4j"
    sampling: ClassVar[ModuleType] = neo4j_sampling
    round_trip_reads = True

    def __init__(self, location: str, *, create: bool = False, read_only: bool = False,
                 pool_size: int = 4) -> None:
        self._location = parse_location(location)
        self.read_only = read_only
        self.pool_size = max(pool_size, 1)
        """Bolt connections at most (an import's writers share them)."""
        self._driver: neo4j.Driver | None = connect(self._location, pool_size=pool_size)
        self._session: neo4j.Session | None = None
        self.read_counts = ReadCounts()
        """Read transactions, statements and network round trips so far."""
        self._shared = SharedReads(self._new_session, self.read_counts)
        self._open_read_caches()
        self._sample_ids = Lru(_SAMPLE_CACHE_KEYS)
        # find_by_name results read ahead (read_ahead): key -> (entities, all of them)
        self._names = Lru(_NAME_CACHE_RECORDS)
        self._hubs: frozenset[str] | None = None
        self._hub_heads: frozenset[str] = frozenset()   # hubs whose node lists its head
        self._search_ready = False   # every Name has its search key (search.ready)
        try:
            self._open(create)
        except BaseException:
            self.close()
            raise

    def _open(self, create: bool) -> None:
        version = self._read(*q.schema_version())
        if not version:
            if not create:
                raise StoreNotFoundError(
                    f"no kgbench store in {self._location.text}: load data first (`kgbench "
                    f"load triples FILE --store {self._location.text}`) or pass another --store")
            if self.read_only:
                raise StoreNotFoundError(
                    f"no kgbench store in {self._location.text} to open read-only")
            # The Meta nodes written below before the version are this method's own,
            # left by a create that was killed in between: not foreign data.
            foreign = self._read(*q.foreign_node(list(_META_BEFORE_VERSION)))
            if foreign:
                raise StoreError(
                    f"{self._location.text} holds data that is not a kgbench store (nodes "
                    f"labelled {foreign[0][0]}); use an empty database for --store")
            self._ensure_schema()
            now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
            self._write_meta(dict(zip(_META_BEFORE_VERSION, (now, "[]", self.backend),
                                      strict=True)))
            # Every name written from now on gets its search key.
            self._write_meta({SEARCH_KEYS_META: "1"})
            # Last: a database with the version is a store (see store_exists).
            self._write_meta({"schema_version": str(SCHEMA_VERSION)})
            return
        stored = _schema_version(version[0][0])
        if stored is None:
            raise IncompatibleStoreError(
                f"{self._location.text}: the kgbench store's schema version is damaged (not "
                "a number); load the data into another database, or empty this one and "
                "load it again")
        if stored != SCHEMA_VERSION:
            raise IncompatibleStoreError(
                f"{self._location.text} holds a kgbench store of schema version {stored}, "
                f"this kgbench reads version {SCHEMA_VERSION}; load the data into another "
                "database or use the kgbench release that wrote it")
        if not self.read_only:
            # A database loaded by `neo4j-admin database import` has no constraints yet.
            self._ensure_schema()

    def _ensure_schema(self) -> None:
        for ddl in (*CONSTRAINTS, *INDEXES):
            self._autocommit(ddl)
        self._autocommit(*q.await_indexes())

    # -- lifecycle ------------------------------------------------------------------
    @property
    def location(self) -> str:
        return self._location.text

    @property
    def neo4j_location(self) -> Neo4jLocation:
        return self._location

    def staging_dir(self) -> Path:
        return staging_folder(self._location)

    def close(self) -> None:
        self._shared.close()
        if self._session is not None:
            self._session.close()
            self._session = None
        if self._driver is not None:
            self._driver.close()
            self._driver = None
        self._clear_read_caches()
        self._names.clear()

    # -- low-level execution --------------------------------------------------------
    def _sess(self) -> neo4j.Session:
        if self._session is None:
            self._session = self._new_session()
        return self._session

    def _new_session(self) -> neo4j.Session:
        """A session of its own (the store's is for one thread; an import's writers
        each take one)."""
        if self._driver is None:
            raise StoreError("store is closed")
        return self._driver.session(
            database=self._location.database,
            default_access_mode=neo4j.READ_ACCESS if self.read_only else neo4j.WRITE_ACCESS)

    def _read_many(self, queries: Sequence[tuple[str, dict[str, Any]]]
                   ) -> list[list[list[Any]]]:
        """The rows of each query, all in one read transaction: the block's shared one
        inside :meth:`read_transaction` (no deadline), else one of their own."""
        left = self._time_left()
        if self._shared.active and left is None:
            try:
                return self._shared.read(self._run_queries, queries)
            except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError):
                pass   # dropped: read again below, retried and translated
        self.read_counts.add(len(queries), transactions=1, round_trips=1)   # + COMMIT

        def work(tx: neo4j.ManagedTransaction) -> list[list[list[Any]]]:
            return self._run_queries(tx, queries)

        if left is None:
            with translated_errors(self._location):
                return self._sess().execute_read(work)
        # Within a deadline (Store.deadline) the server stops the transaction at it.
        with translated_errors(self._location, timeout_s=self._deadline_s):
            return self._sess().execute_read(neo4j.unit_of_work(timeout=left)(work))

    @staticmethod
    def _run_queries(tx: Any, queries: Sequence[tuple[str, dict[str, Any]]]
                     ) -> list[list[list[Any]]]:
        """The rows of each query, run in ``tx`` one after the other."""
        return [tx.run(q, p).values() for q, p in queries]

    @contextlib.contextmanager
    def read_transaction(self) -> Iterator[None]:
        # A read-only store's reads in the block share one read transaction
        # (kgstore.backends.neo4j.shared_reads); a writable one reads as elsewhere.
        if not self.read_only:
            yield
            return
        self._shared.enter()
        try:
            yield
        finally:
            self._shared.exit()

    def _read_together(self, queries: Sequence[tuple[str, dict[str, Any]]]
                       ) -> list[list[list[Any]]]:
        """:meth:`_read_many` of builders' reads (:func:`~kgstore.backends.neo4j.queries.together`'s
        form) sent as one statement: one network round trip for all of them, and one
        result record (a single read too: each record is a Bolt message the driver
        handles in Python, 10-20 µs apiece, and a hub's slot read returns hundreds)."""
        if not queries:
            return []
        [[row]] = self._read_many([q.together(queries)])
        return [list(rows) for rows in row]

    def _read(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        return self._read_many([(query, params or {})])[0]

    def _write(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """One write transaction (managed: retried on transient errors)."""
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only; cannot write")

        def work(tx: neo4j.ManagedTransaction) -> list[list[Any]]:
            return tx.run(query, params or {}).values()

        with translated_errors(self._location):
            return self._sess().execute_write(work)

    def _autocommit(self, query: str, params: dict[str, Any] | None = None) -> None:
        """Schema commands and ``CALL ... IN TRANSACTIONS``, which Neo4j runs only in
        an implicit transaction."""
        with translated_errors(self._location):
            self._sess().run(query, params or {}).consume()

    def _meta(self, key: str) -> str | None:
        rows = self._read(*bookkeeping.meta(key))
        return rows[0][0] if rows else None

    def _write_meta(self, values: dict[str, str]) -> None:
        self._write(*q.set_meta(values))

    def _meta_many(self, keys: Sequence[str]) -> dict[str, str]:
        return {r[0]: r[1] for r in self._read(*q.metas(list(keys))) if r[1] is not None}

    # -- metadata -------------------------------------------------------------------
    def stats(self) -> StoreStats:
        counts = self._read_many(q.stats())
        facts, literal_facts, entities, cvts, literals, predicates = (
            int(rows[0][0]) for rows in counts[:6])
        return StoreStats(
            backend=self.backend, location=self.location,
            schema_version=int(counts[6][0][0]) if counts[6] else SCHEMA_VERSION,
            entities=entities, cvt_entities=cvts, literals=literals, facts=facts,
            entity_facts=facts - literal_facts, literal_facts=literal_facts,
            predicates=predicates, sources=self.sources())

    def sources(self) -> list[SourceRecord]:
        rows = self._read(*bookkeeping.sources())
        return [SourceRecord(r[0], r[1], r[2], json.loads(r[3] or "{}"), r[4], r[5])
                for r in rows]

    def record_source(self, source: SourceRecord) -> None:
        self._write(*bookkeeping.record_source(source))
        self._new_generation()

    # -- entity lookups -------------------------------------------------------------
    def _read_entities(self, ids: list[str]) -> dict[str, Entity]:
        batches = [ids[i:i + _BATCH] for i in range(0, len(ids), _BATCH)]
        results = self._read_together([q.entities(batch) for batch in batches])
        return {r[0]: entity_from_row(r) for rows in results for r in rows}

    def find_by_name(self, name: str, *, limit: int = 50) -> list[Entity]:
        key, limit = normalize_name(name), min(max(limit, 0), _NAME_MATCH_CAP)
        kept = self._names.get(key) if self.read_only else None
        if kept is not None and (kept[1] or len(kept[0]) >= limit):
            return [dataclasses.replace(e) for e in kept[0][:limit]]
        return [entity_from_row(r) for r in self._read(*q.by_name(key, limit))]

    def search(self, text: str, *, limit: int = 20) -> list[SearchHit]:
        return search_entities(self, text, limit, entity_from_row)

    def prepare_search(self, progress: ProgressCallback | None = None) -> bool:
        if self.read_only:
            search_ready(self)   # a one-line error where the keys are missing
            return False
        return complete_search_keys(self, progress)

    def generation(self) -> str:
        # Through the driver, not this handle's session: a server asks while another
        # thread may be using the handle.
        if self._driver is None:
            raise StoreError("store is closed")
        with translated_errors(self._location):
            records, _, _ = self._driver.execute_query(
                *bookkeeping.meta(GENERATION_META), database_=self._location.database,
                routing_=neo4j.RoutingControl.READ)
        return str(records[0][0]) if records else ""

    def _new_generation(self) -> None:
        """Tell holders of read-only handles (a server) that the store changed."""
        self._write_meta({GENERATION_META: uuid.uuid4().hex})

    def _read_predicates(self, limit: int | None) -> list[Predicate]:
        return [predicate_from_row(r) for r in self._read(*q.predicates(limit))]

    def predicate_ends(self) -> dict[str, tuple[int, int, int, int]]:
        ends: dict[str, list[int]] = {}
        results = self._read_many(q.predicate_ends())
        for at, rows in zip((0, 2), results, strict=True):
            for p, n, single in rows:
                row = ends.setdefault(str(p), [0, 0, 0, 0])
                row[at], row[at + 1] = int(n), int(single)
        return {p: (a, b, c, d) for p, (a, b, c, d) in sorted(ends.items())}

    def type_counts(self) -> dict[str, int]:
        rows = self._read(*q.type_counts())
        return {str(t): int(n) for t, n in rows}

    def _predicate_degrees(self, ids: Sequence[str], *, outgoing: bool
                           ) -> list[tuple[str, str, int]]:
        batches = [list(ids[i:i + _BATCH]) for i in range(0, len(ids), _BATCH)]
        results = self._read_many([q.predicate_degrees(b, outgoing) for b in batches])
        return [(r[0], r[1], int(r[2])) for rows in results for r in rows]

    # -- facts ----------------------------------------------------------------------
    def _hub_ids(self) -> frozenset[str]:
        if self._hubs is None:
            rows = self._read(*q.hubs())
            self._hubs = frozenset(r[0] for r in rows)
            self._hub_heads = frozenset(r[0] for r in rows if r[1])
        return self._hubs

    def _in_facts(self, id: str, predicate: str | None, cols: str, limit: int) -> q.Query:
        """:func:`~kgstore.backends.neo4j.queries.in_facts` of ``id``, through the hub
        index where it has an entry."""
        hub = id in self._hub_ids()
        return q.in_facts(id, predicate, cols, limit, hub=hub, head=id in self._hub_heads)

    def _expand(self, id: str, kind: str, predicate: str | None, limit: int,
                detail: EntityDetail | None = None) -> list[list[Any]]:
        """Rows ``[predicate, *columns]`` of one expansion of ``id`` (at most
        ``limit``): ``kind`` "out" / "in" (entity ends: their id, or their record when
        ``detail`` is given) or "literal" (value, datatype, lang). A read-only store
        keeps single-predicate expansions; a complete read answers any limit."""
        return self._expand_many(id, (kind,), predicate, limit, detail)[0]

    def _kept(self, id: str, kind: str, predicate: str | None, limit: int,
              detail: EntityDetail | None) -> list[list[Any]] | None:
        """The first ``limit`` rows of an expansion this store keeps, if it keeps
        enough of it: read before, or part of a neighbourhood read ahead
        (:meth:`read_ahead`) that holds all of the node's facts of that kind."""
        if not self.read_only:
            return None
        if predicate is not None:
            kept = self._expansion_cache.get((id, kind, predicate, detail))
            if kept is not None and (kept[1] or len(kept[0]) >= limit):
                return list(kept[0][:limit])
        ahead = self._expansion_cache.get((id, kind, None, AHEAD_DETAIL))
        if ahead is None or detail in ("lean", "full"):
            return None
        rows, complete = ahead
        if predicate is not None:
            if not complete:
                return None
            rows = [r for r in rows if r[0] == predicate]
        elif not complete and len(rows) < limit:
            return None
        return [row_at_detail(kind, r, detail) for r in rows[:limit]]

    def _expand_many(self, id: str, kinds: Sequence[str], predicate: str | None, limit: int,
                     detail: EntityDetail | None = None) -> list[list[list[Any]]]:
        """:meth:`_expand` of each of ``kinds``; those not kept are read in one
        transaction (one network round trip instead of one each)."""
        found: dict[str, list[list[Any]]] = {}
        for kind in kinds:
            kept = self._kept(id, kind, predicate, limit, detail)
            if kept is not None:
                found[kind] = kept
        missing = [kind for kind in kinds if kind not in found]
        cols = "e.id" if detail is None else q.DETAIL_COLS[detail]
        queries = [self._in_facts(id, predicate, cols, limit)
                   if kind == "in" else q.out_facts(id, predicate, cols, kind == "literal", limit)
                   for kind in missing]
        for kind, rows in zip(missing, self._read_together(queries) if queries else [],
                              strict=True):
            found[kind] = rows
            if self.read_only and predicate is not None:
                self._expansion_cache.put((id, kind, predicate, detail),
                                          (rows, len(rows) < limit), len(rows) + 1)
        return [found[kind] for kind in kinds]

    def facts_out(self, id: str, *, predicate: str | None = None, limit: int = 100) -> list[Fact]:
        # Entity objects first, then literals: both read in one transaction, unless
        # the kept entity objects already fill the limit.
        kept = self._kept(id, "out", predicate, limit, None)
        if kept is not None and len(kept) >= limit:
            return [Fact(id, r[0], r[1]) for r in kept]
        out_rows, literal_rows = self._expand_many(id, ("out", "literal"), predicate, limit)
        facts = [Fact(id, r[0], r[1]) for r in out_rows]
        facts += [Fact(id, r[0], Literal(r[1], r[2], r[3]))
                  for r in literal_rows[:limit - len(facts)]]
        return facts

    def facts_in(self, id: str, *, predicate: str | None = None, limit: int = 100) -> list[Fact]:
        return [Fact(r[1], r[0], id) for r in self._expand(id, "in", predicate, limit)]

    def facts_many(self, ids: Sequence[str], *, predicate: str, outgoing: bool, limit: int,
                   literals: bool = True) -> tuple[dict[str, list[Fact]], bool]:
        # One query per batch of ids, those of both kinds (entity objects, literals) in
        # one statement, each read as far as the limit allows and cut to what the kinds
        # before it left (the rows a read of that many would give); a hub's incoming
        # facts through its slot, one read each. Per id the facts come in facts_out /
        # facts_in order.
        wanted = list(dict.fromkeys(ids))
        found: dict[str, list[Fact]] = {id: [] for id in wanted}
        left = limit
        kinds = ("out", "literal") if outgoing and literals else ("out",) if outgoing else ("in",)
        batches = {kind: [id for id in wanted if not (
            self._complete(id, kind, predicate) or (kind == "in" and id in self._hub_ids()))]
            for kind in kinds}
        chunks = [(kind, batch[start:start + _BATCH]) for kind, batch in batches.items()
                  for start in range(0, len(batch), _BATCH)]
        read = iter(self._read_together([q.facts_of_many(kind, chunk, predicate, limit + 1)
                                         for kind, chunk in chunks]))
        for kind in kinds:
            batch = batches[kind]
            reading = set(batch)
            for id in wanted:
                if id not in reading:
                    rows = self._expand(id, kind, predicate, left + 1)
                    found[id] += [expansion_fact(kind, id, predicate, r[1:]) for r in rows]
                    left -= len(rows)
                    if left < 0:
                        return found, True
            for start in range(0, len(batch), _BATCH):
                chunk = batch[start:start + _BATCH]
                rows = next(read)[:left + 1]
                for r in rows:
                    found[r[0]].append(expansion_fact(kind, r[0], predicate, r[1:]))
                left -= len(rows)
                if left < 0:
                    return found, True
                if self.read_only:   # complete: it answers later reads of these ids
                    got: dict[str, list[list[Any]]] = {id: [] for id in chunk}
                    for r in rows:
                        got[r[0]].append([predicate, *r[1:]])
                    for id, kept_rows in got.items():
                        self._expansion_cache.put((id, kind, predicate, None),
                                                  (kept_rows, True), len(kept_rows) + 1)
        return found, False

    def _complete(self, id: str, kind: str, predicate: str) -> bool:
        """Whether this store keeps all of ``id``'s ``predicate`` facts of ``kind``."""
        if not self.read_only:
            return False
        for key in ((id, kind, predicate, None), (id, kind, None, AHEAD_DETAIL)):
            kept = self._expansion_cache.get(key)
            if kept is not None and kept[1]:
                return True
        return False

    def linked_entities(self, id: str, predicate: str, *, outgoing: bool,
                        limit: int) -> tuple[list[Entity], bool]:
        rows = self._expand(id, "out" if outgoing else "in", predicate, limit + 1, "lean")
        return [entity_from_row(r[1:]) for r in rows[:limit]], len(rows) > limit

    def _read_adjacency(self, id: str, limit: int, detail: EntityDetail) -> Adjacency:
        # Out, in, literal (the embedded store's window order), each cut to limit + 1
        # (the +1 tells truncation), in one transaction; or from a read ahead that holds
        # that much of each (all of a kind, or more than the window).
        if self.read_only and detail == AHEAD_DETAIL:
            ahead = [self._expansion_cache.get((id, kind, None, AHEAD_DETAIL))
                     for kind in ("out", "in", "literal")]
            if all(a is not None and (a[1] or len(a[0]) > limit) for a in ahead):
                out, into, literal = (a[0][:limit + 1] for a in ahead if a is not None)
                return self._adjacency(id, out, into, literal, limit)
        cols = q.DETAIL_COLS[detail]
        out_rows, in_rows, literal_rows = self._read_together([
            q.out_facts(id, None, cols, False, limit + 1),
            self._in_facts(id, None, cols, limit + 1),
            q.out_facts(id, None, cols, True, limit + 1),
        ])
        return self._adjacency(id, out_rows, in_rows, literal_rows, limit)

    def read_ahead(self, ids: Iterable[str], *, names: bool = False,
                   limit: int = READ_AHEAD_FACTS) -> None:
        """Reads the records and neighbourhoods (at most ``limit`` facts of each kind,
        neighbours' records "brief") of those of ``ids`` not kept yet, with ``names``
        also the entities sharing one of their names or aliases (:meth:`find_by_name`),
        in one transaction, and keeps them: a store opened read-only then answers the
        caller's next reads around these nodes (their records, :meth:`adjacency`,
        single-predicate facts of a node whose facts of that kind were all read, and
        those name lookups) without a round trip each."""
        read_around(self, ids, names=names, limit=limit)

    @staticmethod
    def _adjacency(id: str, out_rows: list[list[Any]], in_rows: list[list[Any]],
                   literal_rows: list[list[Any]], limit: int) -> Adjacency:
        """:meth:`adjacency` of ``id`` from the rows of its three reads (each of at
        most ``limit + 1``)."""
        result = Adjacency()
        for rows, outgoing in ((out_rows, True), (in_rows, False)):
            for r in rows:
                entity = entity_from_row(r[1:])
                result.entities[entity.id] = entity
                result.facts.append(Fact(id, r[0], entity.id) if outgoing
                                    else Fact(entity.id, r[0], id))
        result.facts += [Fact(id, r[0], Literal(r[1], r[2], r[3])) for r in literal_rows]
        return adjacency_prefix(result, limit)

    # -- pattern matching (Store.match) ----------------------------------------------
    def _scan(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        return self._read(query, params)

    # -- whole-store scans ------------------------------------------------------------
    def iter_entities(self, *, batch: int = 10_000) -> Iterator[list[Entity]]:
        yield from self._stream(q.all_entities()[0], batch, entity_from_row)

    def iter_facts(self, *, batch: int = 10_000) -> Iterator[list[Fact]]:
        yield from self._stream(
            q.all_facts()[0], batch,
            lambda r: Fact(r[0], r[1], Literal(r[4], r[5], r[6]) if r[2] else r[3]))

    def _stream(self, query: str, batch: int,
                record: Callable[[list[Any]], Any]) -> Iterator[list[Any]]:
        """The rows of one whole-store ``query``, ``batch`` records at a time, from one
        read transaction that stays open while the caller consumes them (the server
        sends rows as they are pulled). Not keyset pages: ``ORDER BY`` on the id index
        gives code-point order while Cypher's ``>`` compares UTF-16 units, so pages
        split between ids such as ``m.\uff21`` and ``m.\U0001f3ac`` repeated or skipped
        rows."""
        if self._driver is None:
            raise StoreError("store is closed")
        with translated_errors(self._location), self._driver.session(
                database=self._location.database, default_access_mode=neo4j.READ_ACCESS,
                fetch_size=max(batch, 1)) as session, session.begin_transaction() as tx:
            rows: list[Any] = []
            for row in tx.run(query):
                rows.append(record(row.values()))
                if len(rows) >= batch:
                    yield rows
                    rows = []
            if rows:
                yield rows

    # -- power users ----------------------------------------------------------------
    def cypher(self, query: str, params: dict[str, Any] | None = None, *,
               max_rows: int | None = None, timeout_s: float | None = None) -> CypherResult:
        assert_read_only(query, "neo4j")
        params = parameters_for(query, params, "neo4j")

        @neo4j.unit_of_work(timeout=timeout_s)
        def work(tx: neo4j.ManagedTransaction) -> CypherResult:
            explain_neo4j(tx, query, params)   # the engine's plan may only read
            result = tx.run(query, params)
            columns = list(result.keys())
            rows: list[list[Any]] = []
            truncated = False
            for record in result:
                if max_rows is not None and len(rows) >= max_rows:
                    truncated = True
                    break
                rows.append([plain_value(v) for v in record.values()])
            unknown = unknown_names(result.consume())   # consume discards the rest
            if unknown:
                raise QueryError(
                    f"{unknown}: not in the kgbench schema (see `kgbench cypher --help`)")
            return CypherResult(columns, link_graph_values(rows), truncated=truncated)

        # Three layers, as on the embedded store: the allow-list above, the plan check
        # (kgstore.cypher.plan_check), and a read transaction (the server refuses
        # writes in it). Its own session: the store's
        # sessions ask the server for no notifications, this one for the warnings
        # that name an unknown label, type or property.
        if self._driver is None:
            raise StoreError("store is closed")
        try:
            with translated_errors(self._location, timeout_s=timeout_s), self._driver.session(
                    database=self._location.database, default_access_mode=neo4j.READ_ACCESS,
                    notifications_min_severity="WARNING") as session:
                return session.execute_read(work)
        except QueryError as exc:
            if "write" in str(exc).lower() and "read" in str(exc).lower():
                raise ReadOnlyQueryError(
                    "the query tries to modify the store; the cypher command runs read-only "
                    "queries only") from None
            raise

    # -- bulk import ----------------------------------------------------------------
    def _import_stage(self, stage: Path, manifest: dict[str, Any], nameless_is_cvt: bool,
                      progress: ProgressCallback | None) -> ImportReport:
        from kgstore.backends.neo4j.importer import OnlineImport

        try:
            return OnlineImport(self, stage, manifest, progress).run(
                nameless_is_cvt=nameless_is_cvt)
        finally:
            self._hubs = None
            self._new_generation()

    # -- used by remove_store ------------------------------------------------------------
    def remove_everything(self) -> None:
        """Delete every node of the store's labels, in batches (``--force`` rebuilds)."""
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only; cannot remove it")
        # Relationships first, in batches: DETACH DELETE of a hub would delete all
        # its relationships in one transaction, past the server's memory limit.
        for label in LABELS:
            self._autocommit(*q.delete_relationships(label))
        for label in LABELS:
            self._autocommit(*q.delete_nodes(label))

