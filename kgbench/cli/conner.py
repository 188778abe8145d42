"""``kgbench conner score``: CONNER's six perspectives on generated knowledge (Chen et
al., 2023): factuality, relevance, coherence, informativeness, helpfulness, validity.

The work is in :mod:`scoring.conner`; this module is the options and the tables around
them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

import typer
from rich import box
from rich.table import Table

from kgbench.cli.errors import CliError, on_interrupt
from kgbench.cli.options import (
    DeviceOpt,
    JsonOpt,
    ProtocolOpt,
    ThreadsOpt,
    any_store,
    prompts_option,
    protocol_choice,
    readable_input,
)
from kgbench.cli.output import emit_json, err, field, note, out, progress, task_label

if TYPE_CHECKING:
    from scoring.conner.run import ConnerProgress
    from scoring.conner.summary import ConnerReport
    from scoring.protocol import ProtocolName

# scoring.conner (onnxruntime) is imported when the command runs, not when the CLI
# starts: `kgbench --help` and the other commands stay quick.

conner_app = typer.Typer(
    help=(
        "CONNER: score generated knowledge from six perspectives (factuality, relevance, "
        "coherence, informativeness, helpfulness, validity) with exported ONNX models.\n\n"
        "Example: kgbench conner score sysA.jsonl sysB.jsonl --nli models/nli --out conner-out"
    ),
    no_args_is_help=True,
)

DEVICES = ("auto", "cpu", "cuda")
AGGREGATES = ("min", "mean", "max")
TASKS = ("nq", "wow")
INTERRUPTED = ("the files scored before were written whole, the one being scored not at all; "
               "rerun the command to score them all")


def _model(option: str, what: str) -> Any:
    return typer.Option(option, metavar="DIR", readable=False, help=what)


@conner_app.command("score")
def score_cmd(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE", show_default=False, readable=False,
                                   help="JSONL files of records {\"id\", \"query\", "
                                   "\"knowledge\", \"answer\"?, \"gold_answer\"?, "
                                   "\"evidence\"?: list of texts}, one file per system.")],
    nli: Annotated[Path | None, _model(
        "--nli", "Exported NLI model: factuality (Eq. 1) and validity (Eq. 7, 8).")] = None,
    rerank: Annotated[Path | None, _model(
        "--rerank", "Exported cross-encoder (--task rerank): relevance (Eq. 2).")] = None,
    lm: Annotated[Path | None, _model(
        "--lm", "Exported causal LM (--task causal-lm): sentence coherence (Eq. 3), "
        "informativeness (Eq. 5), helpfulness (Eq. 6).")] = None,
    coherence: Annotated[Path | None, _model(
        "--coherence", "Exported classifier (--task classify): paragraph coherence "
        "(Eq. 4), its probability of the coherent label.")] = None,
    coherent_label: Annotated[
        str | None, typer.Option("--coherent-label", metavar="NAME",
                                 help="Which label of the --coherence model means coherent "
                                 "(name or index; default: the label named 'coherent', "
                                 "else label 1 of a two-label model).")] = None,
    store: Annotated[
        str | None, typer.Option("--store", metavar="S",
                                 help="KG store whose facts about the entities a query names "
                                 "are the evidence of records without their own.")] = None,
    aggregate: Annotated[
        str | None, typer.Option("--aggregate", metavar="min|mean|max", show_default=False,
                                 help="How sentence factuality is aggregated over the "
                                 "knowledge (Eq. 1); default min, max under --protocol "
                                 "released (the only one it takes).")] = None,
    u: Annotated[
        int, typer.Option("--u", min=1, metavar="N",
                          help="Random other knowledge texts of the helpfulness baseline "
                          "(Eq. 6).")] = 3,
    seed: Annotated[int, typer.Option("--seed", metavar="K",
                                      help="Seed of the helpfulness baselines.")] = 0,
    out_dir: Annotated[
        Path | None, typer.Option("--out", metavar="DIR",
                                  help="Write DIR/NAME.scores.jsonl per input (one line per "
                                  "record) and DIR/summary.json.")] = None,
    device: DeviceOpt = "auto",
    threads: ThreadsOpt = None,
    batch_tokens: Annotated[
        int, typer.Option("--batch-tokens", min=16, metavar="N",
                          help="Tokens per batch (padded length × inputs).")] = 16384,
    protocol: ProtocolOpt = "kgbench",
    task: Annotated[
        str | None, typer.Option("--task", metavar="nq|wow", show_default=False,
                                 help="With --protocol released: whose scripts to follow, "
                                 "nq (a '?' given to queries; span validity against the "
                                 "gold answer; the default) or wow (open validity, the gold "
                                 "answer first among the evidence).")] = None,
    prompts_file: Annotated[Path | None, prompts_option(
        "With --protocol released: your copy of CONNER's prompts, a JSON object "
        "{\"informativeness\": TEXT with {query} (and {topic}), \"helpfulness\": TEXT "
        "with {knowledge} and {query}, \"demonstrations\": [{\"knowledge\", \"query\", "
        "\"answer\"}, ...]} (README: Protocols).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Score generated knowledge with CONNER's metrics (Chen et al., 2023, Eq. 1-8).

    Each FILE is one system's records; the knowledge is split into sentences. Printed:
    one row per FILE laid out like CONNER's Tables 2-3 (Factuality: Fact-cons.,
    Non-verif., Fact-incon.; Relevance; Coherence: Coh-sent., Coh-para.; Inform.;
    Helpful.; Validity), each the mean over the file's records. A perspective whose
    model is not given is left empty (null in --json) and a note says so. Evidence
    comes from each record's "evidence", else from --store. --protocol released
    computes every number as CONNER's released scripts do (label shares, their
    sentence splitter, perplexity cap, truncation and prompts; README: Protocols).

    Examples:

      kgbench conner score sysA.jsonl sysB.jsonl --nli nli/ --rerank ranker/ --out res

      kgbench conner score sys.jsonl --lm gpt2/ --coherence coh/ --coherent-label 1

      kgbench conner score answers.jsonl --nli models/nli --store my-kg --aggregate mean --json

      kgbench conner score nq.jsonl --nli nli/ --rerank monobert/ --lm lm/ --protocol
      released --task nq --prompts conner-prompts.json
    """
    if nli is None and rerank is None and lm is None and coherence is None:
        raise CliError("nothing to score with: no model given",
                       "give at least one of --nli, --rerank, --lm, --coherence, e.g. "
                       "kgbench conner score sys.jsonl --nli nli-model/", code=2)
    chosen_protocol = cast("ProtocolName", protocol_choice(protocol))
    if aggregate is not None and aggregate not in AGGREGATES:
        raise CliError(f"unknown aggregate {aggregate!r}",
                       f"use --aggregate with one of {', '.join(AGGREGATES)}", code=2)
    if chosen_protocol != "released" and (task is not None or prompts_file is not None):
        option = "--task" if task is not None else "--prompts"
        raise CliError(f"{option} is for --protocol released (the released scripts' "
                       "dataset and prompts)", f"add --protocol released, or leave {option} "
                       "out", code=2)
    if chosen_protocol == "released" and aggregate not in (None, "max"):
        raise CliError(f"--aggregate {aggregate} with --protocol released: the released "
                       "scripts aggregate sentence labels by max",
                       "leave --aggregate out with --protocol released", code=2)
    if task is not None and task not in TASKS:
        raise CliError(f"unknown task {task!r}", f"use --task with one of {', '.join(TASKS)}",
                       code=2)
    prompts = None
    if prompts_file is not None:
        from scoring.conner.prompts import load_conner_prompts

        prompts = load_conner_prompts(readable_input(prompts_file))
    if device not in DEVICES:
        raise CliError(f"unknown device {device!r}",
                       f"use --device with one of {', '.join(DEVICES)}", code=2)
    if store is not None:
        store = any_store(store)
    from extension.outputs.output_file import check_output_dir
    from scoring.conner.run import conner_score

    for file in files:
        readable_input(file)
    if out_dir is not None:
        models = [m for m in (nli, rerank, lm, coherence) if m is not None]
        check_output_dir(out_dir, option="--out",
                         inputs=[*files, *models, *([store] if store else [])])

    with on_interrupt(INTERRUPTED), progress() as display:
        tasks: dict[tuple[str, str], Any] = {}

        def advance(state: ConnerProgress) -> None:
            key = (str(state.file), state.model)
            if key not in tasks:
                tasks[key] = display.add_task(
                    task_label(f"{state.file.name}: {state.model}"), total=state.total,
                    unit="inputs")
            display.update(tasks[key], completed=state.done, total=state.total)

        report = conner_score(
            files, nli_dir=nli, rerank_dir=rerank, lm_dir=lm, coherence_dir=coherence,
            coherent_label=coherent_label, store=store,
            aggregate=cast(Literal["min", "mean", "max"] | None, aggregate), helpfulness_u=u,
            seed=seed, out_dir=out_dir, device=cast(Literal["auto", "cpu", "cuda"], device),
            threads=threads, batch_tokens=batch_tokens, protocol=chosen_protocol,
            task=cast(Literal["nq", "wow"], task or "nq"), prompts=prompts, progress=advance)
    _print_report(report, as_json)


def _cell(value: float | None, percent: bool) -> str:
    if value is None:
        return "–"
    return f"{value:.2%}" if percent else f"{value:.4f}"


def summary_table(doc: dict[str, Any]) -> Table:
    """The summary as CONNER's Tables 2-3 lay it out: one row per system (input file)."""
    title = f"CONNER (factuality aggregated by {doc['aggregate']}; protocol {doc['protocol']}"
    if doc.get("task"):
        title += f", {doc['task']} scripts"
    table = Table(title=title + ")",
                  box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    table.add_column("System", no_wrap=True)
    table.add_column("n", justify="right")
    group = None
    for column in doc["columns"]:
        # The group's name over its first column only, as the paper's two header rows.
        top = column["group"] if column["group"] != group else ""
        group = column["group"]
        bottom = column["header"] if column["header"] != column["group"] else ""
        table.add_column(f"{top}\n{bottom}", justify="right")
    for row in doc["rows"]:
        table.add_row(field(row["system"]), f"{row['records']:,}",
                      *(_cell(row[c["key"]], c["percent"]) for c in doc["columns"]))
    return table


def _print_report(report: ConnerReport, as_json: bool) -> None:
    doc = report.to_json()
    if as_json:
        emit_json(doc)
        return
    out.print(summary_table(doc))
    for line in report.notes:
        note(line)
    for name, model in report.models.items():
        runtime = model.get("runtime") or {}
        fallback = f"; not CUDA: {runtime['fallback']}" if runtime.get("fallback") else ""
        line = (f"{name} {model.get('dir')}: ran on {runtime.get('provider')} "
                f"({runtime.get('precision')}){fallback}")
        err.print(f"[dim]{field(line)}[/]", soft_wrap=True)
    if report.out_dir is not None:
        note(f"scores -> {report.out_dir} (one NAME.scores.jsonl per input, summary.json)")
