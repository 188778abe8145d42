"""``kgbench store export-neo4j``: the real CLI in a subprocess on a loaded store and on a
stage (the files themselves are tested in tests/kgstore/test_neo4j_admin_export.py)."""

from __future__ import annotations

import json
from pathlib import Path

from kgstore.staging import StageWriter
from tests.kgbench.test_cli import assert_clean_error, load, run, run_json, write_inputs


def test_exports_a_loaded_store_with_its_sources(tmp_path: Path) -> None:
    facts, names = write_inputs(tmp_path)
    assert load(tmp_path / "store", facts, names).returncode == 0
    doc = run_json("store", "export-neo4j", tmp_path / "store", "--out", tmp_path / "neo4j")
    assert doc["kind"] == "store" and doc["facts"] == 4
    assert doc["nodes"]["Entity"] == 6 and doc["relationships"] == {"Fact": 4, "NAMES": 6}
    assert doc["nodes"]["Source"] == 2     # the facts file and the names file
    assert doc["command"][:5] == ["neo4j-admin", "database", "import", "full", "neo4j"]
    out = tmp_path / "neo4j"
    assert doc["command_line"].partition(" ")[2] in (out / "import.sh").read_text()
    assert json.loads((out / "export.json").read_text())["command"] == doc["command"]
    source_rows = (out / "source.csv").read_text()
    assert "facts.tsv#" in source_rows and ',complete\n' in source_rows


def test_human_output_prints_the_command_and_what_follows(tmp_path: Path) -> None:
    facts, names = write_inputs(tmp_path)
    assert load(tmp_path / "store", facts, names).returncode == 0
    proc = run("store", "export-neo4j", tmp_path / "store", "--out", tmp_path / "o",
               "--database", "kg")
    assert proc.returncode == 0, proc.stderr
    assert "neo4j-admin database import full kg --nodes=" in proc.stdout
    assert "creates the constraints and indexes" in proc.stderr


def test_exports_a_stage(tmp_path: Path) -> None:
    with StageWriter(tmp_path / "stage") as w:
        w.add_entity("a,1", "Alpha")
        w.add_fact("a,1", "p", "b")
        w.add_fact("b", "p", "c")
    doc = run_json("store", "export-neo4j", tmp_path / "stage", "--out", tmp_path / "o",
                   "--nameless-cvt")
    assert doc["kind"] == "stage" and doc["facts"] == 2 and doc["nodes"]["Entity"] == 3
    rows = (tmp_path / "o" / "entity.csv").read_text().splitlines()
    assert rows == ['"a,1",Entity,Alpha,,,false,', "b,Entity,,,,true,", "c,Entity,,,,false,"]


def test_bad_input_and_busy_output_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    proc = run("store", "export-neo4j", tmp_path / "plain", "--out", tmp_path / "o")
    assert_clean_error(proc)
    assert "neither a kgbench store" in proc.stderr
    proc = run("store", "export-neo4j", tmp_path / "nothing", "--out", tmp_path / "o")
    assert_clean_error(proc)
    (tmp_path / "stage").mkdir()
    (tmp_path / "stage" / "manifest.json").write_text('{"layout": 1}')
    proc = run("store", "export-neo4j", tmp_path / "stage", "--out", tmp_path / "o")
    assert_clean_error(proc)
    assert "not a complete stage" in proc.stderr
    facts, names = write_inputs(tmp_path)
    assert load(tmp_path / "store", facts, names).returncode == 0
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("keep")
    proc = run("store", "export-neo4j", tmp_path / "store", "--out", tmp_path / "busy")
    assert_clean_error(proc)
    assert "--force" in proc.stderr and (tmp_path / "busy" / "x").read_text() == "keep"
    assert not (tmp_path / "o").exists()
    proc = run("store", "export-neo4j", tmp_path / "store", "--out", tmp_path / "busy",
               "--force", "--json")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "busy" / "x").exists()


def test_help_teaches_with_an_example() -> None:
    proc = run("store", "export-neo4j", "--help")
    assert proc.returncode == 0
    assert "Example: kgbench store export-neo4j" in proc.stdout
    assert "--array-delimiter" in proc.stdout
