"""One line of ``scores.jsonl``: a sample's model scores, with the label-consistency
verdicts of :mod:`scoring.score.consistency`.

::

    {"id": "q1:supportive", "label": "supportive", "complexity": "single", "split": "test",
     "nli": {"entailment": 0.91, "neutral": 0.06, "contradiction": 0.03,
             "predicted": "entailment", "expected": "entailment", "p_expected": 0.91,
             "consistent": true},
     "sub_facts": [{"index": 0, "supported": true, "entailment": …, "neutral": …,
                    "contradiction": …, "predicted": …, "expected": "entailment",
                    "p_expected": …, "consistent": …}, …],
     "lm": {"perplexities": [23.1, 40.7], "cohesion": 0.0339}}

``nli`` is there when the run had an NLI model, ``sub_facts`` (one per sub-fact of G, in
the sample's order) for partially supportive samples of such a run, ``lm`` (one
perplexity per citation, and CONNER's sentence cohesion, :mod:`scoring.score.cohesion`)
when it had a causal LM. Probabilities are rounded to :data:`DIGITS` decimals (the
outcome is decided before rounding), perplexities and cohesion to as many significant
digits, so the file reads well and does not carry float32 noise as if it were signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from extension.outputs.sample_schema import BenchmarkSample
from scoring.card import NLI_ROLES, NliProbabilities, NliRole
from scoring.score.cohesion import sentence_cohesion
from scoring.score.consistency import (
    Expected,
    agrees,
    expected_outcome,
    expected_probability,
    predicted_role,
    sub_fact_expected,
)

__all__ = ["DIGITS", "nli_verdict", "score_record", "significant"]

DIGITS = 6


def nli_verdict(scores: NliProbabilities, expected: Expected) -> dict[str, Any]:
    """The probabilities, the model's outcome, the ``expected`` outcome, its
    probability and whether the two agree."""
    probabilities: dict[NliRole, float] = {role: float(getattr(scores, role))
                                           for role in NLI_ROLES}
    predicted = predicted_role(probabilities)
    return {**{role: round(p, DIGITS) for role, p in probabilities.items()},
            "predicted": predicted, "expected": expected,
            "p_expected": round(expected_probability(expected, probabilities), DIGITS),
            "consistent": agrees(expected, predicted)}


def score_record(sample: BenchmarkSample, *, nli: NliProbabilities | None = None,
                 sub_facts: Sequence[NliProbabilities] = (),
                 perplexities: Sequence[float] | None = None) -> dict[str, Any]:
    """The ``scores.jsonl`` record of ``sample`` (see the module docstring): ``nli``
    for its citations → answer statement, ``sub_facts`` for its citations → each
    sub-fact sentence (a partially supportive sample: as many as it has sub-facts),
    ``perplexities`` one per citation."""
    record: dict[str, Any] = {"id": sample.id, "label": sample.label,
                              "complexity": sample.complexity, "split": sample.split}
    if nli is not None:
        record["nli"] = nli_verdict(nli, expected_outcome(sample.label))
        if sample.label == "partially_supportive":
            if len(sub_facts) != len(sample.sub_facts):
                raise ValueError(f"{sample.id}: {len(sub_facts)} sub-fact scores for "
                                 f"{len(sample.sub_facts)} sub-facts")
            record["sub_facts"] = [
                {"index": i, "supported": fact.supported,
                 **nli_verdict(scores, sub_fact_expected(fact.supported))}
                for i, (fact, scores) in enumerate(zip(sample.sub_facts, sub_facts, strict=True))]
    if perplexities is not None:
        cohesion = sentence_cohesion(perplexities)
        record["lm"] = {"perplexities": [significant(p) for p in perplexities],
                        "cohesion": significant(cohesion) if cohesion is not None else None}
    return record


def significant(value: float) -> float:
    """``value`` to :data:`DIGITS` significant digits (a perplexity runs from 1 to
    thousands, a cohesion down to 0.001: fixed decimals would drop the small ones'
    digits)."""
    return float(f"{float(value):.{DIGITS}g}")
