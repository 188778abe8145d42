"""``kgbench questions parse|ground``: KGQA questions -> query graphs -> grounded answers.

``parse`` reads a dataset (WebQSP, GrailQA, JSONL), turns each question's logical form
into a query graph, classifies it (single / path / tree / unsupported with a reason)
and writes one JSON line per question plus ``coverage.json``. ``ground`` runs parsed
questions against a store and scores the answers against gold.

The commands live here rather than in :mod:`kgbench.cli` to keep that module about the
store; :mod:`kgbench.cli` registers :data:`questions_app`.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from kgbench.cli import (
    CliError,
    JsonOpt,
    StoreOpt,
    _emit_json,
    _note,
    _progress,
    _reading,
    _store_path,
    app,
    err,
    out,
)
from kgstore import open_store, to_jsonable
from loaders.kgqa import FORMATS, ReadIssue, read_questions
from loaders.sources import data_name

if TYPE_CHECKING:
    from extension.grounding import AnswerScore, Grounding
    from extension.questions import ParsedQuestion

# The engine (networkx, rdflib, pydantic models: about a second to import) is imported
# inside the functions that use it, so registering these commands keeps `kgbench --help`
# and the other commands quick.

questions_app: typer.Typer = typer.Typer(
    help=(
        "Turn KGQA questions into query graphs, classify them, and ground them in a store.\n\n"
        "Example: kgbench questions parse WebQSP.test.json --out parsed.jsonl && "
        "kgbench questions ground parsed.jsonl --store S"
    ),
    no_args_is_help=True,
)

SHAPES = ("single", "path", "tree", "unsupported")
SHOWN_ISSUES = 10


def _default_out(path: Path, suffix: str) -> Path:
    name = data_name(path).removesuffix(".jsonl").removesuffix(".json")
    return Path(f"{name}.{suffix}.jsonl")


@questions_app.command("parse")
def parse_cmd(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Question file (.json/.jsonl, optionally .gz/.bz2/.zst).")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", metavar="FORMAT",
                     help=f"One of {', '.join(FORMATS)}; detected from the content when omitted."),
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE",
                     help="Output JSONL (default: <input name>.parsed.jsonl here). "
                     "coverage.json is written beside it."),
    ] = None,
    store: Annotated[
        Path | None,
        typer.Option("--store", metavar="PATH", show_default=False,
                     help="Also use the CVT (mediator) types recorded in this store."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first malformed record.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Parse and classify KGQA questions (CAQA shapes: single, path, tree).

    Each question's logical form (WebQSP SPARQL, GrailQA graph_query, JSONL sparql or
    triples) becomes a query graph; a hop through a CVT counts as one. The parse kept
    is the first supported one among a question's parses, else the first. Malformed
    records are listed with their id and skipped (--strict stops instead).

    Example: kgbench questions parse WebQSP.test.json --out webqsp.parsed.jsonl
    """
    from extension.query_graph import known_mediator_types
    from extension.questions import parse_question
    from extension.shapes import REASONS

    if fmt is not None and fmt.lower() not in FORMATS:
        raise CliError(f"unknown format {fmt!r}", f"use one of {', '.join(FORMATS)}", code=2)
    if not file.exists():
        raise CliError(f"{file}: no such file", "check the path")
    cvt_types = known_mediator_types()
    if store is not None:
        with open_store(store, read_only=True) as s:
            cvt_types = cvt_types | s.cvt_types()
    target = out_path or _default_out(file, "parsed")
    target.parent.mkdir(parents=True, exist_ok=True)
    issues: list[ReadIssue] = []
    shapes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    started = time.perf_counter()
    n = 0
    tmp = target.with_name(target.name + ".part")
    with tmp.open("w", encoding="utf-8") as sink, _progress() as progress:
        task = progress.add_task(f"parsing {file.name}", total=None)
        for question in read_questions(file, fmt, strict=strict, issues=issues):
            parsed = parse_question(question, cvt_types=cvt_types)
            sink.write(parsed.model_dump_json(exclude_defaults=False) + "\n")
            shapes[parsed.shape] += 1
            if parsed.reason:
                reasons[parsed.reason] += 1
            checks[parsed.cross_check] += 1
            n += 1
            progress.advance(task)
    tmp.replace(target)  # a crash leaves no half-written output under the real name
    seconds = time.perf_counter() - started
    coverage = {
        "file": str(file), "format": fmt, "output": str(target), "questions": n,
        "shapes": {s: shapes.get(s, 0) for s in SHAPES},
        "reasons": dict(reasons.most_common()),
        "reason_meanings": {r: REASONS[r] for r in reasons},
        "cross_check": {k: v for k, v in checks.items() if k != "not_checked"},
        "malformed_records": len(issues),
        "malformed_examples": [str(i) for i in issues[:SHOWN_ISSUES]],
        "seconds": round(seconds, 3),
    }
    coverage_path = target.with_name("coverage.json")
    coverage_path.write_text(json.dumps(coverage, indent=2) + "\n", encoding="utf-8")
    if as_json:
        _emit_json(coverage)
        return
    _print_coverage(coverage, issues)
    _note(f"wrote {n:,} questions to {target} and the coverage to {coverage_path} "
          f"({n / seconds if seconds else 0:,.0f} questions/s)")


def _print_coverage(coverage: dict[str, Any], issues: list[ReadIssue]) -> None:
    from extension.shapes import REASONS

    total = coverage["questions"] or 1
    table = Table(title="Questions by shape", box=box.SIMPLE_HEAD)
    table.add_column("shape")
    table.add_column("questions", justify="right")
    table.add_column("share", justify="right")
    for shape, count in coverage["shapes"].items():
        table.add_row(shape, f"{count:,}", f"{100 * count / total:.1f}%")
    out.print(table)
    if coverage["reasons"]:
        table = Table(title="Unsupported, by reason", box=box.SIMPLE_HEAD)
        table.add_column("reason")
        table.add_column("questions", justify="right")
        table.add_column("meaning")
        for reason, count in coverage["reasons"].items():
            table.add_row(reason, f"{count:,}", escape(REASONS[reason]))
        out.print(table)
    if coverage["cross_check"]:
        out.print("graph_query vs sparql_query: " + ", ".join(
            f"{k} {v:,}" for k, v in sorted(coverage["cross_check"].items())))
    if issues:
        err.print(f"[yellow]{len(issues):,} malformed record(s) skipped:[/]")
        for issue in issues[:SHOWN_ISSUES]:
            err.print(f"  {escape(str(issue))}", soft_wrap=True)
        if len(issues) > SHOWN_ISSUES:
            err.print(f"  … and {len(issues) - SHOWN_ISSUES:,} more (see coverage.json)")


def read_parsed(path: Path, *, strict: bool = False) -> Iterator[tuple[int, ParsedQuestion | str]]:
    """``(line number, question or error reason)`` for each non-blank line of a
    ``questions parse`` output file; ``strict`` raises :class:`CliError` at the first bad one."""
    from extension.questions import ParsedQuestion

    if not path.exists():
        raise CliError(f"{path}: no such file",
                       "create it with `kgbench questions parse FILE --out " f"{path}`")
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield number, ParsedQuestion.model_validate_json(line)
            except ValueError as exc:
                reason = str(exc).splitlines()[0]
                if strict:
                    raise CliError(f"{path}:{number}: not a parsed question ({reason})",
                                   "drop --strict to skip bad lines") from None
                yield number, reason


def grounding_record(q: ParsedQuestion, g: Grounding | None
                     ) -> tuple[dict[str, Any], AnswerScore | None]:
    """One line of the ``questions ground`` output, and the answer score (``None``
    when the question was skipped or has no gold answers)."""
    from extension.grounding import score_answers

    gold = [(a.kind, a.value) for a in q.answers]
    doc: dict[str, Any] = {"id": q.id, "question": q.question, "shape": q.shape,
                           "gold": [a.model_dump(exclude_none=True) for a in q.answers]}
    if g is None:
        doc.update(outcome="skipped", detail=f"unsupported: {q.reason}")
        return doc, None
    score = score_answers(g.answers, gold) if q.answers else None
    doc.update(
        outcome=g.outcome, detail=g.detail, missing=list(g.missing),
        answers=to_jsonable(list(g.answers)), truncated=g.truncated,
        bindings=len(g.bindings),
        facts=[[f.subject, f.predicate, to_jsonable(f.object)] for f in g.facts],
    )
    if score is not None:
        doc.update(precision=score.precision, recall=score.recall, f1=score.f1)
    return doc, score


@questions_app.command("ground")
def ground_cmd(
    ctx: typer.Context,
    parsed: Annotated[Path, typer.Argument(help="Output of `kgbench questions parse`.")],
    store: StoreOpt = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE",
                     help="Per-question results (default: <input name>.grounded.jsonl here); "
                     "grounding.json with the summary is written beside it."),
    ] = None,
    classes: Annotated[
        bool, typer.Option("--classes/--no-classes",
                           help="Apply class constraints (turn off for stores without types).")
    ] = True,
    max_bindings: Annotated[
        int, typer.Option("--max-bindings", min=1, help="Solutions fetched per question.")
    ] = 10_000,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad line.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Ground parsed questions in a store and score them against the gold answers.

    Supported questions (single, path, tree) are compiled to triple patterns and
    matched; each result has the answers, the supporting facts and per-question
    precision / recall / F1. An unknown entity or predicate is reported as the outcome.

    Example: kgbench questions ground parsed.jsonl --store kgbench-data/store
    """
    from extension.grounding import Grounder, GroundingSummary

    target = out_path or _default_out(parsed, "grounded")
    target.parent.mkdir(parents=True, exist_ok=True)
    summary = GroundingSummary()
    by_shape: dict[str, GroundingSummary] = {}
    bad: list[str] = []
    started = time.perf_counter()
    tmp = target.with_name(target.name + ".part")
    with _reading(ctx, store) as s, tmp.open("w", encoding="utf-8") as sink, \
            _progress() as progress:
        grounder = Grounder(s, classes=classes, max_bindings=max_bindings)
        task = progress.add_task(f"grounding {parsed.name}", total=None)
        for number, item in read_parsed(parsed, strict=strict):
            progress.advance(task)
            if isinstance(item, str):
                bad.append(f"{parsed}:{number}: {item}")
                continue
            g = grounder.ground(item.query) if item.shape != "unsupported" and item.query else None
            doc, score = grounding_record(item, g)
            sink.write(json.dumps(doc, ensure_ascii=False) + "\n")
            for agg in (summary, by_shape.setdefault(item.shape, GroundingSummary())):
                agg.add(doc["outcome"], score)
    tmp.replace(target)
    seconds = time.perf_counter() - started
    report = {
        "input": str(parsed), "store": str(_store_path(ctx, store)), "output": str(target),
        "questions": summary.questions, "outcomes": summary.outcomes, "scored": summary.scored,
        **summary.means(), "exact": summary.exact, "any_hit": summary.any_hit,
        "by_shape": {shape: {"questions": agg.questions, "outcomes": agg.outcomes,
                             "scored": agg.scored, **agg.means()}
                     for shape, agg in sorted(by_shape.items())},
        "bad_lines": len(bad), "bad_line_examples": bad[:SHOWN_ISSUES],
        "seconds": round(seconds, 3),
    }
    report_path = target.with_name("grounding.json")
    report_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if as_json:
        _emit_json(report)
        return
    _print_grounding(report)
    for line in bad[:SHOWN_ISSUES]:
        err.print(f"[yellow]skipped[/] {escape(line)}", soft_wrap=True)
    _note(f"wrote per-question results to {target} and the summary to {report_path}")


def _print_grounding(report: dict[str, Any]) -> None:
    table = Table(title="Grounding", box=box.SIMPLE_HEAD)
    for col in ("shape", "questions", "answered", "scored", "precision", "recall", "F1"):
        table.add_column(col, justify="left" if col == "shape" else "right")
    rows = [*report["by_shape"].items(), ("all", report)]
    for shape, agg in rows:
        table.add_row(shape, f"{agg['questions']:,}", f"{agg['outcomes'].get('answered', 0):,}",
                      f"{agg['scored']:,}", f"{agg['precision']:.3f}", f"{agg['recall']:.3f}",
                      f"{agg['f1']:.3f}")
    out.print(table)
    out.print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report["outcomes"].items())))
    out.print(f"exact answer sets: {report['exact']:,}; at least one gold answer: "
              f"{report['any_hit']:,} of {report['scored']:,} scored")


app.add_typer(questions_app, name="questions")
