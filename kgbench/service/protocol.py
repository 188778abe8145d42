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
"""

from __future__ import annotations

import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kgbench.service.errors import error_body
from kgbench.service.security import response_headers

__all__ = ["UNREADABLE", "HttpProtocol"]

UNREADABLE = "the request is not valid HTTP/1.1, or its URL is over 64 KiB"
_BODY = json.dumps(error_body(
    400, UNREADABLE, "send a shorter URL: a big query goes in the body of POST "
    "/api/match or /api/cypher")).encode()


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the API's answer to an unparsable request."""

    def send_400_response(self, msg: str) -> None:
        headers = [*self.server_state.default_headers,
                   *response_headers([(b"content-type", b"application/json"),
                                      (b"content-length", str(len(_BODY)).encode()),
                                      (b"connection", b"close")], api=True)]
        head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
        self.transport.write(b"HTTP/1.1 400 Bad Request\r\n" + head + b"\r\n" + _BODY)
        self.transport.close()
