"""``kgbench generate``: a KGQA dataset or a KG domain -> a finished benchmark directory.

The use case is :mod:`extension.run.generate_job` (inputs, then
:func:`extension.run.generate.generate`); this module is the command around it (options,
progress, the Table-5 counts).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from extension.defaults import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_MAX_ANSWERS,
    DEFAULT_TEST_FRACTION,
    MAX_WORKERS,
)
from kgbench.cli.errors import RESUMES, CliError, on_interrupt
from kgbench.cli.options import (
    CaqaStrictOpt,
    ClassesOpt,
    JsonOpt,
    LlmCacheOpt,
    LlmModelOpt,
    LlmRetriesOpt,
    LlmRpsOpt,
    LlmTimeoutOpt,
    QuestionLimitOpt,
    StoreOpt,
    finite_number,
    readable_input,
    store_location,
)
from kgbench.cli.output import ProgressReporter, emit_json, err, field, note, out, progress
from kgbench.cli.render import caqa_shares, table5
from loaders.kgqa import FORMATS

if TYPE_CHECKING:
    from extension.inputs.complexity_mix import ComplexityMix
    from extension.run.generate import GenerateResult
    from loaders.kgqa import ReadIssue

# The generation engine (networkx, rdflib, the sample models: about a second to import)
# is imported inside the command, so that registering it keeps `kgbench --help` and the
# other commands quick.

def generate_cmd(
    ctx: typer.Context,
    store: StoreOpt = None,
    questions: Annotated[
        Path | None, typer.Option("--questions", "-q", metavar="FILE", readable=False,
                                  help="KGQA questions (WebQSP, GrailQA or JSONL; .gz/.bz2/.zst).")
    ] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", "-f", metavar="FORMAT",
                                 help=f"One of {', '.join(FORMATS)}; detected when omitted.")
    ] = None,
    domain: Annotated[
        str | None, typer.Option("--domain", metavar="SPEC",
                                 help="New domain instead of --questions: a type (Q5, "
                                 "people.person) or a predicate prefix (film.).")
    ] = None,
    n: Annotated[
        int, typer.Option("--n", min=1, help="With --domain: seed questions to sample.")
    ] = 300,
    complexity_mix: Annotated[
        str | None, typer.Option("--complexity-mix", metavar="MIX",
                                 help="With --domain: the complexities of the seed questions: "
                                 "'caqa' (CAQA Table 5's shares, the default), 'shapes' "
                                 "(shapes in equal numbers, rules drawn uniformly) or weights "
                                 "such as 'single=50,concatenation=30,intersection=15,union=5'.")
    ] = None,
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", help="Benchmark directory.")
    ] = Path("benchmark"),
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice and of the split.")] = 0,
    limit: QuestionLimitOpt = None,
    test_fraction: Annotated[
        float, typer.Option("--test-fraction",
                            callback=finite_number(0.0, 1.0, "must be a number between 0 and 1"),
                            help="Share of source questions in the test split (0 to 1).")
    ] = DEFAULT_TEST_FRACTION,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, max=MAX_WORKERS,
                          help="Processes (each opens the store read-only); output is "
                          f"identical. At most {MAX_WORKERS}, and no more are started than "
                          "there are chunks of work.")
    ] = 1,
    shard: Annotated[
        str | None, typer.Option("--shard", metavar="i/N",
                                 help="Only the i-th of N contiguous blocks of questions "
                                 "(0-based); shard outputs concatenate to the full run.")
    ] = None,
    chunk_size: Annotated[
        int, typer.Option("--chunk-size", min=1,
                          help="Questions per resumable unit of work (an interrupted run "
                          "redoes at most one unit per worker).")
    ] = DEFAULT_CHUNK_SIZE,
    max_answers: Annotated[
        int, typer.Option("--max-answers", min=1, help="Reject extensions with more answers.")
    ] = DEFAULT_MAX_ANSWERS,
    classes: ClassesOpt = True,
    caqa_strict: CaqaStrictOpt = False,
    llm_url: Annotated[
        str | None, typer.Option("--llm-url", metavar="URL",
                                 help="OpenAI-compatible endpoint (e.g. http://localhost:8000/v1) "
                                 "for citations and questions; key from $KGBENCH_LLM_API_KEY.")
    ] = None,
    llm_model: LlmModelOpt = None,
    llm_timeout: LlmTimeoutOpt = 120.0,
    llm_retries: LlmRetriesOpt = 5,
    llm_rps: LlmRpsOpt = None,
    llm_fallback: Annotated[
        bool, typer.Option("--llm-fallback/--llm-stop",
                           help="When an LLM request fails (endpoint down, request refused, "
                           "reply too large): use templates (flagged in each sample, counted) "
                           "or stop with the server's error, keeping progress, so a rerun "
                           "resumes (default).")
    ] = False,
    llm_cache: LlmCacheOpt = Path(".kgbench-llm-cache"),
    phrases: Annotated[
        Path | None, typer.Option("--phrases", metavar="FILE", readable=False,
                                  help="TSV predicate<TAB>phrase overriding the relation phrases.")
    ] = None,
    grammar_gate: Annotated[
        bool, typer.Option("--grammar-gate",
                           help="Drop samples whose q̃, ã or citation LanguageTool flags in the "
                           "blocked categories (grammar, spelling outside names, casing, "
                           "doubled words, a/an); counted in stats.json. Needs Java 17 and "
                           "`make grammar-gate`; about halves the samples/s.")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first malformed question record.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace DIR's benchmark or unfinished run.")
    ] = False,
    report: Annotated[
        bool, typer.Option("--report/--no-report", help="Write DIR/report.html.")
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Generate an attribution benchmark: parse → extend → ground → edit → verbalize.

    Writes DIR/samples.jsonl (one sample per line, validated against the shipped JSON
    Schema), stats.json (label × complexity × split, like CAQA Table 5),
    failures.jsonl, timings.json and report.html. Splits are by source question; the
    same --seed gives byte-identical files, with any --workers. An interrupted run
    resumes when the same command is rerun.

    Examples:

      kgbench generate --store S --questions WebQSP.test.json --out webqsp-bench --seed 7

      kgbench generate --store S --domain Q5 --n 1000 --out humans-bench

      kgbench generate --store S --domain film. --complexity-mix single=1 --out films
    """
    from extension.core.extend import ExtensionConfig
    from extension.core.samples import SampleConfig
    from extension.outputs.output_file import check_output_dir
    from extension.run.generate import GenerateConfig, GenerateError, TextOptions, parse_shard
    from extension.run.generate_job import (
        GenerateRequest,
        read_generate_inputs,
        require_questions,
        run_generate_on,
    )

    if (questions is None) == (domain is None):
        raise CliError("give either --questions FILE or --domain SPEC",
                       "e.g. --questions WebQSP.test.json, or --domain Q5 --n 500")
    mix = _complexity_mix(complexity_mix, domain)
    try:
        shard_spec = parse_shard(shard) if shard else None
    except ValueError as exc:   # a usage error, like typer's own (exit 2), in one line
        raise CliError(str(exc), code=2) from exc
    if llm_url and not llm_model:
        raise CliError("--llm-url needs --llm-model", "e.g. --llm-model llama3.1:8b")
    if grammar_gate:
        from extension.verbalize.grammar_gate import unavailable_reason

        missing = unavailable_reason()
        if missing:
            raise CliError(f"--grammar-gate: {missing}")
    for given in (questions, phrases):   # before any work, like a missing file
        if given is not None:
            readable_input(given)
    config = GenerateConfig(
        seed=seed, test_fraction=test_fraction,
        sample=SampleConfig(extension=ExtensionConfig(max_answers=max_answers), classes=classes,
                            caqa_strict=caqa_strict),
        text=TextOptions(llm_url=llm_url, llm_model=llm_model, cache_dir=llm_cache,
                         phrases_file=phrases, llm_timeout_s=llm_timeout,
                         llm_retries=llm_retries, llm_requests_per_second=llm_rps,
                         llm_fallback_on_error=llm_fallback),
        workers=workers, chunk_size=chunk_size, grammar_gate=grammar_gate,
        **({"shard": shard_spec} if shard_spec else {}))
    location = store_location(ctx, store)
    check_output_dir(out_dir, option="--out",
                     inputs=[p for p in (location, questions, phrases) if p is not None])
    request = GenerateRequest(store=location, out_dir=out_dir, config=config,
                              questions=questions, fmt=fmt, domain=domain, n=n,
                              complexity_mix=mix, limit=limit,
                              strict=strict, force=force, report=report)
    inputs = read_generate_inputs(request)
    _print_skipped(inputs.issues)
    for line in inputs.notes:
        note(line)
    require_questions(request, inputs)
    with on_interrupt(RESUMES), progress() as display:
        task = display.add_task("generating", total=len(config.shard.block(len(inputs.items))))

        def advance(done: int, total: int, samples: int) -> None:
            display.update(task, completed=done, total=total,
                           description=f"generating ({samples:,} samples)")

        try:
            result = run_generate_on(request, inputs, progress=advance,
                                     store_progress=ProgressReporter(display))
        except GenerateError as exc:
            raise CliError(str(exc)) from exc
    _print_result(result, as_json)


def _complexity_mix(spec: str | None, domain: str | None) -> ComplexityMix | None:
    """``--complexity-mix`` read (a usage error when it cannot be, or comes without
    --domain: a dataset's questions have the complexities of their logical forms)."""
    from extension.inputs.complexity_mix import CAQA_MIX, parse_complexity_mix

    if spec is None:
        return CAQA_MIX
    if domain is None:
        raise CliError("--complexity-mix applies to --domain runs only", code=2)
    try:
        return parse_complexity_mix(spec)
    except ValueError as exc:
        raise CliError(f"--complexity-mix: {exc}", code=2) from exc


def _print_skipped(issues: list[ReadIssue]) -> None:
    for issue in issues[:5]:
        err.print(f"[yellow]skipped malformed record:[/] {escape(str(issue))}")
    if len(issues) > 5:
        err.print(f"[yellow]… {len(issues) - 5:,} more malformed records skipped[/]")


TOP_FAILURE_KINDS = 5
"""Kinds of failure reason the summary lists (``stats.json`` keeps more)."""


def _print_failures(stats: dict[str, Any], failures_file: Path) -> None:
    """The failures by stage, then the most frequent kinds of reason: count, stage,
    kind and what it means, the ids their reasons name most often (the predicates the
    store lacks) and what to do (:mod:`extension.outputs.failure_kinds`)."""
    by_stage = stats.get("failures_by_stage") or {}
    if not by_stage:
        return
    err.print("failures by stage: " + ", ".join(f"{k} {v:,}" for k, v in by_stage.items())
              + f" (see {escape(str(failures_file))})")
    kinds = [k for k in stats.get("failures_by_kind") or [] if isinstance(k, dict)]
    if not kinds:
        return
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", no_wrap=True)
    table.add_column()
    advised: set[str] = set()
    for kind in kinds[:TOP_FAILURE_KINDS]:
        meaning = kind.get("meaning") or ""
        lines = [f"{field(str(kind.get('stage', '')))}: {field(str(kind.get('kind', '')))}"
                 + (f" [dim]({field(meaning)})[/]" if meaning != kind.get("kind") else "")]
        mentions = [m for m in kind.get("mentions") or [] if isinstance(m, dict)]
        if mentions:
            lines.append("most often: " + ", ".join(
                f"{field(str(m.get('id')))} {m.get('count', 0):,}" for m in mentions))
        advice = str(kind.get("what_to_do") or "")
        if advice:
            lines.append("[bold]what to do:[/] " + ("as above" if advice in advised
                                                      else field(advice)))
            advised.add(advice)
        table.add_row(f"{kind.get('count', 0):,}", "\n".join(lines))
    err.print("most frequent reasons:")
    err.print(table)
    if len(kinds) > TOP_FAILURE_KINDS:
        err.print(f"  … {len(kinds) - TOP_FAILURE_KINDS:,} more kinds in stats.json "
                  "(failures_by_kind) and report.html")


def _print_result(result: GenerateResult, as_json: bool) -> None:
    stats, timings = result.stats, result.timings
    if as_json:
        emit_json({"out": str(result.out_dir), "stats": stats, "timings": timings,
                   "already_complete": result.resumed_chunks == -1})
        return
    out.print(table5(stats))
    out.print(caqa_shares(stats))
    _print_failures(stats, result.out_dir / "failures.jsonl")
    union = (stats.get("rule_availability") or {}).get("union") or {}
    if union.get("tried") and not union.get("applied"):
        err.print(f"union: no sample; tried on {union['tried']:,} question(s): " + ", ".join(
            f"{k.replace('_', ' ')} {v:,}" for k, v in union.items()
            if k not in ("tried", "applied")))
    if result.resumed_chunks == -1:
        note(f"{result.out_dir} already holds this run's benchmark; nothing to do "
             "(--force regenerates it)")
        return
    if result.resumed_chunks:
        note(f"resumed: {result.resumed_chunks:,} chunk(s) came from the interrupted run")
    used, asked = timings.get("workers", 1), timings.get("workers_requested", 1)
    if 0 < used < asked:
        note(f"ran {used} worker process(es), not --workers {asked}: there were only {used} "
             "chunk(s) of work (--chunk-size sets the questions per chunk)")
    q = stats["questions_by_split"]
    rate = timings.get("samples_per_s")
    note(f"{stats['questions']:,} questions (train {q['train']:,}, test {q['test']:,}) -> "
         f"{stats['samples']:,} samples in {result.out_dir / 'samples.jsonl'}"
         + (f" ({rate:,.0f} samples/s)" if rate else ""))
    gate = stats.get("grammar_gate")
    if gate:
        note(f"grammar gate: {gate['blocked_samples']:,} of {gate['checked_samples']:,} samples "
             "dropped (stage grammar in failures.jsonl)")
    if stats.get("llm_fallback_samples"):
        note(f"{stats['llm_fallback_samples']:,} samples have template text where an LLM "
             "request failed or its reply was unusable (each sample's `fallbacks` says why)")
    if (result.out_dir / "report.html").exists():
        note(f"report: {result.out_dir / 'report.html'}")
