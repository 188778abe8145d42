"""What every benchmark records beside its figures: the machine and its load, the code
measured, and peak memory. One home for them, so records compare across benchmarks.

Benchmarks run as modules from the repository root (``python -m bench.store_bench``);
a benchmark that measures in a child process starts it with :func:`module_command`.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "REPO", "CpuWatch", "append_record", "disk_usage", "git_commit",
           "git_dirty", "machine_info", "module_command", "peak_rss_kb"]

REPO = Path(__file__).resolve().parents[1]
"""The repository root (where ``python -m bench.NAME`` runs)."""

PACKAGES = ("ladybug", "duckdb", "pyarrow", "numpy", "networkx", "rdflib", "pyoxigraph",
            "neo4j", "neo4j-rust-ext", "onnxruntime-gpu", "onnxruntime", "torch", "transformers")
"""Distributions whose versions a record carries (read from their metadata, so none is
imported: torch alone takes seconds and hundreds of MB)."""


def machine_info(device: str = "cpu") -> dict[str, Any]:
    """Cores, CPU model, memory, platform, Python, the versions of :data:`PACKAGES` that
    are installed (``onnxruntime`` for either build), and the GPU when ``device`` is
    ``"cuda"``."""
    import psutil

    info: dict[str, Any] = {
        "cores": os.cpu_count(), "physical_cores": psutil.cpu_count(logical=False),
        "cpu": _cpu_model(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(), "python": platform.python_version(),
    }
    for name in PACKAGES:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        info.setdefault(name.removesuffix("-gpu"), version)
    if device == "cuda" and shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             check=False)
        info["gpu"] = smi.stdout.strip()
    return info


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str | None:
    """The commit measured (``None`` outside a git checkout)."""
    out = _git("rev-parse", "HEAD")
    return out.strip() if out is not None else None


def git_dirty() -> bool | None:
    """Whether the working tree has uncommitted changes: then ``commit`` is not exactly
    the code that was measured."""
    out = _git("status", "--porcelain", "--untracked-files=no")
    return bool(out.strip()) if out is not None else None


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def peak_rss_kb() -> int:
    """This process's peak RSS in KiB. VmHWM belongs to the current address space, so it
    starts afresh at exec; ``ru_maxrss`` does not (Linux carries the forking parent's
    peak over exec, which would charge the benchmark's own memory to a child)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class CpuWatch:
    """CPU time split over an interval: on a shared VM, ``steal`` is time the hypervisor
    gave to other guests, so a high fraction means the timings are inflated."""

    def __init__(self) -> None:
        import psutil

        self._psutil = psutil
        self.t0 = psutil.cpu_times()
        self.load0 = os.getloadavg()[0]

    def result(self) -> dict[str, float]:
        t1 = self._psutil.cpu_times()
        total = sum(t1) - sum(self.t0)

        def part(name: str) -> float:
            spent = getattr(t1, name, 0.0) - getattr(self.t0, name, 0.0)
            return spent / total if total > 0 else 0.0

        return {"steal_fraction": round(part("steal"), 3), "idle_fraction": round(part("idle"), 3),
                "loadavg_1m_start": round(self.load0, 2),
                "loadavg_1m_end": round(os.getloadavg()[0], 2)}


def disk_usage(path: Path) -> tuple[int, int]:
    """(bytes allocated on disk, apparent bytes) of the file or folder ``path``; files
    that vanish while it is walked count nothing."""
    if path.is_file():
        st = path.stat()
        return st.st_blocks * 512, st.st_size
    blocks = apparent = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                st = os.lstat(os.path.join(root, f))
            except OSError:
                continue
            blocks += st.st_blocks * 512
            apparent += st.st_size
    return blocks, apparent


def module_command(module: str, *args: str) -> list[str]:
    """The command that runs benchmark ``module`` (``bench.store_bench``) in a child
    process; run it with ``cwd=REPO``."""
    return [sys.executable, "-m", module, *args]


def append_record(path: Path, record: dict[str, Any], *, sort_keys: bool = False) -> None:
    """Append ``record`` to the JSON Lines file ``path`` (its folder is made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=sort_keys) + "\n")
