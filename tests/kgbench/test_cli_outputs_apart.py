"""One rule for every command that writes (issue 32, items 2 and 12): an output may not
be one of the command's inputs, nor lie inside an input directory (a benchmark, an
entries folder, a model, a store); a directory the command replaces whole (``--force``)
may not hold an input either. Checked in one place
(:func:`extension.outputs.output_file.check_apart_from_inputs`), tried here through the real
CLI for every command with ``--out`` (and ``--report``, ``--save-predictions``, a
store given as ``--store`` or ``DST``).

Before the fix ``evaluate BENCH --out BENCH/samples.jsonl`` replaced the benchmark it
evaluated (exit 0; the next evaluate failed), ``kalma generate --out STORE`` and
``store copy S S/inside`` wrote into a store folder. Each case checks the one-line
refusal, and that every input is byte for byte what it was.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from tests.extension.test_export import demo_benchmark, write_benchmark
from tests.kalma.test_biokalma import GOOD
from tests.kalma.test_metrics import ENTRY_A
from tests.kgbench.test_cli import assert_clean_error, run, write_inputs

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"


@dataclass(frozen=True)
class Inputs:
    """Every kind of input, real files in one folder: ``store`` (loaded by the CLI),
    ``bench`` (a benchmark), ``entries`` (a KaLMA entries folder), ``biokalma``
    (BioKaLMA's two files), ``hf`` and ``nli`` (model folders) and single files."""

    root: Path
    store: Path
    bench: Path
    entries: Path
    biokalma: Path
    hf: Path
    nli: Path
    questions: Path
    parsed: Path
    predictions: Path
    answers: Path
    records: Path
    facts: Path


@pytest.fixture(scope="module")
def benchmark_samples() -> tuple[BenchmarkSample, ...]:
    return demo_benchmark()


@pytest.fixture
def inputs(tmp_path: Path, benchmark_samples: tuple[BenchmarkSample, ...]) -> Inputs:
    root = tmp_path / "in"
    root.mkdir()
    facts, names = write_inputs(root)
    store = root / "store"
    proc = run("load", "triples", facts, "--names", names, "--store", store)
    assert proc.returncode == 0, proc.stderr
    bench = root / "bench"
    write_benchmark(bench, benchmark_samples)
    (bench / "stats.json").write_text('{"samples": 1}\n')
    entries = root / "entries"
    entries.mkdir()
    (entries / "entries.jsonl").write_text(ENTRY_A.to_line(), encoding="utf-8")
    biokalma = root / "biokalma"
    biokalma.mkdir()
    for name in ("simple_question_graph.json", "complex_question_graph.json"):
        (biokalma / name).write_text(json.dumps(GOOD), encoding="utf-8")
    hf, nli = root / "hf", root / "nli"
    for folder in (hf, nli):
        folder.mkdir()
        (folder / "config.json").write_text("{}\n")
    questions = root / "questions.jsonl"
    questions.write_bytes(QUESTIONS.read_bytes())
    parsed = root / "parsed.jsonl"
    assert run("questions", "parse", questions, "--out", parsed).returncode == 0
    predictions = root / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"id": s.id, "label": s.label}) + "\n"
                                   for s in benchmark_samples))
    answers = root / "answers.jsonl"
    answers.write_text(json.dumps({"id": ENTRY_A.id, "output": "x."}) + "\n")
    records = root / "records.jsonl"
    records.write_text(json.dumps({"id": "1", "query": "q", "knowledge": "k."}) + "\n")
    return Inputs(root, store, bench, entries, biokalma, hf, nli, questions, parsed,
                  predictions, answers, records, facts)


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` with a digest of its bytes."""
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest()
                                       if p.is_file() else "dir")
            for p in sorted(root.rglob("*"))}


Case = Callable[[Inputs], tuple[list[str | Path], str]]
"""The command line and the start of the message's subject (``--out PATH``)."""

CASES: dict[str, Case] = {
    # item 2: the benchmark being evaluated
    "evaluate --out BENCH/samples.jsonl": lambda i: (
        ["evaluate", i.bench, "--predictions", i.predictions, "--split", "all",
         "--out", i.bench / "samples.jsonl"], f"--out {i.bench / 'samples.jsonl'}"),
    "evaluate --out BENCH/stats.json": lambda i: (
        ["evaluate", i.bench, "--predictions", i.predictions, "--split", "all",
         "--out", i.bench / "stats.json"], f"--out {i.bench / 'stats.json'}"),
    "evaluate --save-predictions BENCH/p.jsonl": lambda i: (
        ["evaluate", i.bench, "--predictions", i.predictions, "--split", "all",
         "--save-predictions", i.bench / "p.jsonl"], f"--save-predictions {i.bench / 'p.jsonl'}"),
    "evaluate --out PREDICTIONS": lambda i: (
        ["evaluate", i.bench, "--predictions", i.predictions, "--out", i.predictions],
        f"--out {i.predictions}"),
    "export --out BENCH/x.csv": lambda i: (
        ["export", i.bench, "--to", "caqa", "--out", i.bench / "x.csv"],
        f"--out {i.bench / 'x.csv'}"),
    "model train --out BENCH/model": lambda i: (
        ["model", "train", i.bench, "--from", i.hf, "--out", i.bench / "model"],
        f"--out {i.bench / 'model'}"),
    # item 12: a store folder
    "kalma generate --out STORE": lambda i: (
        ["kalma", "generate", "--store", i.store, "--domain", "x", "--n", "1", "--out", i.store],
        f"--out {i.store}"),
    "store copy S S/inside": lambda i: (
        ["store", "copy", i.store, i.store / "inside"], f"{i.store / 'inside'}"),
    "generate --out STORE/bench": lambda i: (
        ["generate", "--store", i.store, "--questions", i.questions, "--out",
         i.store / "bench"], f"--out {i.store / 'bench'}"),
    "questions parse --store S --out S/p.jsonl": lambda i: (
        ["questions", "parse", i.questions, "--store", i.store, "--out", i.store / "p.jsonl"],
        f"--out {i.store / 'p.jsonl'}"),
    "questions ground --out S/g.jsonl": lambda i: (
        ["questions", "ground", i.parsed, "--store", i.store, "--out", i.store / "g.jsonl"],
        f"--out {i.store / 'g.jsonl'}"),
    "extend --out S/s.jsonl": lambda i: (
        ["extend", i.parsed, "--store", i.store, "--out", i.store / "s.jsonl"],
        f"--out {i.store / 's.jsonl'}"),
    "load --report S/report.json": lambda i: (
        ["load", "rdf", i.facts, "--store", i.store, "--report", i.store / "report.json"],
        f"--report {i.store / 'report.json'}"),
    "serve --data S/data": lambda i: (
        ["serve", "--store", i.store, "--data", i.store / "data"], f"--data {i.store / 'data'}"),
    "store export-neo4j --out S/neo4j": lambda i: (
        ["store", "export-neo4j", i.store, "--out", i.store / "neo4j"],
        f"--out {i.store / 'neo4j'}"),
    # the other inputs of the commands with --out
    "kalma score --out ENTRIES/scores.json": lambda i: (
        ["kalma", "score", i.entries, "--answers", i.answers, "--out",
         i.entries / "scores.json"], f"--out {i.entries / 'scores.json'}"),
    "kalma export ENTRIES --out ENTRIES": lambda i: (
        ["kalma", "export", i.entries, "--out", i.entries], f"--out {i.entries}"),
    "kalma import --out BIOKALMA": lambda i: (
        ["kalma", "import", "--biokalma-dir", i.biokalma, "--out", i.biokalma],
        f"--out {i.biokalma}"),
    "conner score --out NLI_DIR/res": lambda i: (
        ["conner", "score", i.records, "--nli", i.nli, "--out", i.nli / "res"],
        f"--out {i.nli / 'res'}"),
    "model export --out HF/onnx": lambda i: (
        ["model", "export", i.hf, "--task", "nli", "--out", i.hf / "onnx"],
        f"--out {i.hf / 'onnx'}"),
    "questions parse --out QUESTIONS": lambda i: (
        ["questions", "parse", i.questions, "--out", i.questions], f"--out {i.questions}"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_output_inside_an_input_is_refused_and_the_inputs_kept(inputs: Inputs,
                                                                  case: str) -> None:
    args, subject = CASES[case](inputs)
    before = snapshot(inputs.root)
    proc = run(*args)
    assert_clean_error(proc)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith(f"Error: {subject} "), errors
    assert (" lies inside " in errors[0] and "an input of this command: give an output path "
            "outside it" in errors[0]) or " is the input " in errors[0], errors
    assert snapshot(inputs.root) == before


@pytest.mark.parametrize("command", ["model export", "load --force"])
def test_a_directory_replaced_whole_may_not_hold_an_input(inputs: Inputs,
                                                          command: str) -> None:
    """``--force`` replaces the output directory whole: with an input inside it, the
    command would delete what it reads."""
    if command == "model export":
        parent = inputs.hf.parent
        args: list[str | Path] = ["model", "export", inputs.hf, "--task", "nli", "--out",
                                  parent, "--force"]
        subject = f"--out {parent} holds the input {inputs.hf}"
    else:
        dump = inputs.store / "facts.tsv"
        dump.write_bytes(inputs.facts.read_bytes())
        args = ["load", "triples", dump, "--store", inputs.store, "--force"]
        subject = f"--store {inputs.store} holds the input {dump}"
    before = snapshot(inputs.root)
    proc = run(*args)
    assert_clean_error(proc)
    assert f"Error: {subject}, and the command replaces it whole" in proc.stderr, proc.stderr
    assert snapshot(inputs.root) == before


def test_an_output_beside_the_inputs_is_still_written(inputs: Inputs, tmp_path: Path) -> None:
    """The rule refuses only what overlaps an input: the same commands write beside."""
    out = tmp_path / "evaluation.json"
    proc = run("evaluate", inputs.bench, "--predictions", inputs.predictions, "--split",
               "all", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["overall_micro_f1"] == 1.0
    proc = run("store", "copy", inputs.store, tmp_path / "copy")
    assert proc.returncode == 0, proc.stderr
