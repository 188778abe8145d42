"""scoring.runtime.batching: token-budget batches, longest first, results restored to
input order."""

from __future__ import annotations

import pytest

from scoring.runtime.batching import in_input_order, plan_batches


def test_empty_input_has_no_batches():
    assert plan_batches([], batch_tokens=100) == []
    assert in_input_order([], []) == []


def test_batches_respect_the_token_budget_and_the_batch_size():
    lengths = [5, 17, 3, 9, 9, 12, 1, 30, 8, 8, 8]
    plan = plan_batches(lengths, batch_tokens=40, max_batch_size=3)
    assert sorted(i for b in plan for i in b) == list(range(len(lengths)))
    for batch in plan:
        padded = max(lengths[i] for i in batch)
        assert len(batch) * padded <= 40 and len(batch) <= 3
    # longest first, neighbours of similar length together
    firsts = [lengths[b[0]] for b in plan]
    assert firsts == sorted(firsts, reverse=True)
    assert plan[0] == [7]                       # 30 + 17 > 40: alone
    assert plan == [[7], [1, 5], [3, 4, 8], [9, 10, 0], [2, 6]]


def test_an_input_over_the_budget_gets_a_batch_of_its_own():
    plan = plan_batches([4, 500, 4, 4], batch_tokens=8)
    assert plan[0] == [1]
    assert plan[1:] == [[0, 2], [3]]


def test_ties_keep_input_order_and_the_plan_is_deterministic():
    assert plan_batches([2, 2, 2, 2], batch_tokens=4) == [[0, 1], [2, 3]]


def test_results_come_back_in_input_order():
    lengths = [3, 1, 4, 1, 5, 9, 2, 6]
    plan = plan_batches(lengths, batch_tokens=12)
    results = [[f"item{i}" for i in batch] for batch in plan]
    assert in_input_order(plan, results) == [f"item{i}" for i in range(len(lengths))]


def test_restoring_refuses_batches_that_do_not_cover_the_inputs():
    with pytest.raises(ValueError, match="returned 1 results"):
        in_input_order([[0, 1]], [["a"]])
    with pytest.raises(ValueError, match="exactly once"):
        in_input_order([[0, 0]], [["a", "b"]])


def test_budget_must_be_positive():
    with pytest.raises(ValueError):
        plan_batches([1], batch_tokens=0)
