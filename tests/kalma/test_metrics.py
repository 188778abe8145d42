"""KaLMA's metrics (§4.2-4.4) on hand-built entries and answers, every expected number
worked out by hand from the paper's definitions."""

from __future__ import annotations

import pytest

from kalma.citations import AnswerSentence, Citation, ParsedAnswer
from kalma.entry import EntityRef, KalmaEntry, Knowledge
from kalma.metrics import (
    alignment,
    alignment_decisions,
    alignment_pairs,
    citation_hypothesis,
    citation_scores,
    entailed,
    f1,
    na_decisions,
    na_pairs,
    na_scores,
    na_sentence_correct,
)
from scoring.runtime import NliScores

ROME = Knowledge("Q1", "Ann", "place of birth", "Rome")
SPOUSE = Knowledge("Q1", "Ann", "spouse", "Bob", object_id="Q2")
PAINTER = Knowledge("Q2", "Bob", "occupation", "painter")
PARIS = Knowledge("Q2", "Bob", "place of birth", "Paris")
WRITER = Knowledge("Q3", "Cy", "occupation", "writer")
NOBEL = Knowledge("Q3", "Cy", "award received", "Nobel Prize")
OSLO = Knowledge("Q4", "Di", "place of birth", "Oslo")


def entry(entry_id: str, pool: tuple[Knowledge, ...], minimum: tuple[Knowledge, ...],
          absent: tuple[Knowledge, ...] = ()) -> KalmaEntry:
    subjects = {k.subject_id: k.subject_name for k in (*pool, *minimum)}
    return KalmaEntry(id=entry_id, question_general="Who?", question_specific="Who exactly?",
                      paragraph="", entities=tuple(EntityRef(i, n) for i, n in subjects.items()),
                      minimum_knowledge_set=minimum, knowledge_pool=pool, seed=0,
                      absent_knowledge=absent, incompetence=len(absent))


def cite(k: Knowledge, value: str | None = None) -> Citation:
    return Citation(k.subject_id, k.relation, k.object if value is None else value)


def answer(answer_id: str, *sentences: AnswerSentence, unparsed: int = 0) -> ParsedAnswer:
    return ParsedAnswer(answer_id, sentences, unparsed)


def sentence(text: str, *citations: Citation, na: bool = False) -> AnswerSentence:
    return AnswerSentence(text, citations, na)


ENTRY_A = entry("a", (ROME, SPOUSE, PAINTER, PARIS), (ROME, SPOUSE, PAINTER))
ENTRY_B = entry("b", (WRITER, NOBEL), (WRITER, NOBEL))
# Answer a: 3 citations + 1 unparsed = 4; correct: Rome, Paris (Milan is not in the
# pool) = 2; precise (correct and in the MKS): Rome = 1; recalled: Rome = 1 of 3.
ANSWER_A = answer("a", sentence("Ann was born in Rome.", cite(ROME), cite(ROME, "Milan")),
                  sentence("Bob was born in Paris.", cite(PARIS)), unparsed=1)
# Answer b: 2 citations, both correct and precise (" nobel prize." normalizes to the
# pool's "Nobel Prize"); recalled 2 of 2.
ANSWER_B = answer("b", sentence("Cy wrote and won.", cite(WRITER), cite(NOBEL, " nobel prize.")))


def test_citation_quality_micro_and_macro_by_hand() -> None:
    scores = citation_scores({"a": ANSWER_A, "b": ANSWER_B}, [ENTRY_A, ENTRY_B])
    assert scores.citations == 6
    assert scores.correctness == pytest.approx(4 / 6)       # (2 + 2) / 6
    assert scores.precision_micro == pytest.approx(3 / 6)   # (1 + 2) / 6
    assert scores.recall_micro == pytest.approx(3 / 5)      # (1 + 2) / (3 + 2)
    assert scores.f1_micro == pytest.approx(6 / 11)         # 2 * .5 * .6 / 1.1
    assert scores.precision_macro == pytest.approx(5 / 8)   # (1/4 + 2/2) / 2
    assert scores.recall_macro == pytest.approx(2 / 3)      # (1/3 + 2/2) / 2
    assert scores.f1_macro == pytest.approx(20 / 31)        # 2 * 5/8 * 2/3 / (5/8 + 2/3)


def test_an_entry_without_an_answer_is_an_empty_answer() -> None:
    entry_c = entry("c", (OSLO,), (OSLO,))
    scores = citation_scores({"a": ANSWER_A, "b": ANSWER_B}, [ENTRY_A, ENTRY_B, entry_c])
    assert scores.citations == 6 and scores.correctness == pytest.approx(4 / 6)
    assert scores.recall_micro == pytest.approx(3 / 6)                   # Oslo not recalled
    assert scores.precision_macro == pytest.approx((1 / 4 + 1 + 0) / 3)  # no citation: 0
    assert scores.recall_macro == pytest.approx((1 / 3 + 1 + 0) / 3)


def test_an_absent_triple_cited_is_neither_correct_nor_recalled() -> None:
    """§4.4 setting: Spouse removed from the pool; citing it is not a correct citation."""
    reduced = ENTRY_A.with_absent([SPOUSE])
    scores = citation_scores({"a": answer("a", sentence("s.", cite(ROME), cite(SPOUSE)))},
                             [reduced])
    assert scores.correctness == pytest.approx(1 / 2)
    assert scores.precision_micro == pytest.approx(1 / 2)
    assert scores.recall_micro == pytest.approx(1 / 3)


def test_empty_denominators_are_null_not_zero() -> None:
    no_minimum = entry("z", (ROME,), ())
    scores = citation_scores({"z": answer("z", sentence("Ann.", cite(ROME)))}, [no_minimum])
    assert scores.correctness == 1.0 and scores.precision_micro == 0.0
    assert scores.recall_micro is None and scores.recall_macro is None
    assert scores.f1_micro is None and scores.f1_macro is None
    silent = citation_scores({}, [no_minimum])
    assert silent.correctness is None and silent.precision_micro is None
    assert silent.precision_macro == 0.0


def test_f1() -> None:
    assert f1(0.5, 1.0) == pytest.approx(2 / 3)
    assert f1(0.0, 0.0) == 0.0
    assert f1(None, 0.5) is None and f1(0.5, None) is None


def test_alignment_pairs_verbalize_citations_with_the_subject_name() -> None:
    pairs = alignment_pairs(ANSWER_A, ENTRY_A)
    assert pairs == [("Ann was born in Rome.", "Ann place of birth: Rome"),
                     ("Ann was born in Rome.", "Ann place of birth: Milan"),
                     ("Bob was born in Paris.", "Bob place of birth: Paris")]
    assert citation_hypothesis(Citation("Q99", "employer", "Jena"), {}) == "employer: Jena"


def test_alignment_is_the_share_of_entailed_pairs() -> None:
    table = {("Ann was born in Rome.", "Ann place of birth: Rome"): True,
             ("Ann was born in Rome.", "Ann place of birth: Milan"): False,
             ("Bob was born in Paris.", "Bob place of birth: Paris"): True}
    decisions = alignment_decisions(ANSWER_A, ENTRY_A, table)
    assert decisions == [True, False, True]
    assert alignment(decisions) == pytest.approx(2 / 3)
    assert alignment([]) is None
    bare = answer("a", sentence("", cite(ROME)))   # citations alone: nothing entails them
    assert alignment_decisions(bare, ENTRY_A, {}) == [False]


def test_na_sentence_rule_with_the_edge_case() -> None:
    assert na_sentence_correct(entails_absent=True, entails_minimum=True)
    assert not na_sentence_correct(entails_absent=False, entails_minimum=True)
    assert na_sentence_correct(entails_absent=False, entails_minimum=False)   # §4.5


def test_na_precision_and_recall_by_hand() -> None:
    """Spouse and Painter absent. [NA] sentences: s1 entails Spouse (absent: 1), s2
    entails Rome only (answers with present knowledge: 0), s3 entails nothing (§4.5 edge
    case: 1); s4 entails Painter but has no [NA]. Precision 2/3; recall: Spouse by s1,
    Painter by no [NA] sentence: 1/2."""
    variant = ENTRY_A.with_absent([SPOUSE, PAINTER])
    reply = answer("a", sentence("Ann married Bob.", na=True),
                   sentence("Ann was born in Rome.", na=True),
                   sentence("The weather was nice.", na=True),
                   sentence("Bob painted.", cite(PAINTER)))
    entails = {("Ann married Bob.", SPOUSE.verbalized()), ("Ann was born in Rome.",
                                                          ROME.verbalized()),
               ("Bob painted.", PAINTER.verbalized())}
    pairs = na_pairs(reply, variant)
    assert len(pairs) == 3 * 3   # 3 [NA] sentences x (2 absent + Rome; absent ones once)
    table = {pair: pair in entails for pair in pairs}
    precision, recall = na_decisions(reply, variant, table)
    assert precision == [True, False, True]
    assert recall == [True, False]
    assert na_scores(precision, recall) == (pytest.approx(2 / 3), pytest.approx(1 / 2))


def test_na_scores_are_null_without_na_sentences_or_absent_knowledge() -> None:
    assert na_scores([], []) == (None, None)
    precision, recall = na_decisions(ANSWER_A, ENTRY_A, {})
    assert precision == [] and recall == []
    assert na_decisions(None, ENTRY_A.with_absent([ROME]), {}) == ([], [False])


def test_entailed_is_the_argmax() -> None:
    assert entailed(NliScores(0.5, 0.3, 0.2))
    assert not entailed(NliScores(0.3, 0.5, 0.2))
    assert entailed(NliScores(0.4, 0.4, 0.2))   # a tie goes to entailment
