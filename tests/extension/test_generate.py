"""The ``kgbench generate`` pipeline (:mod:`extension.run.generate`) on the demo KG.

A real LadybugDB demo store is built once per module; each test generates into its own
directory. Checked: the split rule, shard blocks, schema-valid output, split
disjointness, byte-identical reruns with and without workers, shard concatenation,
resume after an interruption, and the refusal to mix runs in one directory.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from extension.outputs.sample_schema import BenchmarkSample, iter_schema_violations
from extension.run.generate import (
    GenerateConfig,
    GenerateError,
    Shard,
    TextOptions,
    generate,
    parse_shard,
    split_of,
)
from loaders.kgqa import read_questions
from tests.shared_builds import copy_tree

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"
SOURCE = {"kind": "questions", "file": "demo"}


@pytest.fixture(scope="module")
def demo_store(shared_demo_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store (a copy of the run's), shared by the module (read-only use)."""
    return copy_tree(shared_demo_store, tmp_path_factory.mktemp("generate-demo") / "demo")


@pytest.fixture(scope="module")
def questions() -> list[Any]:
    return list(read_questions(QUESTIONS))


def outputs(directory: Path) -> dict[str, bytes]:
    return {name: (directory / name).read_bytes()
            for name in ("samples.jsonl", "failures.jsonl", "stats.json")}


def samples_of(directory: Path) -> list[BenchmarkSample]:
    return [BenchmarkSample.model_validate_json(line)
            for line in (directory / "samples.jsonl").read_text("utf-8").splitlines()]


# -- pure parts ------------------------------------------------------------------------

def test_split_is_a_function_of_seed_and_question() -> None:
    ids = [f"q{i}" for i in range(4000)]
    splits = [split_of(q, 7, 0.15) for q in ids]
    assert splits == [split_of(q, 7, 0.15) for q in ids]
    share = splits.count("test") / len(ids)
    assert 0.13 < share < 0.17
    assert splits != [split_of(q, 8, 0.15) for q in ids]
    assert {split_of(q, 7, 0.0) for q in ids} == {"train"}
    assert {split_of(q, 7, 1.0) for q in ids} == {"test"}


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 100])
@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shard_blocks_partition_the_questions_in_order(n: int, count: int) -> None:
    joined = [i for k in range(count) for i in Shard(k, count).block(n)]
    assert joined == list(range(n))
    sizes = [len(Shard(k, count).block(n)) for k in range(count)]
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("text", ["3", "1/0", "4/4", "-1/3", "a/b", "1/"])
def test_bad_shard_specs_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="shard"):
        parse_shard(text)


def test_parse_shard() -> None:
    assert parse_shard("2/5") == Shard(2, 5)
    assert str(Shard(2, 5)) == "2/5"


# -- the pipeline ------------------------------------------------------------------------

def test_generate_writes_a_valid_split_benchmark(demo_store: Path, questions: list[Any],
                                                 tmp_path: Path) -> None:
    config = GenerateConfig(seed=3, test_fraction=0.3, chunk_size=4)
    result = generate(demo_store, questions, tmp_path, config, source=SOURCE, report=False)
    assert not (tmp_path / ".work").exists()
    assert not list(tmp_path.glob("*.part"))
    assert list(iter_schema_violations(tmp_path / "samples.jsonl")) == []
    samples = samples_of(tmp_path)
    assert len(samples) == result.stats["samples"] > 0
    # splits are by source question: every sample of a question shares its split
    splits: dict[str, set[str]] = defaultdict(set)
    for s in samples:
        splits[s.source.qid].add(s.split)
        assert s.split == split_of(s.source.qid, 3, 0.3)
        assert s.citation.startswith("[1] ")
        assert len(s.citations) >= 1
        assert s.verbalizer == "template"
    assert all(len(v) == 1 for v in splits.values())
    assert {next(iter(v)) for v in splits.values()} == {"train", "test"}
    # stats count what was written
    counted = Counter((s.split, s.label, s.complexity) for s in samples)
    stats = result.stats
    assert {(sp, lb, c): n for sp, block in stats["by_split"].items()
            for lb, row in block.items() for c, n in row.items() if n} == dict(counted)
    assert stats["questions"] == len(questions)
    failures = [json.loads(x) for x in (tmp_path / "failures.jsonl").read_text().splitlines()]
    assert sum(stats["failures_by_stage"].values()) == len(failures)
    assert json.loads((tmp_path / "stats.json").read_text()) == stats
    assert json.loads((tmp_path / "run.json").read_text())["config"]["seed"] == 3


def test_same_seed_is_byte_identical_with_and_without_workers(
        demo_store: Path, questions: list[Any], tmp_path: Path) -> None:
    one, two, pooled = tmp_path / "one", tmp_path / "two", tmp_path / "pooled"
    for directory, workers in ((one, 1), (two, 1), (pooled, 2)):
        generate(demo_store, questions, directory,
                 GenerateConfig(seed=11, chunk_size=3, workers=workers), source=SOURCE,
                 report=False)
    assert outputs(one) == outputs(two) == outputs(pooled)
    other = tmp_path / "other"
    generate(demo_store, questions, other, GenerateConfig(seed=12, chunk_size=3),
             source=SOURCE, report=False)
    assert outputs(other)["samples.jsonl"] != outputs(one)["samples.jsonl"]


def test_a_store_without_statistics_gets_them_once(
        demo_store: Path, questions: list[Any], tmp_path: Path) -> None:
    """A store loaded before the predicate statistics were kept (issue 35): the run
    computes them and the seed's type samples first, reporting progress, then reads
    them; the next run finds them kept; the samples are those of a store that had them
    all along."""
    import shutil

    from kgstore import open_store

    old = tmp_path / "old-store"
    shutil.copytree(demo_store, old)
    with open_store(str(old)) as s:
        s._write_meta({"predicate_stats": ""})
    steps: list[str] = []
    first = generate(old, questions, tmp_path / "a", GenerateConfig(seed=11, chunk_size=3),
                     source=SOURCE, report=False,
                     store_progress=lambda step, done, total: steps.append(step))
    assert first.timings["predicate_stats"] == "computed"
    assert any(step.startswith("predicate statistics") for step in steps)
    assert any(step.startswith("type samples: seed 11") for step in steps)
    again = generate(old, questions, tmp_path / "b",
                     GenerateConfig(seed=11, chunk_size=3, workers=2), source=SOURCE,
                     report=False)
    assert again.timings["predicate_stats"] == "kept"
    reference = tmp_path / "reference"
    generate(demo_store, questions, reference, GenerateConfig(seed=11, chunk_size=3),
             source=SOURCE, report=False)
    assert outputs(tmp_path / "a") == outputs(tmp_path / "b") == outputs(reference)


def test_shards_concatenate_to_the_unsharded_run(demo_store: Path, questions: list[Any],
                                                 tmp_path: Path) -> None:
    generate(demo_store, questions, tmp_path / "all", GenerateConfig(seed=5, chunk_size=4),
             source=SOURCE, report=False)
    joined = {"samples.jsonl": b"", "failures.jsonl": b""}
    total = 0
    for k in range(3):
        result = generate(demo_store, questions, tmp_path / f"shard{k}",
                          GenerateConfig(seed=5, chunk_size=4, shard=Shard(k, 3)),
                          source=SOURCE, report=False)
        total += result.stats["questions"]
        for name in joined:
            joined[name] += (tmp_path / f"shard{k}" / name).read_bytes()
    whole = outputs(tmp_path / "all")
    assert total == len(questions)
    assert joined["samples.jsonl"] == whole["samples.jsonl"]
    assert joined["failures.jsonl"] == whole["failures.jsonl"]


class Interrupt(Exception):
    pass


def test_an_interrupted_run_resumes_to_the_same_output(demo_store: Path, questions: list[Any],
                                                       tmp_path: Path) -> None:
    config = GenerateConfig(seed=2, chunk_size=2)
    clean = tmp_path / "clean"
    generate(demo_store, questions, clean, config, source=SOURCE, report=False)

    crashed = tmp_path / "crashed"
    calls = []

    def stop_after_three_chunks(done: int, total: int, samples: int) -> None:
        calls.append(done)
        if len(calls) == 4:   # the first call reports the start
            raise Interrupt

    with pytest.raises(Interrupt):
        generate(demo_store, questions, crashed, config, source=SOURCE,
                 progress=stop_after_three_chunks, report=False)
    work = crashed / ".work"
    assert len(list(work.glob("chunk-*.stats.json"))) == 3
    assert not (crashed / "samples.jsonl").exists()   # nothing presented as complete
    result = generate(demo_store, questions, crashed, config, source=SOURCE, report=False)
    assert result.resumed_chunks == 3
    assert outputs(crashed) == outputs(clean)
    # a finished run rerun is a no-op
    again = generate(demo_store, questions, crashed, config, source=SOURCE, report=False)
    assert again.resumed_chunks == -1
    assert outputs(crashed) == outputs(clean)


def test_a_different_run_in_the_same_directory_needs_force(
        demo_store: Path, questions: list[Any], tmp_path: Path) -> None:
    generate(demo_store, questions[:4], tmp_path, GenerateConfig(seed=1), source=SOURCE,
             report=False)
    with pytest.raises(GenerateError, match="--force"):
        generate(demo_store, questions[:4], tmp_path, GenerateConfig(seed=2), source=SOURCE,
                 report=False)
    result = generate(demo_store, questions[:4], tmp_path, GenerateConfig(seed=2),
                      source=SOURCE, report=False, force=True)
    assert result.stats["seed"] == 2
    assert all(s.seed == 2 for s in samples_of(tmp_path))


def test_an_unfinished_different_run_is_refused(demo_store: Path, questions: list[Any],
                                                tmp_path: Path) -> None:
    def interrupt(done: int, total: int, samples: int) -> None:
        if done:
            raise Interrupt

    with pytest.raises(Interrupt):
        generate(demo_store, questions, tmp_path, GenerateConfig(seed=1, chunk_size=2),
                 source=SOURCE, progress=interrupt, report=False)
    with pytest.raises(GenerateError, match="unfinished run"):
        generate(demo_store, questions, tmp_path, GenerateConfig(seed=9, chunk_size=2),
                 source=SOURCE, report=False)


def test_phrase_overrides_change_the_citations(demo_store: Path, questions: list[Any],
                                               tmp_path: Path) -> None:
    phrases = tmp_path / "phrases.tsv"
    phrases.write_text("film.film.directed_by\twas helmed by\n", encoding="utf-8")
    config = GenerateConfig(seed=0, text=TextOptions(phrases_file=phrases))
    generate(demo_store, questions, tmp_path / "out", config, source=SOURCE, report=False)
    texts = [c.text for s in samples_of(tmp_path / "out") for c in s.citations
             if any(t.p == "film.film.directed_by" for t in c.triples)]
    assert texts and all(re.search(r"(was|were) helmed (only )?by", t) for t in texts)
