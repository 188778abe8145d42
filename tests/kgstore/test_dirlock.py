"""The directory lock (:mod:`kgstore.dirlock`) between real processes: a second locker
is refused with the holder's pid, a lock left by a process killed with SIGKILL blocks
no one, and a released lock leaves no file behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgstore.dirlock import LOCK_FILE, DirectoryLock, DirectoryLockedError
from kgstore.errors import StoreError
from tests.kgstore.test_ladybug_store import Child

HOLD_LOCK = """
import sys, time
from pathlib import Path
from kgstore.dirlock import DirectoryLock
with DirectoryLock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(120)
"""


def _holder(directory: Path) -> Child:
    return Child(HOLD_LOCK, str(directory))


def test_a_second_process_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    with _holder(out) as child:
        child.wait_for("locked")
        with pytest.raises(DirectoryLockedError) as info:
            DirectoryLock(out).acquire()
        assert info.value.pid == child.proc.pid
        assert info.value.directory == out
        assert str(out) in str(info.value) and f"pid {child.proc.pid}" in str(info.value)


def test_a_lock_left_by_a_killed_process_blocks_no_one(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    with _holder(out) as child:
        child.wait_for("locked")
        child.kill()   # SIGKILL: no release, the lock file stays
    assert (out / LOCK_FILE).read_text().strip() == str(child.proc.pid)
    with DirectoryLock(out) as lock:
        assert (out / LOCK_FILE).read_text().strip() != str(child.proc.pid)
        assert lock.path == out / LOCK_FILE
    assert not (out / LOCK_FILE).exists()


def test_one_process_cannot_take_the_lock_twice_and_a_released_lock_is_free(
        tmp_path: Path) -> None:
    with DirectoryLock(tmp_path / "new" / "dir"):
        with pytest.raises(DirectoryLockedError):
            DirectoryLock(tmp_path / "new" / "dir").acquire()
    with DirectoryLock(tmp_path / "new" / "dir"):
        pass
    assert list((tmp_path / "new" / "dir").iterdir()) == []


def test_a_directory_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError, match="cannot lock"):
        DirectoryLock(blocker / "bench").acquire()
