"""A generate job on a server over Neo4j (the demo KG copied into the test database)
writes the same bytes as the embedded demo benchmark: the job runs the same use case
on either backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import neo4j_server
from tests.service.conftest import StartServer
from tests.service.jobs_support import DEMO_JOB, finished, job_data_dir, submit, wait_for

pytestmark = [neo4j_server.requires_neo4j, pytest.mark.neo4j]


def test_a_generate_job_on_neo4j_matches_the_embedded_benchmark(
        neo4j_demo_location: str, demo_data_dir: Path, tmp_path: Path,
        start_server: StartServer) -> None:
    data = job_data_dir(tmp_path / "data")
    server = start_server(neo4j_demo_location, data)
    with server.client() as client:
        assert client.get("/api/health").json()["backend"] == "neo4j"
        job = wait_for(client, submit(client, "generate", DEMO_JOB)["id"], finished,
                       timeout_s=120)
    assert job["state"] == "succeeded", job
    samples = (data / job["out"] / "samples.jsonl").read_bytes()
    assert samples.count(b"\n") > 20
    assert samples == (demo_data_dir / "benchmarks" / "demo" / "samples.jsonl").read_bytes()
