"""``kgbench score``: NLI and language-model scores for a generated benchmark.

The work is :func:`scoring.score.benchmark.score_benchmark`; this module is the command
around it (options, progress, the label-consistency table, the runtime that ran).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

import typer
from rich import box
from rich.table import Table

from extension.core.labels import SPLIT_CHOICES
from kgbench.cli.errors import RESUMES, CliError, on_interrupt
from kgbench.cli.options import DeviceOpt, JsonOpt, ThreadsOpt
from kgbench.cli.output import emit_json, err, field, note, out, progress
from scoring.score.defaults import DEFAULT_BATCH_TOKENS, DEFAULT_SCORE_CHUNK_SIZE

if TYPE_CHECKING:
    from scoring.score.benchmark import ScoreResult

# scoring.score.benchmark (onnxruntime, matplotlib) is imported when the command runs:
# registering it keeps `kgbench --help` and the other commands quick.

DEVICES = ("auto", "cpu", "cuda")
ROLES = ("entailment", "neutral", "contradiction")


def score_cmd(
    bench_dir: Annotated[
        Path, typer.Argument(metavar="BENCH_DIR", show_default=False, readable=False,
                             help="Benchmark directory written by `kgbench generate`.")],
    nli: Annotated[
        Path | None, typer.Option("--nli", metavar="DIR", readable=False,
                                  help="Exported NLI model (`kgbench model export HF_DIR --task "
                                  "nli --out DIR`): scores citations → answer statement and "
                                  "each sub-fact of partially supportive samples.")
    ] = None,
    lm: Annotated[
        Path | None, typer.Option("--lm", metavar="DIR", readable=False,
                                  help="Exported causal LM (--task causal-lm): each citation's "
                                  "perplexity and CONNER's sentence cohesion (Eq. 3).")
    ] = None,
    split: Annotated[
        str, typer.Option("--split", metavar="SPLIT",
                          help="train, test or all: which split's samples to score.")
    ] = "all",
    flag_below: Annotated[
        float | None, typer.Option("--flag-below", metavar="P",
                                   help="Write flagged.jsonl: samples whose NLI probability of "
                                   "the outcome their label expects is below P (0 to 1), "
                                   "lowest first, with the reason. Needs --nli.")
    ] = None,
    device: DeviceOpt = "auto",
    threads: ThreadsOpt = None,
    batch_tokens: Annotated[
        int, typer.Option("--batch-tokens", min=16, metavar="N",
                          help="Tokens per batch (padded length × pairs).")
    ] = DEFAULT_BATCH_TOKENS,
    chunk_size: Annotated[
        int, typer.Option("--chunk-size", min=1, metavar="N",
                          help="Samples per resumable unit of work (an interrupted run "
                          "scores at most one unit again).")
    ] = DEFAULT_SCORE_CHUNK_SIZE,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the scores of a different earlier run "
                           "(other models, split or samples), or its unfinished work.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Score a benchmark's own text with exported ONNX models.

    With --nli, each sample's citations → answer statement is judged against its label:
    supportive should be entailed, contradictory contradicted, partially supportive and
    irrelevant not entailed (neutral or contradiction); a partial sample's sub-facts
    should be entailed when kept and not entailed when lost. With --lm, each citation
    gets its perplexity and the sample CONNER's sentence cohesion (mean 1/PPL).

    Writes BENCH_DIR/scores.jsonl (one line per sample), score_run.json (models, the
    provider that really ran, the consistency table, speed), a "Model scores" section
    of report.html and, with --flag-below, flagged.jsonl. Prints the label-consistency
    table. An interrupted run resumes when the same command is rerun.

    Examples:

      kgbench score webqsp-bench --nli models/deberta-nli --flag-below 0.5

      kgbench score webqsp-bench --nli models/deberta-nli --lm models/gpt2 --split test
    """
    from scoring.score.flagged import check_threshold

    if nli is None and lm is None:
        raise CliError("nothing to score with: give --nli DIR, --lm DIR or both",
                       "e.g. kgbench score BENCH_DIR --nli nli-model/", code=2)
    if split not in SPLIT_CHOICES:
        raise CliError(f"unknown split {split!r}",
                       f"use --split with one of {', '.join(SPLIT_CHOICES)}", code=2)
    if device not in DEVICES:
        raise CliError(f"unknown device {device!r}",
                       f"use --device with one of {', '.join(DEVICES)}", code=2)
    if flag_below is not None:
        try:
            check_threshold(flag_below)
        except ValueError as exc:
            raise CliError(str(exc), code=2) from None
        if nli is None:
            raise CliError("--flag-below needs --nli (samples are flagged by the NLI "
                           "model's probability of their label's outcome)", code=2)
    from scoring.score.benchmark import ScoreProgress, score_benchmark

    with on_interrupt(RESUMES), progress() as display:
        tasks = {"nli": display.add_task("NLI pairs", total=None, unit="pairs", visible=False),
                 "lm": display.add_task("LM sentences", total=None, unit="sentences",
                                        visible=False)}

        def advance(state: ScoreProgress) -> None:
            for key, done, total in (("nli", state.nli_pairs, state.nli_total),
                                     ("lm", state.lm_sentences, state.lm_total)):
                if total:
                    display.update(tasks[key], completed=done, total=total, visible=True)

        result = score_benchmark(
            bench_dir, nli_dir=nli, lm_dir=lm, split=split, flag_below=flag_below,
            device=cast(Literal["auto", "cpu", "cuda"], device), threads=threads,
            batch_tokens=batch_tokens, chunk_size=chunk_size, force=force, progress=advance)
    _print_result(result, as_json)


_SHORT_ROLE = {"entailment": "entail", "neutral": "neutral", "contradiction": "contra"}


def _consistency_table(doc: dict[str, Any]) -> Table:
    table = Table(title="Label consistency: gold label × NLI outcome (citations → answer)",
                  box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False,
                  collapse_padding=True)
    # Short headers and outcomes so the table fits 80 columns without cutting a label name.
    table.add_column("gold label", no_wrap=True)
    table.add_column("expected", no_wrap=True)
    for name in ("n", *(_SHORT_ROLE[r] for r in ROLES), "agree", "share"):
        table.add_column(name, justify="right", min_width=len(name))

    def row(name: str, counts: dict[str, Any], expected: str = "") -> list[str]:
        share = counts.get("consistent_share")
        shown = expected.replace("not_", "not ").replace("_", " ")
        for role, short in _SHORT_ROLE.items():
            shown = shown.replace(role, short)
        return [name, shown, f"{counts['n']:,}",
                *(f"{counts[r]:,}" for r in ROLES), f"{counts['consistent']:,}",
                f"{share:.1%}" if share is not None else "–"]

    for label, counts in doc["by_label"].items():
        table.add_row(*row(label, counts, counts["expected"]))
    table.add_section()
    table.add_row(*row("total", doc["total"]))
    table.add_section()
    for kind, counts in doc["sub_facts"].items():
        table.add_row(*row(f"{kind} sub-fact", counts, counts["expected"]))
    return table


def _runtime_line(role: str, model: dict[str, Any]) -> str:
    runtime = model.get("runtime") or {}
    parts = [f"{runtime.get('provider')} ({runtime.get('precision')}"
             + (f", {runtime['threads']} threads" if runtime.get("threads") else "")
             + (", IO binding" if runtime.get("io_binding") else "") + ")"]
    if runtime.get("fallback"):
        parts.append(f"not CUDA: {runtime['fallback']}")
    rate = model.get("pairs_per_s") if role == "nli" else model.get("sentences_per_s")
    if rate:
        parts.append(f"{rate:,.1f} {'pairs' if role == 'nli' else 'sentences'}/s")
    return f"{role} {model.get('dir')}: ran on " + "; ".join(parts)


def _print_result(result: ScoreResult, as_json: bool) -> None:
    run = result.run
    flagged_file = result.bench_dir / "flagged.jsonl"
    if as_json:
        emit_json({**run, "bench_dir": str(result.bench_dir),
                   "already_complete": result.resumed_chunks == -1,
                   "resumed_chunks": max(result.resumed_chunks, 0),
                   "flagged": result.flagged,
                   "flagged_file": str(flagged_file) if result.flagged is not None else None,
                   "report": str(result.report) if result.report else None})
        return
    if run.get("consistency"):
        out.print(_consistency_table(run["consistency"]))
        truncated = run["models"]["nli"].get("truncated_hypotheses")
        if truncated:
            note(f"{truncated:,} answer statement(s) or sub-facts were longer than the NLI "
                 "model's max length and were cut at their end")
    cohesion = run.get("cohesion_by_label")
    if cohesion:
        out.print("Sentence cohesion (CONNER Eq. 3, mean 1/PPL of the citations): " + ", ".join(
            f"{label} {value:.4f}" for label, value in cohesion.items() if value is not None))
    for role, model in run.get("models", {}).items():
        err.print(f"[dim]{field(_runtime_line(role, model))}[/]", soft_wrap=True)
    if result.resumed_chunks == -1:
        note(f"{result.bench_dir} already holds this run's scores; nothing scored "
             "(--force scores again)")
    else:
        if result.resumed_chunks:
            note(f"resumed: {result.resumed_chunks:,} chunk(s) came from the interrupted run")
        note(f"{run['benchmark']['samples']:,} samples scored -> "
             f"{result.bench_dir / 'scores.jsonl'}")
    if result.flagged is not None:
        note(f"{result.flagged:,} sample(s) flagged -> {flagged_file}")
    if result.report is not None:
        note(f"report: {result.report} (section \"Model scores\")")
