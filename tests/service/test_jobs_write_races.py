"""Every kind of write a job's process makes, against a symlink put under ``--data``
while the job waits in the queue (issue 32, item 3), over HTTP against a real
``kgbench serve`` whose job processes are the real ones.

The job's output folder itself is checked when the job starts (see
``test_jobs_hostile.py``); these links lie *inside* it, or inside the job's own folder,
where the writes that do not go through ``atomic_output`` met them and followed them
out of ``--data``: the directory lock (``.kgbench.lock``, created with ``O_CREAT``), the
assembly of a resumable run's chunks (``.work/samples.jsonl``, ``.work/run.json.final``,
``.work-kalma/entries.jsonl``, ``.work-score/scores.jsonl``), the LLM reply cache
(``jobs/ID/llm-cache``), and the server's own writes for the job (its log, its records,
the clean-up of its last result in ``jobs/ID``). Now every
such write walks down from ``--data`` without following a symlink
(:mod:`kgstore.confined`): the job fails saying so, and nothing appears outside.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.llm.chat_server import FakeChatServer
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401  (fixtures)
from tests.service.conftest import Server, _launch
from tests.service.jobs_support import DEMO_JOB, LONG_JOB, finished, job_data_dir, submit, wait_for


@pytest.fixture(scope="module")
def module_server(demo_store_path: str, demo_data_dir: Path,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server running one job at a time, its data directory holding the demo
    benchmark and an empty folder given as a model."""
    data = job_data_dir(tmp_path_factory.mktemp("write-races") / "data")
    shutil.copytree(demo_data_dir / "benchmarks" / "demo", data / "benchmarks" / "demo")
    (data / "models" / "none").mkdir(parents=True)
    started = _launch(demo_store_path, data, None, "127.0.0.1", ("--max-jobs", "1"))
    yield started
    started.stop()


def _entries(data: Path) -> set[Path]:
    """Everything under ``data`` but the job records (``jobs/``), links not followed."""
    found: set[Path] = set()
    for folder, dirs, files in os.walk(data):
        here = Path(folder)
        if here == data and "jobs" in dirs:
            dirs.remove("jobs")
        found.update(here / name for name in (*dirs, *files))
    return found


@pytest.fixture
def server(module_server: Server, tmp_path: Path) -> Iterator[Server]:
    """The module's server (one start for the module's tests, not one each) with its
    data directory as every test finds it: what a test placed there and what its jobs
    wrote (outside their records under ``jobs/``) is removed after it; and a folder
    ``tmp_path/outside``, outside the data directory."""
    (tmp_path / "outside").mkdir()
    data = module_server.data_dir
    before = _entries(data)
    yield module_server
    for path in sorted(_entries(data) - before):
        if path.parent in before or path.parent == data:   # the top of what is new
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()


def run_after_links(server: Server, kind: str, params: dict[str, Any],
                    place: Callable[[Path, Path], None]) -> dict[str, Any]:
    """Queue the job behind a long one, let ``place(data, job_dir)`` put its links, then
    let the job run to its end."""
    with server.client() as client:
        blocker = submit(client, "generate", LONG_JOB)
        wait_for(client, blocker["id"], lambda job: job.get("state") == "running")
        queued = submit(client, kind, params)
        assert client.get(f"/api/jobs/{queued['id']}").json()["state"] == "queued"
        place(server.data_dir, server.data_dir / "jobs" / queued["id"])
        client.post(f"/api/jobs/{blocker['id']}/cancel")
        return wait_for(client, queued["id"], finished, timeout_s=120)


def nothing_outside(outside: Path) -> None:
    written = [p for p in outside.rglob("*") if not p.is_dir()]
    assert written == [], written


def assert_refused(job: dict[str, Any]) -> None:
    assert job["state"] == "failed", job
    assert "symlink" in job["error"] and "\n" not in job["error"], job["error"]


@pytest.mark.parametrize(("kind", "params", "folder"), [
    ("generate", {**DEMO_JOB, "out": "gen"}, "gen"),
    ("score", {"bench": "benchmarks/demo", "nli": "models/none"}, "benchmarks/demo")],
    ids=["generate", "score"])
def test_the_lock_file_is_not_created_through_a_link(
        server: Server, tmp_path: Path, kind: str, params: dict[str, Any], folder: str) -> None:
    outside = tmp_path / "outside"

    def place(data: Path, _job_dir: Path) -> None:
        (data / folder).mkdir(parents=True, exist_ok=True)
        (data / folder / ".kgbench.lock").symlink_to(outside / "lock")

    job = run_after_links(server, kind, params, place)
    nothing_outside(outside)
    assert_refused(job)


def test_the_assembly_of_a_generate_run_is_not_written_through_a_link(
        server: Server, tmp_path: Path) -> None:
    outside = tmp_path / "outside"

    def place(data: Path, _job_dir: Path) -> None:
        work = data / "gen" / ".work"   # a run's work folder, as a killed run leaves it
        work.mkdir(parents=True)
        (work / "samples.jsonl").symlink_to(outside / "samples.jsonl")
        (work / "run.json.final").symlink_to(outside / "run.json")

    job = run_after_links(server, "generate", {**DEMO_JOB, "out": "gen"}, place)
    nothing_outside(outside)
    assert_refused(job)


@pytest.mark.slow
def test_the_assembly_of_kalma_entries_is_not_written_through_a_link(
        server: Server, tmp_path: Path) -> None:
    outside = tmp_path / "outside"

    def place(data: Path, _job_dir: Path) -> None:
        work = data / "entries" / ".work-kalma"
        work.mkdir(parents=True)
        (work / "entries.jsonl").symlink_to(outside / "entries.jsonl")

    job = run_after_links(server, "kalma-generate", {
        "domain": "people.person", "n": 3, "seed": 1, "out": "entries"}, place)
    nothing_outside(outside)
    assert_refused(job)


def test_the_llm_cache_is_not_written_through_a_link(server: Server, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    chat = FakeChatServer()
    chat.reply = "supportive"

    def place(_data: Path, job_dir: Path) -> None:
        (outside / "cache").mkdir()
        (job_dir / "llm-cache").symlink_to(outside / "cache")

    try:
        job = run_after_links(server, "evaluate", {
            "bench": "benchmarks/demo", "split": "all", "llm_url": chat.url,
            "llm_model": "m", "llm_retries": 0}, place)
    finally:
        chat.stop()
    assert chat.received, "the job asked the LLM nothing: the cache was never written"
    nothing_outside(outside)
    assert_refused(job)


def test_the_server_appends_no_log_line_through_a_link(server: Server, tmp_path: Path) -> None:
    """The server's own write for a job (its log, opened when the job starts) walks
    down from ``--data`` the same way."""
    outside = tmp_path / "outside"

    def place(_data: Path, job_dir: Path) -> None:
        (job_dir / "log").symlink_to(outside / "log")

    job = run_after_links(server, "parse", {"file": "questions/demo.jsonl"}, place)
    nothing_outside(outside)
    assert_refused(job)


def test_the_job_folder_swapped_for_a_link_is_not_written_nor_cleaned_through(
        server: Server, tmp_path: Path) -> None:
    """The job's own folder moved out and replaced by a link to it: the server neither
    removes the old result there, nor appends to the log there, nor starts the job."""
    outside = tmp_path / "outside"

    def place(_data: Path, job_dir: Path) -> None:
        moved = outside / "job"
        shutil.move(job_dir, moved)
        (moved / "result.json").write_text("precious\n")
        job_dir.symlink_to(moved)

    job = run_after_links(server, "parse", {"file": "questions/demo.jsonl"}, place)
    assert sorted(p.name for p in (outside / "job").iterdir()) == ["job.json", "result.json"]
    assert (outside / "job" / "result.json").read_text() == "precious\n"
    assert_refused(job)


def test_the_confinement_reaches_worker_processes(tmp_path: Path) -> None:
    """A process started by a job's process (``spawn``: nothing inherited but the
    environment) is confined too."""
    import subprocess
    import sys

    from kgstore.confined import CONFINE_ENV, confine_writes

    out = tmp_path / "out"
    out.mkdir()
    (out / "link").symlink_to(tmp_path)
    confine_writes(out)
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        assert json.loads(env[CONFINE_ENV])
    finally:
        confine_writes()
    code = ("from kgstore.confined import open_write\n"
            "import sys\n"
            "try:\n"
            f"    open_write({str(out / 'link' / 'stolen')!r}).write('x')\n"
            "except ValueError as exc:\n"
            "    print(exc); sys.exit(3)\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert "is a symlink" in proc.stdout
    assert not (tmp_path / "stolen").exists()



@pytest.mark.slow
def test_the_assembly_of_scores_is_not_written_through_a_link(
        server: Server, tmp_path: Path, exported: Exported) -> None:  # noqa: F811
    outside = tmp_path / "outside"
    shutil.copytree(exported("bert", "nli"), server.data_dir / "models" / "nli")

    def place(data: Path, _job_dir: Path) -> None:
        work = data / "benchmarks" / "demo" / ".work-score"
        work.mkdir()
        (work / "scores.jsonl").symlink_to(outside / "scores.jsonl")

    job = run_after_links(server, "score", {"bench": "benchmarks/demo", "nli": "models/nli",
                                            "device": "cpu", "chunk_size": 16}, place)
    nothing_outside(outside)
    assert_refused(job)
