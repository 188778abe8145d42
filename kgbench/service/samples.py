"""The benchmark browser's endpoints: the benchmarks under ``--data``, their samples
filtered and paged, one sample with its subgraph as graph JSON (the edit's triples
highlighted), and the label × complexity table beside CAQA Table 5.

A thin shell over :mod:`kgbench.service.sample_index`; every ``bench=`` name goes
through :func:`kgbench.service.paths.resolve_under`, so no request reads outside
``--data``.
"""

from __future__ import annotations

import gzip
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask

from extension.core.labels import Complexity, ExportFormat, Label, Split, SplitChoice
from extension.outputs.sample_schema import BenchmarkSample
from kgbench.service.deps import data_root, store
from kgbench.service.errors import ERROR_RESPONSES, ApiError, ErrorBody
from kgbench.service.graphjson import edge_id, subgraph_graph
from kgbench.service.htmlfiles import file_response
from kgbench.service.models import GraphJson, record_model
from kgbench.service.paths import resolve_under
from kgbench.service.sample_index import (
    SAMPLES_FILES,
    BenchmarkDir,
    BenchmarkIndex,
    SampleFilter,
    SampleNotFoundError,
    SampleSummary,
    StaleIndexError,
    benchmark_table,
    find_benchmark_dirs,
    load_index,
    sample_edits,
)
from kgstore import Entity, Fact, Store, Subgraph

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["samples"], responses={
    **ERROR_RESPONSES,
    409: {"model": ErrorBody, "description": "The samples file is unreadable or being rewritten"}})

CONTEXT_BELOW = 6
"""A sample graph with fewer facts than this gets the store's facts around its
entities too, so a one-triple sample is not drawn as a lone edge."""
CONTEXT_PER_ENTITY = 3
CONTEXT_MAX = 18
"""Store facts added around a sample's entities: per entity, and in all."""

REPORT_FILE = "report.html"
"""A benchmark's page (:data:`extension.outputs.report.REPORT_FILE`; that module is not imported
here: it loads matplotlib, half the server's start-up)."""
UNREADABLE = (OSError, EOFError, zlib.error)
"""What reading a damaged samples file raises (a truncated or corrupt ``.gz`` too)."""

BenchName = Annotated[str, Query(min_length=1, max_length=512,
                                 description="A benchmark's name from /api/benchmarks "
                                 "(its directory relative to --data).")]


class BenchmarkInfo(record_model(BenchmarkDir, exclude=("samples_file",),  # type: ignore[misc]
                                 report=(bool, Field(False, description="Whether it has a "
                                         "report.html (GET /api/benchmarks/report?bench=NAME)."))
                                 )):
    pass


class BenchmarkList(BaseModel):
    benchmarks: list[BenchmarkInfo]


class SampleSummaryModel(record_model(SampleSummary,  # type: ignore[misc]
                                      exclude=("offset", "length", "search_text"))):
    pass


class SamplePage(BaseModel):
    bench: str
    total: int
    offset: int
    limit: int
    samples: list[SampleSummaryModel]
    invalid_lines: int


class ShareRowModel(BaseModel):
    """One label or complexity: our count and share beside CAQA's (percent; the
    difference in percentage points, ours − CAQA's); ``flagged``: a label further
    from CAQA's share than the tolerance."""

    count: int
    share_pct: float
    caqa_share_pct: float
    diff_points: float
    flagged: bool


class CaqaComparison(BaseModel):
    """Our shares beside CAQA Table 5's (:func:`extension.outputs.caqa_table5.compare_with_caqa`,
    as ``stats.json`` keeps it)."""

    source: str
    samples: int
    caqa_samples: int
    label_tolerance_points: float
    label: dict[str, ShareRowModel]
    complexity: dict[str, ShareRowModel]
    flagged_labels: list[str]


class BenchmarkTable(BaseModel):
    """Samples per split × label × complexity (every cell, zeros included; the axes in
    table order) and the shares beside CAQA Table 5's."""

    bench: str
    total: int
    labels: list[str]
    complexities: list[str]
    splits: list[str]
    by_split: dict[str, dict[str, dict[str, int]]] = Field(
        description="by_split[split][label][complexity] = samples")
    caqa: CaqaComparison


class SampleDetail(BaseModel):
    bench: str
    sample: BenchmarkSample
    graph: GraphJson
    added: list[str]
    removed: list[str]
    context: list[str]


def _benchmark_dir(root: Path, bench: str) -> tuple[str, Path]:
    """``bench`` resolved under ``root`` and its samples file (resolved too: a
    samples file that is a link out of ``--data`` is refused like the name)."""
    directory = resolve_under(root, bench, kind="dir")
    rel = directory.relative_to(root.resolve()).as_posix()
    for name in SAMPLES_FILES:
        if (directory / name).exists() or (directory / name).is_symlink():
            return rel, resolve_under(root, f"{rel}/{name}", kind="file")
    raise ApiError(404, f"{ascii(bench[:200])} holds no samples.jsonl: it is not a benchmark",
                   "GET /api/benchmarks lists the benchmarks under --data")


def _index(root: Path, bench: str) -> tuple[str, BenchmarkIndex]:
    name, path = _benchmark_dir(root, bench)
    try:
        return name, load_index(path)
    except UNREADABLE as exc:
        raise _unreadable(name, exc) from None


def _unreadable(name: str, exc: BaseException) -> ApiError:
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return ApiError(409, f"{name}: cannot read its samples ({reason})",
                    "check the file is complete (a .gz not cut short) and readable, then retry")


@router.get("/benchmarks", response_model=BenchmarkList)
def list_benchmarks(root: Annotated[Path, Depends(data_root)]) -> BenchmarkList:
    """Every benchmark directory under ``--data`` (down to 4 levels; links are not
    followed out): a directory with ``samples.jsonl`` (or ``.gz``) and ``stats.json``."""
    found: list[BenchmarkInfo] = []
    for b in find_benchmark_dirs(root):
        try:
            resolve_under(root, f"{b.name}/{b.samples_file}", kind="file")
        except ApiError:
            continue   # a samples file that links out of --data is not listed
        found.append(BenchmarkInfo(name=b.name, samples=b.samples, created=b.created,
                                   source=b.source, report=_report(root, b.name) is not None))
    return BenchmarkList(benchmarks=found)


def _report(root: Path, name: str) -> Path | None:
    """The benchmark's ``report.html`` under ``root``, when it has one that stays there."""
    try:
        return resolve_under(root, f"{name}/{REPORT_FILE}", kind="file")
    except ApiError:
        return None


@router.get("/benchmarks/report", response_class=FileResponse,
            responses={200: {"content": {"text/html": {}},
                             "description": "The page, sandboxed"}})
def report(root: Annotated[Path, Depends(data_root)], bench: BenchName) -> FileResponse:
    """The benchmark's ``report.html`` (``kgbench generate`` writes it), shown in the
    browser under a sandboxing policy of its own (:mod:`kgbench.service.htmlfiles`)."""
    name, _ = _benchmark_dir(root, bench)
    page = _report(root, name)
    if page is None:
        raise ApiError(404, f"{name} has no {REPORT_FILE}",
                       "generate it again without --no-report")
    return file_response(page)


EXPORT_FILES: dict[str, tuple[str, str]] = {
    "caqa": (".csv", "text/csv; charset=utf-8"),
    "attrscore": (".csv", "text/csv; charset=utf-8"),
    "alce": (".json", "application/json"),
    "jsonl": (".jsonl", "application/x-ndjson"),
}
"""Each export format's file suffix and media type."""


@router.get("/benchmarks/export", response_class=FileResponse, responses={200: {
    "content": {media: {} for _, media in EXPORT_FILES.values()},
    "description": "The exported file, as a download"}})
def export(root: Annotated[Path, Depends(data_root)], bench: BenchName,
           to: Annotated[ExportFormat, Query(description="caqa, attrscore, alce or jsonl "
                                             "(`kgbench export --to`).")],
           split: SplitChoice = "all") -> FileResponse:
    """The benchmark in a format people already use, as ``kgbench export DIR --to
    FORMAT --split SPLIT`` writes it with the format's default label map (a download
    named ``<benchmark>-<format>[-<split>].<suffix>``). The CSVs end with the sample
    ids, so an evaluator's labels join back for an evaluate job's predictions."""
    from extension.outputs.export import ExportError, SamplesFileError, export_benchmark

    name, samples = _benchmark_dir(root, bench)
    suffix, media = EXPORT_FILES[to]
    download = "-".join([name.replace("/", "-"), to, *([split] if split != "all" else [])])
    work = Path(tempfile.mkdtemp(prefix="kgbench-export-"))
    target = work / f"{download}{suffix}"
    try:
        if samples.name.endswith(".gz"):   # the export reads plain JSONL
            plain = work / "samples.jsonl"
            with gzip.open(samples, "rb") as packed, plain.open("wb") as unpacked:
                shutil.copyfileobj(packed, unpacked)
            samples = plain
        export_benchmark(samples, target, to, split=split)
    except SamplesFileError as exc:   # its message names the server's path: say the name
        shutil.rmtree(work, ignore_errors=True)
        raise ApiError(409, f"{name}: line {exc.line}: not a benchmark sample ({exc.reason})",
                       exc.hint) from None
    except ExportError as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise ApiError(409, f"{name}: {exc}", exc.hint) from None
    except UNREADABLE as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise _unreadable(name, exc) from None
    return FileResponse(target, media_type=media, filename=target.name,
                        background=BackgroundTask(shutil.rmtree, work, ignore_errors=True))


@router.get("/benchmarks/table", response_model=BenchmarkTable)
def table(root: Annotated[Path, Depends(data_root)], bench: BenchName) -> dict[str, Any]:
    """Samples per split × label × complexity, and the label and complexity shares
    beside CAQA Table 5's."""
    name, index = _index(root, bench)
    return {"bench": name, "total": len(index.samples), **benchmark_table(index)}


@router.get("/samples", response_model=SamplePage)
def list_samples(
    root: Annotated[Path, Depends(data_root)],
    bench: BenchName,
    label: Label | None = None,
    complexity: Complexity | None = None,
    split: Split | None = None,
    q: Annotated[str | None, Query(max_length=200, description=
                                   "Case-insensitive text in the id, question, answer "
                                   "or citations.")] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> SamplePage:
    """A page of the benchmark's samples that match every given filter, in file order."""
    name, index = _index(root, bench)
    chosen = index.select(SampleFilter(label, complexity, split, q.strip() if q else None))
    page = chosen[offset:offset + limit]
    return SamplePage(bench=name, total=len(chosen), offset=offset, limit=limit,
                      samples=[SampleSummaryModel(**s.to_json()) for s in page],
                      invalid_lines=index.invalid)


def _context(db: Store, ids: list[str], have: set[Fact]) -> tuple[list[Fact], bool]:
    """Up to :data:`CONTEXT_MAX` store facts around ``ids`` that the sample lacks."""
    extra: list[Fact] = []
    truncated = False
    for id in ids:
        facts, more = db.facts_around(id, limit=CONTEXT_PER_ENTITY)
        truncated |= more
        for f in facts:
            if f not in have:
                have.add(f)
                extra.append(f)
        if len(extra) >= CONTEXT_MAX:
            return extra[:CONTEXT_MAX], True
    return extra, truncated


@router.get("/sample", response_model=SampleDetail)
def one_sample(
    root: Annotated[Path, Depends(data_root)],
    db: Annotated[Store, Depends(store)],
    bench: BenchName,
    id: Annotated[str, Query(min_length=1, max_length=512)],
) -> SampleDetail:
    """One sample in full, and its subgraph as graph JSON: the sample's facts plus
    the facts its edit removed, the edit's triples highlighted (``added``/``removed``
    list their edge ids); a small subgraph gets store facts around it (``context``)."""
    name, index = _index(root, bench)
    try:
        sample = index.read(id)
    except UNREADABLE as exc:
        raise _unreadable(name, exc) from None
    except SampleNotFoundError:
        raise ApiError(404, f"no sample {ascii(id[:200])} in {name}",
                       "GET /api/samples?bench=... lists the sample ids") from None
    except StaleIndexError as exc:
        raise ApiError(409, str(exc), "the benchmark is being rewritten; retry") from None
    edits = sample_edits(sample)
    facts = list(edits.facts)
    context: list[Fact] = []
    if len(facts) < CONTEXT_BELOW:
        named = [i for i in dict.fromkeys(
            [f.subject for f in facts] + [f.object for f in facts if isinstance(f.object, str)])
            if i not in edits.cvts]
        context, _ = _context(db, named, set(facts))
    ids = {f.subject for f in (*facts, *context)} | {
        f.object for f in (*facts, *context) if isinstance(f.object, str)}
    entities: dict[str, Entity] = db.entities(ids)
    for i in ids - entities.keys():   # an entity the store lacks: its name from the sample
        entities[i] = Entity(i, name=edits.names.get(i), is_cvt=i in edits.cvts)
    subjects = list(sample.query.subjects)
    changed = edits.added | edits.removed
    graph = subgraph_graph(
        Subgraph(entities=entities, facts=[*facts, *context]),
        center=subjects[0] if subjects else None,
        highlight=[(f.subject, f.predicate, f.object if isinstance(f.object, str)
                    else f.object.value) for f in changed])
    context_ids = {edge_id(f) for f in context}
    return SampleDetail(
        bench=name, sample=sample, graph=graph,
        added=[edge_id(f) for f in facts if f in edits.added],
        removed=[edge_id(f) for f in facts if f in edits.removed],
        context=[e.id for e in graph.edges if e.id in context_ids])
