"""Our label and complexity shares beside CAQA Table 5 (extension.outputs.caqa_table5): the
shipped constant equals the paper's table file where it is available, and the shares,
differences and flags are computed from the counts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from extension.core.labels import COMPLEXITIES, LABELS
from extension.outputs.caqa_table5 import (
    CAQA_TABLE5_SAMPLES,
    CAQA_TABLE5_TOTALS,
    compare_with_caqa,
    counts_of_stats,
)
from tests.external import EXTERNAL_ENV


def test_the_constant_equals_caqa_table5_json() -> None:
    """``caqa_table5.json`` (the paper's Table 5, in ``../shared/papers``) lies two
    folders above the external data: ``$KGBENCH_EXTERNAL_DATA/../../papers``."""
    external = os.environ.get(EXTERNAL_ENV)
    if not external:
        pytest.skip(f"{EXTERNAL_ENV} is not set")
    path = Path(external, "..", "..", "papers", "caqa_table5.json")
    if not path.exists():
        pytest.skip(f"{path} is not available")
    table = json.loads(path.read_text("utf-8"))
    assert table["samples"]["total"] == CAQA_TABLE5_SAMPLES
    for group in ("label", "complexity"):
        assert {k: v["total"] for k, v in table[group].items()} == dict(CAQA_TABLE5_TOTALS[group])


def test_each_block_sums_to_the_samples() -> None:
    for group in ("label", "complexity"):
        assert sum(CAQA_TABLE5_TOTALS[group].values()) == CAQA_TABLE5_SAMPLES
    assert set(CAQA_TABLE5_TOTALS["label"]) == set(LABELS)
    assert set(CAQA_TABLE5_TOTALS["complexity"]) == set(COMPLEXITIES)


def test_shares_differences_and_flags() -> None:
    # 100 samples: labels 30/20/25/25 %, complexities 50/5/10/35 %
    counts = {("supportive", "single"): 30, ("partially_supportive", "concatenation"): 20,
              ("contradictory", "intersection"): 10, ("contradictory", "union"): 5,
              ("contradictory", "concatenation"): 10, ("irrelevant", "single"): 20,
              ("irrelevant", "concatenation"): 5}
    comparison = compare_with_caqa(counts)
    rows = {(r.group, r.name): r for r in comparison.rows}
    assert comparison.samples == 100
    assert [(r.group, r.name) for r in comparison.rows] == [
        *(("label", lb) for lb in LABELS), *(("complexity", c) for c in COMPLEXITIES)]
    supportive = rows[("label", "supportive")]
    assert supportive.count == 30 and supportive.share == pytest.approx(30.0)
    assert supportive.caqa_share == pytest.approx(100 * 46157 / 161174)   # 28.64 %
    assert supportive.diff_points == pytest.approx(30.0 - 100 * 46157 / 161174)
    assert not supportive.flagged                                          # +1.4 points
    assert rows[("complexity", "single")].share == pytest.approx(50.0)
    assert not rows[("complexity", "single")].flagged   # complexities are not flagged
    # contradictory 25 % vs 26.7 %: fine; a run without contradictory samples is flagged
    assert not rows[("label", "contradictory")].flagged
    without = compare_with_caqa({k: v for k, v in counts.items() if k[0] != "contradictory"})
    # 75 samples: supportive 40 %, partial 26.7 %, contradictory 0 %, irrelevant 33.3 %
    assert [r.name for r in without.flagged] == list(LABELS)
    doc = comparison.to_json()
    assert doc["label"]["supportive"] == {"count": 30, "share_pct": 30.0,
                                          "caqa_share_pct": 28.64, "diff_points": 1.36,
                                          "flagged": False}
    assert doc["flagged_labels"] == []
    assert any("contradictory" in line and "off by more than 5" in line
               for line in without.lines())


def test_no_samples_flags_every_label() -> None:
    comparison = compare_with_caqa({})
    assert comparison.samples == 0
    assert [r.name for r in comparison.flagged] == list(LABELS)


def test_counts_of_stats_sum_the_splits() -> None:
    stats = {"by_split": {"train": {"supportive": {"single": 2, "union": 1}},
                          "test": {"supportive": {"single": 3}, "irrelevant": {"union": 4}}}}
    counts = counts_of_stats(stats)
    assert counts[("supportive", "single")] == 5
    assert counts[("supportive", "union")] == 1
    assert counts[("irrelevant", "union")] == 4
    assert counts[("contradictory", "single")] == 0
