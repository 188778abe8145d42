"""The server's guard against a real ``kgbench serve``: the token rules (loopback and
public binds), the login cookie, request size limits (declared and chunked), no CORS,
security headers, DNS-rebinding and cross-site refusals, and one JSON line (never a
traceback) for every error."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service.conftest import TOKEN, Server, StartServer

SECURITY_HEADERS = ("x-content-type-options", "x-frame-options", "content-security-policy",
                    "referrer-policy")


def error_of(reply: httpx.Response, status: int) -> str:
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert body["error"]["status"] == status and "Traceback" not in reply.text
    message: str = body["error"]["message"]
    return message


def test_loopback_with_token_reads_open_writes_need_it(token_server: Server) -> None:
    with token_server.client() as anon:
        assert anon.get("/api/stats").status_code == 200
        assert anon.post("/api/cypher", json={"query": "RETURN 1 AS x"}).status_code == 200
        assert anon.get("/api/health").json()["auth"] is True
        # Any request that is not a read needs the token, whether or not a route exists
        # for it yet: jobs, uploads, deletes.
        for method, path in (("POST", "/api/jobs"), ("DELETE", "/api/jobs/x"),
                             ("PUT", "/api/anything"), ("POST", "/api/stats")):
            reply = anon.request(method, path, json={})
            assert "token" in error_of(reply, 401)
            assert reply.headers["www-authenticate"] == "Bearer"
    with token_server.client(token=TOKEN) as authed:
        assert authed.post("/api/jobs", json={}).status_code != 401
    with token_server.client(token=TOKEN[:-1] + "X") as wrong:   # same length, one off
        error_of(wrong.post("/api/jobs", json={}), 401)


def test_session_cookie_stands_for_the_token(token_server: Server) -> None:
    with token_server.client() as browser:
        assert "wrong" in error_of(browser.post("/api/session", json={"token": "nope"}), 401)
        reply = browser.post("/api/session", json={"token": TOKEN})
        assert reply.status_code == 200 and reply.json() == {"auth": True, "logged_in": True}
        cookie = reply.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert browser.post("/api/jobs", json={}).status_code != 401   # the cookie counts
        assert browser.delete("/api/session").json()["logged_in"] is False
        error_of(browser.post("/api/jobs", json={}), 401)


def test_public_bind_needs_the_token_for_everything(start_server: StartServer,
                                                    demo_store_path: str,
                                                    tmp_path: Path) -> None:
    server = start_server(demo_store_path, tmp_path, token=TOKEN, host="0.0.0.0")
    with server.client() as anon:
        for path in ("/api/stats", "/api/health", "/api/openapi.json", "/api/search?prefix=a"):
            error_of(anon.get(path), 401)
        error_of(anon.post("/api/cypher", json={"query": "RETURN 1"}), 401)
        page = anon.get("/", headers={"accept": "text/html"})
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
        assert anon.get("/login").status_code != 401   # the login page is public
        assert anon.post("/api/session", json={"token": TOKEN}).status_code == 200
        assert anon.get("/api/stats").status_code == 200   # logged in by cookie now
    with server.client(token=TOKEN) as authed:
        assert authed.get("/api/stats").status_code == 200
        assert authed.get("/api/health").json()["auth"] is True


def test_oversized_bodies_are_refused(api: httpx.Client) -> None:
    big = "x" * (1_048_576 + 10)
    reply = api.post("/api/cypher", content=f'{{"query": "{big}"}}',
                     headers={"content-type": "application/json"})
    assert "limit" in error_of(reply, 413)

    def chunks() -> Iterator[bytes]:   # no Content-Length: Transfer-Encoding: chunked
        yield b'{"query": "'
        for _ in range(300):
            yield b"y" * 4096
        yield b'"}'

    reply = api.post("/api/cypher", content=chunks(), headers={"content-type": "application/json"})
    assert reply.request.headers.get("transfer-encoding") == "chunked"
    error_of(reply, 413)
    small = api.post("/api/cypher", content=b'{"query": "RETURN 1 AS x"}',
                     headers={"content-type": "application/json"})
    assert small.status_code == 200


def test_no_cors_and_security_headers(api: httpx.Client) -> None:
    evil = {"origin": "https://evil.example", "access-control-request-method": "POST"}
    for reply in (api.options("/api/cypher", headers=evil),
                  api.get("/api/stats", headers={"origin": "https://evil.example"})):
        assert not [h for h in reply.headers if h.lower().startswith("access-control-")]
    reply = api.get("/api/stats")
    for header in SECURITY_HEADERS:
        assert header in reply.headers
    assert "default-src 'self'" in reply.headers["content-security-policy"]
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert "server" not in reply.headers


def test_dns_rebinding_and_cross_site_writes_are_refused(api: httpx.Client) -> None:
    error_of(api.get("/api/stats", headers={"host": "evil.example"}), 421)
    reply = api.post("/api/jobs", json={}, headers={"origin": "https://evil.example"})
    assert "cross-site" in error_of(reply, 403)
    same = api.post("/api/cypher", json={"query": "RETURN 1 AS x"},
                    headers={"origin": str(api.base_url).rstrip("/")})
    assert same.status_code == 200


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/api/nothing", 404),
    ("DELETE", "/api/stats", 405),
    ("GET", "/api/entity", 422),
    ("GET", "/api/neighborhood?id=m.0kgb0gs&hops=x", 422),
    ("POST", "/api/cypher", 422),
])
def test_errors_are_one_json_line(api: httpx.Client, method: str, path: str,
                                  status: int) -> None:
    reply = api.request(method, path, content=b"{not json" if method == "POST" else None,
                        headers={"content-type": "application/json"})
    assert reply.headers["content-type"] == "application/json"
    message = error_of(reply, status)
    assert message and "\n" not in message


def test_entity_ids_are_data_not_code(api: httpx.Client) -> None:
    for hostile in ("m.0kgb0gs' OR 1=1 //", "x\") RETURN 1 //", "$id", "\\u0000", "../../etc"):
        reply = api.get("/api/entity", params={"id": hostile})
        assert error_of(reply, 404).startswith("no entity")


def test_an_error_never_echoes_a_huge_request(api: httpx.Client) -> None:
    """A message that quotes the request is cut (a 60 kB job id came back whole)."""
    reply = api.get("/api/jobs/" + "A" * 60_000 + "/files")
    assert 400 <= reply.status_code < 500 and len(reply.content) < 2_000, reply.status_code
    assert len(reply.json()["error"]["message"]) <= 502


@pytest.mark.parametrize(("body", "content_type", "status", "says"), [
    (b'{"query": "MATCH', "application/json", 422, "not valid JSON at character"),
    (b'{"query": "RETURN \xff"}', "application/json", 400, "could not be read as JSON"),
    (b'"MATCH (e) RETURN e"', "application/json", 422, "must be a JSON object"),
    (b'{"query": "MATCH (e:Entity) RETURN e.id LIMIT 1"}', "text/plain", 422,
     "must be a JSON object"),
])
def test_a_body_that_is_not_a_json_object_says_how_to_send_one(
        api: httpx.Client, body: bytes, content_type: str, status: int, says: str) -> None:
    reply = api.post("/api/cypher", content=body, headers={"content-type": content_type})
    assert says in error_of(reply, status)
    assert "application/json" in reply.json()["error"]["hint"]


def test_abandoned_reads_give_their_handles_back(start_server: StartServer,
                                                 demo_store_path: str, tmp_path: Path) -> None:
    """A read that runs past --query-timeout is answered 504 and, on the one store
    handle, a cheap lookup right after it is answered. (That the engine itself stops
    at the deadline is shown by tests/kgstore/test_deadline.py: this small product
    also ends soon without it, so here it is the server's wiring that is checked.)"""
    (tmp_path / "data").mkdir()
    server = start_server(demo_store_path, tmp_path / "data",
                          extra_args=("--query-timeout", "1", "--readers", "1"))
    cartesian = {"patterns": [{"subject": f"?s{i}", "predicate": f"?p{i}", "object": f"?o{i}"}
                              for i in range(2)], "limit": 10}
    with server.client() as client:
        # Two unconnected all-variable patterns: a product of the facts, stopped at the
        # limit (504), or refused by the engine if it outgrows the buffer pool first
        # (400 "Unable to allocate memory": seen on a loaded machine).
        reply = client.post("/api/match", json=cartesian)
        assert reply.status_code in (400, 504), reply.text
        started = time.monotonic()
        reply = client.get("/api/entity", params={"id": "m.0kgb0gs"})
        assert reply.status_code == 200 and time.monotonic() - started < 2.5
