"""The contradictory edit's choices: which answers, which slot, which replacement.

CAQA §4.3 makes the *contradictory* subgraph by "replacing the answer entity in G with
a non-answer entity of the same type". Read by a person, that is a contradiction only
when three things hold, and this module makes sure they do:

1. **Every answer goes** (:func:`answers_to_replace`). A citation that still states one
   of several answers supports it. Under ``--caqa-strict`` a union query replaces one
   answer, as §4.3 says for unions.
2. **The slot holds one value** (:func:`single_valued_slot`). "Rossellini has the
   profession Screenwriter" may be true beside "… Film director"; "The Godfather was
   directed by Ridley Scott" cannot be. An answer's fact in ``G`` is a slot that holds
   one value when its predicate is functional in the answer's direction, as measured in
   the store (:mod:`extension.core.functionality`). A slot on a CVT (an n-ary fact) holds one
   value when, besides, the question pins the CVT: by two of its other facts ("the
   actor who played Michael Corleone in The Godfather"), or by a link that is itself
   single-valued from the other end.
3. **The replacement is plausible and false** (:func:`choose_replacement`). It fills
   the same role of the same predicate elsewhere (``same_role``), else is a sibling
   over one of the answer's relations (``sibling``), else a member of the answer's
   type (``type``): see :data:`extension.core.candidates.ReplacementBasis`. Among those it
   shares the most specific of the answer's types that any candidate shares
   (:func:`extension.core.candidates.closest_by_type`), so a director is replaced by a
   director, not by any person. A value the slot's entity already has in the store is
   refused, and so is an edit one of whose new facts is in the store
   (:func:`true_in_store`).

**When no answer slot holds one value, a constraint is contradicted instead**
(:func:`constraint_slots`), a deliberate extension of §4.3, which only replaces the
answer. "Which films were directed by the person born in Denver?" asks about films, a
many-valued slot, but one constraint is single-valued: a person has one place of birth.
Replacing the constant ``c`` (Denver) by ``c'`` (Chicago) in every fact of ``G`` where
``c`` sits in that slot makes the citation say "David Fincher was born in Chicago",
which infers a different answer statement than the one that says the films' director
was born in Denver (CAQA §3.2's *contradictory*). The slot qualifies when the predicate
is functional in the direction from the other end ``n`` to ``c`` (``n`` can have only
one such ``c``: a place of birth, a film's director); ``n`` may be an answer ("Batman
Begins was directed by Steven Spielberg" contradicts "Nolan directed Batman Begins").
``c'`` is chosen as an answer's replacement is (3. above), refusing a value any ``n``
already has. The edited ``G`` must derive none of the answers, and derive all of them
once the query says ``c'`` (:func:`with_constant`): the citation states the same
answers under the other constraint. ``--caqa-strict`` turns the fallback off.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from extension.core import candidates as cand
from extension.core.functionality import functionality
from extension.core.query_graph import QueryGraph
from extension.core.vocabulary import is_containment_predicate
from kgstore.models import Entity, Fact, Literal, Object
from kgstore.store import Store

_TRUE_VALUES_LIMIT = 1_000
"""Most facts of one slot read to refuse replacements that are true there."""
_THROUGH_CVT = ".."
"""What joins the two predicates of a relation path through a CVT in FB15k-237's ids
(``award.award_category.winners..award.award_honor.award_winner``)."""


@dataclass(frozen=True, slots=True)
class Slot:
    """The fact of ``G`` whose answer end is replaced: ``other`` is its other end."""

    fact: Fact
    answer_is_object: bool

    @property
    def other(self) -> str:
        return self.fact.subject if self.answer_is_object else str(self.fact.object)


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer's replacement, where it came from and the type it shares."""

    replaced: Object
    replacement: Object
    basis: cand.ReplacementBasis
    shared_type: str | None = None
    entity: Entity | None = None


def answers_to_replace(answers: Iterable[Object], *, union: bool, strict: bool,
                       rng: random.Random) -> list[Object]:
    """Every answer (sorted), or under ``strict`` for a union query one drawn with
    ``rng`` (CAQA §4.3)."""
    ordered = sorted(answers, key=_key)
    return [rng.choice(ordered)] if strict and union else ordered


def single_valued_slot(store: Store, facts: Sequence[Fact], answer: Object,
                       cvts: Collection[str]) -> Slot | str:
    """The first fact of ``facts`` holding ``answer`` whose slot holds one value, or
    why there is none."""
    reasons = []
    for f in sorted(facts, key=_fact_key):
        if f.object == answer:
            slot = Slot(f, answer_is_object=True)
        elif f.subject == answer:
            slot = Slot(f, answer_is_object=False)
        else:
            continue
        if is_containment_predicate(f.predicate):
            # "Auburn University is located in Kentucky" does not rule out "… in the
            # United States": a place lies in a chain of places (blind round 12)
            reasons.append(f"{f.predicate} (a place lies in several places)")
            continue
        measured = functionality(store, f.predicate)
        share = measured.forward if slot.answer_is_object else measured.inverse
        if not measured.single_valued(answer_is_object=slot.answer_is_object):
            reasons.append(f"{f.predicate} ({share:.2f})")
            continue
        if slot.other in cvts and not _cvt_pinned(store, facts, slot, answer):
            reasons.append(f"{f.predicate} on an n-ary fact the question does not pin")
            continue
        return slot
    return ("no slot of the answer holds one value, so a replacement would not "
            f"contradict it: {', '.join(reasons) or 'the answer is in no fact'}")


def _cvt_pinned(store: Store, facts: Sequence[Fact], slot: Slot, answer: Object) -> bool:
    """Whether the question pins the CVT ``slot.other``: two of its other facts in
    ``G`` (the n-ary fact's qualifiers), or one link single-valued from its other end."""
    cvt = slot.other
    links = [f for f in facts if cvt in (f.subject, f.object) and answer not in
             (f.subject, f.object)]
    ends = {f.object_key if f.subject == cvt else f.subject for f in links}
    if len(ends) >= 2:
        return True
    for f in links:
        measured = functionality(store, f.predicate)
        # (c, p, cvt): c has one p, so one such CVT; (cvt, p, c): c is the p of one CVT.
        if measured.single_valued(answer_is_object=f.subject != cvt):
            return True
    return False


def true_values(store: Store, slot: Slot) -> set[Object]:
    """What the slot's other end already has in the store over the slot's predicate."""
    if slot.answer_is_object:
        return {f.object for f in store.facts_out(slot.other, predicate=slot.fact.predicate,
                                                  limit=_TRUE_VALUES_LIMIT)}
    return {f.subject for f in store.facts_in(slot.other, predicate=slot.fact.predicate,
                                              limit=_TRUE_VALUES_LIMIT)}


def choose_replacement(store: Store, slot: Slot, answer: Object, entity: Entity | None, *,
                       exclude: Collection[Object], seed: int, rng: random.Random
                       ) -> Choice | str:
    """A replacement for ``answer`` in ``slot`` (``entity`` is its record; ``None`` for
    a literal), drawn with ``rng``, none of ``exclude`` nor a true value of the slot;
    or why there is none."""
    refused = set(exclude) | true_values(store, slot)
    predicate = slot.fact.predicate
    if isinstance(answer, Literal):
        options = cand.literal_replacements(
            store, predicate, answer, seed=seed,
            exclude=[v for v in refused if isinstance(v, Literal)])
        if not options:
            return f"no other {answer.datatype or 'literal'} value of {predicate}"
        return Choice(answer, rng.choice(options), "same_role")
    if entity is None:
        return f"answer {answer} is not in the store"
    ids = {v for v in refused if isinstance(v, str)} | {entity.id}
    bases: tuple[cand.ReplacementBasis, ...] = ("same_role", "sibling", "type")
    for basis in bases:
        if basis == "same_role":
            pool = cand.role_replacements(store, predicate, answer_is_object=slot.answer_is_object,
                                          exclude=ids)
        elif basis == "sibling":
            pool = cand.sibling_replacements(store, entity, exclude=ids)
        else:
            pool = cand.type_replacements(store, entity, exclude=ids, seed=seed)
        closest = cand.closest_by_type(entity, pool)
        if closest:
            chosen, shared = rng.choice(closest)
            return Choice(answer, chosen.id, basis, shared, chosen)
    return (f"no entity fills the role of {answer} in {predicate}, is its sibling or "
            "shares its type")


def true_in_store(store: Store, original: Sequence[Fact], edited: Sequence[Fact]) -> Fact | None:
    """The first new fact of ``edited`` that the store holds (the "contradiction" would
    be true), or ``None``."""
    before = set(original)
    for f in edited:
        if f not in before and f in store.facts_out(f.subject, predicate=f.predicate,
                                                    limit=_TRUE_VALUES_LIMIT):
            return f
    return None


def constraint_slots(store: Store, facts: Sequence[Fact], constants: Iterable[Object],
                     cvts: Collection[str], answers: Collection[Object]
                     ) -> list[tuple[Object, list[Slot]]] | str:
    """Each query constant ``c`` of ``constants`` with the facts of ``facts`` where it
    sits in one slot that holds one value (same predicate, same side; the other ends
    ``n`` have one such ``c`` each), in a fixed order; or why there is none. A
    :class:`Slot` here has ``c`` where an answer's slot has the answer. An ``n`` that
    is a CVT is refused: a reader does not see which n-ary fact is meant, so "Janet
    Leigh gave a performance in Reservoir Dogs" does not contradict "Michael Madsen
    gave a performance in Reservoir Dogs", nor "Obama won the Nobel Prize in
    Literature" his Peace Prize (and on a sparse store the links that would pin the
    CVT look single-valued when they are not). So is a predicate that runs through a
    CVT (FB15k-237's ``a..b``: "Master's Degree has student Taft" does not contradict
    his Bachelor of Laws).

    The other end ``n`` must be an answer: the citation then says of the answer itself
    something the answer statement denies ("Thal is in Brittany" against "the
    birthplace … in Styria"). Where ``n`` is an intermediate entity of a path ("Richard
    Marquand was born in Montbéliard" for "the film directed by the person born in
    Cardiff"), two blind readers split between *contradictory* and *partially
    supportive* (the chain from the question's constant looks merely missing), so such
    a slot is not used."""
    found: list[tuple[Object, list[Slot]]] = []
    reasons = []
    for c in sorted(set(constants), key=_key):
        groups: dict[tuple[str, bool], list[Slot]] = {}
        for f in sorted(facts, key=_fact_key):
            if f.object == c and f.subject != c:
                groups.setdefault((f.predicate, True), []).append(Slot(f, answer_is_object=True))
            elif f.subject == c and f.object != c:
                groups.setdefault((f.predicate, False), []).append(Slot(f, answer_is_object=False))
        for (predicate, c_is_object), slots in sorted(groups.items()):
            if not functionality(store, predicate).single_valued(answer_is_object=c_is_object):
                reasons.append(f"{_key(c)} in {predicate}")
            elif _THROUGH_CVT in predicate or any(s.other in cvts for s in slots):
                reasons.append(f"{_key(c)} in {predicate} on an n-ary fact")
            elif any(s.other not in answers for s in slots):
                reasons.append(f"{_key(c)} in {predicate} of an entity that is no answer")
            else:
                found.append((c, slots))
    if found:
        return found
    return ("no constraint of the query sits in a slot that holds one value: "
            f"{', '.join(reasons) or 'the query has no constant in G'}")


def exhaustive_slot(facts: Sequence[Fact], answers: Collection[Object],
                    cvts: Collection[str]) -> list[Slot] | str:
    """The answers' facts as one slot that holds many values, stated as a whole, or why
    there is none: every answer is the object of a fact ``(n, p, answer)`` of ``facts``
    with one ``n`` (not a CVT, not an answer) and one ``p``, and those are all of
    ``G``'s ``(n, p, ·)`` facts. Replacing them all and saying the replacements are
    ``n``'s only ``p`` values ("Egypt's only form of government is Monarchy") infers
    another answer statement than the one naming the answers, also where ``n`` may have
    several values (issue 34: contradictory samples for the many questions whose answer
    slot holds many values; a deliberate extension of CAQA §4.3, whose contradiction
    replaces an answer of a one-value slot). The citation states the exclusivity
    (:func:`extension.verbalize.citations.exhaustive_sentence`). Slots in ``G``'s order."""
    if not answers or any(isinstance(a, Literal) for a in answers):
        return "the answers are not entities"
    groups: dict[tuple[str, str], list[Fact]] = {}
    for f in facts:
        groups.setdefault((f.subject, f.predicate), []).append(f)
    for (n, predicate), group in sorted(groups.items()):
        if n in cvts or n in answers or is_containment_predicate(predicate):
            continue
        if {f.object for f in group} == set(answers) and len(group) == len(answers):
            return [Slot(f, answer_is_object=True) for f in group]
    return "the answers are not all the values of one slot of one entity in the subgraph"


def replace_in_slots(facts: Sequence[Fact], slots: Collection[Slot], replacement: Object
                     ) -> list[Fact]:
    """``facts`` with the constant end of each of ``slots`` replaced by ``replacement``."""
    edited = {s.fact: (Fact(s.fact.subject, s.fact.predicate, replacement) if s.answer_is_object
                       else Fact(str(replacement), s.fact.predicate, s.fact.object))
              for s in slots}
    return [edited.get(f, f) for f in facts]


def with_constant(graph: QueryGraph, old: Object, new: Object) -> QueryGraph:
    """``graph`` with the constant ``old`` saying ``new`` instead: the question the
    constraint-contradicting citation answers. An entity constant's node id is the
    entity id (:func:`extension.core.grounding.compile_query`), so its edges follow it."""
    if isinstance(old, str) and isinstance(new, str):
        def rename(id: str) -> str:
            return new if id == old else id
        nodes = tuple(n.model_copy(update={"id": new, "value": new, "name": None})
                      if n.kind == "entity" and n.id == old else n for n in graph.nodes)
        edges = tuple(e.model_copy(update={"source": rename(e.source), "target": rename(e.target)})
                      for e in graph.edges)
        pairs = tuple((rename(x), rename(y)) for x, y in graph.not_equal)
        return graph.model_copy(update={"nodes": nodes, "edges": edges, "not_equal": pairs})
    if isinstance(old, Literal) and isinstance(new, Literal):
        nodes = tuple(n.model_copy(update={"value": new.value, "datatype": new.datatype,
                                           "lang": new.lang})
                      if n.kind == "literal" and n.literal() == old else n for n in graph.nodes)
        return graph.model_copy(update={"nodes": nodes})
    raise ValueError(f"cannot replace {old!r} by {new!r}: an entity by a literal")


def _key(value: Object) -> str:
    return value.key if isinstance(value, Literal) else value


def _fact_key(f: Fact) -> tuple[str, str, str]:
    return (f.subject, f.predicate, f.object_key)
