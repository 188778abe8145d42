"""Tiny Hugging Face checkpoints built offline: a config with tiny shapes (hidden size
32, two layers), random weights and a tokenizer trained on the built-in corpus
(:mod:`scoring.export.corpus`). No model hub is reachable here, yet the export, the
runtime and the scorers must be tested on real checkpoints of the shapes users bring:
a BERT-style encoder (WordPiece, token type ids), a DeBERTa-v2/v3-style encoder
(Unigram, relative positions, no token types) and a GPT-2-style causal LM (byte-level
BPE). Speed does not depend on the weights, and parity does not either, so random
weights are enough for everything but accuracy.

torch and transformers are imported inside the functions (the export extra).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from scoring.card import NLI_ROLES, Task
from scoring.errors import ScoringError
from scoring.export.corpus import corpus

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["TINY_KINDS", "TinyKind", "build_tiny_model"]

TinyKind = Literal["bert", "deberta-v2", "gpt2"]
TINY_KINDS: tuple[TinyKind, ...] = ("bert", "deberta-v2", "gpt2")

_CLASSIFY_LABELS = ("supportive", "partially_supportive", "contradictory", "irrelevant")
"""Our four labels (:data:`extension.core.labels.LABELS`), the default of a tiny classifier."""
_VOCAB = 400
_MAX_POSITIONS = 128
_SHAPE: dict[str, Any] = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 64, "initializer_range": 0.2}
"""Tiny shapes; weights 10x wider than transformers' default (0.02) so that logits are of
order one, as a trained model's are, and a wrong graph shows in the parity check
instead of hiding in logits of order 0.01."""


def _encoder_tokenizer(kind: TinyKind) -> tuple[Tokenizer, dict[str, str]]:
    """WordPiece (bert) or Unigram with a metaspace (deberta-v2, as DeBERTa-v3's
    SentencePiece model), with the ``[CLS] A [SEP] B [SEP]`` template of both.

    The vocabulary is learnt from the corpus by counting, not by the `tokenizers`
    trainers: their WordPiece and Unigram trainers break ties in hash-map order, so two
    builds gave different vocabularies (and a fixture cached in one test run tokenized
    differently from the next). Here every character of the corpus is a piece and the
    most frequent words (count, then spelling) fill the rest, so the same corpus always
    gives the same tokenizer; a word outside it splits into characters, as a rare word
    splits into pieces in a real one.
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    specials = {"unk_token": "[UNK]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                "sep_token": "[SEP]", "mask_token": "[MASK]"}
    order = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalizer: Any
    pre_tokenizer: Any
    if kind == "bert":
        normalizer = normalizers.BertNormalizer(lowercase=True)
        pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    else:
        normalizer = normalizers.NFKC()
        pre_tokenizer = pre_tokenizers.Metaspace()
    words: Counter[str] = Counter()
    for sentence in corpus():
        pieces = pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(sentence))
        words.update(piece for piece, _ in pieces)
    characters: Counter[str] = Counter()
    for word, count in words.items():
        for character in word:
            characters[character] += count
    alphabet = sorted(characters)
    by_frequency = sorted(words, key=lambda w: (-words[w], w))
    tokenizer: Tokenizer
    if kind == "bert":
        vocab = [*order, *alphabet, *(f"##{c}" for c in alphabet)]
        vocab += [w for w in by_frequency if w not in set(vocab)][:max(0, _VOCAB - len(vocab))]
        tokenizer = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)},
                                               unk_token="[UNK]"))
        tokenizer.decoder = decoders.WordPiece()
    else:
        total = sum(words.values()) + sum(characters.values())
        pieces_scores = [(t, 0.0) for t in order]
        pieces_scores += [(c, math.log(characters[c] / total)) for c in alphabet]
        kept = [w for w in by_frequency if len(w) > 1][:max(0, _VOCAB - len(pieces_scores))]
        pieces_scores += [(w, math.log(words[w] / total)) for w in kept]
        tokenizer = Tokenizer(models.Unigram(pieces_scores, unk_id=order.index("[UNK]"),
                                             byte_fallback=False))
        tokenizer.decoder = decoders.Metaspace()
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.add_special_tokens(order)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tokenizer, specials


def _gpt2_tokenizer() -> tuple[Tokenizer, dict[str, str]]:
    """Byte-level BPE with ``<|endoftext|>`` as GPT-2 has it (no padding token: GPT-2
    has none; the exported tokenizer pads with it, masked)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.train_from_iterator(corpus(), trainers.BpeTrainer(
        vocab_size=_VOCAB, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    eos = "<|endoftext|>"
    return tokenizer, {"bos_token": eos, "eos_token": eos, "unk_token": eos}


def _config(kind: TinyKind, vocab_size: int, labels: Sequence[str],
            special_ids: dict[str, int]) -> Any:
    from transformers import BertConfig, DebertaV2Config, GPT2Config

    label_args: dict[str, Any] = {}
    if labels:
        label_args = {"id2label": dict(enumerate(labels)),
                      "label2id": {name: i for i, name in enumerate(labels)}}
    settings: dict[str, Any] = {**label_args, "vocab_size": vocab_size}
    if kind == "bert":
        settings |= {**_SHAPE, "max_position_embeddings": _MAX_POSITIONS, "type_vocab_size": 2,
                     "pad_token_id": special_ids["pad_token"]}
        return BertConfig(**settings)
    if kind == "deberta-v2":
        # DeBERTa-v3's settings: relative attention with position buckets, no absolute
        # position embedding in the input, no token types (type_vocab_size 0).
        settings |= {**_SHAPE, "max_position_embeddings": _MAX_POSITIONS, "type_vocab_size": 0,
                     "relative_attention": True, "position_buckets": 16,
                     "max_relative_positions": -1, "norm_rel_ebd": "layer_norm",
                     "share_att_key": True, "pos_att_type": ["p2c", "c2p"],
                     "position_biased_input": False, "pad_token_id": special_ids["pad_token"]}
        return DebertaV2Config(**settings)
    eos = special_ids["eos_token"]
    settings |= {"n_positions": _MAX_POSITIONS, "n_embd": 32, "n_layer": 2, "n_head": 2,
                 "initializer_range": _SHAPE["initializer_range"], "bos_token_id": eos,
                 "eos_token_id": eos}
    return GPT2Config(**settings)


def _labels(task: Task, labels: Sequence[str] | None) -> tuple[str, ...]:
    if labels is not None:
        return tuple(labels)
    return {"nli": NLI_ROLES, "classify": _CLASSIFY_LABELS, "rerank": ("relevance",),
            "causal-lm": ()}[task]


def build_tiny_model(kind: TinyKind, task: Task, out_dir: Path, *, seed: int = 0,
                     labels: Sequence[str] | None = None) -> Path:
    """Write a tiny Hugging Face checkpoint of ``kind`` for ``task`` to ``out_dir``
    (created) and return it: config.json, model.safetensors, tokenizer.json,
    tokenizer_config.json (+ special tokens), as ``save_pretrained`` writes them.

    Labels (id2label, in logit order): NLI ``entailment, neutral, contradiction``;
    classify our four labels; rerank one ``relevance`` logit; ``labels`` overrides them
    (e.g. ``["LABEL_0", "LABEL_1", "LABEL_2"]`` for an NLI model whose roles must be
    given with ``--label-map``). Random weights from ``seed``.
    """
    if kind not in TINY_KINDS:
        raise ScoringError(f"no tiny model of kind {kind!r}", f"choose one of {', '.join(TINY_KINDS)}")
    if (kind == "gpt2") != (task == "causal-lm"):
        raise ScoringError(f"a tiny {kind} model is not built for task {task}",
                           "gpt2 is the causal-lm; bert and deberta-v2 are the encoders")
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForSequenceClassification,
        PreTrainedTokenizerFast,
    )
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()   # save_pretrained's shard bar, for three tiny files

    tokenizer, specials = _gpt2_tokenizer() if kind == "gpt2" else _encoder_tokenizer(kind)
    special_ids = {role: tokenizer.token_to_id(token) or 0 for role, token in specials.items()}
    names = _labels(task, labels)
    config = _config(kind, tokenizer.get_vocab_size(), names, special_ids)
    torch.manual_seed(seed)
    auto = AutoModelForCausalLM if task == "causal-lm" else AutoModelForSequenceClassification
    model = auto.from_config(config)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, model_max_length=_MAX_POSITIONS,
                                   **specials)
    fast.save_pretrained(out_dir)
    return out_dir
