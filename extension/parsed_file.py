"""Reading the output of ``kgbench questions parse``: one
:class:`~extension.questions.ParsedQuestion` per line (JSONL).

``ground`` and ``extend`` read it with :func:`read_parsed`, which yields a reason
instead of a question for a line that is not one, so a caller can skip and count bad
lines (or stop at the first with ``strict``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from extension.questions import ParsedQuestion

__all__ = ["ParsedFileError", "read_parsed"]


class ParsedFileError(ValueError):
    """A parsed-questions file that cannot be read as asked: missing, or (strict) a
    line that is not a parsed question. ``str(error)`` names the file (and line);
    ``hint`` says what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def read_parsed(path: Path, *, strict: bool = False) -> Iterator[tuple[int, ParsedQuestion | str]]:
    """``(line number, question or error reason)`` for each non-blank line of a
    ``questions parse`` output file; ``strict`` raises :class:`ParsedFileError` at the
    first bad one (as does a missing file, before anything is yielded)."""
    if not path.exists():
        raise ParsedFileError(f"{path}: no such file",
                              f"create it with `kgbench questions parse FILE --out {path}`")
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield number, ParsedQuestion.model_validate_json(line)
            except ValueError as exc:
                reason = str(exc).splitlines()[0]
                if strict:
                    raise ParsedFileError(f"{path}:{number}: not a parsed question ({reason})",
                                          "drop --strict to skip bad lines") from None
                yield number, reason
