"""``kgbench generate``: questions -> a finished, resumable benchmark directory.

Pipeline per question (CAQA §4): parse the logical form and classify it
(:func:`extension.inputs.questions.parse_question`; new-domain seed questions arrive already
parsed), extend and ground it and edit the subgraph into up to four labelled samples
(:func:`extension.core.samples.structured_samples`), verbalize each sample
(:mod:`extension.verbalize.verbalizer` or :mod:`extension.verbalize.llm_verbalizer`) and write it as a
:class:`extension.outputs.sample_schema.BenchmarkSample`.

Reproducibility and scale
    * Every random choice of a question comes from its own RNG (seed + question id),
      and its **split** from a hash of seed + question id (:func:`split_of`), so a
      question's samples do not depend on the other questions, their order, the
      number of workers or the shard.
    * Questions are cut into fixed **chunks** (in input order). Each chunk's results
      are written under ``DIR/.work/`` with an atomic rename, the chunk's stats file
      last; a rerun of the same command skips finished chunks (resume after a crash,
      kill -9 or an LLM outage) and a different command on the same ``DIR`` is refused
      unless forced. Final files are concatenated in chunk order, so ``--workers``
      changes nothing in the output.
    * ``--shard i/N`` keeps the i-th contiguous block of questions (0-based), so the
      shards' ``samples.jsonl`` concatenated in shard order equal the unsharded file.

Outputs (``DIR/``): ``samples.jsonl`` (validated against the shipped JSON Schema),
``failures.jsonl`` (question, stage, reason), ``stats.json`` (counts by split × label
× complexity, shares beside CAQA Table 5, failures by stage and by kind; no timings, so it is reproducible byte for byte),
``timings.json`` (seconds per stage; samples/s of this run's own work, so a resumed run
counts only the chunks it made) and ``report.html``.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import shutil
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from extension.core.extend import RuleAttempt, union_outcome
from extension.core.grounding import Grounder
from extension.core.labels import COMPLEXITIES, LABELS, SPLITS, Split
from extension.core.query_graph import known_mediator_types
from extension.core.samples import SampleConfig, SampleFailure, structured_samples
from extension.defaults import DEFAULT_CHUNK_SIZE, DEFAULT_TEST_FRACTION, MAX_WORKERS
from extension.inputs.questions import ParsedQuestion, parse_question
from extension.outputs.caqa_table5 import compare_with_caqa
from extension.outputs.failure_kinds import FailureKind, group_failures
from extension.outputs.output_file import check_output_dir, write_atomic
from extension.outputs.sample_schema import (
    SchemaViolation,
    benchmark_sample,
    iter_schema_violations,
)
from extension.run.heap import PacedCollection
from extension.run.workdir import chunk_name, manifest_text, prepare_work_dir
from extension.verbalize.grammar_gate import (
    GrammarGate,
    GrammarGateError,
    gate_records,
    gate_stats,
)
from extension.verbalize.verbalizer import TemplateVerbalizer, UnreadableFact, Verbalizer
from kgstore import open_store
from kgstore.confined import copy_file, open_write, remove_tree, replace
from kgstore.dirlock import DirectoryLock, DirectoryLockedError
from kgstore.diskspace import disk_full_error
from kgstore.predicate_stats import ensure as ensure_predicate_stats
from kgstore.store import ProgressCallback as StoreProgressCallback
from kgstore.store import Store
from loaders.kgqa import KGQAQuestion

WORK_DIR = ".work"
OUTPUT_FILES = ("samples.jsonl", "failures.jsonl", "stats.json", "timings.json", "report.html",
                "run.json")

Question = KGQAQuestion | ParsedQuestion
"""A dataset question (parsed in the worker) or an already parsed seed question."""


class GenerateError(Exception):
    """A run that cannot start or finish; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Shard:
    """The ``index``-th (0-based) of ``count`` contiguous blocks of the questions."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if self.count < 1 or not 0 <= self.index < self.count:
            raise ValueError(f"shard {self.index}/{self.count}: expected i/N with 0 <= i < N")

    def block(self, n: int) -> range:
        """The question positions of this shard among ``n``: blocks of near-equal size
        in order, so the shards partition ``range(n)`` and concatenate back to it."""
        return range(n * self.index // self.count, n * (self.index + 1) // self.count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"i/N"`` -> :class:`Shard`; a clear ``ValueError`` otherwise."""
    head, sep, tail = text.partition("/")
    if not sep or not head.strip().isdigit() or not tail.strip().isdigit():
        raise ValueError(f"--shard {text!r}: expected i/N, e.g. 0/4 for the first of four shards")
    return Shard(int(head), int(tail))


def split_of(qid: str, seed: int, test_fraction: float) -> Split:
    """The split of a question: ``test`` when SHA-256 of ``"seed:qid"``, read as a
    number in [0, 1), is below ``test_fraction``. Splits are by source question (all of
    a question's samples share it) and independent of order, workers and shards."""
    digest = hashlib.sha256(f"{seed}:{qid}".encode()).digest()
    return "test" if int.from_bytes(digest[:8], "big") / 2**64 < test_fraction else "train"


@dataclass(frozen=True, slots=True)
class TextOptions:
    """How samples become text: templates (default), or an OpenAI-compatible LLM when
    ``llm_url`` is set (responses cached under ``cache_dir``)."""

    llm_url: str | None = None
    llm_model: str | None = None
    cache_dir: Path | None = None
    phrases_file: Path | None = None
    llm_timeout_s: float = 120.0
    llm_retries: int = 5
    llm_requests_per_second: float | None = None
    llm_fallback_on_error: bool = False
    """Use the templates (flagged in each sample, counted in ``stats.json``) when the
    endpoint is down or refuses a request, instead of stopping the run with the
    server's error so that it can be resumed later."""

    def fingerprint(self) -> dict[str, Any]:
        # The URL is left out: the same model served from another host may resume a run
        # (its cached responses are keyed by model and prompt, not by host).
        return {"llm": bool(self.llm_url), "llm_model": self.llm_model,
                "phrases_file": _file_digest(self.phrases_file) if self.phrases_file else None}


def make_verbalizer(store: Store, options: TextOptions) -> Verbalizer:
    """The template verbalizer of ``store`` (its predicate labels), or the LLM one with
    the templates as fallback."""
    template = TemplateVerbalizer.from_store(store, overrides_file=options.phrases_file)
    if not options.llm_url:
        return template
    from extension.verbalize.llm_verbalizer import verbalizer_from_options  # only LLM runs need it

    cache = options.cache_dir or Path(".kgbench-llm-cache")
    return verbalizer_from_options(
        options.llm_url, options.llm_model, cache, template,
        on_error="fallback" if options.llm_fallback_on_error else "raise",
        requests_per_second=options.llm_requests_per_second,
        timeout_s=options.llm_timeout_s, max_retries=options.llm_retries)


@dataclass(frozen=True, slots=True)
class GenerateConfig:
    """Everything that decides a run's output (``workers`` and ``chunk_size`` do not
    change it; they are here because they are options of the same run)."""

    seed: int = 0
    test_fraction: float = DEFAULT_TEST_FRACTION
    sample: SampleConfig = SampleConfig()
    text: TextOptions = TextOptions()
    shard: Shard = Shard()
    workers: int = 1
    chunk_size: int = DEFAULT_CHUNK_SIZE
    grammar_gate: bool = False
    """Drop every sample whose text the grammar gate blocks
    (:mod:`extension.verbalize.grammar_gate`), recorded as a ``grammar`` failure and
    counted in ``stats.json``."""

    def fingerprint(self) -> dict[str, Any]:
        ext = self.sample.extension
        # The gate only when on, so that runs from before it resume as they were.
        gate = {"grammar_gate": True} if self.grammar_gate else {}
        return {"seed": self.seed, "test_fraction": self.test_fraction,
                "max_answers": ext.max_answers, "classes": self.sample.classes,
                "caqa_strict": self.sample.caqa_strict,
                "text": self.text.fingerprint(), "shard": str(self.shard),
                "chunk_size": self.chunk_size, **gate}


@dataclass(slots=True)
class ChunkStats:
    """Counts and timings of one chunk (summed over chunks for the run)."""

    questions: Counter[str] = field(default_factory=Counter)            # by split
    samples: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # split, label, complexity
    failures: Counter[str] = field(default_factory=Counter)             # by stage
    seconds: dict[str, float] = field(default_factory=dict)             # by stage
    fallback_samples: int = 0   # samples with a part in template text instead of the LLM's
    union: Counter[str] = field(default_factory=Counter)                # union rule outcomes
    grammar: Counter[str] = field(default_factory=Counter)   # checked, blocked, rule:ID

    def add_seconds(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def add(self, other: ChunkStats) -> None:
        self.questions.update(other.questions)
        self.samples.update(other.samples)
        self.failures.update(other.failures)
        self.fallback_samples += other.fallback_samples
        self.union.update(other.union)
        self.grammar.update(other.grammar)
        for stage, seconds in other.seconds.items():
            self.add_seconds(stage, seconds)

    def to_json(self) -> dict[str, Any]:
        return {"questions": dict(self.questions),
                "samples": [[*k, v] for k, v in sorted(self.samples.items())],
                "failures": dict(self.failures), "seconds": dict(self.seconds),
                "fallback_samples": self.fallback_samples, "union": dict(self.union),
                "grammar": dict(self.grammar)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ChunkStats:
        return cls(Counter(doc["questions"]),
                   Counter({(s, lb, c): n for s, lb, c, n in doc["samples"]}),
                   Counter(doc["failures"]), dict(doc["seconds"]),
                   doc.get("fallback_samples", 0), Counter(doc.get("union", {})),
                   Counter(doc.get("grammar", {})))


@dataclass(frozen=True, slots=True)
class ChunkResult:
    index: int
    samples: list[str]
    failures: list[str]
    stats: ChunkStats


class QuestionGenerator:
    """One process's pipeline: a store, its grounder, a verbalizer and the config.
    :meth:`run_chunk` turns a chunk of questions into sample and failure lines, with
    the garbage collector paced by ``collection`` (see :mod:`extension.run.heap`; started
    by the caller, for all the chunks the process runs) when given."""

    def __init__(self, store: Store, config: GenerateConfig, *,
                 collection: PacedCollection | None = None) -> None:
        self.store = store
        self.config = config
        self.collection = collection
        self.grounder = Grounder(store, classes=config.sample.classes)
        self.verbalizer = make_verbalizer(store, config.text)
        self.cvt_types = known_mediator_types() | store.cvt_types()
        self.gate: GrammarGate | None = None   # started by the first chunk that needs it

    def close(self) -> None:
        """End the grammar gate's checker process, if any."""
        if self.gate is not None:
            self.gate.close()

    def run_chunk(self, index: int, questions: Sequence[Question]) -> ChunkResult:
        stats = ChunkStats()
        samples: list[str] = []
        failures: list[str] = []
        for question in questions:
            started = time.perf_counter()
            parsed = (question if isinstance(question, ParsedQuestion)
                      else parse_question(question, cvt_types=self.cvt_types))
            stats.add_seconds("parse", time.perf_counter() - started)
            split = split_of(parsed.id, self.config.seed, self.config.test_fraction)
            stats.questions[split] += 1
            # One read transaction for the question's reads, the samples' and their
            # text's, where each read is a round trip (Neo4j).
            with self.store.read_transaction():
                timings: dict[str, float] = {}
                structured, failed = structured_samples(
                    self.store, self.grounder, parsed, seed=self.config.seed,
                    config=self.config.sample, timings=timings)
                for stage, spent in timings.items():
                    stats.add_seconds(stage, spent)
                started = time.perf_counter()
                records = []
                for sample in structured:
                    try:
                        text = self.verbalizer.verbalize(sample)
                    except UnreadableFact as exc:   # a fact no reader could read: no sample
                        failed.append(SampleFailure(qid=sample.source.qid, stage="verbalize",
                                                    question=sample.source.question,
                                                    reason=f"{exc} ({sample.label} sample)"))
                        continue
                    records.append(benchmark_sample(sample, text, split))
                stats.add_seconds("verbalize", time.perf_counter() - started)
            if self.config.grammar_gate:
                started = time.perf_counter()
                # Started here, not in __init__: a failure then reaches the parent as the
                # chunk's error (a pool worker's initializer that raises is respawned forever).
                self.gate = self.gate or GrammarGate()
                records, blocked = gate_records(self.gate, records, stats.grammar)
                failed += [SampleFailure(qid=r.source.qid, stage="grammar",
                                         question=r.source.question,
                                         reason=f"{why} ({r.label} sample)") for r, why in blocked]
                stats.add_seconds("grammar", time.perf_counter() - started)
            for record in records:
                samples.append(record.model_dump_json())
                stats.samples[(split, record.label, record.complexity)] += 1
                stats.fallback_samples += bool(record.fallbacks)
            for failure in failed:
                failures.append(_failure_line(failure, split))
                stats.failures[failure.stage] += 1
            outcome = (union_outcome([RuleAttempt.model_validate(a)
                                      for a in structured[0].query.attempts]) if structured
                       else union_outcome(None, next((f.reason for f in failed
                                                      if f.stage == "extend"), None)))
            if outcome is not None:
                stats.union[outcome] += 1
            if self.collection is not None:
                self.collection.tick()
        return ChunkResult(index, samples, failures, stats)


def _failure_line(failure: SampleFailure, split: Split) -> str:
    return json.dumps({**failure.model_dump(), "split": split}, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class GenerateResult:
    """What a finished run wrote and counted."""

    out_dir: Path
    stats: dict[str, Any]
    timings: dict[str, Any]
    resumed_chunks: int
    """Chunks taken from an interrupted earlier run; -1 when the whole run had already
    finished (nothing was done)."""
    violations: tuple[SchemaViolation, ...] = ()


ProgressCallback = Callable[[int, int, int], None]
"""``progress(questions_done, questions_total, samples_so_far)``."""


def generate(store: str, questions: Sequence[Question], out_dir: Path,
             config: GenerateConfig, *, source: dict[str, Any],
             progress: ProgressCallback | None = None, force: bool = False,
             report: bool = True,
             store_progress: StoreProgressCallback | None = None) -> GenerateResult:
    """Run the pipeline over ``questions`` (this shard's block of them) into
    ``out_dir`` and return the counts. ``store`` is the store's location (see
    :func:`kgstore.open_store`). ``source`` describes the input (file and checksum, or
    the domain spec) for the resume check: rerunning the same ``source`` and ``config``
    resumes; anything else needs ``force=True`` (which starts over). An ``out_dir``
    that exists and is not a directory is :class:`~extension.outputs.output_file.OutputPathError`.
    ``out_dir`` is locked for the run: a second run into it is refused
    (:class:`GenerateError`). A
    full disk under ``out_dir`` is :class:`~kgstore.errors.DiskFullError` (one line:
    the file, what to do) rather than the ``OSError`` of whichever write met it; the
    chunks written so far are kept.

    A store without predicate statistics (:mod:`kgstore.predicate_stats`: loaded by an
    older kgbench), or without type samples for the seed (:mod:`kgstore.type_samples`),
    gets them first, once, reporting to ``store_progress``; where it cannot be
    written, every worker measures them itself (``timings.json`` says which)."""
    check_output_dir(out_dir, option="--out")   # a file or a device there: one line
    try:
        with DirectoryLock(out_dir):
            return _generate(store, questions, out_dir, config, source=source,
                             progress=progress, force=force, report=report,
                             store_progress=store_progress)
    except GrammarGateError as exc:
        raise GenerateError(f"grammar gate: {exc}; the chunks done so far are kept: rerun the "
                            "same command to resume, or leave out --grammar-gate") from None
    except DirectoryLockedError as exc:
        holder = f" (pid {exc.pid})" if exc.pid else ""
        raise GenerateError(
            f"benchmark directory {out_dir} is being written by another kgbench process"
            f"{holder}; wait for it or choose another --out") from None
    except OSError as exc:
        full = disk_full_error(exc, out_dir, OUT_DIR_REMEDY)
        if full is None:
            raise
        raise full from exc


OUT_DIR_REMEDY = ("free space on that device or choose another --out, then rerun the "
                  "command (it resumes where it stopped)")


def _generate(store: str, questions: Sequence[Question], out_dir: Path,
              config: GenerateConfig, *, source: dict[str, Any],
              progress: ProgressCallback | None, force: bool, report: bool,
              store_progress: StoreProgressCallback | None) -> GenerateResult:
    block = config.shard.block(len(questions))
    mine = [questions[i] for i in block]
    chunks = [mine[i:i + config.chunk_size] for i in range(0, len(mine), config.chunk_size)]
    fingerprint = {"source": source, "config": config.fingerprint(), "questions": len(questions)}
    finished = _finished_run(out_dir, fingerprint) if not force else None
    if finished is not None:
        return finished
    work = _prepare_work_dir(out_dir, fingerprint, force)
    done = {i for i in range(len(chunks)) if (work / chunk_name(i, "stats.json")).exists()}
    total = ChunkStats()
    for i in sorted(done):
        total.add(ChunkStats.from_json(json.loads(
            (work / chunk_name(i, "stats.json")).read_text("utf-8"))))
    questions_done = sum(len(chunks[i]) for i in done)
    resumed_samples = sum(total.samples.values())
    if progress:
        progress(questions_done, len(mine), resumed_samples)
    pending = [i for i in range(len(chunks)) if i not in done]
    statistics = (ensure_predicate_stats(store, store_progress, seed=config.seed)
                  if pending else "not read")
    started = time.perf_counter()
    processes = worker_processes(config.workers, len(pending))
    for result in _run_chunks(store, config, [(i, chunks[i]) for i in pending], processes):
        _write_chunk(work, result)
        total.add(result.stats)
        questions_done += len(chunks[result.index])
        if progress:
            progress(questions_done, len(mine), sum(total.samples.values()))
    elapsed = time.perf_counter() - started
    # The samples this run made over the time it took: the resumed chunks' samples were
    # made by an earlier run, in time this one did not measure.
    made = sum(total.samples.values()) - resumed_samples
    rate = round(made / elapsed, 1) if pending and elapsed > 0 else None
    return _finish(out_dir, work, len(chunks), total, config, source, elapsed, rate,
                   resumed=len(done), processes=processes, report=report, store=store,
                   predicate_stats=statistics)


def worker_processes(requested: int, chunks: int) -> int:
    """How many processes run ``chunks`` pending chunks for ``--workers requested``:
    no more than there are chunks (a worker without a chunk costs its start-up, a
    second or more, and nothing else) nor :data:`~extension.defaults.MAX_WORKERS`;
    0 when nothing is left to do."""
    return max(0, min(requested, chunks, MAX_WORKERS))


def _run_chunks(store_location: str, config: GenerateConfig,
                jobs: list[tuple[int, list[Question]]], processes: int) -> Iterator[ChunkResult]:
    """Chunk results as they finish: in this process for one worker, else from a pool
    of ``processes`` ``spawn``-ed processes that each open the store read-only (a forked
    LadybugDB handle is not safe to share)."""
    if not jobs:
        return
    if processes <= 1:
        with open_store(store_location, read_only=True) as store, \
                PacedCollection() as collection:
            generator = QuestionGenerator(store, config, collection=collection)
            try:
                for index, chunk in jobs:
                    yield generator.run_chunk(index, chunk)
            finally:
                generator.close()
        return
    context = multiprocessing.get_context("spawn")
    with _sigint_ignored():
        pool = context.Pool(processes, initializer=_worker_init,
                            initargs=(store_location, config))
    with pool:
        yield from pool.imap_unordered(_worker_run, jobs)


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored in the block (main thread only), so that processes started in
    it are born ignoring it. Ctrl-C reaches the whole process group: the parent stops
    the pool and says so in one line; a worker that took the ``KeyboardInterrupt``
    too (even while still importing) would print its own traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_WORKER: QuestionGenerator | None = None


def _worker_init(store_location: str, config: GenerateConfig) -> None:
    global _WORKER
    # Paced for the worker's life: the pool ends its workers when the run is over.
    _WORKER = QuestionGenerator(open_store(store_location, read_only=True), config,
                                collection=PacedCollection().start())


def _worker_run(job: tuple[int, list[Question]]) -> ChunkResult:
    assert _WORKER is not None, "worker used before its initializer ran"
    return _WORKER.run_chunk(*job)


def _write_atomic(path: Path, text: str) -> None:
    write_atomic(path, text, remedy=OUT_DIR_REMEDY)


def _write_chunk(work: Path, result: ChunkResult) -> None:
    """The chunk's lines, then its stats: a chunk counts as done only once the stats
    file exists, so a crash between the writes reruns the chunk."""
    _write_atomic(work / chunk_name(result.index, "samples.jsonl"),
                  "".join(line + "\n" for line in result.samples))
    _write_atomic(work / chunk_name(result.index, "failures.jsonl"),
                  "".join(line + "\n" for line in result.failures))
    _write_atomic(work / chunk_name(result.index, "stats.json"),
                  json.dumps(result.stats.to_json()))


def _finished_run(out_dir: Path, fingerprint: dict[str, Any]) -> GenerateResult | None:
    """The result of an earlier, finished run of the same command in ``out_dir``
    (rerunning a finished command is a no-op), else ``None``."""
    manifest = out_dir / "run.json"
    if not manifest.exists() or (out_dir / WORK_DIR).exists() \
            or manifest.read_text("utf-8") != manifest_text(fingerprint) \
            or not all((out_dir / n).exists() for n in ("samples.jsonl", "stats.json")):
        return None
    stats = json.loads((out_dir / "stats.json").read_text("utf-8"))
    timings_file = out_dir / "timings.json"
    timings = json.loads(timings_file.read_text("utf-8")) if timings_file.exists() else {}
    return GenerateResult(out_dir, stats, timings, resumed_chunks=-1)


def _prepare_work_dir(out_dir: Path, fingerprint: dict[str, Any], force: bool) -> Path:
    """``DIR/.work`` for this run (:func:`extension.run.workdir.prepare_work_dir`)."""
    def other_unfinished(previous: Any) -> GenerateError:
        return GenerateError(
            f"{out_dir} holds an unfinished run with different inputs or options; "
            "rerun that command to resume it, or pass --force to start over")

    def other_finished(existing: list[Path]) -> GenerateError:
        return GenerateError(
            f"{out_dir} already holds a benchmark ({', '.join(p.name for p in existing)}); "
            "choose another --out or pass --force to replace it")

    return prepare_work_dir(out_dir, WORK_DIR, fingerprint, force=force,
                            outputs=[out_dir / n for n in OUTPUT_FILES], remedy=OUT_DIR_REMEDY,
                            other_unfinished=other_unfinished, other_finished=other_finished)


def stats_doc(total: ChunkStats, config: GenerateConfig, source: dict[str, Any],
              verbalizer: str, failure_kinds: Sequence[FailureKind] = ()) -> dict[str, Any]:
    """``stats.json``: the run's counts laid out like CAQA Table 5 (split × label ×
    complexity), our label and complexity shares beside CAQA's (``caqa_table5``,
    :func:`~extension.outputs.caqa_table5.compare_with_caqa`), failures by stage and by kind of
    reason (``failures_by_kind``, :func:`~extension.outputs.failure_kinds.group_failures`) and,
    for an LLM run, the samples with template text in place of the LLM's
    (``llm_fallback_samples``), for a ``--grammar-gate`` run what the gate checked and
    blocked (``grammar_gate``, :func:`~extension.verbalize.grammar_gate.gate_stats`);
    deterministic (no timings)."""
    by_split = {split: {label: {c: total.samples.get((split, label, c), 0)
                                for c in COMPLEXITIES} for label in LABELS}
                for split in SPLITS}
    shares = compare_with_caqa(Counter({(label, c): sum(by_split[s][label][c] for s in SPLITS)
                                        for label in LABELS for c in COMPLEXITIES}))
    llm = {"llm_fallback_samples": total.fallback_samples} if verbalizer != "template" else {}
    gate = {"grammar_gate": gate_stats(total.grammar)} if config.grammar_gate else {}
    return {
        "source": source, "seed": config.seed, "test_fraction": config.test_fraction,
        "shard": str(config.shard), "verbalizer": verbalizer,
        "caqa_strict": config.sample.caqa_strict,
        "questions": sum(total.questions.values()),
        "questions_by_split": {s: total.questions.get(s, 0) for s in SPLITS},
        "samples": sum(total.samples.values()),
        "by_split": by_split,
        "caqa_table5": shares.to_json(),
        "failures_by_stage": dict(sorted(total.failures.items())),
        "failures_by_kind": [k.to_json() for k in failure_kinds],
        "rule_availability": {"union": rule_availability(total.union)},
        **llm, **gate,
    }


def rule_availability(union: Counter[str]) -> dict[str, int]:
    """How the union rule fared on the questions it was tried on (a single question
    draws it, or falls over to it): ``tried``, ``applied``, and each refusal by code.
    ``no_same_name_entities`` is a KG where no other entity has the subject's name,
    ``no_shared_relation`` one where same-name entities exist but none has the
    subject's relation (CAQA's 3.9% union samples need a KG with many namesakes:
    a union share near zero is the KG's, not a silent failure)."""
    return {"tried": sum(union.values()), "applied": union.get("applied", 0),
            **{code: n for code, n in sorted(union.items()) if code != "applied"}}


def _finish(out_dir: Path, work: Path, n_chunks: int, total: ChunkStats,
            config: GenerateConfig, source: dict[str, Any], elapsed: float,
            samples_per_s: float | None, *,
            resumed: int, processes: int, report: bool, store: str,
            predicate_stats: str) -> GenerateResult:
    """Concatenate the chunks in order and validate the result, write stats, timings
    and the report, all inside ``.work``; then rename each into ``out_dir`` (``run.json``
    last) and drop ``.work``. A crash anywhere here leaves ``.work`` with every chunk,
    so the rerun only repeats this step."""
    for name in ("samples.jsonl", "failures.jsonl"):
        with open_write(work / name, "wb") as sink:
            for i in range(n_chunks):
                with (work / chunk_name(i, name)).open("rb") as chunk:
                    shutil.copyfileobj(chunk, sink)
    violations = tuple(iter_schema_violations(work / "samples.jsonl"))
    if violations:
        raise GenerateError(f"{len(violations):,} sample line(s) do not match the schema, "
                            f"first: {violations[0]} (see {work / 'samples.jsonl'})")
    verbalizer = f"llm:{config.text.llm_model}" if config.text.llm_url else "template"
    with (work / "failures.jsonl").open("rb") as lines:
        kinds = group_failures(orjson.loads(line) for line in lines if line.strip())
    stats = stats_doc(total, config, source, verbalizer, kinds)
    timings = {"seconds": round(elapsed, 3), "resumed_chunks": resumed,
               "workers": processes, "workers_requested": config.workers,
               "samples_per_s": samples_per_s, "predicate_stats": predicate_stats,
               "stage_seconds": {k: round(v, 3) for k, v in sorted(total.seconds.items())}}
    _write_atomic(work / "stats.json", json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    _write_atomic(work / "timings.json", json.dumps(timings, indent=2) + "\n")
    names = ["samples.jsonl", "failures.jsonl", "stats.json", "timings.json"]
    if report:
        from extension.outputs.report import write_report  # matplotlib: only when asked

        # The report shows the run's speed too, so unlike samples/failures/stats it
        # differs between otherwise identical runs.
        write_report(work, work / "samples.jsonl", {**stats, **timings},
                     examples_seed=config.seed, predicate_labels=predicate_labels(store))
        names.append("report.html")
    copy_file(work / "run.json", work / "run.json.final")
    for name in names:
        replace(work / name, out_dir / name)
    replace(work / "run.json.final", out_dir / "run.json")
    remove_tree(work)
    return GenerateResult(out_dir, stats, timings, resumed, violations)


def predicate_labels(store: str) -> dict[str, str]:
    """Predicate id -> label of the store at ``store`` (Wikidata ``P19`` -> "place of
    birth"): the report names the edges of its drawings by them."""
    with open_store(store, read_only=True) as s:
        return {p.id: p.label for p in s.predicates() if p.label}


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_of_file(path: Path, fmt: str | None) -> dict[str, Any]:
    """The ``source`` record of a question file (its name, format and checksum)."""
    return {"kind": "questions", "file": str(path), "format": fmt,
            "sha256": _file_digest(path)}
