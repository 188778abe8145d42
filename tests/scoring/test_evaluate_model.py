"""An exported model as the evaluator of ``kgbench evaluate``: tiny real models (exported
once per session by tests/scoring/conftest.py) on the runtime, on the demo benchmark.

Random weights: what the model predicts is whatever it predicts; the tests check that
the evaluation scores exactly the runtime's own predictions, mapped as documented."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from scoring.card import TOKENIZER_FILE
from scoring.errors import ModelDirError, ScoringError
from scoring.evaluate.benchmark import load_evaluation_set
from scoring.evaluate.model_evaluator import ModelEvaluator, nli_label_map
from scoring.evaluate.run import evaluate_benchmark
from scoring.evaluate.schemes import label_scheme
from scoring.inputs import hypothesis, premise
from scoring.runtime import NliScorer, SequenceClassifier
from tests.scoring import demo_bench
from tests.scoring.demo_bench import CAQA_NAMES
from tests.scoring.models import Exported

pytestmark = pytest.mark.slow   # the first tiny model of a session imports torch (~7 s)

samples = demo_bench.samples   # the fixtures of the demo benchmark this module scores
bench = demo_bench.bench


def pairs(samples: tuple[BenchmarkSample, ...]) -> tuple[list[str], list[str]]:
    test = [s for s in samples if s.split == "test"]
    return [premise(s) for s in test], [hypothesis(s) for s in test]


def test_a_classifier_is_scored_on_its_own_predictions(
        bench: Path, samples: tuple[BenchmarkSample, ...], exported: Exported) -> None:
    directory = exported("bert", "classify")
    expected = SequenceClassifier.open(directory, device="cpu").predict(*pairs(samples))
    scheme = label_scheme("caqa")
    evaluator = ModelEvaluator(directory, scheme, device="cpu")
    report = evaluate_benchmark(bench, evaluator, scheme)
    doc = report.to_json()
    assert list(doc)[-1] == "runtime" and doc["runtime"]["provider"] == "CPUExecutionProvider"
    test = [s for s in samples if s.split == "test"]
    confusion = Counter((CAQA_NAMES[s.label], CAQA_NAMES[p])
                        for s, p in zip(test, expected, strict=True))
    assert {(g, p): c for g, row in doc["confusion"].items() for p, c in row.items() if c} \
        == dict(confusion)
    assert doc["unparsed"] == 0 and doc["n"] == len(test)
    assert any("CPUExecutionProvider" in note for note in report.notes)


def test_an_nli_model_is_mapped_by_role(bench: Path, samples: tuple[BenchmarkSample, ...],
                                        exported: Exported) -> None:
    directory = exported("bert", "nli")
    roles = [s.label for s in NliScorer.open(directory, device="cpu").score(*pairs(samples))]
    test = [s for s in samples if s.split == "test"]
    # attrscore: AttrScore's own NLI map (entailment -> Attributable, neutral ->
    # Extrapolatory, contradiction -> Contradictory).
    attrscore = label_scheme("attrscore")
    assert nli_label_map(attrscore) == {"entailment": "Attributable",
                                        "neutral": "Extrapolatory",
                                        "contradiction": "Contradictory"}
    evaluation = load_evaluation_set(bench, attrscore)
    predicted = ModelEvaluator(directory, attrscore, device="cpu").predict(evaluation)
    assert [p.label for p in predicted] == [nli_label_map(attrscore)[r] for r in roles]
    # ours with an override: neutral -> partially supportive.
    ours = label_scheme("ours")
    mapping = nli_label_map(ours, {"Neutral": "Missing"})
    assert mapping == {"entailment": "supportive", "neutral": "partially_supportive",
                       "contradiction": "contradictory"}
    doc = evaluate_benchmark(bench, ModelEvaluator(directory, ours, nli_map={"neutral": "Missing"},
                                                   device="cpu"), ours).to_json()
    got = Counter((g, p) for g, row in doc["confusion"].items() for p, c in row.items()
                  for _ in range(c))
    assert got == Counter((s.label, mapping[r]) for s, r in zip(test, roles, strict=True))
    with pytest.raises(ScoringError, match="'entails' is not an NLI output"):
        nli_label_map(ours, {"entails": "supportive"})
    with pytest.raises(ScoringError, match="--nli-map neutral=Extrapolatory: .*AttrScore label"):
        nli_label_map(ours, {"neutral": "Extrapolatory"})


def test_models_that_cannot_evaluate_are_refused(exported: Exported, tmp_path: Path) -> None:
    ours = label_scheme("ours")
    with pytest.raises(ModelDirError, match="holds a rerank model, not an evaluator"):
        ModelEvaluator(exported("bert", "rerank"), ours, device="cpu")
    with pytest.raises(ModelDirError, match="the classifier's label 'yes' is no label of the "
                                            "ours scheme"):
        ModelEvaluator(exported("bert", "classify", labels=["yes", "no"]), ours, device="cpu")
    with pytest.raises(ScoringError, match="--nli-map is for NLI models"):
        ModelEvaluator(exported("bert", "classify"), ours, nli_map={"neutral": "irrelevant"})
    broken = tmp_path / "no-tokenizer"
    shutil.copytree(exported("bert", "nli"), broken)
    (broken / TOKENIZER_FILE).unlink()
    with pytest.raises(ModelDirError, match=TOKENIZER_FILE):
        ModelEvaluator(broken, ours, device="cpu")
