"""``kgbench evaluate --protocol released`` on hand-made inputs: each row of the
difference table (README, "Protocols") hit by a few samples whose released number is
worked out by hand below, next to kgbench's own number for the same input.

The released code is CAQA-Benchmark ``inference.py`` (AttrScore ``inference_alpaca.py``
reads and scores the same way): labels read by the first case-insensitive match of any
option, capitalised; sklearn's ``confusion_matrix(..., labels=LABELS)``, which drops a
prediction that is no label; per label P = TP/column, R = TP/row, F1 = 2PR/(P+R) with
numpy's 0/0 = NaN; micro-F1 = trace/sum; macro-F1 = mean of the F1 (NaN if one is).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from extension.core.labels import Complexity, Label
from extension.outputs.sample_schema import BenchmarkSample
from scoring.errors import ScoringError
from scoring.evaluate.model_evaluator import nli_label_map
from scoring.evaluate.prompts import parse_reply
from scoring.evaluate.protocol_released import parse_reply_released
from scoring.evaluate.run import PredictionsFileEvaluator, evaluate_benchmark
from scoring.evaluate.schemes import label_scheme
from tests.extension.test_export import write_benchmark
from tests.scoring.demo_bench import demo_samples


def hand_made(tmp_path: Path, golds: Sequence[Label],
              complexities: Sequence[Complexity] | None = None) -> list[BenchmarkSample]:
    """A test split of demo samples with the gold labels ``golds``, in that order (and
    the complexities given, else single), written to ``tmp_path/bench``."""
    pool: dict[str, list[BenchmarkSample]] = {}
    for s in demo_samples():
        pool.setdefault(s.label, []).append(s)
    chosen = []
    for i, gold in enumerate(golds):
        sample = pool[gold].pop()
        chosen.append(sample.model_copy(update={
            "split": "test", "complexity": complexities[i] if complexities else "single"}))
    write_benchmark(tmp_path / "bench", chosen)
    return chosen


def evaluate(tmp_path: Path, samples: Sequence[BenchmarkSample], labels: Sequence[str | None],
             scheme_name: str, protocol: str) -> dict[str, object]:
    path = tmp_path / f"preds-{scheme_name}-{protocol}.jsonl"
    path.write_text("".join(json.dumps({"id": s.id, "label": label}) + "\n"
                            for s, label in zip(samples, labels, strict=True)), "utf-8")
    scheme = label_scheme(scheme_name, protocol=protocol)   # type: ignore[arg-type]
    report = evaluate_benchmark(tmp_path / "bench", PredictionsFileEvaluator(path, scheme),
                                scheme, protocol=protocol)   # type: ignore[arg-type]
    return report.to_json()


def test_unparsed_replies_are_dropped_and_zero_over_zero_is_null(tmp_path: Path) -> None:
    gold: list[Label] = ["supportive", "supportive", "supportive", "partially_supportive",
                         "partially_supportive", "contradictory", "contradictory",
                         "irrelevant"]
    samples = hand_made(tmp_path, gold, ["single", "single", "union", "single", "union",
                                         "single", "single", "union"])
    predicted = ["supportive", "supportive", None, "supportive", None, "irrelevant",
                 "supportive", "irrelevant"]
    released = evaluate(tmp_path, samples, predicted, "ours", "released")
    kgbench = evaluate(tmp_path, samples, predicted, "ours", "kgbench")
    assert released["protocol"] == "released" and kgbench["protocol"] == "kgbench"
    # kgbench: 3 right of 8 (the 2 unparsed count as wrong). Released: the 2 unparsed
    # leave the matrix, 3 right of 6.
    assert kgbench["overall_micro_f1"] == pytest.approx(3 / 8)
    assert released["overall_micro_f1"] == pytest.approx(3 / 6)
    assert released["n"] == 8 and released["unparsed"] == 2
    per = released["per_label"]
    assert isinstance(per, dict)
    # supportive: TP 2; column S1 S2 P1 C2 = 4; row S1 S2 (S3 dropped) = 2.
    assert per["supportive"] == {"precision": 0.5, "recall": 1.0,
                                 "f1": pytest.approx(2 / 3), "support": 2}
    # partially supportive and contradictory: never predicted (P = 0/0), no TP: F1 NaN.
    assert per["partially_supportive"] == {"precision": None, "recall": 0.0, "f1": None,
                                           "support": 1}
    assert per["contradictory"] == {"precision": None, "recall": 0.0, "f1": None,
                                    "support": 2}
    # irrelevant: TP 1; column C1 I1 = 2; row 1.
    assert per["irrelevant"] == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3),
                                 "support": 1}
    assert released["macro_f1"] is None          # one NaN F1 makes the mean NaN
    # kgbench: supportive P 2/4, R 2/3, F1 4/7; the labels never predicted right 0.0;
    # macro over the four labels present: (4/7 + 0 + 0 + 2/3) / 4.
    assert kgbench["per_label"]["partially_supportive"]["f1"] == 0.0   # type: ignore[index]
    assert kgbench["macro_f1"] == pytest.approx((4 / 7 + 2 / 3) / 4)
    # Per complexity, the same micro-F1 over each group's matrix: single S1 S2 P1 C1 C2
    # (2 of 5 right), union S3 P2 (both unparsed: an empty matrix, NaN) and I1 (right).
    groups = released["per_complexity"]
    assert groups["single"] == {"micro_f1": pytest.approx(2 / 5), "support": 5}  # type: ignore[index]
    assert groups["union"] == {"micro_f1": 1.0, "support": 1}   # type: ignore[index]
    assert groups["intersection"] == {"micro_f1": None, "support": 0}   # type: ignore[index]
    assert kgbench["per_complexity"]["union"]["micro_f1"] == pytest.approx(1 / 3)  # type: ignore[index]
    # The confusion keeps the unparsed column under both protocols: what was left out.
    assert released["confusion"] == kgbench["confusion"]


def test_every_reply_unparsed_gives_null_scores(tmp_path: Path) -> None:
    samples = hand_made(tmp_path, ["supportive", "irrelevant"])
    doc = evaluate(tmp_path, samples, [None, None], "caqa", "released")
    assert doc["overall_micro_f1"] is None and doc["macro_f1"] is None
    assert doc["unparsed"] == 2
    assert doc["per_label"]["Support"] == {"precision": None, "recall": None, "f1": None,  # type: ignore[index]
                                           "support": 0}
    # kgbench: 0 right of 2.
    assert evaluate(tmp_path, samples, [None, None], "caqa", "kgbench")["overall_micro_f1"] == 0.0


def test_attrscore_predictions_are_read_into_caqa_classes_with_four_class_gold(
        tmp_path: Path) -> None:
    gold: list[Label] = ["supportive", "supportive", "partially_supportive", "contradictory",
                         "irrelevant", "irrelevant"]
    samples = hand_made(tmp_path, gold)
    predicted = ["Attributable", "Extrapolatory", "Extrapolatory", "Contradictory",
                 "Extrapolatory", "Attributable"]
    # Released (CAQA Table 6): Attributable -> Support, Extrapolatory -> Irrelevant, gold
    # stays four-class: predictions Sup Irr Irr Con Irr Sup, right S1 C I1: 3 of 6.
    released = evaluate(tmp_path, samples, predicted, "caqa", "released")
    assert released["overall_micro_f1"] == pytest.approx(3 / 6)
    per = released["per_label"]
    # Support: TP 1, column S1 I2 = 2, row 2 -> P = R = F1 = 0.5.
    assert per["Support"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2}  # type: ignore[index]
    # Missing is never predicted: NaN; Contradictory exact; Irrelevant TP 1, column S2 P
    # I1 = 3, row 2 -> P 1/3, R 1/2, F1 0.4.
    assert per["Missing"]["f1"] is None   # type: ignore[index]
    assert per["Contradictory"]["f1"] == 1.0   # type: ignore[index]
    assert per["Irrelevant"]["f1"] == pytest.approx(0.4)   # type: ignore[index]
    assert released["macro_f1"] is None
    # kgbench scores AttrScore's labels on three classes instead (gold collapsed: the
    # partially supportive sample's Extrapolatory is right there): 4 of 6.
    three = evaluate(tmp_path, samples, predicted, "attrscore", "kgbench")
    assert three["overall_micro_f1"] == pytest.approx(4 / 6)
    # ... and refuses them under a four-class scheme.
    with pytest.raises(ScoringError, match="'Attributable' is an AttrScore label"):
        evaluate(tmp_path, samples, predicted, "caqa", "kgbench")


def test_an_nli_model_is_read_as_autois_under_the_released_protocol() -> None:
    # CAQA reads AutoIS as 1 -> Support, 0 -> Irrelevant: every role but entailment is 0.
    assert nli_label_map(label_scheme("caqa", protocol="released"), protocol="released") == {
        "entailment": "Support", "neutral": "Irrelevant", "contradiction": "Irrelevant"}
    assert nli_label_map(label_scheme("caqa")) == {
        "entailment": "Support", "neutral": "Irrelevant", "contradiction": "Contradictory"}
    # AttrScore's own scheme keeps its NLI reading (contradiction -> Contradictory).
    assert nli_label_map(label_scheme("attrscore"), protocol="released")["contradiction"] \
        == "Contradictory"
    # --nli-map still overrides.
    assert nli_label_map(label_scheme("ours", protocol="released"),
                         {"contradiction": "contradictory"}, protocol="released") == {
        "entailment": "supportive", "neutral": "irrelevant", "contradiction": "contradictory"}


CAQA_OPTIONS = {name: name for name in ("Support", "Missing", "Contradictory", "Irrelevant")}


@pytest.mark.parametrize(("reply", "released", "kgbench"), [
    # Inside a word: the released regex finds "support" in "unsupported".
    ("Unsupported: the reference is about another film.", "Support", None),
    # The first occurrence wins, not the first word: "support" comes before "missing".
    ("The reference does support part of it; a year is missing.", "Support", None),
    ("It supports the answer, nothing is missing.", "Support", "Missing"),
    ("IRRELEVANT", "Irrelevant", "Irrelevant"),
    ("Missing, since only the film is named.", "Missing", "Missing"),
    ("I cannot tell.", None, None),
    ("", None, None),
])
def test_reply_parsing_released_and_kgbench(reply: str, released: str | None,
                                            kgbench: str | None) -> None:
    assert parse_reply_released(reply, CAQA_OPTIONS) == released
    assert parse_reply(reply, CAQA_OPTIONS) == kgbench


def test_released_parsing_capitalises_what_it_found() -> None:
    # A multi-word option found in the reply is capitalised ("Not enough information")
    # and so is no option of the map: never read by the released code.
    options = {"Supported": "Attributable", "Not Enough Information": "Extrapolatory",
               "Refuted": "Contradictory"}
    assert parse_reply_released("Not enough information in the evidence.", options) is None
    assert parse_reply("Not enough information in the evidence.", options) == "Extrapolatory"
    assert parse_reply_released("refuted.", options) == "Contradictory"
    # AutoIS-style options; options are literal text, never a pattern.
    assert parse_reply_released("10", {"1": "Support", "0": "Irrelevant"}) == "Support"
    assert parse_reply_released("a.b", {"(": "x", ".": "Support"}) == "Support"
    assert parse_reply_released("anything", {}) is None


def test_nan_never_reaches_json(tmp_path: Path) -> None:
    samples = hand_made(tmp_path, ["contradictory"])
    doc = evaluate(tmp_path, samples, ["supportive"], "ours", "released")
    text = json.dumps(doc, allow_nan=False)   # raises on a NaN
    assert "NaN" not in text and math.isclose(doc["overall_micro_f1"], 0.0)  # type: ignore[arg-type]
