"""Smoke test of bench/extend_bench.py in --quick mode: the label and complexity shares
beside CAQA Table 5 are recorded and printed."""

from __future__ import annotations

import json

import pytest

from tests.bench import load_bench


@pytest.mark.slow
def test_quick_benchmark_records_and_prints_the_caqa_shares(tmp_path, capsys):
    bench = load_bench("extend_bench")
    out = tmp_path / "out"
    record = bench.main(["--quick", "--seed", "2", "--out", str(out), "--work",
                         str(tmp_path / "work"), "--workers", "1"])
    assert json.loads((out / "extend_bench.jsonl").read_text().splitlines()[0])[
        "caqa_table5"] == record["caqa_table5"]
    shares = record["caqa_table5"]
    assert shares["samples"] == record["samples"] > 0
    for label, row in shares["label"].items():
        count = sum(record["label_complexity"][label].values())
        assert row["count"] == count
        assert row["share_pct"] == round(100 * count / record["samples"], 2)
    printed = capsys.readouterr().out
    assert "share of samples vs CAQA Table 5" in printed
    assert all(f"complexity {c}" in printed for c in shares["complexity"])
