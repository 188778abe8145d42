"""Store look-ups that feed the extension rules and edits with candidates.

This is the only module of the extension engine that talks to the store, and it does
so through the :class:`~kgstore.Store` interface only (each backend runs its own
parameterized Cypher; :func:`kgstore.expansion.match_by_expansion`, used for the
seeded joins below, is itself written against that interface). Every function returns
candidates in a deterministic order; the caller draws from them with its seeded RNG.

Degenerate picks are filtered here: candidates are named, non-CVT entities other than
the ones already in the query, reached over predicates not already in the query that
relate rather than name or type entities (:func:`~extension.vocabulary.is_bookkeeping_predicate`:
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

from extension.rules import Hop
from extension.vocabulary import is_bookkeeping_predicate
from kgstore.expansion import EXPANSION_LIMIT, match_by_expansion
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


def same_name_alternatives(store: Store, entity_id: str, predicate: str, *,
                           entity_is_subject: bool, limit: int = 50) -> list[Entity]:
    """Other named, non-CVT entities whose name equals ``entity_id``'s (normalised) and
    that have at least one ``predicate`` edge on the same side (the union rule's
    ``e1 … em``), sorted by id."""
    entity = store.entity(entity_id)
    if entity is None or not entity.name:
        return []
    key = normalize_name(entity.name)
    found = []
    for other in store.find_by_name(entity.name, limit=limit):
        if other.id == entity_id or other.is_cvt or not other.name \
                or normalize_name(other.name) != key:
            continue   # find_by_name also matches aliases; the rule wants the name
        facts = (store.facts_out(other.id, predicate=predicate, limit=1) if entity_is_subject
                 else store.facts_in(other.id, predicate=predicate, limit=1))
        if facts:
            found.append(other)
    return sorted(found, key=lambda e: e.id)


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
    (:func:`~kgstore.expansion.match_by_expansion`), which reads the smaller side: the
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
    result = match_by_expansion(store, PatternQuery((pattern,)),
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
    cap = min(max_fanout, EXPANSION_LIMIT)
    facts = read(hop.entity, predicate=hop.predicate, limit=cap + 1)
    over = len(facts) > cap
    if over and cap == max_fanout:
        return True
    ends = (f.object if hop.entity_is_subject else f.subject for f in facts[:cap])
    nodes = [x for x in dict.fromkeys(ends) if isinstance(x, str) and x != subject]
    start, window = 0, FIRST_WINDOW
    while start < len(nodes):
        result = match_by_expansion(store, rest, seeds=[{var: x} for x in nodes[start:window]],
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

ROLE_SAMPLE = 200
"""Facts of the answer's predicate sampled for ``same_role`` replacements."""


def role_replacements(store: Store, predicate: str, *, answer_is_object: bool,
                      exclude: Collection[str], seed: int, sample: int = ROLE_SAMPLE
                      ) -> list[Entity]:
    """Named, non-CVT entities outside ``exclude`` that fill the answer's slot of
    ``predicate`` in other facts: objects of a seeded sample of its facts when
    ``answer_is_object``, else subjects; sorted by id."""
    facts = store.sample_facts(sample, seed=seed, predicate=predicate)
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
                     first_window: int | None = None, tries: int = 4) -> list[Fact] | None:
    """A subgraph of the store with the shape of ``template`` (one solution's facts),
    rooted at ``subject``, over other relations and entities: the irrelevant edit.

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
                return walk
    return None


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
        adj = adjacency[here]
        want_literal = step.is_literal
        options = []
        for f in adj.facts:
            if f.predicate in avoid_predicates:
                continue
            other = f.object if f.subject == here else f.subject
            if isinstance(other, str):
                if want_literal or other in used or other in avoid_entities:
                    continue
                e = adj.entities.get(other)
                template_end = step.object_key if forward else step.subject
                if e is None or e.is_cvt != (template_end in cvt_nodes):
                    continue
            elif not want_literal:
                continue
            options.append(f)
        if not options:
            return None
        chosen = rng.choice(sorted(options, key=lambda f: (f.subject, f.predicate, f.object_key)))
        other = chosen.object if chosen.subject == here else chosen.subject
        mapping[step.object_key if forward else step.subject] = other
        if isinstance(other, str):
            used.add(other)
        out.append(chosen)
    return out

