"""``kgstore.backends.neo4j.admin_export``: the CSV input of ``neo4j-admin database
import full``, loaded by Neo4j's own import tool (from Maven Central, the launcher's
classpath) into a fresh DBMS home, served by the test launcher and read back with the
official driver against the source store.

The round trip needs the launcher's classpath (``make neo4j-up`` builds it): when
``KGBENCH_NEO4J_URI`` is set (CI) it must be there and the tool must work; unset, the
round trip skips with a reason that says ``make neo4j-up``. The file-level tests always run.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from kgstore import Entity, Fact, Literal, normalize_name, open_store
from kgstore.backends.neo4j.admin_export import source_kind
from kgstore.neo4j_admin import Neo4jExportError, export_for_neo4j_admin
from kgstore.predicate_stats import PENDING_KEY, STATS_KEY, decode_sample, decode_stats, sample_key
from kgstore.staging import StageWriter
from tests.kgstore.kgdata import FILM_ENTITIES, FILM_FACTS, FILM_PREDICATES

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "tools" / "neo4j-test-server" / "target"
JAVA = Path(os.environ.get("JDK17", "/usr/lib/jvm/java-17-openjdk-amd64")) / "bin" / "java"
URI_ENV = "KGBENCH_NEO4J_URI"
PASSWORD = "kgbench-dev"

# Hostile records: ids with commas, quotes, newlines, ';', the slot separator and
# non-ASCII; names that are empty or hold CR; aliases with ';' and the first array
# delimiter (so the export must pick another); literals with line breaks, NaN,
# infinities, a BC year.
HOSTILE_ENTITIES = [
    Entity('h,"1"', 'Quote "q", comma', aliases=("a;b", "semi;colon"), types=("t,1", "t\n2"),
           description="line1\nline2\r\nline3"),
    Entity("h;2\nx", "", aliases=("rs\x1ein alias",), types=("t;3",)),
    Entity("h\x1f3 ü€😀", "Ünïcödé  Name\t", aliases=("ÜNÏCÖDÉ NAME",)),
    Entity("h4", "cr\rname", is_cvt=True),
]
HOSTILE_FACTS = [
    Fact('h,"1"', "p,1", "h;2\nx"),
    Fact("h;2\nx", "p;2", 'h,"1"'),
    Fact("h\x1f3 ü€😀", "p,1", 'h,"1"'),
    Fact("h4", "p,1", 'h,"1"'),
    Fact('h,"1"', "note", Literal("multi\nline \"quoted\", text", lang="EN")),
    Fact('h,"1"', "n.nan", Literal("NaN", "xsd:double")),
    Fact("h4", "n.inf", Literal("INF", "xsd:double")),
    Fact("h4", "n.neg", Literal("-1.5e-300", "xsd:double")),
    Fact("h4", "n.big", Literal("123456789012345678", "xsd:integer")),
    Fact("h4", "year", Literal("-0044", "xsd:gYear")),
    Fact("h4", "date", Literal("2024-02-29T10:00:00Z", "xsd:dateTime")),
]


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The film KG plus :data:`HOSTILE_ENTITIES` and :data:`HOSTILE_FACTS`."""
    path = str(tmp_path_factory.mktemp("hostile") / "store")
    with open_store(path, create=True) as s:
        s.ingest([*FILM_ENTITIES, *HOSTILE_ENTITIES], [*FILM_FACTS, *HOSTILE_FACTS],
                 predicates=FILM_PREDICATES)
    return path


# -- the round trip through Neo4j's own import tool --------------------------------------


def _launcher() -> tuple[str, str]:
    """(classpath of the import tool and the launcher, java), or a skip/failure."""
    classpath = LAUNCHER / "classpath.txt"
    if not classpath.is_file() or not JAVA.is_file():
        reason = (f"{classpath} or {JAVA} is missing: `make neo4j-up` builds the launcher "
                  "(Neo4j's import tool comes with it from Maven Central)")
        if os.environ.get(URI_ENV):
            pytest.fail(f"{URI_ENV} is set but {reason}")
        pytest.skip(reason)
    return f"{LAUNCHER / 'classes'}{os.pathsep}{classpath.read_text().strip()}", str(JAVA)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def imported(hostile_store: str, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[tuple[neo4j.Driver, dict[str, Any]]]:
    """The hostile store exported, imported by the real tool (through import.sh) into a
    fresh DBMS home, served on a free port: (driver, export.json)."""
    classpath, java = _launcher()
    work = tmp_path_factory.mktemp("neo4j-import")
    old = os.environ.get("KGBENCH_HUB_MIN_DEGREE")
    os.environ["KGBENCH_HUB_MIN_DEGREE"] = "3"   # m.usa and h,"1" become hubs
    try:
        export_for_neo4j_admin(hostile_store, work / "out dir")
    finally:
        if old is None:
            del os.environ["KGBENCH_HUB_MIN_DEGREE"]
        else:
            os.environ["KGBENCH_HUB_MIN_DEGREE"] = old
    home = work / "home"
    home.mkdir()
    admin = work / "neo4j-admin"
    admin.write_text(f'#!/bin/sh\nexec "{java}" -Xmx512m -XX:TieredStopAtLevel=1 '
                     f'-cp "{classpath}" org.neo4j.cli.AdminTool "$@"\n')
    admin.chmod(0o755)
    env = dict(os.environ, NEO4J_HOME=str(home), NEO4J_ADMIN=str(admin))
    run = subprocess.run(["sh", str(work / "out dir" / "import.sh")], env=env, cwd=work,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0 and "IMPORT DONE" in run.stdout, run.stdout[-3000:] + run.stderr
    assert (work / "out dir" / "import.report").is_file() and not (work / "import.report").exists()
    port = _free_port()
    ready = work / "ready"
    with open(work / "server.log", "wb") as log:
        server = subprocess.Popen(
            [java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", classpath,
             "kgbench.neo4j.TestServer", str(home), str(port), str(ready)],
            env=dict(os.environ, KGBENCH_NEO4J_PASSWORD=PASSWORD), stdout=log,
            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while not ready.exists():
            assert server.poll() is None, (work / "server.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the server on the imported home did not start"
            time.sleep(0.25)
        driver = neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}",
                                            auth=("neo4j", PASSWORD))
        try:
            yield driver, json.loads((work / "out dir" / "export.json").read_text())
        finally:
            driver.close()
    finally:
        # Killed, not stopped: the home is thrown away, and a clean shutdown took 10 s.
        server.kill()
        server.wait(120)


def _rows(driver: neo4j.Driver, query: str) -> list[list[Any]]:
    records, _, _ = driver.execute_query(query, routing_=neo4j.RoutingControl.READ)
    return [list(r.values()) for r in records]


def _date(value: Any) -> str | None:
    return None if value is None else value.iso_format()


@pytest.mark.slow
def test_import_tool_loads_every_node_and_relationship(
        imported: tuple[neo4j.Driver, dict[str, Any]], hostile_store: str) -> None:
    driver, export = imported
    with open_store(hostile_store, read_only=True) as s:
        stats = s.stats()
        with_facts = len(s.predicate_stats() or {})
    labels = dict(_rows(driver, "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*)"))
    assert labels == export["nodes"]
    assert labels["Entity"] == stats.entities and labels["Literal"] == stats.literals
    # schema version, created_at, CVT types; the predicate statistics, their marker and
    # one sample per predicate with facts
    assert labels["Predicate"] == stats.predicates and labels["Meta"] == 5 + with_facts
    types = dict(_rows(driver, "MATCH ()-[r]->() RETURN type(r), count(*)"))
    assert types == export["relationships"]
    assert types["Fact"] == stats.facts
    # Every node has exactly one label.
    assert _rows(driver, "MATCH (n) WHERE size(labels(n)) <> 1 RETURN count(n)") == [[0]]


@pytest.mark.slow
def test_entities_read_back_as_stored(imported: tuple[neo4j.Driver, dict[str, Any]],
                                      hostile_store: str) -> None:
    driver, _ = imported
    with open_store(hostile_store, read_only=True) as s:
        expected = {e.id: e for batch in s.iter_entities() for e in batch}
    got = _rows(driver, "MATCH (e:Entity) RETURN e.id, e.name, e.aliases, e.types, e.is_cvt, "
                        "e.description, keys(e)")
    assert {r[0] for r in got} == set(expected)
    for id, name, aliases, types, is_cvt, description, keys in got:
        e = expected[id]
        assert (name, is_cvt, description) == (e.name, e.is_cvt, e.description), id
        # The tool stores no empty list: no aliases is no property.
        assert (aliases or [], types or []) == (list(e.aliases), list(e.types)), id
        assert ("aliases" in keys) == bool(e.aliases)
    # The hostile ones, spelled out.
    hostile = {r[0]: r for r in got}
    assert hostile['h,"1"'][1:4] == ['Quote "q", comma', ["a;b", "semi;colon"], ["t\n2", "t,1"]]
    assert hostile['h,"1"'][5] == "line1\nline2\r\nline3"
    assert hostile["h;2\nx"][1:3] == ["", ["rs\x1ein alias"]]
    assert hostile["h4"][1] == "cr\rname" and hostile["h4"][4] is True


@pytest.mark.slow
def test_facts_literals_and_predicates_read_back(
        imported: tuple[neo4j.Driver, dict[str, Any]], hostile_store: str) -> None:
    driver, _ = imported
    with open_store(hostile_store, read_only=True) as s:
        facts = [f for batch in s.iter_facts() for f in batch]
        predicates = {(p.id, p.label, p.count) for p in s.predicates()}
    got = _rows(driver, "MATCH (s:Entity)-[f:Fact]->(o) RETURN s.id, f.predicate, o.id, "
                        "labels(o)[0]")
    assert sorted(map(tuple, got)) == sorted(
        (f.subject, f.predicate, f.object_key, "Literal" if f.is_literal else "Entity")
        for f in facts)
    literals = {r[0]: r[1:] for r in _rows(
        driver, "MATCH (l:Literal) RETURN l.id, l.value, l.datatype, l.lang, l.num, l.date")}
    for f in facts:
        if isinstance(f.object, Literal):
            value, datatype, lang, _, _ = literals[f.object.key]
            assert (value, datatype, lang) == (f.object.value, f.object.datatype, f.object.lang)
    by_value = {v[0]: v for v in literals.values()}
    assert by_value["multi\nline \"quoted\", text"][2] == "en"
    assert by_value["NaN"][3] != by_value["NaN"][3]            # NaN
    assert by_value["INF"][3] == float("inf")
    assert by_value["-1.5e-300"][3] == -1.5e-300
    assert by_value["123456789012345678"][3] == 123456789012345678.0
    assert by_value["175"][3] == 175.0
    assert _date(by_value["1972-03-24"][4]) == "1972-03-24"
    assert _date(by_value["2024-02-29T10:00:00Z"][4]) == "2024-02-29"
    assert by_value["-0044"][4] is None     # a BC year: no date the driver could read
    assert by_value["Der Pate"][3:] == [None, None]
    got_predicates = {tuple(r) for r in _rows(
        driver, "MATCH (p:Predicate) RETURN p.id, p.label, p.count")}
    assert got_predicates == predicates


@pytest.mark.slow
def test_names_hubs_and_meta(imported: tuple[neo4j.Driver, dict[str, Any]],
                             hostile_store: str) -> None:
    driver, _ = imported
    with open_store(hostile_store, read_only=True) as s:
        entities = [e for batch in s.iter_entities() for e in batch]
        facts = [f for batch in s.iter_facts() for f in batch]
        cvt_types = sorted(s.cvt_types())
    names = {(normalize_name(n), e.id) for e in entities
             for n in ([e.name] if e.name is not None else []) + list(e.aliases)}
    names = {(k, i) for k, i in names if k}
    assert {tuple(r) for r in _rows(
        driver, "MATCH (n:Name)-[:NAMES]->(e:Entity) RETURN n.key, e.id")} == names
    assert ("ünïcödé name", "h\x1f3 ü€😀") in names
    # Hub index at 3 incoming facts: one InSlot per (hub, predicate), linked to subjects.
    incoming: dict[str, list[Fact]] = {}
    for f in facts:
        if not f.is_literal:
            incoming.setdefault(f.object_key, []).append(f)
    hubs = {h for h, fs in incoming.items() if len(fs) >= 3}
    assert hubs == {"m.usa", 'h,"1"'}
    assert {r[0] for r in _rows(driver, "MATCH (h:Hub) RETURN h.id")} == hubs
    slots = {(f"{h}\x1f{f.predicate}", f.predicate, f.subject) for h in hubs for f in incoming[h]}
    assert {tuple(r) for r in _rows(
        driver, "MATCH (k:InSlot)-[:IN_SLOT]->(s:Entity) RETURN k.key, k.predicate, s.id")} \
        == slots
    meta = dict(_rows(driver, "MATCH (m:Meta) RETURN m.key, m.value"))
    assert meta["schema_version"] == "1" and json.loads(meta["cvt_types"]) == cvt_types
    assert meta["created_at"].endswith("+00:00")
    # The predicate statistics the store's own import kept, computed by the export.
    with open_store(hostile_store, read_only=True) as s:
        kept = s.predicate_stats()
        assert kept and decode_stats(meta[STATS_KEY]) == kept and meta[PENDING_KEY] == "0"
        for p in kept:
            assert decode_sample(p, meta[sample_key(p)]) == s.predicate_sample(p)


# -- the files, without the tool ---------------------------------------------------------


def _files(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.csv"))}


def test_headers_and_command_follow_the_documented_format(hostile_store: str,
                                                          tmp_path: Path) -> None:
    report = export_for_neo4j_admin(hostile_store, tmp_path / "out")
    files = _files(tmp_path / "out")
    assert files["entity.header.csv"] == ("id:ID(Entity),:LABEL,name,aliases:string[],"
                                          "types:string[],is_cvt:boolean,description\n")
    assert files["literal.header.csv"] == ("id:ID(Literal),:LABEL,value,datatype,lang,"
                                           "num:double,date:date\n")
    assert files["fact_entity.header.csv"] == ":START_ID(Entity),:END_ID(Entity),:TYPE,predicate\n"
    assert files["fact_literal.header.csv"] == (":START_ID(Entity),:END_ID(Literal),:TYPE,"
                                                "predicate\n")
    assert files["names.header.csv"] == ":START_ID(Name),:END_ID(Entity),:TYPE\n"
    # An alias holds U+001E: the next delimiter is used.
    assert report.array_delimiter == "\x1d"
    assert "--array-delimiter=U+001D" in report.command
    multiline = next(a for a in report.command if a.startswith("--multiline-fields="))
    # Only the files with a line break in a field (ids, names, descriptions, values).
    assert {Path(p).name for p in multiline.partition("=")[2].split(",")} == {
        "entity.csv", "literal.csv", "fact_entity.csv", "names.csv"}
    script = (tmp_path / "out" / "import.sh").read_text()
    assert report.command_line.partition(" ")[2] in script
    assert "CREATE CONSTRAINT kgbench_entity_id" in script
    assert not list(tmp_path.glob(".out.*"))   # no partial or old folder left behind


def test_stage_export_is_what_an_import_into_an_empty_store_holds(tmp_path: Path) -> None:
    """A stage (repeated partial rows, a mediator type, nameless subjects) exported
    directly writes the same files as the store an import of that stage makes."""
    with StageWriter(tmp_path / "stage") as w:
        for e in [*FILM_ENTITIES, *HOSTILE_ENTITIES]:
            w.add_entity_record(e)
        w.add_entity("m.godfather", None, aliases=("The Don's film",), types=("x.t",))
        w.add_entity("cvt.1", None, types=("mediator.t",))
        for f in [*FILM_FACTS, *HOSTILE_FACTS, *FILM_FACTS]:
            w.add_fact_record(f)
        w.add_fact("cvt.1", "p,1", "m.usa")
        w.add_fact("nameless", "p,1", "m.usa")
        for p in FILM_PREDICATES:
            w.add_predicate(p.id, p.label, p.aliases)
        w.add_cvt_type("mediator.t")
    assert source_kind(str(tmp_path / "stage")) == "stage"
    with open_store(str(tmp_path / "store"), create=True) as s:
        s.import_stage(tmp_path / "stage", nameless_is_cvt=True)
    from_stage = export_for_neo4j_admin(str(tmp_path / "stage"), tmp_path / "a",
                                        nameless_is_cvt=True)
    from_store = export_for_neo4j_admin(str(tmp_path / "store"), tmp_path / "b")
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    # created_at differs; everything else is the same, byte for byte.
    assert a.pop("meta.csv").splitlines()[1:] == b.pop("meta.csv").splitlines()[1:]
    assert a == b
    assert from_stage.nodes == from_store.nodes and from_stage.facts == from_store.facts
    entity_rows = a["entity.csv"]
    assert "cvt.1,Entity,,,mediator.t,true," in entity_rows
    assert "nameless,Entity,,,,true," in entity_rows


def test_bad_inputs_and_outputs_are_refused(hostile_store: str, tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(Neo4jExportError, match="neither a kgbench store"):
        export_for_neo4j_admin(str(tmp_path / "plain"), tmp_path / "o1")
    with pytest.raises(Neo4jExportError, match="no such directory"):
        export_for_neo4j_admin(str(tmp_path / "missing"), tmp_path / "o1")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    with pytest.raises(Neo4jExportError, match="not empty"):
        export_for_neo4j_admin(hostile_store, tmp_path / "busy")
    assert (tmp_path / "busy" / "keep.txt").read_text() == "mine"
    with pytest.raises(Neo4jExportError, match="comma"):
        export_for_neo4j_admin(hostile_store, tmp_path / "a,b")
    with pytest.raises(Neo4jExportError, match="outside"):
        export_for_neo4j_admin(hostile_store, Path(hostile_store) / "export", force=True)
    with pytest.raises(Neo4jExportError, match="outside"):
        export_for_neo4j_admin(hostile_store, Path(hostile_store).parent, force=True)
    # A stage whose part changed after it was written.
    with StageWriter(tmp_path / "stage") as w:
        w.add_fact("a", "p", "b")
    part = next((tmp_path / "stage" / "facts").glob("*.parquet"))
    part.write_bytes(part.read_bytes() + b"x")
    with pytest.raises(Neo4jExportError, match="cannot be trusted"):
        export_for_neo4j_admin(str(tmp_path / "stage"), tmp_path / "o2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy", "plain", "stage"]


def test_force_replaces_only_once_complete(hostile_store: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    # Every array delimiter in the data: the export fails, the old folder stays.
    with open_store(str(tmp_path / "s"), create=True) as s:
        s.ingest([Entity("x", "x", aliases=("\x1e\x1d\x1c\x1f\x07\x01",))])
    with pytest.raises(Neo4jExportError, match="array delimiter"):
        export_for_neo4j_admin(str(tmp_path / "s"), out, force=True)
    assert [p.name for p in out.iterdir()] == ["old.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "s"]
    export_for_neo4j_admin(hostile_store, out, force=True)
    assert not (out / "old.txt").exists() and (out / "import.sh").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "s"]
