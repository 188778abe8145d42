"""``flagged.jsonl``: the samples an NLI model doubts, for a person to review or drop.

A sample is flagged when the NLI model's probability of the outcome its gold label
expects (:mod:`scoring.score.consistency`) is below a threshold P, for the sample's own
pair (citations → answer statement) or, for a partially supportive sample, for any of
its sub-facts (citations → sub-fact sentence, CAQA §6.3). Its ``probability`` is the
lowest of those; the file lists the lowest first (ties in ``samples.jsonl`` order), each
with the reasons in words and the sample's text, so that it can be read without opening
the benchmark::

    {"id": …, "label": "supportive", "complexity": …, "split": …, "probability": 0.08,
     "flag_below": 0.5, "reasons": ["P(entailment) = 0.080 < 0.5: the model says
     contradiction, a supportive sample should be entailed"], "question_extended": …,
     "answer": …, "citation": …}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Flag", "check_threshold", "flag_records"]

_EXPECTED_WORDS = {"entailment": "entailment", "contradiction": "contradiction",
                   "not_entailment": "not entailment"}
_SHOULD = {"entailment": "should be entailed", "contradiction": "should be contradicted",
           "not_entailment": "should not be entailed"}


def check_threshold(below: float) -> float:
    """``below`` when it is a probability (a finite number in [0, 1]); ``ValueError``
    saying so otherwise."""
    if not isinstance(below, int | float) or not math.isfinite(below) or not 0 <= below <= 1:
        raise ValueError(f"--flag-below {below!r}: expected a probability between 0 and 1")
    return float(below)


@dataclass(frozen=True, slots=True)
class Flag:
    """A flagged sample: its record, the lowest expected-outcome probability and why."""

    record: Mapping[str, Any]
    probability: float
    reasons: tuple[str, ...]

    def to_json(self, below: float, text: Mapping[str, Any]) -> dict[str, Any]:
        r = self.record
        return {"id": r["id"], "label": r["label"], "complexity": r["complexity"],
                "split": r["split"], "probability": self.probability, "flag_below": below,
                "reasons": list(self.reasons), **text}


def _reason(verdict: Mapping[str, Any], below: float, subject: str) -> str:
    expected = verdict["expected"]
    return (f"P({_EXPECTED_WORDS[expected]}) = {verdict['p_expected']:.3f} < {below:g}: "
            f"the model says {verdict['predicted']}, {subject} {_SHOULD[expected]}")


def flag_records(records: Iterable[Mapping[str, Any]], below: float) -> list[Flag]:
    """The flagged samples among ``scores.jsonl`` records (see the module docstring),
    lowest probability first, ties in input order. Records without NLI scores are
    never flagged."""
    flags: list[Flag] = []
    for record in records:
        nli = record.get("nli")
        if not nli:
            continue
        reasons: list[str] = []
        lowest = nli["p_expected"]
        if nli["p_expected"] < below:
            label = record["label"].replace("_", " ")
            reasons.append(_reason(nli, below, f"a {label} sample"))
        for fact in record.get("sub_facts") or ():
            lowest = min(lowest, fact["p_expected"])
            if fact["p_expected"] < below:
                kind = "supported" if fact["supported"] else "unsupported"
                reasons.append(_reason(fact, below, f"sub-fact {fact['index'] + 1} ({kind})"))
        if reasons:
            flags.append(Flag(record, lowest, tuple(reasons)))
    flags.sort(key=lambda flag: flag.probability)   # stable: ties keep the file's order
    return flags
