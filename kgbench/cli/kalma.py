"""``kgbench kalma ...``: KaLMA / BioKaLMA benchmarks (Li et al.). ``generate`` builds
entries from a loaded KG, ``import`` / ``export`` convert BioKaLMA's own files, ``score``
measures systems' cited answers against entries.

The work is in :mod:`kalma`; this module is the options and the tables around them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

import typer
from rich import box
from rich.markup import escape
from rich.progress import TaskID
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, RESUMES, CliError, on_interrupt
from kgbench.cli.options import (
    DeviceOpt,
    JsonOpt,
    LlmCacheOpt,
    LlmModelOpt,
    LlmParallelOpt,
    LlmRetriesOpt,
    LlmRpsOpt,
    LlmTimeoutOpt,
    ProtocolOpt,
    StoreOpt,
    finite_number,
    prompts_option,
    protocol_choice,
    readable_input,
    store_location,
)
from kgbench.cli.output import emit_json, note, out, progress, task_label

if TYPE_CHECKING:
    from kalma.generate import KalmaGenerateResult
    from scoring.protocol import ProtocolName

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
# The builder (the store, the text templates) is imported inside the command, so that
# registering it keeps `kgbench --help` quick.

def _levels(text: str | None) -> list[int]:
    """``--incompetence 1,2,3`` -> ``[1, 2, 3]``; a usage error (exit 2) otherwise."""
    if not text:
        return []
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise CliError(f"--incompetence {text!r}: expected numbers of triples to remove, at "
                       "least 1, separated by commas", "e.g. --incompetence 1,2,3", code=2)
    return sorted({int(p) for p in parts})


@kalma_app.command("generate")
def generate_cmd(
    ctx: typer.Context,
    store: StoreOpt = None,
    domain: Annotated[
        str, typer.Option("--domain", metavar="SPEC",
                          help="Entities the entries are about: a type (Q5, people.person) or "
                          "a predicate prefix (people.).")
    ] = "Q5",
    n: Annotated[int, typer.Option("--n", min=1, help="Entries to build.")] = 100,
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", help="Output directory.")
    ] = Path("kalma-entries"),
    seed: Annotated[int, typer.Option("--seed", help="Seed of the order of the starts.")] = 0,
    iterations: Annotated[
        int, typer.Option("--iterations", min=2,
                          help="Pieces of knowledge per entry: one per round of the "
                          "evolutionary generation (App. A.3; the paper uses 5).")
    ] = 5,
    alpha: Annotated[
        float, typer.Option("--alpha", callback=finite_number(0.0, 1.0, "must be a number "
                                                              "between 0 and 1"),
                            help="Eq. 1's weight of specificity against coherence (the paper "
                            "gives none; kgbench's default 0.5).")
    ] = 0.5,
    single: Annotated[
        bool, typer.Option("--single", help="Entries about one entity instead of a "
                           "connected pair (for a store without connected pairs).")
    ] = False,
    incompetence: Annotated[
        str | None, typer.Option("--incompetence", metavar="K,...",
                                 help="Also write incompetence-K.jsonl: each entry with K "
                                 "triples of its minimum knowledge set removed from its "
                                 "pool (§4.4, the [NA] setting).")
    ] = None,
    lm: Annotated[
        Path | None, typer.Option("--lm", metavar="DIR", readable=False,
                                  help="Causal-LM model directory (kgbench model export "
                                  "--task causal-lm): Eq. 1's coherence from perplexity. "
                                  "Without it, specificity alone.")
    ] = None,
    llm_url: Annotated[
        str | None, typer.Option("--llm-url", metavar="URL",
                                 help="OpenAI-compatible endpoint that writes the paragraph "
                                 "and the questions (App. D's four rounds) with kgbench's "
                                 "prompts, or --prompts; templates without it.")
    ] = None,
    llm_model: LlmModelOpt = None,
    prompts_file: Annotated[Path | None, prompts_option(
        "With --llm-url: your own prompts for the four rounds (e.g. App. D Tables 9-12 "
        "copied from the paper), a JSON object of annotate, extend, general_question and "
        "specific_question templates (README: The papers' prompts).")] = None,
    llm_timeout: LlmTimeoutOpt = 120.0,
    llm_retries: LlmRetriesOpt = 5,
    llm_rps: LlmRpsOpt = None,
    llm_cache: LlmCacheOpt = Path(".kgbench-llm-cache"),
    chunk_size: Annotated[
        int, typer.Option("--chunk-size", min=1, help="Starts per resumable unit of work.")
    ] = 50,
    force: Annotated[
        bool, typer.Option("--force", help="Replace DIR's entries or unfinished run.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Build KaLMA entries from a loaded KG: connected entities, their knowledge pools,
    a minimum knowledge set chosen by App. A.3 Eq. 1, a paragraph and a general and a
    specific question.

    Writes DIR/entries.jsonl, incompetence-K.jsonl per --incompetence level,
    entry.schema.json, run.json and report.html. The same --seed gives byte-identical
    entries; an interrupted run resumes when the same command is rerun.

    Examples:

      kgbench kalma generate --store ./kgbench-data/demo-store --domain people.person --n 20 --out kalma-demo --seed 1 --incompetence 1,2

      kgbench kalma generate --store wd-store --domain Q5 --single --n 50 --out kalma-wd
    """
    from extension.outputs.output_file import check_output_dir
    from kalma.generate import generate_entries
    from kalma.generate_job import kalma_build_config

    levels = _levels(incompetence)
    if lm is not None:
        readable_input(lm)
    if prompts_file is not None and llm_url is None:
        raise CliError("--prompts needs --llm-url (the prompts are the LLM's)",
                       "add --llm-url URL --llm-model NAME, or leave --prompts out", code=2)
    prompts = None
    if prompts_file is not None:
        from kalma.prompts import load_generation_prompts

        prompts = load_generation_prompts(readable_input(prompts_file))
    endpoint = None
    if llm_url is not None:
        from llm.endpoint import endpoint_from_options

        endpoint = endpoint_from_options(llm_url, llm_model, requests_per_second=llm_rps,
                                         timeout_s=llm_timeout, max_retries=llm_retries)
    location = store_location(ctx, store)
    check_output_dir(out_dir, option="--out", inputs=[location, *([lm] if lm else [])])
    config = kalma_build_config(location, domain, n=n, seed=seed, iterations=iterations,
                                alpha=alpha, single=single)
    with on_interrupt(RESUMES), progress() as display:
        task = display.add_task("building entries", total=n)

        def advance(done: int, total: int) -> None:
            display.update(task, completed=done, total=total,
                           description=f"building entries ({done:,} of {total:,})")

        result = generate_entries(location, config, out_dir, incompetence=levels, lm_dir=lm,
                                  llm=endpoint, llm_cache=llm_cache, prompts=prompts,
                                  force=force, chunk_size=chunk_size, progress=advance)
    _print_generated(result, as_json)


def _print_generated(result: KalmaGenerateResult, as_json: bool) -> None:
    if as_json:
        emit_json({"out": str(result.out_dir), "entries": result.entries,
                   "requested": result.requested,
                   "incompetence": {str(k): {"entries": v,
                                             "left_out": result.variants_left_out.get(k, 0)}
                                    for k, v in result.variants.items()},
                   "skips": dict(result.skips), "relations": dict(result.relations),
                   "method": result.method, "coherence": result.coherence,
                   "seconds": result.seconds, "entries_per_s": result.entries_per_s,
                   "already_complete": result.resumed_chunks == -1})
        return
    table = Table(title="KaLMA entries", box=box.SIMPLE_HEAD, title_justify="left",
                  show_edge=False, pad_edge=False)
    table.add_column("File", overflow="fold")
    table.add_column("Entries", justify="right", no_wrap=True)
    table.add_column("Note", overflow="fold")
    table.add_row("entries.jsonl", f"{result.entries:,}",
                  "" if result.entries >= result.requested
                  else f"{result.requested:,} asked: the store had too few starts")
    for k, count in result.variants.items():
        left = result.variants_left_out.get(k, 0)
        table.add_row(f"incompetence-{k}.jsonl", f"{count:,}",
                      f"{k} triple(s) absent" + (
                          f"; {left:,} {'entry' if left == 1 else 'entries'} left out "
                          f"({'no piece' if k == 1 else f'fewer than {k} pieces'} whose "
                          "absence a reader would notice)" if left else ""))
    out.print(table)
    top = list(result.relations.items())[:8]
    if top:
        out.print("relations of the minimum knowledge sets: "
                  + ", ".join(f"{escape(r)} {c:,}" for r, c in top))
    if result.skips:
        note("starts skipped: " + ", ".join(f"{escape(r)} ({c:,})" for r, c in result.skips.items()))
    if result.resumed_chunks == -1:
        note(f"{escape(str(result.out_dir))} already holds this run's entries; nothing to do "
             "(--force rebuilds them)")
        return
    if result.resumed_chunks:
        note(f"resumed: {result.resumed_chunks:,} chunk(s) came from the interrupted run")
    rate = f" ({result.entries_per_s:,.1f} entries/s)" if result.entries_per_s else ""
    note(f"text: {result.method}; Eq. 1 coherence: {result.coherence}{rate}; "
         f"report: {escape(str(result.out_dir / 'report.html'))}")



# --- kalma import / export (h/kgen) ------------------------------------------------

@kalma_app.command("import")
def import_cmd(
    general: Annotated[
        Path | None, typer.Argument(metavar="GENERAL.json", readable=False,
                                    help="BioKaLMA's simple_question_graph.json (the general "
                                    "questions), or the folder holding both files.",
                                    show_default=False)
    ] = None,
    specific: Annotated[
        Path | None, typer.Argument(metavar="SPECIFIC.json", readable=False,
                                    help="BioKaLMA's complex_question_graph.json (the specific "
                                    "questions).", show_default=False)
    ] = None,
    biokalma_dir: Annotated[
        Path | None, typer.Option("--biokalma-dir", metavar="DIR",
                                  help="A directory holding both files, instead of the two "
                                  "arguments.")
    ] = None,
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", help="Where entries.jsonl goes.")
    ] = Path("biokalma-entries"),
    as_json: JsonOpt = False,
) -> None:
    """Read BioKaLMA's own dataset into KaLMA entries (DIR/entries.jsonl).

    The simple file holds the general questions, the complex file the specific ones,
    with the same entity dicts; every key of a dict but name and qid is a piece of the
    entry's knowledge pool. Lost: the files have no minimum knowledge set and no object
    ids (values are names), so imported entries are scored on their pool alone.

    Example:

      kgbench kalma import --biokalma-dir ../shared/data/external/attribution/biokalma --out biokalma
    """
    from extension.outputs.output_file import check_output_dir, write_atomic
    from kalma.biokalma import IMPORT_LOSSES, biokalma_files, read_biokalma
    from kalma.entry import ENTRIES_FILE
    from kalma.schema import SCHEMA_FILE, entry_schema_text

    if general is not None and specific is None and general.is_dir() and biokalma_dir is None:
        biokalma_dir, general = general, None   # the folder itself, as users first try
    if biokalma_dir is not None:
        if general is not None or specific is not None:
            raise CliError("give either the two files or --biokalma-dir, not both", code=2)
        general, specific = biokalma_files(biokalma_dir)
    if general is None or specific is None:
        raise CliError("give BioKaLMA's two files (GENERAL.json SPECIFIC.json) or "
                       "--biokalma-dir DIR", "e.g. kgbench kalma import --biokalma-dir "
                       "biokalma/ --out biokalma-entries", code=2)
    check_output_dir(out_dir, option="--out",
                     inputs=[general, specific, *([biokalma_dir] if biokalma_dir else [])])
    entries = read_biokalma(readable_input(general), readable_input(specific))
    write_atomic(out_dir / ENTRIES_FILE, "".join(e.to_line() for e in entries), option="--out")
    write_atomic(out_dir / SCHEMA_FILE, entry_schema_text())
    knowledge = sum(len(e.knowledge_pool) for e in entries)
    entities = sum(len(e.entities) for e in entries)
    doc = {"out": str(out_dir / ENTRIES_FILE), "entries": len(entries),
           "entities": entities, "knowledge": knowledge, "lost": list(IMPORT_LOSSES)}
    if as_json:
        emit_json(doc)
        return
    note(f"{len(entries):,} entries ({entities:,} entities, {knowledge:,} pieces of knowledge) "
         f"-> {escape(str(out_dir / ENTRIES_FILE))}")
    note("not in BioKaLMA's files, so not in these entries: " + "; ".join(IMPORT_LOSSES))


@kalma_app.command("export")
def export_cmd(
    entries: Annotated[
        Path, typer.Argument(metavar="ENTRIES", readable=False,
                             help="An entries .jsonl file, or the directory holding "
                             "entries.jsonl.")
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR",
                           help="Where simple_question_graph.json and "
                           "complex_question_graph.json go.")
    ] = Path("biokalma-export"),
    as_json: JsonOpt = False,
) -> None:
    """Write KaLMA entries in BioKaLMA's own layout: simple_question_graph.json (general
    questions) and complex_question_graph.json (specific questions), one entity dict
    per entity.

    The layout holds one value per relation (the first is kept), no minimum knowledge
    set, no paragraph and no object ids: what was dropped is counted. An imported
    dataset exports back byte for byte.

    Example:

      kgbench kalma export kalma-demo --out kalma-demo-biokalma
    """
    from extension.outputs.output_file import check_output_dir
    from kalma.biokalma import write_biokalma
    from kalma.entry import read_entries

    check_output_dir(out_dir, option="--out", inputs=[entries])
    written = write_biokalma(read_entries(readable_input(entries)), out_dir)
    if as_json:
        emit_json({"general": str(written.general), "specific": str(written.specific),
                   "entries": written.entries, "lost": dict(written.lost)})
        return
    note(f"{written.entries:,} entries -> {escape(str(written.general))} (general questions), "
         f"{escape(str(written.specific))} (specific questions)")
    if written.lost:
        note("not in BioKaLMA's layout, dropped: " + "; ".join(
            f"{escape(kind)}: {n:,}" for kind, n in written.lost.items()))



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
    device: DeviceOpt = "auto",
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
    geval_prompts_file: Annotated[Path | None, prompts_option(
        "With --geval: your copy of the paper's G-Eval instructions (BioKaLMA's "
        "gpteval_prompt.json: a JSON list in the order coherence, consistency, fluency, "
        "relevance, or an object with those keys and a \"suffix\" appended to each) "
        "instead of kgbench's own.")] = None,
    protocol: ProtocolOpt = "kgbench",
    llm_timeout: LlmTimeoutOpt = 120.0,
    llm_retries: LlmRetriesOpt = 5,
    llm_rps: LlmRpsOpt = None,
    llm_cache: LlmCacheOpt = Path(".kgbench-llm-cache"),
    llm_parallel: LlmParallelOpt = 4,
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
    With --geval: G-Eval text quality (§4.1). --protocol released computes every
    number as KaLMA's released scripts do (their citation reading, sentence splits,
    skips and aggregation, NaN as null; README: Protocols). Prints a table; --json
    prints the document (protocol, correctness, correctness_macro, precision_micro,
    recall_micro, f1_micro, precision_macro, recall_macro, f1_macro, alignment,
    alignment_macro, na_precision, na_recall, n_entries, n_scored, n_citations,
    unparsed_citations, and geval with --geval).

    Examples:

      kgbench kalma score kalma-demo --answers chatgpt.jsonl

      kgbench kalma score kalma-demo/incompetence-1.jsonl --answers chatgpt-k1.jsonl
      --nli models/nli --out scores.json

      kgbench kalma score kalma-demo --answers a.jsonl --geval --llm-url
      http://localhost:8000/v1 --llm-model qwen2.5-7b --json

      kgbench kalma score kalma-demo/incompetence-1.jsonl --answers a.jsonl --nli
      models/nli --protocol released --json
    """
    from extension.outputs.output_file import output_target, write_atomic
    from kalma.score import score_answers

    chosen_protocol = cast("ProtocolName", protocol_choice(protocol))
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
    if geval_prompts_file is not None and not geval:
        raise CliError("--prompts is used by --geval only (the G-Eval instructions)",
                       "add --geval, or leave --prompts out", code=2)
    readable_input(answers)
    geval_prompts = None
    if geval_prompts_file is not None:
        from kalma.geval import load_geval_prompts

        geval_prompts = load_geval_prompts(readable_input(geval_prompts_file))
    if out_path is not None:
        output_target(out_path, option="--out",
                      inputs=[entries, answers, *([nli] if nli else [])])
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
                               llm_parallel=llm_parallel, geval_prompts=geval_prompts,
                               question=cast(Literal["general", "specific"], question),
                               protocol=chosen_protocol, progress=advance)
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
    out.print(_score_table(doc, nli=report.runtime is not None))
    if out_path is not None:
        note(f"wrote {out_path}")


def _number(value: float | None) -> str:
    """A score as printed: ``–`` for nothing to measure (null), ``NaN`` where the
    released code divides 0 by 0 (also null in JSON: the document's protocol tells)."""
    if value is None:
        return "–"
    return "NaN" if math.isnan(value) else f"{value:.3f}"


def _score_table(doc: dict[str, Any], *, nli: bool) -> Table:
    """The scores in the order of the paper's Tables 2-4: citation quality micro and
    macro, alignment, [NA] (``nli``: an NLI model ran), then G-Eval. Under the released
    protocol a null ratio is the released code's 0/0, printed NaN."""
    released_run = doc["protocol"] == "released"

    def number(value: float | None) -> str:
        return _number(math.nan if value is None and released_run else value)

    table = Table(title=f"KaLMA scores (protocol {doc['protocol']})", box=box.SIMPLE_HEAD,
                  title_justify="left")
    table.add_column("metric")
    table.add_column("micro", justify="right")
    table.add_column("macro", justify="right")
    table.add_row("correctness (§4.2)", number(doc["correctness"]),
                  number(doc["correctness_macro"]))
    for name in ("precision", "recall", "f1"):
        table.add_row(f"{name.replace('f1', 'F1')} (§4.2)", number(doc[f"{name}_micro"]),
                      number(doc[f"{name}_macro"]))
    table.add_section()
    aligned = nli
    table.add_row("alignment (§4.3)", number(doc["alignment"]) if aligned else "–",
                  number(doc["alignment_macro"]) if aligned else "–")
    for key, label in (("na_precision", "\\[NA] precision (§4.4)"),
                       ("na_recall", "\\[NA] recall (§4.4)")):
        table.add_row(label, number(doc[key]) if aligned else "–", "")
    geval = doc.get("geval")
    if geval is not None:
        table.add_section()
        for aspect in ("coherence", "consistency", "fluency", "relevance"):
            table.add_row(f"G-Eval {aspect} (1-5)", number(geval[aspect]), "")
    table.add_section()
    table.add_row("entries (scored)", f"{doc['n_entries']:,} ({doc['n_scored']:,})", "")
    unparsed = doc["unparsed_citations"]
    table.add_row("citations" + (" (unparsed)" if unparsed is not None else ""),
                  f"{doc['n_citations']:,}" + (f" ({unparsed:,})" if unparsed is not None
                                                else ""), "")
    return table
