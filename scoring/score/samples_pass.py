"""The two streamed passes of a ``kgbench score`` run over ``samples.jsonl``: the first
selects the split's samples, counts their model inputs (for the progress display) and
hashes the file; the second validates the samples of the chunks still to score. So a
benchmark of 160k samples is never held in memory. Also the text of a few samples by
id (for flagged.jsonl and the report)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from extension.core.labels import LABELS
from extension.outputs.export import SamplesFileError
from extension.outputs.sample_schema import BenchmarkSample
from scoring.errors import ScoringError

__all__ = ["Selection", "bad_line", "pending_chunks", "sample_texts", "select_samples"]

@dataclass(slots=True)
class Selection:
    """The first pass over the samples: the line numbers of the split's samples and
    the model inputs each has (NLI pairs, LM sentences)."""

    sha256: str
    lines: list[int] = field(default_factory=list)
    nli_pairs: list[int] = field(default_factory=list)
    lm_sentences: list[int] = field(default_factory=list)


def select_samples(path: Path, split: str) -> Selection:
    """The first pass (see the module docstring); a line that is not a JSON object
    with a label and a split is a :class:`ScoringError` naming it."""
    digest = hashlib.sha256()   # of the file's bytes: the lines are all of them
    selection = Selection(sha256="")
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            digest.update(line)
            if not line.strip():
                continue
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise bad_line(path, number, f"not JSON: {exc}") from None
            if not isinstance(doc, dict) or doc.get("label") not in LABELS:
                raise bad_line(path, number, "not a benchmark sample (no valid label)")
            if split != "all" and doc.get("split") != split:
                continue
            selection.lines.append(number)
            sub_facts = len(doc.get("sub_facts") or ()) \
                if doc["label"] == "partially_supportive" else 0
            selection.nli_pairs.append(1 + sub_facts)
            selection.lm_sentences.append(len(doc.get("citations") or ()))
    selection.sha256 = digest.hexdigest()
    return selection


def bad_line(path: Path, number: int, reason: str) -> ScoringError:
    error = SamplesFileError(path, number, reason)
    return ScoringError(str(error), error.hint)


def pending_chunks(path: Path, lines: Sequence[int], chunk_size: int,
               pending: set[int]) -> Iterator[tuple[int, list[BenchmarkSample]]]:
    """The pending chunks' samples, validated, in order (the second pass)."""
    wanted = {number: i // chunk_size for i, number in enumerate(lines)
              if i // chunk_size in pending}
    current: list[BenchmarkSample] = []
    index = -1
    with path.open("rb") as stream:
        for number, line in enumerate(stream, 1):
            chunk = wanted.get(number)
            if chunk is None:
                continue
            if chunk != index and current:
                yield index, current
                current = []
            index = chunk
            try:
                current.append(BenchmarkSample.model_validate_json(line))
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"])
                raise bad_line(path, number, f"{where}: {first['msg']}") from None
    if current:
        yield index, current


def sample_texts(samples_file: Path, ids: set[str]) -> dict[str, dict[str, Any]]:
    """The text of the samples ``ids``: q̃, ã, the citations (joined and one by one)
    and the sub-fact sentences."""
    texts: dict[str, dict[str, Any]] = {}
    if not ids:
        return texts
    with samples_file.open("rb") as lines:
        for line in lines:
            if not line.strip():
                continue
            doc = orjson.loads(line)
            if doc.get("id") in ids:
                texts[doc["id"]] = {
                    "question_extended": doc.get("question_extended", ""),
                    "answer": doc.get("answer", ""), "citation": doc.get("citation", ""),
                    "citations": [c.get("text", "") for c in doc.get("citations") or ()],
                    "sub_facts": [f.get("text", "") for f in doc.get("sub_facts") or ()]}
    return texts
