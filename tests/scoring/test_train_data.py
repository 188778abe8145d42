"""What fine-tuning reads from a benchmark (:mod:`scoring.train_data`): the held-out split
by source question, and the majority-class baseline. Pure functions: no torch."""

from __future__ import annotations

import math

import pytest

from extension.core.labels import LABELS
from scoring.train_data import held_out_macro_f1, held_out_questions, majority_baseline

QUESTIONS = [f"domain:q{i}" for i in range(40)]


@pytest.mark.parametrize(("fraction", "n", "wanted"), [
    (0.1, 40, 4), (0.15, 40, 6), (0.01, 40, 1), (0.99, 40, 39), (0.5, 2, 1), (0.1, 3, 1)])
def test_held_out_share_is_exact_and_never_empties_a_side(fraction: float, n: int,
                                                          wanted: int) -> None:
    held = held_out_questions(QUESTIONS[:n], fraction, seed=0)
    assert len(held) == wanted == min(n - 1, max(1, math.ceil(fraction * n)))
    assert held <= set(QUESTIONS[:n])


def test_held_out_is_seeded_and_independent_of_order_and_repeats() -> None:
    held = held_out_questions(QUESTIONS, 0.2, seed=3)
    # every sample of a question passes its key: repeats and order change nothing
    assert held_out_questions([*reversed(QUESTIONS), *QUESTIONS], 0.2, seed=3) == held
    assert held_out_questions(QUESTIONS, 0.2, seed=4) != held


def test_one_question_cannot_be_split() -> None:
    assert held_out_questions(["domain:q1", "domain:q1"], 0.5, seed=0) == set()


def test_macro_f1_counts_a_label_never_predicted_and_leaves_out_an_absent_one() -> None:
    # supportive: tp 1, fp 1, fn 1 -> F1 1/2; partially_supportive: tp 2, fp 1 -> 4/5;
    # contradictory: gold once, never predicted -> 0; irrelevant: absent -> left out.
    gold = [0, 0, 1, 1, 2]
    predicted = [0, 1, 1, 1, 0]
    assert held_out_macro_f1(gold, predicted, LABELS) == pytest.approx((0.5 + 0.8 + 0.0) / 3)


def test_majority_baseline_takes_the_fit_part_majority_and_scores_it_on_held_out() -> None:
    fit = {"supportive": 5, "partially_supportive": 7, "contradictory": 7, "irrelevant": 1}
    gold = [0, 1, 1, 2, 3]
    baseline = majority_baseline(fit, LABELS, gold)
    # a tie (7, 7) goes to the label listed first
    assert baseline["label"] == "partially_supportive"
    assert baseline["accuracy"] == pytest.approx(2 / 5)
    # F1 of partially_supportive: tp 2, fp 3 -> 4/7; the other three labels 0
    assert baseline["macro_f1"] == pytest.approx((4 / 7) / 4)
