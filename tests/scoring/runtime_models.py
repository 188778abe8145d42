"""Small real model directories for the runtime tests that need no PyTorch: tokenizers
trained here with `tokenizers`, and ONNX graphs written with ``onnx.helper`` whose
weights the test knows, so it can compute the expected logits with numpy. (The scorers'
parity with PyTorch is tested on the exported tiny models of tests/scoring/conftest.py.)"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

from scoring.card import (
    MODEL_FILE,
    TOKENIZER_FILE,
    ModelCard,
    Parity,
    SourceCheckpoint,
    Task,
    write_card,
)

CORPUS = [
    "Berlin is the capital of Germany.",
    "The film was directed by a woman born in Paris.",
    "Marie Curie won the Nobel Prize in Physics and in Chemistry.",
    "The river flows through three countries before it reaches the sea.",
    "A citation supports the answer when every fact it needs is stated.",
    "Paris is a city in France and the home of many museums.",
] * 20


def wordpiece_tokenizer(vocab_size: int = 300) -> Tokenizer:
    """A BERT-style tokenizer: ``[CLS] A [SEP] B [SEP]`` with token types 0 and 1."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok


def bytelevel_tokenizer(vocab_size: int = 400) -> Tokenizer:
    """A GPT-2-style byte-level BPE with ``<|endoftext|>`` (id 0) and no template."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def card_for(task: Task, *, labels: Sequence[str] = (), inputs: Sequence[str] = (
        "input_ids", "attention_mask"), max_length: int = 32,
        nli_roles: dict[str, int] | None = None) -> ModelCard:
    return ModelCard.model_validate(dict(
        task=task, labels=tuple(labels), nli_roles=nli_roles, max_length=max_length,
        inputs=tuple(inputs), opset=18,
        source=SourceCheckpoint(path="test", model_type="test", sha256="0" * 64),
        parity=Parity(max_abs_diff=0.0, tolerance=1e-4, inputs=1), exporter="tests"))


def _save(graph: onnx.GraphProto, path: Path) -> None:
    # IR 10: what onnxruntime 1.2x reads (onnx.helper would write its newest IR version).
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                                ir_version=10), str(path))


def mean_pool_classifier(path: Path, *, vocab: int, n_labels: int, hidden: int = 8,
                         seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``logits = (Σ_t mask_t · E[ids_t]) @ W``: a text classifier's interface (int64
    input_ids and attention_mask [batch, seq] → float logits [batch, n_labels]).
    Returns (E, W)."""
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(vocab, hidden)).astype(np.float32)
    w = rng.normal(size=(hidden, n_labels)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["E", "input_ids"], ["h"]),
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["m", "last"], ["m3"]),
        helper.make_node("Mul", ["h", "m3"], ["hm"]),
        helper.make_node("ReduceSum", ["hm", "seq_axis"], ["pooled"], keepdims=0),
        helper.make_node("MatMul", ["pooled", "W"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "mean_pool_classifier",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", n_labels])],
        initializer=[numpy_helper.from_array(emb, "E"), numpy_helper.from_array(w, "W"),
                     numpy_helper.from_array(np.array([-1], np.int64), "last"),
                     numpy_helper.from_array(np.array([1], np.int64), "seq_axis")])
    _save(graph, path)
    return emb, w


def bigram_lm(path: Path, *, vocab: int, hidden: int = 8, seed: int = 0
              ) -> tuple[np.ndarray, np.ndarray]:
    """``logits[b, t] = E[ids[b, t]] @ W``: a causal LM's interface (next-token logits
    over the vocabulary, [batch, seq, vocab]) whose prediction depends on the current
    token only. Returns (E, W)."""
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(vocab, hidden)).astype(np.float32)
    w = (3 * rng.normal(size=(hidden, vocab))).astype(np.float32)
    nodes = [helper.make_node("Gather", ["E", "input_ids"], ["h"]),
             helper.make_node("MatMul", ["h", "W"], ["logits"])]
    graph = helper.make_graph(
        nodes, "bigram_lm",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
        # attention_mask is an input of every exported LM; this graph does not read it.
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", vocab])],
        initializer=[numpy_helper.from_array(emb, "E"), numpy_helper.from_array(w, "W")])
    _save(graph, path)
    return emb, w


def float_input_graph(path: Path) -> None:
    """An ONNX graph that is not a text model's: a float feature vector in, logits out."""
    graph = helper.make_graph(
        [helper.make_node("Identity", ["input_ids"], ["logits"])], "not_text",
        [helper.make_tensor_value_info("input_ids", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])])
    _save(graph, path)


def model_dir(directory: Path, card: ModelCard, tokenizer: Tokenizer) -> Path:
    """Write the card and tokenizer beside a graph written to ``directory/model.onnx``."""
    directory.mkdir(parents=True, exist_ok=True)
    write_card(directory, card)
    tokenizer.save(str(directory / TOKENIZER_FILE))
    return directory / MODEL_FILE
