"""The stager of :mod:`loaders.vectorized` (steps 3 and 4 below, driving 1 and 2):
vectorised staging of dump-scale N-Triples with DuckDB (Freebase dump, ``load rdf``).

The Python parser (:mod:`loaders.ntriples`) reads ~200k lines/s; a Freebase dump has
3 billion. The package stages such files at DuckDB speed while keeping the Python
parser's results (W3C N-Triples) and the :class:`~loaders.triples.TripleMapper`
mapping conventions:

1. **Read** (:class:`~loaders.vectorized.chunks.ChunkReader`, a background thread): decompress (gzip through
   ISA-L, bzip2 and Zstandard through Arrow's codecs; all release the GIL) and cut the text into
   plain chunk files of about :data:`~loaders.vectorized.chunks.CHUNK_BYTES` at line ends, numbering lines
   (LF only, as :class:`~loaders.sources.TextSource` does; a chunk whose CRs are all
   CRLF is normalised to LF, one with lone CRs goes to the Python parser whole). At
   most :data:`~loaders.vectorized.chunks.READ_AHEAD` chunks wait on disk, so disk and memory stay flat; the
   files of processed chunks are overwritten by later ones. Lines longer than the CSV
   reader handles reliably are taken out of the chunks (:class:`~loaders.vectorized.chunks.LineGuard`) for the
   Python parser; one longer than :func:`~loaders.sources.max_line_bytes` is malformed.
2. **Parse** each chunk in SQL (DuckDB ``read_csv``, all cores): a :class:`~loaders.vectorized.syntax.LineSyntax`
   splits lines into terms with string functions and decides which lines it fully
   understands (*fast* lines). Everything else (escapes it does not resolve, blank
   nodes, unusual spacing, wrong field counts, invalid UTF-8, malformed lines) goes
   to :func:`loaders.ntriples.parse_line_raw` with its exact line number, so the
   result is what the W3C-conformant parser says, malformed lines included. A
   shortcut keeps the common path cheap: predicates are classified once (validity,
   id, role, filter verdict) and cached in a small table the lines are joined with,
   so a line whose predicate is dropped is checked, but not mapped (the join hashes
   the cache, not the chunk: DuckDB's build-side optimizer is off). Subject and
   object IRIs are checked against the IRIREF grammar with one regular expression each
   (:func:`~loaders.vectorized.sql.iri_ok_sql`; about 0.15 s per million lines more than the cheap string
   screen it replaced, measured, but exact), so an IRI holding a character N-Triples
   forbids goes to the Python parser, which reports it as malformed.
3. **Map and filter** in SQL (:class:`VectorStager`): roles of predicates (name,
   alias, type, ``type.type.instance``, description, mediator hint), language
   selection, the :class:`~loaders.predicate_filter.PredicateFilter` (dropped lines counted by
   reason) and literal keys (``sha1`` exactly as :attr:`kgstore.models.Literal.key`).
4. **Write** the staged tables with ``COPY ... TO`` straight into Parquet parts of the
   :class:`~kgstore.staging.StageWriter` (one part per table and chunk; duplicates
   are left to the import, which dedupes). One aggregate over the chunk's rows gives
   all counts.

DuckDB runs with ``memory_limit`` (``$KGBENCH_DUCKDB_MEMORY``, default 2GB) and spills
to a temp directory inside the stage, so memory does not grow with the dump.

Differences from :class:`~loaders.triples.TripleMapper` (documented, deliberate): the
name (and description) of an entity is the one in the first language of ``langs``
that has one (TripleMapper: the first line in the file); among several names in that
language a deterministic one (by content hash) wins. A name labels a predicate when
its subject looks like a property id (``domain.type.property``, ``P57``) or was used
as a predicate in this or an earlier chunk of the file.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from kgstore.models import short_datatype
from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback
from loaders.errors import MalformedInputError, ParseReport
from loaders.ntriples import NTriplesSyntaxError, RawTriple, parse_line_raw
from loaders.pipeline import (
    DROPPED_PREFIX,
    PREDICATE_PREFIX,
    LoadOptions,
    PredicateFilter,
    sql_str,
)
from loaders.sources import (
    long_line_reason,
)
from loaders.triples import (
    ALIAS_PREDICATES,
    DESCRIPTION_PREDICATES,
    INSTANCE_PREDICATES,
    MEDIATOR_PREDICATES,
    NAME_PREDICATES,
    TYPE_PREDICATES,
    TripleMapper,
)
from loaders.vectorized.chunks import CHUNK_BYTES, Chunk, ChunkReader
from loaders.vectorized.sql import XSD_STRING, iri_id_sql, iri_ok_py, iri_ok_sql
from loaders.vectorized.syntax import LineSyntax, RegexSyntax

_SEQ_SPAN = 1 << 40
_MAX_LOCATE = 1000  # malformed lines per chunk whose line numbers are looked up
_PROGRESS_EVERY_S = 0.5


# -- the stager --------------------------------------------------------------------------
_ROLE_CODES: dict[str, str] = {}
for _code, _iris in (("N", NAME_PREDICATES), ("A", ALIAS_PREDICATES), ("T", TYPE_PREDICATES),
                     ("I", INSTANCE_PREDICATES), ("D", DESCRIPTION_PREDICATES),
                     ("M", MEDIATOR_PREDICATES)):
    for _iri in _iris:
        _ROLE_CODES[_iri] = _code
_ENTITY_KINDS = "('N', 'A', 'T', 'I', 'D')"
_PART_OPTIONS = {
    # Entity ids, names and descriptions are nearly all distinct: DuckDB built a
    # dictionary per column and dropped it. And a chunk has fewer entity rows than two
    # default row groups (122,880), so one thread encoded them all. A million-line
    # chunk: 0.17 -> 0.12 s wall, 13% less CPU; the 5M-line stage's entities 12.1 ->
    # 10.1 MB, aggregated by the import in the same time within noise (0.66-0.75 s).
    "entities": ", DICTIONARY_SIZE_LIMIT 1, ROW_GROUP_SIZE 50000",
}
"""Parquet options for a stage table's parts, beyond zstd level 1 (a faster codec or none
saved nothing measurable: the time goes to encoding, not compression)."""
_TERM_COLUMNS = ("sid", "pid", "role", "preason", "okind", "obj", "dt", "lang")


@dataclass(slots=True)
class _Bad:
    """A line the Python parser rejected: line number (None: to be located) and reason."""

    line: int | None
    reason: str
    raw: str | None = None


class VectorStager:
    """Stages one N-Triples-like file with DuckDB; see the module docstring. A stager
    for :func:`loaders.pipeline.run_load`.

    ``syntax`` splits lines; ``default_filter`` are the format's predicate rules (see
    :class:`~loaders.predicate_filter.PredicateFilter`); ``drop_foreign_literals`` drops
    every literal in a language not in ``options.langs`` (reason ``lang``), not only
    names, aliases and descriptions. ``fallback_syntax`` is used instead of ``syntax``
    for a file whose first lines ``syntax`` does not fit (e.g. space-separated lines
    given to :class:`TabSyntax`). ``chunk_bytes``: see :class:`ChunkReader`;
    ``threads``: DuckDB threads (default: all cores). ``stage_version`` and
    ``nameless_is_cvt`` are what :func:`~loaders.pipeline.run_load` reads from a stager.
    """

    def __init__(self, syntax: LineSyntax, *, fallback_syntax: LineSyntax | None = None,
                 default_filter: Sequence[tuple[str, str]] = (),
                 drop_foreign_literals: bool = False, chunk_bytes: int = CHUNK_BYTES,
                 threads: int | None = None, stage_version: int = 1,
                 nameless_is_cvt: bool | str = True) -> None:
        self.syntax = syntax
        self.fallback_syntax = fallback_syntax
        self.stage_version = stage_version
        self.nameless_is_cvt = nameless_is_cvt
        self.default_filter = tuple(default_filter)
        self.drop_foreign_literals = drop_foreign_literals
        self.chunk_bytes = chunk_bytes
        self.threads = threads

    def __call__(self, path: Path, writer: StageWriter, report: ParseReport, *,
                 options: LoadOptions, strict: bool = False,
                 progress: ProgressCallback | None = None) -> dict[str, int]:
        return _Run(self, Path(path), writer, report, options, strict, progress).run()


class _Run:
    """One file through a :class:`VectorStager`."""

    def __init__(self, stager: VectorStager, path: Path, writer: StageWriter,
                 report: ParseReport, options: LoadOptions, strict: bool,
                 progress: ProgressCallback | None) -> None:
        import duckdb

        self.stager = stager
        self.syntax = stager.syntax
        if stager.fallback_syntax is not None and not stager.syntax.fits(path):
            self.syntax = stager.fallback_syntax
        self.path = path
        self.name = str(path)
        self.writer = writer
        self.report = report
        self.options = options
        self.strict = strict
        self.progress = progress
        self.filter = PredicateFilter.for_options(options, stager.default_filter)
        self.mapper = TripleMapper(writer, namespaces=options.namespaces, langs=options.langs,
                                   bnode_scope=options.bnode_scope)
        self._bnode = f"_:{options.bnode_scope}_" if options.bnode_scope else "_:"
        self.seq_base = writer.next_seq((len(options.langs or ()) + 2) * _SEQ_SPAN)
        self.work = writer.dir / "_work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect()
        self._sql(f"SET temp_directory = {sql_str(str(self.work / 'spill'))}")
        self._sql(f"SET memory_limit = "
                  f"{sql_str(os.environ.get('KGBENCH_DUCKDB_MEMORY', '2GB'))}")
        self._sql("SET preserve_insertion_order = false")
        # Every join here has its small side (the predicate cache, used_preds, a list)
        # on the right, where the hash table belongs. DuckDB's build/probe-side optimizer
        # swapped the predicate cache join to hash the whole chunk (read_csv's row count
        # is unknown to it), with little parallelism: the chunk statement took 2.0-2.1 s
        # per million lines on 2 threads instead of 1.0-1.2 s, and staging a 5M-line
        # dump peaked at 640 MB RSS instead of 370 MB, measured.
        self._sql("SET disabled_optimizers = 'build_side_probe_side'")
        if stager.threads:
            self._sql(f"SET threads = {int(stager.threads)}")
        self._sql("CREATE TEMP TABLE used_preds (id VARCHAR)")
        self._sql("CREATE TEMP TABLE preds (c_key VARCHAR, c_ok BOOLEAN, c_pid VARCHAR, "
                  "c_role VARCHAR, c_reason VARCHAR)")
        self.counts: dict[str, int] = {}
        self.by_kind: dict[str, int] = {}
        self.preds: dict[str, int] = {}
        self.dropped: dict[str, int] = {}
        self.started = time.perf_counter()
        self._last_tick = 0.0
        self._mapping = self._mapping_sql()

    def _sql(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        return self.con.execute(sql, params).fetchall()

    # -- SQL -----------------------------------------------------------------------
    def _chunk_sql(self, chunk: Path) -> str:
        """Terms of a chunk joined with the predicate cache: the mapping's input.
        Predicates not in the cache yet are classified by the fallback expressions
        (the same rules as :meth:`_classify`, which fills the cache)."""
        syntax = self.syntax
        key_ok = (iri_ok_sql("p_key", bracketed=True) if syntax.bracketed_keys else "true")
        pid = iri_id_sql("p_key", self.options.namespaces, bracketed=syntax.bracketed_keys)
        roles = " ".join(f"WHEN {sql_str(syntax.key_of(iri))} THEN '{code}'"
                         for iri, code in sorted(_ROLE_CODES.items()))
        joined = (f"(SELECT r.*, k.*, coalesce(k.c_reason IS NOT NULL, false) AS early "
                  f"FROM {syntax.source_sql(chunk)} r LEFT JOIN preds k ON r.p_key = k.c_key)")
        terms = syntax.terms_sql(joined, self.options.namespaces)
        return f"""(
          SELECT fast, sid, pid, role,
                 CASE WHEN new THEN {self.filter.sql('pid')} ELSE c_reason END AS preason,
                 okind, obj, dt, lang,
                 CASE WHEN NOT fast THEN {syntax.raw_sql()} END AS raw,
                 CASE WHEN NOT fast THEN x IS NOT NULL END AS partial,
                 CASE WHEN new THEN p_key END AS new_key
          FROM (
            SELECT *, c_key IS NULL AS new,
                   coalesce(CASE WHEN NOT shape_ok THEN false WHEN c_key IS NULL THEN {key_ok}
                            ELSE c_ok END, false) AS fast,
                   CASE WHEN c_key IS NULL THEN {pid} ELSE c_pid END AS pid,
                   CASE WHEN c_key IS NOT NULL THEN c_role
                        ELSE CASE p_key {roles} ELSE 'F' END END AS role
            FROM ({terms})
          )
        )"""

    def _mapping_sql(self) -> str:
        """The mapping over a relation ``__SRC__`` (see :meth:`_map`) with the columns
        fast, sid, pid, role, preason, okind, obj, dt, lang, raw, partial, new_key."""
        langs = self.options.langs
        if langs is None:
            lang_ok = "true"
        else:
            listed = ", ".join(sql_str(x) for x in langs) or "NULL"
            lang_ok = f"(lang IS NULL OR lang IN ({listed}))"
        foreign = ("WHEN okind = 'L' AND NOT lang_ok THEN 'X'"
                   if self.stager.drop_foreign_literals else "")
        ws = "' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)"
        return f"""
        SELECT kind,
               CASE WHEN kind = 'X' THEN coalesce(preason, 'lang') END AS reason,
               sid, pid, okind, obj, dt, lang,
               CASE WHEN kind = 'F' AND okind = 'L' THEN 'lit:' || substr(sha1(
                    obj || chr(31) || coalesce(dt, '') || chr(31) || coalesce(lang, '')), 1, 24)
                    END AS key,
               raw, partial, new_key
        FROM (
          SELECT *, CASE
                 WHEN NOT fast THEN 'S'
                 WHEN preason IS NOT NULL THEN 'X'
                 WHEN role IN ('N', 'A', 'D') AND okind = 'L'
                      THEN CASE WHEN {lang_ok} THEN role ELSE 'X' END
                 WHEN role IN ('T', 'I') AND okind = 'E' THEN role
                 WHEN role = 'M' AND okind = 'L' THEN
                      CASE WHEN lower(trim(obj, {ws})) IN ('true', '1') THEN 'C' ELSE 'Z' END
                 {foreign.replace('lang_ok', lang_ok)}
                 ELSE 'F' END AS kind
          FROM __SRC__
        )"""

    def _seq_sql(self) -> str:
        """``seq`` of a staged entity row: a name or description in the first of
        ``langs`` sorts first (the import keeps the first by ``seq``), then the next
        language...; ties broken by a hash of the text, so the choice is deterministic."""
        langs = self.options.langs
        ranks = " ".join(f"WHEN {sql_str(x)} THEN {i}" for i, x in enumerate(langs or ()))
        rank = f"(CASE lang {ranks} ELSE {len(langs or ())} END)" if ranks else "0"
        return (f"CASE WHEN kind IN ('N', 'D') THEN {self.seq_base} + {rank} * {_SEQ_SPAN} "
                f"+ CAST(hash(obj) % {_SEQ_SPAN} AS BIGINT) ELSE {self.seq_base} END")

    def _map(self, src: str) -> str:
        return self._mapping.replace("__SRC__", src)

    def _classify(self, key: str) -> tuple[str, bool, str, str, str | None]:
        """A predicate cache row ``(key, ok, pid, role, reason)``, computed in Python."""
        bracketed = self.syntax.bracketed_keys
        ok = iri_ok_py(key, bracketed=bracketed)
        iri = key[1:-1] if bracketed and ok else key
        pid = self.mapper.iri_id(iri)
        return key, ok, pid, _ROLE_CODES.get(iri, "F"), self.filter.reason(pid)

    # -- running -------------------------------------------------------------------
    def run(self) -> dict[str, int]:
        chunk_bytes = int(os.environ.get("KGBENCH_CHUNK_BYTES") or self.stager.chunk_bytes)
        reader = ChunkReader(self.path, self.work / "chunks", chunk_bytes=chunk_bytes)
        self.max_line = reader.max_line
        try:
            for chunk in reader:
                self._chunk(chunk)
                self._tick(reader.position, reader.size)
            self._tick(reader.size, reader.size, force=True)
        finally:
            reader.close()
            self.con.close()
            shutil.rmtree(self.work, ignore_errors=True)
        return self._result()

    def _tick(self, done: int, total: int, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.perf_counter()
        if not force and now - self._last_tick < _PROGRESS_EVERY_S:
            return
        self._last_tick = now
        rate = self.report.lines / max(now - self.started, 1e-9)
        facts = self.by_kind.get("F", 0)
        self.progress(f"parsing {self.path.name} | {self.report.lines:,} lines, "
                      f"{rate:,.0f} lines/s, {facts:,} facts kept", done, total)

    def _chunk(self, chunk: Chunk) -> None:
        self.report.lines += chunk.lines
        bad: list[_Bad] = []
        if chunk.python:
            empty = ", ".join(f"NULL::VARCHAR AS {c}" for c in _TERM_COLUMNS)
            self._sql("CREATE OR REPLACE TEMP TABLE m AS " + self._map(
                f"(SELECT true AS fast, {empty}, NULL::VARCHAR AS raw, NULL::BOOLEAN AS partial, "
                "NULL::VARCHAR AS new_key WHERE false)"))
            rows, bad = self._python_chunk(chunk)
        else:
            self._sql("CREATE OR REPLACE TEMP TABLE m AS "
                      + self._map(self._chunk_sql(chunk.path)))
            new = [r[0] for r in self._sql(
                "SELECT DISTINCT new_key FROM m WHERE new_key IS NOT NULL")]
            if new:
                self.con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?)",
                                     [list(self._classify(k)) for k in new])
            slow = self._sql("SELECT raw, partial FROM m WHERE kind = 'S'")
            rejects = self._sql(
                "SELECT line, min(line_byte_position) FROM reject_errors "
                "GROUP BY line ORDER BY line")
            self._sql("DROP TABLE IF EXISTS reject_errors")
            self._sql("DROP TABLE IF EXISTS reject_scans")
            rows, bad = self._python_rows(chunk, slow, rejects)
        if chunk.long_lines:
            self._long_lines(chunk, rows, bad)
        if bad:
            self._malformed(chunk, bad)
        if rows:
            table = pa.table({
                "fast": pa.array([True] * len(rows), pa.bool_()),
                **{name: pa.array([r[i] for r in rows], pa.string())
                   for i, name in enumerate(_TERM_COLUMNS)},
                "raw": pa.nulls(len(rows), pa.string()),
                "partial": pa.nulls(len(rows), pa.bool_()),
                "new_key": pa.nulls(len(rows), pa.string()),
            })
            self.con.register("slow_rows", table)
            try:
                self._sql("INSERT INTO m " + self._map("slow_rows"))
            finally:
                self.con.unregister("slow_rows")
        self._write_outputs()
        self._sql("DROP TABLE m")

    def _python_rows(self, chunk: Chunk, slow: list[tuple[Any, ...]],
                     rejects: list[tuple[Any, ...]]) -> tuple[list[tuple[Any, ...]], list[_Bad]]:
        """Parse the lines SQL did not take with the W3C parser."""
        rows: list[tuple[Any, ...]] = []
        bad: list[_Bad] = []
        data = chunk.path.read_bytes() if rejects or any(p for _, p in slow) else b""
        after: dict[str, int] = {}
        for text, partial in slow:
            if not partial:
                self._parse(text or "", None, rows, bad)
                continue
            # More fields than the reader keeps: the whole line from the chunk.
            found = _find_line(data, text, after.get(text, 0), prefix=True)
            if found is None:  # pragma: no cover - the reader saw it in this chunk
                bad.append(_Bad(chunk.first_line, "line not found again in its chunk"))
                continue
            index, end = found
            after[text] = end
            stop = data.find(b"\n", end)
            full = data[end - len(text.encode("utf-8", "surrogatepass")):
                        len(data) if stop < 0 else stop].decode("utf-8")
            self._parse(full, chunk.first_line + index, rows, bad)
        if rejects:
            for line, hint in rejects:
                self._parse_bytes(_line_bytes(data, int(line), int(hint or 0)),
                                  chunk.first_line + int(line) - 1, rows, bad, split_cr=False)
        return rows, bad

    def _long_lines(self, chunk: Chunk, rows: list[tuple[Any, ...]], bad: list[_Bad]) -> None:
        """Parse the lines the reader took out of the chunk (:class:`LineGuard`) as
        :meth:`_python_chunk` parses lines; one over the line limit is malformed."""
        for lineno, line in chunk.long_lines:
            if line.text is None:
                bad.append(_Bad(lineno, long_line_reason(self.max_line)))
                continue
            self._parse_bytes(line.text.rstrip(b"\r"), lineno, rows, bad)

    def _python_chunk(self, chunk: Chunk) -> tuple[list[tuple[Any, ...]], list[_Bad]]:
        """A chunk with lone CRs, read like TextSource does: LF lines (a CR before the
        LF dropped), each split at CRs into N-Triples lines."""
        rows: list[tuple[Any, ...]] = []
        bad: list[_Bad] = []
        lines = chunk.path.read_bytes().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for i, raw_line in enumerate(lines):
            self._parse_bytes(raw_line.rstrip(b"\r"), chunk.first_line + i, rows, bad)
        return rows, bad

    def _parse_bytes(self, raw_line: bytes, lineno: int, rows: list[tuple[Any, ...]],
                     bad: list[_Bad], *, split_cr: bool = True) -> None:
        """One line's bytes: malformed when not UTF-8 (saying where), else parsed, as
        several N-Triples lines when it holds lone CRs (``split_cr``: TextSource's
        reading)."""
        try:
            text = raw_line.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append(_Bad(lineno, _utf8_reason(raw_line, exc)))
            return
        for segment in text.split("\r") if split_cr and "\r" in text else (text,):
            self._parse(segment, lineno, rows, bad)

    def _parse(self, text: str, lineno: int | None, rows: list[tuple[Any, ...]],
               bad: list[_Bad]) -> None:
        try:
            raw = parse_line_raw(text)
        except NTriplesSyntaxError as exc:
            bad.append(_Bad(lineno, exc.reason, text if lineno is None else None))
            return
        if raw is not None:
            rows.append(self._terms(raw))

    def _terms(self, raw: RawTriple) -> tuple[Any, ...]:
        """The mapping input columns of a parsed line (see :data:`_TERM_COLUMNS`)."""
        s_iri, s_bnode, p, o_iri, o_bnode, string, datatype, lang = raw
        iri_id = self.mapper.iri_id
        sid = iri_id(s_iri) if s_iri is not None else self._bnode + (s_bnode or "")
        pid = iri_id(p)
        role, reason = _ROLE_CODES.get(p, "F"), self.filter.reason(pid)
        if o_iri is not None:
            return sid, pid, role, reason, "E", iri_id(o_iri), None, None
        if string is not None:
            dt = None if datatype == XSD_STRING else short_datatype(datatype)
            return sid, pid, role, reason, "L", string, dt, lang.lower() if lang else None
        return sid, pid, role, reason, "E", self._bnode + (o_bnode or ""), None, None

    def _malformed(self, chunk: Chunk, bad: list[_Bad]) -> None:
        """Give every malformed line its number, then count (or raise) in line order."""
        unknown = [b for b in bad if b.line is None]
        if unknown:
            data = chunk.path.read_bytes()
            after: dict[str, int] = {}  # identical lines: each occurrence in turn
            for b in unknown[:_MAX_LOCATE]:
                text = b.raw or ""
                found = _find_line(data, text, after.get(text, 0))
                if found is not None:
                    after[text] = found[1]
                    b.line = chunk.first_line + found[0]
        located = sorted((b for b in bad if b.line is not None), key=lambda b: b.line or 0)
        for b in located + [b for b in bad if b.line is None]:
            line = b.line if b.line is not None else chunk.first_line
            if self.strict:
                raise MalformedInputError(self.name, line, b.reason)
            self.report.add_malformed(self.name, line, b.reason)

    def _write_outputs(self) -> None:
        # One aggregate gives every count (a million-line chunk: 0.17 -> 0.14 s CPU
        # against separate kind, predicate and used-predicate queries, measured). Rows
        # SQL left to Python (kind 'S') were parsed and added again: they are skipped
        # here and by every COPY rather than deleted (0.02 s).
        groups = self._sql("SELECT kind, reason, okind = 'L', "
                           "CASE WHEN kind <> 'X' THEN pid END, count(*) "
                           "FROM m WHERE kind <> 'S' GROUP BY ALL")
        literal_facts = 0
        used: set[str] = set()
        for kind, reason, is_literal, pid, n in groups:
            self.by_kind[kind] = self.by_kind.get(kind, 0) + n
            if kind == "X":
                self.dropped[reason] = self.dropped.get(reason, 0) + n
                continue
            self.preds[pid] = self.preds.get(pid, 0) + n
            if kind == "F":
                used.add(pid)
                if is_literal:
                    literal_facts += n
        self.report.triples += sum(g[-1] for g in groups)
        present = {g[0] for g in groups}
        if "F" in present:
            self._sql("INSERT INTO used_preds SELECT unnest(?::VARCHAR[]) "
                      "EXCEPT SELECT id FROM used_preds", [sorted(used)])
            self._copy("facts", "SELECT sid AS subject, pid AS predicate, "
                       "CASE WHEN okind = 'L' THEN key ELSE obj END AS object, "
                       f"okind AS object_kind, {self.seq_base}::BIGINT AS seq "
                       "FROM m WHERE kind = 'F'")
            if literal_facts:
                self._copy("literals", "SELECT key AS id, obj AS value, dt AS datatype, lang "
                           "FROM m WHERE kind = 'F' AND okind = 'L'")
        if present & {"N", "A", "T", "I", "D"}:
            self._copy("entities", f"""
                SELECT CASE WHEN kind = 'I' THEN obj ELSE sid END AS id,
                       CASE WHEN kind = 'N' THEN obj END AS name,
                       CASE WHEN kind = 'A' THEN [obj] ELSE []::VARCHAR[] END AS aliases,
                       CASE WHEN kind = 'T' THEN [obj] WHEN kind = 'I' THEN [sid]
                            ELSE []::VARCHAR[] END AS types,
                       NULL::BOOLEAN AS is_cvt,
                       CASE WHEN kind = 'D' THEN obj END AS description,
                       {self._seq_sql()} AS seq
                FROM m WHERE kind IN {_ENTITY_KINDS}""")
        if "N" in present:
            n = self._copy("predicates", """
                SELECT sid AS id, obj AS label, []::VARCHAR[] AS aliases
                FROM m WHERE kind = 'N' AND (
                    (length(sid) - length(replace(sid, '.', '')) >= 2
                     AND NOT starts_with(sid, 'm.') AND NOT starts_with(sid, 'g.'))
                    OR regexp_full_match(sid, 'P[1-9][0-9]*')
                    OR sid IN (SELECT id FROM used_preds))""", drop_empty=True)
            self.counts["predicate_labels"] = self.counts.get("predicate_labels", 0) + n
        if "C" in present:
            self._copy("cvt_types", "SELECT sid AS type FROM m WHERE kind = 'C'")

    def _copy(self, table: str, query: str, *, drop_empty: bool = False) -> int:
        """Write ``query`` as a new part of ``table``; its row count (an empty part is
        removed with ``drop_empty``)."""
        part = self.writer.new_part(table)
        rows = self._sql(f"COPY ({query}) TO {sql_str(str(part))} "
                         "(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1"
                         f"{_PART_OPTIONS.get(table, '')})")
        n = int(rows[0][0]) if rows else 0
        if drop_empty and n == 0:
            part.unlink(missing_ok=True)
        self.writer.count_rows(table, n)
        return n

    def _result(self) -> dict[str, int]:
        k = self.by_kind
        out = {
            "facts": k.get("F", 0),
            "names": k.get("N", 0),
            "aliases": k.get("A", 0),
            "types": k.get("T", 0) + k.get("I", 0),
            "descriptions": k.get("D", 0),
            "cvt_types": k.get("C", 0),
            "predicate_labels": self.counts.get("predicate_labels", 0),
        }
        for reason, n in self.dropped.items():
            out[DROPPED_PREFIX + reason] = n
        for pid, n in self.preds.items():
            out[PREDICATE_PREFIX + pid] = n
        return out


def _utf8_reason(raw: bytes, exc: UnicodeDecodeError) -> str:
    """The reason :class:`~loaders.sources.TextSource` gives for such a line."""
    return (f"invalid UTF-8 at byte {exc.start + 1} of the line "
            f"({raw[exc.start:exc.start + 4]!r})")


def _line_bytes(data: bytes, line: int, hint: int) -> bytes:
    """Line ``line`` (1-based) of ``data``; ``hint`` is DuckDB's byte position of the
    line, checked before it is trusted."""
    for start in (hint - 1, hint, hint - 2):
        if 0 <= start <= len(data) and (start == 0 or data[start - 1] == 10) \
                and data.count(b"\n", 0, start) == line - 1:
            end = data.find(b"\n", start)
            return data[start:] if end < 0 else data[start:end]
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
    end = data.find(b"\n", start)
    return data[start:] if end < 0 else data[start:end]


def _find_line(data: bytes, text: str, start: int, *, prefix: bool = False
               ) -> tuple[int, int] | None:
    """``(0-based line index, end offset of the match)`` of the first line of ``data``
    at or after byte ``start`` equal to ``text`` (``prefix``: or starting with ``text``
    followed by a field delimiter)."""
    needle = text.encode("utf-8", "surrogatepass")
    pos = start
    while True:
        i = data.find(needle, pos)
        if i < 0:
            return None
        end = i + len(needle)
        at_start = i == 0 or data[i - 1] == 10
        if prefix:  # the whole line, or its start up to a field delimiter
            fits = end == len(data) or data[end] in (10, 9, 1)
        else:
            fits = end == len(data) or data[end] == 10
        if at_start and fits:
            return data.count(b"\n", 0, i), end
        pos = i + 1


def stage_ntriples_vectorized(path: Path, writer: StageWriter, report: ParseReport, *,
                              options: LoadOptions, strict: bool = False,
                              progress: ProgressCallback | None = None) -> dict[str, int]:
    """Stager for dump-scale N-Triples (any IRIs, tab- or space-separated) with the
    :class:`~loaders.triples.TripleMapper` conventions and no default filter."""
    return VectorStager(RegexSyntax())(path, writer, report, options=options, strict=strict,
                                       progress=progress)


setattr(stage_ntriples_vectorized, "nameless_is_cvt", True)  # noqa: B010 - as TripleMapper


