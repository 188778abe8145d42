"""A job as the API shows it (:class:`Job`) and as ``DATA/jobs/<id>/job.json`` keeps
it (:class:`JobFile`: the same fields plus what the server needs to run and recover
it). Files are replaced atomically (written beside, then renamed), so a reader or a
server killed mid-write never sees half a document.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from kgstore.confined import open_write, replace

__all__ = ["JOB_FILE", "PROGRESS_FILE", "RESULT_FILE", "Job", "JobFile", "JobProgress",
           "JobState", "LOG_FILE", "PARENT_ENV", "TERMINAL", "now_iso", "read_json", "write_json_atomic"]

JobState = Literal["queued", "running", "succeeded", "failed", "cancelled", "interrupted"]
TERMINAL = frozenset({"succeeded", "failed", "cancelled"})
"""States a job leaves only by an explicit resume."""

JOB_FILE = "job.json"
PROGRESS_FILE = "progress.json"
RESULT_FILE = "result.json"
LOG_FILE = "log"
PARENT_ENV = "KGBENCH_JOB_PARENT"
"""The server's pid, in a job process's environment (see ``child._die_with_parent``)."""


class JobProgress(BaseModel):
    """How far the job's current attempt is: ``total`` is ``None`` while unknown;
    ``rate_per_s`` and ``eta_s`` (seconds left) once there is something to measure."""

    done: int = 0
    total: int | None = None
    rate_per_s: float | None = None
    eta_s: float | None = None
    description: str = ""


class Job(BaseModel):
    """A job as ``GET /api/jobs/{id}`` returns it; ``out`` is relative to ``--data``."""

    id: str
    kind: str
    params: dict[str, Any]
    state: JobState
    progress: JobProgress = JobProgress()
    created: str
    started: str | None = None
    finished: str | None = None
    error: str | None = None
    out: str
    resumable: bool
    attempts: int = 0
    result: dict[str, Any] | None = None


class JobFile(Job):
    """``job.json``: the job plus the server's bookkeeping (never shown by the API)."""

    model_config = ConfigDict(extra="ignore")

    store: str
    pid: int | None = None
    owns_out: bool = True
    """Whether ``out`` was made for this job (so a restart from scratch may remove it)."""
    cancel_requested: bool = False
    seq: int = 0
    """Submission order: ``created`` is to the second, and two jobs submitted within
    one second must still run in the order they came (a tie once ran the later first)."""

    def public(self) -> Job:
        return Job.model_validate(self.model_dump(include=set(Job.model_fields)))


def now_iso() -> str:
    """The current time, ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def write_json_atomic(path: Path, doc: Any, *, roots: Sequence[Path] | None = None) -> None:
    """Write ``doc`` to ``path`` whole or not at all (a temporary file, then a rename),
    never through a symlink below ``roots`` (the server's ``--data``; in a job's
    process, the folders it is confined to: :mod:`kgstore.confined`)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open_write(temporary, roots=roots) as out:
        out.write(json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n")
    replace(temporary, path, roots=roots)


def read_json(path: Path) -> Any:
    """The JSON document at ``path``; ``None`` when it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
