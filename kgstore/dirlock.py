"""An exclusive lock on a directory, for one writing process at a time.

A store is locked for writing by its engine (LadybugDB holds an OS lock on the
database file while a writer has it open). Other directories that kgbench writes in
several steps, such as a benchmark directory that ``kgbench generate`` fills chunk by
chunk, take the same kind of lock here: ``flock`` on a lock file inside the directory.
The kernel drops such a lock when its process ends, however it ends (kill -9 too), so a
crashed run never leaves a stale lock that blocks the rerun that resumes its work. The
lock file holds the holder's pid, for the message that tells the user whom to wait for.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType

from kgstore.confined import make_dirs, open_fd, remove_file
from kgstore.errors import StoreError

LOCK_FILE = ".kgbench.lock"


class DirectoryLockedError(StoreError):
    """Another live process holds the lock on ``directory`` (its pid, when known)."""

    def __init__(self, directory: Path, pid: int | None) -> None:
        holder = f" (pid {pid})" if pid else ""
        super().__init__(f"{directory} is being written by another process{holder}; "
                         "wait for it to finish, then retry")
        self.directory = directory
        self.pid = pid


class DirectoryLock:
    """``with DirectoryLock(path):`` holds the lock on ``path`` (created if missing) for
    the block; :class:`DirectoryLockedError` at once when another process holds it.

    The lock file is removed on release, so a finished directory holds only its own
    files; one left by a killed process is simply locked again by the next one."""

    def __init__(self, directory: Path, *, name: str = LOCK_FILE) -> None:
        self.directory = Path(directory)
        self.path = self.directory / name
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            make_dirs(self.directory)
            fd = self._lock_file()
        except OSError as exc:
            raise StoreError(f"cannot lock {self.directory}: {exc.strerror or exc}; check that "
                             "the directory is writable and its disk has space") from None
        # The pid only names the holder in the message of a process refused the lock;
        # the lock holds without it (say, when the disk is full).
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def _lock_file(self) -> int:
        """A descriptor of the lock file, locked by this process."""
        while True:
            fd = open_fd(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise DirectoryLockedError(self.directory, _holder(self.path)) from None
            except OSError:
                os.close(fd)
                raise
            # The holder we met may have removed the file between our open and our
            # flock: the lock is then on a file nobody else sees; take the new one.
            if _is_current(fd, self.path):
                return fd
            os.close(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        # Removed while still locked, so that no other process can lock this file after
        # us and believe it holds the lock that a newcomer takes on a new file.
        remove_file(self.path)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def _is_current(fd: int, path: Path) -> bool:
    """Whether ``fd`` is still the file at ``path`` (not one unlinked since it was opened)."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


def _holder(path: Path) -> int | None:
    """The pid written in the lock file (``None`` while the holder has yet to write it)."""
    try:
        text = path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None
