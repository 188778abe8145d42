"""The demo benchmark as the ``kgbench evaluate`` tests share it (tests/scoring and the
CLI's in tests/kgbench): its samples, built once per test process, a benchmark directory
holding them, CAQA's label names and a JSONL writer for predictions and answers.

Import the fixtures by name where a module uses them (``samples``, ``bench``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from tests.extension.test_export import demo_benchmark, write_benchmark

demo_samples = cache(demo_benchmark)
"""The demo benchmark's samples, built once per test process (the evaluate tests share
them: they never modify them)."""

CAQA_NAMES = {"supportive": "Support", "partially_supportive": "Missing",
              "contradictory": "Contradictory", "irrelevant": "Irrelevant"}
"""Our labels' names in CAQA's scheme."""


@pytest.fixture(scope="module")
def samples() -> tuple[BenchmarkSample, ...]:
    return demo_samples()


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory, samples: tuple[BenchmarkSample, ...]) -> Path:
    """A benchmark directory holding :func:`samples`; do not modify."""
    directory = tmp_path_factory.mktemp("bench")
    write_benchmark(directory, samples)
    return directory


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
