"""The evaluator metrics (:mod:`scoring.metrics`) on cases computed by hand.

The main case: labels A, B, C; gold A A A B B C; predictions A A B B (unparsed) A.
Confusion: A -> A 2, B 1; B -> B 1, unparsed 1; C -> A 1.
A: TP 2, predicted 3, support 3 -> P 2/3, R 2/3, F1 2/3.
B: TP 1, predicted 2, support 2 -> P 1/2, R 1/2, F1 1/2.
C: never predicted -> P 0/0 = 0.0, R 0/1 = 0, F1 0.
micro-F1 = correct / n = 3/6; macro-F1 = (2/3 + 1/2 + 0) / 3 = 7/18.
"""

from __future__ import annotations

import math
import random

import pytest

from scoring.metrics import (
    UNPARSED,
    LabelScores,
    confusion_matrix,
    factscore,
    factscore_error_rate,
    grouped_micro_f1,
    macro_f1,
    micro_f1,
    pearson,
    per_label,
)

GOLD = ["A", "A", "A", "B", "B", "C"]
PREDICTED = ["A", "A", "B", "B", None, "A"]


def test_confusion_has_every_label_and_an_unparsed_column() -> None:
    confusion = confusion_matrix(GOLD, PREDICTED, ["A", "B", "C", "D"])
    assert confusion == {
        "A": {"A": 2, "B": 1, "C": 0, "D": 0, UNPARSED: 0},
        "B": {"A": 0, "B": 1, "C": 0, "D": 0, UNPARSED: 1},
        "C": {"A": 1, "B": 0, "C": 0, "D": 0, UNPARSED: 0},
        "D": {"A": 0, "B": 0, "C": 0, "D": 0, UNPARSED: 0},   # an empty class keeps its row
    }


def test_per_label_scores_by_hand() -> None:
    scores = per_label(confusion_matrix(GOLD, PREDICTED, ["A", "B", "C"]))
    assert scores["A"] == pytest.approx(LabelScores(2 / 3, 2 / 3, 2 / 3, 3))
    assert scores["B"] == LabelScores(0.5, 0.5, 0.5, 2)
    # C is never predicted: precision 0/0 is 0.0 by convention, not an error or NaN.
    assert scores["C"] == LabelScores(0.0, 0.0, 0.0, 1)


def test_micro_f1_is_accuracy_with_unparsed_counted_wrong() -> None:
    confusion = confusion_matrix(GOLD, PREDICTED, ["A", "B", "C"])
    assert micro_f1(confusion) == 3 / 6


def test_micro_f1_equals_accuracy_and_summed_counts_on_random_cases() -> None:
    rng = random.Random(7)
    labels = ["A", "B", "C"]
    for _ in range(50):
        n = rng.randint(1, 30)
        gold = [rng.choice(labels) for _ in range(n)]
        predicted = [rng.choice([*labels, None]) for _ in range(n)]
        confusion = confusion_matrix(gold, predicted, labels)
        accuracy = sum(g == p for g, p in zip(gold, predicted, strict=True)) / n
        # Micro-F1 from summed TP / FP / FN over every column, unparsed included.
        tp = sum(confusion[label][label] for label in labels)
        fp = sum(confusion[g][c] for g in labels for c in confusion[g] if c != g)
        fn = n - tp
        precision, recall = tp / (tp + fp), tp / (tp + fn)
        by_counts = 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)
        assert micro_f1(confusion) == pytest.approx(accuracy) == pytest.approx(by_counts)


def test_macro_f1_by_hand_skips_a_class_with_no_gold_and_no_prediction() -> None:
    assert macro_f1(confusion_matrix(GOLD, PREDICTED, ["A", "B", "C"])) == pytest.approx(7 / 18)
    # D has neither gold samples nor predictions: it is not averaged (still 7/18).
    assert macro_f1(confusion_matrix(GOLD, PREDICTED, ["A", "B", "C", "D"])) == pytest.approx(7 / 18)


def test_a_label_predicted_but_never_gold_counts_in_macro_with_f1_zero() -> None:
    confusion = confusion_matrix(["A", "A"], ["A", "B"], ["A", "B"])
    scores = per_label(confusion)
    assert scores["A"] == pytest.approx(LabelScores(1.0, 0.5, 2 / 3, 2))
    assert scores["B"] == LabelScores(0.0, 0.0, 0.0, 0)   # recall 0/0 -> 0.0
    assert macro_f1(confusion) == pytest.approx((2 / 3 + 0.0) / 2)
    assert micro_f1(confusion) == 0.5


def test_only_unparsed_replies() -> None:
    confusion = confusion_matrix(["A", "B"], [None, None], ["A", "B"])
    assert micro_f1(confusion) == 0.0
    assert macro_f1(confusion) == 0.0
    assert per_label(confusion)["A"] == LabelScores(0.0, 0.0, 0.0, 1)


def test_ties_in_scores_need_no_breaking() -> None:
    # Two labels with identical counts get identical scores; nothing is ranked, so the
    # order of the labels changes no value.
    gold, predicted = ["A", "B", "A", "B"], ["A", "B", "B", "A"]
    one = per_label(confusion_matrix(gold, predicted, ["A", "B"]))
    other = per_label(confusion_matrix(gold, predicted, ["B", "A"]))
    assert one["A"] == one["B"] == other["A"] == other["B"] == LabelScores(0.5, 0.5, 0.5, 2)
    assert macro_f1(confusion_matrix(gold, predicted, ["B", "A"])) == 0.5


def test_no_samples_at_all() -> None:
    confusion = confusion_matrix([], [], ["A", "B"])
    assert micro_f1(confusion) == 0.0 and macro_f1(confusion) == 0.0
    assert per_label(confusion)["A"] == LabelScores(0.0, 0.0, 0.0, 0)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="2 gold labels but 1"):
        confusion_matrix(["A", "B"], ["A"], ["A", "B"])
    with pytest.raises(ValueError, match="predicted label 'Z'"):
        confusion_matrix(["A"], ["Z"], ["A", "B"])
    with pytest.raises(ValueError, match="gold label 'Z'"):
        confusion_matrix(["Z"], ["A"], ["A", "B"])
    with pytest.raises(ValueError, match="not a label"):
        confusion_matrix(["A"], ["A"], ["A", UNPARSED])


def test_grouped_micro_f1_by_complexity() -> None:
    groups = ["single", "single", "union", "union", "union", "single"]
    scores = grouped_micro_f1(groups, GOLD, PREDICTED, ["A", "B", "C"],
                              ["single", "union", "intersection"])
    # single: samples 0, 1, 5 -> A/A right, A/A right, C/A wrong -> 2/3.
    # union: samples 2, 3, 4 -> A/B wrong, B/B right, B/unparsed wrong -> 1/3.
    assert scores["single"].micro_f1 == pytest.approx(2 / 3) and scores["single"].support == 3
    assert scores["union"].micro_f1 == pytest.approx(1 / 3) and scores["union"].support == 3
    assert scores["intersection"].to_json() == {"micro_f1": 0.0, "support": 0}
    assert list(scores) == ["single", "union", "intersection"]
    with pytest.raises(ValueError, match="group 'single'"):
        grouped_micro_f1(groups, GOLD, PREDICTED, ["A", "B", "C"], ["union"])


def test_pearson_by_hand() -> None:
    # x = 1 2 3, y = 2 4 7: means 2 and 13/3; sxy = 5, sxx = 2, syy = 114/9.
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(5 / math.sqrt(2 * 114 / 9))
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert pearson([0.2, 0.9], [0.1, 0.5]) == pytest.approx(1.0)   # two points: ±1
    assert pearson([0.5], [0.7]) is None                              # one evaluator
    assert pearson([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]) is None          # no variance
    with pytest.raises(ValueError):
        pearson([1, 2], [1])


def test_factscore_and_error_rate() -> None:
    assert factscore([True, False, True, True]) == 0.75
    assert factscore([]) is None
    # CAQA Table 7 rows: ER = |FS - FS of the human reference (0.58)|.
    assert factscore_error_rate(0.84, 0.58) == pytest.approx(0.26)   # GPT-4
    assert factscore_error_rate(0.19, 0.58) == pytest.approx(0.39)   # LLaMA-3 (8B) fine-tuned
    assert factscore_error_rate(0.62, 0.58) == pytest.approx(0.04)   # CAQA*
