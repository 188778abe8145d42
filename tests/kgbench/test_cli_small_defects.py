"""Smaller defects of the command line found by trying it as a hostile user would:
outputs scattered into the working directory, a question file with nothing usable
accepted with exit 0, and flags that ``--help`` showed as taking a ``<bool>`` value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kgbench.demo import DEMO_KG, DEMO_QUESTIONS
from tests.kgbench.test_cli import assert_clean_error, run


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


# -- questions parse / ground write beside their input -----------------------------------


def test_parse_and_ground_default_to_the_input_directory(tmp_path: Path) -> None:
    inputs, elsewhere = tmp_path / "inputs", tmp_path / "elsewhere"
    inputs.mkdir()
    elsewhere.mkdir()
    questions = inputs / "questions.jsonl"
    questions.write_bytes(DEMO_QUESTIONS.read_bytes())
    store = tmp_path / "store"
    loaded = run("load", "triples", DEMO_KG, "--store", store)
    assert loaded.returncode == 0, loaded.stderr

    parse = run("questions", "parse", questions, cwd=elsewhere)
    assert parse.returncode == 0, parse.stderr
    parsed = inputs / "questions.parsed.jsonl"
    assert len(parsed.read_text(encoding="utf-8").splitlines()) == 15
    assert json.loads((inputs / "coverage.json").read_text())["output"] == str(parsed)

    ground = run("questions", "ground", parsed, "--store", store, cwd=elsewhere)
    assert ground.returncode == 0, ground.stderr
    grounded = inputs / "questions.parsed.grounded.jsonl"
    assert len(grounded.read_text(encoding="utf-8").splitlines()) == 15
    assert json.loads((inputs / "grounding.json").read_text())["output"] == str(grounded)
    assert list(elsewhere.iterdir()) == []


# -- a question file with no usable record is an error ------------------------------------


def test_parse_refuses_a_file_whose_records_all_fail(tmp_path: Path) -> None:
    source = tmp_path / "broken.jsonl"
    source.write_text('{"id": "first", "answers": ["m.1"]}\n{not json\n', encoding="utf-8")
    out = tmp_path / "out" / "p.jsonl"
    proc = run("questions", "parse", source, "--format", "jsonl", "--out", out)
    assert_clean_error(proc, 1)
    [line] = error_lines(proc.stderr)
    assert str(source) in line and "first" in line and "question" in line
    assert "no usable question" in line
    assert not out.exists() and not (out.parent / "coverage.json").exists()
    assert "wrote 0 questions" not in proc.stderr


def test_parse_refuses_a_file_without_records(tmp_path: Path) -> None:
    source = tmp_path / "empty.json"
    source.write_text("[]\n", encoding="utf-8")
    proc = run("questions", "parse", source, "--format", "webqsp", "--out", tmp_path / "p.jsonl")
    assert_clean_error(proc, 1)
    [line] = error_lines(proc.stderr)
    assert "holds no questions" in line
    assert not (tmp_path / "p.jsonl").exists()


# -- flags are flags -----------------------------------------------------------------------

COMMANDS = [
    [], ["load"], ["load", "triples"], ["load", "freebase"], ["load", "wikidata"],
    ["load", "rdf"], ["stats"], ["predicates"], ["search"], ["entity"], ["neighbors"],
    ["paths"], ["cypher"], ["demo"], ["export"], ["extend"], ["generate"], ["questions"],
    ["questions", "parse"], ["questions", "ground"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "kgbench")
def test_help_shows_flags_without_a_value_type(command: list[str]) -> None:
    proc = run(*command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "<bool>" not in proc.stdout, proc.stdout
    assert re.search(r"--help\s+-h\s+Show this message", proc.stdout), proc.stdout


@pytest.mark.parametrize("command,flags", [
    (["load", "triples"], ["--strict", "--force", "--json"]),
    (["load", "wikidata"], ["--qualifiers", "--no-default-filter"]),
    (["questions", "parse"], ["--strict"]),
    (["generate"], ["--force", "--strict"]),
])
def test_help_lists_each_flag_bare(command: list[str], flags: list[str]) -> None:
    out = run(*command, "--help").stdout
    for flag in flags:
        assert re.search(rf"{flag}\s{{2,}}[A-Z]", out), (flag, out)  # then its help text


def test_a_flag_before_a_file_takes_no_value(tmp_path: Path) -> None:
    facts = tmp_path / "facts.tsv"
    facts.write_text("/m/01\t/film/film/directed_by\t/m/02\nnot a triple\n", encoding="utf-8")
    store = tmp_path / "store"
    # FILE after the flag is the file (not the flag's value): strict stops at line 2.
    proc = run("load", "triples", "--strict", facts, "--store", store)
    assert_clean_error(proc, 1)
    assert f"{facts}:2:" in proc.stderr
    # `--strict true` is the flag and a file named `true`, which does not exist.
    proc = run("load", "triples", "--strict", "true", "--store", store, cwd=tmp_path)
    assert_clean_error(proc, 1)
    assert "true" in proc.stderr and "not found" in proc.stderr
