"""Parity: the exported graph run by onnxruntime against the PyTorch model, on sample
inputs tokenized by the very tokenizer.json the runtime will use.

The samples (:data:`scoring.export.corpus.PARITY_PAIRS`) are six inputs of different
lengths run as a batch of six (padded to the longest: padding must not change the
other rows) and one at a time on two of them; the export itself traced a batch of two
short ones, so a size or length the tracer froze into the graph fails here. The
difference is the largest absolute difference of the logits (for a causal LM, at the
positions that are not padding; for an embed graph, of the normalised embeddings, whose
values lie in [-1, 1], so its tolerances are the bases themselves).

Default tolerances: absolute, on logits, scaled by the logits' size: ``base × max(1,
largest |logit| PyTorch gives on the samples)``, because floating-point error is
relative: an NLI head's logits are a few units, a GPT-2 LM head's reach 100 and more,
where one float32 rounding is already ~1e-5. The card records the scaled number, the
absolute tolerance the graph met. The bases:

* fp32 export 1e-4: the same float32 arithmetic in another order; a correct graph
  differs by ~1e-6 relative (measured: 5e-7 on the tiny models);
* optimized 1e-3: fused attention, LayerNorm and GELU kernels reorder more sums and
  GELU may be approximated;
* fp16 5e-2: half precision keeps 11 bits (relative step 1e-3), and a dozen layers
  compound it to ~1e-2 relative (measured: 1e-3 to 9e-3 on the tiny models), still
  far below the margins that decide a label;
* int8 1e-1: dynamic quantization rounds every weight to one of 255 steps of its
  column's range and every MatMul input to one of 256 steps of its own range, per call;
  layer after layer that is a few percent of the logits (measured: 2e-2 to 4e-2 of the
  largest logit on the tiny models, 1e-2 absolute on deberta-v3-base's shape).

An int8 graph of a classifier (``nli``, ``classify``) must also give every sample the
label PyTorch gives it (:func:`label_disagreements`): a few percent on the logits is
harmless unless it changes a decision, and that is what the check looks at. A sample
PyTorch itself barely decides (its two top logits within :data:`LABEL_TIE`, their
probabilities within 2% of each other) is left out: no reduced-precision graph can be
held to a coin toss.

A ``--tolerance`` given by the user is absolute, as given, for every graph checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scoring.card import Task
from scoring.errors import ScoringError
from scoring.export.corpus import PARITY_PAIRS

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["DEFAULT_TOLERANCE", "LABEL_TIE", "ParityBatches", "StageParity", "compare",
           "label_disagreements", "logit_scale", "ort_logits", "parity_batches",
           "stage_tolerance"]

DEFAULT_TOLERANCE = {"fp32": 1e-4, "optimized": 1e-3, "fp16": 5e-2, "int8": 1e-1}
LABEL_TIE = 0.02
"""Two logits closer than this (log odds: probabilities within 2% of each other) are a
tie, a label PyTorch does not really decide (see the module docstring)."""
_BATCHES: tuple[tuple[int, ...], ...] = ((0, 1, 2, 3, 4, 5), (4,), (0,))
_EXPORT_SAMPLE = (2, 4)


@dataclass(frozen=True)
class StageParity:
    """One graph (``stage``: fp32, optimized, fp16, int8) compared with PyTorch;
    ``label_disagreements``: samples whose label differs (None: not checked)."""

    stage: str
    max_abs_diff: float
    tolerance: float
    label_disagreements: int | None = None

    @property
    def passed(self) -> bool:
        return bool(self.max_abs_diff <= self.tolerance) and not self.label_disagreements


@dataclass(frozen=True)
class ParityBatches:
    """The export's tracing sample and the parity batches, as numpy arrays per input."""

    sample: dict[str, np.ndarray]
    batches: tuple[dict[str, np.ndarray], ...]
    inputs: int


def stage_tolerance(stage: str, given: float | None, scale: float) -> float:
    """The tolerance of ``stage``: the one the user gave, else the default base times
    ``max(1, scale)`` (``scale``: :func:`logit_scale`), rounded to 2 significant digits."""
    if given is not None:
        return given
    return float(f"{DEFAULT_TOLERANCE[stage] * max(1.0, scale):.2g}")


def logit_scale(reference: Sequence[np.ndarray], batches: Sequence[dict[str, np.ndarray]],
                task: Task) -> float:
    """The largest |logit| of the PyTorch reference (a causal LM's padding left out)."""
    largest = 0.0
    for ref, batch in zip(reference, batches, strict=True):
        values = np.abs(ref[batch["attention_mask"].astype(bool)] if task == "causal-lm" else ref)
        if values.size:
            largest = max(largest, float(np.max(values)))
    return largest


def _encode(tokenizer: Tokenizer, indices: Sequence[int], task: Task, inputs: Sequence[str],
            max_length: int, pad_id: int) -> dict[str, np.ndarray]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(tokenizer.to_str())   # a copy: padding set here only
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length)
    if task in ("causal-lm", "embed"):   # one text per input: the pair as one passage
        encodings = tokenizer.encode_batch([f"{PARITY_PAIRS[i][0]} {PARITY_PAIRS[i][1]}"
                                            for i in indices])
    else:
        encodings = tokenizer.encode_batch([PARITY_PAIRS[i] for i in indices])
    width = max(len(e.ids) for e in encodings)
    batch = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in inputs}
    batch["input_ids"][:] = pad_id
    for row, encoding in enumerate(encodings):
        n = len(encoding.ids)
        batch["input_ids"][row, :n] = encoding.ids
        batch["attention_mask"][row, :n] = 1
        if "token_type_ids" in batch:
            batch["token_type_ids"][row, :n] = encoding.type_ids
    return batch


def parity_batches(tokenizer: Tokenizer, task: Task, inputs: Sequence[str], max_length: int,
                   pad_id: int) -> ParityBatches:
    """The tracing sample (a batch of two short inputs) and the parity batches (six
    inputs of different lengths at once, then two of them alone), right-padded."""
    encode = lambda indices: _encode(tokenizer, indices, task, inputs,  # noqa: E731
                                     max_length, pad_id)
    return ParityBatches(sample=encode(_EXPORT_SAMPLE),
                         batches=tuple(encode(indices) for indices in _BATCHES),
                         inputs=len(PARITY_PAIRS))


def ort_logits(model_path: Path, batches: Sequence[dict[str, np.ndarray]], *,
               stage: str = "fp32") -> list[np.ndarray]:
    """onnxruntime's output (as float32: logits, or embeddings) for each batch, on the CPU provider (parity is
    a property of the graph; the CPU provider is the one every machine has). A graph
    onnxruntime cannot load or run on these batches (a batch or sequence size frozen
    into it fails this way) is a :class:`ScoringError` naming the ``stage``."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(str(model_path), options,
                                       providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        # the graph's one output: logits, or an embed graph's embeddings
        return [np.asarray(session.run(None, {n: b[n] for n in names})[0],
                           dtype=np.float32) for b in batches]
    except Exception as exc:  # onnxruntime's errors share no base class worth naming
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ScoringError(
            f"parity check failed ({stage}): onnxruntime cannot run the exported graph on "
            f"the sample inputs ({first}); nothing was written",
            "look for an export bug (try another --opset)") from None


def label_disagreements(reference: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> int:
    """Rows (over all batches) whose label (largest logit) differs from PyTorch's,
    leaving out the rows PyTorch does not decide (top two logits within
    :data:`LABEL_TIE`). For classifier logits ``[batch, labels]``."""
    count = 0
    for ref, out in zip(reference, got, strict=True):
        if ref.shape != out.shape or ref.ndim != 2 or ref.shape[1] < 2:
            raise ValueError(f"label_disagreements needs [batch, labels] logits, not "
                             f"{ref.shape} and {out.shape}")
        top2 = np.sort(ref, axis=1)[:, -2:]
        decided = top2[:, 1] - top2[:, 0] >= LABEL_TIE
        count += int(np.sum(decided & (ref.argmax(axis=1) != out.argmax(axis=1))))
    return count


def compare(stage: str, reference: Sequence[np.ndarray], got: Sequence[np.ndarray],
            batches: Sequence[dict[str, np.ndarray]], task: Task, tolerance: float) -> StageParity:
    """The largest absolute difference of ``got`` from ``reference`` over all batches
    (a causal LM's padded positions left out); NaN counts as infinitely different."""
    worst = 0.0
    for ref, out, batch in zip(reference, got, batches, strict=True):
        if ref.shape != out.shape:
            return StageParity(stage, float("inf"), tolerance)
        diff = np.abs(ref.astype(np.float64) - out.astype(np.float64))
        if task == "causal-lm":
            diff = diff[batch["attention_mask"].astype(bool)]
        value = float(np.max(diff)) if diff.size else 0.0
        worst = max(worst, value if np.isfinite(value) else float("inf"))
    return StageParity(stage, worst, tolerance)
