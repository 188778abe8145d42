"""The speed a resumed ``generate`` reports (``timings.json``'s ``samples_per_s``) counts
only the samples this run made, over the time it took: the resumed chunks' samples were
made by the interrupted run, in time this one did not measure. A run that only finishes
an earlier run's chunks made nothing and reports no speed (it used to report about 140
million samples/s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extension.run.generate import GenerateConfig, generate
from loaders.kgqa import read_questions
from tests.shared_builds import copy_tree

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"
SOURCE = {"kind": "questions", "file": "demo"}
CONFIG = GenerateConfig(seed=2, chunk_size=2)


class Interrupt(Exception):
    pass


@pytest.fixture(scope="module")
def demo_store(shared_demo_store: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(copy_tree(shared_demo_store, tmp_path_factory.mktemp("generate-rate") / "demo"))


@pytest.fixture(scope="module")
def questions() -> list[Any]:
    return list(read_questions(QUESTIONS))


def _interrupted(store: str, questions: list[Any], out: Path, calls_before_stop: int) -> int:
    """Run until the ``calls_before_stop``-th progress call (the first reports the start,
    each later one a written chunk), then stop; the samples of the chunks left done."""
    calls: list[int] = []

    def stop(done: int, total: int, samples: int) -> None:
        calls.append(done)
        if len(calls) == calls_before_stop:
            raise Interrupt

    with pytest.raises(Interrupt):
        generate(store, questions, out, CONFIG, source=SOURCE, progress=stop, report=False)
    assert not (out / "samples.jsonl").exists()
    work = out / ".work"
    return sum(len((work / p.name.replace(".stats.json", ".samples.jsonl")).read_text(
        "utf-8").splitlines()) for p in work.glob("chunk-*.stats.json"))


def test_a_resumed_run_reports_the_speed_of_its_own_samples(
        demo_store: str, questions: list[Any], tmp_path: Path) -> None:
    resumed = _interrupted(demo_store, questions, tmp_path, calls_before_stop=4)
    result = generate(demo_store, questions, tmp_path, CONFIG, source=SOURCE, report=False)
    assert result.resumed_chunks == 3
    made = result.stats["samples"] - resumed
    assert resumed > 0 and made > 0
    timings = result.timings
    assert timings["samples_per_s"] == pytest.approx(made / timings["seconds"], rel=0.02)


def test_a_run_that_only_finishes_resumed_chunks_reports_no_speed(
        demo_store: str, questions: list[Any], tmp_path: Path) -> None:
    chunks = -(-len(questions) // CONFIG.chunk_size)
    resumed = _interrupted(demo_store, questions, tmp_path, calls_before_stop=chunks + 1)
    result = generate(demo_store, questions, tmp_path, CONFIG, source=SOURCE, report=False)
    assert result.resumed_chunks == chunks
    assert result.stats["samples"] == resumed > 0
    assert result.timings["samples_per_s"] is None
