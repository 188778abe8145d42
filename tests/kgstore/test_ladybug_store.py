"""LadybugDB backend specifics: the store directory, locking, versions, crash-safe import."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import kgstore.backends.ladybug.store as ladybug_store
from kgstore import (
    SCHEMA_VERSION,
    Entity,
    Fact,
    IncompatibleStoreError,
    Literal,
    Predicate,
    QueryError,
    ReadOnlyQueryError,
    StagingError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
    open_store,
)
from kgstore.backends.ladybug import MARKER, LadybugStore, remove_store
from kgstore.backends.ladybug.schema import DB_FILE
from kgstore.staging import StageWriter
from kgstore.store import IMPORT_STEPS
from tests.kgstore.kgdata import KG, snapshot

REPO = Path(__file__).resolve().parents[2]


def _new(path: Path) -> LadybugStore:
    s = open_store(path, create=True)
    assert isinstance(s, LadybugStore)
    return s


# --------------------------------------------------------------------------------------
# Child processes
# --------------------------------------------------------------------------------------


class Child:
    """A Python child process whose stdout lines are read in the background."""

    def __init__(self, code: str, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, cwd=REPO, env=env,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        """Block until the child prints a line starting with ``text``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"child did not print {text!r}: {self.seen}") from None
            if line is None:
                raise AssertionError(f"child exited before {text!r}: {self.seen}")
            self.seen.append(line)
            if line.startswith(text):
                return

    def drain(self) -> list[str]:
        while True:
            try:
                line = self.lines.get(timeout=10)
            except queue.Empty:
                return self.seen
            if line is None:
                return self.seen
            self.seen.append(line)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


HOLD_OPEN = """
import sys, time
from kgstore import open_store
store = open_store(sys.argv[1], read_only=sys.argv[2] == "ro")
print("ready", flush=True)
time.sleep(120)
"""


# --------------------------------------------------------------------------------------
# The store directory
# --------------------------------------------------------------------------------------


def test_store_is_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "kg"
    with _new(path) as s:
        assert s.location == str(path)
        s.ingest([Entity("m.1", "One")], [Fact("m.1", "p", Literal("x"))])
    assert path.is_dir()
    assert json.loads((path / MARKER).read_text()) == {
        "backend": "ladybug", "schema_version": SCHEMA_VERSION}
    assert (path / DB_FILE).exists()
    # No leftovers from the import (its work directory lives inside the store).
    assert not [p.name for p in path.iterdir() if p.name.startswith("merge-")]
    with open_store(path) as again:
        assert again.entity("m.1") == Entity("m.1", "One")
        assert again.stats().facts == 1


def test_create_in_existing_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with _new(tmp_path / "empty") as s:
        assert s.stats().entities == 0


def test_create_on_existing_store_opens_it(tmp_path: Path) -> None:
    with _new(tmp_path / "kg") as s:
        s.ingest([Entity("m.1", "One")])
    with open_store(tmp_path / "kg", create=True) as s:
        assert s.stats().entities == 1


def test_missing_store_without_create(tmp_path: Path) -> None:
    path = tmp_path / "missing"
    with pytest.raises(StoreNotFoundError, match="kgbench load") as info:
        open_store(path)
    assert str(path) in str(info.value)
    assert not path.exists()  # nothing created on the way
    with pytest.raises(StoreNotFoundError):
        open_store(path, read_only=True)
    with pytest.raises(StoreNotFoundError):
        open_store(path, create=True, read_only=True)
    assert not path.exists()


def test_directory_with_db_but_no_marker_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "kg"
    with _new(path):
        pass
    (path / MARKER).unlink()
    with pytest.raises(StoreNotFoundError):
        open_store(path)


def test_create_in_non_empty_non_store_directory(tmp_path: Path) -> None:
    path = tmp_path / "photos"
    path.mkdir()
    (path / "holiday.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(StoreError, match="not a kgbench store"):
        open_store(path, create=True)
    assert sorted(p.name for p in path.iterdir()) == ["holiday.jpg"]


@pytest.mark.parametrize("version", [SCHEMA_VERSION + 1, 0, 99])
def test_incompatible_schema_version_in_marker(tmp_path: Path, version: int) -> None:
    path = tmp_path / "kg"
    with _new(path):
        pass
    (path / MARKER).write_text(json.dumps({"backend": "ladybug", "schema_version": version}))
    with pytest.raises(IncompatibleStoreError) as info:
        open_store(path)
    message = str(info.value)
    assert f"version {version}" in message
    assert f"version {SCHEMA_VERSION}" in message
    with pytest.raises(IncompatibleStoreError):
        open_store(path, read_only=True)


def test_incompatible_schema_version_in_database(tmp_path: Path) -> None:
    path = tmp_path / "kg"
    with _new(path) as s:
        s._set_meta("schema_version", str(SCHEMA_VERSION + 5))
    with pytest.raises(IncompatibleStoreError) as info:
        open_store(path)
    assert f"version {SCHEMA_VERSION + 5}" in str(info.value)
    assert f"version {SCHEMA_VERSION}" in str(info.value)
    # The refused open released the database: another process is told the same, not
    # that the store is locked.
    code = ("import sys\nfrom kgstore import open_store\n"
            "try:\n    open_store(sys.argv[1])\nexcept Exception as e:\n"
            "    print(type(e).__name__, flush=True)\n")
    with Child(code, str(path)) as child:
        child.wait_for("IncompatibleStoreError")


@pytest.mark.parametrize(
    "marker",
    ["not json", json.dumps({"schema_version": 1}), json.dumps({"backend": "ladybug"}),
     json.dumps({"backend": "ladybug", "schema_version": "one"}), json.dumps([1])],
)
def test_damaged_marker(tmp_path: Path, marker: str) -> None:
    path = tmp_path / "kg"
    with _new(path):
        pass
    (path / MARKER).write_text(marker)
    with pytest.raises(IncompatibleStoreError, match="damaged"):
        open_store(path)


def test_marker_of_another_backend(tmp_path: Path) -> None:
    path = tmp_path / "kg"
    with _new(path):
        pass
    (path / MARKER).write_text(json.dumps({"backend": "neo4j", "schema_version": SCHEMA_VERSION}))
    with pytest.raises(IncompatibleStoreError, match="neo4j"):
        open_store(path)


def test_bolt_uri_is_not_a_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A port where no server listens: the URI goes to the Neo4j backend, which says it
    # cannot reach one; nothing is made of it on disk.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match="Neo4j"):
        open_store("bolt://127.0.0.1:9")
    assert list(tmp_path.iterdir()) == []


def test_remove_store(tmp_path: Path) -> None:
    with _new(tmp_path / "kg"):
        pass
    remove_store(tmp_path / "kg")
    assert not (tmp_path / "kg").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    with pytest.raises(StoreError, match="refusing"):
        remove_store(other)
    assert (other / "keep.txt").exists()


def test_closed_store_raises_store_error(tmp_path: Path) -> None:
    s = _new(tmp_path / "kg")
    s.close()
    s.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        s.entity("m.1")
    with pytest.raises(StoreError, match="closed"):
        s.stats()
    with pytest.raises(StoreError, match="closed"):
        s.cypher("RETURN 1")


# --------------------------------------------------------------------------------------
# Locking and read-only opens
# --------------------------------------------------------------------------------------


@pytest.fixture
def small_store(tmp_path: Path) -> Path:
    path = tmp_path / "kg"
    with _new(path) as s:
        s.ingest([Entity("m.1", "One")], [Fact("m.1", "p", "m.2")])
    return path


def test_second_process_holding_the_store_locks_it(small_store: Path) -> None:
    with Child(HOLD_OPEN, str(small_store), "rw") as child:
        child.wait_for("ready")
        with pytest.raises(StoreLockedError, match="in use by another process") as info:
            open_store(small_store)
        assert str(child.proc.pid) in str(info.value)
        assert str(small_store) in str(info.value)
    # The holder is gone (killed, not closed): the lock went with it.
    with open_store(small_store) as s:
        assert s.stats().entities == 2


def test_two_read_only_opens_coexist(small_store: Path) -> None:
    with open_store(small_store, read_only=True) as a, open_store(small_store, read_only=True) as b:
        assert a.entity("m.1") == b.entity("m.1") == Entity("m.1", "One")
    with Child(HOLD_OPEN, str(small_store), "ro") as child:
        child.wait_for("ready")
        with open_store(small_store, read_only=True) as s:
            assert s.find_by_name("one") == [Entity("m.1", "One")]
            assert s.cypher("MATCH (e:Entity) RETURN count(e)").rows == [[2]]


def _reads(s: LadybugStore) -> list[object]:
    """Lookups and scans of the film KG through the Store interface."""
    return [
        snapshot(s), s.adjacency("m.godfather", limit=50), s.adjacency("m.usa", limit=2),
        s.facts_out("m.godfather", limit=100), s.facts_in("m.coppola", limit=100),
        s.find_by_name("Paris"), s.entities(["m.brando", "m.godfather", "m.none"]),
        s.sample_entities(3, seed=7, type_id="people.person"),
        s.cypher("MATCH (e:Entity)-[f:Fact]->() RETURN e.id, count(f) AS n ORDER BY e.id").rows,
    ]


def test_read_only_store_reads_what_a_writable_one_reads(tmp_path: Path, film_kg: KG) -> None:
    # A read-only store runs lookups on one engine thread and its scans (samples,
    # counts, cypher) on all of them, switching per query: every read must give the
    # same as on a writable store, and lookups after a scan still work.
    path = tmp_path / "kg"
    with _new(path) as s:
        film_kg.load(s)
        expected = _reads(s)
    with open_store(path, read_only=True) as s:
        assert _reads(s) == expected
        assert _reads(s) == expected   # again, from its caches and after the scans


@pytest.fixture(scope="module")
def hub_records() -> tuple[list[Entity], list[Fact]]:
    """300k facts out of 50 hubs (ties included: a hub linked to the same entity over
    several predicates; enough rows for DuckDB and LadybugDB to work on several
    threads), facts into them, and literal facts."""
    rng = random.Random(0)
    entities = [Entity(f"m.{i}", f"Node {i}") for i in range(20_000)]
    facts = [Fact(f"m.{rng.randrange(50)}", f"p.{rng.randrange(30)}", f"m.{rng.randrange(20_000)}")
             for _ in range(300_000)]
    facts += [Fact(f"m.{h}", "p.value", Literal(str(v), "integer")) for h in range(3)
              for v in range(200)]
    return entities, facts


@pytest.mark.slow
@pytest.mark.parametrize("batch_rows", [None, "40000"])
def test_every_load_of_the_same_records_reads_the_same_windows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        hub_records: tuple[list[Entity], list[Fact]], batch_rows: str | None) -> None:
    # A window of a neighbourhood (a LIMIT) is a prefix of the order the store keeps
    # facts in; a seeded benchmark reads such windows, so loading the same records
    # again, given in another order, must keep the same order (one COPY each, or
    # batches of 40,000 rows: the partitioned export).
    if batch_rows:
        monkeypatch.setenv("KGBENCH_COPY_BATCH_ROWS", batch_rows)
    windows = []
    for load in range(3):
        entities, facts = (list(records) for records in hub_records)
        random.Random(load).shuffle(entities)
        random.Random(load).shuffle(facts)
        path = tmp_path / f"kg{load}"
        with _new(path) as s:
            s.ingest(entities, facts)
        with open_store(path, read_only=True) as s:
            reads = [s.adjacency(f"m.{h}", limit=limit, detail="brief")
                     for h in range(3) for limit in (5, 60, 10_000)]
        assert not reads[2].truncated and len(reads[2].facts) > 6000   # the whole of m.0
        windows.append([read.facts for read in reads])
    assert windows[1] == windows[0] and windows[2] == windows[0]


def test_read_only_store_refuses_imports(small_store: Path) -> None:
    with open_store(small_store, read_only=True) as s:
        before = snapshot(s)
        with pytest.raises(StoreError, match="read-only"):
            s.ingest([Entity("m.3", "Three")])
        assert snapshot(s) == before


# --------------------------------------------------------------------------------------
# Read-only Cypher: the engine's read-only transaction backs up the lexical check
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["CREATE (:Entity {id: 'x'})", "MATCH (e:Entity) SET e.name = 'x'",
     "MERGE (:Entity {id: 'y'})", "MATCH (e:Entity) DETACH DELETE e",
     "MATCH ()-[f:Fact]->() DELETE f", "DROP TABLE Meta",
     "ALTER TABLE Entity ADD extra STRING"],
)
def test_engine_refuses_writes_without_lexical_check(
    small_store: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    monkeypatch.setattr(ladybug_store, "assert_read_only", lambda q: None)
    with open_store(small_store) as s:
        before = snapshot(s)
        with pytest.raises(ReadOnlyQueryError):
            s.cypher(query)
        assert snapshot(s) == before
        assert s.cypher("MATCH (e:Entity) RETURN count(e)").rows == [[2]]


# --------------------------------------------------------------------------------------
# Import
# --------------------------------------------------------------------------------------


def test_import_reports_progress(tmp_path: Path) -> None:
    with StageWriter(tmp_path / "stage") as w:
        w.add_entity("m.1", "One")
        w.add_fact("m.1", "p", "m.2")
    calls: list[tuple[str, int, int | None]] = []
    with _new(tmp_path / "kg") as s:
        report = s.import_stage(w.dir, progress=lambda *a: calls.append(a))
    assert [c[1] for c in calls] == list(range(1, len(IMPORT_STEPS) + 1))
    assert {c[2] for c in calls} == {len(IMPORT_STEPS)}
    assert [c[0] for c in calls] == [f"import: {step}" for step in IMPORT_STEPS]
    assert list(report.steps) == [c[0].removeprefix("import: ") for c in calls]
    assert report.facts_new == 1 and report.entities_new == 2


def test_import_write_failure_stops_later_writes_and_rerun_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Store writes run in a background thread: the first failing one is raised by the
    import, the writes after it are not run, and running the import again completes."""
    with StageWriter(tmp_path / "stage") as w:
        w.add_entity("m.1", "One", aliases=["Uno"])
        w.add_fact("m.1", "p", "m.2")
    real_rows = LadybugStore._rows
    ran: list[str] = []

    def failing_rows(self: LadybugStore, query: str, params=None, **options):  # type: ignore[no-untyped-def]
        ran.append(query)
        if query.startswith("COPY Fact"):
            raise QueryError("disk full (simulated)")
        return real_rows(self, query, params, **options)

    with _new(tmp_path / "kg") as s:
        monkeypatch.setattr(LadybugStore, "_rows", failing_rows)
        with pytest.raises(QueryError, match="simulated"):
            s.import_stage(w.dir)
        assert not any(q.startswith(("COPY Name", "COPY NAMES")) for q in ran)
        monkeypatch.setattr(LadybugStore, "_rows", real_rows)
        assert s.stats().facts == 0 and s.entity("m.1") is not None
        report = s.import_stage(w.dir)
        assert report.facts_new == 1 and report.entities_new == 0
        assert [e.id for e in s.find_by_name("uno")] == ["m.1"]


def test_import_cvt_types_from_stage(tmp_path: Path) -> None:
    with StageWriter(tmp_path / "stage") as w:
        w.add_cvt_type("film.performance")
        w.add_entity("m.p", types=["film.performance"])
        w.add_entity("m.f", "Film", types=["film.film"])
    with _new(tmp_path / "kg") as s:
        s.import_stage(w.dir)
        assert s.entity("m.p").is_cvt  # type: ignore[union-attr]
        assert not s.entity("m.f").is_cvt  # type: ignore[union-attr]
        # Remembered: a later import marks new entities of that type too.
        s.ingest([Entity("m.q", types=("film.performance",))])
        assert s.entity("m.q").is_cvt  # type: ignore[union-attr]
        assert s.stats().cvt_entities == 2


def test_import_of_incomplete_stage_is_refused(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    with pytest.raises(KeyboardInterrupt), StageWriter(stage, batch_rows=1) as w:
        w.add_entity("m.9", "Nine")
        w.add_fact("m.9", "p", "m.1")
        raise KeyboardInterrupt
    with _new(tmp_path / "kg") as s:
        s.ingest([Entity("m.1", "One")])
        before = snapshot(s)
        listing = sorted(p.name for p in (tmp_path / "kg").iterdir())
        with pytest.raises(StagingError, match="not a complete stage"):
            s.import_stage(stage)
        with pytest.raises(StagingError):
            s.import_stage(tmp_path / "no-such-stage")
        assert snapshot(s) == before
        assert sorted(p.name for p in (tmp_path / "kg").iterdir()) == listing


# --------------------------------------------------------------------------------------
# Interrupted import is re-runnable
# --------------------------------------------------------------------------------------

N_ENTITIES = 12_000
N_FACTS = 50_000


def _write_big_stage(path: Path) -> Path:
    rng = random.Random(1234)
    with StageWriter(path, batch_rows=8_000) as w:
        w.add_cvt_type("t.cvt")
        for i in range(N_ENTITIES):
            kind = i % 10
            if kind == 0:
                w.add_entity(f"e{i}", types=["t.cvt"])
            else:
                w.add_entity(f"e{i}", f"Name {i % 9000}", aliases=[f"  ALIAS {i} "],
                             types=[f"t{kind}"], description="d" if kind == 1 else None)
        for i in range(N_FACTS):
            s = f"e{rng.randrange(N_ENTITIES)}"
            if i % 3 == 0:
                w.add_fact(s, f"p{i % 11}", Literal(str(rng.randrange(3000)), "xsd:integer"))
            elif i % 7 == 0:
                w.add_fact(s, "label", Literal(f"text {rng.randrange(2000)}", lang="en"))
            else:
                # Some objects are outside the entity range: placeholders; every fifth
                # goes to one of three hubs (over 1,000 incoming facts each: indexed).
                o = rng.randrange(N_ENTITIES + 500)
                w.add_fact(s, f"p{i % 17}", f"e{1 + o % 3 if i % 5 == 0 else o}")
        for p in range(17):
            w.add_predicate(f"p{p}", f"predicate {p}")
    return path


def _dump(store: LadybugStore) -> dict[str, object]:
    """Everything stored, each table sorted (duplicates would show up twice). Read as
    Arrow through the store's Cypher connection: 50k facts as Python rows is slow."""
    def table(query: str) -> list[tuple]:
        t = store._arrow(query)
        t = t.sort_by([(name, "ascending") for name in t.column_names
                       if not str(t.schema.field(name).type).startswith("list")])
        return [tuple(tuple(v) if isinstance(v, list) else v for v in row.values())
                for row in t.to_pylist()]

    stats = store.stats()
    return {
        "stats": (stats.entities, stats.cvt_entities, stats.literals, stats.facts,
                  stats.entity_facts, stats.literal_facts, stats.predicates),
        "facts": table("MATCH (s:Entity)-[f:Fact]->(o) RETURN s.id AS s, f.predicate AS p, "
                       "o.id AS o"),
        "entities": table("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.aliases AS a, "
                          "e.types AS t, e.is_cvt AS c, e.description AS d"),
        "literals": table("MATCH (l:Literal) RETURN l.id AS id, l.value AS v, l.datatype AS d, "
                          "l.lang AS l, l.num AS n, l.date AS date"),
        "names": table("MATCH (n:Name)-[:NAMES]->(e:Entity) RETURN n.key AS k, e.id AS id"),
        "name_keys": table("MATCH (n:Name) RETURN n.key AS k"),
        "predicates": table("MATCH (p:Predicate) RETURN p.id AS id, p.label AS l, p.count AS n"),
        "hubs": table("MATCH (h:Hub) RETURN h.id AS id"),
        "slot_keys": table("MATCH (k:InSlot) RETURN k.key AS k, k.predicate AS p"),
        "slots": table("MATCH (k:InSlot)-[:IN_SLOT]->(e:Entity) RETURN k.key AS k, e.id AS s"),
        # kept by the import (kgstore.predicate_stats), however it was interrupted
        "predicate_stats": store.predicate_stats(),
        "samples": {p.id: store.predicate_sample(p.id) for p in store.predicates()},
    }


@pytest.fixture(scope="module")
def big_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_big_stage(tmp_path_factory.mktemp("big") / "stage")


@pytest.fixture(scope="module")
def clean_import(big_stage: Path, tmp_path_factory: pytest.TempPathFactory):
    with _new(tmp_path_factory.mktemp("clean") / "kg") as s:
        report = s.import_stage(big_stage)
        dump = _dump(s)
    return report, dump


IMPORT_IN_CHILD = """
import sys
from kgstore import open_store
store = open_store(sys.argv[1])
print("ready", flush=True)
store.import_stage(sys.argv[2], progress=lambda step, i, n: print(step, flush=True))
print("done", flush=True)
store.close()
"""

# (kill after this line, seed for the delay into the next step); "ready" = before import.
KILL_POINTS = [("ready", 0), ("import: read stage", 1), ("import: entities", 2),
               ("import: literals", 3), ("import: facts", 4), ("import: hubs", 6),
               ("import: names", 5), ("import: predicates", 7)]
NEXT_STEP = {"ready": "read stage", "import: read stage": "entities",
             "import: entities": "literals", "import: literals": "facts",
             "import: facts": "hubs", "import: hubs": "names", "import: names": "predicates",
             "import: predicates": "statistics"}


def _interrupt(store_path: Path, stage: Path, after: str, delay: float) -> list[str]:
    with Child(IMPORT_IN_CHILD, str(store_path), str(stage)) as child:
        child.wait_for("ready", timeout=120)
        if after != "ready":
            child.wait_for(after, timeout=120)
        time.sleep(delay)
        child.kill()
        return child.drain()


@pytest.mark.slow
@pytest.mark.parametrize(("after", "seed"), KILL_POINTS)
def test_interrupted_import_is_rerunnable(
    tmp_path: Path, big_stage: Path, clean_import, after: str, seed: int
) -> None:
    clean_report, clean = clean_import
    assert clean["stats"][3] > 40_000  # big enough to take a while
    path = tmp_path / "kg"
    with _new(path) as s:
        pass
    rng = random.Random(seed)
    # A random moment early in the step after `after` (durations from the clean import;
    # the first half, so a faster child is still inside the import when killed).
    delay = rng.uniform(0, 0.5) * clean_report.steps[NEXT_STEP[after]]
    lines = _interrupt(path, big_stage, after, delay)
    assert "done" not in lines, f"the kill came too late: {lines}"
    with open_store(path) as s:
        report = s.import_stage(big_stage)
        dump = _dump(s)
    assert dump == clean, f"killed after {lines[-1]!r} (+{delay:.3f}s)"
    assert len(set(dump["facts"])) == len(dump["facts"])  # type: ignore[arg-type]
    assert report.facts_new <= clean_report.facts_new


@pytest.mark.slow
def test_import_interrupted_twice(tmp_path: Path, big_stage: Path, clean_import) -> None:
    clean_report, clean = clean_import
    path = tmp_path / "kg"
    with _new(path):
        pass
    _interrupt(path, big_stage, "import: entities", clean_report.steps["literals"] / 2)
    _interrupt(path, big_stage, "import: literals", clean_report.steps["facts"] / 2)
    with open_store(path) as s:
        s.import_stage(big_stage)
        assert _dump(s) == clean
        again = s.import_stage(big_stage)
        assert (again.facts_new, again.entities_new, again.entities_updated,
                again.literals_new, again.predicates_new) == (0, 0, 0, 0, 0)


@pytest.mark.slow
def test_interrupted_update_import_is_rerunnable(
    tmp_path: Path, big_stage: Path, clean_import
) -> None:
    """Kill an import into a store that already holds part of the data and rename
    entities: the re-run must reach the same state as a clean import of both."""
    clean_report, _ = clean_import
    first = KG([Entity("e1", "Old name for e1"), Entity("e5", "Old five", aliases=("V",))],
               [Fact("e1", "p1", "e2"), Fact("e1", "p1", Literal("7", "xsd:integer"))])
    reference_path, path = tmp_path / "ref", tmp_path / "kg"
    for p in (reference_path, path):
        with _new(p) as s:
            first.load(s)
    with open_store(reference_path) as ref:
        ref.import_stage(big_stage)
        expected = _dump(ref)
    _interrupt(path, big_stage, "import: facts", clean_report.steps["names"] / 2)
    with open_store(path) as s:
        s.import_stage(big_stage)
        assert _dump(s) == expected
        # The replaced name stays findable as an alias (issue 18).
        assert [e.id for e in s.find_by_name("old name for e1")] == ["e1"]
        assert [e.id for e in s.find_by_name("v")] == ["e5"]



def test_store_written_before_predicate_aliases(tmp_path: Path) -> None:
    """A store whose Predicate table has no ``aliases`` column (written before issue
    34) reads with no aliases, and its next import adds the column in place."""
    store = _new(tmp_path / "s")
    store.ingest([], [Fact("a", "p", "b")], predicates=[Predicate("p", "label")])
    store._rows("ALTER TABLE Predicate DROP aliases")
    store.close()
    with open_store(str(tmp_path / "s"), read_only=True) as old:
        assert old.predicates() == [Predicate("p", "label", 1)]
    with open_store(str(tmp_path / "s")) as upgraded:
        upgraded.ingest([], [], predicates=[Predicate("p", None, aliases=("other name",))])
        assert upgraded.predicates() == [Predicate("p", "label", 1, ("other name",))]
