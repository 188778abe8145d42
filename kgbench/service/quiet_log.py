"""Log lines that repeat, rate-limited: a full disk fails every write the server tries
(each request, each pass of the job dispatcher, ten times a second), and a log of a
thousand identical tracebacks hides what happened and fills the disk further.

:class:`RateLimitedLog` writes a message the first time it is seen, then at most once
per ``interval_s`` for the same key, saying how many it left out meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time

__all__ = ["RateLimitedLog"]


class RateLimitedLog:
    """``log.warning(key, message)``: ``message`` when ``key`` was not logged in the
    last ``interval_s`` seconds, else nothing (counted). ``exc_info`` is kept for the
    first time a key is logged only: one traceback, then one line each interval."""

    def __init__(self, logger: logging.Logger, interval_s: float = 60.0) -> None:
        self._logger = logger
        self._interval_s = interval_s
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._left_out: dict[str, int] = {}

    def warning(self, key: str, message: str, *, exc_info: BaseException | None = None) -> bool:
        """Log ``message`` unless ``key`` was logged within the interval; whether it was."""
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self._interval_s:
                self._left_out[key] = self._left_out.get(key, 0) + 1
                return False
            self._last[key] = now
            left_out = self._left_out.pop(key, 0)
            if len(self._last) > 1000:   # keys of long-gone errors
                self._last = {k: t for k, t in self._last.items()
                              if now - t < self._interval_s}
        if left_out:
            message += f" ({left_out:,} more like it in the last {self._interval_s:g} s)"
        self._logger.warning(message, exc_info=exc_info if last is None else None)
        return True
