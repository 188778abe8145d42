"""``kgbench generate``: a KGQA dataset or a KG domain -> a finished benchmark directory.

The command adds itself to the main app (it builds on :mod:`kgbench.cli`'s helpers);
the pipeline is :func:`extension.generate.generate`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from extension.defaults import DEFAULT_CHUNK_SIZE, DEFAULT_MAX_ANSWERS, DEFAULT_TEST_FRACTION
from extension.labels import COMPLEXITIES, LABELS, SPLITS
from kgbench.cli import (
    CliError,
    JsonOpt,
    StoreOpt,
    _emit_json,
    _note,
    _progress,
    _store_path,
    app,
    err,
    out,
)
from kgstore import open_store
from kgstore.store import Store
from loaders.kgqa import FORMATS, ReadIssue, read_questions

if TYPE_CHECKING:
    from extension.generate import GenerateResult, Question

# The generation engine (networkx, rdflib, the sample models: about a second to import)
# is imported inside the functions that run it, so that registering this command keeps
# `kgbench --help` and the other commands quick.

LABEL_TITLES = {"supportive": "supportive", "partially_supportive": "partial",
                "contradictory": "contradictory", "irrelevant": "irrelevant"}
COMPLEXITY_TITLES = {"single": "single", "union": "union", "intersection": "intersect.",
                     "concatenation": "concat."}


def generate_cmd(
    ctx: typer.Context,
    store: StoreOpt = None,
    questions: Annotated[
        Path | None, typer.Option("--questions", "-q", metavar="FILE",
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
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", help="Benchmark directory.")
    ] = Path("benchmark"),
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice and of the split.")] = 0,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N questions.")
    ] = None,
    test_fraction: Annotated[
        float, typer.Option("--test-fraction", min=0.0, max=1.0,
                            help="Share of source questions in the test split.")
    ] = DEFAULT_TEST_FRACTION,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1,
                          help="Processes (each opens the store read-only); output is identical.")
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
    classes: Annotated[
        bool, typer.Option("--classes/--no-classes", help="Apply class constraints when grounding.")
    ] = True,
    llm_url: Annotated[
        str | None, typer.Option("--llm-url", metavar="URL",
                                 help="OpenAI-compatible endpoint (e.g. http://localhost:8000/v1) "
                                 "for citations and questions; key from $KGBENCH_LLM_API_KEY.")
    ] = None,
    llm_model: Annotated[
        str | None, typer.Option("--llm-model", metavar="NAME", help="Model name for --llm-url.")
    ] = None,
    llm_timeout: Annotated[
        float, typer.Option("--llm-timeout", min=0.1, metavar="SECONDS",
                            help="Deadline of one whole LLM request, its retries and "
                            "their waits included.")
    ] = 120.0,
    llm_retries: Annotated[
        int, typer.Option("--llm-retries", min=0,
                          help="Retries (exponential backoff) before the endpoint counts as down.")
    ] = 5,
    llm_rps: Annotated[
        float | None, typer.Option("--llm-rps", min=0.01, metavar="N",
                                   help="At most N LLM requests per second (per worker).")
    ] = None,
    llm_fallback: Annotated[
        bool, typer.Option("--llm-fallback/--llm-stop",
                           help="When an LLM request fails (endpoint down, request refused, "
                           "reply too large): use templates (flagged in each sample, counted) "
                           "or stop with the server's error, keeping progress, so a rerun "
                           "resumes (default).")
    ] = False,
    llm_cache: Annotated[
        Path, typer.Option("--llm-cache", metavar="DIR",
                           help="Cache of LLM responses (reruns cost nothing).")
    ] = Path(".kgbench-llm-cache"),
    phrases: Annotated[
        Path | None, typer.Option("--phrases", metavar="FILE",
                                  help="TSV predicate<TAB>phrase overriding the relation phrases.")
    ] = None,
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
    """
    from extension.extend import ExtensionConfig
    from extension.generate import GenerateConfig, GenerateError, TextOptions, generate, parse_shard
    from extension.samples import SampleConfig

    if (questions is None) == (domain is None):
        raise CliError("give either --questions FILE or --domain SPEC",
                       "e.g. --questions WebQSP.test.json, or --domain Q5 --n 500")
    try:
        shard_spec = parse_shard(shard) if shard else None
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    if llm_url and not llm_model:
        raise CliError("--llm-url needs --llm-model", "e.g. --llm-model llama3.1:8b")
    config = GenerateConfig(
        seed=seed, test_fraction=test_fraction,
        sample=SampleConfig(extension=ExtensionConfig(max_answers=max_answers), classes=classes),
        text=TextOptions(llm_url=llm_url, llm_model=llm_model, cache_dir=llm_cache,
                         phrases_file=phrases, llm_timeout_s=llm_timeout,
                         llm_retries=llm_retries, llm_requests_per_second=llm_rps,
                         llm_fallback_on_error=llm_fallback),
        workers=workers, chunk_size=chunk_size,
        **({"shard": shard_spec} if shard_spec else {}))
    store_path = _store_path(ctx, store)
    with open_store(store_path, read_only=True) as s:
        _check_store(s, store_path)
        if domain is not None:
            items, source, seed_lines = _domain_questions(s, domain, n, seed)
        else:
            assert questions is not None
            items, source = _dataset_questions(questions, fmt, strict)
            seed_lines = None
    if limit is not None:
        items = items[:limit]
        source = {**source, "limit": limit}
    if not items:
        raise CliError(f"no questions to generate from ({source.get('file') or domain})",
                       "check the file's format with `kgbench questions parse FILE`")
    with _progress() as progress:
        task = progress.add_task("generating", total=len(config.shard.block(len(items))))

        def advance(done: int, total: int, samples: int) -> None:
            progress.update(task, completed=done, total=total,
                            description=f"generating ({samples:,} samples)")

        try:
            result = generate(store_path, items, out_dir, config, source=source,
                              progress=advance, force=force, report=report)
        except GenerateError as exc:
            raise CliError(str(exc)) from exc
    if seed_lines is not None:
        path = out_dir / "seed_questions.jsonl"
        path.with_name(path.name + ".part").write_text(seed_lines, encoding="utf-8")
        path.with_name(path.name + ".part").replace(path)
    _print_result(result, as_json)


def _check_store(s: Store, path: Path) -> None:
    """A store with no facts or no names cannot make readable samples: say so early."""
    if s.stats().facts == 0:
        raise CliError(f"the store at {path} has no facts",
                       "load a KG first, e.g. `kgbench load freebase DUMP --store S`")
    if not s.sample_entities(20, seed=0, named_only=True):
        raise CliError(f"the store at {path} has no entity names: citations would show raw ids",
                       "load names with the KG (e.g. `kgbench load triples --names names.tsv`)")


def _dataset_questions(path: Path, fmt: str | None, strict: bool
                       ) -> tuple[list[Question], dict[str, Any]]:
    from extension.generate import source_of_file

    if not path.exists():
        raise CliError(f"question file {path} does not exist")
    issues: list[ReadIssue] = []
    try:
        items: list[Question] = list(read_questions(path, fmt, strict=strict, issues=issues))
    except ValueError as exc:   # unknown or undetectable format, malformed under --strict
        raise CliError(str(exc), f"pass --format with one of {', '.join(FORMATS)}") from exc
    for issue in issues[:5]:
        err.print(f"[yellow]skipped malformed record:[/] {escape(str(issue))}")
    if len(issues) > 5:
        err.print(f"[yellow]… {len(issues) - 5:,} more malformed records skipped[/]")
    source = source_of_file(path, fmt)
    return items, {**source, "malformed_records": len(issues)}


def _domain_questions(s: Store, spec: str, n: int, seed: int
                      ) -> tuple[list[Question], dict[str, Any], str]:
    from extension.seeds import sample_seed_questions

    try:
        sampled = sample_seed_questions(s, spec, n, seed=seed)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    questions = list(sampled.questions)
    if len(questions) < n:
        _note(f"sampled {len(questions):,} of {n:,} seed questions from {spec} "
              "(the domain has fewer groundable facts)")
    lines = "".join(q.model_dump_json() + "\n" for q in questions)
    source = {"kind": "domain", "spec": spec, "n": n, "store_facts": s.stats().facts}
    return list(questions), source, lines


def table5(stats: dict[str, Any]) -> Table:
    """The counts laid out like CAQA Table 5: one row per split × label, one column
    per complexity, with totals."""
    table = Table(title="Samples by split, label and complexity (cf. CAQA Table 5)",
                  box=box.SIMPLE_HEAD)
    table.add_column("split")
    table.add_column("label")
    for c in (*COMPLEXITIES, "total"):
        table.add_column(COMPLEXITY_TITLES.get(c, c), justify="right")
    grand = {c: 0 for c in COMPLEXITIES}
    for split in SPLITS:
        block = stats["by_split"][split]
        for i, label in enumerate(LABELS):
            row = [block[label][c] for c in COMPLEXITIES]
            for c, v in zip(COMPLEXITIES, row, strict=True):
                grand[c] += v
            table.add_row(split if i == 0 else "", LABEL_TITLES[label],
                          *(f"{v:,}" for v in row), f"{sum(row):,}",
                          end_section=i == len(LABELS) - 1)
    table.add_row("all", "", *(f"{grand[c]:,}" for c in COMPLEXITIES),
                  f"{sum(grand.values()):,}", style="bold")
    return table


def _print_result(result: GenerateResult, as_json: bool) -> None:
    stats, timings = result.stats, result.timings
    if as_json:
        _emit_json({"out": str(result.out_dir), "stats": stats, "timings": timings,
                    "already_complete": result.resumed_chunks == -1})
        return
    out.print(table5(stats))
    failures = stats.get("failures_by_stage") or {}
    if failures:
        err.print("failures by stage: " + ", ".join(f"{k} {v:,}" for k, v in failures.items())
                  + f" (see {result.out_dir / 'failures.jsonl'})")
    if result.resumed_chunks == -1:
        _note(f"{result.out_dir} already holds this run's benchmark; nothing to do "
              "(--force regenerates it)")
        return
    if result.resumed_chunks:
        _note(f"resumed: {result.resumed_chunks:,} chunk(s) came from the interrupted run")
    q = stats["questions_by_split"]
    rate = timings.get("samples_per_s")
    _note(f"{stats['questions']:,} questions (train {q['train']:,}, test {q['test']:,}) -> "
          f"{stats['samples']:,} samples in {result.out_dir / 'samples.jsonl'}"
          + (f" ({rate:,.0f} samples/s)" if rate else ""))
    if stats.get("llm_fallback_samples"):
        _note(f"{stats['llm_fallback_samples']:,} samples have template text where an LLM "
              "request failed or its reply was unusable (each sample's `fallbacks` says why)")
    if (result.out_dir / "report.html").exists():
        _note(f"report: {result.out_dir / 'report.html'}")


app.command("generate")(generate_cmd)


# -- the demo's steps (called by `kgbench demo`) ------------------------------------------

DEMO_SEED = 3
DEMO_DOMAIN = "people.person"
DEMO_DOMAIN_N = 30


def demo_generate_step(store_path: Path, questions: Path, out_dir: Path) -> None:
    """Generate the demo benchmark from the bundled questions; print the Table-5 counts
    and one sample per label."""
    from extension.generate import GenerateConfig, generate, source_of_file

    config = GenerateConfig(seed=DEMO_SEED, test_fraction=0.3)
    with open_store(store_path, read_only=True) as s:
        items: list[Question] = list(read_questions(questions, "jsonl", strict=True))
        _check_store(s, store_path)
    result = generate(store_path, items, out_dir, config,
                      source=source_of_file(questions, "jsonl"), force=True)
    out.print(table5(result.stats))
    _print_examples(out_dir)
    _note(f"{result.stats['samples']:,} samples in {out_dir / 'samples.jsonl'}; "
          f"open {out_dir / 'report.html'} for plots and a drawing of each kind of sample")


def demo_domain_step(store_path: Path, out_dir: Path) -> None:
    """A benchmark with no dataset: seed questions sampled from the KG's people."""
    from extension.generate import GenerateConfig, generate
    from extension.seeds import sample_seed_questions

    with open_store(store_path, read_only=True) as s:
        sampled = sample_seed_questions(s, DEMO_DOMAIN, DEMO_DOMAIN_N, seed=DEMO_SEED)
        facts = s.stats().facts
    questions = list(sampled.questions)
    by_shape = {r.shape: r.produced for r in sampled.shapes}
    out.print(f"{len(questions)} seed questions sampled from {DEMO_DOMAIN} ("
              + ", ".join(f"{n} {shape}" for shape, n in by_shape.items()) + "), e.g.")
    for shape in ("single", "path", "tree"):
        example = next((q for q in questions if q.shape == shape), None)
        if example is not None:
            out.print(f"  [dim]{shape}:[/] {escape(example.question)}")
    source = {"kind": "domain", "spec": DEMO_DOMAIN, "n": DEMO_DOMAIN_N, "store_facts": facts}
    result = generate(store_path, list(questions), out_dir, GenerateConfig(seed=DEMO_SEED),
                      source=source, force=True)
    stats = result.stats
    totals = {label: sum(stats["by_split"][sp][label][c] for sp in SPLITS for c in COMPLEXITIES)
              for label in LABELS}
    out.print(f"-> {stats['samples']:,} samples: "
              + ", ".join(f"{n} {LABEL_TITLES[label]}" for label, n in totals.items())
              + f" (report: {out_dir / 'report.html'})")


def _print_examples(out_dir: Path) -> None:
    """The first sample of each label, as a reader of the benchmark sees it."""
    from extension.sample_format import BenchmarkSample

    shown: dict[str, BenchmarkSample] = {}
    with (out_dir / "samples.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            sample = BenchmarkSample.model_validate_json(line)
            if sample.complexity != "single":   # multi-citation samples show more
                shown.setdefault(sample.label, sample)
            if len(shown) == len(LABELS):
                break
    first = next(iter(shown.values()), None)
    if first is None:
        return
    out.print(f"[bold]question[/] {escape(first.question)}")
    out.print(f"[bold]extended[/] {escape(first.question_extended)}  "
              f"[dim]({first.query.rule}, {first.complexity})[/]")
    out.print(f"[bold]answer[/]   {escape(first.answer)}")
    for label in LABELS:
        same = shown.get(label)
        if same is not None and same.source.qid == first.source.qid:
            out.print(f"  [bold]{LABEL_TITLES[label]:>13}[/] {escape(same.citation)}")
