"""``kgbench store copy`` and ``kgbench store checksum`` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgstore import open_store
from tests.kgbench.test_cli import assert_clean_error, run, run_json, write_inputs


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store loaded by `kgbench load triples` (with names and a malformed line)."""
    directory = tmp_path_factory.mktemp("copy-src")
    facts, names = write_inputs(directory)
    store = directory / "store"
    proc = run("--store", store, "load", "triples", facts, "--names", names)
    assert proc.returncode == 0, proc.stderr
    return store


def test_copy_reports_counts_and_equal_checksums(source: Path, tmp_path: Path) -> None:
    destination = tmp_path / "copy"
    doc = run_json("store", "copy", source, destination)

    assert doc["verified"] is True
    assert doc["source_checksum"] == doc["destination_checksum"]
    assert doc["counts"]["facts"] == 4 and doc["counts"]["entities"] == 6
    assert doc["sources_copied"] == 2 and doc["seconds"] > 0
    for location in (source, destination):
        checked = run_json("store", "checksum", location)
        assert checked["checksum"] == doc["source_checksum"]
        assert checked["counts"] == doc["counts"]
    with open_store(str(destination), read_only=True) as copy:
        assert [s.file for s in copy.sources()] == [
            s["file"] for s in run_json("stats", "--store", source)["sources"]]


def test_copy_prints_a_table_for_people(source: Path, tmp_path: Path) -> None:
    proc = run("store", "copy", source, tmp_path / "copy")
    assert proc.returncode == 0, proc.stderr
    assert "Copied and verified" in proc.stdout and "content checksum" in proc.stdout
    assert "copy facts" in proc.stderr   # progress, on stderr


def test_second_copy_needs_force(source: Path, tmp_path: Path) -> None:
    destination = tmp_path / "copy"
    first = run_json("store", "copy", source, destination)

    refused = run("store", "copy", source, destination)
    assert_clean_error(refused)
    assert "already holds a store; pass --force" in refused.stderr
    assert len([line for line in refused.stderr.splitlines() if "Error:" in line]) == 1

    forced = run_json("store", "copy", source, destination, "--force")
    assert forced["replaced_destination"] is True
    assert forced["destination_checksum"] == first["source_checksum"]


def test_bad_locations_get_one_line(source: Path, tmp_path: Path) -> None:
    missing = run("store", "copy", tmp_path / "nope", tmp_path / "dst")
    assert_clean_error(missing)
    assert "no kgbench store there to copy" in missing.stderr
    assert not (tmp_path / "dst").exists()

    same = run("store", "copy", source, f"{source}/")
    assert_clean_error(same)
    assert "are the same store" in same.stderr

    no_store = run("store", "checksum", tmp_path / "nope")
    assert_clean_error(no_store)
    assert "no kgbench store there" in no_store.stderr


def test_help_teaches_with_an_example() -> None:
    for args in (("store", "--help"), ("store", "copy", "--help"),
                 ("store", "checksum", "--help")):
        proc = run(*args)
        assert proc.returncode == 0, proc.stderr
        assert "Example: kgbench store" in proc.stdout


def test_checksum_json_is_one_document(source: Path) -> None:
    proc = run("store", "checksum", source, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert len(doc["checksum"]) == 64 and doc["scheme"] == "kgbench-content-v1"


def test_copy_progress_shows_rows_per_second() -> None:
    from rich.progress import Progress

    from kgbench.cli.output import ProgressReporter, RateColumn

    now = [0.0]
    display = Progress(get_time=lambda: now[0], disable=True)
    reporter = ProgressReporter(display, row_phases=("copy ",))
    reporter("copy facts", 0, 2000)
    now[0] = 2.0
    reporter("copy facts", 500, 2000)
    now[0] = 4.0
    reporter("copy facts", 1000, 2000)
    assert RateColumn().render(display.tasks[0]).plain == "250 rows/s"
    reporter("import: entities", 1, 7)   # the import's steps: no rate
    assert RateColumn().render(display.tasks[1]).plain == ""


def test_predicate_stats_command_keeps_what_a_load_keeps(source: Path, tmp_path: Path) -> None:
    """`kgbench store predicate-stats` on a store whose statistics are gone (as an
    older kgbench left it) computes the same ones the load kept; on a location with no
    store it is one line and exit 1."""
    with open_store(str(source)) as s:
        loaded = s.predicate_stats()
        samples = {p: s.predicate_sample(p) for p in loaded or {}}
        s._write_meta({"predicate_stats": ""})
        assert loaded and s.predicate_stats() is None
    doc = run_json("store", "predicate-stats", source)
    assert doc["predicates"] == len(loaded) and doc["seconds"] >= 0
    with open_store(str(source), read_only=True) as s:
        assert s.predicate_stats() == loaded
        assert {p: s.predicate_sample(p) for p in loaded} == samples
    proc = run("store", "predicate-stats", tmp_path / "nowhere")
    assert_clean_error(proc)
    assert "no kgbench store there" in proc.stderr
    help_text = run("store", "predicate-stats", "--help").stdout
    assert "Example: kgbench store predicate-stats" in help_text
