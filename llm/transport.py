"""One HTTP POST to an LLM endpoint, bounded: a deadline for the whole request, a cap
on the reply's size, and redirects followed only within the endpoint's own origin.

Why each bound:

* **Deadline.** A socket timeout bounds each read, not the request: a server that sends
  a byte every half second never trips it, and ``--llm-timeout 3`` once held a request
  for 61 s. :func:`post` gives the request one deadline (connect, sending the body, the
  status line, the headers and every read of the body, same-origin redirects included):
  each address the host name resolves to gets the time left to connect, and from then
  on (TLS handshake included) a watchdog timer shuts the socket down when the deadline passes, which ends
  whatever read or write is blocked. Only the host name lookup is outside it (``getaddrinfo`` cannot be
  interrupted; a literal IP address or a local resolver makes it instant).
  :class:`llm.client.ChatClient` passes each attempt what is left of its request's
  deadline, so retries fit in ``--llm-timeout`` too.
* **Size cap.** A chat completion is a few KB. A reply whose ``Content-Length`` is over
  ``max_bytes`` is refused before its body is read, and one without a length is read
  in blocks and refused as soon as it passes the cap, so a 300 MB answer costs at most
  ``max_bytes`` of memory. Bodies of error statuses are read only as far as
  :data:`ERROR_BODY_BYTES` (their start is all an error message shows).
* **Redirects.** The request carries the API key. A redirect to another origin
  (scheme, host or port) is refused with :class:`CrossOriginRedirect` rather than
  followed (urllib followed a 302 to another port and sent ``Authorization`` there);
  one within the origin is followed, re-sending the same POST (the chat API answers
  nothing else), at most :data:`MAX_REDIRECTS` times.

Why the standard library and not httpx. httpx 0.28 has no whole-request deadline
either: its timeouts are per connect, read, write and pool operation, the very hole
above (encode/httpx#1450, "low-and-slow attack on client", is open; httpcore's
total-timeout PR #936 was closed as wontfix). Checking the clock between body chunks
bounds a dripping body but not dripping headers, and the socket a watchdog would shut
down is exposed (as the response's ``network_stream``) only once the headers are in;
closing that hole means an async client under ``asyncio.timeout`` or reaching into
httpcore's private connection pool. Its redirect following turns a 302'd POST into a
GET, so a client that re-POSTs same-origin redirects and explains cross-origin ones
handles redirects itself with httpx as well, and the size cap is the same loop over
``iter_raw``. ``bench/llm_client_bench.py`` measured it (2,000 sequential POSTs to a
local keep-alive server, median of 3, the shared 2-core machine; a server dripping a
byte every 0.5 s for 10 s, 2 s timeout; results in
``bench/results/llm_client_bench.jsonl``):

==========================  ==========  ==============  ===========  ==========
transport                   ms/request  drip: headers   drip: body   statements
==========================  ==========  ==============  ===========  ==========
urllib (before issue 18)    1.09        10.0 s          10.0 s       -
this module                 1.94        2.0 s           2.0 s        106
httpx, pooled, same rules   0.62        10.0 s          2.0 s        33
==========================  ==========  ==============  ===========  ==========

So httpx would save about 70 statements of connection handling and 1.3 ms a request,
nothing beside the seconds an LLM takes to answer, and still leave dripping headers
unbounded, at the price of six packages (httpx, httpcore, h11, anyio, certifi, idna)
in every install.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from urllib.parse import urljoin, urlsplit

DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
"""The default cap on a reply's body (8 MiB): a chat completion of ``max_tokens`` 512 is
a few KB, so only a misconfigured or hostile server comes near it."""

ERROR_BODY_BYTES = 64 * 1024
"""How much of an error status's body is read: its start is all a message shows."""

MAX_REDIRECTS = 5
"""Same-origin redirects followed before giving up (a loop, most likely)."""

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

_BLOCK = 64 * 1024


class TransportError(Exception):
    """A request that got no usable HTTP reply for a reason of its own (the deadline,
    the size cap, a redirect); network failures are :class:`OSError` and
    :class:`http.client.HTTPException` as the standard library raises them."""


class DeadlineExceeded(TransportError):
    """The whole request (connect, send, every read) did not finish in time."""


class ReplyTooLarge(TransportError):
    """The reply's body is over the cap. ``declared`` is its ``Content-Length`` when the
    server announced one (and nothing of the body was read), else ``None``."""

    def __init__(self, url: str, max_bytes: int, declared: int | None) -> None:
        super().__init__(url, max_bytes, declared)
        self.url = url
        self.max_bytes = max_bytes
        self.declared = declared


class CrossOriginRedirect(TransportError):
    """The server redirected to another origin; nothing was sent there."""

    def __init__(self, url: str, status: int, location: str) -> None:
        super().__init__(url, status, location)
        self.url = url
        self.status = status
        self.location = location


class TooManyRedirects(TransportError):
    """More than :data:`MAX_REDIRECTS` same-origin redirects in a row."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__(url, status)
        self.url = url
        self.status = status


@dataclass(frozen=True, slots=True)
class HttpReply:
    """A final (non-redirect) reply: its status, reason phrase, headers (names
    lower-cased) and body (for an error status, at most :data:`ERROR_BODY_BYTES` of
    it); ``url`` is where it came from after same-origin redirects."""

    status: int
    reason: str
    headers: Mapping[str, str]
    body: bytes
    url: str


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, with the scheme's default port filled in: what
    a redirect must keep for the request, and its key, to follow it."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:   # a port that is not a number: an origin of its own
        port = -1
    if port is None:
        port = {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port


def post(url: str, body: bytes, headers: Mapping[str, str], *, timeout_s: float,
         max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> HttpReply:
    """POST ``body`` to ``url`` and return the final reply, whatever its status.

    The whole exchange, same-origin redirects included, must end within ``timeout_s``
    (else :class:`DeadlineExceeded`); a 2xx body over ``max_bytes`` raises
    :class:`ReplyTooLarge`; a redirect to another origin raises
    :class:`CrossOriginRedirect` without contacting it, more than
    :data:`MAX_REDIRECTS` raise :class:`TooManyRedirects`. Connection failures raise
    :class:`OSError` / :class:`http.client.HTTPException`."""
    deadline = time.monotonic() + timeout_s
    for _ in range(MAX_REDIRECTS + 1):
        reply = _post_once(url, body, headers, deadline, max_bytes)
        location = reply.headers.get("location")
        if reply.status not in REDIRECT_STATUSES or not location:
            return reply
        target = urljoin(url, location.strip())
        if origin(target) != origin(url):
            raise CrossOriginRedirect(url, reply.status, location)
        url = target
    raise TooManyRedirects(url, reply.status)


def _post_once(url: str, body: bytes, headers: Mapping[str, str], deadline: float,
               max_bytes: int) -> HttpReply:
    parts = urlsplit(url)
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineExceeded(url)
    https = parts.scheme.lower() == "https"
    host = parts.hostname or ""
    port = parts.port or (443 if https else 80)
    connection = (http.client.HTTPSConnection if https else http.client.HTTPConnection)(
        host, port)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    with _Watchdog(left) as watchdog:
        try:
            # The TCP connection is opened here rather than by http.client, so that
            # connecting has the deadline too and the watchdog holds the socket before
            # anything is read from it (the TLS handshake included).
            sock = _connect(host, port, deadline)
            try:
                watchdog.watch(sock)
                if https:
                    sock = _tls_context().wrap_socket(sock, server_hostname=host)
                connection.sock = sock   # http.client sends on a socket it is given
                connection.request("POST", path, body=body, headers=dict(headers))
                response = connection.getresponse()
                status = response.status
                reply_headers = {k.lower(): v for k, v in response.getheaders()}
                if status in REDIRECT_STATUSES and "location" in reply_headers:
                    data = b""   # not read: the redirect is followed or refused
                elif 200 <= status < 300:
                    data = _read_capped(response, url, max_bytes)
                else:
                    data = response.read(ERROR_BODY_BYTES)
            finally:
                connection.close()
                sock.close()
        except TimeoutError:   # the connect, or an operation, ran out of the time left
            raise DeadlineExceeded(url) from None
        except (OSError, http.client.HTTPException):
            # The watchdog shutting the socket down surfaces as a reset, an incomplete
            # read or a bad status line: it is the deadline.
            if watchdog.expired:
                raise DeadlineExceeded(url) from None
            raise
    if watchdog.expired:   # a read that ended with the shutdown looked complete
        raise DeadlineExceeded(url)
    return HttpReply(status, response.reason, reply_headers, data, url)


def _connect(host: str, port: int, deadline: float) -> socket.socket:
    """A TCP connection to the first address of ``host`` that accepts one before the
    deadline. Unlike :func:`socket.create_connection`, whose timeout starts again for
    each address, every address gets only the time left."""
    error: OSError = OSError(f"{host} has no address")
    for family, kind, proto, _, address in socket.getaddrinfo(host, port,
                                                              type=socket.SOCK_STREAM):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no connection to {host} before the deadline")
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(left)
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error


_TLS: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    """The system's default TLS context (certificates verified), made once: building it
    reads the CA store."""
    global _TLS
    if _TLS is None:
        _TLS = ssl.create_default_context()
    return _TLS


def _read_capped(response: http.client.HTTPResponse, url: str, max_bytes: int) -> bytes:
    declared = response.getheader("Content-Length")
    if declared is not None and declared.strip().isdigit() and int(declared) > max_bytes:
        raise ReplyTooLarge(url, max_bytes, int(declared))
    blocks: list[bytes] = []
    total = 0
    while True:
        block = response.read(min(_BLOCK, max_bytes + 1 - total))
        if not block:
            return b"".join(blocks)
        total += len(block)
        if total > max_bytes:
            raise ReplyTooLarge(url, max_bytes, None)
        blocks.append(block)


class _Watchdog:
    """Shuts the watched socket down after ``seconds`` unless the ``with`` block is left
    first. The shutdown makes a blocked read or write on the socket return at once.

    The watchdog shuts down its own duplicate of the socket's descriptor: shutdown acts
    on the connection, so the reader wakes up, while http.client may close the original
    whenever it likes (it does once a ``Connection: close`` reply is read) without the
    watchdog ever touching a closed, possibly reused, descriptor. A lock orders expiry
    against leaving the block."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._done = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._timer.cancel()
        with self._lock:
            self._done = True
            if self._sock is not None:
                self._sock.close()

    def watch(self, sock: socket.socket) -> None:
        """Watch ``sock``; raises :class:`TimeoutError` when the time is already up."""
        with self._lock:
            if self.expired:
                raise TimeoutError("the deadline passed while connecting")
            self._sock = socket.socket(sock.family, sock.type, sock.proto,
                                       fileno=os.dup(sock.fileno()))

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            if self._sock is not None:
                with contextlib.suppress(OSError):
                    self._sock.shutdown(socket.SHUT_RDWR)
