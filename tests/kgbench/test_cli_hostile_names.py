"""Names from the data reach the terminal only as visible text: escape sequences
(``\\x1b[31m``, the OSC title sequence ``\\x1b]0;…\\x07``), ``\\r``, backspace, C1
controls and bidi overrides (U+202E) in entity names, ids, predicates and literals are
shown as their escapes by every human-readable output, and ``--json`` stays exact JSON
(the same values, with those characters written as ``\\u`` escapes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.kgbench.test_cli import run

RED = "\x1b[31mRed Film\x1b[0m"
TITLE = "Title\x1b]0;pwned\x07Setter"
TRICKY = "fake\rline\u202eesrever\x08\x9b31m"
PREDICATE = "film.\x1b[31mevil\x1b[0m"
LITERAL = "said \x1b[2J\u2066hi\u2069"
FACTS = f"m.01\tfilm.directed_by\tm.02\nm.01\t{PREDICATE}\tm.03\nm.02\tpeople.born_in\tm.03\n"
QUOTE = ('<http://rdf.freebase.com/ns/m.03> <http://rdf.freebase.com/ns/people.quote> '
         '"said \\u001B[2J\\u2066hi\\u2069" .\n')   # N-Triples escapes: the real characters
NAMES = f"m.01\t{RED}\nm.02\t{TITLE}\nm.03\t{TRICKY}\n"

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                 "\u202a-\u202e\u2066-\u2069]")
"""What no output may contain raw (newline and tab are the layout's own)."""


def assert_no_raw_controls(proc: Any) -> None:
    for stream in ("stdout", "stderr"):
        found = RAW.findall(getattr(proc, stream))
        assert not found, f"{stream} has raw {found!r}:\n{getattr(proc, stream)}"
    assert "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "facts.tsv").write_text(FACTS, encoding="utf-8")
    (root / "names.tsv").write_text(NAMES, encoding="utf-8")
    (root / "quote.nt").write_text(QUOTE, encoding="utf-8")
    proc = run("load", "triples", root / "facts.tsv", root / "quote.nt",
               "--names", root / "names.tsv", "--store", root / "store")
    assert proc.returncode == 0, proc.stderr
    assert_no_raw_controls(proc)
    return root / "store"


COMMANDS = {
    "stats": ["stats"],
    "predicates": ["predicates"],
    "search": ["search", "fake"],
    "entity by id": ["entity", "m.01"],
    "entity with a literal": ["entity", "m.03"],
    "entity by prefix": ["entity", "t"],
    "entity not found": ["entity", "\x1b]0;nothing\x07"],
    "neighbors": ["neighbors", "m.01", "--hops", "2"],
    "paths": ["paths", "m.01", "m.03"],
    "cypher": ["cypher", "MATCH (e:Entity) RETURN e.id AS id, e.name AS name ORDER BY id"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_tables_show_control_characters_as_escapes(store: Path, command: str) -> None:
    proc = run(*COMMANDS[command], "--store", store)
    assert_no_raw_controls(proc)
    if command != "entity not found":
        assert proc.returncode == 0, proc.stderr
    shown = proc.stdout + proc.stderr
    assert any(text in shown for text in (
        r"\x1b[31mRed Film\x1b[0m", r"Title\x1b]0;pwned\x07Setter",
        r"fake\rline\u202eesrever\x08\x9b31m", r"film.\x1b[31mevil\x1b[0m",
        r"\x1b]0;nothing\x07")), shown


def test_each_kind_of_name_is_shown(store: Path) -> None:
    proc = run("entity", "m.01", "--store", store)
    assert r"\x1b[31mRed Film\x1b[0m" in proc.stdout           # a name
    assert r"film.\x1b[31mevil\x1b[0m" in proc.stdout          # a predicate
    assert r"fake\rline\u202eesrever\x08\x9b31m" in proc.stdout
    proc = run("entity", "m.03", "--store", store)
    assert r"said \x1b[2J\u2066hi\u2069" in proc.stdout        # a literal


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"entity not found"}))
def test_json_is_exact_and_has_no_raw_control_characters(store: Path, command: str) -> None:
    proc = run(*COMMANDS[command], "--store", store, "--json")
    assert proc.returncode == 0, proc.stderr
    assert_no_raw_controls(proc)
    json.loads(proc.stdout)


def test_json_values_are_unchanged(store: Path) -> None:
    doc = json.loads(run("entity", "m.01", "--store", store, "--json").stdout)
    [result] = doc["results"]
    assert result["entity"]["name"] == RED
    assert {f["predicate"] for f in result["facts_out"]} == {"film.directed_by", PREDICATE}
    assert doc["names"]["m.03"] == TRICKY
    literal = json.loads(run("entity", "m.03", "--store", store, "--json").stdout)
    assert literal["results"][0]["facts_out"][0]["object"]["value"] == LITERAL


def test_question_files_with_control_characters(store: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    ns = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
    questions.write_text("\n".join([
        json.dumps({"id": "q\x1b[31m1", "question": f"who directed {RED}?",
                    "answers": ["m.02"],
                    "sparql": ns + "SELECT ?x WHERE { ns:m.01 ns:film.directed_by ?x . }"}),
        json.dumps({"id": "bad\x1b]0;t\x07", "answers": []}),   # no question: malformed
    ]) + "\n", encoding="utf-8")
    parsed = tmp_path / "parsed.jsonl"
    for proc in (
        run("questions", "parse", questions, "--out", parsed, cwd=tmp_path),
        run("questions", "ground", parsed, "--store", store, "--no-classes", cwd=tmp_path),
        run("generate", "--store", store, "--questions", questions, "--out", tmp_path / "b",
            "--no-classes", cwd=tmp_path),
    ):
        assert proc.returncode == 0, proc.stderr
        assert_no_raw_controls(proc)
    assert r"bad\x1b]0;t\x07" in proc.stderr  # the skipped record, named visibly
