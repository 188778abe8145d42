"""KaLMA App. A.3 Eq. 1, with values computed by hand."""

from __future__ import annotations

import math

import pytest

from kalma.evolve import DEFAULT_ALPHA, best_index, coherence, selection_scores, specificity


def test_specificity_is_log_2n_over_count() -> None:
    # N = 100 facts, Count_r = 25: log(200 / 25) = log 8 = 2.0794415
    assert specificity(25, 100) == pytest.approx(2.0794415, abs=1e-7)
    # A relation every fact has still scores log 2 = 0.6931472, a rare one more.
    assert specificity(100, 100) == pytest.approx(0.6931472, abs=1e-7)
    assert specificity(1, 100) > specificity(25, 100) > specificity(100, 100)
    for count, total in ((0, 10), (11, 10)):
        with pytest.raises(ValueError, match="Count_r"):
            specificity(count, total)


def test_coherence_is_softmax_of_inverse_perplexity() -> None:
    # perplexities 2 and 4 -> 1/perp 0.5 and 0.25 -> e^.5 / (e^.5 + e^.25) = 0.5621765
    assert coherence([2.0, 4.0]) == pytest.approx([0.5621765, 0.4378235], abs=1e-7)
    assert coherence([]) == []
    # A text without tokens (NaN perplexity) counts as inverse 0: e^0 / (e^0 + e^1).
    assert coherence([math.nan, 1.0]) == pytest.approx([0.2689414, 0.7310586], abs=1e-7)


def test_selection_score_weighs_both_terms_by_alpha() -> None:
    specs = [2.0794415, 0.6931472]
    cohs = [0.5621765, 0.4378235]
    # 0.5 * 2.0794415 + 0.5 * 0.5621765 = 1.3208090; 0.5 * 0.6931472 + 0.5 * 0.4378235
    assert selection_scores(specs, cohs, 0.5) == pytest.approx([1.3208090, 0.5654854], abs=1e-7)
    # α = 0.2: 0.2 * 2.0794415 + 0.8 * 0.5621765 = 0.8656295
    assert selection_scores(specs, cohs, 0.2)[0] == pytest.approx(0.8656295, abs=1e-7)
    assert DEFAULT_ALPHA == 0.5
    # Without a causal LM: the specificity alone, whatever α.
    assert selection_scores(specs, None, 0.3) == specs
    with pytest.raises(ValueError, match="alpha"):
        selection_scores(specs, cohs, 1.5)
    with pytest.raises(ValueError, match="coherences"):
        selection_scores(specs, cohs[:1], 0.5)


def test_the_best_candidate_breaks_ties_by_key() -> None:
    assert best_index([1.0, 3.0, 2.0], ["a", "b", "c"]) == 1
    assert best_index([2.0, 2.0], [("x",), ("a",)]) == 1
    with pytest.raises(ValueError):
        best_index([], [])
