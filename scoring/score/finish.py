"""The last step of a ``kgbench score`` run, and the result of one that had finished:
``scores.jsonl`` from the chunks, the consistency table, ``flagged.jsonl``, the report
page with its section and ``score_run.json``, all written in the work folder and
renamed into the benchmark directory (``score_run.json`` last)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from extension.core.labels import LABELS
from extension.outputs.output_file import write_atomic
from kgstore.confined import open_write, remove_tree, replace
from scoring.card import CARD_FILE
from scoring.score.chunk import ChunkStats
from scoring.score.consistency import ConsistencyTable, consistency_table
from scoring.score.flagged import flag_records
from scoring.score.models import LanguageModel, NliModel
from scoring.score.records import significant
from scoring.score.samples_pass import sample_texts
from scoring.score.workdir import (
    FLAGGED_FILE,
    REMEDY,
    RUN_FILE,
    SCORES_FILE,
    chunk_path,
    file_sha256,
    write_work_file,
)

__all__ = ["REPORT_FILE", "RUN_FORMAT", "RUN_VERSION", "ScoreResult", "finish_run",
           "finished_result", "json_text", "read_records"]

REPORT_FILE = "report.html"
"""The benchmark's report page (:data:`extension.outputs.report.REPORT_FILE`; not imported
from there, which would load matplotlib before the inputs are checked)."""
RUN_FORMAT = "kgbench-scores"
RUN_VERSION = 1


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """What a run wrote: ``run`` is the ``score_run.json`` document; ``flagged`` the
    number of flagged samples (``None`` without ``flag_below``); ``resumed_chunks`` the
    chunks an interrupted run had scored, -1 when the run had finished already and
    nothing was scored."""

    bench_dir: Path
    run: dict[str, Any]
    table: ConsistencyTable | None
    flagged: int | None
    resumed_chunks: int
    report: Path | None


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a ``scores.jsonl``, without the per-citation perplexities (the
    table, the flags and the report need only the rest)."""
    records = []
    with path.open("rb") as lines:
        for line in lines:
            if line.strip():
                record = orjson.loads(line)
                if "lm" in record:
                    record["lm"] = {"cohesion": record["lm"]["cohesion"]}
                records.append(record)
    return records


def flagged_text(records: list[dict[str, Any]], samples_file: Path, below: float) -> tuple[str, int]:
    flags = flag_records(records, below)
    texts = sample_texts(samples_file, {f.record["id"] for f in flags})
    lines = []
    for flag in flags:
        text = dict(texts.get(flag.record["id"], {}))
        text.pop("citations", None)
        if flag.record["label"] != "partially_supportive":
            text.pop("sub_facts", None)
        lines.append(orjson.dumps(flag.to_json(below, text)) + b"\n")
    return b"".join(lines).decode("utf-8"), len(flags)


def finished_result(bench_dir: Path, samples_file: Path,
                      flag_below: float | None) -> ScoreResult:
    """The result of the finished run in ``bench_dir``; ``flagged.jsonl`` is written
    for ``flag_below`` (it is derived from scores.jsonl, which stays as it is), and the
    report section again when report.html has lost it (``generate --force`` rewrote the
    page with the same samples, which leaves these scores valid)."""
    from scoring.score.report_section import SECTION_BEGIN

    run = orjson.loads((bench_dir / RUN_FILE).read_bytes())
    records = read_records(bench_dir / SCORES_FILE)
    table = consistency_table(records) if run.get("models", {}).get("nli") else None
    flagged = None
    if flag_below is not None:
        text, flagged = flagged_text(records, samples_file, flag_below)
        write_atomic(bench_dir / FLAGGED_FILE, text, remedy=REMEDY)
    report = bench_dir / REPORT_FILE
    if not report.is_file() or SECTION_BEGIN not in report.read_text("utf-8"):
        write_atomic(report, report_page(report, records, table, samples_file, run),
                     remedy=REMEDY)
    return ScoreResult(bench_dir, run, table, flagged, resumed_chunks=-1, report=report)


def _model_doc(directory: Path, model: NliModel | LanguageModel, stats: ChunkStats,
               run_stats: ChunkStats, kind: str) -> dict[str, Any]:
    card = model.card
    doc: dict[str, Any] = {
        "dir": str(directory), "task": card.task, "card_sha256": file_sha256(directory / CARD_FILE),
        "source_sha256": card.source.sha256, "model_type": card.source.model_type,
        "labels": list(card.labels), "max_length": card.max_length,
        "runtime": model.runtime.to_json()}
    if kind == "nli":
        seconds = run_stats.nli_seconds
        doc.update(pairs=stats.nli_pairs, truncated_hypotheses=stats.truncated_hypotheses,
                   pairs_this_run=run_stats.nli_pairs, seconds_this_run=round(seconds, 3),
                   pairs_per_s=round(run_stats.nli_pairs / seconds, 1) if seconds > 0 else None)
    else:
        seconds = run_stats.lm_seconds
        doc.update(sentences=stats.lm_sentences, sentences_this_run=run_stats.lm_sentences,
                   seconds_this_run=round(seconds, 3),
                   sentences_per_s=(round(run_stats.lm_sentences / seconds, 1)
                                    if seconds > 0 else None))
    return doc


def cohesion_by_label(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """The mean sentence cohesion of each label's samples."""
    means: dict[str, float | None] = {}
    for label in LABELS:
        values = [r["lm"]["cohesion"] for r in records if r["label"] == label
                  and r.get("lm") and r["lm"]["cohesion"] is not None]
        means[label] = significant(sum(values) / len(values)) if values else None
    return means


def finish_run(bench_dir: Path, work: Path, samples_file: Path, n_chunks: int,
            fingerprint: dict[str, Any], total: ChunkStats, resumed: ChunkStats,
            elapsed: float, *, nli: NliModel | None, lm: LanguageModel | None,
            nli_dir: Path | None, lm_dir: Path | None, flag_below: float | None,
            resumed_chunks: int) -> ScoreResult:
    """Concatenate the chunks in order, then write the table, the flags, the report
    section and score_run.json inside the work folder; rename each into ``bench_dir``
    (``score_run.json`` last) and drop the folder. A crash here leaves every chunk, so
    the rerun repeats only this step."""
    with open_write(work / SCORES_FILE, "wb") as sink:
        for i in range(n_chunks):
            with chunk_path(work, i, "scores.jsonl").open("rb") as chunk:
                shutil.copyfileobj(chunk, sink)
    records = read_records(work / SCORES_FILE)
    table = consistency_table(records) if nli is not None else None
    this_run = total.minus(resumed)   # the chunks this run scored, not the resumed ones
    models: dict[str, Any] = {}
    if nli is not None and nli_dir is not None:
        models["nli"] = _model_doc(nli_dir, nli, total, this_run, "nli")
    if lm is not None and lm_dir is not None:
        models["lm"] = _model_doc(lm_dir, lm, total, this_run, "lm")
    run: dict[str, Any] = {
        "format": RUN_FORMAT, "version": RUN_VERSION, "fingerprint": fingerprint,
        "benchmark": {"samples_file": str(samples_file), "sha256": fingerprint["samples_sha256"],
                      "split": fingerprint["split"], "samples": total.samples},
        "models": models,
        "consistency": table.to_json() if table is not None else None,
        "cohesion_by_label": cohesion_by_label(records) if lm is not None else None,
        "timings": {"seconds": round(elapsed, 3), "chunks": n_chunks,
                    "resumed_chunks": resumed_chunks, "samples_this_run": this_run.samples}}
    names = [SCORES_FILE]
    flagged = None
    if flag_below is not None:
        text, flagged = flagged_text(records, samples_file, flag_below)
        write_work_file(work / FLAGGED_FILE, text)
        names.append(FLAGGED_FILE)
    write_work_file(work / REPORT_FILE, report_page(bench_dir / REPORT_FILE, records, table,
                                                     samples_file, run))
    names.append(REPORT_FILE)
    write_work_file(work / RUN_FILE, json_text(run))
    for name in [*names, RUN_FILE]:
        replace(work / name, bench_dir / name)
    remove_tree(work)
    return ScoreResult(bench_dir, run, table, flagged, resumed_chunks, bench_dir / REPORT_FILE)


def report_page(page: Path, records: Sequence[Mapping[str, Any]],
                 table: ConsistencyTable | None, samples_file: Path, run: Mapping[str, Any]) -> str:
    """``page`` (the benchmark's report.html) with the run's section in it, or a page of
    its own when the benchmark has none."""
    # matplotlib and networkx (a second to import): only once there is a section to draw
    from scoring.score.report_section import (
        LISTED_SAMPLES,
        listing_order,
        render_section,
        splice_section,
        standalone_page,
    )

    listed = listing_order(records)[:LISTED_SAMPLES] if table is not None else []
    section = render_section(records, table, sample_texts(samples_file, {r["id"] for r in listed}), run)
    return splice_section(page.read_text("utf-8"), section) if page.is_file() \
        else standalone_page(section)


def json_text(doc: Mapping[str, Any]) -> str:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
