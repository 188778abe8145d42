"""How the command line reports errors: one red ``Error: ...`` line (plus a hint) on
stderr and an exit code, never a traceback.

:class:`CliError` is what a command raises for a problem it detects itself (nothing
matched, an ambiguous name, a bad option value). The errors of the packages below
(store, loaders, engine) are recognised by type and printed the same way by
:func:`report_error`, which :func:`kgbench.cli.app.main` calls; anything else is a bug
and keeps its traceback.

Ctrl-C is not an error: a long command runs its work inside :func:`on_interrupt`,
which turns the interrupt into :class:`Interrupted`, printed as one line that says what
became of the work ("interrupted; rerun the same command to resume", or "interrupted;
nothing was written") with exit status 130, the shell's code for SIGINT. Python's
``KeyboardInterrupt`` is not the only shape an interrupt takes: DuckDB cancels its
query and raises ``RuntimeError: Query interrupted``, which the store may wrap in its
own error. So :func:`watch_ctrl_c` (installed by :func:`kgbench.cli.app.main`) notes
each SIGINT, and any error raised after one counts as the interrupt.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

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
from kgstore.errors import QueryCrashedError
from loaders.errors import InputFileError, LoaderError, MalformedInputError

__all__ = ["INTERRUPTED_EXIT", "NOTHING_WRITTEN", "RESUMES", "CliError", "Interrupted",
           "ctrl_c_seen", "on_interrupt", "print_error", "print_interrupted", "quiet_teardown",
           "report_error", "watch_ctrl_c"]

INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + SIGINT), what shells report for an interrupted job."""
RESUMES = "rerun the same command to resume"
"""What an interrupt leaves when the work is kept (load's stages, generate's chunks)."""
NOTHING_WRITTEN = "nothing was written"
"""What an interrupt leaves when every output is written whole or not at all."""


class CliError(Exception):
    """An error the CLI itself detects (nothing matched, ambiguous name, ...); ``code``
    is the exit status (1, or 2 for a usage error)."""

    def __init__(self, message: str, hint: str | None = None, *, code: int = 1) -> None:
        super().__init__(message)
        self.hint = hint
        self.code = code


class Interrupted(CliError):
    """Ctrl-C stopped a command; ``outcome`` says what became of its work
    (:data:`RESUMES`, :data:`NOTHING_WRITTEN`; ``None`` where the command does not
    say)."""

    def __init__(self, outcome: str | None = None) -> None:
        super().__init__("interrupted" + (f"; {outcome}" if outcome else ""),
                         code=INTERRUPTED_EXIT)


_CTRL_C = threading.Event()


@contextmanager
def watch_ctrl_c() -> Iterator[None]:
    """In the block, handle SIGINT as Python does (raise ``KeyboardInterrupt``), noting
    it first, so that an error a library raises for the interrupt is known for what it
    is (:func:`ctrl_c_seen`). The previous handler is restored after the block; outside
    the main thread (where signals cannot be handled) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(_signum: int, _frame: object) -> None:
        _CTRL_C.set()
        raise KeyboardInterrupt

    _CTRL_C.clear()
    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ctrl_c_seen() -> bool:
    """Whether SIGINT arrived since :func:`watch_ctrl_c`."""
    return _CTRL_C.is_set()


def quiet_teardown() -> None:
    """After Ctrl-C, drop the errors of destructors (``Exception ignored in ...``).

    The interrupt can land inside a library's constructor; the half-built object's
    ``__del__`` then fails when it is collected (LadybugDB's ``PreparedStatement``
    without its handle) and Python prints that traceback on stderr, after our one
    line. Nothing is lost: the user asked the work to stop."""
    sys.unraisablehook = lambda _unraisable: None


@contextmanager
def on_interrupt(outcome: str) -> Iterator[None]:
    """Run the block; Ctrl-C in it (a ``KeyboardInterrupt``, or any error raised after
    a SIGINT) becomes :class:`Interrupted` with ``outcome``, so the user reads one
    line, not a traceback nor nothing at all (Typer turns a bare ``KeyboardInterrupt``
    into a silent exit)."""
    try:
        yield
    except (KeyboardInterrupt, Exception) as exc:
        if not isinstance(exc, KeyboardInterrupt) and not ctrl_c_seen():
            raise
        raise Interrupted(outcome) from None


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
    (QueryCrashedError, None),   # the message says what to do
    (QueryError,
     "check the query syntax; `kgbench cypher --help` shows the graph schema"),
    (StoreError, None),
]
_ENGINE_ERRORS = (
    ("extension.run.generate", "GenerateError"),
    ("llm.errors", "LLMError"),   # messages name the endpoint, what to check, and that a rerun resumes
    ("llm.prompt_file", "PromptFileError"),  # a --prompts file: what it lacks, the layout
    ("extension.inputs.parsed_file", "ParsedFileError"),
    ("extension.outputs.output_file", "OutputPathError"),  # an --out that is a directory, a device...
    ("scoring.errors", "ScoringError"),  # model directories, predictions files, benchmarks to score
    ("kalma.errors", "KalmaError"),  # KaLMA entries, answers files, BioKaLMA files
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
    if isinstance(exc, Interrupted):
        quiet_teardown()
        print_interrupted(str(exc))
        return exc.code
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


def print_interrupted(message: str = "interrupted") -> None:
    """The one line an interrupted command prints (not an ``Error:``: the user asked)."""
    err.print(f"[yellow]{escape(message)}[/]", soft_wrap=True)


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
