"""What a store lacks of a stage, computed in DuckDB: the part of a bulk import that is
the same for every backend.

A :class:`StageDiff` reads a complete stage (:mod:`kgstore.staging.writer`) into
in-memory DuckDB tables, spilling to the import's work folder, and merges its entities
with the store's (the merge rule below). The backend copies the store's current rows in
(``old_*`` tables, through its own queries), asks for the difference, and writes it
with its own bulk path (LadybugDB: ``COPY`` from Parquet; Neo4j: batched writes). Every
step compares with the store as it is *now*, so an import that died half-way is
completed by running it again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from kgstore.enginepaths import duckdb_read_path
from kgstore.models import NORMALIZE_NAME_SQL
from kgstore.staging.writer import SCHEMAS, staged_parts

__all__ = ["DATE_DATATYPES", "NAME_KEY_SQL", "NUMERIC_DATATYPES", "StageDiff",
           "typed_literals_sql"]

IMPORT_DUCKDB_MEMORY = "1GB"
"""DuckDB's memory during an import (``KGBENCH_DUCKDB_MEMORY`` overrides it). It runs
beside the store engine (LadybugDB's buffer pool: 2 GiB by default), so the two stay
within about 3 GiB; past it, DuckDB spills to the import's work folder (20M-line stage,
300 MB limit vs 2 GB: fact dedupe 13% and entity aggregation 27% slower)."""

# NORMALIZE_NAME_SQL without its regular expression where it cannot change anything:
# a name with no run of spaces and none of the other characters RE2's \s matches
# (\t \n \f \r) is only lower-cased, and trimmed when it starts or ends with a space.
# The 1M names and aliases of a 20M-line Freebase stage: 1.5 CPU-s instead of 5.
NAME_KEY_SQL = (
    "CASE WHEN contains(x, '  ') OR contains(x, chr(9)) OR contains(x, chr(10)) "
    "OR contains(x, chr(12)) OR contains(x, chr(13)) "
    f"THEN {NORMALIZE_NAME_SQL.format(x='x')} "
    "WHEN starts_with(x, ' ') OR ends_with(x, ' ') THEN trim(lower(x), ' ') "
    "ELSE lower(x) END"
)

NUMERIC_DATATYPES = (
    "xsd:integer", "xsd:int", "xsd:long", "xsd:short", "xsd:decimal", "xsd:double",
    "xsd:float", "xsd:nonNegativeInteger", "xsd:positiveInteger", "xsd:negativeInteger",
    "xsd:nonPositiveInteger", "xsd:unsignedInt", "xsd:unsignedLong", "xsd:byte",
    "xsd:unsignedShort", "xsd:unsignedByte",
)
DATE_DATATYPES = ("xsd:date", "xsd:dateTime", "xsd:gYear", "xsd:gYearMonth")


class StageDiff:
    """One import's DuckDB session over a stage (see the module docstring). Tables are
    named as the backends' import steps use them; :meth:`close` ends the session."""

    def __init__(self, stage: Path, work: Path, manifest: dict[str, Any]) -> None:
        self.stage = stage
        self.work = work
        self.manifest = manifest
        self.fact_stats: dict[str, tuple[int, float]] = {}
        """Facts of the stage per object kind ("E", "L"): (rows, mean predicate length)."""
        self.fact_rows = 0
        """Distinct facts in the stage."""
        self.cvt_types: list[str] = []
        """The mediator types the stage names."""
        # In memory (spilling to `work` past memory_limit): measured 2.4x faster on the
        # fact dedupe than a database file.
        self.db = duckdb.connect()
        # Paths and settings as parameters: never SQL text (a store path may hold quotes).
        self.sql("SET temp_directory = ?", [str(work / "spill")])
        memory = os.environ.get("KGBENCH_DUCKDB_MEMORY", IMPORT_DUCKDB_MEMORY)
        self.sql("SET memory_limit = ?", [memory])
        self.sql("SET preserve_insertion_order = false")
        # A SQL macro rather than a Python UDF: 10x faster on millions of names.
        self.sql(f"CREATE MACRO normalize_name(x) AS {NAME_KEY_SQL}")

    def close(self) -> None:
        self.db.close()

    def sql(self, sql: str, params: list[Any] | dict[str, Any] | None = None
            ) -> list[tuple[Any, ...]]:
        """Run one DuckDB statement to completion (DuckDB 2 refuses new work on a
        connection while a result is pending)."""
        return self.db.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: list[Any] | None = None) -> int:
        rows = self.sql(sql, params)
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    def export(self, sql: str, name: str, params: dict[str, Any] | None = None) -> str:
        """Write the rows of ``sql`` to ``<work>/<name>.parquet``; return its path.
        ``params`` are the named parameters of ``sql`` (``$path`` is taken)."""
        path = str(self.work / f"{name}.parquet")
        self.sql(f"COPY ({sql}) TO $path (FORMAT parquet, COMPRESSION uncompressed)",
                 {**(params or {}), "path": path})
        return path

    def read_stage(self) -> None:
        """Tables ``stage_facts`` (distinct), ``stage_entities`` (one row per id, the
        stage's rows merged; fact endpoints without a row as placeholders),
        ``stage_literals``, ``stage_predicates``; :attr:`fact_stats`,
        :attr:`fact_rows` and :attr:`cvt_types` from the stage."""
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

        self.sql(
            "CREATE TABLE stage_facts AS SELECT DISTINCT subject, predicate, object, object_kind "
            f"FROM {read('facts')}"
        )
        # Facts per object kind, with the mean predicate length (a backend's batch
        # sizes depend on it).
        self.fact_stats = {
            kind: (int(n), float(chars))
            for kind, n, chars in self.sql(
                "SELECT object_kind, count(*), avg(length(predicate)) FROM stage_facts "
                "GROUP BY object_kind")}
        self.fact_rows = sum(n for n, _ in self.fact_stats.values())
        # Scalars, aliases and types are aggregated separately and joined: a list of
        # lists per id (most rows carry one alias or type, or none) cost 30% more CPU
        # (20M-line Freebase stage: 9.7 s vs 6.9 s); the result is the same.
        self.sql(f"""
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
        self.sql(
            "INSERT INTO stage_entities SELECT id, NULL, [], [], NULL, NULL, true FROM ("
            "SELECT subject AS id FROM stage_facts UNION "
            "SELECT object FROM stage_facts WHERE object_kind = 'E') "
            "WHERE id NOT IN (SELECT id FROM stage_entities)"
        )
        self.sql(
            "CREATE TABLE stage_literals AS SELECT DISTINCT ON (id) id, value, datatype, lang "
            f"FROM {read('literals')}"
        )
        self.sql(
            "CREATE TABLE stage_predicates AS SELECT id, max(label) AS label, "
            "list_sort(list_distinct(flatten(list(aliases)))) AS aliases FROM ("
            "SELECT DISTINCT predicate AS id, NULL::VARCHAR AS label, []::VARCHAR[] AS aliases "
            f"FROM stage_facts UNION ALL {self._predicate_rows(read('predicates'))}"
            ") GROUP BY id"
        )
        self.cvt_types = [r[0] for r in self.sql(f"SELECT DISTINCT type FROM {read('cvt_types')}")]

    def _predicate_rows(self, view: str) -> str:
        """The staged predicate rows as ``id, label, aliases``: a stage written before
        predicates had aliases (a copy's kept dump) has no such column."""
        columns = {row[0] for row in self.sql(f"DESCRIBE {view}")}
        aliases = "coalesce(aliases, [])" if "aliases" in columns else "[]::VARCHAR[]"
        return f"SELECT id, label, {aliases} FROM {view}"

    def merge_entities(self, *, store_empty: bool, cvt_types: Sequence[str],
                       nameless_is_cvt: bool) -> None:
        """Table ``merged``: every entity of the stage as the store will hold it, with
        ``existed``, ``changed``, ``renamed`` and ``placeholder`` flags. Reads table
        ``old_entities`` (the store's entities: id, name, aliases, types, is_cvt,
        description), which the backend fills unless ``store_empty``. ``cvt_types`` are
        the mediator types (the store's and the stage's)."""
        if store_empty:
            self.sql("CREATE TABLE old_entities (id VARCHAR, name VARCHAR, aliases VARCHAR[], "
                     "types VARCHAR[], is_cvt BOOLEAN, description VARCHAR)")
        self.sql("CREATE TEMP TABLE cvt_types AS SELECT unnest(?::VARCHAR[]) AS type",
                 [list(cvt_types)])
        subject_rule = (
            "OR (m.name IS NULL AND m.id IN (SELECT subject FROM stage_facts))"
            if nameless_is_cvt else ""
        )
        # Merge rule: new non-null scalar wins; lists are unioned; CVT if either side or
        # a mediator type or (optionally) the nameless-subject rule says so. Into an
        # empty store the stage's rows are the result (their lists are already sorted
        # and distinct): no join and no list merging (1.5-2.2 s of a 20M-line import).
        if store_empty:
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
        self.sql(f"""
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
        self.sql("UPDATE merged SET changed = true "
                 "WHERE existed AND is_cvt IS DISTINCT FROM o_is_cvt")


def typed_literals_sql(table: str) -> str:
    """The rows of ``table`` (id, value, datatype, lang) with the typed values a store
    keeps beside the lexical one: ``num`` for numeric datatypes, ``date`` for dates
    (a year alone is read as its first day)."""
    numeric = ", ".join(f"'{d}'" for d in NUMERIC_DATATYPES)
    dates = ", ".join(f"'{d}'" for d in DATE_DATATYPES)
    return ("SELECT id, value, datatype, lang, "
            f"CASE WHEN datatype IN ({numeric}) THEN TRY_CAST(value AS DOUBLE) END AS num, "
            f"CASE WHEN datatype IN ({dates}) THEN COALESCE(TRY_CAST(left(value, 10) AS DATE), "
            f"TRY_CAST(left(value, 4) || '-01-01' AS DATE)) END AS date FROM {table}")


WANTED_NAMES_SQL = """
    SELECT DISTINCT key, id FROM (
        SELECT normalize_name(name) AS key, id FROM merged WHERE name IS NOT NULL
        UNION ALL
        SELECT normalize_name(unnest(aliases)) AS key, id FROM merged
    ) WHERE key IS NOT NULL AND key <> ''
"""
"""The (name key, entity id) pairs of table ``merged``: every name and alias,
normalised (:func:`kgstore.models.normalize_name`)."""

MERGED_PREDICATE_NAMES = (
    "coalesce(s.label, o.label) AS label, "
    "list_sort(list_distinct(list_concat(coalesce(o.aliases, []), s.aliases))) AS aliases")
"""A staged predicate ``s`` merged with its stored row ``o`` (NULLs when new): a staged
label replaces the stored one (as a new name replaces an entity's), aliases are the
union, sorted."""

RENAMED_PREDICATES_SQL = f"""
    SELECT s.id, {MERGED_PREDICATE_NAMES}
    FROM stage_predicates s JOIN old_predicates o USING (id)
    WHERE (s.label IS NOT NULL AND s.label IS DISTINCT FROM o.label)
       OR NOT list_has_all(coalesce(o.aliases, []), s.aliases)
"""
"""The stored predicates (table ``old_predicates``: id, label, aliases) whose label or
aliases the stage changes, as they will be (``id, label, aliases``)."""
