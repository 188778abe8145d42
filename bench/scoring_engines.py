"""What every engine of bench/scoring_bench.py shares, whatever it computes (NLI pairs or
sentence embeddings): the figures recorded for one timed run, and PyTorch eager set up
on the runtime's own tokenizer (so both engines read the same token ids)."""

from __future__ import annotations

import os
import resource
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def latencies(stamps: Sequence[float]) -> dict[str, float]:
    """p50 and p90 of the gaps between batch stamps, in ms."""
    gaps = sorted(b - a for a, b in zip(stamps, stamps[1:], strict=False))
    if not gaps:
        return {"p50_batch_ms": 0.0, "p90_batch_ms": 0.0}
    return {"p50_batch_ms": round(1000 * statistics.median(gaps), 2),
            "p90_batch_ms": round(1000 * gaps[min(len(gaps) - 1, int(0.9 * len(gaps)))], 2)}


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: reset by exec, unlike ru_maxrss, which a child
    inherits from the parent it was forked from)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def run_figures(unit: str, count: int, stamps: Sequence[float], load: float,
                **fields: Any) -> dict[str, Any]:
    """The figures of one timed run over ``count`` inputs (``unit``: pairs or texts):
    ``fields`` (engine, provider, precision, ...) then the count, seconds, rate,
    batches, latencies, peak RSS and the load at the start and now."""
    seconds = stamps[-1] - stamps[0]
    return {**fields, unit: count, "seconds": round(seconds, 3),
            f"{unit}_per_s": round(count / seconds, 1), "batches": len(stamps) - 1,
            **latencies(stamps), "peak_rss_mb": peak_rss_mb(),
            "loadavg_1m": [load, os.getloadavg()[0]]}


@dataclass
class Eager:
    """A checkpoint in PyTorch eager beside its export's card and tokenizer."""

    model: Any
    target: Any
    tokenizer: Any
    card: Any
    threads: int
    on_gpu: bool
    load: float

    def fields(self) -> dict[str, Any]:
        import torch

        return {"engine": "torch-eager",
                "provider": f"torch {'CUDA' if self.on_gpu else 'CPU'}",
                "precision": "fp16" if self.on_gpu else "fp32",
                "threads": None if self.on_gpu else self.threads, "torch": torch.__version__}

    def finish(self, figures: dict[str, Any]) -> dict[str, Any]:
        import torch

        if self.on_gpu:
            figures["gpu_peak_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
        return figures


def eager(auto: Any, hf_dir: Path, model_dir: Path, *, device: str,
          threads: int | None) -> Eager:
    """``auto.from_pretrained(hf_dir)`` in eval mode (fp16 on CUDA), with the export's
    card and the runtime's tokenizer of ``model_dir``."""
    import torch

    from scoring.card import read_card
    from scoring.runtime.session import physical_cores
    from scoring.runtime.tokenize import TextTokenizer

    load = os.getloadavg()[0]
    card = read_card(model_dir)
    threads = threads or physical_cores()
    torch.set_num_threads(threads)
    on_gpu = device == "cuda"
    if on_gpu and not torch.cuda.is_available():
        raise SystemExit("scoring_bench: --device cuda but torch sees no GPU")
    model = auto.from_pretrained(hf_dir).eval()
    if on_gpu:
        model = model.half().cuda()
    return Eager(model, torch.device("cuda" if on_gpu else "cpu"),
                 TextTokenizer.from_file(model_dir / "tokenizer.json", card.max_length), card,
                 threads, on_gpu, load)
