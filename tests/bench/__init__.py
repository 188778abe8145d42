"""Smoke tests of the benchmarks in ``bench/`` (tiny sizes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str) -> ModuleType:
    """``bench/<name>.py`` imported as a module (bench scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(f"kgbench_{name}", BENCH_DIR / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
