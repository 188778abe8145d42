"""KaLMA's metrics of cited answers (Li et al., §4.2-4.4, Figures 2 and 3), as pure
functions of parsed answers, entries and entailment decisions.

Entailment enters only as decisions already made: a mapping from (premise, hypothesis)
to ``True``/``False`` (:data:`EntailmentTable`). :mod:`kalma.score` fills it with an
NLI model (:func:`entailed`: the argmax of the NLI probabilities is entailment); tests
fill it by hand. The pairs a table must hold are listed by :func:`alignment_pairs` and
:func:`na_pairs`.

Every ratio whose denominator is empty (no citation, no knowledge, no ``[NA]``
sentence) is ``None``: there is nothing to measure, and 0 would claim a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kalma.citations import AnswerSentence, Citation, ParsedAnswer
from kalma.entry import KalmaEntry, Knowledge

if TYPE_CHECKING:   # the metrics need no model runtime
    from scoring.runtime import NliScores

__all__ = ["AnswerCitationCounts", "CitationScores", "EntailmentTable", "alignment",
           "alignment_decisions", "alignment_macro", "alignment_pairs", "answer_counts", "citation_hypothesis",
           "citation_scores", "entailed", "f1", "na_decisions", "na_pairs",
           "na_sentence_correct", "na_scores", "ratio"]

EntailmentTable = Mapping[tuple[str, str], bool]
"""(premise, hypothesis) -> whether the premise entails the hypothesis."""


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, ``None`` when there is nothing to divide by."""
    return numerator / denominator if denominator else None


def f1(precision: float | None, recall: float | None) -> float | None:
    """The harmonic mean of precision and recall (§4.2 "F1-Score based on the Precision
    and Recall"); 0 when both are 0, ``None`` when either is undefined."""
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def entailed(scores: NliScores) -> bool:
    """The NLI decision KaLMA's metrics use (§4.3 "check whether the generated sentence
    entails the generated citation"): the model's most probable role is entailment
    (:attr:`NliScores.label`; a tie goes to entailment). No threshold: TRUE, the
    paper's model (App. B.3), gives a yes/no decision as well."""
    return scores.label == "entailment"


# -- citation quality (§4.2, Figure 2) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnswerCitationCounts:
    """One answer's counts behind §4.2: its citations (unparsed ones included), those
    correct, those correct *and* in the minimum knowledge set, and the knowledge of the
    minimum knowledge set hit by a correct citation."""

    citations: int
    correct: int
    precise: int
    minimum_knowledge: int
    recalled: int


def answer_counts(answer: ParsedAnswer | None, entry: KalmaEntry) -> AnswerCitationCounts:
    """§4.2 for one answer. *Correctness*: a citation is correct iff it is complete
    (all three parts: an unparsed citation is not) and exactly matches a triple of the
    entry's retrieved knowledge, the ``knowledge_pool`` (:meth:`Knowledge.key`).
    *Precision*: correct and matching a triple of the minimum knowledge set. *Recall*:
    a piece of the minimum knowledge set counts iff a correct citation hits it (so a
    triple removed from the pool in the §4.4 setting cannot be recalled). No answer is
    an empty answer."""
    retrieved = entry.retrieved_keys()
    minimum = {k.key() for k in entry.minimum_knowledge_set}
    cited = answer.citations() if answer is not None else []
    correct_keys = [c.key() for c in cited if c.key() in retrieved]
    return AnswerCitationCounts(
        citations=len(cited) + (answer.unparsed if answer is not None else 0),
        correct=len(correct_keys),
        precise=sum(1 for key in correct_keys if key in minimum),
        minimum_knowledge=len(minimum),
        recalled=len(minimum & set(correct_keys)))


@dataclass(frozen=True, slots=True)
class CitationScores:
    """§4.2's citation quality over a set of answers."""

    correctness: float | None
    correctness_macro: float | None
    precision_micro: float | None
    recall_micro: float | None
    f1_micro: float | None
    precision_macro: float | None
    recall_macro: float | None
    f1_macro: float | None
    citations: int


def citation_scores(answers: Mapping[str, ParsedAnswer],
                    entries: Sequence[KalmaEntry]) -> CitationScores:
    """Correctness, precision, recall and F1 (§4.2, Figure 2) of ``answers`` (by entry
    id) on ``entries`` (an entry without an answer counts as an empty answer).

    *Micro*: correctness and precision averaged over all citations of all answers,
    recall over all knowledge of all minimum knowledge sets. *Macro* (§4.2 "average
    over all citations/knowledge in an answer, and average all answer-level
    precision/recall"): per answer, then the mean over answers. kgbench's choices where
    the paper is silent: an answer without citations has answer-level precision 0
    (citing nothing helps nobody answer, and leaving it out would reward a system for
    citing only when sure); an entry whose minimum knowledge set is empty (BioKaLMA's
    own files have none) has no answer-level recall and is left out of the recall mean.
    Macro correctness is the mean over the answers that cite anything: the share of an
    answer's citations that exist says nothing when there are none (its precision 0
    already counts that answer against it). F1 is computed from the corresponding
    precision and recall, micro and macro."""
    counts = [answer_counts(answers.get(entry.id), entry) for entry in entries]
    n_citations = sum(c.citations for c in counts)
    n_minimum = sum(c.minimum_knowledge for c in counts)
    precision_micro = ratio(sum(c.precise for c in counts), n_citations)
    recall_micro = ratio(sum(c.recalled for c in counts), n_minimum)
    per_precision = [ratio(c.precise, c.citations) or 0.0 for c in counts]
    per_recall = [r for r in (ratio(c.recalled, c.minimum_knowledge) for c in counts)
                  if r is not None]
    per_correct = [r for r in (ratio(c.correct, c.citations) for c in counts) if r is not None]
    precision_macro = ratio(sum(per_precision), len(per_precision))
    recall_macro = ratio(sum(per_recall), len(per_recall))
    return CitationScores(
        correctness=ratio(sum(c.correct for c in counts), n_citations),
        correctness_macro=ratio(sum(per_correct), len(per_correct)),
        precision_micro=precision_micro, recall_micro=recall_micro,
        f1_micro=f1(precision_micro, recall_micro),
        precision_macro=precision_macro, recall_macro=recall_macro,
        f1_macro=f1(precision_macro, recall_macro), citations=n_citations)


# -- text-citation alignment (§4.3) ---------------------------------------------------


def subject_names(entry: KalmaEntry) -> dict[str, str]:
    """Entity id -> name, from the entry's entities and its knowledge."""
    names = {k.subject_id: k.subject_name
             for k in (*entry.knowledge_pool, *entry.minimum_knowledge_set,
                       *entry.absent_knowledge)}
    names.update({e.id: e.name for e in entry.entities})
    return names


def citation_hypothesis(citation: Citation, names: Mapping[str, str]) -> str:
    """The NLI hypothesis for a citation: App. B.3 puts the citation's
    ``relation: value`` in the hypothesis ("hypothesis: {employer: University of
    Jena}"); kgbench puts the subject's name before it, as
    :meth:`Knowledge.verbalized` does for a triple, so the hypothesis says whose
    relation it is (``Artemisia Gentileschi place of birth: Rome``). An id the entry
    does not name is left out."""
    name = names.get(citation.subject_id.strip(), "")
    return f"{name} {citation.relation}: {citation.value}".strip()


def alignment_pairs(answer: ParsedAnswer, entry: KalmaEntry) -> list[tuple[str, str]]:
    """(sentence, verbalized citation) for every citation of every sentence of the
    answer (§4.3 "we run NLI on all sentence-citation pairs"), in order."""
    names = subject_names(entry)
    return [(sentence.text, citation_hypothesis(c, names))
            for sentence in answer.sentences for c in sentence.citations]


def alignment_decisions(answer: ParsedAnswer, entry: KalmaEntry,
                        table: EntailmentTable) -> list[bool]:
    """Whether each (sentence, citation) pair of :func:`alignment_pairs` is entailed;
    a sentence with no text (citations alone) entails nothing."""
    return [bool(premise) and table[(premise, hypothesis)]
            for premise, hypothesis in alignment_pairs(answer, entry)]


def alignment(pair_entails: Sequence[bool]) -> float | None:
    """Text-citation alignment (§4.3): the share of (sentence, citation) pairs whose
    sentence entails the citation. ``None`` without any pair."""
    return ratio(sum(pair_entails), len(pair_entails))


def alignment_macro(per_answer: Sequence[Sequence[bool]]) -> float | None:
    """Macro text-citation alignment (§4.3, averaged as §4.2 averages macro scores):
    :func:`alignment` of each answer with at least one (sentence, citation) pair, then
    the mean over those answers. ``None`` when no answer has a pair."""
    shares = [r for r in (alignment(decisions) for decisions in per_answer) if r is not None]
    return ratio(sum(shares), len(shares))


# -- conscious incompetence (§4.4, Figure 3, §4.5) -----------------------------------


def _na_sentences(answer: ParsedAnswer | None) -> list[AnswerSentence]:
    return [s for s in answer.sentences if s.na] if answer is not None else []


def na_pairs(answer: ParsedAnswer | None, entry: KalmaEntry) -> list[tuple[str, str]]:
    """(``[NA]`` sentence, verbalized knowledge) for every ``[NA]`` sentence against
    every triple of the absent knowledge and of the minimum knowledge set: what
    :func:`na_decisions` asks."""
    triples = _unique((*entry.absent_knowledge, *entry.minimum_knowledge_set))
    return [(s.text, k.verbalized()) for s in _na_sentences(answer) if s.text
            for k in triples]


def na_sentence_correct(entails_absent: bool, entails_minimum: bool) -> bool:
    """[NA] precision of one sentence (§4.4, Figure 3): 1 iff it entails a triple of
    the absent knowledge, or — the edge case of §4.5, "an NA-marked sentence that does
    not answer the question at all is considered correct" — it does not answer the
    question, which kgbench decides as: it entails no triple of the minimum knowledge
    set (the knowledge the question needs)."""
    return entails_absent or not entails_minimum


def na_decisions(answer: ParsedAnswer | None, entry: KalmaEntry,
                 table: EntailmentTable) -> tuple[list[bool], list[bool]]:
    """For one answer: the [NA] precision of each of its ``[NA]`` sentences
    (:func:`na_sentence_correct`) and, for each piece of the entry's absent knowledge,
    whether an ``[NA]`` sentence entails it (§4.4 [NA] recall). A sentence with no text
    entails nothing."""
    sentences = _na_sentences(answer)
    absent = _unique(entry.absent_knowledge)
    minimum = _unique(entry.minimum_knowledge_set)

    def entails(sentence: AnswerSentence, knowledge: Knowledge) -> bool:
        return bool(sentence.text) and table[(sentence.text, knowledge.verbalized())]

    precision = [na_sentence_correct(any(entails(s, k) for k in absent),
                                     any(entails(s, k) for k in minimum))
                 for s in sentences]
    recall = [any(entails(s, k) for s in sentences) for k in absent]
    return precision, recall


def na_scores(na_sentence_hits: Sequence[bool],
              absent_hits: Sequence[bool]) -> tuple[float | None, float | None]:
    """[NA] precision and recall (§4.4, Figure 3): precision averaged over all ``[NA]``
    sentences, recall over all pieces of absent knowledge (of all answers). ``None``
    where there is no ``[NA]`` sentence, or no absent knowledge (the complete setting)."""
    return (ratio(sum(na_sentence_hits), len(na_sentence_hits)),
            ratio(sum(absent_hits), len(absent_hits)))


def _unique(knowledge: Iterable[Knowledge]) -> list[Knowledge]:
    """Knowledge once per key, in order."""
    seen: dict[tuple[str, str, str], Knowledge] = {}
    for k in knowledge:
        seen.setdefault(k.key(), k)
    return list(seen.values())
