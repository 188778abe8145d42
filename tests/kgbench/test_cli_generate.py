"""``kgbench generate`` end to end (real CLI in a subprocess, real demo store).

Covers the dataset mode and the new-domain mode, the printed Table-5 layout, the files
of the benchmark directory, bad input (clear one-line errors, nothing written), and a
run killed with SIGKILL while it waits on an LLM endpoint, resumed by rerunning the
same command.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample, iter_schema_violations
from tests.kgbench.test_cli import CLI, assert_clean_error, run
from tests.llm.chat_server import FakeChatServer

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"



def generate(store: Path, out: Path, *args: str | Path, **kw: object
             ) -> subprocess.CompletedProcess[str]:
    return run("generate", "--store", store, "--out", out, *args, **kw)  # type: ignore[arg-type]


def samples(out: Path) -> list[BenchmarkSample]:
    return [BenchmarkSample.model_validate_json(x)
            for x in (out / "samples.jsonl").read_text("utf-8").splitlines()]


def test_generate_from_questions(demo_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    proc = generate(demo_store, out, "--questions", QUESTIONS, "--seed", "3",
                    "--test-fraction", "0.3")
    assert proc.returncode == 0, proc.stderr
    assert "Table 5" in proc.stdout
    for label in ("supportive", "partial", "contradictory", "irrelevant"):
        assert label in proc.stdout
    assert "report:" in proc.stderr
    for name in ("samples.jsonl", "failures.jsonl", "stats.json", "timings.json",
                 "report.html", "run.json"):
        assert (out / name).exists(), name
    assert not (out / ".work").exists()
    assert list(iter_schema_violations(out / "samples.jsonl")) == []
    stats = json.loads((out / "stats.json").read_text())
    made = samples(out)
    assert stats["samples"] == len(made)
    assert stats["questions"] == 15
    assert {s.split for s in made} == {"train", "test"}
    # the table's last row is the grand total
    total_row = next(line for line in proc.stdout.splitlines() if line.strip().startswith("all"))
    assert total_row.split()[-1] == str(len(made))


def test_json_output_and_rerun_is_a_no_op(demo_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    first = run("generate", "--store", demo_store, "--out", out, "--questions", QUESTIONS,
                "--no-report", "--json")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["already_complete"] is False and doc["stats"]["samples"] > 0
    before = (out / "samples.jsonl").read_bytes()
    again = run("generate", "--store", demo_store, "--out", out, "--questions", QUESTIONS,
                "--no-report", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["already_complete"] is True
    assert (out / "samples.jsonl").read_bytes() == before
    assert not (out / "report.html").exists()


def test_the_summary_names_the_most_frequent_failure_reasons(demo_store: Path,
                                                            tmp_path: Path) -> None:
    # issue 38: the summary said only "ground_original 3"; it lists the predicates the
    # store lacks, most often first, and what to do
    first = json.loads(QUESTIONS.read_text("utf-8").splitlines()[0])
    lines = []
    for i, predicate in enumerate(["film.film.missing_a", "film.film.missing_a",
                                   "film.film.missing_b"]):
        record = {**first, "id": f"q{i}",
                  "sparql": first["sparql"].replace("film.film.directed_by", predicate)}
        lines.append(json.dumps(record))
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = generate(demo_store, tmp_path / "bench", "--questions", questions, "--no-report",
                    env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stderr.split())
    assert "failures by stage: ground_original 3" in text
    assert re.search(r"3 ground_original: unknown_predicate \(a predicate of the question's "
                     r"query is not in the store\)", text)
    assert "most often: film.film.missing_a 2, film.film.missing_b 1" in text
    assert "what to do: the store lacks these predicates" in text
    stats = json.loads((tmp_path / "bench" / "stats.json").read_text("utf-8"))
    assert stats["failures_by_kind"][0]["mentions"] == [
        {"id": "film.film.missing_a", "count": 2}, {"id": "film.film.missing_b", "count": 1}]


def test_new_domain_mode(demo_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "films"
    proc = generate(demo_store, out, "--domain", "film.", "--n", "12", "--seed", "1",
                    "--no-report")
    assert proc.returncode == 0, proc.stderr
    made = samples(out)
    assert made and all(s.source.dataset == "domain" for s in made)
    seeds = (out / "seed_questions.jsonl").read_text("utf-8").splitlines()
    assert 0 < len(seeds) <= 12
    assert {s.source.qid for s in made} <= {json.loads(x)["id"] for x in seeds}


def test_workers_and_shards_from_the_cli(demo_store: Path, tmp_path: Path) -> None:
    base = ["--questions", QUESTIONS, "--seed", "4", "--no-report", "--chunk-size", "3"]
    assert generate(demo_store, tmp_path / "one", *base).returncode == 0
    proc = generate(demo_store, tmp_path / "two", *base, "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "one" / "samples.jsonl").read_bytes() == \
        (tmp_path / "two" / "samples.jsonl").read_bytes()
    joined = b""
    for k in range(2):
        proc = generate(demo_store, tmp_path / f"s{k}", *base, "--shard", f"{k}/2")
        assert proc.returncode == 0, proc.stderr
        joined += (tmp_path / f"s{k}" / "samples.jsonl").read_bytes()
    assert joined == (tmp_path / "one" / "samples.jsonl").read_bytes()


@pytest.mark.parametrize(("args", "message"), [
    ((), "either --questions FILE or --domain SPEC"),
    (("--questions", QUESTIONS, "--domain", "film."), "either --questions FILE or --domain"),
    (("--questions", "missing.jsonl"), "does not exist"),
    (("--questions", QUESTIONS, "--shard", "2/2"), "0 <= i < N"),
    (("--questions", QUESTIONS, "--format", "xml"), "unknown question format"),
    (("--questions", QUESTIONS, "--llm-url", "http://127.0.0.1:9/v1"), "--llm-model"),
    (("--domain", "no.such.thing."), "no.such.thing"),
])
def test_bad_input_is_a_clear_error(demo_store: Path, tmp_path: Path,
                                    args: tuple[str, ...], message: str) -> None:
    out = tmp_path / "bench"
    proc = generate(demo_store, out, *args)
    assert_clean_error(proc, code=proc.returncode if proc.returncode else 1)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert not (out / "samples.jsonl").exists()


def test_empty_question_file(demo_store: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    proc = generate(demo_store, tmp_path / "bench", "--questions", empty, "--format", "jsonl")
    assert_clean_error(proc)
    assert "no questions" in proc.stderr


def test_a_store_without_names_is_refused(tmp_path: Path) -> None:
    facts = tmp_path / "facts.tsv"
    facts.write_text("a\tr\tb\nb\tr\tc\n", encoding="utf-8")
    store = tmp_path / "store"
    assert run("load", "triples", facts, "--store", store).returncode == 0
    proc = generate(store, tmp_path / "bench", "--questions", QUESTIONS)
    assert_clean_error(proc)
    assert "no entity names" in proc.stderr


def test_a_different_run_into_a_finished_directory_needs_force(demo_store: Path,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "bench"
    base = ["--questions", QUESTIONS, "--no-report"]
    assert generate(demo_store, out, *base, "--seed", "1").returncode == 0
    proc = generate(demo_store, out, *base, "--seed", "2")
    assert_clean_error(proc)
    assert "--force" in proc.stderr
    proc = generate(demo_store, out, *base, "--seed", "2", "--force")
    assert proc.returncode == 0, proc.stderr
    assert {s.seed for s in samples(out)} == {2}


def test_llm_outage_is_a_clear_error_and_a_rerun_resumes(demo_store: Path,
                                                         tmp_path: Path) -> None:
    server = FakeChatServer()
    try:
        out = tmp_path / "bench"
        args = ["--questions", QUESTIONS, "--no-report", "--chunk-size", "2",
                "--llm-model", "m", "--llm-cache", tmp_path / "cache", "--llm-retries", "1"]
        server.always = "500"
        proc = generate(demo_store, out, *args, "--llm-url", server.url, timeout=300)
        assert_clean_error(proc)
        assert server.url in proc.stderr
        assert not (out / "samples.jsonl").exists()
        server.always = None
        proc = generate(demo_store, out, *args, "--llm-url", server.url, timeout=300)
        assert proc.returncode == 0, proc.stderr
        made = samples(out)
        assert made and {s.verbalizer for s in made} == {"llm:m"}
    finally:
        server.stop()


@pytest.mark.slow
def test_kill_9_then_rerun_gives_the_uninterrupted_result(demo_store: Path,
                                                          tmp_path: Path) -> None:
    """SIGKILL while chunks are being written (a slow LLM endpoint keeps the run
    going), then the same command again: the result equals an uninterrupted run."""
    server = FakeChatServer()
    try:
        common = ["--questions", QUESTIONS, "--no-report", "--chunk-size", "2",
                  "--llm-url", server.url, "--llm-model", "m", "--seed", "5"]
        clean = tmp_path / "clean"
        proc = generate(demo_store, clean, *common, "--llm-cache", tmp_path / "cache1",
                        timeout=300)
        assert proc.returncode == 0, proc.stderr

        server.always, server.slow_s = "slow", 0.05
        out = tmp_path / "killed"
        env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
        victim = subprocess.Popen(
            [*CLI, "generate", "--store", str(demo_store), "--out", str(out), *map(str, common),
             "--llm-cache", str(tmp_path / "cache2")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and victim.poll() is None:
            if len(list((out / ".work").glob("chunk-*.stats.json"))) >= 2:
                break
            time.sleep(0.05)
        assert victim.poll() is None, "the run finished before it could be killed"
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        assert not (out / "samples.jsonl").exists()
        server.always = None
        proc = generate(demo_store, out, *common, "--llm-cache", tmp_path / "cache2",
                        timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "resumed" in proc.stderr
        for name in ("samples.jsonl", "failures.jsonl", "stats.json"):
            assert (out / name).read_bytes() == (clean / name).read_bytes(), name
    finally:
        server.stop()


def test_new_domain_on_a_wikidata_store(tmp_path: Path) -> None:
    """`kgbench load wikidata` then `kgbench generate --domain Q5`: humans of a
    Wikidata-shaped dump (with qualifier statement nodes) become a benchmark whose
    citations use the property labels, not P-ids."""
    from tests.extension.test_seeds import dump_text, wikidata_entities

    dump = tmp_path / "humans.json"
    dump.write_text(dump_text(wikidata_entities()), encoding="utf-8")
    store = tmp_path / "store"
    proc = run("load", "wikidata", dump, "--store", store, "--qualifiers")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "humans"
    proc = generate(store, out, "--domain", "Q5", "--n", "9", "--seed", "2", "--no-report")
    assert proc.returncode == 0, proc.stderr
    made = samples(out)
    assert {s.label for s in made} >= {"supportive", "contradictory"}
    texts = " ".join(c.text for s in made for c in s.citations)
    assert texts and not re.search(r"\bP\d+\b", texts)
    assert not re.search(r"\bQ\d+\b", texts)


def test_caqa_strict_is_recorded_and_part_of_the_resume_check(demo_store: Path,
                                                              tmp_path: Path) -> None:
    """``--caqa-strict`` reproduces CAQA §4.3: no partially supportive sample for a
    single question; it is in stats.json, and the finished strict run is not taken for
    a run with the other setting (refused without --force)."""
    out = tmp_path / "bench"
    # seed 1: the demo questions' default run has single partial samples (n-ary facts
    # that lose a constraint, answers that lose one of several)
    strict = generate(demo_store, out, "--questions", QUESTIONS, "--caqa-strict",
                      "--no-report", "--json", "--seed", "1")
    assert strict.returncode == 0, strict.stderr
    stats = json.loads((out / "stats.json").read_text())
    assert stats["caqa_strict"] is True
    assert not [s for s in samples(out)
                if s.label == "partially_supportive" and s.complexity == "single"]
    refused = generate(demo_store, out, "--questions", QUESTIONS, "--no-report", "--seed", "1")
    assert_clean_error(refused)
    assert "already holds a benchmark" in refused.stderr
    default = generate(demo_store, out, "--questions", QUESTIONS, "--no-report", "--json",
                       "--force", "--seed", "1")
    assert default.returncode == 0, default.stderr
    assert json.loads(default.stdout)["already_complete"] is False
    assert json.loads((out / "stats.json").read_text())["caqa_strict"] is False
    assert [s for s in samples(out)
            if s.label == "partially_supportive" and s.complexity == "single"]
