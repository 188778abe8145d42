"""Embedded LadybugDB backend: a store is a directory on disk, no server.

Its layout and graph schema: :mod:`~kgstore.backends.ladybug.schema`. ``Name`` nodes
turn case-insensitive name/alias lookup into a primary-key hash lookup (LadybugDB has no
secondary indexes); ``InSlot`` nodes do the same for one predicate of a hub's incoming
facts (:mod:`~kgstore.backends.ladybug.hub_index`). A store opened read-only cannot
change while it is open, so it keeps its recent reads (neighbourhoods, single-predicate
expansions, entity records, type samples) in bounded least-recently-used caches
(:mod:`~kgstore.readcache`): graph walks and the extension engine come back
to the same hubs question after question. Bulk import merges a staged directory with
DuckDB and loads it with ``COPY`` (:mod:`~kgstore.backends.ladybug.importer`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import ladybug as lb
import pyarrow as pa
import pyarrow.parquet as pq

from kgstore.backends.ladybug import queries as q
from kgstore.backends.ladybug import sampling as ladybug_sampling
from kgstore.backends.ladybug.directory import (
    begin_creation,
    check_marker,
    clear_directory,
    finish_creation,
    has_marker,
    holds_files,
    incompatible_version,
    interrupted_creation,
    make_directory,
)
from kgstore.backends.ladybug.engine import DatabaseUsers
from kgstore.backends.ladybug.generation import new_generation, read_generation, write_generation
from kgstore.backends.ladybug.interrupter import INTERRUPTER
from kgstore.backends.ladybug.opening import engine_open_errors, open_database
from kgstore.backends.ladybug.recovery import check_indexes, checkpoint_interrupted, mark_damaged
from kgstore.backends.ladybug.rows import fetch_rows, object_from_cols, record_batches
from kgstore.backends.ladybug.schema import DB_FILE, MARKER, SCHEMA_DDL, STAGING_DIR
from kgstore.backends.ladybug.search import build_search_index
from kgstore.backends.ladybug.user_query import run_read_only
from kgstore.cypher import bookkeeping
from kgstore.cypher.guard import assert_read_only
from kgstore.cypher.params import parameters_for
from kgstore.cypher.rows import entity_from_row, expansion_fact
from kgstore.diskspace import disk_full_error
from kgstore.enginepaths import cypher_path
from kgstore.errors import (
    DamagedStoreError,
    QueryError,
    QueryTimeoutError,
    StoreError,
    StoreNotFoundError,
)
from kgstore.location import local_store_path
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
from kgstore.readcache import ENTITY_CACHE_RECORDS, Lru, adjacency_prefix
from kgstore.search_index import MATCH_KINDS, EntitySearchIndex, SearchHit, fold, read_index
from kgstore.store import (
    SCHEMA_VERSION,
    CypherResult,
    ImportReport,
    ProgressCallback,
    Store,
    window_count,
)

__all__ = ["LadybugStore"]

# Ids per UNWIND query of a batch lookup (bounds one parameter list and one result).
_BATCH = 2_000
# Fewest ids that facts_many reads in one UNWIND query: on 5M facts the batch query
# costs ~2.5 ms however short (its plan scans the node table with a semi-mask) plus
# ~20 us per id, one plain expansion ~0.15 ms.
_MANY_MIN = 16
# Prepared statements kept per store (distinct parameterized query texts).
_STATEMENT_CACHE = 256
# Most entities sharing one name that find_by_name reads before sorting by id.
_NAME_MATCH_CAP = 100_000


def _bucket(n: int) -> int:
    """``n`` rounded up to ``2**k + 1`` (a window plus the row that tells truncation):
    limits computed from earlier reads then share a few query texts."""
    return n if n <= 2 else (1 << (n - 2).bit_length()) + 1


class LadybugStore(Store):
    """A store in a local directory, backed by an embedded LadybugDB database."""

    backend = "ladybug"
    dialect = "ladybug"
    sampling: ClassVar[ModuleType] = ladybug_sampling

    def __init__(self, path: Path, *, create: bool = False, read_only: bool = False) -> None:
        self.path = local_store_path(path)   # a URI folded into a Path is no directory
        self.read_only = read_only
        # The generation this handle's writes make, once it wrote (see close()).
        self._writes_generation: str | None = None
        marker = self.path / MARKER
        fresh = not has_marker(self.path, MARKER)
        if not fresh and interrupted_creation(marker):
            if not create or read_only:
                raise StoreNotFoundError(
                    f"no kgbench store at {self.path}: its creation was interrupted (the "
                    "process was killed or crashed); rerun the load, which creates it again")
            clear_directory(self.path)   # only what that creation wrote: nothing of value
            fresh = True
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
            check_marker(self.path, marker, self.backend)
        make_directory(self.path)
        info = {"backend": self.backend, "schema_version": SCHEMA_VERSION}
        # Ours from the first byte: the marker (saying "creating") before the database.
        creating = begin_creation(marker, info) if fresh else None
        try:
            recovering = checkpoint_interrupted(self.path / DB_FILE)
            self._open_database(read_only)
            if creating is not None:
                try:
                    self._create_schema()
                except BaseException:
                    self.close()
                    raise
                lock, creating = creating, None
                finish_creation(marker, info, lock)
        finally:
            if creating is not None:   # the creation failed: a rerun starts it again
                os.close(creating)
        if not fresh:
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
                raise incompatible_version(self.path, int(stored))

    def _open_database(self, read_only: bool) -> None:
        """Open the engine's database and this handle's connection; the engine's errors
        as ours (:func:`~kgstore.backends.ladybug.opening.engine_open_errors`)."""
        with engine_open_errors(self.path, read_only):
            self._db = open_database(self.path / DB_FILE, read_only)
            self._db_users = DatabaseUsers()
            self._connect()

    def _connect(self) -> None:
        """This handle's own connection to ``self._db`` and its read caches."""
        # A read-only store serves lookups (extension, generation, the HTTP API):
        # 1-3 ms queries that one thread runs faster than several (a 130-row
        # neighbourhood on 5M facts: 1.20 -> 1.08 ms; and worker processes then use
        # one core each); table scans get every thread back (_rows(scan=True)).
        self._lookup_threads = 1 if self.read_only else 0
        self._conn: lb.Connection | None = lb.Connection(
            self._db, num_threads=self._lookup_threads)
        self._statements: dict[str, Any] = {}
        self._open_read_caches()   # reads kept while the store is open read-only
        # Per (seed, named_only, include_cvt), for the last few: the types sampled
        # so far, then the samples of every type at once (_type_sample_prefix).
        self._sampled_types = Lru(ladybug_sampling.TYPE_SAMPLE_KEYS)
        self._type_prefixes = Lru(ladybug_sampling.TYPE_SAMPLE_KEYS)
        self._window_cuts = Lru(ENTITY_CACHE_RECORDS)   # _facts_beyond's answers
        self._hubs: frozenset[str] | None = None   # read on first use (_hub_ids)
        self._predicate_aliases: bool | None = None  # read on first use
        self._search: EntitySearchIndex | None = None   # loaded on first use (_search_index)

    def reader(self) -> LadybugStore:
        """Another read-only handle on this store for another thread: a connection and
        read caches of its own (a connection runs explicit transactions, so one
        thread at a time may use it) on the same engine database, so that the
        handles of one process share one buffer pool (four handles that each opened
        the database: 657 MB resident after 1,200 2-hop neighbourhoods on 5M facts;
        sharing it: 326 MB). The database closes with the last of its handles."""
        if not self.read_only or self._conn is None:
            raise StoreError("only an open read-only store lends more readers")
        twin = object.__new__(type(self))
        twin.path, twin.read_only = self.path, True
        twin._writes_generation = None
        twin._db, twin._db_users = self._db, self._db_users
        self._db_users.add()
        twin._connect()
        return twin

    # -- lifecycle ------------------------------------------------------------------
    @property
    def location(self) -> str:
        return str(self.path)

    def staging_dir(self) -> Path:
        """``STORE/staging``: stages live beside the database, on its disk, and one kept
        after a failed import is found again by the next load."""
        return self.path / STAGING_DIR

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            self._statements.clear()
            self._clear_read_caches()
            self._window_cuts.clear()
            conn.close()
            self._conn = None
            self._search = None
            if self._db_users.remove():
                self._db.close()
                if self._writes_generation is not None:   # after the checkpoint
                    write_generation(self.path, self._writes_generation)

    def generation(self) -> str:
        # A writer's own changes are its generation already (its search index is built
        # for the token that close() will write).
        return self._writes_generation or read_generation(self.path)

    def _wrote(self) -> None:
        """Mark this handle as having changed the store: closing it gives the store a
        new generation."""
        if self._writes_generation is None:
            self._writes_generation = new_generation()

    def _create_schema(self) -> None:
        self._wrote()
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
        # None starts after the deadline; one running past it is interrupted (deadline).
        left = self._time_left()
        try:
            with self._threads(0) if scan else contextlib.nullcontext():
                if params:
                    result = self._conn.execute(self._prepared(query), params)
                else:
                    result = self._conn.execute(query)
        except RuntimeError as exc:
            if left is not None and "interrupted" in str(exc).lower():
                raise QueryTimeoutError(self._deadline_s) from None
            # A write that filled the disk is not a query problem (an import's COPY, a
            # checkpoint after it).
            raise disk_full_error(exc, self.path / DB_FILE) or QueryError(str(exc)) from None
        assert not isinstance(result, list)
        return fetch_rows(result)

    @contextlib.contextmanager
    def deadline(self, timeout_s: float) -> Iterator[None]:
        # The engine's own statement timeout runs each statement on a scheduler thread
        # of its own: an interrupt at the deadline costs nothing until it is needed.
        with super().deadline(timeout_s):
            if self._conn is None or self._deadline is None:
                yield
                return
            with INTERRUPTER.watching(self._conn, self._deadline):
                yield

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
        rows = self._rows(*bookkeeping.meta(key))
        return rows[0][0] if rows else None

    def _set_meta(self, key: str, value: str) -> None:
        self._rows(*q.set_meta(key, value))

    def _write_meta(self, values: dict[str, str]) -> None:
        if values:
            self._rows(*q.set_metas(values))

    def _count(self, query: str, params: dict[str, Any] | None = None) -> int:
        return int(self._rows(query, params, scan=True)[0][0])

    # -- metadata -------------------------------------------------------------------
    def stats(self) -> StoreStats:
        entity_facts = self._count(*q.entity_fact_count())
        literal_facts = self._count(*q.literal_fact_count())
        return StoreStats(
            backend=self.backend,
            location=self.location,
            schema_version=int(self._meta("schema_version") or SCHEMA_VERSION),
            entities=self._count(*q.entity_count()),
            cvt_entities=self._count(*q.cvt_count()),
            literals=self._count(*q.literal_count()),
            facts=entity_facts + literal_facts,
            entity_facts=entity_facts,
            literal_facts=literal_facts,
            predicates=self._count(*q.predicate_count()),
            sources=self.sources(),
        )

    def sources(self) -> list[SourceRecord]:
        rows = self._rows(*bookkeeping.sources())
        return [SourceRecord(r[0], r[1], r[2], json.loads(r[3] or "{}"), r[4], r[5])
                for r in rows]

    def record_source(self, source: SourceRecord) -> None:
        self._wrote()
        self._rows(*bookkeeping.record_source(source))

    # -- entity lookups -------------------------------------------------------------
    def _read_entities(self, ids: list[str]) -> dict[str, Entity]:
        # `UNWIND $ids AS i MATCH (e:Entity {id: i})` is one primary-key lookup per id
        # in a single query (50 ids: 0.7 ms, against 5 ms for 50 separate lookups);
        # `e.id IN $ids` would scan the whole table. One id keeps the plain lookup,
        # which has no UNWIND overhead.
        if len(ids) == 1:
            rows = self._rows(*q.entity(ids[0]))
        else:
            rows = [r for start in range(0, len(ids), _BATCH)
                    for r in self._rows(*q.entities(ids[start:start + _BATCH]))]
        return {r[0]: entity_from_row(r) for r in rows}

    def find_by_name(self, name: str, *, limit: int = 50) -> list[Entity]:
        # Ids come back unsorted and are sorted here: an ORDER BY in the query costs
        # ~1 ms, four times the lookup itself. The cap bounds pathological names.
        rows = self._rows(*q.by_name(normalize_name(name), _NAME_MATCH_CAP))
        rows.sort(key=lambda r: r[0])
        return [entity_from_row(r) for r in rows[:limit]]

    def search(self, text: str, *, limit: int = 20) -> list[SearchHit]:
        query = fold(text)
        if not query or limit <= 0:
            return []
        found = self._search_index().search(query, limit)
        records = self.entities([id for id, _, _ in found])
        return [SearchHit(records[id], MATCH_KINDS[kind], degree)
                for id, kind, degree in found if id in records]

    def prepare_search(self, progress: ProgressCallback | None = None) -> bool:
        if self._search is not None:
            return False
        generation = self.generation()
        self._search = read_index(self.path, generation)
        if self._search is not None:
            return False
        self._search = build_search_index(self, generation, progress)
        return True

    def _rebuild_search_index(self, degrees: pa.Table | None = None) -> None:
        """The last step of an import (:func:`build_search_index`)."""
        self._search = build_search_index(self, self.generation(), None, degrees)

    def _search_index(self) -> EntitySearchIndex:
        self.prepare_search()
        assert self._search is not None
        return self._search

    def _read_predicates(self, limit: int | None) -> list[Predicate]:
        query, params = q.predicates(limit, aliases=self._has_predicate_aliases())
        return [Predicate(r[0], r[1], int(r[2] or 0), tuple(r[3] or ()))
                for r in self._rows(query, params)]

    def _has_predicate_aliases(self) -> bool:
        """Whether the Predicate table has its ``aliases`` column: a store written
        before it gets the column at its next import (:data:`PREDICATE_ALIASES_DDL`)."""
        known = self._predicate_aliases
        if known is None:
            columns = self._rows(*q.predicate_columns())
            known = self._predicate_aliases = any(r[0] == "aliases" for r in columns)
        return known

    def predicate_ends(self) -> dict[str, tuple[int, int, int, int]]:
        # Two grouped scans of the fact table (3.9 s each on 5M facts), instead of one
        # filtered scan per predicate (0.47 s each, 300 predicates).
        ends: dict[str, list[int]] = {}
        for objects, at in ((False, 0), (True, 2)):
            rows = self._rows(*q.predicate_ends(objects), scan=True)
            for p, n, single in rows:
                row = ends.setdefault(str(p), [0, 0, 0, 0])
                row[at], row[at + 1] = int(n), int(single)
        return {p: (a, b, c, d) for p, (a, b, c, d) in ends.items()}

    def type_counts(self) -> dict[str, int]:
        rows = self._rows(*q.type_counts())
        return {str(t): int(n) for t, n in rows}

    def _predicate_degrees(self, ids: Sequence[str], *, outgoing: bool
                           ) -> list[tuple[str, str, int]]:
        return [(r[0], r[1], int(r[2])) for start in range(0, len(ids), _BATCH)
                for r in self._rows(*q.predicate_degrees(list(ids[start:start + _BATCH]),
                                                         outgoing), scan=True)]

    def _fact_rows(self) -> Iterator[pa.Table]:
        # The engine writes them to Parquet and the batches are read back from it: the
        # whole fact table never sits in Python's memory.
        with tempfile.TemporaryDirectory(prefix="kgbench-facts-") as tmp:
            path = Path(tmp) / "facts.parquet"
            self._rows(*q.fact_rows_to(cypher_path(path)), scan=True)
            for batch in pq.ParquetFile(path).iter_batches(batch_size=200_000):
                yield pa.Table.from_batches([batch])

    # -- facts ----------------------------------------------------------------------
    # Each direction/target table is its own labelled query: LadybugDB answers a
    # labelled one-table expansion in ~0.15 ms, while one query over the Entity|Literal
    # union (or a UNION ALL of the parts) costs 3-6x more.
    def _expand(self, id: str, kind: str, predicate: str | None, limit: int, *,
                remainder: bool = False) -> list[list[Any]]:
        """Rows ``[predicate, *columns]`` of one expansion of entity ``id`` (at most
        ``limit``): ``kind`` is a key of :data:`~kgstore.backends.ladybug.queries.EXPANSIONS`
        ("out"/"in" for neighbour ids, "-full"/"-lean" for their records, "literal" for
        literal objects).

        ``remainder`` marks a limit computed from an earlier read (what is left of a
        window): it is rounded up (:func:`_bucket`) in the query text and the rows are
        cut here, since every distinct text is prepared once (~1.5 ms) and the statement
        cache would fill with one text per possible remainder. A LIMIT takes a prefix of
        the same scan, so the cut rows are the ones the exact limit gives.

        A read-only store keeps the rows of single-predicate expansions: a complete
        read answers every later limit, a cut one every limit up to its length. Their
        limits are rounded up too: callers derive them from predicate counts (a hub
        test reads a share of a predicate's facts), one text each otherwise (a tenth of
        the question check's time in ``generate`` went to preparing them), and the
        rows beyond the limit are kept for a later, larger one."""
        key = (id, kind, predicate)
        cache = self.read_only and predicate is not None
        if cache:
            kept = self._expansion_cache.get(key)
            if kept is not None and (kept[1] or len(kept[0]) >= limit):
                return kept[0][:limit]
        cap = _bucket(limit) if remainder or cache else limit
        if predicate is not None and kind.startswith("in") and id in self._hub_ids():
            # The same rows, in the same order, as the scan, from the hub index.
            rows = self._rows(*q.hub_slot(id, kind, predicate, cap))
        else:
            rows = self._rows(*q.expansion(id, kind, predicate, cap))
        if cache:
            self._expansion_cache.put(key, (rows, len(rows) < cap), len(rows) + 1)
            return rows[:limit]   # a copy: the kept list stays as read
        return rows[:limit] if len(rows) > limit else rows

    def _hub_ids(self) -> frozenset[str]:
        """The entities whose incoming facts the hub index holds (none in a store
        written before the index existed, until its next import)."""
        if self._hubs is None:
            tables = {r[0] for r in self._rows(*q.tables())}
            self._hubs = frozenset(r[0] for r in self._rows(*q.hubs())) if "Hub" in tables \
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
                found[id] += [expansion_fact(kind, id, predicate, r[1:]) for r in rows]
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
                        found[id] += [expansion_fact(kind, id, predicate, r[1:]) for r in got]
                    return found, True
                for id, got in read.items():
                    found[id] += [expansion_fact(kind, id, predicate, r[1:]) for r in got]
                    if self.read_only:   # complete: it answers later reads of this id
                        self._expansion_cache.put((id, kind, predicate), (got, True),
                                                  len(got) + 1)
        return found, False

    def _expand_many(self, ids: list[str], kind: str, predicate: str, cap: int) -> list[list[Any]]:
        """Rows ``[id, *columns]`` of one expansion of every entity in ``ids`` over
        ``predicate`` (``kind`` "out", "in" or "literal", as in :meth:`_expand`); an id
        without such facts gives one row of nulls. At most ``cap`` rows."""
        return self._rows(*q.expansions(ids, kind, predicate, cap))

    def linked_entities(self, id: str, predicate: str, *, outgoing: bool,
                        limit: int) -> tuple[list[Entity], bool]:
        # One labelled expansion with lean records (a read-only store keeps it, see
        # _expand); literal objects live in their own table and never come back.
        rows = self._expand(id, "out-lean" if outgoing else "in-lean", predicate, limit + 1)
        return [entity_from_row(r[1:]) for r in rows[:limit]], len(rows) > limit

    def slot_count(self, id: str, predicate: str, *, outgoing: bool, window: int) -> int | None:
        # Store.slot_count without reading the window's records: two bounded counts
        # tell whether the window would be cut, then the one predicate's expansion
        # (kept) is the count. Slot sizes read 500-fact windows of brief records at
        # ~0.9 ms an entity on 1M facts, the counts ~0.1 ms (a third of `generate`'s
        # verbalize stage, bench/generate_bench.py).
        kept = self._kept_adjacency(id, window, "brief")
        if kept is not None:
            return window_count(kept, id, predicate, outgoing=outgoing)
        if self._facts_beyond(id, window):
            return None
        rows = self._expand(id, "out" if outgoing else "in", predicate, window + 1)
        # A fact from id to itself is in the window twice, read out and read in.
        count = len(rows) + sum(1 for r in rows if r[1] == id)
        if outgoing:
            count += len(self._out_literal_facts(id, predicate, window + 1))
        return count

    def _facts_beyond(self, id: str, window: int) -> bool:
        """Whether more than ``window`` facts leave or reach ``id`` (what cuts its
        adjacency window), kept while the store is open read-only."""
        key = (id, window)
        kept = self._window_cuts.get(key) if self.read_only else None
        if kept is not None:
            return bool(kept)
        seen = 0
        for outgoing in (True, False):
            seen += self._rows(*q.facts_up_to(id, outgoing, window + 1))[0][0]
            if seen > window:
                break
        if self.read_only:
            self._window_cuts.put(key, seen > window, 1)
        return seen > window

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
                entity = entity_from_row(r[1:])
                result.entities[entity.id] = entity
                result.facts.append(Fact(id, r[0], entity.id) if outgoing
                                    else Fact(entity.id, r[0], id))
        if len(result.facts) <= limit:
            result.facts += self._out_literal_facts(id, None, limit + 1 - len(result.facts))
        return adjacency_prefix(result, limit)   # limit + 1 facts tell truncation

    # -- pattern matching (Store.match) ----------------------------------------------
    def _scan(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        return self._rows(query, params, scan=True)

    # -- whole-store scans ------------------------------------------------------------
    def iter_entities(self, *, batch: int = 10_000) -> Iterator[list[Entity]]:
        yield from self._scan_batches(q.all_entities()[0], batch, entity_from_row)

    def iter_facts(self, *, batch: int = 10_000) -> Iterator[list[Fact]]:
        yield from self._scan_batches(q.all_facts()[0], batch,
                                      lambda r: Fact(r[0], r[1], object_from_cols(*r[2:7])))

    def _scan_batches(self, query: str, batch: int,
                      record: Callable[[list[Any]], Any]) -> Iterator[list[Any]]:
        """The rows of a whole-table ``query`` made into records, ``batch`` at a time:
        the engine holds the sorted result, Python objects are made one batch at a time."""
        if self._conn is None:
            raise StoreError("store is closed")
        with self._threads(0):
            result = self._conn.execute(query)
        assert not isinstance(result, list)
        yield from record_batches(result, batch, record)

    # -- power users ----------------------------------------------------------------
    def cypher(self, query: str, params: dict[str, Any] | None = None, *,
               max_rows: int | None = None, timeout_s: float | None = None) -> CypherResult:
        assert_read_only(query)
        params = parameters_for(query, params)
        if self._conn is None:
            raise StoreError("store is closed")
        # A power user's query may scan whole tables: it gets every thread.
        with self._threads(0):
            return run_read_only(self._conn, query, params, max_rows=max_rows,
                                 timeout_s=timeout_s)

    # -- bulk import ----------------------------------------------------------------
    def _import_stage(self, stage: Path, manifest: dict[str, Any], nameless_is_cvt: bool,
                      progress: ProgressCallback | None) -> ImportReport:
        # Imported here: it brings DuckDB, which a store that only reads never needs.
        from kgstore.backends.ladybug.importer import import_stage

        return import_stage(self, stage, manifest, nameless_is_cvt, progress)
