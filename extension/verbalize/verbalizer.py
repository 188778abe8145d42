"""Verbalization: structured samples -> citations, q̃ and ã in plain English.

Reference: Hu et al., *Benchmarking Large Language Models in Complex Question Answering
Attribution using Knowledge Graphs* (CAQA), §4.4 (turning the structured question,
answer and subgraph into natural language) and Table 3 (how many citations each
complexity has). CAQA writes the text with an LLM; :class:`TemplateVerbalizer` here is
the deterministic default backend (an LLM one, :class:`extension.verbalize.llm_verbalizer.LLMVerbalizer`,
implements the same :class:`Verbalizer` protocol). Its parts each live in their own
module of :mod:`extension.verbalize`:

* **citations** — :mod:`extension.verbalize.citations` (one citation per part of Table 3,
  a hop through a CVT folded into one sentence);
* **relation phrases** — :mod:`extension.verbalize.relation_phrases` (curated table, store
  labels, user overrides, words from the id);
* **literals** — :mod:`extension.verbalize.literals`;
* **questions** — :mod:`extension.verbalize.extended_question` composes q̃ from q and the
  edge the extension rule added (CAQA Table 4); :mod:`extension.verbalize.answers` makes ã.

Every function is pure and deterministic; :class:`TemplateVerbalizer` caches the
phrase of each predicate, so a sample costs tens of microseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from extension.core.samples import StructuredSample, Triple
from extension.verbalize import english
from extension.verbalize.answers import answer_statement
from extension.verbalize.citations import (
    cvt_anchors,
    cvt_type_hints,
    exhaustive_sentence,
    fact_clause,
    hop_text,
    part_hops,
    sub_fact_hop,
)
from extension.verbalize.quality import placeholder_words
from extension.verbalize.relation_phrases import (
    FrameColumns,
    PhraseTable,
    is_readable,
    load_relation_frames,
    load_relation_phrases,
)
from extension.verbalize.sample_question import sample_question

if TYPE_CHECKING:
    from kgstore.store import Store

class UnreadableFact(ValueError):
    """A fact of a sample's subgraph that no reader could read: its predicate has no
    readable phrase (a Wikidata property without a label in the store: "has P646") or
    an entity end has no readable name (only its id). A citation that skipped the fact
    would no longer carry the sample's label, so the sample fails instead; the message
    starts with the failure code ``unreadable_fact:``."""


def check_readable(sample: StructuredSample, table: PhraseTable) -> None:
    """Raise :class:`UnreadableFact` for the first fact of ``sample.subgraph`` whose
    predicate or non-CVT entity end is not readable (:func:`is_readable`)."""
    cvts = frozenset(sample.cvt_nodes)
    for t in sample.subgraph:
        if not table.readable(t.p):
            raise UnreadableFact(
                f"unreadable_fact: predicate {t.p} reads {table[t.p]!r}; give it a phrase "
                f"in a --phrases file (predicate<TAB>phrase) or load its label")
        ends = ((t.s, t.s_name),) if t.literal else ((t.s, t.s_name), (t.o, t.o_name))
        for node, name in ends:
            if node not in cvts and not is_readable(english.display_name(name)):
                raise UnreadableFact(
                    f"unreadable_fact: entity {node} has no readable name "
                    f"({name!r}) in fact ({t.s}, {t.p}, {t.o}); load names for it")


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation: its ``text`` and the ``triples`` (of the sample's subgraph) it
    verbalizes — one part of CAQA Table 3 (see :func:`citation_parts`)."""

    text: str
    triples: tuple[Triple, ...]


@dataclass(frozen=True, slots=True)
class Verbalization:
    """The text of one sample (CAQA §4.4): the extended question q̃ (the original
    question when the rule is ``none``), the answer statement ã, one citation per part
    of the subgraph, one sentence per sub-fact (same order as ``sample.sub_facts``), the
    backend that wrote it (``"template"`` or ``"llm:<model>"``) and, for a backend that
    fell back to templates for some parts, which parts and why."""

    question_extended: str
    answer: str
    citations: tuple[Citation, ...]
    sub_fact_texts: tuple[str, ...]
    backend: str
    fallbacks: tuple[str, ...] = ()


class Verbalizer(Protocol):
    """Anything that turns a structured sample into its text (template or LLM)."""

    name: str

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample``."""
        ...


class TemplateVerbalizer:
    """The deterministic template backend of :class:`Verbalizer` (``name`` "template"):
    citations by :func:`citation_parts` and :func:`hop_sentence`, q̃ by
    :func:`extended_question`, ã by :func:`answer_statement`. ``predicate_labels``
    (predicate -> store label) name predicates the phrase table does not cover;
    ``overrides`` (predicate -> phrase) take precedence over the shipped table."""

    name: str = "template"

    def __init__(self, predicate_labels: Mapping[str, str] | None = None,
                 overrides: Mapping[str, str] | None = None,
                 frames: Mapping[str, FrameColumns] | None = None) -> None:
        self.phrases = PhraseTable(predicate_labels, overrides, frames)

    @classmethod
    def from_store(cls, store: Store, overrides_file: Path | None = None) -> TemplateVerbalizer:
        """A verbalizer with the predicate labels of ``store`` (``store.predicates()``,
        e.g. Wikidata ``P57`` -> "director") and, if given, the user phrase file
        ``overrides_file`` (format of :func:`load_relation_phrases`)."""
        labels = {p.id: p.label for p in store.predicates() if p.label}
        if overrides_file is None:
            return cls(labels)
        return cls(labels, load_relation_phrases(overrides_file),
                   load_relation_frames(overrides_file))

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample`` (see :class:`Verbalization`). Raises
        :class:`UnreadableFact` when a fact of its subgraph cannot be put into words."""
        cvts = frozenset(sample.cvt_nodes)
        table = self.phrases
        check_readable(sample, table)
        context = (*sample.original_subgraph, *sample.subgraph)
        hints = cvt_type_hints(context, cvts)
        # A plain fact reads the same in a citation and as a sub-fact: render it once.
        facts: dict[tuple[str, str, str, str | None], str] = {}

        def text_of(hop: Sequence[Triple]) -> str:
            if len(hop) == 1 and (t := hop[0]).s not in cvts and (t.literal or t.o not in cvts):
                key = (t.s, t.p, t.o, t.datatype)
                found = facts.get(key)
                if found is None:
                    found = facts[key] = english.sentence(english.sentence_start(fact_clause(t, table)))
                return found
            return hop_text(hop, cvts, table, hints)

        triples = sample.subgraph
        exhaustive = exhaustive_triples(sample, table)
        replaced = {r.replacement.id for r in sample.edit.replacements}
        citations = []
        # The replaced slot (one-fact hops) is stated as all its values, once, where its
        # first fact is; its facts in later citations (a concatenation cites each
        # answer's hop apart) read plainly: two "only" sentences would deny each other.
        stated = [t for t in triples if t in exhaustive]
        said_in: int | None = None   # the citation that states the slot
        for number, part in enumerate(part_hops(sample)):
            part_triples = [[triples[i] for i in hop] for hop in part]
            texts = []
            for hop in part_triples:
                if hop[0] not in exhaustive:
                    texts.append(text_of(hop))
                elif sample.edit.contradicts == "constraint":   # each fact on its own
                    texts.append(exhaustive_sentence([hop[0]], table,
                                                     inverse=hop[0].s in replaced))
                elif said_in is None:
                    texts.append(exhaustive_sentence(stated, table))
                    said_in = number
                elif said_in != number:
                    texts.append(text_of(hop))
            citations.append(Citation(text=" ".join(texts),
                                      triples=tuple(t for hop in part_triples for t in hop)))
        anchors = cvt_anchors(context, cvts)
        sub_fact_texts = tuple(text_of(sub_fact_hop(s.triple, cvts, anchors))
                               for s in sample.sub_facts)
        question = sample_question(sample, table)
        statement = answer_statement(sample, table)
        names = [n for t in context for n in (t.s_name, t.o_name) if n] + \
            [a.name for a in sample.answer_entities if a.name]
        for which, text in (("question", question), ("answer statement", statement)):
            if found := placeholder_words(text, names):
                # no type names one of its variables: "the one that …" is no English
                raise UnreadableFact(f"unreadable_text: the {which} would say {found[0]!r} "
                                     f"({text!r}); no type of the store names its entity")
        return Verbalization(question_extended=question,
                             answer=statement,
                             citations=tuple(citations), sub_fact_texts=sub_fact_texts,
                             backend=self.name)


def exhaustive_triples(sample: StructuredSample,
                       table: PhraseTable | None = None) -> frozenset[Triple]:
    """The facts of a contradiction that the citation states as all the values of
    their slot (:func:`exhaustive_sentence`); empty for other samples.

    An exhaustive contradiction (``edit.contradicts == "exhaustive"``): the subgraph's
    facts holding a replacement. A constraint's (``"constraint"``, with ``table``): the
    fact holding the replacement entity where its relation names a person or thing
    (a director, a composer, a genre), read from the entity that keeps its value
    ("The Green Mile was directed by Wim Wenders only"): without "only" two blind
    readers took "The Green Mile was directed by Wim Wenders" for a second director of
    the answer, not a contradiction (3 of 55 samples). A place or date reads as one
    value already ("was born in Paris")."""
    edit = sample.edit
    if sample.label != "contradictory":
        return frozenset()
    replacements = {r.replacement.id for r in edit.replacements}
    cvts = set(sample.cvt_nodes)
    if edit.contradicts == "constraint" and table is not None:
        return frozenset(
            t for t in sample.subgraph if not t.literal and t.s not in cvts
            and t.o not in cvts and (
                (t.o in replacements and table.kind(t.p) in _MANY_VALUED_KINDS)
                or (t.s in replacements and table.inverse(t.p)
                    and table.kind(t.p) in _MANY_VALUED_KINDS)))
    if edit.contradicts != "exhaustive":
        return frozenset()
    slots: dict[tuple[str, str], list[Triple]] = {}
    for t in sample.subgraph:
        if not t.literal and t.o in replacements and t.s not in cvts:
            slots.setdefault((t.s, t.p), []).append(t)
    # The replaced slot holds every replacement (other facts of G may hold some too).
    return next((frozenset(group) for _, group in sorted(slots.items())
                 if {t.o for t in group} == replacements), frozenset())


_MANY_VALUED_KINDS = ("person", "thing")
"""Frame kinds whose values a reader takes as possibly many (see :func:`exhaustive_triples`)."""


__all__ = ["Citation", "TemplateVerbalizer", "UnreadableFact", "Verbalization", "Verbalizer",
           "check_readable", "exhaustive_triples"]
