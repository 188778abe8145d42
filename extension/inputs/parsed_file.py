"""Reading the output of ``kgbench questions parse``: one
:class:`~extension.inputs.questions.ParsedQuestion` per line (JSONL).

``ground`` and ``extend`` read it with :func:`read_parsed`, which yields a reason
instead of a question for a line that is not one, so a caller can skip and count bad
lines (or stop at the first with ``strict``). They call :func:`check_parsed_file`
first: a file without a single parsed question (``/etc/passwd``, a raw dataset, a
binary file) is refused before anything is written, naming the first line's problem.
Reasons are plain words ("missing fields dataset, shape"), not pydantic's report.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from extension.inputs.questions import ParsedQuestion
from loaders.input_file import open_input

__all__ = ["ParsedFileError", "check_parsed_file", "line_problem", "read_parsed"]

_MAKE_IT = "create it with `kgbench questions parse FILE --out {path}`"


class ParsedFileError(ValueError):
    """A parsed-questions file that cannot be read as asked: missing, not a file,
    holding no parsed question at all, or (strict) a line that is not a parsed
    question. ``str(error)`` names the file (and line); ``hint`` says what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def _fields(names: list[str]) -> str:
    return ("field " if len(names) == 1 else "fields ") + ", ".join(names)


def line_problem(exc: ValidationError) -> str:
    """Why a line is not a :class:`ParsedQuestion`, in plain words: "not JSON (...)",
    "not a JSON object", "missing fields dataset, shape; unknown field sparql",
    "shape: Input should be 'single', ...". Says all the missing and unknown fields
    (they show what kind of file this is) and the first other problem."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        return f"not JSON ({str(first['msg']).removeprefix('Invalid JSON: ')})"
    if first["type"] == "model_type" and not first["loc"]:
        return "not a JSON object"
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing" and len(e["loc"]) == 1]
    unknown = [str(e["loc"][0]) for e in errors
               if e["type"] == "extra_forbidden" and len(e["loc"]) == 1]
    others = [e for e in errors if e["type"] not in ("missing", "extra_forbidden")
              or len(e["loc"]) != 1]
    parts = []
    if missing:
        parts.append(f"missing {_fields(missing)}")
    if unknown:
        parts.append(f"unknown {_fields(unknown)}")
    if others:
        where = ".".join(str(p) for p in others[0]["loc"])
        more = f" (and {len(others) - 1} more problem(s))" if len(others) > 1 else ""
        parts.append(f"{where}: {others[0]['msg']}{more}")
    return "; ".join(parts)


def _not_text(line: bytes) -> str | None:
    """Why ``line`` is no text at all (a NUL byte, bad UTF-8), with the byte's offset
    in the line; ``None`` for text."""
    nul = line.find(b"\0")
    if nul >= 0:
        return f"binary data, not UTF-8 text (a NUL byte at byte {nul + 1} of the line)"
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"not UTF-8 text (byte 0x{line[exc.start]:02x} at byte {exc.start + 1} of "
                "the line)")
    return None


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of each non-blank line; a path that is no readable file
    raises :class:`ParsedFileError`. Bytes, decoded by :func:`read_parsed`, so that a
    binary file is a file of bad lines rather than a ``UnicodeDecodeError``."""
    if not path.exists():
        raise ParsedFileError(f"{path}: no such file", _MAKE_IT.format(path=path))
    if not path.is_file():
        raise ParsedFileError(f"{path} is not a file (a directory?); give the output file "
                              "of `kgbench questions parse`", _MAKE_IT.format(path=path))
    try:
        stream: Any = open_input(path)
    except OSError as exc:
        raise ParsedFileError(f"{path}: cannot read it ({exc.strerror or exc})",
                              "check the file's permissions") from None
    with stream:
        for number, line in enumerate(stream, 1):
            if line.strip():
                yield number, line


def read_parsed(path: Path, *, strict: bool = False) -> Iterator[tuple[int, ParsedQuestion | str]]:
    """``(line number, question or error reason)`` for each non-blank line of a
    ``questions parse`` output file; ``strict`` raises :class:`ParsedFileError` at the
    first bad one (as does a missing file, before anything is yielded)."""
    for number, line in _lines(path):
        try:
            yield number, ParsedQuestion.model_validate_json(line)
        except ValidationError as exc:
            reason = _not_text(line) or line_problem(exc)
            if strict:
                raise ParsedFileError(f"{path}:{number}: not a parsed question ({reason})",
                                      "drop --strict to skip bad lines") from None
            yield number, reason


def check_parsed_file(path: Path) -> None:
    """Refuse (:class:`ParsedFileError`) a file that holds no parsed question at all,
    naming its first line's problem; reads only up to the first good line."""
    first: tuple[int, str] | None = None
    for number, item in read_parsed(path):
        if isinstance(item, ParsedQuestion):
            return
        first = first or (number, item)
    if first is None:
        raise ParsedFileError(f"{path} is empty: it holds no parsed questions",
                              _MAKE_IT.format(path=path))
    number, reason = first
    raise ParsedFileError(f"{path} holds no parsed questions; line {number}: {reason} "
                          "(is this a `kgbench questions parse` output?)",
                          "run `kgbench questions parse` on the question file and pass "
                          "its output")
