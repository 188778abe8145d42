"""``kalma score --protocol released``: KaLMA's numbers as the scripts released with the
paper compute them, re-implemented from reading them (lixinze777/Knowledge-aware-Language-
Model-Attribution at fa3ee26: ``auto_eval/eval_recall.py`` for citation quality,
``auto_eval/eval_relevance.py`` for text-citation alignment, ``ablation/eval_NA.py`` for
[NA] precision and recall; G-Eval is :mod:`kalma.geval_released`). kgbench ships none of
that code.

**Inputs.** The scripts read a CSV of answers, one row per question, a "selected graph"
per question (a list of entity dicts ``{relation: value, ..., "name": ..., "qid": ...}``)
and the "gold used knowledge" (triples). kgbench reads its entries instead: an entry's
selected graph is its knowledge pool plus each entity's ``name`` and ``qid`` (keys of
BioKaLMA's dicts, so ``[Q1, name: Ann]`` matches there: :func:`selected_graph`), and its
gold used knowledge is its minimum knowledge set. An answer's text is its ``output``; a
pre-parsed answer is written back as BioKaLMA text (:func:`answer_text`). An entry with
no answer is an empty CSV cell, which every script skips.

**Reading** (the rules every function below follows):

1. *Brackets*: each ``[`` up to the first ``]`` after it on the same line (no nesting:
   ``[a [b] c]`` reads ``[a [b]``); found by :func:`bracket_spans` in linear time.
2. *Citations* (:func:`read_citations`): a group that is ``[NA]`` exactly is the mark.
   In any other, the id is the text between ``[`` and the first comma (not trimmed),
   and the group is cut at every ``": "``: a relation is the text after the last
   ``", "`` of the piece before a cut, its value the piece after the cut up to its last
   ``", "`` (the last piece: up to the closing ``]``). So a value holding ``": "`` is
   cut there and what follows is dropped (``[Q1, title: Star Wars: A New Hope]`` cites
   ``title: Star Wars``), ``[Q1,relation: x]`` (no space after the comma) cites nothing,
   and a name part cites ``name: ...``. Citations are compared as exact strings.
3. *Sentences* (:func:`split_sentences`): cut at a run of spaces that follows
   "a character that is not A-Z, any character but a newline, then ``.`` or ``?``" and
   precedes an A-Z letter. Neither ``!`` nor a newline ends a sentence, and a sentence
   ending ``[NA].`` or ``... USA].`` never ends there (the character two before the
   full stop is an upper-case letter).
4. *Plain text* (:func:`plain_text`): brackets (rule 1) removed, then each ``"  "``
   made ``" "`` once, left to right, and each ``" ."`` made ``"."``.

**Aggregation**: where the scripts divide by zero they stop with an error; kgbench
gives NaN there (written as JSON ``null``), as for every released number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from kalma.citations import ParsedAnswer
from kalma.entry import KalmaEntry

__all__ = ["ALIGNMENT_ANSWERS", "NA_MARK_TEXT", "ReleasedCitationScores", "alignment_pairs",
           "alignment_scores", "answer_text", "bracket_spans", "citation_scores",
           "na_items", "na_scores", "plain_text", "read_citations", "selected_graph",
           "split_sentences"]

Triple = tuple[str, str, str]
Entails = Callable[[str, str], bool]
"""``entails(premise, hypothesis)``: the NLI decision (the scripts' TRUE model)."""

NA_MARK_TEXT = "[NA]"
ALIGNMENT_ANSWERS = 400
"""``eval_relevance.py`` reads the first 400 rows of the answers file only."""

_SENTENCE_BREAK = re.compile(r"(?<=[^A-Z][^\n][.?])[ ]+(?=[A-Z])")
_NAN = math.nan


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``; NaN where the scripts would divide by zero."""
    return numerator / denominator if denominator else _NAN


# -- reading (rules 1-4) --------------------------------------------------------------


def bracket_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each bracket group of rule 1, ``text[start:end]`` holding
    both brackets, left to right. Linear in the text's length: the next ``]`` and the
    next newline are each looked for once per group."""
    spans: list[tuple[int, int]] = []
    close = -1
    i = text.find("[")
    while i != -1:
        if close < i:
            close = text.find("]", i + 1)
            if close == -1:
                break
        newline = text.find("\n", i + 1, close)
        if newline != -1:     # no group starts before a newline that precedes the `]`
            i = text.find("[", newline + 1)
            continue
        spans.append((i, close + 1))
        i = text.find("[", close + 1)
    return spans


def _groups(text: str) -> Iterator[str]:
    for start, end in bracket_spans(text):
        yield text[start:end]


def _cut_pieces(group: str) -> Iterator[tuple[str, str]]:
    """The ``(relation, value)`` pairs of one non-[NA] group (rule 2), the relation
    possibly empty (then the scripts keep nothing)."""
    pieces = group.split(": ")
    relation = ""
    for index, piece in enumerate(pieces):
        head, comma, tail = piece.rpartition(", ")
        if index == 0:
            relation = tail if comma else ""
            continue
        if index == len(pieces) - 1:
            yield relation, piece[:-1]
            continue
        yield relation, head if comma else piece
        relation = tail if comma else ""


def read_citations(text: str) -> tuple[list[Triple], int]:
    """The citations ``(id, relation, value)`` of ``text`` in order, duplicates kept,
    and its count of ``[NA]`` marks (rule 2)."""
    citations: list[Triple] = []
    marks = 0
    for group in _groups(text):
        if group == NA_MARK_TEXT:
            marks += 1
            continue
        subject = group.partition(",")[0][1:]
        citations.extend((subject, relation, value)
                         for relation, value in _cut_pieces(group) if relation)
    return citations, marks


def _relation_values(text: str) -> list[tuple[str, str]]:
    """``(relation, value)`` of each citation of ``text`` (rule 2, without the id)."""
    return [(relation, value) for group in _groups(text) if group != NA_MARK_TEXT
            for relation, value in _cut_pieces(group) if relation]


def split_sentences(text: str) -> list[str]:
    """The sentences of an answer (rule 3), brackets still in them."""
    return _SENTENCE_BREAK.split(text)


def plain_text(text: str) -> str:
    """``text`` without its brackets (rule 4): the NLI premise and what G-Eval reads."""
    kept: list[str] = []
    at = 0
    for start, end in bracket_spans(text):
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    return "".join(kept).replace("  ", " ").replace(" .", ".")


def answer_text(answer: ParsedAnswer) -> str:
    """The text the scripts read: the answer's ``output``; for a pre-parsed answer,
    each sentence written back as BioKaLMA writes it, its citations
    ``[id, relation: value]`` and its ``[NA]`` before the sentence's final ``.``, ``!``
    or ``?`` (after the text when it has none), sentences joined by a space."""
    if answer.output is not None:
        return answer.output
    written = []
    for sentence in answer.sentences:
        marks = "".join(f" [{c.subject_id}, {c.relation}: {c.value}]"
                        for c in sentence.citations) + (" [NA]" if sentence.na else "")
        text = sentence.text
        end = text[-1:] if text[-1:] in (".", "!", "?") else ""
        written.append(text[:len(text) - len(end)] + marks + end)
    return " ".join(written).strip()


def selected_graph(entry: KalmaEntry) -> frozenset[Triple]:
    """What a citation must equal to be correct (``eval_accuracy``): the pool's triples
    and, for each entity, ``(id, "name", name)`` and ``(id, "qid", id)``. A relation with
    several values in the pool matches each (BioKaLMA's dicts hold one value per key)."""
    triples = {(k.subject_id, k.relation, k.object) for k in entry.knowledge_pool}
    for entity in entry.entities:
        triples.update({(entity.id, "name", entity.name), (entity.id, "qid", entity.id)})
    return frozenset(triples)


def _gold(entry: KalmaEntry) -> list[Triple]:
    return [(k.subject_id, k.relation, k.object) for k in entry.minimum_knowledge_set]


# -- citation quality: eval_recall.py ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReleasedCitationScores:
    """``eval_recall.py``'s numbers (its "accuracy" is KaLMA's correctness) and the
    answers and citations behind them."""

    correctness_micro: float
    correctness_macro: float
    precision_micro: float
    precision_macro: float
    recall_micro: float
    recall_macro: float
    f1_micro: float
    f1_macro: float
    answers: int
    citations: int


def _f1(precision: float, recall: float) -> float:
    """``calculate_f1``: 2PR / (P + R), NaN for 0 / 0 or a NaN input."""
    return _ratio(2 * precision * recall, precision + recall)


def citation_scores(scored: Sequence[tuple[KalmaEntry, str | None]]) -> ReleasedCitationScores:
    """Citation correctness, precision and recall, micro and macro, and F1 (from the
    micro and from the macro precision and recall), of the answer texts of ``scored``
    (``None``: no answer) as ``eval_recall.py`` computes them:

    * an entry with an empty selected graph, or without an answer, is skipped;
    * *correctness*: a citation equal to a triple of the selected graph; micro over all
      citations, duplicates included; macro over the answers that cite anything;
    * *recall*: the share of the gold triples that some citation equals (micro over all
      gold triples, macro over every scored answer; an empty gold set is NaN, where the
      script stops);
    * *precision*: 1 − (citations − gold triples hit) / citations, so a citation that
      repeats a gold one counts against it; micro over all citations, macro over the
      answers that cite anything."""
    answers = citations = correct = hit = gold_total = irrelevant = 0
    correctness_sum = recall_sum = irrelevant_share_sum = 0.0
    citing = 0
    for entry, text in scored:
        graph = selected_graph(entry)
        if not graph or text is None:
            continue
        answers += 1
        cited, _marks = read_citations(text)
        gold = _gold(entry)
        answer_correct = sum(1 for c in cited if c in graph)
        answer_hit = sum(1 for triple in gold if triple in set(cited))
        correct += answer_correct
        citations += len(cited)
        hit += answer_hit
        gold_total += len(gold)
        irrelevant += len(cited) - answer_hit
        recall_sum += _ratio(answer_hit, len(gold))
        if cited:
            citing += 1
            correctness_sum += answer_correct / len(cited)
            irrelevant_share_sum += (len(cited) - answer_hit) / len(cited)
    precision_micro = 1 - _ratio(irrelevant, citations)
    precision_macro = 1 - _ratio(irrelevant_share_sum, citing)
    recall_micro = _ratio(hit, gold_total)
    recall_macro = _ratio(recall_sum, answers)
    return ReleasedCitationScores(
        correctness_micro=_ratio(correct, citations),
        correctness_macro=_ratio(correctness_sum, citing),
        precision_micro=precision_micro, precision_macro=precision_macro,
        recall_micro=recall_micro, recall_macro=recall_macro,
        f1_micro=_f1(precision_micro, recall_micro),
        f1_macro=_f1(precision_macro, recall_macro),
        answers=answers, citations=citations)


# -- text-citation alignment: eval_relevance.py -----------------------------------------


@dataclass(frozen=True, slots=True)
class AlignmentPair:
    """One (sentence, citation) pair: the sentence's plain text, the citation as
    ``relation: value`` (the NLI hypothesis) and its value."""

    premise: str
    hypothesis: str
    value: str

    @property
    def value_in_text(self) -> bool:
        """The script's shortcut: the value, lower-cased, inside the lower-cased
        sentence counts as aligned without asking the NLI model."""
        return self.value.lower() in self.premise.lower()


def alignment_pairs(scored: Sequence[tuple[KalmaEntry, str | None]]
                    ) -> list[list[AlignmentPair]]:
    """Per scored answer, its (sentence, citation) pairs: the first
    :data:`ALIGNMENT_ANSWERS` entries, those with an empty selected graph or without
    an answer skipped; each sentence (rule 3) paired with each of its citations, the
    sentence's plain text (rule 4) as premise."""
    out = []
    for entry, text in scored[:ALIGNMENT_ANSWERS]:
        if not selected_graph(entry) or text is None:
            continue
        pairs: list[AlignmentPair] = []
        for sentence in split_sentences(text):
            premise = plain_text(sentence)
            pairs.extend(AlignmentPair(premise, f"{relation}: {value}", value)
                         for relation, value in _relation_values(sentence))
        out.append(pairs)
    return out


def alignment_scores(per_answer: Sequence[Sequence[AlignmentPair]],
                     entails: Entails) -> tuple[float, float]:
    """(micro, macro) alignment as ``eval_precision`` computes it: a pair is aligned
    when its value is in the sentence (:attr:`AlignmentPair.value_in_text`), else when
    the sentence entails ``relation: value``; micro over all pairs, macro over the
    answers with at least one pair."""
    aligned = total = with_pairs = 0
    share_sum = 0.0
    for pairs in per_answer:
        hits = sum(1 for p in pairs if p.value_in_text or entails(p.premise, p.hypothesis))
        aligned += hits
        total += len(pairs)
        if pairs:
            with_pairs += 1
            share_sum += hits / len(pairs)
    return _ratio(aligned, total), _ratio(share_sum, with_pairs)


# -- [NA] precision and recall: eval_NA.py --------------------------------------------


@dataclass(frozen=True, slots=True)
class NaItem:
    """One answer with ``[NA]``: the plain text of its ``[NA]`` sentences (premises) and
    the gold triples it did not cite, as ``relation: value`` (hypotheses)."""

    sentences: tuple[str, ...]
    uncited: tuple[str, ...]


def na_items(scored: Sequence[tuple[KalmaEntry, str | None]]) -> list[NaItem]:
    """The answers ``eval_NA.py`` counts: every entry with an answer (no graph check),
    whose text has a sentence (rule 3) holding ``[NA]``; an answer without one is
    skipped entirely (in neither denominator)."""
    items = []
    for entry, text in scored:
        if text is None:
            continue
        sentences = tuple(plain_text(s) for s in split_sentences(text) if NA_MARK_TEXT in s)
        if not sentences:
            continue
        cited = set(read_citations(text)[0])
        uncited = tuple(f"{relation}: {value}" for subject, relation, value in _gold(entry)
                        if (subject, relation, value) not in cited)
        items.append(NaItem(sentences, uncited))
    return items


def na_scores(items: Sequence[NaItem], entails: Entails) -> tuple[float, float]:
    """[NA] (precision, recall): the number of entailing (sentence, uncited triple)
    pairs over all ``[NA]`` sentences, and over all uncited triples. A sentence that
    entails two triples counts twice, so precision can pass 1."""
    matched = sum(1 for item in items for s in item.sentences for k in item.uncited
                  if entails(s, k))
    return (_ratio(matched, sum(len(i.sentences) for i in items)),
            _ratio(matched, sum(len(i.uncited) for i in items)))


def needed_pairs(scored: Sequence[tuple[KalmaEntry, str | None]]) -> list[tuple[str, str]]:
    """Every distinct (premise, hypothesis) the released metrics ask the NLI model, in
    first-seen order (alignment pairs whose value is in the sentence are not asked)."""
    pairs: dict[tuple[str, str], None] = {}
    for answer_pairs in alignment_pairs(scored):
        pairs.update(dict.fromkeys((p.premise, p.hypothesis) for p in answer_pairs
                                   if not p.value_in_text))
    for item in na_items(scored):
        if item.uncited:
            pairs.update(dict.fromkeys((s, k) for s in item.sentences for k in item.uncited))
    return list(pairs)


def table_entails(table: Mapping[tuple[str, str], bool]) -> Entails:
    """An :data:`Entails` reading decisions already made (tests fill them by hand)."""
    return lambda premise, hypothesis: table[(premise, hypothesis)]
