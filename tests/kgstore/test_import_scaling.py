"""Import at scale: the cheaper name-key macro, and bulk import in bounded batches.

A stage bigger than one COPY's share of the buffer pool is written with several COPY
statements per table (``$KGBENCH_COPY_BATCH_ROWS`` forces small batches here). The store
must end up exactly as with one COPY per table, stay idempotent, merge a second source,
and survive kill -9 between (and during) batches."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from kgstore import Literal, open_store
from kgstore.backends.ladybug import LadybugStore, engine
from kgstore.models import NORMALIZE_NAME_SQL
from kgstore.staging import StageWriter
from kgstore.staging.diff import NAME_KEY_SQL
from tests.kgstore.test_ladybug_store import Child, _dump, _new, _write_big_stage
from tests.kgstore.test_models import HOSTILE

BATCH = "2000"  # rows per COPY: the big stage (12k entities, 50k facts) needs several


def test_import_name_key_equals_normalize_name_sql() -> None:
    """The import's name key skips the regular expression where it changes nothing; it
    must give NORMALIZE_NAME_SQL's key for every string."""
    rng = random.Random(7)
    alphabet = ([chr(c) for c in range(0, 40)] + list("aBcÅİßΣ日")
                + ["\u00a0", "\u2003", "\u3000", "\u0085", "\u1680", "\u2028", "\x7f"])
    texts = HOSTILE + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 9)))
                       for _ in range(50_000)]
    con = duckdb.connect()
    con.execute(f"CREATE MACRO slow(x) AS {NORMALIZE_NAME_SQL.format(x='x')}")
    con.execute(f"CREATE MACRO fast(x) AS {NAME_KEY_SQL}")
    con.execute("CREATE TABLE t AS SELECT unnest(?::VARCHAR[]) AS x", [texts])
    # Every branch of the macro is exercised.
    for where in ("contains(x, '  ')", "contains(x, chr(13))", "starts_with(x, ' ')",
                  "NOT contains(x, ' ')"):
        row = con.execute(f"SELECT count(*) FROM t WHERE {where}").fetchone()
        assert row is not None and row[0] >= 20, where
    differ = con.execute("SELECT x, slow(x), fast(x) FROM t "
                         "WHERE slow(x) IS DISTINCT FROM fast(x) LIMIT 5").fetchall()
    assert differ == []


@pytest.fixture(scope="module")
def big_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_big_stage(tmp_path_factory.mktemp("big") / "stage")


@pytest.fixture(scope="module")
def clean(big_stage: Path, tmp_path_factory: pytest.TempPathFactory):
    """The big stage imported with one COPY per table (the default batch size)."""
    s = _open(tmp_path_factory.mktemp("clean") / "kg")
    with s:
        report = s.import_stage(big_stage)
        return report, _dump(s)


def _open(path: Path, *, create: bool = True) -> LadybugStore:
    store = open_store(path, create=create)
    assert isinstance(store, LadybugStore)
    return store


def _count_writes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the store writes of the imports that follow, by statement start."""
    seen: Counter[str] = Counter()
    real = LadybugStore._rows

    def rows(self: LadybugStore, query: str, params=None, **options):  # type: ignore[no-untyped-def]
        if query.startswith(("COPY", "LOAD FROM")):
            seen[" ".join(query.split()[:2])] += 1
        return real(self, query, params, **options)

    monkeypatch.setattr(LadybugStore, "_rows", rows)
    return seen


def test_batch_size_follows_the_buffer_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGBENCH_COPY_BATCH_ROWS", raising=False)
    monkeypatch.setenv("KGBENCH_BUFFER_POOL_MB", "2048")
    share = (2048 << 20) * 2 / 3
    # 2/3 of a 2 GiB pool: 9.4M facts with 26-character predicates (14M fit in one COPY).
    assert engine.copy_batch_rows("rel", 26.0) == int(share / 152) == 9_418_787
    assert engine.copy_batch_rows("rel", 60.0) == int(share / 220)
    assert engine.copy_batch_rows("node") == int(share / 130)
    monkeypatch.setenv("KGBENCH_BUFFER_POOL_MB", "1")
    assert engine.copy_batch_rows("rel") == engine.MIN_COPY_ROWS
    monkeypatch.setenv("KGBENCH_COPY_BATCH_ROWS", "123")
    assert engine.copy_batch_rows("rel") == 123


# 2000 rows: 7-15 batches a table (one partitioned export each); 12000: 2-3 (one
# filtered export a batch).
@pytest.mark.slow
@pytest.mark.parametrize("batch", [BATCH, "12000"])
def test_batched_import_equals_one_copy_per_table(
        tmp_path: Path, big_stage: Path, clean, monkeypatch: pytest.MonkeyPatch,
        batch: str) -> None:
    clean_report, clean_dump = clean
    monkeypatch.setenv("KGBENCH_COPY_BATCH_ROWS", batch)
    writes = _count_writes(monkeypatch)
    s = _open(tmp_path / "kg")
    with s:
        report = s.import_stage(big_stage)
        dump = _dump(s)
        again = s.import_stage(big_stage)
        assert _dump(s) == dump
    assert dump == clean_dump
    facts = dump["facts"]
    assert isinstance(facts, list) and len(set(facts)) == len(facts)
    for field in ("entities_new", "entities_placeholder", "literals_new", "facts_new",
                  "facts_duplicate", "predicates_new"):
        assert getattr(report, field) == getattr(clean_report, field), field
    # Really in batches (a batch may exceed the size by the rows of one key).
    size = 2 * int(batch)
    assert writes["COPY Fact"] >= 2 + clean_report.facts_new // size
    assert writes["COPY Entity"] >= 1 + clean_report.entities_new // size
    assert writes["COPY Literal"] >= 1 + clean_report.literals_new // size
    assert writes["COPY NAMES"] > 1
    # A second import of the same stage adds nothing.
    assert (again.facts_new, again.entities_new, again.entities_updated,
            again.literals_new, again.predicates_new) == (0, 0, 0, 0, 0)
    assert again.facts_duplicate == clean_report.facts_new + clean_report.facts_duplicate


def _second_source(path: Path) -> Path:
    """Renames and re-aliases entities of the big stage, adds facts and literals."""
    rng = random.Random(99)
    with StageWriter(path, batch_rows=5_000) as w:
        for i in range(1, 12_000, 2):
            w.add_entity(f"e{i}", f"Renamed {i}", aliases=[f"second {i % 50}"])
        for i in range(9_000):
            s = f"e{rng.randrange(12_000)}"
            if i % 4 == 0:
                w.add_fact(s, "p_new", Literal(f"v{i}", lang="en"))
            else:
                w.add_fact(s, f"p{i % 17}", f"e{rng.randrange(13_000)}")
    return path


@pytest.mark.slow
def test_batched_merge_of_a_second_source(
        tmp_path: Path, big_stage: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    second = _second_source(tmp_path / "second")
    dumps = []
    for batch in (None, BATCH):
        if batch:
            monkeypatch.setenv("KGBENCH_COPY_BATCH_ROWS", batch)
        writes = _count_writes(monkeypatch)
        s = _open(tmp_path / f"kg-{batch}")
        with s:
            s.import_stage(big_stage)
            report = s.import_stage(second)
            dumps.append(_dump(s))
            # Renamed (both were "Name 1"): the old name stays findable as an alias
            # (issue 18).
            assert sorted(e.id for e in s.find_by_name("name 1")) == ["e1", "e9001"]
            assert [e.id for e in s.find_by_name("renamed 1")] == ["e1"]
        assert report.entities_updated == report.names_replaced == 6_000
    assert dumps[0] == dumps[1]
    # The entity updates went in batches too (a replaced name now stays as an alias:
    # no name links go stale).
    assert writes["LOAD FROM"] >= 6_000 // 2000 + 2


# -- kill -9 between batches ------------------------------------------------------------

IMPORT_PRINTING_WRITES = """
import sys
import kgstore.backends.ladybug.store as L
from kgstore import open_store
real = L.LadybugStore._rows
def rows(self, query, params=None, **options):
    out = real(self, query, params, **options)
    if query.startswith("COPY"):
        print("wrote " + " ".join(query.split()[:2]), flush=True)
    return out
L.LadybugStore._rows = rows
store = open_store(sys.argv[1])
print("ready", flush=True)
store.import_stage(sys.argv[2])
print("finished", flush=True)
store.close()
"""


@pytest.mark.slow
@pytest.mark.parametrize(("table", "after"), [("Entity", 1), ("Fact", 2), ("Fact", 12),
                                              ("IN_SLOT", 1), ("NAMES", 3)])
def test_kill_between_batches_then_rerun(
        tmp_path: Path, big_stage: Path, clean, monkeypatch: pytest.MonkeyPatch,
        table: str, after: int) -> None:
    """Kill the import right after its ``after``-th COPY into ``table`` committed (the
    next batch may be running): the re-run gives the store of a clean import."""
    _, clean_dump = clean
    monkeypatch.setenv("KGBENCH_COPY_BATCH_ROWS", BATCH)  # inherited by the child
    path = tmp_path / "kg"
    with _new(path):
        pass
    with Child(IMPORT_PRINTING_WRITES, str(path), str(big_stage)) as child:
        child.wait_for("ready", timeout=120)
        for _ in range(after):
            child.wait_for(f"wrote COPY {table}", timeout=120)
        child.kill()
        lines = child.drain()
    assert "finished" not in lines, f"the kill came too late: {lines}"
    s = _open(path, create=False)
    with s:
        partial = s.stats()
        s.import_stage(big_stage)
        dump = _dump(s)
    assert dump == clean_dump, f"killed after {lines[-1]!r}"
    if table == "Fact":
        assert 0 < partial.facts < clean_dump["stats"][3]  # type: ignore[index]
