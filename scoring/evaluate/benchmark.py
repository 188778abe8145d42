"""The samples an evaluation scores: one split of a generated benchmark, with each
sample's gold label in the scheme and the texts an evaluator reads.

Only what the evaluators need is kept per sample (ids, labels, complexity, the model's
premise and hypothesis, the LLM prompt's claim and reference, the sub-facts' support),
not the whole record with its graphs, so a large benchmark fits in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from extension.core.labels import SPLIT_CHOICES, Complexity, Label, Split, SplitChoice
from scoring.errors import ScoringError
from scoring.evaluate.schemes import LabelScheme
from scoring.inputs import hypothesis, premise

__all__ = ["EvalSample", "EvaluationSet", "load_evaluation_set"]


@dataclass(frozen=True, slots=True)
class EvalSample:
    """One sample as the evaluation sees it."""

    id: str
    label: Label
    gold: str
    """``label`` in the scheme."""
    complexity: Complexity
    premise: str
    """What a model reads first: the citations (:func:`scoring.inputs.premise`)."""
    hypothesis: str
    """What must be supported: the answer statement (:func:`scoring.inputs.hypothesis`)."""
    claim: str
    """CAQA's prompt claim: the extended question and the answer statement
    (``Claim: {query} {answer}``, :func:`extension.outputs.export.claim_reference_row`)."""
    reference: str
    """CAQA's prompt reference: the citations, one per line."""
    sub_facts: tuple[bool, ...]
    """Whether each sub-fact of the original subgraph is supported, by construction."""


@dataclass(frozen=True, slots=True)
class EvaluationSet:
    """The samples of ``split`` (in file order) whose label the scheme keeps, the split
    of every sample id of the benchmark (to tell an unknown id from one of another
    split), and how many samples of the split the label map dropped, per label."""

    source: Path
    split: SplitChoice
    samples: tuple[EvalSample, ...]
    splits: Mapping[str, Split]
    dropped: Mapping[Label, int]

    def index(self) -> dict[str, int]:
        """Sample id -> position in :attr:`samples`."""
        return {s.id: i for i, s in enumerate(self.samples)}


def load_evaluation_set(directory: Path, scheme: LabelScheme,
                        split: SplitChoice = "test") -> EvaluationSet:
    """The evaluation set of the benchmark in ``directory`` (its ``samples.jsonl``,
    validated line by line). Raises :class:`ScoringError` when ``directory`` is not a
    benchmark, at a bad line, for a sample id that occurs twice, and when the split has
    no sample to evaluate (a benchmark generated with ``--test-fraction 0`` has no test
    split; a label map may drop every sample)."""
    from extension.outputs.export import (
        ExportError,
        claim_reference_row,
        find_samples_file,
        iter_benchmark_samples,
    )

    if split not in SPLIT_CHOICES:
        raise ScoringError(f"unknown split {split!r}",
                           f"use --split with one of {', '.join(SPLIT_CHOICES)}")
    try:
        path = find_samples_file(directory)
        samples: list[EvalSample] = []
        splits: dict[str, Split] = {}
        in_split: Counter[Split] = Counter()
        dropped: Counter[Label] = Counter()
        for line, sample in enumerate(iter_benchmark_samples(path), 1):
            if sample.id in splits:
                raise ScoringError(f"{path}: sample id {sample.id!r} occurs twice (again "
                                   f"near line {line})",
                                   "regenerate the benchmark with `kgbench generate`")
            splits[sample.id] = sample.split
            in_split[sample.split] += 1
            if split != "all" and sample.split != split:
                continue
            gold = scheme.gold(sample.label)
            if gold is None:
                dropped[sample.label] += 1
                continue
            row = claim_reference_row(sample, gold)
            samples.append(EvalSample(
                id=sample.id, label=sample.label, gold=gold, complexity=sample.complexity,
                premise=premise(sample), hypothesis=hypothesis(sample),
                claim=f"{row['query']} {row['answer']}", reference=row["reference"],
                sub_facts=tuple(f.supported for f in sample.sub_facts)))
    except ExportError as exc:
        raise ScoringError(str(exc), exc.hint) from None
    if not samples:
        counts = ", ".join(f"{in_split[s]:,} {s}" for s in ("train", "test")) or "none"
        if dropped:
            raise ScoringError(f"{path}: --label-map drops every sample of the {split} split",
                               "map fewer labels to drop")
        raise ScoringError(
            f"{directory} has no samples in the {split} split (samples: {counts})",
            "generate the benchmark with a --test-fraction above 0, or evaluate another "
            "split with --split train or --split all")
    return EvaluationSet(path, split, tuple(samples), splits, dict(dropped))
