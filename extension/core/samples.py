"""Structured attribution samples: one question -> up to four labelled samples.

For a parsed question (:class:`extension.inputs.questions.ParsedQuestion`) the pipeline
(:func:`structured_samples`) extends and grounds the query
(:func:`extension.core.extend.extend_query`), takes the supporting subgraph ``G`` as the
**supportive** sample, and edits it (:mod:`extension.core.edits`) into the
**partially supportive**, **contradictory** and **irrelevant** samples, verifying each
edit (CAQA §4.3; :func:`_partial` and :mod:`extension.core.contradiction` say where kgbench
goes further than §4.3, and ``--caqa-strict`` where it does not). Labels and complexities are
those of CAQA §3.2–3.3 and Table 4.

Every random choice comes from ``random.Random(f"{seed}:{question id}")``, so a
question's samples depend only on the seed, the question and the store — not on which
other questions run, in which order, or on how many workers.
"""

from __future__ import annotations

import random
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from typing import Literal as TypingLiteral

from pydantic import BaseModel, ConfigDict

from extension.core import candidates as cand
from extension.core import contradiction
from extension.core.candidates import ReplacementBasis
from extension.core.edits import (
    branch_edges,
    delete_path_edit,
    delete_triple_edit,
    derived_answers,
    echoes_a_role,
    echoes_an_answer,
    instantiated_facts,
    replace_answers_edit,
    sub_facts,
    verify_irrelevant,
)
from extension.core.extend import (
    ExtendedQuery,
    ExtensionConfig,
    ExtensionFailure,
    GroundedExtension,
    extend_query,
)
from extension.core.grounding import Grounder, compile_query
from extension.core.labels import Complexity, Label
from extension.core.query_graph import QueryGraph
from extension.core.vocabulary import CONTAINMENT_PREDICATES, is_containment_predicate
from extension.inputs.questions import ParsedQuestion
from extension.verbalize.question_check import question_check
from extension.verbalize.relation_phrases import PhraseTable, store_phrase_table
from kgstore.models import Entity, Fact, Literal, Object
from kgstore.patterns import Binding
from kgstore.store import Store


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Triple(_Frozen):
    """A fact with display names: ``{"s", "p", "o", "s_name", "o_name"}``; literal
    objects also carry ``datatype``/``lang``."""

    s: str
    p: str
    o: str
    s_name: str | None = None
    o_name: str | None = None
    datatype: str | None = None
    lang: str | None = None
    literal: bool = False

    def fact(self) -> Fact:
        return Fact(self.s, self.p, Literal(self.o, self.datatype, self.lang) if self.literal else self.o)


class SubFact(_Frozen):
    triple: Triple
    supported: bool


class AnswerEntity(_Frozen):
    """An answer: an entity ``id`` with its name, or a literal ``value``."""

    id: str | None = None
    value: str | None = None
    name: str | None = None
    datatype: str | None = None
    lang: str | None = None


class Replacement(_Frozen):
    """One answer of a contradictory edit and what replaced it: ``basis`` says where the
    replacement came from (:data:`extension.core.candidates.ReplacementBasis`: ``same_role``,
    ``sibling`` or ``type``), ``shared_type`` the most specific type it shares with the
    answer (``None`` on a store without types, or for a literal)."""

    replaced: AnswerEntity
    replacement: AnswerEntity
    basis: ReplacementBasis
    shared_type: str | None = None


class Edit(_Frozen):
    """What turned ``original_subgraph`` into ``subgraph``. A contradictory edit lists
    every replaced answer in ``replacements``; ``replaced``, ``replacement``,
    ``shared_type`` and ``replacement_basis`` repeat the first of them. ``contradicts``
    says which slot it replaced: ``"answer"``, or ``"constraint"`` where no answer slot
    holds one value and a query constant was replaced instead (one replacement), or
    ``"exhaustive"`` where neither could be and the answers of a slot that holds many
    values were replaced together, the citation stating the replacements as its only
    values (see :mod:`extension.core.contradiction`)."""

    kind: TypingLiteral["none", "delete_triple", "delete_path", "replace_answer", "swap_subgraph"]
    deleted: tuple[Triple, ...] = ()
    replaced: AnswerEntity | None = None
    replacement: AnswerEntity | None = None
    shared_type: str | None = None
    replacement_basis: ReplacementBasis | None = None
    replacements: tuple[Replacement, ...] = ()
    subject: str | None = None
    contradicts: TypingLiteral["answer", "constraint", "exhaustive"] | None = None


class Source(_Frozen):
    dataset: str
    qid: str
    question: str


class SampleQuery(_Frozen):
    """The original query graph, the extended disjuncts (query-graph JSON), the rule and
    resulting shape, the subject entities of the extended query, the edges the rule
    added (``{source, predicate, target}``) and the rule attempts."""

    original: Any
    extended: tuple[Any, ...]
    rule: str
    shape: str
    subjects: tuple[str, ...] = ()
    added: tuple[Any, ...] = ()
    attempts: tuple[Any, ...] = ()
    union_subjects: tuple[Any, ...] = ()
    """Union only: each subject and what tells it from the same-name others
    (:class:`extension.core.extend.UnionSubject`)."""


class StructuredSample(_Frozen):
    """One structured attribution sample (the fields of issue 5; text comes later)."""

    id: str
    source: Source
    query: SampleQuery
    answer_entities: tuple[AnswerEntity, ...]
    answers_capped: bool = False
    label: Label
    complexity: Complexity
    subgraph: tuple[Triple, ...]
    original_subgraph: tuple[Triple, ...]
    edit: Edit
    sub_facts: tuple[SubFact, ...]
    supported_fraction: float
    seed: int
    cvt_nodes: tuple[str, ...] = ()
    """CVT (mediator) node ids among the triples' ends: verbalization folds their facts."""


class SampleFailure(_Frozen):
    """A question (or one of its samples) that could not be produced, and why."""

    qid: str
    question: str
    stage: str
    reason: str


@dataclass(frozen=True, slots=True)
class SampleConfig:
    """``caqa_strict`` reproduces CAQA §4.3 exactly where kgbench deliberately goes
    further: no partially supportive sample for single-complexity questions, and a
    union's contradictory sample replaces one answer (kgbench: every answer)."""

    extension: ExtensionConfig = field(default_factory=ExtensionConfig)
    classes: bool = True
    caqa_strict: bool = False


def question_rng(seed: int, qid: str) -> random.Random:
    """The question's own RNG (string seeds are hashed with SHA-512 by ``random``, so
    this is stable across processes and Python runs)."""
    return random.Random(f"{seed}:{qid}")


def structured_samples(store: Store, grounder: Grounder, question: ParsedQuestion, *, seed: int,
                       config: SampleConfig = SampleConfig(),
                       timings: dict[str, float] | None = None,
                       ) -> tuple[list[StructuredSample], list[SampleFailure]]:
    """The samples of one question and the failures met on the way. ``timings``, when
    given, accumulates seconds per stage (``extend``, then one per edited label)."""
    clock = _StageClock(timings)
    def fail(stage: str, reason: str) -> SampleFailure:
        return SampleFailure(qid=question.id, question=question.question, stage=stage,
                             reason=reason)

    if question.shape == "unsupported" or question.query is None:
        return [], [fail("parse", f"unsupported: {question.reason}")]
    # One read transaction for the question's reads where each is a round trip (Neo4j).
    with store.read_transaction():
        return _question_samples(store, grounder, question, seed, config, clock, fail)


def _question_samples(store: Store, grounder: Grounder, question: ParsedQuestion, seed: int,
                      config: SampleConfig, clock: _StageClock,
                      fail: Callable[[str, str], SampleFailure],
                      ) -> tuple[list[StructuredSample], list[SampleFailure]]:
    """:func:`structured_samples` of a supported question."""
    assert question.query is not None
    rng = question_rng(seed, question.id)
    # The question's own nodes, read together where each read is a round trip (Neo4j):
    # the grounding, the rules' hops from the subjects and the union rule's same-name
    # lookup start there. (Reading ahead the answers, the hops' entities or the
    # extended graph too saved round trips but cost more client CPU than they saved
    # on the 1M-fact benchmark KG.)
    store.read_ahead([*question.topic_entities,
                      *(n.id for n in question.query.nodes if n.kind == "entity")],
                     names=True)
    with clock("extend"):
        ext = extend_query(store, grounder, question.query, question.shape,
                           question.topic_entities, rng, config.extension,
                           question_check(store, question.question), first=question.rule)
    if isinstance(ext, ExtensionFailure):
        return [], [fail(ext.stage, ext.reason)]
    builder = _Builder(store, question, ext, seed, config)
    unnamed = [a for a in ext.answers if isinstance(a, str)
               and (entity := builder.entities.get(a)) is not None and not entity.name]
    if unnamed:   # the answer would show an id (blind round 36: "_:unfolded_…", rated 1)
        return [], [fail("extend", f"unnamed_answer: answer {unnamed[0]} has no name in the "
                                   "store, so no text can state it")]
    samples = [builder.sample("supportive", list(ext.facts), Edit(kind="none"))]
    failures: list[SampleFailure] = []
    for label, make in (("partially_supportive", _partial), ("contradictory", _contradictory),
                        ("irrelevant", _irrelevant)):
        with clock(label):
            outcome = make(builder, rng)
        if outcome is None:
            continue   # not defined here (a one-triple single G, or --caqa-strict)
        if isinstance(outcome, str):
            failures.append(fail(label, outcome))
            continue
        facts, edit = outcome
        samples.append(builder.sample(label, facts, edit))  # type: ignore[arg-type]
    return samples, failures


class _StageClock:
    """``with clock(stage):`` adds the block's wall time to ``timings[stage]``."""

    def __init__(self, timings: dict[str, float] | None) -> None:
        self.timings = timings

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        if self.timings is None:
            yield
            return
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - started


class _Builder:
    """Names, triples and the shared fields of one question's samples."""

    def __init__(self, store: Store, question: ParsedQuestion, ext: GroundedExtension,
                 seed: int, config: SampleConfig) -> None:
        self.store = store
        self.config = config
        self.question = question
        self.ext = ext
        self.seed = seed
        self.answers = set(ext.answers)
        self.entities: dict[str, Entity] = {}
        # Brief records (name, CVT mark) of the irrelevant walk's entities, whose full
        # records are not read: all a sample shows of them.
        self.walked: dict[str, Entity] = {}
        self.remember(ext.facts)

    def remember(self, facts: Iterable[Fact], walked: Mapping[str, Entity] | None = None
                 ) -> None:
        """Reads the records of ``facts``' entities not known yet, but for those with
        ``walked`` (brief) records."""
        self.walked.update(walked or {})
        known = self.entities.keys() | self.walked.keys()
        missing = [f for f in facts if f.subject not in known
                   or (isinstance(f.object, str) and f.object not in known)]
        if missing:
            self.entities.update(cand.entity_records(self.store, missing))

    def record(self, id: str) -> Entity | None:
        """A full record read, else a walk's brief one."""
        return self.entities.get(id) or self.walked.get(id)

    def name(self, id: str) -> str | None:
        e = self.record(id)
        return e.name if e else None

    def triple(self, f: Fact) -> Triple:
        if isinstance(f.object, Literal):
            return Triple(s=f.subject, p=f.predicate, o=f.object.value, s_name=self.name(f.subject),
                          datatype=f.object.datatype, lang=f.object.lang, literal=True)
        return Triple(s=f.subject, p=f.predicate, o=f.object, s_name=self.name(f.subject),
                      o_name=self.name(f.object))

    def answer(self, value: Object) -> AnswerEntity:
        if isinstance(value, Literal):
            return AnswerEntity(value=value.value, datatype=value.datatype, lang=value.lang)
        return AnswerEntity(id=value, name=self.name(value))

    def sample(self, label: Label, facts: Sequence[Fact], edit: Edit) -> StructuredSample:
        self.remember(facts)
        q: ExtendedQuery = self.ext.query
        original = list(self.ext.facts)
        subs = sub_facts(original, facts)
        return StructuredSample(
            id=f"{self.question.id}:{label}",
            source=Source(dataset=self.question.dataset, qid=self.question.id,
                          question=self.question.question),
            query=SampleQuery(original=q.original.model_dump(mode="json"),
                              extended=tuple(d.model_dump(mode="json") for d in q.disjuncts),
                              rule=q.rule, shape=q.shape, subjects=q.subjects,
                              added=tuple(e.model_dump() for e in q.added),
                              attempts=tuple(a.model_dump() for a in q.attempts),
                              union_subjects=tuple(u.model_dump() for u in q.union_subjects)),
            answer_entities=tuple(self.answer(a) for a in self.ext.answers),
            answers_capped=self.ext.truncated,
            label=label, complexity=q.complexity,
            subgraph=tuple(self.triple(f) for f in facts),
            original_subgraph=tuple(self.triple(f) for f in original),
            edit=edit,
            sub_facts=tuple(SubFact(triple=self.triple(f), supported=ok) for f, ok in subs),
            supported_fraction=sum(ok for _, ok in subs) / len(subs) if subs else 0.0,
            seed=self.seed,
            cvt_nodes=tuple(sorted({
                n for f in (*original, *facts) for n in (f.subject, f.object_key)
                if (e := self.record(n)) is not None and e.is_cvt})),
        )


_Outcome = tuple[list[Fact], Edit] | str | None


def _partial(b: _Builder, rng: random.Random) -> _Outcome:
    """Partially supportive (CAQA §4.3): a path loses one triple (with a CVT, the whole
    n-ary fact the triple belongs to), a tree or a union the path of one subject entity.

    §4.3 deletes nothing for single-triple queries. kgbench's single queries contract
    CVTs, so their ``G`` may hold an n-ary fact of several triples (CAQA Table 2's own
    partial example: the actor stars in the film, that he plays Patrick is missing), or
    one fact per answer. As a deliberate extension of §4.3, such a ``G`` loses one
    triple whose removal loses an answer (:func:`delete_triple_edit`): one triple of the
    n-ary fact the question constrains, or one answer's fact; ``sub_facts`` marks what
    is kept. With one answer the deleted triple is a constraint of the n-ary fact —
    neither the answer's triple nor the topic entity's link to the fact: "Roberto
    Rossellini had a marriage." (the spouse deleted) or "A marriage has spouse Ingrid
    Bergman." (the link deleted) read as irrelevant to blind readers, "The Godfather
    features a performance with actor Al Pacino." (the character deleted) as partial. A
    single ``G`` without such a triple gets no partial sample, and ``--caqa-strict``
    gives none for any single query."""
    q = b.ext.query
    facts = list(b.ext.facts)
    if q.complexity == "single" and (b.config.caqa_strict or len(facts) < 2):
        return None
    if q.complexity == "single" or (q.shape == "path" and q.rule != "union"):
        allowed = None
        if q.complexity == "single":
            allowed = _single_partial_filter(facts, b.answers, set(q.subjects))
        result = delete_triple_edit(facts, q.disjuncts, b.answers, rng, allowed)
        if result is None and q.complexity == "single":
            return None   # no constraint to drop: like a one-triple G, no partial sample
        if result is None:
            return "no single triple removal loses an answer"
        kept, deleted = result
        if q.complexity != "single" or len(b.answers) > 1:
            # A path's hop through a CVT is one fact to a reader (so is one answer's
            # n-ary fact among several answers: "8½ features a performance."): losing one of its
            # triples left "John Williams received an education." or "An education has
            # institution USC." (nobody's); the hop goes whole, and the chain reads as
            # missing a link.
            cvt = next((n for n in (deleted.subject, deleted.object_key)
                        if (e := b.entities.get(n)) is not None and e.is_cvt), None)
            if cvt is not None:
                hop = [f for f in facts if cvt in (f.subject, f.object_key)]
                rest = [f for f in facts if f not in hop]
                # a single query keeps some answer (else the citation supports none of it)
                if q.complexity != "single" or derived_answers(q.disjuncts, rest) & b.answers:
                    return rest, Edit(kind="delete_triple", deleted=tuple(map(b.triple, hop)))
        return kept, Edit(kind="delete_triple", deleted=(b.triple(deleted),))
    # tree or union: the whole path of one subject entity
    index = rng.randrange(len(q.disjuncts)) if q.rule == "union" else 0
    graph = q.disjuncts[index]
    if q.rule == "union":
        subject = q.subjects[index]
    else:
        choices = sorted(s for s in q.subjects if s in {n.id for n in graph.nodes})
        # Not the branch that only places the answer ("Cincinnati is located in Ohio"):
        # both readers of blind round 8 supplied that fact themselves and read the
        # citation as supportive. Another subject's branch goes where there is one.
        telling = [s for s in choices if not _placing_branch(graph, b.ext.solutions[index], s)]
        subject = rng.choice(telling or choices)
    kept, dropped = delete_path_edit(facts, graph, b.ext.solutions[index], subject)
    if b.answers <= derived_answers(q.disjuncts, kept):
        return "removing a subject's path leaves every answer derivable"
    return kept, Edit(kind="delete_path", deleted=tuple(b.triple(f) for f in dropped),
                      subject=subject)


def _placing_branch(graph: QueryGraph, solutions: Sequence[Binding], subject: str) -> bool:
    """Whether every fact of ``subject``'s branch places one place inside another."""
    facts = instantiated_facts(graph, solutions, branch_edges(graph, subject))
    return bool(facts) and all(is_containment_predicate(f.predicate) for f in facts)


def _single_partial_filter(facts: Sequence[Fact], answers: set[Object], subjects: set[str]
                           ) -> Callable[[Fact], bool]:
    """Which triples a single query's partial sample may delete (see :func:`_partial`):
    with several answers, one answer's fact; with one, a triple touching neither the
    answer nor a subject entity (a constraint of the n-ary fact)."""
    if len(answers) > 1:
        return lambda f: f.object in answers or f.subject in answers
    return lambda f: not ({f.subject, f.object} & (answers | subjects))


def _contradictory(b: _Builder, rng: random.Random) -> _Outcome:
    """Contradictory (CAQA §4.3): the answers replaced by non-answers that fill the same
    role, on a slot that holds one value, making facts the store does not hold
    (:mod:`extension.core.contradiction`). Every answer is replaced, so the citation supports
    none of them; under ``--caqa-strict`` a union replaces one (§4.3). Where no answer
    slot holds one value, a constraint of the query is contradicted instead
    (:func:`_contradict_constraint`; not under ``--caqa-strict``)."""
    if b.ext.truncated:
        return "the answers are capped: a replacement could be an answer beyond the cap"
    outcome = _contradict_answers(b, rng)
    if not isinstance(outcome, str) or b.config.caqa_strict:
        return outcome
    fallback = _contradict_constraint(b, rng)
    if not isinstance(fallback, str):
        return fallback
    exhaustive = _contradict_exhaustively(b, rng)
    return exhaustive if not isinstance(exhaustive, str) else \
        f"{outcome}; {fallback}; {exhaustive}"


def _contradict_exhaustively(b: _Builder, rng: random.Random) -> _Outcome:
    """Every answer of a slot that holds many values replaced, the citation saying the
    replacements are the slot's only values (:func:`contradiction.exhaustive_slot`):
    the fallback where neither an answer nor a constraint sits in a one-value slot. Not
    for unions (their answers come from several subjects)."""
    q = b.ext.query
    if q.rule == "union":
        return "exhaustive: a union's answers fill several slots"
    facts = list(b.ext.facts)
    in_graph = {f.subject for f in facts} | {f.object_key for f in facts}
    cvts = {n for n in in_graph if (e := b.entities.get(n)) is not None and e.is_cvt}
    slots = contradiction.exhaustive_slot(facts, b.answers, cvts)
    if isinstance(slots, str):
        return f"exhaustive: {slots}"
    taken: set[Object] = set(b.answers) | in_graph
    choices: list[contradiction.Choice] = []
    for slot in slots:
        answer = slot.fact.object
        choice = contradiction.choose_replacement(b.store, slot, answer,
                                                  b.entities.get(str(answer)), exclude=taken,
                                                  seed=b.seed, rng=rng)
        if isinstance(choice, str):
            return f"exhaustive: {choice}"
        taken.add(choice.replacement)
        choices.append(choice)
    edited = replace_answers_edit(facts, {c.replaced: c.replacement for c in choices})
    if derived_answers(q.disjuncts, edited) & b.answers:
        return "exhaustive: the replaced subgraph still yields an answer"
    true = contradiction.true_in_store(b.store, facts, edited)
    if true is not None:
        return f"exhaustive: the edited fact ({true.subject}, {true.predicate}, " \
               f"{true.object_key}) is true"
    for c in choices:
        if c.entity is not None:
            b.entities[c.entity.id] = c.entity
    return edited, _replace_edit(b, choices, "exhaustive")


def _contradict_answers(b: _Builder, rng: random.Random) -> _Outcome:
    q = b.ext.query
    facts = list(b.ext.facts)
    targets = contradiction.answers_to_replace(b.ext.answers, union=q.rule == "union",
                                               strict=b.config.caqa_strict, rng=rng)
    in_graph = {f.subject for f in facts} | {f.object_key for f in facts}
    cvts = {n for n in in_graph if (e := b.entities.get(n)) is not None and e.is_cvt}
    taken: set[Object] = set(b.answers) | in_graph
    choices: list[contradiction.Choice] = []
    for answer in targets:
        slot = contradiction.single_valued_slot(b.store, facts, answer, cvts)
        if isinstance(slot, str):
            return slot
        entity = None if isinstance(answer, Literal) else b.entities.get(answer)
        choice = contradiction.choose_replacement(b.store, slot, answer, entity,
                                                  exclude=taken, seed=b.seed, rng=rng)
        if isinstance(choice, str):
            return choice
        if choice.entity is not None:
            b.entities[choice.entity.id] = choice.entity
        taken.add(choice.replacement)
        choices.append(choice)
    edited = replace_answers_edit(facts, {c.replaced: c.replacement for c in choices})
    derived = derived_answers(q.disjuncts, edited)
    if derived & {c.replaced for c in choices}:
        return "the replaced subgraph still yields a replaced answer"
    if not {c.replacement for c in choices} <= derived:   # an answer is also a constant
        return "the replaced subgraph does not yield the replacements"
    true = contradiction.true_in_store(b.store, facts, edited)
    if true is not None:
        return f"the edited fact ({true.subject}, {true.predicate}, {true.object_key}) is true"
    return edited, _replace_edit(b, choices, "answer")


def _contradict_constraint(b: _Builder, rng: random.Random) -> _Outcome:
    """A query constant ``c`` replaced by ``c'`` in the facts of ``G`` where ``c`` sits
    in a slot that holds one value ("David Fincher was born in Chicago" for "… by the
    person born in Denver"). The edited ``G`` derives none of the answers, and all of
    them once the query says ``c'``; the first constant and slot (in a fixed order)
    that passes is used."""
    q = b.ext.query
    facts = list(b.ext.facts)
    constants = [n.literal() if n.kind == "literal" else n.id
                 for d in q.disjuncts for n in d.nodes if n.kind in ("entity", "literal")]
    in_graph = {f.subject for f in facts} | {f.object_key for f in facts}
    cvts = {n for n in in_graph if (e := b.entities.get(n)) is not None and e.is_cvt}
    found = contradiction.constraint_slots(
        b.store, facts, [c for c in constants if c not in b.answers], cvts, b.answers)
    if isinstance(found, str):
        return found
    reasons = []
    for constant, slots in found:
        entity = None if isinstance(constant, Literal) else b.entities.get(constant)
        # a value one of the other ends already has would be true there, not a contradiction
        true = set().union(*(contradiction.true_values(b.store, s) for s in slots[1:]))
        choice = contradiction.choose_replacement(
            b.store, slots[0], constant, entity, exclude=set(b.answers) | in_graph | true,
            seed=b.seed, rng=rng)
        if isinstance(choice, str):
            reasons.append(choice)
            continue
        edited = contradiction.replace_in_slots(facts, slots, choice.replacement)
        if derived_answers(q.disjuncts, edited) & b.answers:
            reasons.append(f"replacing {_key(constant)} leaves an answer derivable")
            continue
        moved = [contradiction.with_constant(d, constant, choice.replacement)
                 for d in q.disjuncts]
        if not b.answers <= derived_answers(moved, edited):
            reasons.append(f"{_key(constant)} in other facts of G: the edit is not one constraint")
            continue
        stated = contradiction.true_in_store(b.store, facts, edited)
        if stated is not None:
            reasons.append(f"the edited fact ({stated.subject}, {stated.predicate}, "
                           f"{stated.object_key}) is true")
            continue
        if choice.entity is not None:
            b.entities[choice.entity.id] = choice.entity
        return edited, _replace_edit(b, [choice], "constraint")
    return "no constraint could be contradicted: " + "; ".join(reasons)


def _replace_edit(b: _Builder, choices: Sequence[contradiction.Choice],
                  contradicts: TypingLiteral["answer", "constraint", "exhaustive"]) -> Edit:
    replacements = tuple(Replacement(replaced=b.answer(c.replaced),
                                     replacement=b.answer(c.replacement), basis=c.basis,
                                     shared_type=c.shared_type) for c in choices)
    first = replacements[0]
    return Edit(kind="replace_answer", replaced=first.replaced,
                replacement=first.replacement, shared_type=first.shared_type,
                replacement_basis=first.basis, replacements=replacements,
                contradicts=contradicts)


def _key(value: Object) -> str:
    return value.key if isinstance(value, Literal) else value


def unreadable_predicates(store: Store) -> frozenset[str]:
    """The store's predicates whose phrase would show an id (a Wikidata ``P2163``
    without a label in the store; :meth:`PhraseTable.readable`) or whose object is a
    bookkeeping value (:meth:`PhraseTable.askable`: a gender, a currency, a colour, a
    film format). The irrelevant walk avoids them: a citation with an unreadable fact
    cannot be written (:class:`extension.verbalize.verbalizer.UnreadableFact`), and one
    that says "Michael Cera has the gender Male" or "Lauren Conrad has a net worth in
    United States Dollar" reads as filler to any reader (2.3% of the samples of the
    blind-draw runs cited such a fact); the walk has other relations to take (on the
    Wikidata sample store 1 irrelevant sample of 27 was made before). Phrases from a
    user's ``--phrases`` file are not consulted here. Worked out once per store, as its
    phrase table is: every question's irrelevant edit asks (300 predicates copied and
    looked up, about 1 ms a question on the 1M-fact extension benchmark)."""
    found = _UNREADABLE.get(store)
    if found is None:
        table = store_phrase_table(store)
        found = _UNREADABLE[store] = frozenset(
            p.id for p in store.predicates() if not table.askable(p.id))
    return found


_UNREADABLE: weakref.WeakKeyDictionary[Store, frozenset[str]] = weakref.WeakKeyDictionary()


def _person_roles(table: PhraseTable, facts: Iterable[Fact], anchor: str) -> list[str]:
    """The role nouns of the relations of ``facts`` at ``anchor`` that link a person,
    directly or through a mediator (the folded id of the two hops: "film.film.starring..
    film.performance.actor", "actor")."""
    facts = list(facts)
    hops = [f.predicate for f in facts if anchor in (f.subject, f.object_key)]
    hops += [f"{f.predicate}..{g.predicate}" for f in facts if f.subject == anchor
             for g in facts if g.subject == f.object_key and g is not f]
    return [str(table.noun(p)) for p in hops
            if table.noun(p) and table.kind(p) == "person"]


def _irrelevant(b: _Builder, rng: random.Random) -> _Outcome:
    q = b.ext.query
    facts = list(b.ext.facts)
    # One solution's facts of the first disjunct: the pattern to reproduce elsewhere.
    first = q.disjuncts[0]
    solution = b.ext.solutions[0][0]
    template = compile_query(first, classes=False, limit=None).instantiate(solution)
    nodes = {f.subject for f in facts} | {f.object_key for f in facts}
    in_template = {f.subject for f in template} | {f.object_key for f in template}
    # a subject the first disjunct names, not one its solution only reaches (a union's
    # namesake can be the first disjunct's answer: hypothesis found e5 -> e8, both "Alpha")
    named = set(first.entity_ids())
    anchors = [s for s in q.subjects if s in in_template and s in named]
    if not anchors:
        return "no subject entity in the first disjunct's subgraph"
    cvts = {n for n in nodes if (e := b.entities.get(n)) is not None and e.is_cvt}
    match = cand.irrelevant_subgraph(
        b.store, template, anchors, avoid_entities=nodes,
        avoid_predicates={f.predicate for f in facts} | unreadable_predicates(b.store) | (
            # "The Appalachian Mountains are partially located in Ohio" beside "… located
            # in North America": readers of blind round 10 placed Ohio themselves
            CONTAINMENT_PREDICATES if any(is_containment_predicate(f.predicate) for f in facts)
            else frozenset()),
        cvt_nodes=cvts, rng=rng,
        limit=b.config.extension.limits.facts_per_node,
        first_window=b.config.extension.limits.walk_window)
    if match is None:
        return "no structurally similar subgraph around any subject over other relations"
    problem = verify_irrelevant(facts, match.facts, match.anchor, q.disjuncts, b.answers,
                                template, any_leaf_kind=match.relaxed)
    if problem is not None:
        return f"candidate rejected: {problem}"
    b.remember(match.facts, match.records)
    shown = [n for f in match.facts for e in (f.subject, f.object_key)
             if e != match.anchor and (n := b.name(e))]
    answer_names = [a.name or a.value or "" for a in map(b.answer, b.ext.answers)]
    echo = echoes_an_answer(shown, answer_names)
    if echo is not None:
        return f"candidate rejected: it names {echo!r}, which echoes an answer"
    # nor may its relations' words: "Bill Conti composed the music for Rocky" says what
    # the answer "Composer" says (blind round 10: read as supportive or partial)
    table = store_phrase_table(b.store)
    echo = echoes_an_answer([table[f.predicate] for f in match.facts], answer_names)
    if echo is not None:
        return f"candidate rejected: its relation {echo!r} echoes an answer"
    echo = echoes_a_role(_person_roles(table, match.facts, match.anchor),
                         _person_roles(table, facts, match.anchor))
    if echo is not None:
        return f"candidate rejected: its role {echo!r} reads like one the question asks through"
    return match.facts, Edit(kind="swap_subgraph", subject=match.anchor)
