"""Nested brackets and deeply nested JSON in ``kalma score`` and ``kalma import`` input
(issue 32, item 6).

Before the fix, reading an answer's brackets restarted a scan at every unclosed ``[``:
quadratic (a 48 kB answer of ``[`` took 31 s, 200,000 of them hours), and a JSON line
nested 200,000 deep (answers, entries, BioKaLMA's files) was a ``RecursionError``
traceback. Now brackets are matched in one pass and deep nesting is one "not JSON"
line. The commands run with a timeout: a quadratic scan fails the test rather than
stalling the suite (how fast is measured by ``bench/``, not asserted here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma.citations import parse_output
from tests.kalma.test_metrics import ENTRY_A
from tests.kgbench.test_cli import assert_clean_error, run

DEPTH = 200_000
LINEAR_S = 60
"""Far more than a linear read of these inputs needs (about a second); far less than a
quadratic one."""


def one_error(proc_stderr: str) -> str:
    errors = [line for line in proc_stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc_stderr
    return errors[0]


def test_nested_and_unclosed_brackets_are_unparsed_citations() -> None:
    """The reading rules hold at any depth: each unclosed ``[`` counts once and the text
    after it is read on; a group holding another bracket counts once."""
    sentences, unparsed = parse_output("[" * 5 + "Rome [Q1, born: Rome].")
    assert unparsed == 5 and [c.value for c in sentences[0].citations] == ["Rome"]
    sentences, unparsed = parse_output("A [[[x]]] b [Q2, died: Paris].")
    assert unparsed == 1 and sentences[0].citations[0].relation == "died"
    assert parse_output("[" * 2000)[1] == 2000
    assert parse_output("[" * 2000 + "]" * 2000)[1] == 1


def test_kalma_score_reads_a_huge_nested_answer_in_linear_time(tmp_path: Path) -> None:
    entries = tmp_path / "entries.jsonl"
    entries.write_text(ENTRY_A.to_line(), encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": ENTRY_A.id, "output": "[" * DEPTH + " Rome."}) + "\n",
                       encoding="utf-8")
    proc = run("kalma", "score", entries, "--answers", answers, "--json", timeout=LINEAR_S)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["unparsed_citations"] == DEPTH and doc["n_citations"] == DEPTH


@pytest.mark.parametrize("which", ["answers", "entries"])
def test_kalma_score_refuses_json_nested_200000_deep_in_one_line(tmp_path: Path,
                                                                 which: str) -> None:
    deep = "[" * DEPTH + "]" * DEPTH + "\n"
    entries = tmp_path / "entries.jsonl"
    entries.write_text(deep if which == "entries" else ENTRY_A.to_line(), encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(deep if which == "answers" else
                       json.dumps({"id": ENTRY_A.id, "output": "x."}) + "\n", encoding="utf-8")
    proc = run("kalma", "score", entries, "--answers", answers, timeout=LINEAR_S)
    assert_clean_error(proc)
    shown = entries if which == "entries" else answers
    assert one_error(proc.stderr).startswith(
        f"Error: {shown}:1: not JSON (arrays or objects nested too deeply"), proc.stderr


def test_kalma_import_refuses_json_nested_200000_deep_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "biokalma"
    folder.mkdir()
    for name in ("simple_question_graph.json", "complex_question_graph.json"):
        (folder / name).write_text("[" * DEPTH, encoding="utf-8")
    proc = run("kalma", "import", "--biokalma-dir", folder, "--out", tmp_path / "out",
               timeout=LINEAR_S)
    assert_clean_error(proc)
    assert one_error(proc.stderr).startswith(
        f"Error: {folder / 'simple_question_graph.json'}: not JSON (arrays or objects nested "
        "too deeply"), proc.stderr
    assert not (tmp_path / "out").exists()
