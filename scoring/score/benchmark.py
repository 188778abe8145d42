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
once. The samples are streamed (:mod:`scoring.score.samples_pass`), each chunk is scored
by :mod:`scoring.score.chunk`, and :mod:`scoring.score.finish` writes the outputs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from extension.core.labels import SPLIT_CHOICES
from kgstore.dirlock import DirectoryLock, DirectoryLockedError
from kgstore.diskspace import disk_full_error
from scoring.errors import ScoringError
from scoring.score.chunk import ChunkStats, record_line, score_chunk
from scoring.score.defaults import DEFAULT_BATCH_TOKENS, DEFAULT_SCORE_CHUNK_SIZE
from scoring.score.finish import RUN_FORMAT, RUN_VERSION, ScoreResult, finish_run, finished_result
from scoring.score.flagged import check_threshold
from scoring.score.models import (
    Device,
    LanguageModel,
    NliModel,
    model_fingerprint,
    open_lm,
    open_nli,
)
from scoring.score.samples_pass import pending_chunks, select_samples
from scoring.score.workdir import (
    REMEDY,
    SCORES_FILE,
    WORK_DIR,
    chunk_path,
    finished_fingerprint,
    prepare_score_dir,
    write_work_file,
)

__all__ = ["DEFAULT_BATCH_TOKENS", "DEFAULT_SCORE_CHUNK_SIZE", "ScoreProgress", "ScoreResult",
           "score_benchmark"]


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
            nli = open_nli(nli_dir, device, threads, batch_tokens) if nli_dir else None
            lm = open_lm(lm_dir, device, threads, batch_tokens) if lm_dir else None
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


def _score_locked(bench_dir: Path, samples_file: Path, nli: NliModel | None,
                  lm: LanguageModel | None, *, nli_dir: Path | None, lm_dir: Path | None,
                  split: str, flag_below: float | None, chunk_size: int, force: bool,
                  progress: ProgressCallback | None) -> ScoreResult:
    selection = select_samples(samples_file, split)
    if not selection.lines:
        raise ScoringError(f"{samples_file}: no {'' if split == 'all' else split + ' '}"
                           "samples to score",
                           "choose another --split" if split != "all" else
                           "generate the benchmark again with `kgbench generate`")
    fingerprint: dict[str, Any] = {
        "format": RUN_FORMAT, "version": RUN_VERSION, "samples_sha256": selection.sha256,
        "split": split, "chunk_size": chunk_size,
        "nli": model_fingerprint(nli_dir, nli) if nli is not None and nli_dir else None,
        "lm": model_fingerprint(lm_dir, lm) if lm is not None and lm_dir else None}
    # A work folder left beside a finished score_run.json is a finish step that was
    # cut short (after the rename, before the folder went): finish it again.
    if not force and finished_fingerprint(bench_dir) == fingerprint \
            and (bench_dir / SCORES_FILE).is_file() and not (bench_dir / WORK_DIR).exists():
        return finished_result(bench_dir, samples_file, flag_below)
    work = prepare_score_dir(bench_dir, fingerprint, force)
    n_chunks = (len(selection.lines) + chunk_size - 1) // chunk_size
    done = {i for i in range(n_chunks) if chunk_path(work, i, "stats.json").exists()}
    total = ChunkStats()
    for i in sorted(done):
        total.add(ChunkStats.from_json(orjson.loads(chunk_path(work, i, "stats.json")
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
    resumed = ChunkStats()
    resumed.add(total)   # a copy: what the interrupted run had scored
    started = time.perf_counter()
    pending = set(range(n_chunks)) - done
    for index, samples in pending_chunks(samples_file, selection.lines, chunk_size, pending):
        before = dict(state)
        records, stats = score_chunk(samples, nli, lm, nli_done=advance("nli"),
                                      lm_done=advance("lm"))
        write_work_file(chunk_path(work, index, "scores.jsonl"),
                        b"".join(map(record_line, records)).decode("utf-8"))
        write_work_file(chunk_path(work, index, "stats.json"), orjson.dumps(stats.to_json())
                        .decode("utf-8"))
        total.add(stats)
        # The chunk's own counts, whatever steps the scorers reported progress in.
        state.update(nli=before["nli"] + stats.nli_pairs, lm=before["lm"] + stats.lm_sentences,
                     samples=before["samples"] + len(samples))
        report()
    elapsed = time.perf_counter() - started
    return finish_run(bench_dir, work, samples_file, n_chunks, fingerprint, total, resumed,
                   elapsed, nli=nli, lm=lm, nli_dir=nli_dir, lm_dir=lm_dir,
                   flag_below=flag_below, resumed_chunks=len(done))
