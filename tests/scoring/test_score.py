"""``score_benchmark`` end to end on the demo benchmark with the tiny exported models
(a BERT NLI model and a GPT-2 causal LM, random weights, run by onnxruntime on the
CPU): the files it writes agree with each other (the table and the flags are those of
scores.jsonl), the report section is replaced and never duplicated, an interrupted run
resumes to the same scores, a different run needs force, and bad input is one clear
error. Random models give near-uniform probabilities: the tests check structure and
the consistency of the numbers, not the models' quality."""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from kgstore.dirlock import DirectoryLock
from scoring.errors import ModelDirError, ScoringError
from scoring.score.benchmark import ScoreProgress, score_benchmark
from scoring.score.consistency import agrees, consistency_table, expected_outcome
from scoring.score.report_section import SECTION_BEGIN, SECTION_END
from tests.extension.test_export import demo_benchmark, write_benchmark
from tests.scoring.models import Exported

PAGE = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>r</title>"
        "</head><body><h1>kgbench benchmark report</h1><section id=\"summary\"><p>Tom &amp; "
        "Jerry</p></section></body></html>\n")
"""A report page as `kgbench generate` writes it (its end, ``</section></body></html>``,
is what the section is inserted before)."""


@pytest.fixture(scope="module")
def samples() -> tuple[BenchmarkSample, ...]:
    return demo_benchmark()


@pytest.fixture(scope="module")
def nli_dir(exported: Exported) -> Path:
    return exported("bert", "nli")


@pytest.fixture(scope="module")
def lm_dir(exported: Exported) -> Path:
    return exported("gpt2", "causal-lm")


@pytest.fixture()
def bench(tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> Path:
    directory = tmp_path / "bench"
    write_benchmark(directory, samples)
    (directory / "report.html").write_text(PAGE, encoding="utf-8")
    return directory


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def small_bench(directory: Path, samples: tuple[BenchmarkSample, ...], n: int) -> Path:
    """A benchmark of the first ``n`` samples, with a report page (a test that needs
    no label or split in particular runs faster on fewer samples)."""
    write_benchmark(directory, samples[:n])
    (directory / "report.html").write_text(PAGE, encoding="utf-8")
    return directory


def without_section(page: str) -> str:
    begin, end = page.index(SECTION_BEGIN), page.index(SECTION_END) + len(SECTION_END)
    return page[:begin] + page[end:]


def test_scores_table_flags_and_report_agree(bench: Path, nli_dir: Path, lm_dir: Path,
                                             samples: tuple[BenchmarkSample, ...]) -> None:
    seen: list[ScoreProgress] = []
    result = score_benchmark(bench, nli_dir=nli_dir, lm_dir=lm_dir, flag_below=0.5,
                             device="cpu", chunk_size=16, progress=seen.append)
    records = lines(bench / "scores.jsonl")
    assert [r["id"] for r in records] == [s.id for s in samples]   # samples.jsonl order
    for record, sample in zip(records, samples, strict=True):
        assert (record["label"], record["complexity"], record["split"]) == \
            (sample.label, sample.complexity, sample.split)
        nli = record["nli"]
        assert math.isclose(nli["entailment"] + nli["neutral"] + nli["contradiction"], 1,
                            abs_tol=1e-5)
        assert nli["expected"] == expected_outcome(sample.label)
        assert nli["predicted"] == max(("entailment", "neutral", "contradiction"),
                                       key=lambda role: nli[role])
        assert nli["consistent"] == agrees(nli["expected"], nli["predicted"])
        facts = record.get("sub_facts", [])
        assert len(facts) == (len(sample.sub_facts) if sample.label == "partially_supportive"
                              else 0)
        if facts:
            assert [f["supported"] for f in facts] == [f.supported for f in sample.sub_facts]
        perplexities = record["lm"]["perplexities"]
        assert len(perplexities) == len(sample.citations) and min(perplexities) >= 1
        assert record["lm"]["cohesion"] == pytest.approx(
            sum(1 / p for p in perplexities) / len(perplexities), rel=1e-5)   # CONNER Eq. 3

    run = json.loads((bench / "score_run.json").read_text("utf-8"))
    table = run["consistency"]
    assert table == consistency_table(records).to_json() == result.run["consistency"]
    counts = Counter(r["label"] for r in records)
    for label, row in table["by_label"].items():
        assert row["n"] == counts[label] == row["entailment"] + row["neutral"] + row["contradiction"]
        assert row["consistent"] == sum(r["nli"]["consistent"] for r in records
                                        if r["label"] == label)
    assert table["total"]["n"] == len(samples)
    assert table["sub_facts"]["supported"]["n"] + table["sub_facts"]["unsupported"]["n"] == \
        sum(len(s.sub_facts) for s in samples if s.label == "partially_supportive")
    for role in ("nli", "lm"):
        assert run["models"][role]["runtime"]["provider"] == "CPUExecutionProvider"
        assert run["models"][role]["runtime"]["requested"] == "cpu"
    assert run["models"]["nli"]["pairs"] == len(samples) + table["sub_facts"]["supported"]["n"] \
        + table["sub_facts"]["unsupported"]["n"]
    assert run["models"]["nli"]["pairs_per_s"] > 0
    assert run["models"]["lm"]["sentences"] == sum(len(s.citations) for s in samples)
    assert run["timings"]["chunks"] == math.ceil(len(samples) / 16)
    last = seen[-1]
    assert (last.nli_pairs, last.lm_sentences, last.samples) == \
        (last.nli_total, last.lm_total, len(samples))

    # flagged.jsonl: every sample with an expected-outcome probability below 0.5 (its own
    # pair or a sub-fact), lowest first, with reasons and text
    flagged = lines(bench / "flagged.jsonl")
    lowest = {r["id"]: min([r["nli"]["p_expected"], *(f["p_expected"] for f in
                                                        r.get("sub_facts", []))])
              for r in records}
    assert {f["id"] for f in flagged} == {i for i, p in lowest.items() if p < 0.5}
    assert result.flagged == len(flagged)
    assert [f["probability"] for f in flagged] == sorted(f["probability"] for f in flagged)
    by_id = {s.id: s for s in samples}
    for line in flagged:
        assert line["probability"] == lowest[line["id"]] and line["reasons"]
        assert line["answer"] == by_id[line["id"]].answer
        assert line["citation"] == by_id[line["id"]].citation

    # the report: one section, the rest of the page byte for byte, disagreeing samples first
    page = (bench / "report.html").read_text("utf-8")
    assert page.count(SECTION_BEGIN) == 1 and without_section(page) == PAGE
    listed = page.split('class="scored-samples"')[1]
    marks = [part.split('"')[0] for part in listed.split('data-consistent="')[1:]]
    assert marks == sorted(marks)   # "false" (disagrees) before "true"
    assert marks.count("false") == len(samples) - table["total"]["consistent"]
    assert not (bench / ".work-score").exists() and not list(bench.glob("*.part"))


def test_rerun_is_a_no_op_force_replaces_the_section(bench: Path, nli_dir: Path) -> None:
    score_benchmark(bench, nli_dir=nli_dir, device="cpu")
    first = {name: (bench / name).read_bytes() for name in
             ("scores.jsonl", "score_run.json", "report.html")}
    again = score_benchmark(bench, nli_dir=nli_dir, device="cpu", flag_below=0.4)
    assert again.resumed_chunks == -1
    assert {name: (bench / name).read_bytes() for name in first} == first
    assert again.flagged == len(lines(bench / "flagged.jsonl"))   # flags of the finished run
    (bench / "report.html").write_text(PAGE, encoding="utf-8")   # generate --force, same samples
    score_benchmark(bench, nli_dir=nli_dir, device="cpu")
    assert (bench / "report.html").read_bytes() == first["report.html"]   # the section is back

    with pytest.raises(ScoringError, match="already holds scores of another run.*--split"):
        score_benchmark(bench, nli_dir=nli_dir, device="cpu", split="test")
    forced = score_benchmark(bench, nli_dir=nli_dir, device="cpu", split="test", force=True)
    assert {r["split"] for r in lines(bench / "scores.jsonl")} == {"test"}
    assert forced.run["benchmark"]["samples"] == len(lines(bench / "scores.jsonl"))
    assert not (bench / "flagged.jsonl").exists()   # the old run's flags went with it
    page = (bench / "report.html").read_text("utf-8")
    assert page.count(SECTION_BEGIN) == 1 and page.count("<h2>Model scores</h2>") == 1
    assert without_section(page) == PAGE
    assert page != first["report.html"].decode("utf-8")


def test_an_interrupted_run_resumes_to_the_same_scores(tmp_path: Path, nli_dir: Path,
                                                       lm_dir: Path,
                                                       samples: tuple[BenchmarkSample, ...]) -> None:
    bench = small_bench(tmp_path / "bench", samples, 24)   # three chunks of 8
    clean = tmp_path / "clean"
    shutil.copytree(bench, clean)
    score_benchmark(clean, nli_dir=nli_dir, lm_dir=lm_dir, device="cpu", chunk_size=8)

    def stop_after_two_chunks(state: ScoreProgress) -> None:
        if state.samples >= 16:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        score_benchmark(bench, nli_dir=nli_dir, lm_dir=lm_dir, device="cpu", chunk_size=8,
                        progress=stop_after_two_chunks)
    assert not (bench / "scores.jsonl").exists()
    assert len(list((bench / ".work-score").glob("chunk-*.stats.json"))) == 2
    with pytest.raises(ScoringError, match="unfinished scoring run with a different --chunk-size"):
        score_benchmark(bench, nli_dir=nli_dir, lm_dir=lm_dir, device="cpu", chunk_size=4)
    resumed = score_benchmark(bench, nli_dir=nli_dir, lm_dir=lm_dir, device="cpu", chunk_size=8)
    assert resumed.resumed_chunks == 2
    assert resumed.run["timings"]["samples_this_run"] == resumed.run["benchmark"]["samples"] - 16
    assert (bench / "scores.jsonl").read_bytes() == (clean / "scores.jsonl").read_bytes()


@pytest.mark.parametrize("cut", ["before score_run.json is renamed",
                                 "before the work folder is removed"])
def test_a_finish_cut_short_is_finished_by_the_rerun(tmp_path: Path, nli_dir: Path, cut: str,
                                                      samples: tuple[BenchmarkSample, ...],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupt inside the last step, when some files are already in place: the
    rerun does that step again (and is not taken for a finished run)."""
    bench = small_bench(tmp_path / "bench", samples, 12)
    rename, remove = os.replace, shutil.rmtree

    def replace(source: Any, target: Any) -> None:
        if cut.startswith("before score_run") and Path(target) == bench / "score_run.json":
            raise KeyboardInterrupt
        rename(source, target)

    def rmtree(path: Any, *args: Any, **kwargs: Any) -> None:
        if cut.endswith("removed") and Path(path).name == ".work-score":
            raise KeyboardInterrupt
        remove(path, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(shutil, "rmtree", rmtree)
    with pytest.raises(KeyboardInterrupt):
        score_benchmark(bench, nli_dir=nli_dir, device="cpu", chunk_size=8)
    monkeypatch.undo()
    assert (bench / "scores.jsonl").exists() and (bench / ".work-score").is_dir()
    result = score_benchmark(bench, nli_dir=nli_dir, device="cpu", chunk_size=8)
    assert result.resumed_chunks == 2   # every chunk was done: only the finish ran again
    assert (bench / "score_run.json").exists() and not (bench / ".work-score").exists()
    page = (bench / "report.html").read_text("utf-8")
    assert page.count(SECTION_BEGIN) == 1 and without_section(page) == PAGE


def test_lm_only(bench: Path, lm_dir: Path) -> None:
    result = score_benchmark(bench, lm_dir=lm_dir, device="cpu", split="train")
    records = lines(bench / "scores.jsonl")
    assert records and all("nli" not in r and r["lm"]["cohesion"] > 0 for r in records)
    assert result.table is None and result.run["consistency"] is None
    assert set(result.run["cohesion_by_label"]) == {"supportive", "partially_supportive",
                                                    "contradictory", "irrelevant"}
    page = (bench / "report.html").read_text("utf-8")
    assert "sentence cohesion" in page and "Label consistency" not in page


def test_a_benchmark_without_report_gets_a_page_of_its_own(
        tmp_path: Path, nli_dir: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    bench = small_bench(tmp_path / "bench", samples, 8)
    (bench / "report.html").unlink()
    score_benchmark(bench, nli_dir=nli_dir, device="cpu")
    page = (bench / "report.html").read_text("utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count(SECTION_BEGIN) == 1


def test_sample_text_is_escaped_in_the_report(tmp_path: Path, nli_dir: Path,
                                              samples: tuple[BenchmarkSample, ...]) -> None:
    hostile = samples[0].model_copy(update={
        "answer": f"<script>alert(1)</script> {SECTION_END} & more"})
    bench = tmp_path / "bench"
    write_benchmark(bench, [hostile])
    (bench / "report.html").write_text(PAGE, encoding="utf-8")
    score_benchmark(bench, nli_dir=nli_dir, device="cpu")
    score_benchmark(bench, nli_dir=nli_dir, device="cpu", force=True)
    page = (bench / "report.html").read_text("utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count(SECTION_END) == 1 and without_section(page) == PAGE


def test_bad_input_is_one_clear_error(bench: Path, tmp_path: Path, nli_dir: Path,
                                      lm_dir: Path) -> None:
    def fails(match: str, error: type[Exception] = ScoringError, **options: Any) -> None:
        with pytest.raises(error, match=match):
            score_benchmark(options.pop("bench_dir", bench), device="cpu", **options)

    fails("give --nli DIR, --lm DIR or both")
    fails("not a benchmark directory", bench_dir=tmp_path, nli_dir=nli_dir)
    fails("not a benchmark directory", bench_dir=tmp_path / "missing", nli_dir=nli_dir)
    fails("--nli .*: a model exported for --task causal-lm; --nli needs one exported for "
          "--task nli", ModelDirError, nli_dir=lm_dir)
    fails("--lm .*: a model exported for --task nli; --lm needs one exported for "
          "--task causal-lm", ModelDirError, lm_dir=nli_dir)
    no_tokenizer = tmp_path / "no-tokenizer"
    shutil.copytree(nli_dir, no_tokenizer)
    (no_tokenizer / "tokenizer.json").unlink()
    fails("tokenizer", ModelDirError, nli_dir=no_tokenizer)
    fails("unknown split 'dev'", nli_dir=nli_dir, split="dev")
    for p in (-0.1, 1.5, math.nan):
        fails("between 0 and 1", nli_dir=nli_dir, flag_below=p)
    fails("--flag-below needs --nli", lm_dir=lm_dir, flag_below=0.5)
    only_train = tmp_path / "only-train"
    write_benchmark(only_train, [s for s in demo_benchmark() if s.split == "train"])
    fails("no test samples to score", bench_dir=only_train, nli_dir=nli_dir, split="test")
    broken = tmp_path / "broken"
    write_benchmark(broken, demo_benchmark()[:3])
    with (broken / "samples.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"label": "supportive", "id": 5}\n')
    fails(r"samples.jsonl:4: not a benchmark sample \(id: ", bench_dir=broken, nli_dir=nli_dir)
    assert not (broken / "scores.jsonl").exists()
    assert not any(p.name.startswith(".work") for p in bench.iterdir())


def test_a_locked_benchmark_is_refused(bench: Path, nli_dir: Path) -> None:
    """generate's lock: while another process (here, this one) writes the directory,
    score refuses at once instead of writing beside it."""
    with DirectoryLock(bench), pytest.raises(ScoringError, match="being written by another"):
        score_benchmark(bench, nli_dir=nli_dir, device="cpu")
    assert not (bench / "scores.jsonl").exists()
