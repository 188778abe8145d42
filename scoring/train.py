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

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from extension.core.labels import LABELS
from extension.outputs.output_file import (
    PART_SUFFIX,
    OutputPathError,
    check_output_dir,
    write_atomic,
)
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

    from scoring.export.checkpoint import Checkpoint
    from scoring.runtime.tokenize import TextTokenizer

__all__ = ["CHECKPOINT_DIR", "REPORT_FILE", "TrainReport", "train_classifier"]

CHECKPOINT_DIR = "checkpoint"
REPORT_FILE = "train_report.json"
_EXPORT_DIR = "onnx"
_TOKENIZER_FILES = ("tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                    "vocab.txt", "vocab.json", "merges.txt", "spm.model",
                    "sentencepiece.bpe.model", "spiece.model", "tokenizer.model")
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


def _read_checkpoint(from_dir: Path, max_length: int | None) -> Checkpoint:
    """The checkpoint as the export reads it (config, fast tokenizer, graph inputs,
    maximum length), so that training feeds the model what the exported graph gets.
    Its errors name ``--from``. Unlike the export, a checkpoint with a language-model
    head (``BertForMaskedLM``, the usual base checkpoint) is fine: fine-tuning gives it
    a classification head."""
    from scoring.export.checkpoint import read_checkpoint
    from scoring.export.model_export import require_export_extra

    try:
        require_export_extra()
    except ScoringError as exc:   # "exporting a model needs torch ...": training does too
        raise ScoringError(str(exc).replace("exporting", "fine-tuning", 1), exc.hint) from None
    try:
        return read_checkpoint(from_dir, "classify", max_length=max_length)
    except ScoringError as exc:
        message = str(exc)
        if message.startswith(str(from_dir)):
            message = f"--from {message}"
        raise type(exc)(message, exc.hint) from None


def _label_order(config: Any) -> tuple[str, ...]:
    """Our four labels, in the checkpoint's logit order when its head already has them
    (a model fine-tuned before, trained again), else in :data:`LABELS` order."""
    id2label = getattr(config, "id2label", None) or {}
    own = tuple(str(id2label[i]) for i in sorted(id2label))
    return own if sorted(own) == sorted(LABELS) else LABELS


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """transformers' own warnings and progress bars off for the block: its load report
    (a table of re-initialised keys) and "Writing model shards" bars would bury the
    per-epoch lines; what they say is in :attr:`TrainReport.head`."""
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    bars = logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()


def _load_model(from_dir: Path, labels: Sequence[str]) -> tuple[Any, str]:
    """The checkpoint with a sequence-classification head over ``labels``, and a line
    that says what became of its own head."""
    from transformers import AutoModelForSequenceClassification

    try:
        model, info = AutoModelForSequenceClassification.from_pretrained(
            str(from_dir), num_labels=len(labels), id2label=dict(enumerate(labels)),
            label2id={name: i for i, name in enumerate(labels)},
            ignore_mismatched_sizes=True, output_loading_info=True, local_files_only=True)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelDirError(f"--from {from_dir}: cannot load it as a sequence classifier "
                            f"({_first_line(exc)})",
                            "pass an encoder checkpoint (BERT, RoBERTa, DeBERTa-v2/v3)") from None
    head_keys = [k for k in info.get("missing_keys", ()) if "classifier" in k or "score" in k]
    mismatched = [str(k[0]) if isinstance(k, tuple) else str(k)
                  for k in info.get("mismatched_keys", ())]
    if mismatched:
        head = ("new: the checkpoint's classification head has another number of labels; "
                "a 4-label head was initialised in its place")
    elif head_keys:
        head = "new: the checkpoint has no classification head; a 4-label one was initialised"
    else:
        head = "kept: the checkpoint's 4-label head is fine-tuned as these labels"
    return model, head


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@dataclass
class _Encoded:
    batch: Batch
    truncated_premises: int
    truncated_hypotheses: int


def _encode(tokenizer: TextTokenizer, whole: Tokenizer, examples: Sequence[Example],
            token_types: bool) -> _Encoded:
    """Token ids of each (premise, hypothesis) pair exactly as the runtime encodes them
    (:meth:`scoring.runtime.tokenize.TextTokenizer.encode_pairs`: premise first, the
    premise cut to fit, the hypothesis only when it alone does not fit). ``whole`` (the
    same tokenizer, never truncating) counts the pairs that had to be cut."""
    premises, hypotheses = [e.premise for e in examples], [e.hypothesis for e in examples]
    encodings = tokenizer.encode_pairs(premises, hypotheses, keep="second")
    too_long = sum(len(e.ids) > tokenizer.max_length
                   for e in whole.encode_batch(list(zip(premises, hypotheses, strict=True))))
    batch = Batch(input_ids=[e.ids for e in encodings.items],
                  token_type_ids=[e.type_ids for e in encodings.items] if token_types else [],
                  labels=[e.label for e in examples])
    return _Encoded(batch, too_long - encodings.cut, encodings.cut)


def _prepare_output(out_dir: Path, *, force: bool) -> Path:
    """The staging directory ``OUT.part`` (fresh); refuses an existing ``OUT`` unless
    ``force`` (checked before any training, so a long run does not end in a refusal)."""
    try:
        check_output_dir(out_dir, option="--out")
    except OutputPathError as exc:
        raise ScoringError(str(exc)) from None
    if out_dir.exists() and not force:
        raise ScoringError(f"--out {out_dir} already exists",
                           "pass --force to replace it (the old one stays until the new "
                           "model is complete), or choose another --out")
    staging = out_dir.with_name(out_dir.name + PART_SUFFIX)
    if staging.is_dir():   # left by a killed run: never renamed, so never complete
        shutil.rmtree(staging)
    try:
        staging.mkdir(parents=True)
    except OSError as exc:
        raise ScoringError(f"--out {out_dir}: cannot create {staging} "
                           f"({exc.strerror or exc})", "choose another --out") from None
    return staging


def _publish(staging: Path, out_dir: Path) -> None:
    """Rename ``staging`` onto ``out_dir``; a previous ``out_dir`` is moved aside first
    and removed only after the rename."""
    if not out_dir.exists():
        os.replace(staging, out_dir)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".old", dir=out_dir.parent))
    os.replace(out_dir, old / "previous")
    try:
        os.replace(staging, out_dir)
    except BaseException:
        os.replace(old / "previous", out_dir)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


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

    ``max_length`` defaults to the model's (its tokenizer's and position table's, as
    ``kgbench model export`` reads it); ``held_out_fraction`` is the share of the train
    split's source questions held out for early stopping; ``patience`` the epochs
    without a better held-out macro-F1 before stopping. ``progress`` receives one line
    per epoch and the export's lines. Raises :class:`~scoring.errors.ScoringError` (one
    line, what to do) for bad settings, a benchmark that cannot be trained on, a
    directory that is no checkpoint, or an existing ``out_dir`` without ``force``."""
    started = time.perf_counter()
    say = progress or (lambda _line: None)
    _check_settings(epochs=epochs, learning_rate=learning_rate, batch_size=batch_size,
                    max_length=max_length, held_out_fraction=held_out_fraction,
                    patience=patience)
    checkpoint = _read_checkpoint(from_dir, max_length)
    data = load_training_set(bench_dir, held_out_fraction=held_out_fraction, seed=seed,
                             labels=_label_order(checkpoint.config))
    staging = _prepare_output(out_dir, force=force)
    settings = LoopSettings(labels=data.labels, epochs=epochs, learning_rate=learning_rate, batch_size=batch_size,
                            patience=patience, seed=seed)
    try:
        report = _train_and_export(data, checkpoint, out_dir, staging, settings,
                                   held_out_fraction, device, say, started)
        _publish(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    say(f"wrote {out_dir} (ONNX model, {CHECKPOINT_DIR}/, {REPORT_FILE})")
    return report


def _save_checkpoint(model: Any, checkpoint: Checkpoint, directory: Path) -> None:
    """The fine-tuned weights and config, and the source's tokenizer files (with its
    tokenizer.json as the export read it, converted when the source had only slow
    files), so that ``directory`` is a checkpoint like the one trained from."""
    model.to("cpu").save_pretrained(directory)
    for name in _TOKENIZER_FILES:
        if (checkpoint.path / name).is_file():
            shutil.copyfile(checkpoint.path / name, directory / name)
    (directory / "tokenizer.json").write_text(checkpoint.tokenizer_json, encoding="utf-8")


def _train_and_export(data: TrainingSet, checkpoint: Checkpoint, out_dir: Path, staging: Path,
                      settings: LoopSettings, held_out_fraction: float, device: Device,
                      say: Callable[[str], None], started: float) -> TrainReport:
    from tokenizers import Tokenizer

    from scoring.export import export_model
    from scoring.runtime.tokenize import TextTokenizer

    torch_device, autocast = pick_device(device)
    tokenizer = TextTokenizer(Tokenizer.from_str(checkpoint.tokenizer_json),
                              checkpoint.max_length, source=str(checkpoint.path))
    whole = Tokenizer.from_str(checkpoint.tokenizer_json)
    whole.no_truncation()
    whole.no_padding()
    types = "token_type_ids" in checkpoint.inputs
    fit_part = _encode(tokenizer, whole, data.fit, types)
    held_part = _encode(tokenizer, whole, data.held_out, types)
    fit_counts = data.label_counts(data.fit)
    on_cuda = torch_device == "cuda"
    with deterministic(settings.seed, cuda=on_cuda), _quiet_transformers():
        model, head = _load_model(checkpoint.path, data.labels)
        say(f"training on {len(data.fit)} samples ({data.fit_questions} questions), holding "
            f"out {len(data.held_out)} ({data.held_out_questions} questions); "
            f"{torch_device}{' ' + autocast if autocast else ''}; head {head.split(':')[0]}")
        trained = time.perf_counter()
        results = fit(model, fit_part.batch, held_part.batch, settings,
                      pad_id=tokenizer.pad_id, device=torch_device, autocast=autocast,
                      on_epoch=lambda r: say(_epoch_line(r, settings.epochs)))
        train_seconds = time.perf_counter() - trained
    best = next(r for r in reversed(results) if r.best)
    with _quiet_transformers():
        _save_checkpoint(model, checkpoint, staging / CHECKPOINT_DIR)
    exported = export_model(staging / CHECKPOINT_DIR, "classify", staging / _EXPORT_DIR,
                            max_length=checkpoint.max_length,
                            # its last line names the staging directory: OUT is said at the end
                            progress=lambda line: None if line.startswith("wrote ") else say(line))
    for item in (staging / _EXPORT_DIR).iterdir():
        item.rename(staging / item.name)
    (staging / _EXPORT_DIR).rmdir()
    report = TrainReport(
        benchmark=str(data.samples_file), source=str(checkpoint.path), output=str(out_dir),
        labels=data.labels, head=head, device=torch_device, autocast=autocast,
        settings={"epochs": settings.epochs, "learning_rate": settings.learning_rate,
                  "batch_size": settings.batch_size, "max_length": checkpoint.max_length,
                  "held_out_fraction": held_out_fraction, "patience": settings.patience,
                  "seed": settings.seed, "inputs": list(checkpoint.inputs)},
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
        export={"parity": [{"stage": s.stage, "max_abs_diff": s.max_abs_diff,
                            "tolerance": s.tolerance} for s in exported.stages],
                "size_bytes": exported.size_bytes},
        seconds={"train": train_seconds, "export": exported.seconds,
                 "total": time.perf_counter() - started})
    write_atomic(staging / REPORT_FILE, json.dumps(report.to_json(), indent=2) + "\n")
    return report
