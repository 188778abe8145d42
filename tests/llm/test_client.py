"""The LLM backend against a real OpenAI-compatible HTTP server on localhost.

:class:`FakeChatServer` is a ``ThreadingHTTPServer`` answering ``POST
/v1/chat/completions`` with text derived from the prompt (it repeats the names the
prompt lists, so the verbalizer's checks pass), and can be told to fail: garbage
bodies, 5xx, 429 with ``Retry-After``, replies slower than the client's timeout, or be
stopped altogether. It records every request it receives.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from extension.core.samples import StructuredSample
from extension.verbalize.citations import citation_parts
from extension.verbalize.llm_checks import (
    LENGTH_FACTOR,
    MIN_LENGTH_LIMIT,
    check_answer,
    check_citation,
    check_question,
    clean_reply,
    length_limit,
)
from extension.verbalize.llm_verbalizer import LLMVerbalizer, verbalizer_from_options
from extension.verbalize.verbalizer import TemplateVerbalizer
from llm.cache import ResponseCache
from llm.chat import ChatMessage, ChatReply, chat_request_body, parse_chat_completion, request_key
from llm.client import ChatClient
from llm.endpoint import (
    DEFAULT_API_KEY_ENV,
    MAX_RESPONSE_BYTES_ENV,
    ChatEndpoint,
    max_response_bytes,
)
from llm.errors import (
    LLMBadResponse,
    LLMConfigError,
    LLMRedirectRefused,
    LLMRejected,
    LLMResponseTooLarge,
    LLMUnavailable,
)
from llm.retry import RateLimiter, parse_retry_after


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


def endpoint(server: FakeChatServer, **options: Any) -> ChatEndpoint:
    fast = {"url": server.url, "model": "test-model", "timeout_s": 2.0, "max_retries": 2,
            "backoff_base_s": 0.01, "max_wait_s": 1.0}
    return ChatEndpoint(**{**fast, **options})


HELLO = [ChatMessage("user", "Say hello.\n(Alice, knows, Bob)")]
HELLO_REPLY = "Alice, knows, Bob."   # what echo_content makes of HELLO


# ---------------------------------------------------------------------------
# The client


def test_request_carries_model_temperature_zero_and_bearer_key(
        server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-secret")
    reply = ChatClient(endpoint(server, api_key_env="MY_LLM_KEY")).complete(HELLO)
    assert reply == ChatReply(HELLO_REPLY, "stop")
    [req] = server.received
    assert req.path == "/v1/chat/completions"
    assert req.body["model"] == "test-model"
    assert req.body["temperature"] == 0
    assert req.body["messages"] == [{"role": "user", "content": HELLO[0].content}]
    assert req.headers["Authorization"] == "Bearer sk-secret"


def test_no_key_no_authorization_header(server: FakeChatServer,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEFAULT_API_KEY_ENV, raising=False)
    ChatClient(endpoint(server)).complete(HELLO)
    assert "Authorization" not in server.received[0].headers


def test_url_may_already_name_the_chat_path(server: FakeChatServer) -> None:
    ep = endpoint(server, url=server.url + "/chat/completions/")
    assert ep.chat_url == server.url + "/chat/completions"
    assert ChatClient(ep).complete(HELLO).content == HELLO_REPLY


def test_retries_5xx_and_429_then_succeeds(server: FakeChatServer) -> None:
    server.faults = ["500", "429"]
    client = ChatClient(endpoint(server, max_retries=2))
    assert client.complete(HELLO).content == HELLO_REPLY
    assert len(server.received) == 3
    assert client.stats.requests == 3


def test_retry_after_is_honoured(server: FakeChatServer) -> None:
    server.faults = ["429"]
    server.retry_after = "0.3"
    started = time.monotonic()
    ChatClient(endpoint(server, backoff_base_s=0.0)).complete(HELLO)
    first, second = server.received
    assert second.at - first.at >= 0.29
    assert time.monotonic() - started < 2.0


def test_retry_after_longer_than_max_wait_gives_up_at_once(server: FakeChatServer) -> None:
    server.always = "429"
    server.retry_after = "3600"
    with pytest.raises(LLMUnavailable, match=r"asks to wait 3600s.*max_wait_s"):
        ChatClient(endpoint(server, max_retries=5)).complete(HELLO)
    assert len(server.received) == 1


def test_persistent_5xx_exhausts_retries_with_clear_message(server: FakeChatServer) -> None:
    server.always = "500"
    with pytest.raises(LLMUnavailable) as caught:
        ChatClient(endpoint(server, max_retries=2)).complete(HELLO)
    assert len(server.received) == 3
    message = str(caught.value)
    assert server.url in message and "after 3 attempts" in message and "HTTP 500" in message


def test_other_4xx_is_not_retried(server: FakeChatServer) -> None:
    server.always = "401"
    with pytest.raises(LLMRejected, match=r"HTTP 401.*KGBENCH_LLM_API_KEY") as caught:
        ChatClient(endpoint(server, max_retries=3)).complete(HELLO)
    assert caught.value.status == 401 and caught.value.is_configuration_error
    assert len(server.received) == 1


def test_wrong_path_404_names_the_url_to_check(server: FakeChatServer) -> None:
    ep = endpoint(server, url=f"http://127.0.0.1:{server.port}")   # /v1 forgotten
    with pytest.raises(LLMRejected, match=r"HTTP 404.*check --llm-url"):
        ChatClient(ep).complete(HELLO)


def test_a_timed_out_attempt_ends_the_request(server: FakeChatServer) -> None:
    # The attempt had all the time the request had: nothing is left for a retry.
    server.always = "slow"
    server.slow_s = 0.5
    with pytest.raises(LLMUnavailable, match=r"within the 0.2s timeout.*1 attempt;"):
        ChatClient(endpoint(server, timeout_s=0.2, max_retries=1)).complete(HELLO)
    assert len(server.received) == 1


def test_a_retry_gets_what_is_left_of_the_deadline(server: FakeChatServer) -> None:
    server.faults = ["500", "slow"]
    server.slow_s = 0.5
    reply = ChatClient(endpoint(server, timeout_s=1.5, max_retries=1)).complete(HELLO)
    assert reply.content == HELLO_REPLY
    assert len(server.received) == 2


def test_server_down_is_unavailable_with_url_and_what_to_check(server: FakeChatServer) -> None:
    ep = endpoint(server, max_retries=1)
    server.stop()
    with pytest.raises(LLMUnavailable) as caught:
        ChatClient(ep).complete(HELLO)
    message = str(caught.value)
    assert ep.chat_url in message
    assert "connection refused" in message and "--llm-url" in message


def test_garbage_body_is_a_bad_response(server: FakeChatServer) -> None:
    server.always = "garbage"
    with pytest.raises(LLMBadResponse, match=r"not JSON.*<html>"):
        ChatClient(endpoint(server)).complete(HELLO)


# ---------------------------------------------------------------------------
# Hostile or broken endpoints: redirects, slow drips, huge replies, statuses

KEY = "sk-secret-4e1f"


@pytest.fixture
def other() -> Iterator[FakeChatServer]:
    s = FakeChatServer()
    yield s
    s.stop()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_to_another_port_is_refused_and_the_key_stays_home(
        server: FakeChatServer, other: FakeChatServer, monkeypatch: pytest.MonkeyPatch,
        status: int) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.redirect = (status, f"{other.url}/chat/completions")
    ep = endpoint(server, url=f"http://127.0.0.1:{server.port}/old/v1")
    with pytest.raises(LLMRedirectRefused) as caught:
        ChatClient(ep).complete(HELLO)
    assert other.received == []   # nothing, let alone the key, reached the other port
    assert len(server.received) == 1
    assert server.received[0].headers["Authorization"] == f"Bearer {KEY}"
    message = str(caught.value)
    assert f"HTTP {status}" in message and other.url in message and "--llm-url" in message
    assert KEY not in message
    assert caught.value.status == status and caught.value.is_configuration_error


def test_redirect_refused_even_with_fallback(server: FakeChatServer, other: FakeChatServer,
                                             tmp_path: Path,
                                             template: TemplateVerbalizer) -> None:
    server.redirect = (302, f"{other.url}/chat/completions")
    v = LLMVerbalizer(endpoint(server, url=f"http://127.0.0.1:{server.port}/old/v1"),
                      tmp_path, template, on_error="fallback")
    with pytest.raises(LLMRedirectRefused):
        v.verbalize(SEQUEL)
    assert other.received == []


def test_redirect_within_the_origin_is_followed_with_the_same_post(
        server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.redirect = (302, "/v1/chat/completions")
    ep = endpoint(server, url=f"http://127.0.0.1:{server.port}/old/v1")
    assert ChatClient(ep).complete(HELLO).content == HELLO_REPLY
    moved, final = server.received
    assert (moved.path, final.path) == ("/old/v1/chat/completions", "/v1/chat/completions")
    assert final.body == moved.body and final.headers["Authorization"] == f"Bearer {KEY}"


def test_redirect_loop_is_refused(server: FakeChatServer) -> None:
    server.redirect = (307, "/old/v1/chat/completions")
    ep = endpoint(server, url=f"http://127.0.0.1:{server.port}/old/v1")
    with pytest.raises(LLMRedirectRefused, match="more than 5 times"):
        ChatClient(ep).complete(HELLO)
    assert len(server.received) == 6


@pytest.mark.parametrize("where", ["headers", "body", "body-close"])
def test_slow_drip_is_cut_at_the_deadline_of_the_whole_request(
        server: FakeChatServer, where: str) -> None:
    # A byte every 0.5 s: a timeout per socket read never fires (it held requests for
    # a minute); the deadline of the whole request does.
    server.always = f"drip-{where}"
    started = time.monotonic()
    with pytest.raises(LLMUnavailable, match=r"within the 2s timeout.*cut off at the deadline"):
        ChatClient(endpoint(server, timeout_s=2.0, max_retries=0)).complete(HELLO)
    elapsed = time.monotonic() - started
    assert 1.9 <= elapsed < 6.0
    assert len(server.received) == 1


def test_timeout_is_the_deadline_of_the_request_with_all_its_retries(
        server: FakeChatServer) -> None:
    # Issue 18: with a deadline per attempt, the default 5 retries and their backoff
    # (1+2+4+8+16 s) let a dripping server hold a 2 s request for 6 x 2 + 31 = 43 s.
    server.always = "drip-body"
    ep = ChatEndpoint(url=server.url, model="test-model", timeout_s=2.0)
    assert ep.max_retries == 5 and ep.backoff_base_s == 1.0   # the defaults
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        ChatClient(ep).complete(HELLO)
    assert time.monotonic() - started < 5.0
    assert len(server.received) == 1
    assert "within the 2s timeout" in str(caught.value)
    assert "--llm-timeout" in str(caught.value)


def test_retries_that_fit_in_the_deadline_still_succeed(server: FakeChatServer) -> None:
    server.faults = ["503", "503"]   # then answered: backoff 1 s + 2 s, inside 5 s
    client = ChatClient(ChatEndpoint(url=server.url, model="test-model", timeout_s=5.0))
    started = time.monotonic()
    assert client.complete(HELLO).content == HELLO_REPLY
    assert 2.9 <= time.monotonic() - started < 5.0
    assert len(server.received) == 3


def test_a_backoff_past_the_deadline_ends_the_request_with_the_last_error(
        server: FakeChatServer) -> None:
    # 503, wait 1 s, 503: the next wait (2 s) would end after the 2 s deadline, so the
    # request ends at once rather than sleeping into the same error.
    server.always = "503"
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        ChatClient(ChatEndpoint(url=server.url, model="test-model", timeout_s=2.0)
                   ).complete(HELLO)
    assert time.monotonic() - started < 1.9
    assert len(server.received) == 2
    message = str(caught.value)
    assert "within the 2s timeout" in message and "2 attempts" in message
    assert "HTTP 503" in message and "would wait 2s, past the deadline" in message


def test_a_retry_after_past_the_deadline_ends_the_request_at_once(
        server: FakeChatServer) -> None:
    server.always = "429"
    server.retry_after = "10"   # under max_wait_s, over what is left of the deadline
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        ChatClient(endpoint(server, timeout_s=2.0, max_retries=5, max_wait_s=60.0)
                   ).complete(HELLO)
    assert time.monotonic() - started < 1.5
    assert len(server.received) == 1
    assert re.search(r"HTTP 429.*asks to wait 10s, past the deadline", str(caught.value))


def test_reply_declaring_a_huge_length_is_refused_unread(server: FakeChatServer) -> None:
    server.always = "huge-declared"
    started = time.monotonic()
    with pytest.raises(LLMResponseTooLarge) as caught:
        ChatClient(endpoint(server, max_retries=3)).complete(HELLO)
    assert time.monotonic() - started < 1.5   # refused at the headers, not at the deadline
    message = str(caught.value)
    assert "314,572,800 bytes" in message and "8,388,608" in message
    assert MAX_RESPONSE_BYTES_ENV in message
    assert len(server.received) == 1   # not retried: the same request gets the same reply


def test_reply_streaming_past_the_cap_is_cut_off(server: FakeChatServer) -> None:
    server.always = "huge-stream"
    with pytest.raises(LLMResponseTooLarge, match="runs past 8,388,608 bytes"):
        ChatClient(endpoint(server)).complete(HELLO)
    time.sleep(0.3)   # let the server notice the closed connection
    # the client stopped reading at the cap: the server could not push the 50 MB
    # (what it did send is the cap plus the socket buffers)
    assert server.streamed < 30 * (1 << 20)
    small = ChatEndpoint(url=server.url, model="m", max_response_bytes=1 << 20)
    with pytest.raises(LLMResponseTooLarge, match="runs past 1,048,576 bytes"):
        ChatClient(small).complete(HELLO)


def test_max_response_bytes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_RESPONSE_BYTES_ENV, raising=False)
    assert max_response_bytes() == 8 * 1024 * 1024
    monkeypatch.setenv(MAX_RESPONSE_BYTES_ENV, "1000")
    assert max_response_bytes() == 1000
    for bad in ("0", "-5", "8MB"):
        monkeypatch.setenv(MAX_RESPONSE_BYTES_ENV, bad)
        with pytest.raises(LLMConfigError, match=MAX_RESPONSE_BYTES_ENV):
            max_response_bytes()


# status -> (retried?, configuration error?)
STATUSES = {400: (False, False), 401: (False, True), 403: (False, True),
            404: (False, True), 405: (False, True), 413: (False, False),
            422: (False, False), 408: (True, None), 429: (True, None), 500: (True, None),
            502: (True, None), 503: (True, None)}


@pytest.mark.parametrize("status", sorted(STATUSES))
def test_how_each_status_is_treated(server: FakeChatServer, status: int) -> None:
    retried, config = STATUSES[status]
    server.always = str(status)
    client = ChatClient(endpoint(server, max_retries=2))
    if retried:
        with pytest.raises(LLMUnavailable, match=f"after 3 attempts.*HTTP {status}"):
            client.complete(HELLO)
        assert len(server.received) == 3
    else:
        with pytest.raises(LLMRejected, match=f"HTTP {status}") as caught:
            client.complete(HELLO)
        assert len(server.received) == 1
        assert caught.value.is_configuration_error is config


HOSTILE_ERROR = {"error": {"message": "model 'x' does not exist\x1b[31m\x1b]0;owned\x07 "
                           f"(you sent Bearer {KEY})" + "!" * 2000}}


def test_rejection_quotes_the_server_message_escaped_shortened_and_without_the_key(
        server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.always = "400"
    server.error_body = json.dumps(HOSTILE_ERROR).encode()
    with pytest.raises(LLMRejected) as caught:
        ChatClient(endpoint(server)).complete(HELLO)
    message = str(caught.value)
    assert "HTTP 400" in message and "model 'x' does not exist" in message
    assert "\x1b" not in message and "\x07" not in message   # escaped, not raw
    assert "\\x1b[31m" in message
    assert KEY not in message and "Bearer ***" in message
    assert len(message) < 800 and "\n" not in message


def test_endpoint_refusing_every_request_stops_the_verbalizer(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.always = "400"
    server.error_body = json.dumps(HOSTILE_ERROR).encode()
    with pytest.raises(LLMRejected) as caught:
        verbalizer(server, tmp_path, template).verbalize(SEQUEL)
    message = str(caught.value)
    assert caught.value.status == 400 and "does not exist" in message
    assert "--llm-fallback" in message and KEY not in message
    assert len(server.received) == 1   # stopped at the first refusal


def test_endpoint_refusing_every_request_with_fallback_uses_templates(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.always = "400"
    server.error_body = json.dumps(HOSTILE_ERROR).encode()
    text = verbalizer(server, tmp_path, template, on_error="fallback").verbalize(SEQUEL)
    expected = template.verbalize(SEQUEL)
    assert text.citations == expected.citations and text.answer == expected.answer
    assert len(text.fallbacks) == 4
    assert all("request refused" in f and "HTTP 400" in f for f in text.fallbacks)
    assert not any(KEY in f for f in text.fallbacks)
    assert ResponseCache(tmp_path).keys() == []   # nothing to cache: a rerun asks again


def test_huge_reply_stops_the_verbalizer_unless_fallback(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "huge-declared"
    with pytest.raises(LLMResponseTooLarge, match="--llm-fallback"):
        verbalizer(server, tmp_path, template).verbalize(SEQUEL)
    text = verbalizer(server, tmp_path, template, on_error="fallback").verbalize(SEQUEL)
    assert len(text.fallbacks) == 4 and all("reply too large" in f for f in text.fallbacks)


def test_url_with_a_password_is_refused_without_showing_it() -> None:
    with pytest.raises(ValueError, match="user name or password") as caught:
        ChatEndpoint(url="http://user:hunter2@localhost:8000/v1", model="m")
    assert "hunter2" not in str(caught.value) and "***@localhost" in str(caught.value)
    with pytest.raises(ValueError, match="port"):
        ChatEndpoint(url="http://localhost:80000/v1", model="m")


def test_rejections_survive_the_trip_from_a_worker_process() -> None:
    # `generate --workers N` pickles a worker's exception back to the parent
    for exc in (LLMRejected("refused", 400, "'too long'"), LLMRedirectRefused("moved", 302)):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc)
        assert (back.status, back.reason) == (exc.status, exc.reason)


def test_json_that_is_not_a_completion_says_what_is_missing() -> None:
    with pytest.raises(LLMBadResponse, match=r"choices.*Field required"):
        parse_chat_completion(b'{"error": "nope"}', "http://x/v1/chat/completions")
    with pytest.raises(LLMBadResponse, match="no choices"):
        parse_chat_completion(b'{"choices": []}', "http://x/v1/chat/completions")
    reply = parse_chat_completion(
        b'{"choices": [{"message": {"content": null}, "finish_reason": "length"}]}', "u")
    assert reply == ChatReply("", "length")


def test_rate_limiter_gives_each_caller_the_next_free_slot() -> None:
    # A clock that only moves when told: the slots are exact, whatever the machine's load.
    now = [100.0]
    slept: list[float] = []
    limiter = RateLimiter(10.0, clock=lambda: now[0], sleep=slept.append)
    for _ in range(4):           # four callers at the same instant
        limiter.wait()
    assert slept == pytest.approx([0.1, 0.2, 0.3])   # the first goes at once
    now[0] = 100.35              # the queue has drained: the next caller waits 0.05
    limiter.wait()
    now[0] = 200.0               # long idle: no wait, and no burst credit either
    limiter.wait()
    limiter.wait()
    assert slept == pytest.approx([0.1, 0.2, 0.3, 0.05, 0.1])


def test_rate_limiter_spaces_requests_at_the_server(server: FakeChatServer) -> None:
    # Four threads at once through a 4/s limit: their slots are 0.25 s apart. The server
    # sees them later by connection latency, which a loaded machine stretches, so the
    # bounds leave half an interval of slack.
    client = ChatClient(endpoint(server, requests_per_second=4.0))
    threads = [threading.Thread(target=client.complete,
                                args=([ChatMessage("user", f"(A{i}, r, B)")],))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times = sorted(r.at for r in server.received)
    assert len(times) == 4
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 0.125
    assert times[-1] - times[0] >= 0.625


def test_rate_limiter_without_limit_does_not_wait() -> None:
    limiter = RateLimiter(None)
    started = time.monotonic()
    for _ in range(100):
        limiter.wait()
    assert time.monotonic() - started < 0.05
    with pytest.raises(ValueError):
        RateLimiter(0)


def test_parse_retry_after() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0


def test_endpoint_validation() -> None:
    with pytest.raises(ValueError, match="not an http"):
        ChatEndpoint(url="localhost:8000/v1", model="m")
    with pytest.raises(ValueError, match="model name is empty"):
        ChatEndpoint(url="http://localhost:8000/v1", model=" ")
    with pytest.raises(ValueError, match="requests_per_second"):
        ChatEndpoint(url="http://localhost:8000/v1", model="m", requests_per_second=0)


# ---------------------------------------------------------------------------
# The cache


def test_cache_key_covers_model_messages_and_temperature() -> None:
    a = ChatEndpoint(url="http://h/v1", model="a")
    body = chat_request_body(a, HELLO)
    assert request_key(body) == request_key(dict(reversed(list(body.items()))))
    assert request_key(body) != request_key({**body, "model": "b"})
    assert request_key(body) != request_key({**body, "temperature": 0.7})
    assert request_key(body) != request_key(
        chat_request_body(a, [ChatMessage("user", "Say hi.")]))
    # the URL is not part of the key: the same model elsewhere shares the cache
    b = ChatEndpoint(url="http://other/v1", model="a")
    assert request_key(chat_request_body(b, HELLO)) == request_key(body)


def test_client_with_cache_sends_each_request_once(server: FakeChatServer,
                                                   tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    first = ChatClient(endpoint(server), cache)
    assert first.complete(HELLO).content == HELLO_REPLY
    assert first.complete(HELLO).content == HELLO_REPLY
    assert len(server.received) == 1 and first.stats.cache_hits == 1
    rerun = ChatClient(endpoint(server), ResponseCache(tmp_path / "cache"))
    assert rerun.complete(HELLO).content == HELLO_REPLY
    assert len(server.received) == 1 and rerun.stats.requests == 0
    [key] = cache.keys()
    assert cache.path(key).parent.name == key[:2]
    stored = json.loads(cache.path(key).read_text())
    assert stored["request"]["model"] == "test-model"


def test_bad_responses_are_not_cached(server: FakeChatServer, tmp_path: Path) -> None:
    server.faults = ["garbage"]
    client = ChatClient(endpoint(server), ResponseCache(tmp_path))
    with pytest.raises(LLMBadResponse):
        client.complete(HELLO)
    assert ResponseCache(tmp_path).keys() == []
    assert client.complete(HELLO).content == HELLO_REPLY
    assert len(server.received) == 2


def test_unreadable_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = "ab" + "0" * 62
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text('{"format": 1, "key": "ab00')   # cut off
    assert cache.get(key) is None
    cache.put(key, {"model": "m"}, ChatReply("text", "stop"))
    assert cache.get(key) == ChatReply("text", "stop")
    assert [p.name for p in cache.path(key).parent.iterdir()] == [f"{key}.json"]
    with pytest.raises(ValueError, match="SHA-256"):
        cache.path("../../etc/passwd")


def _write_cache(directory: Path, start: Any) -> None:
    """One writer process: put and read back the same 150 keys three times over."""
    cache = ResponseCache(directory)
    start.wait()   # both writers begin together, so their writes overlap
    for _ in range(3):
        for i in range(150):
            body = {"model": "m", "messages": [{"role": "user", "content": str(i)}]}
            key = request_key(body)
            cache.put(key, body, ChatReply(f"reply {i} " + "x" * 2000, "stop"))
            got = cache.get(key)
            if got is None or not got.content.startswith(f"reply {i} "):
                raise AssertionError(f"read back {got!r} for key {i}")


def test_two_processes_writing_the_same_keys_leave_a_consistent_cache(tmp_path: Path) -> None:
    # fork: the children start with the modules loaded, so they overlap from the start
    context = multiprocessing.get_context("fork")
    start = context.Barrier(2)
    writers = [context.Process(target=_write_cache, args=(tmp_path / "cache", start))
               for _ in range(2)]
    for w in writers:
        w.start()
    for w in writers:
        w.join(timeout=60)
        assert w.exitcode == 0
    cache = ResponseCache(tmp_path / "cache")
    assert len(cache.keys()) == 150
    for i in range(150):
        body = {"model": "m", "messages": [{"role": "user", "content": str(i)}]}
        got = cache.get(request_key(body))
        assert got is not None and got.content == f"reply {i} " + "x" * 2000
    assert not list((tmp_path / "cache").glob("*/.*"))   # no temporary file left behind


# ---------------------------------------------------------------------------
# The verbalizer

# Real samples of the demo store (`kgbench demo` questions, seed 0), compacted:
# sub-facts and, for unedited samples, the original subgraph are rebuilt by _sample.
_SAMPLES = """
{"id":"demo-001:supportive","source":{"dataset":"jsonl","qid":"demo-001","question":"who directed the godfather?"},"query":{"original":{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"?v1","kind":"variable","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0ge","kind":"entity","value":"m.0kgb0ge","name":"The Godfather Part II","is_cvt":false}],"edges":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"},{"source":"?v1","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","not_equal":[["?x","m.0kgb0ge"]],"function":"none"}],"rule":"intersection_way1","shape":"path","subjects":["m.0kgb0ge"],"added":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"}]},"answer_entities":[{"id":"m.0kgb085","name":"Francis Ford Coppola"}],"answers_capped":false,"label":"supportive","complexity":"concatenation","subgraph":[{"s":"m.0kgb0gd","p":"film.film.sequel","o":"m.0kgb0ge","s_name":"The Godfather","o_name":"The Godfather Part II","literal":false},{"s":"m.0kgb0gd","p":"film.film.directed_by","o":"m.0kgb085","s_name":"The Godfather","o_name":"Francis Ford Coppola","literal":false}],"edit":{"kind":"none"},"seed":0}
{"id":"demo-001:contradictory","source":{"dataset":"jsonl","qid":"demo-001","question":"who directed the godfather?"},"query":{"original":{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"?v1","kind":"variable","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0ge","kind":"entity","value":"m.0kgb0ge","name":"The Godfather Part II","is_cvt":false}],"edges":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"},{"source":"?v1","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","not_equal":[["?x","m.0kgb0ge"]],"function":"none"}],"rule":"intersection_way1","shape":"path","subjects":["m.0kgb0ge"],"added":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"}]},"answer_entities":[{"id":"m.0kgb085","name":"Francis Ford Coppola"}],"answers_capped":false,"label":"contradictory","complexity":"concatenation","subgraph":[{"s":"m.0kgb0gd","p":"film.film.sequel","o":"m.0kgb0ge","s_name":"The Godfather","o_name":"The Godfather Part II","literal":false},{"s":"m.0kgb0gd","p":"film.film.directed_by","o":"m.0kgb08d","s_name":"The Godfather","o_name":"Ridley Scott","literal":false}],"original_subgraph":[{"s":"m.0kgb0gd","p":"film.film.sequel","o":"m.0kgb0ge","s_name":"The Godfather","o_name":"The Godfather Part II","literal":false},{"s":"m.0kgb0gd","p":"film.film.directed_by","o":"m.0kgb085","s_name":"The Godfather","o_name":"Francis Ford Coppola","literal":false}],"edit":{"kind":"replace_answer","replaced":{"id":"m.0kgb085","name":"Francis Ford Coppola"},"replacement":{"id":"m.0kgb08d","name":"Ridley Scott"},"shared_type":"film.director"},"seed":0}
{"id":"demo-002:supportive","source":{"dataset":"jsonl","qid":"demo-002","question":"who played michael corleone in the godfather?"},"query":{"original":{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?y","kind":"variable","is_cvt":true},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0iw","kind":"entity","value":"m.0kgb0iw","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.starring","target":"?y"},{"source":"?y","predicate":"film.performance.actor","target":"?x"},{"source":"?y","predicate":"film.performance.character","target":"m.0kgb0iw"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?y","kind":"variable","is_cvt":true},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0iw","kind":"entity","value":"m.0kgb0iw","is_cvt":false},{"id":"m.0kgb001","kind":"entity","value":"m.0kgb001","name":"United States of America","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.starring","target":"?y"},{"source":"?y","predicate":"film.performance.actor","target":"?x"},{"source":"?y","predicate":"film.performance.character","target":"m.0kgb0iw"},{"source":"?x","predicate":"people.person.nationality","target":"m.0kgb001"}],"answer":"?x","function":"none"}],"rule":"intersection_way2","shape":"tree","subjects":["m.0kgb0gd","m.0kgb001"],"added":[{"source":"?x","predicate":"people.person.nationality","target":"m.0kgb001"}]},"answer_entities":[{"id":"m.0kgb0ag","name":"Al Pacino"}],"answers_capped":false,"label":"supportive","complexity":"intersection","subgraph":[{"s":"m.0kgb0gd","p":"film.film.starring","o":"m.0kgb0ph","s_name":"The Godfather","literal":false},{"s":"m.0kgb0ph","p":"film.performance.actor","o":"m.0kgb0ag","o_name":"Al Pacino","literal":false},{"s":"m.0kgb0ph","p":"film.performance.character","o":"m.0kgb0iw","o_name":"Michael Corleone","literal":false},{"s":"m.0kgb0ag","p":"people.person.nationality","o":"m.0kgb001","s_name":"Al Pacino","o_name":"United States of America","literal":false}],"edit":{"kind":"none"},"seed":0,"cvt_nodes":["m.0kgb0ph"]}
{"id":"demo-008:supportive","source":{"dataset":"jsonl","qid":"demo-008","question":"when was inception released?"},"query":{"original":{"nodes":[{"id":"m.0kgb0h6","kind":"entity","value":"m.0kgb0h6","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0h6","predicate":"film.film.initial_release_date","target":"?x"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"m.0kgb0h6","kind":"entity","value":"m.0kgb0h6","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0h6","predicate":"film.film.initial_release_date","target":"?x"}],"answer":"?x","function":"none"}],"rule":"none","shape":"single","subjects":["m.0kgb0h6"]},"answer_entities":[{"value":"2010-07-16","datatype":"xsd:date"}],"answers_capped":false,"label":"supportive","complexity":"single","subgraph":[{"s":"m.0kgb0h6","p":"film.film.initial_release_date","o":"2010-07-16","s_name":"Inception","datatype":"xsd:date","literal":true}],"edit":{"kind":"none"},"seed":0}
"""


def _sample(doc: dict[str, Any]) -> StructuredSample:
    original = doc.setdefault("original_subgraph", doc["subgraph"])
    kept = [json.dumps(t, sort_keys=True) for t in doc["subgraph"]]
    doc["sub_facts"] = [{"triple": t, "supported": json.dumps(t, sort_keys=True) in kept}
                        for t in original]
    doc["supported_fraction"] = sum(f["supported"] for f in doc["sub_facts"]) / len(original)
    return StructuredSample.model_validate(doc)


SAMPLES = {s.id: s for s in (_sample(json.loads(line)) for line in _SAMPLES.strip().splitlines())}
SEQUEL = SAMPLES["demo-001:supportive"]           # concatenation: 2 hops, rule way 1
SEQUEL_CONTRA = SAMPLES["demo-001:contradictory"]  # same question, one hop replaced
CORLEONE = SAMPLES["demo-002:supportive"]         # a CVT (film performance) node
INCEPTION = SAMPLES["demo-008:supportive"]        # rule none, a date answer


@pytest.fixture
def template() -> TemplateVerbalizer:
    return TemplateVerbalizer()


def verbalizer(server: FakeChatServer, cache: Path, template: TemplateVerbalizer,
               **options: Any) -> LLMVerbalizer:
    return LLMVerbalizer(endpoint(server), cache, template, **options)


def test_one_request_per_part_and_the_llm_text_is_used(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    v = verbalizer(server, tmp_path, template)
    text = v.verbalize(SEQUEL)
    parts = citation_parts(SEQUEL)
    assert len(parts) == 2   # concatenation: one citation per hop
    assert len(server.received) == len(parts) + 2   # + question + answer statement
    assert v.name == text.backend == "llm:test-model"
    assert text.fallbacks == ()
    assert [c.triples for c in text.citations] == [tuple(p) for p in parts]
    assert text.citations[0].text == "The Godfather, has the sequel, The Godfather Part II."
    assert text.question_extended.endswith("?")
    assert "The Godfather Part II" in text.question_extended
    assert text.answer == "The answer is Francis Ford Coppola."
    # sub-fact sentences are the templates'
    assert text.sub_fact_texts == template.verbalize(SEQUEL).sub_fact_texts
    prompts = [r.body["messages"][0]["content"] for r in server.received]
    assert "(The Godfather, has the sequel, The Godfather Part II)" in prompts[0]
    assert prompts[0].endswith("Output only the passage.")
    assert f"Question: {text.question_extended}" in prompts[-1]


def test_samples_of_one_question_share_question_and_answer_requests(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    v = verbalizer(server, tmp_path, template)
    first = v.verbalize(SEQUEL)
    before = len(server.received)
    second = v.verbalize(SEQUEL_CONTRA)
    # only the citation of the replaced hop is new; its other hop, q̃ and ã are cached
    assert len(server.received) == before + 1
    assert second.question_extended == first.question_extended
    assert second.answer == first.answer
    assert "Ridley Scott" in " ".join(c.text for c in second.citations)


def test_rerun_makes_no_request(server: FakeChatServer, tmp_path: Path,
                                template: TemplateVerbalizer) -> None:
    first = [verbalizer(server, tmp_path, template).verbalize(s) for s in SAMPLES.values()]
    sent = len(server.received)
    rerun = verbalizer(server, tmp_path, template)
    assert [rerun.verbalize(s) for s in SAMPLES.values()] == first
    assert len(server.received) == sent
    assert rerun.client.stats.requests == 0 and rerun.client.stats.cache_hits > 0


def test_rule_none_keeps_the_question_and_a_date_answer_is_checked_by_year(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    text = verbalizer(server, tmp_path, template).verbalize(INCEPTION)
    assert len(server.received) == 2   # one citation + the answer statement
    assert text.question_extended == INCEPTION.source.question
    assert text.fallbacks == ()
    assert "2010" in text.answer and "2010" in text.citations[0].text


def test_cvt_nodes_become_records_never_ids(server: FakeChatServer, tmp_path: Path,
                                            template: TemplateVerbalizer) -> None:
    text = verbalizer(server, tmp_path, template).verbalize(CORLEONE)
    prompt = server.received[0].body["messages"][0]["content"]
    assert "[performance 1]" in prompt and "m.0kgb0ph" not in prompt
    assert "(The Godfather, " in prompt and ", Al Pacino)" in prompt
    assert text.fallbacks == ()
    assert "m.0kgb0ph" not in " ".join(c.text for c in text.citations)


def test_unusable_replies_fall_back_to_templates_and_are_flagged(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.reply = "I am sorry, I cannot help with that."
    text = verbalizer(server, tmp_path, template).verbalize(SEQUEL)
    expected = template.verbalize(SEQUEL)
    assert text.citations == expected.citations
    assert text.question_extended == expected.question_extended
    assert text.answer == expected.answer
    assert text.backend == "llm:test-model"
    assert [f.split(":")[0] for f in text.fallbacks] == [
        "citation 1", "citation 2", "question_extended", "answer"]
    assert "does not mention 'The Godfather'" in text.fallbacks[0]
    assert "no question mark" in text.fallbacks[2]


def test_garbage_bodies_fall_back_then_count_as_unavailable(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "garbage"
    v = verbalizer(server, tmp_path, template, max_bad_responses=6)
    text = v.verbalize(SEQUEL)
    assert len(text.fallbacks) == 4
    assert all("bad response" in f and "not JSON" in f for f in text.fallbacks)
    assert text.citations == template.verbalize(SEQUEL).citations
    with pytest.raises(LLMUnavailable, match="6 responses in a row were not chat completions"):
        v.verbalize(SEQUEL_CONTRA)
    assert ResponseCache(tmp_path).keys() == []   # nothing bad was cached


def test_endpoint_down_stops_with_a_clear_message_and_a_rerun_resumes(
        tmp_path: Path, template: TemplateVerbalizer) -> None:
    first = FakeChatServer()
    done = verbalizer(first, tmp_path, template).verbalize(SEQUEL)
    first.stop()
    down = LLMVerbalizer(endpoint(first, max_retries=1), tmp_path, template)
    with pytest.raises(LLMUnavailable) as caught:
        down.verbalize(CORLEONE)
    message = str(caught.value)
    assert first.url in message and "connection refused" in message
    assert str(tmp_path) in message and "run the same command again to resume" in message
    # the earlier sample is still answered from the cache while the server is down
    assert down.verbalize(SEQUEL) == done
    again = FakeChatServer()
    try:
        resumed = verbalizer(again, tmp_path, template)
        assert resumed.verbalize(SEQUEL) == done
        assert again.received == []
        assert resumed.verbalize(CORLEONE).fallbacks == ()
        assert len(again.received) == len(citation_parts(CORLEONE)) + 2
    finally:
        again.stop()


def test_on_error_fallback_keeps_going_and_pauses_the_dead_endpoint(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "500"
    v = LLMVerbalizer(endpoint(server, max_retries=1), tmp_path, template,
                      on_error="fallback", pause_s=60)
    text = v.verbalize(SEQUEL)
    assert text.citations == template.verbalize(SEQUEL).citations
    assert len(text.fallbacks) == 4
    assert all("LLM endpoint unavailable" in f for f in text.fallbacks)
    assert "HTTP 500" in text.fallbacks[0]
    assert len(server.received) == 2   # the first part tried twice, the rest skipped
    v.verbalize(CORLEONE)
    assert len(server.received) == 2


def test_configuration_errors_raise_even_with_fallback(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "401"
    v = verbalizer(server, tmp_path, template, on_error="fallback")
    with pytest.raises(LLMRejected, match="KGBENCH_LLM_API_KEY"):
        v.verbalize(SEQUEL)


def test_verbalizer_from_options(server: FakeChatServer, tmp_path: Path,
                                 template: TemplateVerbalizer) -> None:
    assert verbalizer_from_options(None, None, tmp_path, template) is template
    v = verbalizer_from_options(server.url, "test-model", tmp_path, template)
    assert isinstance(v, LLMVerbalizer) and v.name == "llm:test-model"
    assert v.endpoint.chat_url == server.url + "/chat/completions"
    with pytest.raises(LLMConfigError, match="needs --llm-model"):
        verbalizer_from_options(server.url, None, tmp_path, template)
    with pytest.raises(LLMConfigError, match="needs --llm-url"):
        verbalizer_from_options(None, "test-model", tmp_path, template)
    with pytest.raises(LLMConfigError, match="not an http"):
        verbalizer_from_options("localhost:8000", "m", tmp_path, template)
    with pytest.raises(ValueError, match="on_error"):
        LLMVerbalizer(endpoint(server), tmp_path, template, on_error="ignore")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Checking replies


def test_clean_reply_removes_wrapping() -> None:
    assert clean_reply("<think>hmm, names...</think>\n  Al Pacino acted.  ") == "Al Pacino acted."
    assert clean_reply('"Who directed it?"') == "Who directed it?"
    assert clean_reply("Question: Who directed it?") == "Who directed it?"
    assert clean_reply("```\nAl Pacino acted.\n```") == "Al Pacino acted."
    assert clean_reply("```text\nAl Pacino acted.\n```") == "Al Pacino acted."
    assert clean_reply("“Quoted.”") == "Quoted."


def test_check_citation() -> None:
    triples = list(CORLEONE.subgraph)
    good = ("The Godfather features a performance by Al Pacino as Michael Corleone; "
            "Al Pacino is a citizen of the United States of America.")
    assert check_citation(good, triples, CORLEONE.cvt_nodes, max_chars=500) is None
    assert check_citation(good.replace("Michael ", ""), triples, CORLEONE.cvt_nodes,
                          max_chars=500) == "does not mention 'Michael Corleone'"
    assert "placeholder [performance 1]" in (check_citation(
        good + " See [performance 1].", triples, CORLEONE.cvt_nodes, max_chars=500) or "")
    assert "2 lines" in (check_citation(good.replace("; ", "\n"), triples,
                                        CORLEONE.cvt_nodes, max_chars=500) or "")
    assert "over the limit of 50" in (check_citation(good, triples, CORLEONE.cvt_nodes,
                                                     max_chars=50) or "")
    assert check_citation(good, triples, CORLEONE.cvt_nodes, max_chars=500,
                          finish_reason="length") == "response cut off at max_tokens"
    # names match across case, curly quotes and digit grouping
    date = list(INCEPTION.subgraph)
    assert check_citation("INCEPTION came out on July 16, 2010.", date, (),
                          max_chars=500) is None
    assert check_citation("Inception came out in July.", date, (), max_chars=500) == \
        "does not mention '2010'"


def test_check_question_and_answer() -> None:
    assert check_question("Who directed the film whose sequel is The Godfather Part II?",
                          ["The Godfather Part II"], max_chars=300) is None
    assert "no question mark" in (check_question(
        "The Godfather Part II.", ["The Godfather Part II"], max_chars=300) or "")
    assert "variable ?v1" in (check_question(
        "Who directed ?v1, the prequel of The Godfather Part II?", ["The Godfather Part II"],
        max_chars=300) or "")
    answers = list(SEQUEL.answer_entities)
    assert check_answer("Francis Ford Coppola directed it.", answers, max_chars=300) is None
    assert check_answer("Who knows?", answers, max_chars=300) == \
        "is a question, not a statement"
    assert check_answer("Coppola directed it.", answers, max_chars=300) == \
        "does not mention 'Francis Ford Coppola'"
    assert length_limit("x" * 10) == MIN_LENGTH_LIMIT
    assert length_limit("x" * 1000) == 1000 * LENGTH_FACTOR
