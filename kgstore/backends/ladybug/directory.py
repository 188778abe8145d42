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
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from kgstore.backends.ladybug.schema import MARKER
from kgstore.errors import StoreError, StoreNotADirectoryError, StorePermissionError
from kgstore.location import local_store_path

__all__ = ["file_in_the_way", "has_marker", "holds_files", "make_directory",
           "permission_denied", "remove_store"]


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
