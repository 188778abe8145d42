"""``kgbench evaluate BENCH --baseline ...``: the real CLI on the demo benchmark (one run
in a subprocess, the bad inputs in process through the same ``main()``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extension.test_export import write_benchmark
from tests.kgbench.test_cli import assert_clean_error, run
from tests.kgbench.test_cli_evaluate import in_process
from tests.scoring.demo_bench import demo_samples
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401  (fixtures)

KEYS = ["protocol", "per_label", "per_complexity", "overall_micro_f1", "macro_f1", "confusion", "n",
        "unparsed", "baseline"]


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    write_benchmark(tmp_path / "bench", demo_samples())
    return tmp_path / "bench"


def test_overlap_baseline_prints_beside_chance_and_records_it(bench: Path,
                                                             tmp_path: Path) -> None:
    out = tmp_path / "doc.json"
    proc = run("evaluate", bench, "--baseline", "overlap", "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert list(doc) == KEYS and json.loads(out.read_text("utf-8")) == doc
    assert doc["protocol"] == "kgbench"
    block = doc["baseline"]
    assert block["baseline"] == "overlap" and block["model"] is None
    assert block["chance"]["majority"]["macro_f1"] < block["macro_f1"]
    assert "fitted on" in proc.stderr and "baselines.json" in proc.stderr
    saved = json.loads((bench / "baselines.json").read_text("utf-8"))
    assert saved["results"][0]["macro_f1"] == doc["macro_f1"]

    table = run("evaluate", bench, "--baseline", "length")
    assert table.returncode == 0, table.stderr
    assert "What a shortcut gets, beside chance" in table.stdout
    assert "chance: random, train shares (200 draws)" in table.stdout
    assert "shortcut (length)" in table.stdout
    page = (bench / "report.html").read_text("utf-8")   # no report before: a page of its own
    assert 'data-baseline="length"' in page and 'data-baseline="overlap"' in page


@pytest.mark.parametrize(("args", "says"), [
    (["--baseline", "bleu"], "unknown baseline"),
    (["--baseline", "embed:"], "needs the embed model's directory"),
    (["--baseline", "overlap", "--split", "train"], "scored on the test split"),
    (["--baseline", "overlap", "--predictions", "p.jsonl"], "give one evaluator"),
    (["--baseline", "overlap", "--protocol", "released"], "kgbench's protocol only"),
])
def test_usage_errors(bench: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                      says: str) -> None:
    (bench.parent / "p.jsonl").write_text("", encoding="utf-8")
    code, _, err = in_process(capsys, "evaluate", bench, *[a.replace(
        "p.jsonl", str(bench.parent / "p.jsonl")) for a in args])
    assert code == 2 and says in " ".join(err.split())
    assert not (bench / "baselines.json").exists()


def test_an_embed_baseline_needs_an_embed_model(bench: Path, exported: Exported,  # noqa: F811
                                                capsys: pytest.CaptureFixture[str]) -> None:
    nli = exported("bert", "nli")
    code, _, err = in_process(capsys, "evaluate", bench, "--baseline", f"embed:{nli}")
    assert code == 1 and "a nli model, this needs a embed model" in " ".join(err.split())
    code, _, err = in_process(capsys, "evaluate", bench, "--baseline",
                              f"embed:{bench / 'missing'}")
    assert code == 1 and "not a model directory" in err and "Traceback" not in err


def test_a_benchmark_without_train_samples_is_one_line(tmp_path: Path) -> None:
    write_benchmark(tmp_path / "b", [s for s in demo_samples() if s.split == "test"])
    proc = run("evaluate", tmp_path / "b", "--baseline", "length")
    assert_clean_error(proc)
    assert "fits on the train split" in proc.stderr
