"""A real OpenAI-compatible HTTP server on localhost for the tests of the LLM client
and of what uses it (:class:`FakeChatServer`): it answers ``POST /v1/chat/completions``
with text derived from the prompt (it repeats the names the prompt lists, so the
verbalizer's checks pass), and can be told to fail: garbage bodies, 5xx, 429 with
``Retry-After``, replies slower than the client's timeout, or be stopped altogether. It
records every request it receives.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from llm.endpoint import (
    ChatEndpoint,
)


@dataclass
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float


class FakeChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 (a free port).

    ``faults`` is a queue of responses to give before answering normally, one per
    request: an HTTP status such as ``"500"``, ``"400"`` or ``"429"`` (with
    ``Retry-After: retry_after``; the body is ``error_body`` when set), ``"garbage"``
    (a 200 that is not JSON), ``"slow"`` (sleeps ``slow_s`` first), ``"drip-headers"``
    and ``"drip-body"`` (a byte every ``drip_s`` seconds, for a minute, in the headers
    or the body; ``"drip-body-close"``: with ``Connection: close``, after which
    http.client lets go of the socket), ``"huge-declared"`` (a 200 announcing 300 MB, then little),
    ``"huge-stream"`` (a 200 without a length streaming 50 MB as fast as the client
    reads; ``streamed`` counts what was sent). A request to a path under ``/old/`` is
    answered with ``redirect`` (status, Location) when set. ``always`` applies a fault
    to every request. ``reply`` overrides the normal content, ``responder`` (the last
    message's text -> the reply) computes it per request. Requests of any method are
    recorded (a GET is answered 405)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.faults: list[str] = []
        self.always: str | None = None
        self.reply: str | None = None
        self.responder: Callable[[str], str] | None = None
        self.retry_after = "0"
        self.slow_s = 1.0
        self.drip_s = 0.5
        self.error_body: bytes | None = None
        self.redirect: tuple[int, str] | None = None
        self.streamed = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:   # keep test output clean
                pass

            def do_GET(self) -> None:
                with server._lock:
                    server.received.append(Received(self.path, dict(self.headers.items()),
                                                    {}, time.monotonic()))
                self._send(405, b'{"error": "use POST"}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                with server._lock:
                    server.received.append(Received(self.path, dict(self.headers.items()),
                                                    json.loads(raw), time.monotonic()))
                    fault = server.faults.pop(0) if server.faults else server.always
                try:
                    self._answer(fault, raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the client gave up (timeout, size cap) and left

            def _answer(self, fault: str | None, raw: bytes) -> None:
                if self.path.startswith("/old/") and server.redirect is not None:
                    status, location = server.redirect
                    self._send(status, b"", {"Location": location})
                    return
                if self.path != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}')
                    return
                if fault == "slow":
                    time.sleep(server.slow_s)
                elif fault is not None and fault.isdigit():
                    body = server.error_body or _ERROR_BODIES.get(fault, b'{"error": "no"}')
                    extra = {"Retry-After": server.retry_after} if fault == "429" else {}
                    self._send(int(fault), body, extra)
                    return
                elif fault == "garbage":
                    self._send(200, b"<html>502 Bad Gateway</html>")
                    return
                elif fault is not None and fault.startswith("drip-"):
                    self._drip(fault)
                    return
                elif fault == "huge-declared":
                    self.send_response(200)
                    self.send_header("Content-Length", str(300 * 1024 * 1024))
                    self.end_headers()
                    self.wfile.write(b'{"choices": [')
                    return
                elif fault == "huge-stream":
                    self.send_response(200)   # no length: the body ends when we close
                    self.end_headers()
                    block = b" " * (1 << 20)
                    for _ in range(50):
                        self.wfile.write(block)
                        server.streamed += len(block)
                    return
                body = json.loads(raw)
                prompt = body["messages"][-1]["content"]
                content = (server.reply if server.reply is not None
                           else server.responder(prompt) if server.responder is not None
                           else echo_content(prompt))
                doc = {"id": "x", "object": "chat.completion", "model": body["model"],
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]}
                self._send(200, json.dumps(doc).encode())

            def _drip(self, fault: str) -> None:
                """A byte every ``drip_s`` seconds for a minute: each read of the
                client gets something, so only a deadline ends the request."""
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                if fault == "drip-headers":
                    self.wfile.write(b"X-Slow: ")
                else:
                    if fault == "drip-body-close":
                        self.wfile.write(b"Connection: close\r\n")
                    self.wfile.write(b"Content-Length: 1000\r\n\r\n")
                self.wfile.flush()
                stop = time.monotonic() + 60
                while time.monotonic() < stop:
                    self.wfile.write(b"a")
                    self.wfile.flush()
                    time.sleep(server.drip_s)

            def _send(self, status: int, payload: bytes,
                      headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,),
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


_ERROR_BODIES = {"500": b'{"error": "overloaded"}', "429": b'{"error": "slow down"}',
                 "401": b'{"error": "invalid api key"}'}
_PLACEHOLDER = re.compile(r"\[[a-z ]+ \d+\](, )?|, \[[a-z ]+ \d+\]")


def echo_content(prompt: str) -> str:
    """A deterministic reply that does what the prompt asks, well enough for the
    checks: each ``(s, r, o)`` line as a sentence without the record placeholders;
    a question naming the lines' entities when a question is asked; the answers when
    a statement is asked."""
    if "Answers:" in prompt:
        answers = re.search(r"^Answers: (.+)$", prompt, re.M)
        assert answers is not None
        return f"The answer is {answers.group(1)}."
    lines = [line[1:-1] for line in prompt.splitlines()
             if line.startswith("(") and line.endswith(")")]
    if "question" in prompt.splitlines()[-1]:
        # (subject, relation, object): every part but the relation; a line that does not
        # split in three (a name with ", " in it) is taken whole.
        parts = [line.split(", ") for line in lines]
        names = [x for p in parts for i, x in enumerate(p)
                 if not (i == 1 and len(p) == 3) and not x.startswith("?")]
        return f"Which one is linked to {', '.join(dict.fromkeys(names))}?"
    return " ".join(_PLACEHOLDER.sub("", line) + "." for line in lines)


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    s = FakeChatServer()
    yield s
    s.stop()


@pytest.fixture
def other() -> Iterator[FakeChatServer]:
    s = FakeChatServer()
    yield s
    s.stop()


def endpoint(server: FakeChatServer, **options: Any) -> ChatEndpoint:
    fast = {"url": server.url, "model": "test-model", "timeout_s": 2.0, "max_retries": 2,
            "backoff_base_s": 0.01, "max_wait_s": 1.0}
    return ChatEndpoint(**{**fast, **options})


KEY = "sk-secret-4e1f"
"""An API key the tests send: no error message may show it."""
HOSTILE_ERROR = {"error": {"message": "model 'x' does not exist\x1b[31m\x1b]0;owned\x07 "
                           f"(you sent Bearer {KEY})" + "!" * 2000}}
"""An error body with terminal escapes, the key and a great length."""
