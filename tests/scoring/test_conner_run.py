"""``conner_score`` and ``kgbench conner score`` end to end with the tiny exported models
(real onnxruntime): every per-record score is the pure function of
:mod:`scoring.conner.metrics` applied to the scorers' raw outputs on the documented
inputs, batching does not change them, the files and the summary rows are what the
report says, and bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extension.outputs.output_file import OutputPathError
from kgstore import Entity, Fact, open_store
from scoring.conner import metrics
from scoring.conner.batch import HELPFULNESS_PREFIX, INFORMATIVENESS_PREFIX
from scoring.conner.records import read_records, split_sentences
from scoring.conner.run import SUMMARY_FILE, ConnerProgress, conner_score, helpfulness_baselines
from scoring.conner.summary import COLUMNS
from scoring.errors import ScoringError
from scoring.runtime import CausalLM, CrossEncoder, NliScorer, SequenceClassifier
from tests.kgbench.test_cli import assert_clean_error, run
from tests.scoring.models import Exported

SYS_A: list[dict[str, Any]] = [
    {"id": "a1", "query": "who wrote the hobbit",
     "knowledge": "The Hobbit is a novel by J. R. R. Tolkien. It was published in 1937.",
     "answer": "Tolkien", "gold_answer": "J. R. R. Tolkien",
     "evidence": ["The Hobbit was written by Tolkien.", "It appeared in 1937 in London."]},
    {"id": "a2", "query": "tell me about paris",
     "knowledge": "Paris is the capital of France. It lies on the Seine.",
     "answer": "Paris is a large city on the Seine.",
     "evidence": ["Paris is the capital and largest city of France."]},
    {"id": "a3", "query": "what is the boiling point of water",
     "knowledge": "Water boils at 100 degrees at sea level.", "answer": "100 degrees"},
    {"id": "a4", "query": "who painted the mona lisa",
     "knowledge": "The Mona Lisa was painted by Leonardo da Vinci."},
]
SYS_B: list[dict[str, Any]] = [
    {"id": "b1", "query": "who wrote the hobbit", "knowledge": "Tolkien wrote it.",
     "answer": "Tolkien", "gold_answer": "Tolkien", "evidence": ["Tolkien wrote The Hobbit."]},
    {"id": "b2", "query": "tell me about paris", "knowledge": "Paris is in France.",
     "answer": "a city"},
]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def models(exported: Exported) -> dict[str, Path]:
    return {"nli": exported("bert", "nli"), "rerank": exported("bert", "rerank"),
            "lm": exported("gpt2", "causal-lm"), "coherence": exported("bert", "classify")}


def score_all(files: list[Path], models: dict[str, Path], **options: Any) -> Any:
    return conner_score(files, nli_dir=models["nli"], rerank_dir=models["rerank"],
                        lm_dir=models["lm"], coherence_dir=models["coherence"],
                        coherent_label="supportive", device="cpu", threads=1, **options)


def approx(value: float | None) -> Any:
    return pytest.approx(value, rel=1e-4, abs=1e-6)


def expected_docs(path: Path, models: dict[str, Path], *, u: int, seed: int,
                  aggregate: metrics.Aggregate) -> list[dict[str, Any]]:
    """Each record's scores from the scorers called one record at a time on the inputs
    the module docstring of scoring.conner.batch documents."""
    nli = NliScorer.open(models["nli"], device="cpu", threads=1)
    rerank = CrossEncoder.open(models["rerank"], device="cpu", threads=1)
    lm = CausalLM.open(models["lm"], device="cpu", threads=1)
    coherence = SequenceClassifier.open(models["coherence"], device="cpu", threads=1)
    records = read_records(path)
    baselines = helpfulness_baselines(records, u, seed)
    docs = []
    for r, baseline in zip(records, baselines, strict=True):
        sentences = split_sentences(r.knowledge)
        doc: dict[str, Any] = {"id": r.id}
        per_sentence = [nli.score(list(r.evidence), [s] * len(r.evidence)) if r.evidence else []
                        for s in sentences]
        doc["factuality"] = metrics.factuality(per_sentence, aggregate)
        if r.answer and r.gold_answer:
            [v] = nli.score([f"{r.query} {r.gold_answer}"], [f"{r.query} {r.answer}"])
            doc["validity"] = metrics.validity_span(v)
        elif r.answer and r.evidence:
            doc["validity"] = metrics.validity_open(nli.score(list(r.evidence),
                                                              [r.answer] * len(r.evidence)))
        else:
            doc["validity"] = None
        doc["relevance"] = metrics.relevance(rerank.score([r.query], [r.knowledge])[0])
        doc["coherence_sentence"] = metrics.sentence_cohesion(lm.perplexity(sentences))
        [logprobs] = lm.conditional_token_logprobs(
            [INFORMATIVENESS_PREFIX.format(query=r.query)], [" " + r.knowledge])
        doc["informativeness"] = metrics.informativeness(list(logprobs))
        if r.answer:
            knowledge = [r.knowledge, *(records[i].knowledge for i in baseline)]
            own, *others = lm.conditional_logprob(
                [HELPFULNESS_PREFIX.format(query=r.query, knowledge=k) for k in knowledge],
                [" " + r.answer] * len(knowledge))
            doc["helpfulness"] = metrics.helpfulness(own, others)
        else:
            doc["helpfulness"] = None
        probs = coherence.probabilities([r.knowledge])[0]
        doc["coherence_paragraph"] = metrics.paragraph_coherence(
            list(probs), coherence.labels.index("supportive"))
        docs.append(doc)
    return docs


def test_scores_are_the_metrics_of_the_raw_outputs(tmp_path: Path,
                                                   models: dict[str, Path]) -> None:
    a = write(tmp_path / "sysA.jsonl", SYS_A)
    b = write(tmp_path / "sysB.jsonl", SYS_B)
    seen: list[ConnerProgress] = []
    out = tmp_path / "out"
    report = score_all([a, b], models, aggregate="mean", helpfulness_u=2, seed=5, out_dir=out,
                       progress=seen.append)
    got = [json.loads(line) for line in (out / "sysA.scores.jsonl").read_text().splitlines()]
    want = expected_docs(a, models, u=2, seed=5, aggregate="mean")
    assert [d["id"] for d in got] == ["a1", "a2", "a3", "a4"]
    for g, w in zip(got, want, strict=True):
        fact = w.pop("factuality")
        assert [g["factuality"][k] for k in ("consistent", "non_verified", "inconsistent")] \
            == [approx(x) for x in fact]
        for key, value in w.items():
            if key != "id":
                assert g[key] == (None if value is None else approx(value)), (g["id"], key)
    assert [d["validity_kind"] for d in got] == ["span", "open", None, None]
    assert got[2]["factuality"] == {"consistent": 0.0, "non_verified": 1.0, "inconsistent": 0.0}
    assert got[2]["evidence"] == {"source": "none", "count": 0}
    assert len(got[0]["helpfulness_baseline"]) == 2 and "a1" not in got[0]["helpfulness_baseline"]
    # The summary: one row per file, each value the mean over the records that have it.
    summary = json.loads((out / SUMMARY_FILE).read_text())
    assert summary == json.loads(json.dumps(report.to_json()))
    assert [c["header"] for c in summary["columns"]] == [c.header for c in COLUMNS]
    row_a, row_b = summary["rows"]
    assert (row_a["system"], row_a["records"], row_b["system"], row_b["records"]) \
        == ("sysA", 4, "sysB", 2)
    assert row_a["helpfulness"] == approx(
        sum(d["helpfulness"] for d in got[:3]) / 3)
    assert row_a["scored"]["helpfulness"] == 3 and row_a["scored"]["validity"] == 2
    assert row_a["validity"] == approx((got[0]["validity"] + got[1]["validity"]) / 2)
    assert row_a["factual_consistent"] + row_a["non_verified"] \
        + row_a["factual_inconsistent"] == approx(1.0)
    assert summary["models"]["coherence"]["coherent_label"] == "supportive"
    assert not summary["notes"][0].startswith(("factuality", "relevance"))
    # Progress: every model's inputs of both files, finished.
    last = {(p.file.name, p.model): (p.done, p.total) for p in seen}
    assert set(last) == {(f, m) for f in ("sysA.jsonl", "sysB.jsonl")
                         for m in ("nli", "rerank", "lm", "coherence")}
    assert all(done == total > 0 for done, total in last.values())
    # One record per model call gives the same scores as the batched run.
    single = score_all([a], models, aggregate="mean", helpfulness_u=2, seed=5,
                       records_per_batch=1)
    for key in ("relevance", "coherence_sentence", "informativeness", "helpfulness",
                "validity", "factual_consistent"):
        assert single.rows[0][key] == approx(row_a[key])


def test_missing_models_are_null_with_a_note_and_kg_evidence(tmp_path: Path,
                                                             models: dict[str, Path]) -> None:
    with open_store(str(tmp_path / "kg"), create=True) as s:
        s.ingest([Entity("m.h", "The Hobbit"), Entity("m.t", "J. R. R. Tolkien")],
                 [Fact("m.h", "book.written_work.author", "m.t")])
    path = write(tmp_path / "sys.jsonl", [{k: v for k, v in r.items() if k != "evidence"}
                                         for r in SYS_A[:2]])
    report = conner_score([path], nli_dir=models["nli"], store=str(tmp_path / "kg"),
                          device="cpu", threads=1, aggregate="max")
    [row] = report.rows
    assert row["relevance"] is row["coherence_sentence"] is row["helpfulness"] is None
    assert row["factual_consistent"] is not None and row["validity"] is not None
    assert "relevance: null (no --rerank model given)" in report.notes
    assert any("--lm" in n for n in report.notes) and any("--coherence" in n for n in report.notes)
    assert report.out_dir is None and not list(tmp_path.glob("*.scores.jsonl"))
    assert not any("did not fit" in n for n in report.notes)
    # The KG gave the Hobbit record evidence; Paris is not in it.
    assert any("1 record(s) without evidence" in n for n in report.notes)


def test_refusals(tmp_path: Path, models: dict[str, Path]) -> None:
    path = write(tmp_path / "sys.jsonl", SYS_A)
    with pytest.raises(ScoringError, match="nothing to score with"):
        conner_score([path])
    with pytest.raises(ScoringError, match="two input files are named 'sys'"):
        conner_score([path, write(tmp_path / "sys.json", SYS_B)], nli_dir=models["nli"])
    with pytest.raises(ScoringError, match="--lm .*exported for --task nli"):
        conner_score([path], lm_dir=models["nli"])
    with pytest.raises(ScoringError, match="no label named 'coherent'"):
        conner_score([path], coherence_dir=models["coherence"], device="cpu")


def test_cli_two_files_side_by_side(tmp_path: Path, models: dict[str, Path]) -> None:
    a = write(tmp_path / "sysA.jsonl", SYS_A)
    b = write(tmp_path / "sysB.jsonl", SYS_B)
    proc = run("conner", "score", a, b, "--nli", models["nli"], "--rerank", models["rerank"],
               "--device", "cpu", "--out", tmp_path / "out", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [r["system"] for r in doc["rows"]] == ["sysA", "sysB"]
    assert all(r["relevance"] is not None and r["informativeness"] is None for r in doc["rows"])
    assert (tmp_path / "out" / "sysB.scores.jsonl").is_file()
    table = run("conner", "score", a, b, "--rerank", models["rerank"], "--device", "cpu")
    assert table.returncode == 0, table.stderr
    assert "Fact-cons." in table.stdout and "Coh-para." in table.stdout
    lines = {line.split()[0]: line for line in table.stdout.splitlines() if line.strip()}
    assert lines["sysA"].split()[1] == "4" and lines["sysB"].split()[1] == "2"
    assert "factuality and validity: null (no --nli model given)" in table.stderr


def test_cli_bad_file_is_one_line(tmp_path: Path, models: dict[str, Path]) -> None:
    good = write(tmp_path / "good.jsonl", SYS_B)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(SYS_B[0]) + '\n{"id": "x", "query": "q"}\n', encoding="utf-8")
    proc = run("conner", "score", good, bad, "--nli", models["nli"], "--out", tmp_path / "out")
    assert_clean_error(proc)
    assert f'{bad}:2: "knowledge" missing' in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2      # the error and its hint
    assert not (tmp_path / "out").exists()
    assert_clean_error(run("conner", "score", good), code=2)      # no model: a usage error



def test_a_rerun_reads_finished_files_back(tmp_path: Path, models: dict[str, Path]) -> None:
    """Scores are written per file with the fingerprint of what made them: a rerun of the
    same command (after an interruption) scores only what is not there yet."""
    a = write(tmp_path / "sysA.jsonl", SYS_A)
    b = write(tmp_path / "sysB.jsonl", SYS_B)
    out = tmp_path / "out"
    first = conner_score([a], rerank_dir=models["rerank"], device="cpu", out_dir=out)
    seen: list[ConnerProgress] = []
    again = conner_score([a, b], rerank_dir=models["rerank"], device="cpu", out_dir=out,
                         progress=seen.append)
    assert {p.file.name for p in seen} == {"sysB.jsonl"}     # sysA was read back
    assert again.rows[0] == first.rows[0]
    assert any(n.startswith("sysA.jsonl: scores read back") for n in again.notes)
    # Another seed is another run: everything is scored again.
    seen.clear()
    conner_score([a, b], rerank_dir=models["rerank"], device="cpu", out_dir=out, seed=1,
                 progress=seen.append)
    assert {p.file.name for p in seen} == {"sysA.jsonl", "sysB.jsonl"}
    assert json.loads((out / "sysA.run.json").read_text())["seed"] == 1
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputPathError, match="not a directory"):
        conner_score([a], rerank_dir=models["rerank"], out_dir=tmp_path / "file" / "out")


def test_inputs_cut_to_fit_are_counted_and_noted(tmp_path: Path,
                                                 models: dict[str, Path]) -> None:
    long_query = " ".join(["which river flows through the city"] * 60)   # > 128 tokens
    path = write(tmp_path / "long.jsonl", [{**SYS_B[0], "query": long_query}, SYS_B[1]])
    report = conner_score([path], rerank_dir=models["rerank"], device="cpu")
    assert report.models["rerank"]["truncated"] == 1
    assert "rerank: 1 input(s) did not fit the model's max length and were cut at their end " \
           "(a query, the side the cross-encoder keeps whole)" in report.notes
