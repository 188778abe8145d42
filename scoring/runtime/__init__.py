"""The scoring runtime: exported ONNX text models run with onnxruntime (CUDA when it
really runs, the CPU otherwise), tokenized with `tokenizers`, batched by token budget,
behind small typed scorers. Needs onnxruntime, tokenizers and numpy only: never torch."""

from scoring.runtime.causal_lm import CausalLM
from scoring.runtime.embedder import Embedder
from scoring.runtime.scorers import CrossEncoder, NliScorer, NliScores, SequenceClassifier
from scoring.runtime.session import OnnxTextModel, RuntimeInfo

__all__ = ["CausalLM", "CrossEncoder", "Embedder", "NliScorer", "NliScores", "OnnxTextModel",
           "RuntimeInfo", "SequenceClassifier"]
