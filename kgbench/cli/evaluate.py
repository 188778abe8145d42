"""``kgbench evaluate``: an attribution evaluator scored on a benchmark, CAQA Table 6's layout.

The use case is :func:`scoring.evaluate.run.evaluate_benchmark`; this module is the
command around it (options, progress, the tables).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich import box
from rich.table import Table

from extension.core.labels import DROP, SPLIT_CHOICES, SplitChoice
from kgbench.cli.errors import NOTHING_WRITTEN, RESUMES, CliError, on_interrupt
from kgbench.cli.evaluation_tables import print_evaluation_report
from kgbench.cli.options import (
    JsonOpt,
    LlmCacheOpt,
    LlmModelOpt,
    LlmParallelOpt,
    LlmRetriesOpt,
    LlmRpsOpt,
    LlmTimeoutOpt,
    ProtocolOpt,
    prompts_option,
    protocol_choice,
    readable_input,
)
from kgbench.cli.output import emit_json, field, note, out, progress, task_label

if TYPE_CHECKING:
    from scoring.evaluate.baselines import ShortcutReport
    from scoring.evaluate.schemes import LabelScheme
    from scoring.protocol import ProtocolName

# scoring.evaluate (and the sample models under it) is imported when the command runs:
# registering it keeps `kgbench --help` and the other commands quick.

SCHEME_NAMES = ("ours", "caqa", "attrscore")
DEVICES = ("auto", "cpu", "cuda")


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
    baseline: Annotated[
        str | None, typer.Option("--baseline", metavar="KIND", show_default=False,
                                 help="Evaluator 4, a shortcut: a classifier fitted on the "
                                 "train split from surface features only, scored on the "
                                 "test split beside chance: overlap (answer-citation word "
                                 "overlap), length (lengths, citation count) or "
                                 "embed:MODEL_DIR (cosines of a --task embed model). "
                                 "Recorded in BENCH_DIR/baselines.json and report.html."
                                 )] = None,
    prompt: Annotated[
        str | None, typer.Option("--prompt", metavar="NAME", show_default=False,
                                 help="The LLM's prompt: kgbench's own, kgbench (default "
                                 "for the four-class schemes) or kgbench-attrscore (default "
                                 "for --scheme attrscore); with --prompts, caqa-zero-shot, "
                                 "caqa-few-shot, attrscore, attrscore-no-definition or any "
                                 "task_name of that file.")] = None,
    prompts_file: Annotated[Path | None, prompts_option(
        "Your copy of a paper's prompt file (CAQA's prompts.json, AttrScore's "
        "task_prompts.json): its exact prompts, which kgbench does not ship. Without "
        "--prompt its attribution-no-definition task.")] = None,
    protocol: ProtocolOpt = "kgbench",
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
                          help="With --model or --baseline embed:DIR: auto (CUDA when "
                          "usable), cpu or cuda.")] = "auto",
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
    --protocol released computes every number as CAQA's and AttrScore's released code
    does instead (unparsed replies dropped, NaN for 0/0, its reply parsing, AttrScore
    labels read as CAQA's classes). --json prints the document: protocol, per_label,
    per_complexity, overall_micro_f1, macro_f1, confusion, n, unparsed (plus
    consistency with --blind-labels, fine_grained with --sub-facts, runtime with
    --model).

    Examples:

      kgbench evaluate bench/ --predictions preds.jsonl

      kgbench evaluate bench/ --model nli-onnx/ --scheme attrscore --json

      kgbench evaluate bench/ --llm-url http://localhost:8000/v1 --llm-model qwen2.5-7b
      --save-predictions llm.jsonl

      kgbench evaluate bench/ --scheme caqa --protocol released --llm-url
      http://localhost:8000/v1 --llm-model qwen2.5-7b --prompts CAQA-Benchmark/prompts.json
      --prompt caqa-few-shot

      kgbench evaluate bench/ --predictions a.jsonl --compare b.jsonl --blind-labels
      blind.tsv --split all

      kgbench evaluate bench/ --baseline overlap      (what a shortcut gets; also
      --baseline length, --baseline embed:models/minilm)
    """
    from extension.outputs.export import ExportError, parse_label_map
    from extension.outputs.output_file import output_target, write_atomic
    from scoring.errors import ScoringError
    from scoring.evaluate.choose import make_evaluator
    from scoring.evaluate.run import evaluate_benchmark
    from scoring.evaluate.schemes import label_scheme

    given = [name for name, value in (("--predictions", predictions), ("--model", model),
                                      ("--llm-url", llm_url), ("--baseline", baseline))
             if value is not None]
    if len(given) != 1:
        raise CliError("give one evaluator: --predictions FILE, --model DIR, --llm-url URL "
                       "or --baseline KIND"
                       + (f" (got {' and '.join(given)})" if given else ""),
                       "e.g. kgbench evaluate BENCH_DIR --predictions preds.jsonl", code=2)
    _check_option_pairs(model=model, llm_url=llm_url, llm_model=llm_model, prompt=prompt,
                        prompts_file=prompts_file, nli_map=nli_map, device=device,
                        blind_labels=blind_labels, blind_column=blind_column,
                        compare=compare)
    if split not in SPLIT_CHOICES:
        raise CliError(f"unknown split {split!r}",
                       f"use --split with one of {', '.join(SPLIT_CHOICES)}", code=2)
    chosen_protocol = cast("ProtocolName", protocol_choice(protocol))
    try:
        scheme = label_scheme(scheme_name, parse_label_map(label_map or []),
                              protocol=chosen_protocol)
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
    if baseline is not None:
        if chosen_protocol != "kgbench":
            # A shortcut has no reply to parse and no released code to match: its numbers
            # are kgbench's definitions, and the document says so.
            raise CliError("--baseline scores a shortcut under kgbench's protocol only",
                           "leave --protocol out (or give --protocol kgbench) with --baseline",
                           code=2)

        run_baseline(directory, baseline, scheme, split=split, device=device, as_json=as_json,
                     out_path=out_path, blind_labels=blind_labels, blind_column=blind_column,
                     compare=compare or (), sub_facts=sub_facts,
                     save_predictions=save_predictions)
        return
    evaluator = make_evaluator(scheme, predictions=predictions, model=model,
                               llm_url=llm_url, llm_model=llm_model, prompt=prompt,
                               prompts_file=prompts_file,
                               nli_map=nli_overrides, device=device,
                               llm_timeout=llm_timeout, llm_retries=llm_retries,
                               llm_rps=llm_rps, llm_cache=llm_cache, llm_parallel=llm_parallel,
                               protocol=chosen_protocol)
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
            sub_facts=sub_facts, save_predictions=save_predictions,
            protocol=chosen_protocol, progress=advance)
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
    print_evaluation_report(report)
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


def chance_table(result: ShortcutReport) -> Table:
    """The shortcut's F1 per label, macro-F1 and micro-F1 beside the two chance levels."""
    block, scheme = result.baseline, result.report.scheme
    table = Table(title="What a shortcut gets, beside chance (test split)",
                  box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("")
    for title in (*scheme.titles, "macro-F1", "micro-F1"):
        table.add_column(title, justify="right", no_wrap=True)

    def row(name: str, scores: dict[str, Any]) -> None:
        table.add_row(field(name), *(f"{scores['per_label_f1'][label]:.3f}"
                                     for label in scheme.labels),
                      f"{scores['macro_f1']:.3f}", f"{scores['micro_f1']:.3f}")

    row(result.report.evaluator, block)
    for name, level in block["chance"].items():
        what = (f"chance: every sample {level['label']}" if name == "majority"
                else f"chance: random, train shares ({level['draws']} draws)")
        row(what, level)
    return table


def run_baseline(directory: Path, baseline: str, scheme: LabelScheme, *, split: str,
                 device: str, as_json: bool, out_path: Path | None,
                 blind_labels: Path | None, blind_column: str | None,
                 compare: Sequence[Path], sub_facts: Path | None,
                 save_predictions: Path | None) -> None:
    """Run the shortcut baseline ``baseline`` (``overlap``, ``length``, ``embed:DIR``)
    on ``directory`` and print / write what ``kgbench evaluate`` does for an evaluator,
    plus the ``baseline`` block; then record it in the benchmark's report."""
    from extension.outputs.output_file import write_atomic
    from scoring.errors import ScoringError
    from scoring.evaluate.baselines import evaluate_shortcut, parse_baseline, record_shortcut

    if split != "test":
        raise CliError(f"--baseline fits on the train split and is scored on the test split, "
                       f"not --split {split}", "leave --split out", code=2)
    try:
        spec = parse_baseline(baseline)
    except ScoringError as exc:
        raise CliError(str(exc), exc.hint, code=2) from None
    with on_interrupt(NOTHING_WRITTEN):
        result = evaluate_shortcut(directory, spec, scheme, device=device,
                                   blind_labels=blind_labels, blind_column=blind_column,
                                   compare=compare, sub_facts=sub_facts,
                                   save_predictions=save_predictions)
    doc = result.to_json()
    if out_path is not None:
        write_atomic(out_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)
                     + "\n", option="--out")
    for line in result.report.notes:
        note(line)
    if as_json:
        emit_json(doc)
    else:
        print_evaluation_report(result.report)
        out.print(chance_table(result))
    page = record_shortcut(result)
    note(f"recorded in {page.parent / 'baselines.json'} and the \"What a shortcut gets\" "
         f"section of {page}")
