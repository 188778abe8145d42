"""Sub-fact calls: an evaluator's verdict on each sub-fact of a sample, for CAQA §6.3's
fine-grained evaluation of the partially supportive scenario.

One JSON object per line: ``{"id": SAMPLE_ID, "sub_facts": [true, false, …]}``, one
boolean per sub-fact of the sample, in the order of the sample's ``sub_facts`` (the
triples of the original subgraph G, CAQA §6.3): ``true`` where the evaluator calls the
sub-fact supported by the citation (CAQA Appendix C: an evaluator with more than two
categories counts supportive as True, the others as False). Any subset of the samples
may be given (CAQA used 200 partially supportive ones); lines for samples outside the
evaluation are ignored and counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoring.errors import ScoringError
from scoring.evaluate.benchmark import EvaluationSet
from scoring.evaluate.jsonl import LineError, iter_json_objects, quoted

__all__ = ["SubFactCalls", "read_sub_facts"]

LINE_HINT = ('each line is {"id": SAMPLE_ID, "sub_facts": [true, false, …]}, one boolean '
             "per sub-fact of the sample; fix or remove that line")


@dataclass(frozen=True, slots=True)
class SubFactCalls:
    """The evaluator's calls per sample id (samples of the evaluation only) and the
    lines ignored."""

    path: Path
    calls: dict[str, tuple[bool, ...]]
    ignored: int


def read_sub_facts(path: Path, evaluation: EvaluationSet) -> SubFactCalls:
    """Read the sub-fact calls in ``path`` (see the module docstring). Raises
    :class:`ScoringError` at a bad line (``FILE:LINE``: not JSON, no id, not a list of
    booleans, an id not in the benchmark or given twice, a number of calls other than
    the sample's sub-facts) and for a file with no sample of the evaluation."""
    evaluated = evaluation.index()
    calls: dict[str, tuple[bool, ...]] = {}
    first_line: dict[str, int] = {}
    ignored = 0
    for number, doc in iter_json_objects(path, "sub-facts", LINE_HINT):
        sample_id, given = doc.get("id"), doc.get("sub_facts")
        if not isinstance(sample_id, str) or not sample_id:
            raise LineError(path, number, 'no "id" string (the sample id)', LINE_HINT)
        if not isinstance(given, list) or not all(isinstance(c, bool) for c in given):
            raise LineError(path, number, '"sub_facts" is not a list of true/false', LINE_HINT)
        if sample_id not in evaluation.splits:
            raise LineError(path, number, f"sample id {quoted(sample_id)} is not in the "
                            f"benchmark {evaluation.source}", LINE_HINT)
        if sample_id in first_line:
            raise LineError(path, number, f"sample id {quoted(sample_id)} again (first on "
                            f"line {first_line[sample_id]})", "keep one line per sample")
        first_line[sample_id] = number
        if sample_id not in evaluated:
            ignored += 1
            continue
        expected = len(evaluation.samples[evaluated[sample_id]].sub_facts)
        if len(given) != expected:
            raise LineError(path, number, f"{len(given)} sub-fact calls for sample "
                            f"{quoted(sample_id)}, which has {expected} sub-facts", LINE_HINT)
        calls[sample_id] = tuple(given)
    if not calls:
        raise ScoringError(f"{path}: no line is for a sample of the {evaluation.split} split "
                           f"({ignored:,} for other samples)",
                           "give the sub-fact calls of samples of this split")
    return SubFactCalls(path, calls, ignored)
