"""Reading a dump in chunks (step 1 of :mod:`loaders.vectorized`): decompression on a
background thread (gzip through ISA-L, bzip2 and Zstandard through Arrow's codecs), plain
chunk files cut at line ends with their line numbers, and lines too long for the CSV
reader taken out for the Python parser (:class:`LineGuard`).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa

from loaders.errors import MAX_MALFORMED_SHARE, InputFileError
from loaders.sources import (
    DECOMPRESSION_ERRORS,
    compression_of,
    gzip_reader,
    integrity_hint,
    max_line_bytes,
)
from loaders.vectorized.faults import locate_fault

CHUNK_BYTES = 128 << 20
"""Decompressed bytes per chunk (about a million Freebase lines); ``$KGBENCH_CHUNK_BYTES``
overrides it (tests and benchmarks)."""
FIRST_CHUNK = 4 << 20
"""The first chunk is small: it fills the predicate cache cheaply for the big ones."""
READ_AHEAD = 2
"""Chunks the reader may have ready beyond the one being processed."""
_READ_BLOCK = 8 << 20
CSV_MAX_LINE = 2 << 20
"""The CSV reader's ``max_line_size``. Longer lines never reach it (:class:`LineGuard`):
DuckDB 2.0.1 dropped a line longer than its buffer without a reject row, and a 12 MB
line crossing a buffer boundary as well (measured), so the reader takes them out and the
Python parser reads them."""


# -- reading -----------------------------------------------------------------------------
@dataclass(slots=True)
class Chunk:
    """A piece of the decompressed input on disk: whole lines, LF line ends (unless
    ``python``: lone CRs, for the Python parser), lines ``first_line`` .. ``first_line +
    lines - 1`` of the input. ``position`` is how many bytes of the (compressed) file
    had been read when it was cut."""

    index: int
    path: Path
    first_line: int
    lines: int
    size: int
    position: int
    python: bool
    long_lines: list[tuple[int, LongLine]] = field(default_factory=list)
    """Lines taken out of the chunk file (an empty line stands in for each), with their
    line numbers: see :class:`LineGuard`."""


@dataclass(slots=True)
class LongLine:
    """A line :class:`LineGuard` took out of the stream: ``length`` bytes (LF excluded);
    ``text`` is the line, or None when it is longer than the line limit (not kept)."""

    length: int
    text: bytes | None


_Piece = tuple[bytes, int, int] | LongLine
_PLACEHOLDER = (b"\n", 0, 1)


class LineGuard:
    """Takes the lines longer than ``divert`` bytes out of a decompressed byte stream.

    :meth:`feed` takes blocks and gives back, in stream order, pieces ``(block, start,
    end)`` of lines no longer than ``divert`` and, for each longer line, a
    :class:`LongLine` followed by a piece holding only LF, which keeps the line numbers.
    A line longer than ``limit`` is not kept (its bytes are dropped as they stream), so
    memory stays within ``limit`` plus a block whatever the input; call :meth:`finish`
    after the last block. Finding the long lines costs a few ``bytes.find`` per block:
    a line longer than ``divert`` covers a whole window of ``divert // 2`` bytes (on a
    grid from the last line start) that holds no LF, and only such windows are looked at.
    """

    def __init__(self, divert: int, limit: int) -> None:
        self.limit = limit
        self.divert = min(divert, limit)
        self._window = max(self.divert // 2, 1)
        self._held: list[tuple[bytes, int, int]] = []  # the unfinished line's pieces
        self._held_len = 0
        self._dropping = False  # the unfinished line is longer than the limit

    def feed(self, block: bytes) -> Iterator[_Piece]:
        """The pieces of ``block`` that are ready (the unfinished last line is held)."""
        start, end = 0, len(block)
        if self._held_len or self._dropping:
            nl = block.find(b"\n")
            if nl < 0:
                self._hold(block, 0, end)
                return
            yield from self._end_line(block, nl)
            start = nl + 1
        last = block.rfind(b"\n", start)
        if last < 0:
            self._hold(block, start, end)
            return
        yield from self._lines(block, start, last + 1)
        self._hold(block, last + 1, end)

    def finish(self) -> Iterator[_Piece]:
        """The last line, when the stream does not end with LF."""
        if self._held_len or self._dropping:
            yield from self._end_line(b"", -1)

    def _hold(self, block: bytes, start: int, end: int) -> None:
        if start >= end:
            return
        self._held_len += end - start
        if self._dropping:
            return
        if self._held_len > self.limit:
            self._held.clear()
            self._dropping = True
        else:
            self._held.append((block, start, end))

    def _end_line(self, block: bytes, nl: int) -> Iterator[_Piece]:
        """The held line ends at ``block[nl]`` (``nl`` -1: at the end of the stream)."""
        length = self._held_len + max(nl, 0)
        if self._dropping or length > self.limit:
            yield LongLine(length, None)
            yield _PLACEHOLDER
        elif length > self.divert:
            parts = [b[s:e] for b, s, e in self._held]
            yield LongLine(length, b"".join([*parts, block[:max(nl, 0)]]))
            yield _PLACEHOLDER
        else:
            yield from self._held
            if nl >= 0:
                yield (block, 0, nl + 1)
        self._held.clear()
        self._held_len = 0
        self._dropping = False

    def _lines(self, block: bytes, start: int, end: int) -> Iterator[_Piece]:
        """Whole lines ``block[start:end]`` (``block[end - 1]`` is LF), long ones taken out."""
        window = self._window
        given = probe = start  # given: bytes before it are handed out; probe: next window
        while probe < end:
            if block.find(b"\n", probe, min(probe + window, end)) >= 0:
                probe += window
                continue
            line_start = max(block.rfind(b"\n", given, probe) + 1, given)
            line_end = block.find(b"\n", probe, end)
            length = line_end - line_start
            if length > self.divert:
                if line_start > given:
                    yield (block, given, line_start)
                text = block[line_start:line_end] if length <= self.limit else None
                yield LongLine(length, text)
                yield _PLACEHOLDER
                given = line_end + 1
            probe = line_end + 1  # the grid starts again at the next line
        if given < end:
            yield (block, given, end)


class _ChunkWriter:
    """Writes one chunk file block by block, counting lines and normalising CRLF;
    ``reuse`` is the file of a chunk the consumer is done with (see :class:`ChunkReader`)."""

    def __init__(self, path: Path, index: int, first_line: int,
                 reuse: Path | None = None) -> None:
        self.path = path
        self.index = index
        self.first_line = first_line
        fh: BinaryIO | None = None
        if reuse is not None:
            with contextlib.suppress(OSError):
                os.replace(reuse, path)
                fh = open(path, "r+b")  # noqa: SIM115 - closed in close()/discard()
        self.fh: BinaryIO = fh or open(path, "wb")  # noqa: SIM115 - closed in close()/discard()
        self.size = 0
        self.lines = 0
        self.python = False
        self.last = b""
        self.long_lines: list[tuple[int, LongLine]] = []

    def add(self, block: bytes, start: int = 0, end: int | None = None) -> None:
        """Append ``block[start:end]`` (without copying it when it has no CR)."""
        end = len(block) if end is None else end
        if start >= end:
            return
        if block.find(b"\r", start, end) >= 0:
            part = block[start:end]
            if part.count(b"\r") == part.count(b"\r\n"):
                part = part.replace(b"\r\n", b"\n")  # CRLF: the same lines
            else:
                self.python = True  # lone CRs end N-Triples lines: the Python parser splits
            block, start, end = part, 0, len(part)
        self.fh.write(memoryview(block)[start:end])
        self.size += end - start
        self.lines += block.count(b"\n", start, end)
        self.last = block[end - 1:end]

    def close(self, position: int, final: bool = False) -> Chunk:
        self.fh.truncate()  # a reused file may have been longer
        self.fh.close()
        lines = self.lines + (1 if final and self.last not in (b"\n", b"") else 0)
        return Chunk(self.index, self.path, self.first_line, lines, self.size, position,
                     self.python, self.long_lines)

    def discard(self) -> None:
        self.fh.close()
        self.path.unlink(missing_ok=True)


_ARROW_CODECS = {"gzip": "gzip", "bz2": "bz2", "zstd": "zstd"}


def open_decompressed(path: Path, compression: str | None) -> tuple[Any, Any]:
    """``(raw, stream)``: the file and a reader of its decompressed bytes; ``raw.tell()``
    is how far into the file decompression got. gzip through
    :func:`~loaders.sources.gzip_reader` (ISA-L, 2.5x Arrow's zlib measured), bzip2 and
    Zstandard through Arrow's codecs; both release the GIL while they inflate."""
    if compression == "gzip":
        raw: Any = open(path, "rb")  # noqa: SIM115 - the caller closes it
        return raw, gzip_reader(raw)
    raw = pa.OSFile(str(path))
    return raw, (pa.CompressedInputStream(raw, _ARROW_CODECS[compression])
                 if compression else raw)


class ChunkReader:
    """Decompresses ``path`` in a background thread into :class:`Chunk` files under
    ``workdir``; iterate to get them in order. A chunk's file is valid until the next
    chunk is asked for: then the reader renames it and overwrites it in place with a
    later chunk (the kernel rewrites cached pages for less than it writes new ones: a
    20M-line dump read alone, 1.5-2.4 s -> 1.1-1.4 s system time, measured); :meth:`close`
    removes them. Unreadable or corrupt data raises :class:`InputFileError` naming the
    byte offset (see :func:`locate_fault`)."""

    def __init__(self, path: Path, workdir: Path, *, chunk_bytes: int = CHUNK_BYTES,
                 ahead: int = READ_AHEAD) -> None:
        self.path = path
        self.workdir = workdir
        self.chunk_bytes = chunk_bytes
        self.max_line = max_line_bytes()
        self.size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(16)
        self.compression = compression_of(path, head)
        self.position = 0
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=max(ahead, 1))
        self._free: queue.SimpleQueue[Path] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kgbench-reader", daemon=True)
        workdir.mkdir(parents=True, exist_ok=True)
        self._thread.start()

    # -- producer ------------------------------------------------------------------
    def _put(self, item: tuple[str, Any]) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _recycled(self) -> Path | None:
        """The file of a chunk the consumer is done with, if there is one."""
        try:
            return self._free.get_nowait()
        except queue.Empty:
            return None

    def _run(self) -> None:
        raw: Any = None
        writer: _ChunkWriter | None = None
        try:
            raw, stream = open_decompressed(self.path, self.compression)
            index, first_line = 0, 1
            carry = b""
            for piece in self._pieces(stream):
                if writer is None:
                    writer = _ChunkWriter(self.workdir / f"chunk-{index:06d}.nt", index,
                                          first_line, self._recycled())
                if isinstance(piece, LongLine):
                    # At a line start: the LF standing in for it comes next, into this chunk.
                    writer.long_lines.append((writer.first_line + writer.lines, piece))
                    continue
                block, start, end = piece
                if carry:
                    block, start, end, carry = carry + block[start:end], 0, end - start + 1, b""
                if block[end - 1:end] == b"\r":
                    end, carry = end - 1, b"\r"  # keep a CRLF together
                while start < end:
                    if writer is None:
                        writer = _ChunkWriter(self.workdir / f"chunk-{index:06d}.nt", index,
                                              first_line, self._recycled())
                    limit = self.chunk_bytes if index else min(self.chunk_bytes, FIRST_CHUNK)
                    full = writer.size + end - start >= limit
                    cut = block.rfind(b"\n", start, min(end, start + limit - writer.size)) + 1 \
                        if full else 0
                    if full and cut <= start:
                        cut = block.rfind(b"\n", start, end) + 1  # a line crosses the limit
                    if cut <= start:
                        writer.add(block, start, end)
                        break
                    writer.add(block, start, cut)  # the chunk is full at this line end
                    chunk = writer.close(raw.tell())
                    writer = None
                    if not self._put(("chunk", chunk)):
                        return
                    index += 1
                    first_line += chunk.lines
                    start = cut
            if carry:
                if writer is None:
                    writer = _ChunkWriter(self.workdir / f"chunk-{index:06d}.nt", index,
                                          first_line, self._recycled())
                writer.add(carry)
            if writer is not None and writer.size:
                chunk = writer.close(raw.tell(), final=True)
                writer = None
                if not self._put(("chunk", chunk)):
                    return
            self._put(("end", None))
        except BaseException as exc:  # handed to the consumer
            pos = 0
            with contextlib.suppress(Exception):
                pos = raw.tell() if raw is not None else 0
            self._put(("error", (exc, pos)))
        finally:
            if writer is not None:
                writer.discard()
            if raw is not None:
                with contextlib.suppress(Exception):
                    raw.close()

    def _pieces(self, stream: Any) -> Iterator[_Piece]:
        """The decompressed stream as :class:`LineGuard` pieces (byte-order mark dropped)."""
        guard = LineGuard(CSV_MAX_LINE, self.max_line)
        first = True
        while not self._stop.is_set():
            block = stream.read(_READ_BLOCK)
            if not block:
                break
            if first:
                first = False
                if block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]  # UTF-8 byte-order mark, as TextSource drops it
            yield from guard.feed(block)
        yield from guard.finish()

    # -- consumer ------------------------------------------------------------------
    def __iter__(self) -> Iterator[Chunk]:
        while True:
            kind, value = self._queue.get()
            if kind == "end":
                return
            if kind == "error":
                exc, pos = value
                raise self._error(exc, pos) from exc
            self.position = value.position
            yield value
            self._free.put(value.path)  # asked for the next one: done with this one

    def _error(self, exc: BaseException, pos: int) -> BaseException:
        if isinstance(exc, InputFileError):
            return exc
        if isinstance(exc, (pa.ArrowException, *DECOMPRESSION_ERRORS)):
            if isinstance(exc, EOFError) or "truncated" in str(exc).lower():
                # The stream stops mid-way (Arrow says "truncated", gzip readers EOFError).
                offset = self.size
                problem = f"the {self.compression or 'compressed'} data ends unexpectedly"
            else:
                offset, problem = locate_fault(self.path, self.compression, pos)
            return InputFileError(
                self.path, f"{problem} at byte {offset:,} of {self.size:,}; the file is "
                f"truncated or corrupt: {integrity_hint(self.path, self.compression)}")
        return exc

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
        self._thread.join(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)


def head_lines(path: Path, limit: int, *, max_bytes: int = 1 << 20) -> list[str]:
    """Up to ``limit`` lines from the start of ``path`` (decompressed like
    :class:`ChunkReader`, at most ``max_bytes``), decoded as UTF-8, for judging what the
    file is.

    A line that is not UTF-8 is left out: the load counts and lists it as a malformed
    line, as it does at any other line number, so one bad line near the start does not
    refuse a file that one at line 20,001 would not. Only when more than half of them
    (:data:`~loaders.errors.MAX_MALFORMED_SHARE`, the share that refuses a file for
    malformed lines) are not UTF-8, or a NUL byte shows binary data, the file is not
    text: :class:`UnicodeDecodeError`."""
    with open(path, "rb") as fh:
        compression = compression_of(path, fh.read(16))
    raw, stream = open_decompressed(path, compression)
    try:
        try:
            data = stream.read(max_bytes)
        except (pa.ArrowException, *DECOMPRESSION_ERRORS):
            data = b""  # corrupt or truncated early: the load itself reports where
    finally:
        raw.close()
    lines = data.split(b"\n")
    if len(data) >= max_bytes and len(lines) > 1:
        lines.pop()  # cut in the middle
    if lines and not lines[-1]:
        lines.pop()  # after the last newline: no line
    if lines and lines[0].startswith(b"\xef\xbb\xbf"):
        lines[0] = lines[0][3:]
    if any(b"\x00" in ln for ln in lines[:limit]):
        raise UnicodeDecodeError("utf-8", b"\x00", 0, 1, "NUL byte: binary data")
    decoded: list[str] = []
    for line in lines[:limit]:
        with contextlib.suppress(UnicodeDecodeError):
            decoded.append(line.rstrip(b"\r").decode("utf-8"))
    undecodable = len(lines[:limit]) - len(decoded)
    if undecodable > len(lines[:limit]) * MAX_MALFORMED_SHARE:
        raise UnicodeDecodeError("utf-8", b"", 0, 1,
                                 f"{undecodable} of the first {len(lines[:limit])} lines")
    return decoded
