"""``kgbench evaluate BENCH --baseline overlap|length|embed:MODEL_DIR``: what a shortcut
gets on a benchmark.

A small classifier (:mod:`~scoring.evaluate.baselines.logistic`) is fitted on the
train split from one set of surface features (:mod:`~scoring.evaluate.baselines.
features`) and scored on the test split like any evaluator (per-label F1, macro-F1,
micro-F1: :func:`scoring.evaluate.run.evaluate_benchmark`), beside two chance levels
from the train split's label shares:

* ``majority``: every test sample gets the most frequent train label (ties: the
  scheme's order);
* ``random``: each test sample gets a label drawn with the train shares; per-label F1,
  macro-F1 and micro-F1 are the means over :data:`RANDOM_DRAWS` seeded draws (one
  ``numpy`` generator from ``seed``), scored by the same metric functions.

CAQA §6 found evaluators lean on keyword co-occurrence; a benchmark whose labels a
shortcut predicts far above chance measures the shortcut, not attribution. The train
and test splits share no source question (:mod:`extension.core.labels`), so the fit
cannot memorise a question.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, get_args

import numpy as np

from scoring.errors import ScoringError
from scoring.evaluate.baselines.features import (
    FEATURE_NAMES,
    FeatureKind,
    embedding_features,
    length_features,
    overlap_features,
)
from scoring.evaluate.baselines.logistic import BINS, fit_coder, fit_softmax
from scoring.evaluate.benchmark import EvalSample, EvaluationSet, load_evaluation_set
from scoring.evaluate.predictions import Prediction
from scoring.evaluate.report import table_document
from scoring.evaluate.run import EvaluationReport, Progress, evaluate_benchmark
from scoring.evaluate.schemes import LabelScheme

__all__ = ["BASELINE_HINT", "RANDOM_DRAWS", "BaselineSpec", "ShortcutEvaluator",
           "ShortcutReport", "chance_levels", "evaluate_shortcut", "parse_baseline"]

RANDOM_DRAWS = 200
L2 = 1e-2
BASELINE_HINT = ("use --baseline overlap, --baseline length or --baseline embed:MODEL_DIR "
                 "(a model exported with `kgbench model export HF_DIR --task embed`)")


@dataclass(frozen=True)
class BaselineSpec:
    """Which features: ``kind``, and for ``embed`` the exported embed model's directory."""

    kind: FeatureKind
    model: Path | None = None

    @property
    def name(self) -> str:
        return f"embed:{self.model}" if self.model is not None else self.kind


def parse_baseline(text: str) -> BaselineSpec:
    """``overlap``, ``length`` or ``embed:MODEL_DIR`` → a spec; a :class:`ScoringError`
    saying what is accepted otherwise."""
    kind, sep, rest = text.strip().partition(":")
    if kind not in get_args(FeatureKind):
        raise ScoringError(f"--baseline {text!r}: unknown baseline", BASELINE_HINT)
    if kind == "embed":
        if not rest.strip():
            raise ScoringError("--baseline embed needs the embed model's directory: "
                               "embed:MODEL_DIR", BASELINE_HINT)
        return BaselineSpec("embed", Path(rest.strip()))
    if sep:
        raise ScoringError(f"--baseline {text!r}: only embed takes a model directory",
                           BASELINE_HINT)
    return BaselineSpec(cast(FeatureKind, kind))


class ShortcutEvaluator:
    """An :class:`~scoring.evaluate.run.Evaluator` that fits on the benchmark's train
    split when asked to predict its test split (see the module docstring)."""

    def __init__(self, spec: BaselineSpec, scheme: LabelScheme, *, device: str = "auto",
                 threads: int | None = None) -> None:
        self.spec = spec
        self.scheme = scheme
        self.name = f"shortcut ({spec.name})"
        self.embedder = None
        if spec.model is not None:
            from scoring.runtime import Embedder

            self.embedder = Embedder.open(spec.model, device=device,  # type: ignore[arg-type]
                                          threads=threads)
        self.train_labels: list[str] = []
        self.test_samples: Sequence[EvalSample] = ()
        self.fit: dict[str, Any] = {}

    def features(self, samples: Sequence[EvalSample]) -> np.ndarray:
        if self.spec.kind == "overlap":
            return overlap_features(samples)
        if self.spec.kind == "length":
            return length_features(samples)
        if self.embedder is None:
            raise ValueError("an embed baseline without its model")
        return embedding_features(samples, self.embedder.embed)

    def predict(self, evaluation: EvaluationSet,
                progress: Callable[[int], None] | None = None) -> list[Prediction]:
        if evaluation.split != "test":
            raise ScoringError(f"--baseline fits on the train split and is scored on the test "
                               f"split, not on {evaluation.split}",
                               "leave --split out (test)")
        try:
            train = load_evaluation_set(evaluation.source, self.scheme, "train")
        except ScoringError as exc:   # its hint is about evaluating; ours is about fitting
            raise ScoringError(f"--baseline fits on the train split: {exc}",
                               "generate the benchmark with a --test-fraction below 1, so "
                               "that it has train samples") from None
        self.train_labels = [s.gold for s in train.samples]
        self.test_samples = evaluation.samples
        raw_train, raw_test = self.features(train.samples), self.features(evaluation.samples)
        classes = [label for label in self.scheme.labels if label in set(self.train_labels)]
        self.fit = {"train_samples": len(train.samples), "features": list(FEATURE_NAMES[
            self.spec.kind]), "classifier": f"softmax regression, class-balanced, L2 {L2:g}, "
            f"standardised features + {BINS} quantile bins each", "classes": classes}
        if len(classes) < 2:   # nothing to tell apart: the one train label for all
            predicted = classes * len(evaluation.samples)
            self.fit["iterations"] = 0
        else:
            coder = fit_coder(raw_train)
            model = fit_softmax(coder.design(raw_train), self.train_labels, classes, l2=L2)
            predicted = model.predict(coder.design(raw_test))
            self.fit |= {"iterations": model.iterations, "train_loss": round(model.loss, 6)}
        if progress is not None:
            progress(len(evaluation.samples))
        return [Prediction(label) for label in predicted]

    def runtime_json(self) -> dict[str, Any] | None:
        return None if self.embedder is None else dict(self.embedder.runtime.to_json())

    def notes(self) -> list[str]:
        notes = [f"fitted on {self.fit.get('train_samples', 0):,} train samples from "
                 f"{', '.join(self.fit.get('features', []))}"]
        if len(self.fit.get("classes", [])) < 2:
            notes.append("the train split has one label only: the baseline predicts it "
                         "for every sample")
        if self.embedder is not None and self.embedder.truncated:
            notes.append(f"{self.embedder.truncated:,} texts were cut to the embed model's "
                         f"{self.embedder.model.card.max_length} tokens")
        return notes


def _scores(document: dict[str, Any]) -> dict[str, Any]:
    return {"per_label_f1": {label: s["f1"] for label, s in document["per_label"].items()},
            "macro_f1": document["macro_f1"], "micro_f1": document["overall_micro_f1"]}


def chance_levels(samples: Sequence[EvalSample], train_labels: Sequence[str],
                  scheme: LabelScheme, *, seed: int = 0,
                  draws: int = RANDOM_DRAWS) -> dict[str, Any]:
    """The two chance levels of the module docstring for the test ``samples`` given
    the train split's gold labels."""
    counts = Counter(train_labels)
    majority = max(scheme.labels, key=lambda label: (counts[label],
                                                     -scheme.labels.index(label)))
    chance: dict[str, Any] = {
        "majority": {"label": majority,
                     **_scores(table_document(samples, [majority] * len(samples), scheme))}}
    total = sum(counts.values())
    if not total:
        return chance
    shares = np.array([counts[label] / total for label in scheme.labels])
    generator = np.random.default_rng(seed)
    runs = [_scores(table_document(samples, [scheme.labels[i] for i in generator.choice(
        len(shares), size=len(samples), p=shares)], scheme)) for _ in range(draws)]
    chance["random"] = {
        "draws": draws, "seed": seed,
        "per_label_f1": {label: float(np.mean([r["per_label_f1"][label] for r in runs]))
                         for label in scheme.labels},
        "macro_f1": float(np.mean([r["macro_f1"] for r in runs])),
        "micro_f1": float(np.mean([r["micro_f1"] for r in runs]))}
    return chance


@dataclass(frozen=True)
class ShortcutReport:
    """A shortcut baseline's evaluation (the evaluate document) and its ``baseline``
    block: the spec, the fit and the chance levels."""

    report: EvaluationReport
    baseline: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {**self.report.to_json(), "baseline": self.baseline}


def evaluate_shortcut(directory: Path, spec: BaselineSpec, scheme: LabelScheme, *,
                      device: str = "auto", seed: int = 0,
                      progress: Progress | None = None, **options: Any) -> ShortcutReport:
    """Fit and score the shortcut ``spec`` on the benchmark in ``directory`` (test
    split; ``options`` go to :func:`~scoring.evaluate.run.evaluate_benchmark`: blind
    labels, sub-facts, save_predictions)."""
    evaluator = ShortcutEvaluator(spec, scheme, device=device)
    report = evaluate_benchmark(directory, evaluator, scheme, split="test", progress=progress,
                                **options)
    baseline = {"baseline": spec.kind, "model": None if spec.model is None else str(spec.model),
                **evaluator.fit, **_scores(report.document),
                "chance": chance_levels(evaluator.test_samples, evaluator.train_labels, scheme,
                                        seed=seed)}
    return ShortcutReport(report, baseline)
