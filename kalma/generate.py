"""``kgbench kalma generate``: a store -> a finished, resumable directory of KaLMA
entries (§2.2, App. A), with conscious-incompetence variants (§4.4).

The entries come from :class:`kalma.builder.KalmaBuilder`; this module runs it over
chunks of its starts and writes the files.

Reproducibility and resumption
    * The starts (connected pairs, or entities with ``--single``) are the builder's
      seeded list. They are taken in order and cut into fixed **chunks**; entry ``i`` is
      built from the ``i``-th start that gives one (a start can be skipped: too few
      usable facts), so the run goes on past skipped starts until it has ``n`` entries
      or runs out of starts. Chunks are built in order, each written under
      ``DIR/.work-kalma/`` with an atomic rename, its stats file last: a chunk counts as
      done only once that exists, and a rerun of the same command continues after the
      last done chunk (kill -9, an LLM outage).
    * The work folder holds the run's fingerprint (the builder's config, the store's
      size, the incompetence levels, the LM's card and precision, the LLM's model, the
      chunk size); a rerun with another one is refused unless ``force``; a finished run
      with the same fingerprint is reused as it is.
    * ``entries.jsonl`` and ``incompetence-K.jsonl`` hold no timestamps: the same seed
      gives byte-identical files (timings are in ``run.json`` and ``report.html``).

Outputs (``DIR/``): ``entries.jsonl`` (one :class:`~kalma.entry.KalmaEntry` per line,
id order, checked against the shipped schema), ``incompetence-K.jsonl`` per ``K`` (the
§4.4 variants: the first ``K`` of a seeded shuffle of the entry's minimum knowledge set
removed from its pool and listed as ``absent_knowledge``; an entry whose minimum
knowledge set has ``K`` triples or fewer is left out, so that some knowledge is left to
cite, and counted; the shuffle is one per entry, so the triples removed at ``K=1`` are
among those removed at ``K=2``), ``entry.schema.json``, ``run.json`` (fingerprint,
counts, skips by reason, timings) and ``report.html``.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from extension.outputs.output_file import check_output_dir, write_atomic
from extension.run.workdir import chunk_name, differences, prepare_work_dir, read_json
from kalma.builder import BuildConfig, BuildSkip, KalmaBuilder
from kalma.entry import ENTRIES_FILE, ENTRY_FORMAT, KalmaEntry, Knowledge
from kalma.errors import KalmaError
from kalma.prompts import GenerationPrompts, kgbench_generation_prompts
from kalma.schema import SCHEMA_FILE, entry_schema_text, iter_entry_violations
from kalma.templates import qualifier_anchor
from kgstore import open_store
from kgstore.confined import open_write, remove_tree, replace
from kgstore.dirlock import DirectoryLock, DirectoryLockedError
from kgstore.diskspace import disk_full_error
from llm.endpoint import ChatEndpoint

__all__ = ["DEFAULT_CHUNK_SIZE", "REPORT_FILE", "RUN_FILE", "WORK_DIR", "KalmaGenerateResult",
           "generate_entries", "incompetence_file", "incompetence_variant"]

WORK_DIR = ".work-kalma"
RUN_FILE = "run.json"
REPORT_FILE = "report.html"
RUN_FORMAT = "kgbench-kalma-run/1"
DEFAULT_CHUNK_SIZE = 50
DEFAULT_LLM_CACHE = Path(".kgbench-llm-cache")
REMEDY = ("free space on that device or choose another --out, then rerun the command "
          "(it resumes where it stopped)")

_OPTION_NAMES = {"domain": "--domain", "n": "--n", "seed": "--seed",
                 "iterations": "--iterations", "alpha": "--alpha", "single": "--single",
                 "pool_limit": "the pool limit", "id_prefix": "the id prefix",
                 "incompetence": "--incompetence", "lm": "the --lm model",
                 "llm": "--llm-model", "prompts": "--prompts", "chunk_size": "the chunk size",
                 "store": "the store (its size)", "format": "the run format"}

Progress = Callable[[int, int], None]
"""``progress(entries_done, entries_wanted)``."""


def incompetence_file(k: int) -> str:
    return f"incompetence-{k}.jsonl"


@dataclass(frozen=True)
class KalmaGenerateResult:
    """What a finished run wrote and counted (``run`` is ``run.json``'s document)."""

    out_dir: Path
    entries: int
    requested: int
    variants: Mapping[int, int]
    """K -> entries of ``incompetence-K.jsonl``."""
    variants_left_out: Mapping[int, int]
    """K -> entries with K or fewer pieces of minimum knowledge (no variant)."""
    skips: Mapping[str, int]
    relations: Mapping[str, int]
    """Relation label -> pieces of minimum knowledge with it, over all entries."""
    method: str
    coherence: str
    seconds: float
    entries_per_s: float | None
    resumed_chunks: int
    """Chunks taken from an interrupted earlier run; -1 when the run had already
    finished (nothing was done)."""
    run: Mapping[str, Any] = field(default_factory=dict)


def _removable(minimum: Sequence[Knowledge], pool: Sequence[Knowledge], *,
               pair: bool) -> list[bool]:
    """For each piece of the minimum knowledge set, whether a reader of the pool would
    notice it missing (§4.4 asks the system to mark ``[NA]`` where knowledge is absent,
    so the absence has to be there to see). Not removable: what the questions name
    themselves (the pair's link: the general question names both people and their
    marriage; the anchor of a qualifier in the set: the specific question asks for "the
    start date of A's marriage to B"), and a value of a relation whose subject has other
    values in the pool (without one of Hitchcock's three films a system still has films
    to name). A qualifier is one value of its CVT ("the start date of A's marriage to
    B"), whatever other marriages A has."""
    values = Counter((p.subject_id, p.relation) for p in pool)
    named = {a.statement() for q in minimum if (a := qualifier_anchor(q, pool)) is not None}
    if pair and minimum:
        named.add(minimum[0].statement())
    return [piece.statement() not in named
            and (values[(piece.subject_id, piece.relation)] == 1
                 or qualifier_anchor(piece, pool) is not None)
            for piece in minimum]


def _removed(seed: int | None, entry_id: str, minimum: Sequence[Knowledge],
             pool: Sequence[Knowledge], k: int, *, pair: bool) -> list[int] | None:
    """Positions in the minimum knowledge set of the ``k`` pieces a variant removes: the
    first ``k`` removable pieces (:func:`_removable`) of a shuffle seeded by the entry's
    seed and id (one order per entry, so lower levels remove subsets of higher ones);
    ``None`` when fewer than ``k`` are removable, or removing them would leave nothing
    to cite."""
    if len(minimum) <= k:
        return None
    order = list(range(len(minimum)))
    random.Random(f"{seed}:{entry_id}").shuffle(order)
    removable = _removable(minimum, pool, pair=pair)
    chosen = [i for i in order if removable[i]][:k]
    return chosen if len(chosen) == k else None


def incompetence_variant(entry: KalmaEntry, k: int) -> KalmaEntry | None:
    """The §4.4 variant of ``entry`` with ``k`` pieces of its minimum knowledge set
    removed from the pool, each with its other views (:meth:`KalmaEntry.with_absent`;
    which pieces: :func:`_removed`); ``None`` when there are not ``k`` pieces whose
    absence a reader would notice, or nothing would be left to cite."""
    minimum = entry.minimum_knowledge_set
    chosen = _removed(entry.seed, entry.id, minimum, entry.knowledge_pool, k,
                      pair=len(entry.entities) > 1)
    if chosen is None:
        return None
    return entry.with_absent([minimum[i] for i in chosen])


def _variant_line(doc: Mapping[str, Any], k: int, pool: Sequence[Knowledge]) -> str | None:
    """:func:`incompetence_variant` of an entry line already parsed (``doc``, the
    entry's :meth:`~KalmaEntry.to_json`; ``pool``, its knowledge pool read once for
    every level), as its line: the same bytes as the variant's ``to_line``, without
    building the entry again."""
    minimum_docs = doc["minimum_knowledge_set"]
    minimum = [Knowledge.from_json(m, doc["id"]) for m in minimum_docs]
    chosen = _removed(doc["seed"], doc["id"], minimum, pool, k, pair=len(doc["entities"]) > 1)
    if chosen is None:
        return None
    removed = [minimum_docs[i] for i in chosen]
    gone = {minimum[i].key() for i in chosen}
    stated = {minimum[i].statement() for i in chosen}
    kept = [item for item, known in zip(doc["knowledge_pool"], pool, strict=True)
            if known.key() not in gone and known.statement() not in stated]
    variant = {**doc, "knowledge_pool": kept, "absent_knowledge": removed, "incompetence": k}
    return json.dumps(variant, ensure_ascii=False, separators=(",", ":")) + "\n"


# -- the fingerprint --------------------------------------------------------------------
def _fingerprint(config: BuildConfig, store_size: Mapping[str, int], levels: Sequence[int],
                 lm: Mapping[str, Any] | None, llm: ChatEndpoint | None,
                 prompts: GenerationPrompts, chunk_size: int) -> dict[str, Any]:
    # The LLM's URL is left out: the same model served from another host may resume a
    # run (its cached replies are keyed by model and prompt). The prompts are in only
    # when an LLM writes the text (a template run's record is unchanged).
    return {"format": RUN_FORMAT, "entry_format": ENTRY_FORMAT, **config.fingerprint(),
            "incompetence": list(levels), "lm": dict(lm) if lm else None,
            "llm": {"model": llm.model, "max_tokens": llm.max_tokens} if llm else None,
            **({"prompts": prompts.fingerprint()} if llm else {}),
            "chunk_size": chunk_size, "store": dict(store_size)}


def _differences(old: Any, new: Mapping[str, Any]) -> str:
    """What differs between two fingerprints, in the command line's words."""
    return differences(old, new, _OPTION_NAMES, unreadable="an unreadable or older run record")


# -- the run ----------------------------------------------------------------------------
def generate_entries(store: str, config: BuildConfig, out_dir: Path, *,
                     incompetence: Sequence[int] = (), lm_dir: Path | None = None,
                     llm: ChatEndpoint | None = None, llm_cache: Path | None = None,
                     prompts: GenerationPrompts | None = None,
                     force: bool = False, chunk_size: int = DEFAULT_CHUNK_SIZE,
                     progress: Progress | None = None) -> KalmaGenerateResult:
    """Build ``config.n`` entries from the store at ``store`` into ``out_dir`` (see the
    module docstring). ``lm_dir``: a causal-LM model directory for Eq. 1's coherence;
    ``llm``: the chat endpoint that writes paragraphs and questions (replies cached
    under ``llm_cache``) with ``prompts`` (default: kgbench's own,
    :func:`~kalma.prompts.kgbench_generation_prompts`). Raises :class:`KalmaError` for a run that cannot be done
    (no connected pair: the hint says ``--single``; another run in ``out_dir``; no
    entry built), :class:`~extension.outputs.output_file.OutputPathError` for an ``out_dir``
    that is a file, :class:`~kgstore.errors.DiskFullError` for a full disk."""
    levels = sorted(set(incompetence))
    if any(k < 1 for k in levels):
        raise KalmaError(f"--incompetence {','.join(map(str, incompetence))}: each level must "
                         "be a number of triples to remove, at least 1", "e.g. --incompetence 1,2,3")
    if chunk_size < 1:
        raise KalmaError(f"chunk size must be at least 1, got {chunk_size}")
    check_output_dir(out_dir, option="--out")
    created = not out_dir.exists()
    try:
        with DirectoryLock(out_dir):
            return _generate(store, config, out_dir, levels=levels, lm_dir=lm_dir, llm=llm,
                             llm_cache=llm_cache or DEFAULT_LLM_CACHE,
                             prompts=prompts or kgbench_generation_prompts(), force=force,
                             chunk_size=chunk_size, progress=progress)
    except DirectoryLockedError as exc:
        holder = f" (pid {exc.pid})" if exc.pid else ""
        raise KalmaError(f"{out_dir} is being written by another kgbench process{holder}",
                         "wait for it to finish, or choose another --out") from None
    except OSError as exc:
        full = disk_full_error(exc, out_dir, REMEDY)
        if full is None:
            raise
        raise full from exc
    finally:
        # A refused run (no connected pair, another run's files) leaves no empty --out
        # behind that the lock alone created.
        if created:
            with contextlib.suppress(OSError):
                out_dir.rmdir()   # only succeeds when nothing was written


def _generate(store_location: str, config: BuildConfig, out_dir: Path, *, levels: list[int],
              lm_dir: Path | None, llm: ChatEndpoint | None, llm_cache: Path,
              prompts: GenerationPrompts, force: bool, chunk_size: int,
              progress: Progress | None) -> KalmaGenerateResult:
    lm = None
    lm_print = None
    if lm_dir is not None:
        from scoring.runtime import CausalLM
        from scoring.score.models import check_task, model_fingerprint

        check_task(lm_dir, "causal-lm", "--lm")
        lm = CausalLM.open(lm_dir)
        lm_print = model_fingerprint(lm_dir, lm)
    client = None
    if llm is not None:
        from llm.cache import ResponseCache
        from llm.client import ChatClient

        client = ChatClient(llm, ResponseCache(llm_cache))
    with open_store(store_location, read_only=True) as store:
        stats = store.stats()
        size = {"entities": stats.entities, "facts": stats.facts}
        fingerprint = _fingerprint(config, size, levels, lm_print, llm, prompts, chunk_size)
        if not force:
            finished = _finished_result(out_dir, fingerprint)
            if finished is not None:
                if progress:
                    progress(finished.entries, config.n)
                return finished
        builder = KalmaBuilder(store, config, lm=lm, client=client, prompts=prompts)
        starts = builder.seeds()   # no pair: one line, before anything is written
        work = _prepare_work_dir(out_dir, fingerprint, force)
        chunks = [starts[i:i + chunk_size] for i in range(0, len(starts), chunk_size)]
        made = 0
        skips: Counter[str] = Counter()
        resumed = 0
        made_here = 0
        used = 0
        started = time.perf_counter()
        if progress:
            progress(0, config.n)
        n_chunks = 0
        for c, chunk in enumerate(chunks):
            if made >= config.n:
                break
            n_chunks = c + 1
            done = read_json(work / chunk_name(c, "stats.json"))
            # Done only with both files: its stats are written last, but a chunk's
            # entries file removed by hand must be built again, not trusted.
            if not (isinstance(done, dict) and done.get("first_index") == made
                    and (work / chunk_name(c, "entries.jsonl")).is_file()):
                done = _build_chunk(builder, work, c, chunk, first_index=made, wanted=config.n)
                made_here += done["entries"]
            else:
                resumed += 1
            made += done["entries"]
            used += done["starts"]
            skips.update(done["skips"])
            if progress:
                progress(made, config.n)
        elapsed = time.perf_counter() - started
        if made == 0:
            remove_tree(work)   # nothing built: nothing to resume
            reasons = ", ".join(f"{reason} ({n:,})" for reason, n in skips.most_common(3))
            raise KalmaError(f"no entry could be built: all {used:,} starts of {config.domain} "
                             f"were skipped ({reasons})",
                             "choose a domain whose entities have more facts"
                             + ("" if config.single else ", or try --single"))
        run = {"format": RUN_FORMAT, "fingerprint": fingerprint, "entries": made,
               "requested": config.n,
               "starts": {"available": len(starts), "used": used,
                          "ambiguous_pairs_left_out": builder.ambiguous},
               "skips": dict(sorted(skips.items())),
               "method": "llm" if client is not None else "template",
               **({"prompts": prompts.source} if client is not None else {}),
               "coherence": "perplexity" if lm is not None else "none",
               "alpha": config.alpha,
               "timings": {"seconds": round(elapsed, 3), "resumed_chunks": resumed,
                           "entries_per_s": round(made_here / elapsed, 2)
                           if made_here and elapsed > 0 else None}}
        if lm is not None:
            run["lm_runtime"] = {"provider": lm.runtime.provider, "precision": lm.runtime.precision,
                                 "fallback": lm.runtime.fallback}
        return _finish(out_dir, work, n_chunks, run, levels, config)


def _write(path: Path, text: str) -> None:
    write_atomic(path, text, remedy=REMEDY)


def _build_chunk(builder: KalmaBuilder, work: Path, c: int, chunk: Sequence[Any], *,
                 first_index: int, wanted: int) -> dict[str, Any]:
    """Build chunk ``c`` (entries numbered from ``first_index``, stopping at
    ``wanted``), write its entries then its stats; returns the stats."""
    lines: list[str] = []
    skips: Counter[str] = Counter()
    starts = 0
    for start in chunk:
        if first_index + len(lines) >= wanted:
            break
        starts += 1
        built = builder.build(start, first_index + len(lines))
        if isinstance(built, BuildSkip):
            skips[built.reason] += 1
        else:
            lines.append(built.to_line())
    stats = {"first_index": first_index, "entries": len(lines), "starts": starts,
             "skips": dict(skips)}
    _write(work / chunk_name(c, "entries.jsonl"), "".join(lines))
    _write(work / chunk_name(c, "stats.json"), json.dumps(stats, sort_keys=True) + "\n")
    return stats


def _prepare_work_dir(out_dir: Path, fingerprint: Mapping[str, Any], force: bool) -> Path:
    """``DIR/.work-kalma`` for this run (:func:`extension.run.workdir.prepare_work_dir`)."""
    def other_unfinished(previous: Any) -> KalmaError:
        return KalmaError(f"{out_dir} holds an unfinished KaLMA run with a different "
                          f"{_differences(previous, fingerprint)}",
                          "rerun that command to resume it, or pass --force to start over")

    def other_finished(existing: list[Path]) -> KalmaError:
        old = read_json(out_dir / RUN_FILE)
        what = _differences(old.get("fingerprint") if isinstance(old, dict) else None,
                            fingerprint)
        return KalmaError(f"{out_dir} already holds KaLMA entries of another run "
                          f"(different {what})",
                          "pass --force to replace them, or choose another --out")

    return prepare_work_dir(out_dir, WORK_DIR, fingerprint, force=force,
                            outputs=_output_files(out_dir), remedy=REMEDY,
                            other_unfinished=other_unfinished, other_finished=other_finished)


def _output_files(out_dir: Path) -> list[Path]:
    if not out_dir.is_dir():
        return []
    names = (ENTRIES_FILE, SCHEMA_FILE, RUN_FILE, REPORT_FILE)
    return sorted([*(out_dir / n for n in names if (out_dir / n).exists()),
                   *out_dir.glob("incompetence-*.jsonl")])


def _finished_result(out_dir: Path, fingerprint: Mapping[str, Any]) -> KalmaGenerateResult | None:
    """The result of an earlier finished run of the same command (reused as is)."""
    run = read_json(out_dir / RUN_FILE)
    if not isinstance(run, dict) or run.get("fingerprint") != fingerprint \
            or (out_dir / WORK_DIR).exists() or not (out_dir / ENTRIES_FILE).is_file():
        return None
    try:
        return _result(out_dir, run, resumed=-1)
    except (KeyError, TypeError, ValueError):
        return None   # an older or edited run.json: the run is made again


def _result(out_dir: Path, run: Mapping[str, Any], *, resumed: int) -> KalmaGenerateResult:
    variants = run.get("incompetence", {})
    timings = run.get("timings", {})
    return KalmaGenerateResult(
        out_dir=out_dir, entries=int(run["entries"]), requested=int(run["requested"]),
        variants={int(k): int(v["entries"]) for k, v in variants.items()},
        variants_left_out={int(k): int(v["left_out"]) for k, v in variants.items()},
        skips=dict(run.get("skips", {})), relations=dict(run.get("relations", {})),
        method=str(run["method"]), coherence=str(run["coherence"]),
        seconds=float(timings.get("seconds", 0.0)), entries_per_s=timings.get("entries_per_s"),
        resumed_chunks=resumed if resumed == -1 else int(timings.get("resumed_chunks", 0)),
        run=run)


def _finish(out_dir: Path, work: Path, n_chunks: int, run: dict[str, Any], levels: list[int],
            config: BuildConfig) -> KalmaGenerateResult:
    """Concatenate the chunks, check them against the schema, write the variants, the
    schema, the report and ``run.json`` inside the work folder, then rename each into
    ``out_dir`` (``run.json`` last) and drop the work folder. A crash here leaves every
    chunk, so the rerun only repeats this step."""
    entries_path = work / ENTRIES_FILE
    with open_write(entries_path, "wb") as sink:
        for c in range(n_chunks):
            with (work / chunk_name(c, "entries.jsonl")).open("rb") as chunk:
                shutil.copyfileobj(chunk, sink)
    violations = list(iter_entry_violations(entries_path))
    if violations:
        raise KalmaError(f"{len(violations):,} entry line(s) do not match the entry schema, "
                         f"first: {violations[0]} (see {entries_path})",
                         "report this as a kgbench bug")
    # Parsed once (entries of a big KG are tens of kB each), as JSON: the variants are
    # the same documents with another pool, so they are written without rebuilding
    # every triple's objects (the lines equal KalmaEntry.to_line's: see the tests).
    with entries_path.open("rb") as lines:
        docs = [orjson.loads(line) for line in lines]
    relations = Counter(k["relation"] for doc in docs for k in doc["minimum_knowledge_set"])
    examples = [KalmaEntry.from_json(doc, f"{entries_path}:{i + 1}")
                for i, doc in enumerate(docs[:3])]
    run["relations"] = dict(sorted(relations.items(), key=lambda kv: (-kv[1], kv[0])))
    variants: dict[str, dict[str, int]] = {str(k): {"entries": 0, "left_out": 0}
                                           for k in levels}
    with contextlib.ExitStack() as stack:
        sinks: dict[int, IO[str]] = {
            k: stack.enter_context(open_write(work / incompetence_file(k)))
            for k in levels}
        for doc in docs if levels else []:
            # One entry's pool read once for all levels, then let go.
            pool = [Knowledge.from_json(item, doc["id"]) for item in doc["knowledge_pool"]]
            for k, level_sink in sinks.items():
                line = _variant_line(doc, k, pool)
                if line is None:
                    variants[str(k)]["left_out"] += 1
                else:
                    level_sink.write(line)
                    variants[str(k)]["entries"] += 1
    run["incompetence"] = variants
    _write(work / SCHEMA_FILE, entry_schema_text())
    from kalma.report import render_report

    _write(work / REPORT_FILE, render_report(run, examples, config))
    _write(work / "run.json.final", json.dumps(run, indent=2, ensure_ascii=False) + "\n")
    for name in (ENTRIES_FILE, *(incompetence_file(k) for k in levels), SCHEMA_FILE,
                 REPORT_FILE):
        replace(work / name, out_dir / name)
    replace(work / "run.json.final", out_dir / RUN_FILE)
    remove_tree(work)
    return _result(out_dir, run, resumed=0)
