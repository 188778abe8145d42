"""Output files that appear whole or not at all, and only where a file belongs.

Every command that writes a file (``questions parse`` and ``ground``, ``extend``,
``export``, ``generate``'s files, ``load --report``) writes it through
:func:`atomic_output` (or :func:`write_atomic` for a small document), so that:

* a path that exists and is not a regular file is refused with one line before
  anything is written (:class:`OutputPathError`): renaming a finished file over
  ``/dev/null``, a FIFO or a directory would replace a device node, a pipe someone
  reads or a folder with a regular file;
* an output that is one of the command's inputs, or lies inside an input directory
  (a benchmark, an entries folder, a store), is refused the same way
  (:func:`check_apart_from_inputs`): one rule for every command that writes, so that
  no output replaces or changes what the command reads;
* a symlink is written *through*: the file it points to is replaced, the link stays
  (renaming onto the link itself would turn it into a regular file);
* in a process confined to some folders (a service job:
  :func:`kgstore.confined.confine_writes`), the target is checked against them before
  and after writing, and the ``.part`` file, its folders and the rename are made
  through :mod:`kgstore.confined` (no symlink followed below ``--data``);
* the text goes to ``TARGET.part`` beside the target and is renamed onto it only when
  complete, and on any error (an interrupt, a bad input record, a full disk) the
  ``.part`` file is removed: an output is either the previous file or the new one.

:func:`check_output_dir` is the same refusal for a directory that a command fills
(``generate --out DIR``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from kgstore.confined import (
    WriteOutsideError,
    confined_roots,
    is_inside,
    make_dirs,
    open_fd,
    remove_dir,
    remove_file,
    replace,
)
from kgstore.diskspace import disk_full_error
from kgstore.location import store_directory
from loaders.input_file import file_kind

__all__ = ["PART_SUFFIX", "OutputPathError", "atomic_output", "check_apart_from_inputs",
           "check_output_dir", "output_target", "write_atomic"]

PART_SUFFIX = ".part"
"""Appended to a target's name while it is being written."""

OUTPUT_REMEDY = "free space on that device or choose another --out, then rerun the command"
"""What a :class:`~kgstore.errors.DiskFullError` of an output says to do (by default)."""


class OutputPathError(ValueError):
    """An output path that cannot be written as asked (a directory, a device, a FIFO,
    a symlink loop, a folder that cannot be created). ``str(error)`` is one line that
    names the path and says what to give instead; ``hint`` is unused (``None``) so the
    CLI prints that one line."""

    hint: str | None = None


def _check_confined(path: Path, shown: str) -> None:
    """Refuse, with one line, a path whose real path now leaves the folders this
    process was confined to (:func:`kgstore.confined.confine_writes`: a service job)."""
    roots = confined_roots()
    if not roots:
        return
    real = os.path.realpath(path)
    if not is_inside(real, roots):
        raise OutputPathError(f"{shown}: {path} now leads to {real}, outside this job's "
                              "output directory (a symlink put there?): nothing was written")


def _shown(path: Path, option: str | None, target: Path | None = None) -> str:
    """How messages name the path: ``--out PATH`` when the user typed it as that
    option, with the file a symlink leads to."""
    name = f"{option} {path}" if option else str(path)
    if target is not None and path.is_symlink():
        name += f" (a link to {target})"
    return name


def output_target(path: Path, *, option: str | None = None,
                  inputs: Iterable[Path | str] = ()) -> Path:
    """The file to write for the output path ``path``: ``path`` with every symlink
    resolved (a dangling link names the file to create). Raises
    :class:`OutputPathError` when that file exists and is not a regular file, when it
    is one of ``inputs`` or lies inside an input directory
    (:func:`check_apart_from_inputs`), or the path is a symlink loop. ``option``
    (``"--out"``) is how messages name the path."""
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        raise OutputPathError(f"{_shown(path, option)} is a symlink loop: give a file "
                              "path") from None
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        raise OutputPathError(f"{_shown(path, option)}: {_file_above(target)} is a file, "
                              "not a directory: give a path inside a directory") from None
    except OSError:
        mode = None  # unreadable: creating the .part file says why, in one line
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputPathError(f"{_shown(path, option, target)} is {file_kind(mode)}, "
                              "not a file: give a file path")
    check_apart_from_inputs(path, inputs, option=option)
    return target


def check_output_dir(path: Path, *, option: str | None = None,
                     inputs: Iterable[Path | str] = (), replaced: bool = False) -> None:
    """Refuse (:class:`OutputPathError`) an output directory path that exists and is
    not a directory (a file, a device, a FIFO ...), or that is one of ``inputs`` or lies
    inside an input directory (or, ``replaced``, holds one: see
    :func:`check_apart_from_inputs`); a missing one is fine."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        raise OutputPathError(f"{_shown(path, option)}: {_file_above(path)} is a file, "
                              "not a directory: give a directory path") from None
    except OSError:
        mode = None  # creating the directory (or a file in it) says why
    if mode is not None and not stat.S_ISDIR(mode):
        raise OutputPathError(f"{_shown(path, option)} is {file_kind(mode)}, not a directory: "
                              "give a directory path")
    check_apart_from_inputs(path, inputs, option=option, replaced=replaced)


def check_apart_from_inputs(path: Path, inputs: Iterable[Path | str], *,
                            option: str | None = None, replaced: bool = False) -> None:
    """The one rule for every output a command writes (a file, a directory, a store):
    it may not be one of the command's ``inputs``, nor lie inside an input directory
    (a benchmark, an entries folder, a store), else :class:`OutputPathError` before
    anything is written. Writing there would replace what the command reads
    (``evaluate BENCH --out BENCH/samples.jsonl``) or put foreign files into a store.
    An output directory that the command removes or replaces as a whole (``--force``:
    ``replaced``) may not hold an input either. Paths are compared once every symlink
    is resolved, and by device and inode, so no spelling or link gets around the rule.
    An input that is a URI (a Neo4j store) or does not exist is left out: there is
    nothing local to protect."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):
        return   # output_target and the writing itself say what is wrong with it
    shown = _shown(path, option, real)
    # The output and every folder above it that exists, by device and inode.
    chain: list[tuple[Path, os.stat_result]] = []
    for candidate in (real, *real.parents):
        with contextlib.suppress(OSError, ValueError):
            chain.append((candidate, candidate.stat()))
    for source in inputs:
        if isinstance(source, str) and store_directory(source) is None:
            continue   # a store on a server: nothing local to protect
        try:
            source_stat = Path(source).stat()
        except (OSError, ValueError):
            continue
        if replaced and chain and chain[0][0] == real and _holds(real, Path(source)):
            raise OutputPathError(f"{shown} holds the input {source}, and the command "
                                  "replaces it whole: give an output path apart from it")
        for candidate, found in chain:
            if not os.path.samestat(found, source_stat):
                continue
            if candidate == real:
                what = "directory" if stat.S_ISDIR(source_stat.st_mode) else "file"
                raise OutputPathError(f"{shown} is the input {what} {source}: give another "
                                      "output path")
            raise OutputPathError(f"{shown} lies inside {source}, an input of this command: "
                                  "give an output path outside it")


def _holds(directory: Path, source: Path) -> bool:
    """Whether ``source`` (resolved) lies inside the existing ``directory`` (real)."""
    try:
        real_source = Path(os.path.realpath(source))
    except (OSError, ValueError):
        return False
    return real_source != directory and real_source.is_relative_to(directory)


def _file_above(path: Path) -> Path:
    """The nearest ancestor of ``path`` that exists (a file, where a folder should be)."""
    for parent in path.parents:
        if parent.exists():
            return parent
    return path.parent


def _make_parent(target: Path, shown: str) -> list[Path]:
    """Create the folder of ``target``; returns the folders made, deepest first."""
    made = []
    for folder in (target.parent, *target.parent.parents):
        if folder.exists() or folder.is_symlink():
            break
        made.append(folder)
    try:
        make_dirs(target.parent)
    except (FileExistsError, NotADirectoryError):
        raise OutputPathError(f"{shown}: {_file_above(target)} is a file, not a directory: "
                              "give a path inside a directory") from None
    except OSError as exc:
        raise OutputPathError(f"{shown}: cannot create the folder {target.parent} "
                              f"({exc.strerror or exc}): choose another path") from None
    return made


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders :func:`_make_parent` made, deepest first, while empty."""
    for folder in folders:
        try:
            remove_dir(folder)
        except (OSError, WriteOutsideError):
            return


def _create_part(part: Path, target: Path, shown: str, remedy: str) -> int:
    """A new, empty ``part`` file opened for writing. A ``.part`` left by a killed run
    (or a link someone put there) is removed first, and the file is created with
    ``O_EXCL | O_NOFOLLOW``, so the bytes never go anywhere but into this new file.
    It takes the mode of the file it will replace, if any."""
    try:
        if part.is_symlink() or part.is_file():
            remove_file(part)
        fd = open_fd(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.EISDIR):
            raise OutputPathError(f"{shown}: {part} is in the way (not a file): remove it "
                                  "or choose another path") from None
        full = disk_full_error(exc, part, remedy)
        if full is not None:
            raise full from None
        raise OutputPathError(f"{shown}: cannot write {part} ({exc.strerror or exc}): "
                              "choose another path or check the folder's permissions") from None
    try:
        os.fchmod(fd, stat.S_IMODE(target.stat().st_mode))
    except OSError:
        pass  # no file to replace (or not ours to read): the default mode stays
    return fd


@contextmanager
def atomic_output(path: Path, *, option: str | None = None, newline: str | None = None,
                  remedy: str = OUTPUT_REMEDY) -> Iterator[TextIO]:
    """``with atomic_output(path) as stream:`` a UTF-8 text stream whose content
    replaces the file at ``path`` (through a symlink) when the block completes; on any
    error, interrupts included, nothing changes at ``path`` and no ``.part`` file (nor
    a folder made for it) is left. Raises :class:`OutputPathError` (before anything is
    written) for a path that is not a file, and :class:`~kgstore.errors.DiskFullError`
    for a full disk (saying ``remedy``). ``option`` (``"--out"``) is how messages name
    the path; ``newline`` is :func:`open`'s."""
    target = output_target(path, option=option)
    shown = _shown(path, option)
    _check_confined(target, shown)
    made = _make_parent(target, shown)
    part = target.with_name(target.name + PART_SUFFIX)
    try:
        fd = _create_part(part, target, shown, remedy)
    except BaseException:
        _remove_empty(made)
        raise
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as stream:
            yield stream
        _check_confined(part, shown)   # the moment of writing: no link swapped in since
        _check_confined(target, shown)
        replace(part, target)
    except BaseException as exc:
        with contextlib.suppress(WriteOutsideError):
            remove_file(part)
        _remove_empty(made)
        if isinstance(exc, OSError):
            full = disk_full_error(exc, target, remedy)
            if full is not None:
                raise full from exc
        raise


def write_atomic(path: Path, text: str, *, option: str | None = None,
                 remedy: str = OUTPUT_REMEDY) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through :func:`atomic_output`; returns
    ``path``."""
    with atomic_output(path, option=option, remedy=remedy) as stream:
        stream.write(text)
    return path
