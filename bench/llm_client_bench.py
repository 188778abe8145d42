"""Benchmark: the LLM client's HTTP transport against httpx and the old urllib code.

Issue 18 asked whether a well-kept HTTP client (httpx) bounds a request better than
hand-written code. Three transports POST the same chat request to a local server:

* ``urllib`` — the client before issue 18 (``urllib.request.urlopen``, a timeout per
  socket read, redirects followed by urllib);
* ``kgbench`` — :func:`llm.transport.post` (``http.client``, a connection per
  request, a watchdog for the whole-request deadline, a size cap, same-origin redirects
  only);
* ``httpx`` — :func:`httpx_post` below: the same contract written on an
  ``httpx.Client`` (pooled keep-alive connections), as far as httpx allows: the
  redirect rules and the size cap, and the deadline checked between body chunks with
  the read timeout set to the time left (httpx has no whole-request deadline:
  encode/httpx#1450 is open, httpcore's "total timeout" PR #936 was closed wontfix).

Measured: requests/s over ``--requests`` sequential requests (median of ``--repeats``
runs; an LLM answers in seconds, so this is the transport's own overhead), and the
seconds each takes against a server that drips one byte every 0.5 s for 10 s, in the
headers and in the body, with a 2 s timeout (``urllib`` and ``httpx`` are held for as
long as the server drips in the headers; only a deadline cuts them). Also the code size
(statements, excluding docstrings) of the transport logic in each.

httpx is not a dependency; install it somewhere to run this, e.g.

    pip install --target /tmp/httpx-eval httpx
    PYTHONPATH=/tmp/httpx-eval python -m bench.llm_client_bench --requests 2000
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import platform
import statistics
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from bench.harness import REPO, git_commit, git_dirty
from llm import transport

REPLY = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [
    {"index": 0, "finish_reason": "stop",
     "message": {"role": "assistant", "content": "Al Pacino played Michael Corleone."}}]}
).encode()
BODY = json.dumps({"model": "m", "temperature": 0, "max_tokens": 512, "messages": [
    {"role": "user", "content": "Write a passage stating (The Godfather, starring, Al Pacino)."}
]}).encode()
HEADERS = {"Content-Type": "application/json", "Accept": "application/json",
           "Authorization": "Bearer sk-bench"}
DRIP_S = 0.5
DRIP_FOR_S = 10.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, so httpx's pool can reuse connections
    # As LLM servers (uvicorn, vLLM) do: without it, a reused connection stalls 40 ms a
    # reply on Nagle's algorithm meeting the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            if self.path.startswith("/drip-"):
                self._drip(in_headers=self.path == "/drip-headers")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(REPLY)))
            self.end_headers()
            self.wfile.write(REPLY)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _drip(self, *, in_headers: bool) -> None:
        self.close_connection = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n")
        self.wfile.write(b"X-Slow: " if in_headers else b"Content-Length: 100000\r\n\r\n")
        stop = time.monotonic() + DRIP_FOR_S
        while time.monotonic() < stop:
            self.wfile.write(b"a")
            self.wfile.flush()
            time.sleep(DRIP_S)


# -- the three transports: POST, return (status, body), raise on any bound -------------

def urllib_post(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float,
                max_bytes: int) -> tuple[int, bytes]:
    """The client before issue 18: no deadline, no cap, redirects followed by urllib."""
    request = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def kgbench_post(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float,
                 max_bytes: int) -> tuple[int, bytes]:
    reply = transport.post(url, body, headers, timeout_s=timeout_s, max_bytes=max_bytes)
    return reply.status, reply.body


_HTTPX: Any = None


def httpx_post(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float,
               max_bytes: int) -> tuple[int, bytes]:
    """:func:`llm.transport.post`'s contract on a pooled ``httpx.Client``."""
    import httpx

    global _HTTPX
    if _HTTPX is None:
        _HTTPX = httpx.Client(follow_redirects=False)   # it would turn a 302'd POST into GET
    deadline = time.monotonic() + timeout_s
    for _ in range(transport.MAX_REDIRECTS + 1):
        left = deadline - time.monotonic()
        if left <= 0:
            raise transport.DeadlineExceeded(url)
        try:
            with _HTTPX.stream("POST", url, content=body, headers=dict(headers),
                               timeout=httpx.Timeout(left)) as response:
                location = response.headers.get("location")
                if response.status_code in transport.REDIRECT_STATUSES and location:
                    target = urljoin(url, location)
                    if transport.origin(target) != transport.origin(url):
                        raise transport.CrossOriginRedirect(url, response.status_code, location)
                    url = target
                    continue
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > max_bytes:
                    raise transport.ReplyTooLarge(url, max_bytes, int(declared))
                blocks, total = [], 0
                for block in response.iter_raw():
                    total += len(block)
                    if total > max_bytes:
                        raise transport.ReplyTooLarge(url, max_bytes, None)
                    if time.monotonic() > deadline:   # only between chunks of the body
                        raise transport.DeadlineExceeded(url)
                    blocks.append(block)
                return response.status_code, b"".join(blocks)
        except httpx.TimeoutException:
            raise transport.DeadlineExceeded(url) from None
    raise transport.TooManyRedirects(url, 0)


Post = Callable[[str, bytes, Mapping[str, str], float, int], tuple[int, bytes]]


def statements(*objects: Any) -> int:
    """Statements in the source of ``objects`` (functions, classes), docstrings left out:
    the size of the logic, whatever the line wrapping and comments."""
    count = 0
    for obj in objects:
        tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not (
                    isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                count += 1
    return count


def requests_per_second(post: Post, url: str, n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        status, data = post(url, BODY, HEADERS, 10.0, transport.DEFAULT_MAX_RESPONSE_BYTES)
        assert status == 200 and data == REPLY, (status, data[:100])
    return n / (time.perf_counter() - started)


def drip_seconds(post: Post, url: str) -> tuple[float, str]:
    started = time.monotonic()
    try:
        post(url, BODY, HEADERS, 2.0, transport.DEFAULT_MAX_RESPONSE_BYTES)
        outcome = "returned"
    except Exception as exc:  # what each transport raises is part of the result
        outcome = type(exc).__name__
    return round(time.monotonic() - started, 2), outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-drip", action="store_true", help="skip the slow-drip timings")
    parser.add_argument("--results", type=Path,
                        default=REPO / "bench" / "results" / "llm_client_bench.jsonl")
    args = parser.parse_args()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    transports: dict[str, Post] = {"urllib": urllib_post, "kgbench": kgbench_post}
    try:
        import httpx
        transports["httpx"] = httpx_post
        httpx_version: str | None = httpx.__version__
    except ImportError:
        httpx_version = None
        print("httpx is not installed: measuring urllib and kgbench only", file=sys.stderr)

    result: dict[str, Any] = {}
    for name, post in transports.items():
        post(f"{base}/v1/chat/completions", BODY, HEADERS, 10.0, 1 << 20)   # warm up
        rates = [requests_per_second(post, f"{base}/v1/chat/completions", args.requests)
                 for _ in range(args.repeats)]
        result[name] = {"requests_per_s": round(statistics.median(rates)),
                        "ms_per_request": round(1000 / statistics.median(rates), 3)}
        if not args.no_drip:
            for where in ("headers", "body"):
                seconds, outcome = drip_seconds(post, f"{base}/drip-{where}")
                result[name][f"drip_{where}_s"] = seconds
                result[name][f"drip_{where}_outcome"] = outcome
        print(name, result[name], file=sys.stderr)
    result["kgbench"]["statements"] = statements(
        transport.post, transport._post_once, transport._connect, transport._read_capped,
        transport._Watchdog)
    if "httpx" in result:
        result["httpx"]["statements"] = statements(httpx_post)
    httpd.shutdown()

    record = {"benchmark": "llm_client_bench",
              "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S%z"),
              "commit": git_commit(), "dirty": git_dirty(),
              "machine": {"python": platform.python_version(), "platform": platform.platform(),
                          "httpx": httpx_version},
              "params": {"requests": args.requests, "repeats": args.repeats,
                         "drip_s": DRIP_S, "drip_for_s": DRIP_FOR_S, "timeout_s": 2.0},
              "results": result}
    print(json.dumps(record, indent=2))
    args.results.parent.mkdir(parents=True, exist_ok=True)
    with args.results.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
