"""CONNER's metrics (Chen et al., 2023, §3.3–3.4, Eq. 1–8) as pure functions of what
the scorers return: NLI probability vectors, a cross-encoder logit, perplexities,
a classifier's probabilities and causal-LM log-probabilities. The models are run by
:mod:`scoring.conner.run`; nothing here runs one, so every equation can be checked by
hand (tests/scoring/test_conner_metrics.py).

An NLI vector is ``(entailment, neutral, contradiction)``: a
:class:`scoring.runtime.NliScores` or any 3-sequence in that order. CONNER writes
``NLI(hypothesis, premise)``; here the premise is always the evidence (or the gold
answer) and the hypothesis the text being checked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, NamedTuple

from scoring.card import NliProbabilities
from scoring.score.cohesion import sentence_cohesion

__all__ = ["AGGREGATES", "NON_VERIFIED", "Aggregate", "Factuality", "NliLike", "factuality",
           "helpfulness", "informativeness", "nli_vector", "paragraph_coherence",
           "relevance", "sentence_cohesion", "sentence_factuality", "validity_open",
           "validity_span"]

Aggregate = Literal["min", "mean", "max"]
AGGREGATES: tuple[Aggregate, ...] = ("min", "mean", "max")


NliLike = NliProbabilities | Sequence[float]
"""An NLI result: :class:`scoring.runtime.NliScores` or ``(entail, neutral, contra)``."""


class Factuality(NamedTuple):
    """CONNER's three-dimensional factuality score (§3.3): the entailment, neutral and
    contradiction probabilities read as factual-consistent, non-verified and
    factual-inconsistent."""

    consistent: float
    non_verified: float
    inconsistent: float


NON_VERIFIED = Factuality(0.0, 1.0, 0.0)
"""The factuality of a sentence with no evidence at all: nothing verifies or refutes
it, so it is entirely non-verified (kgbench's reading; the paper always retrieves
evidence)."""


def nli_vector(scores: NliLike) -> Factuality:
    """``scores`` as a :class:`Factuality` (entailment, neutral, contradiction)."""
    if isinstance(scores, Sequence):
        if len(scores) != 3:
            raise ValueError(f"an NLI vector has 3 values (entailment, neutral, "
                             f"contradiction), not {len(scores)}")
        return Factuality(float(scores[0]), float(scores[1]), float(scores[2]))
    return Factuality(float(scores.entailment), float(scores.neutral),
                      float(scores.contradiction))


def sentence_factuality(evidence_nli: Sequence[NliLike]) -> Factuality:
    """CONNER Eq. 1, inner part: ``f(s_i, E_i) = max_j NLI(s_i, e_ij)``, the NLI vector
    of the evidence that best supports sentence ``s_i`` (each item: evidence ``e_ij`` as
    premise, ``s_i`` as hypothesis).

    "max" of vectors is taken along the entailment dimension: the whole vector of the
    evidence with the highest entailment probability is kept (so its three values
    still sum to 1). Ties on entailment go to the vector with the lower contradiction
    (the evidence that refutes less), then to the first. Neutral is never compared: a
    sentence that no evidence entails keeps the neutral and contradiction of its best
    one. No evidence at all: :data:`NON_VERIFIED`."""
    if not evidence_nli:
        return NON_VERIFIED
    vectors = [nli_vector(v) for v in evidence_nli]
    return min(vectors, key=lambda v: (-v.consistent, v.inconsistent))


def factuality(sentence_evidence_nli: Sequence[Sequence[NliLike]],
               aggregate: Aggregate = "min") -> Factuality | None:
    """CONNER Eq. 1: ``S_fact(k, E) = agg_i max_j NLI(s_i, e_ij)``, the knowledge's
    factuality from its sentences' (:func:`sentence_factuality`; one list of NLI
    vectors per sentence, empty for a sentence without evidence).

    The sentences are aggregated "along the entailment dimension" (§3.3) by
    ``aggregate``: ``min`` (the paper's example and the default; the least supported
    sentence's vector, ties to the one with the higher contradiction), ``max`` (the
    best supported sentence's vector, ties to the lower contradiction) or ``mean`` (the
    element-wise mean of the sentence vectors). ``None`` for knowledge without
    sentences."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {', '.join(AGGREGATES)}, not {aggregate!r}")
    per_sentence = [sentence_factuality(evidence) for evidence in sentence_evidence_nli]
    if not per_sentence:
        return None
    if aggregate == "min":
        return min(per_sentence, key=lambda v: (v.consistent, -v.inconsistent))
    if aggregate == "max":
        return min(per_sentence, key=lambda v: (-v.consistent, v.inconsistent))
    m = len(per_sentence)
    return Factuality(*(sum(v[d] for v in per_sentence) / m for d in range(3)))


def relevance(logit: float) -> float:
    """CONNER Eq. 2: ``S_rel(k, q) = Matching(k, q)``, from a cross-encoder's relevance
    logit for (query, knowledge), mapped through the logistic sigmoid so that it is
    the model's probability of "relevant", in [0, 1] as Tables 2–3 report it (for the
    paper's BERT ranker, a 2-way softmax, that is the same number: the softmax of two
    logits is the sigmoid of their difference)."""
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    e = math.exp(logit)
    return e / (1.0 + e)


def paragraph_coherence(probabilities: Sequence[float], coherent_index: int) -> float:
    """CONNER Eq. 4: ``S_coh_para(k) = Score_para(s_1, …, s_m)``, the "normalized score
    of a discourse coherence model": the classifier's probability (a softmax row) of
    its *coherent* label, at ``coherent_index`` of the card's labels, for the
    knowledge read as one text."""
    if not 0 <= coherent_index < len(probabilities):
        raise ValueError(f"label index {coherent_index} outside the classifier's "
                         f"{len(probabilities)} labels")
    return float(probabilities[coherent_index])


def informativeness(token_logprobs: Sequence[float]) -> float | None:
    """CONNER Eq. 5: ``S_info(k, q) = 1 − exp((1/M) Σ_t ln P(k_t | k_<t, q))``, from
    the natural-log probabilities of the knowledge's M tokens given the query and
    the tokens before. Knowledge the LM expects scores near 0, surprising knowledge
    near 1. ``None`` for no tokens (undefined)."""
    if len(token_logprobs) == 0:
        return None
    mean = sum(float(x) for x in token_logprobs) / len(token_logprobs)
    return 1.0 - math.exp(mean)


def helpfulness(logp_with_knowledge: float, logp_with_random: Sequence[float]) -> float | None:
    """CONNER Eq. 6: ``S_help = max(0, 1 − log P(a|q,k) / ((1/u) Σ_i log P(a|q,k_i^-)))``,
    from the log-probability of the answer given the query and the knowledge, and
    given the query and each of ``u`` random other knowledge texts (the baseline).
    The ratio is that of the cross-entropy losses (both are −log P of the same answer
    tokens). 1 when the knowledge makes the answer certain; 0 when it helps no more
    than random knowledge. When the baseline is already certain (mean log P = 0),
    knowledge cannot do better: 0. ``None`` without a baseline (u = 0)."""
    if not logp_with_random:
        return None
    baseline = sum(float(x) for x in logp_with_random) / len(logp_with_random)
    if baseline >= 0.0:
        return 0.0
    return max(0.0, 1.0 - float(logp_with_knowledge) / baseline)


def validity_span(nli: NliLike) -> float:
    """CONNER Eq. 7: ``S_val(q, a*, a) = NLI_fact((q, a), (q, a*))``, the
    factual-consistent (entailment) probability of the NLI vector whose premise is the
    query with the gold answer a* and whose hypothesis is the query with the answer a
    (span answers, e.g. open-domain QA)."""
    return nli_vector(nli).consistent


def validity_open(evidence_nli: Sequence[NliLike]) -> float | None:
    """CONNER Eq. 8: ``S_val(a, E) = max_i NLI_fact(a, e_i)``, the highest
    factual-consistent probability of the answer (hypothesis) against each evidence
    text (premise), for open-ended answers. ``None`` without evidence."""
    if not evidence_nli:
        return None
    return max(nli_vector(v).consistent for v in evidence_nli)
