"""Errors the loaders raise, and the tally of malformed lines a lenient load keeps.

Every message says what went wrong and where (``path:line``), and for file-level
problems what to do about it. The CLI can catch :class:`LoaderError` to handle all
of them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

MAX_EXAMPLES = 20
"""How many malformed lines a :class:`ParseReport` keeps as examples."""

FORMAT_CHECK_LINES = 10_000
"""A file is judged on its first this many lines: when more than half of them
(:data:`MAX_MALFORMED_SHARE`) are malformed, it is not the format it was given as
(random bytes, a binary file, another format) and is refused (:class:`NotFormatError`)
instead of loading the few lines that happen to parse."""
MAX_MALFORMED_SHARE = 0.5


class LoaderError(Exception):
    """Base class of every error raised by ``loaders``."""


class MalformedInputError(LoaderError):
    """One input line does not follow its format (strict mode stops at the first).

    ``path`` is the file, ``line`` the 1-based physical line number and ``reason`` a
    short explanation; ``str(err)`` is ``"{path}:{line}: {reason}"`` so editors and
    terminals can jump to it.
    """

    def __init__(self, path: str | Path, line: int, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path}:{line}: {reason}")

    def __reduce__(self) -> tuple[type, tuple[str, int, str]]:
        # Keep the three fields when pickled (pytest-xdist, multiprocessing).
        return (type(self), (self.path, self.line, self.reason))


class MalformedRecordError(LoaderError):
    """One record of a question file (a JSON object, not a line) is malformed; strict
    mode stops at the first.

    ``record`` names it: the question id when known, else ``#<1-based index>`` in a
    JSON list or ``line <n>`` in JSONL. ``str(err)`` is ``"{path}: {record}: {reason}"``.
    """

    def __init__(self, path: str | Path, record: str, reason: str) -> None:
        self.path = str(path)
        self.record = record
        self.reason = reason
        super().__init__(f"{self.path}: {record}: {reason}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return (type(self), (self.path, self.record, self.reason))


class InputFileError(LoaderError):
    """A file cannot be used at all: missing, unreadable, corrupt compressed data,
    or a compression the running Python cannot read. The message names the path and
    says what to do."""

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.path, self.problem))


class UnsupportedFormatError(InputFileError):
    """The file name's extension maps to no loader (see ``loaders.triples.detect_format``)."""


class NotFormatError(UnsupportedFormatError):
    """Almost nothing in the file parses as the format it was given as (see
    :data:`FORMAT_CHECK_LINES`): it is refused before anything reaches the store."""


@dataclass(slots=True)
class ParseReport:
    """Running counts for one parsed file.

    ``lines`` counts physical lines read (blank and comment lines included),
    ``triples`` the records produced, ``malformed`` the lines skipped as malformed.
    ``examples`` keeps the first :data:`MAX_EXAMPLES` of those as ``(path, line, reason)``.

    ``expected`` names the format the file is read as (``"N-Triples"``); when set, the
    report refuses a file most of whose first :data:`FORMAT_CHECK_LINES` lines are
    malformed with :class:`NotFormatError`: :meth:`add_malformed` as soon as that is
    certain (a large file of garbage is not read to its end), :meth:`check_format`
    for a shorter file once it has been read.
    """

    lines: int = 0
    triples: int = 0
    malformed: int = 0
    examples: list[tuple[str, int, str]] = field(default_factory=list)
    expected: str = ""
    head_malformed: int = 0
    """Malformed lines among the first :data:`FORMAT_CHECK_LINES`."""

    def add_malformed(self, path: str | Path, line: int, reason: str) -> None:
        """Count one malformed line, keeping it as an example while there is room.
        Raises :class:`NotFormatError` once most of the first lines are malformed."""
        self.malformed += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append((str(path), line, reason))
        if line <= FORMAT_CHECK_LINES:
            self.head_malformed += 1
            if self.expected and self.head_malformed > FORMAT_CHECK_LINES * MAX_MALFORMED_SHARE:
                raise self.not_format(path, FORMAT_CHECK_LINES)

    def check_format(self, path: str | Path) -> None:
        """Raise :class:`NotFormatError` when more than half of the file's first
        :data:`FORMAT_CHECK_LINES` lines (all of them, for a shorter file) were malformed."""
        head = min(self.lines, FORMAT_CHECK_LINES)
        if self.expected and head and self.head_malformed > head * MAX_MALFORMED_SHARE:
            raise self.not_format(path, head)

    def not_format(self, path: str | Path, head: int, detail: str | None = None
                   ) -> NotFormatError:
        """The error refusing ``path``: most of its first ``head`` lines are malformed,
        or ``detail`` says why nothing in it could be read."""
        what = self.expected or "valid"
        if detail is None:
            first = ""
            if self.examples:
                first = f" (line {self.examples[0][1]}: {self.examples[0][2]})"
            detail = f"{self.head_malformed:,} of its first {head:,} lines are malformed{first}"
        return NotFormatError(
            path, f"not {_article(what)} {what} file: {detail}; nothing was loaded. Check "
            "that the file is what you meant to load (and its compression), or load it with "
            "the `kgbench load` command of its format")


def _article(word: str) -> str:
    """``"a"`` or ``"an"`` before ``word``, read as a word or, when it starts with a
    capital followed by no small letter (``N-Triples``, ``RDF/XML``), letter by letter."""
    first = word[:1]
    if len(word) > 1 and first.isupper() and not word[1].islower():
        return "an" if first in "AEFHILMNORSX" else "a"
    return "an" if first.lower() in "aeiou" else "a"
