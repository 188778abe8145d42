"""The ``kgbench evaluate`` use case: run or read an evaluator on a split of a benchmark
and score it (:func:`evaluate_benchmark`).

Evaluators (:class:`Evaluator`): a predictions file (:class:`PredictionsFileEvaluator`),
an exported model (:class:`~scoring.evaluate.model_evaluator.ModelEvaluator`) or an LLM
(:class:`~scoring.evaluate.llm_evaluator.LLMEvaluator`). Each gives one prediction per
sample; the report (:mod:`scoring.evaluate.report`) scores them against the gold labels
written in the scheme.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from extension.core.labels import SplitChoice
from scoring.errors import ScoringError
from scoring.evaluate.benchmark import EvaluationSet, load_evaluation_set
from scoring.evaluate.blind import read_blind_labels
from scoring.evaluate.predictions import (
    Prediction,
    read_predictions,
    write_predictions,
)
from scoring.evaluate.protocol_released import released_table_document
from scoring.evaluate.report import consistency, fine_grained, table_document
from scoring.evaluate.schemes import LabelScheme
from scoring.evaluate.subfacts import read_sub_facts
from scoring.protocol import PROTOCOL_KEY, ProtocolName, json_safe

__all__ = ["EvaluationReport", "Evaluator", "PredictionsFileEvaluator", "evaluate_benchmark"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``: samples predicted so far, of ``total``."""


class Evaluator(Protocol):
    """Something that labels the samples of an evaluation."""

    name: str

    def predict(self, evaluation: EvaluationSet,
                progress: Callable[[int], None] | None = None) -> list[Prediction]:
        """One prediction per sample, in order; ``progress(k)`` after each ``k`` more."""
        ...

    def runtime_json(self) -> dict[str, Any] | None:
        """The local runtime that ran (a model's), or None."""
        ...

    def notes(self) -> list[str]:
        """Lines worth telling the user after a run."""
        ...


class PredictionsFileEvaluator:
    """The predictions of a file (:func:`~scoring.evaluate.predictions.read_predictions`),
    scored under ``protocol``: a note says when the file's LLM replies were read under
    another (its labels are kept as they are)."""

    def __init__(self, path: Path, scheme: LabelScheme,
                 protocol: ProtocolName = "kgbench") -> None:
        self.path = path
        self.scheme = scheme
        self.protocol = protocol
        self.name = path.name
        self.ignored = 0
        self.read_as: frozenset[str] = frozenset()

    def predict(self, evaluation: EvaluationSet,
                progress: Callable[[int], None] | None = None) -> list[Prediction]:
        read = read_predictions(self.path, self.scheme, evaluation)
        self.ignored = read.ignored
        self.read_as = read.read_as
        return read.in_order([s.id for s in evaluation.samples])

    def runtime_json(self) -> dict[str, Any] | None:
        return None

    def notes(self) -> list[str]:
        notes = []
        if self.ignored:
            notes.append(f"ignored {self.ignored:,} predictions of {self.path} for samples "
                         "outside the evaluation (another split, or a label --label-map "
                         "drops)")
        other = sorted(self.read_as - {self.protocol})
        if other:
            notes.append(f"the LLM replies in {self.path} were read into labels under the "
                         f"{' and '.join(other)} protocol; those labels are scored as they "
                         f"are. To read the replies as --protocol {self.protocol} does, rerun "
                         "the LLM evaluator with it (its replies come from the cache)")
        return notes


@dataclass(frozen=True, slots=True)
class EvaluationReport:
    """What an evaluation found: the document (:mod:`scoring.evaluate.report`), the
    extras its options asked for, and what to tell the user."""

    evaluator: str
    scheme: LabelScheme
    split: SplitChoice
    source: Path
    document: dict[str, Any]
    protocol: ProtocolName = "kgbench"
    consistency: dict[str, Any] | None = None
    fine_grained: dict[str, Any] | None = None
    runtime: dict[str, Any] | None = None
    saved: Path | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """``protocol`` and the document (NaN written as ``null``), plus
        ``consistency``, ``fine_grained`` and ``runtime`` only where the options asked
        for them (``--blind-labels``, ``--sub-facts``, ``--model``)."""
        extras = {"consistency": self.consistency, "fine_grained": self.fine_grained,
                  "runtime": self.runtime}
        return json_safe({PROTOCOL_KEY: self.protocol, **self.document,
                          **{k: v for k, v in extras.items() if v is not None}})


def evaluate_benchmark(directory: Path, evaluator: Evaluator, scheme: LabelScheme, *,
                       split: SplitChoice = "test", blind_labels: Path | None = None,
                       blind_column: str | None = None, compare: Sequence[Path] = (),
                       sub_facts: Path | None = None, save_predictions: Path | None = None,
                       protocol: ProtocolName = "kgbench",
                       progress: Progress | None = None) -> EvaluationReport:
    """Evaluate ``evaluator`` on ``split`` of the benchmark in ``directory``.

    ``save_predictions`` writes the predictions (with an LLM's replies) as a predictions
    file, atomically, before scoring, so the run can be scored again with
    ``--predictions``. ``blind_labels`` adds CAQA §6.2's consistency block over
    ``evaluator`` and the predictions files ``compare`` (each must predict every
    blind-labelled sample); ``sub_facts`` adds §6.3's FActScore block. The input files
    are read before the evaluator runs, so a bad one fails before an LLM is asked
    anything. ``protocol`` chooses the definitions of the table's numbers
    (:mod:`scoring.protocol`: kgbench's, :mod:`scoring.evaluate.report`, or the released
    code's, :mod:`scoring.evaluate.protocol_released`); the §6.2 and §6.3 blocks have
    no released code and follow kgbench's definitions under both. Raises
    :class:`~scoring.errors.ScoringError` for bad input."""
    if compare and blind_labels is None:
        raise ScoringError("--compare needs --blind-labels (it compares evaluators on "
                           "generated and blind labels, CAQA §6.2)",
                           "add --blind-labels FILE, or leave --compare out")
    evaluation = load_evaluation_set(directory, scheme, split)
    notes: list[str] = []
    if evaluation.dropped:
        notes.append(f"--label-map left out {sum(evaluation.dropped.values()):,} samples "
                     f"({', '.join(f'{k} {v:,}' for k, v in evaluation.dropped.items())})")
    blind = None
    others: dict[str, dict[str, str | None]] = {}
    if blind_labels is not None:
        blind = read_blind_labels(blind_labels, scheme, evaluation, column=blind_column)
        for path in compare:
            read = read_predictions(path, scheme, evaluation, required=blind.labels)
            others[str(path)] = read.labels
        if blind.ignored:
            notes.append(f"{blind.ignored:,} blind labels are for samples outside the "
                         "evaluation (other benchmarks or splits) and were ignored")
    calls = read_sub_facts(sub_facts, evaluation) if sub_facts is not None else None

    total = len(evaluation.samples)
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    predictions = evaluator.predict(evaluation, advance)
    if len(predictions) != total:
        raise RuntimeError(f"{evaluator.name} gave {len(predictions)} predictions for "
                           f"{total} samples")
    ids = [s.id for s in evaluation.samples]
    if save_predictions is not None:
        write_predictions(save_predictions, ids, predictions, protocol=protocol)
    labels = [p.label for p in predictions]
    report_consistency = None
    if blind is not None:
        evaluators = {evaluator.name: dict(zip(ids, labels, strict=True)), **others}
        report_consistency = consistency(evaluation.samples, blind, evaluators, scheme)
    document = (released_table_document if protocol == "released" else table_document)(
        evaluation.samples, labels, scheme)
    return EvaluationReport(
        evaluator=evaluator.name, scheme=scheme, split=split, source=evaluation.source,
        document=document, protocol=protocol,
        consistency=report_consistency,
        fine_grained=fine_grained(evaluation.samples, calls) if calls is not None else None,
        runtime=evaluator.runtime_json(), saved=save_predictions,
        notes=tuple([*notes, *evaluator.notes()]))
