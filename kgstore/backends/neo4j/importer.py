"""Online bulk import into Neo4j: a stage merged with the store in DuckDB
(:class:`~kgstore.staging.diff.StageDiff`, shared with the embedded store), written
over Bolt as batched ``UNWIND $rows ...`` write transactions.

Each step reads what the store holds of the stage *now* (only the stage's own ids:
a load into a big shared database does not read the database), writes exactly what is
missing, and commits batch by batch. A kill leaves a prefix of the batches; the rerun
computes the difference again and writes the rest, so it ends with the content of a
clean import. Nodes are written with ``MERGE`` (idempotent whatever happened);
facts with ``CREATE`` after the difference, because ``MERGE`` of a relationship walks
the relationships of its end nodes, which on a hub is every one of its facts.

The hub index (:mod:`kgstore.backends.neo4j.schema`) of an entity is rebuilt when
facts into it arrive: its ``Hub`` node is deleted before the first of them is written
and comes back last, when its ``InSlot`` nodes hold them all. Without the node, reads
filter the entity's facts by property (slower, always right); the hubs step rebuilds
every hub of the stage that has none, so a rerun after a kill anywhere in between (the
facts are stored by then, so they are not new to it) ends with the index of a clean
import.
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
from kgstore.backends.neo4j.search import complete_search_keys, with_folds
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

# Rows per write transaction. Measured on the 2-core test machine against the local
# server: 5k-20k facts per transaction all give ~25-30k facts/s; 1k loses ~30% to round
# trips; bigger ones only grow the server's transaction state.
ROWS_PER_WRITE = 10_000
# Ids per read of what the store holds of the stage.
IDS_PER_READ = 5_000

_ENTITY_COLUMNS = ("id", "name", "aliases", "types", "is_cvt", "description")


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

    # -- plumbing -----------------------------------------------------------------------
    def _rows(self, sql: str, params: list[Any] | None = None,
              size: int | None = None) -> Iterator[list[dict[str, Any]]]:
        """The rows of a DuckDB query as dicts, ``size`` (default
        :data:`ROWS_PER_WRITE`, read when called) at a time."""
        size = size or ROWS_PER_WRITE
        cursor = self.diff.db.execute(sql, params)
        names = [d[0] for d in cursor.description]
        while True:
            chunk = cursor.fetchmany(size)
            if not chunk:
                return
            yield [dict(zip(names, row, strict=True)) for row in chunk]

    def _write_all(self, step: str, sql: str, write: Callable[[list[dict[str, Any]]], q.Query],
                   total: int) -> None:
        """Write the rows of ``sql`` with ``write(rows)`` (``UNWIND $rows AS r ...``) in
        transactions of :data:`ROWS_PER_WRITE`, reporting rows done of ``total``."""
        done = 0
        for rows in self._rows(sql):
            self.store._write(*write(rows))
            done += len(rows)
            if self.progress:
                self.progress(f"import: {step}", done, total)

    def _existing(self, table: str, columns: dict[str, pa.DataType], ids_sql: str,
                  read: Callable[[list[str]], q.Query]) -> None:
        """DuckDB table ``table`` of what the store returns for the ids of
        ``ids_sql`` (``read(ids)`` returns ``columns`` in order)."""
        schema = pa.schema(list(columns.items()))
        parts: list[pa.Table] = []
        for batch in self._rows(ids_sql, size=IDS_PER_READ):
            ids = [next(iter(r.values())) for r in batch]
            rows = self.store._read(*read(ids))
            if rows:
                parts.append(pa.Table.from_pylist(
                    [dict(zip(columns, r, strict=True)) for r in rows], schema=schema))
        found = pa.concat_tables(parts) if parts else schema.empty_table()
        self.diff.db.register("_found", found)
        self.diff.sql(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM _found")
        self.diff.db.unregister("_found")

    # -- the import -----------------------------------------------------------------------
    def run(self, *, nameless_is_cvt: bool) -> ImportReport:
        work_root = self.store.staging_dir().parent
        work_root.mkdir(parents=True, exist_ok=True)
        for stale in work_root.glob("merge-*"):   # work folders of killed imports
            shutil.rmtree(stale, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix="merge-", dir=work_root) as work:
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
        self._existing(
            "old_entities",
            {"id": pa.string(), "name": pa.string(), "aliases": pa.list_(pa.string()),
             "types": pa.list_(pa.string()), "is_cvt": pa.bool_(),
             "description": pa.string()},
            "SELECT id FROM stage_entities ORDER BY id", q.stored_entities)
        self.diff.merge_entities(store_empty=False, cvt_types=self.cvt_types,
                                 nameless_is_cvt=nameless_is_cvt)
        scalar = self.diff.scalar
        self.report.entities_new = scalar("SELECT count(*) FROM merged WHERE NOT existed")
        self.report.entities_placeholder = scalar(
            "SELECT count(*) FROM merged WHERE NOT existed AND placeholder")
        self.report.entities_updated = scalar("SELECT count(*) FROM merged WHERE changed")
        self.report.names_replaced = scalar("SELECT count(*) FROM merged WHERE renamed")
        cols = ", ".join(_ENTITY_COLUMNS)
        self._write_all(
            "entities", f"SELECT {cols} FROM merged WHERE NOT existed OR changed ORDER BY id",
            q.write_entities, self.report.entities_new + self.report.entities_updated)

    def _literals(self) -> None:
        self._existing("old_literals", {"id": pa.string()},
                       "SELECT id FROM stage_literals ORDER BY id", q.stored_literal_ids)
        self.diff.sql("CREATE TABLE new_literals AS SELECT * FROM stage_literals "
                      "WHERE id NOT IN (SELECT id FROM old_literals)")
        self.report.literals_new = self.diff.scalar("SELECT count(*) FROM new_literals")
        self._write_all(
            "literals", f"SELECT * FROM ({typed_literals_sql('new_literals')}) ORDER BY id",
            q.write_literals, self.report.literals_new)

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
        for rows in self._rows("SELECT DISTINCT object AS id FROM new_facts "
                               "WHERE object_kind = 'E' ORDER BY id"):
            self.store._write(*q.unmark_hubs(rows))
        done = 0
        for kind, label in (("E", "Entity"), ("L", "Literal")):
            for rows in self._rows(
                    "SELECT subject AS s, predicate AS p, object AS o FROM new_facts "
                    f"WHERE object_kind = '{kind}' ORDER BY subject, predicate, object"):
                self.store._write(*q.write_facts(label, rows))
                done += len(rows)
                if self.progress:
                    self.progress("import: facts", done, new)

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
        hubs = [r[0] for r in self.diff.sql(
            "SELECT id FROM object_degrees WHERE degree >= ? AND NOT indexed ORDER BY id",
            [hub_min_in_degree()])]
        store = self.store
        for i, hub in enumerate(hubs):
            store._autocommit(*q.delete_slots(hub))
            store._autocommit(*q.fill_slots(hub))
            store._write(*q.mark_hub(hub))
            if self.progress:
                self.progress("import: hubs", i + 1, len(hubs))

    def _names(self) -> None:
        self.diff.sql(f"CREATE TABLE wanted_names AS {WANTED_NAMES_SQL}")
        self._existing(
            "old_names", {"key": pa.string(), "id": pa.string()},
            "SELECT id FROM merged WHERE existed ORDER BY id", q.stored_names)
        new_links = "SELECT key, id FROM wanted_names EXCEPT SELECT key, id FROM old_names"
        stale = "SELECT key, id FROM old_names EXCEPT SELECT key, id FROM wanted_names"
        total = self.diff.scalar(f"SELECT count(*) FROM ({new_links})")
        self._write_all(
            "names", f"SELECT key AS k, id FROM ({new_links}) ORDER BY key, id",
            lambda rows: q.write_names(with_folds(rows)), total)
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
