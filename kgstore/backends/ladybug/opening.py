"""Opening the embedded engine's database for a store: a store whose checkpoint is
pending is replayed first, and the engine's errors become kgbench's (locked by another
process, disk full, permission denied), each a line that says what to do."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import ladybug as lb

from kgstore.backends.ladybug.directory import permission_denied
from kgstore.backends.ladybug.engine import buffer_pool_bytes
from kgstore.backends.ladybug.schema import DB_FILE
from kgstore.diskspace import disk_full_error
from kgstore.errors import StoreError, StoreLockedError

__all__ = ["engine_open_errors", "open_database"]

_LOCK_RE = re.compile(r"Could not set lock|Lock is held", re.IGNORECASE)
# A write committed but its checkpoint failed (a full disk): the engine opens the
# database read-only again only after a read-write open has replayed the log.
_RECOVERY_RE = re.compile(r"checkpoint recovery is pending", re.IGNORECASE)


def open_database(db_file: Path, read_only: bool) -> lb.Database:
    """The engine's database in ``db_file``, opened read-only or not. A store whose last
    write committed but could not checkpoint (its disk was full) is refused read-only
    until a read-write open replays its log: that open is done here first, so a
    read-only command works again once there is space (the store's contents do not
    change; a writer holding the store makes it fail as StoreLockedError)."""
    def open_db(read_only: bool) -> lb.Database:
        return lb.Database(str(db_file), read_only=read_only,
                           buffer_pool_size=buffer_pool_bytes())

    try:
        return open_db(read_only)
    except RuntimeError as exc:
        if not (read_only and _RECOVERY_RE.search(str(exc))):
            raise
    open_db(False).close()
    return open_db(True)


@contextlib.contextmanager
def engine_open_errors(path: Path, read_only: bool) -> Iterator[None]:
    """The engine's errors while the store at ``path`` opens, as ours: locked by
    another process, disk full, permission denied, else a plain
    :class:`~kgstore.errors.StoreError` naming the store."""
    try:
        yield
    except RuntimeError as exc:
        if _LOCK_RE.search(str(exc)):
            pid = re.search(r"PID (\d+)", str(exc))
            who = f" (process {pid.group(1)})" if pid else ""
            raise StoreLockedError(
                f"store {path} is in use by another process{who}; wait for it to "
                "finish or close it, then retry"
            ) from None
        full = disk_full_error(exc, path / DB_FILE)
        if full is not None:
            raise full from None
        if "permission denied" in str(exc).lower():
            raise permission_denied(path, "read" if read_only else "write") from None
        raise StoreError(f"cannot open store {path}: {exc}") from None
