"""Things built once per test run and shared by every test and every xdist worker: a
folder all workers see, a file lock, and :func:`build_once`, which builds a directory
under the lock and renames it into place when it is complete (a worker either builds it
or waits for the one building it, then reuses it).

What is built here is shared: read it, never modify it; copy it first
(:func:`copy_tree`) to change it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def shared_root(factory: pytest.TempPathFactory, name: str) -> Path:
    """``name`` in a folder every xdist worker of this run sees (the workers' base temp
    folders are siblings under one root; without xdist, the base temp folder)."""
    base = factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    root.mkdir(parents=True, exist_ok=True)
    return root


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock named after ``path`` (``PATH.lock``), across processes."""
    with path.with_name(path.name + ".lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_once(target: Path, build: Callable[[Path], object]) -> Path:
    """``target``, built by ``build(tmp)`` and then renamed, unless it exists."""
    with locked(target):
        if not target.is_dir():
            work = target.with_name(target.name + ".building")
            shutil.rmtree(work, ignore_errors=True)
            build(work)
            os.replace(work, target)
    return target


def copy_tree(source: Path, destination: Path) -> Path:
    """A private copy of a shared directory (a closed store's directory is a valid store:
    much faster than building it again)."""
    shutil.copytree(source, destination)
    return destination


def file_states(directory: Path) -> list[tuple[str, int, int]]:
    """What tells whether a shared directory was changed: each file's path, size and
    modification time."""
    return sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in directory.rglob("*") if p.is_file())
