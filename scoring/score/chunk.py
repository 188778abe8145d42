"""One chunk of a ``kgbench score`` run: its samples scored by the models in one call
each, as ``scores.jsonl`` records, and its counts and timings (``ChunkStats``, summed
over the chunks for ``score_run.json``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from extension.outputs.sample_schema import BenchmarkSample
from scoring.card import NliProbabilities
from scoring.inputs import hypothesis, premise, sub_fact_pairs
from scoring.score.models import LanguageModel, NliModel
from scoring.score.records import score_record

__all__ = ["ChunkStats", "record_line", "score_chunk"]

@dataclass(slots=True)
class ChunkStats:
    samples: int = 0
    nli_pairs: int = 0
    lm_sentences: int = 0
    truncated_hypotheses: int = 0
    nli_seconds: float = 0.0
    lm_seconds: float = 0.0

    def add(self, other: ChunkStats) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def minus(self, other: ChunkStats) -> ChunkStats:
        return ChunkStats(**{name: getattr(self, name) - getattr(other, name)
                              for name in self.__slots__})

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> ChunkStats:
        return cls(**{name: doc[name] for name in cls.__slots__})


def score_chunk(samples: Sequence[BenchmarkSample], nli: NliModel | None,
                 lm: LanguageModel | None, *, nli_done: Callable[[int], None],
                 lm_done: Callable[[int], None]) -> tuple[list[dict[str, Any]], ChunkStats]:
    """The records of one chunk: one NLI call over every pair of the chunk (the
    samples' own, then the partial samples' sub-facts), one LM call over every
    citation."""
    stats = ChunkStats(samples=len(samples))
    nli_scores: Sequence[NliProbabilities] = ()
    sub_scores: dict[str, Sequence[NliProbabilities]] = {}
    if nli is not None:
        pairs = [(premise(s), hypothesis(s)) for s in samples]
        partial = [s for s in samples if s.label == "partially_supportive"]
        for sample in partial:
            pairs += sub_fact_pairs(sample)
        truncated = nli.truncated_hypotheses
        started = time.perf_counter()
        scores = nli.score([p for p, _ in pairs], [h for _, h in pairs], progress=nli_done)
        stats.nli_seconds = time.perf_counter() - started
        stats.nli_pairs = len(pairs)
        stats.truncated_hypotheses = nli.truncated_hypotheses - truncated
        nli_scores = scores[:len(samples)]
        offset = len(samples)
        for sample in partial:
            sub_scores[sample.id] = scores[offset:offset + len(sample.sub_facts)]
            offset += len(sample.sub_facts)
    perplexities: list[float] = []
    if lm is not None:
        texts = [c.text for s in samples for c in s.citations]
        started = time.perf_counter()
        perplexities = lm.perplexity(texts, progress=lm_done)
        stats.lm_seconds = time.perf_counter() - started
        stats.lm_sentences = len(texts)
    records = []
    offset = 0
    for i, sample in enumerate(samples):
        mine = None
        if lm is not None:
            mine = perplexities[offset:offset + len(sample.citations)]
            offset += len(sample.citations)
        records.append(score_record(sample, nli=nli_scores[i] if nli is not None else None,
                                    sub_facts=sub_scores.get(sample.id, ()),
                                    perplexities=mine))
    return records, stats


def record_line(record: Mapping[str, Any]) -> bytes:
    # orjson: compact, keys in the record's order, an infinite perplexity as null.
    return orjson.dumps(record) + b"\n"
