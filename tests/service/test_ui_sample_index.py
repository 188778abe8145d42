"""The benchmark index behind the sample browser (:mod:`kgbench.service.sample_index`),
on the demo benchmark ``kgbench generate`` writes: finding benchmark directories
(depth, hidden and linked directories), indexing (counts equal ``stats.json``'s, bad
lines counted), filtering and search, the per-(path, mtime, size) cache, reading one
sample (also from ``.gz``) and what a sample's edit changed."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from extension.outputs.caqa_table5 import compare_with_caqa, counts_of_stats
from extension.outputs.sample_schema import BenchmarkSample
from kgbench.service.sample_index import (
    SampleFilter,
    SampleNotFoundError,
    benchmark_table,
    build_index,
    find_benchmark_dirs,
    load_index,
    sample_edits,
)


@pytest.fixture(scope="module")
def demo_bench(demo_data_dir: Path) -> Path:
    """The demo benchmark directory (read-only)."""
    return demo_data_dir / "benchmarks" / "demo"


@pytest.fixture(scope="module")
def demo_samples(demo_bench: Path) -> list[BenchmarkSample]:
    lines = (demo_bench / "samples.jsonl").read_bytes().splitlines()
    return [BenchmarkSample.model_validate_json(line) for line in lines if line.strip()]


def copy_bench(demo_bench: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for name in ("samples.jsonl", "stats.json"):
        shutil.copy(demo_bench / name, target / name)
    return target


def test_finds_benchmarks_down_to_four_levels_not_hidden_not_through_links(
        demo_bench: Path, tmp_path: Path) -> None:
    root = tmp_path / "data"
    copy_bench(demo_bench, root / "benchmarks" / "a")
    copy_bench(demo_bench, root / "jobs" / "j1" / "out" / "x")                # depth 4
    copy_bench(demo_bench, root / "too" / "deep" / "for" / "the" / "walk")    # depth 5
    copy_bench(demo_bench, root / ".hidden" / "b")
    gz = copy_bench(demo_bench, root / "zipped")
    with gzip.open(gz / "samples.jsonl.gz", "wb") as f:
        f.write((gz / "samples.jsonl").read_bytes())
    (gz / "samples.jsonl").unlink()
    unfinished = root / "unfinished"                                            # no stats.json
    unfinished.mkdir()
    shutil.copy(demo_bench / "samples.jsonl", unfinished / "samples.jsonl")
    outside = copy_bench(demo_bench, tmp_path / "outside" / "c")
    os.symlink(outside.parent, root / "link")

    found = find_benchmark_dirs(root)

    assert [b.name for b in found] == ["benchmarks/a", "jobs/j1/out/x", "zipped"]
    assert [b.samples_file for b in found] == ["samples.jsonl", "samples.jsonl", "samples.jsonl.gz"]
    stats = json.loads((demo_bench / "stats.json").read_text())
    assert all(b.samples == stats["samples"] for b in found)
    assert found[0].source == stats["source"]["file"]
    assert found[0].created.endswith("+00:00")


def test_a_damaged_stats_file_leaves_count_and_source_unknown(demo_bench: Path,
                                                              tmp_path: Path) -> None:
    bench = copy_bench(demo_bench, tmp_path / "data" / "b")
    (bench / "stats.json").write_text("{not json")
    [found] = find_benchmark_dirs(tmp_path / "data")
    assert (found.name, found.samples, found.source) == ("b", None, None)


def test_the_index_counts_what_stats_json_counts(demo_bench: Path) -> None:
    index = build_index(demo_bench / "samples.jsonl")
    stats = json.loads((demo_bench / "stats.json").read_text())
    assert len(index.samples) == stats["samples"]
    assert index.invalid == 0
    assert index.counts() == stats["by_split"]
    table = benchmark_table(index)
    assert table["caqa"] == compare_with_caqa(counts_of_stats(stats)).to_json()
    assert table["labels"][0] == "supportive"


def test_lines_that_are_no_sample_are_counted_not_indexed(demo_bench: Path, tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    lines = (demo_bench / "samples.jsonl").read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([lines[0], b"\n", b"{not json\n", b'{"id": "x"}\n', lines[0],
                               b"[1, 2]\n", *lines[1:]]))
    index = build_index(path)
    assert len(index.samples) == len(lines)
    assert index.invalid == 4            # not JSON, no label, a repeated id, not an object
    assert index.first_invalid == 3
    second = index.samples[1]
    assert index.read(second.id).id == second.id   # offsets skip the bad lines


def test_filters_and_search(demo_bench: Path, demo_samples: list[BenchmarkSample]) -> None:
    index = build_index(demo_bench / "samples.jsonl")
    assert len(index.select(SampleFilter())) == len(demo_samples)
    contradictory = index.select(SampleFilter(label="contradictory"))
    assert [s.id for s in contradictory] == [s.id for s in demo_samples
                                             if s.label == "contradictory"]
    both = index.select(SampleFilter(label="supportive", complexity="intersection",
                                     split="train"))
    assert both and [s.id for s in both] == [
        s.id for s in demo_samples if (s.label, s.complexity, s.split)
        == ("supportive", "intersection", "train")]
    # search: case-insensitive, in the citations too (a phrase only a citation holds)
    target = next(s for s in demo_samples if s.citations
                  and s.citations[-1].text not in s.question + s.answer)
    phrase = target.citations[-1].text[:25].upper()
    hits = index.select(SampleFilter(q=phrase))
    assert target.id in [s.id for s in hits]
    assert all(phrase.casefold() in " ".join(
        [d.id, d.question, d.question_extended, d.answer, d.citation]).casefold()
        for d in demo_samples if d.id in {h.id for h in hits})
    assert index.select(SampleFilter(q="no sample says this zzqx")) == ()


def test_the_cache_keeps_an_index_until_the_file_changes(demo_bench: Path, tmp_path: Path) -> None:
    path = copy_bench(demo_bench, tmp_path / "b") / "samples.jsonl"
    first = load_index(path)
    assert load_index(path) is first
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]))
    second = load_index(path)
    assert second is not first and len(second.samples) == 5


def test_read_one_sample_plain_and_gzipped(demo_bench: Path, tmp_path: Path,
                                           demo_samples: list[BenchmarkSample]) -> None:
    gz = tmp_path / "samples.jsonl.gz"
    with gzip.open(gz, "wb") as f:
        f.write((demo_bench / "samples.jsonl").read_bytes())
    for path in (demo_bench / "samples.jsonl", gz):
        index = load_index(path)
        last = demo_samples[-1]
        assert index.read(last.id) == last
        with pytest.raises(SampleNotFoundError):
            index.read("no-such-sample")


def test_what_each_kind_of_edit_changed(demo_samples: list[BenchmarkSample]) -> None:
    by_kind = {s.edit.kind: s for s in demo_samples}
    assert set(by_kind) >= {"none", "delete_triple", "delete_path", "replace_answer",
                            "swap_subgraph"}
    none = sample_edits(by_kind["none"])
    assert not none.added and not none.removed
    for kind in ("delete_triple", "delete_path"):
        edits = sample_edits(by_kind[kind])
        deleted = {t.fact() for t in by_kind[kind].edit.deleted}
        assert edits.removed == deleted and not edits.added
        assert deleted <= set(edits.facts)           # drawn, so the UI can show them dashed
    contradictory = sample_edits(by_kind["replace_answer"])
    replacement = by_kind["replace_answer"].edit.replacement
    assert replacement is not None and contradictory.added and contradictory.removed
    assert any(f.object == replacement.id or getattr(f.object, "value", None) == replacement.value
               for f in contradictory.added)
    swapped = sample_edits(by_kind["swap_subgraph"])
    sample = by_kind["swap_subgraph"]
    assert swapped.added == {t.fact() for t in sample.subgraph} - {
        t.fact() for t in sample.original_subgraph}
    assert swapped.names                            # names come from the triples
