"""Writes confined to a job's folders (:mod:`kgstore.confined`, issue 32 item 3): a
symlink anywhere between ``--data`` and the file, put there before or during the job,
fails the write instead of redirecting it; without a confinement nothing changes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgstore.confined import (
    WriteOutsideError,
    confine_writes,
    make_dirs,
    open_write,
    remove_file,
    remove_tree,
    replace,
)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """``data/results/run1`` (the job's output, confined, walked from ``data``) and a
    folder outside holding a ``run1`` of its own."""
    data, outside = tmp_path / "data", tmp_path / "outside"
    out = data / "results" / "run1"
    out.mkdir(parents=True)
    (outside / "run1").mkdir(parents=True)
    confine_writes(out, trusted=data)
    yield data, out, outside
    confine_writes()


def files_in(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if not p.is_dir()]


def test_writes_inside_work(tree: tuple[Path, Path, Path]) -> None:
    _data, out, _outside = tree
    make_dirs(out / "a" / "b")
    with open_write(out / "a" / "b" / "x.txt") as stream:
        stream.write("x")
    replace(out / "a" / "b" / "x.txt", out / "y.txt")
    assert (out / "y.txt").read_text() == "x"
    remove_tree(out / "a")
    remove_file(out / "y.txt")
    assert list(out.iterdir()) == []


def test_a_folder_between_data_and_the_output_swapped_for_a_link(
        tree: tuple[Path, Path, Path]) -> None:
    data, out, outside = tree
    os.rename(data / "results", data / "moved")
    (data / "results").symlink_to(outside)   # outside/run1 exists: the path still "works"
    for write in (lambda: open_write(out / "x.txt").close(), lambda: make_dirs(out / "sub"),
                  lambda: remove_tree(out), lambda: replace(out / "x", out / "y")):
        with pytest.raises(WriteOutsideError, match="results is a symlink"):
            write()
    assert files_in(outside) == [] and (outside / "run1").is_dir()


def test_a_link_in_place_of_the_file_or_elsewhere(tree: tuple[Path, Path, Path]) -> None:
    _data, out, outside = tree
    (out / "lock").symlink_to(outside / "lock")
    with pytest.raises(WriteOutsideError, match="lock is a symlink"):
        open_write(out / "lock", "ab")
    with pytest.raises(WriteOutsideError, match="outside the folders"):
        open_write(outside / "direct.txt")
    remove_file(out / "lock")   # the link goes, never what it points to
    assert not (out / "lock").is_symlink() and files_in(outside) == []


def test_the_server_removes_nothing_outside_data_through_a_link(tmp_path: Path) -> None:
    """``roots`` without a confinement: the server's clean-up of a job's output."""
    data, outside = tmp_path / "data", tmp_path / "outside"
    data.mkdir()
    (outside / "run1").mkdir(parents=True)
    (outside / "run1" / "precious.txt").write_text("keep")
    (data / "results").symlink_to(outside)
    with pytest.raises(WriteOutsideError):
        remove_tree(data / "results" / "run1", roots=[data])
    assert (outside / "run1" / "precious.txt").read_text() == "keep"


def test_without_a_confinement_links_are_followed_as_ever(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with open_write(tmp_path / "link" / "x.txt") as stream:
        stream.write("x")
    assert (tmp_path / "real" / "x.txt").read_text() == "x"
