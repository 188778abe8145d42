"""The one home of output files (:mod:`extension.outputs.output_file`), on real files, FIFOs,
symlinks and a character device made with ``mknod`` inside the test's directory (never
a real ``/dev`` node: an old experiment replaced ``/dev/full`` with a regular file).

Before it, each command renamed ``X.part`` over ``X`` whatever ``X`` was: a
directory gave an ``IsADirectoryError`` traceback and left ``X.part``, a device node,
FIFO or symlink was replaced by a regular file, and an input error left an empty
``.part`` behind.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from extension.outputs.output_file import (
    OutputPathError,
    atomic_output,
    check_output_dir,
    output_target,
    write_atomic,
)


def char_device(directory: Path) -> Path:
    """A character device node (1, 3: what /dev/null is) inside ``directory``; skips
    the test where ``mknod`` is not allowed (not root)."""
    node = directory / "null-device"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"mknod not allowed here: {exc}")
    return node


def no_part_files(directory: Path) -> bool:
    return not list(directory.rglob("*.part"))


def test_writes_through_part_and_renames(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "out.jsonl"
    with atomic_output(out) as stream:
        stream.write("one\n")
        assert (tmp_path / "sub" / "out.jsonl.part").exists()
        assert not out.exists()
    assert out.read_text() == "one\n"
    assert no_part_files(tmp_path)


def test_an_error_keeps_the_previous_file_and_leaves_no_part(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    out.write_text("previous\n")
    for error in (ValueError("bad record"), KeyboardInterrupt()):
        with pytest.raises(type(error)), atomic_output(out) as stream:
            stream.write("half")
            raise error
        assert out.read_text() == "previous\n"
        assert no_part_files(tmp_path)
    with pytest.raises(ValueError), atomic_output(tmp_path / "new" / "deeper" / "x.csv"):
        raise ValueError("bad input")
    assert not (tmp_path / "new").exists()   # the folders made for it go too


def test_a_new_file_keeps_the_mode_of_the_one_it_replaces(tmp_path: Path) -> None:
    out = tmp_path / "secret.json"
    out.write_text("{}")
    out.chmod(0o600)
    write_atomic(out, '{"new": 1}')
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


@pytest.mark.parametrize("kind", ["directory", "fifo", "device"])
def test_a_path_that_is_not_a_file_is_refused_before_anything_is_written(
        tmp_path: Path, kind: str) -> None:
    if kind == "directory":
        path = tmp_path / "qp"
        path.mkdir()
        expected = "--out {} is a directory, not a file: give a file path"
    elif kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
        expected = "--out {} is a FIFO (named pipe), not a file: give a file path"
    else:
        path = char_device(tmp_path)
        expected = "--out {} is a character device, not a file: give a file path"
    before = path.lstat()
    with pytest.raises(OutputPathError) as info, atomic_output(path, option="--out") as stream:
        stream.write("never")
    assert str(info.value) == expected.format(path)
    after = path.lstat()
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert no_part_files(tmp_path)


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "data" / "real.csv"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_atomic(link, "new\n")
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text() == "new\n"
    assert no_part_files(tmp_path)
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "data" / "to-be.csv")
    write_atomic(dangling, "made\n")
    assert dangling.is_symlink() and (tmp_path / "data" / "to-be.csv").read_text() == "made\n"


def test_a_symlink_to_a_device_or_a_loop_is_refused(tmp_path: Path) -> None:
    device = char_device(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(device)
    with pytest.raises(OutputPathError, match=r"\(a link to .*null-device\) is a character "
                                              "device, not a file"):
        write_atomic(link, "x")
    assert link.is_symlink() and stat.S_ISCHR(device.stat().st_mode)
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OutputPathError, match="is a symlink loop"):
        output_target(tmp_path / "a")


def test_a_file_where_a_folder_should_be_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutputPathError, match=r"afile is a file, not a directory"):
        write_atomic(tmp_path / "afile" / "out.json", "{}")


def test_a_stale_part_file_or_link_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    out = tmp_path / "out.txt"
    (tmp_path / "out.txt.part").symlink_to(victim)
    write_atomic(out, "fresh\n")
    assert victim.read_text() == "keep me\n"
    assert out.read_text() == "fresh\n" and not out.is_symlink()


def test_output_directories(tmp_path: Path) -> None:
    check_output_dir(tmp_path / "missing")
    check_output_dir(tmp_path)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutputPathError) as info:
        check_output_dir(tmp_path / "afile", option="--out")
    assert str(info.value) == (f"--out {tmp_path / 'afile'} is a file, not a directory: "
                               "give a directory path")
    with pytest.raises(OutputPathError, match="is a character device, not a directory"):
        check_output_dir(char_device(tmp_path))
