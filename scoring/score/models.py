"""The models a ``kgbench score`` run reads: what the use case needs of the runtime's
scorers (:class:`NliModel`, :class:`LanguageModel`), opening them for the right task
(an LM given to ``--nli`` is one line naming the option), and how a model enters the
run's fingerprint."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from scoring.card import CARD_FILE, ModelCard, NliProbabilities, Task, read_card
from scoring.errors import ModelDirError
from scoring.score.workdir import file_sha256

if TYPE_CHECKING:
    from scoring.runtime import RuntimeInfo

__all__ = ["Device", "LanguageModel", "NliModel", "check_task", "model_fingerprint", "open_lm",
           "open_nli"]

Device = Literal["auto", "cpu", "cuda"]


class NliModel(Protocol):
    """What the use case needs of :class:`scoring.runtime.NliScorer`."""

    @property
    def card(self) -> ModelCard: ...
    @property
    def runtime(self) -> RuntimeInfo: ...
    @property
    def truncated_hypotheses(self) -> int: ...

    def score(self, premises: Sequence[str], hypotheses: Sequence[str], *,
              progress: Callable[[int], None] | None = None) -> Sequence[NliProbabilities]: ...


class LanguageModel(Protocol):
    """What the use case needs of :class:`scoring.runtime.CausalLM`."""

    @property
    def card(self) -> ModelCard: ...
    @property
    def runtime(self) -> RuntimeInfo: ...

    def perplexity(self, texts: Sequence[str], *,
                   progress: Callable[[int], None] | None = None) -> list[float]: ...


def check_task(directory: Path, task: Task, option: str) -> ModelCard:
    """The card of ``directory`` when it is a ``task`` model; a one-line
    :class:`ModelDirError` naming ``option`` otherwise (an LM given to --nli)."""
    card = read_card(directory)
    if card.task != task:
        raise ModelDirError(f"{option} {directory}: a model exported for --task {card.task}; "
                            f"{option} needs one exported for --task {task}",
                            f"export one with `kgbench model export HF_DIR --task {task} "
                            f"--out DIR`")
    return card


def open_nli(directory: Path, device: Device, threads: int | None,
              batch_tokens: int) -> NliModel:
    check_task(directory, "nli", "--nli")
    from scoring.runtime import NliScorer  # onnxruntime: only when a run needs it

    scorer: NliModel = NliScorer.open(directory, device=device, threads=threads,
                                      batch_tokens=batch_tokens)
    return scorer


def open_lm(directory: Path, device: Device, threads: int | None,
             batch_tokens: int) -> LanguageModel:
    check_task(directory, "causal-lm", "--lm")
    from scoring.runtime import CausalLM

    model: LanguageModel = CausalLM.open(directory, device=device, threads=threads,
                                         batch_tokens=batch_tokens)
    return model


def model_fingerprint(directory: Path, model: NliModel | LanguageModel) -> dict[str, Any]:
    return {"card_sha256": file_sha256(directory / CARD_FILE),
            "precision": model.runtime.precision}
