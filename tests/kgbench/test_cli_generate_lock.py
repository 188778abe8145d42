"""Two ``kgbench generate`` runs into one ``--out`` (real CLI processes, real demo store):
the second is refused with one line naming the directory and the first run's pid, while
the first goes on; after the first is killed with SIGKILL, its stale lock blocks nothing
and the same command resumes and finishes the benchmark (reporting the speed of the
samples it made itself)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from kgstore.dirlock import LOCK_FILE
from tests.kgbench.test_cli import CLI, assert_clean_error, run
from tests.llm.chat_server import FakeChatServer

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"



@pytest.mark.slow
def test_a_second_run_into_the_same_out_is_refused_and_a_killed_run_resumes(
        demo_store: Path, tmp_path: Path) -> None:
    server = FakeChatServer()
    server.always, server.slow_s = "slow", 0.3   # about 20 s for the demo questions
    first: subprocess.Popen[bytes] | None = None
    try:
        out = tmp_path / "bench"
        command = ["generate", "--store", str(demo_store), "--out", str(out),
                   "--questions", str(QUESTIONS), "--no-report", "--chunk-size", "2",
                   "--llm-url", server.url, "--llm-model", "m",
                   "--llm-cache", str(tmp_path / "cache")]
        env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
        first = subprocess.Popen([*CLI, *command], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and first.poll() is None:
            if list((out / ".work").glob("chunk-*.stats.json")):
                break
            time.sleep(0.05)
        assert first.poll() is None, "the first run ended before the second could start"

        second = run(*command)
        assert_clean_error(second)
        assert (f"benchmark directory {out} is being written by another kgbench process "
                f"(pid {first.pid}); wait for it or choose another --out") in second.stderr
        # One error line (the CLI's progress bar, started before the lock is tried, may
        # leave its first frame above it).
        errors = [line for line in second.stderr.splitlines() if "rror" in line]
        assert len(errors) == 1 and errors[0].startswith("Error: benchmark directory"), \
            second.stderr
        assert first.poll() is None, "the first run ended while the second was refused"

        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        assert (out / LOCK_FILE).read_text().strip() == str(first.pid)   # stale
        assert not (out / "samples.jsonl").exists()
        work = out / ".work"
        resumed = sum(len((work / p.name.replace(".stats.json", ".samples.jsonl")).read_text(
            "utf-8").splitlines()) for p in work.glob("chunk-*.stats.json"))

        server.always = None
        again = run(*command, timeout=300)
        assert again.returncode == 0, again.stderr
        assert "resumed" in again.stderr
        total = len((out / "samples.jsonl").read_text("utf-8").splitlines())
        assert total > resumed > 0
        # The speed is that of this run's own samples.
        timings = json.loads((out / "timings.json").read_text("utf-8"))
        assert timings["samples_per_s"] == pytest.approx(
            (total - resumed) / timings["seconds"], rel=0.02)
        assert not (out / ".work").exists()
        assert not (out / LOCK_FILE).exists()
    finally:
        if first is not None and first.poll() is None:
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=30)
        server.stop()
