"""End-to-end tests of the ``kgbench`` command line.

Every test runs the real CLI (through the console script's ``main()``: in this process with
:func:`run`, in a child ``python -m kgbench.cli`` with :func:`run_process` where the process
itself is under test) against stores in temporary directories, and checks exit codes,
stdout (JSON where ``--json``) and the one-line error messages on stderr.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_in_process

CLI = [sys.executable, "-m", "kgbench.cli"]
TIMEOUT = 180
STARTUP_ENV = ("PYTHON", "LD_")
"""Prefixes of the variables only a starting interpreter (or loader) reads."""

FACTS = """\
/m/01\t/film/film/directed_by\t/m/02
/m/01\t/film/film/starring\t/m/03
/m/04\t/film/film/directed_by\t/m/02
this line is not tab separated
/m/03\t/people/person/place_of_birth\t/m/05
"""
NAMES = """\
/m/01\tAlpha Film
/m/02\tDana Director
/m/03\tSam Star
/m/04\tBeta Film
/m/05\tSpringfield
/m/06\tSpringfield
"""


def cli_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a test's command runs with: the test process's without
    ``KGBENCH_STORE``, a wide terminal (no wrapped table cells), UTF-8 for the arrows in
    the output, no colour; then ``env``."""
    full_env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    full_env.update({"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"})
    full_env.update(env or {})
    return full_env


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: int = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``kgbench ARGS`` run in this process through the console script's ``main()``, as a
    child process would run it (:mod:`tests.cli_in_process`), at a fraction of the cost.
    An ``env`` that sets what only an interpreter's start reads (``PYTHONPATH``, any
    other ``PYTHON*`` but the encoding, ``LD_*``) runs a child (:func:`run_process`)."""
    if any(name.startswith(STARTUP_ENV) and name != "PYTHONIOENCODING" for name in env or {}):
        return run_process(*args, cwd=cwd, env=env, timeout=timeout)
    words = [str(a) for a in args]
    if words[:1] == ["cypher"] and "--timeout" in words:
        # its hard deadline ends the process (os._exit): a child's, not the test run's
        return run_process(*args, cwd=cwd, env=env, timeout=timeout)
    return run_in_process(args, cli_env(env), cwd=cwd, timeout=timeout)


def run_process(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
                timeout: int = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``kgbench ARGS`` in a child process (``python -m kgbench.cli``): for tests about the
    process itself (signals, kill -9, locks between processes, interpreter start-up)."""
    return subprocess.run(
        [*CLI, *map(str, args)], capture_output=True, text=True, encoding="utf-8",
        cwd=cwd, env=cli_env(env), timeout=timeout, check=False,
    )


def run_json(*args: str | Path, **kw: Any) -> Any:
    proc = run(*args, "--json", **kw)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # the whole of stdout is one JSON document


def assert_clean_error(proc: subprocess.CompletedProcess[str], code: int = 1) -> None:
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert "Error:" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def write_inputs(directory: Path, facts_text: str = FACTS, names_text: str = NAMES
                 ) -> tuple[Path, Path]:
    """``facts.tsv`` and ``names.tsv`` in ``directory`` (default: :data:`FACTS`,
    :data:`NAMES`)."""
    facts = directory / "facts.tsv"
    names = directory / "names.tsv"
    facts.write_text(facts_text, encoding="utf-8")
    names.write_text(names_text, encoding="utf-8")
    return facts, names


def load(store: Path, facts: Path, names: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run("load", "triples", facts, "--names", names, "--store", store, *extra)


def loaded_store(root: Path, facts_text: str, names_text: str) -> Path:
    """``root/store`` loaded (``kgbench load triples``) from ``facts_text`` and
    ``names_text`` written beside it; the load must succeed."""
    facts, names = write_inputs(root, facts_text, names_text)
    proc = load(root / "store", facts, names)
    assert proc.returncode == 0, proc.stderr
    return root / "store"


def stats_doc(store: Path) -> dict[str, Any]:
    doc = run_json("stats", "--store", store)
    # Only what a load can change: counts and sources.
    return {k: v for k, v in doc.items() if k not in ("location",)}


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store loaded once from the small TSV + names files (read-only tests share it)."""
    root = tmp_path_factory.mktemp("cli")
    facts, names = write_inputs(root)
    store = root / "store"
    proc = load(store, facts, names)
    return {"root": root, "store": store, "facts": facts, "names": names, "load": proc}


@pytest.fixture()
def own_store(tmp_path: Path, kg: dict[str, Any]) -> dict[str, Path]:
    """A private copy of the loaded store, for tests that try to modify it (a copy of
    the closed store directory is a valid store and much faster than loading again)."""
    assert kg["load"].returncode == 0, kg["load"].stderr
    facts, names = write_inputs(tmp_path)
    store = tmp_path / "store"
    shutil.copytree(kg["store"], store)
    return {"store": store, "facts": facts, "names": names, "root": tmp_path}


# -- load ------------------------------------------------------------------------------


def test_load_summary_counts_and_reports_malformed_line(kg: dict[str, Any]) -> None:
    proc = kg["load"]
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{kg['facts']}:4: expected 3 tab-separated fields" in proc.stdout
    assert "1 malformed line(s) skipped" in proc.stdout
    assert "facts new" in proc.stdout and "entities new" in proc.stdout


def test_load_json(tmp_path: Path) -> None:
    facts, names = write_inputs(tmp_path)
    doc = run_json("load", "triples", facts, "--names", names, "--store", tmp_path / "s")
    files = {Path(f["path"]).name: f for f in doc["report"]["files"]}
    assert files["facts.tsv"]["lines"] == 5
    assert files["facts.tsv"]["triples"] == 4
    assert files["facts.tsv"]["malformed"] == 1
    assert files["facts.tsv"]["examples"][0][1] == 4
    assert files["names.tsv"]["triples"] == 6
    assert doc["report"]["import_report"]["facts_new"] == 4
    assert doc["report"]["import_report"]["entities_new"] == 6
    assert doc["totals"]["malformed"] == 1


def test_the_load_table_keeps_every_column_at_80_columns(tmp_path: Path) -> None:
    """issue 38: on an 80-column terminal the table dropped its `malformed` column
    (the path's minimum width left it no room); the path folds instead."""
    deep = tmp_path / "a-rather-long-directory-name-for-the-input-files"
    deep.mkdir()
    facts, names = write_inputs(deep)
    proc = run("load", "triples", facts, "--names", names, "--store", tmp_path / "s",
               env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.split()[:2] == ["file", "format"])
    assert header.split()[-1] == "malformed"
    assert all(len(line) <= 80 for line in lines[:lines.index(header) + 8])
    row = next(line for line in lines if "tsv" in line.split()[1:2])
    assert row.split()[-1] == "1"   # facts.tsv's malformed line


def test_load_again_adds_nothing(own_store: dict[str, Path]) -> None:
    doc = run_json("load", "triples", own_store["facts"], "--store", own_store["store"])
    assert doc["report"]["import_report"]["facts_new"] == 0
    assert doc["report"]["import_report"]["facts_duplicate"] == 4


def test_strict_stops_at_malformed_line_and_leaves_store_unchanged(
    own_store: dict[str, Path],
) -> None:
    store = own_store["store"]
    extra = own_store["root"] / "more.tsv"
    extra.write_text("/m/07\t/film/film/directed_by\t/m/02\nbroken line here\n")
    before = stats_doc(store)
    proc = run("load", "triples", extra, "--strict", "--store", store)
    assert_clean_error(proc)
    assert f"{extra}:2:" in proc.stderr
    assert stats_doc(store) == before


def test_strict_failure_on_a_new_store_leaves_nothing_behind(tmp_path: Path) -> None:
    facts, _ = write_inputs(tmp_path)
    store = tmp_path / "new-store"
    proc = run("load", "triples", facts, "--strict", "--store", store)
    assert_clean_error(proc)
    assert f"{facts}:4:" in proc.stderr
    assert not store.exists()


def test_force_rebuilds_the_store(own_store: dict[str, Path]) -> None:
    store = own_store["store"]
    one = own_store["root"] / "one.tsv"
    one.write_text("/m/08\t/film/film/directed_by\t/m/09\n")
    proc = run("load", "triples", one, "--force", "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert "removed the old store" in proc.stderr
    doc = stats_doc(store)
    assert doc["facts"] == 1 and doc["entities"] == 2
    assert len(doc["sources"]) == 1


def test_missing_input_file(tmp_path: Path) -> None:
    store = tmp_path / "store"
    proc = run("load", "triples", tmp_path / "nope.tsv", "--store", store)
    assert_clean_error(proc)
    assert "nope.tsv" in proc.stderr and "not found" in proc.stderr
    assert not store.exists()  # nothing was created


def test_unsupported_format(tmp_path: Path) -> None:
    ttl = tmp_path / "x.ttl"
    ttl.write_text("<a> <b> <c> .\n")
    proc = run("load", "triples", ttl, "--store", tmp_path / "store")
    assert_clean_error(proc)
    assert "Turtle" in proc.stderr


# -- read-only query commands ------------------------------------------------------------


def test_stats_json(kg: dict[str, Any]) -> None:
    doc = run_json("stats", "--store", kg["store"])
    assert doc["entities"] == 6
    assert doc["facts"] == 4
    assert doc["predicates"] == 3
    assert [s["status"] for s in doc["sources"]] == ["complete", "complete"]
    assert doc["top_predicates"][0] == {"id": "film.film.directed_by", "label": None,
                                        "count": 2, "aliases": []}


def test_stats_table_and_store_from_env(kg: dict[str, Any]) -> None:
    proc = run("stats", env={"KGBENCH_STORE": str(kg["store"])})
    assert proc.returncode == 0, proc.stderr
    assert "entities" in proc.stdout and "Sources" in proc.stdout
    assert "film.film.directed_by" in proc.stdout


def test_global_store_option(kg: dict[str, Any]) -> None:
    proc = run("--store", kg["store"], "predicates")
    assert proc.returncode == 0, proc.stderr
    assert "people.person.place_of_birth" in proc.stdout


def test_entity_by_id_json(kg: dict[str, Any]) -> None:
    doc = run_json("entity", "m.01", "--store", kg["store"])
    assert doc["matched_by"] == "id"
    [result] = doc["results"]
    assert result["entity"]["name"] == "Alpha Film"
    assert {(f["predicate"], f["object"]) for f in result["facts_out"]} == {
        ("film.film.directed_by", "m.02"), ("film.film.starring", "m.03")}
    assert doc["names"]["m.02"] == "Dana Director"


def test_entity_by_name_shows_every_entity_sharing_it(kg: dict[str, Any]) -> None:
    doc = run_json("entity", "springfield", "--store", kg["store"])
    assert doc["matched_by"] == "name"
    assert [r["entity"]["id"] for r in doc["results"]] == ["m.05", "m.06"]
    proc = run("entity", "Dana Director", "--store", kg["store"])
    assert proc.returncode == 0, proc.stderr
    assert "m.02" in proc.stdout and "Alpha Film (m.01)" in proc.stdout
    assert "matched the name" in proc.stderr


def test_entity_by_search_and_not_found(kg: dict[str, Any]) -> None:
    doc = run_json("entity", "sam", "--store", kg["store"])
    assert doc["matched_by"] == "search"
    assert doc["results"][0]["entity"]["id"] == "m.03"
    # A word inside the name (issue 38: `entity obama` found nothing).
    doc = run_json("entity", "STAR", "--store", kg["store"])
    assert doc["matched_by"] == "search"
    assert doc["results"][0]["entity"]["id"] == "m.03"
    proc = run("entity", "zzz", "--store", kg["store"])
    assert_clean_error(proc)
    assert "no name or alias holds it" in proc.stderr and "shorter prefix" not in proc.stderr


def test_neighbors_two_hops_json(kg: dict[str, Any]) -> None:
    doc = run_json("neighbors", "m.02", "--hops", "2", "--store", kg["store"])
    assert doc["center"] == "m.02"
    assert doc["distance"] == {"m.02": 0, "m.01": 1, "m.04": 1, "m.03": 2}
    assert doc["truncated"] is False
    assert len(doc["facts"]) == 3


def test_neighbors_by_name_and_truncation_note(kg: dict[str, Any]) -> None:
    proc = run("neighbors", "Dana Director", "--hops", "1", "--max-per-node", "1",
               "--store", kg["store"])
    assert proc.returncode == 0, proc.stderr
    assert "hop 1" in proc.stdout and "truncated" in proc.stdout


def test_neighbors_ambiguous_name_exits_2(kg: dict[str, Any]) -> None:
    proc = run("neighbors", "Springfield", "--store", kg["store"])
    assert_clean_error(proc, code=2)
    assert "m.05" in proc.stderr and "m.06" in proc.stderr


def test_paths(kg: dict[str, Any]) -> None:
    doc = run_json("paths", "m.04", "m.03", "--store", kg["store"])
    [path] = doc["paths"]
    assert path["nodes"] == ["m.04", "m.02", "m.01", "m.03"]
    assert path["length"] == 3 and path["through_hub"] is False
    doc = run_json("paths", "m.04", "m.03", "-x", "film.film.star*", "--store", kg["store"])
    assert doc["paths"] == [] and doc["exclude_predicates"] == ["film.film.star*"]
    proc = run("paths", "Beta Film", "Sam Star", "--max-length", "2", "--store", kg["store"])
    assert proc.returncode == 0, proc.stderr
    assert "no path" in proc.stdout
    proc = run("paths", "m.04", "m.03", "--store", kg["store"])
    assert "Beta Film (m.04) —film.film.directed_by→ Dana Director (m.02)" in proc.stdout


def test_search(kg: dict[str, Any]) -> None:
    doc = run_json("search", "spr", "--store", kg["store"])
    assert sorted(e["id"] for e in doc["entities"]) == ["m.05", "m.06"]
    assert {m["match"] for m in doc["matches"]} == {"word"}
    proc = run("search", "zzz", "--store", kg["store"])
    assert proc.returncode == 0 and "no entity name or alias holds 'zzz'" in proc.stdout


def test_search_finds_words_and_parts_of_names(kg: dict[str, Any]) -> None:
    # Issue 38: prefix-only search found nothing for a later word or a part of one.
    doc = run_json("search", "director", "--store", kg["store"])
    assert [e["id"] for e in doc["entities"]] == ["m.02"]
    doc = run_json("search", "ETA FI", "--store", kg["store"])
    assert [(m["id"], m["match"]) for m in doc["matches"]] == [("m.04", "substring")]
    proc = run("search", "film", "--store", kg["store"])
    assert proc.returncode == 0, proc.stderr
    assert "Alpha Film" in proc.stdout and "Beta Film" in proc.stdout
    assert "word" in proc.stdout   # how each matched


def test_predicates_json(kg: dict[str, Any]) -> None:
    doc = run_json("predicates", "--limit", "2", "--store", kg["store"])
    assert [p["id"] for p in doc["predicates"]] == [
        "film.film.directed_by", "film.film.starring"]


def test_cypher_read_query(kg: dict[str, Any]) -> None:
    doc = run_json("cypher", "MATCH (e:Entity) WHERE e.name = $n RETURN e.id AS id",
                   "--param", "n=Dana Director", "--store", kg["store"])
    assert doc == {"columns": ["id"], "rows": [["m.02"]], "truncated": False}
    proc = run("cypher", "MATCH (e:Entity) RETURN count(e) AS n", "--store", kg["store"])
    assert proc.returncode == 0 and "6" in proc.stdout


def test_cypher_write_refused_and_store_unchanged(own_store: dict[str, Path]) -> None:
    store = own_store["store"]
    before = stats_doc(store)
    proc = run("cypher", "MATCH (e:Entity) DETACH DELETE e", "--store", store)
    assert_clean_error(proc)
    assert "modify" in proc.stderr
    assert stats_doc(store) == before


def test_cypher_syntax_error(kg: dict[str, Any]) -> None:
    proc = run("cypher", "MATCH (e:Entity RETURN e", "--store", kg["store"])
    assert_clean_error(proc)
    assert "Cypher" in proc.stderr


def test_cypher_bad_param_is_usage_error(kg: dict[str, Any]) -> None:
    proc = run("cypher", "RETURN 1", "--param", "novalue", "--store", kg["store"])
    assert proc.returncode == 2


# -- store errors ------------------------------------------------------------------------


def test_store_not_found(tmp_path: Path) -> None:
    proc = run("stats", "--store", tmp_path / "missing")
    assert_clean_error(proc)
    assert "no kgbench store" in proc.stderr
    assert "kgbench demo" in proc.stderr
    assert not (tmp_path / "missing").exists()


def test_store_locked_by_another_process(own_store: dict[str, Path]) -> None:
    store = own_store["store"]
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from kgstore import open_store
            s = open_store({str(store)!r})
            print("ready", flush=True)
            time.sleep(120)
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        proc = load(store, own_store["facts"], own_store["names"])
        assert_clean_error(proc)
        assert "in use" in proc.stderr
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(timeout=30)


def test_incompatible_store(own_store: dict[str, Path]) -> None:
    marker = own_store["store"] / "kgbench-store.json"
    info = json.loads(marker.read_text())
    info["schema_version"] = 999
    marker.write_text(json.dumps(info))
    proc = run("stats", "--store", own_store["store"])
    assert_clean_error(proc)
    assert "schema version" in proc.stderr


# -- demo and help -------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_end_to_end(tmp_path: Path) -> None:
    store = tmp_path / "demo-store"
    proc = run("demo", "--store", store, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "'Titanic' names 2 entities" in out
    assert "m.0kgb0gs" in out and "m.0kgb0gt" in out  # the two Titanics
    assert "CVT" in out
    # the bundled questions are classified and grounded: 8 single, 4 path, 3 tree;
    # a benchmark is generated from them (Table 5 and one question's four citations)
    # and another from seed questions of the KG's people
    assert "4 path, 8 single, 3 tree" in out
    assert "Table 5" in out
    for label in ("supportive", "partial", "contradictory", "irrelevant"):
        assert f"{label} [1] " in " ".join(out.split())
    for bench in ("demo-benchmark", "demo-domain-benchmark"):
        assert (tmp_path / bench / "report.html").exists()
        assert (tmp_path / bench / "samples.jsonl").stat().st_size > 0
    assert "seed questions sampled from people.person" in out
    assert "Try next" in out
    # The store it built is usable by the other commands; --no-fresh reuses it.
    doc = run_json("stats", "--store", store)
    assert doc["facts"] > 1000
    again = run("demo", "--store", store, "--no-fresh", cwd=tmp_path)
    assert again.returncode == 0 and "reusing the demo store" in again.stderr


@pytest.mark.parametrize("command", [
    [], ["load"], ["load", "triples"], ["stats"], ["entity"], ["neighbors"], ["paths"],
    ["search"], ["predicates"], ["cypher"], ["demo"], ["generate"], ["export"], ["extend"],
])
def test_help(command: list[str]) -> None:
    proc = run(*command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout
    if command and command != ["load"]:
        assert "Example" in proc.stdout




@pytest.mark.parametrize(("command", "sentence"), [
    (["kalma", "score"], "correctness (a complete citation matching the retrieved "
                         "knowledge), precision (correct and in the minimum knowledge set)"),
    (["conner", "score"], "Each FILE is one system's records; the knowledge is split into "
                          "sentences. Printed: one row per FILE"),
])
def test_help_prose_wraps_to_the_terminal(command: list[str], sentence: str) -> None:
    """A docstring's prose is one paragraph to rich, which wraps it to the terminal:
    on a wide terminal a sentence is one line, not broken where the source wraps."""
    proc = run(*command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert sentence in proc.stdout
    assert "kgbench kalma score kalma-demo --answers chatgpt.jsonl" in proc.stdout or \
        command[0] == "conner"   # example lines keep their own lines

def test_commands_that_do_not_run_the_engine_do_not_import_it() -> None:
    # The extension engine (networkx, rdflib, the sample models) took 1.2 of the 1.9 s
    # `kgbench --help` needed; registering its commands must not import it.
    code = textwrap.dedent("""
        import sys
        from typer.testing import CliRunner
        from kgbench.cli.app import app
        result = CliRunner().invoke(app, ["--help"])
        assert result.exit_code == 0, result.output
        for name in ("generate", "extend", "export", "questions"):
            assert name in result.output, name
        heavy = sorted(m for m in ("networkx", "rdflib", "extension.run.generate", "extension.core.samples",
                                   "extension.outputs.export", "extension.core.grounding") if m in sys.modules)
        print(",".join(heavy))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
