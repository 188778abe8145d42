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

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from extension.core.samples import StructuredSample, Triple
from extension.core.vocabulary import is_container_first, is_containment_predicate
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
from extension.verbalize.extended_question import readable_noun
from extension.verbalize.literals import is_number_datatype
from extension.verbalize.logical_form import Fanout
from extension.verbalize.name_forms import agreed, sample_name_forms
from extension.verbalize.planner import (
    fits_several,
    netflix_tag_description,
    noun_before_description,
)
from extension.verbalize.quality import placeholder_words
from extension.verbalize.realise_words import PERSON_NOUNS
from extension.verbalize.relation_phrases import (
    FrameColumns,
    PhraseTable,
    folded_key,
    is_readable,
    load_relation_frames,
    load_relation_phrases,
)
from extension.verbalize.sample_question import sample_question
from extension.verbalize.sentence_joins import (
    chained_sentences,
    one_subject_sentences,
    shared_subject_sentences,
    shared_tail_sentences,
)
from extension.verbalize.type_nouns import WIKIDATA_SUBJECT_TYPES

if TYPE_CHECKING:
    from kgstore.store import Store

def person_names(t: Triple, table: PhraseTable) -> list[str]:
    """The names of ``t``'s ends that are people by its relation: the object of a
    relation whose frame says its object is a person ("directed by"), the subject of one
    whose Freebase type or Wikidata subject type is a person's (``people.person.…``,
    ``film.actor.…``, P19): a citation's clause on them says "who"."""
    found = []
    if t.o_name and not t.literal and table.kind(t.p) == "person":
        found.append(t.o_name)
    if t.s_name and (readable_noun(t.p.partition("..")[0]) in PERSON_NOUNS
                     or WIKIDATA_SUBJECT_TYPES.get(t.p) == "person"):
        found.append(t.s_name)
    return found


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
                 frames: Mapping[str, FrameColumns] | None = None,
                 slot_size: SlotSize | None = None, fanout: Fanout | None = None) -> None:
        self.phrases = PhraseTable(predicate_labels, overrides, frames)
        self.slot_size = slot_size
        self.fanout = fanout

    @classmethod
    def from_store(cls, store: Store, overrides_file: Path | None = None) -> TemplateVerbalizer:
        """A verbalizer with the predicate labels of ``store`` (``store.predicates()``,
        e.g. Wikidata ``P57`` -> "director") and, if given, the user phrase file
        ``overrides_file`` (format of :func:`load_relation_phrases`)."""
        predicates = store.predicates()
        labels = {p.id: p.label for p in predicates if p.label}
        counts = {p.id: p.count for p in predicates}

        def slot_size(subject: str, predicate: str) -> int | None:
            return store_slot_size(store, subject, predicate)

        def fanout(entity: str, predicate: str, outgoing: bool) -> int | None:
            return reader_fanout(store, entity, predicate, outgoing,
                                 facts=counts.get(predicate, 0))

        if overrides_file is None:
            return cls(labels, slot_size=slot_size, fanout=fanout)
        return cls(labels, load_relation_phrases(overrides_file),
                   load_relation_frames(overrides_file), slot_size=slot_size, fanout=fanout)

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample`` (see :class:`Verbalization`). Raises
        :class:`UnreadableFact` when a fact of its subgraph cannot be put into words.
        Names its facts show to be a team or a sport are written as such
        (:mod:`extension.verbalize.name_forms`)."""
        forms = sample_name_forms(sample.original_subgraph, sample.subgraph)
        with english.names_written_as(forms.written):
            text = self._verbalize(sample)
        if not forms.written:
            return text
        return replace(
            text, question_extended=agreed(text.question_extended, forms),
            answer=agreed(text.answer, forms),
            citations=tuple(replace(c, text=agreed(c.text, forms)) for c in text.citations),
            sub_fact_texts=tuple(agreed(t, forms) for t in text.sub_fact_texts))

    def _verbalize(self, sample: StructuredSample) -> Verbalization:
        cvts = frozenset(sample.cvt_nodes)
        table = self.phrases
        check_readable(sample, table)
        check_answer_numbers(sample)
        check_answer_names(sample)
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
        slots = exhaustive_slots(sample, table, self.slot_size)
        slot_of = {t: i for i, slot in enumerate(slots) for t in slot.covered}
        citations: list[Citation] = []
        # Each replaced slot is stated as all its values, once, in the last citation
        # that holds one of its facts; its facts in earlier citations (a concatenation
        # cites each answer's hop apart) read plainly: two "only" sentences would deny
        # each other, and a plain fact after the whole slot repeats it (blind round 15:
        # "… only spoken languages are Afrikaans and American English. [3] The Czech
        # Republic has American English as a spoken language." rated 3).
        parts = [[[triples[i] for i in hop] for hop in part] for part in part_hops(sample)]
        stated_in = {slot_of[hop[0]]: number for number, part in enumerate(parts)
                     for hop in part if hop[0] in slot_of}   # slot -> its last citation
        said: set[int] = set()
        for number, part_triples in enumerate(parts):
            texts = []
            for hop in part_triples:
                at = slot_of.get(hop[0])
                if at is None or stated_in[at] != number:
                    texts.append(text_of(hop))
                elif at not in said:
                    texts.append(exhaustive_sentence(slots[at].facts, table,
                                                     inverse=slots[at].inverse))
                    said.add(at)
            # Hops that read alike (three performances of one role, their films not in
            # G: "Elijah Wood played Frodo Baggins." three times) are said once.
            names = {english.mention(n) or n for hop in part_triples for t in hop
                     for n in (t.s_name, t.o_name) if n}
            texts = one_subject_sentences(shared_tail_sentences(
                shared_subject_sentences(list(dict.fromkeys(texts)), names), names), names)
            people = {english.mention(n) or n for hop in part_triples for t in hop
                      for n in person_names(t, table)}
            texts = chained_sentences(texts, names, people)
            citations.append(Citation(text=" ".join(texts),
                                      triples=tuple(t for hop in part_triples for t in hop)))
        anchors = cvt_anchors(context, cvts)
        sub_fact_texts = tuple(text_of(sub_fact_hop(s.triple, cvts, anchors))
                               for s in sample.sub_facts)
        question = sample_question(sample, table, self.fanout)
        statement = answer_statement(sample, table, self.fanout)
        shown = [n for t in context for n in (t.s_name, t.o_name) if n] + \
            [a.name for a in sample.answer_entities if a.name]
        for which, text in (("question", question), ("answer statement", statement)):
            if found := placeholder_words(text, shown):
                # no type names one of its variables: "the one that …" is no English
                raise UnreadableFact(f"unreadable_text: the {which} would say {found[0]!r} "
                                     f"({text!r}); no type of the store names its entity")
        # The question check read the question before its sample was known (no fan-out:
        # a narrowed form can differ); what a reader sees is checked again.
        if tagged := netflix_tag_description(question) or noun_before_description(question):
            raise UnreadableFact(f"unreadable_text: the question {question!r}: {tagged}")
        return Verbalization(question_extended=question,
                             answer=statement,
                             citations=tuple(citations), sub_fact_texts=sub_fact_texts,
                             backend=self.name)


@dataclass(frozen=True)
class ExhaustiveSlot:
    """Facts of one slot that a contradictory citation states as all its values
    (:func:`exhaustive_sentence`); ``inverse``: read from their object ("The Green Mile
    was directed by Wim Wenders only")."""

    facts: tuple[Triple, ...]
    inverse: bool = False
    members: tuple[Triple, ...] = ()
    """The subgraph's facts the sentence stands for, when not ``facts`` themselves: a
    hop through a mediator read as its folded relation ("Abraham Lincoln is a member of
    the Whig Party only" for the party tenure and its party)."""

    @property
    def covered(self) -> tuple[Triple, ...]:
        return self.members or self.facts


def check_answer_names(sample: StructuredSample) -> None:
    """Refuse answers two of which have one name ("Psycho and Psycho are in the genre
    Thriller": the 1960 film and its 1998 remake; both readers of blind round 15 rated
    it 2). No citation tells a reader which is which; nor answers without a name. Raises
    :class:`UnreadableFact`."""
    seen: set[str] = set()
    named = {n for t in (*sample.original_subgraph, *sample.subgraph)
             for n, name in ((t.s, t.s_name), (t.o, t.o_name)) if name}
    for a in sample.answer_entities:
        if a.name is None and a.value is None and a.id not in named:
            # "Aldous Huxley, Irwin Allen, _:unfolded_2e65… wrote …" (blind round 36: 1):
            # a mediator or an entity the store has no name for is no answer to show
            raise UnreadableFact(f"unreadable_text: an answer has no name ({a.id})")
        if a.name is None:
            continue
        if a.name.casefold() in seen:
            raise UnreadableFact(f"unreadable_text: the answer would name two entities "
                                 f"{a.name!r}, which no text tells apart")
        seen.add(a.name.casefold())


def check_answer_numbers(sample: StructuredSample) -> None:
    """Refuse answers that are several numbers of one attribute ("Kazakhstan has the
    human Development Indexes 0.679, 0.772, … and 0.766"; "… the number of speakers
    153,299,770 and 75,917,870"): values measured in different years or by different
    sources, which the store keeps without saying which is which. No question asks for
    all of them, and no citation can tell a reader why a number differs; both blind
    readers rated such items 2 of 5. Raises :class:`UnreadableFact`."""
    numbers = [a for a in sample.answer_entities
               if a.value is not None and is_number_datatype(a.datatype)]
    if len(numbers) > 1:
        raise UnreadableFact(f"unreadable_text: the answer would list {len(numbers)} numbers "
                             "of one attribute (values of different dates or sources, "
                             "which no text can tell apart)")


SlotSize = Callable[[str, str], "int | None"]
"""``(subject, predicate)`` -> how many objects the store holds for that slot (None:
not known, a neighbourhood too large to read whole)."""

SLOT_READ_LIMIT = 500
"""Facts read around a subject to count a slot (:func:`store_slot_size`)."""
MOSTLY_ONE_VALUE = 0.5
"""Share of a predicate's subjects with one value above which a whole slot may say
"only" (:func:`store_slot_size`)."""


def store_slot_size(store: Store, subject: str, predicate: str) -> int | None:
    """How many ``predicate`` objects ``subject`` has in ``store``, as its neighbourhood
    of :data:`SLOT_READ_LIMIT` facts holds them (:meth:`~kgstore.Store.slot_count`);
    None when the neighbourhood is larger, or
    when most subjects of ``predicate`` have several values (a place's contents, a
    film's cast: "Egypt contains Cairo University only" states the store's gaps, not
    the world; :data:`MOSTLY_ONE_VALUE` of the measured functionality)."""
    from extension.core.functionality import functionality

    if functionality(store, predicate).forward < MOSTLY_ONE_VALUE:
        return None
    return store.slot_count(subject, predicate, outgoing=True, window=SLOT_READ_LIMIT)


def store_fanout(store: Store, entity: str, predicate: str, outgoing: bool) -> int | None:
    """How many ``predicate`` facts start (``outgoing``) or end at ``entity`` in
    ``store``, as its neighbourhood holds them (as :func:`store_slot_size`); None when
    that is larger than :data:`SLOT_READ_LIMIT`."""
    return store.slot_count(entity, predicate, outgoing=outgoing, window=SLOT_READ_LIMIT)


def reader_fanout(store: Store, entity: str, predicate: str, outgoing: bool, *,
                  facts: int) -> int | None:
    """How many entities a reader takes ``entity`` to have at the other end of
    ``predicate``: the store's count (:func:`store_fanout`), and at least 2 where the
    relation fits several on that end (:func:`~extension.verbalize.planner.fits_several`
    over its ``facts``: a film's actors, the people born in a city, a director's films). The store may keep one actor of Beowulf or one person
    who died in Berlin, but a reader knows there are others: "the actor of Beowulf",
    "the person who died in Berlin", "the film directed by Roman Polanski" read as
    placeholders (blind round 30: each rated 3 by both readers), "one of the actors of
    Beowulf" does not (:func:`~extension.verbalize.logical_form.one_of_bindings`)."""
    from extension.core.functionality import functionality

    count = store_fanout(store, entity, predicate, outgoing)
    if count is not None and count != 1:
        return count
    ends = functionality(store, predicate)
    return 2 if fits_several(ends.forward if outgoing else ends.inverse, facts) else count


def exhaustive_slots(sample: StructuredSample,
                     table: PhraseTable | None = None,
                     slot_size: SlotSize | None = None) -> list[ExhaustiveSlot]:
    """The slots of a contradictory sample's citation said with "only", in the
    subgraph's order; empty for other samples.

    An exhaustive contradiction (``edit.contradicts == "exhaustive"``): the slot holding
    every replacement. A replaced answer or constraint (``"answer"``, ``"constraint"``,
    with ``table``): each slot holding a replacement entity whose relation a reader may
    take as having several values (:func:`reads_as_many`), grouped by subject and
    relation, or one fact at a time when read from the entity that keeps its value.
    Without "only", blind readers took "The Green Mile was directed by Wim Wenders" for
    a second director (3 of 55 samples) and "Robin Wright is a citizen of the United
    Kingdom" or "Syriana was produced in Luxembourg" for a second value that does not
    exclude the answer (5 of 55): the store's measure that such a slot holds one value
    (:mod:`extension.core.functionality`) is not something the reader knows.

    With ``slot_size`` (the store's count of a slot), every other slot a citation
    states whole in any sample says "only" too, when the store holds no other value
    ("Heat was directed by Michael Mann only"): were "only" said in contradictory
    citations alone, it would tell an evaluator the label by one word (86% of the
    contradictory citations of the blind-draw runs had it, no other label)."""
    slots = _replaced_slots(sample, table)
    # Not in a union's citations: "John Williams' only professions are Composer and
    # Musician" reads as every John Williams' (blind round 8: taken as contradicting the
    # other namesake's "guitarist").
    if slot_size is not None and table is not None and sample.query.rule != "union":
        slots += _complete_slots(sample, table, slot_size,
                                 frozenset(t for slot in slots for t in slot.covered))
    return slots


def _complete_slots(sample: StructuredSample, table: PhraseTable, slot_size: SlotSize,
                    taken: frozenset[Triple]) -> list[ExhaustiveSlot]:
    """Slots of ``sample``'s plain facts (outside ``taken``) on attribute relations (a
    frame noun) read as many-valued, whose facts in the subgraph are all the store holds
    for the slot; a contradictory sample's edited facts are not the store's and are
    left out."""
    cvts = set(sample.cvt_nodes)
    edited = {r.replacement.id for r in sample.edit.replacements} \
        if sample.label == "contradictory" else set()
    groups: dict[tuple[str, str], list[Triple]] = {}
    for t in sample.subgraph:
        if t in taken or t.literal or t.s in cvts or t.o in cvts or t.s in edited \
                or t.o in edited or not reads_as_many(t.p, table) or table.noun(t.p) is None:
            # Only an attribute the subject has ("Heat's director", "Egypt's spoken
            # language"): "Honolulu is the birthplace of Barack Obama only" or "Roman
            # Polanski directed Chinatown only" state a sparse store's gaps as facts.
            continue
        groups.setdefault((t.s, t.p), []).append(t)
    # A slot whose facts a tree or a concatenation cites apart is left plain: "Matt Damon
    # works as an actor. [6] Matt Damon's only professions are Actor and Screenwriter."
    # says one fact twice (blind round 16 rated such citations 3, "redundant facts").
    part_of = {sample.subgraph[i]: number for number, part in enumerate(part_hops(sample))
               for hop in part for i in hop}
    return [ExhaustiveSlot(facts=tuple(facts)) for (subject, predicate), facts in groups.items()
            if slot_size(subject, predicate) == len({t.o for t in facts})
            and len({part_of.get(t) for t in facts}) == 1]


def _replaced_slots(sample: StructuredSample, table: PhraseTable | None) -> list[ExhaustiveSlot]:
    """The slots of a contradictory sample's edit (see :func:`exhaustive_slots`)."""
    edit = sample.edit
    if sample.label != "contradictory":
        return []
    replacements = {r.replacement.id for r in edit.replacements}
    cvts = set(sample.cvt_nodes)
    if edit.contradicts in ("constraint", "answer") and table is not None:
        # One slot per (subject, relation) read from the subject, in order of first
        # fact; one per fact read from its object (by the relation's inverse phrase).
        slots: dict[tuple[str, str, str], list[tuple[Triple, tuple[Triple, ...]]]] = {}
        values = {r.replacement.value for r in edit.replacements
                  if r.replacement.value is not None}
        for t in sample.subgraph:
            if t.s in cvts:
                # A mediator's role read as its folded relation: one of the subject's
                # mediators ("got married in 1997"), so a date reads as one of many too.
                if (t.o in values) if t.literal else (t.o in replacements and t.o not in cvts):
                    folded = _folded_fact(t, sample.subgraph, cvts, table)
                    # A number (a runtime) reads as the one value ("Amélie has a
                    # runtime of 117 minutes"; "has a runtime only of" was rated 3).
                    if folded is not None and (
                            table.kind(folded[0].p) != "number" if t.literal
                            else reads_as_many(folded[0].p, table)):
                        slots.setdefault((folded[0].s, folded[0].p, ""), []).append(folded)
                continue
            if t.literal or t.o in cvts:
                continue
            if t.o in replacements:
                if reads_as_many(t.p, table):
                    slots.setdefault((t.s, t.p, ""), []).append((t, ()))
            elif t.s in replacements and table.inverse(t.p) \
                    and reads_as_many(t.p, table, from_object=True):
                # The object keeps its value and the subject is new: the fact reads from
                # the object, so whether the object may have several such subjects is
                # read from its side. "The Kingdom of Hungary has Rome as a capital"
                # does not deny "the capital of the Roman Empire is Rome" (both readers
                # of blind round 13 read it as irrelevant): "Rome is the capital only of
                # …" does. A place is the birthplace of many, but "Tony Curtis was born
                # in Los Angeles" denies New York City without "only" (blind round 22
                # rated "was born only in" 3 of 5; and "only" said in contradictory
                # citations alone tells the label).
                slots.setdefault((t.o, t.p, t.s), []).append((t, ()))
        return [ExhaustiveSlot(facts=tuple(f for f, _ in held), inverse=bool(key[2]),
                               members=tuple(m for _, ms in held for m in ms))
                for key, held in slots.items()]
    if edit.contradicts != "exhaustive":
        return []
    found: dict[tuple[str, str], list[Triple]] = {}
    for t in sample.subgraph:
        if not t.literal and t.o in replacements and t.s not in cvts:
            found.setdefault((t.s, t.p), []).append(t)
    # The replaced slot holds every replacement (other facts of G may hold some too).
    return next(([ExhaustiveSlot(facts=tuple(group))] for _, group in sorted(found.items())
                 if {t.o for t in group} == replacements), [])


def exhaustive_triples(sample: StructuredSample, table: PhraseTable | None = None,
                       slot_size: SlotSize | None = None) -> frozenset[Triple]:
    """The subgraph facts of :func:`exhaustive_slots`, all slots together."""
    return frozenset(t for slot in exhaustive_slots(sample, table, slot_size)
                     for t in slot.covered)


def _folded_fact(role: Triple, subgraph: Sequence[Triple], cvts: Collection[str],
                 table: PhraseTable) -> tuple[Triple, tuple[Triple, ...]] | None:
    """``role`` (a mediator's fact) and the one fact into its mediator, as the folded
    relation a table has a frame for (:func:`folded_key`), with the two facts; None
    when the mediator has other facts in ``subgraph`` or no such frame: the hop then
    reads by its roles (:func:`~extension.verbalize.citations.hop_text`)."""
    around = [t for t in subgraph if t.s == role.s or (not t.literal and t.o == role.s)]
    anchor = next((t for t in around if not t.literal and t.o == role.s), None)
    if anchor is None or len(around) != 2 or anchor.s in cvts:
        return None
    key = folded_key(anchor.p, role.p)
    if not table.curated(key):
        return None
    return (role.model_copy(update={"s": anchor.s, "p": key, "s_name": anchor.s_name}),
            (anchor, role))


def reads_as_many(predicate: str, table: PhraseTable, *, from_object: bool = False) -> bool:
    """Whether a reader may take ``predicate`` as having several values for one
    subject: a person, thing or place (a director, a genre, a citizenship, a country of
    production), unless its words say one value by meaning (born, died, buried, a
    capital, a location). Dates and numbers read as one value already.

    ``from_object``: several subjects for one object, read by the relation's inverse
    phrase ("Rome is the capital of", "Heat was directed by"); False without one.

    A containment relation reads as many only from the smaller place ("Watford is
    located only in Cleveland"): a place holds many, so "Ohio contains only New York
    City" says what no reader believes."""
    if is_containment_predicate(predicate) and is_container_first(predicate) != from_object:
        return False
    if from_object and is_containment_predicate(predicate):
        return table.inverse(predicate) is not None
    if from_object:
        inverse = table.inverse(predicate)
        return inverse is not None and not _ONE_VALUE_WORDS.search(inverse)
    if table.kind(predicate) not in ("person", "thing", "place"):
        return False
    return not _ONE_VALUE_WORDS.search(table[predicate])


_ONE_VALUE_WORDS = re.compile(r"\b(born|died|buried|located|headquarters)\b|\bhas the capital\b")
"""Words of a relation phrase that say its subject has one value ("was born in", "has
the capital"; not "is the capital of": a city may be the capital of several states)."""


__all__ = ["Citation", "TemplateVerbalizer", "UnreadableFact", "Verbalization", "Verbalizer",
           "check_answer_names", "check_answer_numbers", "check_readable", "exhaustive_slots", "exhaustive_triples",
           "reads_as_many"]
