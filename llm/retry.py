"""When and how fast to retry: a thread-safe :class:`RateLimiter`, exponential backoff
(:func:`backoff_s`), ``Retry-After`` (:func:`parse_retry_after`) and which statuses are
worth another try (:func:`is_retryable_status`).
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Callable
from datetime import UTC

from llm.endpoint import ChatEndpoint


class RateLimiter:
    """Spaces calls to :meth:`wait` at least ``1 / requests_per_second`` seconds apart
    across all threads of this process (``None``: no limit). Each caller reserves the
    next free slot under a lock and sleeps outside it, so waiting threads queue in
    order without holding the lock. ``clock`` and ``sleep`` default to the real ones;
    tests pass their own to check the slots without depending on the machine's load."""

    def __init__(self, requests_per_second: float | None, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if requests_per_second is not None and requests_per_second <= 0:
            raise ValueError("requests_per_second must be > 0 (or None for no limit)")
        self.interval = 0.0 if requests_per_second is None else 1.0 / requests_per_second
        self._next = 0.0
        self._lock = threading.Lock()
        self._clock = clock
        self._sleep = sleep

    def wait(self) -> None:
        """Block until this caller's slot comes."""
        if self.interval == 0.0:
            return
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        if slot > now:
            self._sleep(slot - now)


def backoff_s(endpoint: ChatEndpoint, attempt: int) -> float:
    """Seconds to wait before retry number ``attempt + 1`` (``attempt`` counts from 0):
    ``backoff_base_s * 2**attempt``, at most ``max_wait_s``."""
    return min(endpoint.max_wait_s, endpoint.backoff_base_s * 2.0 ** attempt)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (RFC 9110 §10.2.3: delay seconds
    or an HTTP date), ``None`` when absent or unreadable; never negative. ``now`` (a
    Unix time) defaults to the current time."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def is_retryable_status(status: int) -> bool:
    """Whether a reply with ``status`` may succeed if asked again: 408 (request
    timeout), 429 (rate limit) and 5xx (server trouble). Any other non-2xx status is
    an answer about the request or the configuration, the same the next time."""
    return status in (408, 429) or status >= 500
