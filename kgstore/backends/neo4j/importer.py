"""Online bulk import into Neo4j: a stage merged with the store in DuckDB
(:class:`~kgstore.staging.diff.StageDiff`, shared with the embedded store), written
over Bolt as batched ``UNWIND`` write transactions, several at once
(:mod:`~kgstore.backends.neo4j.writers`).

Each step reads what the store holds of the stage *now* (only the stage's own ids:
a load into a big shared database does not read the database), writes exactly what is
missing, and commits batch by batch. A kill leaves some of the batches; the rerun
computes the difference again and writes the rest, so it ends with the content of a
clean import. Since the difference says what is missing, nodes and relationships are
written with ``CREATE``, not ``MERGE`` (``MERGE`` of a relationship walks the
relationships of its end nodes, which on a hub is every one of its facts); a name node,
which other entities may share, with ``MERGE``. Every entity and literal the import
meets (read, or created: ``CREATE`` returns it) is kept with its ``elementId``, by which
facts and names find their ends: a direct seek instead of an index seek per end.

The hub index (:mod:`kgstore.backends.neo4j.schema`) of an entity is rebuilt when
facts into it arrive: its ``Hub`` node is deleted before the first of them is written
and comes back last, when its ``InSlot`` nodes hold them all. Without the node, reads
filter the entity's facts by property (slower, always right); the hubs step rebuilds
every hub of the stage that has none, so a rerun after a kill anywhere in between (the
facts are stored by then, so they are not new to it) ends with the index of a clean
import.

Where the time goes (1M facts, 200k entities, ``bench/neo4j_import_bench.py``): nearly
all of it is the server's, about 25-35 µs of its CPU per record created (a node, a
relationship, with its index entries and transaction log), whatever the query's shape;
what the shape decides is the seeks around it (two key lookups per fact cost as much as
the fact) and how many server threads work at once. JFR on the facts step (200k facts,
tiered JIT): a quarter the commit's record changes (relationship chains, counts), a
fifth the ``Fact.predicate`` range index, a tenth locks; no hot spot a query changes.
The server's JVM decides more: the tiered JIT takes 40-45% off C1's CPU per record.
The client returns created nodes' element ids as lists, one record per batch: a record
per node cost the client more than packing the node.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from kgstore.backends.neo4j import queries as q
from kgstore.backends.neo4j.search import complete_search_keys, with_fold_column
from kgstore.backends.neo4j.writers import WritePool, Writer
from kgstore.errors import StoreError
from kgstore.hubs import hub_min_in_degree
from kgstore.predicate_stats import StatsUpkeep
from kgstore.staging.diff import (
    MERGED_PREDICATE_NAMES,
    WANTED_NAMES_SQL,
    StageDiff,
    typed_literals_sql,
)
from kgstore.store import ImportReport, ImportSteps, ProgressCallback

if TYPE_CHECKING:
    from kgstore.backends.neo4j.store import Neo4jStore

__all__ = ["OnlineImport"]

# Rows per write transaction. Small enough that the server's young garbage collections
# find little of a transaction alive: against the test server (1 GB heap), 200k facts in
# batches of 10k spent 9.7 s in GC pauses, of 5k 2.7 s, of 3k 1.1 s (of 45-60 s); with
# two writers the extra round trips of smaller batches overlap.
ROWS_PER_WRITE = 3_000
# Ids per read of what the store holds of the stage.
IDS_PER_READ = 5_000

_ENTITY_COLUMNS = ("id", "name", "aliases", "types", "is_cvt", "description")
_REFS = pa.schema([("id", pa.string()), ("ref", pa.string())])


class OnlineImport:
    """One import of a stage into a Neo4j store (see the module docstring)."""

    def __init__(self, store: Neo4jStore, stage: Path, manifest: dict[str, Any],
                 progress: ProgressCallback | None) -> None:
        self.store = store
        self.stage = stage
        self.manifest = manifest
        self.progress = progress
        self.report = ImportReport()
        self._started = time.perf_counter()
        self._step = ImportSteps(self.report, progress).done
        self.empty = False
        """Whether the store held no entity or literal when this import began: then it
        holds nothing of the stage, and no step reads what it holds (an interrupted
        import leaves some, so its rerun reads)."""

    # -- plumbing -----------------------------------------------------------------------
    def _batches(self, sql: str, size: int | None = None) -> Iterator[q.Columns]:
        """The rows of a DuckDB query as columns, ``size`` (default
        :data:`ROWS_PER_WRITE`, read when called) at a time."""
        reader = self.diff.db.sql(sql).to_arrow_reader(size or ROWS_PER_WRITE)
        for batch in reader:
            if batch.num_rows:
                yield {name: column.to_pylist()
                       for name, column in zip(batch.schema.names, batch.columns, strict=True)}

    def _write_all(self, step: str | None, sql: str, build: Callable[[q.Columns], q.Query],
                   total: int, *, before: int = 0,
                   done: Callable[[list[list[list[Any]]]], None] | None = None) -> None:
        """Write the rows of ``sql`` with ``build(columns)`` in transactions of
        :data:`ROWS_PER_WRITE`, several at once, reporting ``before`` plus the rows
        written of ``total`` as ``step`` (none when ``None``); ``done(rows)`` gets what
        each transaction returned."""
        written = before

        def finished(result: list[list[list[Any]]], rows: int) -> None:
            nonlocal written
            if done is not None:
                done(result)
            written += rows
            if self.progress and step:
                self.progress(f"import: {step}", written, total)

        def task(query: q.Query) -> Callable[[Writer], list[list[list[Any]]]]:
            return lambda writer: writer.write(query)

        self.pool.run(((task(build(cols)), len(next(iter(cols.values()))))
                       for cols in self._batches(sql)), finished)

    def _existing(self, table: str, columns: dict[str, pa.DataType], ids_sql: str,
                  read: Callable[[list[str]], q.Query]) -> None:
        """DuckDB table ``table`` of what the store returns for the ids of
        ``ids_sql`` (``read(ids)`` returns ``columns`` in order)."""
        schema = pa.schema(list(columns.items()))
        parts: list[pa.Table] = []
        for batch in ([] if self.empty else self._batches(ids_sql, size=IDS_PER_READ)):
            rows = self.store._read(*read(next(iter(batch.values()))))
            if rows:
                parts.append(pa.Table.from_pylist(
                    [dict(zip(columns, r, strict=True)) for r in rows], schema=schema))
        self._table(table, pa.concat_tables(parts) if parts else schema.empty_table())

    def _table(self, name: str, rows: pa.Table) -> None:
        """DuckDB table ``name`` holding ``rows``."""
        self.diff.db.register("_rows", rows)
        self.diff.sql(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _rows")
        self.diff.db.unregister("_rows")

    def _refs_of(self, parts: list[pa.Table]) -> Callable[[list[list[list[Any]]]], None]:
        """A ``done`` for :meth:`_write_all` that keeps the ids and element ids a
        ``CREATE ... RETURN`` gave (:data:`~kgstore.backends.neo4j.queries._NEW_REFS`)
        in ``parts``."""
        def keep(result: list[list[list[Any]]]) -> None:
            ids, refs = result[0][0]
            parts.append(pa.table({"id": ids, "ref": refs}, schema=_REFS))
        return keep

    # -- the import -----------------------------------------------------------------------
    def run(self, *, nameless_is_cvt: bool) -> ImportReport:
        work_root = self.store.staging_dir().parent
        work_root.mkdir(parents=True, exist_ok=True)
        for stale in work_root.glob("merge-*"):   # work folders of killed imports
            shutil.rmtree(stale, ignore_errors=True)
        with (tempfile.TemporaryDirectory(prefix="merge-", dir=work_root) as work,
              WritePool(self.store) as self.pool):
            self.diff = StageDiff(self.stage, Path(work), self.manifest)
            try:
                self.diff.read_stage()
                self.report.facts_duplicate = (int(self.manifest["counts"].get("facts", 0))
                                               - self.diff.fact_rows)
                self._cvt_types()
                self.stats = StatsUpkeep(self.store, self.diff.db,
                                         had_facts=bool(self.store._read(*q.any_fact())))
                self.stats.begin()
                self._step("read stage")
                self._entities(nameless_is_cvt)
                self._step("entities")
                self._literals()
                self._step("literals")
                self._facts()
                self.stats.prepare()
                self._step("facts")
                self._hubs()
                self._step("hubs")
                self._names()
                self._step("names")
                self._predicates()
                self._step("predicates")
                self.stats.finish(self.progress)
                self._step("statistics")
                complete_search_keys(self.store, self.progress)   # a store loaded before
                self._step("search index")
            finally:
                self.diff.close()
        self.report.seconds = round(time.perf_counter() - self._started, 3)
        return self.report

    def _cvt_types(self) -> None:
        known = sorted(self.store.cvt_types())
        self.cvt_types = sorted(set(known) | set(self.diff.cvt_types))
        if self.cvt_types != known:
            self.store._write_meta({"cvt_types": json.dumps(self.cvt_types)})

    def _entities(self, nameless_is_cvt: bool) -> None:
        self.empty = not any(rows[0][0] for rows in
                             self.store._read_many(q.entities_and_literals()))
        self._existing(
            "old_entities",
            {"id": pa.string(), "name": pa.string(), "aliases": pa.list_(pa.string()),
             "types": pa.list_(pa.string()), "is_cvt": pa.bool_(),
             "description": pa.string(), "ref": pa.string()},
            "SELECT id FROM stage_entities ORDER BY id", q.stored_entities)
        self.diff.merge_entities(store_empty=False, cvt_types=self.cvt_types,
                                 nameless_is_cvt=nameless_is_cvt)
        scalar = self.diff.scalar
        self.report.entities_new = scalar("SELECT count(*) FROM merged WHERE NOT existed")
        self.report.entities_placeholder = scalar(
            "SELECT count(*) FROM merged WHERE NOT existed AND placeholder")
        self.report.entities_updated = scalar("SELECT count(*) FROM merged WHERE changed")
        self.report.names_replaced = scalar("SELECT count(*) FROM merged WHERE renamed")
        new, changed = self.report.entities_new, self.report.entities_updated
        refs: list[pa.Table] = []
        self._write_all(
            "entities", f"SELECT {', '.join(_ENTITY_COLUMNS)} FROM merged WHERE NOT existed "
            "ORDER BY id", q.create_entities, new + changed, done=self._refs_of(refs))
        self._write_all(
            "entities", f"SELECT {', '.join('m.' + c for c in _ENTITY_COLUMNS)}, o.ref "
            "FROM merged m JOIN old_entities o USING (id) WHERE m.changed ORDER BY id",
            q.update_entities, new + changed, before=new)
        self._table("entity_refs", pa.concat_tables([*refs, _REFS.empty_table()]))
        self.diff.sql("INSERT INTO entity_refs SELECT id, ref FROM old_entities")

    def _literals(self) -> None:
        self._existing("old_literals", {"id": pa.string(), "ref": pa.string()},
                       "SELECT id FROM stage_literals ORDER BY id", q.stored_literal_ids)
        self.diff.sql("CREATE TABLE new_literals AS SELECT * FROM stage_literals "
                      "WHERE id NOT IN (SELECT id FROM old_literals)")
        self.report.literals_new = self.diff.scalar("SELECT count(*) FROM new_literals")
        refs: list[pa.Table] = []
        self._write_all(
            "literals", f"SELECT * FROM ({typed_literals_sql('new_literals')}) ORDER BY id",
            q.create_literals, self.report.literals_new, done=self._refs_of(refs))
        self._table("literal_refs", pa.concat_tables([*refs, _REFS.empty_table()]))
        self.diff.sql("INSERT INTO literal_refs SELECT id, ref FROM old_literals")

    def _facts(self) -> None:
        # Only subjects stored before this import began can hold these facts already
        # (and subjects an interrupted run of it stored: they existed too, see merged).
        self._existing(
            "old_facts", {"subject": pa.string(), "predicate": pa.string(),
                          "object": pa.string()},
            "SELECT DISTINCT subject FROM stage_facts WHERE subject IN "
            "(SELECT id FROM merged WHERE existed) ORDER BY subject", q.stored_facts)
        self.diff.sql("CREATE TABLE new_facts AS SELECT f.* FROM stage_facts f ANTI JOIN "
                      "old_facts o USING (subject, predicate, object)")
        new = self.diff.scalar("SELECT count(*) FROM new_facts")
        self.report.facts_duplicate += self.diff.fact_rows - new
        self.report.facts_new = new
        # A hub's index stops being read before facts into it arrive (see the module doc).
        if not self.empty:
            self._write_all(None, "SELECT DISTINCT object AS id FROM new_facts "
                        "WHERE object_kind = 'E' ORDER BY id",
                            lambda cols: q.unmark_hubs(cols["id"]), 0)
        written = 0

        def count(result: list[list[list[Any]]]) -> None:
            nonlocal written
            written += int(result[0][0][0])

        # By subject: a batch's facts start at a few nodes, whose records stay cached.
        self._write_all(
            "facts",
            "SELECT s.ref AS s, f.predicate AS p, coalesce(e.ref, l.ref) AS o "
            "FROM new_facts f JOIN entity_refs s ON s.id = f.subject "
            "LEFT JOIN entity_refs e ON f.object_kind = 'E' AND e.id = f.object "
            "LEFT JOIN literal_refs l ON f.object_kind = 'L' AND l.id = f.object "
            "ORDER BY f.subject, f.object_kind, f.predicate, f.object",
            q.create_facts, new, done=count)
        if written != new:
            raise StoreError(
                f"{self.store.location}: {new - written:,} of {new:,} facts found no end "
                "node: entities or literals were deleted while this import ran; run the "
                "load again when nothing else writes to the database")

    def _hubs(self) -> None:
        """Index the incoming facts of every hub among the stage's objects (by its
        in-degree in the store now) that has no ``Hub`` node: the ones this import gave
        facts, and the ones an interrupted run of it left unindexed. One predicate per
        ``InSlot``."""
        self._existing(
            "object_degrees", {"id": pa.string(), "degree": pa.int64(),
                               "indexed": pa.bool_()},
            "SELECT DISTINCT object FROM stage_facts WHERE object_kind = 'E' ORDER BY object",
            q.in_degrees)
        if self.empty:   # every fact into an object is one of this import's
            self.diff.sql("INSERT INTO object_degrees SELECT object, count(*), false "
                          "FROM new_facts WHERE object_kind = 'E' GROUP BY object")
        hubs = [r[0] for r in self.diff.sql(
            "SELECT id FROM object_degrees WHERE degree >= ? AND NOT indexed ORDER BY id",
            [hub_min_in_degree()])]
        done = 0

        def index(hub: str) -> Callable[[Writer], None]:
            def task(writer: Writer) -> None:
                writer.autocommit(q.delete_slots(hub))
                writer.autocommit(q.fill_slots(hub))
                writer.write(q.mark_hub(hub))
            return task

        def finished(_result: None, _rows: int) -> None:
            nonlocal done
            done += 1
            if self.progress:
                self.progress("import: hubs", done, len(hubs))

        # One hub per writer, each from its start again after a transient error.
        self.pool.run(((index(hub), 1) for hub in hubs), finished, retry=True)

    def _names(self) -> None:
        self.diff.sql(f"CREATE TABLE wanted_names AS {WANTED_NAMES_SQL}")
        self._existing(
            "old_names", {"key": pa.string(), "id": pa.string()},
            "SELECT id FROM merged WHERE existed ORDER BY id", q.stored_names)
        new_links = "SELECT key, id FROM wanted_names EXCEPT SELECT key, id FROM old_names"
        stale = "SELECT key, id FROM old_names EXCEPT SELECT key, id FROM wanted_names"
        total = self.diff.scalar(f"SELECT count(DISTINCT key) FROM ({new_links})")
        # One row per name: its node is merged once, however many entities it names.
        self._write_all(
            "names", f"SELECT n.key AS k, list(r.ref ORDER BY r.ref) AS e FROM ({new_links}) n "
            "JOIN entity_refs r USING (id) GROUP BY n.key ORDER BY n.key",
            lambda cols: q.create_names(with_fold_column(cols)), total)
        # A replaced name stops finding the entity (aliases are only ever added).
        self._write_all(
            "names", f"SELECT key AS k, id FROM ({stale}) ORDER BY key, id",
            q.delete_names, self.diff.scalar(f"SELECT count(*) FROM ({stale})"))

    def _predicates(self) -> None:
        self._existing("old_predicates", {"id": pa.string(), "label": pa.string(),
                                          "aliases": pa.list_(pa.string())},
                       "SELECT id FROM stage_predicates ORDER BY id", q.stored_predicates)
        self.report.predicates_new = self.diff.scalar(
            "SELECT count(*) FROM stage_predicates s ANTI JOIN old_predicates o USING (id)")
        # Counts from the store's facts (right even after an interrupted import that
        # stored facts but not counts): one index seek per predicate.
        self._write_all(
            "predicates",
            f"SELECT s.id, {MERGED_PREDICATE_NAMES} FROM stage_predicates s "
            "LEFT JOIN old_predicates o USING (id) ORDER BY s.id",
            q.write_predicates, self.diff.scalar("SELECT count(*) FROM stage_predicates"))
