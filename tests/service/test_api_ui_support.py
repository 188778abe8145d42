"""What the web UI's forms and links read, against a real ``kgbench serve`` over the demo
store (issue 38): the files under ``--data`` a job form offers (links not followed,
the job records and hidden names left out, nothing outside listed), and generated
reports that open in the browser (``text/html``, inline, under a sandboxing policy of
their own) from a job's files and from the benchmark list."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kgbench.service.htmlfiles import PAGE_POLICY
from kgbench.service.samples import REPORT_FILE
from tests.service.conftest import Server, _launch
from tests.service.jobs_support import (
    DEMO_JOB,
    assert_one_line_error,
    finished,
    job_data_dir,
    submit,
    wait_for,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, demo_store_path: str,
           demo_data_dir: Path) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("ui-support")
    data = job_data_dir(root / "data")
    shutil.copytree(demo_data_dir / "benchmarks", data / "benchmarks")
    (data / "models" / "nli").mkdir(parents=True)
    (data / "models" / "nli" / "model.onnx").write_bytes(b"x" * 10)
    (data / ".hidden").write_text("secret", encoding="utf-8")
    (data / "questions" / ".draft.jsonl").write_text("{}", encoding="utf-8")
    outside = root / "outside"
    outside.mkdir()
    (outside / "private.jsonl").write_text("{}", encoding="utf-8")
    os.symlink(outside, data / "link-out")
    os.symlink(outside / "private.jsonl", data / "questions" / "link.jsonl")
    server = _launch(demo_store_path, data, None, "127.0.0.1", ())
    yield server
    server.stop()


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with server.client() as c:
        yield c


def test_the_data_files_a_job_form_offers(client: httpx.Client) -> None:
    doc = client.get("/api/data/files").json()
    listed = {e["path"]: e for e in doc["entries"]}
    assert doc["under"] == "." and doc["truncated"] is False
    assert listed["questions/demo.jsonl"]["kind"] == "file"
    assert listed["questions/demo.jsonl"]["size"] > 0
    assert listed["benchmarks/demo"]["kind"] == "dir"
    assert "benchmarks/demo/samples.jsonl" in listed
    assert listed["models/nli"]["kind"] == "dir"
    for hidden in (".hidden", "questions/.draft.jsonl", "link-out", "questions/link.jsonl",
                   "link-out/private.jsonl"):
        assert hidden not in listed
    assert not [p for p in listed if p == "jobs" or p.startswith("jobs/")]
    dirs = client.get("/api/data/files", params={"kind": "dir"}).json()["entries"]
    assert {e["kind"] for e in dirs} == {"dir"} and "benchmarks/demo" in {e["path"] for e in dirs}
    jsonl = client.get("/api/data/files", params={"kind": "file", "suffix": ".jsonl",
                                                  "under": "questions"}).json()
    assert jsonl["under"] == "questions"
    assert [e["path"] for e in jsonl["entries"]] == ["questions/demo.jsonl"]


@pytest.mark.parametrize(("under", "status"), [
    ("../", 400), ("/etc", 400), ("%2e%2e", 400), ("link-out", 400), ("jobs", 400),
    ("nothing-here", 404), ("questions/demo.jsonl", 400)])
def test_a_listing_never_leaves_the_data_directory(client: httpx.Client, under: str,
                                                   status: int) -> None:
    assert_one_line_error(client.get("/api/data/files", params={"under": under}), status)


def assert_a_sandboxed_page(reply: httpx.Response) -> None:
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/html")
    assert reply.headers["content-disposition"].startswith("inline")
    assert reply.headers.get_list("content-security-policy") == [PAGE_POLICY]
    assert PAGE_POLICY.startswith("sandbox;") and "script" not in PAGE_POLICY
    assert reply.text.startswith("<!DOCTYPE html>")


def test_a_benchmarks_report_opens_in_the_browser(client: httpx.Client) -> None:
    from extension.outputs.report import REPORT_FILE as WRITTEN

    assert REPORT_FILE == WRITTEN   # the server names the file generate writes
    listed = {b["name"]: b for b in client.get("/api/benchmarks").json()["benchmarks"]}
    assert listed["benchmarks/demo"]["report"] is True
    assert_a_sandboxed_page(client.get("/api/benchmarks/report",
                                       params={"bench": "benchmarks/demo"}))
    assert_one_line_error(client.get("/api/benchmarks/report", params={"bench": "../x"}), 400)
    # every other answer keeps the UI's policy
    page = client.get("/")
    assert page.headers["content-security-policy"].startswith("default-src 'self'")


def test_a_jobs_report_opens_in_the_browser_and_data_files_download(
        client: httpx.Client, server: Server) -> None:
    job = submit(client, "generate", {**DEMO_JOB, "limit": 2, "out": "benchmarks/mine"})
    final = wait_for(client, job["id"], finished, timeout_s=120)
    assert final["state"] == "succeeded", final
    assert final["out"] == "benchmarks/mine"
    assert_a_sandboxed_page(client.get(f"/api/jobs/{job['id']}/files/{REPORT_FILE}"))
    samples = client.get(f"/api/jobs/{job['id']}/files/samples.jsonl")
    assert samples.headers["content-disposition"].startswith("attachment")
    assert samples.headers["content-security-policy"].startswith("default-src 'self'")
    names = {b["name"] for b in client.get("/api/benchmarks").json()["benchmarks"]}
    assert "benchmarks/mine" in names
    assert (server.data_dir / "benchmarks" / "mine" / REPORT_FILE).is_file()
