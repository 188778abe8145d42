"""The process that runs one job: ``python -m kgbench.service.jobs.child JOB_DIR``.

It reads ``JOB_DIR/job.json``, resolves the job's inputs under ``--data`` (again: the
server checked them when the job was submitted) and its output directory (made one
folder at a time without following a symlink; from then on the only place, beside
``JOB_DIR``, where its outputs may be written: a symlink placed there while the job
waited or runs fails the job instead of redirecting a write), runs the kind's use case
with its progress going to ``JOB_DIR/progress.json``, and writes ``JOB_DIR/result.json``:
``{"ok": true, "summary": {...}}``, or ``{"ok": false, "error": ONE LINE,
"interrupted": bool}``. The error is the message the command line would print; the
traceback, when there is one, goes to stderr, which the server sends to ``JOB_DIR/log``.

Why a process: Python work can only be cancelled from outside a process, generate
starts worker processes of its own, and a job that crashes must not take the server
with it. SIGINT (the server's cancel) and SIGTERM (sent by the kernel when the
server dies, see :func:`_die_with_parent`) stop the work as Ctrl-C stops the command:
generate and score keep their finished chunks.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import traceback
from pathlib import Path
from types import FrameType
from typing import Any

from kgbench.service.jobs.inputs import resolve_inputs
from kgbench.service.jobs.kinds import RUNNERS, RunContext
from kgbench.service.jobs.progress import ProgressWriter
from kgbench.service.jobs.record import (
    JOB_FILE,
    PARENT_ENV,
    PROGRESS_FILE,
    RESULT_FILE,
    JobFile,
    write_json_atomic,
)
from kgbench.service.jobs.specs import params_model
from kgbench.service.paths import directory_under
from kgstore.confined import confine_writes
from kgstore.diskspace import is_disk_full

__all__ = ["INTERRUPTED_EXIT", "NO_SPACE_EXIT", "main"]

INTERRUPTED_EXIT = 130
NO_SPACE_EXIT = 28
"""The exit status (ENOSPC's number) of a job whose result could not be written: the
disk is full. The server says so for the job."""
_PR_SET_PDEATHSIG = 1
_signalled = False


def _on_signal(_signum: int, _frame: FrameType | None) -> None:
    global _signalled
    _signalled = True
    raise KeyboardInterrupt


def _die_with_parent() -> None:
    """Ask the kernel for SIGTERM when the server dies (Linux), and exit at once when it
    is already gone: a job orphaned by a killed server would otherwise keep running
    (and keep its output locked) while the restarted server resumes it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    expected = os.environ.get(PARENT_ENV)
    if expected and expected.isdigit() and os.getppid() != int(expected):
        raise SystemExit(INTERRUPTED_EXIT)


def one_line(exc: BaseException) -> str:
    """The message the command line would print for ``exc``: its first line."""
    message = getattr(exc, "message", None)
    text = message if isinstance(message, str) else str(exc)
    first = text.strip().split("\n", 1)[0] if text.strip() else type(exc).__name__
    return first[:2000]


def run_job(job_dir: Path) -> dict[str, Any]:
    """Run the job of ``job_dir`` to its end and return what ``result.json`` gets."""
    job = JobFile.model_validate_json((job_dir / JOB_FILE).read_text(encoding="utf-8"))
    data_dir = job_dir.parent.parent
    params = params_model(job.kind).model_validate(job.params)
    progress = ProgressWriter(job_dir / PROGRESS_FILE, stop_requested=lambda: _signalled)
    try:
        # Now, not when the job was submitted; a score job's (its benchmark) is not made.
        out_dir = directory_under(data_dir, job.out, create=job.owns_out)
        # Every write from here on (workers too) walks down from --data without
        # following a symlink, and stays inside these two folders.
        confine_writes(out_dir, job_dir, trusted=data_dir)
        inputs = resolve_inputs(params, data_dir)
        ctx = RunContext(store=job.store, out_dir=out_dir, job_dir=job_dir,
                         inputs=inputs, progress=progress)
        summary = RUNNERS[job.kind](params, ctx)
    except KeyboardInterrupt:
        return {"ok": False, "interrupted": True, "error": "interrupted"}
    except Exception as exc:
        traceback.print_exc()
        if _signalled:   # a library's error for the interrupt (DuckDB, the store)
            return {"ok": False, "interrupted": True, "error": "interrupted"}
        return {"ok": False, "interrupted": False, "error": one_line(exc)}
    finally:
        try:
            progress.flush()
        except OSError:
            pass
    return {"ok": True, "summary": summary}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m kgbench.service.jobs.child JOB_DIR", file=sys.stderr)
        return 2
    job_dir = Path(args[0]).resolve()
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    _die_with_parent()
    try:
        result = run_job(job_dir)
    except KeyboardInterrupt:
        result = {"ok": False, "interrupted": True, "error": "interrupted"}
    try:
        write_json_atomic(job_dir / RESULT_FILE, result)
    except OSError as exc:
        if is_disk_full(exc):
            return NO_SPACE_EXIT
        raise
    if result["ok"]:
        return 0
    return INTERRUPTED_EXIT if result.get("interrupted") else 1


if __name__ == "__main__":
    sys.exit(main())
