"""The grammar gate (issue 34, item 5): LanguageTool's English rules in a real child JVM,
the pipe protocol, and the policy that decides which matches block a sample."""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from extension.verbalize import grammar_gate as gg
from extension.verbalize.grammar_gate import (
    GrammarGate,
    GrammarGateError,
    GrammarGateUnavailable,
    check_samples,
    gate_records,
    gate_stats,
)
from tests.grammar import require_gate, started_gate


@pytest.fixture(scope="module")
def gate():
    yield from started_gate()


def _rules(gate: GrammarGate, text: str) -> dict[str, str]:
    (matches,) = gate.check([text])
    return {m.rule: text[m.start:m.end] for m in matches}


def test_it_catches_the_flaws_readers_saw(gate):
    assert _rules(gate, "The film was designeds by with with John Debney.") == {
        "MORFOLOGIK_RULE_EN_US": "designeds", "ENGLISH_WORD_REPEAT_RULE": "with with"}
    assert _rules(gate, "The film subject whose films is Jaws.") == {"AGREEMENT_SENT_START": "is"}
    assert "EN_A_VS_AN" in _rules(gate, "The person that received a education is Robin Williams.")
    assert _rules(gate, "Which genre includes the film the film of Jaws?") == {
        "PHRASE_REPETITION": "the film the film"}
    assert _rules(gate, "what countries do people speak portuguese?") == {
        "UPPERCASE_SENTENCE_START": "what", "MORFOLOGIK_RULE_EN_US": "portuguese"}


def test_a_british_spelling_is_reported_but_blocks_nothing(gate):
    doc = {"question_extended": "Which neighbour of France was honoured?", "answer": "Spain."}
    (findings,) = check_samples(gate, [doc])
    assert {f.span for f in findings} == {"neighbour", "honoured"}
    assert all(gg.is_variant_spelling(f.match) and not f.blocked for f in findings)
    (misspelt,) = check_samples(gate, [{"question_extended": "Which film was designeds?"}])
    assert [f.blocked for f in misspelt] == [True]


def test_a_plain_question_and_statement_pass(gate):
    texts = ["Which film directed by Steven Spielberg has music by John Williams?",
             "Jaws was directed by Steven Spielberg.", "Who directed the sequel of Jaws?"]
    assert gate.check(texts) == [(), (), ()]


def test_answers_come_in_order_and_repeats_are_checked_once(gate):
    a, b = "The films is long.", "Jaws is a film."
    before = gate.texts_checked
    out = gate.check([a, b, a, b, a])
    assert [len(m) for m in out] == [1, 0, 1, 0, 1]
    assert gate.texts_checked - before <= 2
    assert gate.check([]) == []


def test_offsets_are_python_string_indices_and_line_breaks_stay_inside_a_text(gate):
    text = "𝔘𝔘 The film was designeds.\nIt was designeds too."   # non-BMP, then a newline
    (matches,) = gate.check([text])
    assert [text[m.start:m.end] for m in matches] == ["designeds", "designeds"]
    assert gate.check(["", "x"])[0] == ()


def _doc(question: str, answer: str, citations: list[str], names: list[str]) -> dict:
    triples = [{"s": f"m.{i}", "p": "p", "o": f"m.{i}x", "s_name": n, "o_name": None,
                "literal": False} for i, n in enumerate(names)]
    return {"question_extended": question, "answer": answer,
            "citations": [{"text": c, "triples": triples} for c in citations],
            "subgraph": triples, "answer_entities": []}


def test_names_are_not_the_texts_fault_but_the_article_before_them_is(gate):
    doc = _doc("Which religion does Greg Graffin follow?",
               "The Rescuers has a release date in 1977.",
               ["Lauren Bacall is a citizen of United States of America."],
               ["Greg Graffin", "The Rescuers", "Lauren Bacall", "United States of America"])
    (findings,) = check_samples(gate, [doc])
    by_rule = {f.match.rule: f for f in findings}
    assert by_rule["MORFOLOGIK_RULE_EN_US"].on_name          # "Graffin"
    assert by_rule["AGREEMENT_SENT_START"].on_name           # a title is one thing
    assert by_rule["DETERMINER_GEOGRAPHICAL_WORD"].blocked   # "of the United States"
    assert [f.match.rule for f in findings if f.blocked] == ["DETERMINER_GEOGRAPHICAL_WORD"]


def test_a_lower_cased_name_is_the_texts_fault(gate):
    doc = _doc("What did peter tchaikovsky do?", "Pyotr Ilyich Tchaikovsky was a composer.", [],
               ["Pyotr Ilyich Tchaikovsky"])
    (findings,) = check_samples(gate, [doc])
    assert {f.span for f in findings if f.blocked} >= {"tchaikovsky"}
    assert not any(f.blocked for f in findings if f.part == "answer")


def test_gate_records_drops_the_blocked_samples_and_counts_them(gate):
    from pydantic import BaseModel

    class Record(BaseModel):
        question_extended: str
        answer: str
        citations: list[dict] = []

    good = Record(question_extended="Who directed Jaws?", answer="Steven Spielberg directed Jaws.")
    bad = Record(question_extended="Who directed Jaws?", answer="The films is by with with him.")
    counts: Counter[str] = Counter()
    kept, blocked = gate_records(gate, [good, bad, good], counts)
    assert kept == [good, good]
    assert [r for r, _ in blocked] == [bad]
    assert blocked[0][1].startswith(("agreement_sent_start: ", "english_word_repeat_rule: "))
    stats = gate_stats(counts)
    assert stats["checked_samples"] == 3 and stats["blocked_samples"] == 1
    assert set(stats["blocked_by_rule"]) >= {"ENGLISH_WORD_REPEAT_RULE"}
    assert gate_records(gate, [], counts) == ([], [])


def test_a_dead_checker_is_one_clear_error():
    require_gate()
    gate = GrammarGate()
    try:
        gate._proc.kill()
        gate._proc.wait()
        with pytest.raises(GrammarGateError, match="exited"):
            gate.check(["Is this checked?"])
    finally:
        gate.close()


def test_a_malformed_request_ends_the_checker_with_a_line_on_stderr():
    require_gate()
    done = subprocess.run(gg.launcher_command(), input="three\nno count\n", text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 2
    assert "expected a count of texts" in done.stderr
    assert done.stdout.startswith('{"ready":true,"languagetool":"6.8"')


def test_unbuilt_gate_says_what_to_run(monkeypatch, tmp_path):
    monkeypatch.setenv(gg.CLASSPATH_ENV, str(tmp_path / "missing.txt"))
    with pytest.raises(GrammarGateUnavailable, match="make grammar-gate"):
        GrammarGate()
    assert "make grammar-gate" in (gg.unavailable_reason() or "")
    monkeypatch.setenv(gg.JAVA_ENV, str(tmp_path / "no-java"))
    monkeypatch.delenv(gg.CLASSPATH_ENV)
    if (gg._REPO_TOOLS / "target" / "classpath.txt").is_file():
        with pytest.raises(GrammarGateUnavailable, match="no-java is not a file"):
            gg.launcher_command()
