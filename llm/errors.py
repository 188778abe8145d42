"""What can go wrong talking to an LLM endpoint: :class:`LLMError` and its subclasses,
whose messages say what happened and what to check, and never quote the API key.
"""

from __future__ import annotations

from typing import Any


class LLMError(Exception):
    """Base class of every error of the LLM backend. Messages say what happened and
    what to check."""


class LLMUnavailable(LLMError):
    """The endpoint gave no usable answer within the request's deadline or its retries:
    unreachable, too slow, failing with 5xx or rate-limiting (429) for longer than we
    wait."""


class LLMRejected(LLMError):
    """The endpoint refused the request with a 4xx status other than 408 and 429 (bad
    key, unknown model, wrong URL, prompt too long): retrying cannot help.

    ``status`` is the HTTP status code, ``reason`` the server's own message (quoted and
    escaped by :func:`server_message`; empty when there is none)."""

    def __init__(self, message: str, status: int, reason: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        # Raised in a `generate --workers N` process and pickled back to the parent:
        # the default (the class and ``args``) would call __init__ without ``status``.
        return type(self), (str(self), self.status, self.reason)

    @property
    def is_configuration_error(self) -> bool:
        """True when the status points at the configuration (key, URL, model) rather
        than at this one request: 401, 403, 404, 405."""
        return self.status in (401, 403, 404, 405)


class LLMRedirectRefused(LLMRejected):
    """The endpoint redirected to another origin (scheme, host or port), or in a loop.
    Nothing was sent there: the request carries the API key. Always a configuration
    error (``--llm-url`` is not where the API lives). ``status`` is the 3xx code."""

    @property
    def is_configuration_error(self) -> bool:
        return True


class LLMResponseTooLarge(LLMError):
    """The reply's body is over the endpoint's ``max_response_bytes``; it was not read
    past the cap."""


class LLMConfigError(LLMError, ValueError):
    """The LLM options do not make an endpoint (a URL without a model, a malformed
    URL, ...)."""


class LLMBadResponse(LLMError):
    """The endpoint answered 2xx but the body is not an OpenAI chat completion (not
    JSON, no ``choices``, no message)."""
