"""Offline bulk load into Neo4j: a store or a stage as the CSV files that
``neo4j-admin database import full`` reads, with the exact command.

The online import (batched writes over Bolt) is bounded by round trips and
transactions; Neo4j's import tool writes the store files directly and is the way to
load a KG of hundreds of millions of facts. This module writes its input so that the
imported database is the Neo4j store of :mod:`kgstore.backends.neo4j.schema` exactly:
the same labels, relationship types and properties, the name keys and hub index an
import into an empty store would write, and the ``Meta`` rows the embedded store writes
(``schema_version``, ``created_at``, ``cvt_types``).

Two inputs, told apart by their marker files:

* a kgbench store (read through the :class:`~kgstore.Store` API only, so any backend
  can be exported): its records are staged again into a work folder;
* a complete stage (:mod:`kgstore.staging`), merged as an import into an empty store
  merges it (:meth:`~kgstore.staging.diff.StageDiff.merge_entities`).

Both then go through the same DuckDB session, which writes every CSV file with
``COPY`` (RFC 4180 quoting: a quote doubled, fields with a delimiter, quote or line
break quoted), streaming and spilling to the work folder past its memory limit.

Choices the import tool forces, each checked against Neo4j 5.26's own tool
(``tests/kgstore/test_neo4j_admin_export.py`` runs it):

* Array elements (``aliases``, ``types``) are joined with a control character that no
  element contains (:data:`ARRAY_DELIMITERS`, the first one absent from the data), passed
  as ``--array-delimiter=U+00XX``: ``;``, the tool's default, occurs in names.
* The tool stores no empty array (an empty field is no property): an entity without
  aliases or types has no ``aliases`` / ``types`` property, which reads as null.
  For the same reason an alias list holding only the empty string is dropped.
* Doubles are written as Java reads them (``NaN``, ``Infinity``); DuckDB writes ``nan``.
  A ``date`` outside years 1-9999 (a BC year) is left out: the Python driver cannot read
  it back.
* Fields with line breaks need ``--multiline-fields``, which slows the tool down: it is
  given only the files that hold one (``--multiline-fields-format=v2``).
* The tool splits file lists at commas and reads a file *name* as a regular
  expression: the files have plain names, and an output folder whose path holds a comma
  is refused.

Headers go in files of their own (``*.header.csv``) so the data files are plain rows.
Constraints and indexes are not part of the import (``--schema`` is an Enterprise
option): the first :func:`kgstore.open_store` of the database creates them
(:data:`~kgstore.backends.neo4j.schema.CONSTRAINTS`, ``IF NOT EXISTS``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from kgstore import predicate_stats
from kgstore.backends.neo4j.schema import CONSTRAINTS, INDEXES
from kgstore.errors import StagingError
from kgstore.hubs import SLOT_SEPARATOR, hub_min_in_degree
from kgstore.location import is_uri
from kgstore.models import SourceRecord
from kgstore.neo4j_admin import (
    AFTER_IMPORT,
    ARRAY_DELIMITERS,
    ExportFile,
    Neo4jExportError,
    Neo4jExportReport,
    SourceKind,
)
from kgstore.staging import StageWriter, read_manifest, verify_stage
from kgstore.staging.diff import WANTED_NAMES_SQL, StageDiff, typed_literals_sql
from kgstore.store import SCHEMA_VERSION, ProgressCallback

__all__ = ["COMMAND_FILE", "EXPORT_MANIFEST", "source_kind", "write_import_files"]

STORE_MARKER = "kgbench-store.json"
"""The marker file of an embedded store directory (:mod:`kgstore.backends.ladybug.schema`)."""
STAGE_MANIFEST = "manifest.json"
COMMAND_FILE = "import.sh"
EXPORT_MANIFEST = "export.json"
SCAN_BATCH = 50_000
"""Records per batch read from a store."""


def source_kind(source: str) -> SourceKind:
    """Whether ``source`` is a kgbench store (a URI, or a directory with the store
    marker) or a stage (a directory with a stage manifest); else
    :class:`Neo4jExportError` saying what was found."""
    if is_uri(source):
        return "store"
    path = Path(source)
    if not path.exists():
        raise Neo4jExportError(f"{source}: no such directory; give a store directory "
                               "(written by `kgbench load`) or a stage directory")
    if not path.is_dir():
        raise Neo4jExportError(f"{source}: not a directory; give a store directory "
                               "(written by `kgbench load`) or a stage directory")
    if (path / STORE_MARKER).is_file():
        return "store"
    if (path / STAGE_MANIFEST).is_file():
        return "stage"
    raise Neo4jExportError(
        f"{source}: neither a kgbench store (no {STORE_MARKER}) nor a stage (no "
        f"{STAGE_MANIFEST}); give the directory `kgbench load --store` wrote, or a "
        "complete stage")


def write_import_files(source: str, out: str | Path, *, database: str = "neo4j",
                       force: bool = False, nameless_is_cvt: bool = False,
                       progress: ProgressCallback | None = None) -> Neo4jExportReport:
    """Write the ``neo4j-admin database import full`` input for ``source`` (a store
    location or a stage directory) into the new folder ``out``, with ``import.sh``
    (the command) and ``export.json`` (what was written).

    ``out`` must be absent or empty unless ``force`` (then its contents are replaced,
    once the new export is complete). Everything is written into a hidden folder beside
    ``out`` and renamed at the end, so a folder named ``out`` always holds a whole
    export. ``nameless_is_cvt`` applies to a stage only, as ``import_stage`` applies it
    (what ``kgbench load`` passes for the stage's format)."""
    started = time.perf_counter()
    kind = source_kind(source)
    target = Path(out).absolute()
    _check_target(target, source, kind, force=force)
    database = database.strip()
    if not database:
        raise Neo4jExportError("the database name is empty; give --database, e.g. neo4j")
    report = Neo4jExportReport(source=source, kind=kind, out=str(target), database=database)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.part-", dir=target.parent))
    try:
        work = partial / "work"
        work.mkdir()
        with _input(source, kind, work, progress) as (stage, manifest, cvt_types, sources):
            writer = _CsvExport(stage, manifest, work, partial, report, progress)
            try:
                writer.write(cvt_types=cvt_types, sources=sources,
                             store_cvt_flags=kind == "store",
                             nameless_is_cvt=nameless_is_cvt and kind == "stage")
            finally:
                writer.close()
        shutil.rmtree(work)
        report.command = _command(report, target)
        report.seconds = round(time.perf_counter() - started, 3)
        _write_command_files(partial, report)
        _replace(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return report


def _check_target(target: Path, source: str, kind: SourceKind, *, force: bool) -> None:
    if "," in str(target):
        raise Neo4jExportError(
            f"{target}: neo4j-admin splits its file lists at commas, so it cannot read files "
            "under a path with a comma; choose an --out without one")
    if target.exists() and not target.is_dir():
        raise Neo4jExportError(f"{target} exists and is not a directory; choose another --out")
    if not is_uri(source):
        src = Path(source).absolute().resolve()
        resolved = target.resolve()
        if resolved == src or resolved in src.parents or src in resolved.parents:
            raise Neo4jExportError(
                f"{target}: the output folder must lie outside the {kind} it exports "
                f"({source}); choose another --out")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise Neo4jExportError(
            f"{target} is not empty; choose a new --out, or add --force to replace its "
            "contents")


@contextmanager
def _input(source: str, kind: SourceKind, work: Path, progress: ProgressCallback | None
           ) -> Iterator[tuple[Path, dict[str, Any], list[str], list[SourceRecord]]]:
    """(stage directory, its manifest, mediator types, source records) of ``source``."""
    if kind == "stage":
        stage = Path(source)
        try:
            manifest = read_manifest(stage)
        except (StagingError, ValueError, OSError) as exc:
            raise Neo4jExportError(f"{source}: not a complete stage ({exc}); load the data "
                                   "again to stage it") from None
        problem = verify_stage(stage, manifest)
        if problem is not None:
            raise Neo4jExportError(f"{source}: the stage cannot be trusted: {problem}; load "
                                   "the data again to stage it") from None
        yield stage, manifest, [], []
        return
    from kgstore import open_store

    with open_store(source, read_only=True) as store:
        stats = store.stats()
        cvt_types = sorted(store.cvt_types())
        sources = store.sources()
        stage = work / "store-stage"
        with StageWriter(stage) as staged:
            done = 0
            for entities in store.iter_entities(batch=SCAN_BATCH):
                for entity in entities:
                    staged.add_entity_record(entity)
                done += len(entities)
                _report(progress, "reading store: entities", done, stats.entities)
            done = 0
            for facts in store.iter_facts(batch=SCAN_BATCH):
                for fact in facts:
                    staged.add_fact_record(fact)
                done += len(facts)
                _report(progress, "reading store: facts", done, stats.facts)
            for predicate in store.predicates():
                staged.add_predicate(predicate.id, predicate.label, predicate.aliases)
    yield stage, read_manifest(stage), cvt_types, sources


def _report(progress: ProgressCallback | None, step: str, done: int, total: int | None) -> None:
    if progress is not None:
        progress(step, done, total)


class _CsvExport:
    """The DuckDB session that turns a stage into the import tool's CSV files."""

    def __init__(self, stage: Path, manifest: dict[str, Any], work: Path, out: Path,
                 report: Neo4jExportReport, progress: ProgressCallback | None) -> None:
        self.diff = StageDiff(stage, work, manifest)
        self.out = out
        self.report = report
        self.progress = progress
        self.delimiter = ARRAY_DELIMITERS[0]

    def close(self) -> None:
        self.diff.close()

    def write(self, *, cvt_types: list[str], sources: list[SourceRecord],
              store_cvt_flags: bool, nameless_is_cvt: bool) -> None:
        steps = ["read", "entities", "literals", "facts", "names", "hubs", "predicates",
                 "metadata"]
        self._step(steps, "read")
        diff = self.diff
        diff.read_stage()
        if not store_cvt_flags:
            cvt_types = sorted(set(diff.cvt_types))
        # A store's entities carry their CVT flags already (merging its mediator types in
        # again could flag an entity the store does not); a stage's are decided here, as
        # an import into an empty store decides them.
        diff.merge_entities(store_empty=True, cvt_types=[] if store_cvt_flags else cvt_types,
                            nameless_is_cvt=nameless_is_cvt)
        diff.sql("DROP TABLE stage_entities")
        self.delimiter = self._array_delimiter()
        self.report.array_delimiter = self.delimiter
        self._step(steps, "entities")
        arrays = ("CASE WHEN len({c}) > 0 AND array_to_string({c}, $d) <> '' "
                  "THEN array_to_string({c}, $d) END")
        self._copy(
            "entity", "nodes", "Entity",
            "id:ID(Entity),:LABEL,name,aliases:string[],types:string[],is_cvt:boolean,"
            "description",
            f"SELECT id, 'Entity', name, {arrays.format(c='aliases')}, "
            f"{arrays.format(c='types')}, is_cvt, description FROM merged ORDER BY id", {"d": self.delimiter})
        self._step(steps, "literals")
        self._copy(
            "literal", "nodes", "Literal",
            "id:ID(Literal),:LABEL,value,datatype,lang,num:double,date:date",
            f"SELECT id, 'Literal', value, datatype, lang, {_JAVA_DOUBLE.format(x='num')}, "
            f"{_ISO_DATE.format(x='date')} FROM ({typed_literals_sql('stage_literals')}) "
            "ORDER BY id")
        self._step(steps, "facts")
        self.report.facts = diff.fact_rows
        for kind, end, name in (("E", "Entity", "fact_entity"), ("L", "Literal", "fact_literal")):
            self._copy(
                name, "relationships", "Fact",
                f":START_ID(Entity),:END_ID({end}),:TYPE,predicate",
                "SELECT subject, object, 'Fact', predicate FROM stage_facts "
                f"WHERE object_kind = '{kind}' ORDER BY subject, predicate, object")
        self._step(steps, "names")
        diff.sql(f"CREATE TABLE wanted_names AS {WANTED_NAMES_SQL}")
        self._copy("name", "nodes", "Name", "key:ID(Name),:LABEL",
                   "SELECT DISTINCT key, 'Name' FROM wanted_names ORDER BY key")
        self._copy("names", "relationships", "NAMES", ":START_ID(Name),:END_ID(Entity),:TYPE",
                   "SELECT key, id, 'NAMES' FROM wanted_names ORDER BY key, id")
        diff.sql("DROP TABLE wanted_names")
        self._step(steps, "hubs")
        self._hubs()
        self._step(steps, "predicates")
        self._copy(
            "predicate", "nodes", "Predicate", "id,:LABEL,label,count:long,aliases:string[]",
            "SELECT p.id, 'Predicate', p.label, coalesce(n.n, 0), "
            f"{arrays.format(c='p.aliases')} FROM stage_predicates p "
            "LEFT JOIN (SELECT predicate AS id, count(*) AS n FROM stage_facts GROUP BY "
            "predicate) n USING (id) ORDER BY p.id", {"d": self.delimiter})
        self._step(steps, "metadata")
        self._metadata(cvt_types, sources)
        self._step(steps, None)

    def _step(self, steps: list[str], name: str | None) -> None:
        done = len(steps) if name is None else steps.index(name)
        label = "export: done" if name is None else f"export: {name}"
        _report(self.progress, label, done, len(steps))

    def _array_delimiter(self) -> str:
        """The first of :data:`ARRAY_DELIMITERS` that no alias (of an entity or a
        predicate) or type contains."""
        checks = ", ".join(
            f"bool_or(contains(array_to_string(aliases, '') || array_to_string(types, ''), "
            f"chr({ord(d)})))" for d in ARRAY_DELIMITERS)
        found = self.diff.sql(
            f"SELECT {checks} FROM (SELECT aliases, types FROM merged UNION ALL "
            "SELECT aliases, []::VARCHAR[] FROM stage_predicates)")[0]
        for delimiter, used in zip(ARRAY_DELIMITERS, found, strict=True):
            if not used:
                return delimiter
        raise Neo4jExportError(
            "every array delimiter the export can use ("
            + ", ".join(f"U+{ord(d):04X}" for d in ARRAY_DELIMITERS)
            + ") occurs in an alias or type; clean those control characters from the data")

    def _hubs(self) -> None:
        """The hub index of an import into an empty store (see
        :func:`kgstore.backends.ladybug.hub_index.index_hubs`)."""
        minimum = hub_min_in_degree()
        self.diff.sql(f"""
            CREATE TABLE hub_facts AS
            WITH facts AS (SELECT subject, predicate, object FROM stage_facts
                           WHERE object_kind = 'E')
            SELECT object AS hub, predicate, subject FROM facts WHERE object IN (
                SELECT object FROM facts GROUP BY object HAVING count(*) >= {minimum})
        """)
        key = f"hub || chr({ord(SLOT_SEPARATOR)}) || predicate"
        self._copy("hub", "nodes", "Hub", "id,:LABEL",
                   "SELECT DISTINCT hub, 'Hub' FROM hub_facts ORDER BY hub")
        self._copy("in_slot", "nodes", "InSlot", "key:ID(InSlot),:LABEL,predicate",
                   f"SELECT DISTINCT {key} AS key, 'InSlot', predicate FROM hub_facts "
                   "ORDER BY key")
        self._copy("in_slot_links", "relationships", "IN_SLOT",
                   ":START_ID(InSlot),:END_ID(Entity),:TYPE",
                   f"SELECT {key} AS key, subject, 'IN_SLOT' FROM hub_facts "
                   "ORDER BY key, subject")
        self.diff.sql("DROP TABLE hub_facts")

    def _metadata(self, cvt_types: list[str], sources: list[SourceRecord]) -> None:
        now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        meta = [("schema_version", str(SCHEMA_VERSION)), ("created_at", now),
                ("cvt_types", json.dumps(sorted(cvt_types)))]
        # The predicate statistics an import into an empty store keeps, from the same facts.
        meta += list(predicate_stats.meta_rows(
            *predicate_stats.compute(self.diff.db, "stage_facts", "stage_literals")).items())
        self.diff.sql("CREATE TABLE meta (key VARCHAR, value VARCHAR)")
        self.diff.db.executemany("INSERT INTO meta VALUES (?, ?)", meta)
        self._copy("meta", "nodes", "Meta", "key,:LABEL,value",
                   "SELECT key, 'Meta', value FROM meta ORDER BY key")
        self.diff.sql("CREATE TABLE sources (id VARCHAR, file VARCHAR, checksum VARCHAR, "
                      "format VARCHAR, counts VARCHAR, loaded_at VARCHAR, status VARCHAR)")
        if sources:
            # As the stores record a source (LadybugStore.record_source).
            self.diff.db.executemany(
                "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(f"{s.file}#{s.checksum}", s.file, s.checksum, s.format,
                  json.dumps(s.counts, sort_keys=True), s.loaded_at, s.status)
                 for s in sources])
        self._copy("source", "nodes", "Source",
                   "id,:LABEL,file,checksum,format,counts,loaded_at,status",
                   "SELECT id, 'Source', file, checksum, format, counts, loaded_at, status "
                   "FROM sources ORDER BY id")

    def _copy(self, name: str, kind: Literal["nodes", "relationships"], label: str,
              header: str, sql: str, params: dict[str, Any] | None = None) -> None:
        """Write the rows of ``sql`` to ``<name>.csv`` and ``header`` to
        ``<name>.header.csv``; a query without rows writes neither."""
        path = self.out / f"{name}.csv"
        rows = self.diff.sql(
            f"COPY ({sql}) TO $path (FORMAT csv, HEADER false, DELIMITER ',', QUOTE '\"', "
            "ESCAPE '\"', NULLSTR '')", {**(params or {}), "path": str(path)})
        count = int(rows[0][0]) if rows else 0
        if not count:
            path.unlink(missing_ok=True)
            return
        (self.out / f"{name}.header.csv").write_text(header + "\n", encoding="utf-8")
        self.report.files.append(ExportFile(name, kind, label, header, count,
                                            _has_line_break(path, count)))


# How the import tool reads a double: Java's Double.parseDouble (NaN, Infinity).
_JAVA_DOUBLE = ("CASE WHEN isnan({x}) THEN 'NaN' WHEN {x} = 'inf'::DOUBLE THEN 'Infinity' "
                "WHEN {x} = '-inf'::DOUBLE THEN '-Infinity' ELSE CAST({x} AS VARCHAR) END")
# Dates of years 1-9999 only: Neo4j stores others, but its Python driver cannot read
# them back (Python's date ends there), nor could the online import have written them.
# (DuckDB would also write a BC date as "0044-03-15 (BC)".)
_ISO_DATE = "CASE WHEN year({x}) BETWEEN 1 AND 9999 THEN CAST({x} AS VARCHAR) END"


def _has_line_break(path: Path, rows: int, chunk: int = 1 << 24) -> bool:
    """Whether a CSV file of ``rows`` rows written by DuckDB has a field with a line
    break in it: it holds a CR (DuckDB ends rows with a LF alone), or more LFs than rows.
    A byte scan: a check of every text column in SQL would cost a pass over the table
    per file, this one reads the file the OS has just cached."""
    lines = 0
    with open(path, "rb") as fh:
        while data := fh.read(chunk):
            if b"\r" in data:
                return True
            lines += data.count(b"\n")
    return lines != rows


def _command(report: Neo4jExportReport, target: Path) -> list[str]:
    """The ``neo4j-admin database import full`` command that loads the export from
    ``target`` (absolute paths: it may run from any folder)."""
    def files(f: ExportFile) -> str:
        return f"{target / (f.name + '.header.csv')},{target / (f.name + '.csv')}"

    command = ["neo4j-admin", "database", "import", "full", report.database]
    command += [f"--nodes={files(f)}" for f in report.files if f.kind == "nodes"]
    command += [f"--relationships={files(f)}" for f in report.files
                if f.kind == "relationships"]
    command += ["--id-type=string", "--delimiter=,", "--quote=\"",
                f"--array-delimiter=U+{ord(report.array_delimiter):04X}",
                "--legacy-style-quoting=false", "--ignore-empty-strings=false",
                "--trim-strings=false",
                # Beside the files, not in whichever folder the command runs from.
                f"--report-file={target / 'import.report'}"]
    multiline = [str(target / f"{f.name}.csv") for f in report.files if f.multiline]
    if multiline:
        command += ["--multiline-fields-format=v2", "--multiline-fields=" + ",".join(multiline)]
    command.append("--overwrite-destination=true")
    return command


def _write_command_files(folder: Path, report: Neo4jExportReport) -> None:
    constraints = "\n".join(f"#   {c};" for c in (*CONSTRAINTS, *INDEXES))
    body = shlex.join(report.command[1:])
    script = (
        "#!/bin/sh\n"
        f"# Loads this kgbench export ({report.kind} {report.source!r}) into the Neo4j 5\n"
        f"# database {report.database!r}, offline: stop Neo4j (or that database) first;\n"
        "# --overwrite-destination replaces what the database held.\n"
        "# NEO4J_ADMIN names the tool where it is not on PATH (e.g. $NEO4J_HOME/bin/neo4j-admin).\n"
        "#\n"
        f"# {AFTER_IMPORT}\n"
        "# The statements it runs:\n"
        f"{constraints}\n"
        "set -e\n"
        f'exec "${{NEO4J_ADMIN:-neo4j-admin}}" {body}\n'
    )
    path = folder / COMMAND_FILE
    path.write_text(script, encoding="utf-8")
    path.chmod(0o755)
    (folder / EXPORT_MANIFEST).write_text(
        json.dumps(report.to_json(), indent=2, ensure_ascii=True) + "\n", encoding="utf-8")


def _replace(partial: Path, target: Path) -> None:
    """Put the finished export at ``target``: a rename, after moving away what
    ``--force`` replaces (removed only once the new export is in place)."""
    old: Path | None = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        os.rmdir(old)
        os.replace(target, old)
    os.replace(partial, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
