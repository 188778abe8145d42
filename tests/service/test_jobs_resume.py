"""Jobs that stop before their end: a generate job cancelled in the middle, resumed,
and interrupted again by a server stopped with Ctrl-C and started again; a server killed (SIGKILL) under a running generate job and a running parse job,
then started again. The generate job continues from its finished chunks and writes
the same bytes as one uninterrupted ``kgbench generate``; the parse job (which does
not resume) starts again from scratch, its partial output removed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.kgbench.test_cli import run
from tests.service.conftest import StartServer
from tests.service.jobs_support import (
    LONG_JOB,
    LONG_JOB_ARGS,
    finished,
    in_progress,
    job_data_dir,
    many_questions,
    submit,
    wait_for,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def uninterrupted(demo_store_path: str, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """``samples.jsonl`` of the long job's run by the command line, uninterrupted."""
    out = tmp_path_factory.mktemp("uninterrupted") / "bench"
    proc = run("generate", "--store", demo_store_path, *LONG_JOB_ARGS, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return (out / "samples.jsonl").read_bytes()


def _work_chunks(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if p.is_file() and "chunk" in p.name]


def test_a_generate_job_cancelled_resumed_and_restarted_writes_the_same_bytes(
        demo_store_path: str, tmp_path: Path, start_server: StartServer,
        uninterrupted: bytes) -> None:
    server = start_server(demo_store_path, job_data_dir(tmp_path / "data"))
    with server.client() as client:
        job = submit(client, "generate", LONG_JOB)
        wait_for(client, job["id"], in_progress)
        cancelled = client.post(f"/api/jobs/{job['id']}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["state"] == "cancelled"
        out = server.data_dir / cancelled.json()["out"]
        assert not (out / "samples.jsonl").exists()
        assert _work_chunks(out), "the finished chunks are kept"
        resumed = client.post(f"/api/jobs/{job['id']}/resume")
        assert resumed.status_code == 200 and resumed.json()["state"] == "queued"
        wait_for(client, job["id"], lambda j: in_progress(j) and j["attempts"] == 2)
    server.restart()   # Ctrl-C: the running job is interrupted, and resumed on start
    with server.client() as client:
        final = wait_for(client, job["id"], finished)
    assert final["state"] == "succeeded", final
    assert final["attempts"] == 3 and final["result"]["resumed_chunks"] > 0
    assert (out / "samples.jsonl").read_bytes() == uninterrupted


def _children_gone(pids: list[int], timeout_s: float = 15.0) -> None:
    """Wait until the job processes of a killed server have exited."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()
                 and "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()]
        if not alive:
            return
        time.sleep(0.05)
    raise AssertionError(f"job processes {alive} outlived their server")


def test_a_killed_server_resumes_generate_and_restarts_parse(
        demo_store_path: str, tmp_path: Path, start_server: StartServer,
        uninterrupted: bytes) -> None:
    data = job_data_dir(tmp_path / "data")
    # Enough questions that the parse is still running when the generate job has
    # started too (4,000 parsed in 1 s on a quiet machine, before the kill: CI flake)
    many_questions(data / "questions" / "many.jsonl", 20_000)
    server = start_server(demo_store_path, data, extra_args=("--max-jobs", "2"))
    with server.client() as client:
        generate = submit(client, "generate", LONG_JOB)
        parse = submit(client, "parse", {"file": "questions/many.jsonl"})
        wait_for(client, generate["id"], in_progress)
        running = wait_for(client, parse["id"], lambda j: j["state"] == "running"
                           and j["progress"]["done"] > 0)
        pids = [_pid(data, generate["id"]), _pid(data, parse["id"])]
    leftover = data / running["out"] / "leftover-of-the-first-attempt"
    leftover.write_text("x")
    assert server.process is not None
    server.process.send_signal(signal.SIGKILL)
    server.process.wait()
    server.process = None
    _children_gone(pids)
    server.start()
    with server.client() as client:
        jobs: dict[str, dict[str, Any]] = {
            job_id: wait_for(client, job_id, finished)
            for job_id in (generate["id"], parse["id"])}
    gen, par = jobs[generate["id"]], jobs[parse["id"]]
    assert gen["state"] == "succeeded" and gen["attempts"] == 2, gen
    assert gen["result"]["resumed_chunks"] > 0
    assert (data / gen["out"] / "samples.jsonl").read_bytes() == uninterrupted
    assert par["state"] == "succeeded" and par["attempts"] == 2, par
    assert par["result"]["questions"] == 20_000
    assert not leftover.exists()
    assert (data / par["out"] / "parsed.jsonl").read_text().count("\n") == 20_000


def _pid(data: Path, job_id: str) -> int:
    import json

    pid = json.loads((data / "jobs" / job_id / "job.json").read_text())["pid"]
    assert isinstance(pid, int) and pid > 0 and os.path.exists(f"/proc/{pid}")
    return pid
