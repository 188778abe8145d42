"""The pieces of ``kgbench evaluate`` in process, on real files: label schemes, the reply
parser and prompts, predictions / blind-label / sub-fact files, and the use case on the
demo benchmark (the CLI around it: tests/kgbench/test_cli_evaluate.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from llm.prompt_file import PromptFileError
from scoring.errors import ScoringError
from scoring.evaluate.benchmark import load_evaluation_set
from scoring.evaluate.predictions import Prediction, read_predictions, write_predictions
from scoring.evaluate.prompts import AttributionPrompt, default_prompt, parse_reply, select_prompt
from scoring.evaluate.run import PredictionsFileEvaluator, evaluate_benchmark
from scoring.evaluate.schemes import LabelNameError, label_scheme
from tests.extension.test_export import write_benchmark
from tests.external import external_path
from tests.scoring import demo_bench
from tests.scoring.demo_bench import CAQA_NAMES, write_jsonl

samples = demo_bench.samples   # the fixtures of the demo benchmark this module scores
bench = demo_bench.bench


# ---------------------------------------------------------------------------
# Schemes


def test_four_class_schemes_take_both_vocabularies_and_refuse_attrscore_names() -> None:
    ours, caqa = label_scheme("ours"), label_scheme("CAQA")
    assert ours.resolve("Missing") == "partially_supportive"
    assert ours.resolve("partially-supportive") == "partially_supportive"
    assert caqa.resolve("partially_supportive") == "Missing"
    assert caqa.resolve("support") == "Support"
    with pytest.raises(LabelNameError, match="AttrScore label") as info:
        ours.resolve("Extrapolatory")
    assert "--scheme attrscore" in str(info.value.hint)
    assert "--protocol released" in str(info.value.hint)
    with pytest.raises(LabelNameError, match="'maybe' is not a label of the caqa scheme"):
        caqa.resolve("maybe")


def test_attrscore_maps_gold_and_four_class_predictions_with_the_export_map() -> None:
    default = label_scheme("attrscore")
    assert default.labels == ("Attributable", "Extrapolatory", "Contradictory")
    assert default.gold("irrelevant") == "Extrapolatory" == default.resolve("Missing")
    assert default.resolve("contradictory") == "Contradictory"
    changed = label_scheme("attrscore", {"partially_supportive": "Contradictory",
                                         "irrelevant": "drop"})
    assert changed.gold("partially_supportive") == "Contradictory"
    assert changed.gold("irrelevant") is None
    assert changed.resolve("irrelevant") is None            # no label: counted unparsed
    assert changed.resolve("Extrapolatory") == "Extrapolatory"   # its own name: literal
    with pytest.raises(ScoringError, match="'Irrelevant' is not a attrscore label"):
        label_scheme("attrscore", {"irrelevant": "Irrelevant"})
    with pytest.raises(ScoringError, match="unknown label scheme 'alce'"):
        label_scheme("alce")


# ---------------------------------------------------------------------------
# Replies and prompts

OPTIONS = {"Attributable": "Attributable", "Extrapolatory": "Extrapolatory",
           "Contradictory": "Contradictory"}


@pytest.mark.parametrize(("reply", "label"), [
    ("Attributable. The reference gives 1840 as the year of birth.", "Attributable"),
    ("  **Response:** extrapolatory", "Extrapolatory"),
    ("Answer: CONTRADICTORY - the reference says east", "Contradictory"),
    ("The reference is contradictory to the claim.", "Contradictory"),   # named once, anywhere
    ("It is Attributable, yes, Attributable.", "Attributable"),          # one label, twice
    ("Not Attributable but Extrapolatory.", None),                       # two labels: ambiguous
    ("Pick one of Attributable, Extrapolatory or Contradictory.", None),  # an echo of the options
    ("I cannot tell.", None),
    ("", None),
    ("Attributability is unclear", None),                                # not a whole word
])
def test_parse_reply(reply: str, label: str | None) -> None:
    assert parse_reply(reply, OPTIONS) == label


def test_parse_reply_multi_word_options_and_the_longest_at_the_start() -> None:
    options = {"Supported": "Attributable", "Not Enough Information": "Extrapolatory",
               "Not": "Contradictory"}
    assert parse_reply("Not enough\ninformation: the evidence is silent.", options) \
        == "Extrapolatory"
    assert parse_reply("not, it is refuted", options) == "Contradictory"
    # Two options of one label are no ambiguity.
    assert parse_reply("Clearly supported: Supported.", {"Supported": "A", "supported": "A"}) == "A"


def test_parse_reply_an_option_inside_a_longer_one_is_no_mention_of_its_own() -> None:
    # kgbench's own four-class prompt has "Supportive" inside "Partially supportive".
    options = {"Supportive": "supportive", "Partially supportive": "partially_supportive",
               "Contradictory": "contradictory", "Irrelevant": "irrelevant"}
    assert parse_reply("I would say it is partially supportive.", options) \
        == "partially_supportive"
    assert parse_reply("It is supportive, not irrelevant.", options) is None
    assert parse_reply("Partially supportive: one fact is missing.", options) \
        == "partially_supportive"
    assert parse_reply("The reference is supportive.", options) == "supportive"


def test_kgbench_prompts_are_the_defaults_and_render_claim_and_reference() -> None:
    three = select_prompt(default_prompt("attrscore"), label_scheme("attrscore"))
    assert three.name == "kgbench-attrscore" and three.source == "kgbench"
    assert set(three.options) == {"Attributable", "Extrapolatory", "Contradictory"}
    text = three.render("Who directed Jaws? Spielberg directed Jaws.", "Jaws is a film.")
    assert text.startswith(f"### Instruction:\n{three.instruction}\n\n### Input:\n")
    assert "Claim: Who directed Jaws? Spielberg directed Jaws.\n\nReference:\nJaws is a " \
           "film.\n" in text
    assert text.endswith("### Response:")
    four = select_prompt(default_prompt("ours"), label_scheme("caqa"))
    assert four.name == "kgbench"
    assert {label_scheme("caqa").resolve(v) for v in four.options.values()} == {
        "Support", "Missing", "Contradictory", "Irrelevant"}
    # kgbench's three-class prompt under a four-class scheme: only as CAQA reads AttrScore.
    with pytest.raises(ScoringError, match="answers 'Attributable'.*ours scheme"):
        select_prompt("kgbench-attrscore", label_scheme("ours"))
    read = select_prompt("kgbench-attrscore", label_scheme("ours", protocol="released"))
    assert read.name == "kgbench-attrscore"


def test_a_preamble_and_the_released_layout() -> None:
    prompt = AttributionPrompt("t", "file", "", "premise: {} hypothesis: {}", {"1": "Support"},
                               preamble="A line before the instruction.")
    assert prompt.render("the claim", "the citations") == (
        "A line before the instruction.\n\n### Input:\npremise: the citations hypothesis: "
        "the claim\n\n### Response:")
    # The released scripts keep the instruction section even when it is empty.
    assert prompt.render("the claim", "the citations", "released") == (
        "A line before the instruction.\n\n### Instruction:\n\n\n### Input:\npremise: the "
        "citations hypothesis: the claim\n\n### Response:")


def test_paper_prompts_are_read_from_a_file_never_shipped(tmp_path: Path) -> None:
    for name in ("caqa-zero-shot", "caqa-few-shot", "attrscore", "attrscore-no-definition"):
        with pytest.raises(ScoringError, match=f"--prompt {name} is the paper's prompt, which "
                                               "kgbench does not ship") as info:
            select_prompt(name, label_scheme("attrscore" if "attr" in name else "ours"))
        assert "--prompts" in str(info.value.hint)
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps([
        {"task_name": "attribution-no-definition", "prompt_template": "Judge it.",
         "input_template": "Claim: {}\n\nReference: {}\n",
         "label_map": {"Support": "Support", "Missing": "Missing",
                       "Contradictory": "Contradictory", "Irrelevant": "Irrelevant"}},
        {"task_name": "nli-like", "prompt_template": "",
         "input_template": "premise: {} hypothesis: {}", "label_map": {"1": "Support",
                                                                      "0": "Irrelevant"}}]))
    prompt = select_prompt("caqa-zero-shot", label_scheme("ours"), path)
    assert prompt.name == "attribution-no-definition" and prompt.source == str(path)
    premise_first = select_prompt("nli-like", label_scheme("ours"), path)
    assert premise_first.render("the claim", "the citations") == \
        "### Input:\npremise: the citations hypothesis: the claim\n\n### Response:"
    assert default_prompt("ours", path) == "attribution-no-definition"
    with pytest.raises(PromptFileError, match="no prompt 'attribution-no-definition-w-examples' "
                                              r"\(--prompt caqa-few-shot\)"):
        select_prompt("caqa-few-shot", label_scheme("ours"), path)


@pytest.mark.parametrize(("content", "says"), [
    ('[{"task_name": "x", "prompt_template": "", "input_template": "{}", '
     '"label_map": {"a": "b"}}]', "prompt 'x': input_template needs two {} slots"),
    ('[{"task_name": "x", "input_template": "{} {}", "label_map": {"a": "b"}}]',
     "prompt 'x': no prompt_template string"),
    ('[{"task_name": "x", "prompt_template": "", "input_template": "{} {}"}]',
     "prompt 'x': label_map is not a map of reply options to labels"),
    ('[{"prompt_template": ""}]', "prompt 1: no task_name"),
    ('{"coherence": "a"}', "not a prompt file (no list of prompts)"),
    ("[1", "not JSON"),
    (b"\xff\xfe[]", "not UTF-8 text"),
])
def test_a_wrong_prompt_file_is_one_line_naming_what_is_missing(
        tmp_path: Path, content: str | bytes, says: str) -> None:
    path = tmp_path / "prompts.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(PromptFileError) as info:
        select_prompt("x", label_scheme("ours"), path)
    assert says in str(info.value) and str(path) in str(info.value)
    assert "\n" not in str(info.value) and "task_name" in str(info.value.hint)


@pytest.mark.external
def test_the_real_caqa_prompt_file() -> None:
    path = external_path("attribution", "caqa", "CAQA-Benchmark_prompts.json")
    few = select_prompt("caqa-few-shot", label_scheme("caqa"), path)
    assert "Example4" in few.instruction and set(few.options) == {
        "Support", "Missing", "Contradictory", "Irrelevant"}
    # CAQA's reading of AttrScore's labels as four-class names works under ours.
    attscore = select_prompt("AttScore", label_scheme("ours"), path)
    assert attscore.options["Extrapolatory"] == "Irrelevant"
    # The file's own words, sent as they are.
    tasks = {t["task_name"]: t for t in json.loads(path.read_text("utf-8"))}
    zero = select_prompt("caqa-zero-shot", label_scheme("caqa"), path)
    assert zero.render("Q? A.", "R.").startswith(
        "### Instruction:\n" + tasks["attribution-no-definition"]["prompt_template"])


@pytest.mark.external
def test_the_real_attrscore_prompt_file() -> None:
    path = external_path("attribution", "attrscore", "task_prompts.json")
    tasks = {t["task_name"]: t for t in json.loads(path.read_text("utf-8"))}
    main = select_prompt("attrscore", label_scheme("attrscore"), path)
    assert main.instruction == tasks["attribution-with-definition"]["prompt_template"]
    assert main.render("Q? A.", "R.") == (
        f"### Instruction:\n{main.instruction}\n\n### Input:\nClaim: Q? A.\n\nReference: R.\n"
        "\n\n### Response:")
    assert select_prompt("attrscore-no-definition", label_scheme("attrscore"), path).instruction \
        == tasks["attribution-no-definition"]["prompt_template"]
    # Under a four-class scheme: refused by kgbench, read as CAQA does when released.
    with pytest.raises(ScoringError, match="which the caqa scheme does not take"):
        select_prompt("attrscore", label_scheme("caqa"), path)
    released = label_scheme("caqa", protocol="released")
    prompt = select_prompt("attrscore", released, path)
    assert {o: released.resolve(v) for o, v in prompt.options.items()} == {
        "Attributable": "Support", "Extrapolatory": "Irrelevant",
        "Contradictory": "Contradictory"}
    # Its fact-checking task has a multi-word option.
    check = select_prompt("fact-checking", label_scheme("attrscore"), path)
    assert parse_reply("Not enough information to say.", check.options) == "Extrapolatory"


# ---------------------------------------------------------------------------
# Files and the use case


def test_predictions_round_trip_and_the_document(bench: Path, tmp_path: Path,
                                                 samples: tuple[BenchmarkSample, ...]) -> None:
    scheme = label_scheme("ours")
    test = [s for s in samples if s.split == "test"]
    # Right for every sample but: the first two supportive ones are unparsed, and every
    # contradictory one is called supportive. Written in CAQA's names, plus the train
    # split's samples (ignored).
    supportive = [s.id for s in test if s.label == "supportive"][:2]
    records: list[dict[str, object]] = []
    for s in samples:
        label = None if s.id in supportive else (
            "Support" if s.label == "contradictory" else CAQA_NAMES[s.label])
        records.append({"id": s.id, "label": label, "note": "extra keys are ignored"})
    path = write_jsonl(tmp_path / "preds.jsonl", records)
    saved = tmp_path / "saved.jsonl"
    report = evaluate_benchmark(bench, PredictionsFileEvaluator(path, scheme), scheme,
                                save_predictions=saved)
    doc = report.to_json()
    assert list(doc) == ["protocol", "per_label", "per_complexity", "overall_micro_f1",
                         "macro_f1", "confusion", "n", "unparsed"]
    assert doc["protocol"] == "kgbench"
    counts = Counter(s.label for s in test)
    n = len(test)
    assert doc["n"] == n and doc["unparsed"] == 2
    assert doc["confusion"]["contradictory"]["supportive"] == counts["contradictory"]
    assert doc["confusion"]["supportive"]["unparsed"] == 2
    correct = n - 2 - counts["contradictory"]
    assert doc["overall_micro_f1"] == pytest.approx(correct / n)
    sup = doc["per_label"]["supportive"]
    tp = counts["supportive"] - 2
    assert sup["precision"] == pytest.approx(tp / (tp + counts["contradictory"]))
    assert sup["recall"] == pytest.approx(tp / counts["supportive"])
    assert doc["per_label"]["contradictory"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                                 "support": counts["contradictory"]}
    assert sum(v["support"] for v in doc["per_complexity"].values()) == n
    ignored = len(samples) - len(test)   # the train split's
    assert ignored and any(f"ignored {ignored} predictions" in note for note in report.notes)
    # The saved file scores to the same document.
    again = evaluate_benchmark(bench, PredictionsFileEvaluator(saved, scheme), scheme)
    assert again.to_json() == doc
    assert not list(tmp_path.glob("*.part"))


def test_missing_duplicate_unknown_and_malformed_predictions(bench: Path, tmp_path: Path,
                                                             samples: tuple[BenchmarkSample, ...]
                                                             ) -> None:
    scheme = label_scheme("ours")
    evaluation = load_evaluation_set(bench, scheme, "test")
    test = [s for s in samples if s.split == "test"]
    good = [{"id": s.id, "label": s.label} for s in test]

    def error(lines: list[str]) -> str:
        path = tmp_path / "p.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        with pytest.raises(ScoringError) as info:
            read_predictions(path, scheme, evaluation)
        return str(info.value)

    dumped = [json.dumps(r) for r in good]
    message = error(dumped[:-3])
    assert f"no prediction for 3 of {len(test)} samples of the test split" in message
    assert repr(test[-1].id) in message
    assert error([*dumped, dumped[0]]).endswith(
        f":{len(test) + 1}: sample id {test[0].id!r} again (first on line 1)")
    assert ":2: 'maybe' is not a label of the ours scheme" in error(
        [dumped[0], json.dumps({"id": test[1].id, "label": "maybe"})])
    assert ":1: sample id 'nope' is not in the benchmark" in error(
        [json.dumps({"id": "nope", "label": "supportive"})])
    assert ":2: not JSON" in error([dumped[0], "{oops"])
    assert ':1: no "label"' in error([json.dumps({"id": test[0].id})])
    assert ":1: a JSON list where an object belongs" in error(["[1, 2]"])


def test_write_predictions_keeps_replies_and_unparsed(tmp_path: Path) -> None:
    path = write_predictions(tmp_path / "out.jsonl", ["a", "b"],
                             [Prediction("supportive", "Support."), Prediction(None, "hmm")])
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert lines == [{"id": "a", "label": "supportive", "reply": "Support."},
                     {"id": "b", "label": None, "reply": "hmm"}]


def test_a_split_with_no_samples_is_one_clear_error(tmp_path: Path,
                                                    samples: tuple[BenchmarkSample, ...]) -> None:
    write_benchmark(tmp_path / "b", [s.model_copy(update={"split": "train"}) for s in samples])
    with pytest.raises(ScoringError, match=r"has no samples in the test split \(samples: "
                                           rf"{len(samples)} train, 0 test\)") as info:
        load_evaluation_set(tmp_path / "b", label_scheme("ours"), "test")
    assert "--split train" in str(info.value.hint)
    with pytest.raises(ScoringError, match="not a benchmark directory"):
        load_evaluation_set(tmp_path, label_scheme("ours"), "test")


def test_blind_labels_and_sub_facts(bench: Path, tmp_path: Path,
                                    samples: tuple[BenchmarkSample, ...]) -> None:
    scheme = label_scheme("ours")
    test = [s for s in samples if s.split == "test"]
    # Evaluator A is right everywhere, B says supportive everywhere.
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": s.id, "label": s.label} for s in test])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": s.id, "label": "supportive"} for s in test])
    c = write_jsonl(tmp_path / "c.jsonl", [{"id": s.id, "label": "irrelevant"} for s in test])
    # The blind reader agrees except on the first four labelled samples, which they call
    # supportive; rows for other benchmarks are ignored.
    blind_rows = [s for s in test][:8]
    flipped = {s.id for s in blind_rows[:4]}
    tsv = tmp_path / "blind.tsv"
    tsv.write_text("item\tsample_id\tgenerated\tblind:R\n"
                   + "".join(f"B{i}\t{s.id}\t{s.label}\t"
                             f"{'supportive' if s.id in flipped else s.label}\n"
                             for i, s in enumerate(blind_rows))
                   # A pooled sheet: another benchmark's id, twice (ignored, not an error).
                   + "B98\tother-bench:supportive\tsupportive\tsupportive\n"
                   + "B99\tother-bench:supportive\tsupportive\tirrelevant\n", encoding="utf-8")
    # Sub-facts: the evaluator calls every sub-fact of each partially supportive sample
    # supported.
    partial = [s for s in test if s.label == "partially_supportive"]
    sub_path = write_jsonl(tmp_path / "sub.jsonl", [
        {"id": s.id, "sub_facts": [True] * len(s.sub_facts)} for s in partial])
    report = evaluate_benchmark(bench, PredictionsFileEvaluator(a, scheme), scheme,
                                blind_labels=tsv, compare=[b, c], sub_facts=sub_path)
    block = report.consistency
    assert block is not None
    assert block["samples"] == 8
    generated = [s.label for s in blind_rows]
    blind = ["supportive" if s.id in flipped else s.label for s in blind_rows]
    assert block["label_agreement"] == pytest.approx(
        sum(g == x for g, x in zip(generated, blind, strict=True)) / 8)
    rows = {r["name"]: r for r in block["evaluators"]}
    assert rows["a.jsonl"]["micro_f1_generated"] == 1.0
    assert rows["a.jsonl"]["micro_f1_blind"] == pytest.approx(block["label_agreement"])
    assert rows[str(b)]["micro_f1_generated"] == pytest.approx(generated.count("supportive") / 8)
    assert rows[str(b)]["micro_f1_blind"] == pytest.approx(blind.count("supportive") / 8)
    assert rows[str(c)]["micro_f1_blind"] == pytest.approx(blind.count("irrelevant") / 8)
    assert block["pearson"] is not None and -1.0 <= block["pearson"] <= 1.0
    fine = report.fine_grained
    assert fine is not None
    facts = [f.supported for s in partial for f in s.sub_facts]
    assert fine["samples"] == len(partial) and fine["sub_facts"] == len(facts)
    assert fine["factscore"] == 1.0
    assert fine["factscore_benchmark"] == pytest.approx(sum(facts) / len(facts))
    assert fine["error_rate"] == pytest.approx(1.0 - sum(facts) / len(facts))
    assert fine["agreement"] == pytest.approx(sum(facts) / len(facts))
    assert set(report.to_json()) >= {"consistency", "fine_grained"}

    # A compare file must cover the blind-labelled samples; sub-facts must match in length.
    short = write_jsonl(tmp_path / "short.jsonl", [{"id": test[0].id, "label": "supportive"}])
    with pytest.raises(ScoringError, match="no prediction for 7 of 8 samples"):
        evaluate_benchmark(bench, PredictionsFileEvaluator(a, scheme), scheme,
                           blind_labels=tsv, compare=[short])
    bad = write_jsonl(tmp_path / "bad.jsonl", [
        {"id": partial[0].id, "sub_facts": [True] * (len(partial[0].sub_facts) + 1)}])
    with pytest.raises(ScoringError, match=rf"bad.jsonl:1: {len(partial[0].sub_facts) + 1} "
                                           "sub-fact calls for sample"):
        evaluate_benchmark(bench, PredictionsFileEvaluator(a, scheme), scheme, sub_facts=bad)
    twice = tmp_path / "twice.tsv"
    twice.write_text(f"sample_id\tlabel\n{test[0].id}\tsupportive\n{test[0].id}\tirrelevant\n")
    with pytest.raises(ScoringError, match=rf"twice.tsv:3: sample id '{test[0].id}' again "
                                           r"\(first on line 2\)"):
        evaluate_benchmark(bench, PredictionsFileEvaluator(a, scheme), scheme,
                           blind_labels=twice)
    two_readers = tmp_path / "two.tsv"
    two_readers.write_text(f"sample_id\tblind:G\tblind:H\n{test[0].id}\tsupportive\tsupportive\n")
    with pytest.raises(ScoringError, match="several do: 'blind:G', 'blind:H'"):
        evaluate_benchmark(bench, PredictionsFileEvaluator(a, scheme), scheme,
                           blind_labels=two_readers)
    one = evaluate_benchmark(bench, PredictionsFileEvaluator(a, scheme), scheme,
                             blind_labels=two_readers, blind_column="blind:H")
    assert one.consistency is not None and one.consistency["pearson"] is None   # one evaluator
