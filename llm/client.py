"""The chat client: one deadline for each request, its retries and their waits included.

:class:`ChatClient` sends one bounded POST per attempt (:mod:`llm.transport`: what is
left of that deadline, a cap on the reply's size, no redirect to another origin, so the
key goes nowhere else); retries with exponential backoff on connection errors, 408, 429
(honouring ``Retry-After``) and 5xx while time is left, none on other 4xx; errors are
:class:`~llm.errors.LLMError` subclasses whose messages quote the server's own message
(shortened, control characters escaped) and never the API key.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm import transport
from llm.cache import ResponseCache
from llm.chat import ChatMessage, ChatReply, chat_request_body, parse_chat_completion, request_key
from llm.endpoint import MAX_RESPONSE_BYTES_ENV, ChatEndpoint
from llm.errors import (
    LLMBadResponse,
    LLMRedirectRefused,
    LLMRejected,
    LLMResponseTooLarge,
    LLMUnavailable,
)
from llm.retry import RateLimiter, backoff_s, is_retryable_status, parse_retry_after


@dataclass(slots=True)
class ChatStats:
    """Counters of a :class:`ChatClient`: HTTP requests sent (retries included) and
    replies served from the cache."""

    requests: int = 0
    cache_hits: int = 0


class ChatClient:
    """Sends chat requests to ``endpoint`` (:func:`llm.transport.post`, one
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
                reply = transport.post(url, data, headers, timeout_s=left,
                                      max_bytes=ep.max_response_bytes)
            except transport.DeadlineExceeded:
                # The attempt had all the time left: the request's deadline has passed.
                raise LLMUnavailable(_deadline_message(
                    ep, attempt + 1, "cut off at the deadline without a complete reply")
                ) from None
            except transport.ReplyTooLarge as exc:
                raise LLMResponseTooLarge(_too_large_message(exc)) from None
            except transport.CrossOriginRedirect as exc:
                raise LLMRedirectRefused(
                    f"the LLM endpoint {url} redirected the request (HTTP {exc.status}) to "
                    f"{server_text(exc.location, key)}, another host, port or scheme; it "
                    "was not followed, because the request carries the API key: if that "
                    "address is the real endpoint and you trust it, pass it as --llm-url",
                    exc.status) from None
            except transport.TooManyRedirects as exc:
                raise LLMRedirectRefused(
                    f"the LLM endpoint {url} redirected the request more than "
                    f"{transport.MAX_REDIRECTS} times (last HTTP {exc.status} from "
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


def _too_large_message(exc: transport.ReplyTooLarge) -> str:
    size = (f"announces {exc.declared:,} bytes" if exc.declared is not None
            else f"runs past {exc.max_bytes:,} bytes")
    return (f"the LLM endpoint {exc.url} sent a reply that {size}, over the cap of "
            f"{exc.max_bytes:,} bytes (a chat completion is a few KB), and it was not read "
            f"further; check that --llm-url is a chat-completions endpoint, or raise the cap "
            f"with ${MAX_RESPONSE_BYTES_ENV}")


def _rejection_message(ep: ChatEndpoint, reply: transport.HttpReply, key: str | None) -> str:
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
