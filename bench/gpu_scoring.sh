#!/usr/bin/env bash
# The scoring runtime on a GPU, once (issue 21): run on a machine with an NVIDIA GPU, from a
# copy of this repository with its .venv (the export extra installed: torch's CUDA 13 build
# brings the nvidia-* CUDA and cuDNN libraries that onnxruntime-gpu preloads). It installs
# nothing and reaches no network. It prints the GPU, the provider that really ran with
# every figure, and the goals (>= 8,000 pairs/s on the DeBERTa-v3-base shape at 128 tokens,
# >= 2x PyTorch fp16 eager on the same GPU); the record is appended to
# bench/results/scoring_bench.jsonl (and copied to $OUT when set); then CONNER's records/s
# (bench/conner_bench.py, appended to bench/results/conner_bench.jsonl).
#   bench/gpu_scoring.sh                        # base shape, 20,000 pairs (~3-5 min)
#   PAIRS=50000 SHAPES="base xsmall" bench/gpu_scoring.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# 1. CUDA really runs (not onnxruntime's silent CPU fallback), IO binding, same logits as numpy
$PY -m pytest -q -p no:xdist -p no:cacheprovider -rs tests/scoring/test_runtime_session.py -k cuda
# 2. NLI pairs/s: onnxruntime fp16 + IO binding vs PyTorch fp16 eager, same pairs, same GPU
# shellcheck disable=SC2086  # SHAPES is a list
$PY -m bench.scoring_bench --device cuda --shapes ${SHAPES:-base} --pairs "${PAIRS:-20000}" \
    --batch-tokens "${BATCH_TOKENS:-32768}" --work "${WORK:-/tmp/kgbench-gpu-scoring}"
# 3. CONNER records/s (issue 22), BERT-small-shaped models, batched vs one record per call (~1 min)
$PY -m bench.conner_bench --device cuda --shape small --records "${CONNER_RECORDS:-256}" \
    --repeats 2 --work "${WORK:-/tmp/kgbench-gpu-scoring}/conner"
if [ -n "${OUT:-}" ]; then
    cp bench/results/scoring_bench.jsonl bench/results/scoring_bench_gpu.png "$OUT"/
    cp bench/results/conner_bench.jsonl "$OUT"/
fi
