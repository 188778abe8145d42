"""The PyTorch side of an export: load the checkpoint for its task, trace it to ONNX with
dynamic batch and sequence axes, and compute the reference logits parity is checked
against.

Exporter: ``torch.onnx.export(..., dynamo=False)``, the TorchScript tracer, chosen
deliberately. On this torch (2.13) it exports BERT, DeBERTa-v2 and GPT-2 in 0.3-0.5 s
where the dynamo exporter takes ~5 s per model (measured here); the tests export five
models per session and a user's export runs once, so both would do, but the tracer's
failure mode is the one we guard anyway: a traced shape that became a constant (the
known DeBERTa bugs of older versions were of that kind: relative position tables sized
at the sample's length). Parity is therefore checked on batches whose size and length
differ from the export sample's (:mod:`scoring.export.parity`), which catches exactly
that. The model is loaded with eager attention: the plain matmul/softmax graph exports
on every opset and runs on every onnxruntime provider, and onnxruntime's transformer
optimizer recognises it to fuse attention.

A causal LM is wrapped to call the model with ``use_cache=False`` (no past key values
in the graph) and return ``.logits`` only; a two-logit cross-encoder is wrapped to
return one logit, relevance minus the other, whose sigmoid is the softmax probability
of relevance, so the runtime reads every cross-encoder the same way. A sentence
encoder (``embed``) is loaded without any head (``AutoModel``) and wrapped to return
its last hidden states mean-pooled over the attention mask and L2-normalised, with
sentence-transformers' constants (the token count clamped at 1e-9, the norm at 1e-12),
so the graph gives the vectors ``SentenceTransformer.encode(normalize_embeddings=True)``
gives for a mean-pooling model.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring.card import OUTPUT_NAMES, Task
from scoring.errors import ModelDirError, ScoringError

if TYPE_CHECKING:
    import numpy as np
    import torch

__all__ = ["ONNX_SIZE_LIMIT", "check_size", "load_model", "onnx_export", "torch_logits"]

ONNX_SIZE_LIMIT = 2 * 1000**3 - 64 * 1000**2
"""An ONNX model is one protobuf message, which cannot exceed 2 GiB; weights beyond
that go to external data files, which this export does not write (one model.onnx is
what the runtime opens). The margin leaves room for the graph itself."""


def check_size(weight_bytes: int, path: Path) -> None:
    """Refuse weights that do not fit in one ONNX file (see :data:`ONNX_SIZE_LIMIT`)."""
    if weight_bytes > ONNX_SIZE_LIMIT:
        raise ScoringError(f"{path}: the weights take {weight_bytes / 1000**3:.1f} GB, more than "
                           "one ONNX file holds (2 GB); models this large are not exported",
                           "export a smaller model (a base or large encoder, GPT-2 up to "
                           "medium/large) or use the model in PyTorch")

_TASK_HEADS = {"nli": "sequence-classification", "classify": "sequence-classification",
               "rerank": "sequence-classification", "causal-lm": "causal LM",
               "embed": "base encoder"}
_UNUSED_WEIGHTS = ("pooler.",)
"""Weights ``embed`` may lack: BERT's pooler (a CLS projection that mean pooling never
reads; sentence-transformers checkpoints often ship without it)."""


def load_model(path: Path, task: Task, config: Any, *, relevance: int | None) -> torch.nn.Module:
    """The checkpoint as a module ``(input_ids, attention_mask[, token_type_ids]) ->
    logits`` in eval mode. A checkpoint without weights for the task's head (a GPT-2 LM
    asked for nli, a base encoder never fine-tuned) is refused: transformers would
    initialise the head at random and the export would be noise."""
    from transformers import AutoModel, AutoModelForCausalLM, AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    auto: Any = {"causal-lm": AutoModelForCausalLM, "embed": AutoModel}.get(
        task, AutoModelForSequenceClassification)
    architectures = ", ".join(getattr(config, "architectures", None) or [config.model_type])
    hf_logging.set_verbosity_error()   # its "newly initialized" warning is our error below
    hf_logging.disable_progress_bar()
    try:
        model, info = auto.from_pretrained(path, local_files_only=True, output_loading_info=True,
                                           attn_implementation="eager")
    except ValueError as exc:
        if "Unrecognized configuration class" in str(exc) or "not supported" in str(exc):
            raise ScoringError(f"{path}: a {config.model_type} model ({architectures}) has no "
                               f"{_TASK_HEADS[task]} head in transformers, so it cannot be "
                               f"exported for --task {task}",
                               "choose the task the model was trained for") from None
        raise ModelDirError(f"{path}: transformers cannot load the model ({exc})",
                            "check the weights file") from None
    except OSError as exc:
        raise ModelDirError(f"{path}: transformers cannot load the weights ({exc})",
                            "check the weights file, or save the model again") from None
    missing = [key for key in info.get("missing_keys") or []
               if not (task == "embed" and key.startswith(_UNUSED_WEIGHTS))]
    if missing:
        shown = ", ".join(sorted(missing)[:3]) + (", ..." if len(missing) > 3 else "")
        raise ScoringError(
            f"{path}: the checkpoint ({architectures}) has no weights for a {_TASK_HEADS[task]} "
            f"head ({shown}); exported for --task {task} it would give random outputs",
            "choose the task the model was trained for (a GPT-2-style LM: --task causal-lm), "
            "or fine-tune it first (kgbench model train)")
    check_size(sum(p.numel() * p.element_size() for p in model.parameters()), path)
    return _wrapped(model, causal=task == "causal-lm", relevance=relevance,
                    pooled=task == "embed")


def _wrapped(model: Any, *, causal: bool, relevance: int | None,
             pooled: bool = False) -> torch.nn.Module:
    """The model as the graph computes it: named inputs in, one tensor out: the
    ``logits``, or for ``pooled`` (embed) the L2-normalised mean of the last hidden
    states over the mask (see the module docstring). The class is made here so that
    importing this module does not import torch."""
    import torch

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
            kwargs: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                kwargs["token_type_ids"] = token_type_ids
            if causal:
                kwargs["use_cache"] = False
            output = self.model(**kwargs, return_dict=True)
            if pooled:
                hidden: torch.Tensor = output.last_hidden_state
                mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
                mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                return torch.nn.functional.normalize(mean, p=2.0, dim=1, eps=1e-12)
            logits: torch.Tensor = output.logits
            if relevance is not None:
                other = 1 - relevance
                logits = logits[:, relevance:relevance + 1] - logits[:, other:other + 1]
            return logits

    return Graph().eval()


def _tensors(batch: dict[str, np.ndarray], inputs: Sequence[str]) -> tuple[torch.Tensor, ...]:
    import torch
    return tuple(torch.from_numpy(batch[name]) for name in inputs)


def onnx_export(module: torch.nn.Module, sample: dict[str, np.ndarray], inputs: Sequence[str],
                task: Task, path: Path, *, opset: int) -> None:
    """Trace ``module`` on ``sample`` to ``path`` (see the module docstring for why the
    TorchScript exporter), batch and sequence axes dynamic."""
    import torch

    output = OUTPUT_NAMES[task]
    axes: dict[str, dict[int, str]] = {name: {0: "batch", 1: "sequence"} for name in inputs}
    axes[output] = {0: "batch", 1: "sequence"} if task == "causal-lm" else {0: "batch"}
    with warnings.catch_warnings(), torch.no_grad():
        # The tracer warns about Python conditionals on shapes (transformers' checks)
        # and that it is deprecated; parity on other shapes is what tells us it is right.
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(module, _tensors(sample, inputs), str(path),
                              input_names=list(inputs), output_names=[output],
                              dynamic_axes=axes, opset_version=opset, do_constant_folding=True,
                              dynamo=False)
        except Exception as exc:  # the exporter raises many kinds, all mean "cannot export"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ScoringError(f"torch.onnx.export failed at opset {opset}: {first}",
                               "try another --opset (17 or 18), or a newer torch") from None


def torch_logits(module: torch.nn.Module, batch: dict[str, np.ndarray],
                 inputs: Sequence[str]) -> np.ndarray:
    """PyTorch's float32 output (logits, or an embed graph's embeddings) for one batch."""
    import torch
    with torch.no_grad():
        return module(*_tensors(batch, inputs)).float().numpy()
