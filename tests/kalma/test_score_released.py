"""``kalma score --protocol released``: KaLMA's released scripts (``eval_recall.py``,
``eval_relevance.py``, ``eval_NA.py``, ``GPT_EVAL.py``) re-implemented; every expected
number is worked out by hand in the comments from what those scripts do, and set
against kgbench's own protocol on the same inputs."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from kalma.citations import read_answers
from kalma.geval import load_geval_prompts
from kalma.geval_released import (
    released_items,
    released_messages,
    released_rating,
    released_row,
)
from kalma.released import (
    alignment_pairs,
    alignment_scores,
    answer_text,
    bracket_spans,
    citation_scores,
    na_items,
    na_scores,
    needed_pairs,
    plain_text,
    read_citations,
    split_sentences,
    table_entails,
)
from kalma.score import REPORT_KEYS, score_answers
from llm.endpoint import ChatEndpoint
from tests.external import external_path
from tests.kalma.test_metrics import ENTRY_A, ENTRY_B, OSLO, entry
from tests.kgbench.test_cli import run
from tests.llm.chat_server import FakeChatServer
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401

ENTRY_D = entry("d", (OSLO,), (OSLO,))
ENTRY_C = entry("c", (OSLO,), (OSLO,))
ENTRY_E = entry("e", (), ())          # no entity, no knowledge: an empty selected graph

# Answer a: 4 citations (Rome twice, "Painter" of Q1, the name part); Rome, Rome and
# [Q1, name: Ann] are in the selected graph (the name is a key of BioKaLMA's dicts).
# Answer b is pre-parsed: written back as "Cy wrote [Q3, occupation: writer]. Cy won a
# prize [Q3, award received: Nobel Prize]."
ANSWERS = [
    {"id": "a", "output": "Ann was born in Rome [Q1, place of birth: Rome] [Q1, place of "
                          "birth: Rome]. Ann paints [Q1, occupation: Painter]. She is "
                          "called Ann [Q1, name: Ann]."},
    {"id": "b", "sentences": [
        {"text": "Cy wrote.", "citations": [["Q3", "occupation", "writer"]]},
        {"text": "Cy won a prize.", "citations": [["Q3", "award received", "Nobel Prize"]]}]},
    {"id": "d", "output": "Di was born somewhere."},
    {"id": "e", "output": "Nothing [Q5, x: y]."},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    entries = tmp_path / "entries.jsonl"
    entries.write_text("".join(e.to_line() for e in (ENTRY_A, ENTRY_B, ENTRY_C, ENTRY_D,
                                                     ENTRY_E)), encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(a) + "\n" for a in ANSWERS), encoding="utf-8")
    return entries, answers


def texts_of(answers: Path) -> list[tuple[object, str | None]]:
    read = read_answers(answers)
    return [(e, answer_text(read[e.id]) if e.id in read else None)
            for e in (ENTRY_A, ENTRY_B, ENTRY_C, ENTRY_D, ENTRY_E)]


# -- reading ----------------------------------------------------------------------------


def test_citation_reading_follows_the_released_splits() -> None:
    text = ("Ann [Q1, place of birth: Rome] [NA] [Q1,spouse: Bob] [Q2, Bob, occupation: "
            "painter, place of birth: Paris] [Q9, title: Star Wars: A New Hope] [a [b] c] "
            "[Q1, x:\n y] [Q1, name: Ann] [ Q7, born: 1990]")
    citations, marks = read_citations(text)
    assert marks == 1
    assert citations == [
        ("Q1", "place of birth", "Rome"),
        # [Q1,spouse: Bob]: no ", " before the relation, so no citation
        ("Q2", "occupation", "painter"), ("Q2", "place of birth", "Paris"),   # name skipped
        ("Q9", "title", "Star Wars"),          # the value is cut at its own ": "
        # [a [b] c] reads "[a [b]" (no ": "); [Q1, x:<newline> y] is no group
        ("Q1", "name", "Ann"),
        (" Q7", "born", "1990")]               # the id is not trimmed
    assert bracket_spans("[a [b] c]") == [(0, 6)]


def test_sentences_never_end_after_an_upper_case_bracket_and_plain_text() -> None:
    text = ("Ann was born in Rome [Q1, place of birth: Rome]. Her spouse is not known [NA]. "
            "Bob paints [NA]. Ann travels! Then she rests? Yes.")
    # Cut after "...Rome]." ("e]." precedes the space) and after "rests?"; not after
    # "[NA]." ("A]."), nor after "!".
    assert split_sentences(text) == [
        "Ann was born in Rome [Q1, place of birth: Rome].",
        "Her spouse is not known [NA]. Bob paints [NA]. Ann travels! Then she rests?",
        "Yes."]
    # Removing [x] leaves three spaces; "  " is made " " once, left to right, which
    # leaves two; then " ." is made ".".
    assert plain_text("Her spouse is not known [NA]. Bob  [x] paints.") == \
        "Her spouse is not known. Bob  paints."


def test_a_pre_parsed_answer_is_written_back_as_biokalma_text(files: tuple[Path, Path]) -> None:
    answers = read_answers(files[1])
    assert answer_text(answers["b"]) == ("Cy wrote [Q3, occupation: writer]. Cy won a prize "
                                         "[Q3, award received: Nobel Prize].")
    assert answer_text(answers["d"]) == "Di was born somewhere."


def test_hostile_brackets_are_read_in_linear_time() -> None:
    """A line of 200,000 ``[`` and a last ``]``, and 20,000 lines of ``[``: the lazy
    pattern the scripts use would try every ``[`` to the end (quadratic)."""
    assert len(bracket_spans("[" * 200_000 + "]")) == 1
    assert bracket_spans("[\n" * 20_000 + "]") == []
    assert read_citations("[" * 100_000 + "Q1, a: b]") == ([("[" * 99_999 + "Q1", "a", "b")], 0)


# -- citation quality (eval_recall.py) ---------------------------------------------------


def test_citation_quality_as_eval_recall_computes_it(files: tuple[Path, Path]) -> None:
    """Scored: a, b, d (c has no answer, e has an empty selected graph).

    a: 4 citations, correct 3 (Rome, Rome, name) -> 3/4; gold Rome, Spouse, Painter:
       hit Rome -> recall 1/3; irrelevant 4 - 1 = 3 (the second Rome counts against).
    b: 2 citations, both correct and hit -> 1, recall 2/2, irrelevant 0.
    d: no citation: out of macro correctness and precision; recall 0/1.
    micro correctness 5/6; macro (3/4 + 1) / 2 = 7/8; micro recall 3/6; macro recall
    (1/3 + 1 + 0) / 3 = 4/9; micro precision 1 - 3/6 = 1/2; macro 1 - (3/4 + 0)/2 = 5/8;
    F1 micro 1/2, macro 2·(5/8)·(4/9) / (5/8 + 4/9) = 40/77."""
    scores = citation_scores(texts_of(files[1]))  # type: ignore[arg-type]
    assert (scores.answers, scores.citations) == (3, 6)
    assert scores.correctness_micro == pytest.approx(5 / 6)
    assert scores.correctness_macro == pytest.approx(7 / 8)
    assert scores.recall_micro == pytest.approx(1 / 2)
    assert scores.recall_macro == pytest.approx(4 / 9)
    assert scores.precision_micro == pytest.approx(1 / 2)
    assert scores.precision_macro == pytest.approx(5 / 8)
    assert scores.f1_micro == pytest.approx(1 / 2)
    assert scores.f1_macro == pytest.approx(40 / 77)


def test_the_report_under_both_protocols(files: tuple[Path, Path]) -> None:
    released = score_answers(*files, protocol="released").to_json()
    assert tuple(released) == REPORT_KEYS
    assert released["protocol"] == "released"
    assert released["correctness"] == pytest.approx(5 / 6)
    assert released["correctness_macro"] == pytest.approx(7 / 8)
    assert (released["n_entries"], released["n_scored"]) == (5, 3)
    assert released["unparsed_citations"] is None
    # kgbench: every entry scored (c as an empty answer, e's citation incorrect), the
    # pool alone is the retrieved knowledge: a correct 2 of 4 (Rome twice; Q1's
    # "painter" is Q2's; "name" is no knowledge), b 2 of 2, e 0 of 1 -> 4/7; macro over
    # the answers that cite, a, b, e: (2/4 + 1 + 0) / 3 = 1/2.
    ours = score_answers(*files).to_json()
    assert ours["protocol"] == "kgbench" and ours["n_scored"] == 5
    assert ours["correctness"] == pytest.approx(4 / 7)
    assert ours["correctness_macro"] == pytest.approx(1 / 2)


def test_an_empty_gold_set_is_nan_where_the_script_stops(tmp_path: Path) -> None:
    """An entry with knowledge but no minimum set: the script divides 0 by 0 in its
    recall (and stops); kgbench's released protocol gives NaN, written null."""
    entries = tmp_path / "e.jsonl"
    entries.write_text(entry("z", (OSLO,), ()).to_line(), encoding="utf-8")
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": "z", "output": "Di [Q4, place of birth: Oslo]."}) + "\n")
    report = score_answers(entries, answers, protocol="released")
    assert math.isnan(report.citations.recall_micro or 0.0)
    assert report.citations.correctness == 1.0
    doc = report.to_json()
    assert doc["recall_micro"] is None and doc["recall_macro"] is None
    assert doc["f1_micro"] is None and doc["precision_micro"] == 0.0   # 1 - 1/1


# -- alignment (eval_relevance.py) -------------------------------------------------------

DECISIONS = {("Ann paints.", "occupation: Painter"): True,
             ("Cy wrote.", "occupation: writer"): True,
             ("Cy won a prize.", "award received: Nobel Prize"): False}


def test_alignment_as_eval_relevance_computes_it(files: tuple[Path, Path]) -> None:
    """a: Rome, Rome ("rome" is in "Ann was born in Rome."), Ann (in "She is called
    Ann.") aligned without NLI; "Ann paints." entails "occupation: Painter" -> 4/4.
    b: "Cy wrote." entails "occupation: writer", "Cy won a prize." does not entail
    "award received: Nobel Prize" -> 1/2. d has no pair (out of the macro); c and e
    are skipped. Micro 5/6, macro (1 + 1/2) / 2 = 3/4."""
    texts = texts_of(files[1])
    assert needed_pairs(texts) == list(DECISIONS)   # type: ignore[arg-type]
    per_answer = alignment_pairs(texts)             # type: ignore[arg-type]
    assert [len(p) for p in per_answer] == [4, 2, 0]
    micro, macro = alignment_scores(per_answer, table_entails(DECISIONS))
    assert micro == pytest.approx(5 / 6) and macro == pytest.approx(3 / 4)


# -- [NA] (eval_NA.py) -------------------------------------------------------------------

NA_ANSWERS = {
    # One [NA] sentence (no cut after "[NA]."), uncited: "spouse: Bob", "occupation: painter"
    "a": "Ann was born in Rome [Q1, place of birth: Rome]. Her spouse is not known [NA]. "
         "Bob paints [NA]. Ann travels.",
    # One [NA] sentence, uncited: "award received: Nobel Prize"
    "b": "Cy wrote books [Q3, occupation: writer]. Something is missing [NA].",
    # One [NA] sentence, nothing uncited
    "d": "Di was born in Oslo [Q4, place of birth: Oslo] [NA].",
    # No [NA]: skipped entirely
    "c": "Di lives in Oslo.",
}
NA_DECISIONS = {
    ("Her spouse is not known. Bob paints. Ann travels.", "spouse: Bob"): True,
    ("Her spouse is not known. Bob paints. Ann travels.", "occupation: painter"): True,
    ("Something is missing.", "award received: Nobel Prize"): False,
}


def test_na_precision_and_recall_as_eval_na_computes_them() -> None:
    """Entailing pairs: 2 (a's one sentence entails both triples) + 0 + 0 = 2;
    [NA] sentences 1 + 1 + 1 = 3; uncited triples 2 + 1 + 0 = 3 -> 2/3 and 2/3.
    (kgbench's protocol splits a's text after "[NA]." into two [NA] sentences.)"""
    scored = [(e, NA_ANSWERS[e.id]) for e in (ENTRY_A, ENTRY_B, ENTRY_D, ENTRY_C)]
    items = na_items(scored)
    assert [(len(i.sentences), i.uncited) for i in items] == [
        (1, ("spouse: Bob", "occupation: painter")), (1, ("award received: Nobel Prize",)),
        (1, ())]
    assert set(NA_DECISIONS) <= set(needed_pairs(scored))   # with alignment's pairs
    precision, recall = na_scores(items, table_entails(NA_DECISIONS))
    assert precision == pytest.approx(2 / 3) and recall == pytest.approx(2 / 3)
    none = na_scores(na_items([(ENTRY_C, NA_ANSWERS["c"])]), table_entails({}))
    assert all(math.isnan(x) for x in none)


@pytest.mark.slow   # the first tiny model of a session imports torch (~7 s)
def test_released_nli_metrics_through_the_tiny_model(tmp_path: Path,
                                                     exported: Exported) -> None:  # noqa: F811
    """The wiring: the report's numbers are the released functions applied to the
    model's own decisions on the pairs they ask."""
    from kalma.metrics import entailed
    from scoring.runtime import NliScorer

    entries = tmp_path / "entries.jsonl"
    entries.write_text("".join(e.to_line() for e in (ENTRY_A, ENTRY_B, ENTRY_D, ENTRY_C)))
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": k, "output": v}) + "\n"
                               for k, v in NA_ANSWERS.items()))
    model = exported("bert", "nli")
    report = score_answers(entries, answers, nli_dir=model, device="cpu", protocol="released")
    scored = [(e, NA_ANSWERS[e.id]) for e in (ENTRY_A, ENTRY_B, ENTRY_D, ENTRY_C)]
    pairs = needed_pairs(scored)
    scorer = NliScorer.open(model, device="cpu")
    table = {p: entailed(r) for p, r in zip(pairs, scorer.score([p for p, _ in pairs],
                                                                 [h for _, h in pairs]),
                                            strict=True)}
    assert report.nli_pairs == len(pairs)
    expected = na_scores(na_items(scored), table_entails(table))
    assert (report.na_precision, report.na_recall) == expected
    assert (report.alignment, report.alignment_macro) == alignment_scores(
        alignment_pairs(scored), table_entails(table))
    doc = json.loads(run("kalma", "score", entries, "--answers", answers, "--nli", model,
                         "--device", "cpu", "--protocol", "released", "--json").stdout)
    assert doc["protocol"] == "released" and doc["na_recall"] == pytest.approx(expected[1])


# -- G-Eval (GPT_EVAL.py) ----------------------------------------------------------------


def test_released_rating_reads_the_last_ten_characters_and_keeps_numbers_above_five() -> None:
    assert released_rating("4") == (4.0, True)
    assert released_rating("Score: 2. Explanation: well written") == (3.0, False)  # "ll written"
    assert released_rating("The coherence is good: 5") == (5.0, True)   # "is good: 5"
    assert released_rating("7") == (7.0, True)       # the assert fails after the assignment
    assert released_rating("10 of 10") == (10.0, True)
    assert released_rating("") == (3.0, False)


def test_released_items_are_the_first_hundred_with_knowledge() -> None:
    many = [(entry(f"n{i}", (OSLO,), (OSLO,)), None) for i in range(101)]
    items = released_items([(ENTRY_E, "x"), *many])
    assert len(items) == 100 and all(i.answer == "" for i in items)   # "[]" skipped
    assert released_row(ENTRY_E) == ("Who exactly?", "[]")


@pytest.fixture
def llm_server() -> Iterator[FakeChatServer]:
    server = FakeChatServer()
    yield server
    server.stop()


def test_geval_released_messages_and_means_through_a_real_http_server(
        files: tuple[Path, Path], tmp_path: Path, llm_server: FakeChatServer) -> None:
    prompts_file = tmp_path / "geval.json"
    prompts_file.write_text(json.dumps({**{a: f"Rate {a}. " for a in (
        "coherence", "consistency", "fluency", "relevance")}, "suffix": "One number."}))
    prompts = load_geval_prompts(prompts_file)
    endpoint = ChatEndpoint(url=llm_server.url, model="judge", timeout_s=5.0, max_retries=0)
    llm_server.reply = "Score: 2. Explanation: well written"
    released = score_answers(*files, llm=endpoint, geval=True, llm_cache=tmp_path / "c1",
                             geval_prompts=prompts, protocol="released")
    assert released.geval is not None
    # 4 entries with knowledge (e has none): 16 requests, every reply read as 3
    assert released.geval.answers == 4 and len(llm_server.received) == 16
    assert released.geval.means == dict.fromkeys(released.geval.means, 3.0)
    first = llm_server.received[0].body["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert first[0]["content"].startswith("Rate ") and first[0]["content"].endswith(
        ". One number.")
    users = {m["content"] for r in llm_server.received for m in r.body["messages"]
             if m["role"] == "user"}
    assert len(users) == 4
    assert ("Question: Who exactly?/nKnowledge: " + released_row(ENTRY_A)[1] + "/nAnswer: Ann "
            "was born in Rome. Ann paints. She is called Ann.") in users
    # c has no answer: rated as an empty one
    assert ("Question: Who exactly?/nKnowledge: " + released_row(ENTRY_C)[1] + "/nAnswer: "
            in users)
    # kgbench reads the same reply as 2 ("Score: 2"), in one user message
    ours = score_answers(*files, llm=endpoint, geval=True, llm_cache=tmp_path / "c2",
                         geval_prompts=prompts)
    assert ours.geval is not None and ours.geval.means["fluency"] == 2.0
    llm_server.reply = "7"
    high = score_answers(*files, llm=endpoint, geval=True, llm_cache=tmp_path / "c3",
                         geval_prompts=prompts, protocol="released")
    assert high.geval is not None and high.geval.means["relevance"] == 7.0


def test_released_messages_join_inputs_with_a_literal_slash_n() -> None:
    prompts = type("P", (), {"instruction": lambda self, a: f"I-{a}"})()
    item = released_items([(ENTRY_B, "Cy wrote [Q3, occupation: writer].")])[0]
    system, user = released_messages("fluency", item, prompts)  # type: ignore[arg-type]
    assert (system.role, system.content) == ("system", "I-fluency")
    assert user.content == ("Question: Who exactly?/nKnowledge: [{occupation: writer, award "
                            "received: Nobel Prize, name: Cy, date_of_birth: , date_of_death: "
                            ", qid: Q3}]/nAnswer: Cy wrote.")


def test_cli_protocol_option(files: tuple[Path, Path]) -> None:
    proc = run("kalma", "score", files[0], "--answers", files[1], "--protocol", "released")
    assert proc.returncode == 0, proc.stderr
    assert "protocol released" in proc.stdout and "0.833" in proc.stdout
    proc = run("kalma", "score", files[0], "--answers", files[1], "--protocol", "paper")
    assert proc.returncode == 2 and "unknown protocol 'paper'" in proc.stderr


def test_kgbench_macro_alignment_averages_the_answers_with_pairs() -> None:
    from kalma.metrics import alignment_macro

    assert alignment_macro([[True, False], [True], []]) == pytest.approx((1 / 2 + 1) / 2)
    assert alignment_macro([[], []]) is None


@pytest.mark.external
def test_released_rows_of_the_real_biokalma_files_are_the_scripts_columns() -> None:
    """The answering script writes ``str(entity dicts)`` with the quotes taken out as the
    knowledge column; on BioKaLMA's own files, imported, the released rows rebuild the
    same dicts (key order, empty dates) and questions (the general file's prefix kept)."""
    from kalma.biokalma import read_biokalma
    from kalma.geval_released import _unquoted

    folder = external_path("attribution", "biokalma")
    general = folder / "simple_question_graph.json"
    entries = read_biokalma(general, folder / "complex_question_graph.json")
    raw = json.loads(general.read_text("utf-8"))
    for entry_, (question, dicts) in list(zip(entries, raw, strict=True))[:50]:
        assert released_row(entry_, "general") == (question, _unquoted(_unquoted(str(dicts))))


@pytest.mark.external
def test_geval_released_with_the_papers_instructions(files: tuple[Path, Path], tmp_path: Path,
                                                     llm_server: FakeChatServer) -> None:
    instructions = json.loads(external_path("attribution", "biokalma",
                                            "prompt_gpteval_prompt.json").read_text("utf-8"))
    path = tmp_path / "geval.json"
    path.write_text(json.dumps({**dict(zip(("coherence", "consistency", "fluency",
                                            "relevance"), instructions, strict=True)),
                                "suffix": "(your copy of the script's sentence)"}))
    llm_server.reply = "4"
    proc = run("kalma", "score", files[0], "--answers", files[1], "--geval", "--llm-url",
               llm_server.url, "--llm-model", "judge", "--llm-cache", tmp_path / "cache",
               "--prompts", path, "--protocol", "released", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["protocol"] == "released" and doc["geval"]["coherence"] == 4.0
    systems = {r.body["messages"][0]["content"] for r in llm_server.received}
    assert systems == {i + "(your copy of the script's sentence)" for i in instructions}
