"""Where and how to reach an OpenAI-compatible chat endpoint (:class:`ChatEndpoint`):
base URL, model, the environment variable holding the API key (never a command-line
argument), timeout, retries, backoff, rate limit and the cap on a reply's size.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass

from llm.errors import LLMConfigError
from llm.transport import DEFAULT_MAX_RESPONSE_BYTES

DEFAULT_API_KEY_ENV = "KGBENCH_LLM_API_KEY"
"""The environment variable the API key is read from unless the endpoint names another."""

MAX_RESPONSE_BYTES_ENV = "KGBENCH_LLM_MAX_RESPONSE_BYTES"
"""The environment variable that sets the cap on an LLM reply's size, in bytes (default
:data:`llm.transport.DEFAULT_MAX_RESPONSE_BYTES`, 8 MiB)."""


@dataclass(frozen=True, slots=True)
class ChatEndpoint:
    """An OpenAI-compatible chat endpoint and how to call it.

    ``url`` is the API base (``http://localhost:8000/v1`` for vLLM,
    ``http://localhost:11434/v1`` for Ollama); requests go to ``{url}/chat/completions``
    (a ``url`` that already ends in ``/chat/completions`` is used as is). ``model`` is
    sent with every request. The API key is read from the environment variable
    ``api_key_env`` when a request is made and sent as ``Authorization: Bearer <key>``
    when set, to this origin only (see :mod:`llm.transport`); local servers need
    none. The URL itself may not hold a user or password: URLs appear in messages.
    ``timeout_s`` is the deadline of the whole request: every attempt (connect, send,
    every read) and every wait between them. A failed attempt is retried at most
    ``max_retries`` times, after waiting ``backoff_base_s * 2**attempt`` seconds (or the
    server's ``Retry-After``), never longer than ``max_wait_s`` per wait, and only while
    time is left: an attempt gets what is left of the deadline, and a wait that would
    pass it ends the request at once with the last error. So one request takes at most
    ``timeout_s`` (plus the rate limit's wait before its first attempt: the time this
    process queues its own requests is not the server's). A reply over
    ``max_response_bytes`` is refused. ``requests_per_second`` (``None``: no limit)
    spaces the requests of this process.
    ``max_tokens`` caps each reply (``None`` omits the field, for servers that reject
    it).
    """

    url: str
    model: str
    api_key_env: str = DEFAULT_API_KEY_ENV
    timeout_s: float = 120.0
    max_retries: int = 5
    backoff_base_s: float = 1.0
    max_wait_s: float = 120.0
    requests_per_second: float | None = None
    max_tokens: int | None = 512
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.url):
            raise ValueError(f"LLM URL {shown_url(self.url)!r} is not an http(s) URL; pass "
                             "the API base, e.g. http://localhost:8000/v1")
        parts = urllib.parse.urlsplit(self.url)
        if "@" in parts.netloc:
            raise ValueError(f"the LLM URL {shown_url(self.url)!r} holds a user name or "
                             f"password; put the key in ${self.api_key_env} instead (URLs "
                             "are shown in messages)")
        try:
            _ = parts.port   # urllib checks it only when asked
        except ValueError:
            raise ValueError(f"the LLM URL {shown_url(self.url)!r} has a port that is not "
                             "a number from 0 to 65535") from None
        if self.max_response_bytes < 1:
            raise ValueError("max_response_bytes must be >= 1")
        if not self.model.strip():
            raise ValueError("the LLM model name is empty")
        if self.timeout_s <= 0 or self.backoff_base_s < 0 or self.max_wait_s < 0:
            raise ValueError("timeout_s must be > 0, backoff_base_s and max_wait_s >= 0")
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.requests_per_second is not None and self.requests_per_second <= 0:
            raise ValueError("requests_per_second must be > 0 (or None for no limit)")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError("max_tokens must be >= 1 (or None to omit it)")

    @property
    def chat_url(self) -> str:
        """The URL requests are POSTed to."""
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"

    def api_key(self) -> str | None:
        """The API key from ``$api_key_env``, or ``None`` when unset or empty."""
        return os.environ.get(self.api_key_env) or None


def shown_url(url: str) -> str:
    """``url`` fit for a message: any ``user:password@`` replaced by ``***@``."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", r"\1***@", url)


def max_response_bytes() -> int:
    """The cap on an LLM reply's size: ``$KGBENCH_LLM_MAX_RESPONSE_BYTES`` (a positive
    number of bytes) when set, else 8 MiB. Raises :class:`LLMConfigError` for a value
    that is not one."""
    value = os.environ.get(MAX_RESPONSE_BYTES_ENV, "").strip()
    if not value:
        return DEFAULT_MAX_RESPONSE_BYTES
    if not value.isdigit() or int(value) < 1:
        raise LLMConfigError(f"${MAX_RESPONSE_BYTES_ENV}={value[:40]!r} is not a positive "
                             f"number of bytes; unset it for the default "
                             f"({DEFAULT_MAX_RESPONSE_BYTES:,})")
    return int(value)


def endpoint_from_options(llm_url: str, llm_model: str | None, *,
                          api_key_env: str = DEFAULT_API_KEY_ENV,
                          requests_per_second: float | None = None,
                          timeout_s: float = 120.0, max_retries: int = 5) -> ChatEndpoint:
    """The endpoint the command-line options describe (``--llm-url``, ``--llm-model``,
    ``--llm-rps``, ``--llm-timeout``, ``--llm-retries``; one home for every command that
    talks to an LLM), with the reply size cap of ``$KGBENCH_LLM_MAX_RESPONSE_BYTES``
    (:func:`max_response_bytes`). Raises :class:`LLMConfigError` for a URL without a
    model, a malformed URL or cap."""
    if not llm_model:
        raise LLMConfigError(f"--llm-url {shown_url(llm_url)} needs --llm-model (the name "
                             "the server serves the model under, e.g. llama3.1:8b for Ollama)")
    try:
        return ChatEndpoint(url=llm_url, model=llm_model, api_key_env=api_key_env,
                            requests_per_second=requests_per_second, timeout_s=timeout_s,
                            max_retries=max_retries, max_response_bytes=max_response_bytes())
    except ValueError as exc:
        raise LLMConfigError(str(exc)) from None
