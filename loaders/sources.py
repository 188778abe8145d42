"""Reading input files: transparent decompression, strict UTF-8, checksums.

:func:`open_text` streams the lines of a plain, gzip, bzip2 or Zstandard file. The
compression is recognised by the file's magic bytes, so a mis-named ``dump.nt`` that
is really gzip still reads. A truncated or corrupt compressed file raises
:class:`~loaders.errors.InputFileError` with the command that tests it
(:func:`integrity_hint`).

Lines are split on LF only and decoded one at a time as strict UTF-8, so an invalid
byte sequence is reported with its exact line number and the rest of the file can
still be read. A trailing CR (CRLF files) is removed; lone CRs inside a line are left
to the format parser (N-Triples treats them as line ends, see ``loaders.ntriples``).

A line longer than :func:`max_line_bytes` (``$KGBENCH_MAX_LINE_BYTES``, default
:data:`MAX_LINE_BYTES`, 64 MiB; the length counts the line's bytes without its LF) is
malformed, with the reason :func:`long_line_reason`: it is skipped without being held
in memory, so a file with no line ends at all cannot exhaust memory.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import os
import shlex
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pyarrow as pa

from loaders.errors import (
    InputFileError,
    LoaderError,
    MalformedInputError,
    NotFormatError,
    ParseReport,
)
from loaders.input_file import open_input

_igzip: Any
_ISAL_ERRORS: tuple[type[BaseException], ...]
try:  # ISA-L's gzip: 2.5x zlib's decompression speed (measured on the synthetic dump)
    from isal import igzip as _igzip
    from isal import isal_zlib

    _ISAL_ERRORS = (cast("type[BaseException]", isal_zlib.error),)
except ImportError:  # pragma: no cover - isal is a dependency; zlib still works
    _igzip, _ISAL_ERRORS = None, ()

DECOMPRESSION_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error,
                                                          *_ISAL_ERRORS)
"""What reading corrupt or truncated compressed data raises (any of the decompressors)."""

_GZIP_MAGIC = b"\x1f\x8b"
_BZ2_MAGIC = b"BZh"
_BZ2_BLOCK_MAGIC = b"1AY&SY"  # after "BZh" + block-size digit: rules out text files
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_READ_BUFFER = 1 << 20

MAX_LINE_BYTES = 64 << 20
"""Default longest line (bytes, LF excluded) a loader reads: far above any line of the
Freebase and Wikidata dumps, small enough that one line cannot exhaust memory."""
MAX_LINE_ENV = "KGBENCH_MAX_LINE_BYTES"

COMPRESSED_SUFFIXES = (".gz", ".bz2", ".zst")
PROGRESS_EVERY = 50_000
"""Default number of lines between two progress callbacks of :func:`iter_records`."""

_R = TypeVar("_R")

OnBadLine = Callable[[int, str], None]
"""``on_error(line_number, reason)``: told about a line that is not valid UTF-8."""


def max_line_bytes() -> int:
    """The longest line loaders read, in bytes: ``$KGBENCH_MAX_LINE_BYTES`` (a positive
    integer) or :data:`MAX_LINE_BYTES`. Longer lines are malformed."""
    text = os.environ.get(MAX_LINE_ENV, "").strip()
    if not text:
        return MAX_LINE_BYTES
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise LoaderError(f"{MAX_LINE_ENV}={text!r} is not a positive number of bytes; "
                          f"set it to e.g. {MAX_LINE_BYTES} (the default) or unset it")
    return value


def long_line_reason(limit: int) -> str:
    """The malformed-line reason of a line longer than ``limit`` bytes."""
    return (f"line longer than {limit:,} bytes (the limit; raise {MAX_LINE_ENV} "
            "to read it)")


def compression_of(path: str | Path, head: bytes) -> str | None:
    """``"gzip"``, ``"bz2"``, ``"zstd"`` or ``None`` (plain) for a file starting ``head``.

    Magic bytes decide; a compressed extension on a file without the magic is a lie
    we report rather than decompress (it would fail with a cryptic codec error).
    """
    if head.startswith(_GZIP_MAGIC):
        return "gzip"
    if head.startswith(_ZSTD_MAGIC):
        return "zstd"
    if head.startswith(_BZ2_MAGIC) and head[4:10] == _BZ2_BLOCK_MAGIC:
        return "bz2"
    suffix = Path(path).suffix.lower()
    if suffix in COMPRESSED_SUFFIXES and head:
        raise InputFileError(
            path, f"the name says {suffix} but the content is not {suffix[1:]}-compressed; "
            "rename the file or re-download it"
        )
    return None


_TEST_COMMANDS = {"gzip": "gzip -t", "bz2": "bzip2 -t", "zstd": "zstd -t"}
"""The command that checks a compressed file's integrity, per compression."""


def integrity_hint(path: str | Path, compression: str | None) -> str:
    """What to do about a truncated or corrupt file: re-download it, or test it with
    the checker of its compression (``gzip -t``, ``bzip2 -t``, ``zstd -t``)."""
    test = _TEST_COMMANDS.get(compression or "")
    if test is None:
        return "re-download it"
    return f"re-download it, or test it with `{test} {shlex.quote(str(path))}`"


def _open_error(path: Path, exc: OSError) -> InputFileError:
    """A friendly InputFileError for a failed ``open``."""
    if isinstance(exc, FileNotFoundError):
        return InputFileError(path, "file not found; check the path")
    if isinstance(exc, IsADirectoryError):
        return InputFileError(path, "is a directory; pass the files inside it")
    if isinstance(exc, PermissionError):
        return InputFileError(path, "permission denied; check the file's permissions")
    return InputFileError(path, f"cannot open ({exc.strerror or exc}); check the file")


def zstd_reader(raw: Any) -> io.BufferedIOBase:
    """A buffered reader decompressing the Zstandard frames of binary ``raw``, through
    Arrow's codec: it raises ``OSError`` on a truncated file, where the ``zstandard``
    module's stream reader just stops (a cut ``.zst`` loaded half its lines, silently)."""
    return io.BufferedReader(pa.CompressedInputStream(raw, "zstd"), _READ_BUFFER)


def gzip_reader(fileobj: Any) -> io.BufferedIOBase:
    """A reader decompressing the gzip stream (all members) of binary ``fileobj``: ISA-L
    when installed, else :mod:`gzip`. Both release the GIL while they inflate, so a
    reader thread decompresses while the main thread parses."""
    if _igzip is not None:
        return _igzip.IGzipFile(fileobj=fileobj, mode="rb")
    return gzip.GzipFile(fileobj=fileobj, mode="rb")


class TextSource:
    """An open input file yielding decoded lines. Use via :func:`open_text`.

    ``size`` is the file's size on disk and :attr:`position` how many of those bytes
    have been consumed so far (compressed bytes for compressed files), which is what a
    progress bar wants. ``compression`` is ``None``, ``"gzip"``, ``"bz2"`` or ``"zstd"``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._raw = open_input(self.path, _READ_BUFFER)
        except OSError as exc:
            raise _open_error(self.path, exc) from exc
        try:
            self.size = self.path.stat().st_size
            self.compression = compression_of(self.path, self._raw.peek(10)[:10])
            self._stream: io.BufferedIOBase = self._decompressor()
        except BaseException:
            self._raw.close()
            raise
        self.lines_read = 0

    def _decompressor(self) -> io.BufferedIOBase:
        if self.compression == "gzip":
            return gzip_reader(self._raw)
        if self.compression == "bz2":
            return bz2.BZ2File(self._raw, mode="rb")
        if self.compression == "zstd":
            return zstd_reader(self._raw)
        return self._raw

    @property
    def position(self) -> int:
        """Bytes of the file on disk consumed so far."""
        try:
            return self._raw.tell()
        except (OSError, ValueError):
            return 0

    def numbered(self, on_error: OnBadLine | None = None) -> Iterator[tuple[int, str]]:
        """Yield ``(line_number, text)`` for every line, EOL removed (1-based numbers).

        A line that is not valid UTF-8, or longer than :func:`max_line_bytes`, raises
        :class:`MalformedInputError`, or with ``on_error`` is reported through it and
        skipped. Unreadable compressed data raises :class:`InputFileError`. A UTF-8
        byte-order mark on line 1 is dropped.
        """
        lineno = self.lines_read
        limit = max_line_bytes()
        # readline with a size bound: a line longer than the limit is never read whole.
        readline = self._stream.readline
        try:
            while raw := readline(limit + 1):
                lineno += 1
                self.lines_read = lineno
                if len(raw) > limit and not raw.endswith(b"\n"):
                    self._skip_rest_of_line()
                    reason = long_line_reason(limit)
                    if on_error is None:
                        raise MalformedInputError(self.path, lineno, reason)
                    on_error(lineno, reason)
                    continue
                try:
                    text = raw.rstrip(b"\r\n").decode("utf-8")
                except UnicodeDecodeError as exc:
                    reason = (f"invalid UTF-8 at byte {exc.start + 1} of the line "
                              f"({raw[exc.start:exc.start + 4]!r})")
                    if on_error is None:
                        raise MalformedInputError(self.path, lineno, reason) from None
                    on_error(lineno, reason)
                    continue
                if lineno == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                yield lineno, text
        except DECOMPRESSION_ERRORS as exc:
            raise InputFileError(
                self.path, f"cannot read {self.compression or 'file'} data after line "
                f"{lineno} ({exc}); the file may be truncated or corrupt: "
                f"{integrity_hint(self.path, self.compression)}"
            ) from exc

    def read_bytes(self, size: int) -> bytes:
        """Up to ``size`` bytes of the content (decompressed), from where reading is:
        for telling what a file holds (text or binary) before reading its lines.
        Unreadable compressed data raises :class:`InputFileError`."""
        try:
            return self._stream.read(size)
        except DECOMPRESSION_ERRORS as exc:
            raise InputFileError(
                self.path, f"cannot read {self.compression or 'file'} data ({exc}); the "
                f"file may be truncated or corrupt: {integrity_hint(self.path, self.compression)}"
            ) from exc

    def _skip_rest_of_line(self) -> None:
        """Read past the next LF (or to the end), in bounded pieces."""
        while piece := self._stream.readline(_READ_BUFFER):
            if piece.endswith(b"\n"):
                return

    def __iter__(self) -> Iterator[str]:
        """The lines' text (strict: an undecodable line raises MalformedInputError)."""
        for _, text in self.numbered():
            yield text

    def close(self) -> None:
        if self._stream is not self._raw:
            self._stream.close()
        self._raw.close()

    def __enter__(self) -> TextSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_text(path: str | Path) -> TextSource:
    """Open ``path`` for line-by-line reading (plain, .gz, .bz2, .zst); see :class:`TextSource`.

    Raises :class:`InputFileError` when the file is missing, is a directory or cannot
    be read.
    """
    return TextSource(path)


def file_checksum(path: str | Path, *, chunk_size: int = _READ_BUFFER,
                  progress: Callable[[str, int, int | None], None] | None = None) -> str:
    """SHA-256 of the file's bytes as stored (compressed bytes for compressed files),
    as 64 lowercase hex digits. Streams in ``chunk_size`` chunks, so memory stays flat.
    ``progress("reading NAME (checksum)", bytes_done, size)`` is called for files over
    256 MB (a dump takes a while)."""
    p = Path(path)
    digest = hashlib.sha256()
    try:
        size = p.stat().st_size
        report = progress if size > (256 << 20) else None
        label = f"reading {p.name} (checksum)"
        done = 0
        with open_input(p) as fh:
            while chunk := fh.read(chunk_size):
                digest.update(chunk)
                done += len(chunk)
                if report is not None and done % (64 * chunk_size) < chunk_size:
                    report(label, done, size)
        if report is not None:
            report(label, size, size)
    except OSError as exc:
        raise _open_error(p, exc) from exc
    return digest.hexdigest()


class LineSyntaxError(ValueError):
    """Base of the per-line syntax errors format parsers raise; ``reason`` says why
    (it becomes the ``reason`` of :class:`MalformedInputError`)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def data_name(path: str | Path) -> str:
    """The lower-case file name without a compression suffix (``Dump.NT.gz`` ->
    ``dump.nt``): what format detection looks at."""
    name = Path(path).name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def reading_error(src: TextSource, exc: InputFileError) -> InputFileError:
    """``exc`` (a read/decompression failure) with the byte offset where reading stopped."""
    return InputFileError(
        src.path, f"{exc.problem} [reading stopped at byte {src.position:,} of "
                  f"{src.size:,} of the {src.compression or 'plain'} file]")


def iter_records(
    path: str | Path,
    parse: Callable[[str], _R | None],
    *,
    strict: bool = False,
    report: ParseReport | None = None,
    progress: Callable[[str, int, int | None], None] | None = None,
    every: int = PROGRESS_EVERY,
    split_cr: bool = False,
) -> Iterator[_R]:
    """The loop every line-based reader shares: read ``path`` (any compression, see
    :func:`open_text`), ``parse`` each line, count, and report.

    ``parse(line)`` returns a record, or ``None`` for a line holding none (blank,
    comment), or raises :class:`LineSyntaxError` for a malformed line. ``report``
    counts physical ``lines``, the ``triples`` (records) yielded and the ``malformed``
    lines, keeping the first examples; under ``strict`` the first malformed line (or
    line that is not UTF-8) raises :class:`MalformedInputError` ``path:line: reason``.
    With ``split_cr`` a line holding lone CRs is parsed as several lines (N-Triples
    EOL), all reported under its physical line number. ``progress("parsing NAME",
    bytes_read, file_size)`` is called every ``every`` lines and once at the end.
    """
    rep = report if report is not None else ParseReport()
    name = str(path)
    label = f"parsing {Path(path).name}"
    with open_text(path) as src:
        on_error = None if strict else (lambda n, r: rep.add_malformed(name, n, r))
        next_tick = every
        try:
            for lineno, line in src.numbered(on_error):
                rep.lines = lineno  # exact even if the caller stops early or we raise
                if split_cr and "\r" in line:
                    yield from _segments(line, lineno, parse, name, strict, rep)
                else:  # the hot path, kept free of extra calls
                    try:
                        record = parse(line)
                    except LineSyntaxError as exc:
                        if strict:
                            raise MalformedInputError(name, lineno, exc.reason) from None
                        rep.add_malformed(name, lineno, exc.reason)
                        record = None
                    if record is not None:
                        rep.triples += 1
                        yield record
                if lineno >= next_tick:
                    next_tick += every
                    if progress is not None:
                        progress(label, src.position, src.size)
        except NotFormatError:
            raise  # the file's content, not a failure to read it
        except InputFileError as exc:
            raise reading_error(src, exc) from exc
        rep.lines = src.lines_read
        if progress is not None:
            progress(label, src.size, src.size)


def _segments(line: str, lineno: int, parse: Callable[[str], _R | None], name: str,
              strict: bool, rep: ParseReport) -> Iterator[_R]:
    """Parse a physical line holding lone CRs as several lines."""
    for segment in line.split("\r"):
        try:
            record = parse(segment)
        except LineSyntaxError as exc:
            if strict:
                raise MalformedInputError(name, lineno, exc.reason) from None
            rep.add_malformed(name, lineno, exc.reason)
            continue
        if record is not None:
            rep.triples += 1
            yield record
