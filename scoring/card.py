"""The model card: the small JSON file ``kgbench model export`` writes beside
``model.onnx`` and the tokenizer, and the one thing the runtime reads to know what a
model directory holds.

An exported model directory::

    DIR/model.onnx            the graph (dynamic batch and sequence axes)
    DIR/tokenizer.json        a `tokenizers` fast tokenizer (the runtime needs nothing else)
    DIR/kgbench-model.json    this card

The card says which task the graph was exported for (:data:`Task`), the label names in
logit order, for NLI which logit is entailment / neutral / contradiction, the maximum
length the runtime truncates to, the ONNX opset, the precision, whether onnxruntime's
transformer optimizer rewrote it, the SHA-256 of the source checkpoint's files, and the
parity check that let the export write it (largest absolute difference against PyTorch
on sample inputs, and the tolerance it had to meet).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from scoring.errors import ModelDirError

__all__ = ["CARD_FILE", "CARD_VERSION", "MODEL_FILE", "NLI_ROLES", "OUTPUT_NAMES", "TASKS",
           "TOKENIZER_FILE", "Embedding",
           "ModelCard", "NliProbabilities", "NliRole", "Parity", "Precision",
           "SourceCheckpoint", "Task", "read_card", "write_card"]

CARD_FILE = "kgbench-model.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CARD_VERSION = 1

Task = Literal["nli", "classify", "rerank", "causal-lm", "embed"]
"""What a graph computes: ``nli`` premise → hypothesis logits over entailment /
neutral / contradiction; ``classify`` one text (or a pair) → logits over ``labels``;
``rerank`` a (query, passage) pair → one relevance logit (a cross-encoder);
``causal-lm`` token ids → next-token logits over the vocabulary; ``embed`` one text →
a sentence embedding (the encoder's last hidden states mean-pooled over the tokens
that are not padding, L2-normalised, as sentence-transformers' Pooling + Normalize
modules compute it), output ``embeddings``."""
TASKS: tuple[Task, ...] = get_args(Task)
OUTPUT_NAMES: dict[Task, str] = {"nli": "logits", "classify": "logits", "rerank": "logits",
                                 "causal-lm": "logits", "embed": "embeddings"}
"""The graph's output name for each task (the card's ``output``)."""

NliRole = Literal["entailment", "neutral", "contradiction"]
NLI_ROLES: tuple[NliRole, ...] = get_args(NliRole)


class NliProbabilities(Protocol):
    """What an NLI scorer returns per pair (:class:`scoring.runtime.NliScores`): the
    probability of each of the :data:`NLI_ROLES`."""

    @property
    def entailment(self) -> float: ...
    @property
    def neutral(self) -> float: ...
    @property
    def contradiction(self) -> float: ...

Precision = Literal["fp32", "fp16", "int8"]
"""The graph's arithmetic: ``fp32``; ``fp16`` (for GPUs); ``int8``, weights quantized to
int8 and each MatMul's input to uint8 per call (dynamic quantization, for the CPU
provider: onnxruntime's CUDA provider has no kernel for its integer MatMuls). Cards
written before int8 existed read unchanged, so the card's version stays 1."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceCheckpoint(_Strict):
    """The Hugging Face checkpoint the graph came from."""

    path: str = Field(description="The checkpoint directory as given to the export.")
    model_type: str = Field(description="config.json's model_type: bert, deberta-v2, gpt2, ...")
    sha256: str = Field(description="SHA-256 over the checkpoint's config, weight and "
                                    "tokenizer files (names and contents, sorted by name).")


class Parity(_Strict):
    """The check against PyTorch that the export passed before it wrote the graph."""

    max_abs_diff: float = Field(ge=0.0)
    tolerance: float = Field(gt=0.0)
    inputs: int = Field(ge=1, description="Sample inputs compared (texts or pairs).")


class Embedding(_Strict):
    """An ``embed`` graph's output: what its vectors are (cards of other tasks have none)."""

    dimension: int = Field(ge=1, description="Values per embedding (the hidden size).")
    pooling: Literal["mean"] = Field(
        default="mean", description="mean: the last hidden states averaged over the tokens "
                                    "the attention mask keeps (sentence-transformers' "
                                    "pooling_mode_mean_tokens).")
    normalized: Literal[True] = Field(
        default=True, description="Each vector divided by its L2 norm (at least 1e-12), so "
                                  "a dot product is the cosine.")


class ModelCard(_Strict):
    """What an exported model directory holds (see the module docstring)."""

    format: Literal["kgbench-onnx-model"] = "kgbench-onnx-model"
    version: int = CARD_VERSION
    task: Task
    labels: tuple[str, ...] = Field(
        default=(), description="Label names in logit order (empty for causal-lm; "
                                "one name for a rerank model with a single logit).")
    nli_roles: dict[NliRole, int] | None = Field(
        default=None, description="NLI only: the logit index of each role.")
    max_length: int = Field(ge=2, description="Tokens per input; longer inputs are truncated.")
    inputs: tuple[str, ...] = Field(description="The graph's input names, e.g. input_ids, "
                                                "attention_mask, token_type_ids.")
    output: str = "logits"
    opset: int = Field(ge=7)
    precision: Precision = "fp32"
    optimized: bool = Field(default=False, description="Rewritten by onnxruntime's "
                                                       "transformer optimizer.")
    embedding: Embedding | None = Field(default=None, description="embed only: the vectors.")
    source: SourceCheckpoint
    parity: Parity
    exporter: str = Field(description="kgbench, torch and transformers versions that wrote it.")

    @model_validator(mode="after")
    def _labels_fit_the_task(self) -> ModelCard:
        if self.task == "nli":
            two_way, three_way = {"entailment", "contradiction"}, set(NLI_ROLES)
            if self.nli_roles is None or set(self.nli_roles) not in (two_way, three_way):
                raise ValueError("an nli card needs nli_roles for entailment and contradiction "
                                 "(and neutral for a 3-way model)")
            if any(not 0 <= i < len(self.labels) for i in self.nli_roles.values()):
                raise ValueError("nli_roles points past the labels")
        elif self.nli_roles is not None:
            raise ValueError(f"nli_roles is only for nli cards, not {self.task}")
        if self.task == "classify" and len(self.labels) < 2:
            raise ValueError("a classify card needs at least two labels")
        if self.task in ("causal-lm", "embed") and self.labels:
            raise ValueError(f"a {self.task} card has no labels")
        if (self.task == "embed") != (self.embedding is not None):
            raise ValueError("an embed card, and only an embed card, describes its embedding")
        if self.output != OUTPUT_NAMES[self.task]:
            raise ValueError(f"a {self.task} graph's output is {OUTPUT_NAMES[self.task]!r}")
        if "input_ids" not in self.inputs:
            raise ValueError("the graph must take input_ids")
        return self


def read_card(directory: Path) -> ModelCard:
    """The card of the exported model in ``directory``; a :class:`ModelDirError` naming
    the file and what to do when it is missing, unreadable or not a card."""
    path = directory / CARD_FILE
    if not directory.is_dir():
        raise ModelDirError(f"{directory}: not a model directory",
                            "pass a directory written by `kgbench model export`")
    if not path.is_file():
        # A checkpoint given where its export belongs is the likely slip: name the fix.
        source = directory if (directory / "config.json").is_file() else "HF_DIR"
        raise ModelDirError(
            f"{directory}: no {CARD_FILE} in it, so it is not an exported kgbench model"
            + (" (it looks like a Hugging Face checkpoint)" if source == directory else ""),
            f"export a checkpoint first and pass its --out: `kgbench model export {source} "
            f"--task {'|'.join(TASKS)} --out DIR`")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelDirError(f"{path}: cannot read the model card ({exc})",
                            "export the model again with `kgbench model export`") from None
    if isinstance(doc, dict) and doc.get("version") not in (None, CARD_VERSION):
        raise ModelDirError(f"{path}: card version {doc.get('version')!r}, this kgbench reads "
                            f"version {CARD_VERSION}",
                            "export the model again with this kgbench")
    try:
        return ModelCard.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "card"
        raise ModelDirError(f"{path}: not a kgbench model card ({where}: {first['msg']})",
                            "export the model again with `kgbench model export`") from None


def write_card(directory: Path, card: ModelCard) -> Path:
    """Write ``card`` to ``directory/kgbench-model.json`` (sorted keys, one document)."""
    path = directory / CARD_FILE
    path.write_text(json.dumps(card.model_dump(mode="json"), indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    return path
