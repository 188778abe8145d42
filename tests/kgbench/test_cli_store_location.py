"""A store location is a string from the command line to the store: ``--store
bolt://host:7687`` reaches kgstore as typed (a ``Path`` made it ``bolt:/host:7687``). With
no Neo4j at that address every command that uses a store says so in one line naming the
URI, exit 1, and creates nothing (``load`` once made a folder ``./bolt:``); ``demo``
refuses a URI, since it builds a directory store; other schemes are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kgbench.test_cli import assert_clean_error, run
from tests.kgbench.test_cli_store_uri import AUTH, dead_port

BOLT = f"bolt://127.0.0.1:{dead_port()}"


def inputs(directory: Path) -> dict[str, Path]:
    facts = directory / "facts.tsv"
    facts.write_text("/m/01\t/film/film/directed_by\t/m/02\n", encoding="utf-8")
    questions = directory / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "who?", "answers": ["m.02"]}\n',
                         encoding="utf-8")
    parsed = directory / "parsed.jsonl"
    parsed.write_text("", encoding="utf-8")
    return {"facts": facts, "questions": questions, "parsed": parsed}


COMMANDS = {
    "load triples": lambda f, uri: ["load", "triples", f["facts"], "--store", uri],
    "load triples --force": lambda f, uri: ["load", "triples", f["facts"], "--force",
                                            "--store", uri],
    "load rdf": lambda f, uri: ["load", "rdf", f["facts"], "--store", uri],
    "stats": lambda f, uri: ["stats", "--store", uri],
    "entity": lambda f, uri: ["entity", "m.01", "--store", uri],
    "cypher": lambda f, uri: ["cypher", "RETURN 1", "--store", uri],
    "generate": lambda f, uri: ["generate", "--store", uri, "--questions", f["questions"]],
    "demo": lambda f, uri: ["demo", "--store", uri],
    "questions parse": lambda f, uri: ["questions", "parse", f["questions"], "--store", uri],
    "questions ground": lambda f, uri: ["questions", "ground", f["parsed"], "--store", uri],
    "extend": lambda f, uri: ["extend", f["parsed"], "--store", uri],
    "global --store": lambda f, uri: ["--store", uri, "load", "triples", f["facts"]],
}


def assert_refused(proc_args: list[str | Path], cwd: Path, uri: str,
                   env: dict[str, str] | None = None) -> str:
    before = sorted(p.name for p in cwd.iterdir())
    proc = run(*proc_args, cwd=cwd, env={**AUTH, **(env or {})})
    assert_clean_error(proc, 1)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert uri in lines[0]
    assert sorted(p.name for p in cwd.iterdir()) == before  # no ./bolt: or anything else
    return lines[0]


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"demo"}))
def test_an_unreachable_neo4j_is_one_line_and_nothing_created(command: str,
                                                              tmp_path: Path) -> None:
    line = assert_refused(COMMANDS[command](inputs(tmp_path), BOLT), tmp_path, BOLT)
    assert line.startswith(f"Error: {BOLT}: cannot reach Neo4j")
    assert "check that the server runs" in line


def test_demo_refuses_a_neo4j_uri_it_needs_a_directory(tmp_path: Path) -> None:
    line = assert_refused(COMMANDS["demo"](inputs(tmp_path), BOLT), tmp_path, BOLT)
    assert "this needs a directory" in line


@pytest.mark.parametrize("uri", ["http://example.org/store", "s3://bucket/kg",
                                 "file:///tmp/store", "bolt:/127.0.0.1:7687"])
def test_other_uris_are_refused_before_load_creates_anything(uri: str, tmp_path: Path) -> None:
    assert_refused(COMMANDS["load triples"](inputs(tmp_path), uri), tmp_path, uri)


def test_a_uri_from_the_environment_is_used_the_same_way(tmp_path: Path) -> None:
    files = inputs(tmp_path)
    assert_refused(["load", "triples", files["facts"]], tmp_path, BOLT,
                   env={"KGBENCH_STORE": BOLT})


def test_a_directory_path_still_works(tmp_path: Path) -> None:
    files = inputs(tmp_path)
    proc = run("load", "triples", files["facts"], "--store", "stores/s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "stores" / "s").is_dir()
