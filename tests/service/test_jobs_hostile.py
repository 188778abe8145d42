"""Jobs against a hostile data directory and a full disk (issue 32, items 3, 9 and 11),
over HTTP against a real ``kgbench serve``.

* Item 3: a job's ``out`` was checked when the job was submitted, and the job's process
  wrote to ``DATA/out`` later without checking again: a symlink placed there (or in
  place of a folder above it) while the job waited in the queue redirected the write
  out of ``--data``. Now the process resolves its output folder by folder without
  following a symlink when it starts, and its writes stay inside it.
* Item 9: on a full disk ``POST /api/jobs`` answered 500, a job accepted while space
  was low stayed "queued" with no error, and the log got a traceback ten times a
  second. Now: a one-line 507, the job failed with "no space left on device", the log
  rate-limited. (A small tmpfs mounted by the test: root only, skipped otherwise.)
* Item 11: a score job with ``bench: "."`` listed the whole data directory (other jobs'
  ``job.json``) and served the store's files. Now such a bench is refused, and a score
  job lists and serves its own score files only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kgbench.test_cli_disk_full import small_disk  # noqa: F401  (fixture)
from tests.service.conftest import Server, _launch
from tests.service.jobs_support import (
    LONG_JOB,
    assert_one_line_error,
    finished,
    job_data_dir,
    submit,
    wait_for,
)


def running(job: dict[str, Any]) -> bool:
    return job.get("state") == "running"


@pytest.fixture(scope="module")
def server(demo_store_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server running one job at a time (a long job keeps the next one queued), and a
    folder ``outside`` beside its data directory; the module's symlink cases share it
    (each links a name of its own, and each ends with no job running)."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "outside").mkdir()
    started = _launch(demo_store_path, job_data_dir(root / "data"), None, "127.0.0.1",
                      ("--max-jobs", "1"))
    yield started
    started.stop()


# -- item 3: a symlink placed while the job waits ---------------------------------------------

@pytest.mark.parametrize("where", ["out", "folder above out"])
def test_a_symlink_placed_while_the_job_waits_is_not_written_through(
        server: Server, where: str) -> None:
    data = server.data_dir
    outside = data.parent / "outside"
    with server.client() as client:
        blocker = submit(client, "generate", LONG_JOB)
        wait_for(client, blocker["id"], running)
        out = "victim" if where == "out" else "results/run1"
        queued = submit(client, "parse", {"file": "questions/demo.jsonl", "out": out})
        assert client.get(f"/api/jobs/{queued['id']}").json()["state"] == "queued"
        # the attacker's move, after the checks of the submission
        os.symlink(outside, data / out.split("/")[0])
        client.post(f"/api/jobs/{blocker['id']}/cancel")
        job = wait_for(client, queued["id"], finished)
    assert job["state"] == "failed", job
    assert "is a symlink" in job["error"] and "\n" not in job["error"], job["error"]
    assert list(outside.iterdir()) == []


def test_writes_stay_inside_the_confined_folders(tmp_path: Path) -> None:
    """Inside the job's process: a link inside its output folder, or a folder swapped
    for a link while a file is being written, does not take the write outside."""
    from extension.outputs.output_file import OutputPathError, atomic_output, write_atomic
    from kgstore.confined import confine_writes

    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "link.json").symlink_to(outside / "stolen.json")
    confine_writes(out)
    try:
        write_atomic(out / "fine.json", "{}\n")
        with pytest.raises(OutputPathError, match="outside this job's output directory"):
            write_atomic(out / "link.json", "{}\n")
        (out / "sub").mkdir()
        with pytest.raises(OutputPathError, match="outside this job's output directory"):
            with atomic_output(out / "sub" / "late.json") as stream:
                stream.write("{}\n")
                (out / "sub").rename(out / "sub-moved")
                (out / "sub").symlink_to(outside)
    finally:
        confine_writes()
    assert (out / "fine.json").read_text() == "{}\n"
    assert list(outside.iterdir()) == []


# -- item 11: a job's files are its own ---------------------------------------------------------

@pytest.fixture(scope="module")
def store_inside(demo_store_path: str, demo_data_dir: Path,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose store lives inside its data directory, beside the demo benchmark
    and an empty folder given as a model (so a score job fails fast); the module's
    item 11 tests share it (a refused job writes nothing, the score job writes no file)."""
    data = job_data_dir(tmp_path_factory.mktemp("store-inside") / "data")
    shutil.copytree(demo_store_path, data / "store")
    shutil.copytree(demo_data_dir / "benchmarks" / "demo", data / "benchmarks" / "demo")
    (data / "models" / "none").mkdir(parents=True)
    started = _launch(str(data / "store"), data, None, "127.0.0.1", ())
    yield started
    started.stop()


@pytest.mark.parametrize(("bench", "holds"), [(".", "the server's job records"),
                                              ("store", "the store")])
def test_a_score_job_may_not_write_over_the_data_directory_or_the_store(
        store_inside: Server, bench: str, holds: str) -> None:
    with store_inside.client() as client:
        error = assert_one_line_error(
            client.post("/api/jobs", json={"kind": "score", "params": {
                "bench": bench, "nli": "models/none"}}), 400)
    assert holds in error["message"], error


def test_a_score_job_lists_and_serves_its_own_files_only(store_inside: Server) -> None:
    with store_inside.client() as client:
        job = wait_for(client, submit(client, "score", {
            "bench": "benchmarks/demo", "nli": "models/none"})["id"], finished)
        assert job["out"] == "benchmarks/demo"
        listing = client.get(f"/api/jobs/{job['id']}/files").json()
        assert listing["files"] == [], listing   # it wrote nothing: the benchmark is not its
        for path in ("samples.jsonl", "stats.json", "../../store/graph.lbdb"):
            reply = client.get(f"/api/jobs/{job['id']}/files/{path}")
            assert reply.status_code in (400, 404), (path, reply.status_code)
    assert (store_inside.data_dir / "benchmarks" / "demo" / "samples.jsonl").exists()


# -- item 9: a full disk ---------------------------------------------------------------------

@pytest.fixture
def small_data(small_disk: Path) -> Path:  # noqa: F811
    """A data directory on a fresh small tmpfs (root only; skipped otherwise)."""
    return job_data_dir(small_disk)


def fill(directory: Path) -> Path:
    """Fill the device holding ``directory`` to the last byte."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as out:
        for size in (1 << 16, 1):
            with contextlib.suppress(OSError):
                while True:
                    out.write(b"\0" * size)
    return filler


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_the_queued_job_fails_saying_so(
        demo_store_path: str, small_data: Path) -> None:
    server = _launch(demo_store_path, small_data, None, "127.0.0.1", ("--max-jobs", "1"))
    try:
        with server.client() as client:
            blocker = submit(client, "generate", LONG_JOB)
            wait_for(client, blocker["id"], running)
            queued = submit(client, "parse", {"file": "questions/demo.jsonl"})
            filler = fill(small_data)
            # a new job: one line, nothing of it kept
            before = set(os.listdir(small_data / "jobs"))
            error = assert_one_line_error(client.post("/api/jobs", json={
                "kind": "parse", "params": {"file": "questions/demo.jsonl"}}), 507)
            assert "no space left on device" in error["message"], error
            assert set(os.listdir(small_data / "jobs")) == before
            # the queued one fails saying why once the running one is stopped
            client.post(f"/api/jobs/{blocker['id']}/cancel")
            job = wait_for(client, queued["id"], finished)
            assert job["state"] == "failed" and "no space left on device" in job["error"], job
            time.sleep(3)   # 30 passes of the dispatcher
            log = server.log()
            assert log.count("Traceback") <= 2, log
            assert log.count("no space left on device") <= 6, log
            # space again: jobs run again
            filler.unlink()
            again = wait_for(client, submit(client, "parse", {
                "file": "questions/demo.jsonl"})["id"], finished)
            assert again["state"] == "succeeded", again
    finally:
        server.stop()


@pytest.mark.slow
def test_reads_still_answer_on_a_full_disk(demo_store_path: str, small_data: Path) -> None:
    server = _launch(demo_store_path, small_data, None, "127.0.0.1", ())
    try:
        fill(small_data)
        with server.client() as client:
            assert client.get("/api/stats").status_code == 200
            listing = client.get("/api/jobs")
            assert listing.status_code == 200, listing.text
    finally:
        server.stop()
