"""Per-predicate statistics kept in the store, written by every import.

The contradictory edit (CAQA §4.3, :mod:`extension.core.contradiction`) asks two things
of a predicate that no single lookup answers: how functional it is in each direction
(the share of its subjects with exactly one fact over it, and of its entity objects
with exactly one subject), and a fixed sample of its facts to draw same-role
replacements from. Both used to be measured by every process of every run (two grouped
scans of all facts, 8 s on 5M facts, and one sampled scan per predicate, 0.47 s each),
so two workers paid them twice and ran slower than one. They are a property of the
store, so they are computed where the facts are: in the import, from the DuckDB
tables of the stage (:mod:`kgstore.staging.diff`), and kept in the store's ``Meta``
rows (both backends have them; no schema change, and a store written before this
module reads as one without statistics):

* ``predicate_stats``: ``{"version", "sample_facts", "predicates": {id: [facts,
  subjects, single subjects, entity objects, single objects]}}``;
* ``predicate_sample:<id>`` per predicate: its first :data:`SAMPLE_FACTS` facts in the
  order of :meth:`~kgstore.store.Store.sample_facts` with seed :data:`SAMPLE_SEED` (the
  salted md5 of ``subject|predicate|object``), so that the stored sample is the one a
  scan would draw, byte for byte.

**Keeping them right** (:class:`StatsUpkeep`). An import into an empty store computes
them from its own facts. An import into a store that has them adds what its new facts
change: the counts of the (predicate, subject) and (predicate, object) pairs the new
facts touch are read back from the store after the write (only the stage's ids, as
the rest of an import reads), so a subject that had one object over a predicate and
gets a second stops counting as single; each sample is the first facts of the old
sample and the new facts together (a salted-hash order is a bottom-k sketch: facts are
only ever added). A store whose statistics cannot be trusted, because it has none (it
was loaded before this module) or because an import was interrupted after writing
facts (:data:`PENDING_KEY` is set before the first write and cleared with the new
statistics), gets them recomputed from all its facts (:func:`refresh`, also
``kgbench store predicate-stats``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from kgstore.models import Fact, Literal, Object

if TYPE_CHECKING:
    import duckdb

    from kgstore.store import ProgressCallback, Store

__all__ = ["FACT_SCHEMA", "IMPORT_TOKEN_KEY", "PENDING_KEY", "SAMPLE_FACTS", "SAMPLE_SEED", "STATS_KEY",
           "PredicateStats", "StatsUpkeep", "compute", "decode_sample", "decode_stats",
           "ensure", "meta_rows", "refresh", "sample_key", "sample_of"]

SAMPLE_FACTS = 200
"""Facts kept per predicate: the pool of same-role replacements
(:func:`extension.core.candidates.role_replacements`)."""
SAMPLE_SEED = 0
"""The seed of the kept sample (:meth:`~kgstore.store.Store.sample_facts`'s order)."""
STATS_KEY = "predicate_stats"
PENDING_KEY = "predicate_stats_pending"
"""Set ("1") while an import that may change the statistics writes, cleared ("0") with
the new statistics: found set, the statistics miss facts that a killed import wrote."""
IMPORT_TOKEN_KEY = "import_token"
"""A new random value at the start and at the end of every import: what was computed
from the store's entities at one token (:mod:`kgstore.type_samples`) is stale at another."""
SAMPLE_PREFIX = "predicate_sample:"
VERSION = 1
REFRESH_DUCKDB_MEMORY = "1GB"
"""DuckDB's memory while :func:`refresh` computes (``KGBENCH_DUCKDB_MEMORY`` overrides)."""
SAMPLES_READ_AT_ONCE = 2_000
"""A store whose reads are round trips reads every predicate's kept sample at its first
use when it has at most this many predicates (300 predicates: about 4 MB)."""
IDS_PER_READ = 2_000
"""Ids per read of the counts of touched pairs (:meth:`Store._predicate_degrees`)."""

FACT_SCHEMA = pa.schema([("subject", pa.string()), ("predicate", pa.string()),
                         ("object", pa.string()), ("object_kind", pa.string()),
                         ("value", pa.string()), ("datatype", pa.string()),
                         ("lang", pa.string())])
"""The rows a full recompute reads from a store (:meth:`Store._fact_rows`): ``object``
is the entity id or the literal's key, ``object_kind`` ``"E"`` or ``"L"``; the value,
datatype and language of a literal object (null for an entity)."""


@dataclass(frozen=True, slots=True)
class PredicateStats:
    """How many facts a predicate has, over how many subjects and entity objects, and
    how many of those have exactly one fact over it."""

    facts: int
    subjects: int
    single_subjects: int
    objects: int
    single_objects: int

    def ends(self) -> tuple[int, int, int, int]:
        """:meth:`~kgstore.store.Store.predicate_ends`'s tuple."""
        return self.subjects, self.single_subjects, self.objects, self.single_objects


def sample_key(predicate: str) -> str:
    """The ``Meta`` key of ``predicate``'s sample."""
    return SAMPLE_PREFIX + predicate


def _salt() -> str:
    return f":{SAMPLE_SEED}"


# -- encoding ---------------------------------------------------------------------------

def encode_stats(stats: dict[str, PredicateStats]) -> str:
    return json.dumps({"version": VERSION, "sample_facts": SAMPLE_FACTS,
                       "predicates": {p: [s.facts, *s.ends()]
                                      for p, s in sorted(stats.items())}},
                      separators=(",", ":"))


def decode_stats(text: str | None) -> dict[str, PredicateStats] | None:
    """The stored statistics, ``None`` when there are none this version reads."""
    if not text:
        return None
    try:
        doc = json.loads(text)
        if doc.get("version") != VERSION or doc.get("sample_facts") != SAMPLE_FACTS:
            return None
        return {p: PredicateStats(*map(int, row)) for p, row in doc["predicates"].items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        return None   # damaged: recomputed like a store without statistics


def encode_sample(facts: Sequence[Fact]) -> str:
    rows = [[f.subject, f.object] if isinstance(f.object, str)
            else [f.subject, f.object.value, f.object.datatype, f.object.lang] for f in facts]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def decode_sample(predicate: str, text: str | None) -> list[Fact] | None:
    """A stored sample; ``None`` when there is none or it is damaged. A predicate
    with statistics but no facts has none (``[]``)."""
    if text is None:
        return None
    try:
        return [Fact(r[0], predicate, r[1] if len(r) == 2 else Literal(r[1], r[2], r[3]))
                for r in json.loads(text)]
    except (ValueError, TypeError, IndexError, KeyError):
        return None


def _object_key(o: Object) -> str:
    return o if isinstance(o, str) else o.key


# -- computing them in DuckDB -----------------------------------------------------------

def _counts_sql(facts: str) -> str:
    """Per predicate of ``facts`` (a relation with subject, predicate, object,
    object_kind): facts, subjects, single subjects, entity objects, single objects."""
    return f"""
        WITH per_subject AS (
            SELECT predicate, subject, count(*) AS c FROM {facts} GROUP BY predicate, subject),
        per_object AS (
            SELECT predicate, object, count(*) AS c FROM {facts} WHERE object_kind = 'E'
            GROUP BY predicate, object),
        fwd AS (
            SELECT predicate, sum(c) AS facts, count(*) AS subjects,
                   count(*) FILTER (WHERE c = 1) AS single FROM per_subject GROUP BY predicate),
        inv AS (
            SELECT predicate, count(*) AS objects, count(*) FILTER (WHERE c = 1) AS single
            FROM per_object GROUP BY predicate)
        SELECT f.predicate, f.facts, f.subjects, f.single, coalesce(i.objects, 0),
               coalesce(i.single, 0)
        FROM fwd f LEFT JOIN inv i USING (predicate)
    """


def _hash_sql(table: str = "") -> str:
    """The sample order of a fact: ``md5(subject|predicate|object || salt)``, as the
    stores compute it (:meth:`~kgstore.store.Store.sample_facts`)."""
    t = f"{table}." if table else ""
    return f"md5({t}subject || '|' || {t}predicate || '|' || {t}object || $salt)"


def _sample_sql(facts: str, literals: str | None, predicates: str | None = None) -> str:
    """The first :data:`SAMPLE_FACTS` facts of each predicate of ``facts`` in sample
    order, as (predicate, h, subject, object, object_kind, value, datatype, lang), ``h``
    the order key; literal values from the facts' own columns or, with ``literals``,
    from that relation (id, value, datatype, lang). ``predicates``: a relation of the
    predicates (column ``predicate``) to sample, else all."""
    where = f" WHERE predicate IN (SELECT predicate FROM {predicates})" if predicates else ""
    columns = ("subject, predicate, object, object_kind, NULL::VARCHAR AS value, "
               "NULL::VARCHAR AS datatype, NULL::VARCHAR AS lang" if literals
               else "subject, predicate, object, object_kind, value, datatype, lang")
    top = f"""
        SELECT predicate, unnest(min_by(row, row.h, {SAMPLE_FACTS})) AS row
        FROM (SELECT predicate,
                     {{'h': {_hash_sql()}, 'subject': subject, 'object': object,
                       'object_kind': object_kind, 'value': value, 'datatype': datatype,
                       'lang': lang}} AS row
              FROM (SELECT {columns} FROM {facts}){where})
        GROUP BY predicate
    """
    rows = f"""
        SELECT predicate, row.h AS h, row.subject AS subject, row.object AS object,
               row.object_kind AS object_kind, row.value AS value, row.datatype AS datatype,
               row.lang AS lang
        FROM ({top})
    """
    if not literals:
        return rows
    return f"""
        SELECT r.predicate, r.h, r.subject, r.object, r.object_kind,
               l.value, l.datatype, l.lang
        FROM ({rows}) r
        LEFT JOIN (SELECT DISTINCT ON (id) id, value, datatype, lang FROM {literals}) l
            ON r.object_kind = 'L' AND l.id = r.object
    """


def _samples(db: duckdb.DuckDBPyConnection, sql: str) -> dict[str, list[Fact]]:
    """Facts per predicate from the rows of a :func:`_sample_sql` query, in sample order."""
    rows = db.execute(f"SELECT * FROM ({sql}) ORDER BY predicate, h",
                      {"salt": _salt()}).fetchall()
    out: dict[str, list[Fact]] = {}
    for predicate, _, subject, obj, kind, value, datatype, lang in rows:
        o: Object = Literal(value, datatype, lang) if kind == "L" else obj
        out.setdefault(predicate, []).append(Fact(subject, predicate, o))
    return out


def compute(db: duckdb.DuckDBPyConnection, facts: str, literals: str | None = None
            ) -> tuple[dict[str, PredicateStats], dict[str, list[Fact]]]:
    """The statistics and samples of every predicate of the relation ``facts`` (see
    :func:`_sample_sql` for ``literals``), which must hold each fact once."""
    stats = {p: PredicateStats(*map(int, row))
             for p, *row in db.execute(_counts_sql(facts)).fetchall()}
    return stats, _samples(db, _sample_sql(facts, literals))


_DELTA_SQL = """
    SELECT predicate, count(*) FILTER (WHERE n - a = 0) AS fresh,
           count(*) FILTER (WHERE n = 1) - count(*) FILTER (WHERE n - a = 1) AS single
    FROM {added} JOIN {after} USING (predicate, id) GROUP BY predicate
"""
"""Per predicate, what the new facts changed of one end: ``added`` holds (predicate,
id, a) of each touched pair (``a`` new facts), ``after`` (id, predicate, n) as read
from the store after the write, so the count before is ``n - a``: ends that had no
fact over the predicate before (``fresh``), and the change in ends with exactly one."""


def sample_order(fact: Fact) -> str:
    """A fact's place in the kept sample (:meth:`~kgstore.store.Store.sample_facts`'s
    salted md5, as :func:`_hash_sql` computes it)."""
    text = f"{fact.subject}|{fact.predicate}|{_object_key(fact.object)}{_salt()}"
    return hashlib.md5(text.encode("utf-8")).hexdigest()


# -- the store side ----------------------------------------------------------------------

def meta_rows(stats: dict[str, PredicateStats], samples: dict[str, list[Fact]]
              ) -> dict[str, str]:
    """The ``Meta`` rows that keep ``stats`` and ``samples`` (for a store written
    without an import: ``kgbench store export-neo4j``)."""
    return {**{sample_key(p): encode_sample(facts) for p, facts in sorted(samples.items())},
            STATS_KEY: encode_stats(stats), PENDING_KEY: "0"}


def _write(store: Store, stats: dict[str, PredicateStats],
           samples: dict[str, list[Fact]]) -> None:
    """Samples first, then the table and the cleared marker (together): statistics
    are read only when the table is there and no marker is set."""
    values = {sample_key(p): encode_sample(facts) for p, facts in sorted(samples.items())}
    keys = sorted(values)
    for start in range(0, len(keys), 500):
        store._write_meta({k: values[k] for k in keys[start:start + 500]})
    store._write_meta({STATS_KEY: encode_stats(stats), PENDING_KEY: "0"})


def stored(store: Store) -> dict[str, PredicateStats] | None:
    """The store's statistics, ``None`` when it has none or they miss facts."""
    if store._meta(PENDING_KEY) == "1":
        return None
    return decode_stats(store._meta(STATS_KEY))


def sample_of(store: Store, predicate: str) -> list[Fact]:
    """:meth:`~kgstore.store.Store.predicate_sample`: ``predicate``'s kept sample, read
    from the store's ``Meta`` rows when it keeps statistics (all of them in one read
    where reads are round trips, :data:`SAMPLES_READ_AT_ONCE`), else sampled; a
    read-only store keeps what it read."""
    kept = store._kept_samples.get(predicate) if store.read_only else None
    if kept is None:
        stats = store.predicate_stats()
        if stats is not None and predicate not in stats:
            kept = []   # a predicate without facts has no sample
        elif stats is not None:
            key = sample_key(predicate)
            if store.read_only and store.round_trip_reads and not store._kept_samples \
                    and len(stats) <= SAMPLES_READ_AT_ONCE:
                texts = store._meta_many([sample_key(p) for p in stats])
                for p in stats:
                    found = decode_sample(p, texts.get(sample_key(p)))
                    if found is not None:
                        store._kept_samples[p] = found
                kept = store._kept_samples.get(predicate)
            else:
                kept = decode_sample(predicate, store._meta(key))
        if kept is None:   # no statistics, or a damaged sample
            kept = store.sample_facts(SAMPLE_FACTS, seed=SAMPLE_SEED, predicate=predicate)
        if store.read_only:
            store._kept_samples[predicate] = kept
    return list(kept)


def refresh(store: Store, progress: ProgressCallback | None = None) -> int:
    """Compute every predicate's statistics from all the store's facts and keep them;
    returns how many predicates have facts. Reads every fact once into a DuckDB table
    (spilling to a temporary folder past its memory limit), reporting the facts read."""
    import duckdb  # here, not at the top: every CLI command imports this module, few refresh

    total = store.stats().facts
    with tempfile.TemporaryDirectory(prefix="kgbench-predicate-stats-") as tmp:
        db = duckdb.connect()
        try:
            db.execute("SET temp_directory = ?", [tmp])
            db.execute("SET memory_limit = ?", [os.environ.get("KGBENCH_DUCKDB_MEMORY",
                                                              REFRESH_DUCKDB_MEMORY)])
            db.execute("SET preserve_insertion_order = false")
            db.register("_empty", FACT_SCHEMA.empty_table())
            db.execute("CREATE TABLE all_facts AS SELECT * FROM _empty")
            done = 0
            for batch in store._fact_rows():
                db.register("_batch", batch)
                db.execute("INSERT INTO all_facts SELECT * FROM _batch")
                db.unregister("_batch")
                done += batch.num_rows
                if progress:
                    progress("predicate statistics: facts read", done, total)
            stats, samples = compute(db, "all_facts")
        finally:
            db.close()
    _write(store, stats, samples)
    if progress:
        progress("predicate statistics: written", len(stats), len(stats))
    return len(stats)


def facts_table(facts: Iterable[Fact]) -> pa.Table:
    """Facts as rows of :data:`FACT_SCHEMA`."""
    rows: dict[str, list[Any]] = {name: [] for name in FACT_SCHEMA.names}
    for f in facts:
        o = f.object
        lit = o if not isinstance(o, str) else None
        for name, value in zip(FACT_SCHEMA.names, (
                f.subject, f.predicate, _object_key(o), "E" if lit is None else "L",
                lit and lit.value, lit and lit.datatype, lit and lit.lang), strict=True):
            rows[name].append(value)
    return pa.table(rows, schema=FACT_SCHEMA)


def fact_batches(facts: Iterator[list[Fact]]) -> Iterator[pa.Table]:
    """:meth:`~kgstore.store.Store.iter_facts` batches as :data:`FACT_SCHEMA` tables."""
    for batch in facts:
        yield facts_table(batch)


class StatsUpkeep:
    """The statistics' part of one import (see the module docstring), in three calls:
    :meth:`begin` before its first write; :meth:`prepare` while the import's DuckDB
    session ``db`` holds its new facts (table or view ``new_facts``: subject,
    predicate, object, object_kind, each new fact once; the stage's literals in
    ``literals``: id, value, datatype, lang); :meth:`finish` after its last write."""

    def __init__(self, store: Store, db: duckdb.DuckDBPyConnection, *, had_facts: bool,
                 literals: str = "staged_literals") -> None:
        self.store = store
        self.db = db
        self.had_facts = had_facts
        self.literals = literals
        self.old: dict[str, PredicateStats] | None = None
        self.stats: dict[str, PredicateStats] = {}
        self.samples: dict[str, list[Fact]] = {}
        self.added: dict[str, int] = {}

    def begin(self) -> None:
        """Read the statistics the store has now, mark them pending and give the
        store a new import token. Pending even for a store without facts yet: one
        killed after writing some facts is no longer empty, and its next import must
        recompute from all of them, not add its own to the (empty) statistics."""
        if self.had_facts:
            self.old = stored(self.store)
        self.store._write_meta({IMPORT_TOKEN_KEY: uuid.uuid4().hex, PENDING_KEY: "1"})

    def prepare(self) -> None:
        """What the statistics need of the new facts: all of them, into a store that
        had none; else the pairs they touch and their own first facts in sample order
        (the first facts of a union are among the first of each part)."""
        db = self.db
        if not self.had_facts:
            self.stats, self.samples = compute(db, "new_facts", self.literals)
            return
        if self.old is None:
            return   # finish() recomputes from the store
        for end, where in (("subject", ""), ("object", " WHERE object_kind = 'E'")):
            db.execute(f"CREATE OR REPLACE TABLE stats_added_{end} AS SELECT predicate, "
                       f"{end} AS id, count(*) AS a FROM new_facts{where} "
                       f"GROUP BY predicate, {end}")
        self.added = {p: int(n) for p, n in db.execute(
            "SELECT predicate, count(*) FROM new_facts GROUP BY predicate").fetchall()}
        self.samples = _samples(db, _sample_sql("new_facts", self.literals))

    def finish(self, progress: ProgressCallback | None = None) -> None:
        self.store._write_meta({IMPORT_TOKEN_KEY: uuid.uuid4().hex})
        if not self.had_facts:
            _write(self.store, self.stats, self.samples)
        elif self.old is None:
            refresh(self.store, progress)
        elif not self.added:
            self.store._write_meta({PENDING_KEY: "0"})
        else:
            self._add_new_facts()

    def _add_new_facts(self) -> None:
        assert self.old is not None
        db = self.db
        changes: dict[str, dict[str, tuple[int, int]]] = {}
        for end, outgoing in (("subject", True), ("object", False)):
            ids = [r[0] for r in db.execute(
                f"SELECT DISTINCT id FROM stats_added_{end} ORDER BY id").fetchall()]
            rows: dict[str, list[Any]] = {"id": [], "predicate": [], "n": []}
            for start in range(0, len(ids), IDS_PER_READ):
                for id, predicate, n in self.store._predicate_degrees(
                        ids[start:start + IDS_PER_READ], outgoing=outgoing):
                    rows["id"].append(id)
                    rows["predicate"].append(predicate)
                    rows["n"].append(int(n))
            db.register("stats_after", pa.table(rows, schema=pa.schema([
                ("id", pa.string()), ("predicate", pa.string()), ("n", pa.int64())])))
            changes[end] = {p: (int(fresh), int(single)) for p, fresh, single in db.execute(
                _DELTA_SQL.format(added=f"stats_added_{end}", after="stats_after")).fetchall()}
            db.unregister("stats_after")
        kept = {p: decode_sample(p, self.store._meta(sample_key(p))) if p in self.old else []
                for p in self.added}
        if any(sample is None for sample in kept.values()):   # damaged: start over
            refresh(self.store)
            return
        stats = dict(self.old)
        zero = PredicateStats(0, 0, 0, 0, 0)
        samples = {}
        for p, n in self.added.items():
            old = stats.get(p, zero)
            fs, ss = changes["subject"].get(p, (0, 0))
            fo, so = changes["object"].get(p, (0, 0))
            stats[p] = PredicateStats(old.facts + n, old.subjects + fs, old.single_subjects + ss,
                                      old.objects + fo, old.single_objects + so)
            samples[p] = sorted((kept[p] or []) + self.samples.get(p, []),
                                key=sample_order)[:SAMPLE_FACTS]
        _write(self.store, stats, samples)


def ensure(location: str, progress: ProgressCallback | None = None, *,
           seed: int | None = None) -> str:
    """Make sure the store at ``location`` keeps its statistics (and, with ``seed``,
    its type samples for that seed: :mod:`kgstore.type_samples`) before a run reads
    it: ``"kept"`` when it does, ``"computed"`` when some were computed now (once per
    store, and seed), ``"unwritable: REASON"`` when some are missing and the store
    cannot be written now (read-only to this user, held by a writer): each process of
    the run then measures what it needs itself, as before they were kept."""
    from kgstore import open_store
    from kgstore.errors import StoreError
    from kgstore.type_samples import kept

    def missing(store: Store) -> bool:
        return store.predicate_stats() is None or (seed is not None
                                                   and kept(store, seed) is None)

    with open_store(location, read_only=True) as store:
        if not missing(store):
            return "kept"
    try:
        with open_store(location) as store:
            if not missing(store):   # another process was quicker
                return "kept"
            if store.predicate_stats() is None:
                store.refresh_predicate_stats(progress)
            if seed is not None:
                store.keep_type_samples(seed, progress)
    except StoreError as exc:
        return f"unwritable: {exc}"
    return "computed"
