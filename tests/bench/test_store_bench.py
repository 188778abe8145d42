"""Smoke test of bench/store_bench.py at tiny scale, and its seed determinism."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.bench import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("store_bench")


def test_seed_reproduces_stage_byte_for_byte(tmp_path):
    synth = load_bench("synth_kg")
    kw = dict(entities=1_500, facts=6_000, cvt_fraction=0.05)
    a = synth.generate_kg(tmp_path / "a", seed=7, **kw)
    b = synth.generate_kg(tmp_path / "b", seed=7, **kw)
    synth.generate_kg(tmp_path / "c", seed=8, **kw)
    ha, hb, hc = (synth.stage_hashes(tmp_path / d) for d in "abc")
    assert any(k.endswith(".parquet") for k in ha)
    assert ha == hb
    assert ha != hc
    assert a.public() | {"seconds": 0} == b.public() | {"seconds": 0}
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["layout"] == 1 and manifest["complete"] is True
    assert manifest["counts"]["facts"] == a.fact_rows
    assert a.cvt == 75 and a.names_shared > 0 and a.literal_facts > 0


@pytest.mark.slow
def test_benchmark_smoke(bench, tmp_path):
    out = tmp_path / "out"
    work = tmp_path / "work"
    record = bench.main([
        "--entities", "2000", "--facts", "10000", "--queries", "50", "--seed", "3",
        "--out", str(out), "--work", str(work), "--keep",
    ])
    lines = (out / "store_bench.jsonl").read_text().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert rec["params"]["entities"] == 2000 and rec["params"]["seed"] == 3
    assert rec == json.loads(json.dumps(record, sort_keys=True))

    # Facts ingested == distinct facts of the stage (import dedupes repeated rows).
    distinct = duckdb.sql(
        "SELECT count(*) FROM (SELECT DISTINCT subject, predicate, object, object_kind "
        f"FROM read_parquet('{work / 'stage' / 'facts' / '*.parquet'}'))"
    ).fetchall()[0][0]
    rows = duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{work / 'stage' / 'facts' / '*.parquet'}')"
    ).fetchall()[0][0]
    ing = rec["ingest"]
    assert ing["facts_ingested"] == distinct == rec["generated"]["facts_distinct"]
    assert ing["report"]["facts_duplicate"] == rows - distinct > 0
    assert ing["store_stats"]["facts"] == distinct
    assert ing["store_stats"]["cvt_entities"] == rec["generated"]["cvt"]
    assert ing["facts_per_s"] > 0 and ing["seconds"] > 0 and ing["peak_rss_mb"] > 0
    assert ing["store_mb"] > 0 and set(ing["steps"]) >= {"read stage", "facts", "names"}

    for who in ("store", "networkx"):
        for op in ("entity", "by_name", "1hop", "2hop"):
            stats = rec["latency_ms"][who][op]
            assert stats["n"] == 50
            assert 0 < stats["p50"] <= stats["p99"]
            assert stats["mean"] > 0
    for op in ("entity", "by_name", "1hop", "2hop"):
        assert set(rec["latency_ms"]["ratio_store_over_networkx"][op]) == {"p50", "p99", "mean"}
    assert rec["networkx"]["build_seconds"] > 0
    assert rec["networkx"]["edges"] == distinct

    # The networkx baseline answers exactly like the store where no cap applies.
    agree = rec["agreement"]
    assert agree["entity_equal"] == agree["by_name_equal"] == 50
    assert agree["1hop_untruncated_equal"] == agree["1hop_untruncated"] > 0
    assert agree["2hop_untruncated_equal"] == agree["2hop_untruncated"]

    assert set(rec["targets"]) == {"ingest_facts_per_s", "ingest_peak_rss_mb", "2hop_p50_ms",
                                   "search_p50_ms"}
    assert all(isinstance(t["pass"], bool) for t in rec["targets"].values())
    assert rec["machine"]["cores"] and rec["machine"]["ladybug"] and rec["machine"]["duckdb"]
    assert (out / "store_bench_latency.png").stat().st_size > 0
    assert (work / "store" / "kgbench-store.json").exists()  # --keep
