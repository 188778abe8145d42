"""``kgbench export`` end to end: the real CLI in a subprocess on real benchmark samples.

The samples are the demo KG's (:func:`tests.extension.test_export.demo_benchmark`),
written as ``kgbench generate`` writes ``DIR/samples.jsonl``. Checked: the files and the
printed counts, ``--json``, ``--split``, repeated ``--label-map`` with ``drop``, and
exit codes and one-line messages for bad options and bad input.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from kgbench.cli import main
from tests.extension.test_export import write_benchmark
from tests.kgbench.test_cli import assert_clean_error, run
from tests.scoring import demo_bench

samples = demo_bench.samples   # the fixtures of the demo benchmark this module exports
bench = demo_bench.bench


def table_counts(stdout: str) -> dict[str, int]:
    """``label -> samples`` from the printed table (its last column)."""
    counts = {}
    for line in stdout.splitlines():
        cells = line.split()
        if len(cells) >= 2 and cells[-1].replace(",", "").isdigit():
            counts[cells[0]] = int(cells[-1].replace(",", ""))
    return counts


def test_export_caqa(bench: Path, tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "caqa.csv"
    proc = run("export", bench, "--to", "caqa", "--out", out)
    assert proc.returncode == 0, proc.stderr
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["query", "answer", "reference", "label", "id"]
    written = Counter(row[3] for row in rows[1:])
    assert set(written) == {"Support", "Missing", "Contradictory", "Irrelevant"}
    assert table_counts(proc.stdout) == dict(written)
    assert [row[4] for row in rows[1:]] == [s.id for s in samples]
    assert f"wrote {len(samples)} of {len(samples)} samples to {out}" in proc.stderr
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize(("fmt", "scheme"), [("caqa", "caqa"), ("attrscore", "attrscore")])
def test_an_evaluators_labels_join_back_by_the_id_column(
        bench: Path, tmp_path: Path, samples: tuple[BenchmarkSample, ...], fmt: str,
        scheme: str) -> None:
    """issue 38: the CSV had no id, so an evaluator's labels could not be joined back.
    Labels read back from the CSV, by its id column, score F1 1 on every sample."""
    out = tmp_path / f"{fmt}.csv"
    assert run("export", bench, "--to", fmt, "--out", out).returncode == 0
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"id": r["id"], "label": r["label"]}) + "\n"
                                   for r in reversed(rows)), encoding="utf-8")
    proc = run("evaluate", bench, "--predictions", predictions, "--scheme", scheme,
               "--split", "all", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["n"] == len(samples) and doc["overall_micro_f1"] == 1.0


def test_export_json_split_and_label_maps(bench: Path, tmp_path: Path,
                                          samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "sub" / "attrscore.csv"
    proc = run("export", bench / "samples.jsonl", "--to", "AttrScore", "--out", out,
                   "--split", "test", "--label-map", "partially_supportive=Contradictory",
                   "-m", "irrelevant=drop", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    test = [s for s in samples if s.split == "test"]
    by_label = {"Attributable": sum(s.label == "supportive" for s in test),
                "Contradictory": sum(s.label in ("contradictory", "partially_supportive")
                                     for s in test)}
    assert doc["by_label"] == by_label
    assert doc["dropped"] == {"irrelevant": sum(s.label == "irrelevant" for s in test)}
    assert doc["other_split"] == len(samples) - len(test)
    assert doc["label_map"] == {"supportive": "Attributable",
                                "partially_supportive": "Contradictory",
                                "contradictory": "Contradictory", "irrelevant": "drop"}
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert Counter(r["label"] for r in rows) == by_label
    assert doc["written"] == len(rows) > 0


def test_export_alce(bench: Path, tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "alce.json"
    proc = run("export", bench, "--to", "alce", "--out", out, "--split", "train")
    assert proc.returncode == 0, proc.stderr
    records = json.loads(out.read_text(encoding="utf-8"))
    assert [r["id"] for r in records] == [s.id for s in samples if s.split == "train"]
    assert all(set(r) >= {"question", "answer", "docs"} for r in records)
    assert "not in the train split" in proc.stderr


@pytest.mark.parametrize(("args", "message", "hint"), [
    (["--to", "csv"], "unknown export format 'csv'", "caqa, attrscore, alce, jsonl"),
    (["--to", "caqa", "--split", "dev"], "unknown split 'dev'", "train, test, all"),
    (["--to", "caqa", "--label-map", "partial=Support"], "'partial' is not a kgbench label",
     "partially_supportive"),
    (["--to", "attrscore", "-m", "irrelevant=Irrelevant"],
     "'Irrelevant' is not a attrscore label", "Attributable, Extrapolatory, Contradictory"),
    (["--to", "caqa", "-m", "irrelevant"], "is not LABEL=TARGET", "irrelevant=drop"),
])
def test_bad_options_are_usage_errors(bench: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str], args: list[str],
                                      message: str, hint: str) -> None:
    # In process (the same main() as the console script), to keep the many cases fast.
    out = tmp_path / "x.csv"
    with pytest.raises(SystemExit) as info:
        main(["export", str(bench), "--out", str(out), *args])
    stderr = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2
    assert stderr.startswith("Error: ") and "Traceback" not in stderr
    assert message in stderr
    assert "hint:" in stderr and hint in stderr
    assert not out.exists()


def test_a_bad_option_in_a_subprocess(bench: Path, tmp_path: Path) -> None:
    proc = run("export", bench, "--to", "csv", "--out", tmp_path / "x.csv")
    assert_clean_error(proc, code=2)
    assert "unknown export format 'csv'" in proc.stderr
    assert proc.stdout == ""


def test_missing_benchmark_says_to_generate(tmp_path: Path) -> None:
    proc = run("export", tmp_path / "nowhere", "--to", "caqa", "--out", tmp_path / "x.csv")
    assert_clean_error(proc)
    assert "nowhere: no such directory" in proc.stderr
    assert "kgbench generate" in proc.stderr


def test_bad_sample_line_names_the_line(tmp_path: Path,
                                       samples: tuple[BenchmarkSample, ...]) -> None:
    path = write_benchmark(tmp_path / "bench", samples[:3])
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], lines[1][:-5], lines[2]]) + "\n", encoding="utf-8")
    out = tmp_path / "x.jsonl"
    proc = run("export", tmp_path / "bench", "--to", "jsonl", "--out", out)
    assert_clean_error(proc)
    assert f"{path}:2: not a benchmark sample" in proc.stderr
    assert not out.exists() and not list(tmp_path.glob("*.part"))
