"""``kgbench score`` end to end: the real CLI in a subprocess on the demo benchmark with
the tiny exported models (BERT NLI, GPT-2 LM; onnxruntime on the CPU).

Checked: the printed label-consistency table is scores.jsonl's, the provider that
really ran and the pairs/s are printed, a run killed with SIGKILL at a named point
(right after a chunk's file is complete) resumes to byte-identical files and says so in
its ``--json`` document (one document, the table of scores.jsonl), generate's lock is
respected, and each bad input is one ``Error:`` line.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from kgstore.dirlock import DirectoryLock
from scoring.score.consistency import consistency_table
from scoring.score.report_section import SECTION_BEGIN
from tests.extension.test_export import demo_benchmark, write_benchmark
from tests.kgbench.test_cli import assert_clean_error, run
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401  (fixtures)

PAGE = "<!DOCTYPE html>\n<html><body><h1>report</h1></body></html>\n"
OPTIONS = ["--device", "cpu", "--chunk-size", "16", "--flag-below", "0.5"]

KILL_AT = """
import os, signal, sys
import scoring.score.benchmark as use_case
name = sys.argv[1]
write = use_case.write_work_file
def killing_write(path, text):
    write(path, text)
    if path.name == name:   # right after the work file `name` is complete
        os.kill(os.getpid(), signal.SIGKILL)
use_case.write_work_file = killing_write
from kgbench.cli import main
main(sys.argv[2:])
"""
"""Runs the CLI with a SIGKILL at a named point of the use case (a real process,
really killed: nothing of it runs after the signal)."""


@pytest.fixture(scope="module")
def samples() -> tuple[BenchmarkSample, ...]:
    return demo_benchmark()


@pytest.fixture(scope="module")
def models(exported: Exported) -> tuple[Path, Path]:  # noqa: F811
    return exported("bert", "nli"), exported("gpt2", "causal-lm")


def new_bench(directory: Path, samples: tuple[BenchmarkSample, ...]) -> Path:
    write_benchmark(directory, samples)
    (directory / "report.html").write_text(PAGE, encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory, samples: tuple[BenchmarkSample, ...],
           models: tuple[Path, Path]) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A benchmark scored by the CLI with both models; do not modify."""
    bench = new_bench(tmp_path_factory.mktemp("scored") / "bench", samples)
    proc = run("score", bench, "--nli", models[0], "--lm", models[1], *OPTIONS)
    assert proc.returncode == 0, proc.stderr
    return bench, proc


def records(bench: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (bench / "scores.jsonl").read_text("utf-8").splitlines()]


@pytest.mark.slow   # the scored fixture: a real run of the CLI, both models
def test_prints_the_table_of_scores_jsonl_the_provider_and_speed(
        scored: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    bench, proc = scored
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines()
            if line.split() and line.split()[0] in ("supportive", "partially_supportive",
                                                    "contradictory", "irrelevant")}
    scores = records(bench)
    for label, cells in rows.items():
        mine = [r["nli"] for r in scores if r["label"] == label]  # type: ignore[index]
        outcomes = Counter(n["predicted"] for n in mine)  # type: ignore[index]
        consistent = sum(bool(n["consistent"]) for n in mine)  # type: ignore[index]
        numbers = [int(c.replace(",", "")) for c in cells[-6:-1]]
        assert numbers == [len(mine), outcomes["entailment"], outcomes["neutral"],
                           outcomes["contradiction"], consistent], cells
    assert len(rows) == 4
    assert "nli " in proc.stderr and "ran on CPUExecutionProvider" in proc.stderr
    assert "pairs/s" in proc.stderr and "sentences/s" in proc.stderr
    assert f"{len(scores)} samples scored" in proc.stderr
    assert "sample(s) flagged" in proc.stderr


@pytest.mark.slow
def test_kill_9_then_rerun_gives_the_same_files_and_json_says_so(
        scored: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path,
        samples: tuple[BenchmarkSample, ...], models: tuple[Path, Path]) -> None:
    """SIGKILL right after the second chunk is written; the same command again (with
    --json) resumes, and its files are those of the uninterrupted run."""
    reference, _ = scored
    bench = new_bench(tmp_path / "bench", samples)
    command = ["score", str(bench), "--nli", str(models[0]), "--lm", str(models[1]), *OPTIONS]
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    killed = subprocess.run([sys.executable, "-c", KILL_AT, "chunk-000001.stats.json",
                             *command], env=env,
                            capture_output=True, text=True, timeout=180, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not (bench / "scores.jsonl").exists() and not (bench / "score_run.json").exists()
    assert len(list((bench / ".work-score").glob("chunk-*.stats.json"))) == 2

    again = run(*command, "--json")
    assert again.returncode == 0, again.stderr
    doc = json.loads(again.stdout)   # the whole of stdout is one document
    assert (doc["resumed_chunks"], doc["already_complete"]) == (2, False)
    for file in ("scores.jsonl", "flagged.jsonl"):
        assert (bench / file).read_bytes() == (reference / file).read_bytes(), file
    assert doc["consistency"] == consistency_table(records(bench)).to_json()
    assert doc == {**json.loads((bench / "score_run.json").read_text("utf-8")),
                   **{k: doc[k] for k in ("bench_dir", "already_complete", "resumed_chunks",
                                          "flagged", "flagged_file", "report")}}
    assert doc["models"]["nli"]["runtime"]["provider"] == "CPUExecutionProvider"
    assert doc["flagged"] == len((bench / "flagged.jsonl").read_text("utf-8").splitlines())
    assert (bench / "report.html").read_text("utf-8").count(SECTION_BEGIN) == 1
    assert not (bench / ".work-score").exists()


def test_generates_lock_is_respected(tmp_path: Path, samples: tuple[BenchmarkSample, ...],
                                     models: tuple[Path, Path]) -> None:
    bench = new_bench(tmp_path / "bench", samples[:4])
    with DirectoryLock(bench):   # as `kgbench generate` holds it while it writes
        proc = run("score", bench, "--nli", models[0], "--device", "cpu")
    assert_clean_error(proc)
    assert f"is being written by another kgbench process (pid {os.getpid()})" in proc.stderr
    assert not (bench / "scores.jsonl").exists()


def test_help_teaches_with_an_example() -> None:
    proc = run("score", "--help")
    assert proc.returncode == 0
    assert "kgbench score webqsp-bench --nli" in proc.stdout and "--flag-below" in proc.stdout


@pytest.mark.slow   # six runs of the CLI
def test_bad_input_is_one_line_each(tmp_path: Path, samples: tuple[BenchmarkSample, ...],
                                    models: tuple[Path, Path]) -> None:
    nli, lm = models
    bench = new_bench(tmp_path / "bench", samples[:4])
    no_tokenizer = tmp_path / "no-tokenizer"
    shutil.copytree(nli, no_tokenizer)
    (no_tokenizer / "tokenizer.json").unlink()
    cases: list[tuple[list[str | Path], int, str]] = [
        ([tmp_path, "--nli", nli], 1, "is not a benchmark directory (no samples.jsonl)"),
        ([bench, "--nli", lm], 1, "a model exported for --task causal-lm; --nli needs one "
                                  "exported for --task nli"),
        ([bench, "--nli", no_tokenizer], 1, "tokenizer.json"),
        ([bench, "--nli", nli, "--split", "dev"], 2, "unknown split 'dev'"),
        ([bench, "--nli", nli, "--flag-below", "1.5"], 2, "expected a probability between 0 and 1"),
        ([bench], 2, "give --nli DIR, --lm DIR or both"),
    ]
    for args, code, message in cases:
        proc = run("score", *args)
        assert_clean_error(proc, code)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1 and message in errors[0], proc.stderr
    assert not (bench / "scores.jsonl").exists()


def test_progress_shows_pairs_and_sentences_per_second() -> None:
    from rich.progress import Progress

    from kgbench.cli.output import RateColumn

    now = [0.0]
    display = Progress(get_time=lambda: now[0], disable=True)
    pairs = display.add_task("NLI pairs", total=1000, unit="pairs")
    sentences = display.add_task("LM sentences", total=1000, unit="sentences")
    plain = display.add_task("something", total=10)
    for second in (1.0, 2.0):
        now[0] = second
        display.update(pairs, completed=int(100 * second))
        display.update(sentences, completed=int(40 * second))
        display.update(plain, completed=int(second))
    assert RateColumn().render(display.tasks[pairs]).plain == "100 pairs/s"
    assert RateColumn().render(display.tasks[sentences]).plain == "40 sentences/s"
    assert RateColumn().render(display.tasks[plain]).plain == ""
