"""``--store`` given a URI (``bolt://127.0.0.1:7687``): until the Neo4j backend lands,
every command says so in one line that names the URI as typed, exits non-zero, and
creates nothing (the CLI used to fold the URI into ``bolt:/127.0.0.1:7687``, print a
long traceback and leave a folder ``./bolt:`` behind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kgbench.test_cli import assert_clean_error, run

URIS = ["bolt://127.0.0.1:7687", "neo4j+s://db.example.org:7687"]


def _assert_refused(proc_stderr: str, uri: str) -> None:
    errors = [line for line in proc_stderr.splitlines() if "rror" in line]
    assert len(errors) == 1, proc_stderr
    assert errors[0].startswith(f"Error: {uri}: the Neo4j backend is not available yet"), \
        proc_stderr
    assert "use a directory path for the embedded store" in errors[0]


@pytest.mark.parametrize("uri", URIS)
def test_load_into_a_uri_is_one_line_and_creates_nothing(uri: str, tmp_path: Path) -> None:
    facts = tmp_path / "facts.tsv"
    facts.write_text("/m/01\t/film/film/directed_by\t/m/02\n", encoding="utf-8")
    proc = run("load", "triples", facts, "--store", uri, cwd=tmp_path)
    assert_clean_error(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]   # no ./bolt:
    _assert_refused(proc.stderr, uri)


@pytest.mark.parametrize("command", [["stats"], ["entity", "m.01"], ["search", "x"]])
def test_reading_a_uri_is_one_line_and_creates_nothing(command: list[str],
                                                       tmp_path: Path) -> None:
    uri = URIS[0]
    proc = run(*command, "--store", uri, cwd=tmp_path)
    assert_clean_error(proc)
    assert list(tmp_path.iterdir()) == []
    _assert_refused(proc.stderr, uri)


def test_the_store_variable_with_a_uri_is_refused_the_same_way(tmp_path: Path) -> None:
    uri = URIS[0]
    proc = run("stats", cwd=tmp_path, env={"KGBENCH_STORE": uri})
    assert_clean_error(proc)
    assert list(tmp_path.iterdir()) == []
    _assert_refused(proc.stderr, uri)
