"""Smoke test of bench/generate_bench.py in --quick mode: the record it appends, the
baseline beside the measured runs, and identical outputs across worker counts."""

from __future__ import annotations

import json

import pytest

from tests.bench import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("generate_bench")


@pytest.mark.slow
def test_quick_benchmark(bench, tmp_path, capsys):
    out = tmp_path / "out"
    record = bench.main(["--quick", "--seed", "2", "--out", str(out), "--work",
                         str(tmp_path / "work"), "--workers", "1,2"])
    lines = (out / "generate_bench.jsonl").read_text().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == json.loads(json.dumps(record, sort_keys=True))
    assert (out / "generate_bench.png").stat().st_size > 0
    assert record["params"]["facts"] == 20_000 and record["params"]["seed"] == 2
    assert record["outputs_identical_across_workers"] is True
    base = record["baseline_structured_only"]
    assert base["questions"] == record["questions"] > 0 and base["samples"] > 0
    for workers in ("1", "2"):
        run = record["generate"][workers]
        # generate makes the same samples the baseline makes, plus their text
        assert run["samples"] == base["samples"]
        assert run["samples_per_s"] > 0
        assert {"extend", "verbalize", "parse"} <= set(run["stage_seconds"])
    assert record["meets_target"] == (record["best_samples_per_s"] >= 500)
    # the store keeps its predicate statistics from the load; the seed's type samples
    # are kept before the baseline runs (issue 35)
    assert record["store_preparation"]["outcome"] == "computed"
    fixed = record["fixed_cost"]
    assert 0 < fixed["open_seconds"] <= fixed["store_open_to_first_sample_seconds"]
    assert fixed["generate_one_question_seconds"] > 0
    assert not (tmp_path / "work").exists()   # scratch removed without --keep
    # the label and complexity shares beside CAQA Table 5, recorded and printed
    shares = record["caqa_table5"]
    assert shares["samples"] == base["samples"] == sum(
        n for row in record["label_complexity"].values() for n in row.values())
    assert set(shares["label"]) == {"supportive", "partially_supportive", "contradictory",
                                    "irrelevant"}
    printed = capsys.readouterr().out
    assert "share of samples vs CAQA Table 5" in printed
    assert all(f"label {label}" in printed for label in shares["label"])
