"""CONNER's Eq. 1–8 (scoring.conner.metrics) on cases computed by hand from the paper's
definitions (Chen et al., 2023, §3.3–3.4), with the scorers' outputs given as numbers."""

from __future__ import annotations

import math

import pytest

from scoring.conner import metrics
from scoring.conner.batch import Prepared
from scoring.conner.records import ConnerRecord
from scoring.runtime import NliScores
from scoring.score import cohesion

# Two sentences, two evidence texts each: NLI(s_i, e_ij) as (entail, neutral, contra).
S1 = [(0.7, 0.2, 0.1), (0.9, 0.05, 0.05)]      # best evidence: the second, entail 0.9
S2 = [(0.1, 0.3, 0.6), (0.2, 0.7, 0.1)]        # best evidence: the second, entail 0.2


def close(got: metrics.Factuality | None, want: tuple[float, float, float]) -> bool:
    return got is not None and all(math.isclose(a, b, abs_tol=1e-12)
                                   for a, b in zip(got, want, strict=True))


def test_factuality_of_two_sentences_under_min_mean_and_max() -> None:
    # f(s_1) = (0.9, 0.05, 0.05), f(s_2) = (0.2, 0.7, 0.1): Eq. 1's inner max by entailment.
    assert close(metrics.sentence_factuality(S1), (0.9, 0.05, 0.05))
    assert close(metrics.sentence_factuality(S2), (0.2, 0.7, 0.1))
    # min (the paper's example) keeps the less supported sentence's vector whole ...
    assert close(metrics.factuality([S1, S2]), (0.2, 0.7, 0.1))
    assert close(metrics.factuality([S1, S2], "min"), (0.2, 0.7, 0.1))
    # ... max the better supported one's, mean averages the vectors element-wise.
    assert close(metrics.factuality([S1, S2], "max"), (0.9, 0.05, 0.05))
    assert close(metrics.factuality([S1, S2], "mean"), (0.55, 0.375, 0.075))
    result = metrics.factuality([S1, S2], "mean")
    assert result is not None and math.isclose(sum(result), 1.0)


def test_factuality_ties_no_evidence_and_no_sentences() -> None:
    # Equal entailment: the evidence that contradicts less is the sentence's best.
    assert close(metrics.sentence_factuality([(0.5, 0.1, 0.4), (0.5, 0.5, 0.0)]), (0.5, 0.5, 0.0))
    # Equal entailment across sentences: min keeps the more contradicted one, max the less.
    tied = [[(0.4, 0.6, 0.0)], [(0.4, 0.1, 0.5)]]
    assert close(metrics.factuality(tied, "min"), (0.4, 0.1, 0.5))
    assert close(metrics.factuality(tied, "max"), (0.4, 0.6, 0.0))
    # A sentence with no evidence is non-verified, and under min it decides.
    assert metrics.sentence_factuality([]) == metrics.NON_VERIFIED == (0.0, 1.0, 0.0)
    assert close(metrics.factuality([S1, []]), (0.0, 1.0, 0.0))
    assert close(metrics.factuality([S1, []], "mean"), (0.45, 0.525, 0.025))
    assert metrics.factuality([]) is None
    with pytest.raises(ValueError, match="aggregate"):
        metrics.factuality([S1], "median")  # type: ignore[arg-type]


def test_nli_scores_objects_and_tuples_read_alike() -> None:
    objects = [[NliScores(*v) for v in S1], [NliScores(*v) for v in S2]]
    assert metrics.factuality(objects, "mean") == metrics.factuality([S1, S2], "mean")
    with pytest.raises(ValueError, match="3 values"):
        metrics.nli_vector((0.5, 0.5))


def test_relevance_is_the_sigmoid_of_the_logit() -> None:
    assert metrics.relevance(0.0) == 0.5
    assert math.isclose(metrics.relevance(math.log(3)), 0.75)
    assert math.isclose(metrics.relevance(-math.log(3)), 0.25)
    assert metrics.relevance(-1000.0) == 0.0 and metrics.relevance(1000.0) == 1.0   # no overflow


def test_sentence_cohesion_is_eq3_reused() -> None:
    assert metrics.sentence_cohesion is cohesion.sentence_cohesion
    assert metrics.sentence_cohesion([2.0, 4.0]) == pytest.approx((1 / 2 + 1 / 4) / 2)


def test_paragraph_coherence_reads_the_coherent_label() -> None:
    assert metrics.paragraph_coherence([0.2, 0.8], 1) == 0.8
    assert metrics.paragraph_coherence([0.2, 0.8], 0) == 0.2
    with pytest.raises(ValueError, match="outside"):
        metrics.paragraph_coherence([0.2, 0.8], 2)


def test_informativeness_eq5() -> None:
    # mean ln P = ln 0.5 -> 1 - 0.5
    assert metrics.informativeness([math.log(0.5), math.log(0.5)]) == pytest.approx(0.5)
    assert metrics.informativeness([math.log(0.25), 0.0]) == pytest.approx(0.5)
    assert metrics.informativeness([0.0, 0.0]) == 0.0          # the LM was certain: nothing new
    assert metrics.informativeness([math.log(0.1)]) == pytest.approx(0.9)
    assert metrics.informativeness([]) is None


def test_helpfulness_eq6() -> None:
    # 1 - (-1) / mean(-4, -2) = 1 - 1/3
    assert metrics.helpfulness(-1.0, [-4.0, -2.0]) == pytest.approx(2 / 3)
    assert metrics.helpfulness(0.0, [-3.0]) == 1.0              # the knowledge makes a certain
    assert metrics.helpfulness(-5.0, [-4.0]) == 0.0             # worse than random: clipped at 0
    assert metrics.helpfulness(-4.0, [-4.0]) == 0.0
    assert metrics.helpfulness(-1.0, [0.0]) == 0.0              # the baseline is already certain
    assert metrics.helpfulness(-1.0, []) is None


def test_validity_span_eq7_and_open_eq8() -> None:
    assert metrics.validity_span((0.8, 0.15, 0.05)) == 0.8
    assert metrics.validity_span(NliScores(0.3, 0.3, 0.4)) == 0.3
    assert metrics.validity_open([(0.3, 0.6, 0.1), (0.6, 0.1, 0.3), (0.1, 0.1, 0.8)]) == 0.6
    assert metrics.validity_open([]) is None


def test_validity_chooses_eq7_with_a_gold_answer_eq8_with_evidence_only() -> None:
    def kind(answer: str | None, gold: str | None, evidence: tuple[str, ...]) -> str | None:
        record = ConnerRecord("r", "q?", "k.", answer=answer, gold_answer=gold)
        return Prepared(record, ("k.",), evidence, "record").validity_kind

    assert kind("Paris", "Paris", ("e",)) == "span"
    assert kind("Paris", None, ("e",)) == "open"
    assert kind("Paris", None, ()) is None
    assert kind(None, "Paris", ("e",)) is None
    assert kind("  ", "Paris", ("e",)) is None
    # The NLI inputs: Eq. 7 concatenates (q, a*) as premise and (q, a) as hypothesis.
    record = ConnerRecord("r", "capital of France?", "k.", answer="Paris", gold_answer="Paris.")
    pairs = Prepared(record, ("k.",), ("e1",), "record").nli_pairs()
    assert pairs == [("e1", "k."), ("capital of France? Paris.", "capital of France? Paris")]
    record = ConnerRecord("r", "q", "k.", answer="a")
    assert Prepared(record, ("k.",), ("e1", "e2"), "record").nli_pairs() == [
        ("e1", "k."), ("e2", "k."), ("e1", "a"), ("e2", "a")]
