"""The checks of a store's directory made before the engine opens it.

A ``--store`` that names a regular file, lies below one, or lies in a folder this user
may not write would otherwise fail inside :mod:`pathlib` or the engine with
``NotADirectoryError`` or ``PermissionError``: a traceback that names neither the
option to change nor what to change it to. Every opener of a directory store (the CLI's
load, read and demo commands, the engine's worker processes, library callers) goes
through :class:`~kgstore.backends.ladybug.store.LadybugStore` or :func:`kgstore.store_exists`,
which call these functions, so each of them gets the same one-line
:class:`~kgstore.errors.StoreNotADirectoryError` or
:class:`~kgstore.errors.StorePermissionError`.

A store being created is recognisable as ours before the engine writes its first byte:
:func:`begin_creation` writes the marker file first, saying ``"creating"``, and holds a
lock on it until :func:`finish_creation` replaces it with the final one. A creation
killed half-way (``kill -9``, a crash) leaves that marker, unlocked: the next create
(a rerun of the load, ``store copy``) clears the folder and starts again
(:func:`interrupted_creation`, :func:`clear_directory`), and ``--force`` removes it as
any store; nothing in it is of value yet (the first load's data comes later).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from kgstore.backends.ladybug.schema import MARKER
from kgstore.errors import (
    DamagedStoreError,
    IncompatibleStoreError,
    StoreError,
    StoreLockedError,
    StoreNotADirectoryError,
    StorePermissionError,
)
from kgstore.location import local_store_path
from kgstore.store import SCHEMA_VERSION

__all__ = ["begin_creation", "check_marker", "clear_directory", "file_in_the_way",
           "finish_creation", "has_marker", "holds_files", "incompatible_version",
           "interrupted_creation", "make_directory", "permission_denied", "remove_store"]

CREATING = "creating"
"""The key of the marker of a store whose creation has not finished."""


def file_in_the_way(path: Path) -> Path | None:
    """``path`` itself or the nearest existing folder above it when that is not a
    directory (a regular file, a device, ...); ``None`` when nothing blocks ``path``
    or when it cannot be told (a folder above may not be searched)."""
    for candidate in (path, *path.parents):
        try:
            mode = candidate.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue   # not there (yet), or below a file: look further up
        except OSError:
            return None
        return None if stat.S_ISDIR(mode) else candidate
    return None


def _not_a_directory(path: Path, blocker: Path) -> StoreNotADirectoryError:
    if blocker == path:
        return StoreNotADirectoryError(
            f"--store {path} is a file, not a store directory; choose a directory "
            "(a new one is created by `kgbench load`)")
    return StoreNotADirectoryError(
        f"--store {path} lies below {blocker}, which is a file, not a directory; "
        "choose another --store")


def permission_denied(path: Path, action: str) -> StorePermissionError:
    """The error for ``action`` (``"create"``, ``"read"``, ``"write"``, ``"remove"``)
    refused on the store at ``path``."""
    remedy = ("choose a store you may read, or ask its owner for read access"
              if action == "read" else "choose a writable --store")
    return StorePermissionError(f"cannot {action} the store at {path}: permission denied; "
                                f"{remedy}")


def has_marker(path: Path, marker: str) -> bool:
    """Whether the directory ``path`` holds a store (its ``marker`` file).
    :class:`StoreNotADirectoryError` when ``path`` or a folder above it is a file,
    :class:`StorePermissionError` when this user may not look inside it."""
    blocker = file_in_the_way(path)
    if blocker is not None:
        raise _not_a_directory(path, blocker)
    try:
        return (path / marker).exists()
    except PermissionError:
        raise permission_denied(path, "read") from None


def holds_files(path: Path) -> bool:
    """Whether the directory ``path`` exists and has anything in it."""
    try:
        return path.is_dir() and any(path.iterdir())
    except PermissionError:
        raise permission_denied(path, "read") from None


def make_directory(path: Path) -> None:
    """Create the store's directory (and the folders above it) if missing."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except PermissionError:
        raise permission_denied(path, "create") from None
    except (NotADirectoryError, FileExistsError):
        # A file appeared on the path since has_marker looked (or a folder above is
        # a file that file_in_the_way could not stat).
        raise _not_a_directory(path, file_in_the_way(path) or path) from None


def remove_store(path: str | Path) -> None:
    """Delete a store directory (used by ``--force`` rebuilds); refuses non-stores, and
    a URI folded into a path (``bolt:/host``)."""
    p = local_store_path(path)
    if not has_marker(p, MARKER):
        raise StoreError(f"{p} is not a kgbench store; refusing to delete it")
    try:
        shutil.rmtree(p)
    except PermissionError:
        raise permission_denied(p, "remove") from None


def begin_creation(marker: Path, info: dict[str, Any]) -> int:
    """Write the marker of a store about to be created (``info`` plus ``"creating":
    true``), before anything else goes into its folder, and lock it (``flock``) for as
    long as the returned descriptor is open: :func:`finish_creation` closes it. Another
    process creating the same store at the same time gets
    :class:`~kgstore.errors.StoreLockedError`."""
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise StoreLockedError(f"store {marker.parent} is being created by another process; "
                               "wait for it to finish, then retry") from None
    except PermissionError:
        raise permission_denied(marker.parent, "create") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps({**info, CREATING: True}).encode())  # one small write
    except BaseException:
        os.close(fd)
        raise
    return fd


def finish_creation(marker: Path, info: dict[str, Any], lock: int) -> None:
    """Replace the creating marker by the final one (atomically), then let go of the
    lock that :func:`begin_creation` took."""
    try:
        temp = marker.with_name(marker.name + ".tmp")
        temp.write_text(json.dumps(info, indent=2))
        os.replace(temp, marker)
    finally:
        os.close(lock)


def interrupted_creation(marker: Path) -> bool:
    """Whether ``marker`` is that of a creation that did not finish and that no process
    is still running: it says ``"creating"`` (or is empty: killed between creating the
    file and writing it) and its lock is free. :class:`~kgstore.errors.StoreLockedError`
    while another process is creating the store."""
    try:
        fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        text = os.read(fd, 1 << 16)
        try:
            info = json.loads(text) if text.strip() else {CREATING: True}
        except ValueError:
            return False   # damaged: the store's own check says so
        if not (isinstance(info, dict) and info.get(CREATING)):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise StoreLockedError(f"store {marker.parent} is being created by another "
                                       "process; wait for it to finish, then retry") from None
            raise
        return True
    finally:
        os.close(fd)


def clear_directory(path: Path) -> None:
    """Remove everything inside the folder ``path`` (the folder stays)."""
    for entry in path.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()


def incompatible_version(path: Path, version: int) -> IncompatibleStoreError:
    """The error for the store at ``path`` written with schema ``version``."""
    return IncompatibleStoreError(
        f"store {path} has schema version {version}, this kgbench reads version "
        f"{SCHEMA_VERSION}; reload the data into a new store (`kgbench load ... --store "
        "NEW_DIR`) or use the kgbench release that wrote it"
    )


def check_marker(path: Path, marker: Path, backend: str) -> None:
    """Refuse the store at ``path`` unless its ``marker`` file says it is a ``backend``
    store of this kgbench's schema version, not marked damaged."""
    try:
        info = json.loads(marker.read_text())
        version = int(info["schema_version"])
        found = info["backend"]
    except PermissionError:
        raise permission_denied(path, "read") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise IncompatibleStoreError(f"{marker} is damaged ({exc}); rebuild the store") from None
    if info.get("damaged"):
        raise DamagedStoreError(str(info["damaged"]))
    if found != backend:
        raise IncompatibleStoreError(f"{path} is a {found} store, not {backend}")
    if version != SCHEMA_VERSION:
        raise incompatible_version(path, version)
