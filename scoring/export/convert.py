"""The optional rewrites of an exported fp32 graph, each checked against PyTorch by the
caller: onnxruntime's transformer optimizer (fused attention, LayerNorm, GELU) and fp16
conversion. Both come with onnxruntime (``onnxruntime.transformers``), which the
runtime needs anyway; onnxconverter-common is not needed.

Which optimizer ``model_type`` a checkpoint gets: ``bert`` for BERT-like encoders
(BERT, RoBERTa, XLM-R, ELECTRA, DistilBERT, MPNet...), ``gpt2`` for GPT-2-like
decoders. DeBERTa-v2/v3 has no model type of its own there: its disentangled attention
matches none of the attention fusions, so the ``bert`` optimizer is run for what does
fuse on it (LayerNorm, GELU, skip connections) and parity decides, like for any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scoring.errors import ScoringError

__all__ = ["OPTIMIZER_TYPES", "optimizer_type", "to_fp16", "optimize"]

OPTIMIZER_TYPES = {"bert": "bert", "roberta": "bert", "xlm-roberta": "bert",
                   "electra": "bert", "distilbert": "bert", "mpnet": "bert",
                   "deberta": "bert", "deberta-v2": "bert", "camembert": "bert",
                   "gpt2": "gpt2", "gpt_neo": "gpt2", "gptj": "gpt2"}
"""transformers' model_type -> onnxruntime transformer optimizer's model_type."""


def optimizer_type(model_type: str) -> str | None:
    """The optimizer's model type for a checkpoint's model_type, None when it has none."""
    return OPTIMIZER_TYPES.get(model_type)


def optimize(source: Path, target: Path, *, model_type: str, num_heads: int,
             hidden_size: int) -> dict[str, int]:
    """Run onnxruntime's transformer optimizer on ``source`` and save to ``target``;
    returns the fused operator counts (the optimizer's statistics)."""
    kind = optimizer_type(model_type)
    if kind is None:
        raise ScoringError(f"onnxruntime's transformer optimizer has no model type for "
                           f"{model_type} models", "export without --optimize")
    from onnxruntime.transformers.optimizer import optimize_model

    # opt_level 0: only the optimizer's own fusions, written to a graph every provider
    # runs; onnxruntime applies its provider-specific rewrites when it loads the model.
    optimized = optimize_model(str(source), model_type=kind, num_heads=num_heads,
                               hidden_size=hidden_size, opt_level=0, use_gpu=False)
    optimized.save_model_to_file(str(target))
    stats: dict[str, Any] = optimized.get_fused_operator_statistics()
    return {name: int(count) for name, count in stats.items() if count}


def to_fp16(source: Path, target: Path) -> None:
    """Convert ``source``'s weights and arithmetic to float16, keeping the graph's inputs
    (int64 ids) and output (float32 logits) types, so the runtime feeds it the same
    arrays and reads the same dtype."""
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16

    model = onnx.load(str(source))
    converted = convert_float_to_float16(model, keep_io_types=True)
    onnx.save(converted, str(target))
