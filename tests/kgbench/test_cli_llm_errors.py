"""``kgbench generate`` against an LLM endpoint that fails, end to end (the real CLI in a
subprocess, the demo store, a real local HTTP server).

An endpoint that refuses every request (HTTP 400) stops the run with the server's
status and message on one line, unless ``--llm-fallback`` is given, when the templates
write the text and the samples that needed them are counted. A server dripping a byte
every half second is cut at ``--llm-timeout``, not held for minutes. The API key, which
the hostile server echoes in its error, is printed and written nowhere.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kgbench.test_cli import assert_clean_error, run
from tests.llm.chat_server import FakeChatServer

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"
KEY = "sk-cli-7d2a90"
ERROR = {"error": {"message": f"prompt rejected\x1b[31m by policy (key {KEY})",
                   "type": "invalid_request_error"}}



@pytest.fixture
def refusing() -> Iterator[FakeChatServer]:
    server = FakeChatServer()
    server.always = "400"
    server.error_body = json.dumps(ERROR).encode()
    yield server
    server.stop()


def generate(store: Path, out: Path, server: FakeChatServer, tmp_path: Path, *args: str
             ) -> subprocess.CompletedProcess[str]:
    proc = run("generate", "--store", store, "--out", out, "--questions", QUESTIONS,
               "--no-report", "--llm-url", server.url, "--llm-model", "m",
               "--llm-cache", tmp_path / "cache", *args,
               env={"KGBENCH_LLM_API_KEY": KEY}, timeout=300)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def assert_key_written_nowhere(*folders: Path) -> None:
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("workers", ["1", "2"])
def test_endpoint_refusing_every_request_stops_with_its_error(
        demo_store: Path, refusing: FakeChatServer, tmp_path: Path, workers: str) -> None:
    out = tmp_path / "bench"
    proc = generate(demo_store, out, refusing, tmp_path, "--workers", workers)
    assert_clean_error(proc)
    stdout, stderr = proc.stdout, proc.stderr
    assert "HTTP 400" in stderr and "prompt rejected" in stderr
    assert refusing.url in stderr and "--llm-fallback" in stderr
    assert "\x1b" not in stderr and "\\x1b[31m" in stderr   # shown, not obeyed
    assert KEY not in stdout + stderr
    assert not (out / "samples.jsonl").exists()
    assert refusing.received   # the requests did carry the key, to this server only
    assert refusing.received[0].headers["Authorization"] == f"Bearer {KEY}"
    assert_key_written_nowhere(out, tmp_path / "cache")


def test_endpoint_refusing_every_request_with_fallback_uses_and_counts_templates(
        demo_store: Path, refusing: FakeChatServer, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    proc = generate(demo_store, out, refusing, tmp_path, "--llm-fallback")
    stdout, stderr = proc.stdout, proc.stderr
    assert proc.returncode == 0, stderr
    made = [json.loads(line) for line in (out / "samples.jsonl").read_text("utf-8").splitlines()]
    assert made and all(s["verbalizer"] == "llm:m" for s in made)
    # every part asked of the endpoint fell back (a contradiction's "only" citation is
    # the template's without asking: its own fallback note)
    assert all(s["fallbacks"] and all("request refused" in f and "HTTP 400" in f
                                      for f in s["fallbacks"]
                                      if not f.endswith("states a slot's only values"))
               for s in made)
    stats = json.loads((out / "stats.json").read_text("utf-8"))
    assert stats["llm_fallback_samples"] == len(made) == stats["samples"]
    assert f"{len(made):,} samples have template text" in stderr
    assert KEY not in stdout + stderr
    assert_key_written_nowhere(out, tmp_path / "cache")


def test_slow_drip_endpoint_is_cut_at_the_timeout(demo_store: Path, tmp_path: Path) -> None:
    # The report: `--llm-timeout 3` against a server sending a byte a second took
    # 61 s; with a deadline per attempt, the default 5 retries and their backoff still
    # made it 6 x 3 + 31 = 49 s. Now the whole request, retries included, has the
    # deadline: 3 s, plus the CLI's own start.
    server = FakeChatServer()
    server.always = "drip-body"
    try:
        started = time.monotonic()
        proc = generate(demo_store, tmp_path / "bench", server, tmp_path,
                        "--llm-timeout", "3")
        elapsed = time.monotonic() - started
    finally:
        server.stop()
    assert_clean_error(proc)
    assert elapsed < 20, elapsed
    assert "within the 3s timeout" in proc.stderr and "--llm-timeout" in proc.stderr
    assert len(server.received) == 1
