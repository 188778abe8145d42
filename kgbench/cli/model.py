"""``kgbench model ...``: models for scoring. ``export`` turns a local Hugging Face
checkpoint into an ONNX model directory the scorers run (checked against PyTorch);
``train`` fine-tunes a classifier on a benchmark's train split and exports it
(:mod:`scoring.train`); ``info`` prints what such a directory holds.

The work is in :mod:`scoring.export` (torch and transformers, the ``export`` extra,
imported only when an export runs) and :mod:`scoring.card`; this module is the options
and the tables around them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, CliError, on_interrupt
from kgbench.cli.options import JsonOpt
from kgbench.cli.output import emit_json, field, human_bytes, note, out

if TYPE_CHECKING:
    from scoring.card import ModelCard
    from scoring.export import ExportReport
    from scoring.train import TrainReport

model_app = typer.Typer(
    help=(
        "Models for scoring: export a Hugging Face checkpoint to ONNX (checked against "
        "PyTorch), fine-tune a classifier on a benchmark and export it, or show what an "
        "exported model directory holds.\n\n"
        "Example: kgbench model export ./deberta-v3-mnli --task nli --out models/nli"
    ),
    no_args_is_help=True,
)

_TASKS = ("nli", "classify", "rerank", "causal-lm", "embed")


def _label_map(entries: list[str]) -> dict[str, str]:
    """``["LABEL_0=entailment", ...]`` -> ``{"LABEL_0": "entailment"}``; a usage error
    (exit 2) for an entry without ``=`` or a name given twice."""
    mapping: dict[str, str] = {}
    for entry in entries:
        name, sep, value = entry.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise CliError(f"--label-map {entry!r}: expected NAME=ROLE",
                           "e.g. --label-map LABEL_0=entailment", code=2)
        if name.strip() in mapping:
            raise CliError(f"--label-map names {name.strip()!r} twice",
                           "give each label once", code=2)
        mapping[name.strip()] = value.strip()
    return mapping


@model_app.command("export")
def export_cmd(
    hf_dir: Annotated[
        Path, typer.Argument(metavar="HF_DIR", show_default=False,
                             help="A local Hugging Face checkpoint directory: config.json, "
                             "weights (model.safetensors or pytorch_model.bin) and the "
                             "tokenizer (tokenizer.json, or vocab.txt / spm.model, converted).")],
    task: Annotated[
        str, typer.Option("--task", metavar="TASK", show_default=False,
                          help="nli (premise -> hypothesis: entailment / neutral / "
                          "contradiction), classify (any label set), rerank (a "
                          "cross-encoder's relevance logit), causal-lm (next-token logits) "
                          "or embed (a sentence encoder: mean-pooled, L2-normalised "
                          "embeddings).")],
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", show_default=False,
                           help="The model directory to write (model.onnx, tokenizer.json, "
                           "kgbench-model.json); it appears only when complete.")],
    max_length: Annotated[
        int | None, typer.Option("--max-length", metavar="N", show_default=False,
                                 help="Tokens per input the runtime truncates to (default: "
                                 "the model's, from its tokenizer and position table).")
    ] = None,
    opset: Annotated[int, typer.Option("--opset", metavar="N", help="ONNX opset.")] = 18,
    fp16: Annotated[
        bool, typer.Option("--fp16", help="Convert the graph to float16 (inputs and logits "
                           "stay int64 / float32), for GPUs; checked with tolerance 5e-2 (times "
                           "the largest |logit|, at least 1).")
    ] = False,
    optimize: Annotated[
        bool, typer.Option("--optimize", help="Run onnxruntime's transformer optimizer "
                           "(fused attention, LayerNorm, GELU); checked with tolerance 1e-3 (times "
                           "the largest |logit|, at least 1).")
    ] = False,
    int8: Annotated[
        bool, typer.Option("--int8", help="Quantize the weights to int8 (dynamic "
                           "quantization), for the CPU: about 2x faster than fp32; checked "
                           "with tolerance 1e-1 (times the largest |logit|, at least 1) and an "
                           "nli or classify model must keep every sample's label. Not with "
                           "--fp16.")
    ] = False,
    tolerance: Annotated[
        float | None, typer.Option("--tolerance", metavar="X", show_default=False,
                                   help="Largest absolute logit difference from PyTorch "
                                   "allowed, for every graph checked (default: 1e-4 fp32, "
                                   "1e-3 optimized, 5e-2 fp16, 1e-1 int8, each times the "
                                   "largest |logit| of the samples, at least 1).")
    ] = None,
    label_map: Annotated[
        list[str] | None,
        typer.Option("--label-map", "-m", metavar="NAME=ROLE",
                     help="nli: which of config.json's labels is entailment, neutral or "
                     "contradiction (needed when they are named LABEL_0...); classify: a new "
                     "name for a label; rerank: NAME=relevance. Repeatable.")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace --out even when it is a non-empty "
                           "directory that is not an exported model.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Export a Hugging Face checkpoint to ONNX for the scorers, checked against PyTorch.

    Writes DIR/model.onnx (dynamic batch and sequence axes; inputs input_ids,
    attention_mask and token_type_ids when the model uses them; output logits, or
    embeddings for --task embed: mean pooling over the tokens, L2-normalised, as
    sentence-transformers computes them; a checkpoint whose modules.json pools
    otherwise is refused),
    DIR/tokenizer.json and DIR/kgbench-model.json (the card: task, labels and NLI
    roles, max length, opset, precision, source checksum, parity). The graph's logits
    are compared with PyTorch's on sample inputs of different lengths and batch sizes;
    a graph that differs by more than the tolerance is not written (the error gives
    the numbers). --optimize, --fp16 and --int8 are each checked the same way. To score
    on a CPU, --int8 is about 2x faster than fp32 (an int8 model runs on the CPU
    provider only; --fp16 is for a GPU).

    Needs the export extra: pip install 'kgbench\\[export]'.

    Example: kgbench model export ./deberta-v3-base-mnli --task nli --out models/nli
    --label-map LABEL_0=entailment --label-map LABEL_1=neutral --label-map
    LABEL_2=contradiction

    Example: kgbench model export ./all-MiniLM-L6-v2 --task embed --out models/minilm
    """
    if task not in _TASKS:
        raise CliError(f"unknown task {task!r}", f"use --task with one of {', '.join(_TASKS)}",
                       code=2)
    if fp16 and int8:
        raise CliError("--fp16 and --int8 are two different precisions: choose one",
                       "--fp16 for a GPU, --int8 for the CPU", code=2)
    mapping = _label_map(label_map or [])
    from extension.outputs.output_file import check_output_dir
    from scoring.export import export_model

    check_output_dir(out_dir, option="--out", inputs=[hf_dir], replaced=True)

    with on_interrupt(NOTHING_WRITTEN):
        report = export_model(hf_dir, task, out_dir, max_length=max_length,  # type: ignore[arg-type]
                              opset=opset, fp16=fp16, optimize=optimize, int8=int8,
                              tolerance=tolerance,
                              label_map=mapping, progress=note, force=force)
    if as_json:
        emit_json(report.to_json())
        return
    _print_export(report)


def _labels_cell(card: ModelCard) -> str:
    if card.task == "causal-lm":
        return "(next-token logits)"
    if card.embedding is not None:
        return (f"({card.embedding.dimension}-value {card.embedding.pooling}-pooled "
                "unit embeddings)")
    if card.nli_roles:
        return ", ".join(f"{i}: {card.labels[i]}" + ("" if card.labels[i] == role else f" = {role}")
                         for role, i in sorted(card.nli_roles.items(), key=lambda item: item[1]))
    return ", ".join(f"{i}: {name}" for i, name in enumerate(card.labels))


def _card_rows(card: ModelCard) -> list[tuple[str, str]]:
    return [("task", card.task), ("labels", _labels_cell(card)),
            ("inputs", ", ".join(card.inputs)), ("output", card.output),
            ("max length", str(card.max_length)), ("opset", str(card.opset)),
            ("precision", card.precision), ("optimized", "yes" if card.optimized else "no"),
            ("source", f"{card.source.model_type} {card.source.path}"),
            ("source sha256", card.source.sha256[:16] + "…"),
            ("parity", f"max |diff| {card.parity.max_abs_diff:.2g} ≤ tolerance "
                       f"{card.parity.tolerance:g} on {card.parity.inputs} inputs"),
            ("exporter", card.exporter)]


def _print_export(report: ExportReport) -> None:
    table = Table(title="Exported", box=box.SIMPLE_HEAD, title_justify="left", show_header=False)
    table.add_column("")
    table.add_column("")
    rows = _card_rows(report.card)
    rows[rows.index(next(r for r in rows if r[0] == "parity"))] = (
        "parity", "; ".join(f"{s.stage} {s.max_abs_diff:.2g} ≤ {s.tolerance:g}"
                            + ("" if s.label_disagreements is None else ", labels kept")
                            for s in report.stages))
    rows += [("size", human_bytes(report.size_bytes)), ("seconds", f"{report.seconds:.1f}")]
    for name, value in rows:
        table.add_row(name, field(value))
    out.print(table)
    for line in report.notes:
        note(line)
    command = _NEXT_COMMAND[report.card.task]
    joint = "" if command.endswith(":") else " "   # --baseline embed:DIR is one word
    out.print(f"[green]wrote:[/] {field(str(report.out_dir))}  [dim](next: "
              f"{command}{joint}{field(str(report.out_dir))})[/]", soft_wrap=True)


_NEXT_COMMAND = {"nli": "kgbench score BENCH_DIR --nli", "causal-lm": "kgbench score BENCH_DIR --lm",
                 "classify": "kgbench evaluate BENCH_DIR --model",
                 "rerank": "kgbench model info",
                 "embed": "kgbench evaluate BENCH_DIR --baseline embed:"}
"""What to run with a freshly exported model, by task."""


@model_app.command("info")
def info_cmd(
    directory: Annotated[
        Path, typer.Argument(metavar="DIR", show_default=False,
                             help="A model directory written by `kgbench model export`.")],
    as_json: JsonOpt = False,
) -> None:
    """Show what an exported model directory holds: its card and files.

    Example: kgbench model info models/nli --json
    """
    from scoring.card import MODEL_FILE, TOKENIZER_FILE, read_card
    from scoring.errors import ModelDirError

    card = read_card(directory)
    missing = [name for name in (MODEL_FILE, TOKENIZER_FILE) if not (directory / name).is_file()]
    if missing:
        raise ModelDirError(f"{directory}: the card is there but {', '.join(missing)} is not",
                            "export the model again with `kgbench model export`")
    sizes = {name: (directory / name).stat().st_size for name in (MODEL_FILE, TOKENIZER_FILE)}
    if as_json:
        doc: dict[str, Any] = {"directory": str(directory), "card": card.model_dump(mode="json"),
                               "files": sizes}
        emit_json(doc)
        return
    table = Table(title=f"Model {field(str(directory))}", box=box.SIMPLE_HEAD, title_justify="left",
                  show_header=False)
    table.add_column("")
    table.add_column("")
    for name, value in _card_rows(card):
        table.add_row(name, field(value))
    table.add_row("files", field(", ".join(f"{n} {human_bytes(s)}" for n, s in sizes.items())))
    out.print(table)


@model_app.command("train")
def train_cmd(
    bench_dir: Annotated[
        Path, typer.Argument(metavar="BENCH_DIR", show_default=False,
                             help="Benchmark directory written by `kgbench generate` (its "
                             "samples.jsonl; the train split is read).")],
    from_dir: Annotated[
        Path, typer.Option("--from", metavar="HF_DIR", show_default=False,
                           help="A local Hugging Face checkpoint to fine-tune (config.json, "
                           "weights, tokenizer): an encoder such as DeBERTa-v3, RoBERTa or "
                           "BERT, with any head or none (a new 4-label head is initialised).")],
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", show_default=False,
                           help="Output: the exported model (model.onnx, tokenizer.json, "
                           "kgbench-model.json), checkpoint/ and train_report.json; it "
                           "appears only when complete.")],
    epochs: Annotated[int, typer.Option("--epochs", metavar="N",
                                        help="Most epochs to train.")] = 3,
    learning_rate: Annotated[float, typer.Option("--lr", metavar="X",
                                                 help="Peak learning rate of AdamW (linear "
                                                 "warmup over 10% of steps, then linear "
                                                 "decay).")] = 2e-5,
    batch_size: Annotated[int, typer.Option("--batch-size", metavar="N",
                                            help="Pairs per step.")] = 16,
    max_length: Annotated[
        int | None, typer.Option("--max-length", metavar="N", show_default=False,
                                 help="Tokens per pair; the premise (citations) is cut to "
                                 "fit, never the answer statement (default: the model's).")
    ] = None,
    patience: Annotated[int, typer.Option("--patience", metavar="N",
                                          help="Stop after N epochs without a better "
                                          "held-out macro-F1.")] = 2,
    held_out: Annotated[float, typer.Option("--held-out", metavar="F",
                                            help="Share of the train split's source "
                                            "questions held out for early stopping.")] = 0.1,
    seed: Annotated[int, typer.Option("--seed", metavar="N",
                                      help="Seed of the new head, dropout, batch order and "
                                      "the held-out split.")] = 0,
    device: Annotated[str, typer.Option("--device", metavar="DEVICE",
                                        help="auto (CUDA when torch sees a GPU), cpu or "
                                        "cuda.")] = "auto",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out (the old "
                                        "one stays until the new one is complete).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Fine-tune a sequence classifier on a benchmark's train split, then export it.

    CAQA's fine-tuning setting: the pairs (citations, answer statement) of the train
    split with their four labels. A share of the train split's questions (--held-out)
    is held out, whole questions at a time; after each epoch the model is scored on
    them, the epoch with the best held-out macro-F1 is kept, and training stops after
    --patience epochs without a better one. The kept model is exported to ONNX like
    `kgbench model export --task classify` (checked against PyTorch). Writes
    DIR/train_report.json (every epoch, the best, the held-out scores and the
    majority-class baseline). Uses CUDA with bf16/fp16 autocast when torch sees a
    GPU, else the CPU. Needs the export extra: pip install 'kgbench\\[export]'.

    Example (a CPU, a small checkpoint): kgbench model train bench/ --from ./tiny-bert
    --out models/clf --epochs 10 --lr 1e-3

    With a GPU and a real checkpoint: kgbench model train bench/ --from
    ./deberta-v3-base --out models/caqa-clf --epochs 3 --batch-size 16 --lr 2e-5

    Then: kgbench evaluate bench/ --model models/caqa-clf
    """
    if device not in ("auto", "cpu", "cuda"):
        raise CliError(f"unknown device {device!r}", "use --device auto, cpu or cuda", code=2)
    from extension.outputs.output_file import check_output_dir
    from scoring.train import train_classifier

    check_output_dir(out_dir, option="--out", inputs=[bench_dir, from_dir], replaced=True)

    with on_interrupt(NOTHING_WRITTEN):
        report = train_classifier(
            bench_dir, from_dir, out_dir, epochs=epochs, learning_rate=learning_rate,
            batch_size=batch_size, max_length=max_length, held_out_fraction=held_out,
            patience=patience, seed=seed, device=device,  # type: ignore[arg-type]
            force=force, progress=note)
    if as_json:
        emit_json(report.to_json())
        return
    _print_train(report)


def _print_train(report: TrainReport) -> None:
    table = Table(title="Training (held-out part of the train split)", box=box.SIMPLE_HEAD,
                  title_justify="left")
    for name in ("epoch", "train loss", "held-out loss", "macro-F1", "accuracy", "seconds"):
        table.add_column(name, justify="right")
    for epoch in report.epochs:
        best = epoch["epoch"] == report.best_epoch
        cells = [str(epoch["epoch"]) + (" *" if best else ""), f"{epoch['train_loss']:.4f}",
                 f"{epoch['held_out_loss']:.4f}", f"{epoch['held_out_macro_f1']:.3f}",
                 f"{epoch['held_out_accuracy']:.3f}", f"{epoch['seconds']:.1f}"]
        table.add_row(*cells, style="bold" if best else None)
    out.print(table)
    baseline = report.majority_baseline
    out.print(f"best epoch {report.best_epoch} (*, by {report.selection}): held-out macro-F1 "
              f"{report.held_out['macro_f1']:.3f}, accuracy {report.held_out['accuracy']:.3f}; "
              f"majority baseline ({field(str(baseline['label']))}) macro-F1 "
              f"{float(baseline['macro_f1']):.3f}, accuracy {float(baseline['accuracy']):.3f}",
              soft_wrap=True)
    note(f"{report.fit_samples:,} samples fitted, {report.held_out_samples:,} held out "
         f"({report.held_out_questions:,} questions); {report.device}"
         f"{' ' + report.autocast if report.autocast else ''}; head {report.head}")
    if report.truncated_premises or report.truncated_hypotheses:
        note(f"{report.truncated_premises:,} premises cut to {report.settings['max_length']} "
             f"tokens, {report.truncated_hypotheses:,} hypotheses (raise --max-length if many)")
    note(f"{report.seconds['train']:.1f} s training, {report.seconds['export']:.1f} s export")
    out.print(f"[green]wrote:[/] {field(report.output)}  [dim](next: kgbench evaluate "
              f"BENCH_DIR --model {field(report.output)})[/]", soft_wrap=True)
