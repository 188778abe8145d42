"""Benchmark directories under the service's ``--data``: finding them, indexing a
``samples.jsonl`` (or ``samples.jsonl.gz``) once, and answering filtered, paged
questions about it from the index.

Why an index: the benchmark browser pages through files of 100k samples; re-reading
and validating every line per request would take seconds. The index keeps one small
summary per sample (its filterable fields, a case-folded search text and where its line
starts), is built with ``orjson`` rather than full validation, and is cached per
``(path, mtime, size)``, so a rewritten file is re-indexed and an unchanged one never
is. Only the one sample a page opens is read again and validated as a
:class:`~extension.outputs.sample_schema.BenchmarkSample`.

This module takes paths that are already checked: the router
(:mod:`kgbench.service.samples`) resolves every request path under ``--data`` first.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

import orjson
from pydantic import ValidationError

from extension.core.labels import COMPLEXITIES, LABELS, SPLITS
from extension.outputs.caqa_table5 import compare_with_caqa, counts_of_stats
from extension.outputs.sample_schema import BenchmarkSample
from kgstore import Fact

__all__ = ["BenchmarkDir", "BenchmarkIndex", "SampleFilter", "SampleSummary", "STATS_FILE",
           "SAMPLES_FILES", "SampleEdits", "benchmark_table", "find_benchmark_dirs",
           "load_index", "sample_edits"]

SAMPLES_FILES = ("samples.jsonl", "samples.jsonl.gz")
"""What ``kgbench generate`` writes (and its gzipped copy), in the order looked for."""
STATS_FILE = "stats.json"
"""Written last by ``kgbench generate``: a directory without it is no finished benchmark."""
MAX_DEPTH = 4
"""How deep under ``--data`` benchmarks are looked for (``DATA/jobs/<id>/out`` is 3)."""
MAX_DIRS = 20_000
"""Directories visited at most per listing, so a huge ``--data`` cannot stall a request."""
INDEX_CACHE_SIZE = 8
"""Indexes kept in memory (a 100k-sample index is tens of MB)."""
SEARCH_FIELDS = ("id", "question", "question_extended", "answer", "citation")
"""What the text search looks in: the sample's texts and its id."""


# ----------------------------------------------------------------------------------
# Finding benchmark directories
# ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BenchmarkDir:
    """A directory under the root holding a samples file and ``stats.json``:
    ``name`` is its path relative to the root (``/``-separated)."""

    name: str
    samples_file: str
    samples: int | None
    created: str
    source: str | None


def find_benchmark_dirs(root: Path, *, max_depth: int = MAX_DEPTH,
                        max_dirs: int = MAX_DIRS) -> list[BenchmarkDir]:
    """Every benchmark directory under ``root`` down to ``max_depth`` levels, sorted
    by name. Symbolic links are not followed (a link to a directory is not entered) and
    hidden directories are skipped; a samples file that is itself a link is left to
    the caller, which resolves every name under the root before reading it."""
    found: list[BenchmarkDir] = []
    visited = 0
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        visited += 1
        rel = Path(directory).relative_to(root)
        depth = len(rel.parts)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if depth < max_depth else []
        if visited > max_dirs:
            break
        if STATS_FILE not in filenames or depth == 0:
            continue
        samples_file = next((n for n in SAMPLES_FILES if n in filenames), None)
        if samples_file is not None:
            found.append(_describe(Path(directory), rel.as_posix(), samples_file))
    return sorted(found, key=lambda b: b.name)


def _describe(directory: Path, name: str, samples_file: str) -> BenchmarkDir:
    """Name, sample count, creation time and source of one benchmark, from its
    ``stats.json`` (a damaged file leaves the count and source unknown)."""
    stats_path = directory / STATS_FILE
    created = dt.datetime.fromtimestamp(stats_path.lstat().st_mtime, dt.UTC)
    samples: int | None = None
    source: str | None = None
    try:
        stats = json.loads(stats_path.read_text("utf-8")) if not stats_path.is_symlink() else {}
    except (OSError, ValueError):
        stats = {}
    if isinstance(stats, dict):
        count = stats.get("samples")
        samples = count if isinstance(count, int) and not isinstance(count, bool) else None
        src = stats.get("source")
        if isinstance(src, dict) and isinstance(src.get("file"), str):
            source = src["file"]
    return BenchmarkDir(name, samples_file, samples, created.isoformat(timespec="seconds"),
                        source)


# ----------------------------------------------------------------------------------
# The index of one samples file
# ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SampleSummary:
    """What a list of samples shows, and where the sample's line is."""

    id: str
    label: str
    complexity: str
    split: str
    question: str
    answer: str
    edit: str
    offset: int
    length: int
    search_text: str = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "complexity": self.complexity,
                "split": self.split, "question": self.question, "answer": self.answer,
                "edit": self.edit}


@dataclass(frozen=True, slots=True)
class SampleFilter:
    """Which samples a list shows: each set field must match (``q``: a case-insensitive
    substring of :data:`SEARCH_FIELDS`)."""

    label: str | None = None
    complexity: str | None = None
    split: str | None = None
    q: str | None = None

    def accepts(self, s: SampleSummary) -> bool:
        return ((self.label is None or s.label == self.label)
                and (self.complexity is None or s.complexity == self.complexity)
                and (self.split is None or s.split == self.split)
                and (not self.q or self.q.casefold() in s.search_text))


class SampleNotFoundError(KeyError):
    """No sample with that id in the benchmark."""


class StaleIndexError(RuntimeError):
    """The samples file changed between indexing and reading one sample."""


@dataclass(slots=True)
class BenchmarkIndex:
    """Every sample of one samples file as a :class:`SampleSummary`, in file order,
    plus the lines that are no sample (``invalid``: how many; ``first_invalid``: the
    first line number, for the message)."""

    path: Path
    samples: tuple[SampleSummary, ...]
    invalid: int = 0
    first_invalid: int | None = None
    by_id: dict[str, int] = field(default_factory=dict)
    _filtered: OrderedDict[SampleFilter, tuple[SampleSummary, ...]] = field(
        default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.by_id = {s.id: i for i, s in enumerate(self.samples)}

    def select(self, where: SampleFilter) -> tuple[SampleSummary, ...]:
        """The samples ``where`` accepts, in file order. The last few selections are
        kept, so paging through one costs a slice, not a scan."""
        with self._lock:
            hit = self._filtered.get(where)
            if hit is not None:
                self._filtered.move_to_end(where)
                return hit
        chosen = tuple(s for s in self.samples if where.accepts(s))
        with self._lock:
            self._filtered[where] = chosen
            while len(self._filtered) > 16:
                self._filtered.popitem(last=False)
        return chosen

    def counts(self) -> dict[str, dict[str, dict[str, int]]]:
        """Samples per split, label and complexity, shaped like ``stats.json``'s
        ``by_split`` (every cell present, zeros included)."""
        by_split: dict[str, dict[str, dict[str, int]]] = {
            split: {label: dict.fromkeys(COMPLEXITIES, 0) for label in LABELS}
            for split in SPLITS}
        for s in self.samples:
            row = by_split.get(s.split, {}).get(s.label)
            if row is not None and s.complexity in row:
                row[s.complexity] += 1
        return by_split

    def read(self, sample_id: str) -> BenchmarkSample:
        """The full sample ``sample_id``, read from its line and validated."""
        position = self.by_id.get(sample_id)
        if position is None:
            raise SampleNotFoundError(sample_id)
        summary = self.samples[position]
        with _open(self.path) as f:
            f.seek(summary.offset)
            line = f.read(summary.length)
        try:
            sample = BenchmarkSample.model_validate_json(line)
        except ValidationError as exc:
            raise StaleIndexError(f"{sample_id}: its line is no longer a valid sample") from exc
        if sample.id != sample_id:
            raise StaleIndexError(f"{sample_id}: the samples file changed while reading it")
        return sample


def _open(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def _lines(f: IO[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, line)`` of each line of ``f``."""
    offset = 0
    for number, line in enumerate(f, 1):
        yield number, offset, line
        offset += len(line)


def _text(doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    return value if isinstance(value, str) else ""


def _summary(doc: Any, offset: int, length: int) -> SampleSummary | None:
    """The summary of one parsed line, or ``None`` when it lacks a sample's fields."""
    if not isinstance(doc, dict):
        return None
    sid, label, complexity, split = (doc.get(k) for k in ("id", "label", "complexity", "split"))
    if not (isinstance(sid, str) and label in LABELS and complexity in COMPLEXITIES
            and split in SPLITS):
        return None
    edit = doc.get("edit")
    kind = edit.get("kind") if isinstance(edit, dict) else None
    search = "\n".join(_text(doc, k) for k in SEARCH_FIELDS).casefold()
    return SampleSummary(sid, str(label), str(complexity), str(split), _text(doc, "question"),
                         _text(doc, "answer"), kind if isinstance(kind, str) else "none",
                         offset, length, search)


def build_index(path: Path) -> BenchmarkIndex:
    """Read ``path`` once and summarise every line (blank lines skipped; a line that is
    not JSON, or lacks a sample's id, label, complexity or split, is counted as
    invalid; a repeated id keeps its first line)."""
    samples: list[SampleSummary] = []
    seen: set[str] = set()
    invalid = 0
    first_invalid: int | None = None
    with _open(path) as f:
        for number, offset, line in _lines(f):
            if not line.strip():
                continue
            try:
                summary = _summary(orjson.loads(line), offset, len(line))
            except orjson.JSONDecodeError:
                summary = None
            if summary is None or summary.id in seen:
                invalid += 1
                first_invalid = first_invalid or number
                continue
            seen.add(summary.id)
            samples.append(summary)
    return BenchmarkIndex(path, tuple(samples), invalid, first_invalid)


_CACHE: OrderedDict[tuple[str, int, int], BenchmarkIndex] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def load_index(path: Path) -> BenchmarkIndex:
    """The index of ``path``, from the cache when the file's mtime and size are those
    it was built from. Builds run one at a time, so a burst of requests for a new
    file reads it once."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
        index = build_index(path)
        for old in [k for k in _CACHE if k[0] == key[0]]:
            del _CACHE[old]
        _CACHE[key] = index
        while len(_CACHE) > INDEX_CACHE_SIZE:
            _CACHE.popitem(last=False)
        return index


def benchmark_table(index: BenchmarkIndex) -> dict[str, Any]:
    """The label × complexity counts per split (CAQA Table 5's layout) and the shares
    beside CAQA Table 5's (:func:`extension.outputs.caqa_table5.compare_with_caqa`, the
    comparison ``kgbench generate`` prints and stores)."""
    by_split = index.counts()
    return {"labels": list(LABELS), "complexities": list(COMPLEXITIES), "splits": list(SPLITS),
            "by_split": by_split,
            "caqa": compare_with_caqa(counts_of_stats({"by_split": by_split})).to_json()}


# ----------------------------------------------------------------------------------
# What a sample's edit changed
# ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SampleEdits:
    """The facts a sample's graph shows: its (edited) subgraph plus the facts the edit
    removed from the original; ``added`` are in the subgraph but not the original
    (a replaced answer, a swapped subgraph), ``removed`` the other way round (a deleted
    triple or path, a replaced answer's fact)."""

    facts: tuple[Fact, ...]
    added: frozenset[Fact]
    removed: frozenset[Fact]
    names: Mapping[str, str]
    cvts: frozenset[str]


def sample_edits(sample: BenchmarkSample) -> SampleEdits:
    """Compare ``sample.subgraph`` with ``sample.original_subgraph`` (and the edit's
    ``deleted`` triples) to find what the edit changed."""
    current = [t.fact() for t in sample.subgraph]
    original = [t.fact() for t in sample.original_subgraph]
    now = set(current)
    removed = [f for f in original if f not in now]
    removed += [t.fact() for t in sample.edit.deleted if t.fact() not in now]
    removed = list(dict.fromkeys(removed))
    before = set(original)
    added = frozenset(f for f in current if f not in before) if sample.edit.kind != "none" \
        else frozenset()
    names: dict[str, str] = {}
    triples = (*sample.subgraph, *sample.original_subgraph, *sample.edit.deleted)
    for t in triples:
        if t.s_name:
            names.setdefault(t.s, t.s_name)
        if t.o_name and not t.literal:
            names.setdefault(t.o, t.o_name)
    return SampleEdits(tuple(dict.fromkeys([*current, *removed])), added, frozenset(removed),
                       names, frozenset(sample.cvt_nodes))
