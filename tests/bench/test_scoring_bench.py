"""Smoke test of bench/scoring_bench.py on the tiny shape: the three engines (onnxruntime
fp32 and int8, PyTorch eager) run on the same pairs, agree, and every figure carries the
provider and precision that ran."""

from __future__ import annotations

import json

import pytest

from tests.bench import load_bench

pytest.importorskip("torch", reason="the benchmark compares with PyTorch (export extra)")
pytestmark = pytest.mark.torch


@pytest.mark.slow
def test_benchmark_smoke(tmp_path):
    bench = load_bench("scoring_bench")
    out = tmp_path / "out"
    record = bench.main(["--shapes", "tiny", "--seq", "32", "--pairs", "24",
                         "--batch-tokens", "128", "--in-process", "--work", str(tmp_path / "w"),
                         "--out", str(out)])
    (result,) = record["results"]
    ort, eager = result["engines"]["onnxruntime"], result["engines"]["torch"]
    assert ort["provider"] == ort["runtime"]["provider"] == "CPUExecutionProvider"
    assert ort["runtime"]["requested"] == "cpu" and eager["provider"] == "torch CPU"
    for e in (ort, eager):
        assert e["pairs"] == 24 and e["pairs_per_s"] > 0 and e["batches"] == 6
        assert e["p50_batch_ms"] > 0 and e["peak_rss_mb"] > 0
    assert result["max_abs_prob_diff"] < 1e-4          # the same model, the same inputs
    assert result["ratio_onnx_over_torch"] > 0
    # The int8 arm: the int8 export on the CPU provider, against the same eager run.
    int8 = result["engines"]["onnxruntime-int8"]
    assert (int8["provider"], int8["precision"], int8["pairs"]) == ("CPUExecutionProvider",
                                                                    "int8", 24)
    assert (ort["precision"], eager["precision"]) == ("fp32", "fp32")
    assert 0 < int8["vs_torch"]["max_abs_prob_diff"] < 0.05     # quantized, yet close
    assert int8["vs_torch"]["label_agreement"] >= 0.9
    assert result["ratio_int8_over_torch"] > 0 and result["ratio_int8_over_onnx_fp32"] > 0
    assert record["goals"] == {}                         # goals are for the base shape
    goals = bench.goals([{"shape": "base", "ratio_onnx_over_torch": 1.24,
                          "ratio_int8_over_torch": 2.33}], "cpu")
    assert {name: g["pass"] for name, g in goals.items()} == {"cpu_ratio_ge_2": False,
                                                              "cpu_int8_ratio_ge_2": True}
    saved = json.loads((out / "scoring_bench.jsonl").read_text().splitlines()[-1])
    assert saved["results"] == record["results"] and saved["machine"]["onnxruntime"]
    assert (out / "scoring_bench.png").stat().st_size > 0
    # every pair is exactly --seq tokens: the premise is cut to fit
    premises, hypotheses = bench.make_pairs(20, 0, 32)
    from scoring.runtime import NliScorer

    scorer = NliScorer.open(tmp_path / "w" / "onnx-tiny-32", device="cpu")
    assert {len(e) for e in scorer.model.tokenizer.encode_pairs(premises, hypotheses).items} == {32}


@pytest.mark.slow
def test_benchmark_smoke_on_the_real_minilm(tmp_path):
    from importlib import metadata

    from scoring.export.packaged import MINILM

    try:
        metadata.distribution(MINILM.distribution)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{MINILM.distribution} is not installed (make test installs it)")
    bench = load_bench("scoring_bench")
    out = tmp_path / "out"
    record = bench.main(["--shapes", "minilm", "--seq", "32", "--pairs", "8",
                         "--batch-tokens", "128", "--engines", "onnxruntime", "torch",
                         "--in-process", "--work", str(tmp_path / "w"), "--out", str(out)])
    (result,) = record["results"]
    assert (result["task"], result["shape"]) == ("embed", "minilm")
    ort, eager = result["engines"]["onnxruntime"], result["engines"]["torch"]
    assert ort["texts"] == eager["texts"] == 8 and ort["texts_per_s"] > 0
    assert ort["provider"] == "CPUExecutionProvider" and eager["provider"] == "torch CPU"
    # the real weights in onnxruntime and in PyTorch: the same vectors
    assert ort["vs_torch"]["max_abs_diff"] < 1e-5 and ort["vs_torch"]["min_cosine"] > 0.99999
    assert result["ratio_onnx_over_torch"] > 0
    assert (out / "scoring_bench_embed.png").stat().st_size > 0
    assert not (out / "scoring_bench.png").exists()      # the NLI plot is left alone
