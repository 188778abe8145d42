"""``kgbench score BENCH_DIR``: model scores for a generated benchmark's own text.

:func:`score_benchmark` reads ``BENCH_DIR/samples.jsonl`` (one split or all) and, in
chunks of samples (:mod:`scoring.score.workdir`: resumable, atomic, refused when a
different run left them), scores

* with an NLI model (``nli_dir``): each sample's citations → answer statement
  (:func:`scoring.inputs.premise`, :func:`~scoring.inputs.hypothesis`), and each
  sub-fact of a partially supportive sample against its citations
  (:func:`~scoring.inputs.sub_fact_pairs`), judged by the label-consistency rule
  (:mod:`scoring.score.consistency`);
* with a causal LM (``lm_dir``): each citation's perplexity and the sample's sentence
  cohesion (CONNER Eq. 3, :mod:`scoring.score.cohesion`).

It writes ``scores.jsonl`` (one line per sample, in ``samples.jsonl`` order,
:mod:`scoring.score.records`), ``score_run.json`` (the fingerprint, the models, their
cards' SHA-256, the runtime that really ran them, the consistency table, timings),
the "Model scores" section of ``report.html`` (:mod:`scoring.score.report_section`)
and, with ``flag_below``, ``flagged.jsonl`` (:mod:`scoring.score.flagged`).

The benchmark directory is locked for the run with ``kgbench generate``'s lock
(:class:`kgstore.dirlock.DirectoryLock`), so a score and a generate never write it at
once. Samples are read twice, streamed: a first pass selects the split, counts the
model inputs (for the progress display) and hashes the file; the second scores the
chunks not yet done, so a benchmark of 160k samples is never held in memory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import orjson
from pydantic import ValidationError

from extension.export import SamplesFileError
from extension.labels import LABELS, SPLIT_CHOICES
from extension.output_file import write_atomic
from extension.sample_format import BenchmarkSample
from kgstore.dirlock import DirectoryLock, DirectoryLockedError
from kgstore.diskspace import disk_full_error
from scoring.card import CARD_FILE, ModelCard, Task, read_card
from scoring.errors import ModelDirError, ScoringError
from scoring.inputs import hypothesis, premise, sub_fact_pairs
from scoring.score.consistency import ConsistencyTable, consistency_table
from scoring.score.defaults import DEFAULT_BATCH_TOKENS, DEFAULT_SCORE_CHUNK_SIZE
from scoring.score.flagged import check_threshold, flag_records
from scoring.score.records import NliProbabilities, score_record, significant
from scoring.score.workdir import (
    FLAGGED_FILE,
    REMEDY,
    RUN_FILE,
    SCORES_FILE,
    WORK_DIR,
    chunk_path,
    file_sha256,
    finished_fingerprint,
    prepare_work_dir,
    write_work_file,
)

if TYPE_CHECKING:
    from scoring.runtime import RuntimeInfo

__all__ = ["DEFAULT_BATCH_TOKENS", "DEFAULT_SCORE_CHUNK_SIZE", "ScoreProgress", "ScoreResult",
           "score_benchmark"]

REPORT_FILE = "report.html"
"""The benchmark's report page (:data:`extension.report.REPORT_FILE`; not imported
from there, which would load matplotlib before the inputs are checked)."""
RUN_FORMAT = "kgbench-scores"
RUN_VERSION = 1
Device = Literal["auto", "cpu", "cuda"]


class NliModel(Protocol):
    """What the use case needs of :class:`scoring.runtime.NliScorer`."""

    @property
    def card(self) -> ModelCard: ...
    @property
    def runtime(self) -> RuntimeInfo: ...
    @property
    def truncated_hypotheses(self) -> int: ...

    def score(self, premises: Sequence[str], hypotheses: Sequence[str], *,
              progress: Callable[[int], None] | None = None) -> Sequence[NliProbabilities]: ...


class LanguageModel(Protocol):
    """What the use case needs of :class:`scoring.runtime.CausalLM`."""

    @property
    def card(self) -> ModelCard: ...
    @property
    def runtime(self) -> RuntimeInfo: ...

    def perplexity(self, texts: Sequence[str], *,
                   progress: Callable[[int], None] | None = None) -> list[float]: ...


@dataclass(frozen=True, slots=True)
class ScoreProgress:
    """Where a run is: model inputs scored out of the run's total (resumed chunks count
    as done), for the NLI pairs and the LM sentences, and samples."""

    nli_pairs: int
    nli_total: int
    lm_sentences: int
    lm_total: int
    samples: int
    samples_total: int


ProgressCallback = Callable[[ScoreProgress], None]


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


@dataclass(slots=True)
class _Selection:
    """The first pass over the samples: the line numbers of the split's samples and
    the model inputs each has (NLI pairs, LM sentences)."""

    sha256: str
    lines: list[int] = field(default_factory=list)
    nli_pairs: list[int] = field(default_factory=list)
    lm_sentences: list[int] = field(default_factory=list)


def score_benchmark(bench_dir: Path, *, nli_dir: Path | None = None, lm_dir: Path | None = None,
                    split: str = "all", flag_below: float | None = None,
                    device: Device = "auto", threads: int | None = None,
                    batch_tokens: int = DEFAULT_BATCH_TOKENS,
                    chunk_size: int = DEFAULT_SCORE_CHUNK_SIZE, force: bool = False,
                    progress: ProgressCallback | None = None) -> ScoreResult:
    """Score the benchmark in ``bench_dir`` (see the module docstring) and return what
    was written. At least one of ``nli_dir`` (an exported ``nli`` model) and ``lm_dir``
    (an exported ``causal-lm`` model) is needed; ``flag_below`` (a probability, NLI
    only) also writes ``flagged.jsonl``. Rerunning the same run resumes it, or does
    nothing once it has finished (``flagged.jsonl`` is still written for a new
    ``flag_below``); a different run needs ``force=True``. Every problem with the
    inputs is a :class:`~scoring.errors.ScoringError` (a model directory's a
    :class:`~scoring.errors.ModelDirError`), raised before anything is written."""
    if nli_dir is None and lm_dir is None:
        raise ScoringError("nothing to score with: give --nli DIR, --lm DIR or both",
                           "e.g. kgbench score BENCH --nli nli-model/ (an exported NLI model)")
    if split not in SPLIT_CHOICES:
        raise ScoringError(f"unknown split {split!r}",
                           f"use --split with one of {', '.join(SPLIT_CHOICES)}")
    if flag_below is not None:
        try:
            check_threshold(flag_below)
        except ValueError as exc:
            raise ScoringError(str(exc)) from None
        if nli_dir is None:
            raise ScoringError("--flag-below needs --nli: samples are flagged by the NLI "
                               "model's probability of their label's outcome")
    if chunk_size < 1:
        raise ScoringError(f"--chunk-size {chunk_size}: expected at least 1")
    samples_file = _samples_file(bench_dir)
    try:
        # Locked before the models are opened: a large model takes seconds to load, for
        # nothing when another process holds the directory.
        with DirectoryLock(bench_dir):
            nli = _open_nli(nli_dir, device, threads, batch_tokens) if nli_dir else None
            lm = _open_lm(lm_dir, device, threads, batch_tokens) if lm_dir else None
            return _score_locked(bench_dir, samples_file, nli, lm, nli_dir=nli_dir,
                                 lm_dir=lm_dir, split=split, flag_below=flag_below,
                                 chunk_size=chunk_size, force=force, progress=progress)
    except DirectoryLockedError as exc:
        holder = f" (pid {exc.pid})" if exc.pid else ""
        raise ScoringError(
            f"benchmark directory {bench_dir} is being written by another kgbench process"
            f"{holder} (a generate or a score)",
            "wait for it to finish, then rerun this command") from None
    except OSError as exc:
        full = disk_full_error(exc, bench_dir, REMEDY)
        if full is None:
            raise
        raise full from exc


def _samples_file(bench_dir: Path) -> Path:
    hint = "pass the --out DIR of a `kgbench generate` run"
    if not bench_dir.is_dir():
        raise ScoringError(f"{bench_dir}: not a benchmark directory "
                           f"({'a file' if bench_dir.exists() else 'no such directory'})", hint)
    path = bench_dir / "samples.jsonl"
    if not path.is_file():
        raise ScoringError(f"{bench_dir} is not a benchmark directory (no samples.jsonl)", hint)
    return path


def _check_task(directory: Path, task: Task, option: str) -> ModelCard:
    """The card of ``directory`` when it is a ``task`` model; a one-line
    :class:`ModelDirError` naming ``option`` otherwise (an LM given to --nli)."""
    card = read_card(directory)
    if card.task != task:
        raise ModelDirError(f"{option} {directory}: a model exported for --task {card.task}; "
                            f"{option} needs one exported for --task {task}",
                            f"export one with `kgbench model export HF_DIR --task {task} "
                            f"--out DIR`")
    return card


def _open_nli(directory: Path, device: Device, threads: int | None,
              batch_tokens: int) -> NliModel:
    _check_task(directory, "nli", "--nli")
    from scoring.runtime import NliScorer  # onnxruntime: only when a run needs it

    scorer: NliModel = NliScorer.open(directory, device=device, threads=threads,
                                      batch_tokens=batch_tokens)
    return scorer


def _open_lm(directory: Path, device: Device, threads: int | None,
             batch_tokens: int) -> LanguageModel:
    _check_task(directory, "causal-lm", "--lm")
    from scoring.runtime import CausalLM

    model: LanguageModel = CausalLM.open(directory, device=device, threads=threads,
                                         batch_tokens=batch_tokens)
    return model


def _model_fingerprint(directory: Path, model: NliModel | LanguageModel) -> dict[str, Any]:
    return {"card_sha256": file_sha256(directory / CARD_FILE),
            "precision": model.runtime.precision}


def _select(path: Path, split: str) -> _Selection:
    """The first pass (see the module docstring); a line that is not a JSON object
    with a label and a split is a :class:`ScoringError` naming it."""
    digest = hashlib.sha256()   # of the file's bytes: the lines are all of them
    selection = _Selection(sha256="")
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            digest.update(line)
            if not line.strip():
                continue
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise _bad_line(path, number, f"not JSON: {exc}") from None
            if not isinstance(doc, dict) or doc.get("label") not in LABELS:
                raise _bad_line(path, number, "not a benchmark sample (no valid label)")
            if split != "all" and doc.get("split") != split:
                continue
            selection.lines.append(number)
            sub_facts = len(doc.get("sub_facts") or ()) \
                if doc["label"] == "partially_supportive" else 0
            selection.nli_pairs.append(1 + sub_facts)
            selection.lm_sentences.append(len(doc.get("citations") or ()))
    selection.sha256 = digest.hexdigest()
    return selection


def _bad_line(path: Path, number: int, reason: str) -> ScoringError:
    error = SamplesFileError(path, number, reason)
    return ScoringError(str(error), error.hint)


def _chunks_of(path: Path, lines: Sequence[int], chunk_size: int,
               pending: set[int]) -> Iterator[tuple[int, list[BenchmarkSample]]]:
    """The pending chunks' samples, validated, in order (the second pass)."""
    wanted = {number: i // chunk_size for i, number in enumerate(lines)
              if i // chunk_size in pending}
    current: list[BenchmarkSample] = []
    index = -1
    with path.open("rb") as stream:
        for number, line in enumerate(stream, 1):
            chunk = wanted.get(number)
            if chunk is None:
                continue
            if chunk != index and current:
                yield index, current
                current = []
            index = chunk
            try:
                current.append(BenchmarkSample.model_validate_json(line))
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"])
                raise _bad_line(path, number, f"{where}: {first['msg']}") from None
    if current:
        yield index, current


@dataclass(slots=True)
class _ChunkStats:
    samples: int = 0
    nli_pairs: int = 0
    lm_sentences: int = 0
    truncated_hypotheses: int = 0
    nli_seconds: float = 0.0
    lm_seconds: float = 0.0

    def add(self, other: _ChunkStats) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def minus(self, other: _ChunkStats) -> _ChunkStats:
        return _ChunkStats(**{name: getattr(self, name) - getattr(other, name)
                              for name in self.__slots__})

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> _ChunkStats:
        return cls(**{name: doc[name] for name in cls.__slots__})


def _score_chunk(samples: Sequence[BenchmarkSample], nli: NliModel | None,
                 lm: LanguageModel | None, *, nli_done: Callable[[int], None],
                 lm_done: Callable[[int], None]) -> tuple[list[dict[str, Any]], _ChunkStats]:
    """The records of one chunk: one NLI call over every pair of the chunk (the
    samples' own, then the partial samples' sub-facts), one LM call over every
    citation."""
    stats = _ChunkStats(samples=len(samples))
    nli_scores: Sequence[NliProbabilities] = ()
    sub_scores: dict[str, Sequence[NliProbabilities]] = {}
    if nli is not None:
        pairs = [(premise(s), hypothesis(s)) for s in samples]
        partial = [s for s in samples if s.label == "partially_supportive"]
        for sample in partial:
            pairs += sub_fact_pairs(sample)
        truncated = nli.truncated_hypotheses
        started = time.perf_counter()
        scores = nli.score([p for p, _ in pairs], [h for _, h in pairs], progress=nli_done)
        stats.nli_seconds = time.perf_counter() - started
        stats.nli_pairs = len(pairs)
        stats.truncated_hypotheses = nli.truncated_hypotheses - truncated
        nli_scores = scores[:len(samples)]
        offset = len(samples)
        for sample in partial:
            sub_scores[sample.id] = scores[offset:offset + len(sample.sub_facts)]
            offset += len(sample.sub_facts)
    perplexities: list[float] = []
    if lm is not None:
        texts = [c.text for s in samples for c in s.citations]
        started = time.perf_counter()
        perplexities = lm.perplexity(texts, progress=lm_done)
        stats.lm_seconds = time.perf_counter() - started
        stats.lm_sentences = len(texts)
    records = []
    offset = 0
    for i, sample in enumerate(samples):
        mine = None
        if lm is not None:
            mine = perplexities[offset:offset + len(sample.citations)]
            offset += len(sample.citations)
        records.append(score_record(sample, nli=nli_scores[i] if nli is not None else None,
                                    sub_facts=sub_scores.get(sample.id, ()),
                                    perplexities=mine))
    return records, stats


def _record_line(record: Mapping[str, Any]) -> bytes:
    # orjson: compact, keys in the record's order, an infinite perplexity as null.
    return orjson.dumps(record) + b"\n"


def _score_locked(bench_dir: Path, samples_file: Path, nli: NliModel | None,
                  lm: LanguageModel | None, *, nli_dir: Path | None, lm_dir: Path | None,
                  split: str, flag_below: float | None, chunk_size: int, force: bool,
                  progress: ProgressCallback | None) -> ScoreResult:
    selection = _select(samples_file, split)
    if not selection.lines:
        raise ScoringError(f"{samples_file}: no {'' if split == 'all' else split + ' '}"
                           "samples to score",
                           "choose another --split" if split != "all" else
                           "generate the benchmark again with `kgbench generate`")
    fingerprint: dict[str, Any] = {
        "format": RUN_FORMAT, "version": RUN_VERSION, "samples_sha256": selection.sha256,
        "split": split, "chunk_size": chunk_size,
        "nli": _model_fingerprint(nli_dir, nli) if nli is not None and nli_dir else None,
        "lm": _model_fingerprint(lm_dir, lm) if lm is not None and lm_dir else None}
    # A work folder left beside a finished score_run.json is a finish step that was
    # cut short (after the rename, before the folder went): finish it again.
    if not force and finished_fingerprint(bench_dir) == fingerprint \
            and (bench_dir / SCORES_FILE).is_file() and not (bench_dir / WORK_DIR).exists():
        return _already_finished(bench_dir, samples_file, flag_below)
    work = prepare_work_dir(bench_dir, fingerprint, force)
    n_chunks = (len(selection.lines) + chunk_size - 1) // chunk_size
    done = {i for i in range(n_chunks) if chunk_path(work, i, "stats.json").exists()}
    total = _ChunkStats()
    for i in sorted(done):
        total.add(_ChunkStats.from_json(orjson.loads(chunk_path(work, i, "stats.json")
                                                     .read_bytes())))

    def in_chunk(values: Sequence[int], i: int) -> int:
        return sum(values[i * chunk_size:(i + 1) * chunk_size])

    state = {"nli": sum(in_chunk(selection.nli_pairs, i) for i in done),
             "lm": sum(in_chunk(selection.lm_sentences, i) for i in done),
             "samples": sum(min(chunk_size, len(selection.lines) - i * chunk_size) for i in done)}
    totals = (sum(selection.nli_pairs) if nli else 0, sum(selection.lm_sentences) if lm else 0)

    def report() -> None:
        if progress is not None:
            progress(ScoreProgress(state["nli"], totals[0], state["lm"], totals[1],
                                   state["samples"], len(selection.lines)))

    def advance(key: str) -> Callable[[int], None]:
        def step(n: int) -> None:
            state[key] += n
            report()
        return step

    report()
    resumed = _ChunkStats()
    resumed.add(total)   # a copy: what the interrupted run had scored
    started = time.perf_counter()
    pending = set(range(n_chunks)) - done
    for index, samples in _chunks_of(samples_file, selection.lines, chunk_size, pending):
        before = dict(state)
        records, stats = _score_chunk(samples, nli, lm, nli_done=advance("nli"),
                                      lm_done=advance("lm"))
        write_work_file(chunk_path(work, index, "scores.jsonl"),
                        b"".join(map(_record_line, records)).decode("utf-8"))
        write_work_file(chunk_path(work, index, "stats.json"), orjson.dumps(stats.to_json())
                        .decode("utf-8"))
        total.add(stats)
        # The chunk's own counts, whatever steps the scorers reported progress in.
        state.update(nli=before["nli"] + stats.nli_pairs, lm=before["lm"] + stats.lm_sentences,
                     samples=before["samples"] + len(samples))
        report()
    elapsed = time.perf_counter() - started
    return _finish(bench_dir, work, samples_file, n_chunks, fingerprint, total, resumed,
                   elapsed, nli=nli, lm=lm, nli_dir=nli_dir, lm_dir=lm_dir,
                   flag_below=flag_below, resumed_chunks=len(done))


def _read_records(path: Path) -> list[dict[str, Any]]:
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


def _texts(samples_file: Path, ids: set[str]) -> dict[str, dict[str, Any]]:
    """The text of the samples ``ids``: q̃, ã, the citations (joined and one by one)
    and the sub-fact sentences."""
    texts: dict[str, dict[str, Any]] = {}
    if not ids:
        return texts
    with samples_file.open("rb") as lines:
        for line in lines:
            if not line.strip():
                continue
            doc = orjson.loads(line)
            if doc.get("id") in ids:
                texts[doc["id"]] = {
                    "question_extended": doc.get("question_extended", ""),
                    "answer": doc.get("answer", ""), "citation": doc.get("citation", ""),
                    "citations": [c.get("text", "") for c in doc.get("citations") or ()],
                    "sub_facts": [f.get("text", "") for f in doc.get("sub_facts") or ()]}
    return texts


def _flagged_text(records: list[dict[str, Any]], samples_file: Path, below: float) -> tuple[str, int]:
    flags = flag_records(records, below)
    texts = _texts(samples_file, {f.record["id"] for f in flags})
    lines = []
    for flag in flags:
        text = dict(texts.get(flag.record["id"], {}))
        text.pop("citations", None)
        if flag.record["label"] != "partially_supportive":
            text.pop("sub_facts", None)
        lines.append(orjson.dumps(flag.to_json(below, text)) + b"\n")
    return b"".join(lines).decode("utf-8"), len(flags)


def _already_finished(bench_dir: Path, samples_file: Path,
                      flag_below: float | None) -> ScoreResult:
    """The result of the finished run in ``bench_dir``; ``flagged.jsonl`` is written
    for ``flag_below`` (it is derived from scores.jsonl, which stays as it is), and the
    report section again when report.html has lost it (``generate --force`` rewrote the
    page with the same samples, which leaves these scores valid)."""
    from scoring.score.report_section import SECTION_BEGIN

    run = orjson.loads((bench_dir / RUN_FILE).read_bytes())
    records = _read_records(bench_dir / SCORES_FILE)
    table = consistency_table(records) if run.get("models", {}).get("nli") else None
    flagged = None
    if flag_below is not None:
        text, flagged = _flagged_text(records, samples_file, flag_below)
        write_atomic(bench_dir / FLAGGED_FILE, text, remedy=REMEDY)
    report = bench_dir / REPORT_FILE
    if not report.is_file() or SECTION_BEGIN not in report.read_text("utf-8"):
        write_atomic(report, _report_page(report, records, table, samples_file, run),
                     remedy=REMEDY)
    return ScoreResult(bench_dir, run, table, flagged, resumed_chunks=-1, report=report)


def _model_doc(directory: Path, model: NliModel | LanguageModel, stats: _ChunkStats,
               run_stats: _ChunkStats, kind: str) -> dict[str, Any]:
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


def _cohesion_by_label(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """The mean sentence cohesion of each label's samples."""
    means: dict[str, float | None] = {}
    for label in LABELS:
        values = [r["lm"]["cohesion"] for r in records if r["label"] == label
                  and r.get("lm") and r["lm"]["cohesion"] is not None]
        means[label] = significant(sum(values) / len(values)) if values else None
    return means


def _finish(bench_dir: Path, work: Path, samples_file: Path, n_chunks: int,
            fingerprint: dict[str, Any], total: _ChunkStats, resumed: _ChunkStats,
            elapsed: float, *, nli: NliModel | None, lm: LanguageModel | None,
            nli_dir: Path | None, lm_dir: Path | None, flag_below: float | None,
            resumed_chunks: int) -> ScoreResult:
    """Concatenate the chunks in order, then write the table, the flags, the report
    section and score_run.json inside the work folder; rename each into ``bench_dir``
    (``score_run.json`` last) and drop the folder. A crash here leaves every chunk, so
    the rerun repeats only this step."""
    with (work / SCORES_FILE).open("wb") as sink:
        for i in range(n_chunks):
            with chunk_path(work, i, "scores.jsonl").open("rb") as chunk:
                shutil.copyfileobj(chunk, sink)
    records = _read_records(work / SCORES_FILE)
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
        "cohesion_by_label": _cohesion_by_label(records) if lm is not None else None,
        "timings": {"seconds": round(elapsed, 3), "chunks": n_chunks,
                    "resumed_chunks": resumed_chunks, "samples_this_run": this_run.samples}}
    names = [SCORES_FILE]
    flagged = None
    if flag_below is not None:
        text, flagged = _flagged_text(records, samples_file, flag_below)
        write_work_file(work / FLAGGED_FILE, text)
        names.append(FLAGGED_FILE)
    write_work_file(work / REPORT_FILE, _report_page(bench_dir / REPORT_FILE, records, table,
                                                     samples_file, run))
    names.append(REPORT_FILE)
    write_work_file(work / RUN_FILE, json_text(run))
    for name in [*names, RUN_FILE]:
        os.replace(work / name, bench_dir / name)
    shutil.rmtree(work)
    return ScoreResult(bench_dir, run, table, flagged, resumed_chunks, bench_dir / REPORT_FILE)


def _report_page(page: Path, records: Sequence[Mapping[str, Any]],
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
    section = render_section(records, table, _texts(samples_file, {r["id"] for r in listed}), run)
    return splice_section(page.read_text("utf-8"), section) if page.is_file() \
        else standalone_page(section)


def json_text(doc: Mapping[str, Any]) -> str:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
