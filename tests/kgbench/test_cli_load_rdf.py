"""End-to-end tests of ``kgbench load rdf`` (the real CLI, run in this process by
:func:`tests.kgbench.test_cli.run`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kgbench.test_cli import run, run_json

EX = "http://example.org/"

TTL = f"""\
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:ada rdfs:label "Ada Lovelace"@en, "Ada (de)"@de ; ex:knows ex:babbage .
ex:babbage rdfs:label "Charles Babbage"@en .
"""
NT = f"""\
<{EX}babbage> <{EX}age> "79"^^<http://www.w3.org/2001/XMLSchema#integer> .
not a triple
"""
BAD_TTL = f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\nex:c ex:p .\n"


def inputs(tmp_path: Path) -> tuple[Path, Path]:
    ttl, nt = tmp_path / "a.ttl", tmp_path / "b.nt"
    ttl.write_text(TTL, encoding="utf-8")
    nt.write_text(NT, encoding="utf-8")
    return ttl, nt


def test_load_rdf_turtle_and_ntriples_with_ns(tmp_path: Path) -> None:
    ttl, nt = inputs(tmp_path)
    store = tmp_path / "store"
    report_file = tmp_path / "report.json"
    doc = run_json("load", "rdf", ttl, nt, "--ns", f"ex={EX}", "--store", store,
                   "--report", report_file)
    assert [f["format"] for f in doc["report"]["files"]] == ["turtle", "ntriples"]
    assert doc["totals"]["malformed"] == 1
    assert doc["summary"]["malformed_examples"][0][1] == 2
    assert json.loads(report_file.read_text())["totals"] == doc["totals"]
    ent = run_json("entity", "ex:ada", "--store", store)
    assert json.dumps(ent).count("Ada Lovelace") >= 1
    assert "Ada (de)" not in json.dumps(ent)


def test_load_rdf_ns_file_and_lang(tmp_path: Path) -> None:
    ttl, _ = inputs(tmp_path)
    ns_file = tmp_path / "ns.tsv"
    ns_file.write_text(f"\t{EX}\n", encoding="utf-8")
    store = tmp_path / "store"
    run_json("load", "rdf", ttl, "--ns-file", ns_file, "--lang", "de", "--store", store)
    assert "Ada (de)" in json.dumps(run_json("entity", "ada", "--store", store))


def test_load_rdf_strict_fails_cleanly_and_leaves_no_store(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text(BAD_TTL, encoding="utf-8")
    store = tmp_path / "store"
    proc = run("load", "rdf", bad, "--strict", "--store", store)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert f"{bad}:3:" in proc.stderr.replace("\n", "")
    assert not store.exists() or not any(store.iterdir())
    lenient = run_json("load", "rdf", bad, "--store", store)
    assert lenient["totals"]["malformed"] == 1


def test_load_rdf_bad_options(tmp_path: Path) -> None:
    ttl, _ = inputs(tmp_path)
    proc = run("load", "rdf", ttl, "--ns", "nonsense", "--store", tmp_path / "s")
    assert proc.returncode == 2 and "PREFIX=IRI" in proc.stderr
    proc = run("load", "rdf", ttl, "--max-memory-file", "10", "--store", tmp_path / "s")
    assert proc.returncode != 0 and "convert it to N-Triples" in proc.stderr.replace("\n", " ")
    assert "Traceback" not in proc.stderr


def test_load_rdf_nameless_cvt_flag(tmp_path: Path) -> None:
    nt = tmp_path / "n.nt"
    nt.write_text(f"<{EX}stmt> <{EX}about> <{EX}ada> .\n", encoding="utf-8")
    for flag, is_cvt in (("--nameless-cvt", True), ("--no-nameless-cvt", False)):
        store = tmp_path / flag
        run_json("load", "rdf", nt, flag, "--ns", f"ex={EX}", "--store", store)
        entity = run_json("entity", "ex:stmt", "--store", store)["results"][0]["entity"]
        assert entity["is_cvt"] is is_cvt
