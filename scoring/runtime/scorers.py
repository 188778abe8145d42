"""Scorers of one text or one pair → a few logits: NLI, sequence classification and
cross-encoder relevance, each a small class over :class:`OnnxTextModel`.

Probabilities are a softmax computed in float64 from the graph's float32 or fp16 logits
(an fp16 graph's logits have 3 significant digits; the softmax itself should not lose
more). Every batch method returns its results in input order whatever the batching, and
calls ``progress(n)`` with the number of inputs finished since the last call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Self

import numpy as np

from scoring.card import NLI_ROLES, ModelCard, NliRole, Task
from scoring.errors import ModelDirError, ScoringError
from scoring.runtime.session import Device, OnnxTextModel, RuntimeInfo
from scoring.runtime.tokenize import Encodings

__all__ = ["CrossEncoder", "NliScorer", "NliScores", "SequenceClassifier", "TaskModel", "open_for_task",
           "softmax64"]

Progress = Callable[[int], None]


def softmax64(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64, shifted by each row's maximum (no overflow)."""
    x = np.asarray(logits, dtype=np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


def open_for_task(directory: Path, task: Task, *, device: Device, threads: int | None,
                  batch_tokens: int) -> OnnxTextModel:
    """Open ``directory`` and refuse a card of another task (the scorer needs ``task``)."""
    model = OnnxTextModel.open(directory, device=device, threads=threads,
                               batch_tokens=batch_tokens)
    check_task(model, task)
    return model


def check_task(model: OnnxTextModel, task: Task) -> None:
    if model.card.task != task:
        raise ModelDirError(f"{model.directory}: a {model.card.task} model, this needs a "
                            f"{task} model",
                            f"export a checkpoint with `kgbench model export HF_DIR --task "
                            f"{task}`")


class TaskModel:
    """What every scorer over an exported model shares: a model of its ``task``
    (checked), :meth:`open`, the model's card and where it runs."""

    task: Task

    def __init__(self, model: OnnxTextModel) -> None:
        check_task(model, self.task)
        self.model = model

    @classmethod
    def open(cls, directory: Path, *, device: Device = "auto", threads: int | None = None,
             batch_tokens: int = 16384) -> Self:
        return cls(open_for_task(directory, cls.task, device=device, threads=threads,
                                 batch_tokens=batch_tokens))

    @property
    def card(self) -> ModelCard:
        return self.model.card

    @property
    def runtime(self) -> RuntimeInfo:
        return self.model.runtime


class _PairScorer(TaskModel):
    """What the three pair scorers share: the pair encoding that keeps one side whole,
    and the count of inputs whose kept side had to be cut."""

    keep: Literal["first", "second"] = "second"

    def __init__(self, model: OnnxTextModel) -> None:
        super().__init__(model)
        self.truncated_hypotheses = 0
        """Pairs whose kept side (an NLI hypothesis) alone exceeded max_length and was
        cut at its end, over this scorer's life."""

    def _encode(self, firsts: Sequence[str], seconds: Sequence[str] | None) -> Encodings:
        tok = self.model.tokenizer
        if seconds is None:
            return tok.encode_texts(firsts)
        encodings = tok.encode_pairs(firsts, seconds, keep=self.keep)
        self.truncated_hypotheses += encodings.cut
        return encodings

    def _logits(self, firsts: Sequence[str], seconds: Sequence[str] | None,
                progress: Progress | None) -> np.ndarray:
        """float64 ``[n, n_logits]``, rows in input order."""
        rows = self.model.map_chunks(
            len(firsts),
            lambda a, b: self._encode(firsts[a:b], None if seconds is None else seconds[a:b]),
            lambda _chunk, logits, _rows: list(np.asarray(logits, dtype=np.float64)),
            progress=progress)
        width = len(self.model.card.labels)
        return np.stack(rows) if rows else np.zeros((0, width), dtype=np.float64)


@dataclass(frozen=True)
class NliScores:
    """Softmax probabilities that the premise entails, is neutral to, or contradicts
    the hypothesis (neutral is 0.0 for a 2-way model)."""

    entailment: float
    neutral: float
    contradiction: float

    @property
    def label(self) -> NliRole:
        """The most probable role (ties: entailment, then neutral, then contradiction)."""
        scores = (self.entailment, self.neutral, self.contradiction)
        return NLI_ROLES[scores.index(max(scores))]


class NliScorer(_PairScorer):
    """Premise → hypothesis entailment. The premise is cut to fit, never the hypothesis
    (see :mod:`scoring.runtime.tokenize`); the card's ``nli_roles`` say which logit is
    which role, whatever order the checkpoint used."""

    task: Task = "nli"

    def score(self, premises: Sequence[str], hypotheses: Sequence[str], *,
              progress: Progress | None = None) -> list[NliScores]:
        if len(premises) != len(hypotheses):
            raise ScoringError(f"{len(premises)} premises but {len(hypotheses)} hypotheses",
                               "pass one premise for each hypothesis")
        probs = softmax64(self._logits(premises, hypotheses, progress))
        roles = self.model.card.nli_roles or {}

        def role(row: np.ndarray, name: NliRole) -> float:
            return float(row[roles[name]]) if name in roles else 0.0

        return [NliScores(role(r, "entailment"), role(r, "neutral"), role(r, "contradiction"))
                for r in probs]


class SequenceClassifier(_PairScorer):
    """A text (or a (text, pair) couple, the pair kept whole like an NLI hypothesis) →
    probabilities over the card's labels, e.g. CAQA's four attribution labels."""

    task: Task = "classify"

    @property
    def labels(self) -> tuple[str, ...]:
        return self.model.card.labels

    def probabilities(self, texts: Sequence[str], pairs: Sequence[str] | None = None, *,
                      progress: Progress | None = None) -> np.ndarray:
        """float64 ``[n, len(card.labels)]``, columns in the card's label order."""
        if pairs is not None and len(pairs) != len(texts):
            raise ScoringError(f"{len(texts)} texts but {len(pairs)} pair texts",
                               "pass one pair text for each text, or none")
        return softmax64(self._logits(texts, pairs, progress))

    def predict(self, texts: Sequence[str], pairs: Sequence[str] | None = None, *,
                progress: Progress | None = None) -> list[str]:
        """The most probable label of each input (ties: the first in the card's order)."""
        probs = self.probabilities(texts, pairs, progress=progress)
        return [self.labels[int(i)] for i in probs.argmax(axis=1)] if len(probs) else []


class CrossEncoder(_PairScorer):
    """(query, passage) → one relevance logit (higher = more relevant), as a
    cross-encoder reranker is trained (a two-logit monoBERT is exported as relevant
    minus not relevant: :mod:`scoring.export.graph`). Unlike NLI, the *passage* is cut to fit and the query kept whole (a reranker must
    read the whole question; passages are the long side); a query that alone exceeds
    max_length is cut and counted in ``truncated_hypotheses``. With
    ``longest_first_max`` set, pairs are truncated as a Hugging Face tokenizer's
    ``truncation=True`` does instead, to that many tokens (what CONNER's released
    ``relevance.py`` reads)."""

    task: Task = "rerank"
    keep: Literal["first", "second"] = "first"

    def __init__(self, model: OnnxTextModel) -> None:
        super().__init__(model)
        if len(model.card.labels) != 1:
            raise ModelDirError(f"{model.directory}: a rerank model with "
                                f"{len(model.card.labels)} logits; a cross-encoder gives one "
                                f"relevance logit",
                                "export a cross-encoder checkpoint with num_labels 1")
        self.longest_first_max: int | None = None

    def _encode(self, firsts: Sequence[str], seconds: Sequence[str] | None) -> Encodings:
        if self.longest_first_max is None or seconds is None:
            return super()._encode(firsts, seconds)
        return self.model.tokenizer.encode_pairs_longest_first(firsts, seconds,
                                                               self.longest_first_max)

    def score(self, queries: Sequence[str], passages: Sequence[str], *,
              progress: Progress | None = None) -> list[float]:
        if len(queries) != len(passages):
            raise ScoringError(f"{len(queries)} queries but {len(passages)} passages",
                               "pass one query for each passage")
        return [float(row[0]) for row in self._logits(queries, passages, progress)]
