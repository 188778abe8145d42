"""The walk that drafts one seed question of a shape around a domain entity
(:class:`SeedWalk`, one per :func:`~extension.inputs.seed_sampler.sample_seed_questions`
run): relations drawn favouring specific predicates (:func:`predicate_specificity`),
hops through CVTs contracted as :func:`~extension.core.shapes.classify` contracts them,
every draft grounded and checked before it is kept. See
:mod:`extension.inputs.seed_sampler` for the shapes and the guarantees.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Literal as TypingLiteral

from extension.core.asked_relations import asked_weight
from extension.core.functionality import functionality
from extension.core.grounding import Grounder, Grounding
from extension.core.query_graph import (
    TYPE_PREDICATE,
    QueryGraph,
    Term,
    build_query_graph,
    known_mediator_types,
    predicate_domain,
)
from extension.core.rules import weighted_order
from extension.core.shapes import classify
from extension.core.vocabulary import is_answerable_literal, is_bookkeeping_predicate
from extension.inputs.domain_spec import DomainSpec
from extension.inputs.questions import Answer, ParsedQuestion
from extension.verbalize import english
from extension.verbalize.extended_question import reads_as_mediator
from extension.verbalize.logical_form import logical_form
from extension.verbalize.planner import (
    HUB_MAX_LINKS,
    HUB_SHARE,
    asks_what_it_names,
    fits_several,
    is_hub,
    names_a_class,
    netflix_tag_description,
    noun_before_description,
    restated_profession,
    some_place_where,
    vague_description,
)
from extension.verbalize.quality import placeholder_words
from extension.verbalize.relation_phrases import PhraseTable, folded_key
from extension.verbalize.seed_questions import PERSON_NOUNS, Unphrasable, template_question
from kgstore.models import Entity, Literal, Object
from kgstore.store import Store

SeedShape = TypingLiteral["single", "path", "tree"]
_PER_PREDICATE_SCANS = 10
"""A predicate prefix matching at most this many predicates is sampled one predicate at
a time (each a filtered scan, ~0.25 s on 1M facts); more share one unfiltered scan
(~2.6 s on 1M facts)."""
_TRIES = 4          # relations tried per entity and shape
_INNER_TRIES = 3    # onward relations tried per intermediate (paths)
_ADJACENCY_LIMIT = 100
"""Facts read around an intermediate, CVT or subject node (a hub's are a sample)."""
_DOMAIN_ADJACENCY_LIMIT = 300
"""Facts read around a domain entity: more, because the store returns an entity's
literal facts (dates, numbers) after its entity facts."""
_GROUNDING_BINDINGS = 20
"""Bindings fetched per grounding, as a multiple of ``max_answers``: more means a hub."""
_NOUN_BINDINGS = 20   # bindings read for the noun of a path's middle entity
_TREE_SIDE_CAP = 4
"""A tree side (the entities one branch allows) is read up to this many times
``max_answers``; a tree both of whose sides are larger is not tried (the join would
walk a hub)."""
_MIN_WEIGHT = 1e-3  # a predicate carried by every fact can still be drawn


def predicate_specificity(store: Store) -> dict[str, float]:
    """IDF-like specificity of every informative predicate of ``store``:
    ``log(N / count(p))`` with ``N`` the store's facts, so rare predicates score high and
    one carried by every fact scores 0 (BioKaLMA's knowledge specificity, Li et al.
    2023 §3: prefer what few entities share). Bookkeeping predicates
    (:func:`is_bookkeeping_predicate`) and predicates without facts are left out.
    Reads only the predicate table."""
    predicates = store.predicates()
    total = sum(p.count for p in predicates if p.count > 0)
    return {p.id: math.log(total / p.count) for p in predicates
            if p.count > 0 and not is_bookkeeping_predicate(p.id)}


@dataclass(frozen=True, slots=True)
class _Hop:
    """One relation of ``start``: the fact ``start -predicate-> end`` (``forward``) or
    ``end -predicate-> start``, or through the CVT ``via``: ``start -predicate-> via
    -exit-> end``. ``loops_back``: the CVT also has ``via -exit-> start`` (a marriage
    names both spouses), so the query needs ``end != start``."""

    start: str
    end: Object
    predicate: str
    forward: bool
    via: str | None = None
    exit: str | None = None
    loops_back: bool = False


def same_kind_of_fact(h0: _Hop, h1: _Hop) -> bool:
    """Both hops of a path go through n-ary facts of one type (their exits share the
    CVT type: ``film.performance.character`` then ``film.performance.actor``). Such a
    path walks into a film's performance and back out of one ("the character of the
    performance the film features was portrayed with what actor?"): a blind reader
    found its partial citation still told every answer, since one performance already
    names the character and the actor."""
    if h0.via is None or h1.via is None or not h0.exit or not h1.exit:
        return False
    return h0.exit.rpartition(".")[0] == h1.exit.rpartition(".")[0]


def _hop_key(h: _Hop) -> tuple[str, str, bool, str, str]:
    end = h.end.key if isinstance(h.end, Literal) else h.end
    return (h.predicate, end, h.forward, h.via or "", h.exit or "")


@dataclass(frozen=True, slots=True)
class _Choice:
    """A relation of ``start`` to draw: direct (``hops``, all with this predicate and
    direction) or the way into CVTs (``cvts``: those ``start -predicate->`` reaches)."""

    start: str
    predicate: str
    forward: bool
    hops: tuple[_Hop, ...] = ()
    cvts: tuple[str, ...] = ()

    def reaches_entities(self) -> bool:
        return bool(self.cvts) or any(isinstance(h.end, str) for h in self.hops)


@dataclass(frozen=True, slots=True)
class _Draft:
    """A candidate query before grounding: triple patterns, subject entities, ``!=``
    filters and the CVT variables with the CVT node each was drawn at."""

    triples: tuple[tuple[Term, str, Term], ...]
    subjects: tuple[str, ...]
    not_equal: tuple[tuple[Term, Term], ...] = ()
    cvts: tuple[tuple[str, str], ...] = ()


def _draft(steps: Sequence[tuple[_Hop, str, str]], subjects: tuple[str, ...]) -> _Draft:
    """The patterns of ``steps`` ``(hop, start term, end term)``: each hop with its start
    and end replaced by the terms (variables or the entity itself), a CVT hop through a
    fresh ``?c<i>`` variable."""
    triples: list[tuple[Term, str, Term]] = []
    not_equal: list[tuple[Term, Term]] = []
    cvts: list[tuple[str, str]] = []
    for i, (hop, start, end) in enumerate(steps):
        if hop.via is None:
            triples.append((start, hop.predicate, end) if hop.forward else (end, hop.predicate, start))
            continue
        var = f"?c{i}"
        assert hop.exit is not None
        triples += [(start, hop.predicate, var), (var, hop.exit, end)]
        cvts.append((var, hop.via))
        if hop.loops_back:
            not_equal.append((end, start) if end.startswith("?") else (start, end))
    return _Draft(tuple(triples), subjects, tuple(not_equal), tuple(cvts))


@dataclass(frozen=True, slots=True)
class _Outcome:
    question: ParsedQuestion | None = None
    reason: str = "no_relations"


class SeedWalk:
    """One :func:`sample_seed_questions` run: store caches (entities, relations per
    node), specificity weights, relation phrases, the grounder and the queries tried."""

    def __init__(self, store: Store, spec: DomainSpec, *, seed: int, dataset: str,
                 max_answers: int, phrases: Mapping[str, str] | None) -> None:
        self.store = store
        self.spec = spec
        self.seed = seed
        self.dataset = dataset
        self.max_answers = max_answers
        predicates = store.predicates()
        self.labels = {p.id: p.label for p in predicates}
        self.counts = {p.id: p.count for p in predicates}
        self.total_facts = sum(p.count for p in predicates)
        self.specificity = predicate_specificity(store)
        self.base_cvt_types = store.cvt_types() | known_mediator_types()
        self.grounder = Grounder(store, max_bindings=max_answers * _GROUNDING_BINDINGS)
        self.entities: dict[str, Entity] = {}
        self.relations: dict[tuple[str, int], list[_Choice]] = {}
        self.tried: dict[tuple[object, ...], str | None] = {}
        self._type_counts: dict[str, int] | None = None
        self.phrases = PhraseTable(
            labels={p: label for p, label in self.labels.items() if label},
            overrides=phrases)

    # -- the domain -----------------------------------------------------------------------
    def pool(self, k: int) -> tuple[list[str], bool]:
        """Up to ``k`` domain entity ids in seeded order, and whether that is the whole
        domain. A type: one :meth:`Store.sample_entities`. A predicate prefix: the
        subjects of :meth:`Store.sample_facts` of its predicates, in the order of a
        seeded hash of their ids."""
        if self.spec.kind == "type":
            found = self.store.sample_entities(k, seed=self.seed, type_id=self.spec.value)
            for e in found:
                self.entities.setdefault(e.id, e)
            return [e.id for e in found], len(found) < k
        matching = [p for p in self.store.predicates()
                    if p.count > 0 and self.spec.matches_predicate(p.id)
                    and not is_bookkeeping_predicate(p.id)]
        subjects: dict[str, None] = {}
        if len(matching) <= _PER_PREDICATE_SCANS:
            exhausted = True
            for p in matching:
                facts = self.store.sample_facts(k, seed=self.seed, predicate=p.id)
                exhausted = exhausted and len(facts) < k
                subjects.update(dict.fromkeys(f.subject for f in facts))
        else:
            share = sum(p.count for p in matching) / max(self.total_facts, 1)
            want = min(self.total_facts, math.ceil(k / share))
            facts = self.store.sample_facts(want, seed=self.seed)
            exhausted = len(facts) < want
            subjects.update(dict.fromkeys(f.subject for f in facts
                                          if self.spec.matches_predicate(f.predicate)))
        ordered = sorted(subjects, key=lambda s: random.Random(f"{self.seed}:{s}").random())
        return ordered[:k], exhausted and len(ordered) <= k

    def entity(self, id: str) -> Entity | None:
        if id not in self.entities:
            found = self.store.entity(id)
            if found is None:
                return None
            self.entities[id] = found
        return self.entities[id]

    def is_seed(self, id: str) -> bool:
        """Whether a question can start at ``id``: a named entity, not a CVT."""
        e = self.entity(id)
        return e is not None and bool(e.name) and not e.is_cvt

    def name(self, id: str) -> str | None:
        e = self.entity(id)
        return e.name if e is not None and not e.is_cvt else None

    # -- relations -------------------------------------------------------------------------
    def choices(self, node: str, *, limit: int = _ADJACENCY_LIMIT) -> list[_Choice]:
        """The relations of ``node`` that can make a question, grouped by predicate and
        direction, sorted (draws must not depend on the store's row order). A relation
        to an entity without a name is left out whole (its question would have an
        unnamed answer). One :meth:`Store.adjacency` of ``limit`` facts per node and
        limit, cached (so what a node offers never depends on when it was first met)."""
        cached = self.relations.get((node, limit))
        if cached is not None:
            return cached
        adjacency = self.store.adjacency(node, limit=limit)
        for e in adjacency.entities.values():
            self.entities.setdefault(e.id, e)
        direct: dict[tuple[str, bool], set[_Hop]] = {}
        unnamed: set[tuple[str, bool]] = set()
        cvts: dict[str, set[str]] = {}
        for f in adjacency.facts:
            if f.predicate not in self.specificity \
                    or self.phrases.kind(f.predicate) == "bookkeeping":
                continue   # a gender, a currency: nobody asks about it (planner)
            outgoing = f.subject == node
            other_id = f.object if outgoing else f.subject
            if isinstance(other_id, Literal):
                if is_answerable_literal(other_id):
                    direct.setdefault((f.predicate, True), set()).add(
                        _Hop(node, other_id, f.predicate, True))
                continue
            other = adjacency.entities.get(other_id)
            if other is None or other_id == node:
                continue
            if other.is_cvt:
                # Into a CVT only along its own edges (Freebase and Wikidata statements
                # both point from the entity to the CVT).
                if outgoing:
                    cvts.setdefault(f.predicate, set()).add(other_id)
                continue
            if not other.name:
                unnamed.add((f.predicate, outgoing))
            direct.setdefault((f.predicate, outgoing), set()).add(
                _Hop(node, other_id, f.predicate, outgoing))
        found = [_Choice(node, p, fwd, hops=tuple(sorted(hops, key=_hop_key)))
                 for (p, fwd), hops in direct.items() if (p, fwd) not in unnamed]
        found += [_Choice(node, p, True, cvts=tuple(sorted(ids))) for p, ids in cvts.items()]
        found.sort(key=lambda c: (c.predicate, c.forward, bool(c.cvts)))
        self.relations[node, limit] = found
        return found

    def cvt_hops(self, start: str, predicate: str, cvt: str) -> list[_Hop]:
        """The hops ``start -predicate-> cvt -exit-> end`` through one CVT, ``end`` any
        other entity or answerable literal the CVT points to."""
        roles = [h for c in self.choices(cvt) if c.forward and not c.cvts for h in c.hops]
        back = {h.predicate for h in roles if h.end == start}
        return [_Hop(start, h.end, predicate, True, via=cvt, exit=h.predicate,
                     loops_back=h.predicate in back)
                for h in roles if h.end != start and self.phrases.kind(
                    predicate if predicate == h.predicate else folded_key(predicate, h.predicate)
                ) != "bookkeeping"]

    def weight(self, predicate: str) -> float:
        """The drawing weight of ``predicate``: its specificity (rare over frequent)
        times the prior of what people ask (:func:`asked_weight`, WebQSP's and
        GrailQA's logical forms)."""
        return max(self.specificity.get(predicate, 0.0), _MIN_WEIGHT) * asked_weight(predicate)

    def by_specificity(self, predicates: Sequence[str], rng: random.Random) -> list[str]:
        """``predicates`` in a random order where specific ones tend to come first."""
        return weighted_order(predicates, [self.weight(p) for p in predicates], rng)

    def ordered(self, choices: Sequence[_Choice], rng: random.Random, *,
                cvt_first: bool = False) -> list[_Choice]:
        """``choices`` in a weighted random order by the specificity of their predicate;
        with ``cvt_first`` the ways into CVTs come first (still in that order)."""
        out = weighted_order(choices, [self.weight(c.predicate) for c in choices], rng)
        if cvt_first:
            out.sort(key=lambda c: not c.cvts)
        return out

    def fits_several(self, choice: _Choice) -> bool:
        """Whether a reader expects several entities at the end of ``choice`` from its
        start (:func:`~extension.verbalize.planner.fits_several`): a path question whose
        grounding reaches one of them ("the actor of Beowulf" for the one actor with a
        country in the store) would describe nobody in particular (blind round 31 rated
        "one of the films that feature X" 3 in 16 ratings)."""
        ends = functionality(self.store, choice.predicate)
        return fits_several(ends.forward if choice.forward else ends.inverse,
                            self.counts.get(choice.predicate, 0))

    def draw_hop(self, choice: _Choice, rng: random.Random, *, entity_end: bool) -> _Hop | None:
        """One concrete hop of ``choice``; through CVTs: one of its CVTs, then one of
        the CVT's roles by specificity. ``entity_end`` keeps hops that end at an entity
        (not a literal)."""
        if not choice.cvts:
            hops = [h for h in choice.hops if not entity_end or isinstance(h.end, str)]
            return rng.choice(hops) if hops else None
        cvt = rng.choice(choice.cvts)
        hops = [h for h in self.cvt_hops(choice.start, choice.predicate, cvt)
                if not entity_end or isinstance(h.end, str)]
        if not hops:
            return None
        role = self.by_specificity(sorted({str(h.exit) for h in hops}), rng)[0]
        return rng.choice([h for h in hops if h.exit == role])

    # -- the three shapes -------------------------------------------------------------------
    def attempt(self, shape: SeedShape, entity: str, qid: str) -> _Outcome:
        """Try to make a ``shape`` question starting from domain entity ``entity`` (named,
        not a CVT: :meth:`is_seed`)."""
        rng = random.Random(f"{self.seed}:{shape}:{entity}")
        if shape == "single":
            return self.single(entity, rng, qid)
        if shape == "path":
            return self.path(entity, rng, qid)
        return self.tree(entity, rng, qid)

    def single(self, d: str, rng: random.Random, qid: str) -> _Outcome:
        """``d —h→ ?a`` for a relation of ``d`` (in the domain's predicates)."""
        choices = [c for c in self.choices(d, limit=_DOMAIN_ADJACENCY_LIMIT)
                   if self.spec.matches_predicate(c.predicate)]
        reason = "no_relations"
        for choice in self.ordered(choices, rng)[:_TRIES]:
            if len(choice.hops) > self.max_answers:   # a hub: every end is an answer
                reason = "too_many_answers"
                continue
            hop = self.draw_hop(choice, rng, entity_end=False)
            if hop is None:
                continue
            outcome = self.finish("single", _draft([(hop, d, "?a")], (d,)), qid)
            if outcome.question is not None:
                return outcome
            reason = outcome.reason
        return _Outcome(reason=reason)

    def path(self, d: str, rng: random.Random, qid: str) -> _Outcome:
        """``d —h0→ ?v —h1→ ?a``: a relation of ``d`` to an entity ``v``, then one of
        ``v``'s; one of the two hops goes through a CVT whenever one can."""
        firsts = [c for c in self.choices(d, limit=_DOMAIN_ADJACENCY_LIMIT)
                  if self.spec.matches_predicate(c.predicate) and c.reaches_entities()]
        reason = "no_relations"
        for first in self.ordered(firsts, rng, cvt_first=True)[:_TRIES]:
            if first.forward and vague_description(self.phrases, first.predicate):
                reason = "vague_description"   # "the language of Collateral"
                continue
            if len(first.hops) + len(first.cvts) > self.max_answers \
                    or names_a_class(first.predicate, first.forward):
                reason = "broad_description"   # "the horror works": a class, not a few
                continue
            h0 = self.draw_hop(first, rng, entity_end=True)
            if h0 is None:
                continue
            if h0.via is not None and h0.exit and \
                    vague_description(self.phrases, f"{first.predicate}..{h0.exit}"):
                reason = "vague_description"   # "the regions where Hugo was released"
                continue
            v = str(h0.end)
            onward = [c for c in self.choices(v) if c.cvts or any(h.end != d for h in c.hops)]
            reason = "no_onward_hop"
            for second in self.ordered(onward, rng, cvt_first=h0.via is None)[:_INNER_TRIES]:
                if len(second.hops) > self.max_answers:   # the hub's count is a lower bound
                    reason = "too_many_answers"
                    continue
                h1 = self.draw_hop(second, rng, entity_end=False)
                if h1 is None:
                    continue
                if same_kind_of_fact(h0, h1):
                    reason = "same_fact_twice"
                    continue
                outcome = self.finish("path", _draft([(h0, d, "?v"), (h1, "?v", "?a")], (d,)),
                                      qid, described=first)
                if outcome.question is not None:
                    return outcome
                reason = outcome.reason
        return _Outcome(reason=reason)

    def tree(self, d: str, rng: random.Random, qid: str) -> _Outcome:
        """``x1 —h1→ ?a ←h2— x2`` from two relations of ``d`` to distinct named
        entities (at least one in the domain's predicates); ``d`` answers it."""
        choices = self.ordered([c for c in self.choices(d, limit=_DOMAIN_ADJACENCY_LIMIT)
                                if c.reaches_entities()], rng)
        pairs = ((a, b) for i, a in enumerate(choices) for b in choices[i + 1:]
                 if self.spec.matches_predicate(a.predicate)
                 or self.spec.matches_predicate(b.predicate))
        reason = "no_second_subject"
        for a, b in islice(pairs, _TRIES):
            h1 = self.draw_hop(a, rng, entity_end=True)
            h2 = self.draw_hop(b, rng, entity_end=True)
            if h1 is None or h2 is None:
                continue
            x1, x2 = str(h1.end), str(h2.end)
            if x1 == x2 or not self.name(x1) or not self.name(x2):
                continue
            sides = sorted([(self.tree_side(h1), h1), (self.tree_side(h2), h2)],
                           key=lambda side: len(side[0][0]))
            (small, small_complete), _ = sides[0]
            (large, large_complete), _ = sides[1]
            if not small_complete:
                reason = "too_many_answers"   # two hubs: a costly join, a broad question
                continue
            if any(self.hub_side(side, complete, hop) for (side, complete), hop in sides):
                reason = "hub_constant"   # "born in London and a citizen of the UK"
                continue
            if (large_complete and sides[0][1].via is None and sides[1][1].via is None
                    and len(small & large) > self.max_answers):
                reason = "too_many_answers"
                continue
            # The smaller side first: grounding joins from the first pattern it can.
            steps = [(h, "?a", str(h.end)) for _, h in sides]
            outcome = self.finish("tree", _draft(steps, (x1, x2)), qid)
            if outcome.question is not None:
                return outcome
            reason = outcome.reason
        return _Outcome(reason=reason)

    def hub_side(self, side: set[str], complete: bool, hop: _Hop) -> bool:
        """Whether the tree constant of ``hop`` is a hub of its relation
        (:func:`extension.verbalize.planner.is_hub`). A side read only in part (past
        :data:`_TREE_SIDE_CAP`) is counted on: up to the hub share of the relation's
        facts (Actor's 245 of 2,437 profession facts read as 201 first)."""
        predicate = str(hop.exit) if hop.via is not None else hop.predicate
        total = self.counts.get(predicate, 0)
        linked = len(side)
        if not complete:
            limit = min(int(HUB_SHARE * total) + 1, HUB_MAX_LINKS + 1)
            end = str(hop.end)
            linked = len(self.store.facts_out(end, predicate=predicate, limit=limit)
                         if hop.via is None and not hop.forward else
                         self.store.facts_in(end, predicate=predicate, limit=limit))
        return is_hub(linked, total)

    def tree_side(self, hop: _Hop) -> tuple[set[str], bool]:
        """The entities ``a`` standing where ``hop.start`` stands for the other end
        (CVTs for a hop through one), read up to :data:`_TREE_SIDE_CAP` times
        ``max_answers``, and whether that is all of them."""
        cap = self.max_answers * _TREE_SIDE_CAP
        end = str(hop.end)
        if hop.via is not None:
            facts = self.store.facts_in(end, predicate=str(hop.exit), limit=cap + 1)
            ends = {f.subject for f in facts}
        elif hop.forward:
            facts = self.store.facts_in(end, predicate=hop.predicate, limit=cap + 1)
            ends = {f.subject for f in facts}
        else:
            facts = self.store.facts_out(end, predicate=hop.predicate, limit=cap + 1)
            ends = {f.object_key for f in facts}
        return ends, len(facts) <= cap

    # -- checks and the record ---------------------------------------------------------------
    def graph(self, draft: _Draft) -> QueryGraph:
        """The query graph of ``draft`` with its CVT variables flagged: by the role
        predicate's mediator type (Freebase), else by a class constraint with the CVT
        node's type (Wikidata ``wikibase.statement``), else directly."""
        triples = list(draft.triples)
        cvt_types = set(self.base_cvt_types)
        for var, node in draft.cvts:
            roles = [p for s, p, _ in draft.triples if s == var]
            if any(predicate_domain(p) in cvt_types for p in roles):
                continue
            record = self.entity(node)
            types = record.types if record is not None else ()
            if types:
                chosen = next((t for t in types if t in cvt_types), types[0])
                triples.append((var, TYPE_PREDICATE, chosen))
                cvt_types.add(chosen)
        # English answers only, as WebQSP's queries ask (``langMatches(lang(?x), 'en')``):
        # Wikidata keeps a demonym in every language ("Belize is home to people called
        # белизы, بليزيون, … and Belizean": blind round 25 rated it 2)
        graph = build_query_graph(triples, answer="?a", cvt_types=frozenset(cvt_types),
                                  not_equal=list(draft.not_equal), answer_languages=("en",))
        wanted = {var for var, _ in draft.cvts}
        if all(n.is_cvt for n in graph.nodes if n.id in wanted):
            return graph
        return graph.model_copy(update={"nodes": tuple(
            n.model_copy(update={"is_cvt": True}) if n.id in wanted else n
            for n in graph.nodes)})

    def finish(self, shape: SeedShape, draft: _Draft, qid: str,
               described: _Choice | None = None) -> _Outcome:
        """Ground and check ``draft``; the question record when it passes. ``described``:
        the relation that describes the path's ``?v``, refused when its grounding binds
        one ``?v`` and a reader expects several (:meth:`fits_several`)."""
        graph = self.graph(draft)
        signature = (shape, tuple(sorted((e.source, e.predicate, e.target) for e in graph.edges)),
                     graph.not_equal)
        if signature in self.tried:
            return _Outcome(reason=self.tried[signature] or "duplicate")
        classification = classify(graph, draft.subjects)
        reason = None
        grounding: Grounding | None = None
        if classification.shape != shape:
            reason = "shape_mismatch"
        else:
            grounding = self.grounder.ground(graph)
            reason = self._answer_problem(grounding, classification.subjects)
            if reason is None and described is not None and self.fits_several(described) \
                    and len({str(b.get("v")) for b in grounding.bindings}) == 1:   # no "?"
                reason = "description_fits_several"
        answers: tuple[Answer, ...] = ()
        if reason is None and grounding is not None:
            answers = self.answers(grounding.answers)
            if any(a.kind == "entity" and not a.name for a in answers):
                reason = "unnamed_answer"
        self.tried[signature] = reason
        if reason is not None or grounding is None:
            return _Outcome(reason=reason or "no_answers")
        names = {s: name for s in classification.subjects if (name := self.name(s))}
        cvts = [n.id for n in graph.nodes if n.is_cvt]
        nouns = self.intermediate_nouns(graph.answer, cvts, grounding)
        if noun := self.answer_noun(answers):
            nouns[graph.answer] = noun
        try:
            if asks_what_it_names(logical_form(graph.model_dump(mode="json")), self.phrases):
                raise Unphrasable("the question's words tell its answer")
            text = template_question(shape, graph.edges, names, self.phrases,
                                     answer=graph.answer, cvt_nodes=cvts, nouns=nouns or None)
            if placeholder_words(text, names.values()):
                # "the one that", "Which entity": no type of the store names a variable
                raise Unphrasable(f"no noun for a variable of {text!r}")
            if tagged := netflix_tag_description(text) or noun_before_description(text) \
                    or restated_profession(text) or some_place_where(text):
                raise Unphrasable(tagged)
        except Unphrasable:
            self.tried[signature] = "unreadable_text"
            return _Outcome(reason="unreadable_text")
        return _Outcome(ParsedQuestion(
            id=qid, dataset=self.dataset, question=text, shape=classification.shape,
            query=graph, topic_entities=classification.subjects,
            qualifiers=classification.qualifiers, hops=classification.hops,
            answers=answers))

    def answer_noun(self, answers: Sequence[Answer]) -> str | None:
        """The noun a question asks its answers by: "person" when every answer is one,
        else the most specific readable type they all share (fewest entities in the
        store); None for values and untyped stores (the template then names it from
        its relations)."""
        ids = [str(a.value) for a in answers if a.kind == "entity"]
        if not ids or len(ids) < len(answers):
            return None
        return self.entities_noun(ids)

    def intermediate_nouns(self, answer: str, cvts: Sequence[str],
                           grounding: Grounding) -> dict[str, str]:
        """Variable -> type noun for the variables between the subjects and the answer
        (a path's middle entity): the most specific readable type all its bound
        entities share (:meth:`entities_noun`), so the template says "the country
        that shares a border with Belgium", not "the one that …" (a Wikidata relation
        such as P47 has no noun of its own)."""
        values: dict[str, list[str]] = {}
        for binding in grounding.bindings[:_NOUN_BINDINGS]:
            for name, value in binding.items():
                var = name if name.startswith("?") else f"?{name}"   # bindings drop the '?'
                if var != answer and var not in cvts and isinstance(value, str):
                    values.setdefault(var, []).append(value)
        return {var: noun for var, ids in sorted(values.items())
                if (noun := self.entities_noun(sorted(set(ids)), read=True))}

    def entities_noun(self, ids: Sequence[str], *, read: bool = False) -> str | None:
        """The noun of entities ``ids``: "person" when one of their shared types is a
        person noun, else their most specific shared readable type; None without one.
        Entities not met yet count as untyped unless ``read`` (then they are read)."""
        known = [e for i in ids
                 if (e := self.entity(i) if read else self.entities.get(i)) is not None]
        if not known or len(known) < len(ids):
            return None
        shared = set.intersection(*(set(e.types) for e in known))
        nouns = {t: n for t in shared if (n := self.type_noun(t))}
        if not nouns:
            return None
        if any(n in PERSON_NOUNS for n in nouns.values()):
            return "person"
        counts = self.type_counts()
        return nouns[min(nouns, key=lambda t: (counts.get(t, 0), t))]

    def type_noun(self, type_id: str) -> str | None:
        """A type's readable noun: a Freebase ``film.director`` -> "director", a
        Wikidata class by its name; None for mediator, catch-all and nameless types."""
        if type_id in self.base_cvt_types:
            return None
        if "." in type_id and not type_id.startswith(("Q", "<")):
            domain, _, local = type_id.partition(".")
            if domain in ("common", "type", "base", "user", "freebase") or "." in local:
                return None
            noun = local.replace("_", " ").strip()
        else:
            noun = (self.name(type_id) or "").strip().lower()
        if not noun or reads_as_mediator(noun) or not noun.replace(" ", "").isalpha():
            return None
        return english.type_word(noun)

    def type_counts(self) -> dict[str, int]:
        """Entities per type (read once): how specific a type is."""
        if self._type_counts is None:
            self._type_counts = self.store.type_counts()
        return self._type_counts

    def _answer_problem(self, grounding: Grounding, subjects: tuple[str, ...]) -> str | None:
        if grounding.outcome != "answered":
            return "no_answers"
        if grounding.truncated or len(grounding.answers) > self.max_answers:
            return "too_many_answers"
        if any(a in subjects for a in grounding.answers if isinstance(a, str)):
            return "answer_is_topic"
        return None

    def answers(self, values: Sequence[Object]) -> tuple[Answer, ...]:
        """Gold answers with names (entity records read once for those not seen yet)."""
        missing = [v for v in values if isinstance(v, str) and v not in self.entities]
        if missing:
            self.entities.update(self.store.entities(missing))
        out = []
        for v in values:
            if isinstance(v, Literal):
                out.append(Answer(kind="value", value=v.value, datatype=v.datatype))
            else:
                out.append(Answer(kind="entity", value=v, name=self.name(v)))
        return tuple(out)
