"""CONNER's sentence-level cohesion of a sample's citations.

Chen et al. 2023 (*Beyond Factuality: A Comprehensive Evaluation of Large Language
Models as Knowledge Generators*, CONNER), §3.3 "Coherence", Eq. 3: for knowledge
k = {s_1, …, s_m} of m sentences,

    S_coh_sent(k) = (1/m) Σ_i 1 / PPL(s_i)

with PPL computed by a GPT-style causal LM. Here k is a sample's citations, each one
sentence s_i (the template verbalizer writes one sentence per citation, CAQA Table 3;
an LLM-written citation is scored as one unit too), and PPL(s_i) =
exp(−mean token log P) of :meth:`scoring.runtime.CausalLM.perplexity`. 1/PPL is the
geometric mean of the tokens' probabilities, in (0, 1]: fluent text scores high.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["sentence_cohesion"]


def sentence_cohesion(perplexities: Sequence[float]) -> float | None:
    """CONNER Eq. 3: the mean of 1/PPL over the sentences' perplexities; ``None`` for
    no sentences. An infinite perplexity (a token of probability 0) adds 0."""
    if not perplexities:
        return None
    return sum(1.0 / p for p in perplexities) / len(perplexities)
