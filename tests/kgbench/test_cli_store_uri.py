"""``--store`` given a Neo4j URI reaches the Neo4j backend as typed (the CLI used to fold
``bolt://127.0.0.1:7687`` into ``bolt:/127.0.0.1:7687``, print a long traceback and
leave a folder ``./bolt:`` behind). With no server at that address every command says
so in one line that names the URI, exits 1, and creates nothing: no ``./bolt:`` and no
local work folder (``kgbench-data/neo4j-work``) either, since the load never connected.
No server is needed: the port is a loopback port that nothing listens on."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.kgbench.test_cli import assert_clean_error, run

AUTH = {"KGBENCH_NEO4J_AUTH": "neo4j/not-used"}


def dead_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def assert_unreachable(stderr: str, uri: str) -> None:
    errors = [line for line in stderr.splitlines() if "rror" in line]
    assert len(errors) == 1, stderr
    assert errors[0].startswith(f"Error: {uri}: cannot reach Neo4j"), stderr
    assert "check that the server runs" in errors[0]


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_load_into_an_unreachable_uri_is_one_line_and_creates_nothing(
        scheme: str, tmp_path: Path) -> None:
    uri = f"{scheme}://127.0.0.1:{dead_port()}"
    facts = tmp_path / "facts.tsv"
    facts.write_text("/m/01\t/film/film/directed_by\t/m/02\n", encoding="utf-8")
    proc = run("load", "triples", facts, "--store", uri, cwd=tmp_path, env=AUTH)
    assert_clean_error(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]   # no ./bolt:
    assert_unreachable(proc.stderr, uri)


@pytest.mark.parametrize("command", [["stats"], ["entity", "m.01"], ["search", "x"]])
def test_reading_an_unreachable_uri_is_one_line_and_creates_nothing(
        command: list[str], tmp_path: Path) -> None:
    uri = f"bolt://127.0.0.1:{dead_port()}"
    proc = run(*command, "--store", uri, cwd=tmp_path, env=AUTH)
    assert_clean_error(proc)
    assert list(tmp_path.iterdir()) == []
    assert_unreachable(proc.stderr, uri)


def test_the_store_variable_with_a_uri_is_read_the_same_way(tmp_path: Path) -> None:
    uri = f"bolt://127.0.0.1:{dead_port()}"
    proc = run("stats", cwd=tmp_path, env={"KGBENCH_STORE": uri, **AUTH})
    assert_clean_error(proc)
    assert list(tmp_path.iterdir()) == []
    assert_unreachable(proc.stderr, uri)


@pytest.mark.parametrize("folded", ["bolt:/127.0.0.1:7687", "neo4j+s:/db.example.org"])
def test_the_folded_form_of_a_uri_is_refused_not_created(folded: str, tmp_path: Path) -> None:
    facts = tmp_path / "facts.tsv"
    facts.write_text("/m/01\t/film/film/directed_by\t/m/02\n", encoding="utf-8")
    proc = run("load", "triples", facts, "--store", folded, cwd=tmp_path, env=AUTH)
    assert_clean_error(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]
    errors = [line for line in proc.stderr.splitlines() if "rror" in line]
    assert len(errors) == 1 and "needs two slashes" in errors[0], proc.stderr
