"""Smoke test of bench/questions_bench.py in --quick mode (parse part only when
KGBENCH_EXTERNAL_DATA is set), and the determinism of its query generator."""

from __future__ import annotations

import json
import os

import pytest

from tests.bench import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("questions_bench")


@pytest.mark.slow
def test_quick_benchmark(bench, tmp_path):
    out, work = tmp_path / "out", tmp_path / "work"
    record = bench.main(["--quick", "--seed", "3", "--out", str(out), "--work", str(work),
                         "--keep"])
    lines = (out / "questions_bench.jsonl").read_text().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == json.loads(json.dumps(record, sort_keys=True))
    assert record["params"]["seed"] == 3 and record["params"]["facts"] == 20_000
    assert record["machine"]["cores"] and "date" in record and "commit" in record
    assert (out / "questions_bench.png").stat().st_size > 0

    g = record["grounding"]
    n = g["queries"]["per_shape"]
    assert g["queries"]["generated"] == 3 * n
    # Every generated query is of the shape it was built as, and finds its sampled answer.
    assert g["queries"]["classified"] == {"single": n, "path": n, "tree": n}
    assert g["queries"]["by_kind"]["single_cvt"] == n // 3
    assert g["queries"]["expected_answer_found"] == 3 * n
    for who in ("store", "networkx"):
        for shape in ("single", "path", "tree", "all"):
            stats = g[who][shape]
            assert stats["n"] == (3 * n if shape == "all" else n)
            assert 0 < stats["p50"] <= stats["p99"] and stats["qps"] > 0
    # The networkx matcher agrees with the store on every untruncated query.
    assert g["agreement"]["compared"] > 0
    assert g["agreement"]["equal"] == g["agreement"]["compared"]
    assert set(g["ratio_store_over_networkx"]["all"]) == {"p50", "p99", "mean"}
    assert g["facts_stored"] == g["kg"]["facts_distinct"]

    if os.environ.get("KGBENCH_EXTERNAL_DATA"):
        for name in ("webqsp", "grailqa"):
            p = record["parse"][name]
            assert p["questions"] == 50 and p["qps"] > 0 and p["baseline"]["qps"] > 0
            assert p["sample_results_identical"] == p["baseline"]["questions"] == 8
            assert p["ratio_cached_over_uncached"] > 0
    else:
        assert all("skipped" in v for v in record["parse"].values())

    # Query generation is a function of the store and the seed.
    from kgstore import open_store

    with open_store(work / "store", read_only=True) as store:
        a = bench.generate_queries(store, 5, seed=1)
        b = bench.generate_queries(store, 5, seed=1)
    assert [q.graph for q in a] == [q.graph for q in b] and len(a) > 10


def test_help(bench, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.parse_args(["--help"])
    assert exit_info.value.code == 0
    assert "--facts" in capsys.readouterr().out
