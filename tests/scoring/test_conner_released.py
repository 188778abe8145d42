"""``conner score --protocol released``: CONNER's released scripts (``eval_exp.py``,
``ppl.py``, ``relevance.py``, ``info.py``, ``helpfulness.py``, ``nq_validity.py``,
``wow_validity.py``) re-implemented. The rules are checked on hand-made model outputs
with every expected number worked out by hand; the wiring through the tiny exported
models (real onnxruntime) is checked against the rules applied to the models' own raw
outputs."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

from scoring.conner.batch import Prepared
from scoring.conner.prompts import (
    KGBENCH_RELEASED_PROMPTS,
    load_conner_prompts,
)
from scoring.conner.records import ConnerRecord, read_records
from scoring.conner.released import (
    asked_query,
    best_evidence,
    cut_knowledge,
    few_shot_prompt,
    helpfulness_from_losses,
    informativeness_from_logprobs,
    record_label,
    released_label,
    released_sentences,
    sentence_coherence,
    sentence_perplexity,
)
from scoring.conner.released_batch import (
    ReleasedSetup,
    _factuality,
    _validity,
    _validity_pairs,
    helpfulness_texts,
    informativeness_texts,
)
from scoring.conner.run import conner_score
from scoring.conner.summary import summary_row
from scoring.errors import ScoringError
from scoring.runtime import CausalLM, CrossEncoder, NliScorer, NliScores
from tests.kgbench.test_cli import assert_clean_error, run
from tests.scoring.models import Exported

# NliScores(entailment, neutral, contradiction)
S1_E1, S1_E2 = NliScores(0.2, 0.5, 0.3), NliScores(0.6, 0.3, 0.1)
S2_E1, S2_E2 = NliScores(0.1, 0.2, 0.7), NliScores(0.1, 0.6, 0.3)
TIE = NliScores(0.4, 0.4, 0.2)


def test_labels_ties_and_the_record_label() -> None:
    """s1: e2 has the higher entailment (.6) -> its label, argmax of (contra .1, neutral
    .3, entail .6) = entailment. s2: entailment ties at .1 -> the first evidence, whose
    label is contradiction (.7). The record: the higher label, entailment (kgbench's
    default min would take s2). A neutral/entailment tie is neutral (the earlier)."""
    assert best_evidence([S1_E1, S1_E2]) == 1 and best_evidence([S2_E1, S2_E2]) == 0
    assert released_label(S1_E2) == 2 and released_label(S2_E1) == 0
    assert released_label(TIE) == 1
    assert record_label([[S1_E1, S1_E2], [S2_E1, S2_E2]]) == 2
    assert record_label([[TIE]]) == 1
    assert record_label([[S1_E1], []]) is None and record_label([]) is None


def test_factuality_is_the_share_of_labels() -> None:
    """r1 entailment, r2 neutral, r3 has no evidence (left out): the file's shares are
    1/2 consistent, 1/2 non-verified, 0 inconsistent."""
    docs: list[dict[str, Any]] = []
    for per_sentence in ([[S1_E1, S1_E2], [S2_E1, S2_E2]], [[TIE]], [[]]):
        doc: dict[str, Any] = {"factuality": None}
        _factuality(doc, per_sentence)
        docs.append(doc)
    assert docs[0]["factuality_label"] == "entailment"
    assert docs[0]["sentence_factuality"] == [[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]]
    assert docs[2]["factuality"] is None
    row = summary_row(Path("sys.jsonl"), docs, rounded=False)
    assert (row["factual_consistent"], row["non_verified"], row["factual_inconsistent"]) \
        == (0.5, 0.5, 0.0)
    assert row["scored"]["factual_consistent"] == 2


def test_sentence_coherence_caps_perplexity_and_inverts_the_mean() -> None:
    """s1 log-probs (-1, -3): PPL e^2 = 7.389; s2 (-10): e^10 capped at 200; a sentence
    of one token has nothing scored: NaN. Record (s1, s2): 1 / ((e^2 + 200) / 2)."""
    assert sentence_perplexity([-1.0, -3.0]) == pytest.approx(math.e ** 2)
    assert sentence_perplexity([-10.0]) == 200.0
    assert math.isnan(sentence_perplexity([]))
    assert sentence_coherence([math.e ** 2, 200.0]) == pytest.approx(2 / (math.e ** 2 + 200))
    assert math.isnan(sentence_coherence([7.0, math.nan])) and math.isnan(sentence_coherence([]))


def test_informativeness_helpfulness_and_the_word_budget() -> None:
    assert informativeness_from_logprobs([-0.5, -1.5]) == pytest.approx(1 - math.exp(-1))
    assert math.isnan(informativeness_from_logprobs([]))
    assert helpfulness_from_losses(1.0, [2.0, 4.0]) == pytest.approx(1 - 1 / 3)
    assert helpfulness_from_losses(5.0, [2.0, 4.0]) == 0.0
    assert helpfulness_from_losses(1.0, [0.0]) == 0.0 and math.isnan(helpfulness_from_losses(1, []))
    # "a b c" has 3 words: demonstrations go in while the words so far are under 1797:
    # 0 -> 1000 -> 2000, so two of three.
    thousand = " ".join(["w"] * 1000)
    assert few_shot_prompt([thousand] * 3, "a b c") == f"{thousand}\n\n{thousand}\n\na b c"
    assert asked_query("who wrote it ", "nq") == "who wrote it?"
    assert asked_query("who? ", "nq") == "who? "          # kept as it is, unstripped
    assert asked_query(" hi there ", "wow") == "hi there"
    assert cut_knowledge("a  b\nc " + "x " * 400) == "a b c " + " ".join(["x"] * 297)


def prepared(record: ConnerRecord, evidence: tuple[str, ...] = (),
             baseline: tuple[str, ...] = ()) -> Prepared:
    return Prepared(record=record, sentences=tuple(released_sentences(record.knowledge)),
                    evidence=evidence, evidence_source="record" if evidence else "none",
                    baseline=baseline, baseline_ids=tuple(f"x{i}" for i in range(len(baseline))))


def test_the_prompts_of_informativeness_and_helpfulness(tmp_path: Path) -> None:
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({
        "informativeness": "Topic: {topic}.\nQ: {query}\nW: ",
        "helpfulness": "P: {knowledge}\nQ: {query}\nA: ",
        "demonstrations": [{"topic": "Paris.", "knowledge": "Paris. Paris is in France.",
                            "query": "hi [SEP] where is paris", "answer": " France "}]}))
    prompts = load_conner_prompts(path)
    setup = ReleasedSetup("nq", prompts)
    record = ConnerRecord("r", "a [SEP] who wrote it", " Tolkien wrote it. ", answer="x",
                          gold_answer="Tolkien", topic=" The Hobbit ")
    p = prepared(record, baseline=("Paris is big.",))
    instruction, example = informativeness_texts(p, setup)
    assert instruction == "Topic: The Hobbit.\nQ: a [SEP] who wrote it?\nW: "
    assert example == instruction + "Tolkien wrote it."
    demo = "P: Paris is in France.\nQ: where is paris\nA: France"   # the topic cut off
    assert helpfulness_texts(p, prompts) == [
        f"{demo}\n\nP: Tolkien wrote it.\nQ: who wrote it\nA: Tolkien",
        f"{demo}\n\nP: Paris is big.\nQ: who wrote it\nA: Tolkien"]
    path.write_text(json.dumps({"informativeness": "Q: {question}", "helpfulness": "x"}))
    with pytest.raises(ValueError, match=r"prompt 'informativeness' has no \{query\} slot"):
        load_conner_prompts(path)


def test_validity_pairs_are_tab_joined_with_a_question_mark_and_gold_first() -> None:
    record = ConnerRecord("r", "who wrote the hobbit", "k", answer=" J. R. R. Tolkien ",
                          gold_answer="Tolkien")
    p = prepared(record, evidence=("The Hobbit is by Tolkien.",))
    assert _validity_pairs(p, "nq") == [("who wrote the hobbit?\tTolkien",
                                         "who wrote the hobbit?\tJ. R. R. Tolkien")]
    assert _validity_pairs(p, "wow") == [("Tolkien", "J. R. R. Tolkien"),
                                         ("The Hobbit is by Tolkien.", "J. R. R. Tolkien")]
    # nq: contradiction (.4) -> not valid; wow: the evidence with the higher entailment
    # (.5) has label entailment -> valid.
    doc: dict[str, Any] = {}
    _validity(doc, [NliScores(0.3, 0.3, 0.4)])
    assert doc["validity"] == 0.0
    _validity(doc, [NliScores(0.2, 0.5, 0.3), NliScores(0.5, 0.2, 0.3)])
    assert doc["validity"] == 1.0


def test_the_sentence_splitter_is_punkt() -> None:
    assert released_sentences("Dr. Smith went to the U.S. in 1990. He stayed. It was "
                              "good! Was it?") == ["Dr. Smith went to the U.S. in 1990.",
                                                   "He stayed.", "It was good!", "Was it?"]


# -- through the tiny exported models ----------------------------------------------------

RECORDS: list[dict[str, Any]] = [
    {"id": "a1", "query": "who wrote the hobbit", "topic": "The Hobbit",
     "knowledge": "The Hobbit is a novel by J. R. R. Tolkien. It was published in 1937.",
     "answer": "Tolkien", "gold_answer": "J. R. R. Tolkien",
     "evidence": ["The Hobbit was written by Tolkien.", "It appeared in 1937 in London."]},
    {"id": "a2", "query": "tell me about paris?",
     "knowledge": "Paris is the capital of France. It lies on the Seine.",
     "answer": "Paris is a large city.", "gold_answer": "Paris is the capital of France.",
     "evidence": ["Paris is the capital and largest city of France."]},
    {"id": "a3", "query": "what is the boiling point of water",
     "knowledge": "Water boils at 100 degrees at sea level."},
]


@pytest.fixture(scope="module")
def models(exported: Exported) -> dict[str, Path]:
    return {"nli": exported("bert", "nli"), "rerank": exported("bert", "rerank"),
            "lm": exported("gpt2", "causal-lm")}


def test_released_scores_are_the_rules_on_the_raw_outputs(tmp_path: Path,
                                                          models: dict[str, Path]) -> None:
    path = tmp_path / "sys.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "out"
    report = conner_score([path], nli_dir=models["nli"], rerank_dir=models["rerank"],
                          lm_dir=models["lm"], device="cpu", threads=1, helpfulness_u=1,
                          out_dir=out, protocol="released", task="nq")
    doc = report.to_json()
    assert (doc["protocol"], doc["task"], doc["aggregate"]) == ("released", "nq", "max")
    got = [json.loads(line) for line in (out / "sys.scores.jsonl").read_text().splitlines()]
    nli = NliScorer.open(models["nli"], device="cpu", threads=1)
    lm = CausalLM.open(models["lm"], device="cpu", threads=1)
    rerank = CrossEncoder.open(models["rerank"], device="cpu", threads=1)
    rerank.longest_first_max = 512
    own = Tokenizer.from_file(str(models["lm"] / "tokenizer.json"))
    labels = []
    for g, r in zip(got, read_records(path), strict=True):
        sentences = released_sentences(r.knowledge.strip())
        per_sentence = [nli.score(list(r.evidence), [s] * len(r.evidence)) if r.evidence
                        else [] for s in sentences]
        label = record_label(per_sentence)
        labels.append(label)
        assert g["factuality_label"] == (None if label is None else
                                         ("contradiction", "neutral", "entailment")[label])
        # The LM reads each sentence as its own tokenizer encodes it (no BOS for GPT-2)
        ids = [own.encode(s).ids for s in sentences]
        assert ids == lm.model.tokenizer.encode_own(sentences, 500)
        ppl = [sentence_perplexity(list(lp)) for lp in lm.logprobs_of_ids(ids, [1] * len(ids))]
        assert g["coherence_sentence"] == pytest.approx(sentence_coherence(ppl), rel=1e-9)
        [logit] = rerank.score([r.query], [r.knowledge.strip()])
        assert g["relevance"] == pytest.approx(1 / (1 + math.exp(-logit)), rel=1e-9)
    assert labels[2] is None and got[2]["factuality"] is None   # no evidence: left out
    [row] = doc["rows"]
    shares = [sum(1 for x in labels[:2] if x == k) / 2 for k in (2, 1, 0)]
    assert [row["factual_consistent"], row["non_verified"], row["factual_inconsistent"]] \
        == shares
    assert row["validity"] in (0.0, 0.5, 1.0) and row["scored"]["validity"] == 2
    assert got[2]["helpfulness"] is None and got[0]["helpfulness"] is not None
    assert any("left out of the factuality shares" in n for n in doc["notes"])
    assert any("kgbench's own layouts" in n for n in doc["notes"])
    # A rerun of the other protocol does not read these files back.
    ours = conner_score([path], nli_dir=models["nli"], device="cpu", threads=1, out_dir=out)
    assert ours.protocol == "kgbench" and not any("read back" in n for n in ours.notes)


def test_relevance_is_truncated_longest_first(models: dict[str, Path]) -> None:
    """kgbench keeps the query whole and cuts the passage; the released tokenizer call
    takes tokens off the longer side first, so a short passage survives a long query."""
    tok = CrossEncoder.open(models["rerank"], device="cpu").model.tokenizer
    raw = Tokenizer.from_file(str(models["rerank"] / "tokenizer.json"))
    raw.no_truncation()
    per_word = len(raw.encode("alpha", add_special_tokens=False).ids)
    # A query that just fits the model with room for a few passage tokens only.
    query, passage = " ".join(["alpha"] * ((tok.max_length - 6) // per_word)), "beta gamma"
    whole = raw.encode(query, passage)

    def side(encoded: Any, type_id: int) -> list[int]:
        return [i for i, t in zip(encoded.ids, encoded.type_ids, strict=True) if t == type_id]

    theirs = tok.encode_pairs_longest_first([query], [passage], 32).items[0]
    assert len(theirs) == 32 and side(theirs, 1) == side(whole, 1)   # the passage whole
    assert len(side(theirs, 0)) < len(side(whole, 0))                 # the query cut
    ours = tok.encode_pairs([query], [passage], keep="first").items[0]
    assert side(ours, 0) == side(whole, 0)                   # kgbench: the query whole,
    assert len(side(ours, 1)) < len(side(whole, 1))          # the passage cut


def test_cli_protocol_options(tmp_path: Path, models: dict[str, Path]) -> None:
    path = tmp_path / "sys.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    proc = run("conner", "score", path, "--nli", models["nli"], "--task", "wow")
    assert proc.returncode == 2 and "--task is for --protocol released" in proc.stderr
    proc = run("conner", "score", path, "--nli", models["nli"], "--protocol", "released",
               "--aggregate", "min")
    assert proc.returncode == 2 and "aggregate sentence labels by max" in proc.stderr
    bad = tmp_path / "p.json"
    bad.write_text("[]")
    proc = run("conner", "score", path, "--lm", models["lm"], "--protocol", "released",
               "--prompts", bad)
    assert_clean_error(proc)
    assert "not a CONNER prompt file" in proc.stderr
    proc = run("conner", "score", path, "--nli", models["nli"], "--protocol", "released",
               "--task", "wow", "--device", "cpu", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["protocol"], doc["task"]) == ("released", "wow")
    proc = run("conner", "score", path, "--nli", models["nli"], "--protocol", "released",
               "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    assert "aggregated by max; protocol released, nq scripts" in " ".join(proc.stdout.split())
    with pytest.raises(ScoringError, match="--prompts sets the prompts of the released"):
        conner_score([path], nli_dir=models["nli"], prompts=KGBENCH_RELEASED_PROMPTS)
