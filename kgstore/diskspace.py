"""Recognising a full disk in whatever error the OS, DuckDB or LadybugDB raised.

A full disk surfaces in many disguises: an ``OSError`` with ``errno`` ``ENOSPC`` from
Python and Arrow writes, a DuckDB ``IOException`` whose text holds "No space left on
device", a LadybugDB ``RuntimeError`` about a failed checkpoint, even a failed *read*
of a database page the engine could not write a moment before. Each caller that
writes (the store's import, the staging code, the loaders, ``generate``) passes what
it caught to :func:`disk_full_error` and raises the :class:`DiskFullError` it gets, so
the user reads one line naming the cause and the file instead of a misleading symptom.
"""

from __future__ import annotations

import errno
import re
import shutil
from pathlib import Path

from kgstore.errors import DiskFullError

STORE_REMEDY = ("free space on that device or choose another --store, then rerun the "
                "command (it resumes where it stopped)")
"""What to do after a store or its staging area filled the disk."""

_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_FULL_TEXTS = ("no space left on device", "disk quota exceeded")
# An engine's IO failure that names no errno: a full disk when the device is nearly
# full at that moment (LadybugDB reported "Cannot read from file ... numBytesRead: 0"
# for a page its failed checkpoint had not written, on a full 20 MB tmpfs).
_ENGINE_IO = re.compile(r"\bIO (exception|error)\b|cannot (write|read) (to|from) file",
                        re.IGNORECASE)
NEARLY_FULL_BYTES = 64 << 20
"""Free space below which an engine IO error without an errno counts as a full disk."""
# Where engines name the file they failed on.
_PATH_PATTERNS = (
    re.compile(r'[Cc]ould not write file \\?"(.+?)\\?"'),
    re.compile(r"\bpath: (.+?) fileDescriptor"),
    re.compile(r"[Cc]annot (?:read from|write to) file: (.+?) fileDescriptor"),
)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or while handling."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def free_bytes(path: str | Path) -> int | None:
    """Free space on the device holding ``path`` (or its nearest existing parent)."""
    p = Path(path)
    for candidate in (p, *p.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def is_disk_full(exc: BaseException, near: str | Path | None = None) -> bool:
    """Whether ``exc`` (or an exception in its chain) says the device is full. With
    ``near``, an engine IO error without an errno counts too when the device holding
    ``near`` has less than :data:`NEARLY_FULL_BYTES` free."""
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, OSError) and e.errno in _FULL_ERRNOS:
            return True
        text = str(e).lower()
        if any(t in text for t in _FULL_TEXTS):
            return True
    if near is not None and any(_ENGINE_IO.search(str(e)) for e in chain):
        free = free_bytes(near)
        return free is not None and free < NEARLY_FULL_BYTES
    return False


def written_path(exc: BaseException) -> str | None:
    """The file an OS or engine error names, if it names one."""
    for e in _chain(exc):
        if isinstance(e, OSError) and e.filename:
            return str(e.filename)
        for pattern in _PATH_PATTERNS:
            found = pattern.search(str(e))
            if found:
                return found.group(1)
    return None


def disk_full_error(exc: BaseException, path: str | Path, remedy: str = STORE_REMEDY,
                    *, near: str | Path | None = None) -> DiskFullError | None:
    """The :class:`DiskFullError` to raise for ``exc`` when it is a full disk (see
    :func:`is_disk_full`; ``near`` defaults to ``path``), else None. The message names
    the file the error names, else ``path``."""
    if isinstance(exc, DiskFullError):
        return exc
    if not is_disk_full(exc, near if near is not None else path):
        return None
    return DiskFullError(written_path(exc) or str(path), remedy)
