"""Predictions files: what an evaluator answered for each sample, read to be scored and
written so that a run (an LLM's, a model's) can be scored again without rerunning it.

One JSON object per line: ``{"id": SAMPLE_ID, "label": LABEL}``. ``LABEL`` is a name
the scheme takes (:meth:`~scoring.evaluate.schemes.LabelScheme.resolve`), or ``null``
for an evaluator reply that named no label (counted as unparsed). Other keys are
ignored; the files this module writes add ``"reply"``, the LLM's raw text, and
``"protocol"``, the reading of the reply that gave the label (``kgbench`` or
``released``, :mod:`scoring.protocol`).

Every sample of the evaluated split needs exactly one prediction: a missing id is an
error (listing how many and the first few), as are an id that is not in the benchmark,
an id given twice, an unknown label and a malformed line (each naming ``FILE:LINE``).
Predictions for samples outside the evaluation (another split, or a label the label map
drops) are ignored and counted, so one file can serve ``--split test`` and ``--split
all``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.errors import ScoringError
from scoring.evaluate.benchmark import EvaluationSet
from scoring.evaluate.jsonl import LineError, iter_json_objects, quoted
from scoring.evaluate.schemes import LabelNameError, LabelScheme

__all__ = ["Prediction", "PredictionsFile", "read_predictions", "write_predictions"]

LINE_HINT = ('each line is {"id": SAMPLE_ID, "label": LABEL} (label null: the evaluator '
             "named no label); fix or remove that line")
SHOWN_MISSING = 5
"""How many missing ids an error lists."""


@dataclass(frozen=True, slots=True)
class Prediction:
    """An evaluator's answer for one sample: a label of the scheme, or ``None``
    (unparsed), and the raw reply it came from when there is one (an LLM's)."""

    label: str | None
    reply: str | None = None


@dataclass(frozen=True, slots=True)
class PredictionsFile:
    """The predictions of a file for the samples of an evaluation, by sample id, how
    many lines were for samples outside it (ignored), and the protocols its LLM replies
    were read under (the lines' ``protocol``)."""

    path: Path
    labels: dict[str, str | None]
    ignored: int
    read_as: frozenset[str] = frozenset()

    def in_order(self, ids: Sequence[str]) -> list[Prediction]:
        """The predictions of ``ids``, in that order."""
        return [Prediction(self.labels[i]) for i in ids]


def read_predictions(path: Path, scheme: LabelScheme, evaluation: EvaluationSet, *,
                     required: Collection[str] | None = None) -> PredictionsFile:
    """Read the predictions file ``path`` for ``evaluation`` (see the module docstring).

    ``required`` are the sample ids that must have a prediction (default: every sample
    of the evaluation). Raises :class:`ScoringError` (``FILE:LINE: reason`` for a bad
    line)."""
    evaluated = evaluation.index()
    labels: dict[str, str | None] = {}
    first_line: dict[str, int] = {}
    ignored = 0
    read_as: set[str] = set()
    for number, doc in iter_json_objects(path, "predictions", LINE_HINT):
        if isinstance(doc.get("protocol"), str):
            read_as.add(doc["protocol"])
        sample_id = doc.get("id")
        if not isinstance(sample_id, str) or not sample_id:
            raise LineError(path, number, 'no "id" string (the sample id)', LINE_HINT)
        if "label" not in doc:
            raise LineError(path, number, 'no "label"', LINE_HINT)
        name = doc["label"]
        if name is not None and not isinstance(name, str):
            raise LineError(path, number, f"label {quoted(name)} is not a string or null",
                            LINE_HINT)
        if sample_id not in evaluation.splits:
            raise LineError(path, number, f"sample id {quoted(sample_id)} is not in the "
                            f"benchmark {evaluation.source}",
                            "predict the samples of this benchmark (ids from its "
                            "samples.jsonl), or pass the benchmark the predictions are for")
        if sample_id in first_line:
            raise LineError(path, number, f"sample id {quoted(sample_id)} again (first on "
                            f"line {first_line[sample_id]})", "keep one prediction per sample")
        first_line[sample_id] = number
        try:
            label = None if name is None else scheme.resolve(name)
        except LabelNameError as exc:
            raise LineError(path, number, str(exc), exc.hint) from None
        if sample_id not in evaluated:
            ignored += 1
            continue
        labels[sample_id] = label
    needed = evaluated if required is None else required
    missing = [i for i in needed if i not in labels]
    if missing:
        shown = ", ".join(quoted(i) for i in missing[:SHOWN_MISSING])
        more = ", …" if len(missing) > SHOWN_MISSING else ""
        raise ScoringError(
            f"{path}: no prediction for {len(missing):,} of {len(needed):,} samples of the "
            f"{evaluation.split} split (first: {shown}{more})",
            "predict every sample of the split (ids from the benchmark's samples.jsonl), "
            "or evaluate another --split")
    return PredictionsFile(path, labels, ignored, frozenset(read_as))


def write_predictions(path: Path, ids: Sequence[str], predictions: Sequence[Prediction], *,
                      protocol: str | None = None) -> Path:
    """Write ``{"id", "label"}`` (plus ``"reply"`` when there is one, and ``"protocol"``,
    the reading of the reply that gave the label, when given) per sample to ``path``,
    atomically (``path.part``, renamed when complete); the file :func:`read_predictions`
    reads back to the same labels."""
    from extension.outputs.output_file import atomic_output

    if len(ids) != len(predictions):
        raise ValueError(f"{len(ids)} ids but {len(predictions)} predictions")
    with atomic_output(path, option="--save-predictions") as stream:
        for sample_id, prediction in zip(ids, predictions, strict=True):
            record: dict[str, str | None] = {"id": sample_id, "label": prediction.label}
            if prediction.reply is not None:
                record["reply"] = prediction.reply
                if protocol is not None:
                    record["protocol"] = protocol
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path
