"""The transport floor of ``bench/service_bench.py``: a bare ASGI app on uvicorn that
answers every request with one fixed body, in a process of its own.

It runs as ``kgbench serve`` runs (its httptools protocol, each answer in one write;
uvloop; no access log, no server or date header), so a round trip to it is what the
loopback, the kernel, uvicorn's protocol and the load generator cost and nothing else:
no routing, no security checks, no store, no JSON. At one client that round trip is in
every request of the real server too, so it bounds the ratio of HTTP to in-process
requests/s a server could reach on this machine (``service_bench``'s ``ceiling``).

``--fastapi`` answers through the least a FastAPI app does instead: one ``GET`` route
with the entity page's two query parameters that returns the body as it is (no
middleware, no dependency, no validation of the answer): what any route of
``kgbench serve``'s framework costs before its own work (``fastapi_ceiling``).

    python bench/bare_server.py --port 8799 --body answer.json [--fastapi]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import uvicorn

from kgbench.service.protocol import HttpProtocol


def bare_app(body: bytes) -> Any:
    """An ASGI app that answers any HTTP request with ``body`` as JSON."""
    head = {"type": "http.response.start", "status": 200,
            "headers": [(b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode())]}
    message = {"type": "http.response.body", "body": body}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send(head)
        await send(message)

    return app


def fastapi_app(body: bytes) -> Any:
    """A FastAPI app whose one route, ``GET`` on any path with ``id`` and ``limit``
    query parameters, answers ``body`` as JSON."""
    from fastapi import FastAPI
    from starlette.responses import Response

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/{path:path}")
    async def answer(path: str, id: str = "", limit: int = 20) -> Response:
        return Response(body, media_type="application/json")

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--body", type=Path, required=True,
                        help="the file whose bytes every answer carries")
    parser.add_argument("--fastapi", action="store_true",
                        help="answer through one plain FastAPI route")
    args = parser.parse_args()
    make = fastapi_app if args.fastapi else bare_app
    uvicorn.run(make(args.body.read_bytes()), host="127.0.0.1", port=args.port,
                log_level="warning", http=HttpProtocol, loop="uvloop", access_log=False,
                server_header=False, date_header=False, lifespan="off")


if __name__ == "__main__":
    main()
