"""Benchmark: ``kgbench generate`` end to end, samples per second (template backend).

On the store benchmark's synthetic Freebase-like KG (``bench/store_bench.py``; built
once and reusable with ``--store-dir``, shared with ``bench/extend_bench.py``), draws
questions of the three CAQA shapes from the store (``extend_bench.make_questions``),
gives them template question text (:func:`extension.verbalize.seed_questions.template_question`) and
writes them as a JSONL question file. Then, in the same run:

* **baseline** — the structured samples alone (:func:`extension.core.samples.
  structured_samples`: extend, ground, edit; no text, no files), one process;
* **generate** — :func:`extension.run.generate.generate` from the question file, end to
  end: parse, extend, ground, edit, verbalize, write chunks, concatenate, validate
  against the JSON Schema, stats (the report is timed separately), with ``--workers``
  1 and 2. The two outputs are checked to be byte-identical.

Reported: samples/s and questions/s per worker count, the ratio to the baseline (what
text, files and validation cost), seconds per stage, the report's seconds, the
load average (the machine is shared), and the label × complexity counts with each
label's and complexity's share beside CAQA Table 5's (printed, and kept as
``caqa_table5``; :mod:`extension.outputs.caqa_table5`). Target (issue 6): >= 500 samples/s on the
2-core machine. Appends to ``bench/results/generate_bench.jsonl`` and writes
``generate_bench.png``.

    python -m bench.generate_bench --store-dir /tmp/kgbench-extend-5m --questions 1000
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.extend_bench import build_store, label_complexity_counts, make_questions
from bench.harness import REPO, CpuWatch, append_record, git_commit, machine_info
from bench.synth_kg import parse_sized, size_arguments
from extension.core.grounding import Grounder
from extension.core.labels import COMPLEXITIES, LABELS
from extension.core.samples import structured_samples
from extension.inputs.questions import ParsedQuestion
from extension.outputs.caqa_table5 import compare_with_caqa, counts_of_stats
from extension.run.generate import GenerateConfig, generate, source_of_file
from extension.run.heap import PacedCollection
from extension.verbalize.extended_question import Unphrasable
from extension.verbalize.seed_questions import template_question
from extension.verbalize.verbalizer import TemplateVerbalizer
from kgstore import Store, open_store
from kgstore.predicate_stats import ensure as ensure_kept
from loaders.kgqa import read_questions

TARGET_SAMPLES_PER_S = 500
OUTPUTS = ("samples.jsonl", "failures.jsonl", "stats.json")


def write_question_file(store: Store, questions: list[ParsedQuestion], path: Path) -> int:
    """The questions as generic JSONL (``triples`` logical forms, template text), the
    input ``kgbench generate --format jsonl`` reads; a question whose template cannot
    be written (a nameless subject: :class:`Unphrasable`) is left out, as the seed
    sampler leaves it out. Returns how many were written."""
    phrases = TemplateVerbalizer.from_store(store).phrases
    subjects = sorted({s for q in questions for s in q.topic_entities})
    names = {i: e.name for i, e in store.entities(subjects).items() if e.name}
    written = 0
    with path.open("w", encoding="utf-8") as sink:
        for q in questions:
            assert q.query is not None
            edges = q.query.edges
            try:
                text = template_question(q.shape, edges, names, phrases, answer=q.query.answer)
            except Unphrasable:
                continue
            written += 1
            sink.write(json.dumps({
                "id": q.id, "question": text, "topic_entities": list(q.topic_entities),
                "triples": [[e.source, e.predicate, e.target] for e in edges],
            }) + "\n")
    return written


def baseline(store: Store, questions: list[ParsedQuestion], seed: int) -> dict[str, Any]:
    """Structured samples only: the extension engine's share of the work."""
    grounder = Grounder(store)
    samples = 0
    started = time.perf_counter()
    with PacedCollection() as collection:   # as generate runs
        for q in questions:
            made, _ = structured_samples(store, grounder, q, seed=seed)
            samples += len(made)
            collection.tick()
    seconds = time.perf_counter() - started
    return {"questions": len(questions), "samples": samples, "seconds": round(seconds, 3),
            "samples_per_s": samples / seconds if seconds else 0.0}


def fixed_cost(store: str, first: list[Any], work: Path, seed: int) -> dict[str, Any]:
    """A run's cost before its first sample (issue 35: <= 2 s): opening the store and
    setting up the pipeline in this process (the grounder, the verbalizer's phrase
    tables), then one question, against ``generate`` of that one question end to end
    (one process; files written, validated, stats)."""
    from extension.run.generate import QuestionGenerator

    config = GenerateConfig(seed=seed, workers=1)
    started = time.perf_counter()
    with open_store(store, read_only=True) as s:
        opened = time.perf_counter()
        generator = QuestionGenerator(s, config)
        ready = time.perf_counter()
        generator.run_chunk(0, first)
        done = time.perf_counter()
    out = work / "bench-fixed"
    begun = time.perf_counter()
    generate(store, first, out, config, source={"bench": "fixed cost"}, force=True,
             report=False)
    return {"open_seconds": round(opened - started, 3),
            "setup_seconds": round(ready - opened, 3),
            "first_question_seconds": round(done - ready, 3),
            "store_open_to_first_sample_seconds": round(done - started, 3),
            "generate_one_question_seconds": round(time.perf_counter() - begun, 3)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.work or tempfile.mkdtemp(prefix="kgbench-generate-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        kg, build_s = build_store(args.store_dir or work / "kg", work, args)
        store_location = str((args.store_dir or work / "kg") / "store")
        # What generate does first, once per store (and seed): timed on its own, and
        # before the baseline, so that both read the kept statistics and type samples.
        started = time.perf_counter()
        prepared = ensure_kept(store_location, seed=args.seed)
        preparation = {"outcome": prepared, "seconds": round(time.perf_counter() - started, 3)}
        question_file = work / "questions.jsonl"
        with open_store(store_location, read_only=True) as store:
            drawn = make_questions(store, args.questions, args.seed)
            write_question_file(store, drawn, question_file)
            # the baseline sees the same parsed questions generate will parse
            from extension.inputs.questions import parse_question
            parsed = [parse_question(q, cvt_types=store.cvt_types())
                      for q in read_questions(question_file, "jsonl", strict=True)]
        # The baseline opens the store afresh, as generate does: a read-only store keeps
        # what it reads, and drawing the questions has just read their neighbourhoods.
        with open_store(store_location, read_only=True) as store:
            cpu = CpuWatch()
            base = baseline(store, parsed, args.seed)
        runs: dict[str, Any] = {}
        items = list(read_questions(question_file, "jsonl", strict=True))
        outputs: dict[int, dict[str, bytes]] = {}
        for workers in args.workers:
            out = work / f"bench-w{workers}"
            config = GenerateConfig(seed=args.seed, workers=workers)
            started = time.perf_counter()
            result = generate(store_location, items, out, config,
                              source=source_of_file(question_file, "jsonl"), force=True,
                              report=False)
            seconds = time.perf_counter() - started
            outputs[workers] = {n: (out / n).read_bytes() for n in OUTPUTS}
            samples = result.stats["samples"]
            runs[str(workers)] = {
                "seconds": round(seconds, 3), "samples": samples,
                "samples_per_s": samples / seconds if seconds else 0.0,
                "questions_per_s": len(items) / seconds if seconds else 0.0,
                "stage_seconds": result.timings["stage_seconds"],
            }
        cpu_use = cpu.result()
        fixed = fixed_cost(store_location, items[:1], work, args.seed)
        first = outputs[args.workers[0]]
        identical = all(o == first for o in outputs.values())
        # the report, timed on its own (it is written once per benchmark)
        from extension.outputs.report import write_report
        out = work / f"bench-w{args.workers[0]}"
        stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
        started = time.perf_counter()
        write_report(out, out / "samples.jsonl", stats)
        report_s = time.perf_counter() - started
        counts = counts_of_stats(stats)
        best = max(r["samples_per_s"] for r in runs.values())
        record = {
            "benchmark": "generate_bench", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "commit": git_commit(), "machine": machine_info(), "cpu": cpu_use,
            "params": {"entities": args.entities, "facts": args.facts,
                       "questions": args.questions, "seed": args.seed,
                       "workers": args.workers},
            "kg": kg, "store_reused": build_s is None, "store_preparation": preparation,
            "fixed_cost": fixed,
            "questions": len(items), "baseline_structured_only": base,
            "generate": runs,
            "ratio_generate_vs_baseline": {w: r["samples_per_s"] / base["samples_per_s"]
                                           for w, r in runs.items()} if base["samples_per_s"] else {},
            "outputs_identical_across_workers": identical,
            "report_seconds": round(report_s, 3),
            "label_complexity": {label: {c: counts.get((label, c), 0) for c in COMPLEXITIES}
                                 for label in LABELS},
            "caqa_table5": compare_with_caqa(counts).to_json(),
            "best_samples_per_s": best,
            "target_samples_per_s": TARGET_SAMPLES_PER_S,
            "meets_target": best >= TARGET_SAMPLES_PER_S,
        }
        if not identical:
            raise AssertionError("generate output differs between worker counts")
        return record
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    names = ["baseline\n(structured only)"] + [f"generate\n{w} worker(s)"
                                               for w in record["generate"]]
    rates = [record["baseline_structured_only"]["samples_per_s"]] + [
        r["samples_per_s"] for r in record["generate"].values()]
    a.bar(names, rates, color=["grey"] + ["tab:blue"] * len(record["generate"]))
    a.axhline(record["target_samples_per_s"], color="red", linestyle="--", label="target")
    a.set_ylabel("samples/s")
    a.set_title("end to end, template backend")
    a.legend()
    stages = next(iter(record["generate"].values()))["stage_seconds"]
    b.barh(list(stages), list(stages.values()))
    b.set_xlabel("seconds (summed over workers)")
    b.set_title("stage breakdown")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size_arguments(ap, questions=1_000)
    ap.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")],
                    default=[1, 2], help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: temp)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--store-dir", type=Path, default=None,
                    help="build the KG store here and keep it; reused by later runs (and by "
                         "extend_bench) with the same --entities/--facts/--seed")
    return parse_sized(ap, argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    record = run(args)
    append_record(args.out / "generate_bench.jsonl", record, sort_keys=True)
    plot(record, args.out / "generate_bench.png")
    print(json.dumps({k: record[k] for k in (
        "questions", "baseline_structured_only", "generate", "ratio_generate_vs_baseline",
        "outputs_identical_across_workers", "report_seconds", "best_samples_per_s",
        "meets_target", "store_preparation", "fixed_cost", "cpu")}, indent=2))
    print("\n".join(compare_with_caqa(label_complexity_counts(record)).lines()))
    return record


if __name__ == "__main__":
    main()
