"""The HTTP protocol ``kgbench serve`` runs: uvicorn's httptools one, which answers a
request it cannot parse in the API's error shape, with the security headers.

httptools (C) parses a request for a fraction of what uvicorn's pure-Python h11 cost,
which was more than an entity page's store reads (``bench/service_bench.py``). A
request the parser refuses never reaches the app: uvicorn answers it with a plain-text
400 of its own, without the headers :mod:`kgbench.service.security` puts on every
answer. h11 refused malformed requests so too; httptools also refuses a URL over 64 KiB
(its URL parser counts in 16 bits), which h11 passed on to the app. :class:`HttpProtocol`
sends that 400 as every other error goes out: ``{"error": {...}}`` as JSON, the security
headers, and the connection closed (the parser cannot tell where the next request
starts).

Every answer leaves in one write (:class:`HeadWithBody`): uvicorn writes a response's
status line and headers, then its body, each straight to the socket, and with
``TCP_NODELAY`` that is two segments, two system calls here and two wake-ups of a
client that reads the head first (at one client, a few tens of microseconds of a
~0.4 ms entity page round trip on the 2-core machine: ``bench/service_bench.py``).

Each request's scope also says which requests the server is handling
(:data:`SERVER_TASKS`, :func:`alone`): a short read runs on the event loop's own thread
only for a request that is alone (:meth:`kgbench.service.deps.Reader.run`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kgbench.service.errors import error_body
from kgbench.service.security import response_headers

__all__ = ["SERVER_TASKS", "UNREADABLE", "HeadWithBody", "HttpProtocol", "alone"]

SERVER_TASKS = "kgbench.server_tasks"
"""The scope key of the requests the server is handling now (uvicorn's set of request
tasks, this one's included): :func:`alone` reads it."""
UNREADABLE = "the request is not valid HTTP/1.1, or its URL is over 64 KiB"
_BODY = json.dumps(error_body(
    400, UNREADABLE, "send a shorter URL: a big query goes in the body of POST "
    "/api/match or /api/cypher")).encode()


class HeadWithBody:
    """A connection's transport that holds a response's head (a write that starts with
    the status line) until the next write, and sends the two as one; a head that no
    write follows in the same turn of the event loop (a HEAD request, a body that is
    still being made) goes out at the end of that turn, and before a close. At most one
    write is held, so flow control and the order of the bytes are the transport's."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        if self._held is not None:
            data, self._held = self._held + data, None
        elif data.startswith(b"HTTP/1.1 "):
            self._held = data
            self._loop.call_soon(self.flush)
            return
        self._transport.write(data)

    def writelines(self, chunks: Any) -> None:
        self.write(b"".join(chunks))

    def flush(self) -> None:
        """Send the held head, if any (not into a connection already aborted)."""
        if self._held is not None:
            data, self._held = self._held, None
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def __getattr__(self, name: str) -> Any:   # everything else is the transport's
        return getattr(self._transport, name)


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the API's answer to an unparsable request,
    each answer in one write (:class:`HeadWithBody`)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = HeadWithBody(transport, self.loop)  # type: ignore[assignment]

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.scope[SERVER_TASKS] = self.server_state.tasks  # type: ignore[literal-required]

    def send_400_response(self, msg: str) -> None:
        headers = [*self.server_state.default_headers,
                   *response_headers([(b"content-type", b"application/json"),
                                      (b"content-length", str(len(_BODY)).encode()),
                                      (b"connection", b"close")], api=True)]
        head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
        self.transport.write(b"HTTP/1.1 400 Bad Request\r\n" + head + b"\r\n" + _BODY)
        self.transport.close()


def alone(scope: Any) -> bool:
    """Whether the request of ``scope`` is the only one the server is handling now
    (``False`` when the server does not say: not run by :class:`HttpProtocol`).
    A request's task exists from the moment its head is read, so the requests that
    arrived while another one held the event loop count too."""
    tasks = scope.get(SERVER_TASKS)
    return tasks is not None and len(tasks) == 1
