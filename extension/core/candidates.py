"""Store look-ups that feed the extension rules and edits with candidates.

This is the only module of the extension engine that talks to the store, and it does
so through the :class:`~kgstore.Store` interface only (each backend runs its own
parameterized Cypher; the seeded joins below are :meth:`~kgstore.store.Store.try_match`,
which a backend may decline where a hub would make them costly). Every function returns
candidates in a deterministic order; the caller draws from them with its seeded RNG.

Degenerate picks are filtered here: candidates are named, non-CVT entities other than
the ones already in the query, reached over predicates not already in the query that
relate rather than name or type entities (:func:`~extension.core.vocabulary.is_bookkeeping_predicate`:
on a Wikidata store a way-2 branch "instance of human" would otherwise qualify).

Neighbourhoods are read with as little of each neighbour's record as the caller looks
at (:data:`~kgstore.models.EntityDetail`): names and CVT flags (``"brief"``) for hop
candidates and the irrelevant walk, types as well (``"lean"``) where a replacement
must share the answer's type.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from extension.core.functionality import predicate_sample
from extension.core.rules import Hop
from extension.core.vocabulary import is_answerable_literal, is_bookkeeping_predicate
from kgstore.models import Adjacency, Entity, Fact, Literal, Object, normalize_name
from kgstore.patterns import Binding, PatternQuery, TriplePattern, Var
from kgstore.store import Store

FIRST_WINDOW = 16
"""Neighbours of a new way-1 entity read first when looking for a second pinned node:
few, since one of the first usually settles it."""
WINDOW_GROWTH = 16
"""How much further each later window reads."""
MAX_PIN_FANOUT = FIRST_WINDOW * WINDOW_GROWTH
"""Most nodes a way-1 entity may reach over the prepended predicate. A wider hop only
says the subject is one of hundreds (the country of 10,000 people, the genre of 5,000
films): a degenerate pick. On the 5M-fact benchmark KG 40 of the 42 such candidates
also pinned another node, and reading the hubs to prove it took a third of the
extension time."""

GENERIC_TYPES = frozenset({"common.topic", "base.type_ontology.abstract",
                           "base.type_ontology.non_agent", "base.type_ontology.agent",
                           "base.type_ontology.inanimate", "base.type_ontology.physically_instantiable"})
"""Types every other entity has; a replacement "of the same type" must share a more
specific one."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on store reads: facts fetched around one node, the smaller window the
    irrelevant edit's walk reads first (:func:`similar_subgraph`), same-name entities
    looked at, replacement entities sampled, nodes a way-1 entity may reach over its
    predicate (:data:`MAX_PIN_FANOUT`)."""

    facts_per_node: int = 200
    walk_window: int = 48
    same_name: int = 50
    replacements: int = 20
    hop_fanout: int = MAX_PIN_FANOUT


@dataclass(frozen=True, slots=True)
class SameName:
    """A union rule candidate: an entity that shares the subject's name, and its
    ``predicate`` on the subject's side: the query's own, or one of its family
    (:func:`relation_family`)."""

    entity: Entity
    predicate: str


def relation_family(predicate: str) -> str:
    """The part of a predicate id that names the relation whatever the subject's
    domain: Freebase's last segment (``film.film.directed_by`` and
    ``tv.tv_episode.directed_by`` are both ``directed_by``); other ids are their own
    family (Wikidata's P57 is "director" for films and episodes alike)."""
    return predicate.rsplit(".", 1)[-1] if "." in predicate else predicate


def same_name_entities(store: Store, entity_id: str, predicate: str, *, entity_is_subject: bool,
                       limit: int = 50, facts_per_node: int = 200) -> tuple[list[SameName], int]:
    """The union rule's ``e1 … em`` (CAQA §4.2) and how many same-name entities there
    were before the relation test (0: the KG has no other entity of that name).

    Same name: another named, non-CVT entity whose normalised name equals the
    subject's. An entity that only has the name as an alias (Lutetia, "Paris") is not
    one: a reader of "Paris" does not think of it. Same relation: ``predicate`` on the
    same side, else a predicate of the same family (:func:`relation_family`), as a
    film's and a TV episode's ``directed_by``: real KGs split one relation by the
    subject's type, and same-name entities are mostly of different types. Sorted by
    id; the exact predicate is preferred."""
    entity = store.entity(entity_id)
    if entity is None or not entity.name:
        return [], 0
    key = normalize_name(entity.name)
    family = relation_family(predicate)
    found: list[SameName] = []
    seen = 0
    for other in store.find_by_name(entity.name, limit=limit):
        if other.id == entity_id or other.is_cvt or not other.name \
                or normalize_name(other.name) != key:
            continue   # find_by_name also matches aliases
        seen += 1
        read = store.facts_out if entity_is_subject else store.facts_in
        if read(other.id, predicate=predicate, limit=1):
            found.append(SameName(other, predicate))
            continue
        kin = sorted({f.predicate for f in read(other.id, limit=facts_per_node)
                      if relation_family(f.predicate) == family})
        if kin:
            found.append(SameName(other, kin[0]))
    return sorted(found, key=lambda c: c.entity.id), seen


def distinguishing_facts(store: Store, entity_ids: Sequence[str], *,
                         avoid_predicates: Collection[str], avoid_entities: Collection[str],
                         limit: int = 200) -> list[tuple[str | None, Fact | None]]:
    """For each of several same-name entities, what tells it from the others in text:
    a specific type none of the others has, and a fact with a named entity at its
    other end that none of the others has over the same predicate. The fact is never
    over ``avoid_predicates`` nor to one of ``avoid_entities`` (the question's
    relations and the nodes its groundings bind: "the John Williams born in Melbourne"
    would give the answer away, over the inverse relation). ``(None, None)`` for an
    entity with neither."""
    records = store.entities(list(entity_ids))
    types = {i: set(specific_types(records[i])) if i in records else set() for i in entity_ids}
    links: dict[str, list[Fact]] = {}
    for i in entity_ids:
        adj = store.adjacency(i, limit=limit, detail="brief")
        usable = []
        for f in adj.facts:
            if f.is_literal or f.predicate in avoid_predicates \
                    or is_bookkeeping_predicate(f.predicate):
                continue
            other = adj.entities.get(f.subject if f.subject != i else str(f.object))
            if other is None or other.is_cvt or not other.name or other.id in entity_ids \
                    or other.id in avoid_entities:
                continue
            usable.append(f)
        links[i] = sorted(usable, key=lambda f: (f.predicate, f.subject, f.object_key))
    out: list[tuple[str | None, Fact | None]] = []
    for i in entity_ids:
        others = [j for j in entity_ids if j != i]
        own_type = next((t for t in (records[i].types if i in records else ())
                         if t in types[i] and not any(t in types[j] for j in others)), None)

        def end(f: Fact, node: str) -> tuple[str, bool, str]:
            out_edge = f.subject == node
            return (f.predicate, out_edge, str(f.object) if out_edge else f.subject)

        taken = {end(f, j) for j in others for f in links[j]}
        fact = next((f for f in links[i] if end(f, i) not in taken), None)
        out.append((own_type, fact))
    return out


def hop_candidates(store: Store, node_id: str, *, exclude_entities: Collection[str],
                   exclude_predicates: Collection[str], limit: int = 200) -> list[Hop]:
    """Edges between ``node_id`` and a named, non-CVT entity outside
    ``exclude_entities`` over a predicate outside ``exclude_predicates`` that is not
    bookkeeping, in either direction (way 1 prepends them at a subject, way 2 adds them
    at the answer)."""
    adjacency = store.adjacency(node_id, limit=limit, detail="brief")
    hops: dict[tuple[str, str, bool], Hop] = {}
    for f in adjacency.facts:
        if f.is_literal or f.predicate in exclude_predicates \
                or is_bookkeeping_predicate(f.predicate):
            continue
        entity_is_subject = f.subject != node_id
        other = f.subject if entity_is_subject else str(f.object)
        if other == node_id or other in exclude_entities:
            continue
        e = adjacency.entities.get(other)
        if e is None or e.is_cvt or not e.name:
            continue
        key = (other, f.predicate, entity_is_subject)
        hops.setdefault(key, Hop(entity=other, predicate=f.predicate,
                                 entity_is_subject=entity_is_subject, name=e.name))
    return [hops[k] for k in sorted(hops)]


def branch_links(store: Store, hop: Hop, values: Sequence[Object]) -> set[Object] | None:
    """The ``values`` that ``hop.entity`` is linked to over ``hop.predicate``: ``v`` with
    a fact ``(entity, predicate, v)`` when ``hop.entity_is_subject``, else ``(v,
    predicate, entity)``. A way-2 branch ``(e1, rn, ?a)`` keeps exactly the answers it
    links to, so this replaces grounding the extended query. One seeded join
    (:meth:`~kgstore.store.Store.try_match`), which reads the smaller side: the
    values' facts or the entity's. ``None`` when the join declines (a hub over the
    expansion caps)."""
    var = Var("v")
    if hop.entity_is_subject:
        pattern, seeds = TriplePattern(hop.entity, hop.predicate, var), list(values)
    else:   # a literal is nobody's subject
        pattern = TriplePattern(var, hop.predicate, hop.entity)
        seeds = [v for v in values if isinstance(v, str)]
    if not seeds:
        return set()
    result = store.try_match(PatternQuery((pattern,)),
                             seeds=[{var.name: v} for v in dict.fromkeys(seeds)])
    return None if result is None else {b[var.name] for b in result.bindings}


def pinned_elsewhere(store: Store, hop: Hop, subject: str, rest: PatternQuery, var: str,
                     keep: Callable[[Binding], bool], *,
                     max_fanout: int = MAX_PIN_FANOUT) -> bool | None:
    """Whether a node other than ``subject`` that ``hop.entity`` reaches over
    ``hop.predicate`` (``(entity, predicate, x)`` when ``hop.entity_is_subject``, else
    ``(x, predicate, entity)``) has a solution of ``rest`` with ``var`` bound to it that
    passes ``keep``. ``rest`` is a way-1 extended query without its prepended edge:
    ``True`` means that edge pins more than the old subject. An entity reaching more
    than ``max_fanout`` nodes over the predicate counts as pinning more (a degenerate
    hop, see :data:`MAX_PIN_FANOUT`), and is told by one read of ``max_fanout + 1``
    facts, before any join: proving that a hub also pins another node cost ten times
    that read.

    The nodes are checked in growing windows (16, 256, … of them), each with one
    seeded join, so an entity with a solution near the start of its facts answers
    after a small join. ``None`` when a join declines, or when the entity has more
    than the expansion limit of such facts and no window had a solution."""
    read = store.facts_out if hop.entity_is_subject else store.facts_in
    cap = min(max_fanout, store.expansion_limit)
    facts = read(hop.entity, predicate=hop.predicate, limit=cap + 1)
    over = len(facts) > cap
    if over and cap == max_fanout:
        return True
    ends = (f.object if hop.entity_is_subject else f.subject for f in facts[:cap])
    nodes = [x for x in dict.fromkeys(ends) if isinstance(x, str) and x != subject]
    start, window = 0, FIRST_WINDOW
    while start < len(nodes):
        result = store.try_match(rest, seeds=[{var: x} for x in nodes[start:window]],
                                 exists=keep)
        if result is None:
            return None
        if result.bindings:
            return True
        start, window = window, window * WINDOW_GROWTH
    return None if over else False


def specific_types(entity: Entity) -> list[str]:
    """``entity``'s types without the generic ones, in stored order."""
    return [t for t in entity.types if t not in GENERIC_TYPES]


ReplacementBasis = TypingLiteral["same_role", "sibling", "type"]
"""Where a contradictory edit's replacement came from, most plausible first:

* ``same_role``: it fills the answer's slot of the same predicate for another entity
  (other objects of ``film.film.directed_by`` are directors), read from a seeded
  sample of the predicate's facts: what the graph knows of the slot's range even
  without type facts;
* ``sibling``: it is linked to one of the answer's neighbours over the same predicate,
  in the same direction (another person born in the answer's city);
* ``type``: the store's seeded sample of the answer's most specific type (typed
  stores only; scans the type, slow on large stores)."""

"""Facts of the answer's predicate sampled for ``same_role`` replacements."""


def role_replacements(store: Store, predicate: str, *, answer_is_object: bool,
                      exclude: Collection[str]) -> list[Entity]:
    """Named, non-CVT entities outside ``exclude`` that fill the answer's slot of
    ``predicate`` in other facts: objects of the predicate's fixed sample of facts
    (:func:`extension.core.functionality.predicate_sample`, shared with the functionality
    measure and read once per store) when ``answer_is_object``, else subjects; sorted by
    id. Which of them replaces an answer is the question's seeded draw."""
    facts = predicate_sample(store, predicate)
    ends = {(f.object if answer_is_object else f.subject) for f in facts}
    ids = sorted(e for e in ends if isinstance(e, str) and e not in exclude)
    records = store.entities(ids)
    return [records[i] for i in ids if i in records and not records[i].is_cvt
            and records[i].name]


def sibling_replacements(store: Store, entity: Entity, *, exclude: Collection[str],
                         limit: int = 200, neighbours: int = 4,
                         siblings_per_relation: int = 50) -> list[Entity]:
    """Named, non-CVT entities outside ``exclude`` linked to one of ``entity``'s first
    ``neighbours`` neighbours over the same predicate, in the same direction (another
    city someone was born in, another film of the same director), with one read per
    relation (:meth:`~kgstore.Store.linked_entities`, at most
    ``siblings_per_relation`` each: the first of a hub's thousands are as good a draw,
    and a fifth of the reads hit such hubs); sorted by id."""
    around = store.adjacency(entity.id, limit=limit, detail="brief")
    links = sorted({(f.subject, f.predicate, True) if f.object == entity.id
                    else (str(f.object), f.predicate, False)
                    for f in around.facts if not f.is_literal})[:neighbours]
    found: dict[str, Entity] = {}
    for node, predicate, answer_is_object in links:
        # answer_is_object: (node, predicate, answer), so siblings are node's objects.
        linked, _ = store.linked_entities(node, predicate, outgoing=answer_is_object,
                                          limit=siblings_per_relation)
        for e in linked:
            if e.id not in (entity.id, node) and e.id not in exclude and not e.is_cvt \
                    and e.name:
                found.setdefault(e.id, e)
    return [found[i] for i in sorted(found)]


def type_replacements(store: Store, entity: Entity, *, exclude: Collection[str], seed: int,
                      k: int = 20) -> list[Entity]:
    """The store's seeded sample of ``entity``'s first specific type that has other
    members outside ``exclude`` (lean records)."""
    for type_id in specific_types(entity):
        sampled = [e for e in store.sample_entities(k + len(exclude) + 1, seed=seed,
                                                    type_id=type_id)
                   if e.id != entity.id and e.id not in exclude and not e.is_cvt and e.name]
        if sampled:
            return sampled[:k]
    return []


def closest_by_type(entity: Entity, pool: Sequence[Entity]) -> list[tuple[Entity, str | None]]:
    """The entities of ``pool`` most like ``entity`` by type, each with the most
    specific type it shares (``None`` on a store or an entity without specific types,
    where the whole pool is kept).

    Broad types (``people.person``, ``location.location``) say little: a replacement
    must share the most of ``entity``'s specific types that any member of the pool
    shares (Ridley Scott, director and producer, before Tom Hanks, a person, for
    Christopher Nolan). A type is the more specific the fewer members of the pool
    have it, measured on the pool itself; the shared type recorded is the most specific
    one the replacement has."""
    wanted = specific_types(entity)
    if not wanted:
        return [(e, None) for e in pool]
    members = {t: sum(t in e.types for e in pool) for t in wanted}
    order = sorted(wanted, key=lambda t: (members[t], wanted.index(t)))
    shared = {e.id: [t for t in order if t in e.types] for e in pool}
    most = max((len(s) for s in shared.values()), default=0)
    if most == 0:
        return []
    return [(e, shared[e.id][0]) for e in pool if len(shared[e.id]) == most]


def literal_replacements(store: Store, predicate: str, value: Literal, *,
                         exclude: Collection[Literal], seed: int, k: int = 20) -> list[Literal]:
    """Other literal values of ``predicate`` with ``value``'s datatype (the
    contradictory edit for a literal answer: a date replaced by another date)."""
    out: dict[str, Literal] = {}
    for f in store.sample_facts(k * 5, seed=seed, predicate=predicate):
        o = f.object
        if isinstance(o, Literal) and o != value and o not in exclude \
                and o.datatype == value.datatype:
            out.setdefault(o.key, o)
    return list(out.values())[:k]


def entity_records(store: Store, facts: Iterable[Fact]) -> dict[str, Entity]:
    """The entities a fact list mentions (for names in sample triples)."""
    ids = {f.subject for f in facts} | {f.object for f in facts if isinstance(f.object, str)}
    return store.entities(sorted(ids))


def similar_subgraph(store: Store, template: Sequence[Fact], subject: str, *,
                     avoid_entities: Collection[str], avoid_predicates: Collection[str],
                     cvt_nodes: Collection[str], rng: random.Random, limit: int = 200,
                     first_window: int | None = None, tries: int = 4,
                     records: dict[str, Entity] | None = None) -> list[Fact] | None:
    """A subgraph of the store with the shape of ``template`` (one solution's facts),
    rooted at ``subject``, over other relations and entities: the irrelevant edit.
    ``records``, when given, gets the brief records of the walk's entities as its reads
    saw them (:func:`walked_records`).

    Walks ``template`` outwards from ``subject``, mapping every template node to a
    store node reached over a fact (in either direction: the shape is what must match,
    and Freebase stores most relations both ways) whose predicate is outside
    ``avoid_predicates`` and whose other end is new and outside ``avoid_entities``;
    literals map to literals, CVTs (``cvt_nodes`` of the template) to CVTs. Each step draws from the candidates with
    ``rng``; a dead end restarts the walk, up to ``tries`` times. ``None`` when no walk
    completes.

    With ``first_window`` (smaller than ``limit``) the walks first see only that many
    facts around each node, and only when none of their tries completes do they run
    again over ``limit`` facts. Any fact of a window is as unrelated as another, and
    the walk's typical node has 50-200 facts: on the extension benchmark's 5M-fact KG,
    a first window of 48 took this edit from 5.0-6.7 to 3.6-4.0 s per 1,500 questions,
    with the same 72 failed walks.
    """
    windows = [limit] if first_window is None or first_window >= limit else [first_window, limit]
    for window in windows:
        adjacency: dict[str, Adjacency] = {}   # shared by the tries: restarts re-read nothing
        for _ in range(tries):
            walk = _walk(store, list(template), subject, avoid_entities, avoid_predicates,
                         cvt_nodes, rng, window, adjacency)
            if walk is not None:
                if records is not None:
                    records.update(walked_records(walk, adjacency))
                return walk
    return None


def walked_records(facts: Iterable[Fact], adjacency: dict[str, Adjacency]) -> dict[str, Entity]:
    """The brief records (name, CVT mark) of ``facts``' entity ends found in the
    neighbourhoods a walk read (``adjacency``): what a sample shows of them, so a store
    whose reads are round trips (Neo4j) need not read their records again (half of its
    record reads per question on the 1M-fact extension benchmark)."""
    records: dict[str, Entity] = {}
    for f in facts:
        for end in (f.subject, f.object):
            if isinstance(end, str) and end not in records:
                for adj in adjacency.values():
                    if (e := adj.entities.get(end)) is not None:
                        records[end] = e
                        break
    return records


@dataclass(frozen=True, slots=True)
class IrrelevantMatch:
    """An irrelevant subgraph, the subject it shares with G (``anchor``) and whether it
    needed leaves of another kind than the template's (``relaxed``: the verification
    then compares the shape without the literal/entity marks)."""

    facts: list[Fact]
    anchor: str
    relaxed: bool
    # Brief records of its entities as the walk read them (walked_records).
    records: dict[str, Entity]


def irrelevant_subgraph(store: Store, template: Sequence[Fact], anchors: Sequence[str], *,
                        avoid_entities: Collection[str], avoid_predicates: Collection[str],
                        cvt_nodes: Collection[str], rng: random.Random, limit: int = 200,
                        first_window: int | None = None, budget: int = 64
                        ) -> IrrelevantMatch | None:
    """The irrelevant edit's subgraph (CAQA §4.3: structurally similar to ``template``,
    sharing only a subject entity with G), searched ever wider until one is found.

    1. :func:`similar_subgraph` rooted at ``anchors[0]`` (the random walk, as before).
    2. A backtracking search (:func:`_search`) over ``limit`` facts per node, rooted at
       each anchor in turn: ``anchors[0]``, then the others (a tree's other subjects)
       in an order drawn from ``rng``. A walk dies at the first dead end; the search
       tries every option of a step before giving up on it, up to ``budget`` steps.
    3. The same search with leaves of any kind (``relaxed``): a template leaf that is a
       literal may map to a named entity and the other way round, and a CVT may map to
       a named entity. Around a person with a single date, "When was X born?" gets
       "X has the profession Actor"; the shape (which node links to which) is kept.

    ``avoid_entities`` are G's nodes: the anchor used is allowed, the others are not.
    On the demo KG's ``--domain people.person --n 60`` runs steps 2-3 took the
    irrelevant samples from 30 to 49 of 57 extended questions (seed 3) and from 38 to
    51 of 56 (seed 0): the walk alone failed where a person's neighbourhood held one
    usable fact or no second literal. What still fails is a cyclic template (a CVT
    reached twice) or a neighbourhood with no fact over another relation."""
    first = anchors[0]
    records: dict[str, Entity] = {}
    walk = similar_subgraph(store, template, first,
                            avoid_entities=set(avoid_entities) - {first},
                            avoid_predicates=avoid_predicates, cvt_nodes=cvt_nodes, rng=rng,
                            limit=limit, first_window=first_window, records=records)
    if walk is not None:
        return IrrelevantMatch(walk, first, relaxed=False, records=records)
    others = sorted(set(anchors[1:]) - {first})
    rng.shuffle(others)
    adjacency: dict[str, Adjacency] = {}
    for relaxed in (False, True):
        for anchor in (first, *others):
            found = _search(store, template, anchor, set(avoid_entities) - {anchor},
                            avoid_predicates, cvt_nodes, rng, limit, adjacency,
                            relaxed=relaxed, budget=budget)
            if found is not None:
                return IrrelevantMatch(found, anchor, relaxed, walked_records(found, adjacency))
    return None


def _template_steps(template: Sequence[Fact], anchor: str) -> list[tuple[Fact, bool]] | None:
    """``template``'s facts in an order that keeps a walk from ``anchor`` connected,
    each with ``forward`` (its subject is the end already reached); ``None`` when the
    template is not a tree hanging from ``anchor``."""
    reached = {anchor}
    pending = list(template)
    steps = []
    while pending:
        step = next((f for f in pending if (f.subject in reached) != (f.object_key in reached)),
                    None)
        if step is None:
            return None
        pending.remove(step)
        forward = step.subject in reached
        reached.add(step.object_key if forward else step.subject)
        steps.append((step, forward))
    return steps


def _search(store: Store, template: Sequence[Fact], anchor: str,
            avoid_entities: Collection[str], avoid_predicates: Collection[str],
            cvt_nodes: Collection[str], rng: random.Random, limit: int,
            adjacency: dict[str, Adjacency], *, relaxed: bool, budget: int) -> list[Fact] | None:
    """A subgraph shaped like ``template`` rooted at ``anchor`` found by depth-first
    search with backtracking (options in an order drawn from ``rng``), at most
    ``budget`` steps; ``None`` when there is none within the budget."""
    steps = _template_steps(template, anchor)
    if steps is None:
        return None
    degree: dict[str, int] = {}
    for f in template:
        for n in (f.subject, f.object_key):
            degree[n] = degree.get(n, 0) + 1
    mapping: dict[str, Object] = {anchor: anchor}
    used: set[str] = {anchor}
    out: list[Fact] = []
    spent = 0

    def extend(i: int) -> bool:
        nonlocal spent
        if i == len(steps):
            return True
        spent += 1
        if spent > budget:
            return False
        step, forward = steps[i]
        here = mapping[step.subject if forward else step.object_key]
        end = step.object_key if forward else step.subject
        if not isinstance(here, str):
            return False
        if here not in adjacency:
            adjacency[here] = store.adjacency(here, limit=limit, detail="brief")
        options = _options(adjacency[here], here, step.is_literal, end in cvt_nodes,
                           degree[end] == 1, avoid_entities, avoid_predicates, used, out,
                           relaxed=relaxed)
        rng.shuffle(options)
        for f in options:
            other = f.object if f.subject == here else f.subject
            mapping[end] = other
            if isinstance(other, str):
                used.add(other)
            out.append(f)
            if extend(i + 1):
                return True
            out.pop()
            if isinstance(other, str):
                used.discard(other)
        mapping.pop(end, None)
        return False

    return list(out) if extend(0) else None


def _options(adj: Adjacency, here: str, want_literal: bool, end_is_cvt: bool, end_is_leaf: bool,
             avoid_entities: Collection[str], avoid_predicates: Collection[str],
             used: Collection[str], chosen: Collection[Fact], *, relaxed: bool) -> list[Fact]:
    """The facts around ``here`` a walk may take for one template fact, sorted.

    Never over an avoided predicate, nor to a node that ``here`` is also linked to over
    one (Freebase keeps most relations both ways: ``people_born_here`` restates the
    question's ``place_of_birth``), nor to a used, avoided or nameless non-CVT node.
    Strictly, a literal maps to a literal and a CVT to a CVT; ``relaxed``, a template
    leaf takes a literal or a named entity, and a CVT also a named entity."""
    restated = {f.object_key if f.subject == here else f.subject
                for f in adj.facts if f.predicate in avoid_predicates}
    options = []
    for f in adj.facts:
        if f.predicate in avoid_predicates or f in chosen:
            continue
        other = f.object if f.subject == here else f.subject
        if isinstance(other, str):
            if other in used or other in avoid_entities or other in restated:
                continue
            if want_literal and not (relaxed and end_is_leaf):
                continue
            e = adj.entities.get(other)
            if e is None or (not e.is_cvt and not e.name):
                continue
            if e.is_cvt != end_is_cvt and not (relaxed and end_is_cvt and not e.is_cvt):
                continue
        elif not want_literal and not (relaxed and end_is_leaf):
            continue
        elif not is_answerable_literal(other):
            continue   # an identifier or URL: "Algeria has the Quora topic ID Algeria"
        options.append(f)
    return sorted(options, key=lambda f: (f.subject, f.predicate, f.object_key))


def _walk(store: Store, template: list[Fact], subject: str, avoid_entities: Collection[str],
          avoid_predicates: Collection[str], cvt_nodes: Collection[str], rng: random.Random,
          limit: int, adjacency: dict[str, Adjacency]) -> list[Fact] | None:
    mapping: dict[str, Object] = {subject: subject}
    used: set[str] = {subject}
    out: list[Fact] = []
    pending = list(template)
    while pending:
        # The next template fact with exactly one end mapped (the walk stays connected).
        step = next((f for f in pending if (f.subject in mapping) != (f.object_key in mapping)), None)
        if step is None:
            return None   # the template is not connected to the subject
        pending.remove(step)
        forward = step.subject in mapping
        here = mapping[step.subject if forward else step.object_key]
        if not isinstance(here, str):
            return None
        if here not in adjacency:
            adjacency[here] = store.adjacency(here, limit=limit, detail="brief")
        template_end = step.object_key if forward else step.subject
        options = _options(adjacency[here], here, step.is_literal, template_end in cvt_nodes,
                           False, avoid_entities, avoid_predicates, used, out, relaxed=False)
        if not options:
            return None
        chosen = rng.choice(options)
        other = chosen.object if chosen.subject == here else chosen.subject
        mapping[template_end] = other
        if isinstance(other, str):
            used.add(other)
        out.append(chosen)
    return out
