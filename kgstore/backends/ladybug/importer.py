"""Bulk import into the embedded store: a stage's difference with the store
(:class:`~kgstore.staging.diff.StageDiff`) loaded with LadybugDB's ``COPY``.

Each step reads what the store holds *now* and adds what is missing, in batches that
fit the buffer pool (:func:`~kgstore.backends.ladybug.engine.copy_batch_rows`), each its
own transaction: an import killed half-way is completed by running it again, without
duplicates. Store writes run on a background thread so that a ``COPY`` overlaps DuckDB
computing the next step.
"""

from __future__ import annotations

import json
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from kgstore.backends.ladybug import queries as q
from kgstore.backends.ladybug.engine import copy_batch_rows
from kgstore.backends.ladybug.hub_index import HUB_INDEX_DDL, index_hubs
from kgstore.backends.ladybug.schema import PREDICATE_ALIASES_DDL
from kgstore.diskspace import disk_full_error
from kgstore.enginepaths import cypher_path, duckdb_read_path
from kgstore.predicate_stats import StatsUpkeep
from kgstore.staging.diff import (
    RENAMED_PREDICATES_SQL,
    WANTED_NAMES_SQL,
    StageDiff,
    typed_literals_sql,
)
from kgstore.store import ImportReport, ImportSteps, ProgressCallback

if TYPE_CHECKING:
    from kgstore.backends.ladybug.store import LadybugStore

__all__ = ["StageMerger", "StoreWrites", "import_stage"]

# Up to this many batches are written by one filtered export each; more by a single
# partitioned pass (7.2M facts in 2 batches: 7.6 s filtered, 14.6 s partitioned).
FILTERED_BATCHES = 4


class StoreWrites:
    """Runs the store writes of an import, in the order they are submitted, in one
    background thread, so LadybugDB's ``COPY`` of one table overlaps DuckDB computing
    the next (LadybugDB releases the GIL while it works). The store connection is only
    used by this thread until :meth:`drain` returns; the first failure is re-raised by
    :meth:`drain` and the writes after it are skipped."""

    def __init__(self, store: LadybugStore) -> None:
        self.store = store
        self._queue: queue.Queue[tuple[q.Query, int] | None] = queue.Queue()
        self._error: BaseException | None = None
        self._failed_at = 0.0   # time.monotonic() of the failure
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
                        self.store._rows(*query)
            except BaseException as exc:  # handed to drain()
                self._error, self._failed_at = exc, time.monotonic()
            finally:
                self._queue.task_done()
        self._queue.task_done()

    def submit(self, query: q.Query, *, threads: int = 0) -> None:
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

    def failed_before(self, moment: float) -> BaseException | None:
        """The failure of a write, when one failed before ``moment`` (``time.monotonic()``)."""
        return self._error if self._error is not None and self._failed_at < moment else None

    def close(self, *, cancel: bool = False) -> None:
        """Stop the thread once the write in flight finished (a write cannot be stopped
        half-way); the queued ones run first unless ``cancel``. Raises nothing."""
        self._cancelled = cancel
        self._queue.put(None)
        self._thread.join()


class StageMerger:
    """One import of a stage. Each step computes what is missing from the store *now*
    and adds exactly that, which is what makes a re-run after a crash safe.

    Store reads happen on this thread, store writes on :class:`StoreWrites` in the
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
        self.diff = StageDiff(stage, work, manifest)
        # Which store tables are empty, read once before this import writes anything.
        self.empty = {table: store._count(*query) == 0 for table, query in (
            ("Entity", q.entity_count()), ("Literal", q.literal_count()),
            ("Fact", q.fact_count()), ("Name", q.name_count()),
            ("Predicate", q.predicate_count()))}
        self.writes: StoreWrites | None = None
        self._step = ImportSteps(self.report, progress).done

    def write(self, query: q.Query, *, threads: int = 0) -> None:
        """Submit a store write (it runs after the writes submitted before it)."""
        assert self.writes is not None
        self.writes.submit(query, threads=threads)

    def copy(self, table: str, path: str, options: str = "") -> None:
        self.write(q.copy(table, cypher_path(path), options))

    def write_batches(self, sql: str, name: str, rows: int, batch: int, key: str,
                       write: Callable[[str], q.Query], order: str = "",
                       threads: int = 0) -> None:
        """Export ``sql`` (``rows`` rows) as Parquet and submit the store write
        ``write(path)`` for it (``path``: the file as a Cypher string literal), in
        batches of about ``batch`` rows:
        consecutive ranges of column ``key`` (the rows of one key stay together, so a
        batch exceeds ``batch`` by less than the rows of one key). Facts cut by subject
        ranges made the later COPYs of 4 x 1.2M facts 7 s each; cut by a hash of the
        subject, 8-10 s and growing. Each batch is its own transaction: a kill leaves
        a prefix of them, which a re-run completes. With ``order`` (a list of columns)
        each batch's rows are written in that order; the writes run on ``threads``
        engine threads (0: all)."""
        def submit(literal: str) -> None:
            self.write(write(literal), threads=threads)

        sort = f" ORDER BY {order}" if order else ""
        if rows <= batch:
            submit(cypher_path(self.diff.export(f"SELECT * FROM ({sql}){sort}", name)))
            return
        # Which batch each key goes to: running row counts over the sorted keys (a
        # sort of the distinct keys, not of the rows).
        self.diff.sql(f"""
            CREATE OR REPLACE TEMP TABLE batch_of AS
            SELECT k, (sum(n) OVER (ORDER BY k) - n) // {int(batch)} AS batch
            FROM (SELECT {key} AS k, count(*) AS n FROM ({sql}) GROUP BY k)
        """)
        firsts = [row[0] for row in self.diff.sql(
            "SELECT min(k) FROM batch_of GROUP BY batch ORDER BY batch")]
        # Each batch is submitted once its file is written, so the store copies it
        # while the next one is exported.
        # DuckDB's partitioned write reads a backslash in its folder as a separator
        # (and writes elsewhere): such a store exports each batch on its own instead.
        if len(firsts) <= FILTERED_BATCHES or "\\" in str(self.work):
            for i, first in enumerate(firsts):
                upper = f" AND {key} < $next" if i + 1 < len(firsts) else ""
                params = {"first": first, **({"next": firsts[i + 1]} if upper else {})}
                submit(cypher_path(self.diff.export(
                    f"SELECT * FROM ({sql}) WHERE {key} >= $first{upper}{sort}",
                    f"{name}-{i}", params)))
        else:
            parts = self.work / name
            self.diff.sql(f"COPY (SELECT r.*, b.batch FROM ({sql}) r JOIN batch_of b "
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
                submit(cypher_path(self.diff.export(
                    f"SELECT * FROM read_parquet($files, hive_partitioning = false){sort}",
                    f"{name}-{i}", {"files": files})))
                shutil.rmtree(part)
        self.diff.sql("DROP TABLE batch_of")

    def copy_batches(self, table: str, sql: str, name: str, rows: int, batch: int,
                      key: str, options: str = "", order: str = "", threads: int = 0) -> None:
        """``COPY table`` from ``sql`` in batches (see :meth:`write_batches`)."""
        self.write_batches(sql, name, rows, batch, key,
                           lambda path: q.copy(table, path, options), order, threads)

    def read_store(self) -> LadybugStore:
        """The store, for reading, once the writes submitted so far have run."""
        if self.writes is not None:
            self.writes.drain()
        return self.store

    def existing(self, name: str, query: q.Query, schema: str) -> None:
        """Materialise a store query as DuckDB table ``name`` (empty when nothing)."""
        arrow = self.read_store()._arrow(*query)
        if arrow.num_rows:
            self.diff.db.register("_arrow_tmp", arrow)
            self.diff.sql(f"CREATE TABLE {name} AS SELECT * FROM _arrow_tmp")
            self.diff.db.unregister("_arrow_tmp")
        else:
            self.diff.sql(f"CREATE TABLE {name} ({schema})")

    def run(self, *, nameless_is_cvt: bool) -> ImportReport:
        """Import the stage; the first failure is raised (see :meth:`_first_failure`)."""
        started = time.perf_counter()
        self.writes = StoreWrites(self.store)
        first: BaseException | None = None
        try:
            self._run_steps(nameless_is_cvt)
            self.writes.close()
        except Exception as exc:
            first = self._first_failure(exc)
            if first is exc:
                raise
        except BaseException:  # an interrupt: the import stops soon
            self.writes.close(cancel=True)
            raise
        finally:
            self.diff.close()
        if first is not None:
            raise first   # outside the handler: not chained to the later failure
        self.report.seconds = round(time.perf_counter() - started, 3)
        return self.report

    def _first_failure(self, exc: Exception) -> BaseException:
        """The failure to report when this thread failed with ``exc``: a store write
        that failed before it, else ``exc``. A full disk is met by whichever write comes
        next, DuckDB's (this thread) or the store's (:class:`StoreWrites`), and which
        one that is depends on timing: a store write that filled the disk and failed,
        then this thread's next small export (``merge-*/new_predicates.parquet``, with
        this thread descheduled while the store wrote on), used to be reported as the
        export's failure. The earlier failure is the cause, and a store write's is the
        one with consequences (a store whose checkpoint failed may need its load rerun
        with --force), so the message names the file that really filled up first."""
        failed_at = time.monotonic()
        assert self.writes is not None
        self.writes.close(cancel=True)   # waits for the write in flight, if any
        earlier = self.writes.failed_before(failed_at)
        if earlier is None or earlier is exc:
            return exc
        earlier.add_note(f"after it, the import failed too: {exc!r}")
        return earlier

    def _run_steps(self, nameless_is_cvt: bool) -> None:
        assert self.writes is not None
        self._stage_tables()
        # Directly, before the first write is queued (see StatsUpkeep).
        self.stats = StatsUpkeep(self.store, self.diff.db, had_facts=not self.empty["Fact"])
        self.stats.begin()
        self._step("read stage")
        self._merge_entities(nameless_is_cvt)
        self._step("entities")
        self._import_literals()
        self._step("literals")
        self._import_facts()
        self._step("facts")
        index_hubs(self)
        self._step("hubs")
        self._import_names()
        self._step("names")
        self._import_predicates()
        self.writes.drain()  # the step's time includes waiting for the writes
        self._step("predicates")
        self.stats.finish(self.progress)
        self._step("statistics")
        self.store._rebuild_search_index(self._new_store_degrees())
        self._step("search index")

    def _stage_tables(self) -> None:
        self.diff.read_stage()
        # Facts per object kind and their rows per COPY (which depends on how long the
        # predicates are, see copy_batch_rows).
        self.fact_kinds: dict[str, tuple[int, int]] = {
            kind: (n, copy_batch_rows("rel", chars))
            for kind, (n, chars) in self.diff.fact_stats.items()}
        self.stage_fact_rows = self.diff.fact_rows
        self.report.facts_duplicate = (int(self.manifest["counts"].get("facts", 0))
                                       - self.stage_fact_rows)
        known = json.loads(self.store._meta("cvt_types") or "[]")
        self.cvt_types = sorted(set(known) | set(self.diff.cvt_types))
        if self.cvt_types != sorted(known):
            # Directly: no write is queued yet.
            self.store._set_meta("cvt_types", json.dumps(self.cvt_types))

    def _merge_entities(self, nameless_is_cvt: bool) -> None:
        if not self.empty["Entity"]:
            self.existing("old_entities", q.stored_entities(), "")
        self.diff.merge_entities(store_empty=self.empty["Entity"], cvt_types=self.cvt_types,
                                 nameless_is_cvt=nameless_is_cvt)
        cols = "id, name, aliases, types, is_cvt, description"
        self.report.entities_new = self.diff.scalar("SELECT count(*) FROM merged WHERE NOT existed")
        self.report.entities_placeholder = self.diff.scalar(
            "SELECT count(*) FROM merged WHERE NOT existed AND placeholder")
        self.report.entities_updated = self.diff.scalar("SELECT count(*) FROM merged WHERE changed")
        self.report.names_replaced = self.diff.scalar(
            "SELECT count(*) FROM merged WHERE renamed")
        self.diff.sql("DROP TABLE stage_entities")
        self.diff.sql("DROP TABLE old_entities")
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
            self.copy_batches("Entity", f"SELECT {cols} FROM merged WHERE NOT existed",
                              "new_entities", self.report.entities_new,
                              copy_batch_rows("node"), "id", order="id")
        if self.report.entities_updated:
            self.write_batches(
                f"SELECT {cols} FROM merged WHERE changed", "upd_entities",
                self.report.entities_updated, copy_batch_rows("node"), "id",
                q.update_entities)

    def _import_literals(self) -> None:
        if self.empty["Literal"]:
            self.diff.sql("CREATE TABLE new_literals AS SELECT * FROM stage_literals")
        else:
            self.existing("old_literals", q.stored_literal_ids(), "id VARCHAR")
            self.diff.sql("CREATE TABLE new_literals AS SELECT * FROM stage_literals "
                          "WHERE id NOT IN (SELECT id FROM old_literals)")
        self.report.literals_new = self.diff.scalar("SELECT count(*) FROM new_literals")
        if not self.report.literals_new:
            return
        self.copy_batches(
            "Literal", typed_literals_sql("new_literals"),
            "new_literals", self.report.literals_new, copy_batch_rows("node"), "id",
            order="id")
        self.diff.sql("DROP TABLE stage_literals")
        self.diff.sql("DROP TABLE new_literals")

    def _import_facts(self) -> None:
        if self.empty["Fact"]:
            self.diff.sql("CREATE VIEW new_facts AS SELECT * FROM stage_facts")
        else:
            # Only subjects that existed before can already have these facts.
            subjects = self.diff.export(
                "SELECT DISTINCT subject AS sid FROM stage_facts "
                "WHERE subject IN (SELECT id FROM merged WHERE existed)", "old_subjects")
            self.existing("old_facts", q.stored_facts_of(cypher_path(subjects)),
                          "subject VARCHAR, predicate VARCHAR, object VARCHAR")
            self.diff.sql("CREATE VIEW new_facts AS SELECT f.* FROM stage_facts f ANTI JOIN "
                          "old_facts o USING (subject, predicate, object)")
        new_count = self.diff.scalar("SELECT count(*) FROM new_facts")
        self.report.facts_duplicate += self.stage_fact_rows - new_count
        self.report.facts_new = new_count
        if self.empty["Fact"]:
            # The store's facts will be exactly these: count them here rather than
            # scanning every stored fact afterwards (see _import_predicates).
            self.diff.sql("CREATE TABLE fact_counts AS SELECT predicate AS id, count(*) AS n "
                          "FROM new_facts GROUP BY predicate")
            # And the facts of each entity, for the search index (_new_store_degrees).
            self.diff.sql(
                "CREATE TABLE fact_degrees AS SELECT id, sum(n)::BIGINT AS n_sum FROM ("
                "SELECT subject AS id, count(*) AS n FROM new_facts GROUP BY subject UNION ALL "
                "SELECT object, count(*) FROM new_facts WHERE object_kind = 'E' "
                "GROUP BY object) GROUP BY id")
        for kind, target in (("E", "Entity"), ("L", "Literal")):
            n = self.diff.scalar(f"SELECT count(*) FROM new_facts WHERE object_kind = '{kind}'")
            if n:
                self.copy_batches(
                    "Fact", 'SELECT subject AS "from", object AS "to", predicate FROM new_facts '
                    f"WHERE object_kind = '{kind}'", f"facts_{kind}", n,
                    self.fact_kinds[kind][1], '"from"', f" (from='Entity', to='{target}')",
                    # Sorted, and copied on one thread: otherwise DuckDB's export and
                    # LadybugDB's parallel COPY hand a node's facts over in another
                    # order every load (tests/kgstore: same_windows). Cost, runs
                    # interleaved on a 2-core VM: 5M-line Freebase import 7.0-7.9 s ->
                    # 7.8-9.8 s (3 each); 20M-line import, median of 4, 44.1 -> 48.8 s.
                    order='"from", predicate, "to"', threads=1)
        # DuckDB's side of the statistics runs while the store copies the facts (the
        # hubs step drops the new facts).
        self.stats.prepare()

    def _new_store_degrees(self) -> pa.Table | None:
        """Facts per entity (``id``, ``n_sum``) when the store had none before this
        import (they are the stage's new facts: counted by DuckDB in a fraction of the
        store's scans), else ``None``."""
        if not self.empty["Fact"]:
            return None
        return self.diff.db.sql("SELECT id, n_sum FROM fact_degrees").to_arrow_table()

    def _import_names(self) -> None:
        self.diff.sql(f"CREATE TABLE wanted_names AS {WANTED_NAMES_SQL}")
        if self.empty["Name"]:
            self.diff.sql("CREATE TABLE old_name_keys (key VARCHAR)")
            self.diff.sql("CREATE TABLE old_names (key VARCHAR, id VARCHAR)")
        else:
            self.existing("old_name_keys", q.stored_name_keys(), "key VARCHAR")
            ids = self.diff.export("SELECT DISTINCT id AS eid FROM merged WHERE existed",
                                   "name_ids")
            self.existing("old_names", q.stored_names_of(cypher_path(ids)),
                          "key VARCHAR, id VARCHAR")
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
        links = self.diff.scalar(f"SELECT count(*) FROM ({new_links})")
        keys = self.diff.scalar(f"SELECT count(*) FROM ({new_keys})")
        if keys:
            # In key order when the links come in batches (see _merge_entities).
            order = " ORDER BY key" if links > copy_batch_rows("rel") else ""
            self.copy_batches("Name", new_keys + order, "new_names", keys,
                              copy_batch_rows("node"), "key")
        if links:
            self.copy_batches("NAMES", f'SELECT key AS "from", id AS "to" FROM ({new_links})',
                              "new_name_links", links, copy_batch_rows("rel"), '"from"')
        stale_links = self.diff.scalar(f"SELECT count(*) FROM ({stale})") if stale else 0
        if stale_links:
            self.write_batches(
                f"SELECT key AS k, id AS eid FROM ({stale})", "stale_names", stale_links,
                copy_batch_rows("rel"), "k", q.delete_name_links)

    def _import_predicates(self) -> None:
        if self.empty["Predicate"]:
            self.diff.sql("CREATE TABLE old_predicates (id VARCHAR, label VARCHAR, "
                          "aliases VARCHAR[])")
        else:
            self.existing("old_predicates", q.stored_predicates(),
                          "id VARCHAR, label VARCHAR, aliases VARCHAR[]")
        self.diff.sql("CREATE TABLE new_predicates AS SELECT s.id, s.label, 0::BIGINT AS count, "
                      "s.aliases FROM stage_predicates s ANTI JOIN old_predicates o USING (id)")
        self.report.predicates_new = self.diff.scalar("SELECT count(*) FROM new_predicates")
        if self.report.predicates_new:
            self.copy("Predicate",
                      self.diff.export("SELECT * FROM new_predicates", "new_predicates"))
        relabel = self.diff.export(RENAMED_PREDICATES_SQL, "relabel")
        if self.diff.scalar("SELECT count(*) FROM read_parquet(?)", [duckdb_read_path(relabel)]):
            self.write(q.relabel_predicates(cypher_path(relabel)))
        # Counts are recomputed from the facts themselves, so they are right even after
        # an interrupted import that stored facts but not counts (into a store that had
        # no facts, _import_facts counted the facts it stored).
        if not self.empty["Fact"]:
            self.existing("fact_counts", q.fact_counts(), "id VARCHAR, n BIGINT")
        counts = self.diff.export("SELECT id, n FROM fact_counts", "predicate_counts")
        self.write(q.set_predicate_counts(cypher_path(counts)))


def import_stage(store: LadybugStore, stage: Path, manifest: dict[str, Any],
                 nameless_is_cvt: bool, progress: ProgressCallback | None) -> ImportReport:
    """:meth:`~kgstore.store.Store.import_stage` of the embedded store: the stage merged
    in a work folder beside the database (a full disk there is reported as such)."""
    # Work folders of imports that were killed; we hold the write lock, so no live
    # import owns them.
    for stale in store.path.glob("merge-*"):
        shutil.rmtree(stale, ignore_errors=True)
    store._wrote()
    for ddl in (*HUB_INDEX_DDL, PREDICATE_ALIASES_DDL):  # a store written before them
        store._rows(ddl)
    store._predicate_aliases = True
    try:
        with tempfile.TemporaryDirectory(prefix="merge-", dir=store.path) as work:
            merger = StageMerger(store, stage, Path(work), manifest, progress)
            try:
                return merger.run(nameless_is_cvt=nameless_is_cvt)
            finally:
                store._hubs = None   # the import may have indexed more hubs
                store._search = None
    except Exception as exc:
        # DuckDB's work files (exports, spill) share the store's disk.
        full = disk_full_error(exc, store.path)
        if full is None or full is exc:
            raise
        raise full from exc
