"""Vectorised staging of dump-scale N-Triples with DuckDB (Freebase dump, ``load rdf``).

The Python parser (:mod:`loaders.ntriples`) reads ~200k lines/s; a Freebase dump has
3 billion. This module stages such files at DuckDB speed while keeping the Python
parser's results (W3C N-Triples) and the :class:`~loaders.triples.TripleMapper`
mapping conventions:

1. **Read** (:class:`ChunkReader`, a background thread): decompress (gzip through
   ISA-L, bzip2 and Zstandard through Arrow's codecs; all release the GIL) and cut the text into
   plain chunk files of about :data:`CHUNK_BYTES` at line ends, numbering lines
   (LF only, as :class:`~loaders.sources.TextSource` does; a chunk whose CRs are all
   CRLF is normalised to LF, one with lone CRs goes to the Python parser whole). At
   most :data:`READ_AHEAD` chunks wait on disk, so disk and memory stay flat; the
   files of processed chunks are overwritten by later ones. Lines longer than the CSV
   reader handles reliably are taken out of the chunks (:class:`LineGuard`) for the
   Python parser; one longer than :func:`~loaders.sources.max_line_bytes` is malformed.
2. **Parse** each chunk in SQL (DuckDB ``read_csv``, all cores): a :class:`LineSyntax`
   splits lines into terms with string functions and decides which lines it fully
   understands (*fast* lines). Everything else (escapes it does not resolve, blank
   nodes, unusual spacing, wrong field counts, invalid UTF-8, malformed lines) goes
   to :func:`loaders.ntriples.parse_line_raw` with its exact line number, so the
   result is what the W3C-conformant parser says, malformed lines included. A
   shortcut keeps the common path cheap: predicates are classified once (validity,
   id, role, filter verdict) and cached in a small table the lines are joined with,
   so a line whose predicate is dropped is checked, but not mapped (the join hashes
   the cache, not the chunk: DuckDB's build-side optimizer is off). Subject and
   object IRIs are checked against the IRIREF grammar with one regular expression each
   (:func:`iri_ok_sql`; about 0.15 s per million lines more than the cheap string
   screen it replaced, measured, but exact), so an IRI holding a character N-Triples
   forbids goes to the Python parser, which reports it as malformed.
3. **Map and filter** in SQL (:class:`VectorStager`): roles of predicates (name,
   alias, type, ``type.type.instance``, description, mediator hint), language
   selection, the :class:`~loaders.pipeline.PredicateFilter` (dropped lines counted by
   reason) and literal keys (``sha1`` exactly as :attr:`kgstore.models.Literal.key`).
4. **Write** the staged tables with ``COPY ... TO`` straight into Parquet parts of the
   :class:`~kgstore.staging.StageWriter` (one part per table and chunk; duplicates
   are left to the import, which dedupes). One aggregate over the chunk's rows gives
   all counts.

DuckDB runs with ``memory_limit`` (``$KGBENCH_DUCKDB_MEMORY``, default 2GB) and spills
to a temp directory inside the stage, so memory does not grow with the dump.

Differences from :class:`~loaders.triples.TripleMapper` (documented, deliberate): the
name (and description) of an entity is the one in the first language of ``langs``
that has one (TripleMapper: the first line in the file); among several names in that
language a deterministic one (by content hash) wins. A name labels a predicate when
its subject looks like a property id (``domain.type.property``, ``P57``) or was used
as a predicate in this or an earlier chunk of the file.
"""

from __future__ import annotations

import bz2
import contextlib
import os
import queue
import re
import shutil
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa

from kgstore.models import XSD, short_datatype
from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback
from loaders.errors import MAX_MALFORMED_SHARE, InputFileError, MalformedInputError, ParseReport
from loaders.ntriples import NTriplesSyntaxError, RawTriple, parse_line_raw
from loaders.pipeline import (
    DROPPED_PREFIX,
    FREEBASE_NS,
    PREDICATE_PREFIX,
    LoadOptions,
    PredicateFilter,
    sql_str,
)
from loaders.sources import (
    DECOMPRESSION_ERRORS,
    compression_of,
    gzip_reader,
    integrity_hint,
    long_line_reason,
    max_line_bytes,
)
from loaders.triples import (
    ALIAS_PREDICATES,
    DESCRIPTION_PREDICATES,
    INSTANCE_PREDICATES,
    MEDIATOR_PREDICATES,
    NAME_PREDICATES,
    TYPE_PREDICATES,
    TripleMapper,
)

CHUNK_BYTES = 128 << 20
"""Decompressed bytes per chunk (about a million Freebase lines); ``$KGBENCH_CHUNK_BYTES``
overrides it (tests and benchmarks)."""
FIRST_CHUNK = 4 << 20
"""The first chunk is small: it fills the predicate cache cheaply for the big ones."""
READ_AHEAD = 2
"""Chunks the reader may have ready beyond the one being processed."""
_READ_BLOCK = 8 << 20
_CSV_MAX_LINE = 2 << 20
"""The CSV reader's ``max_line_size``. Longer lines never reach it (:class:`LineGuard`):
DuckDB 2.0.1 dropped a line longer than its buffer without a reject row, and a 12 MB
line crossing a buffer boundary as well (measured), so the reader takes them out and the
Python parser reads them."""
_CSV_BUFFER = 16 << 20  # the unit of DuckDB's parallel CSV scan: several per chunk
_SEQ_SPAN = 1 << 40
_MAX_LOCATE = 1000  # malformed lines per chunk whose line numbers are looked up
_PROGRESS_EVERY_S = 0.5

_IRI_BAD = r'[\x00-\x20<>"{}|^`\\]'
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*:"
_LANG_RE = "[a-zA-Z]+(-[a-zA-Z0-9]+)*"
_XSD_STRING = XSD + "string"
_ESCAPES = (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ("\\'", "'"),
            ("\\b", "\b"), ("\\f", "\f"))
_SENTINEL = "\uffff"  # stands for an escaped backslash while the others are resolved


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
        guard = LineGuard(_CSV_MAX_LINE, self.max_line)
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


def locate_fault(path: Path, compression: str | None, approx: int = 0) -> tuple[int, str]:
    """``(byte offset, problem)`` of the first unreadable byte of a compressed file:
    exact for gzip (replayed with :mod:`zlib`), the start of the failing bzip2 block
    range otherwise. A stream that just stops is reported at the file's end."""
    size = path.stat().st_size
    try:
        if compression == "gzip":
            return _gzip_fault(path, size)
        if compression == "bz2":
            return _bz2_fault(path, size)
    except OSError:
        pass
    what = compression or "file"
    return (approx or size), f"cannot read the {what} data"


def _gzip_fault(path: Path, size: int) -> tuple[int, str]:
    block_size = 1 << 20
    with open(path, "rb") as fh:
        dec = zlib.decompressobj(wbits=31)
        offset = 0  # file offset of the next byte to feed
        in_member = False
        while True:
            block = fh.read(block_size)
            if not block:
                break
            data = block
            while data:
                before = dec.copy()
                try:
                    _drain(dec, data)
                except zlib.error as exc:
                    bad = _bisect_fault(before, data)
                    return offset + bad, f"corrupt gzip data ({exc})"
                in_member = not dec.eof
                if dec.eof:
                    used = len(data) - len(dec.unused_data)
                    offset += used
                    data = dec.unused_data
                    dec = zlib.decompressobj(wbits=31)
                    if data.strip(b"\x00") == b"" and not fh.peek(1):
                        return size, "no fault"
                    continue
                offset += len(data)
                data = b""
        if in_member:
            return size, "the gzip stream ends unexpectedly"
    return size, "cannot read the gzip data"


def _drain(dec: Any, data: bytes) -> None:
    """Feed ``data`` to a zlib decompressor, discarding the output (bounded memory)."""
    out = dec.decompress(data, 1 << 24)
    while dec.unconsumed_tail and not dec.eof:
        out = dec.decompress(dec.unconsumed_tail, 1 << 24)
    del out


def _bisect_fault(state: Any, data: bytes) -> int:
    """The index of the byte of ``data`` at which ``state`` (a zlib decompressor
    snapshot) first fails."""
    lo, hi = 0, len(data)  # feeding data[:lo] succeeds, data[:hi] fails
    while hi - lo > 1:
        mid = (lo + hi) // 2
        probe = state.copy()
        try:
            _drain(probe, data[:mid])
        except zlib.error:
            hi = mid
        else:
            lo = mid
    return lo


def _bz2_fault(path: Path, size: int) -> tuple[int, str]:
    block_size = 64 << 10
    with open(path, "rb") as fh:
        dec = bz2.BZ2Decompressor()
        offset = 0
        while True:
            block = fh.read(block_size)
            if not block:
                break
            data = block
            while data:
                try:
                    dec.decompress(data)
                except OSError as exc:
                    return offset, f"corrupt bzip2 data ({exc}) in the block starting near"
                if dec.eof:
                    used = len(data) - len(dec.unused_data)
                    offset += used
                    data = dec.unused_data
                    dec = bz2.BZ2Decompressor()
                    continue
                offset += len(data)
                data = b""
        if not dec.eof and offset:
            return size, "the bzip2 stream ends unexpectedly"
    return size, "cannot read the bzip2 data"


# -- SQL building blocks -----------------------------------------------------------------
def ordered_namespaces(namespaces: dict[str, str]) -> list[tuple[str, str]]:
    """Prefixes in the order SQL must test them: any prefix before the prefixes it
    extends (longest first), except that the Freebase namespace goes first when no
    other prefix extends it (it matches nearly every IRI of a Freebase dump)."""
    items = sorted(namespaces.items(), key=lambda kv: len(kv[0]), reverse=True)
    final = [kv for kv in items if kv[0] == FREEBASE_NS
             and not any(p != FREEBASE_NS and p.startswith(FREEBASE_NS) for p in namespaces)]
    return final + [kv for kv in items if kv not in final]


def iri_id_sql(col: str, namespaces: dict[str, str], *, bracketed: bool) -> str:
    """SQL turning the IRI in ``col`` (with ``<>`` when ``bracketed``) into an id as
    :meth:`TripleMapper.iri_id` does: the longest matching namespace prefix replaced
    (only when something follows it), else the IRI itself."""
    b = 1 if bracketed else 0
    whens = []
    for prefix, repl in ordered_namespaces(namespaces):
        start = len(prefix) + 1 + b
        rest = f"substr({col}, {start}, length({col}) - {len(prefix) + 2 * b})"
        value = rest if repl == "" else f"{sql_str(repl)} || {rest}"
        test = sql_str(("<" if b else "") + prefix)
        whens.append(f"WHEN starts_with({col}, {test}) AND length({col}) > "
                     f"{len(prefix) + 2 * b} THEN {value}")
    plain = f"substr({col}, 2, length({col}) - 2)" if b else col
    if not whens:
        return plain
    return f"(CASE {' '.join(whens)} ELSE {plain} END)"


IRI_RE = _SCHEME + "[^" + _IRI_BAD[1:] + "*"
"""An absolute IRI without escapes (N-Triples IRIREF body, [8], UCHARs excluded)."""
_IRI_PY = re.compile(IRI_RE)


def iri_ok_sql(col: str, *, bracketed: bool) -> str:
    """SQL: ``col`` is an absolute IRI (``<...>`` when ``bracketed``) without escapes
    or characters N-Triples forbids in IRIs (a regular expression: exact, not cheap)."""
    if bracketed:
        return f"regexp_full_match({col}, {sql_str('<' + IRI_RE + '>')})"
    return f"regexp_full_match({col}, {sql_str(IRI_RE)})"


def iri_ok_py(key: str, *, bracketed: bool) -> bool:
    """:func:`iri_ok_sql` in Python (the two must agree)."""
    if bracketed:
        if not (key.startswith("<") and key.endswith(">")):
            return False
        key = key[1:-1]
    return _IRI_PY.fullmatch(key) is not None


def datatype_sql(col: str) -> str:
    """SQL: the stored datatype of a full datatype IRI (``xsd:...``; xsd:string -> NULL)."""
    return (f"(CASE WHEN {col} = {sql_str(_XSD_STRING)} THEN NULL "
            f"WHEN starts_with({col}, {sql_str(XSD)}) AND length({col}) > {len(XSD)} "
            f"THEN 'xsd:' || substr({col}, {len(XSD) + 1}, length({col}) - {len(XSD)}) "
            f"ELSE {col} END)")


def unescape_sql(col: str) -> str:
    """SQL resolving the ECHAR escapes of a string body; a result still holding a
    backslash had ``\\u``/``\\U`` or invalid escapes (the caller sends those lines to
    the Python parser). ``\\\\`` is replaced by a sentinel first, so ``\\\\n`` stays
    backslash + n."""
    expr = f"replace({col}, '\\\\', {sql_str(_SENTINEL)})"
    for escaped, plain in _ESCAPES:
        expr = f"replace({expr}, {sql_str(escaped)}, {_chr(plain)})"
    return expr


def _chr(ch: str) -> str:
    return sql_str(ch) if ch.isprintable() else f"chr({ord(ch)})"


COMMON_LANGS = frozenset(
    "en fr de es it ja ru pt zh nl pl sv fi da no nb nn ko ar he iw tr cs hu ro el bg uk hr "
    "sr sk sl et lv lt fa hi th vi id ms ca eu gl cy ga is mk sq be ka hy az kk uz ta te bn "
    "ur mr ml kn gu pa si km lo my tl la eo af sw zh-hans zh-hant zh-tw zh-cn zh-hk pt-br "
    "en-gb en-us es-419 fr-ca sr-latn".split())
"""Language tags known to be valid, so most lines skip the language-tag regex."""


class LineSyntax:
    """How a chunk's lines become terms in SQL (the part that depends on the layout).

    :meth:`source_sql` reads the chunk file: any columns :meth:`raw_sql` needs to give
    the line back, ``x`` (not NULL when the line has more fields than expected: then
    :meth:`raw_sql` gives only its start, and the line is looked up in the chunk), and
    ``p_key`` (the predicate as written: the key of the predicate cache).
    :meth:`terms_sql` parses a relation holding those columns and ``early`` (the
    predicate is known to be dropped: the line is checked, not mapped) into
    ``shape_ok`` (the line is understood, its predicate aside), ``sid``, ``okind``
    (``'E'`` entity, ``'L'`` literal), ``obj`` (entity id or unescaped value), ``dt``
    (stored datatype) and ``lang`` (lower case), passing every input column through.
    """

    bracketed_keys = True

    def source_sql(self, chunk: Path) -> str:
        raise NotImplementedError

    def terms_sql(self, src: str, namespaces: dict[str, str]) -> str:
        raise NotImplementedError

    def raw_sql(self) -> str:
        raise NotImplementedError

    def key_of(self, iri: str) -> str:
        """The ``p_key`` of predicate ``iri``."""
        return f"<{iri}>" if self.bracketed_keys else iri

    def fits(self, path: Path) -> bool:
        """Whether the first lines of ``path`` have the layout this syntax expects."""
        return True


_NULL_FIELD = "\x00\x03\x00"
"""``nullstr`` of the CSV reader: no real field equals it, so an empty field reads as ''
and NULL means a missing field."""


def _read_csv(chunk: Path, columns: Sequence[str], delim: str) -> str:
    """DuckDB's CSV reader over a chunk: the ``columns`` plus ``x``, the first extra
    field (lines with fewer fields get NULLs). Not ``strict_mode``: that disables the
    parallel scan; extra fields beyond ``x`` are dropped silently, which is why a line
    with ``x`` set is looked up again. Only invalid UTF-8 is rejected (with its line)."""
    cols = ", ".join(f"'{c}': 'VARCHAR'" for c in (*columns, "x"))
    return (f"read_csv({sql_str(str(chunk))}, delim={sql_str(delim)}, quote='', escape='', "
            f"header=false, auto_detect=false, columns={{{cols}}}, strict_mode=false, "
            f"new_line='\\n', store_rejects=true, max_line_size={_CSV_MAX_LINE}, "
            f"buffer_size={_CSV_BUFFER}, null_padding=true, "
            f"nullstr={sql_str(_NULL_FIELD)})")


class TabSyntax(LineSyntax):
    """The Freebase dump layout, ``<s>\\t<p>\\t<o>\\t.``: DuckDB's CSV reader splits a
    line into four fields, string functions do the rest (regular expressions only for
    rare cases). A line with another shape goes to the Python parser."""

    def source_sql(self, chunk: Path) -> str:
        return f"(SELECT s, p, o, d, x, p AS p_key FROM {_read_csv(chunk, 'spod', chr(9))})"

    def fits(self, path: Path) -> bool:
        """Most of the first 100 data lines are four tab-separated fields."""
        try:
            lines = [ln for ln in head_lines(path, 100)
                     if ln.strip() and not ln.lstrip().startswith("#")]
        except (UnicodeDecodeError, OSError, InputFileError):
            return True  # the load itself reports what is wrong
        tabbed = sum(1 for ln in lines if ln.count("\t") == 3)
        return not lines or tabbed * 2 >= len(lines)

    def terms_sql(self, src: str, namespaces: dict[str, str]) -> str:
        sid = iri_id_sql("s", namespaces, bracketed=True)
        oid = iri_id_sql("o", namespaces, bracketed=True)
        known = ", ".join(sql_str(x) for x in sorted(COMMON_LANGS))
        dt_ok = iri_ok_sql("dt_iri", bracketed=False)
        unesc = unescape_sql("body")
        sentinel = sql_str(_SENTINEL)
        # CASE rather than AND/OR around costly terms: DuckDB evaluates both sides of
        # AND/OR in a projection, a CASE branch only for the rows that take it. Lines
        # whose predicate is dropped (``early``) get the same checks, so what is dropped
        # and what is malformed is what the Python parser says; only mapping is skipped.
        return f"""
        SELECT *,
               CASE WHEN shape_ok AND NOT early THEN {sid} END AS sid,
               CASE WHEN NOT shape_ok OR early THEN NULL WHEN okind = 'E' THEN {oid}
                    WHEN form = 'B' THEN replace(value, {sentinel}, '\\') ELSE value END AS obj,
               CASE WHEN shape_ok AND dt_iri IS NOT NULL THEN {datatype_sql('dt_iri')} END AS dt,
               CASE WHEN shape_ok THEN lower(tag) END AS lang
        FROM (
          SELECT *, coalesce(d = '.' AND x IS NULL AND CASE
                 WHEN NOT {iri_ok_sql('s', bracketed=True)} THEN false
                 WHEN okind = 'E' THEN {iri_ok_sql('o', bracketed=True)}
                 WHEN okind = 'L' THEN CASE
                      WHEN q <= 1 THEN false
                      WHEN form = 'B' THEN NOT contains(value, '\\')
                           AND NOT contains(replace(replace(body, '\\\\', '_'), '\\"', ''), '"')
                           AND NOT contains(body, {sentinel})
                      ELSE NOT contains(body, '"') END
                      AND CASE WHEN tag IS NOT NULL THEN CASE WHEN lower(tag) IN ({known})
                                    THEN true ELSE regexp_full_match(tag, '{_LANG_RE}') END
                               WHEN dt_iri IS NOT NULL THEN {dt_ok}
                               ELSE q = length(o) END
                 ELSE false END, false) AS shape_ok
          FROM (
            SELECT *,
                   CASE form WHEN 'G' THEN substr(o, q + 2)
                        WHEN 'B' THEN CASE WHEN q > 1 AND substr(o, q + 1, 1) = '@'
                                           THEN substr(o, q + 2) END END AS tag,
                   CASE form WHEN 'T' THEN substr(o, q + 4, length(o) - q - 4)
                        WHEN 'B' THEN CASE WHEN q > 1 AND substr(o, q + 1, 3) = '^^<'
                                                AND ends_with(o, '>')
                                           THEN substr(o, q + 4, length(o) - q - 4) END
                        END AS dt_iri,
                   CASE WHEN form = 'B' THEN {unesc} ELSE body END AS value
            FROM (
              SELECT *, CASE WHEN q > 1 THEN substr(o, 2, q - 2) END AS body
              FROM (
                SELECT *, CASE form
                       WHEN 'P' THEN length(o)
                       WHEN 'T' THEN strpos(o, '"^^<')
                       WHEN 'G' THEN strpos(o, '"@')
                       WHEN 'B' THEN length(o) + 1 - strpos(reverse(o), '"')
                       ELSE 0 END AS q
                FROM (
                  SELECT *,
                         CASE WHEN starts_with(o, '"') THEN 'L'
                              WHEN starts_with(o, '<') THEN 'E' END AS okind,
                         CASE WHEN NOT starts_with(o, '"') THEN NULL
                              WHEN contains(o, '\\') THEN 'B'
                              WHEN ends_with(o, '"') THEN 'P'
                              WHEN ends_with(o, '>') THEN 'T'
                              ELSE 'G' END AS form
                  FROM {src}
                )
              )
            )
          )
        )"""

    def raw_sql(self) -> str:
        return "concat_ws(chr(9), s, p, o, d, x)"


class RegexSyntax(LineSyntax):
    """Generic N-Triples (any spacing): one ``regexp_extract`` with groups over each
    whole line without a backslash; lines with backslashes (escapes) and everything
    the expression does not match go to the Python parser."""

    bracketed_keys = False
    _LINE = (rf'^[ \t]*<({IRI_RE})>[ \t]*<({IRI_RE})>[ \t]*'
             rf'(?:(<{IRI_RE}>)|("[^"\\\r\n]*")'
             rf'(?:\^\^<({IRI_RE})>|@({_LANG_RE.replace("(", "(?:")}))?)'
             rf'[ \t]*\.[ \t]*(?:#.*)?$')
    """Groups in order: s, p, oi (IRI object with <>), ol (literal with quotes), dt, lang."""

    def source_sql(self, chunk: Path) -> str:
        groups = "['s', 'p', 'oi', 'ol', 'dt', 'lang']"
        return f"""(
          SELECT line, x, g.p AS p_key, g FROM (
            SELECT line, x, CASE WHEN x IS NULL AND NOT contains(line, '\\')
                        THEN regexp_extract(line, {sql_str(self._LINE)}, {groups}) END AS g
            FROM {_read_csv(chunk, ('line',), chr(1))}
          )
        )"""

    def terms_sql(self, src: str, namespaces: dict[str, str]) -> str:
        sid = iri_id_sql("g.s", namespaces, bracketed=False)
        oid = iri_id_sql("g.oi", namespaces, bracketed=True)
        return f"""
        SELECT *,
               CASE WHEN shape_ok THEN {sid} END AS sid,
               CASE WHEN shape_ok THEN CASE WHEN g.oi <> '' THEN 'E' ELSE 'L' END END AS okind,
               CASE WHEN NOT shape_ok THEN NULL WHEN g.oi <> '' THEN {oid}
                    ELSE substr(g.ol, 2, length(g.ol) - 2) END AS obj,
               CASE WHEN shape_ok AND g.dt <> '' THEN {datatype_sql('g.dt')} END AS dt,
               CASE WHEN shape_ok AND g.lang <> '' THEN lower(g.lang) END AS lang
        FROM (SELECT *, coalesce(g.s <> '', false) AS shape_ok FROM {src})"""

    def raw_sql(self) -> str:
        return "concat_ws(chr(1), line, x)"


# -- the stager --------------------------------------------------------------------------
_ROLE_CODES: dict[str, str] = {}
for _code, _iris in (("N", NAME_PREDICATES), ("A", ALIAS_PREDICATES), ("T", TYPE_PREDICATES),
                     ("I", INSTANCE_PREDICATES), ("D", DESCRIPTION_PREDICATES),
                     ("M", MEDIATOR_PREDICATES)):
    for _iri in _iris:
        _ROLE_CODES[_iri] = _code
_ENTITY_KINDS = "('N', 'A', 'T', 'I', 'D')"
_PART_OPTIONS = {
    # Entity ids, names and descriptions are nearly all distinct: DuckDB built a
    # dictionary per column and dropped it. And a chunk has fewer entity rows than two
    # default row groups (122,880), so one thread encoded them all. A million-line
    # chunk: 0.17 -> 0.12 s wall, 13% less CPU; the 5M-line stage's entities 12.1 ->
    # 10.1 MB, aggregated by the import in the same time within noise (0.66-0.75 s).
    "entities": ", DICTIONARY_SIZE_LIMIT 1, ROW_GROUP_SIZE 50000",
}
"""Parquet options for a stage table's parts, beyond zstd level 1 (a faster codec or none
saved nothing measurable: the time goes to encoding, not compression)."""
_TERM_COLUMNS = ("sid", "pid", "role", "preason", "okind", "obj", "dt", "lang")


@dataclass(slots=True)
class _Bad:
    """A line the Python parser rejected: line number (None: to be located) and reason."""

    line: int | None
    reason: str
    raw: str | None = None


class VectorStager:
    """Stages one N-Triples-like file with DuckDB; see the module docstring. A stager
    for :func:`loaders.pipeline.run_load`.

    ``syntax`` splits lines; ``default_filter`` are the format's predicate rules (see
    :class:`~loaders.pipeline.PredicateFilter`); ``drop_foreign_literals`` drops
    every literal in a language not in ``options.langs`` (reason ``lang``), not only
    names, aliases and descriptions. ``fallback_syntax`` is used instead of ``syntax``
    for a file whose first lines ``syntax`` does not fit (e.g. space-separated lines
    given to :class:`TabSyntax`). ``chunk_bytes``: see :class:`ChunkReader`;
    ``threads``: DuckDB threads (default: all cores). ``stage_version`` and
    ``nameless_is_cvt`` are what :func:`~loaders.pipeline.run_load` reads from a stager.
    """

    def __init__(self, syntax: LineSyntax, *, fallback_syntax: LineSyntax | None = None,
                 default_filter: Sequence[tuple[str, str]] = (),
                 drop_foreign_literals: bool = False, chunk_bytes: int = CHUNK_BYTES,
                 threads: int | None = None, stage_version: int = 1,
                 nameless_is_cvt: bool | str = True) -> None:
        self.syntax = syntax
        self.fallback_syntax = fallback_syntax
        self.stage_version = stage_version
        self.nameless_is_cvt = nameless_is_cvt
        self.default_filter = tuple(default_filter)
        self.drop_foreign_literals = drop_foreign_literals
        self.chunk_bytes = chunk_bytes
        self.threads = threads

    def __call__(self, path: Path, writer: StageWriter, report: ParseReport, *,
                 options: LoadOptions, strict: bool = False,
                 progress: ProgressCallback | None = None) -> dict[str, int]:
        return _Run(self, Path(path), writer, report, options, strict, progress).run()


class _Run:
    """One file through a :class:`VectorStager`."""

    def __init__(self, stager: VectorStager, path: Path, writer: StageWriter,
                 report: ParseReport, options: LoadOptions, strict: bool,
                 progress: ProgressCallback | None) -> None:
        import duckdb

        self.stager = stager
        self.syntax = stager.syntax
        if stager.fallback_syntax is not None and not stager.syntax.fits(path):
            self.syntax = stager.fallback_syntax
        self.path = path
        self.name = str(path)
        self.writer = writer
        self.report = report
        self.options = options
        self.strict = strict
        self.progress = progress
        self.filter = PredicateFilter.for_options(options, stager.default_filter)
        self.mapper = TripleMapper(writer, namespaces=options.namespaces, langs=options.langs,
                                   bnode_scope=options.bnode_scope)
        self._bnode = f"_:{options.bnode_scope}_" if options.bnode_scope else "_:"
        self.seq_base = writer.next_seq((len(options.langs or ()) + 2) * _SEQ_SPAN)
        self.work = writer.dir / "_work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect()
        self._sql(f"SET temp_directory = {sql_str(str(self.work / 'spill'))}")
        self._sql(f"SET memory_limit = "
                  f"{sql_str(os.environ.get('KGBENCH_DUCKDB_MEMORY', '2GB'))}")
        self._sql("SET preserve_insertion_order = false")
        # Every join here has its small side (the predicate cache, used_preds, a list)
        # on the right, where the hash table belongs. DuckDB's build/probe-side optimizer
        # swapped the predicate cache join to hash the whole chunk (read_csv's row count
        # is unknown to it), with little parallelism: the chunk statement took 2.0-2.1 s
        # per million lines on 2 threads instead of 1.0-1.2 s, and staging a 5M-line
        # dump peaked at 640 MB RSS instead of 370 MB, measured.
        self._sql("SET disabled_optimizers = 'build_side_probe_side'")
        if stager.threads:
            self._sql(f"SET threads = {int(stager.threads)}")
        self._sql("CREATE TEMP TABLE used_preds (id VARCHAR)")
        self._sql("CREATE TEMP TABLE preds (c_key VARCHAR, c_ok BOOLEAN, c_pid VARCHAR, "
                  "c_role VARCHAR, c_reason VARCHAR)")
        self.counts: dict[str, int] = {}
        self.by_kind: dict[str, int] = {}
        self.preds: dict[str, int] = {}
        self.dropped: dict[str, int] = {}
        self.started = time.perf_counter()
        self._last_tick = 0.0
        self._mapping = self._mapping_sql()

    def _sql(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        return self.con.execute(sql, params).fetchall()

    # -- SQL -----------------------------------------------------------------------
    def _chunk_sql(self, chunk: Path) -> str:
        """Terms of a chunk joined with the predicate cache: the mapping's input.
        Predicates not in the cache yet are classified by the fallback expressions
        (the same rules as :meth:`_classify`, which fills the cache)."""
        syntax = self.syntax
        key_ok = (iri_ok_sql("p_key", bracketed=True) if syntax.bracketed_keys else "true")
        pid = iri_id_sql("p_key", self.options.namespaces, bracketed=syntax.bracketed_keys)
        roles = " ".join(f"WHEN {sql_str(syntax.key_of(iri))} THEN '{code}'"
                         for iri, code in sorted(_ROLE_CODES.items()))
        joined = (f"(SELECT r.*, k.*, coalesce(k.c_reason IS NOT NULL, false) AS early "
                  f"FROM {syntax.source_sql(chunk)} r LEFT JOIN preds k ON r.p_key = k.c_key)")
        terms = syntax.terms_sql(joined, self.options.namespaces)
        return f"""(
          SELECT fast, sid, pid, role,
                 CASE WHEN new THEN {self.filter.sql('pid')} ELSE c_reason END AS preason,
                 okind, obj, dt, lang,
                 CASE WHEN NOT fast THEN {syntax.raw_sql()} END AS raw,
                 CASE WHEN NOT fast THEN x IS NOT NULL END AS partial,
                 CASE WHEN new THEN p_key END AS new_key
          FROM (
            SELECT *, c_key IS NULL AS new,
                   coalesce(CASE WHEN NOT shape_ok THEN false WHEN c_key IS NULL THEN {key_ok}
                            ELSE c_ok END, false) AS fast,
                   CASE WHEN c_key IS NULL THEN {pid} ELSE c_pid END AS pid,
                   CASE WHEN c_key IS NOT NULL THEN c_role
                        ELSE CASE p_key {roles} ELSE 'F' END END AS role
            FROM ({terms})
          )
        )"""

    def _mapping_sql(self) -> str:
        """The mapping over a relation ``__SRC__`` (see :meth:`_map`) with the columns
        fast, sid, pid, role, preason, okind, obj, dt, lang, raw, partial, new_key."""
        langs = self.options.langs
        if langs is None:
            lang_ok = "true"
        else:
            listed = ", ".join(sql_str(x) for x in langs) or "NULL"
            lang_ok = f"(lang IS NULL OR lang IN ({listed}))"
        foreign = ("WHEN okind = 'L' AND NOT lang_ok THEN 'X'"
                   if self.stager.drop_foreign_literals else "")
        ws = "' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)"
        return f"""
        SELECT kind,
               CASE WHEN kind = 'X' THEN coalesce(preason, 'lang') END AS reason,
               sid, pid, okind, obj, dt, lang,
               CASE WHEN kind = 'F' AND okind = 'L' THEN 'lit:' || substr(sha1(
                    obj || chr(31) || coalesce(dt, '') || chr(31) || coalesce(lang, '')), 1, 24)
                    END AS key,
               raw, partial, new_key
        FROM (
          SELECT *, CASE
                 WHEN NOT fast THEN 'S'
                 WHEN preason IS NOT NULL THEN 'X'
                 WHEN role IN ('N', 'A', 'D') AND okind = 'L'
                      THEN CASE WHEN {lang_ok} THEN role ELSE 'X' END
                 WHEN role IN ('T', 'I') AND okind = 'E' THEN role
                 WHEN role = 'M' AND okind = 'L' THEN
                      CASE WHEN lower(trim(obj, {ws})) IN ('true', '1') THEN 'C' ELSE 'Z' END
                 {foreign.replace('lang_ok', lang_ok)}
                 ELSE 'F' END AS kind
          FROM __SRC__
        )"""

    def _seq_sql(self) -> str:
        """``seq`` of a staged entity row: a name or description in the first of
        ``langs`` sorts first (the import keeps the first by ``seq``), then the next
        language...; ties broken by a hash of the text, so the choice is deterministic."""
        langs = self.options.langs
        ranks = " ".join(f"WHEN {sql_str(x)} THEN {i}" for i, x in enumerate(langs or ()))
        rank = f"(CASE lang {ranks} ELSE {len(langs or ())} END)" if ranks else "0"
        return (f"CASE WHEN kind IN ('N', 'D') THEN {self.seq_base} + {rank} * {_SEQ_SPAN} "
                f"+ CAST(hash(obj) % {_SEQ_SPAN} AS BIGINT) ELSE {self.seq_base} END")

    def _map(self, src: str) -> str:
        return self._mapping.replace("__SRC__", src)

    def _classify(self, key: str) -> tuple[str, bool, str, str, str | None]:
        """A predicate cache row ``(key, ok, pid, role, reason)``, computed in Python."""
        bracketed = self.syntax.bracketed_keys
        ok = iri_ok_py(key, bracketed=bracketed)
        iri = key[1:-1] if bracketed and ok else key
        pid = self.mapper.iri_id(iri)
        return key, ok, pid, _ROLE_CODES.get(iri, "F"), self.filter.reason(pid)

    # -- running -------------------------------------------------------------------
    def run(self) -> dict[str, int]:
        chunk_bytes = int(os.environ.get("KGBENCH_CHUNK_BYTES") or self.stager.chunk_bytes)
        reader = ChunkReader(self.path, self.work / "chunks", chunk_bytes=chunk_bytes)
        self.max_line = reader.max_line
        try:
            for chunk in reader:
                self._chunk(chunk)
                self._tick(reader.position, reader.size)
            self._tick(reader.size, reader.size, force=True)
        finally:
            reader.close()
            self.con.close()
            shutil.rmtree(self.work, ignore_errors=True)
        return self._result()

    def _tick(self, done: int, total: int, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.perf_counter()
        if not force and now - self._last_tick < _PROGRESS_EVERY_S:
            return
        self._last_tick = now
        rate = self.report.lines / max(now - self.started, 1e-9)
        facts = self.by_kind.get("F", 0)
        self.progress(f"parsing {self.path.name} | {self.report.lines:,} lines, "
                      f"{rate:,.0f} lines/s, {facts:,} facts kept", done, total)

    def _chunk(self, chunk: Chunk) -> None:
        self.report.lines += chunk.lines
        bad: list[_Bad] = []
        if chunk.python:
            empty = ", ".join(f"NULL::VARCHAR AS {c}" for c in _TERM_COLUMNS)
            self._sql("CREATE OR REPLACE TEMP TABLE m AS " + self._map(
                f"(SELECT true AS fast, {empty}, NULL::VARCHAR AS raw, NULL::BOOLEAN AS partial, "
                "NULL::VARCHAR AS new_key WHERE false)"))
            rows, bad = self._python_chunk(chunk)
        else:
            self._sql("CREATE OR REPLACE TEMP TABLE m AS "
                      + self._map(self._chunk_sql(chunk.path)))
            new = [r[0] for r in self._sql(
                "SELECT DISTINCT new_key FROM m WHERE new_key IS NOT NULL")]
            if new:
                self.con.executemany("INSERT INTO preds VALUES (?, ?, ?, ?, ?)",
                                     [list(self._classify(k)) for k in new])
            slow = self._sql("SELECT raw, partial FROM m WHERE kind = 'S'")
            rejects = self._sql(
                "SELECT line, min(line_byte_position) FROM reject_errors "
                "GROUP BY line ORDER BY line")
            self._sql("DROP TABLE IF EXISTS reject_errors")
            self._sql("DROP TABLE IF EXISTS reject_scans")
            rows, bad = self._python_rows(chunk, slow, rejects)
        if chunk.long_lines:
            self._long_lines(chunk, rows, bad)
        if bad:
            self._malformed(chunk, bad)
        if rows:
            table = pa.table({
                "fast": pa.array([True] * len(rows), pa.bool_()),
                **{name: pa.array([r[i] for r in rows], pa.string())
                   for i, name in enumerate(_TERM_COLUMNS)},
                "raw": pa.nulls(len(rows), pa.string()),
                "partial": pa.nulls(len(rows), pa.bool_()),
                "new_key": pa.nulls(len(rows), pa.string()),
            })
            self.con.register("slow_rows", table)
            try:
                self._sql("INSERT INTO m " + self._map("slow_rows"))
            finally:
                self.con.unregister("slow_rows")
        self._write_outputs()
        self._sql("DROP TABLE m")

    def _python_rows(self, chunk: Chunk, slow: list[tuple[Any, ...]],
                     rejects: list[tuple[Any, ...]]) -> tuple[list[tuple[Any, ...]], list[_Bad]]:
        """Parse the lines SQL did not take with the W3C parser."""
        rows: list[tuple[Any, ...]] = []
        bad: list[_Bad] = []
        data = chunk.path.read_bytes() if rejects or any(p for _, p in slow) else b""
        after: dict[str, int] = {}
        for text, partial in slow:
            if not partial:
                self._parse(text or "", None, rows, bad)
                continue
            # More fields than the reader keeps: the whole line from the chunk.
            found = _find_line(data, text, after.get(text, 0), prefix=True)
            if found is None:  # pragma: no cover - the reader saw it in this chunk
                bad.append(_Bad(chunk.first_line, "line not found again in its chunk"))
                continue
            index, end = found
            after[text] = end
            stop = data.find(b"\n", end)
            full = data[end - len(text.encode("utf-8", "surrogatepass")):
                        len(data) if stop < 0 else stop].decode("utf-8")
            self._parse(full, chunk.first_line + index, rows, bad)
        if rejects:
            for line, hint in rejects:
                lineno = chunk.first_line + int(line) - 1
                raw_line = _line_bytes(data, int(line), int(hint or 0))
                try:
                    text = raw_line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    bad.append(_Bad(lineno, _utf8_reason(raw_line, exc)))
                    continue
                self._parse(text, lineno, rows, bad)
        return rows, bad

    def _long_lines(self, chunk: Chunk, rows: list[tuple[Any, ...]], bad: list[_Bad]) -> None:
        """Parse the lines the reader took out of the chunk (:class:`LineGuard`) as
        :meth:`_python_chunk` parses lines; one over the line limit is malformed."""
        for lineno, line in chunk.long_lines:
            if line.text is None:
                bad.append(_Bad(lineno, long_line_reason(self.max_line)))
                continue
            raw_line = line.text.rstrip(b"\r")
            try:
                text = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad.append(_Bad(lineno, _utf8_reason(raw_line, exc)))
                continue
            for segment in text.split("\r") if "\r" in text else (text,):
                self._parse(segment, lineno, rows, bad)

    def _python_chunk(self, chunk: Chunk) -> tuple[list[tuple[Any, ...]], list[_Bad]]:
        """A chunk with lone CRs, read like TextSource does: LF lines (a CR before the
        LF dropped), each split at CRs into N-Triples lines."""
        rows: list[tuple[Any, ...]] = []
        bad: list[_Bad] = []
        lines = chunk.path.read_bytes().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for i, raw_line in enumerate(lines):
            lineno = chunk.first_line + i
            raw_line = raw_line.rstrip(b"\r")
            try:
                text = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad.append(_Bad(lineno, _utf8_reason(raw_line, exc)))
                continue
            for segment in text.split("\r") if "\r" in text else (text,):
                self._parse(segment, lineno, rows, bad)
        return rows, bad

    def _parse(self, text: str, lineno: int | None, rows: list[tuple[Any, ...]],
               bad: list[_Bad]) -> None:
        try:
            raw = parse_line_raw(text)
        except NTriplesSyntaxError as exc:
            bad.append(_Bad(lineno, exc.reason, text if lineno is None else None))
            return
        if raw is not None:
            rows.append(self._terms(raw))

    def _terms(self, raw: RawTriple) -> tuple[Any, ...]:
        """The mapping input columns of a parsed line (see :data:`_TERM_COLUMNS`)."""
        s_iri, s_bnode, p, o_iri, o_bnode, string, datatype, lang = raw
        iri_id = self.mapper.iri_id
        sid = iri_id(s_iri) if s_iri is not None else self._bnode + (s_bnode or "")
        pid = iri_id(p)
        role, reason = _ROLE_CODES.get(p, "F"), self.filter.reason(pid)
        if o_iri is not None:
            return sid, pid, role, reason, "E", iri_id(o_iri), None, None
        if string is not None:
            dt = None if datatype == _XSD_STRING else short_datatype(datatype)
            return sid, pid, role, reason, "L", string, dt, lang.lower() if lang else None
        return sid, pid, role, reason, "E", self._bnode + (o_bnode or ""), None, None

    def _malformed(self, chunk: Chunk, bad: list[_Bad]) -> None:
        """Give every malformed line its number, then count (or raise) in line order."""
        unknown = [b for b in bad if b.line is None]
        if unknown:
            data = chunk.path.read_bytes()
            after: dict[str, int] = {}  # identical lines: each occurrence in turn
            for b in unknown[:_MAX_LOCATE]:
                text = b.raw or ""
                found = _find_line(data, text, after.get(text, 0))
                if found is not None:
                    after[text] = found[1]
                    b.line = chunk.first_line + found[0]
        located = sorted((b for b in bad if b.line is not None), key=lambda b: b.line or 0)
        for b in located + [b for b in bad if b.line is None]:
            line = b.line if b.line is not None else chunk.first_line
            if self.strict:
                raise MalformedInputError(self.name, line, b.reason)
            self.report.add_malformed(self.name, line, b.reason)

    def _write_outputs(self) -> None:
        # One aggregate gives every count (a million-line chunk: 0.17 -> 0.14 s CPU
        # against separate kind, predicate and used-predicate queries, measured). Rows
        # SQL left to Python (kind 'S') were parsed and added again: they are skipped
        # here and by every COPY rather than deleted (0.02 s).
        groups = self._sql("SELECT kind, reason, okind = 'L', "
                           "CASE WHEN kind <> 'X' THEN pid END, count(*) "
                           "FROM m WHERE kind <> 'S' GROUP BY ALL")
        literal_facts = 0
        used: set[str] = set()
        for kind, reason, is_literal, pid, n in groups:
            self.by_kind[kind] = self.by_kind.get(kind, 0) + n
            if kind == "X":
                self.dropped[reason] = self.dropped.get(reason, 0) + n
                continue
            self.preds[pid] = self.preds.get(pid, 0) + n
            if kind == "F":
                used.add(pid)
                if is_literal:
                    literal_facts += n
        self.report.triples += sum(g[-1] for g in groups)
        present = {g[0] for g in groups}
        if "F" in present:
            self._sql("INSERT INTO used_preds SELECT unnest(?::VARCHAR[]) "
                      "EXCEPT SELECT id FROM used_preds", [sorted(used)])
            self._copy("facts", "SELECT sid AS subject, pid AS predicate, "
                       "CASE WHEN okind = 'L' THEN key ELSE obj END AS object, "
                       f"okind AS object_kind, {self.seq_base}::BIGINT AS seq "
                       "FROM m WHERE kind = 'F'")
            if literal_facts:
                self._copy("literals", "SELECT key AS id, obj AS value, dt AS datatype, lang "
                           "FROM m WHERE kind = 'F' AND okind = 'L'")
        if present & {"N", "A", "T", "I", "D"}:
            self._copy("entities", f"""
                SELECT CASE WHEN kind = 'I' THEN obj ELSE sid END AS id,
                       CASE WHEN kind = 'N' THEN obj END AS name,
                       CASE WHEN kind = 'A' THEN [obj] ELSE []::VARCHAR[] END AS aliases,
                       CASE WHEN kind = 'T' THEN [obj] WHEN kind = 'I' THEN [sid]
                            ELSE []::VARCHAR[] END AS types,
                       NULL::BOOLEAN AS is_cvt,
                       CASE WHEN kind = 'D' THEN obj END AS description,
                       {self._seq_sql()} AS seq
                FROM m WHERE kind IN {_ENTITY_KINDS}""")
        if "N" in present:
            n = self._copy("predicates", """
                SELECT sid AS id, obj AS label FROM m WHERE kind = 'N' AND (
                    (length(sid) - length(replace(sid, '.', '')) >= 2
                     AND NOT starts_with(sid, 'm.') AND NOT starts_with(sid, 'g.'))
                    OR regexp_full_match(sid, 'P[1-9][0-9]*')
                    OR sid IN (SELECT id FROM used_preds))""", drop_empty=True)
            self.counts["predicate_labels"] = self.counts.get("predicate_labels", 0) + n
        if "C" in present:
            self._copy("cvt_types", "SELECT sid AS type FROM m WHERE kind = 'C'")

    def _copy(self, table: str, query: str, *, drop_empty: bool = False) -> int:
        """Write ``query`` as a new part of ``table``; its row count (an empty part is
        removed with ``drop_empty``)."""
        part = self.writer.new_part(table)
        rows = self._sql(f"COPY ({query}) TO {sql_str(str(part))} "
                         "(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1"
                         f"{_PART_OPTIONS.get(table, '')})")
        n = int(rows[0][0]) if rows else 0
        if drop_empty and n == 0:
            part.unlink(missing_ok=True)
        self.writer.count_rows(table, n)
        return n

    def _result(self) -> dict[str, int]:
        k = self.by_kind
        out = {
            "facts": k.get("F", 0),
            "names": k.get("N", 0),
            "aliases": k.get("A", 0),
            "types": k.get("T", 0) + k.get("I", 0),
            "descriptions": k.get("D", 0),
            "cvt_types": k.get("C", 0),
            "predicate_labels": self.counts.get("predicate_labels", 0),
        }
        for reason, n in self.dropped.items():
            out[DROPPED_PREFIX + reason] = n
        for pid, n in self.preds.items():
            out[PREDICATE_PREFIX + pid] = n
        return out


def _utf8_reason(raw: bytes, exc: UnicodeDecodeError) -> str:
    """The reason :class:`~loaders.sources.TextSource` gives for such a line."""
    return (f"invalid UTF-8 at byte {exc.start + 1} of the line "
            f"({raw[exc.start:exc.start + 4]!r})")


def _line_bytes(data: bytes, line: int, hint: int) -> bytes:
    """Line ``line`` (1-based) of ``data``; ``hint`` is DuckDB's byte position of the
    line, checked before it is trusted."""
    for start in (hint - 1, hint, hint - 2):
        if 0 <= start <= len(data) and (start == 0 or data[start - 1] == 10) \
                and data.count(b"\n", 0, start) == line - 1:
            end = data.find(b"\n", start)
            return data[start:] if end < 0 else data[start:end]
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
    end = data.find(b"\n", start)
    return data[start:] if end < 0 else data[start:end]


def _find_line(data: bytes, text: str, start: int, *, prefix: bool = False
               ) -> tuple[int, int] | None:
    """``(0-based line index, end offset of the match)`` of the first line of ``data``
    at or after byte ``start`` equal to ``text`` (``prefix``: or starting with ``text``
    followed by a field delimiter)."""
    needle = text.encode("utf-8", "surrogatepass")
    pos = start
    while True:
        i = data.find(needle, pos)
        if i < 0:
            return None
        end = i + len(needle)
        at_start = i == 0 or data[i - 1] == 10
        if prefix:  # the whole line, or its start up to a field delimiter
            fits = end == len(data) or data[end] in (10, 9, 1)
        else:
            fits = end == len(data) or data[end] == 10
        if at_start and fits:
            return data.count(b"\n", 0, i), end
        pos = i + 1


def stage_ntriples_vectorized(path: Path, writer: StageWriter, report: ParseReport, *,
                              options: LoadOptions, strict: bool = False,
                              progress: ProgressCallback | None = None) -> dict[str, int]:
    """Stager for dump-scale N-Triples (any IRIs, tab- or space-separated) with the
    :class:`~loaders.triples.TripleMapper` conventions and no default filter."""
    return VectorStager(RegexSyntax())(path, writer, report, options=options, strict=strict,
                                       progress=progress)


setattr(stage_ntriples_vectorized, "nameless_is_cvt", True)  # noqa: B010 - as TripleMapper


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
