"""``kgbench evaluate``: an attribution evaluator scored on a benchmark, CAQA Table 6's layout.

The use case is :func:`scoring.evaluate.run.evaluate_benchmark`; this module is the
command around it (options, progress, the tables).
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich import box
from rich.table import Table

from extension.labels import DROP, SPLIT_CHOICES, SplitChoice
from kgbench.cli.errors import NOTHING_WRITTEN, RESUMES, CliError, on_interrupt
from kgbench.cli.options import (
    JsonOpt,
    LlmCacheOpt,
    LlmModelOpt,
    LlmParallelOpt,
    LlmRetriesOpt,
    LlmRpsOpt,
    LlmTimeoutOpt,
    readable_input,
)
from kgbench.cli.output import emit_json, field, note, out, progress, task_label

if TYPE_CHECKING:
    from scoring.evaluate.run import EvaluationReport

# scoring.evaluate (and the sample models under it) is imported when the command runs:
# registering it keeps `kgbench --help` and the other commands quick.

SCHEME_NAMES = ("ours", "caqa", "attrscore")
DEVICES = ("auto", "cpu", "cuda")
CAQA_COMPLEXITY_ORDER = ("single", "concatenation", "intersection", "union")
"""CAQA Table 6's complexity columns: S. C. I. U."""
COMPLEXITY_TITLES = {"single": "S.", "concatenation": "C.", "intersection": "I.", "union": "U."}


def evaluate_cmd(
    directory: Annotated[
        Path, typer.Argument(metavar="BENCH_DIR", show_default=False, readable=False,
                             help="Benchmark directory written by `kgbench generate` "
                             "(its samples.jsonl is read), or that samples.jsonl itself.")],
    predictions: Annotated[
        Path | None, typer.Option("--predictions", "-p", metavar="FILE", readable=False,
                                  show_default=False,
                                  help='Evaluator 1: a JSONL file of {"id": SAMPLE_ID, '
                                  '"label": LABEL} lines, one per sample of the split '
                                  "(label null: the evaluator named no label).")] = None,
    model: Annotated[
        Path | None, typer.Option("--model", metavar="DIR", show_default=False,
                                  help="Evaluator 2: a model exported by `kgbench model "
                                  "export`: a classifier (task classify, labels ours or "
                                  "CAQA's) or an NLI model (task nli, see --nli-map).")] = None,
    llm_url: Annotated[
        str | None, typer.Option("--llm-url", metavar="URL", show_default=False,
                                 help="Evaluator 3: an OpenAI-compatible endpoint (e.g. "
                                 "http://localhost:8000/v1) asked with --prompt; key from "
                                 "$KGBENCH_LLM_API_KEY.")] = None,
    llm_model: LlmModelOpt = None,
    prompt: Annotated[
        str | None, typer.Option("--prompt", metavar="NAME", show_default=False,
                                 help="The LLM's prompt: caqa-zero-shot (default for the "
                                 "four-class schemes) or caqa-few-shot (from --prompts), "
                                 "attrscore (default for --scheme attrscore) or "
                                 "attrscore-no-definition (shipped), or a task_name of "
                                 "--prompts.")] = None,
    prompts_file: Annotated[
        Path | None, typer.Option("--prompts", metavar="FILE", readable=False,
                                  show_default=False,
                                  help="A prompt file in the layout of CAQA's prompts.json "
                                  "(CAQA's is not shipped: its repository has no licence; "
                                  "pass your copy).")] = None,
    scheme_name: Annotated[
        str, typer.Option("--scheme", metavar="SCHEME",
                          help="ours (our four labels), caqa (the same four by CAQA's names) "
                          "or attrscore (three labels; gold mapped as `kgbench export --to "
                          "attrscore`).")] = "ours",
    label_map: Annotated[
        list[str] | None,
        typer.Option("--label-map", "-m", metavar="LABEL=TARGET", show_default=False,
                     help="Map one of our labels to a label of the scheme, or to "
                     f"'{DROP}' to leave its samples out, as `kgbench export` does; "
                     "repeatable.")] = None,
    split: Annotated[
        str, typer.Option("--split", metavar="SPLIT",
                          help="train, test or all: which samples are evaluated.")] = "test",
    nli_map: Annotated[
        list[str] | None,
        typer.Option("--nli-map", metavar="ROLE=LABEL", show_default=False,
                     help="With an NLI --model: the label of an NLI output (defaults: "
                     "entailment=supportive, neutral=irrelevant, "
                     "contradiction=contradictory); repeatable.")] = None,
    device: Annotated[
        str, typer.Option("--device", metavar="DEVICE",
                          help="With --model: auto (CUDA when usable), cpu or cuda.")] = "auto",
    save_predictions: Annotated[
        Path | None, typer.Option("--save-predictions", metavar="FILE", show_default=False,
                                  help="Write the evaluator's predictions (with the LLM's "
                                  "replies) as a --predictions file, to score them again "
                                  "without rerunning.")] = None,
    blind_labels: Annotated[
        Path | None, typer.Option("--blind-labels", metavar="FILE", readable=False,
                                  show_default=False,
                                  help="Labels a reader gave blind (TSV with a header, as "
                                  "bench/results/label_agreement_samples.tsv, or JSONL id/"
                                  "label): adds CAQA §6.2's consistency check.")] = None,
    blind_column: Annotated[
        str | None, typer.Option("--blind-column", metavar="NAME", show_default=False,
                                 help="The TSV column of --blind-labels holding the labels "
                                 "(default: label, or the one blind… column).")] = None,
    compare: Annotated[
        list[Path] | None,
        typer.Option("--compare", metavar="FILE", readable=False, show_default=False,
                     help="With --blind-labels: another evaluator's predictions file, "
                     "compared on generated vs blind labels; repeatable.")] = None,
    sub_facts: Annotated[
        Path | None, typer.Option("--sub-facts", metavar="FILE", readable=False,
                                  show_default=False,
                                  help='JSONL {"id", "sub_facts": a list of true/false}: the '
                                  "evaluator's call on each sub-fact of a sample; adds CAQA "
                                  "§6.3's FActScore and error rate.")] = None,
    out_path: Annotated[
        Path | None, typer.Option("--out", "-o", metavar="FILE", show_default=False,
                                  help="Also write the document as JSON to FILE (written "
                                  "as FILE.part, then renamed).")] = None,
    llm_timeout: LlmTimeoutOpt = 120.0,
    llm_retries: LlmRetriesOpt = 5,
    llm_rps: LlmRpsOpt = None,
    llm_cache: LlmCacheOpt = Path(".kgbench-llm-cache"),
    llm_parallel: LlmParallelOpt = 4,
    as_json: JsonOpt = False,
) -> None:
    """Evaluate an attribution evaluator on a benchmark split, as CAQA Table 6.

    The evaluator is a predictions file, an exported model or an LLM. Prints per-label
    F1 (Sup. Par. Con. Irr.), overall micro-F1 and micro-F1 per complexity (S. C. I. U.),
    then precision, recall, support, macro-F1 and the confusion matrix. An LLM reply
    that names no label counts as wrong in its own column (unparsed), never as a label.
    --json prints the document: per_label, per_complexity, overall_micro_f1, macro_f1,
    confusion, n, unparsed (plus consistency with --blind-labels, fine_grained with
    --sub-facts, runtime with --model).

    Examples:

      kgbench evaluate bench/ --predictions preds.jsonl

      kgbench evaluate bench/ --model nli-onnx/ --scheme attrscore --json

      kgbench evaluate bench/ --llm-url http://localhost:8000/v1 --llm-model qwen2.5-7b
      --prompts CAQA-Benchmark/prompts.json --prompt caqa-few-shot --save-predictions llm.jsonl

      kgbench evaluate bench/ --predictions a.jsonl --compare b.jsonl --blind-labels
      blind.tsv --split all
    """
    from extension.export import ExportError, parse_label_map
    from extension.output_file import output_target, write_atomic
    from scoring.errors import ScoringError
    from scoring.evaluate.choose import make_evaluator
    from scoring.evaluate.run import evaluate_benchmark
    from scoring.evaluate.schemes import label_scheme

    given = [name for name, value in (("--predictions", predictions), ("--model", model),
                                      ("--llm-url", llm_url)) if value is not None]
    if len(given) != 1:
        raise CliError("give one evaluator: --predictions FILE, --model DIR or --llm-url URL"
                       + (f" (got {' and '.join(given)})" if given else ""),
                       "e.g. kgbench evaluate BENCH_DIR --predictions preds.jsonl", code=2)
    _check_option_pairs(model=model, llm_url=llm_url, llm_model=llm_model, prompt=prompt,
                        prompts_file=prompts_file, nli_map=nli_map, device=device,
                        blind_labels=blind_labels, blind_column=blind_column,
                        compare=compare)
    if split not in SPLIT_CHOICES:
        raise CliError(f"unknown split {split!r}",
                       f"use --split with one of {', '.join(SPLIT_CHOICES)}", code=2)
    try:
        scheme = label_scheme(scheme_name, parse_label_map(label_map or []))
        nli_overrides = parse_label_map(nli_map or [], option="--nli-map",
                                        example="neutral=partially_supportive")
    except (ExportError, ScoringError) as exc:   # a bad option value: a usage error
        raise CliError(str(exc), exc.hint, code=2) from None
    inputs = [p for p in (predictions, blind_labels, sub_facts, prompts_file, *(compare or []))
              if p is not None]
    for path in inputs:
        readable_input(path)
    for output, option in ((out_path, "--out"), (save_predictions, "--save-predictions")):
        if output is not None:
            output_target(output, option=option,
                          inputs=[directory, *inputs, *([model] if model else [])])
    evaluator = make_evaluator(scheme, predictions=predictions, model=model,
                               llm_url=llm_url, llm_model=llm_model, prompt=prompt,
                               prompts_file=prompts_file,
                               nli_map=nli_overrides, device=device,
                               llm_timeout=llm_timeout, llm_retries=llm_retries,
                               llm_rps=llm_rps, llm_cache=llm_cache, llm_parallel=llm_parallel)
    # A file is read in a moment; a model or an LLM gets a progress bar.
    with on_interrupt(RESUMES if llm_url else NOTHING_WRITTEN), \
            (nullcontext(None) if predictions else progress()) as display:
        task = display.add_task(task_label(f"evaluating {evaluator.name}"), total=None) \
            if display is not None else None

        def advance(done: int, total: int) -> None:
            if display is not None and task is not None:
                display.update(task, completed=done, total=total)

        report = evaluate_benchmark(
            directory, evaluator, scheme, split=cast(SplitChoice, split),
            blind_labels=blind_labels, blind_column=blind_column, compare=compare or (),
            sub_facts=sub_facts, save_predictions=save_predictions, progress=advance)
    doc = report.to_json()
    if out_path is not None:
        write_atomic(out_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)
                     + "\n", option="--out")
    for line in report.notes:
        note(line)
    if save_predictions is not None:
        note(f"wrote the predictions to {save_predictions} (score them again with "
             "--predictions)")
    if as_json:
        emit_json(doc)
        return
    _print_report(report)
    if out_path is not None:
        note(f"wrote {out_path}")


def _check_option_pairs(*, model: Path | None, llm_url: str | None, llm_model: str | None,
                        prompt: str | None, prompts_file: Path | None,
                        nli_map: list[str] | None, device: str, blind_labels: Path | None,
                        blind_column: str | None, compare: list[Path] | None) -> None:
    """Options that only mean something beside another: a usage error (exit 2) alone."""
    needs = [(llm_model, "--llm-model", llm_url, "--llm-url"),
             (prompt, "--prompt", llm_url, "--llm-url"),
             (prompts_file, "--prompts", llm_url, "--llm-url"),
             (nli_map, "--nli-map", model, "--model"),
             (blind_column, "--blind-column", blind_labels, "--blind-labels"),
             (compare, "--compare", blind_labels, "--blind-labels")]
    for value, option, other, needed in needs:
        if value and other is None:
            raise CliError(f"{option} needs {needed}", f"add {needed}, or leave {option} out",
                           code=2)
    if llm_url and not llm_model:
        raise CliError("--llm-url needs --llm-model", "e.g. --llm-model llama3.1:8b", code=2)
    if device not in DEVICES:
        raise CliError(f"unknown device {device!r}", f"use --device with one of "
                       f"{', '.join(DEVICES)}", code=2)


def _split_text(split: str) -> str:
    return "all samples" if split == "all" else f"the {split} split"


def _score(value: float, support: int) -> str:
    return f"{value:.3f}" if support else "–"


def table6(report: EvaluationReport) -> Table:
    """One row in CAQA Table 6's layout: F1 per label, overall micro-F1, micro-F1 per
    complexity (S. C. I. U.); "–" where there is no sample."""
    doc, scheme = report.document, report.scheme
    table = Table(title=f"{field(report.evaluator)} on {_split_text(report.split)} ({scheme.name} "
                  "labels): F1 per label, micro-F1 overall and per complexity",
                  box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False,
                  show_edge=False)
    # Numbers never wrap; a long evaluator name folds in its own column.
    table.add_column("Evaluator", overflow="fold", min_width=9)
    for title in (*scheme.titles, "Overall", *(COMPLEXITY_TITLES[c]
                                               for c in CAQA_COMPLEXITY_ORDER)):
        table.add_column(title, justify="right", no_wrap=True)
    per_label, per_complexity = doc["per_label"], doc["per_complexity"]
    table.add_row(field(report.evaluator),
                  *(_score(per_label[label]["f1"], per_label[label]["support"])
                    for label in scheme.labels),
                  _score(doc["overall_micro_f1"], doc["n"]),
                  *(_score(per_complexity[c]["micro_f1"], per_complexity[c]["support"])
                    for c in CAQA_COMPLEXITY_ORDER))
    return table


def label_detail(report: EvaluationReport) -> Table:
    """Precision, recall, F1 and support per label, then macro-F1 and n."""
    doc = report.document
    table = Table(title="Per label", box=box.SIMPLE_HEAD, title_justify="left")
    for name in ("label", "precision", "recall", "F1", "support"):
        table.add_column(name, justify="left" if name == "label" else "right")
    for label, scores in doc["per_label"].items():
        table.add_row(field(label), f"{scores['precision']:.3f}", f"{scores['recall']:.3f}",
                      f"{scores['f1']:.3f}", f"{scores['support']:,}",
                      end_section=label == report.scheme.labels[-1])
    table.add_row("macro-F1", "", "", f"{doc['macro_f1']:.3f}", "")
    table.add_row("micro-F1 (accuracy)", "", "", f"{doc['overall_micro_f1']:.3f}",
                  f"{doc['n']:,}")
    return table


def confusion_table(report: EvaluationReport) -> Table:
    """Gold label (rows) × predicted label (columns), with the unparsed column."""
    confusion = report.document["confusion"]
    columns = list(next(iter(confusion.values())))
    table = Table(title="Confusion: gold (rows) × predicted (columns)", box=box.SIMPLE_HEAD,
                  title_justify="left")
    table.add_column("gold")
    for column in columns:
        table.add_column(field(column), justify="right")
    for gold, row in confusion.items():
        table.add_row(field(gold), *(f"{row[c]:,}" for c in columns))
    return table


def consistency_table(block: dict[str, Any]) -> Table:
    """CAQA §6.2 in small: each evaluator's micro-F1 on generated vs blind labels."""
    pearson = block["pearson"]
    shown = "undefined (needs two evaluators whose scores vary)" if pearson is None \
        else f"{pearson:.3f}"
    table = Table(title=f"Consistency with blind labels (CAQA §6.2): {block['samples']:,} "
                  f"samples, label agreement {block['label_agreement']:.3f}, Pearson r "
                  f"{shown}", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("evaluator")
    table.add_column("micro-F1 (generated)", justify="right")
    table.add_column("micro-F1 (blind)", justify="right")
    for row in block["evaluators"]:
        table.add_row(field(row["name"]), f"{row['micro_f1_generated']:.3f}",
                      f"{row['micro_f1_blind']:.3f}")
    return table


def fine_grained_table(block: dict[str, Any]) -> Table:
    """CAQA §6.3 / Table 7: FActScore and error rate against the benchmark's sub-facts."""
    def number(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f}"

    table = Table(title=f"Sub-facts (CAQA §6.3, Table 7): {block['sub_facts']:,} sub-facts "
                  f"of {block['samples']:,} samples", box=box.SIMPLE_HEAD,
                  title_justify="left")
    for name in ("FS (evaluator)", "FS (benchmark)", "ER", "agreement"):
        table.add_column(name, justify="right")
    table.add_row(number(block["factscore"]), number(block["factscore_benchmark"]),
                  number(block["error_rate"]), number(block["agreement"]))
    return table


def _print_report(report: EvaluationReport) -> None:
    out.print(table6(report))
    out.print()
    out.print(label_detail(report))
    out.print(confusion_table(report))
    if report.consistency is not None:
        out.print(consistency_table(report.consistency))
    if report.fine_grained is not None:
        out.print(fine_grained_table(report.fine_grained))
    doc = report.document
    note(f"{doc['n']:,} samples ({_split_text(report.split)}) of {report.source}; "
         f"{doc['unparsed']:,} unparsed (counted as wrong)")
