"""``kgbench model train``: fine-tune a sequence classifier on a benchmark's train split
and export it — CAQA's fine-tuning setting (§6.1: evaluators fine-tuned on the
benchmark's training set; their 7–13B models reach F1 ≈ 0.92–0.94, far above
zero-shot).

The steps:

1. the train split's (premise, hypothesis, label) examples (:mod:`scoring.train_data`:
   exactly the pair of :mod:`scoring.inputs`), a held-out part split off by source
   question for early stopping;
2. a Hugging Face checkpoint directory loaded with ``AutoModelForSequenceClassification``
   and our four labels as ``id2label``/``label2id``; a checkpoint with another head (an
   NLI model's three labels, a base model with none) gets a new, randomly initialised
   4-label head (``ignore_mismatched_sizes``), and the report says which happened;
3. the pairs tokenized as the runtime tokenizes them (premise first; the premise is
   truncated, never the hypothesis), then :func:`scoring.train_loop.fit`;
4. the epoch with the best held-out **macro-F1** restored (ties: lower held-out loss).
   Macro-F1 rather than loss because it is what the model is for: the loss keeps
   falling while the model grows more confident on the labels it already gets right,
   and a model that gives up on a minority label can still have a low loss; macro-F1
   weighs each label alike;
5. the checkpoint saved (``OUT/checkpoint/``) and exported with
   :func:`scoring.export.export_model` (``task="classify"``, parity-checked) into
   ``OUT``, with ``OUT/train_report.json``.

Everything is written to ``OUT.part/`` first and renamed to ``OUT`` only when the
export and the report are complete: an interrupted run leaves no model directory that
looks finished (and the ``.part`` directory is removed; a rerun starts over). An
existing ``OUT`` is refused unless ``force``, and then replaced only at the end.

Class imbalance: the loss is not reweighted. The generator's label shares are close to
CAQA's (Table 5: 21–29 % each), so reweighting would change little; the report gives
the label counts of the fit and held-out parts and the majority-class baseline, which
the held-out metrics must beat.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from extension.output_file import OutputPathError, check_output_dir, write_atomic
from scoring.errors import ModelDirError, ScoringError
from scoring.train_data import Example, TrainingSet, load_training_set, majority_baseline
from scoring.train_loop import (
    Batch,
    Device,
    EpochResult,
    LoopSettings,
    deterministic,
    fit,
    pick_device,
)

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["CHECKPOINT_DIR", "REPORT_FILE", "TrainReport", "train_classifier"]

CHECKPOINT_DIR = "checkpoint"
REPORT_FILE = "train_report.json"
DEFAULT_MAX_LENGTH = 512
SELECTION = "held-out macro-F1 (ties: lower held-out loss)"


@dataclass(frozen=True)
class TrainReport:
    """What a training run did; :meth:`to_json` is ``OUT/train_report.json`` and the
    CLI's ``--json`` document."""

    benchmark: str
    source: str
    output: str
    labels: tuple[str, ...]
    head: str
    """What became of the checkpoint's classification head (kept, re-labelled, new)."""
    device: str
    autocast: str | None
    settings: dict[str, Any]
    fit_samples: int
    held_out_samples: int
    fit_questions: int
    held_out_questions: int
    test_samples: int
    label_counts: dict[str, dict[str, int]]
    truncated_premises: int
    truncated_hypotheses: int
    epochs: list[dict[str, Any]]
    best_epoch: int
    stopped_early: bool
    selection: str
    held_out: dict[str, float]
    majority_baseline: dict[str, float | str]
    export: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["labels"] = list(self.labels)
        return doc


def _check_settings(*, epochs: int, learning_rate: float, batch_size: int,
                    max_length: int | None, held_out_fraction: float, patience: int) -> None:
    checks = [(epochs >= 1, "--epochs must be at least 1"),
              (learning_rate > 0, "--lr must be above 0"),
              (batch_size >= 1, "--batch-size must be at least 1"),
              (max_length is None or max_length >= 8, "--max-length must be at least 8"),
              (0 < held_out_fraction < 1, "--held-out must be between 0 and 1 (a share of "
                                          "the train split's questions)"),
              (patience >= 1, "--patience must be at least 1")]
    for ok, message in checks:
        if not ok:
            raise ScoringError(message)


def _check_checkpoint(from_dir: Path) -> None:
    hint = ("pass a Hugging Face checkpoint directory (config.json, the weights and the "
            "tokenizer files, as save_pretrained writes them)")
    if not from_dir.is_dir():
        raise ModelDirError(f"--from {from_dir}: no such directory", hint)
    if not (from_dir / "config.json").is_file():
        raise ModelDirError(f"--from {from_dir}: no config.json, so not a Hugging Face "
                            "checkpoint", hint)
    weights = [p for pattern in ("*.safetensors", "pytorch_model*.bin")
               for p in from_dir.glob(pattern)]
    if not weights:
        raise ModelDirError(f"--from {from_dir}: no weights (model.safetensors or "
                            "pytorch_model.bin)", hint)


def _prepare_output(out_dir: Path, *, force: bool) -> Path:
    """The staging directory ``OUT.part`` (emptied); refuses an existing ``OUT``
    unless ``force``."""
    try:
        check_output_dir(out_dir, option="--out")
    except OutputPathError as exc:
        raise ScoringError(str(exc)) from None
    if out_dir.exists() and not force:
        raise ScoringError(f"--out {out_dir} already exists",
                           "pass --force to replace it (the old one stays until the new "
                           "model is complete), or choose another --out")
    staging = out_dir.with_name(out_dir.name + ".part")
    if staging.exists():   # left by a killed run: never renamed, so never complete
        shutil.rmtree(staging)
    staging.parent.mkdir(parents=True, exist_ok=True)
    return staging


def _publish(staging: Path, out_dir: Path) -> None:
    """Rename ``staging`` onto ``out_dir``; an old ``out_dir`` is moved aside first and
    removed after."""
    old = out_dir.with_name(out_dir.name + ".old.part")
    if old.exists():
        shutil.rmtree(old)
    if out_dir.exists():
        out_dir.rename(old)
    staging.rename(out_dir)
    if old.exists():
        shutil.rmtree(old)


def _load_tokenizer(from_dir: Path) -> tuple[Any, Tokenizer]:
    """The checkpoint's tokenizer (to save beside the fine-tuned weights) and a copy of
    its fast backend, the ``tokenizers`` object the runtime reads from tokenizer.json."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(from_dir))
    except (OSError, ValueError, TypeError) as exc:
        raise ModelDirError(f"--from {from_dir}: cannot load its tokenizer ({_first_line(exc)})",
                            "the checkpoint needs its tokenizer files (tokenizer.json, or "
                            "the vocabulary files save_pretrained writes)") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ModelDirError(f"--from {from_dir}: its tokenizer has no fast (tokenizers) "
                            "version, which the exported model needs",
                            "convert it with transformers, or use a checkpoint with a "
                            "tokenizer.json")
    if tokenizer.pad_token_id is None:
        raise ModelDirError(f"--from {from_dir}: its tokenizer has no padding token",
                            "a sequence classifier reads padded batches: use an encoder "
                            "checkpoint (BERT, RoBERTa, DeBERTa) or set a pad token")
    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    backend.no_padding()
    backend.no_truncation()
    return tokenizer, backend


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _load_model(from_dir: Path, labels: Sequence[str]) -> tuple[Any, str]:
    """The checkpoint with a sequence-classification head over ``labels``, and a line
    that says what became of its own head."""
    from transformers import AutoConfig, AutoModelForSequenceClassification

    try:
        config = AutoConfig.from_pretrained(str(from_dir))
    except (OSError, ValueError, KeyError) as exc:
        raise ModelDirError(f"--from {from_dir}: cannot read config.json ({_first_line(exc)})",
                            "pass a Hugging Face checkpoint directory") from None
    own = [str(config.id2label[i]) for i in sorted(config.id2label)] \
        if getattr(config, "id2label", None) else []
    try:
        model, info = AutoModelForSequenceClassification.from_pretrained(
            str(from_dir), num_labels=len(labels), id2label=dict(enumerate(labels)),
            label2id={name: i for i, name in enumerate(labels)},
            ignore_mismatched_sizes=True, output_loading_info=True)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelDirError(f"--from {from_dir}: cannot load it as a sequence classifier "
                            f"({_first_line(exc)})",
                            "pass an encoder checkpoint (BERT, RoBERTa, DeBERTa-v2/v3)") from None
    missing = [k for k in info.get("missing_keys", ()) if "classifier" in k or "score" in k]
    mismatched = info.get("mismatched_keys", ())
    if missing:
        head = "new: the checkpoint has no classification head; a 4-label one was initialised"
    elif mismatched:
        head = (f"new: the checkpoint's head had {len(own)} labels ({', '.join(own)}); "
                "a 4-label one was initialised in its place")
    elif own == list(labels):
        head = "kept: the checkpoint's head already has these labels"
    else:
        head = (f"re-labelled: the checkpoint's 4-logit head ({', '.join(own)}) is "
                "fine-tuned as these labels")
    return model, head


def _takes_token_types(model: Any) -> bool:
    """Whether the model reads token type ids (BERT does; DeBERTa-v3, with
    ``type_vocab_size`` 0, and RoBERTa-style single-type models gain nothing from them)."""
    accepts = "token_type_ids" in inspect.signature(model.forward).parameters
    return accepts and getattr(model.config, "type_vocab_size", 1) > 1


def _max_length(asked: int | None, model: Any, tokenizer: Any) -> int:
    limits = [DEFAULT_MAX_LENGTH]
    positions = getattr(model.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        limits.append(positions)
    if isinstance(tokenizer.model_max_length, int) and tokenizer.model_max_length < 10**6:
        limits.append(tokenizer.model_max_length)
    if asked is None:
        return min(limits)
    if asked > min(limits[1:], default=asked):
        raise ScoringError(f"--max-length {asked} is more than the model reads "
                           f"({min(limits[1:])} positions)",
                           f"use --max-length {min(limits[1:])} or less")
    return asked


@dataclass
class _Encoded:
    batch: Batch
    truncated_premises: int = 0
    truncated_hypotheses: int = 0


def _encode(backend: Tokenizer, examples: Sequence[Example], max_length: int,
            token_types: bool) -> _Encoded:
    """Token ids of each (premise, hypothesis) pair, premise first, cut to
    ``max_length`` by truncating the premise (the claim is never cut, so the model never
    judges half a claim); a hypothesis that alone is too long is cut at its end."""
    encodings = backend.encode_batch([(e.premise, e.hypothesis) for e in examples])
    truncated_premises = truncated_hypotheses = 0
    for i, encoding in enumerate(encodings):
        if len(encoding.ids) <= max_length:
            continue
        example = examples[i]
        backend.enable_truncation(max_length, strategy="only_first")
        try:
            encodings[i] = backend.encode(example.premise, example.hypothesis)
            truncated_premises += 1
        except Exception:  # tokenizers: "Sequence to truncate too short" (no own type)
            backend.enable_truncation(max_length, strategy="longest_first")
            encodings[i] = backend.encode(example.premise, example.hypothesis)
            truncated_hypotheses += 1
        finally:
            backend.no_truncation()
    batch = Batch(input_ids=[e.ids for e in encodings],
                  token_type_ids=[e.type_ids for e in encodings] if token_types else [],
                  labels=[e.label for e in examples])
    return _Encoded(batch, truncated_premises, truncated_hypotheses)


def _epoch_line(result: EpochResult, epochs: int) -> str:
    mark = " (best)" if result.best else ""
    return (f"epoch {result.epoch}/{epochs}: train loss {result.train_loss:.4f}, held-out "
            f"loss {result.held_out.loss:.4f}, macro-F1 {result.held_out.macro_f1:.3f}, "
            f"accuracy {result.held_out.accuracy:.3f}{mark}, {result.seconds:.1f} s")


def train_classifier(bench_dir: Path, from_dir: Path, out_dir: Path, *, epochs: int = 3,
                     learning_rate: float = 2e-5, batch_size: int = 16,
                     max_length: int | None = None, held_out_fraction: float = 0.1,
                     patience: int = 2, seed: int = 0, device: Device = "auto",
                     force: bool = False,
                     progress: Callable[[str], None] | None = None) -> TrainReport:
    """Fine-tune the checkpoint ``from_dir`` on the train split of the benchmark in
    ``bench_dir`` and export it to ``out_dir`` (see the module docstring).

    ``max_length`` defaults to what the model reads (at most 512 tokens);
    ``held_out_fraction`` is the share of the train split's source questions held out
    for early stopping; ``patience`` the epochs without a better held-out macro-F1
    before stopping. ``progress`` receives one line per epoch (and the export's lines).
    Raises :class:`~scoring.errors.ScoringError` (one line, what to do) for bad settings,
    a benchmark that cannot be trained on, a directory that is no checkpoint, or an
    existing ``out_dir`` without ``force``."""
    started = time.perf_counter()
    say = progress or (lambda _line: None)
    _check_settings(epochs=epochs, learning_rate=learning_rate, batch_size=batch_size,
                    max_length=max_length, held_out_fraction=held_out_fraction,
                    patience=patience)
    _check_checkpoint(from_dir)
    data = load_training_set(bench_dir, held_out_fraction=held_out_fraction, seed=seed)
    staging = _prepare_output(out_dir, force=force)
    try:
        report = _train_and_export(data, from_dir, out_dir, staging, LoopSettings(
            epochs=epochs, learning_rate=learning_rate, batch_size=batch_size,
            patience=patience, seed=seed), max_length, device, say, started)
        _publish(staging, out_dir)
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
        raise
    return report


def _train_and_export(data: TrainingSet, from_dir: Path, out_dir: Path, staging: Path,
                      settings: LoopSettings, max_length: int | None, device: Device,
                      say: Callable[[str], None], started: float) -> TrainReport:
    from scoring.export import export_model

    torch_device, autocast = pick_device(device)
    with deterministic(settings.seed):
        tokenizer, backend = _load_tokenizer(from_dir)
        model, head = _load_model(from_dir, data.labels)
        length = _max_length(max_length, model, tokenizer)
        types = _takes_token_types(model)
        fit_part = _encode(backend, data.fit, length, types)
        held_part = _encode(backend, data.held_out, length, types)
        fit_counts = data.label_counts(data.fit)
        say(f"training on {len(data.fit)} samples ({data.fit_questions} questions), "
            f"{len(data.held_out)} held out ({data.held_out_questions} questions), "
            f"{torch_device}{' ' + autocast if autocast else ''}; head {head.split(':')[0]}")
        trained = time.perf_counter()
        results = fit(model, fit_part.batch, held_part.batch, settings,
                      pad_id=int(tokenizer.pad_token_id), device=torch_device,
                      autocast=autocast,
                      on_epoch=lambda r: say(_epoch_line(r, settings.epochs)))
        train_seconds = time.perf_counter() - trained
    best = max(results, key=lambda r: (r.held_out.macro_f1, -r.held_out.loss))
    checkpoint = staging / CHECKPOINT_DIR
    model.to("cpu").save_pretrained(checkpoint)
    tokenizer.save_pretrained(checkpoint)
    exporting = time.perf_counter()
    exported = export_model(checkpoint, "classify", staging / "onnx", max_length=length,
                            progress=say)
    for item in (staging / "onnx").iterdir():
        item.rename(staging / item.name)
    (staging / "onnx").rmdir()
    export_seconds = time.perf_counter() - exporting
    report = TrainReport(
        benchmark=str(data.samples_file), source=str(from_dir), output=str(out_dir),
        labels=data.labels, head=head, device=torch_device, autocast=autocast,
        settings={"epochs": settings.epochs, "learning_rate": settings.learning_rate,
                  "batch_size": settings.batch_size, "max_length": length,
                  "held_out_fraction": _fraction(data), "patience": settings.patience,
                  "seed": settings.seed, "token_type_ids": types},
        fit_samples=len(data.fit), held_out_samples=len(data.held_out),
        fit_questions=data.fit_questions, held_out_questions=data.held_out_questions,
        test_samples=data.test_samples,
        label_counts={"fit": fit_counts, "held_out": data.label_counts(data.held_out)},
        truncated_premises=fit_part.truncated_premises + held_part.truncated_premises,
        truncated_hypotheses=fit_part.truncated_hypotheses + held_part.truncated_hypotheses,
        epochs=[{"epoch": r.epoch, "train_loss": r.train_loss, "held_out_loss": r.held_out.loss,
                 "held_out_macro_f1": r.held_out.macro_f1,
                 "held_out_accuracy": r.held_out.accuracy, "seconds": r.seconds}
                for r in results],
        best_epoch=best.epoch, stopped_early=len(results) < settings.epochs,
        selection=SELECTION,
        held_out={"macro_f1": best.held_out.macro_f1, "accuracy": best.held_out.accuracy,
                  "loss": best.held_out.loss},
        majority_baseline=majority_baseline(fit_counts, data.labels,
                                            [e.label for e in data.held_out]),
        export=_export_summary(exported),
        seconds={"train": train_seconds, "export": export_seconds,
                 "total": time.perf_counter() - started})
    write_atomic(staging / REPORT_FILE, json.dumps(report.to_json(), indent=2) + "\n")
    return report


def _fraction(data: TrainingSet) -> float:
    total = data.fit_questions + data.held_out_questions
    return data.held_out_questions / total if total else 0.0


def _export_summary(exported: Any) -> dict[str, Any]:
    to_json = getattr(exported, "to_json", None)
    return dict(to_json()) if callable(to_json) else {}

