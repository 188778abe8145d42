"""The job kinds beside generate and parse, each run to its end by a real server and
checked against what the command line writes for the same request: ``evaluate`` with a
predictions file, ``kalma-generate`` on the demo KG, and ``score`` with a tiny exported
NLI model (its scores written into the benchmark under ``--data``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kgbench.test_cli import run
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401  (fixtures)
from tests.service.conftest import Server, _launch
from tests.service.jobs_support import finished, job_data_dir, submit, wait_for


@pytest.fixture(scope="module")
def kinds_server(demo_store_path: str, demo_data_dir: Path,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose data directory holds a copy of the demo benchmark and a
    predictions file naming each sample's own label."""
    data = job_data_dir(tmp_path_factory.mktemp("jobs-kinds") / "data")
    bench = data / "benchmarks" / "demo"
    shutil.copytree(demo_data_dir / "benchmarks" / "demo", bench)
    with (data / "predictions.jsonl").open("w", encoding="utf-8") as out:
        for line in (bench / "samples.jsonl").read_text(encoding="utf-8").splitlines():
            sample = json.loads(line)
            out.write(json.dumps({"id": sample["id"], "label": sample["label"]}) + "\n")
    server = _launch(demo_store_path, data, None, "127.0.0.1", ())
    yield server
    server.stop()


def test_an_evaluate_job_writes_the_document_of_the_command(kinds_server: Server) -> None:
    data = kinds_server.data_dir
    with kinds_server.client() as client:
        job = wait_for(client, submit(client, "evaluate", {
            "bench": "benchmarks/demo", "predictions": "predictions.jsonl",
            "split": "all"})["id"], finished)
    assert job["state"] == "succeeded", job
    assert job["result"]["overall_micro_f1"] == 1.0
    written = json.loads((data / job["out"] / "evaluation.json").read_text(encoding="utf-8"))
    proc = run("evaluate", data / "benchmarks" / "demo", "--predictions",
               data / "predictions.jsonl", "--split", "all", "--json")
    assert proc.returncode == 0, proc.stderr
    assert written == json.loads(proc.stdout)
    # The protocol is a parameter, recorded in the document and the result.
    with kinds_server.client() as client:
        job = wait_for(client, submit(client, "evaluate", {
            "bench": "benchmarks/demo", "predictions": "predictions.jsonl",
            "split": "all", "scheme": "caqa", "protocol": "released"})["id"], finished)
    assert job["state"] == "succeeded", job
    assert job["result"]["protocol"] == "released"
    written = json.loads((data / job["out"] / "evaluation.json").read_text(encoding="utf-8"))
    proc = run("evaluate", data / "benchmarks" / "demo", "--predictions",
               data / "predictions.jsonl", "--split", "all", "--scheme", "caqa",
               "--protocol", "released", "--json")
    assert proc.returncode == 0, proc.stderr
    assert written == json.loads(proc.stdout) and written["protocol"] == "released"


@pytest.mark.slow
def test_a_kalma_generate_job_builds_the_entries_of_the_command(
        kinds_server: Server, demo_store_path: str, tmp_path: Path) -> None:
    params = {"domain": "people.person", "n": 3, "seed": 1}
    with kinds_server.client() as client:
        job = wait_for(client, submit(client, "kalma-generate", params)["id"], finished)
    assert job["state"] == "succeeded", job
    assert job["resumable"] is True and job["result"]["entries"] >= 1
    proc = run("kalma", "generate", "--store", demo_store_path, "--domain", "people.person",
               "--n", "3", "--seed", "1", "--out", tmp_path / "cli")
    assert proc.returncode == 0, proc.stderr
    entries = (kinds_server.data_dir / job["out"] / "entries.jsonl").read_bytes()
    assert entries == (tmp_path / "cli" / "entries.jsonl").read_bytes()


@pytest.mark.slow
def test_a_score_job_scores_the_benchmark_in_place(kinds_server: Server,
                                                   exported: Exported) -> None:  # noqa: F811
    data = kinds_server.data_dir
    shutil.copytree(exported("bert", "nli"), data / "models" / "nli")
    with kinds_server.client() as client:
        job = wait_for(client, submit(client, "score", {
            "bench": "benchmarks/demo", "nli": "models/nli", "device": "cpu",
            "chunk_size": 16})["id"], finished, timeout_s=120)
    assert job["state"] == "succeeded", job
    assert job["out"] == "benchmarks/demo" and job["resumable"] is True
    samples = (data / "benchmarks" / "demo" / "samples.jsonl").read_text().count("\n")
    scores = (data / "benchmarks" / "demo" / "scores.jsonl").read_text().splitlines()
    assert len(scores) == samples == job["result"]["samples"]
    with kinds_server.client() as client:
        listed = {f["path"] for f in client.get(f"/api/jobs/{job['id']}/files").json()["files"]}
    # its own output only, never the benchmark's files (issue 32, item 11)
    assert {"scores.jsonl", "score_run.json"} <= listed <= {"scores.jsonl", "score_run.json",
                                                            "flagged.jsonl"}


def test_job_parameters_of_the_prompts_and_the_protocol() -> None:
    from pydantic import ValidationError

    from kgbench.service.jobs.specs import EvaluateParams, KalmaGenerateParams

    with pytest.raises(ValidationError, match="prompts needs llm_url"):
        KalmaGenerateParams.model_validate({"prompts": "mine.json"})
    params = KalmaGenerateParams.model_validate({
        "prompts": "mine.json", "llm_url": "http://127.0.0.1:9/v1", "llm_model": "m"})
    assert params.input_paths() == {"prompts": ("mine.json", "file")}
    with pytest.raises(ValidationError, match="protocol"):
        EvaluateParams.model_validate({"bench": "b", "predictions": "p.jsonl",
                                       "protocol": "paper"})
