"""``generate --workers N`` starts no more processes than there are chunks of work, and
at most :data:`~extension.defaults.MAX_WORKERS`: ``--workers 40 --limit 2`` (one chunk)
once spawned 40 processes that each imported the engine and opened the store, taking
23 s instead of 3, and ``--workers 1000`` ended with the ``resource_tracker`` warning
of leaked semaphores. A run that starts fewer than asked says so, and ``timings.json``
records both numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extension.defaults import MAX_WORKERS
from tests.kgbench.test_cli import run, run_process

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"


@pytest.fixture(scope="module")
def store(demo_store: Path) -> Path:
    """The demo KG, as ``load triples films.nt.gz`` builds it (read-only use)."""
    return demo_store


def generate(store: Path, out: Path, *args: str) -> tuple[str, dict[str, int]]:
    # A child process: the resource_tracker warns of leaked semaphores when it ends.
    proc = run_process("generate", "--store", store, "--questions", QUESTIONS, "--out", out,
                       "--no-report", *args)
    assert proc.returncode == 0, proc.stderr
    assert "resource_tracker" not in proc.stderr and "leaked" not in proc.stderr
    return proc.stderr, json.loads((out / "timings.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_workers_beyond_the_chunks_are_not_started(store: Path, tmp_path: Path) -> None:
    stderr, timings = generate(store, tmp_path / "b", "--workers", "40", "--limit", "2")
    assert (timings["workers"], timings["workers_requested"]) == (1, 40)
    assert ("ran 1 worker process(es), not --workers 40: there were only 1 chunk(s) of "
            "work") in " ".join(stderr.split())


@pytest.mark.slow
def test_as_many_workers_as_chunks(store: Path, tmp_path: Path) -> None:
    stderr, timings = generate(store, tmp_path / "b", "--workers", "3", "--limit", "2",
                               "--chunk-size", "1")
    assert (timings["workers"], timings["workers_requested"]) == (2, 3)
    stderr, timings = generate(store, tmp_path / "c", "--workers", "2", "--limit", "2",
                               "--chunk-size", "1")
    assert (timings["workers"], timings["workers_requested"]) == (2, 2)
    assert "worker process(es), not" not in stderr


def test_more_than_the_maximum_is_a_usage_error(store: Path, tmp_path: Path) -> None:
    proc = run("generate", "--store", store, "--questions", QUESTIONS, "--out",
               tmp_path / "b", "--workers", str(MAX_WORKERS + 1))
    assert proc.returncode == 2
    assert "--workers" in proc.stderr and str(MAX_WORKERS) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "b").exists()
