"""How the command line reports errors: one red ``Error: ...`` line (plus a hint) on
stderr and an exit code, never a traceback.

:class:`CliError` is what a command raises for a problem it detects itself (nothing
matched, an ambiguous name, a bad option value). The errors of the packages below
(store, loaders, engine) are recognised by type and printed the same way by
:func:`report_error`, which :func:`kgbench.cli.app.main` calls; anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import sys

from rich.markup import escape

from kgbench.cli.output import err
from kgstore import (
    IncompatibleStoreError,
    QueryError,
    ReadOnlyQueryError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
)
from loaders.errors import InputFileError, LoaderError, MalformedInputError

__all__ = ["CliError", "print_error", "report_error"]


class CliError(Exception):
    """An error the CLI itself detects (nothing matched, ambiguous name, ...); ``code``
    is the exit status (1, or 2 for a usage error)."""

    def __init__(self, message: str, hint: str | None = None, *, code: int = 1) -> None:
        super().__init__(message)
        self.hint = hint
        self.code = code


_HINTS: list[tuple[type[BaseException], str | None]] = [
    (MalformedInputError,
     "nothing was loaded; fix that line, or drop --strict to skip malformed lines "
     "(they are counted and listed in the summary)"),
    (InputFileError, None),
    (LoaderError, None),
    (StoreNotFoundError,
     "build a store first with `kgbench load triples FILE...`, or run `kgbench demo` "
     "for a ready-made one; --store / $KGBENCH_STORE choose which store is used"),
    (StoreLockedError,
     "another kgbench process (a load?) has this store open for writing; only one "
     "writer at a time"),
    (IncompatibleStoreError, None),
    (ReadOnlyQueryError,
     "`kgbench cypher` only reads; change a store by loading data with `kgbench load`"),
    (QueryError,
     "check the query syntax; `kgbench cypher --help` shows the graph schema"),
    (StoreError, None),
]
_ENGINE_ERRORS = (
    ("extension.generate", "GenerateError"),
    ("extension.llm", "LLMError"),   # messages name the endpoint, what to check, and that a rerun resumes
    ("extension.parsed_file", "ParsedFileError"),
)
"""Errors of the engine, whose messages say what to do (and ``hint``, where they have
one, how). Looked up by name: the engine is imported only by the commands that run it
(which keeps the others quick), and an error of a module that was never imported
cannot have been raised."""


def _error_hints() -> list[tuple[type[BaseException], str | None]]:
    engine = [(getattr(sys.modules[module], name), None) for module, name in _ENGINE_ERRORS
              if module in sys.modules]
    return [*_HINTS, *engine]


def report_error(exc: BaseException) -> int | None:
    """Print ``Error: ...`` (+ hint) on stderr for our own exceptions and return the
    exit code; ``None`` for anything else (a bug: let the traceback show)."""
    if isinstance(exc, CliError):
        print_error(str(exc), exc.hint)
        return exc.code
    for kind, hint in _error_hints():
        if isinstance(exc, kind):
            message = str(exc)
            if isinstance(exc, QueryError) and not message.lower().startswith("invalid"):
                message = f"the Cypher query failed: {message}"
            own_hint = getattr(exc, "hint", None)
            print_error(message, hint or (own_hint if isinstance(own_hint, str) else None))
            return 1
    return None


def print_error(message: str, hint: str | None = None) -> None:
    """``Error: <first line>``, further lines indented, then the hint, all on stderr.

    Lines are split at newlines only (an engine's message may point at a column of
    the query on its next lines): a CR, form feed or U+2028 from a path or an argument
    stays in its line and is shown as its escape, where ``splitlines`` made it a line
    break. Values the commands quote are :func:`~kgbench.cli.output.one_line` already."""
    lines = message.strip().split("\n") if message.strip() else ["unknown error"]
    # soft_wrap: one logical line stays one line (greppable), whatever the width.
    err.print(f"[bold red]Error:[/] {escape(lines[0])}", soft_wrap=True)
    for line in lines[1:]:
        err.print(f"  {escape(line)}", soft_wrap=True)
    if hint:
        err.print(f"[dim]hint: {escape(hint)}[/]", soft_wrap=True)
