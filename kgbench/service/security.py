"""The server's guard, as one ASGI middleware that every request passes first.

Rules (from the settings, :class:`~kgbench.service.settings.ServiceSettings`):

* Loopback without a token: everything is open (one person on their own machine).
* A token set: every request that is not a read needs it (anything that writes; the
  read-only POSTs ``/api/cypher`` and ``/api/match`` are reads), and every request
  under ``/api/jobs`` (reading a job too), on any host.
* A non-loopback bind (which requires a token): every request needs it, except the
  login page, its static files and ``/api/session`` (which checks the token itself).
* The token comes as ``Authorization: Bearer T`` or the ``kgbench_token`` cookie that
  ``POST /api/session`` sets; it is compared in constant time.
* On loopback the ``Host`` header must name a loopback host (a DNS-rebinding page
  cannot reach the API), and a cross-site ``Origin`` on a write is refused.
* A request body over ``max_body_bytes`` is refused with 413 (also a chunked one that
  has no Content-Length: the body is read up to the limit before the app sees it).
* No CORS: no ``Access-Control-*`` header is ever sent. Every response carries
  ``X-Content-Type-Options``, ``X-Frame-Options``, ``Referrer-Policy`` and a strict
  ``Content-Security-Policy`` (scripts and styles from this server only), unless the
  route set a stricter one of its own (a generated report: sandboxed, no script).
"""

from __future__ import annotations

import functools
import hmac
import json
from collections.abc import Iterable, Mapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kgbench.service.errors import error_body
from kgbench.service.settings import ServiceSettings, is_loopback

__all__ = ["CONTENT_SECURITY_POLICY", "READ_POSTS", "SESSION_COOKIE", "SecurityMiddleware",
           "presented_token", "response_headers", "token_presented_ok", "token_required_for"]

SESSION_COOKIE = "kgbench_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
READ_POSTS = frozenset({"/api/cypher", "/api/match"})
"""POST endpoints that only read (their query is too large for a URL)."""
PUBLIC_PATHS = frozenset({"/login", "/favicon.ico"})
PUBLIC_PREFIXES = ("/static/",)
SESSION_PATH = "/api/session"
JOBS_PATH = "/api/jobs"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'")
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


_POLICY_HEADER = (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())
_PAGE_TAIL = (*SECURITY_HEADERS, _POLICY_HEADER)
_API_TAIL = (*_PAGE_TAIL, (b"cache-control", b"no-store"))
"""What :func:`response_headers` adds to a response without a policy of its own."""


def response_headers(headers: Iterable[tuple[bytes, bytes]], *, api: bool
                     ) -> list[tuple[bytes, bytes]]:
    """A response's ``headers`` as they go out: no ``Access-Control-*``, the security
    headers, the UI's policy unless the route set one of its own (a generated report,
    sandboxed: :mod:`kgbench.service.htmlfiles`), and no caching of API answers."""
    kept = [(k, v) for k, v in headers if not k.lower().startswith(b"access-control-")]
    if not any(k.lower() == b"content-security-policy" for k, _ in kept):
        kept.extend(_API_TAIL if api else _PAGE_TAIL)
        return kept
    kept.extend(SECURITY_HEADERS)
    if api:
        kept.append((b"cache-control", b"no-store"))
    return kept


def presented_token(headers: Mapping[str, str]) -> str | None:
    """The token a request carries: ``Authorization: Bearer T``, else the session
    cookie."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    raw = headers.get("cookie")
    if raw:
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(raw)
        except Exception:   # a malformed Cookie header carries no token
            return None
        morsel = cookie.get(SESSION_COOKIE)
        if morsel is not None and morsel.value:
            return morsel.value
    return None


def token_matches(settings: ServiceSettings, candidate: str | None) -> bool:
    """Whether ``candidate`` is the server's token (constant-time comparison)."""
    if settings.token is None or candidate is None:
        return False
    return hmac.compare_digest(candidate.encode("utf-8", "surrogateescape"),
                               settings.token.encode("utf-8", "surrogateescape"))


def token_presented_ok(settings: ServiceSettings, headers: Mapping[str, str]) -> bool:
    """Whether the request carries the server's token."""
    return token_matches(settings, presented_token(headers))


def is_read(method: str, path: str) -> bool:
    """Whether a request only reads: a safe method, or one of :data:`READ_POSTS`."""
    return method in SAFE_METHODS or (method == "POST" and path in READ_POSTS)


def _public(method: str, path: str) -> bool:
    if path == SESSION_PATH:
        return True
    return method in SAFE_METHODS and (path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES))


def token_required_for(settings: ServiceSettings, method: str, path: str) -> bool:
    """Whether a request needs the token (the rules in the module docstring)."""
    if not settings.auth or _public(method, path):
        return False
    # Jobs need the token even to be read: their parameters and outputs are one
    # person's work, and the issue asks for the token on every job request.
    jobs = path == JOBS_PATH or path.startswith(JOBS_PATH + "/")
    return not settings.loopback or jobs or not is_read(method, path)


@functools.lru_cache(maxsize=1024)   # asked for every request, of a handful of values
def _host_is_loopback(host_header: str) -> bool:
    host = urlsplit(f"//{host_header}").hostname or ""
    return is_loopback(host)


class _Refused(Exception):
    def __init__(self, status: int, message: str, hint: str | None = None,
                 headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
        super().__init__(message)
        self.status, self.message, self.hint, self.headers = status, message, hint, headers


class SecurityMiddleware:
    """The rules above, for ``app`` under ``settings``."""

    def __init__(self, app: ASGIApp, settings: ServiceSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = self._with_headers(scope, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        try:
            self._check_request(scope, headers)
            # Without either header a request has no body (RFC 9112, 6.3): nothing to bound.
            if "content-length" in headers or "transfer-encoding" in headers:
                receive = await self._bounded_body(receive, headers)
        except _Refused as refused:
            await self._refuse(send, refused)
            return
        await self.app(scope, receive, send)

    def _check_request(self, scope: Scope, headers: dict[str, str]) -> None:
        method, path = scope["method"], scope["path"]
        if self.settings.loopback and not _host_is_loopback(headers.get("host", "localhost")):
            raise _Refused(421, "this server answers requests to localhost only",
                           "open it as http://127.0.0.1:PORT/")
        origin = headers.get("origin")
        if origin and not is_read(method, path) and \
                urlsplit(origin).netloc.lower() != headers.get("host", "").lower():
            raise _Refused(403, "cross-site request refused")
        if token_required_for(self.settings, method, path) and \
                not token_presented_ok(self.settings, headers):
            wants_page = (method == "GET" and not path.startswith("/api/")
                          and "text/html" in headers.get("accept", ""))
            if wants_page:
                target = quote(path, safe="/")
                raise _Refused(303, "log in first", None,
                               ((b"location", f"/login?next={target}".encode()),))
            raise _Refused(401, "this needs the server's token",
                           "send Authorization: Bearer TOKEN, or log in at /login",
                           ((b"www-authenticate", b"Bearer"),))
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                raise _Refused(400, "Content-Length is not a number")
            if int(declared) > self.settings.max_body_bytes:
                raise self._too_large()

    def _too_large(self) -> _Refused:
        return _Refused(413, f"request body over the limit of {self.settings.max_body_bytes:,} "
                        "bytes", "send a smaller request")

    async def _bounded_body(self, receive: Receive, headers: dict[str, str]) -> Receive:
        """The request body read now, up to the limit (413 past it), replayed to the
        app; later receives (a disconnect) go to the client's stream."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                replay: list[Message] = [message]
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.settings.max_body_bytes:
                raise self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                replay = [{"type": "http.request", "body": b"".join(chunks),
                           "more_body": False}]
                break

        async def replayed() -> Message:
            return replay.pop() if replay else await receive()

        return replayed

    def _with_headers(self, scope: Scope, send: Send) -> Send:
        path: str = scope["path"]
        api = path.startswith("/api/")

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message,
                           "headers": response_headers(message.get("headers", []), api=api)}
            await send(message)

        return sending

    async def _refuse(self, send: Send, refused: _Refused) -> None:
        body: dict[str, Any] = error_body(refused.status, refused.message, refused.hint)
        payload = json.dumps(body).encode()
        await send({"type": "http.response.start", "status": refused.status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()),
                                *refused.headers]})
        await send({"type": "http.response.body", "body": payload})
