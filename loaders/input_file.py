"""Opening a file a user hands to a command, the one way: :func:`open_input`.

Only a regular file is read. ``open()`` on a FIFO waits for a writer that may never
come (``evaluate --predictions PIPE`` hung for ever), a character device such as
``/dev/zero`` or ``/dev/urandom`` never ends, and a socket cannot be opened at all; each
of those is refused with one line naming the path and what it is
(:class:`~loaders.errors.InputFileError`). The file is opened without blocking and
checked on the open descriptor (``fstat``), so a path swapped for a pipe between a
check and the open is refused all the same. Missing files, directories and permission
errors raise the ``OSError`` that ``open()`` raises, so each reader keeps its own
message for those. No command reads standard input: ``-`` is a file named ``-``.

:func:`loads_json` is ``json.loads`` for input text: nesting deeper than the parser's
recursion allows (``[[[[…`` 200,000 deep) becomes a ``json.JSONDecodeError``, which the
readers already turn into one "not JSON" line, instead of a ``RecursionError``
traceback.
"""

from __future__ import annotations

import errno
import fcntl
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

from loaders.errors import InputFileError

__all__ = ["check_input_file", "file_kind", "loads_json", "open_input"]


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` is, as a message says it ("a character device")."""
    kinds = ((stat.S_ISREG, "a file"), (stat.S_ISDIR, "a directory"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _not_regular(path: str | os.PathLike[str], mode: int) -> InputFileError:
    return InputFileError(path, f"is {file_kind(mode)}, not a regular file; give the path "
                          "of a file (pipes, devices and sockets are not read)")


def open_input(path: str | os.PathLike[str],
               buffer_size: int = io.DEFAULT_BUFFER_SIZE) -> io.BufferedReader:
    """``path`` opened for reading (binary, ``buffer_size`` buffered) when it is a
    regular file (a symlink to one is fine). :class:`~loaders.errors.InputFileError` for a FIFO, a
    device or a socket, before any byte is read; ``FileNotFoundError``,
    ``IsADirectoryError``, ``PermissionError`` as ``open()`` raises them."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:   # a socket (or a device without its driver)
            mode = os.stat(path).st_mode
            raise _not_regular(path, mode) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        raw = io.FileIO(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise
    raw.name = os.fspath(path)  # type: ignore[misc]  # messages name the path, not the fd
    return io.BufferedReader(raw, buffer_size)


def check_input_file(path: Path) -> Path:
    """``path``, once :func:`open_input` would read it: raises as it does for a FIFO, a
    device or a socket; ``OSError`` (missing, a directory, permission) propagates."""
    open_input(path).close()
    return path


def loads_json(text: str | bytes) -> Any:
    """``json.loads(text)``, with nesting too deep for the parser raised as
    ``json.JSONDecodeError`` ("nested too deeply") rather than ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(
            "arrays or objects nested too deeply",
            text if isinstance(text, str) else "", 0) from None
