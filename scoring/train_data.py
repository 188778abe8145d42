"""What fine-tuning reads from a benchmark: the train split's (premise, hypothesis, label)
examples, split by source question into a part to fit and a held-out part for early
stopping, and the numbers the report compares the model with (label counts, the
majority-class baseline).

No torch here: :mod:`scoring.train` does the fitting. The texts are exactly the pair
every other model reads (:mod:`scoring.inputs`), so a classifier is trained on the
strings it will be scored on.

The held-out part is split **by source question** (``source.dataset`` + ``source.qid``),
as the benchmark's own train/test split is (:func:`extension.run.generate.split_of`): the
four samples of one question share the question's answer statement and most of their
citations, so a held-out part that mixed them would reward memorising a question
rather than reading its citations, and would pick a late, overfitted epoch.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from extension.core.labels import LABELS
from extension.outputs.export import ExportError, find_samples_file, iter_benchmark_samples
from extension.outputs.sample_schema import BenchmarkSample
from scoring.errors import ScoringError
from scoring.inputs import hypothesis, premise
from scoring.metrics import confusion_matrix, macro_f1

__all__ = ["MIN_QUESTIONS", "Example", "TrainingSet", "held_out_questions", "held_out_macro_f1",
           "load_training_set", "majority_baseline"]

MIN_QUESTIONS = 2
"""Source questions the train split needs at the least: one to fit on, one held out."""


@dataclass(frozen=True, slots=True)
class Example:
    """One training example: the pair a model reads and the gold label's index."""

    premise: str
    hypothesis: str
    label: int
    question: str
    """The source question's key (``dataset:qid``): examples of one question stay
    on one side of the held-out split."""


@dataclass(frozen=True, slots=True)
class TrainingSet:
    """The train split of one benchmark, divided for early stopping."""

    samples_file: Path
    labels: tuple[str, ...]
    fit: tuple[Example, ...]
    held_out: tuple[Example, ...]
    fit_questions: int
    held_out_questions: int
    test_samples: int
    """Samples of the test split (not read for training; reported so a user sees it)."""

    def label_counts(self, part: Sequence[Example]) -> dict[str, int]:
        counts = Counter(e.label for e in part)
        return {name: counts.get(i, 0) for i, name in enumerate(self.labels)}


def _question_key(sample: BenchmarkSample) -> str:
    return f"{sample.source.dataset}:{sample.source.qid}"


def held_out_questions(questions: Iterable[str], fraction: float, seed: int) -> set[str]:
    """The questions held out: the ``ceil(fraction * n)`` questions (at least one, at most
    ``n - 1``) whose SHA-256 of ``"seed:held-out:question"`` is lowest.

    Seeded and independent of the file's order, like :func:`extension.run.generate.split_of`;
    ranking by the hash rather than thresholding it gives the asked share exactly and
    never an empty side on a small benchmark."""
    unique = sorted(set(questions))
    if len(unique) < MIN_QUESTIONS:
        return set()
    wanted = min(len(unique) - 1, max(1, math.ceil(fraction * len(unique))))
    ranked = sorted(unique, key=lambda q: hashlib.sha256(f"{seed}:held-out:{q}".encode())
                    .digest())
    return set(ranked[:wanted])


def load_training_set(bench_dir: Path, *, held_out_fraction: float, seed: int,
                      labels: Sequence[str] = LABELS) -> TrainingSet:
    """The train split of the benchmark in ``bench_dir`` (its ``samples.jsonl``), divided
    into a part to fit and a held-out part by source question.

    Raises :class:`ScoringError` (one line, what to do) for a directory without
    samples, a bad line, a benchmark without a train split, one with fewer than
    :data:`MIN_QUESTIONS` source questions in it, or one whose train split lacks a label
    (a classifier cannot learn a class it never sees)."""
    try:
        path = find_samples_file(bench_dir)
        samples = list(iter_benchmark_samples(path))
    except ExportError as exc:
        raise ScoringError(str(exc), exc.hint) from None
    index = {name: i for i, name in enumerate(labels)}
    train = [s for s in samples if s.split == "train"]
    test = len(samples) - len(train)
    if not train:
        raise ScoringError(
            f"{path}: no sample in the train split ({test} test samples): nothing to train on",
            "generate the benchmark with a --test-fraction below 1 (the default keeps most "
            "questions for train)")
    questions = {_question_key(s) for s in train}
    if len(questions) < MIN_QUESTIONS:
        raise ScoringError(
            f"{path}: the train split has {len(train)} samples from {len(questions)} source "
            f"question(s); training needs at least {MIN_QUESTIONS} (one to fit, one held "
            "out for early stopping)",
            "generate more questions (e.g. `kgbench generate --domain SPEC --n 200`)")
    present: Counter[str] = Counter(s.label for s in train)
    missing = [label for label in labels if not present.get(label)]
    if missing:
        counts = ", ".join(f"{k} {present.get(k, 0)}" for k in labels)
        raise ScoringError(
            f"{path}: the train split has no {' / '.join(missing)} sample ({counts}): a "
            "classifier cannot learn a label it never sees",
            "generate more questions so that every label occurs in the train split")
    held = held_out_questions(questions, held_out_fraction, seed)
    fit: list[Example] = []
    held_out: list[Example] = []
    for sample in train:
        key = _question_key(sample)
        example = Example(premise(sample), hypothesis(sample), index[sample.label], key)
        (held_out if key in held else fit).append(example)
    return TrainingSet(samples_file=path, labels=tuple(labels), fit=tuple(fit),
                       held_out=tuple(held_out), fit_questions=len(questions) - len(held),
                       held_out_questions=len(held), test_samples=test)


def held_out_macro_f1(gold: Sequence[int], predicted: Sequence[int], labels: Sequence[str]
                      ) -> float:
    """Macro-F1 of label indices (:func:`scoring.metrics.macro_f1`: the mean per-label
    F1 over the labels that occur as gold or prediction, so a model that never predicts
    a minority label scores low)."""
    names = list(labels)
    return macro_f1(confusion_matrix([names[g] for g in gold], [names[p] for p in predicted],
                                     names))


def majority_baseline(fit_counts: Mapping[str, int], labels: Sequence[str],
                      gold: Sequence[int]) -> dict[str, float | str]:
    """What always answering the fit part's most frequent label (ties: the first in
    ``labels``) scores on ``gold``: its accuracy (= micro-F1 for single-label
    predictions) and macro-F1. A classifier that does not beat it has learnt nothing
    from the citations."""
    label = max(labels, key=lambda name: (fit_counts.get(name, 0), -labels.index(name)))
    i = labels.index(label)
    accuracy = sum(g == i for g in gold) / len(gold) if gold else 0.0
    return {"label": label, "accuracy": accuracy,
            "macro_f1": held_out_macro_f1(gold, [i] * len(gold), labels)}

