"""The job process's side of progress: each update from the use case goes to
``progress.json`` (atomically, at most a few times a second), with the rate and the
time left measured over the current attempt, so a resumed run's finished chunks do
not inflate its rate."""

from __future__ import annotations

import time
from pathlib import Path

from kgbench.service.jobs.record import JobProgress, write_json_atomic

__all__ = ["ProgressWriter"]


class ProgressWriter:
    """``update(done, total, description)``; writes at most every ``min_interval_s``
    (and always when the work is complete, and on :meth:`flush`)."""

    def __init__(self, path: Path, *, min_interval_s: float = 0.2) -> None:
        self._path = path
        self._min_interval_s = min_interval_s
        self._last_write = 0.0
        self._start: tuple[float, int] | None = None
        self._current = JobProgress()

    @property
    def current(self) -> JobProgress:
        return self._current

    def update(self, done: int, total: int | None, description: str = "") -> None:
        now = time.monotonic()
        if self._start is None:
            self._start = (now, done)
        started_at, done_at_start = self._start
        elapsed = now - started_at
        rate = (done - done_at_start) / elapsed if elapsed > 0.5 and done > done_at_start \
            else None
        eta = (total - done) / rate if rate and total is not None and total >= done else None
        self._current = JobProgress(done=done, total=total,
                                    rate_per_s=round(rate, 3) if rate else None,
                                    eta_s=round(eta, 1) if eta is not None else None,
                                    description=description)
        if now - self._last_write >= self._min_interval_s or (total is not None and done >= total):
            self.flush()

    def flush(self) -> None:
        self._last_write = time.monotonic()
        write_json_atomic(self._path, self._current.model_dump())
