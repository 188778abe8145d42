"""Optional LLM verbalization backend: any OpenAI-compatible chat endpoint.

The template verbalizer (:mod:`extension.verbalize`) needs nothing but the sample. This
module lets an LLM write the text instead, as CAQA does (Hu et al., *Benchmarking Large
Language Models in Complex Question Answering Attribution using Knowledge Graphs*,
Appendix A, Tables 9–11): a citation per part of the subgraph, the extended question q̃
and the answer statement ã. It talks to any server implementing ``POST
{url}/chat/completions`` (vLLM, Ollama, llama.cpp, a hosted API):

* :class:`ChatEndpoint` — where and how: base URL, model, the environment variable
  holding the API key (never a command-line argument), timeout, retries, backoff, rate
  limit. The temperature is fixed at 0 so that a rerun asks for the same text.
* :class:`ChatClient` — one deadline for each request, its retries and their waits
  included; one bounded POST per attempt (:mod:`extension.llm_http`: what is left of
  that deadline, a cap on the reply's size, no redirect to another origin, so the key
  goes nowhere else); retries with exponential backoff on connection errors, 408, 429
  (honouring ``Retry-After``) and 5xx while time is left, none on other 4xx; a
  thread-safe :class:`RateLimiter`; errors are :class:`LLMError`
  subclasses whose messages say what happened and what to check, quote the server's
  own message (shortened, control characters escaped) and never the API key.
* :class:`ResponseCache` — replies on disk, one file per request hash, so reruns and
  resumed runs send nothing for what they already asked.
* :class:`LLMVerbalizer` — the :class:`extension.verbalize.Verbalizer` protocol over
  the above. Each response is checked (:func:`check_citation`, :func:`check_question`,
  :func:`check_answer`); an unusable one is replaced by the template text and flagged in
  ``Verbalization.fallbacks``.
* :func:`verbalizer_from_options` — what the CLI calls with ``--llm-url``/``--llm-model``.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import http.client
import json
import os
import re
import socket
import ssl
import tempfile
import threading
import time
import unicodedata
import urllib.parse
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from typing import Literal as TypingLiteral

from pydantic import BaseModel, ConfigDict, ValidationError

from extension import llm_http
from extension.llm_http import DEFAULT_MAX_RESPONSE_BYTES
from extension.query_graph import QueryEdge, QueryGraph
from extension.samples import AnswerEntity, StructuredSample, Triple
from extension.verbalize import (
    Citation,
    TemplateVerbalizer,
    Verbalization,
    Verbalizer,
    answer_statement,
    render_literal,
)

DEFAULT_API_KEY_ENV = "KGBENCH_LLM_API_KEY"
"""The environment variable the API key is read from unless the endpoint names another."""

MAX_RESPONSE_BYTES_ENV = "KGBENCH_LLM_MAX_RESPONSE_BYTES"
"""The environment variable that sets the cap on an LLM reply's size, in bytes (default
:data:`extension.llm_http.DEFAULT_MAX_RESPONSE_BYTES`, 8 MiB)."""

TEMPERATURE = 0.0
"""Sampling temperature of every request: 0, so the same prompt asks for the same text
(CAQA Appendix A generates with temperature 0 as well)."""

# ---------------------------------------------------------------------------
# Errors


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


# ---------------------------------------------------------------------------
# Endpoint and messages


@dataclass(frozen=True, slots=True)
class ChatEndpoint:
    """An OpenAI-compatible chat endpoint and how to call it.

    ``url`` is the API base (``http://localhost:8000/v1`` for vLLM,
    ``http://localhost:11434/v1`` for Ollama); requests go to ``{url}/chat/completions``
    (a ``url`` that already ends in ``/chat/completions`` is used as is). ``model`` is
    sent with every request. The API key is read from the environment variable
    ``api_key_env`` when a request is made and sent as ``Authorization: Bearer <key>``
    when set, to this origin only (see :mod:`extension.llm_http`); local servers need
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
            raise ValueError(f"LLM URL {_shown_url(self.url)!r} is not an http(s) URL; pass "
                             "the API base, e.g. http://localhost:8000/v1")
        parts = urllib.parse.urlsplit(self.url)
        if "@" in parts.netloc:
            raise ValueError(f"the LLM URL {_shown_url(self.url)!r} holds a user name or "
                             f"password; put the key in ${self.api_key_env} instead (URLs "
                             "are shown in messages)")
        try:
            _ = parts.port   # urllib checks it only when asked
        except ValueError:
            raise ValueError(f"the LLM URL {_shown_url(self.url)!r} has a port that is not "
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


def _shown_url(url: str) -> str:
    """``url`` fit for a message: any ``user:password@`` replaced by ``***@``."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", r"\1***@", url)


Role = TypingLiteral["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a chat request."""

    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The text of a chat completion's first choice and why generation stopped
    (``"length"``: cut off at ``max_tokens``)."""

    content: str
    finish_reason: str | None = None


def chat_request_body(endpoint: ChatEndpoint, messages: Sequence[ChatMessage]) -> dict[str, Any]:
    """The JSON body of an OpenAI chat-completions request for ``messages``: model,
    messages, ``temperature`` 0 and ``max_tokens`` when the endpoint sets one."""
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "temperature": TEMPERATURE,
    }
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    return body


def request_key(body: Mapping[str, Any]) -> str:
    """The cache key of a request body: the SHA-256 (hex) of its canonical JSON (sorted
    keys, no spaces). The body holds model, messages, temperature and ``max_tokens``
    — everything that decides the reply — and not the URL, so the same model served
    elsewhere shares the cache."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------
# JSON boundary: the chat-completion response


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _ResponseMessage(_Lenient):
    content: str | None = None


class _Choice(_Lenient):
    message: _ResponseMessage
    finish_reason: str | None = None


class _ChatCompletion(_Lenient):
    choices: list[_Choice]


def parse_chat_completion(raw: bytes, url: str) -> ChatReply:
    """The reply in an OpenAI chat-completion body (``choices[0].message.content``; a
    ``null`` content reads as ``""``). Raises :class:`LLMBadResponse` saying what is
    wrong when ``raw`` is not such a body."""
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise LLMBadResponse(
            f"the LLM endpoint {url} answered with something that is not JSON "
            f"(starts with {_snippet(raw)!r}); is it an OpenAI-compatible "
            "chat-completions endpoint?") from None
    try:
        completion = _ChatCompletion.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise LLMBadResponse(
            f"the LLM endpoint {url} answered JSON that is not a chat completion "
            f"({where}: {first['msg']}; body starts with {_snippet(raw)!r})") from None
    if not completion.choices:
        raise LLMBadResponse(f"the LLM endpoint {url} answered a chat completion with no "
                             f"choices (body starts with {_snippet(raw)!r})")
    choice = completion.choices[0]
    return ChatReply(content=choice.message.content or "", finish_reason=choice.finish_reason)


def _snippet(raw: bytes, limit: int = 120) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else text[:limit] + "…"


# ---------------------------------------------------------------------------
# Rate limiting and retries


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


# ---------------------------------------------------------------------------
# The client


@dataclass(slots=True)
class ChatStats:
    """Counters of a :class:`ChatClient`: HTTP requests sent (retries included) and
    replies served from the cache."""

    requests: int = 0
    cache_hits: int = 0


class ChatClient:
    """Sends chat requests to ``endpoint`` (:func:`extension.llm_http.post`, one
    connection per attempt), with retries, backoff and the rate limit, all within the
    endpoint's ``timeout_s`` (the deadline of the whole request); thread-safe.

    With a ``cache`` (:class:`ResponseCache`) a request asked before is answered from
    disk without touching the network, and a new reply is stored before it is
    returned. Concurrent threads asking the same request wait for one another (striped
    locks by request key) so it is sent once. ``stats`` counts requests and hits.
    """

    _STRIPES = 64

    def __init__(self, endpoint: ChatEndpoint, cache: ResponseCache | None = None,
                 limiter: RateLimiter | None = None) -> None:
        self.endpoint = endpoint
        self.cache = cache
        self.limiter = limiter or RateLimiter(endpoint.requests_per_second)
        self.stats = ChatStats()
        self._stats_lock = threading.Lock()
        self._key_locks = tuple(threading.Lock() for _ in range(self._STRIPES))

    def complete(self, messages: Sequence[ChatMessage]) -> ChatReply:
        """The reply to ``messages`` (from the cache when there is one and it has it).

        Raises :class:`LLMUnavailable` when every attempt failed or the deadline
        passed (see :class:`ChatEndpoint`), :class:`LLMRejected` on a 4xx other than
        408 and 429, :class:`LLMBadResponse` when a 2xx body is not a chat completion
        (not cached, so a rerun asks again)."""
        body = chat_request_body(self.endpoint, messages)
        if self.cache is None:
            return self.send(body)
        key = request_key(body)
        with self._key_locks[int(key[:8], 16) % self._STRIPES]:
            cached = self.cache.get(key)
            if cached is not None:
                with self._stats_lock:
                    self.stats.cache_hits += 1
                return cached
            reply = self.send(body)
            self.cache.put(key, body, reply)
            return reply

    def cached(self, messages: Sequence[ChatMessage]) -> ChatReply | None:
        """The cached reply to ``messages``, or None (also without a cache); never
        touches the network."""
        if self.cache is None:
            return None
        reply = self.cache.get(request_key(chat_request_body(self.endpoint, messages)))
        if reply is not None:
            with self._stats_lock:
                self.stats.cache_hits += 1
        return reply

    def send(self, body: Mapping[str, Any]) -> ChatReply:
        """POST ``body`` to the endpoint, retrying as configured while the deadline
        allows; no cache. Raises as
        :meth:`complete`, and :class:`LLMResponseTooLarge` for a reply over the cap."""
        ep = self.endpoint
        url = ep.chat_url
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = ep.api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        attempts = ep.max_retries + 1
        problem = ""
        self.limiter.wait()
        # One deadline for the whole request, retries and waits included (a deadline per
        # attempt let a dripping server hold one request for (retries + 1) timeouts plus
        # the backoff). It starts after the first rate-limit wait, which is this process
        # queueing its own requests, not the server being slow.
        deadline = time.monotonic() + ep.timeout_s
        for attempt in range(attempts):
            if attempt:
                self.limiter.wait()
            left = deadline - time.monotonic()
            if left <= 0:
                raise LLMUnavailable(_deadline_message(ep, attempt, problem))
            with self._stats_lock:
                self.stats.requests += 1
            retry_after: float | None = None
            try:
                reply = llm_http.post(url, data, headers, timeout_s=left,
                                      max_bytes=ep.max_response_bytes)
            except llm_http.DeadlineExceeded:
                # The attempt had all the time left: the request's deadline has passed.
                raise LLMUnavailable(_deadline_message(
                    ep, attempt + 1, "cut off at the deadline without a complete reply")
                ) from None
            except llm_http.ReplyTooLarge as exc:
                raise LLMResponseTooLarge(_too_large_message(exc)) from None
            except llm_http.CrossOriginRedirect as exc:
                raise LLMRedirectRefused(
                    f"the LLM endpoint {url} redirected the request (HTTP {exc.status}) to "
                    f"{server_text(exc.location, key)}, another host, port or scheme; it "
                    "was not followed, because the request carries the API key: if that "
                    "address is the real endpoint and you trust it, pass it as --llm-url",
                    exc.status) from None
            except llm_http.TooManyRedirects as exc:
                raise LLMRedirectRefused(
                    f"the LLM endpoint {url} redirected the request more than "
                    f"{llm_http.MAX_REDIRECTS} times (last HTTP {exc.status} from "
                    f"{server_text(exc.url, key)}); check --llm-url", exc.status) from None
            except (OSError, http.client.HTTPException) as exc:
                problem = _describe_network_error(exc)
            else:
                if 200 <= reply.status < 300:
                    try:
                        return parse_chat_completion(reply.body, url)
                    except LLMBadResponse as exc:   # quotes the body: keep the key out
                        raise LLMBadResponse(_redact(str(exc), key)) from None
                if not is_retryable_status(reply.status):
                    raise LLMRejected(_rejection_message(ep, reply, key), reply.status,
                                      server_message(reply.body, key))
                problem = f"HTTP {reply.status}: {server_message(reply.body, key)}"
                retry_after = parse_retry_after(reply.headers.get("retry-after"))
            if attempt == attempts - 1:
                break
            wait = backoff_s(ep, attempt) if retry_after is None else retry_after
            if wait > ep.max_wait_s:
                raise LLMUnavailable(
                    f"the LLM endpoint {url} asks to wait {wait:.0f}s before retrying "
                    f"({problem}), longer than max_wait_s={ep.max_wait_s:.0f}s; try again "
                    "later or lower the request rate") from None
            if time.monotonic() + wait >= deadline:
                # Sleeping into the deadline would only delay the same error.
                asked = "asks to wait" if retry_after is not None else "would wait"
                raise LLMUnavailable(_deadline_message(
                    ep, attempt + 1, f"{problem}; the retry {asked} {wait:.3g}s, past the "
                    "deadline"))
            time.sleep(wait)
        raise LLMUnavailable(
            f"no answer from the LLM endpoint {url} after {attempts} attempt"
            f"{'s' if attempts != 1 else ''} (last: {problem}); check that the server is "
            "running and reachable and that --llm-url is its OpenAI-compatible base URL "
            "(e.g. http://localhost:8000/v1)")


def _deadline_message(ep: ChatEndpoint, attempts: int, problem: str) -> str:
    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    return (f"no answer from the LLM endpoint {ep.chat_url} within the {ep.timeout_s:g}s "
            f"timeout, the deadline of the whole request with its retries ({tries}; last: "
            f"{problem}); check that the server is running, reachable and not overloaded "
            "and that --llm-url is its OpenAI-compatible base URL, or allow more time with "
            "--llm-timeout")


def is_retryable_status(status: int) -> bool:
    """Whether a reply with ``status`` may succeed if asked again: 408 (request
    timeout), 429 (rate limit) and 5xx (server trouble). Any other non-2xx status is
    an answer about the request or the configuration, the same the next time."""
    return status in (408, 429) or status >= 500


SERVER_TEXT_CHARS = 300
"""How much of a server's own text (an error message, a redirect target) a message
quotes."""


def server_text(text: str, key: str | None = None, limit: int = SERVER_TEXT_CHARS) -> str:
    """``text`` from the server made safe to print: the API key ``key`` (when the server
    echoes it) replaced by ``***``, cut to ``limit`` characters, quoted with every
    control character escaped (``repr``), so it is one line and cannot drive the
    terminal."""
    text = _redact(text, key)
    if len(text) > limit:
        text = text[:limit] + "…"
    return repr(text)


def server_message(raw: bytes, key: str | None = None) -> str:
    """The message of an error body, as :func:`server_text`: ``error.message`` (OpenAI,
    vLLM), ``error`` when it is a string (Ollama), ``detail`` or ``message`` (other
    servers) when the body is such JSON, else the body's text."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        error = doc.get("error")
        found = (error.get("message") if isinstance(error, dict) else error) \
            or doc.get("detail") or doc.get("message")
        if isinstance(found, str) and found.strip():
            text = found.strip()
    return server_text(text or "(empty body)", key)


def _redact(text: str, key: str | None) -> str:
    return text.replace(key, "***") if key else text


def _too_large_message(exc: llm_http.ReplyTooLarge) -> str:
    size = (f"announces {exc.declared:,} bytes" if exc.declared is not None
            else f"runs past {exc.max_bytes:,} bytes")
    return (f"the LLM endpoint {exc.url} sent a reply that {size}, over the cap of "
            f"{exc.max_bytes:,} bytes (a chat completion is a few KB), and it was not read "
            f"further; check that --llm-url is a chat-completions endpoint, or raise the cap "
            f"with ${MAX_RESPONSE_BYTES_ENV}")


def _rejection_message(ep: ChatEndpoint, reply: llm_http.HttpReply, key: str | None) -> str:
    status = reply.status
    hint = {
        401: f"check the API key in ${ep.api_key_env}",
        403: f"check the API key in ${ep.api_key_env} and its permissions",
        404: (f"check --llm-url (the API base, e.g. http://localhost:8000/v1) and that the "
              f"server serves the model {ep.model!r}"),
        405: "check --llm-url: it should be the API base, e.g. http://localhost:8000/v1",
    }.get(status, f"check --llm-model ({ep.model!r}) and what the server accepts (a prompt "
                  "too long for its context?)")
    return (f"the LLM endpoint {ep.chat_url} refused the request with HTTP {status}: "
            f"{server_message(reply.body, key)}; {hint}")


def _describe_network_error(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the server running on that host and port?)"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host ({exc})"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the server's TLS certificate is not trusted ({exc.verify_message})"
    return f"{type(exc).__name__}: {server_text(str(exc))}"


# ---------------------------------------------------------------------------
# The response cache


class ResponseCache:
    """Chat replies on disk, keyed by :func:`request_key` (SHA-256 of model, messages,
    temperature and ``max_tokens``): ``{directory}/{key[:2]}/{key}.json`` holding the
    request and the reply.

    Why one file per key rather than SQLite: several processes (resumed runs, parallel
    workers) write at once, and a file written to a temporary name in the same
    directory and moved into place with :func:`os.replace` (atomic on POSIX and
    Windows) can never be seen half-written, needs no lock, no busy-timeouts and no
    WAL (which SQLite does not support on network file systems). Two writers of one key
    both write a complete entry and the last rename wins. The 256 shard directories keep
    each directory small for millions of entries. An entry that cannot be read (a
    manual edit, a full disk) counts as a miss and is rewritten. Nothing is fsynced: a
    crash can lose recent entries, never corrupt one, and a lost entry is asked again.
    """

    FORMAT = 1

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        """The file of ``key``."""
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ValueError(f"not a SHA-256 hex key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatReply | None:
        """The cached reply of ``key``, or ``None`` (absent or unreadable)."""
        try:
            doc = json.loads(self.path(key).read_bytes())
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            return None
        if (not isinstance(doc, dict) or doc.get("format") != self.FORMAT
                or doc.get("key") != key or not isinstance(doc.get("content"), str)):
            return None
        finish = doc.get("finish_reason")
        return ChatReply(content=doc["content"], finish_reason=finish if isinstance(finish, str)
                         else None)

    def put(self, key: str, request: Mapping[str, Any], reply: ChatReply) -> None:
        """Store ``reply`` for ``key`` (atomically: temporary file, then rename)."""
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        doc = {"format": self.FORMAT, "key": key, "request": request,
               "content": reply.content, "finish_reason": reply.finish_reason,
               "created": datetime.now(UTC).isoformat(timespec="seconds")}
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{key[:12]}-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(doc, out, ensure_ascii=False)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def keys(self) -> list[str]:
        """Every key with an entry file (readable or not), sorted."""
        if not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("??/*.json"))



# ---------------------------------------------------------------------------
# Prompts (CAQA Appendix A, Tables 9–11)

CITATION_PROMPT = """\
Your task is to write the passage of a citation: a short text that states the facts of \
a subgraph of a knowledge graph.

The subgraph is given as triples, one per line, written as (subject, relation, object).

Rules:
1. State the fact of every triple, and nothing else: add no facts, background or \
opinions of your own, and do not mention the triples, the graph or a question.
2. Mention every named entity exactly as it is written in the triples.
3. A node in square brackets, such as [performance 1], is an unnamed record that links \
the facts around it (a film performance, a marriage, an education): do not mention it; \
state its facts together in one clause.
4. Write fluent English, in one paragraph.

Triples:
{triples}

Output only the passage."""
"""Subgraph -> citation, following CAQA Appendix A, Table 9 (the prompt that turns one
part of the subgraph into a citation): an instruction, the triples as
``(subject, relation, object)`` lines with entity names and readable relations, and
"output only the text". ``{triples}`` is filled by :func:`citation_messages`."""

QUESTION_PROMPT = """\
Your task is to extend a question with the constraints added to its query.

A query is given as triples, one per line, written as (subject, relation, object). \
Names starting with "?" are unknown entities; {answer} is the one the question asks for.

Original question: {question}
Original query:
{original}

Extended query{alternatives}:
{extended}

Added constraints:
{added}

Rules:
1. Write the question whose answer is {answer} in the extended query: keep the wording of \
the original question where you can and phrase every added constraint naturally.
2. Mention every named entity of the added constraints exactly as it is written.
3. An entity of the original query that is an unknown ("?") in the extended query must \
not be named: describe it by its constraints instead.
4. Never write a name starting with "?", and do not reveal the answer.
5. Write one question, ending with a question mark.

Output only the extended question."""
"""Question extension, following CAQA Appendix A, Table 10 (the prompt that rewrites the
original question q into the extended question q̃ of the extended query): the original
question and query, the extended query and the constraints the rule added, as
``(subject, relation, object)`` lines, and "output only the question". Filled by
:func:`question_messages`."""

ANSWER_PROMPT = """\
Your task is to turn a question and its answers into one statement.

Question: {question}
Answers: {answers}

Rules:
1. Write one declarative sentence that answers the question with the given answers, \
mentioning every answer exactly as it is written.
2. Add no information that is not in the question or the answers.

Output only the statement."""
"""Answer statement, following CAQA Appendix A, Table 11 (the prompt that states the
extended question's answers as a sentence ã): the question, the answers separated by
``"; "`` and "output only the statement". Filled by :func:`answer_messages`."""

def triple_lines(triples: Sequence[Triple], cvt_nodes: Collection[str],
                 phrases: Mapping[str, str]) -> list[str]:
    """``triples`` as prompt lines ``(subject, relation, object)``: entities by name
    (their id where they have none), literals rendered (:func:`extension.verbalize.
    render_literal`), relations by ``phrases[predicate]`` (a
    :class:`extension.verbalize.PhraseTable`: "was directed by"), and each CVT
    (mediator) node as a numbered bracketed record named by its Freebase type
    ("[performance 1]", else "[record 1]"), as :data:`CITATION_PROMPT` explains."""
    labels = _record_labels(triples, cvt_nodes)

    def node(id: str, name: str | None) -> str:
        return labels.get(id) or name or id

    lines = []
    for t in triples:
        obj = (render_literal(t.o, t.datatype, t.lang) if t.literal else node(t.o, t.o_name))
        lines.append(f"({node(t.s, t.s_name)}, {phrases[t.p]}, {obj})")
    return lines


def _record_labels(triples: Sequence[Triple], cvt_nodes: Collection[str]) -> dict[str, str]:
    cvts = frozenset(cvt_nodes)
    labels: dict[str, str] = {}
    for t in triples:
        for end in (t.s,) if t.literal else (t.s, t.o):
            if end in cvts and end not in labels:
                noun = next((_freebase_type_noun(u.p) for u in triples if u.s == end
                             and _freebase_type_noun(u.p)), None) or "record"
                labels[end] = f"[{noun} {len(labels) + 1}]"
    return labels


def _freebase_type_noun(predicate: str) -> str | None:
    """``film.performance.actor`` -> "performance" (the type a Freebase property belongs
    to); None for other ids."""
    parts = predicate.strip("<>").rpartition("/")[2].split(".")
    if len(parts) < 3:
        return None
    return parts[-2].replace("_", " ").strip() or None


def citation_messages(triples: Sequence[Triple], cvt_nodes: Collection[str],
                      phrases: Mapping[str, str]) -> list[ChatMessage]:
    """The chat request for one citation part: :data:`CITATION_PROMPT` over
    :func:`triple_lines` of ``triples``."""
    lines = "\n".join(triple_lines(triples, cvt_nodes, phrases))
    return [ChatMessage("user", CITATION_PROMPT.format(triples=lines))]


def question_messages(sample: StructuredSample, phrases: Mapping[str, str]) -> list[ChatMessage]:
    """The chat request for the extended question q̃ of ``sample``:
    :data:`QUESTION_PROMPT` over the original question, the original and extended
    query graphs (``sample.query``) and the added edges, with entities named from the
    sample (:func:`sample_names`). A union's disjuncts are listed as alternatives."""
    names = sample_names(sample)
    original = QueryGraph.model_validate(sample.query.original)
    extended = [QueryGraph.model_validate(d) for d in sample.query.extended] or [original]

    def label(graph: QueryGraph, id: str) -> str:
        if id.startswith("?"):
            return id
        n = graph.node(id)
        if n.kind == "literal":
            return render_literal(n.value or id, n.datatype, n.lang)
        return names.get(id) or n.name or id

    def lines(graph: QueryGraph, edges: Sequence[QueryEdge]) -> list[str]:
        return [f"({label(graph, e.source)}, {phrases[e.predicate]}, {label(graph, e.target)})"
                for e in edges]

    if len(extended) == 1:
        extended_text = "\n".join(lines(extended[0], extended[0].edges))
        alternatives = ""
    else:
        extended_text = "\n".join(
            f"Alternative {i}:\n" + "\n".join(lines(g, g.edges))
            for i, g in enumerate(extended, 1))
        alternatives = f" ({original.answer} may satisfy any one of these alternatives)"
    added_edges = [QueryEdge.model_validate(e) for e in sample.query.added]
    added = "\n".join(lines(extended[0], added_edges)) if added_edges else (
        "(none: the alternatives are entities that share a name)" if len(extended) > 1
        else "(none)")
    prompt = QUESTION_PROMPT.format(
        answer=original.answer, question=sample.source.question,
        original="\n".join(lines(original, original.edges)), alternatives=alternatives,
        extended=extended_text, added=added)
    return [ChatMessage("user", prompt)]


def answer_messages(question: str, answers: Sequence[AnswerEntity],
                    capped: bool = False) -> list[ChatMessage]:
    """The chat request for the answer statement ã of ``question``:
    :data:`ANSWER_PROMPT` with the answers' texts (:func:`answer_text`) joined by
    ``"; "``; when ``capped`` (more answers exist than listed) the list says so."""
    texts = "; ".join(answer_text(a) for a in answers)
    if capped:
        texts += " (and others: these are some of the answers)"
    return [ChatMessage("user", ANSWER_PROMPT.format(question=question, answers=texts))]


def answer_text(answer: AnswerEntity) -> str:
    """An answer as the prompt and the statement write it: a literal rendered, an
    entity by name (its id where it has none)."""
    if answer.value is not None:
        return render_literal(answer.value, answer.datatype, answer.lang)
    return answer.name or answer.id or ""


def sample_names(sample: StructuredSample) -> dict[str, str]:
    """Entity id -> display name from everything in ``sample`` that names one: the
    triples of both subgraphs, the answers and the query graphs' nodes."""
    names: dict[str, str] = {}
    for t in (*sample.original_subgraph, *sample.subgraph):
        if t.s_name:
            names.setdefault(t.s, t.s_name)
        if t.o_name and not t.literal:
            names.setdefault(t.o, t.o_name)
    for a in sample.answer_entities:
        if a.id and a.name:
            names.setdefault(a.id, a.name)
    for graph in (sample.query.original, *sample.query.extended):
        for n in (graph.get("nodes", ()) if isinstance(graph, Mapping) else ()):
            if isinstance(n, Mapping) and n.get("name") and n.get("value"):
                names.setdefault(str(n["value"]), str(n["name"]))
    return names


# ---------------------------------------------------------------------------
# Checking a reply

MIN_LENGTH_LIMIT = 300
"""No reply limit is below this many characters."""

LENGTH_FACTOR = 4
"""A reply longer than this many times the template text (and than
:data:`MIN_LENGTH_LIMIT`) is unusable: it says more than the facts do."""

_THINK = re.compile(r"^\s*<think>.*?</think>", re.S)
_FENCE = re.compile(r"```(?:[\w-]*\n)?(.*?)\n?```", re.S)   # a code fence, its language tag
_LABEL = re.compile(r"^(?:passage|citation|extended question|question|answer statement|"
                    r"statement|answer)\s*:\s*", re.I)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`", "«": "»"}
_VARIABLE = re.compile(r"(?<![\w?])\?[A-Za-z_]\w*")
_PLACEHOLDER = re.compile(r"\[[a-z][a-z ]{0,40} \d+\]")
_DATE_TYPES = frozenset({"date", "dateTime", "gYear", "gYearMonth"})


def clean_reply(text: str) -> str:
    """A reply without the wrapping models add: a leading ``<think>…</think>`` block
    (reasoning models), surrounding whitespace, quotes or a code fence, and a leading
    label such as "Question:"."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(1).strip()
    text = _LABEL.sub("", text).strip()
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def length_limit(template_text: str) -> int:
    """The longest usable reply for a part whose template text is ``template_text``."""
    return max(MIN_LENGTH_LIMIT, LENGTH_FACTOR * len(template_text))


def reply_problem(text: str, finish_reason: str | None, max_chars: int) -> str | None:
    """Why a cleaned reply is unusable whatever the part, or None: empty, cut off at
    ``max_tokens``, more than one line (one paragraph was asked for), longer than
    ``max_chars``."""
    if not text:
        return "empty response"
    if finish_reason == "length":
        return "response cut off at max_tokens"
    if "\n" in text:
        return f"response has {text.count(chr(10)) + 1} lines, not one paragraph"
    if len(text) > max_chars:
        return f"response is {len(text)} characters long, over the limit of {max_chars}"
    return None


def _normalize(text: str) -> str:
    """For mention checks: NFKC, straight quotes and hyphens, case-folded, digit-group
    commas removed ("1,500" -> "1500"), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans("‘’‛“”„–—‐‑", "'''\"\"\"----"))
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return " ".join(text.casefold().split())


def _missing(text: str, wanted: Sequence[str]) -> list[str]:
    normalized = _normalize(text)
    return [w for w in dict.fromkeys(wanted) if w and _normalize(w) not in normalized]


def _literal_mention(value: str, datatype: str | None, lang: str | None) -> str:
    """What a text must contain to state a literal: the year of a date (models write
    dates their own way), else the rendered value."""
    kind = (datatype or "").rpartition("#")[2].removeprefix("xsd:")
    if kind in _DATE_TYPES:
        match = re.match(r"\s*[+-]?0*(\d+)", value)
        if match:
            return match.group(1)
    return render_literal(value, datatype, lang)


def check_citation(text: str, triples: Sequence[Triple], cvt_nodes: Collection[str],
                   *, max_chars: int, finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not a usable citation of ``triples``, or None. Besides
    :func:`reply_problem`: it must mention every named non-CVT entity (by name) and
    every literal (a date by its year), and no bracketed record placeholder."""
    problem = reply_problem(text, finish_reason, max_chars)
    if problem:
        return problem
    cvts = frozenset(cvt_nodes)
    wanted: list[str] = []
    for t in triples:
        if t.s not in cvts and t.s_name:
            wanted.append(t.s_name)
        if t.literal:
            wanted.append(_literal_mention(t.o, t.datatype, t.lang))
        elif t.o not in cvts and t.o_name:
            wanted.append(t.o_name)
    missing = _missing(text, wanted)
    if missing:
        return f"does not mention {_quoted(missing)}"
    placeholder = _PLACEHOLDER.search(text)
    if placeholder:
        return f"mentions the placeholder {placeholder.group(0)}"
    return None


def check_question(text: str, required_names: Sequence[str], *, max_chars: int,
                   finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not a usable extended question, or None. Besides
    :func:`reply_problem`: it must end with "?", mention ``required_names`` (the named
    entities of the added constraints) and no query variable (``?v1``)."""
    problem = reply_problem(text, finish_reason, max_chars)
    if problem:
        return problem
    if not text.endswith("?"):
        return "is not a question (no question mark at the end)"
    missing = _missing(text, required_names)
    if missing:
        return f"does not mention {_quoted(missing)}"
    variable = _VARIABLE.search(text)
    if variable:
        return f"mentions the query variable {variable.group(0)}"
    return None


def check_answer(text: str, answers: Sequence[AnswerEntity], *, max_chars: int,
                 finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not a usable answer statement of ``answers``, or None. Besides
    :func:`reply_problem`: it must mention every answer (a date by its year) and not be
    a question."""
    problem = reply_problem(text, finish_reason, max_chars)
    if problem:
        return problem
    if text.endswith("?"):
        return "is a question, not a statement"
    wanted = [_literal_mention(a.value, a.datatype, a.lang) if a.value is not None
              else answer_text(a) for a in answers]
    missing = _missing(text, wanted)
    if missing:
        return f"does not mention {_quoted(missing)}"
    return None


def _quoted(items: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def added_constraint_names(sample: StructuredSample) -> list[str]:
    """The names of the entities the extension rule added (ends of ``query.added``
    that are not variables): what the extended question must mention."""
    names = sample_names(sample)
    wanted = []
    for edge in sample.query.added:
        for end in (edge.get("source"), edge.get("target")):
            if isinstance(end, str) and not end.startswith("?") and end in names:
                wanted.append(names[end])
    return wanted


# ---------------------------------------------------------------------------
# The verbalizer

OnError = TypingLiteral["raise", "fallback"]


class LLMVerbalizer:
    """The LLM backend of :class:`extension.verbalize.Verbalizer` (``name``
    ``"llm:<model>"``), writing the text as CAQA Appendix A does (Tables 9–11).

    Per sample: one request per citation part (the parts of
    :func:`extension.verbalize.citation_parts`, taken from the ``fallback``'s own
    verbalization so that both backends cut the subgraph alike;
    :data:`CITATION_PROMPT`), one for the extended question when the rule is not
    ``none`` (otherwise the original question; :data:`QUESTION_PROMPT`) and one for the
    answer statement of that question (:data:`ANSWER_PROMPT`). The extended question
    and the answer statement are the same for the four samples of a question, so the
    :class:`ResponseCache` under ``cache_dir`` answers three of them — and a rerun
    answers everything — without a request. Sub-fact sentences always come from the
    templates: they are graded one triple at a time and must say exactly that triple.

    Each reply is cleaned (:func:`clean_reply`) and checked (:func:`check_citation`,
    :func:`check_question`, :func:`check_answer`); an unusable one or a body that is
    not a chat completion is replaced by the template text and recorded in
    ``Verbalization.fallbacks`` as ``"<part>: <why>"``. ``max_bad_responses`` such
    bodies in a row mean the endpoint is not what it should be and count as
    unavailable.

    A request that fails is an error of the run, not of the sample: when the endpoint
    is unavailable after its retries (:class:`LLMUnavailable`), refuses a request (a
    4xx such as 400, 413, 422: :class:`LLMRejected`) or sends a reply over the size cap
    (:class:`LLMResponseTooLarge`), ``on_error="raise"`` (default) raises, with the
    server's status and message, so the pipeline stops cleanly (an endpoint refusing
    every request must not yield a benchmark silently written by the templates); every
    reply so far is in the cache and a rerun resumes. ``on_error="fallback"`` uses
    templates for those parts instead and flags them; after an outage, uncached
    requests fall back at once for ``pause_s`` seconds rather than waiting out the
    retries again. Configuration errors (401, 403, 404, 405: key, URL, model; a
    redirect to another origin) always raise :class:`LLMRejected`. Thread-safe.
    """

    def __init__(self, endpoint: ChatEndpoint, cache_dir: Path, fallback: TemplateVerbalizer,
                 on_error: OnError = "raise", *, max_bad_responses: int = 10,
                 pause_s: float = 60.0) -> None:
        if on_error not in ("raise", "fallback"):
            raise ValueError(f"on_error must be 'raise' or 'fallback', not {on_error!r}")
        self.endpoint = endpoint
        self.cache = ResponseCache(cache_dir)
        self.client = ChatClient(endpoint, self.cache)
        self.fallback = fallback
        self.on_error = on_error
        self.max_bad_responses = max_bad_responses
        self.pause_s = pause_s
        self.name = f"llm:{endpoint.model}"
        self._lock = threading.Lock()
        self._bad_in_a_row = 0
        self._down_until = 0.0

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample`` (see the class docstring). Raises
        :class:`LLMUnavailable` (with ``on_error="raise"``) or :class:`LLMRejected`
        (configuration errors)."""
        template = self.fallback.verbalize(sample)
        phrases = self.fallback.phrases
        fallbacks: list[str] = []

        def use(part: str, messages: list[ChatMessage], template_text: str,
                check: _Check) -> str:
            text, why = self._ask(messages, check, length_limit(template_text))
            if text is None:
                fallbacks.append(f"{part}: {why}")
                return template_text
            return text

        citations = []
        for i, citation in enumerate(template.citations, 1):
            triples = citation.triples

            def citation_check(text: str, finish: str | None, limit: int,
                               triples: Sequence[Triple] = triples) -> str | None:
                return check_citation(text, triples, sample.cvt_nodes, max_chars=limit,
                                      finish_reason=finish)

            text = use(f"citation {i}", citation_messages(triples, sample.cvt_nodes, phrases),
                       citation.text, citation_check)
            citations.append(Citation(text=text, triples=triples))

        if sample.query.rule == "none":
            question = sample.source.question
        else:
            required = added_constraint_names(sample)
            question = use(
                "question_extended", question_messages(sample, phrases),
                template.question_extended,
                lambda text, finish, limit: check_question(
                    text, required, max_chars=limit, finish_reason=finish))
        answer_template = (template.answer if question == template.question_extended
                           else answer_statement(question, sample.answer_entities))
        answer = use(
            "answer", answer_messages(question, sample.answer_entities, sample.answers_capped),
            answer_template,
            lambda text, finish, limit: check_answer(
                text, sample.answer_entities, max_chars=limit, finish_reason=finish))
        return Verbalization(question_extended=question, answer=answer,
                             citations=tuple(citations),
                             sub_fact_texts=template.sub_fact_texts, backend=self.name,
                             fallbacks=tuple(fallbacks))

    def _ask(self, messages: Sequence[ChatMessage], check: _Check,
             limit: int) -> tuple[str | None, str]:
        """(cleaned usable text, "") or (None, why it cannot be used)."""
        try:
            reply = self._complete(messages)
        except LLMUnavailable as exc:
            if self.on_error == "raise":
                raise LLMUnavailable(
                    f"{exc}. The replies received so far are cached in {self.cache.directory}"
                    ": run the same command again to resume") from exc
            return None, f"LLM endpoint unavailable: {exc}"
        except LLMRejected as exc:
            if exc.is_configuration_error:
                raise
            if self.on_error == "raise":
                raise LLMRejected(f"{exc}. {self._stop_note()}", exc.status,
                                  exc.reason) from exc
            return None, f"request refused with HTTP {exc.status}: {exc.reason}"
        except LLMResponseTooLarge as exc:
            if self.on_error == "raise":
                raise LLMResponseTooLarge(f"{exc}. {self._stop_note()}") from exc
            return None, "reply too large"
        except LLMBadResponse as exc:
            return None, f"bad response: {exc}"
        text = clean_reply(reply.content)
        problem = check(text, reply.finish_reason, limit)
        return (None, problem) if problem else (text, "")

    def _stop_note(self) -> str:
        return (f"Generation stopped; pass --llm-fallback to write the template text for "
                f"the requests that fail instead (the replies so far are cached in "
                f"{self.cache.directory}, and a rerun resumes)")

    def _complete(self, messages: Sequence[ChatMessage]) -> ChatReply:
        cached = self.client.cached(messages)
        if cached is not None:
            return cached
        with self._lock:
            paused = time.monotonic() < self._down_until
        if paused:
            raise LLMUnavailable(f"skipped: the endpoint {self.endpoint.chat_url} was "
                                 f"unavailable less than {self.pause_s:g}s ago")
        try:
            reply = self.client.complete(messages)
        except LLMBadResponse as exc:
            with self._lock:
                self._bad_in_a_row += 1
                too_many = self._bad_in_a_row >= self.max_bad_responses
            if too_many:
                self._pause()
                raise LLMUnavailable(
                    f"{self.max_bad_responses} responses in a row were not chat "
                    f"completions (last: {exc})") from exc
            raise
        except LLMUnavailable:
            self._pause()
            raise
        with self._lock:
            self._bad_in_a_row = 0
        return reply

    def _pause(self) -> None:
        if self.on_error == "fallback":
            with self._lock:
                self._down_until = time.monotonic() + self.pause_s


_Check = Callable[[str, str | None, int], str | None]
"""(cleaned text, finish_reason, length limit) -> why unusable, or None."""


def verbalizer_from_options(llm_url: str | None, llm_model: str | None, cache_dir: Path,
                            fallback: TemplateVerbalizer, *, on_error: OnError = "raise",
                            api_key_env: str = DEFAULT_API_KEY_ENV,
                            requests_per_second: float | None = None,
                            timeout_s: float = 120.0, max_retries: int = 5) -> Verbalizer:
    """The verbalizer the command-line options ask for: ``fallback`` (the templates)
    when no ``llm_url`` is given, else an :class:`LLMVerbalizer` for ``llm_model`` at
    ``llm_url`` caching replies under ``cache_dir``, with ``fallback`` for unusable
    replies (and, with ``on_error="fallback"``, for failed requests). The reply size
    cap comes from ``$KGBENCH_LLM_MAX_RESPONSE_BYTES`` (:func:`max_response_bytes`).
    Raises :class:`LLMConfigError` for a URL without a model, a model without a URL, a
    malformed URL or cap."""
    if not llm_url:
        if llm_model:
            raise LLMConfigError(f"--llm-model {llm_model} needs --llm-url (the server's "
                                 "OpenAI-compatible base URL, e.g. http://localhost:8000/v1)")
        return fallback
    if not llm_model:
        raise LLMConfigError(f"--llm-url {_shown_url(llm_url)} needs --llm-model (the name "
                             "the server serves the model under, e.g. llama3.1:8b for Ollama)")
    try:
        endpoint = ChatEndpoint(url=llm_url, model=llm_model, api_key_env=api_key_env,
                                requests_per_second=requests_per_second, timeout_s=timeout_s,
                                max_retries=max_retries,
                                max_response_bytes=max_response_bytes())
    except ValueError as exc:
        raise LLMConfigError(str(exc)) from None
    return LLMVerbalizer(endpoint, Path(cache_dir), fallback, on_error)


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
