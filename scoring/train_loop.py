"""The fine-tuning loop: a plain torch loop over a Hugging Face sequence classifier.

Not transformers' ``Trainer``: it needs ``accelerate``, which the export extra does not
install (and a loop this size does not need). What the loop does, and why:

* **AdamW** with weight decay on the weight matrices only (not on biases and LayerNorm
  gains, the usual BERT recipe), a **linear warmup** over the first 10 % of steps and a
  linear decay to zero, and **gradient clipping** at norm 1: the settings fine-tuning
  recipes for BERT/RoBERTa/DeBERTa share, stable at 1e-5 … 5e-5.
* **Dynamic padding**: each batch is padded to its longest pair, not to ``max_length``,
  and batches are drawn from windows of similar lengths (:func:`_bucketed_order`).
* **Determinism**: one seed drives the weights of a new head, dropout and the order of
  batches (``torch.Generator`` per epoch); on CUDA also
  ``torch.use_deterministic_algorithms`` (warn only, so an operation without a
  deterministic kernel still runs) and ``CUBLAS_WORKSPACE_CONFIG``. On one machine
  (and thread count) the same seed gives the same losses.
* **Mixed precision only on CUDA**: bf16 autocast where the GPU has it (no loss
  scaling needed), fp16 with a gradient scaler otherwise; fp32 on CPU, where autocast
  gains nothing for these models.

torch is imported inside the functions: :mod:`scoring` must load without it.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from scoring.errors import ScoringError
from scoring.train_data import held_out_macro_f1

if TYPE_CHECKING:
    import torch

__all__ = ["Batch", "EpochResult", "Evaluation", "LoopSettings", "deterministic", "fit",
           "evaluate", "pick_device"]

WARMUP_FRACTION = 0.1
WEIGHT_DECAY = 0.01
MAX_GRAD_NORM = 1.0
BUCKET_BATCHES = 32

Device = Literal["auto", "cpu", "cuda"]


@dataclass(frozen=True, slots=True)
class Batch:
    """Token ids of some examples, not yet padded (``token_type_ids`` empty when the
    model takes none), and their gold label indices."""

    input_ids: Sequence[Sequence[int]]
    token_type_ids: Sequence[Sequence[int]]
    labels: Sequence[int]


@dataclass(frozen=True, slots=True)
class LoopSettings:
    labels: tuple[str, ...]
    """The label names, in logit order."""
    epochs: int
    learning_rate: float
    batch_size: int
    patience: int
    seed: int


@dataclass(frozen=True, slots=True)
class Evaluation:
    loss: float
    macro_f1: float
    accuracy: float


@dataclass(frozen=True, slots=True)
class EpochResult:
    epoch: int
    train_loss: float
    held_out: Evaluation
    seconds: float
    best: bool


def pick_device(device: Device) -> tuple[str, str | None]:
    """``(torch device, autocast dtype name or None)`` for ``device``: CUDA when asked
    or (``auto``) when torch sees a GPU; bf16 autocast where the GPU supports it, fp16
    otherwise; no autocast on CPU. Asking for ``cuda`` without one is an error."""
    import torch

    has_cuda = torch.cuda.is_available()
    if device == "cuda" and not has_cuda:
        raise ScoringError("--device cuda: torch sees no CUDA device",
                           "run on a machine with a GPU and a CUDA build of torch, or use "
                           "--device cpu")
    if device == "cpu" or not has_cuda:
        return "cpu", None
    return "cuda", "bf16" if torch.cuda.is_bf16_supported() else "fp16"


@contextmanager
def deterministic(seed: int, *, cuda: bool) -> Iterator[None]:
    """Seed Python's and torch's generators for the block; on CUDA also make torch use
    deterministic kernels (warn only) and fix cuBLAS's workspace, restoring the previous
    setting after the block. On the CPU the kernels these models use are deterministic
    already, and switching the mode on would import torch's compiler stack (seconds)."""
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    if not cuda:
        yield
        return
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    enabled = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)


def _tensors(batch: Batch, pad_id: int, device: str) -> tuple[dict[str, torch.Tensor],
                                                              torch.Tensor]:
    """Pad ``batch`` to its longest example (dynamic padding)."""
    import torch

    width = max(len(ids) for ids in batch.input_ids)
    n = len(batch.input_ids)
    ids = torch.full((n, width), pad_id, dtype=torch.long)
    mask = torch.zeros((n, width), dtype=torch.long)
    types = torch.zeros((n, width), dtype=torch.long)
    for row, seq in enumerate(batch.input_ids):
        ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, :len(seq)] = 1
        if batch.token_type_ids:
            types[row, :len(seq)] = torch.tensor(batch.token_type_ids[row], dtype=torch.long)
    inputs = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
    if batch.token_type_ids:
        inputs["token_type_ids"] = types.to(device)
    return inputs, torch.tensor(list(batch.labels), dtype=torch.long, device=device)


def _autocast(device: str, dtype: str | None) -> AbstractContextManager[Any]:
    import torch

    if dtype is None:
        return nullcontext()
    return torch.autocast(device_type=device,
                          dtype=torch.bfloat16 if dtype == "bf16" else torch.float16)


def _linear_schedule(total_steps: int) -> Callable[[int], float]:
    """Learning-rate factor at ``step``: linear warmup, then linear decay to 0."""
    warmup = max(1, math.ceil(WARMUP_FRACTION * total_steps))

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))
    return factor


def _optimizer(model: torch.nn.Module, learning_rate: float) -> torch.optim.Optimizer:
    import torch

    decay: list[torch.nn.Parameter] = []
    no_decay: list[torch.nn.Parameter] = []
    for name, parameter in model.named_parameters():
        if not parameter.requires_grad:
            continue
        # biases and LayerNorm/embedding-norm gains are 1-D: no weight decay on them
        (no_decay if parameter.ndim < 2 or "norm" in name.lower() else decay).append(parameter)
    return torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                              {"params": no_decay, "weight_decay": 0.0}], lr=learning_rate)


def _batches(examples: Batch, order: Sequence[int], size: int) -> Iterator[Batch]:
    for start in range(0, len(order), size):
        chosen = order[start:start + size]
        yield Batch([examples.input_ids[i] for i in chosen],
                    [examples.token_type_ids[i] for i in chosen] if examples.token_type_ids
                    else [],
                    [examples.labels[i] for i in chosen])


def _bucketed_order(examples: Batch, batch_size: int, generator: torch.Generator
                    ) -> list[int]:
    """A shuffled order in which each run of ``batch_size`` examples has similar lengths:
    shuffle, sort each window of :data:`BUCKET_BATCHES` batches by length, then shuffle
    the batches. Batches stay random in content and order, and dynamic padding pads
    little (one long citation set no longer pads fifteen short ones)."""
    import torch

    order = torch.randperm(len(examples.labels), generator=generator).tolist()
    window = batch_size * BUCKET_BATCHES
    order = [i for start in range(0, len(order), window)
             for i in sorted(order[start:start + window],
                             key=lambda i: len(examples.input_ids[i]))]
    batches = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    return [i for b in shuffled for i in batches[b]]


def evaluate(model: torch.nn.Module, examples: Batch, labels: Sequence[str], *,
             batch_size: int, pad_id: int, device: str, autocast: str | None) -> Evaluation:
    """Mean cross-entropy, macro-F1 and accuracy of ``model`` on ``examples``
    (batches sorted by length: less padding, same results)."""
    import torch

    model.eval()
    order = sorted(range(len(examples.labels)), key=lambda i: len(examples.input_ids[i]))
    predicted: dict[int, int] = {}
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            chosen = order[start:start + batch_size]
            batch = next(_batches(examples, chosen, batch_size))
            inputs, gold = _tensors(batch, pad_id, device)
            with _autocast(device, autocast):
                logits = model(**inputs).logits.float()
            total += torch.nn.functional.cross_entropy(logits, gold, reduction="sum").item()
            for i, p in zip(chosen, logits.argmax(-1).tolist(), strict=True):
                predicted[i] = p
    gold_all = list(examples.labels)
    guesses = [predicted[i] for i in range(len(gold_all))]
    n = max(1, len(gold_all))
    return Evaluation(loss=total / n, macro_f1=held_out_macro_f1(gold_all, guesses, labels),
                      accuracy=sum(g == p for g, p in zip(gold_all, guesses, strict=True)) / n)


def _better(new: Evaluation, best: Evaluation | None) -> bool:
    """Held-out macro-F1 decides; a tie goes to the lower held-out loss."""
    if best is None:
        return True
    return (new.macro_f1, -new.loss) > (best.macro_f1, -best.loss)


def fit(model: torch.nn.Module, train: Batch, held_out: Batch, settings: LoopSettings, *,
        pad_id: int, device: str, autocast: str | None,
        on_epoch: Callable[[EpochResult], None] | None = None) -> list[EpochResult]:
    """Train ``model`` on ``train`` for up to ``settings.epochs`` epochs, evaluate it on
    ``held_out`` after each, stop after ``settings.patience`` epochs without a better
    one (:func:`_better`) and leave the best epoch's weights in ``model``. Returns one
    result per epoch run."""
    import torch

    model.to(device)
    steps_per_epoch = math.ceil(len(train.labels) / settings.batch_size)
    optimizer = _optimizer(model, settings.learning_rate)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, _linear_schedule(steps_per_epoch * settings.epochs))
    scaler = torch.amp.GradScaler("cuda") if autocast == "fp16" else None
    results: list[EpochResult] = []
    best: Evaluation | None = None
    best_state: dict[str, torch.Tensor] | None = None
    stale = 0
    for epoch in range(1, settings.epochs + 1):
        started = time.perf_counter()
        model.train()
        generator = torch.Generator().manual_seed(settings.seed * 1000 + epoch)
        total = 0.0
        for batch in _batches(train, _bucketed_order(train, settings.batch_size, generator),
                              settings.batch_size):
            inputs, gold = _tensors(batch, pad_id, device)
            with _autocast(device, autocast):
                logits = model(**inputs).logits
            loss = torch.nn.functional.cross_entropy(logits.float(), gold)
            optimizer.zero_grad(set_to_none=True)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
                optimizer.step()
            schedule.step()
            total += loss.item() * len(batch.labels)
        evaluation = evaluate(model, held_out, settings.labels, batch_size=settings.batch_size,
                              pad_id=pad_id, device=device, autocast=autocast)
        improved = _better(evaluation, best)
        if improved:
            best, stale = evaluation, 0
            best_state = {k: v.detach().to("cpu", copy=True) for k, v in
                          model.state_dict().items()}
        else:
            stale += 1
        result = EpochResult(epoch, total / len(train.labels), evaluation,
                             time.perf_counter() - started, improved)
        results.append(result)
        if on_epoch is not None:
            on_epoch(result)
        if stale >= settings.patience:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    return results
