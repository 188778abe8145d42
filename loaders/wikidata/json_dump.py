"""Staging a Wikidata JSON dump (the mapping of one entity:
:mod:`loaders.wikidata.json_mapper`).

Work is split over processes: the main process reads and decompresses the file and
writes the stage, worker processes (``workers``, default: one per CPU, at most 4, for
files of :data:`PARALLEL_MIN_BYTES` or more) parse batches of lines into compact row
lists (``fork`` on Linux, see :func:`_pool_context`). At most ``2 * workers + 1``
batches (of :data:`BATCH_CHARS`) are in flight, so memory stays flat. ``orjson`` is
used for parsing when it is installed (about twice as fast as :mod:`json`; not a
dependency).

"""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.context
import os
import sys
from collections import Counter, deque
from collections.abc import Iterator
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import Any

from kgstore.models import Literal
from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback
from loaders.errors import (
    InputFileError,
    MalformedInputError,
    ParseReport,
)
from loaders.pipeline import (
    LoadOptions,
)
from loaders.sniff import json_layout
from loaders.sources import TextSource, open_text, reading_error
from loaders.wikidata.json_mapper import _Batch, _BatchResult, _JsonMapper, _loads, _short

PARALLEL_MIN_BYTES = 8 << 20
"""Files smaller than this (on disk) are parsed in the main process: starting worker
processes costs more than it saves."""
MAX_DOCUMENT_CHARS = 256 << 20
"""Largest single JSON document (not one-entity-per-line) read as a whole."""
BATCH_CHARS = 4 << 20
"""Characters of input per batch handed to a worker."""
BATCH_LINES = 2_000
"""Lines per batch at most (many small entities)."""
_worker_mapper: _JsonMapper | None = None


def _init_worker(*settings: Any) -> None:
    global _worker_mapper
    _worker_mapper = _JsonMapper(*settings)


def _map_in_worker(batch: _Batch) -> _BatchResult:
    assert _worker_mapper is not None, "pool started without _init_worker"
    return _worker_mapper.map_batch(batch)


# -- JSON: the stager (main process) -----------------------------------------------------
class _StageSink:
    """Applies batch results to the stage in input order and keeps the totals."""

    def __init__(self, path: Path, writer: StageWriter, report: ParseReport,
                 strict: bool) -> None:
        self.path, self.writer, self.report, self.strict = path, writer, report, strict
        self.counts: Counter[str] = Counter()

    def apply(self, result: _BatchResult, bad_utf8: list[tuple[int, str]]) -> None:
        entities, efacts, lfacts, preds, counts, malformed = result
        if bad_utf8:
            malformed = sorted([*bad_utf8, *malformed])
        if malformed:
            if self.strict:
                raise MalformedInputError(self.path, *malformed[0])
            for lineno, reason in malformed:
                self.report.add_malformed(self.path, lineno, reason)
        w = self.writer
        add_entity, add_fact, add_predicate = w.add_entity, w.add_fact, w.add_predicate
        for row in entities:
            add_entity(*row)
        for s, p, o in zip(efacts[0::3], efacts[1::3], efacts[2::3], strict=True):
            add_fact(s, p, o)
        it = iter(lfacts)
        for ls, lp, value, datatype, lang in zip(it, it, it, it, it, strict=True):
            add_fact(ls, lp, Literal(value, datatype, lang))  # type: ignore[arg-type]
        for pid, label in preds:
            add_predicate(pid, label)
        n_e, n_l = len(efacts) // 3, len(lfacts) // 5
        self.report.triples += n_e + n_l
        self.counts.update(counts)
        self.counts["entity_facts"] += n_e
        self.counts["literal_facts"] += n_l


def _auto_workers(path: Path) -> int:
    try:
        size = path.stat().st_size
    except OSError:
        return 0
    if size < PARALLEL_MIN_BYTES:
        return 0
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else (os.cpu_count() or 1)))


def _pool_context() -> multiprocessing.context.BaseContext:
    """``fork`` on Linux: workers start at once and never re-import the caller's main
    module (``spawn`` would, and fail in a script without a ``__main__`` guard). The
    workers only run the pure-Python mapping, so the fork is safe even when the parent
    holds native threads (stores). ``spawn`` elsewhere."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")  # pragma: no cover - not Linux


def _batches(src: TextSource, bad_utf8: list[tuple[int, str]]) -> Iterator[_Batch]:
    """Lines of ``src`` grouped into batches of about :data:`BATCH_CHARS` (one string
    per batch pickles faster than many); a line that is not UTF-8 goes to ``bad_utf8``
    (the caller takes them with each batch) and is blank in its batch."""
    lines: list[str] = []
    size = 0
    first = 1

    def bad(lineno: int, reason: str) -> None:
        bad_utf8.append((lineno, reason))
        lines.append("")

    try:
        for lineno, text in src.numbered(bad):
            lines.append(text)
            size += len(text)
            if size >= BATCH_CHARS or len(lines) >= BATCH_LINES:
                yield first, "\n".join(lines)
                first, size = lineno + 1, 0
                lines.clear()
    except InputFileError as exc:
        raise reading_error(src, exc) from exc
    if lines:
        yield first, "\n".join(lines)


def stage_wikidata_json(
    path: Path,
    writer: StageWriter,
    report: ParseReport,
    *,
    options: LoadOptions,
    strict: bool = False,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
) -> dict[str, int]:
    """Stage a Wikidata JSON dump (see the module docstring for layouts and mapping).

    ``workers``: worker processes (0: parse in this process; ``None``: one per CPU for
    files of :data:`PARALLEL_MIN_BYTES` or more, else 0). Malformed lines (invalid JSON
    or UTF-8, an entity without an id or with an unexpected structure) are counted in
    ``report`` with their line numbers, or with ``strict`` raise
    :class:`MalformedInputError` (``path:line: reason``) at the first. Corrupt or
    truncated compressed data raises :class:`InputFileError` naming the byte offset.
    Returns the extra counts.
    """
    path = Path(path)
    layout = json_layout(path)
    sink = _StageSink(path, writer, report, strict)
    label = f"parsing {path.name}"
    if layout == "document":
        _stage_document(path, sink, options, progress, label)
    else:
        n = _auto_workers(path) if workers is None else workers
        with open_text(path) as src:
            try:
                _stage_lines(src, sink, options, progress, label, n)
            finally:
                report.lines = src.lines_read
            if progress is not None:
                progress(label, src.size, src.size)
    return dict(sink.counts)


def _stage_lines(src: TextSource, sink: _StageSink, options: LoadOptions,
                 progress: ProgressCallback | None, label: str, workers: int) -> None:
    bad_utf8: list[tuple[int, str]] = []

    def tick() -> None:
        sink.report.lines = src.lines_read
        if progress is not None:
            progress(label, src.position, src.size)

    def take_bad() -> list[tuple[int, str]]:
        taken = bad_utf8[:]
        bad_utf8.clear()
        return taken

    settings = _JsonMapper.settings(options)
    if workers <= 0:
        mapper = _JsonMapper(*settings)
        for batch in _batches(src, bad_utf8):
            sink.apply(mapper.map_batch(batch), take_bad())
            tick()
        return
    ctx = _pool_context()
    pending: deque[tuple[AsyncResult[_BatchResult], list[tuple[int, str]]]] = deque()
    with ctx.Pool(workers, initializer=_init_worker, initargs=settings) as pool:
        for batch in _batches(src, bad_utf8):
            pending.append((pool.apply_async(_map_in_worker, (batch,)), take_bad()))
            while len(pending) > 2 * workers:
                result, bad = pending.popleft()
                sink.apply(result.get(), bad)
                tick()
        while pending:
            result, bad = pending.popleft()
            sink.apply(result.get(), bad)
            tick()


def _stage_document(path: Path, sink: _StageSink, options: LoadOptions,
                    progress: ProgressCallback | None, label: str) -> None:
    """A file holding one JSON value over many lines: read whole, then mapped."""
    parts: list[str] = []
    chars = 0
    bad: list[tuple[int, str]] = []
    with open_text(path) as src:
        try:
            for text in _lines_of(src, bad):
                parts.append(text)
                chars += len(text) + 1
                if chars > MAX_DOCUMENT_CHARS:
                    break
        finally:
            sink.report.lines = src.lines_read
    if chars > MAX_DOCUMENT_CHARS:
        raise InputFileError(
            path, f"is one JSON document of more than {MAX_DOCUMENT_CHARS >> 20} MB; write "
            "one entity per line instead (the dump layout, or `jq -c '.[]'` for a list), "
            "then load that")
    mapper = _JsonMapper(*_JsonMapper.settings(options))
    if not bad:
        try:
            value = _loads("\n".join(parts))
        except json.JSONDecodeError as exc:
            mapper.malformed.append((exc.lineno, _short(
                f"invalid JSON: {exc.msg} (column {exc.colno})")))
        except ValueError as exc:
            mapper.malformed.append((1, _short(f"invalid JSON: {exc}")))
        else:
            mapper.map_value(1, value)
    sink.apply(mapper.take(), bad)
    if progress is not None:
        size = path.stat().st_size
        progress(label, size, size)


def _lines_of(src: TextSource, bad_utf8: list[tuple[int, str]]) -> Iterator[str]:
    """The text of ``src``'s lines; undecodable lines go to ``bad_utf8``; unreadable
    data raises :class:`InputFileError` with the byte offset."""
    try:
        for _, text in src.numbered(lambda n, r: bad_utf8.append((n, r))):
            yield text
    except InputFileError as exc:
        raise reading_error(src, exc) from exc
