"""``export_model``: a Hugging Face checkpoint directory -> an exported model directory
(``model.onnx``, ``tokenizer.json``, ``kgbench-model.json``), checked against PyTorch.

The steps: read the checkpoint (:mod:`~scoring.export.checkpoint`), load it for the
task and trace it (:mod:`~scoring.export.graph`), then optionally optimize, and convert
to fp16 or quantize to int8 (:mod:`~scoring.export.convert`); every graph is compared
with PyTorch
(:mod:`~scoring.export.parity`) and one that differs by more than its tolerance stops
the export with the numbers. Everything is written into a temporary directory beside
``out_dir``, renamed onto it only when complete: ``out_dir`` is either the previous
model or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from extension.outputs.output_file import check_output_dir
from scoring.card import (
    CARD_FILE,
    MODEL_FILE,
    OUTPUT_NAMES,
    TOKENIZER_FILE,
    Embedding,
    ModelCard,
    Parity,
    SourceCheckpoint,
    Task,
    write_card,
)
from scoring.errors import ScoringError
from scoring.export.checkpoint import (
    Checkpoint,
    check_head,
    checkpoint_sha256,
    plan_labels,
    read_checkpoint,
)
from scoring.export.parity import (
    StageParity,
    compare,
    label_disagreements,
    logit_scale,
    ort_logits,
    parity_batches,
    stage_tolerance,
)

__all__ = ["DEFAULT_OPSET", "EXTRA_HINT", "ExportReport", "export_model", "require_export_extra"]

DEFAULT_OPSET = 18


@dataclass(frozen=True)
class ExportReport:
    """What :func:`export_model` wrote: the directory, its card, each graph's parity
    (``stages``: fp32, then optimized, then fp16 or int8, as run), the size of
    model.onnx, the seconds the export took and notes (a converted tokenizer, a
    relevance logit chosen by convention, the optimizer's fusions, what int8 quantized)."""

    out_dir: Path
    card: ModelCard
    stages: tuple[StageParity, ...]
    size_bytes: int
    seconds: float
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"out": str(self.out_dir), "card": self.card.model_dump(mode="json"),
                "parity": [{"stage": s.stage, "max_abs_diff": s.max_abs_diff,
                            "tolerance": s.tolerance,
                            **({} if s.label_disagreements is None
                               else {"label_disagreements": s.label_disagreements})}
                           for s in self.stages],
                "size_bytes": self.size_bytes, "seconds": round(self.seconds, 3),
                "notes": list(self.notes)}


EXTRA_HINT = "install the export extra: pip install 'kgbench[export]'"


def require_export_extra() -> None:
    """Raise a :class:`ScoringError` naming the ``export`` extra when torch,
    transformers or onnx cannot be imported (the scoring runtime needs none of them;
    exporting and fine-tuning do)."""
    import importlib

    for module in ("torch", "transformers", "onnx"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ScoringError(f"exporting a model needs {module}, which cannot be imported "
                               f"({exc})", EXTRA_HINT) from None


def _check_out(hf_dir: Path, out_dir: Path, force: bool) -> None:
    check_output_dir(out_dir, option="--out")
    source, target = hf_dir.resolve(), out_dir.resolve()
    if target == source or target in source.parents:
        raise ScoringError(f"--out {out_dir} is (or holds) the checkpoint {hf_dir}: the export "
                           "would replace it", "choose another --out")
    if not out_dir.is_dir() or (out_dir / CARD_FILE).is_file():
        return
    try:
        held = sorted(p.name for p in out_dir.iterdir())
    except OSError as exc:
        raise ScoringError(f"--out {out_dir}: cannot list it ({exc.strerror or exc})",
                           "choose another --out") from None
    if held and not force:
        shown = ", ".join(held[:3]) + (", ..." if len(held) > 3 else "")
        raise ScoringError(f"--out {out_dir} exists and is not an exported model (it holds "
                           f"{shown}): refusing to replace it",
                           "choose a new or empty directory, or pass --force to replace it")


def _pad_id(checkpoint: Checkpoint, tokenizer: Any) -> int:
    """The token the batches are padded with (masked, so any id would do, but the
    model's own keeps the graph's inputs what the model saw in training)."""
    config = checkpoint.config
    for value in (getattr(config, "pad_token_id", None),
                  (tokenizer.padding or {}).get("pad_id"),
                  *(tokenizer.token_to_id(t) for t in ("[PAD]", "<pad>")),
                  getattr(config, "eos_token_id", None)):
        if isinstance(value, int) and 0 <= value < tokenizer.get_vocab_size(with_added_tokens=True):
            return value
    return 0


def _runtime_tokenizer(checkpoint: Checkpoint) -> tuple[Any, int]:
    """The tokenizer as exported (padding to the longest with the pad token set, no
    truncation: the runtime truncates the premise, never the hypothesis) and its pad id."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(checkpoint.tokenizer_json)
    pad = _pad_id(checkpoint, tokenizer)
    tokenizer.no_truncation()
    tokenizer.enable_padding(pad_id=pad, pad_token=tokenizer.id_to_token(pad) or "[PAD]")
    return tokenizer, pad


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    import torch
    import transformers
    try:
        ours = version("kgbench")
    except PackageNotFoundError:   # run from a source tree that was never installed
        ours = "(not installed)"
    return f"kgbench {ours}, torch {torch.__version__}, transformers {transformers.__version__}"


def _refuse(stage: StageParity, inputs: int, rows: int) -> ScoringError:
    if stage.label_disagreements:
        return ScoringError(
            f"parity check failed ({stage.stage}): the {stage.stage} graph gives "
            f"{stage.label_disagreements} of {rows} sample rows another label than PyTorch "
            f"(logits within {stage.max_abs_diff:.3g} of PyTorch's, tolerance "
            f"{stage.tolerance:g}); nothing was written",
            f"export without --{stage.stage}: quantization changes this model's decisions")
    return ScoringError(
        f"parity check failed ({stage.stage}): the ONNX graph's outputs differ from PyTorch's "
        f"by up to {stage.max_abs_diff:.3g} on {inputs} sample inputs, more than the "
        f"tolerance {stage.tolerance:g}; nothing was written",
        "look for an export bug (try another --opset); if the difference is expected, "
        "pass a larger --tolerance")


def _embedding(task: Task, reference: list[Any]) -> Embedding | None:
    """An embed card's description of its vectors (their size, from PyTorch's output)."""
    return Embedding(dimension=int(reference[0].shape[-1])) if task == "embed" else None


def _commit(work: Path, out_dir: Path) -> None:
    """Rename ``work`` onto ``out_dir`` (the previous directory, if any, moved aside
    first and removed after)."""
    if not out_dir.exists():
        os.replace(work, out_dir)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".old", dir=out_dir.parent))
    os.replace(out_dir, old / "model")
    try:
        os.replace(work, out_dir)
    except BaseException:
        os.replace(old / "model", out_dir)
        shutil.rmtree(old, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def export_model(hf_dir: Path, task: Task, out_dir: Path, *, max_length: int | None = None,
                 opset: int = DEFAULT_OPSET, fp16: bool = False, optimize: bool = False,
                 int8: bool = False, tolerance: float | None = None,
                 label_map: Mapping[str, str] | None = None,
                 progress: Callable[[str], None] | None = None,
                 force: bool = False) -> ExportReport:
    """Export the checkpoint ``hf_dir`` for ``task`` to ``out_dir`` (see the module
    docstring). ``int8``: dynamic int8 quantization of the weights
    (:func:`~scoring.export.convert.to_int8`), after the optimizer, for the CPU; not
    with ``fp16``. ``tolerance`` (absolute, on logits) replaces every stage's default
    (:mod:`scoring.export.parity`: 1e-4 fp32, 1e-3 optimized, 5e-2 fp16, 1e-1 int8,
    each times the largest |logit|, at least 1; an int8 classifier must also keep every
    sample's label); ``label_map`` names NLI roles or
    renames labels (:func:`~scoring.export.checkpoint.plan_labels`); ``force`` lets an
    existing non-empty directory that is not an exported model be replaced."""
    started = time.perf_counter()
    say = progress or (lambda _message: None)
    require_export_extra()
    if tolerance is not None and not tolerance > 0:
        raise ScoringError(f"--tolerance {tolerance}: must be a positive number",
                           "leave it out for the defaults (1e-4 fp32, 1e-3 optimized, "
                           "5e-2 fp16, 1e-1 int8, each times the largest |logit|)")
    if fp16 and int8:
        raise ScoringError("--fp16 and --int8 are two different precisions: choose one",
                           "--fp16 for a GPU, --int8 for the CPU")
    if not 9 <= opset <= 23:
        raise ScoringError(f"--opset {opset}: torch exports opsets 9 to 23",
                           f"leave it out for {DEFAULT_OPSET}")
    checkpoint = read_checkpoint(hf_dir, task, max_length=max_length)
    check_head(checkpoint.config, task, hf_dir)
    plan = plan_labels(checkpoint.config, task, label_map, source=hf_dir)
    _check_out(hf_dir, out_dir, force)
    notes = [*checkpoint.notes, *([plan.note] if plan.note else [])]

    from scoring.export.graph import load_model, onnx_export, torch_logits

    say(f"loading the {checkpoint.model_type} model for {task}")
    module = load_model(hf_dir, task, checkpoint.config, relevance=plan.relevance)
    tokenizer, pad = _runtime_tokenizer(checkpoint)
    samples = parity_batches(tokenizer, task, checkpoint.inputs, checkpoint.max_length, pad)
    reference = [torch_logits(module, b, checkpoint.inputs) for b in samples.batches]
    scale = logit_scale(reference, samples.batches, task)

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".part", dir=out_dir.parent))
    try:
        stages: list[StageParity] = []

        def check(stage: str, graph: Path) -> None:
            got = ort_logits(graph, samples.batches, stage=stage)
            result = compare(stage, reference, got, samples.batches, task,
                             stage_tolerance(stage, tolerance, scale))
            if stage == "int8" and task in ("nli", "classify") and math.isfinite(
                    result.max_abs_diff):   # (inf: shapes differ, no labels to compare)
                result = dataclasses.replace(
                    result, label_disagreements=label_disagreements(reference, got))
            stages.append(result)
            flips = result.label_disagreements
            labels = ("" if flips is None else ", labels kept" if flips == 0
                      else f", {flips} labels differ")
            say(f"parity {stage}: max |diff| {result.max_abs_diff:.3g} "
                f"(tolerance {result.tolerance:g}){labels}")
            if not result.passed:
                raise _refuse(result, samples.inputs,
                              sum(len(b["input_ids"]) for b in samples.batches))

        graph = work / "fp32.onnx"
        say(f"exporting to ONNX (opset {opset})")
        onnx_export(module, samples.sample, checkpoint.inputs, task, graph, opset=opset)
        check("fp32", graph)
        if optimize:
            graph = _optimized(graph, work, checkpoint, notes, say)
            if graph.name == "optimized.onnx":
                check("optimized", graph)
        if fp16:
            from scoring.export.convert import to_fp16

            say("converting to fp16")
            to_fp16(graph, work / "fp16.onnx")
            graph = work / "fp16.onnx"
            check("fp16", graph)
        if int8:
            graph = _quantized(graph, work, notes, say)
            check("int8", graph)
        os.replace(graph, work / MODEL_FILE)
        for leftover in ("fp32.onnx", "optimized.onnx", "fp16.onnx", "int8.onnx"):
            (work / leftover).unlink(missing_ok=True)
        (work / TOKENIZER_FILE).write_text(tokenizer.to_str(), encoding="utf-8")
        final = stages[-1]
        card = ModelCard(
            task=task, labels=plan.labels, nli_roles=plan.nli_roles,
            output=OUTPUT_NAMES[task], embedding=_embedding(task, reference),
            max_length=checkpoint.max_length, inputs=checkpoint.inputs, opset=opset,
            precision="fp16" if fp16 else "int8" if int8 else "fp32",
            optimized=any(s.stage == "optimized" for s in stages),
            source=SourceCheckpoint(path=str(hf_dir.resolve()), model_type=checkpoint.model_type,
                                    sha256=checkpoint_sha256(hf_dir)),
            parity=Parity(max_abs_diff=final.max_abs_diff, tolerance=final.tolerance,
                          inputs=samples.inputs),
            exporter=_versions())
        write_card(work, card)
        size = (work / MODEL_FILE).stat().st_size
        _commit(work, out_dir)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    say(f"wrote {out_dir}")
    return ExportReport(out_dir=out_dir, card=card, stages=tuple(stages), size_bytes=size,
                        seconds=time.perf_counter() - started, notes=tuple(notes))


def _optimized(graph: Path, work: Path, checkpoint: Checkpoint, notes: list[str],
               say: Callable[[str], None]) -> Path:
    """The optimizer's graph, or ``graph`` itself (with a note) when the model type has
    no optimizer."""
    from scoring.export.convert import optimize, optimizer_type

    if optimizer_type(checkpoint.model_type) is None:
        notes.append(f"--optimize skipped: onnxruntime's transformer optimizer has no model "
                     f"type for {checkpoint.model_type}")
        return graph
    say("running onnxruntime's transformer optimizer")
    config = checkpoint.config
    heads = int(getattr(config, "num_attention_heads", None) or getattr(config, "n_head", 0) or 0)
    hidden = int(getattr(config, "hidden_size", None) or getattr(config, "n_embd", 0) or 0)
    target = work / "optimized.onnx"
    with contextlib.redirect_stdout(None):
        fused = optimize(graph, target, model_type=checkpoint.model_type, num_heads=heads,
                         hidden_size=hidden)
    notes.append("optimizer fused: " + (json.dumps(fused, sort_keys=True) if fused else "nothing"))
    return target


def _quantized(graph: Path, work: Path, notes: list[str], say: Callable[[str], None]) -> Path:
    """``graph`` with its weights quantized to int8 (:func:`~scoring.export.convert.
    to_int8`); a graph with no MatMul to quantize is refused (int8 would change nothing)."""
    from scoring.export.convert import to_int8

    say("quantizing the weights to int8 (dynamic quantization, per channel)")
    target = work / "int8.onnx"
    quantized = to_int8(graph, target)
    if not quantized:
        raise ScoringError("--int8: the graph has no MatMul with a weight matrix to "
                           "quantize, so int8 would change nothing; nothing was written",
                           "export without --int8")
    notes.append(f"int8: {quantized} MatMuls quantized (weights int8 per channel, inputs "
                 f"uint8 per call); it runs on the CPU provider")
    return target
