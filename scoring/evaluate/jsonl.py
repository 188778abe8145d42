"""Reading the small JSONL files a user hands to ``kgbench evaluate`` (predictions, blind
labels, sub-facts): every problem is one :class:`ScoringError` naming ``FILE:LINE``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from loaders.input_file import loads_json
from loaders.input_file import open_input as open_regular
from scoring.errors import ScoringError

__all__ = ["MAX_LINE_BYTES", "LineError", "iter_json_objects", "open_input", "quoted"]

MAX_LINE_BYTES = 1 << 20
"""A line longer than this (1 MiB; a prediction is a few dozen bytes) is not read on: a
binary file or a JSON document on one line is not a JSONL file of records."""


class LineError(ScoringError):
    """A line of an input file that is not what it should be: ``FILE:LINE: reason``."""

    def __init__(self, path: Path, line: int, reason: str, hint: str | None = None) -> None:
        super().__init__(f"{path}:{line}: {reason}", hint)
        self.path = path
        self.line = line


def quoted(value: object, limit: int = 80) -> str:
    """``value`` as a message quotes it: ``repr`` (control characters escaped), cut to
    ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text if len(text) <= limit else text[:limit] + "…")


def open_input(path: Path, what: str) -> None:
    """Refuse (:class:`ScoringError`) an input path that is missing or not a file."""
    if not path.exists():
        raise ScoringError(f"{path}: no such file ({what})")
    if not path.is_file():
        raise ScoringError(f"{path} is not a file ({what})", "pass a JSONL file")


def iter_json_objects(path: Path, what: str, hint: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of the JSONL file ``path``.

    Raises :class:`LineError` (with ``hint``) at the first line that is longer than
    :data:`MAX_LINE_BYTES`, not UTF-8, not JSON or not a JSON object; ``what`` names the
    file's kind in messages ("predictions")."""
    open_input(path, what)
    with open_regular(path) as stream:
        number = 0
        while True:
            raw = stream.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise LineError(path, number, f"a line longer than {MAX_LINE_BYTES:,} bytes: "
                                f"not a {what} file (one JSON object per line)", hint)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise LineError(path, number, f"not UTF-8 text: not a {what} file (one JSON "
                                "object per line)", hint) from None
            if not text.strip():
                continue
            try:
                doc = loads_json(text)
            except json.JSONDecodeError as exc:
                raise LineError(path, number, f"not JSON ({exc.msg} at column {exc.colno})",
                                hint) from None
            if not isinstance(doc, dict):
                raise LineError(path, number, f"a JSON {type(doc).__name__} where an object "
                                "belongs", hint)
            yield number, doc
