"""``kgbench conner score FILE...``: CONNER's six perspectives on the records of one or
more JSONL files (one file per system), with the models given.

:func:`conner_score` reads every file first (a bad line stops the run before any model
is opened), opens the models, takes each record's evidence (its own, else the KG's
with ``store``), draws each record's helpfulness baseline, scores the records of each
file in batches of ``records_per_batch`` (:func:`scoring.conner.batch.score_batch`:
each model called once per batch) and returns a :class:`ConnerReport` with one summary
row per file (:mod:`scoring.conner.summary`).

With ``out_dir``, each input ``NAME.jsonl`` gets ``out_dir/NAME.scores.jsonl`` (one
line per record, in input order) and the run ``out_dir/summary.json``
(:meth:`ConnerReport.to_json`), each written whole or not at all, and beside each scores
file ``NAME.run.json``, the fingerprint of what made it (the input's SHA-256, the models'
cards, the options, the store's location). An interrupted run resumes: rerun with the
same inputs, models and options, and a file whose scores are complete with that
fingerprint is read back instead of scored again (a store changed in between is not
noticed: remove the folder to score again). A line::

    {"id": "nq-17", "sentences": 2, "evidence": {"source": "record"|"kg"|"none", "count": 3},
     "factuality": {"consistent": .., "non_verified": .., "inconsistent": ..},
     "sentence_factuality": [[entail, neutral, contra], ...],
     "relevance": .., "relevance_logit": .., "coherence_sentence": ..,
     "coherence_paragraph": .., "informativeness": .., "helpfulness": ..,
     "helpfulness_baseline": ["id of a random other record", ...],
     "validity": .., "validity_kind": "span"|"open"|null}

A value is null when its model was not given (and the summary's notes say so), or when
the record lacks what it needs (an answer; a gold answer or evidence).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import orjson

from extension.outputs.output_file import atomic_output, check_output_dir, write_atomic
from kgstore import open_store
from kgstore.location import checked_location
from scoring.card import CARD_FILE, Task
from scoring.conner.batch import (
    ConnerModels,
    EvidenceSource,
    Prepared,
    input_counts,
    score_batch,
)
from scoring.conner.evidence import KgEvidence
from scoring.conner.metrics import AGGREGATES, Aggregate
from scoring.conner.prompts import KGBENCH_RELEASED_PROMPTS, ConnerPrompts
from scoring.conner.records import ConnerRecord, read_records, split_sentences
from scoring.conner.released import ReleasedTask, released_sentences
from scoring.conner.released_batch import (
    ReleasedSetup,
    released_input_counts,
    score_batch_released,
)
from scoring.conner.summary import ConnerReport, summary_row
from scoring.errors import ScoringError
from scoring.protocol import ProtocolName
from scoring.score.models import check_task
from scoring.score.workdir import file_sha256

__all__ = ["SCORES_SUFFIX", "SUMMARY_FILE", "ConnerProgress", "coherent_index", "conner_score",
           "helpfulness_baselines", "prepare"]

Device = Literal["auto", "cpu", "cuda"]
SCORES_SUFFIX = ".scores.jsonl"
SUMMARY_FILE = "summary.json"
RUN_SUFFIX = ".run.json"
RUN_FORMAT = "kgbench-conner-run/1"
DEFAULT_RECORDS_PER_BATCH = 256


@dataclass(frozen=True)
class ConnerProgress:
    """Where a run is: the file being scored and, per model, inputs done out of its
    total for that file."""

    file: Path
    model: str
    done: int
    total: int


def coherent_index(labels: Sequence[str], wanted: str | None) -> int:
    """Which label of a coherence classifier is "coherent" (Eq. 4): ``wanted`` (a label
    name, case ignored, or an index), else the label named ``coherent``, else label 1
    of a two-label model (``LABEL_1``, the positive class of a binary classifier).
    A :class:`ScoringError` otherwise."""
    names = [label.lower() for label in labels]
    shown = ", ".join(f"{i}={label}" for i, label in enumerate(labels))
    if wanted is not None:
        if wanted.lower() in names:
            return names.index(wanted.lower())
        if wanted.isdigit() and int(wanted) < len(labels):
            return int(wanted)
        raise ScoringError(f"--coherent-label {wanted!r}: the coherence model's labels are "
                           f"{shown}", "pass one of their names or indices")
    if "coherent" in names:
        return names.index("coherent")
    if len(labels) == 2:
        return 1
    raise ScoringError(f"the coherence model has no label named 'coherent' (its labels: "
                       f"{shown})", "say which one is with --coherent-label NAME")


def helpfulness_baselines(records: Sequence[ConnerRecord], u: int, seed: int, *,
                          answered: Callable[[ConnerRecord], str | None] | None = None
                          ) -> list[tuple[int, ...]]:
    """For each record, the indices of ``u`` other records of the same file whose
    knowledge is the baseline of Eq. 6 (``k_1^-, …, k_u^-``): drawn without
    replacement from the records whose knowledge differs from its own (so never the
    record itself), in id order, by a generator seeded with ``(seed, record id)``: a
    record's baseline depends on the file's records, not on their order. Fewer than ``u`` when the file has
    fewer such records; none for a record without the answer whose probability is
    compared (``answered``: the record's ``answer`` by default; the released protocol
    scores the ``gold_answer``)."""
    answer_of = answered or (lambda r: r.answer)
    out: list[tuple[int, ...]] = []
    for j, record in enumerate(records):
        answer = answer_of(record)
        if answer is None or not answer.strip():
            out.append(())
            continue
        own = record.knowledge.strip()
        candidates = sorted((i for i, r in enumerate(records)
                             if i != j and r.knowledge.strip() != own), key=lambda i: records[i].id)
        rng = random.Random(f"{seed}\x1f{record.id}")
        out.append(tuple(rng.sample(candidates, min(u, len(candidates)))))
    return out


def prepare(records: Sequence[ConnerRecord], *, kg: KgEvidence | None, u: int,
            seed: int, protocol: ProtocolName = "kgbench") -> list[Prepared]:
    """Each record with its sentences (kgbench's splitter, or NLTK's Punkt under the
    released protocol), evidence (its own; else the KG's when ``kg``) and helpfulness
    baseline (:func:`helpfulness_baselines`)."""
    released = protocol == "released"
    baselines = helpfulness_baselines(records, u, seed,
                                      answered=(lambda r: r.gold_answer) if released else None)
    splitter = released_sentences if released else split_sentences
    prepared = []
    for record, baseline in zip(records, baselines, strict=True):
        evidence, source = record.evidence, cast(EvidenceSource, "record")
        if not evidence and kg is not None:
            evidence, source = kg.for_query(record.query), cast(EvidenceSource, "kg")
        prepared.append(Prepared(
            record=record, sentences=tuple(splitter(record.knowledge.strip()
                                                    if released else record.knowledge)),
            evidence=evidence, evidence_source=source if evidence else "none",
            baseline=tuple(records[i].knowledge for i in baseline),
            baseline_ids=tuple(records[i].id for i in baseline)))
    return prepared


def conner_score(files: Sequence[Path], *, nli_dir: Path | None = None,
                 rerank_dir: Path | None = None, lm_dir: Path | None = None,
                 coherence_dir: Path | None = None, coherent_label: str | None = None,
                 store: str | None = None, aggregate: Aggregate | None = None,
                 helpfulness_u: int = 3, seed: int = 0, out_dir: Path | None = None,
                 device: Device = "auto", threads: int | None = None,
                 batch_tokens: int = 16384,
                 records_per_batch: int = DEFAULT_RECORDS_PER_BATCH,
                 protocol: ProtocolName = "kgbench", task: ReleasedTask = "nq",
                 prompts: ConnerPrompts | None = None,
                 progress: Callable[[ConnerProgress], None] | None = None) -> ConnerReport:
    """Score ``files`` (see the module docstring). At least one model directory is
    needed; a perspective whose model is missing is null and named in the notes.
    ``protocol``: kgbench's definitions (:mod:`scoring.conner.metrics`; ``aggregate``
    default ``min``) or the released scripts' (:mod:`scoring.conner.released`, as the
    scripts of ``task`` run them, with ``prompts``, default kgbench's layouts; sentence
    labels aggregated by ``max``, the only aggregate it takes). Every problem with the
    inputs is a :class:`ScoringError` raised before anything is written."""
    released = protocol == "released"
    if released and aggregate not in (None, "max"):
        raise ScoringError(f"--aggregate {aggregate} with --protocol released: the released "
                           "scripts aggregate sentence labels by max",
                           "leave --aggregate out (or give max) with --protocol released")
    if not released and prompts is not None:
        raise ScoringError("--prompts sets the prompts of the released scripts",
                           "add --protocol released, or leave --prompts out")
    aggregate = aggregate or ("max" if released else "min")
    setup = ReleasedSetup(task, prompts or KGBENCH_RELEASED_PROMPTS) if released else None
    if not files:
        raise ScoringError("no input files", "pass one or more JSONL files of CONNER records")
    if all(d is None for d in (nli_dir, rerank_dir, lm_dir, coherence_dir)):
        raise ScoringError("nothing to score with: no model given",
                           "give at least one of --nli, --rerank, --lm, --coherence "
                           "(exported with `kgbench model export`)")
    if aggregate not in AGGREGATES:
        raise ScoringError(f"unknown aggregate {aggregate!r}",
                           f"use one of {', '.join(AGGREGATES)}")
    if helpfulness_u < 1:
        raise ScoringError(f"--u {helpfulness_u}: the helpfulness baseline needs at least "
                           "one random knowledge", "use --u 1 or more (the default is 3)")
    if records_per_batch < 1:
        raise ScoringError(f"records_per_batch must be positive, not {records_per_batch}")
    stems = [Path(f).stem for f in files]
    for i, stem in enumerate(stems):
        if stem in stems[:i]:
            raise ScoringError(f"{files[i]}: two input files are named {stem!r}; their "
                               "scores and summary rows would be confused",
                               "rename one of them (each file is one system)")
    if out_dir is not None:
        check_output_dir(out_dir, option="--out")
    inputs = [read_records(Path(f)) for f in files]
    started = time.perf_counter()
    with ExitStack() as stack:
        kg = None
        if store is not None:   # before the models: a missing store is told at once
            opened = stack.enter_context(open_store(checked_location(store), read_only=True))
            kg = KgEvidence(opened)
        models, info = _open_models(nli_dir=nli_dir, rerank_dir=rerank_dir, lm_dir=lm_dir,
                                    coherence_dir=coherence_dir, coherent_label=coherent_label,
                                    device=device, threads=threads, batch_tokens=batch_tokens)
        rows = []
        notes = _model_notes(models)
        options = {"format": RUN_FORMAT, "protocol": protocol, "aggregate": aggregate,
                   "helpfulness_u": helpfulness_u,
                   "seed": seed, "store": store, "models": _model_fingerprints(info, dirs=(
                       ("nli", nli_dir), ("rerank", rerank_dir), ("lm", lm_dir),
                       ("coherence", coherence_dir)))}
        if setup is not None:
            options.update(task=task, prompts=setup.prompts.digest())
            if models.lm is not None:
                notes.append(_prompts_note(setup.prompts))
        for path, records in zip(files, inputs, strict=True):
            path = Path(path)
            items = prepare(records, kg=kg, u=helpfulness_u, seed=seed, protocol=protocol)
            if setup is None:
                notes += _record_notes(path, items, models)
            scores_file = None if out_dir is None else out_dir / f"{path.stem}{SCORES_SUFFIX}"
            fingerprint = {**options, "input_sha256": file_sha256(path)}
            docs = _finished(scores_file, fingerprint)
            if docs is not None:
                notes.append(f"{path.name}: scores read back from {scores_file} (the same "
                             "input, models and options scored it before)")
            else:
                docs = _score_file(path, items, models, aggregate, records_per_batch, progress,
                                   setup)
                if scores_file is not None:
                    _write_scores(scores_file, docs, fingerprint)
            if setup is not None:
                notes += _released_notes(path, docs, models)
            rows.append(summary_row(path, docs, scores_file, rounded=setup is None))
    for name, model in zip(("nli", "rerank", "lm", "coherence"),
                           (models.nli, models.rerank, models.lm, models.coherence),
                           strict=True):
        if model is not None:
            cut = getattr(model, "truncated_hypotheses", getattr(model, "truncated_texts", 0))
            info[name]["truncated"] = cut
            if cut:
                notes.append(f"{name}: {cut:,} input(s) did not fit the model's max length "
                             f"and were cut at their end ({_KEPT[name]})")
    report = ConnerReport(rows=rows, aggregate=aggregate, helpfulness_u=helpfulness_u,
                          seed=seed, models=info, notes=notes, out_dir=out_dir,
                          seconds=time.perf_counter() - started, protocol=protocol,
                          task=task if released else None)
    if out_dir is not None:
        write_atomic(out_dir / SUMMARY_FILE,
                     orjson.dumps(report.to_json(), option=orjson.OPT_INDENT_2).decode() + "\n",
                     option="--out")
    return report


_KEPT = {"nli": "a knowledge sentence or an answer, the side NLI keeps whole",
         "rerank": "a query, the side the cross-encoder keeps whole",
         "lm": "a sentence, a knowledge text or an answer",
         "coherence": "a knowledge text"}


def _model_fingerprints(info: dict[str, Any],
                        dirs: Sequence[tuple[str, Path | None]]) -> dict[str, Any]:
    return {name: {"card_sha256": file_sha256(directory / CARD_FILE),
                   "precision": info[name]["runtime"]["precision"],
                   "coherent_label": info[name].get("coherent_label")}
            for name, directory in dirs if directory is not None}


def _run_file(scores_file: Path) -> Path:
    return scores_file.with_name(scores_file.name.removesuffix(SCORES_SUFFIX) + RUN_SUFFIX)


def _finished(scores_file: Path | None, fingerprint: dict[str, Any]
              ) -> list[dict[str, Any]] | None:
    """The score documents of an earlier run with ``fingerprint``, when its scores file
    is complete (its ``.run.json`` is written after it); None otherwise."""
    if scores_file is None or not scores_file.is_file() or not _run_file(scores_file).is_file():
        return None
    try:
        if orjson.loads(_run_file(scores_file).read_bytes()) != fingerprint:
            return None
        return [orjson.loads(line) for line in scores_file.read_bytes().splitlines()
                if line.strip()]
    except (OSError, orjson.JSONDecodeError):
        return None


def _write_scores(scores_file: Path, docs: Sequence[dict[str, Any]],
                  fingerprint: dict[str, Any]) -> None:
    # The old fingerprint goes first: new scores beside it would pass for the old run's.
    _run_file(scores_file).unlink(missing_ok=True)
    with atomic_output(scores_file, option="--out") as stream:
        for doc in docs:
            stream.write(orjson.dumps(doc).decode("utf-8") + "\n")
    write_atomic(_run_file(scores_file),
                 orjson.dumps(fingerprint, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n",
                 option="--out")


def _score_file(path: Path, items: Sequence[Prepared], models: ConnerModels,
                aggregate: Aggregate, per_batch: int,
                progress: Callable[[ConnerProgress], None] | None,
                setup: ReleasedSetup | None = None) -> list[dict[str, Any]]:
    totals = (input_counts(items, models) if setup is None
              else released_input_counts(items, models, setup.task))
    done = dict.fromkeys(totals, 0)

    def step(model: str, n: int) -> None:
        done[model] = done.get(model, 0) + n
        if progress is not None:
            progress(ConnerProgress(path, model, done[model], totals.get(model, 0)))

    for model, total in totals.items():
        if progress is not None:
            progress(ConnerProgress(path, model, 0, total))
    docs: list[dict[str, Any]] = []
    for start in range(0, len(items), per_batch):
        batch = items[start:start + per_batch]
        docs += (score_batch(batch, models, aggregate=aggregate, progress=step) if setup is None
                 else score_batch_released(batch, models, setup, progress=step))
    return docs


_OPTIONS: dict[str, tuple[Task, str]] = {
    "nli": ("nli", "--nli"), "rerank": ("rerank", "--rerank"),
    "lm": ("causal-lm", "--lm"), "coherence": ("classify", "--coherence")}


def _open_models(*, nli_dir: Path | None, rerank_dir: Path | None, lm_dir: Path | None,
                 coherence_dir: Path | None, coherent_label: str | None, device: Device,
                 threads: int | None, batch_tokens: int
                 ) -> tuple[ConnerModels, dict[str, Any]]:
    dirs = {"nli": nli_dir, "rerank": rerank_dir, "lm": lm_dir, "coherence": coherence_dir}
    for name, directory in dirs.items():
        if directory is not None:   # every card checked before any model is loaded
            check_task(directory, *_OPTIONS[name])
    from scoring.runtime import CausalLM, CrossEncoder, NliScorer, SequenceClassifier

    kwargs: dict[str, Any] = {"device": device, "threads": threads,
                              "batch_tokens": batch_tokens}
    nli = NliScorer.open(nli_dir, **kwargs) if nli_dir else None
    rerank = CrossEncoder.open(rerank_dir, **kwargs) if rerank_dir else None
    lm = CausalLM.open(lm_dir, **kwargs) if lm_dir else None
    coherence = SequenceClassifier.open(coherence_dir, **kwargs) if coherence_dir else None
    index = coherent_index(coherence.labels, coherent_label) if coherence else 0
    if coherence is None and coherent_label is not None:
        raise ScoringError("--coherent-label needs --coherence DIR (a classifier)")
    info: dict[str, Any] = {}
    for name, model in (("nli", nli), ("rerank", rerank), ("lm", lm), ("coherence", coherence)):
        if model is not None:
            info[name] = {"dir": str(dirs[name]), "runtime": model.runtime.to_json()}
    if coherence is not None:
        info["coherence"]["coherent_label"] = coherence.labels[index]
    return ConnerModels(nli=nli, rerank=rerank, lm=lm, coherence=coherence,
                        coherent_index=index), info


def _model_notes(models: ConnerModels) -> list[str]:
    missing = [(models.nli, "factuality and validity", "--nli"),
               (models.rerank, "relevance", "--rerank"),
               (models.lm, "sentence coherence, informativeness and helpfulness", "--lm"),
               (models.coherence, "paragraph coherence", "--coherence")]
    return [f"{what}: null (no {option} model given)"
            for model, what, option in missing if model is None]


def _record_notes(path: Path, items: Sequence[Prepared], models: ConnerModels) -> list[str]:
    notes = []
    no_evidence = sum(1 for p in items if not p.evidence)
    if models.nli is not None and no_evidence:
        notes.append(f"{path.name}: {no_evidence:,} record(s) without evidence: their "
                     "sentences count as non-verified (give \"evidence\" or --store)")
    no_answer = sum(1 for p in items if p.record.answer is None or not p.record.answer.strip())
    if (models.nli is not None or models.lm is not None) and no_answer:
        notes.append(f"{path.name}: {no_answer:,} record(s) without an answer: no "
                     "helpfulness or validity")
    lonely = sum(1 for p in items if p.record.answer and p.record.answer.strip()
                 and not p.baseline)
    if models.lm is not None and lonely:
        notes.append(f"{path.name}: {lonely:,} record(s) with no other knowledge in the "
                     "file to compare with: no helpfulness")
    return notes


def _prompts_note(prompts: ConnerPrompts) -> str:
    if prompts.source == "kgbench":
        return ("informativeness and helpfulness: computed as the released scripts do, but "
                "asked with kgbench's own layouts (give the paper's with --prompts FILE)")
    return (f"informativeness and helpfulness: prompts from {prompts.source} "
            f"({len(prompts.demonstrations)} demonstration(s))")


def _released_notes(path: Path, docs: Sequence[dict[str, Any]],
                    models: ConnerModels) -> list[str]:
    notes = []
    if models.nli is not None:
        left_out = sum(1 for d in docs if d["factuality"] is None)
        if left_out:
            notes.append(f"{path.name}: {left_out:,} record(s) without sentences or evidence "
                         "left out of the factuality shares (the released script stops there)")
    if models.lm is not None:
        unhelped = sum(1 for d in docs if d["helpfulness_baseline"] is None)
        if unhelped:
            notes.append(f"{path.name}: {unhelped:,} record(s) without a gold answer (or "
                         "other knowledge to compare with): no helpfulness (the released "
                         "script scores the gold answer)")
    return notes
