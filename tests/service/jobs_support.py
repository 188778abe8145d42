"""What the job tests share: the demo job's parameters, a data directory to run jobs
in, and helpers that submit a job, wait for a state by polling, and read a job's
server-sent events."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from kgbench.demo.tour import DEMO_QUESTIONS, DEMO_SEED, DEMO_TEST_FRACTION

DEMO_JOB: dict[str, Any] = {
    "questions": "questions/demo.jsonl", "format": "jsonl", "strict": True,
    "seed": DEMO_SEED, "test_fraction": DEMO_TEST_FRACTION}
"""The generate job equivalent to :func:`kgbench.demo.tour.generate_demo_benchmark`."""

LONG_JOB: dict[str, Any] = {"domain": "film.", "n": 150, "chunk_size": 2, "seed": 3}
"""A generate job of 75 chunks (a few seconds): long enough to stop in the middle."""
LONG_JOB_ARGS = ["--domain", "film.", "--n", "150", "--chunk-size", "2", "--seed", "3"]
"""The same run as ``kgbench generate`` options."""


def job_data_dir(path: Path) -> Path:
    """A fresh data directory holding the demo questions at ``questions/demo.jsonl``."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "questions").mkdir(exist_ok=True)
    shutil.copyfile(DEMO_QUESTIONS, path / "questions" / "demo.jsonl")
    return path


def many_questions(path: Path, n: int) -> Path:
    """``n`` demo questions (repeated, with ids of their own) in one JSONL file."""
    lines = DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines()
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            record = json.loads(lines[i % len(lines)])
            record["id"] = f"q{i:06d}"
            out.write(json.dumps(record) + "\n")
    return path


def submit(client: httpx.Client, kind: str, params: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/jobs", json={"kind": kind, "params": params})
    assert response.status_code == 202, response.text
    job: dict[str, Any] = response.json()
    return job


def wait_for(client: httpx.Client, job_id: str, done: Callable[[dict[str, Any]], bool],
             timeout_s: float = 60.0) -> dict[str, Any]:
    """Poll the job until ``done(job)``; fail after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}").json()
        if done(job):
            return job
        if job.get("state") in ("succeeded", "failed", "cancelled") and not done(job):
            raise AssertionError(f"job ended {job['state']} before the awaited state: {job}")
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not get there in {timeout_s} s: {job}")


def finished(job: dict[str, Any]) -> bool:
    return job.get("state") in ("succeeded", "failed", "cancelled")


def in_progress(job: dict[str, Any]) -> bool:
    """Running, with some but not all of its work done."""
    progress = job.get("progress") or {}
    return (job.get("state") == "running" and progress.get("done", 0) > 0
            and progress.get("total") is not None and progress["done"] < progress["total"])


def read_events(client: httpx.Client, job_id: str, timeout_s: float = 60.0
                ) -> list[tuple[str, dict[str, Any]]]:
    """The job's server-sent events up to ``event: end``: ``(event, job)`` pairs."""
    events: list[tuple[str, dict[str, Any]]] = []
    with client.stream("GET", f"/api/jobs/{job_id}/events", timeout=timeout_s) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        event = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((event, json.loads(line.removeprefix("data: "))))
                if event == "end":
                    break
    return events


def assert_one_line_error(response: httpx.Response, *statuses: int) -> dict[str, Any]:
    """A JSON error of one of ``statuses``: one line of message, no traceback."""
    assert response.status_code in statuses, (response.status_code, response.text)
    body = response.json()
    error = body["error"]
    assert error["status"] == response.status_code
    assert error["message"] and "\n" not in error["message"], error
    assert "Traceback" not in response.text
    return dict(error)
