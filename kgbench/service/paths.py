"""The one way a path from a request becomes a file: :func:`resolve_under`.

``--data`` is the only directory the server reads benchmarks from and writes jobs to;
every path a request names (a benchmark, a job's input, a download) is relative to it
and goes through here. An attacker's path (``../``, an absolute path, a backslash, NUL,
``%2e%2e`` and its double encodings, a symlink pointing out) is refused with a 400
before anything is opened; a path that stays inside but names nothing is a 404.

A job's output directory is resolved once more when the job starts writing, by
:func:`directory_under`: one folder at a time, without following a symlink, making the
missing ones, so a symlink placed there while the job waited in the queue is refused,
not written through.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

from kgbench.service.errors import ApiError

__all__ = ["MAX_PATH_CHARS", "PathKind", "directory_under", "resolve_under"]

PathKind = Literal["file", "dir", "any"]
MAX_PATH_CHARS = 1024
_DECODE_ROUNDS = 4   # %252e%252e is %2e%2e once decoded, .. twice


def _refuse(relative: str, why: str) -> ApiError:
    return ApiError(400, f"path {ascii(relative[:200])} refused: {why}",
                    "name a file or directory relative to the server's data directory, "
                    "e.g. benchmarks/demo")


def _decodings(text: str) -> list[str]:
    """``text`` and what percent-decoding makes of it, round after round, so that no
    encoding of ``..`` or ``/`` gets past the checks by being decoded later by someone
    else."""
    forms = [text]
    for _ in range(_DECODE_ROUNDS):
        decoded = unquote(forms[-1], errors="strict") if "%" in forms[-1] else forms[-1]
        if decoded == forms[-1]:
            break
        forms.append(decoded)
    return forms


def _check_text(relative: str) -> list[str]:
    """The segments of ``relative`` once it passes the textual checks."""
    if not relative or not relative.strip():
        raise _refuse(relative, "the path is empty")
    if len(relative) > MAX_PATH_CHARS:
        raise _refuse(relative, f"longer than {MAX_PATH_CHARS} characters")
    try:
        forms = _decodings(relative)
    except UnicodeDecodeError:
        raise _refuse(relative, "it holds percent-encoded bytes that are not UTF-8") from None
    for form in forms:
        if "\x00" in form:
            raise _refuse(relative, "it holds a NUL character")
        if "\\" in form:
            raise _refuse(relative, "it holds a backslash; separate directories with /")
        if form.startswith("/") or (len(form) > 1 and form[1] == ":"):
            raise _refuse(relative, "absolute paths are not accepted")
        if form.startswith("~"):
            raise _refuse(relative, "~ is not expanded; give a path relative to the data "
                          "directory")
        if ".." in form.split("/"):
            raise _refuse(relative, ".. would leave the data directory")
    if len(forms) > 1:
        raise _refuse(relative, "percent-encoded characters are not accepted in a path")
    return [part for part in relative.split("/") if part not in ("", ".")]


def resolve_under(root: Path, relative: str, *, must_exist: bool = True,
                  kind: PathKind = "file") -> Path:
    """The real path of ``relative`` under ``root``, symlinks followed.

    Refused (:class:`ApiError` 400): an empty, absolute or ``~`` path, ``..``, a
    backslash, NUL, percent-encoding (whatever it decodes to), and anything whose real
    path is outside ``root``'s (a symlink pointing out). With ``must_exist``, a path
    that names nothing is a 404, and one of the wrong ``kind`` (``"file"``, ``"dir"``)
    a 400. ``root`` itself is returned for ``"."`` only when ``kind`` allows a
    directory.
    """
    parts = _check_text(relative)
    base = Path(os.path.realpath(root))
    real = Path(os.path.realpath(base.joinpath(*parts)))
    if real != base and not real.is_relative_to(base):
        raise _refuse(relative, "it leads outside the data directory (through a symlink)")
    if not must_exist:
        return real
    shown = ascii(relative[:200])
    if not real.exists():
        raise ApiError(404, f"nothing at {shown} in the data directory",
                       "list what there is with GET /api/benchmarks")
    if kind == "file" and not real.is_file():
        raise ApiError(400, f"{shown} is not a file")
    if kind == "dir" and not real.is_dir():
        raise ApiError(400, f"{shown} is not a directory")
    return real


def directory_under(root: Path, relative: str, *, create: bool = True) -> Path:
    """The real directory ``relative`` under ``root``, each folder of it opened with
    ``O_NOFOLLOW`` from the one above (``openat``) and, with ``create``, made where
    missing, so that no symlink is followed on the way: :class:`ApiError` names the
    folder that is a symlink or a file (400) or missing (404). ``relative`` passes
    :func:`resolve_under`'s textual checks."""
    parts = _check_text(relative)
    base = Path(os.path.realpath(root))
    folder = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, part in enumerate(parts, 1):
            try:
                if create:
                    os.mkdir(part, dir_fd=folder)
            except FileExistsError:
                pass   # there already (or a link: refused by the open below)
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                                | os.O_CLOEXEC, dir_fd=folder)
            except FileNotFoundError:
                raise ApiError(404, f"nothing at {ascii('/'.join(parts[:depth]))} in the "
                               "data directory") from None
            except OSError as exc:
                what = ("a symlink" if os.path.islink(base.joinpath(*parts[:depth]))
                        else "not a directory")
                raise ApiError(400, f"{ascii('/'.join(parts[:depth]))} in the data directory "
                               f"is {what}: a job writes only into real directories under "
                               f"--data ({exc.strerror})",
                               "remove it, or run the job with another out") from None
            os.close(folder)
            folder = inner
    finally:
        os.close(folder)
    return base.joinpath(*parts)
