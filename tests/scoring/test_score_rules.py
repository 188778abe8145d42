"""The pure parts of ``kgbench score`` on hand-made cases: the label-consistency rule,
its table, CONNER's sentence cohesion (Eq. 3), the flags and the report section's
splice (no model needed)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pytest

from extension.core.labels import Label
from scoring.score.cohesion import sentence_cohesion
from scoring.score.consistency import (
    agrees,
    consistency_table,
    expected_outcome,
    expected_probability,
    predicted_role,
    sub_fact_expected,
)
from scoring.score.flagged import check_threshold, flag_records
from scoring.score.records import nli_verdict
from scoring.score.report_section import (
    SECTION_BEGIN,
    SECTION_END,
    listing_order,
    splice_section,
)


@dataclass(frozen=True)
class Probs:
    entailment: float
    neutral: float
    contradiction: float


def test_the_rule_per_label() -> None:
    assert expected_outcome("supportive") == "entailment"
    assert expected_outcome("contradictory") == "contradiction"
    assert expected_outcome("irrelevant") == "not_entailment"
    assert expected_outcome("partially_supportive") == "not_entailment"
    assert sub_fact_expected(True) == "entailment"
    assert sub_fact_expected(False) == "not_entailment"


@pytest.mark.parametrize(("expected", "predicted", "consistent"), [
    ("entailment", "entailment", True), ("entailment", "neutral", False),
    ("entailment", "contradiction", False), ("contradiction", "contradiction", True),
    ("contradiction", "neutral", False), ("contradiction", "entailment", False),
    ("not_entailment", "neutral", True), ("not_entailment", "contradiction", True),
    ("not_entailment", "entailment", False)])
def test_agreement(expected: str, predicted: str, consistent: bool) -> None:
    assert agrees(expected, predicted) is consistent  # type: ignore[arg-type]


def test_argmax_and_expected_probability() -> None:
    p = {"entailment": 0.2, "neutral": 0.5, "contradiction": 0.3}
    assert predicted_role(p) == "neutral"  # type: ignore[arg-type]
    assert expected_probability("not_entailment", p) == pytest.approx(0.8)  # type: ignore[arg-type]
    assert expected_probability("contradiction", p) == 0.3  # type: ignore[arg-type]
    # ties go to the first of entailment, neutral, contradiction; a 2-way model's
    # neutral (0.0) never wins
    assert predicted_role({"entailment": 0.5, "neutral": 0.0, "contradiction": 0.5}) \
        == "entailment"  # type: ignore[arg-type]
    assert predicted_role({"entailment": 0.3, "neutral": 0.0, "contradiction": 0.7}) \
        == "contradiction"  # type: ignore[arg-type]


def test_verdict_decides_before_rounding() -> None:
    verdict = nli_verdict(Probs(0.1234567891, 0.4, 0.4765432109), "contradiction")
    assert verdict == {"entailment": 0.123457, "neutral": 0.4, "contradiction": 0.476543,
                       "predicted": "contradiction", "expected": "contradiction",
                       "p_expected": 0.476543, "consistent": True}


def _record(sample_id: str, label: Label, predicted: str, consistent: bool, p: float,
            sub_facts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"id": sample_id, "label": label, "complexity": "single",
                                 "split": "test",
                                 "nli": {"predicted": predicted, "consistent": consistent,
                                         "p_expected": p, "expected": expected_outcome(label)}}
    if sub_facts is not None:
        record["sub_facts"] = sub_facts
    return record


def _fact(index: int, supported: bool, predicted: str, consistent: bool, p: float
          ) -> dict[str, Any]:
    return {"index": index, "supported": supported, "predicted": predicted,
            "consistent": consistent, "p_expected": p, "expected": sub_fact_expected(supported)}


RECORDS: list[dict[str, Any]] = [
    _record("a", "supportive", "entailment", True, 0.9),
    _record("b", "supportive", "neutral", False, 0.2),
    _record("c", "contradictory", "contradiction", True, 0.7),
    _record("d", "irrelevant", "contradiction", True, 0.6),
    _record("e", "partially_supportive", "entailment", False, 0.3,
            [_fact(0, True, "entailment", True, 0.8), _fact(1, False, "entailment", False, 0.1)]),
    {"id": "f", "label": "irrelevant", "complexity": "single", "split": "test",
     "lm": {"cohesion": 0.1}},   # an --lm-only record counts nowhere
]


def test_the_table_counts_outcomes_and_shares() -> None:
    doc = consistency_table(RECORDS).to_json()
    assert doc["by_label"]["supportive"] == {
        "expected": "entailment", "n": 2, "entailment": 1, "neutral": 1, "contradiction": 0,
        "consistent": 1, "consistent_share": 0.5}
    assert doc["by_label"]["irrelevant"]["n"] == 1
    assert doc["by_label"]["irrelevant"]["consistent_share"] == 1.0
    assert doc["total"] == {"n": 5, "entailment": 2, "neutral": 1, "contradiction": 2,
                            "consistent": 3, "consistent_share": 0.6}
    assert doc["sub_facts"]["supported"]["consistent"] == 1
    assert doc["sub_facts"]["unsupported"] == {
        "expected": "not_entailment", "n": 1, "entailment": 1, "neutral": 0,
        "contradiction": 0, "consistent": 0, "consistent_share": 0.0}
    empty = consistency_table([]).to_json()
    assert empty["by_label"]["contradictory"]["consistent_share"] is None  # no pairs: no share
    assert empty["rule"] == {"supportive": "entailment", "partially_supportive": "not_entailment",
                             "contradictory": "contradiction", "irrelevant": "not_entailment"}


def test_cohesion_is_conner_eq_3() -> None:
    # (1/2 + 1/4 + 1/8) / 3
    assert sentence_cohesion([2.0, 4.0, 8.0]) == pytest.approx(0.875 / 3)
    assert sentence_cohesion([1.0]) == 1.0
    assert sentence_cohesion([math.inf, 2.0]) == 0.25
    assert sentence_cohesion([]) is None


def test_flags_lowest_first_with_sub_facts_and_reasons() -> None:
    flags = flag_records(RECORDS, 0.5)
    # e's own pair is 0.3 but its unsupported sub-fact is 0.1: it comes first
    assert [(f.record["id"], f.probability) for f in flags] == [("e", 0.1), ("b", 0.2)]
    assert flags[0].reasons == (
        "P(not entailment) = 0.300 < 0.5: the model says entailment, a partially "
        "supportive sample should not be entailed",
        "P(not entailment) = 0.100 < 0.5: the model says entailment, sub-fact 2 "
        "(unsupported) should not be entailed")
    assert flag_records(RECORDS, 0.0) == []
    assert [f.record["id"] for f in flag_records(RECORDS, 1.0)] == ["e", "b", "d", "c", "a"]
    ties = [_record("x", "supportive", "neutral", False, 0.2),
            _record("y", "supportive", "neutral", False, 0.2)]
    assert [f.record["id"] for f in flag_records(ties, 0.5)] == ["x", "y"]


@pytest.mark.parametrize("bad", [-0.1, 1.01, math.nan, math.inf])
def test_threshold_must_be_a_probability(bad: float) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        check_threshold(bad)
    assert check_threshold(0) == 0.0 and check_threshold(1) == 1.0


def test_disagreeing_samples_are_listed_first() -> None:
    assert [r["id"] for r in listing_order(RECORDS)] == ["b", "e", "d", "c", "a"]


def test_the_section_is_replaced_and_nothing_else_changes() -> None:
    page = "<html><body><h1>x</h1><p>&lt;!-- kgbench</p></body></html>\n"
    first = splice_section(page, f"{SECTION_BEGIN}one{SECTION_END}")
    assert first == f"<html><body><h1>x</h1><p>&lt;!-- kgbench</p>{SECTION_BEGIN}one" \
                    f"{SECTION_END}</body></html>\n"
    second = splice_section(first, f"{SECTION_BEGIN}two{SECTION_END}")
    assert second == first.replace("one", "two")
    assert second.count(SECTION_BEGIN) == 1
