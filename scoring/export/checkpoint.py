"""What a Hugging Face checkpoint directory holds, read before anything is exported:
its config, its tokenizer (fast, or converted from slow tokenizer files), the label
names and NLI roles the card will carry, the graph inputs the model needs, the maximum
length, and the checksum of its files. Every problem is one :class:`ModelDirError` or
:class:`ScoringError` line that names the directory and says what to do.

torch is not needed here; transformers is (lazily: the config and tokenizer readers).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.card import NLI_ROLES, TASKS, NliRole, Task
from scoring.errors import ModelDirError, ScoringError

__all__ = ["Checkpoint", "LabelPlan", "check_head", "checkpoint_sha256", "plan_labels",
           "read_checkpoint"]

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                 "pytorch_model.bin.index.json")
_SLOW_TOKENIZER_FILES = ("vocab.txt", "vocab.json", "merges.txt", "spm.model",
                         "sentencepiece.bpe.model", "spiece.model", "tokenizer.model",
                         "sentencepiece.model")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                    "added_tokens.json", *_SLOW_TOKENIZER_FILES)
_HASHED = re.compile(r"^(config\.json|.*\.safetensors|pytorch_model.*\.bin|.*\.index\.json)$")

_ROLE_NAMES: dict[NliRole, frozenset[str]] = {
    "entailment": frozenset({"entailment", "entail", "entails", "entailed"}),
    "neutral": frozenset({"neutral"}),
    "contradiction": frozenset({"contradiction", "contradict", "contradicts",
                                "contradictory", "contradicted"}),
}
_RELEVANCE_NAMES = frozenset({"relevance", "relevant", "positive", "yes", "true", "match"})
_MAX_LENGTH_CAP = 4096
"""Beyond this a "maximum length" in a tokenizer config is a placeholder (transformers
writes 1e30 when it does not know); an encoder's is bounded by its position table."""


@dataclass(frozen=True)
class Checkpoint:
    """A readable checkpoint directory: ``config`` is transformers' config object,
    ``tokenizer_json`` the fast tokenizer's serialization (converted when the directory
    had only slow tokenizer files: ``converted_from`` names them)."""

    path: Path
    config: Any
    model_type: str
    tokenizer_json: str
    max_length: int
    position_limit: int | None
    inputs: tuple[str, ...]
    converted_from: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class LabelPlan:
    """The labels as the card carries them, in logit order; ``nli_roles`` for NLI;
    ``relevance`` the logit index of relevance for a 2-logit rerank model (the graph
    then outputs that logit minus the other, see :mod:`scoring.export.graph`)."""

    labels: tuple[str, ...]
    nli_roles: dict[NliRole, int] | None = None
    relevance: int | None = None
    note: str | None = None


def _is_checkpoint_dir(path: Path) -> None:
    if not path.exists():
        raise ModelDirError(f"{path}: no such directory",
                            "give a Hugging Face checkpoint directory (config.json, weights, "
                            "tokenizer files), e.g. one written by save_pretrained")
    if not path.is_dir():
        raise ModelDirError(f"{path}: not a directory",
                            "give a Hugging Face checkpoint directory, not a file")
    if not (path / "config.json").is_file():
        raise ModelDirError(f"{path}: no config.json, so it is not a Hugging Face checkpoint",
                            "give the directory that model.save_pretrained(DIR) and "
                            "tokenizer.save_pretrained(DIR) wrote")
    if not any((path / name).is_file() for name in _WEIGHT_FILES):
        raise ModelDirError(f"{path}: no weights (model.safetensors or pytorch_model.bin)",
                            "save the model's weights into it with model.save_pretrained(DIR)")


def _read_config(path: Path) -> Any:
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelDirError(f"{path / 'config.json'}: transformers cannot read it ({first})",
                            "check the file, or that this transformers knows the model type"
                            ) from None


def _tokenizer(path: Path) -> tuple[str, tuple[str, ...]]:
    """The fast tokenizer's JSON, and the slow files it was converted from (none when
    the directory had a tokenizer.json)."""
    fast = path / "tokenizer.json"
    if fast.is_file():
        try:
            text = fast.read_text(encoding="utf-8")
            from tokenizers import Tokenizer

            Tokenizer.from_str(text)
        except Exception as exc:  # tokenizers raises its own Exception subclass
            raise ModelDirError(f"{fast}: not a tokenizer the tokenizers library reads ({exc})",
                                "save the tokenizer again with tokenizer.save_pretrained(DIR)"
                                ) from None
        return text, ()
    slow = tuple(name for name in _SLOW_TOKENIZER_FILES if (path / name).is_file())
    if not slow:
        raise ModelDirError(
            f"{path}: no tokenizer (no tokenizer.json, and none of "
            f"{', '.join(_SLOW_TOKENIZER_FILES)})",
            "save the model's tokenizer into the directory: "
            "AutoTokenizer.from_pretrained(NAME).save_pretrained(DIR)")
    from transformers import AutoTokenizer

    try:
        converted = AutoTokenizer.from_pretrained(path, use_fast=True, local_files_only=True)
        backend = converted.backend_tokenizer
    except Exception as exc:  # conversion raises many kinds (ImportError for sentencepiece...)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelDirError(f"{path}: cannot convert the slow tokenizer ({', '.join(slow)}) "
                            f"to a fast one ({first})",
                            "save a tokenizer.json with a transformers that can convert it "
                            "(sentencepiece models need the sentencepiece package)") from None
    return backend.to_str(), slow


def _max_length(path: Path, config: Any) -> tuple[int, int | None]:
    """(default maximum length, the position table's size or None for relative
    positions): the smaller of the tokenizer's ``model_max_length`` and the config's
    ``max_position_embeddings`` / ``n_positions``, capped at 4096, 512 when neither says."""
    limits = []
    positions = None
    for name in ("max_position_embeddings", "n_positions"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            positions = value
            break
    # DeBERTa-v2/v3 with relative attention and no absolute position input reads
    # sequences longer than its position table.
    relative = (getattr(config, "relative_attention", False)
                and not getattr(config, "position_biased_input", True))
    if positions is not None:
        limits.append(positions)
    tokenizer_config = path / "tokenizer_config.json"
    if tokenizer_config.is_file():
        try:
            value = json.loads(tokenizer_config.read_text(encoding="utf-8")).get("model_max_length")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            value = None
        if isinstance(value, int | float) and 2 <= value <= _MAX_LENGTH_CAP:
            limits.append(int(value))
    if not limits:
        limits.append(512)
    return min(min(limits), _MAX_LENGTH_CAP), None if relative else positions


def _inputs(config: Any, task: Task) -> tuple[str, ...]:
    """input_ids and attention_mask, and token_type_ids when the model has a token type
    embedding with more than one type (BERT: 2; RoBERTa 1 and DeBERTa-v3 0, for which
    the ids are all zero and the input is left out). A causal LM gets no types."""
    types = getattr(config, "type_vocab_size", 0)
    if task != "causal-lm" and isinstance(types, int) and types > 1:
        return ("input_ids", "attention_mask", "token_type_ids")
    return ("input_ids", "attention_mask")


def read_checkpoint(path: Path, task: Task, *, max_length: int | None = None) -> Checkpoint:
    """Read and check the checkpoint directory ``path`` for ``task``."""
    if task not in TASKS:
        raise ScoringError(f"unknown task {task!r}", f"choose one of {', '.join(TASKS)}")
    _is_checkpoint_dir(path)
    config = _read_config(path)
    tokenizer_json, converted = _tokenizer(path)
    default, positions = _max_length(path, config)
    notes: tuple[str, ...] = ()
    if converted:
        notes = (f"converted the slow tokenizer ({', '.join(converted)}) to tokenizer.json",)
    if task == "embed":
        from scoring.export.sentence import read_sentence_pipeline

        pipeline = read_sentence_pipeline(path)
        notes += pipeline.notes
        if pipeline.max_seq_length is not None:
            # sentence-transformers truncates to its max_seq_length, not to the
            # tokenizer's limit: by default the export reads what the model was used with
            default = min(default, pipeline.max_seq_length)
    if max_length is not None:
        if max_length < 2:
            raise ScoringError(f"--max-length {max_length}: must be at least 2",
                               f"leave it out for the model's own ({default})")
        if positions is not None and max_length > positions:
            raise ScoringError(f"--max-length {max_length}: the model has position embeddings "
                               f"for {positions} tokens only",
                               f"give at most {positions}, or leave it out ({default})")
    return Checkpoint(path=path, config=config, model_type=str(config.model_type),
                      tokenizer_json=tokenizer_json, max_length=max_length or default,
                      position_limit=positions, inputs=_inputs(config, task),
                      converted_from=converted, notes=notes)


_LM_HEADS = ("LMHeadModel", "ForCausalLM", "ForMaskedLM", "ForConditionalGeneration")
_CLASSIFIER_HEADS = ("ForSequenceClassification",)
_CAUSAL_HEADS = ("LMHeadModel", "ForCausalLM")


def check_head(config: Any, task: Task, path: Path) -> None:
    """Refuse a checkpoint whose saved architecture does not fit ``task``: a language
    model (GPT2LMHeadModel, BertForMaskedLM...) has no classification head for nli,
    classify or rerank, and a sequence classifier none for causal-lm; transformers
    would add that head with random weights; a causal LM is no sentence encoder for
    embed. (A config without ``architectures`` is
    judged when the weights are loaded: a head they lack is refused there.)"""
    architectures = [str(a) for a in (getattr(config, "architectures", None) or [])]
    if not architectures:
        return
    shown = ", ".join(architectures)
    if task not in ("causal-lm", "embed") and all(a.endswith(_LM_HEADS) for a in architectures):
        raise ScoringError(
            f"{path}: the checkpoint is a language model ({shown}), not a sequence "
            f"classifier: it has no weights for --task {task}",
            "export it with --task causal-lm, or export a model fine-tuned for the task "
            "(kgbench model train fine-tunes one)")
    if task == "embed" and all(a.endswith(_CAUSAL_HEADS) for a in architectures):
        raise ScoringError(
            f"{path}: the checkpoint is a causal language model ({shown}); --task embed "
            "mean-pools an encoder's hidden states (a sentence encoder such as "
            "all-MiniLM-L6-v2)", "export it with --task causal-lm")
    if task == "causal-lm" and all(a.endswith(_CLASSIFIER_HEADS) for a in architectures):
        raise ScoringError(
            f"{path}: the checkpoint is a sequence classifier ({shown}), not a causal "
            "language model: it has no weights for --task causal-lm",
            "export it with --task nli, classify or rerank")


def _normal(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def _config_labels(config: Any) -> tuple[str, ...]:
    id2label = getattr(config, "id2label", None) or {}
    count = int(getattr(config, "num_labels", len(id2label)) or len(id2label))
    return tuple(str(id2label.get(i, id2label.get(str(i), f"LABEL_{i}"))) for i in range(count))


def plan_labels(config: Any, task: Task, label_map: Mapping[str, str] | None = None,
                *, source: Path | None = None) -> LabelPlan:
    """The card's labels for ``task`` from ``config.id2label`` (logit order).

    * nli: 2 or 3 labels, each found by name (entailment/entail, neutral,
      contradiction/contradict, any case) or given by ``label_map`` (``{"LABEL_0":
      "entailment", ...}``); roles that cannot all be found are an error that says to
      pass ``--label-map``;
    * classify: at least two labels, renamed by ``label_map`` (``{"LABEL_0": "supportive"}``);
    * rerank: one logit, or two, of which the one named relevance/relevant/positive/yes
      (or given ``relevance`` in ``label_map``, else logit 1, the convention of binary
      cross-encoders) is relevance;
    * causal-lm and embed: no labels.
    """
    where = f"{source}: " if source else ""
    labels = _config_labels(config)
    mapping = dict(label_map or {})
    unknown = sorted(set(mapping) - set(labels))
    if unknown and task not in ("causal-lm", "embed"):
        raise ScoringError(f"--label-map names {', '.join(map(repr, unknown))}, not a label of "
                           f"the model (its labels: {', '.join(labels)})",
                           "use the names of config.json's id2label")
    if task in ("causal-lm", "embed"):
        if mapping:
            raise ScoringError(f"--label-map is for nli, classify and rerank models; a {task} "
                               "model has no labels", "drop --label-map")
        return LabelPlan(labels=())
    if task == "classify":
        if len(labels) < 2:
            raise ScoringError(f"{where}the model has {len(labels)} output(s); a classifier "
                               "needs at least two labels",
                               "export a one-logit cross-encoder with --task rerank")
        renamed = tuple(mapping.get(name, name) for name in labels)
        if len(set(renamed)) != len(renamed):
            raise ScoringError(f"--label-map gives two labels the same name ({', '.join(renamed)})",
                               "map each label to a different name")
        return LabelPlan(labels=renamed)
    if task == "rerank":
        return _rerank_plan(labels, mapping, where)
    return _nli_plan(labels, mapping, where)


def _rerank_plan(labels: tuple[str, ...], mapping: dict[str, str], where: str) -> LabelPlan:
    if len(labels) == 1:
        return LabelPlan(labels=labels)
    if len(labels) != 2:
        raise ScoringError(f"{where}the model has {len(labels)} outputs; a cross-encoder has one "
                           "relevance logit (or two: not relevant, relevant)",
                           "export it with --task classify")
    chosen = [i for i, name in enumerate(labels) if _normal(mapping.get(name, "")) == "relevance"]
    if not chosen:
        chosen = [i for i, name in enumerate(labels) if _normal(name) in _RELEVANCE_NAMES]
    note = None
    if len(chosen) != 1:
        chosen = [1]
        note = (f"relevance is logit 1 ({labels[1]}), the convention of binary cross-encoders; "
                f"pass --label-map {labels[0]}=relevance if it is the other one")
    index = chosen[0]
    return LabelPlan(labels=(labels[index],), relevance=index, note=note)


def _nli_plan(labels: tuple[str, ...], mapping: dict[str, str], where: str) -> LabelPlan:
    if len(labels) not in (2, 3):
        raise ScoringError(f"{where}the model has {len(labels)} outputs; an NLI model has 3 "
                           "(entailment, neutral, contradiction) or 2",
                           "export it with --task classify")
    roles: dict[NliRole, int] = {}
    for index, name in enumerate(labels):
        given = mapping.get(name)
        if given is not None:
            role = next((r for r in NLI_ROLES if _normal(given) in _ROLE_NAMES[r]), None)
            if role is None:
                raise ScoringError(f"--label-map {name}={given}: not an NLI role",
                                   "map each label to entailment, neutral or contradiction")
        else:
            role = next((r for r in NLI_ROLES if _normal(name) in _ROLE_NAMES[r]), None)
        if role is None:
            continue
        if role in roles:
            raise ScoringError(f"{where}two labels are {role}: {labels[roles[role]]} and {name}",
                               "pass --label-map NAME=ROLE for each label")
        roles[role] = index
    wanted = set(NLI_ROLES) if len(labels) == 3 else {"entailment", "contradiction"}
    if set(roles) != wanted:
        missing = [r for r in NLI_ROLES if r in wanted and r not in roles]
        example = " ".join(f"--label-map {name}={role}" for name, role in
                           zip(labels, sorted(wanted, key=NLI_ROLES.index), strict=False))
        raise ScoringError(
            f"{where}cannot tell which label is {' / '.join(missing)} (the model's labels: "
            f"{', '.join(labels)})",
            f"pass the roles in logit order, e.g. {example} (check the model's documentation)")
    return LabelPlan(labels=labels, nli_roles={r: roles[r] for r in NLI_ROLES if r in roles})


def checkpoint_sha256(path: Path) -> str:
    """SHA-256 over the checkpoint's config, weight and tokenizer files: each file's
    name, then its bytes, files sorted by name (what the card's ``source.sha256`` is)."""
    digest = hashlib.sha256()
    names = sorted(p.name for p in path.iterdir()
                   if p.is_file() and (_HASHED.match(p.name) or p.name in _TOKENIZER_FILES))
    for name in names:
        digest.update(name.encode("utf-8") + b"\0")
        with (path / name).open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()

