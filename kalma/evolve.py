"""Knowledge selection of the evolutionary question generation, KaLMA App. A.3 Eq. 1:

    Score_r = α · log(2·N / Count_r) + (1 − α) · softmax(1 / perp_r)

Pure functions of counts and perplexities; :class:`kalma.builder.KalmaBuilder` reads the
counts from the store and the perplexities from the causal-LM scorer.

In kgbench, ``N`` is the number of facts in the store (the sum of
:attr:`kgstore.models.Predicate.count`, the "dataset with size N") and ``Count_r`` the
number of facts with the relation's predicate — for knowledge flattened from a CVT, the
predicate that carries the value (``people.marriage.from`` of "spouse start date").
Frequent relations (gender, date of birth) score low, rare ones, specific to the
person, high, as App. A.3 asks.

The softmax runs over the candidates of one iteration, so the coherence terms of an
iteration sum to 1; with N in the thousands the specificity term (a few units) outweighs
them, and coherence mostly decides between candidates of equal specificity (several
values of one relation). The paper gives no α: kgbench's default is 0.5
(:data:`DEFAULT_ALPHA`), settable. Without a causal LM (no ``--lm``) there is no
perplexity and a candidate's score is its specificity alone; the entry's
``generation`` records which.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["DEFAULT_ALPHA", "best_index", "coherence", "selection_scores", "specificity"]

DEFAULT_ALPHA = 0.5
"""kgbench's α of Eq. 1 (the paper states none): specificity and coherence weighed alike."""


def specificity(count: int, total: int) -> float:
    """App. A.3 Eq. 1's specificity term, IDF-like: ``log(2·N / Count_r)`` with ``N`` =
    ``total`` (facts in the store) and ``Count_r`` = ``count`` (facts with the
    relation's predicate). The 2 keeps it positive for a relation every fact has
    (``log 2``). Raises ``ValueError`` for ``count < 1`` or ``total < count``."""
    if count < 1 or total < count:
        raise ValueError(f"specificity needs 1 <= Count_r <= N, got Count_r={count}, N={total}")
    return math.log(2 * total / count)


def coherence(perplexities: Sequence[float]) -> list[float]:
    """App. A.3 Eq. 1's coherence term: ``softmax(1 / perp_r)`` over the candidates of
    one iteration (``perp_r``: the perplexity of the paragraph so far followed by
    candidate r's templated sentence), "normalized inverse perplexity". A perplexity
    that is NaN or infinite (a text with no tokens) counts as an inverse of 0."""
    if not perplexities:
        return []
    inverse = [1.0 / p if math.isfinite(p) and p > 0 else 0.0 for p in perplexities]
    peak = max(inverse)
    weights = [math.exp(x - peak) for x in inverse]
    total = sum(weights)
    return [w / total for w in weights]


def selection_scores(specificities: Sequence[float], coherences: Sequence[float] | None,
                     alpha: float = DEFAULT_ALPHA) -> list[float]:
    """App. A.3 Eq. 1: ``α · specificity + (1 − α) · coherence`` per candidate. Without
    coherences (no causal LM) the score is the specificity alone, whatever α (scaling
    by α would not change the choice, and the recorded score stays the paper's
    specificity term). Raises ``ValueError`` for α outside [0, 1] or lists of
    different lengths."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if coherences is None:
        return [float(s) for s in specificities]
    if len(coherences) != len(specificities):
        raise ValueError(f"{len(specificities)} specificities but {len(coherences)} coherences")
    return [alpha * s + (1.0 - alpha) * c for s, c in zip(specificities, coherences, strict=True)]


def best_index(scores: Sequence[float], keys: Sequence[object]) -> int:
    """The candidate an iteration adds: the highest score, ties broken by the smallest
    key (so the choice never depends on the order candidates come in). Raises
    ``ValueError`` when there is no candidate."""
    if not scores:
        raise ValueError("no candidate to choose from")
    return min(range(len(scores)), key=lambda i: (-scores[i], keys[i]))
