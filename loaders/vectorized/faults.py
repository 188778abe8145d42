"""Where a damaged compressed dump stops being readable (:func:`locate_fault`): the
byte offset of the first bad gzip or bzip2 block, and what is wrong there, so an error
can say how much of the file was good.
"""

from __future__ import annotations

import bz2
import zlib
from pathlib import Path
from typing import Any


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
        for data in iter(lambda: fh.read(block_size), b""):
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
        for data in iter(lambda: fh.read(block_size), b""):
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
