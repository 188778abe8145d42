"""Run the ``kgbench`` command line inside the test process, as ``python -m kgbench.cli``
would run it in a child process, and return the same :class:`subprocess.CompletedProcess`.

A child process costs about 0.6 s of CPU before the command starts (the interpreter and
the app's imports), and the suite ran the CLI some thousand times. In this process the
imports are paid once, and the command runs through the same :func:`kgbench.cli.main`
that the console script calls. What a child process would give the command, it gets here
too, for the duration of the call only:

* the environment given (``os.environ`` is replaced, then restored) and the working
  directory;
* fresh output streams at the file-descriptor level: file descriptors 1 and 2 point to
  temporary files, so that what native code or a grandchild process writes is captured as
  well; stdout is UTF-8 with strict errors, stderr UTF-8 with ``backslashreplace`` (as
  Python sets them up), read back with universal newlines (as ``subprocess.run(...,
  text=True)`` decodes them); stdin is empty;
* Python's default warning filters of a fresh interpreter (pytest's would show
  deprecation warnings a real run hides) and the warning, unraisable and SIGINT hooks
  restored afterwards (``main()`` sets them);
* the consoles' width from ``COLUMNS`` (they are created once, at import, and a child
  reads ``COLUMNS`` when it creates them);
* an uncaught exception is printed as Python prints it (a traceback on stderr, exit 1),
  so ``"Traceback" not in proc.stderr`` still catches one; ``SystemExit`` gives the exit
  status as the interpreter would;
* ``timeout`` raises :class:`subprocess.TimeoutExpired` (a timer signal in the main
  thread), as ``subprocess.run`` does.

Tests about the process itself (signals, kill -9, locks held by another process, what the
interpreter does at start or exit) run a real child: ``tests.kgbench.test_cli.run_process``.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn


class _Timeout(BaseException):
    """Raised by the timer signal; a BaseException, so that no ``except Exception`` of the
    command swallows it."""


@contextmanager
def _environment(env: Mapping[str, str], cwd: str | Path | None) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


@contextmanager
def _captured_fds() -> Iterator[tuple[Any, Any]]:
    """fds 0, 1 and 2 on /dev/null and two temporary files, and ``sys.stdin/stdout/stderr``
    text streams over them, as a child process started with ``capture_output=True``
    would have; yields the two files (binary, to be read after the block)."""
    out_file = tempfile.TemporaryFile()
    err_file = tempfile.TemporaryFile()
    null = os.open(os.devnull, os.O_RDONLY)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    os.dup2(null, 0)
    os.dup2(out_file.fileno(), 1)
    os.dup2(err_file.fileno(), 2)
    sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8",
                                  errors="strict", write_through=True)
    sys.stderr = io.TextIOWrapper(os.fdopen(os.dup(2), "wb"), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)
    try:
        yield out_file, err_file
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.close()   # flushes; a strict encoding error on flush is the command's
            except (OSError, ValueError, UnicodeError):
                pass
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for fd, saved in zip((0, 1, 2), saved_fds, strict=True):
            os.dup2(saved, fd)
            os.close(saved)
        os.close(null)


def _read_text(handle: Any) -> str:
    """The captured bytes as ``subprocess.run(..., text=True, encoding="utf-8")`` gives
    them: decoded strictly, ``\\r\\n`` and ``\\r`` read as ``\\n``."""
    handle.seek(0)
    data = handle.read()
    handle.close()
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None).read()


@contextmanager
def _fresh_interpreter_hooks() -> Iterator[None]:
    """Warning filters as a fresh ``python`` sets them up, and the hooks ``main()`` may
    replace (``warnings.showwarning``, ``sys.unraisablehook``, the SIGINT handler) put
    back afterwards."""
    showwarning, unraisablehook = warnings.showwarning, sys.unraisablehook
    sigint = signal.getsignal(signal.SIGINT)
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                         ResourceWarning):
            warnings.simplefilter("ignore", category)
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        try:
            yield
        finally:
            warnings.showwarning, sys.unraisablehook = showwarning, unraisablehook
            signal.signal(signal.SIGINT, sigint)


@contextmanager
def _console_widths(env: Mapping[str, str]) -> Iterator[None]:
    """The CLI's two consoles as a child would create them: ``COLUMNS`` wide (else 80:
    a pipe is no terminal)."""
    from kgbench.cli.output import err, out

    columns = env.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() else 80
    saved = [(console, console.size) for console in (out, err)]
    for console, _ in saved:
        console.width = width
    try:
        yield
    finally:
        for console, size in saved:
            console.size = size


@contextmanager
def _deadline(timeout: float | None) -> Iterator[None]:
    if not timeout:
        yield
        return

    def expire(_signum: int, _frame: object) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _exit_status(code: object) -> int:
    """The exit status of ``SystemExit(code)``, as the interpreter sets it (a message is
    printed on stderr by the caller)."""
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code & 0xFF
    return 1


@contextmanager
def _no_process_exit(command: Sequence[str]) -> Iterator[None]:
    """``os._exit`` refused while a command runs in this process: a command that ends
    its own process (``cypher``'s hard deadline) would end the whole test run, with no
    report, as it ended the Neo4j half of a full run after 41 tests. Such a command
    belongs in a child (``run_process``); here it raises in the thread that called it."""
    real = os._exit

    def refuse(status: int) -> NoReturn:
        raise RuntimeError(f"{' '.join(command)} called os._exit({status}) in the test "
                           "process: run it in a child process (run_process)")

    os._exit = refuse
    try:
        yield
    finally:
        os._exit = real


def run_in_process(args: Sequence[str], env: Mapping[str, str], *, cwd: str | Path | None = None,
                   timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``kgbench ARGS`` through :func:`kgbench.cli.main` in this process, with ``env`` as
    its whole environment; see the module docstring for what it shares with a child."""
    from kgbench.cli import main

    argv = [str(a) for a in args]
    command = ["kgbench", *argv]
    with _environment(env, cwd), _fresh_interpreter_hooks(), _console_widths(env), \
            _no_process_exit(command), _captured_fds() as (out_file, err_file):
        try:
            with _deadline(timeout):
                main(argv)
            code = 0
        except _Timeout:
            code = -1
        except SystemExit as exc:
            code = _exit_status(exc.code)
            if code and not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
        except BaseException:   # a bug: the traceback an interpreter would print
            traceback.print_exc()
            code = 1
    stdout, stderr = _read_text(out_file), _read_text(err_file)
    if code == -1:
        raise subprocess.TimeoutExpired(command, timeout or 0, stdout, stderr)
    return subprocess.CompletedProcess(command, code, stdout, stderr)
