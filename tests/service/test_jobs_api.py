"""Jobs over HTTP against a real ``kgbench serve`` on the demo store: a generate job
that finishes (progress seen by polling and by server-sent events, the samples the
same bytes as ``kgbench generate``'s, downloadable), and every way a request can be
wrong: paths that leave ``--data``, unknown kinds and fields, values out of bounds,
and the token."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.conftest import TOKEN, Server, _launch
from tests.service.jobs_support import (
    DEMO_JOB,
    LONG_JOB,
    assert_one_line_error,
    finished,
    job_data_dir,
    read_events,
    submit,
    wait_for,
)


@pytest.fixture(scope="module")
def job_server(demo_store_path: str, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[Server]:
    """A server with a data directory of its own: the demo questions, a file outside
    it and a symlink pointing there, and an existing directory."""
    root = tmp_path_factory.mktemp("jobs-api")
    data = job_data_dir(root / "data")
    (root / "secret.jsonl").write_text('{"id": "x"}\n')
    os.symlink(root / "secret.jsonl", data / "questions" / "escape.jsonl")
    os.symlink(root, data / "outside")
    (data / "taken").mkdir()
    server = _launch(demo_store_path, data, None, "127.0.0.1", ())
    yield server
    server.stop()


@pytest.fixture
def client(job_server: Server) -> Iterator[httpx.Client]:
    with job_server.client() as c:
        yield c


@pytest.fixture(scope="module")
def demo_job(job_server: Server) -> dict[str, Any]:
    """The demo generate job, run to its end, with what polling and the event stream
    saw of it."""
    seen: list[dict[str, Any]] = []
    with job_server.client() as c:
        job = submit(c, "generate", DEMO_JOB)
        stop = threading.Event()

        def poll() -> None:
            with job_server.client() as poller:
                while not stop.is_set():
                    seen.append(poller.get(f"/api/jobs/{job['id']}").json())
                    if finished(seen[-1]):
                        return
                    stop.wait(0.05)

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            events = read_events(c, job["id"])
        finally:
            poller.join(timeout=60)
            stop.set()
        final = wait_for(c, job["id"], finished)
    return {"submitted": job, "events": events, "polled": seen, "final": final}


def test_a_generate_job_writes_the_benchmark_of_the_command(
        demo_job: dict[str, Any], demo_data_dir: Path, job_server: Server) -> None:
    final = demo_job["final"]
    assert final["state"] == "succeeded", final
    assert final["attempts"] == 1 and final["error"] is None
    assert final["out"] == f"jobs/{final['id']}/out"
    samples = (job_server.data_dir / final["out"] / "samples.jsonl").read_bytes()
    assert samples == (demo_data_dir / "benchmarks" / "demo" / "samples.jsonl").read_bytes()
    assert final["result"]["samples"] == samples.count(b"\n") > 0
    assert final["progress"]["done"] == final["progress"]["total"] == 15


def test_progress_is_seen_by_polling_and_by_events(demo_job: dict[str, Any]) -> None:
    events = demo_job["events"]
    assert events[-1][0] == "end" and events[-1][1]["state"] == "succeeded"
    progress = [job for event, job in events if event == "progress"]
    assert progress and {job["state"] for job in progress} <= {"queued", "running"}
    assert any(job["state"] == "running" for job in progress)
    states = [job["state"] for job in demo_job["polled"]]
    assert "running" in states and states[-1] == "succeeded"
    assert any(job["progress"]["done"] > 0 for job in demo_job["polled"])


def test_jobs_are_listed_newest_first(client: httpx.Client, demo_job: dict[str, Any]) -> None:
    listed = client.get("/api/jobs").json()["jobs"]
    assert demo_job["final"]["id"] in [job["id"] for job in listed]
    created = [job["created"] for job in listed]
    assert created == sorted(created, reverse=True)


def test_output_files_are_listed_and_downloaded(client: httpx.Client, demo_job: dict[str, Any],
                                                job_server: Server) -> None:
    job_id = demo_job["final"]["id"]
    listing = client.get(f"/api/jobs/{job_id}/files").json()
    names = {entry["path"] for entry in listing["files"]}
    assert {"samples.jsonl", "stats.json", "report.html"} <= names
    reply = client.get(f"/api/jobs/{job_id}/files/samples.jsonl")
    assert reply.status_code == 200
    assert reply.content == (job_server.data_dir / listing["out"] / "samples.jsonl").read_bytes()


@pytest.mark.parametrize("path", [
    "..%2Fjob.json", "%2e%2e/job.json", "%252e%252e%252fjob.json", "..%5cjob.json",
    "%2Fetc%2Fpasswd", "nope.txt"])
def test_a_download_never_leaves_the_job_output(client: httpx.Client, demo_job: dict[str, Any],
                                                path: str) -> None:
    job_id = demo_job["final"]["id"]
    reply = client.get(f"/api/jobs/{job_id}/files/{path}")
    assert_one_line_error(reply, 400, 404)
    assert "job.json" not in reply.text or "refused" in reply.text


def test_unknown_job_is_404(client: httpx.Client) -> None:
    for path in ("/api/jobs/nosuchjob1", "/api/jobs/..%2F..%2Fetc/files",
                 "/api/jobs/nosuchjob1/events"):
        assert_one_line_error(client.get(path), 404)
    assert_one_line_error(client.post("/api/jobs/nosuchjob1/cancel"), 404)


BAD_REQUESTS: list[tuple[str, dict[str, Any], tuple[int, ...], str]] = [
    ("parent path", {"kind": "generate", "params": {"questions": "../x.jsonl"}}, (400,), ".."),
    ("absolute path", {"kind": "generate", "params": {"questions": "/etc/passwd"}}, (400,),
     "absolute"),
    ("encoded dots", {"kind": "parse", "params": {"file": "%2e%2e/secret.jsonl"}}, (400,), ""),
    ("symlink out", {"kind": "generate", "params": {"questions": "questions/escape.jsonl"}},
     (400,), "outside"),
    ("symlinked dir out", {"kind": "parse", "params": {"file": "outside/secret.jsonl"}},
     (400,), "outside"),
    ("missing input", {"kind": "parse", "params": {"file": "questions/none.jsonl"}}, (404,), ""),
    ("out escapes", {"kind": "generate", "params": {**DEMO_JOB, "out": "../bench"}}, (400,), ".."),
    ("out exists", {"kind": "generate", "params": {**DEMO_JOB, "out": "taken"}}, (409,),
     "exists"),
    ("out in the job records", {"kind": "generate", "params": {**DEMO_JOB, "out": "jobs/x"}},
     (400,), "job records"),
    ("unknown kind", {"kind": "rm -rf", "params": {}}, (422,), "kind"),
    ("no kind", {"params": {}}, (422,), "kind"),
    ("extra param", {"kind": "generate", "params": {**DEMO_JOB, "force": True}}, (422,),
     "force"),
    ("extra field", {"kind": "generate", "params": DEMO_JOB, "argv": ["--x"]}, (422,), "argv"),
    ("n too small", {"kind": "generate", "params": {"domain": "film.", "n": 0}}, (422,), "n"),
    ("too many workers", {"kind": "generate", "params": {**DEMO_JOB, "workers": 999}}, (422,),
     "workers"),
    ("negative seed", {"kind": "generate", "params": {**DEMO_JOB, "seed": -1}}, (422,), "seed"),
    ("both sources", {"kind": "generate", "params": {**DEMO_JOB, "domain": "film."}}, (422,),
     "either"),
    ("file url", {"kind": "generate", "params": {**DEMO_JOB, "llm_url": "file:///etc/passwd",
                                                 "llm_model": "m"}}, (422,), "http"),
    ("url without model", {"kind": "generate",
                           "params": {**DEMO_JOB, "llm_url": "http://127.0.0.1:9/v1"}},
     (422,), "llm_model"),
    ("nan fraction", {"kind": "generate", "params": {**DEMO_JOB, "test_fraction": 2}}, (422,),
     "test_fraction"),
    ("score without model", {"kind": "score", "params": {"bench": "questions"}}, (422,),
     "nothing to score"),
    ("params not an object", {"kind": "parse", "params": "questions/demo.jsonl"}, (422,), ""),
]


@pytest.mark.parametrize(("name", "body", "statuses", "words"), BAD_REQUESTS,
                         ids=[b[0] for b in BAD_REQUESTS])
def test_bad_job_requests_are_one_line_4xx(client: httpx.Client, job_server: Server, name: str,
                                           body: dict[str, Any], statuses: tuple[int, ...],
                                           words: str) -> None:
    before = set(os.listdir(job_server.data_dir / "jobs"))
    error = assert_one_line_error(client.post("/api/jobs", json=body), *statuses)
    assert words in error["message"], error
    assert set(os.listdir(job_server.data_dir / "jobs")) == before   # nothing queued


def test_a_queued_job_is_cancelled_at_once(client: httpx.Client) -> None:
    running = submit(client, "generate", LONG_JOB)
    queued = submit(client, "parse", {"file": "questions/demo.jsonl"})
    reply = client.post(f"/api/jobs/{queued['id']}/cancel")
    assert reply.status_code == 200, reply.text
    assert reply.json()["state"] == "cancelled" and reply.json()["attempts"] == 0
    stopped = client.post(f"/api/jobs/{running['id']}/cancel").json()
    assert stopped["state"] == "cancelled"
    assert client.get(f"/api/jobs/{queued['id']}").json()["state"] == "cancelled"


def test_a_finished_job_is_neither_cancelled_nor_resumed(client: httpx.Client,
                                                         demo_job: dict[str, Any]) -> None:
    job_id = demo_job["final"]["id"]
    assert "succeeded" in assert_one_line_error(
        client.post(f"/api/jobs/{job_id}/cancel"), 409)["message"]
    assert_one_line_error(client.post(f"/api/jobs/{job_id}/resume"), 409)


def test_a_parse_job_does_not_resume(client: httpx.Client, job_server: Server) -> None:
    job = wait_for(client, submit(client, "parse", {"file": "questions/demo.jsonl"})["id"],
                   finished)
    assert job["state"] == "succeeded", job
    assert job["resumable"] is False and job["result"]["questions"] == 15
    assert (job_server.data_dir / job["out"] / "parsed.jsonl").read_text().count("\n") == 15
    assert "do not resume" in assert_one_line_error(
        client.post(f"/api/jobs/{job['id']}/resume"), 409)["message"]


def test_a_failing_job_says_why_in_one_line(client: httpx.Client, job_server: Server) -> None:
    (job_server.data_dir / "questions" / "broken.jsonl").write_text("not json\n")
    job = wait_for(client, submit(client, "parse", {"file": "questions/broken.jsonl",
                                                    "strict": True})["id"], finished)
    assert job["state"] == "failed"
    assert job["error"] and "\n" not in job["error"] and "Traceback" not in job["error"]
    assert "broken.jsonl" in job["error"]


def test_jobs_need_the_token_when_one_is_set(token_server: Server) -> None:
    server = token_server
    body: dict[str, Any] = {"kind": "generate", "params": LONG_JOB}
    with server.client() as anonymous, server.client(token="wrong") as wrong, \
            server.client(token=TOKEN) as owner:
        for c in (anonymous, wrong):
            assert_one_line_error(c.post("/api/jobs", json=body), 401)
        job = submit(owner, "generate", LONG_JOB)
        for c in (anonymous, wrong):
            assert_one_line_error(c.post(f"/api/jobs/{job['id']}/cancel"), 401)
            assert_one_line_error(c.post(f"/api/jobs/{job['id']}/resume"), 401)
        for c in (anonymous, wrong):   # reading jobs needs it too, even on loopback
            for path in ("/api/jobs", f"/api/jobs/{job['id']}", f"/api/jobs/{job['id']}/files",
                         f"/api/jobs/{job['id']}/events"):
                assert_one_line_error(c.get(path), 401)
        assert owner.get(f"/api/jobs/{job['id']}").json()["id"] == job["id"]
        assert owner.post(f"/api/jobs/{job['id']}/cancel").json()["state"] == "cancelled"
        assert owner.post(f"/api/jobs/{job['id']}/resume").json()["state"] == "queued"
        assert owner.post(f"/api/jobs/{job['id']}/cancel").json()["state"] == "cancelled"


def test_out_inside_the_served_store_is_refused(tmp_path: Path) -> None:
    """A job may not write into the store the server serves (when it lives under
    --data): it would sit beside the engine's files and be listed as a benchmark."""
    from kgbench.service.errors import ApiError
    from kgbench.service.jobs.manager import JobManager
    from kgbench.service.jobs.specs import GenerateParams
    from kgbench.service.settings import ServiceSettings

    (tmp_path / "store").mkdir()
    (tmp_path / "q.jsonl").write_text("{}\n", encoding="utf-8")
    manager = JobManager(ServiceSettings(store=str(tmp_path / "store"), data_dir=tmp_path))
    for out in ("store", "store/x", "./store/y"):
        with pytest.raises(ApiError) as refused:
            manager.submit("generate", GenerateParams(questions="q.jsonl", out=out))
        assert refused.value.status == 400 and "inside the store" in refused.value.message
    assert not (tmp_path / "jobs").exists() or not any((tmp_path / "jobs").iterdir())


def test_jobs_submitted_within_one_second_run_in_the_order_they_came(tmp_path: Path) -> None:
    """``created`` is to the second; the submission number breaks the tie (two jobs of
    one second once ran the later first when its random id sorted first)."""
    from kgbench.service.jobs.manager import JobManager
    from kgbench.service.jobs.specs import ParseParams
    from kgbench.service.settings import ServiceSettings

    (tmp_path / "store").mkdir()
    (tmp_path / "q.jsonl").write_text("{}\n", encoding="utf-8")
    manager = JobManager(ServiceSettings(store=str(tmp_path / "store"), data_dir=tmp_path))
    ids = [manager.submit("parse", ParseParams(file="q.jsonl")).id for _ in range(12)]
    assert [job.id for job in reversed(manager.list_jobs())] == ids
