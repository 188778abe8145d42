"""The optional rewrites of an exported fp32 graph, each checked against PyTorch by the
caller: onnxruntime's transformer optimizer (fused attention, LayerNorm, GELU), fp16
conversion and dynamic int8 quantization. All come with onnxruntime
(``onnxruntime.transformers``, ``onnxruntime.quantization``), which the runtime needs
anyway; onnxconverter-common is not needed.

Which optimizer ``model_type`` a checkpoint gets: ``bert`` for BERT-like encoders
(BERT, RoBERTa, XLM-R, ELECTRA, DistilBERT, MPNet...), ``gpt2`` for GPT-2-like
decoders. DeBERTa-v2/v3 has no model type of its own there: its disentangled attention
matches none of the attention fusions, so the ``bert`` optimizer is run for what does
fuse on it (LayerNorm, GELU, skip connections) and parity decides, like for any other.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring.errors import ScoringError

__all__ = ["INT8_OPS", "OPTIMIZER_TYPES", "optimizer_type", "to_fp16", "to_int8", "optimize"]

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


INT8_OPS = ("MatMul", "Attention")
"""What :func:`to_int8` quantizes: the MatMuls with a weight matrix (the linear layers,
~80% of an encoder's CPU time) and the optimizer's fused Attention (its QKV
projection). MatMuls of two activations (attention scores) stay float32: dynamic
quantization quantizes a weight once and an activation per call, not two activations.
Embedding tables (Gather) stay float32 too: a lookup takes no arithmetic, so int8 would
only shrink the file (deberta-v3-base: 232 MB instead of 514 MB; fp32 740 MB) and add
error at the input (measured on the tiny models: 3.5-5% of the largest logit instead
of 2-4%)."""


def to_int8(source: Path, target: Path, *, per_channel: bool = True) -> int:
    """Dynamic int8 quantization of ``source`` (``onnxruntime.quantization.
    quantize_dynamic``): weights to int8 once, here, symmetric, one scale per output
    column (``per_channel=False``: one per matrix); each MatMul's input quantized to
    uint8 with its own scale at every call. Inputs (int64 ids) and the output (float32
    logits) keep their types. Returns the number of integer MatMuls in the result (0:
    nothing was quantized, the caller says so).

    Measured on an AVX512-VNNI AMD EPYC, 2 threads, deberta-v3-base shape, one batch of
    16 pairs x 128 tokens (median of 4): fp32 2.70 s; QInt8 per matrix 1.33 s, per
    channel 1.43 s; QUInt8 2.05-2.11 s. Signed int8 weights (``QInt8``): uint8 x int8 is
    the product x86's VNNI instruction (``vpdpbusd``) computes in one step into 32 bits,
    the kernel onnxruntime's CPU provider is fastest at; uint8 x uint8 takes a slower
    path. Per channel, 7% slower than per matrix: a column's scale fits its own range
    instead of the matrix's largest weight, which a trained model's columns differ in
    (measured on the tiny models: max |logit diff| 2.2-4% of the largest logit, against
    2.2-7% per matrix)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # DefaultTensorType: ONNX shape inference gives no type to the outputs of the
    # optimizer's fused operators (onnxruntime's own domain); every float in a graph
    # quantized here is float32 (an fp16 graph is not quantized).
    try:
        with _root_logging_quiet():
            quantize_dynamic(str(source), str(target), op_types_to_quantize=list(INT8_OPS),
                             per_channel=per_channel, weight_type=QuantType.QInt8,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    except Exception as exc:  # the quantizer raises RuntimeError, ValueError, onnx errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ScoringError(f"int8 quantization failed: {first[:300]}",
                           "export without --int8 (or without --optimize)") from None
    integer = {"MatMulInteger", "DynamicQuantizeMatMul", "QAttention"}
    return sum(n.op_type in integer for n in onnx.load(str(target), load_external_data=False)
               .graph.node)


@contextlib.contextmanager
def _root_logging_quiet() -> Iterator[None]:
    """onnxruntime's quantizer warns through the root logger ("consider pre-processing"),
    and ``logging.warning`` on a root logger without handlers installs a stderr handler
    for the rest of the process. A null handler and level ERROR, for the call only."""
    root = logging.getLogger()
    level, quiet = root.level, logging.NullHandler()
    root.addHandler(quiet)
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.removeHandler(quiet)
        root.setLevel(level)
