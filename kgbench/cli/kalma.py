"""``kgbench kalma ...``: KaLMA / BioKaLMA benchmarks (Li et al.). ``generate`` builds
entries from a loaded KG, ``import`` / ``export`` convert BioKaLMA's own files, ``score``
measures systems' cited answers against entries.

The work is in :mod:`kalma`; this module is the options and the tables around them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal, cast

import typer
from rich import box
from rich.progress import TaskID
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, RESUMES, CliError, on_interrupt
from kgbench.cli.options import (
    JsonOpt,
    LlmCacheOpt,
    LlmModelOpt,
    LlmRetriesOpt,
    LlmRpsOpt,
    LlmTimeoutOpt,
    readable_input,
)
from kgbench.cli.output import emit_json, note, out, progress, task_label

kalma_app = typer.Typer(
    help=(
        "KaLMA benchmarks: questions whose answers must cite KG triples, with a minimum "
        "knowledge set and conscious-incompetence ([NA]) variants, and the metrics that score "
        "cited answers.\n\n"
        "Example: kgbench kalma generate --store ./kgbench-data/demo-store --domain people.person "
        "--n 20 --out kalma-demo --seed 1"
    ),
    no_args_is_help=True,
)

# --- kalma generate (h/kgen) -------------------------------------------------------


# --- kalma import / export (h/kgen) ------------------------------------------------


# --- kalma score (h/kscore) ---------------------------------------------------------

KALMA_DEVICES = ("auto", "cpu", "cuda")
QUESTIONS = ("specific", "general")


@kalma_app.command("score")
def score_cmd(
    entries: Annotated[
        Path, typer.Argument(metavar="ENTRIES", show_default=False, readable=False,
                             help="Entries: the output directory of `kalma generate` or "
                             "`kalma import` (its entries.jsonl), or an entries .jsonl file "
                             "(e.g. incompetence-1.jsonl for [NA] recall).")],
    answers: Annotated[
        Path, typer.Option("--answers", "-a", metavar="FILE", readable=False,
                           show_default=False,
                           help='The system\'s answers: JSONL {"id": ENTRY_ID, "output": '
                           'TEXT with citations like [Q212657, place of birth: Rome] and '
                           '[NA]}, or pre-parsed {"id", "sentences": [{"text", "citations": '
                           '\\[\\[qid, relation, value], ...], "na"}, ...]}.')],
    nli: Annotated[
        Path | None, typer.Option("--nli", metavar="DIR", readable=False, show_default=False,
                                  help="Exported NLI model (`kgbench model export HF_DIR "
                                  "--task nli --out DIR`): text-citation alignment (§4.3) "
                                  "and [NA] precision and recall (§4.4); null without.")
    ] = None,
    device: Annotated[
        str, typer.Option("--device", metavar="DEVICE",
                          help="With --nli: auto (CUDA when it really runs, else CPU), cpu "
                          "or cuda.")] = "auto",
    geval: Annotated[
        bool, typer.Option("--geval", help="Rate the answers' text with G-Eval (§4.1: "
                           "coherence, consistency, fluency, relevance, 1 to 5) through "
                           "--llm-url.")] = False,
    question: Annotated[
        str, typer.Option("--question", metavar="WHICH",
                          help="With --geval: the question the answers answer, specific "
                          "(the paper's main setting) or general.")] = "specific",
    llm_url: Annotated[
        str | None, typer.Option("--llm-url", metavar="URL", show_default=False,
                                 help="With --geval: an OpenAI-compatible endpoint (e.g. "
                                 "http://localhost:8000/v1) that rates the answers; key "
                                 "from $KGBENCH_LLM_API_KEY.")] = None,
    llm_model: LlmModelOpt = None,
    llm_timeout: LlmTimeoutOpt = 120.0,
    llm_retries: LlmRetriesOpt = 5,
    llm_rps: LlmRpsOpt = None,
    llm_cache: LlmCacheOpt = Path(".kgbench-llm-cache"),
    llm_parallel: Annotated[
        int, typer.Option("--llm-parallel", min=1, max=64,
                          help="LLM requests in flight at once.")] = 4,
    out_path: Annotated[
        Path | None, typer.Option("--out", "-o", metavar="FILE", show_default=False,
                                  help="Also write the JSON document to FILE (written as "
                                  "FILE.part, then renamed).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Score cited answers on KaLMA entries (Li et al. §4.1-4.4).

    Citation quality (§4.2): correctness (a complete citation matching the retrieved
    knowledge), precision (correct and in the minimum knowledge set), recall (share of
    the minimum knowledge set hit by a correct citation) and F1, micro and macro.
    With --nli: text-citation alignment (§4.3) and [NA] precision and recall (§4.4).
    With --geval: G-Eval text quality (§4.1). Prints a table; --json prints the
    document (correctness, precision_micro, recall_micro, f1_micro, precision_macro,
    recall_macro, f1_macro, alignment, na_precision, na_recall, n_entries, n_citations,
    unparsed_citations, and geval with --geval).

    Examples:

      kgbench kalma score kalma-demo --answers chatgpt.jsonl

      kgbench kalma score kalma-demo/incompetence-1.jsonl --answers chatgpt-k1.jsonl
      --nli models/nli --out scores.json

      kgbench kalma score kalma-demo --answers a.jsonl --geval --llm-url
      http://localhost:8000/v1 --llm-model qwen2.5-7b --json
    """
    from extension.output_file import output_target, write_atomic
    from kalma.score import score_answers

    if device not in KALMA_DEVICES:
        raise CliError(f"unknown device {device!r}",
                       f"use --device with one of {', '.join(KALMA_DEVICES)}", code=2)
    if question not in QUESTIONS:
        raise CliError(f"unknown question {question!r}",
                       f"use --question with one of {', '.join(QUESTIONS)}", code=2)
    if geval and not llm_url:
        raise CliError("--geval needs --llm-url", "add --llm-url URL --llm-model NAME", code=2)
    if llm_model and not llm_url:
        raise CliError("--llm-model needs --llm-url", "add --llm-url URL, or leave "
                       "--llm-model out", code=2)
    if llm_url and not geval:
        raise CliError("--llm-url is used by --geval only", "add --geval, or leave "
                       "--llm-url out", code=2)
    readable_input(answers)
    if out_path is not None:
        output_target(out_path, option="--out", inputs=[entries, answers])
    endpoint = None
    if llm_url:
        from llm.endpoint import endpoint_from_options

        endpoint = endpoint_from_options(llm_url, llm_model, requests_per_second=llm_rps,
                                         timeout_s=llm_timeout, max_retries=llm_retries)
    with on_interrupt(RESUMES if geval else NOTHING_WRITTEN), progress() as display:
        tasks: dict[str, TaskID] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                label = "NLI pairs" if stage == "nli" else "G-Eval requests"
                tasks[stage] = display.add_task(task_label(label), total=total,
                                                unit="pairs" if stage == "nli" else "requests")
            display.update(tasks[stage], completed=done, total=total)

        report = score_answers(entries, answers, nli_dir=nli,
                               device=cast(Literal["auto", "cpu", "cuda"], device),
                               llm=endpoint, geval=geval, llm_cache=llm_cache,
                               llm_parallel=llm_parallel,
                               question=cast(Literal["general", "specific"], question),
                               progress=advance)
    doc = report.to_json()
    if out_path is not None:
        write_atomic(out_path, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)
                     + "\n", option="--out")
    if report.runtime is not None:
        note(f"NLI: {report.nli_pairs:,} distinct pairs on {report.runtime.get('provider')}"
             + (f" ({report.runtime['fallback']})" if report.runtime.get("fallback") else ""))
    for line in report.notes:
        note(line)
    if as_json:
        emit_json(doc)
        return
    out.print(_score_table(doc))
    if out_path is not None:
        note(f"wrote {out_path}")


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _score_table(doc: dict[str, Any]) -> Table:
    """The scores in the order of the paper's Tables 2-4: citation quality micro and
    macro, alignment, [NA], then G-Eval."""
    table = Table(title="KaLMA scores", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("metric")
    table.add_column("micro", justify="right")
    table.add_column("macro", justify="right")
    table.add_row("correctness (§4.2)", _number(doc["correctness"]), "")
    for name in ("precision", "recall", "f1"):
        table.add_row(f"{name.replace('f1', 'F1')} (§4.2)", _number(doc[f"{name}_micro"]),
                      _number(doc[f"{name}_macro"]))
    table.add_section()
    table.add_row("alignment (§4.3)", _number(doc["alignment"]), "")
    table.add_row("[NA] precision (§4.4)".replace("[", "\\["), _number(doc["na_precision"]), "")
    table.add_row("[NA] recall (§4.4)".replace("[", "\\["), _number(doc["na_recall"]), "")
    geval = doc.get("geval")
    if geval is not None:
        table.add_section()
        for aspect in ("coherence", "consistency", "fluency", "relevance"):
            table.add_row(f"G-Eval {aspect} (1-5)", _number(geval[aspect]), "")
    table.add_section()
    table.add_row("entries", f"{doc['n_entries']:,}", "")
    table.add_row("citations (unparsed)", f"{doc['n_citations']:,} "
                  f"({doc['unparsed_citations']:,})", "")
    return table

