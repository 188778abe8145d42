"""Benchmark: CONNER records scored per second (all four models: NLI, cross-encoder,
causal LM, classifier), batched against one record at a time, same records, same run.

What runs:

1. BERT NLI, rerank and classify models and a GPT-2 causal LM of ``--shape``
   (``small``: BERT-small's sizes, hidden 256, 4 layers; ``tiny``: the test models',
   :func:`scoring.export.tiny.build_tiny_model`), random weights, the tiny models'
   tokenizers, exported once and cached under ``--work``; or, with ``--models DIR``, the exports in ``DIR/nli``,
   ``DIR/rerank``, ``DIR/lm``, ``DIR/coherence`` (real models);
2. ``--records`` synthetic records (3 knowledge sentences, 2 evidence texts, an answer,
   a gold answer on every other record: every perspective is scored), prepared once
   (sentences, helpfulness baselines with u = 3);
3. the scoring itself, :func:`scoring.conner.batch.score_batch`, the models opened
   once, timed ``--repeats`` times in each mode: ``batched`` (``--batch`` records per
   call, as ``kgbench conner score`` runs) and ``one-at-a-time`` (one record per call:
   every model called once per record, the baseline). Model loading is not timed.

Recorded: records/s per repeat and their median for each mode, the ratio of the
medians, the runtime that ran (provider, precision, threads), the machine and its load
average before and after; one JSON record appended to ``bench/results/conner_bench.jsonl``.

Run::

    python -m bench.conner_bench --records 256 --repeats 3 --threads 1      # CPU, small
    python -m bench.conner_bench --device cuda --records 2000 --batch 512   # GPU, small
    python -m bench.conner_bench --models DIR                               # real models
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
from pathlib import Path
from typing import Any

from bench.harness import REPO, git_commit, git_dirty, machine_info

RESULTS = REPO / "bench" / "results"
MODELS = {"nli": ("bert", "nli"), "rerank": ("bert", "rerank"), "lm": ("gpt2", "causal-lm"),
          "coherence": ("bert", "classify")}
WORDS = ("river city novel author film war king music science island painter bridge "
         "mountain century empire language festival museum library garden").split()


SHAPES: dict[str, dict[str, dict[str, int]]] = {
    "tiny": {},   # build_tiny_model's own shape: hidden 32, 2 layers
    "small": {"bert": {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
                       "intermediate_size": 1024},
              "gpt2": {"n_embd": 256, "n_layer": 4, "n_head": 4}},
}
"""``small`` is BERT-small's shape (google/bert_uncased_L-4_H-256_A-4) and a GPT-2 of
the same size, random weights (speed does not depend on them), the tiny tokenizers."""


def build_models(shape: str, work: Path) -> dict[str, Path]:
    """The four models of ``shape`` exported under ``work`` (built the first time)."""
    from scoring.export import export_model
    from scoring.export.tiny import build_tiny_model

    dirs = {}
    for name, (kind, task) in MODELS.items():
        target = work / f"{shape}-onnx-{name}"
        if not target.is_dir():
            hf = work / f"{shape}-hf-{name}"
            shutil.rmtree(hf, ignore_errors=True)
            build_tiny_model(kind, task, hf)  # type: ignore[arg-type]
            if SHAPES[shape]:
                resize(hf, task, SHAPES[shape][kind])
            export_model(hf, task, target)  # type: ignore[arg-type]
        dirs[name] = target
    return dirs


def resize(hf: Path, task: str, sizes: dict[str, int]) -> None:
    """Rewrite the checkpoint in ``hf`` with ``sizes`` in its config, weights drawn anew."""
    import transformers

    config = transformers.AutoConfig.from_pretrained(hf)
    for key, value in sizes.items():
        setattr(config, key, value)
    auto = (transformers.AutoModelForCausalLM if task == "causal-lm"
            else transformers.AutoModelForSequenceClassification)
    auto.from_config(config).save_pretrained(hf)


def make_records(n: int, seed: int) -> list[Any]:
    from scoring.conner.records import ConnerRecord

    rng = random.Random(seed)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."

    return [ConnerRecord(
        id=f"r{i}", query=f"what is the {rng.choice(WORDS)} of {rng.choice(WORDS)}",
        knowledge=" ".join(sentence() for _ in range(3)), answer=" ".join(rng.sample(WORDS, 3)),
        gold_answer=" ".join(rng.sample(WORDS, 2)) if i % 2 == 0 else None,
        evidence=(sentence(), sentence())) for i in range(n)]


def bench(args: argparse.Namespace, dirs: dict[str, Path]) -> dict[str, Any]:
    from scoring.conner.batch import ConnerModels, score_batch
    from scoring.conner.run import coherent_index, prepare
    from scoring.runtime import CausalLM, CrossEncoder, NliScorer, SequenceClassifier

    kw: dict[str, Any] = {"device": args.device, "threads": args.threads,
                          "batch_tokens": args.batch_tokens}
    coherence = SequenceClassifier.open(dirs["coherence"], **kw)
    models = ConnerModels(nli=NliScorer.open(dirs["nli"], **kw),
                          rerank=CrossEncoder.open(dirs["rerank"], **kw),
                          lm=CausalLM.open(dirs["lm"], **kw), coherence=coherence,
                          coherent_index=coherent_index(coherence.labels, args.coherent_label))
    items = prepare(make_records(args.records, args.seed), kg=None, u=3, seed=args.seed)
    score_batch(items[:2], models)   # warm-up, not timed
    modes: dict[str, Any] = {}
    for mode, per_call in (("one-at-a-time", 1), ("batched", args.batch)):
        rates = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            for start in range(0, len(items), per_call):
                score_batch(items[start:start + per_call], models)
            rates.append(len(items) / (time.perf_counter() - started))
        modes[mode] = {"records_per_call": per_call, "records_per_s": [round(r, 2) for r in rates],
                       "median_records_per_s": round(statistics.median(rates), 2)}
    assert models.nli is not None
    return {"modes": modes,
            "ratio_batched_over_one_at_a_time": round(
                modes["batched"]["median_records_per_s"]
                / modes["one-at-a-time"]["median_records_per_s"], 2),
            "runtime": models.nli.runtime.to_json()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=256)
    p.add_argument("--batch", type=int, default=256, help="records per call when batched")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batch-tokens", type=int, default=16384,
                   help="token budget of one model batch (the CLI's default is 16384; on a "
                        "CPU smaller budgets keep a batch in cache)")
    p.add_argument("--device", choices=["cpu", "cuda", "auto"], default="cpu")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shape", choices=sorted(SHAPES), default="small")
    p.add_argument("--models", type=Path, help="DIR with nli/, rerank/, lm/, coherence/ "
                                                "exports (default: the tiny models)")
    p.add_argument("--coherent-label", default="supportive",
                   help="the coherence classifier's coherent label (the tiny classifier "
                        "has CAQA's four labels)")
    p.add_argument("--work", type=Path, help="cache of the tiny models (default: a temporary "
                                             "directory)")
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    own_work = args.work is None and args.models is None
    work = Path(tempfile.mkdtemp(prefix="conner-bench-")) if own_work else args.work
    load_start = os.getloadavg()
    started = time.time()
    try:
        if args.models is not None:
            dirs = {name: args.models / name for name in MODELS}
        else:
            work.mkdir(parents=True, exist_ok=True)
            dirs = build_models(args.shape, work)
        result = bench(args, dirs)
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
    record = {"benchmark": "conner_bench",
              "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
              "commit": git_commit(), "dirty": git_dirty(), "machine": machine_info(args.device),
              "load_average": {"start": load_start, "end": os.getloadavg()},
              "params": {"records": args.records, "batch": args.batch, "repeats": args.repeats,
                         "device": args.device, "threads": args.threads, "seed": args.seed,
                         "batch_tokens": args.batch_tokens,
                         "models": str(args.models) if args.models else args.shape},
              "result": result}
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "conner_bench.jsonl", "a") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    for mode, figures in result["modes"].items():
        print(f"{mode}: {figures['median_records_per_s']} records/s (median of "
              f"{args.repeats}: {figures['records_per_s']})")
    print(f"batched / one at a time = {result['ratio_batched_over_one_at_a_time']}x on "
          f"{result['runtime']['provider']} ({result['runtime']['precision']}); record appended "
          f"to {args.out / 'conner_bench.jsonl'}")
    return record


if __name__ == "__main__":
    main()
