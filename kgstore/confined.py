"""Writes that stay inside the folders a process was confined to (issue 32, item 3).

The service's job process calls :func:`confine_writes` once, with its output directory
and its own job directory. From then on every write it makes (and every worker process
it starts: the confinement travels in the environment, ``spawn`` workers included) goes
through the functions here: each reaches its file one folder at a time from a confined
root, every folder opened with ``O_NOFOLLOW`` from the one above, and creates, renames
or removes the file relative to that folder's descriptor (``openat``-style), the file
itself opened with ``O_NOFOLLOW``. So a symlink put anywhere below the trusted folder
(``--data``: the operator's; in place of a folder between it and a root, of the root
itself, of a folder or a file inside it), before the job starts or while it runs, fails
the write with :class:`WriteOutsideError` instead of redirecting it: there is no moment
between a check and the write for the link to slip into.

Without a confinement (the command line) each function is the plain operation, symlinks
followed as ever.

Every write a job's process makes goes through here: the outputs
(:func:`extension.outputs.output_file.atomic_output`), the resumable work folders and
their assembly into the output, the directory lock (:mod:`kgstore.dirlock`), the LLM
reply cache and the job's own records.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["CONFINE_ENV", "WriteOutsideError", "confine_writes", "confined_roots",
           "copy_file", "is_inside", "make_dirs", "open_fd", "open_write", "remove_dir",
           "remove_file", "remove_tree", "replace"]

CONFINE_ENV = "KGBENCH_CONFINE_WRITES"
"""The environment variable holding the confined roots (a JSON list of real paths)."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class WriteOutsideError(ValueError):
    """A write of a confined process that would leave its folders (a symlink on the
    way, or a path outside them). ``str(error)`` is one line; nothing was written."""

    hint: str | None = None


Root = tuple[str, str]
"""A confined folder: (the trusted folder its walk starts from, its real path)."""


def confine_writes(*roots: Path | str, trusted: Path | str | None = None) -> None:
    """From now on, this process and those it starts write only inside ``roots``
    (resolved now). Each write walks from ``trusted`` (an ancestor of every root:
    ``--data``; by default each root's parent) down without following a symlink. No
    roots: no confinement."""
    if not roots:
        os.environ.pop(CONFINE_ENV, None)
        return
    os.environ[CONFINE_ENV] = json.dumps([_root(root, trusted) for root in roots])


def _root(root: Path | str, trusted: Path | str | None) -> Root:
    real = os.path.realpath(root)
    start = os.path.dirname(real) if trusted is None else os.path.realpath(trusted)
    if real == start or not is_inside(real, [start]):
        raise ValueError(f"{real} does not lie inside {start}")
    return start, real


def confined_roots() -> list[str]:
    """The real paths this process may write under (empty: anywhere)."""
    return [root for _start, root in _confinement()]


def _confinement() -> list[Root]:
    raw = os.environ.get(CONFINE_ENV)
    if not raw:
        return []
    try:
        pairs = json.loads(raw)
        return [(str(start), str(root)) for start, root in pairs]
    except (ValueError, TypeError):
        raise WriteOutsideError(f"{CONFINE_ENV} is not a JSON list of folder pairs: "
                                "refusing to write") from None


def is_inside(real: str, roots: list[str]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` or lies below one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _locate(path: Path | str, roots: list[Root]) -> tuple[str, list[str], str]:
    """Where the walk to ``path`` starts (its root's trusted folder), the folders from
    there to ``path``'s folder and ``path``'s name."""
    absolute = os.path.abspath(path)
    parent, name = os.path.split(absolute)
    # As written first; else as its folder resolves now (the walk still re-checks it).
    for candidate in (absolute, os.path.join(os.path.realpath(parent), name)):
        for start, root in roots:
            if is_inside(candidate, [root]) and candidate != start:
                steps = candidate[len(start):].strip(os.sep).split(os.sep)
                return start, steps[:-1], steps[-1]
    raise WriteOutsideError(f"{absolute} lies outside the folders this job may write "
                            f"({', '.join(root for _s, root in roots)}): nothing was written")


@contextlib.contextmanager
def _folder(path: Path | str, *, create: bool = False,
            roots: Sequence[Path | str] | None = None) -> Iterator[tuple[int | None, str]]:
    """``(folder descriptor, name)`` for an operation on ``path`` relative to its folder;
    ``(None, path)`` without a confinement. ``create`` makes missing folders on the way
    (without a confinement too)."""
    # Explicit roots (the server's --data) are trusted themselves: the walk starts there.
    confined = (_confinement() if roots is None
                else [(os.path.realpath(r), os.path.realpath(r)) for r in roots])
    if not confined:
        if create:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        yield None, os.fspath(path)
        return
    start, folders, name = _locate(path, confined)
    fd = os.open(start, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, folder in enumerate(folders):
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(folder, dir_fd=fd)
            try:
                inner = os.open(folder, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                shown = os.path.join(start, *folders[:depth + 1])
                what = "a symlink" if os.path.islink(shown) else "not a directory"
                raise WriteOutsideError(
                    f"{shown} is {what} (put there while the job ran?): a job writes only "
                    f"into real folders under its output directory; {path} was not "
                    "written") from None
            os.close(fd)
            fd = inner
        yield fd, name
    finally:
        os.close(fd)


def _refuse_link(path: Path | str, exc: OSError) -> None:
    if exc.errno == errno.ELOOP:
        raise WriteOutsideError(f"{path} is a symlink (put there while the job ran?): a job "
                                "writes only its own files; nothing was written") from None


def open_fd(path: Path | str, flags: int, mode: int = 0o666, *,
            roots: Sequence[Path | str] | None = None) -> int:
    """``os.open(path, flags, mode)``; confined, from the folder's descriptor and with
    ``O_NOFOLLOW`` (a symlink in place of the file is :class:`WriteOutsideError`)."""
    with _folder(path, roots=roots) as (folder, name):
        if folder is None:
            return os.open(name, flags | os.O_CLOEXEC, mode)
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
        except OSError as exc:
            _refuse_link(path, exc)
            raise


def open_write(path: Path | str, mode: str = "w", *,
               roots: Sequence[Path | str] | None = None, **kwargs: Any) -> IO[Any]:
    """``open(path, mode)`` for writing (``"w"``, ``"wb"``, ``"a"``, ``"ab"``; text is
    UTF-8 unless ``encoding`` says otherwise), confined as :func:`open_fd`."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode.startswith("a") else os.O_TRUNC)
    if "b" not in mode:
        kwargs.setdefault("encoding", "utf-8")
    return os.fdopen(open_fd(path, flags, roots=roots), mode, **kwargs)


def copy_file(source: Path | str, target: Path | str) -> None:
    """Copy the bytes of ``source`` into ``target`` (written as :func:`open_write`)."""
    with open(source, "rb") as reader, open_write(target, "wb") as writer:
        shutil.copyfileobj(reader, writer)


def replace(source: Path | str, target: Path | str, *,
            roots: Sequence[Path | str] | None = None) -> None:
    """``os.replace(source, target)``, both confined (each from its folder's descriptor:
    a rename never follows a symlink in place of either name)."""
    with _folder(source, roots=roots) as (from_dir, from_name), \
            _folder(target, roots=roots) as (to_dir, to_name):
        if from_dir is None or to_dir is None:
            os.replace(from_name, to_name)
        else:
            os.replace(from_name, to_name, src_dir_fd=from_dir, dst_dir_fd=to_dir)


def make_dirs(path: Path | str, *, roots: Sequence[Path | str] | None = None) -> None:
    """``mkdir -p path``; confined, no folder on the way (nor ``path``) may be a symlink."""
    with _folder(path, create=True, roots=roots) as (folder, name):
        if folder is None:
            os.makedirs(name, exist_ok=True)
            return
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, dir_fd=folder)
        try:
            os.close(os.open(name, _DIR_FLAGS, dir_fd=folder))
        except OSError as exc:
            _refuse_link(path, exc)
            raise


def remove_file(path: Path | str, *, missing_ok: bool = True,
                roots: Sequence[Path | str] | None = None) -> None:
    """``os.unlink(path)`` (a missing file is fine with ``missing_ok``); confined, it
    removes a link put in place of the file, never what the link points to."""
    try:
        with _folder(path, roots=roots) as (folder, name):
            os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        if not missing_ok:
            raise


def remove_dir(path: Path | str, *, roots: Sequence[Path | str] | None = None) -> None:
    """``os.rmdir(path)`` (an empty folder), confined."""
    with _folder(path, roots=roots) as (folder, name):
        os.rmdir(name, dir_fd=folder)


def remove_tree(path: Path | str, *, missing_ok: bool = False,
                roots: Sequence[Path | str] | None = None) -> None:
    """``shutil.rmtree(path)``; confined, from its folder's descriptor (``rmtree`` never
    follows a symlink inside the tree, and refuses one in place of ``path``). With
    ``roots`` (the server's ``--data``) the same for a process that is not confined."""
    try:
        with _folder(path, roots=roots) as (folder, name):
            if folder is None:
                shutil.rmtree(name)
            else:
                shutil.rmtree(name, dir_fd=folder)
    except FileNotFoundError:
        if not missing_ok:
            raise
