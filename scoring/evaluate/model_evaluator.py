"""An exported ONNX model as an attribution evaluator (CAQA §5.2: fine-tuned
classifiers, and AutoIS, an NLI model, "used" as an evaluator; AttrScore §3: fine-tuned
evaluators).

``classify`` models (``kgbench model export --task classify``, or ``kgbench model
train``) predict one of their card's labels for (premise, hypothesis) =
(citations, answer statement) (:mod:`scoring.inputs`); each label must be a name the
scheme takes (our four names, CAQA's, or the scheme's own). The prediction is the
label of the highest probability; on a tie, the first of those labels in the card's
order (numpy's argmax).

``nli`` models give entailment / neutral / contradiction probabilities for the same
pair, and the role of the highest one (:attr:`scoring.runtime.NliScores.label`; on a
tie: entailment, neutral, contradiction, in that order) is mapped to a label: by default entailment → supportive, neutral →
irrelevant, contradiction → contradictory, written in the scheme like the gold labels
(so under attrscore: Attributable / Extrapolatory / Contradictory, AttrScore's own
``nli`` task map). An NLI model never says partially supportive: CAQA uses AutoIS the
same way and reports only its F1 on supportive (Appendix C). ``--nli-map ROLE=LABEL``
overrides a role's label (e.g. ``neutral=partially_supportive``).

Under ``--protocol released`` with a four-class scheme, an NLI model stands where CAQA
puts AutoIS (a binary NLI model: 1 entailed, 0 not) and is read as CAQA's released
code reads it (:data:`AUTOIS_MAP`): entailment → supportive, neutral and contradiction
→ irrelevant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np

from extension.core.labels import Label, label_key
from scoring.card import NLI_ROLES, NliRole, read_card
from scoring.errors import ModelDirError, ScoringError
from scoring.evaluate.benchmark import EvaluationSet
from scoring.evaluate.predictions import Prediction
from scoring.evaluate.schemes import LabelNameError, LabelScheme
from scoring.protocol import ProtocolName

__all__ = ["AUTOIS_MAP", "NLI_DEFAULT_MAP", "ModelEvaluator", "nli_label_map"]

NLI_DEFAULT_MAP: Mapping[NliRole, Label] = {
    "entailment": "supportive", "neutral": "irrelevant", "contradiction": "contradictory"}
"""The label of each NLI role before the scheme writes it (see the module docstring)."""
AUTOIS_MAP: Mapping[NliRole, Label] = {
    "entailment": "supportive", "neutral": "irrelevant", "contradiction": "irrelevant"}
"""CAQA's reading of AutoIS (the ``ALCE`` task of its prompt file: 1 → Support, 0 →
Irrelevant), the roles other than entailment being AutoIS's 0: ``--protocol released``
with a four-class scheme."""

Device = Literal["auto", "cpu", "cuda"]


def nli_label_map(scheme: LabelScheme, overrides: Mapping[str, str] | None = None, *,
                  protocol: ProtocolName = "kgbench") -> dict[NliRole, str | None]:
    """NLI role -> label of ``scheme`` (``None``: a label the map drops; that prediction
    counts as unparsed): :data:`NLI_DEFAULT_MAP` (:data:`AUTOIS_MAP` under the released
    protocol with a four-class scheme) written in the scheme, with ``overrides`` (role
    -> any name the scheme takes). Raises :class:`ScoringError` for an unknown role or
    label."""
    defaults = AUTOIS_MAP if protocol == "released" and scheme.name != "attrscore" \
        else NLI_DEFAULT_MAP
    resolved: dict[NliRole, str | None] = {
        role: scheme.gold(label) for role, label in defaults.items()}
    roles = {label_key(role): role for role in NLI_ROLES}
    for source, target in (overrides or {}).items():
        role = roles.get(label_key(source))
        if role is None:
            raise ScoringError(f"--nli-map: {source!r} is not an NLI output",
                               f"map one of {', '.join(NLI_ROLES)}")
        try:
            resolved[role] = scheme.resolve(target)
        except LabelNameError as exc:
            raise ScoringError(f"--nli-map {source}={target}: {exc}", exc.hint) from None
    return resolved


class ModelEvaluator:
    """An exported classify or NLI model directory, opened on the runtime (see the
    module docstring); ``runtime`` says which onnxruntime provider really runs."""

    def __init__(self, directory: Path, scheme: LabelScheme, *,
                 nli_map: Mapping[str, str] | None = None, device: Device = "auto",
                 threads: int | None = None, protocol: ProtocolName = "kgbench") -> None:
        from scoring.runtime import NliScorer, SequenceClassifier

        card = read_card(directory)
        self.directory = directory
        self.scheme = scheme
        self.name = f"{directory.name} ({card.task})"
        self.label_of_role: dict[NliRole, str | None] = {}
        self.label_of_output: list[str | None] = []
        if card.task == "nli":
            self.label_of_role = nli_label_map(scheme, nli_map, protocol=protocol)
            self.nli = NliScorer.open(directory, device=device, threads=threads)
            self.runtime = self.nli.runtime
        elif card.task == "classify":
            if nli_map:
                raise ScoringError(f"--nli-map is for NLI models; {directory} is a classifier",
                                   "leave --nli-map out")
            self.label_of_output = [self._card_label(label) for label in card.labels]
            self.classifier = SequenceClassifier.open(directory, device=device,
                                                      threads=threads)
            self.runtime = self.classifier.runtime
        else:
            raise ModelDirError(f"{directory} holds a {card.task} model, not an evaluator",
                                "pass a model exported with --task classify (four labels) "
                                "or --task nli")
        self.card = card

    def _card_label(self, label: str) -> str | None:
        try:
            return self.scheme.resolve(label)
        except LabelNameError as exc:
            raise ModelDirError(f"{self.directory}: the classifier's label {label!r} is no "
                                f"label of the {self.scheme.name} scheme ({exc})",
                                "export a classifier whose labels are our four (or CAQA's), "
                                "or evaluate with the scheme of its labels") from None

    def predict(self, evaluation: EvaluationSet,
                progress: Callable[[int], None] | None = None) -> list[Prediction]:
        """One prediction per sample of ``evaluation``, in order."""
        premises = [s.premise for s in evaluation.samples]
        hypotheses = [s.hypothesis for s in evaluation.samples]
        if self.card.task == "nli":
            scores = self.nli.score(premises, hypotheses, progress=progress)
            # NliScores.label: the most probable role; ties go to entailment, then
            # neutral, then contradiction.
            return [Prediction(self.label_of_role[s.label]) for s in scores]
        probabilities = self.classifier.probabilities(premises, hypotheses, progress=progress)
        return [Prediction(self.label_of_output[int(i)])
                for i in np.argmax(probabilities, axis=1)]

    def runtime_json(self) -> dict[str, Any] | None:
        """The runtime that really ran (provider, precision, threads, fallback)."""
        return dict(self.runtime.to_json())

    def notes(self) -> list[str]:
        info = self.runtime
        fallback = f" ({info.fallback})" if info.fallback else ""
        return [f"model {self.directory} ran on {info.provider}{fallback}"]
