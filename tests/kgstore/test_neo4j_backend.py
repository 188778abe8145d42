"""The Neo4j backend against hostile databases and interrupted imports, on the real
Neo4j test server (``make neo4j-up``): a database that holds someone else's data, a
store of another or a damaged schema version, a store whose creation was killed half
way, and an online import stopped at each of its steps then run again, which must end
with exactly the content (hub index included) of an import that was never stopped."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest

from kgstore import (
    Fact,
    IncompatibleStoreError,
    Literal,
    StoreError,
    StoreNotFoundError,
    open_store,
    remove_store,
    store_exists,
)
from kgstore.backends.neo4j import importer
from kgstore.staging import StageWriter
from kgstore.store import IMPORT_STEPS
from tests import neo4j_server
from tests.neo4j_server import content, requires_neo4j, run_query

pytestmark = [pytest.mark.neo4j, requires_neo4j]


@pytest.fixture
def uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test database, emptied; loads stage under ``tmp_path``."""
    neo4j_server.wipe()
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "work"))
    assert neo4j_server.URI is not None
    return neo4j_server.URI


# -- databases that are not (this kgbench's) stores ---------------------------------------

def test_a_foreign_database_is_refused_and_left_as_it_was(uri: str) -> None:
    run_query("CREATE (:Person {name: 'Alice'})-[:KNOWS]->(:Person {name: 'Bob'})")
    before = content()
    with pytest.raises(StoreError, match="holds data that is not a kgbench store"):
        open_store(uri, create=True)
    with pytest.raises(StoreNotFoundError, match="no kgbench store"):
        open_store(uri, read_only=True)
    assert not store_exists(uri)
    with pytest.raises(StoreNotFoundError):
        remove_store(uri)
    assert content() == before


def test_a_create_killed_before_its_schema_version_is_finished_by_the_next_one(
        uri: str) -> None:
    # What Neo4jStore(create=True) leaves when killed between its two Meta writes.
    run_query("UNWIND ['created_at', 'cvt_types', 'backend'] AS k "
              "CREATE (:Meta {key: k, value: CASE k WHEN 'cvt_types' THEN '[]' "
              "WHEN 'backend' THEN 'neo4j' ELSE '2025-01-01T00:00:00+00:00' END})")
    assert not store_exists(uri)
    with open_store(uri, create=True) as store:
        store.ingest([], [Fact("m.1", "p", "m.2")])
    assert store_exists(uri)
    with open_store(uri, read_only=True) as store:
        assert store.stats().facts == 1


@pytest.mark.parametrize("version", ["999", "0"])
def test_a_store_of_another_schema_version_is_refused_by_every_opener(
        uri: str, version: str) -> None:
    with open_store(uri, create=True) as store:
        store.ingest([], [Fact("m.1", "p", "m.2")])
    run_query("MATCH (m:Meta {key: 'schema_version'}) SET m.value = $v", {"v": version})
    before = content()
    for opener in (lambda: open_store(uri), lambda: open_store(uri, read_only=True),
                   lambda: open_store(uri, create=True), lambda: remove_store(uri)):
        with pytest.raises(IncompatibleStoreError,
                           match=f"kgbench store of schema version {version}, this kgbench "
                                 "reads version 1"):
            opener()
    assert content() == before


@pytest.mark.parametrize("value", ["x9", "", "1.5"])
def test_a_damaged_schema_version_is_one_clear_error(uri: str, value: str) -> None:
    with open_store(uri, create=True) as store:
        store.ingest([], [Fact("m.1", "p", "m.2")])
    run_query("MATCH (m:Meta {key: 'schema_version'}) SET m.value = $v", {"v": value})
    for opener in (lambda: open_store(uri), lambda: open_store(uri, read_only=True)):
        with pytest.raises(IncompatibleStoreError) as info:
            opener()
        assert "schema version is damaged" in str(info.value)
        assert "\n" not in str(info.value)


# -- interrupted imports ------------------------------------------------------------------

HUBS = ("hub1", "hub2", "hub3")
MIN_DEGREE = 30
ROWS = 40   # rows per write transaction here: many transactions from a small KG


def _first_stage(path: Path) -> Path:
    """200 named subjects; hub1 is a hub (100 facts in); facts between subjects, literals."""
    with StageWriter(path) as w:
        for i in range(200):
            w.add_entity(f"s{i:03d}", f"Subject {i}", aliases=[f"S{i}"])
        for i in range(100):
            w.add_fact(f"s{i:03d}", f"p{i % 3}", "hub1")
        for i in range(199):
            w.add_fact(f"s{i:03d}", "next", f"s{i + 1:03d}")
            w.add_fact(f"s{i:03d}", "age", Literal(str(i), "xsd:integer"))
        w.add_predicate("next", "next one")
    return w.dir


def _second_stage(path: Path) -> Path:
    """More facts into hub1 (new subjects, a new predicate), hub2 a hub only now, hub3
    not one; renamed entities, new literals and subjects."""
    with StageWriter(path) as w:
        for i in range(200, 300):
            w.add_entity(f"s{i:03d}", f"Subject {i}")
            w.add_fact(f"s{i:03d}", "p0" if i % 2 else "p3", "hub1")
            w.add_fact(f"s{i:03d}", "label", Literal(f"text {i}", lang="en"))
        for i in range(60):
            w.add_fact(f"s{i:03d}", "p1", "hub2")
        for i in range(10):
            w.add_fact(f"s{i:03d}", "p2", "hub3")
            w.add_entity(f"s{i:03d}", f"Renamed {i}")
        w.add_entity("hub2", "Hub Two", types=["t.hub"])
        w.add_predicate("p3", "the third")
    return w.dir


class Stopped(Exception):
    """Raised from the progress callback: the import stops there, as if killed (every
    write transaction before it committed, none after it began)."""


def _stop_at(label: str, calls: int) -> Callable[[str, int, int], None]:
    seen = 0

    def progress(what: str, _done: int, _total: int) -> None:
        nonlocal seen
        if what == label:
            seen += 1
            if seen == calls:
                raise Stopped(f"{label} #{calls}")
    return progress


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("stages")
    return _first_stage(root / "a"), _second_stage(root / "b")


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "ROWS_PER_WRITE", ROWS)
    monkeypatch.setenv("KGBENCH_HUB_MIN_DEGREE", str(MIN_DEGREE))


def _hub_reads(uri: str) -> list[object]:
    with open_store(uri, read_only=True) as store:
        return [[store.facts_in(h, predicate=f"p{n}", limit=1000) for n in range(4)]
                for h in HUBS]


# Where the second import stops: (progress label, which call with that label). Facts
# arrive in transactions of ROWS (a call each); 100 + 60 + 10 + 100 entity and 100
# literal facts are new, so call 8 of "import: facts" comes after the last of them.
STOPS = {
    "entities, part written": ("import: entities", 1),
    "facts, part written": ("import: facts", 2),
    "facts all written, hubs not indexed": ("import: facts", 8),
    "hubs, the first indexed": ("import: hubs", 1),
    "names, part written": ("import: names", 1),
}


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("stop", list(STOPS))
def test_an_import_stopped_at_any_step_then_rerun_equals_a_clean_import(
        uri: str, stages: tuple[Path, Path], stop: str) -> None:
    first, second = stages
    with open_store(uri, create=True) as store:
        store.import_stage(first)
        store.import_stage(second)
    clean, clean_reads = content(), _hub_reads(uri)
    assert {r[0] for r in run_query("MATCH (h:Hub) RETURN h.id")} == {"hub1", "hub2"}

    neo4j_server.wipe()
    with open_store(uri, create=True) as store:
        store.import_stage(first)
    with open_store(uri) as store, pytest.raises(Stopped):
        store.import_stage(second, progress=_stop_at(*STOPS[stop]))
    with open_store(uri) as store:
        store.import_stage(second)
    assert _hub_reads(uri) == clean_reads
    assert content() == clean


@pytest.mark.usefixtures("small_batches")
def test_a_hub_window_read_from_its_head_equals_the_sorted_facts(
        uri: str, stages: tuple[Path, Path]) -> None:
    """A hub's node lists its first incoming facts in window order (kept right when a
    second import adds facts into it and before its first ones); windows of up to
    HUB_HEAD facts are read from that list, longer ones from the slots: both equal the
    facts sorted by (subject id, predicate), in facts_in and adjacency."""
    from kgstore.backends.neo4j.queries import HUB_HEAD

    first, second = stages
    with open_store(uri, create=True) as store:
        store.import_stage(first)
        store.import_stage(second)
    [[subjects, predicates]] = run_query(
        "MATCH (h:Hub {id: 'hub1'}) RETURN h.head_subjects, h.head_predicates")
    everything = run_query("MATCH (:Entity {id: 'hub1'})<-[f:Fact]-(s:Entity) "
                           "RETURN s.id, f.predicate ORDER BY s.id, f.predicate")
    assert len(everything) == 200   # the second stage's 100 too
    assert [list(r) for r in zip(subjects, predicates, strict=True)] == \
        [list(r) for r in everything[:HUB_HEAD]]
    with open_store(uri, read_only=True) as store:
        for limit in (1, 48, 201, HUB_HEAD + 1):
            expected = [Fact(s, p, "hub1") for s, p in everything[:limit]]
            assert store.facts_in("hub1", limit=limit) == expected, limit
            around = store.adjacency("hub1", limit=limit, detail="brief")
            assert [f for f in around.facts if f.object == "hub1"] == expected[:limit]
        assert "hub1" in store._hub_heads   # type: ignore[attr-defined]


# -- several writers, and nodes found by element id ----------------------------------------

@pytest.mark.usefixtures("small_batches")
def test_one_writer_and_four_writers_import_the_same_store(
        uri: str, stages: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = stages
    contents = []
    for writers in ("1", "4"):
        neo4j_server.wipe()
        monkeypatch.setenv("KGBENCH_NEO4J_WRITERS", writers)
        with open_store(uri, create=True) as store:
            store.import_stage(first)
            report = store.import_stage(second)
        assert report.facts_new == 170 + 100   # entity facts, literal facts
        contents.append((content(), _hub_reads(uri)))
    assert contents[0] == contents[1]


def test_the_driver_packs_bolt_in_rust() -> None:
    """neo4j-rust-ext (a dependency) replaces the driver's Python packstream: without it
    the online import's client CPU is 1.8x (2.9 against 1.6 CPU-s on 200k facts)."""
    assert importlib.util.find_spec("neo4j._rust") is not None


@pytest.mark.parametrize("value", ["0", "33", "two", "-1"])
def test_a_wrong_number_of_writers_is_one_clear_error(
        uri: str, stages: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
        value: str) -> None:
    monkeypatch.setenv("KGBENCH_NEO4J_WRITERS", value)
    with open_store(uri, create=True) as store, pytest.raises(StoreError) as raised:
        store.import_stage(stages[0])
    assert str(raised.value) == (f"KGBENCH_NEO4J_WRITERS={value!r}: give the number of "
                                 "write transactions at once, 1 to 32 (default 4)")
    assert run_query("MATCH (e:Entity) RETURN count(e)") == [[0]]


@pytest.mark.usefixtures("small_batches")
def test_an_entity_deleted_under_an_import_is_an_error_and_a_rerun_repairs_it(
        uri: str, stages: tuple[Path, Path]) -> None:
    """Facts find their ends by the element ids the import read or created: one that
    went away before the facts were written leaves them out, which the import says
    (it never reports a store complete that lacks them)."""
    first, second = stages
    with open_store(uri, create=True) as store:
        store.import_stage(first)
        store.import_stage(second)
    clean = content()
    neo4j_server.wipe()

    def delete_a_subject(what: str, done: int, total: int | None) -> None:
        if what == "import: literals" and total == len(IMPORT_STEPS):
            run_query("MATCH (e:Entity {id: 's250'}) DETACH DELETE e")

    with open_store(uri, create=True) as store:
        store.import_stage(first)
        with pytest.raises(StoreError) as raised:
            store.import_stage(second, progress=delete_a_subject)
    assert "2 of 270 facts found no end node: entities or literals were deleted while " \
        "this import ran" in str(raised.value)
    with open_store(uri) as store:
        store.import_stage(second)
    assert content() == clean
