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
from pathlib import Path
from typing import Any

import pytest

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
from tests.llm.chat_server import HOSTILE_ERROR, KEY, FakeChatServer, endpoint

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
    # Four threads at once through a 4/s limit: their slots are 0.25 s apart from the first
    # call. Connection latency, which a loaded machine stretches, can only make a request
    # arrive later than its slot, so only lower bounds are load-proof: the k-th request the
    # server sees cannot come before k slots have passed since the threads started. (A
    # bound on the gap between two arrivals is not: one late request shrinks the next gap;
    # CI saw 0.086 s.)
    client = ChatClient(endpoint(server, requests_per_second=4.0))
    threads = [threading.Thread(target=client.complete,
                                args=([ChatMessage("user", f"(A{i}, r, B)")],))
               for i in range(4)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times = sorted(r.at for r in server.received)
    assert len(times) == 4
    for k, at in enumerate(times):
        assert at - started >= k * 0.25 - 0.01, (k, at - started)


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


# ---------------------------------------------------------------------------
# Checking replies


