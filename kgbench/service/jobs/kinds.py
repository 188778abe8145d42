"""One runner per job kind: the job's parameters (and its inputs, already resolved
under ``--data``) turned into a call of the same use-case function the command line
calls, with progress going to the job's :class:`ProgressWriter`. A runner returns a
short summary (counts, the files written) that the job keeps as its result."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from kgbench.service.jobs.progress import ProgressWriter
from kgbench.service.jobs.specs import (
    EvaluateParams,
    GenerateParams,
    KalmaGenerateParams,
    ParseParams,
    ScoreParams,
)
from kgstore.confined import make_dirs

__all__ = ["RUNNERS", "RunContext"]


@dataclass(frozen=True, slots=True)
class RunContext:
    """Where a job runs: the store location, its output directory, its own directory
    (for caches) and where its progress goes."""

    store: str
    out_dir: Path
    job_dir: Path
    inputs: dict[str, Path]
    progress: ProgressWriter


def run_generate_job(params: GenerateParams, ctx: RunContext) -> dict[str, Any]:
    from extension.core.extend import ExtensionConfig
    from extension.core.samples import SampleConfig
    from extension.run.generate import GenerateConfig, TextOptions
    from extension.run.generate_job import GenerateRequest, run_generate

    config = GenerateConfig(
        seed=params.seed, test_fraction=params.test_fraction,
        sample=SampleConfig(extension=ExtensionConfig(max_answers=params.max_answers),
                            classes=params.classes, caqa_strict=params.caqa_strict),
        text=TextOptions(llm_url=params.llm_url, llm_model=params.llm_model,
                         cache_dir=ctx.job_dir / "llm-cache",
                         phrases_file=ctx.inputs.get("phrases"),
                         llm_timeout_s=params.llm_timeout, llm_retries=params.llm_retries,
                         llm_requests_per_second=params.llm_rps,
                         llm_fallback_on_error=params.llm_fallback),
        workers=params.workers, chunk_size=params.chunk_size)
    request = GenerateRequest(store=ctx.store, out_dir=ctx.out_dir, config=config,
                              questions=ctx.inputs.get("questions"), fmt=params.format,
                              domain=params.domain, n=params.n, limit=params.limit,
                              strict=params.strict, report=params.report)

    def advance(done: int, total: int, samples: int) -> None:
        ctx.progress.update(done, total, f"generating ({samples:,} samples)")

    inputs, result = run_generate(request, progress=advance)
    stats = result.stats
    return {"samples": stats.get("samples"), "questions": stats.get("questions"),
            "resumed_chunks": max(result.resumed_chunks, 0),
            "already_complete": result.resumed_chunks == -1,
            "skipped_records": len(inputs.issues), "notes": inputs.notes}


def run_score_job(params: ScoreParams, ctx: RunContext) -> dict[str, Any]:
    from scoring.score.benchmark import ScoreProgress, score_benchmark

    def advance(state: ScoreProgress) -> None:
        ctx.progress.update(state.nli_pairs + state.lm_sentences,
                            (state.nli_total + state.lm_total) or None,
                            f"scoring ({state.samples:,} of {state.samples_total:,} samples)")

    result = score_benchmark(
        ctx.inputs["bench"], nli_dir=ctx.inputs.get("nli"), lm_dir=ctx.inputs.get("lm"),
        split=params.split, flag_below=params.flag_below, device=params.device,
        threads=params.threads, batch_tokens=params.batch_tokens,
        chunk_size=params.chunk_size, force=params.force, progress=advance)
    return {"samples": result.run.get("benchmark", {}).get("samples"),
            "resumed_chunks": max(result.resumed_chunks, 0),
            "already_complete": result.resumed_chunks == -1, "flagged": result.flagged}


def run_parse_job(params: ParseParams, ctx: RunContext) -> dict[str, Any]:
    from extension.inputs.question_parsing import parse_questions_file
    from kgstore import open_store

    cvt_types: frozenset[str] = frozenset()
    if params.store_types:
        with open_store(ctx.store, read_only=True) as store:
            cvt_types = store.cvt_types()
    make_dirs(ctx.out_dir)
    done = 0

    def advance() -> None:
        nonlocal done
        done += 1
        ctx.progress.update(done, None, "parsing questions")

    run = parse_questions_file(ctx.inputs["file"], params.format, ctx.out_dir / "parsed.jsonl",
                               cvt_types=cvt_types, strict=params.strict, on_question=advance)
    return {"questions": run.questions, "shapes": run.coverage.get("shapes"),
            "skipped_records": len(run.issues)}


def run_kalma_generate_job(params: KalmaGenerateParams, ctx: RunContext) -> dict[str, Any]:
    from kalma.generate import generate_entries
    from kalma.generate_job import kalma_build_config
    from kalma.prompts import load_generation_prompts

    endpoint = None
    if params.llm_url is not None:
        from llm.endpoint import endpoint_from_options

        endpoint = endpoint_from_options(params.llm_url, params.llm_model,
                                         requests_per_second=params.llm_rps,
                                         timeout_s=params.llm_timeout,
                                         max_retries=params.llm_retries)
    config = kalma_build_config(ctx.store, params.domain, n=params.n, seed=params.seed,
                                iterations=params.iterations, alpha=params.alpha,
                                single=params.single)

    def advance(done: int, total: int) -> None:
        ctx.progress.update(done, total, f"building entries ({done:,} of {total:,})")

    result = generate_entries(ctx.store, config, ctx.out_dir,
                              incompetence=sorted(set(params.incompetence)),
                              lm_dir=ctx.inputs.get("lm"), llm=endpoint,
                              llm_cache=ctx.job_dir / "llm-cache",
                              prompts=load_generation_prompts(ctx.inputs["prompts"])
                              if "prompts" in ctx.inputs else None,
                              chunk_size=params.chunk_size, progress=advance)
    return {"entries": result.entries, "requested": result.requested,
            "resumed_chunks": max(result.resumed_chunks, 0),
            "already_complete": result.resumed_chunks == -1}


def run_evaluate_job(params: EvaluateParams, ctx: RunContext) -> dict[str, Any]:
    from extension.core.labels import SplitChoice
    from extension.outputs.export import parse_label_map
    from extension.outputs.output_file import write_atomic
    from scoring.evaluate.choose import make_evaluator
    from scoring.evaluate.run import evaluate_benchmark
    from scoring.evaluate.schemes import label_scheme

    scheme = label_scheme(params.scheme, parse_label_map(params.label_map),
                          protocol=params.protocol)
    nli_map = parse_label_map(params.nli_map, option="nli_map",
                              example="neutral=partially_supportive")
    evaluator = make_evaluator(scheme, predictions=ctx.inputs.get("predictions"),
                               model=ctx.inputs.get("model"), llm_url=params.llm_url,
                               llm_model=params.llm_model, prompt=params.prompt,
                               prompts_file=ctx.inputs.get("prompts"), nli_map=nli_map,
                               device=params.device, llm_timeout=params.llm_timeout,
                               llm_retries=params.llm_retries, llm_rps=params.llm_rps,
                               llm_cache=ctx.job_dir / "llm-cache",
                               llm_parallel=params.llm_parallel, protocol=params.protocol)
    make_dirs(ctx.out_dir)
    compare = [path for name, path in sorted(ctx.inputs.items()) if name.startswith("compare.")]

    def advance(done: int, total: int) -> None:
        ctx.progress.update(done, total, f"evaluating {evaluator.name}")

    report = evaluate_benchmark(
        ctx.inputs["bench"], evaluator, scheme, split=cast(SplitChoice, params.split),
        blind_labels=ctx.inputs.get("blind_labels"), blind_column=params.blind_column,
        compare=compare, sub_facts=ctx.inputs.get("sub_facts"),
        save_predictions=ctx.out_dir / "predictions.jsonl" if params.save_predictions else None,
        protocol=params.protocol, progress=advance)
    doc = report.to_json()
    write_atomic(ctx.out_dir / "evaluation.json",
                 json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return {"protocol": doc.get("protocol"), "n": doc.get("n"),
            "overall_micro_f1": doc.get("overall_micro_f1"),
            "macro_f1": doc.get("macro_f1"), "notes": list(report.notes)}


Runner = Callable[[Any, RunContext], dict[str, Any]]
RUNNERS: dict[str, Runner] = {
    "parse": run_parse_job, "generate": run_generate_job, "score": run_score_job,
    "evaluate": run_evaluate_job, "kalma-generate": run_kalma_generate_job}

