"""Errors the loaders raise, and the tally of malformed lines a lenient load keeps.

Every message says what went wrong and where (``path:line``), and for file-level
problems what to do about it. The CLI can catch :class:`LoaderError` to handle all
of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

MAX_EXAMPLES = 20
"""How many malformed lines a :class:`ParseReport` keeps as examples."""


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

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.path, self.problem))


class UnsupportedFormatError(InputFileError):
    """The file name's extension maps to no loader (see ``loaders.triples.detect_format``)."""


@dataclass(slots=True)
class ParseReport:
    """Running counts for one parsed file.

    ``lines`` counts physical lines read (blank and comment lines included),
    ``triples`` the records produced, ``malformed`` the lines skipped as malformed.
    ``examples`` keeps the first :data:`MAX_EXAMPLES` of those as ``(path, line, reason)``.
    """

    lines: int = 0
    triples: int = 0
    malformed: int = 0
    examples: list[tuple[str, int, str]] = field(default_factory=list)

    def add_malformed(self, path: str | Path, line: int, reason: str) -> None:
        """Count one malformed line, keeping it as an example while there is room."""
        self.malformed += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append((str(path), line, reason))
