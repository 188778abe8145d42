"""Shortcut baselines (``evaluate --baseline``): the features worked out by hand, the
classifier, the chance levels, and the use case on the demo benchmark with what it
records in ``baselines.json`` and ``report.html`` (the CLI: tests/kgbench/
test_cli_evaluate_baseline.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from extension.outputs.sample_schema import BenchmarkSample
from scoring.evaluate.baselines import (
    BASELINES_FILE,
    BaselineSpec,
    evaluate_shortcut,
    parse_baseline,
    record_shortcut,
)
from scoring.evaluate.baselines.features import (
    embedding_features,
    length_features,
    overlap_features,
)
from scoring.evaluate.baselines.logistic import fit_coder, fit_softmax
from scoring.evaluate.baselines.record import SECTION_MARKERS
from scoring.evaluate.baselines.shortcut import chance_levels
from scoring.evaluate.benchmark import EvalSample
from scoring.evaluate.schemes import label_scheme
from tests.extension.test_export import write_benchmark
from tests.scoring.demo_bench import demo_samples
from tests.scoring.models import TinyHf

ANSWER = "The Godfather was directed by Francis Ford Coppola."
CITATIONS = ("The Godfather has the sequel The Godfather Part II.",
             "Nino Rota composed the music for 8½.")


def sample(gold: str = "supportive", answer: str = ANSWER,
           citations: tuple[str, ...] = CITATIONS, sample_id: str = "s") -> EvalSample:
    return EvalSample(id=sample_id, label="supportive", gold=gold, complexity="single",
                      premise=" ".join(citations), hypothesis=answer, claim=answer,
                      reference="\n".join(citations), sub_facts=())


# ---------------------------------------------------------------------------
# Features, by hand


def test_overlap_features_by_hand() -> None:
    # answer words without function words: godfather directed francis ford coppola (5);
    # citation 1: godfather sequel part ii (4); citation 2: nino rota composed music 8½ (5);
    # shared: godfather only.
    (row,) = overlap_features([sample()])
    assert row == pytest.approx([1 / 5, 1 / 9, 1 / 13, 0.0, 1 / 4])
    empty = overlap_features([sample(answer="", citations=())])
    assert empty.tolist() == [[0.0] * 5]


def test_length_features_by_hand() -> None:
    # 8 words in the answer; 9 + 7 in the citations
    assert length_features([sample()]).tolist() == [[8, 16, 2, 8]]


def test_embedding_features_by_hand() -> None:
    vectors = {ANSWER: (1.0, 0.0), " ".join(CITATIONS): (0.6, 0.8), CITATIONS[0]: (0.8, 0.6),
               CITATIONS[1]: (0.0, 1.0)}
    asked: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        asked.append(texts)
        return np.array([vectors[t] for t in texts])

    rows = embedding_features([sample(), sample(sample_id="t")], embed)
    assert np.allclose(rows, [[0.6, 0.8, 0.0, 0.4]] * 2)
    assert len(asked) == 1 and len(asked[0]) == 4        # each distinct text once


# ---------------------------------------------------------------------------
# The classifier


def test_softmax_regression_separates_and_is_deterministic() -> None:
    x = np.array([[0.0], [0.1], [0.2], [1.0], [1.1], [1.2], [2.0], [2.1], [2.2]])
    labels = ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    coder = fit_coder(x)
    first = fit_softmax(coder.design(x), labels, ["a", "b", "c", "never"])
    again = fit_softmax(fit_coder(x).design(x), labels, ["a", "b", "c", "never"])
    assert first.predict(coder.design(x)) == labels
    assert first.classes == ("a", "b", "c")              # a class absent in training is not
    assert np.array_equal(first.weights, again.weights)   # bit for bit
    with pytest.raises(ValueError, match="at least two classes"):
        fit_softmax(coder.design(x), ["a"] * 9, ["a", "b"])


def test_a_non_monotone_shortcut_is_learnt_through_the_bins() -> None:
    # The middle values are one class, both ends the other: no line on the raw value
    # separates them; one-hot bins do.
    x = np.linspace(0, 1, 60)[:, None]
    labels = ["mid" if 0.35 < v < 0.65 else "end" for v in x[:, 0]]
    coder = fit_coder(x, bins=6)
    model = fit_softmax(coder.design(x), labels, ["end", "mid"])
    accuracy = np.mean(np.array(model.predict(coder.design(x))) == np.array(labels))
    assert accuracy >= 0.9


# ---------------------------------------------------------------------------
# Chance


def test_chance_levels_by_hand() -> None:
    scheme = label_scheme("ours")
    test = [sample("supportive"), sample("supportive"), sample("partially_supportive"),
            sample("contradictory")]
    train = ["supportive", "supportive", "supportive", "partially_supportive"]
    chance = chance_levels(test, train, scheme, seed=3, draws=50)
    majority = chance["majority"]
    # every sample supportive: precision 2/4, recall 2/2, F1 2/3; macro over the three
    # labels that occur (supportive, partially, contradictory); accuracy 2/4
    assert majority["label"] == "supportive"
    assert majority["per_label_f1"]["supportive"] == pytest.approx(2 / 3)
    assert majority["macro_f1"] == pytest.approx(2 / 9)
    assert majority["micro_f1"] == pytest.approx(0.5)
    random = chance["random"]
    assert (random["draws"], random["seed"]) == (50, 3)
    assert random["per_label_f1"]["contradictory"] == 0.0   # never drawn: no train share
    assert 0 < random["macro_f1"] < 1
    assert chance_levels(test, train, scheme, seed=3, draws=50) == chance   # seeded
    # one label only in train: random is the majority
    only = chance_levels(test, ["irrelevant"] * 3, scheme)
    assert only["random"]["macro_f1"] == only["majority"]["macro_f1"] == 0.0


@pytest.mark.parametrize(("text", "spec"), [
    ("overlap", BaselineSpec("overlap")), (" length ", BaselineSpec("length")),
    ("embed:models/minilm", BaselineSpec("embed", Path("models/minilm")))])
def test_parse_baseline(text: str, spec: BaselineSpec) -> None:
    assert parse_baseline(text) == spec


@pytest.mark.parametrize(("text", "says"), [
    ("bleu", "unknown baseline"), ("embed", "needs the embed model's directory"),
    ("embed:", "needs the embed model's directory"), ("overlap:x", "only embed takes")])
def test_parse_baseline_refuses(text: str, says: str) -> None:
    from scoring.errors import ScoringError

    with pytest.raises(ScoringError, match=says) as caught:
        parse_baseline(text)
    assert "--baseline overlap" in (caught.value.hint or "")


# ---------------------------------------------------------------------------
# The use case on the demo benchmark, and what it records


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    write_benchmark(tmp_path / "bench", demo_samples())
    return tmp_path / "bench"


def test_shortcuts_on_the_demo_benchmark_are_recorded_side_by_side(bench: Path) -> None:
    page = bench / "report.html"
    before, after = "<!DOCTYPE html>\n<html><body><h1>demo</h1>", "</body></html>\n"
    page.write_text(before + after, encoding="utf-8")
    scheme = label_scheme("ours")
    overlap = evaluate_shortcut(bench, BaselineSpec("overlap"), scheme)
    doc = overlap.to_json()
    block = doc["baseline"]
    test = [s for s in demo_samples() if s.split == "test"]
    assert doc["n"] == len(test) and block["train_samples"] == len(demo_samples()) - len(test)
    assert block["macro_f1"] == doc["macro_f1"] and block["micro_f1"] == doc["overall_micro_f1"]
    assert set(block["chance"]) == {"majority", "random"}
    # On the demo benchmark the word overlap alone tells the labels apart far above
    # chance (irrelevant citations share no words with the answer): a shortcut exists.
    assert block["macro_f1"] > block["chance"]["random"]["macro_f1"] + 0.2
    # the same run again: the same numbers (deterministic)
    assert evaluate_shortcut(bench, BaselineSpec("overlap"), scheme).baseline == block

    record_shortcut(overlap)
    record_shortcut(evaluate_shortcut(bench, BaselineSpec("length"), scheme))
    record_shortcut(overlap)                                  # replaces its own entry
    saved = json.loads((bench / BASELINES_FILE).read_text("utf-8"))
    assert [r["baseline"] for r in saved["results"]] == ["length", "overlap"]
    text = page.read_text("utf-8")
    assert text.count(SECTION_MARKERS[0]) == 1 and "What a shortcut gets" in text
    assert text.startswith(before) and text.endswith(after)   # the rest stays as it was
    assert 'data-baseline="overlap"' in text and 'data-chance="random"' in text

    # Other samples (a regenerated benchmark): the old results are dropped.
    write_benchmark(bench, [s for s in demo_samples() if s.id != test[0].id])
    record_shortcut(evaluate_shortcut(bench, BaselineSpec("length"), scheme))
    saved = json.loads((bench / BASELINES_FILE).read_text("utf-8"))
    assert [r["baseline"] for r in saved["results"]] == ["length"]
    assert saved["results"][0]["n"] == len(test) - 1


def test_a_benchmark_without_a_report_gets_a_page_of_its_own(bench: Path) -> None:
    record_shortcut(evaluate_shortcut(bench, BaselineSpec("length"), label_scheme("caqa")))
    text = (bench / "report.html").read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<h1>kgbench shortcut baselines</h1>" in text
    assert 'data-scheme="caqa"' in text and "<th scope=\"col\">Support</th>" in text


def test_a_benchmark_without_train_samples_is_refused(tmp_path: Path) -> None:
    from scoring.errors import ScoringError

    only_test: list[BenchmarkSample] = [s for s in demo_samples() if s.split == "test"]
    write_benchmark(tmp_path / "b", only_test)
    with pytest.raises(ScoringError, match="fits on the train split") as caught:
        evaluate_shortcut(tmp_path / "b", BaselineSpec("overlap"), label_scheme("ours"))
    assert "--test-fraction below 1" in (caught.value.hint or "")
    assert not (tmp_path / "b" / BASELINES_FILE).exists()


@pytest.mark.slow
def test_embed_shortcut_with_an_exported_embed_model(bench: Path, tmp_path: Path,
                                                     tiny_hf: TinyHf) -> None:
    from scoring.export import export_model

    model = tmp_path / "embed"
    export_model(tiny_hf("bert", "classify"), "embed", model)
    result = evaluate_shortcut(bench, BaselineSpec("embed", model), label_scheme("ours"),
                               device="cpu")
    block = result.baseline
    assert block["model"] == str(model) and block["features"][0] == "cosine_answer_citations"
    assert result.report.runtime is not None
    assert result.report.runtime["provider"] == "CPUExecutionProvider"
    shutil.rmtree(model)
