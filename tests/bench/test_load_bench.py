"""Smoke test of bench/load_bench.py at tiny scale: the record has every field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("load_bench")


@pytest.mark.slow
def test_load_bench_smoke(bench, tmp_path: Path) -> None:
    out = tmp_path / "results"
    pytest.importorskip("pyoxigraph")
    record = bench.main(["--sizes", "3000", "--baseline-lines", "1000", "--seed", "3",
                         "--out", str(out), "--work", str(tmp_path / "work"), "--quiet"])
    lines = (out / "load_bench.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["params"]["seed"] == 3
    assert (out / "load_bench.png").stat().st_size > 0
    assert record["freebase_lines"] == 3_130_000_000
    (size,) = record["sizes"]
    assert size["lines"] == 3000 and size["gzip_ratio"] > 1
    runs = size["runs"]
    assert set(runs) == {"freebase", "rdf", "rdflib", "oxigraph"}
    for name, run in runs.items():
        for key in ("seconds", "lines_per_s", "stored_facts", "stored_facts_per_s",
                    "peak_rss_mb", "disk_bytes"):
            assert key in run, (name, key)
        assert run["peak_rss_mb"] > 0 and run["stored_facts"] > 0
    assert runs["freebase"]["lines"] == 3000
    assert runs["freebase"]["raw_lines_per_s_parse_filter"] > 0
    assert runs["freebase"]["dropped_total"] > 0  # the default filter drops some predicates
    assert runs["rdflib"]["lines"] == 1000 and runs["rdflib"]["prefix"] is True
    ex = size["extrapolation_full_dump"]
    assert ex["hours_parse_filter"] > 0 and ex["hours_end_to_end"] > 0
    assert size["speedup_vs_rdflib"] > 0
    assert set(size["targets_met"]) >= {"raw_lines_per_s", "stored_facts_per_s", "peak_rss_mb"}


def test_summary_without_the_rdflib_baseline_says_so(bench, tmp_path: Path, capsys) -> None:
    """A run of kgbench's loaders alone (``--loaders freebase``) has no speed-up to
    print; the summary says it was not measured rather than "nanx"."""
    record = bench.main(["--sizes", "2000", "--loaders", "freebase", "--seed", "4",
                         "--out", str(tmp_path / "results"), "--work", str(tmp_path / "work")])
    (size,) = record["sizes"]
    assert "speedup_vs_rdflib" not in size and "speedup_vs_rdflib" not in size["targets_met"]
    out = capsys.readouterr().out
    assert "speed-up vs rdflib not measured" in " ".join(out.split())
    assert "nanx" not in out


def test_same_seed_same_dump(tmp_path: Path) -> None:
    from bench.freebase_synth import generate

    a = generate(tmp_path / "a.nt", 2000, seed=5).read_bytes()
    b = generate(tmp_path / "b.nt", 2000, seed=5).read_bytes()
    assert a == b


def test_synthetic_dump_compresses_like_the_real_one(tmp_path: Path) -> None:
    """The real Freebase dump is about 9x smaller gzipped and ~136 bytes a line; a
    synthetic dump much easier to compress would flatter decompression and parsing."""
    import gzip

    from bench.freebase_synth import generate

    path = generate(tmp_path / "d.nt.gz", 20_000, seed=1)
    raw = gzip.decompress(path.read_bytes())
    assert 8.0 <= len(raw) / path.stat().st_size <= 10.5
    assert 120 <= len(raw) / 20_000 <= 160
