"""``kgbench kalma generate | import | export`` end to end: the real CLI (run in this
process by :func:`tests.kgbench.test_cli.run`), one call per behaviour (generation on the
demo KG, the real Wikidata sample with and without --single, a bad --domain, BioKaLMA's
dataset round trip)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from kgstore import open_store
from loaders.wikidata import load_wikidata
from tests.external import external_path
from tests.kalma.stores import demo_store  # noqa: F401
from tests.kgbench.test_cli import run


def one_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def test_generate_on_the_demo_kg(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "kalma"
    proc = run("kalma", "generate", "--store", demo_store, "--domain", "people.person",
               "--n", "3", "--out", out, "--seed", "1", "--incompetence", "1,2", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["entries"] == 3 and doc["incompetence"]["2"] == {"entries": 3, "left_out": 0}
    assert (doc["method"], doc["coherence"], doc["already_complete"]) == ("template", "none", False)
    assert len((out / "entries.jsonl").read_text("utf-8").splitlines()) == 3
    assert (out / "report.html").is_file() and (out / "incompetence-2.jsonl").is_file()


def test_bad_domain(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    line = one_error(run("kalma", "generate", "--store", demo_store, "--domain", "nope.thing",
                         "--out", tmp_path / "x"))
    assert "--domain nope.thing" in line and "people.person" in line
    assert not (tmp_path / "x").exists()


def test_real_wikidata_sample(tmp_path: Path) -> None:
    humans = external_path("wikidata", "DERIVED_humans_Q5.jsonl")
    store = tmp_path / "wd"
    with open_store(str(store), create=True) as s:
        load_wikidata(s, [humans])
    proc = run("kalma", "generate", "--store", store, "--domain", "Q5", "--n", "3",
               "--out", tmp_path / "pairs")
    assert "no connected pair of type Q5 in the store" in one_error(proc)
    assert "hint: use --single" in proc.stderr
    assert not (tmp_path / "pairs").exists()   # a refused run leaves no empty --out
    proc = run("kalma", "generate", "--store", store, "--domain", "Q5", "--n", "3", "--single",
               "--out", tmp_path / "single", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["entries"] >= 1
    first = json.loads((tmp_path / "single" / "entries.jsonl").read_text("utf-8").splitlines()[0])
    assert len(first["entities"]) == 1 and first["entities"][0]["id"].startswith("Q")


def test_import_and_export_biokalma(tmp_path: Path) -> None:
    folder = external_path("attribution", "biokalma")
    proc = run("kalma", "import", "--biokalma-dir", folder, "--out", tmp_path / "imported")
    assert proc.returncode == 0, proc.stderr
    assert "1,085 entries" in proc.stderr and "minimum knowledge set" in proc.stderr
    proc = run("kalma", "export", tmp_path / "imported", "--out", tmp_path / "exported", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["entries"] == 1085
    for name in ("simple_question_graph.json", "complex_question_graph.json"):
        assert (tmp_path / "exported" / name).read_bytes() == (folder / name).read_bytes()
    # The folder alone, as a first try would give it, reads as --biokalma-dir.
    proc = run("kalma", "import", folder, "--out", tmp_path / "again", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["entries"] == 1085
    assert (tmp_path / "again" / "entries.jsonl").read_bytes() == \
        (tmp_path / "imported" / "entries.jsonl").read_bytes()
