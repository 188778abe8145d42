"""Ctrl-C during a long command (issue 18 review, U1), end to end: a real CLI process
started in its own session gets SIGINT on its whole process group mid-run, as a
terminal's Ctrl-C delivers it (pool workers included).

Before the fix the CLI exited 130 with nothing on stderr (Typer swallows the
``KeyboardInterrupt``), and ``generate --workers 2`` printed the workers'
``KeyboardInterrupt`` tracebacks. Now each prints one line saying what became of the
work, exits 130, and the same command resumes (``load``, ``generate``) or nothing was
written (``questions parse``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.kgbench.test_cli import CLI, run, run_json
from tests.llm.chat_server import FakeChatServer

pytestmark = pytest.mark.slow   # processes under test, seconds each (see pyproject.toml)

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"
RESUMES = "interrupted; rerun the same command to resume"
NOTHING_WRITTEN = "interrupted; nothing was written"



def interrupt(args: Sequence[str | Path], busy: Callable[[], bool], *,
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the CLI with ``args``, wait until ``busy()`` says it is mid-work, send
    SIGINT to its process group, and return how it ended."""
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    env.update({"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"})
    proc = subprocess.Popen([*CLI, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not busy():
            assert proc.poll() is None, f"ended before it was interrupted: {proc.communicate()}"
            assert time.monotonic() < deadline, "never got busy"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def assert_interrupted(proc: subprocess.CompletedProcess[str], line: str) -> None:
    assert proc.returncode == 130, (proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("interrupted")]
    assert lines == [line], proc.stderr
    for noise in ("Traceback", "KeyboardInterrupt", "Error:"):
        assert noise not in proc.stderr + proc.stdout, proc.stderr


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_during_generate_says_so_and_the_rerun_resumes(
        demo_store: Path, tmp_path: Path, workers: int) -> None:
    server = FakeChatServer()
    server.always, server.slow_s = "slow", 0.8   # keeps the run busy for ~30 s
    try:
        out = tmp_path / "bench"
        command: list[str | Path] = ["generate", "--store", demo_store, "--out", out, "--questions", QUESTIONS,
                   "--no-report", "--chunk-size", "2", "--workers", str(workers),
                   "--llm-url", server.url, "--llm-model", "m",
                   "--llm-cache", tmp_path / "cache"]
        proc = interrupt(command, lambda: bool(list((out / ".work").glob("chunk-*.stats.json"))))
        assert_interrupted(proc, RESUMES)
        assert not (out / "samples.jsonl").exists()
        kept = list((out / ".work").glob("chunk-*.stats.json"))
        assert kept

        server.always = None
        again = run(*command, timeout=300)
        assert again.returncode == 0, again.stderr
        assert "resumed" in again.stderr
        assert (out / "samples.jsonl").stat().st_size > 0 and not (out / ".work").exists()
    finally:
        server.stop()


def _write_dump(path: Path, entities: int) -> None:
    """An N-Triples file big enough that loading it takes a few seconds."""
    fb = "http://rdf.freebase.com/ns/"
    with path.open("w", encoding="utf-8") as f:
        for i in range(entities):
            f.write(f'<{fb}m.{i}> <{fb}type.object.name> "Entity {i}"@en .\n'
                    f"<{fb}m.{i}> <{fb}film.film.directed_by> <{fb}m.{i + 1}> .\n"
                    f'<{fb}m.{i}> <{fb}film.film.initial_release_date> "19{i % 100:02d}"'
                    f"^^<http://www.w3.org/2001/XMLSchema#gYear> .\n")


def test_ctrl_c_during_load_says_so_and_the_rerun_finishes(tmp_path: Path) -> None:
    dump = tmp_path / "dump.nt"
    _write_dump(dump, 150_000)
    store = tmp_path / "store"
    command: list[str | Path] = ["load", "triples", dump, "--store", store]

    def staging() -> bool:
        return any(p.is_file() for p in (store / "staging").rglob("*")) \
            if (store / "staging").exists() else False

    proc = interrupt(command, staging)
    assert_interrupted(proc, RESUMES)

    again = run(*command, timeout=300)
    assert again.returncode == 0, again.stderr
    stats = run_json("stats", "--store", store)
    assert stats["facts"] == 300_000   # directed_by + release date; names are no facts


def test_ctrl_c_during_questions_parse_writes_nothing(tmp_path: Path) -> None:
    records = [json.loads(line) for line in QUESTIONS.read_text("utf-8").splitlines()
               if line.strip()]
    many = tmp_path / "many.jsonl"
    with many.open("w", encoding="utf-8") as f:
        for i in range(40_000):
            f.write(json.dumps({**records[i % len(records)], "id": f"q{i}"}) + "\n")
    out = tmp_path / "out" / "parsed.jsonl"
    part = out.with_name(out.name + ".part")
    proc = interrupt(["questions", "parse", many, "--out", out],
                     lambda: part.exists() and part.stat().st_size > 0)
    assert_interrupted(proc, NOTHING_WRITTEN)
    assert not out.parent.exists()   # nor the folder made for it
