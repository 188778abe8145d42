"""``--store bolt://...`` of bench/store_bench.py and bench/extend_bench.py against the
real Neo4j server (``make neo4j-up``), at tiny sizes: both backends measured side by
side, the same answers, imports timed, round trips counted. Also: the benchmark's
synthetic stage is one that ``kgbench store export-neo4j`` accepts."""

from __future__ import annotations

import json

import pytest

from kgstore.neo4j_admin import export_for_neo4j_admin
from tests.bench import load_bench
from tests.neo4j_server import URI, requires_neo4j, wipe


def test_synthetic_stage_lists_part_checksums_so_the_neo4j_export_accepts_it(tmp_path):
    info = load_bench("synth_kg").generate_kg(tmp_path / "stage", entities=1_500, facts=6_000,
                                              seed=1)
    report = export_for_neo4j_admin(str(tmp_path / "stage"), tmp_path / "export")
    assert report.facts == info.facts_distinct


@requires_neo4j
@pytest.mark.neo4j
def test_store_bench_reports_both_backends_side_by_side(tmp_path, monkeypatch):
    monkeypatch.setenv("KGBENCH_HUB_MIN_DEGREE", "50")
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "neo4j-work"))
    wipe()
    bench = load_bench("store_bench")
    out = tmp_path / "out"
    record = bench.main([
        "--entities", "1500", "--facts", "6000", "--queries", "8", "--warmup", "1",
        "--out", str(out), "--work", str(tmp_path / "work"), "--store", URI,
        "--neo4j-classpath", str(tmp_path / "no-classpath.txt")])
    b = json.loads((out / "store_bench.jsonl").read_text().splitlines()[0])["backends"]
    assert b == json.loads(json.dumps(record["backends"], sort_keys=True))
    assert b["import_online"]["facts_new"] == record["generated"]["facts_distinct"]
    assert b["import_online"]["stats"]["facts"] == record["ingest"]["store_stats"]["facts"]
    assert "skipped" in b["import_admin"]
    lat = b["latency_ms"]
    for op, ratio in b["ratio_neo4j_over_embedded"].items():
        done, total = ratio["same_answers"].split("/")
        assert done == total != "0", op
        assert lat["embedded"][op]["p50"] > 0 and lat["neo4j"][op]["p50"] > 0
        assert lat["neo4j"][op]["transactions_per_call"] >= 1
        assert "transactions_per_call" not in lat["embedded"][op]
    hub = b["hub_read_layouts"]
    assert hub["pairs"] > 0 and hub["same_rows"] == f"{hub['pairs']}/{hub['pairs']}"
    assert set(hub["engine_ms"]) == {"property_filter", "hub_index"}


@requires_neo4j
@pytest.mark.neo4j
def test_extend_bench_runs_the_same_questions_on_neo4j(tmp_path, monkeypatch):
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "neo4j-work"))
    wipe()
    bench = load_bench("extend_bench")
    record = bench.main(["--quick", "--questions", "12", "--seed", "2", "--out",
                         str(tmp_path / "out"), "--work", str(tmp_path / "work"),
                         # One process: spawned workers cannot import a bench module
                         # loaded from its path (the real runs use --workers 1,2).
                         "--workers", "1", "--store", URI])
    neo = record["neo4j"]
    assert neo["load"]["reused"] is False and neo["load"]["facts_per_s"] > 0
    assert neo["samples_identical_to_embedded"] is True
    where = neo["where_the_time_goes"]
    # One read transaction serves consecutive questions (shared_reads.KEEP_OPEN_S).
    assert 0 < where["transactions_per_question"] < 1
    assert 0 < where["engine_ms_per_question"] <= where["neo4j_read_ms_per_question"]
    assert where["neo4j_read_ms_per_question"] <= where["ms_per_question"]
    # transactions, statements and round trips per question, recorded one by one
    # (issue 35: at most three transactions a question)
    for key in ("transactions_per_question", "queries_per_question",
                "round_trips_per_question"):
        per_question = neo[key]
        assert per_question["mean"] == where[key], key
        first = 0 if key == "transactions_per_question" else 1
        assert first <= per_question["p50"] <= per_question["p90"] <= per_question["max"], key
    assert neo["transactions_per_question"]["max"] <= 3
    assert neo["round_trips_per_question"]["mean"] > neo["queries_per_question"]["mean"] \
        >= neo["transactions_per_question"]["mean"]
    assert neo["ratio_neo4j_over_embedded_questions_per_s"] > 0
    # the statistics were kept by the load, the seed's type samples computed first
    assert record["store_preparation"] == neo["store_preparation"] == "computed"


@requires_neo4j
@pytest.mark.neo4j
def test_neo4j_import_bench_compares_two_revisions_that_leave_the_same_store(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("KGBENCH_HUB_MIN_DEGREE", "50")
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "neo4j-work"))
    wipe()
    bench = load_bench("neo4j_import_bench")
    out = tmp_path / "out"
    record = bench.main(["--store", URI, "--entities", "1500", "--facts", "6000",
                         "--baseline-ref", "HEAD", "--work", str(tmp_path / "work"),
                         "--warmup-facts", "1000", "--out", str(out)])
    assert json.loads((out / "neo4j_import_bench.jsonl").read_text()) == \
        json.loads(json.dumps(record, sort_keys=True))
    assert set(record["runs"]) == {"baseline", "this"}
    facts = record["left"]["this"]["facts"]
    assert facts > 5_000 and record["left"]["this"]["slot_links"] > 0
    assert record["same_content"]
    for run in (*record["runs"]["baseline"], *record["runs"]["this"]):
        assert run["facts_new"] == facts and run["facts_per_s"] > 0
    assert record["ratio_this_over_baseline"] > 0 and record["embedded"]["facts_per_s"] > 0
    assert not (tmp_path / "work" / "baseline-tree").exists()
    # the untimed warm-up ran on its own stage; the server's heap and JIT are recorded
    assert record["warmup_facts"] == 1000
    assert json.loads((tmp_path / "work" / "warmup-stage.json").read_text())["facts"] == 1000
    if record["server_pid_known"]:
        assert any(option.startswith("-Xmx") for option in record["server_jvm"])
