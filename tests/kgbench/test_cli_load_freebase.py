"""``kgbench load freebase`` end to end: the real CLI in a subprocess (as test_cli.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.kgbench.test_cli import assert_clean_error, run, run_json, stats_doc

FB = "http://rdf.freebase.com/ns/"
ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "kgbench" / "demo" / "data" / "films.nt.gz"


def fb(local: str) -> str:
    return f"<{FB}{local}>"


LINES = [
    f'{fb("m.01")}\t{fb("type.object.name")}\t"Alpha Film"@en\t.',
    f'{fb("m.01")}\t{fb("type.object.name")}\t"Film Alpha"@fr\t.',
    f'{fb("m.01")}\t{fb("type.object.type")}\t{fb("film.film")}\t.',
    f'{fb("m.01")}\t{fb("type.object.key")}\t"/wikipedia/en/Alpha"\t.',
    f'{fb("m.01")}\t{fb("film.film.directed_by")}\t{fb("m.02")}\t.',
    f'{fb("m.02")}\t{fb("type.object.name")}\t"Dana \\"D\\" Director"@en\t.',
    "this is not a triple",
    f'{fb("m.01")}\t{fb("film.film.initial_release_date")}\t"1999"^^<http://www.w3.org/2001/XMLSchema#gYear>\t.',
]


def write_dump(directory: Path, lines: list[str] = LINES, name: str = "dump.nt.gz") -> Path:
    path = directory / name
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def test_load_freebase_summary(tmp_path: Path) -> None:
    dump = write_dump(tmp_path)
    proc = run("load", "freebase", dump, "--store", tmp_path / "store", "--top", "3")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Dropped lines by reason" in out and "keys" in out and "lang" in out
    assert "Top 3 predicates" in out and "type.object.name" in out
    assert f"{dump}:7: column 1:" in out and "1 malformed line(s) skipped" in out
    assert "facts new" in out and "Traceback" not in proc.stderr


def test_load_freebase_json_and_report_file(tmp_path: Path) -> None:
    dump = write_dump(tmp_path)
    report_file = tmp_path / "reports" / "load.json"
    doc = run_json("load", "freebase", dump, "--store", tmp_path / "store",
                   "--report", report_file, "--lang", "fr", "--lang", "en")
    assert json.loads(report_file.read_text()) == doc
    summary = doc["summary"]
    assert summary["lines"] == 8 and summary["malformed"] == 1
    assert summary["dropped"] == {"keys": 1}
    assert summary["malformed_examples"][0][1] == 7
    assert summary["top_predicates"]["type.object.name"] == 3
    assert doc["store_totals"]["facts"] == summary["facts_new"] == 2
    (f,) = doc["report"]["files"]
    assert f["format"] == "freebase" and f["bytes"] == dump.stat().st_size
    entity = run_json("entity", "m.01", "--store", tmp_path / "store")
    assert entity["results"][0]["entity"]["name"] == "Film Alpha"  # --lang fr first
    stats = stats_doc(tmp_path / "store")
    assert [(Path(s["file"]).name, s["format"], s["status"]) for s in stats["sources"]] == [
        ("dump.nt.gz", "freebase", "complete")]


def test_keep_and_drop_options(tmp_path: Path) -> None:
    dump = write_dump(tmp_path)
    doc = run_json("load", "freebase", dump, "--store", tmp_path / "store",
                   "--keep", "type.object.key", "--drop", "film.film.*")
    assert doc["summary"]["dropped"] == {"option": 2, "lang": 1}
    preds = run_json("predicates", "--store", tmp_path / "store")
    assert [p["id"] for p in preds["predicates"]] == ["type.object.key"]


def test_strict_fails_with_file_and_line_and_creates_no_store(tmp_path: Path) -> None:
    dump = write_dump(tmp_path)
    store = tmp_path / "store"
    proc = run("load", "freebase", dump, "--strict", "--store", store)
    assert_clean_error(proc)
    assert f"{dump}:7:" in proc.stderr
    assert not store.exists()


def test_truncated_gzip_is_a_clean_error(tmp_path: Path) -> None:
    lines = [f'{fb(f"m.{i}")}\t{fb("a.b.c")}\t{fb("m.x")}\t.' for i in range(30_000)]
    data = gzip.compress(("\n".join(lines) + "\n").encode())
    cut = tmp_path / "cut.nt.gz"
    cut.write_bytes(data[: len(data) // 2])
    proc = run("load", "freebase", cut, "--store", tmp_path / "store")
    assert_clean_error(proc)
    assert "cut.nt.gz" in proc.stderr and "at byte" in proc.stderr
    assert not (tmp_path / "store").exists()


SLICE = [  # no schema lines: no mediator hints, so the nameless fallback decides
    f'{fb("m.film")}\t{fb("type.object.name")}\t"Film"@en\t.',
    f'{fb("m.film")}\t{fb("film.film.starring")}\t{fb("m.perf")}\t.',
    f'{fb("m.perf")}\t{fb("film.performance.actor")}\t{fb("m.actor")}\t.',
]


def is_cvt(store: Path, id: str) -> bool:
    return run_json("entity", id, "--store", store)["results"][0]["entity"]["is_cvt"]


@pytest.mark.parametrize("flag, perf_is_cvt", [
    ((), True), (("--no-nameless-cvt",), False), (("--nameless-cvt",), True)])
def test_nameless_cvt_flag(tmp_path: Path, flag: tuple[str, ...], perf_is_cvt: bool) -> None:
    dump = write_dump(tmp_path, SLICE)
    store = tmp_path / "store"
    assert run("load", "freebase", dump, *flag, "--store", store).returncode == 0
    assert is_cvt(store, "m.perf") is perf_is_cvt and is_cvt(store, "m.film") is False


def test_nameless_cvt_flag_overrides_mediator_hints(tmp_path: Path) -> None:
    hint = f'{fb("people.marriage")}\t{fb("freebase.type_hints.mediator")}\t"true"\t.'
    dump = write_dump(tmp_path, [hint, *SLICE])
    store = tmp_path / "store"
    assert run("load", "freebase", dump, "--store", store).returncode == 0
    assert is_cvt(store, "m.perf") is False  # hints declared: no fallback by default
    assert run("load", "freebase", dump, "--nameless-cvt", "--force",
               "--store", store).returncode == 0
    assert is_cvt(store, "m.perf")


@pytest.mark.parametrize("content, hint", [
    ("/m/01\t/film/film/genre\t/m/02\n", "kgbench load triples"),
    ('{"type":"item","id":"Q42"}\n', "kgbench load wikidata"),
])
def test_wrong_format_names_the_loader_to_use(tmp_path: Path, content: str, hint: str) -> None:
    path = tmp_path / "data.txt"
    path.write_text(content)
    proc = run("load", "freebase", path, "--store", tmp_path / "store")
    assert_clean_error(proc)
    assert hint in proc.stderr
    assert not (tmp_path / "store").exists()


def test_second_load_merges_and_force_rebuilds(tmp_path: Path) -> None:
    store = tmp_path / "store"
    one = write_dump(tmp_path, LINES[:5], "one.nt.gz")
    two = write_dump(tmp_path, [f'{fb("m.02")}\t{fb("film.director.film")}\t{fb("m.01")}\t.'],
                     "two.nt")
    assert run("load", "freebase", one, "--store", store).returncode == 0
    doc = run_json("load", "freebase", two, "--store", store)
    assert doc["store_totals"]["facts"] == 2
    assert len(stats_doc(store)["sources"]) == 2
    proc = run("load", "freebase", two, "--force", "--store", store)
    assert proc.returncode == 0 and "removed the old store" in proc.stderr
    assert len(stats_doc(store)["sources"]) == 1


def test_demo_kg_through_the_cli(tmp_path: Path) -> None:
    doc = run_json("load", "freebase", DEMO, "--store", tmp_path / "store", "--lang", "all")
    assert doc["summary"]["malformed"] == 0 and doc["summary"]["facts_new"] == 5272


def test_help() -> None:
    proc = run("load", "freebase", "--help")
    assert proc.returncode == 0 and "Example" in proc.stdout and "--keep" in proc.stdout

