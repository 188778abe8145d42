"""``kgbench generate --grammar-gate`` (issue 34, item 5): samples whose text LanguageTool
flags in a blocked category are dropped as ``grammar`` failures and counted in
``stats.json``; without the gate built, one line says what to run. Real CLI, real demo
store, real checker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.grammar import require_gate
from tests.kgbench.test_cli import assert_clean_error, run
from tests.kgbench.test_cli_generate import QUESTIONS, generate, samples


@pytest.fixture(scope="module")
def misspelt_phrases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A phrase table whose "directed by" is misspelt and whose "sequel" is doubled: the
    flaws of issue 34 ("designeds", "with with"), put where the gate must find them."""
    path = tmp_path_factory.mktemp("phrases") / "phrases.tsv"
    path.write_text("film.film.directed_by\twas directeds by\n", encoding="utf-8")
    return path


def test_the_gate_drops_what_it_blocks_and_counts_it(demo_store: Path, misspelt_phrases: Path,
                                                     tmp_path: Path) -> None:
    require_gate()
    common = ("--questions", QUESTIONS, "--seed", "3", "--phrases", misspelt_phrases,
              "--no-report")
    plain = generate(demo_store, tmp_path / "plain", *common)
    gated = generate(demo_store, tmp_path / "gated", *common, "--grammar-gate")
    assert plain.returncode == 0, plain.stderr
    assert gated.returncode == 0, gated.stderr
    before, after = samples(tmp_path / "plain"), samples(tmp_path / "gated")
    flawed = [s for s in before if "directeds" in s.citation + s.answer]
    assert flawed, "the misspelt phrase must reach some samples"
    assert not [s for s in after if "directeds" in s.citation + s.answer]
    assert {s.id for s in after} < {s.id for s in before}

    stats = json.loads((tmp_path / "gated" / "stats.json").read_text("utf-8"))
    gate = stats["grammar_gate"]
    assert gate["checked_samples"] == len(before)
    assert gate["blocked_samples"] == len(before) - len(after) >= len(flawed)
    assert gate["blocked_by_rule"]["MORFOLOGIK_RULE_EN_US"] >= len(flawed)
    assert "GRAMMAR" in gate["blocked_categories"]
    assert stats["failures_by_stage"]["grammar"] == gate["blocked_samples"]
    failures = [json.loads(line) for line in
                (tmp_path / "gated" / "failures.jsonl").read_text("utf-8").splitlines()]
    grammar = [f for f in failures if f["stage"] == "grammar"]
    # The demo's questions are lower case ("who directed …?"): casing blocks them too.
    assert any("MORFOLOGIK_RULE_EN_US" in f["reason"].upper() for f in grammar)
    assert all(f["reason"].split(":")[0].upper() in gate["blocked_by_rule"] for f in grammar)
    assert "grammar gate:" in gated.stderr
    # Without the option nothing changes: no counts, no stage.
    plain_stats = json.loads((tmp_path / "plain" / "stats.json").read_text("utf-8"))
    assert "grammar_gate" not in plain_stats
    assert "grammar" not in plain_stats["failures_by_stage"]


@pytest.mark.slow
def test_the_gate_gives_the_same_bytes_with_two_workers(demo_store: Path, misspelt_phrases: Path,
                                                        tmp_path: Path) -> None:
    require_gate()
    common = ("--questions", QUESTIONS, "--seed", "3", "--phrases", misspelt_phrases,
              "--no-report", "--grammar-gate", "--chunk-size", "4")
    one = generate(demo_store, tmp_path / "one", *common)
    two = generate(demo_store, tmp_path / "two", *common, "--workers", "2")
    assert one.returncode == 0 and two.returncode == 0, (one.stderr, two.stderr)
    for name in ("samples.jsonl", "failures.jsonl", "stats.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_without_the_gate_built_one_line_says_what_to_run(demo_store: Path, tmp_path: Path) -> None:
    proc = run("generate", "--store", demo_store, "--questions", QUESTIONS, "--out",
               tmp_path / "b", "--grammar-gate",
               env={"KGBENCH_GRAMMAR_GATE_CLASSPATH": str(tmp_path / "missing.txt")})
    assert_clean_error(proc)
    assert "make grammar-gate" in proc.stderr
    assert not (tmp_path / "b").exists()
