"""Sentence embeddings from a model exported with ``kgbench model export --task embed``:
one L2-normalised vector per text (the graph mean-pools and normalises, see
:mod:`scoring.export.graph`), so the cosine of two texts is the dot product of their
vectors.

Texts longer than the card's ``max_length`` are cut at their end (as
sentence-transformers truncates to its ``max_seq_length``); :attr:`Embedder.truncated`
counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from scoring.card import Task
from scoring.runtime.scorers import TaskModel
from scoring.runtime.session import OnnxTextModel
from scoring.runtime.tokenize import Encodings

__all__ = ["Embedder", "cosine_rows"]


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two ``[n, dim]`` arrays of normalised embeddings (their dot
    product, in float64)."""
    return np.einsum("ij,ij->i", np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


class Embedder(TaskModel):
    """An exported embed model: texts → ``float32 [n, dimension]`` unit vectors."""

    task: Task = "embed"

    def __init__(self, model: OnnxTextModel) -> None:
        super().__init__(model)
        self.truncated = 0
        """Texts cut to the card's max_length, over this embedder's life."""

    @property
    def dimension(self) -> int:
        embedding = self.model.card.embedding
        if embedding is None:   # the card's validator makes every embed card have one
            raise ValueError(f"{self.model.directory}: an embed card without its embedding")
        return embedding.dimension

    def embed(self, texts: Sequence[str], *,
              progress: Callable[[int], None] | None = None) -> np.ndarray:
        """One unit vector per text, rows in input order."""
        def encode(start: int, stop: int) -> Encodings:
            encodings = self.model.tokenizer.encode_texts(texts[start:stop])
            self.truncated += encodings.cut
            return encodings

        rows = self.model.map_chunks(
            len(texts), encode,
            lambda _chunk, out, _rows: list(np.asarray(out, dtype=np.float32)),
            progress=progress)
        return np.stack(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)
