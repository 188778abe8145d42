"""Benchmark: scored answers/s of ``kalma score`` (KaLMA §4.2-4.4 with the NLI metrics) on
the CPU, against a baseline in the same run.

What runs:

1. a tiny (hidden 32, 2 layers; ``--shape tiny``) or small (hidden 256, 4 layers;
   ``--shape small``) BERT NLI checkpoint with random weights (speed does not depend on
   them), built by :func:`scoring.export.tiny.build_tiny_model` and exported with
   :func:`scoring.export.export_model`, as ``bench/scoring_bench.py`` does;
2. ``--entries`` synthetic entries, half of them §4.4 variants with two absent triples,
   and one answer each (4 sentences of 1-3 citations, one ``[NA]`` sentence, repeated
   sentences across answers as real systems write them), written as files;
3. **kgbench**: :func:`kalma.score.score_answers` end to end (reading, parsing, the
   deduplicated pairs in token-budget batches, the metrics);
   **baseline**: the same metrics with one NLI call per (premise, hypothesis) pair as
   the metrics ask them, no deduplication, no batching — what a loop over
   sentence-citation pairs calling the model does.

Each engine runs ``--repeats`` times; the medians are reported with the ratio. One JSON
record is appended to ``bench/results/kalma_score_bench.jsonl`` (machine, load average,
commit).

Run::

    python -m bench.kalma_score_bench --entries 200 --shape small
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness import REPO, git_commit, git_dirty, machine_info

RESULTS = REPO / "bench" / "results"
SHAPES: dict[str, dict[str, int]] = {
    "tiny": {},
    "small": {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
              "intermediate_size": 1024},
}
RELATIONS = ["place of birth", "occupation", "spouse", "award received", "employer",
             "educated at", "member of", "notable work", "movement", "place of death"]
WORDS = ["river", "city", "painter", "school", "prize", "museum", "novel", "army", "garden",
         "harbour", "theatre", "college"]


def build_model(shape: str, work: Path) -> Path:
    from scoring.export import export_model
    from scoring.export.tiny import build_tiny_model

    hf = work / f"hf-{shape}"
    build_tiny_model("bert", "nli", hf)
    if SHAPES[shape]:
        import torch
        from transformers import BertConfig, BertForSequenceClassification

        tiny = json.loads((hf / "config.json").read_text())
        config = BertConfig(**{**tiny, **SHAPES[shape]})
        torch.manual_seed(0)
        BertForSequenceClassification(config).eval().save_pretrained(hf)
    target = work / f"onnx-{shape}"
    export_model(hf, "nli", target, max_length=128)
    return target


def synthetic(n: int, seed: int, work: Path) -> tuple[Path, Path]:
    """``n`` entries (every second one with two absent triples) and one answer each."""
    from kalma.entry import EntityRef, KalmaEntry, Knowledge

    rng = random.Random(seed)
    entries, answers = [], []
    for i in range(n):
        people = [(f"Q{i}{j}", f"Person {i}-{j}") for j in range(2)]
        pool = [Knowledge(pid, name, relation, f"{rng.choice(WORDS).title()} {rng.randrange(50)}")
                for pid, name in people for relation in RELATIONS]
        minimum = rng.sample(pool, 4)
        entry = KalmaEntry(id=f"e{i:05d}", question_general="Who were they?",
                           question_specific="What links them?", paragraph="",
                           entities=tuple(EntityRef(*p) for p in people),
                           minimum_knowledge_set=tuple(minimum), knowledge_pool=tuple(pool),
                           seed=seed)
        if i % 2:
            entry = entry.with_absent(minimum[:2])
        entries.append(entry)
        sentences = []
        for s in range(4):
            cited = rng.sample(pool, rng.randint(1, 3))
            # Sentences reused across answers (a system's stock phrases): real answers
            # repeat pairs, which deduplication saves.
            text = (f"{cited[0].subject_name} is known for the {rng.choice(WORDS)} "
                    f"and the {rng.choice(WORDS)}" if rng.random() < 0.7
                    else "They were famous in their time")
            marks = " ".join(f"[{k.subject_id}, {k.relation}: {k.object}]" for k in cited)
            sentences.append(f"{text} {marks}{' [NA]' if s == 3 else ''}.")
        answers.append({"id": entry.id, "output": " ".join(sentences)})
    entries_path, answers_path = work / "entries.jsonl", work / "answers.jsonl"
    entries_path.write_text("".join(e.to_line() for e in entries), encoding="utf-8")
    answers_path.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    return entries_path, answers_path


def run_kgbench(entries: Path, answers: Path, model: Path, threads: int | None
                ) -> tuple[float, dict[str, Any], int]:
    from kalma.score import score_answers

    start = time.perf_counter()
    report = score_answers(entries, answers, nli_dir=model, device="cpu", threads=threads)
    return time.perf_counter() - start, report.to_json(), report.nli_pairs


def run_baseline(entries: Path, answers: Path, model: Path, threads: int | None
                 ) -> tuple[float, dict[str, Any], int]:
    """The same metrics, one model call per pair as the metrics ask them."""
    from kalma.citations import read_answers
    from kalma.entry import read_entries
    from kalma.metrics import (
        alignment,
        alignment_decisions,
        entailed,
        na_decisions,
        na_scores,
    )
    from scoring.runtime import NliScorer

    start = time.perf_counter()
    scorer = NliScorer.open(model, device="cpu", threads=threads)
    read = list(read_entries(entries))
    parsed = read_answers(answers)
    calls = 0

    class OneAtATime(dict[tuple[str, str], bool]):
        def __missing__(self, pair: tuple[str, str]) -> bool:
            nonlocal calls
            calls += 1
            return entailed(scorer.score([pair[0]], [pair[1]])[0])   # not stored: no dedup

    table = OneAtATime()
    pair_entails, na_hits, absent_hits = [], [], []
    for entry in read:
        answer = parsed.get(entry.id)
        if answer is not None:
            pair_entails.extend(alignment_decisions(answer, entry, table))
        p, r = na_decisions(answer, entry, table)
        na_hits.extend(p)
        absent_hits.extend(r)
    na_p, na_r = na_scores(na_hits, absent_hits)
    return (time.perf_counter() - start,
            {"alignment": alignment(pair_entails), "na_precision": na_p, "na_recall": na_r},
            calls)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--entries", type=int, default=200)
    p.add_argument("--shape", choices=list(SHAPES), default="small")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, help="CPU threads (default: physical cores)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kalma-score-bench-"))
    started = time.time()
    load_start = os.getloadavg()
    try:
        model = build_model(args.shape, work)
        entries, answers = synthetic(args.entries, args.seed, work)
        runs: dict[str, list[float]] = {"kgbench": [], "baseline": []}
        calls: dict[str, int] = {}
        docs: dict[str, dict[str, Any]] = {}
        for _ in range(args.repeats):
            for name, engine in (("kgbench", run_kgbench), ("baseline", run_baseline)):
                seconds, doc, n_calls = engine(entries, answers, model, args.threads)
                runs[name].append(seconds)
                calls[name], docs[name] = n_calls, doc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for key in ("alignment", "na_precision", "na_recall"):   # same decisions, same scores
        assert docs["kgbench"][key] == docs["baseline"][key], key
    medians = {name: statistics.median(v) for name, v in runs.items()}
    results = {name: {"median_s": round(medians[name], 4),
                      "answers_per_s": round(args.entries / medians[name], 1),
                      "nli_pairs": calls[name], "runs_s": [round(s, 4) for s in v]}
               for name, v in runs.items()}
    ratio = round(medians["baseline"] / medians["kgbench"], 2)
    record = {"benchmark": "kalma_score_bench",
              "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
              "commit": git_commit(), "dirty": git_dirty(), "machine": machine_info("cpu"),
              "load_average": {"start": load_start, "end": os.getloadavg()},
              "params": vars(args) | {"out": str(args.out)},
              "results": results, "ratio_kgbench_over_baseline": ratio,
              "scores": docs["kgbench"]}
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "kalma_score_bench.jsonl", "a") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    for name, r in results.items():
        print(f"{name}: {r['answers_per_s']} answers/s (median {r['median_s']} s over "
              f"{args.repeats}, {r['nli_pairs']:,} NLI pairs)")
    print(f"kgbench / baseline = {ratio}x answers/s ({args.shape} model, {args.entries} "
          f"answers, load {load_start[0]:.2f})")
    return record


if __name__ == "__main__":
    main()
