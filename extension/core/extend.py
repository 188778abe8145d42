"""Extend one classified query with a CAQA rule, grounded in the store.

:func:`extend_query` draws a rule for the query's shape (:func:`extension.core.rules.rule_order`),
looks up candidates in the store (:mod:`extension.core.candidates`), builds the extended
query (:mod:`extension.core.rules`) and grounds it (:class:`extension.core.grounding.Grounder`),
keeping the first candidate whose grounding is usable:

* the extended query has answers, at most ``max_answers`` of them (an answer set
  that large means the new constraint is a hub, not a constraint);
* way 2 (intersection): the answers are a non-empty subset of the original ones;
* union: every disjunct has answers (guaranteed by the candidate filter, checked).

If the drawn rule has no usable candidate the other rules of that shape are tried in
the seeded order; every attempt is recorded. When none applies the result is an
:class:`ExtensionFailure` with the reasons, never a silent drop.

Intersection candidates are not grounded as whole queries: their groundings follow
from the original query's solutions and a few seeded reads around the new entity
(:func:`_way1_grounding`, :func:`_way2_grounding`), equal to what grounding the
extended query in the store gives, at a fraction of the reads (on a Zipf-shaped 5M-fact
KG a hub entity made one store grounding take seconds).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from pydantic import BaseModel, ConfigDict

from extension.core import candidates as cand
from extension.core.grounding import (
    Grounder,
    Grounding,
    answer_language_ok,
    compile_query,
    solutions_grounding,
)
from extension.core.labels import Complexity
from extension.core.query_graph import QueryEdge, QueryGraph
from extension.core.rules import (
    Hop,
    ResultShape,
    Rule,
    add_branch,
    complexity_of,
    prepend_hop,
    result_shape,
    rule_order,
    seeded_sample,
    union_disjuncts,
)
from extension.defaults import DEFAULT_MAX_ANSWERS
from kgstore.models import Fact, Object
from kgstore.patterns import Binding, PatternQuery
from kgstore.store import Store


@dataclass(frozen=True, slots=True)
class ExtensionConfig:
    """Knobs of the extension engine (all caps are per question)."""

    max_answers: int = DEFAULT_MAX_ANSWERS
    max_intermediate: int = 1
    candidates_per_rule: int = 6
    limits: cand.Limits = cand.Limits()


class RuleAttempt(BaseModel):
    """One rule tried on a question: ``outcome`` ``applied`` or why it did not apply."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    rule: Rule
    outcome: str


UNION_NO_SAME_NAME = "no_same_name_entities"
"""Outcome code of a union attempt when no other entity of the store has the subject's
name (counted in ``stats.json``'s ``rule_availability``)."""
UNION_NO_SHARED_RELATION = "no_shared_relation"
"""Outcome code of a union attempt when same-name entities exist but none has the
subject's relation or one of its family."""


def union_outcome(attempts: Sequence[RuleAttempt] | None, failure_reason: str | None = None
                  ) -> str | None:
    """How the union rule fared on one question, for the run's statistics:
    ``"applied"``, an outcome code (:data:`UNION_NO_SAME_NAME`,
    :data:`UNION_NO_SHARED_RELATION`), ``"other"`` for its other refusals, ``None``
    when it was not tried. Reads the attempts of an extended query, or the reason of
    an :class:`ExtensionFailure` (which lists every attempt as ``rule: outcome``)."""
    outcomes = [a.outcome for a in attempts or () if a.rule == "union"]
    if not outcomes and failure_reason:
        found = re.search(r"(?:^|: |; )union: ([^;]*)", failure_reason)
        outcomes = [found.group(1)] if found else []
    if not outcomes:
        return None
    code = outcomes[0].split(":", 1)[0]
    return code if code in ("applied", UNION_NO_SAME_NAME, UNION_NO_SHARED_RELATION) else "other"


class UnionSubject(BaseModel):
    """One subject of a union query and what tells it from the other same-name
    subjects, for the question's text: ``matched`` is ``"subject"`` for e0 and
    ``"name"`` for the others, ``predicate`` is its relation in its disjunct, ``type`` a
    specific type none of the others has, ``fact_*`` a fact none of the others has
    (``fact_outgoing``: the subject is the fact's subject). Both ``None`` when the
    store knows nothing that tells them apart."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    entity: str
    name: str | None
    matched: TypingLiteral["subject", "name"]
    predicate: str
    type: str | None = None
    fact_predicate: str | None = None
    fact_object: str | None = None
    fact_outgoing: bool = True
    fact_object_name: str | None = None


class ExtendedQuery(BaseModel):
    """The query after extension: a union of conjunctive ``disjuncts`` (one unless the
    rule is ``union``), with the rule, the resulting shape and complexity, the subject
    entities, the edges the rule added and the attempts that led here."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    original: QueryGraph
    disjuncts: tuple[QueryGraph, ...]
    rule: Rule
    shape: ResultShape
    complexity: Complexity
    subjects: tuple[str, ...]
    added: tuple[QueryEdge, ...] = ()
    attempts: tuple[RuleAttempt, ...] = ()
    union_subjects: tuple[UnionSubject, ...] = ()


class ExtensionFailure(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    stage: TypingLiteral["ground_original", "extend"]
    reason: str
    attempts: tuple[RuleAttempt, ...] = ()


@dataclass(frozen=True, slots=True)
class GroundedExtension:
    """An extended query with its grounding: ``answers`` (union over disjuncts),
    ``facts`` (the supporting subgraph G) and per-disjunct solutions."""

    query: ExtendedQuery
    answers: tuple[Object, ...]
    facts: tuple[Fact, ...]
    solutions: tuple[tuple[Binding, ...], ...]
    truncated: bool


Phrasable = Callable[["ExtendedQuery"], str | None]
"""Why an extended query cannot be asked as a question whose new constraint is needed
(None: it can), e.g. :func:`extension.verbalize.question_check.question_check`."""


def extend_query(store: Store, grounder: Grounder, graph: QueryGraph, shape: str,
                 subjects: tuple[str, ...], rng: random.Random,
                 config: ExtensionConfig = ExtensionConfig(),
                 phrasable: Phrasable | None = None) -> GroundedExtension | ExtensionFailure:
    """Extend ``graph`` (classified ``shape`` with ``subjects``) by a seeded CAQA rule
    and ground the result (see the module docstring). ``phrasable`` vets each
    candidate's question: a refused candidate is skipped like one without answers, and
    a rule whose every candidate it refused records the last refusal."""
    base = grounder.ground(graph)
    if base.outcome != "answered":
        return ExtensionFailure(stage="ground_original",
                                reason=f"{base.outcome}: {base.detail or 'no answers'}")
    original_answers = set(base.answers)
    attempts: list[RuleAttempt] = []
    for rule in rule_order(shape, rng):
        def refusal(disjuncts: tuple[QueryGraph, ...], new_subjects: tuple[str, ...],
                    added: tuple[QueryEdge, ...], union_subjects: tuple[UnionSubject, ...] = (),
                    rule: Rule = rule) -> str | None:
            if phrasable is None:
                return None
            return phrasable(_extended(graph, shape, rule, disjuncts, new_subjects, added,
                                       (), union_subjects))

        outcome = _try_rule(store, grounder, graph, shape, subjects, rule, base,
                            original_answers, rng, config, refusal)
        if isinstance(outcome, str):
            attempts.append(RuleAttempt(rule=rule, outcome=outcome))
            continue
        disjuncts, new_subjects, added, groundings, union_subjects = outcome
        attempts.append(RuleAttempt(rule=rule, outcome="applied"))
        query = _extended(graph, shape, rule, disjuncts, new_subjects, added,
                          tuple(attempts), union_subjects)
        return cap_answers(query, groundings, config.max_answers)
    return ExtensionFailure(stage="extend", reason="no rule of shape "
                            f"{shape!r} applies: " + "; ".join(
                                f"{a.rule}: {a.outcome}" for a in attempts),
                            attempts=tuple(attempts))


def _extended(graph: QueryGraph, shape: str, rule: Rule, disjuncts: tuple[QueryGraph, ...],
              subjects: tuple[str, ...], added: tuple[QueryEdge, ...],
              attempts: tuple[RuleAttempt, ...], union_subjects: tuple[UnionSubject, ...]
              ) -> ExtendedQuery:
    shape_out = result_shape(rule, shape)
    return ExtendedQuery(original=graph, disjuncts=disjuncts, rule=rule, shape=shape_out,
                         complexity=complexity_of(rule, shape_out), subjects=subjects,
                         added=added, attempts=attempts, union_subjects=union_subjects)


_Refusal = Callable[..., str | None]


def cap_answers(query: ExtendedQuery, groundings: list[Grounding], most: int
                ) -> GroundedExtension:
    """The grounded extension, keeping at most ``most`` answers (the first in sorted
    order) and only the solutions and facts of those; ``truncated`` says an answer set
    was cut here or by the store's binding cap."""
    answers, facts = merge_groundings(groundings)
    truncated = any(g.truncated for g in groundings)
    solutions = tuple(g.bindings for g in groundings)
    if len(answers) > most:
        keep = set(sorted(answers, key=lambda a: a if isinstance(a, str) else a.key)[:most])
        solutions = tuple(
            tuple(b for b in sols if b[d.answer.removeprefix("?")] in keep)
            for d, sols in zip(query.disjuncts, solutions, strict=True))
        answers = [a for a in answers if a in keep]
        facts = list(dict.fromkeys(
            f for d, sols in zip(query.disjuncts, solutions, strict=True)
            for b in sols for f in compile_query(d, classes=False, limit=None).instantiate(b)))
        truncated = True
    return GroundedExtension(query, tuple(answers), tuple(facts), solutions, truncated)


def _pins(g: Grounding, extended: QueryGraph, subject: str, most: int) -> bool:
    """Whether the prepended hop still describes the old subject: it is among the at
    most ``most`` bindings of the new intermediate variable. (``English -language->
    ?v1 -directed_by-> ?a`` would ask for every director of an English film.)"""
    first = extended.edges[0]
    var = first.target if first.target.startswith("?") else first.source
    values = {b[var.removeprefix("?")] for b in g.bindings}
    return subject in values and len(values) <= most


def merge_groundings(groundings: list[Grounding]) -> tuple[list[Object], list[Fact]]:
    """Answers and facts of several groundings, each once, in order."""
    answers: dict[object, Object] = {}
    facts: dict[Fact, None] = {}
    for g in groundings:
        for a in g.answers:
            answers.setdefault(a, a)
        facts.update(dict.fromkeys(g.facts))
    return list(answers.values()), list(facts)


_Applied = tuple[tuple[QueryGraph, ...], tuple[str, ...], tuple[QueryEdge, ...], list[Grounding],
                 tuple[UnionSubject, ...]]


def _try_rule(store: Store, grounder: Grounder, graph: QueryGraph, shape: str,
              subjects: tuple[str, ...], rule: Rule, base: Grounding,
              original_answers: set[Object], rng: random.Random,
              config: ExtensionConfig, refusal: _Refusal) -> _Applied | str:
    """The applied rule (disjuncts, subjects, added edges, groundings) or why not."""
    in_query = {n.id for n in graph.nodes}
    # A new entity must be neither in the query nor bound by it: an answer (or an
    # intermediate node) as e1 walks the query's own edge backwards (film -directed_by->
    # director -film-> ?a; born_in -> Detroit -containedby-> ?a ∧ ?a -contains-> Detroit).
    excluded = in_query | {v for b in base.bindings for v in b.values() if isinstance(v, str)}
    predicates = set(graph.predicates())
    limits = config.limits
    if rule == "none":
        return (graph,), subjects, (), [base], ()
    if rule == "union":
        applied = _union(store, grounder, graph, subjects[0], base, config)
        if isinstance(applied, str):
            return applied
        return refusal(applied[0], applied[1], applied[2], applied[4]) or applied
    # With the original solutions complete, a candidate's grounding follows from them
    # and a few seeded reads (see _way1_grounding, _way2_grounding) instead of a store
    # grounding of the whole extended query; the groundings are the same.
    complete = not base.truncated and len(base.bindings) < grounder.max_bindings
    refused: str | None = None
    if rule == "intersection_way1":
        order = list(subjects)
        rng.shuffle(order)   # tree: "pick a subject e_k at random"
        for subject in order:
            hops = cand.hop_candidates(store, subject, exclude_entities=excluded,
                                       exclude_predicates=predicates, limit=limits.facts_per_node)
            for hop in seeded_sample(hops, config.candidates_per_rule, rng):
                assert isinstance(hop, Hop)
                extended = prepend_hop(graph, subject, hop)
                new_subjects = tuple(hop.entity if s == subject else s for s in subjects)
                if (why := refusal((extended,), new_subjects, (extended.edges[0],))):
                    refused = why
                    continue
                # The derivation proves that the new edge pins the subject alone, so it
                # stands in for the pin test when that allows one node only (the default).
                g = _way1_grounding(store, grounder, extended, subject, hop, base,
                                    max_fanout=limits.hop_fanout) \
                    if complete and config.max_intermediate == 1 else grounder.ground(extended)
                if g is None:
                    continue   # the new edge also pins another node: _pins fails
                if g.outcome == "answered" and len(g.answers) <= config.max_answers \
                        and _pins(g, extended, subject, config.max_intermediate):
                    return (extended,), new_subjects, (extended.edges[0],), [g], ()
        return _with_refusal("no prepended hop keeps a bounded, non-empty answer set", refused)
    # intersection_way2
    entity_answers = sorted(a for a in base.answers if isinstance(a, str))
    if not entity_answers:
        return "the answers are literals: no branch can converge on them"
    tried = 0
    for answer in seeded_sample(entity_answers, 3, rng):
        assert isinstance(answer, str)
        hops = cand.hop_candidates(store, answer, exclude_entities=excluded,
                                   exclude_predicates=predicates, limit=limits.facts_per_node)
        for hop in seeded_sample(hops, config.candidates_per_rule, rng):
            assert isinstance(hop, Hop)
            tried += 1
            extended = add_branch(graph, hop)
            if (why := refusal((extended,), (*subjects, hop.entity), (extended.edges[-1],))):
                refused = why
                continue
            g = (_way2_grounding(store, grounder, extended, hop, base) if complete else None) \
                or grounder.ground(extended)
            if g.outcome == "answered" and set(g.answers) <= original_answers:
                return (extended,), (*subjects, hop.entity), (extended.edges[-1],), [g], ()
    return ("no entity links to an answer over a new relation" if not tried
            else _with_refusal("no new branch intersects the answers", refused))


def _union(store: Store, grounder: Grounder, graph: QueryGraph, subject: str, base: Grounding,
           config: ExtensionConfig) -> _Applied | str:
    """The union rule (CAQA §4.2): one disjunct per same-name entity that has the
    subject's relation or one of its family
    (:func:`~extension.core.candidates.same_name_entities`) and an answer over it; branches
    without an answer are left out rather than sinking the rule. Each subject comes
    with what tells it from the others (:class:`UnionSubject`). Outcomes start with a
    code (:data:`UNION_NO_SAME_NAME`, :data:`UNION_NO_SHARED_RELATION`) that the run's
    statistics count."""
    limits = config.limits
    edge = next(e for e in graph.edges if subject in (e.source, e.target))
    found, seen = cand.same_name_entities(
        store, subject, edge.predicate, entity_is_subject=edge.source == subject,
        limit=limits.same_name, facts_per_node=limits.facts_per_node)
    if not seen:
        return f"{UNION_NO_SAME_NAME}: no other entity shares the subject's name"
    if not found:
        return (f"{UNION_NO_SHARED_RELATION}: {seen} other entit{'y' if seen == 1 else 'ies'}"
                f" share the subject's name, none has its relation")
    kept: list[cand.SameName] = []
    groundings = [base]
    for c in found:
        node = graph.node(subject).model_copy(
            update={"id": c.entity.id, "value": c.entity.id, "name": c.entity.name})
        (_, disjunct) = union_disjuncts(graph, subject, [node], [c.predicate])
        g = grounder.ground(disjunct)
        if g.outcome == "answered":
            kept.append(c)
            groundings.append(g)
    if not kept:
        return "a same-name entity's branch has no answer"
    if sum(len(g.answers) for g in groundings) > config.max_answers:
        return f"union has more than {config.max_answers} answers"
    nodes = [graph.node(subject).model_copy(
        update={"id": c.entity.id, "value": c.entity.id, "name": c.entity.name}) for c in kept]
    disjuncts = union_disjuncts(graph, subject, nodes, [c.predicate for c in kept])
    ids = [subject, *(c.entity.id for c in kept)]
    bound = {v for g in groundings for b in g.bindings for v in b.values() if isinstance(v, str)}
    tells = cand.distinguishing_facts(
        store, ids, avoid_predicates={*graph.predicates(), *(c.predicate for c in kept)},
        avoid_entities=bound, limit=limits.facts_per_node)
    e0 = store.entity(subject)
    names = {subject: e0.name if e0 else graph.node(subject).name,
             **{c.entity.id: c.entity.name for c in kept}}
    rows = [("subject", edge.predicate), *(("name", c.predicate) for c in kept)]
    union_subjects = tuple(
        UnionSubject(entity=i, name=names[i], matched=matched,  # type: ignore[arg-type]
                     predicate=predicate, type=own_type,
                     fact_predicate=fact.predicate if fact else None,
                     fact_object=(str(fact.object) if fact.subject == i else fact.subject)
                     if fact else None,
                     fact_outgoing=fact.subject == i if fact else True,
                     fact_object_name=_name_of(store, (str(fact.object) if fact.subject == i
                                                       else fact.subject) if fact else None))
        for i, (matched, predicate), (own_type, fact) in zip(ids, rows, tells, strict=True))
    return disjuncts, tuple(ids), (), groundings, union_subjects


def _with_refusal(reason: str, refused: str | None) -> str:
    return f"{reason} (last refused: {refused})" if refused else reason


def _name_of(store: Store, id: str | None) -> str | None:
    entity = store.entity(id) if id else None
    return entity.name if entity else None


def _way1_grounding(store: Store, grounder: Grounder, extended: QueryGraph, subject: str,
                    hop: Hop, base: Grounding, *,
                    max_fanout: int = cand.MAX_PIN_FANOUT) -> Grounding | None:
    """The grounding of way-1 ``extended`` (``hop`` prepended at ``subject``) when its new
    variable binds ``subject`` only, ``None`` when it also binds another node (the
    pin test with ``max_intermediate`` 1 then fails whatever the answers).

    The new variable ``?v`` takes the nodes ``x`` that ``hop.entity`` reaches over the
    hop's predicate for which the rest of the query has a solution
    (:func:`extension.core.candidates.pinned_elsewhere` checks every ``x`` but the subject
    with seeded joins). When only the subject qualifies, the solutions are the
    original ones (``base``, complete) with ``?v`` bound to the subject, minus those
    answering ``hop.entity`` (the ``!=`` filter :func:`~extension.core.rules.prepend_hop`
    adds), in the same order: sorting by ``?v`` first, then by the original
    variables, keeps the original order.

    This agrees with grounding ``extended`` in the store except in one corner: when
    that grounding would stop at the binding cap, its first rows held only the subject
    and the second node's first kept row lay beyond the cap behind rows the answer
    language filter drops. (Without a language filter the rows before the second
    node's are the subject's, fewer than the original's, which are under the cap.)
    Store grounding is the fallback when a seeded join declines. A hop whose entity
    reaches more than ``max_fanout`` nodes over its predicate is refused like one that
    pins another node (a degenerate pick, :data:`~extension.core.candidates.MAX_PIN_FANOUT`)."""
    first = extended.edges[0]
    var = (first.target if hop.entity_is_subject else first.source).removeprefix("?")
    answer = extended.answer.removeprefix("?")
    query = compile_query(extended, classes=grounder.classes, limit=None)
    # The prepended edge holds for every node pinned_elsewhere tries: they are the
    # entity's neighbours over it.
    rest = PatternQuery(query.patterns[1:], query.constraints)
    elsewhere = cand.pinned_elsewhere(
        store, hop, subject, rest, var,
        lambda b: answer_language_ok(b[answer], extended.answer_languages),
        max_fanout=max_fanout)
    if elsewhere is None:
        return grounder.ground(extended)
    if elsewhere:
        return None
    rows = [{var: subject, **b} for b in base.bindings if b[answer] != hop.entity]
    if len(rows) == len(base.bindings):
        # Every original solution stays: the facts are the new edge's, then the
        # original ones (instantiating rows in order lists the shared edge first).
        edge = query.instantiate(rows[0])[0]
        facts = (edge, *(f for f in base.facts if f != edge))
        return Grounding("answered", tuple(rows), base.answers, facts, False)
    return solutions_grounding(extended, query, rows, truncated=False)


def _way2_grounding(store: Store, grounder: Grounder, extended: QueryGraph, hop: Hop,
                    base: Grounding) -> Grounding | None:
    """The grounding of way-2 ``extended`` (the original query plus the branch
    ``hop``): the original solutions (``base``, complete) whose answer the branch
    entity links to, in the same order (the branch adds no variable). ``None`` when
    the link read declines; the caller grounds in the store then."""
    links = cand.branch_links(store, hop, base.answers)
    if links is None:
        return None
    answer = extended.answer.removeprefix("?")
    query = compile_query(extended, classes=grounder.classes, limit=None)
    return solutions_grounding(extended, query, [b for b in base.bindings if b[answer] in links],
                               truncated=False)
