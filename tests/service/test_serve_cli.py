"""``kgbench serve`` as a command: it starts and answers, and refuses bad options in
one line without starting."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.service.conftest import ROOT, Server, free_port, server_env


def run_serve(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kgbench.cli", "serve", *args],
                          capture_output=True, text=True, timeout=timeout, env=server_env(),
                          cwd=str(ROOT))


def error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("Error:")]


def test_health_answers(api: httpx.Client, demo_server: Server) -> None:
    reply = api.get("/api/health")
    assert reply.status_code == 200
    assert reply.json() == {"status": "ok", "backend": "ladybug", "version": reply.json()["version"],
                            "auth": False}
    assert "Traceback" not in demo_server.log()


def test_the_server_runs_on_httptools_and_uvloop(demo_server: Server) -> None:
    """uvicorn's pure-Python HTTP parser and asyncio's own loop cost more per request
    than an entity page's store reads: the server runs the C ones (their extension
    modules are mapped into its process)."""
    assert demo_server.process is not None
    maps = Path(f"/proc/{demo_server.process.pid}/maps").read_text(encoding="utf-8")
    extensions = {line.split()[-1] for line in maps.splitlines() if line.endswith(".so")}
    for package in ("httptools", "uvloop"):
        assert any(f"/{package}/" in path for path in extensions), package


@pytest.mark.parametrize("request_bytes", [
    b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
    b"GET /api/paths?source=a&target=b&x=" + b"a" * 70_000 + b" HTTP/1.1\r\n"
    b"Host: 127.0.0.1\r\n\r\n",
], ids=["malformed", "url-over-64k"])
def test_a_request_the_parser_refuses_gets_the_api_error_shape(
        demo_server: Server, request_bytes: bytes) -> None:
    """uvicorn answers a request its HTTP parser refuses itself, before the app: in
    plain text, without the security headers. The server's protocol answers it as
    every other error (httptools refuses a URL over 64 KiB, which h11 passed on)."""
    with socket.create_connection(("127.0.0.1", demo_server.port), timeout=10) as conn:
        conn.sendall(request_bytes)
        answer = b""
        while chunk := conn.recv(65536):   # the server closes the connection
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    assert lines[0] == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff"
    assert "default-src 'self'" in headers["content-security-policy"]
    error = json.loads(body)["error"]
    assert error["status"] == 400 and "not valid HTTP" in error["message"] and error["hint"]
    assert int(headers["content-length"]) == len(body)


def test_public_host_without_token_is_refused(demo_store_path: str, tmp_path: Path) -> None:
    proc = run_serve("--store", demo_store_path, "--data", str(tmp_path), "--host", "0.0.0.0",
                     "--port", str(free_port()))
    assert proc.returncode == 2
    assert len(error_lines(proc)) == 1
    assert "--token" in error_lines(proc)[0]
    assert "Traceback" not in proc.stderr


def test_missing_data_dir_is_one_line(demo_store_path: str, tmp_path: Path) -> None:
    proc = run_serve("--store", demo_store_path, "--data", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert "no such directory" in proc.stderr and "Traceback" not in proc.stderr


def test_missing_store_is_one_line(tmp_path: Path) -> None:
    proc = run_serve("--store", str(tmp_path / "nostore"), "--data", str(tmp_path),
                     "--port", str(free_port()))
    assert proc.returncode == 1
    assert "no kgbench store" in error_lines(proc)[0]
    assert "Traceback" not in proc.stderr


def test_busy_port_is_one_line(demo_server: Server, demo_store_path: str, tmp_path: Path) -> None:
    proc = run_serve("--store", demo_store_path, "--data", str(tmp_path), "--port",
                     str(demo_server.port))
    assert proc.returncode == 1
    assert "in use" in error_lines(proc)[0]


def test_help_teaches_with_an_example() -> None:
    proc = run_serve("--help")
    assert proc.returncode == 0
    assert "Example: kgbench serve --store" in proc.stdout
    assert "--token" in proc.stdout and "KGBENCH_TOKEN" in proc.stdout
