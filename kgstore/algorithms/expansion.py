"""Pattern matching by index nested-loop joins over one-hop expansions.

``Store.match`` can hand a multi-pattern query to the engine as one Cypher query, but
an embedded engine's planner may scan every edge of a predicate for the second
pattern instead of extending the node the first one bound (LadybugDB 0.22: a 2-hop
path on a 5M-fact store takes ~800 ms that way). :func:`match_by_expansion` evaluates
the same query as a sequence of one-hop expansions from bound nodes, joined in Python:
each step reads the facts of one predicate around every node the step starts from
with one ``Store.facts_many`` call (a batch of adjacency-index lookups), and each
(node, predicate, direction) is read once per call.

The order of the steps is chosen as the join runs (a greedy, cost-based order in the
manner of System R's access-path choice, with sizes measured rather than estimated):

* a pattern whose two ends are both known (a filter: it can only drop rows) goes
  before one that adds a variable;
* a step reads a pattern from a constant or from the nodes a bound variable holds;
  a pattern that shares no variable with the rows so far is read from a constant
  only, as a cross product whose cost counts every row it makes;
* the cheapest way wins: ``NODE_COST`` per node looked up plus the facts read (times
  the rows each makes). The fact counts are measured best-first: the way with the
  lowest bound on its cost is read further, up to 64 facts (or its lookups' worth),
  then 16 times more, … and a read that completes gives its exact cost and is kept for
  the step. So a hub is never read in full only to learn that it is big, and a side
  whose node lookups alone cost more than another side's whole read is not read at
  all. (Way-1 extensions of a tree, ``(e1, rn, ?v)(?v, r1, ?a)(e2, r2, ?a)`` with
  ``e1`` a hub, start from ``e2`` and check ``e1`` last; the second pattern of
  ``(e1, r1, ?a)(e2, r2, ?a)`` is read from ``e2`` rather than from an answer that
  is a hub of ``r2``.)

Filters that need no store read (``NotEqual``, ``NotIn``, ``IsEntity``:
:data:`~kgstore.patterns.ValueConstraint`) drop rows as soon as their variables are
bound. Two SPARQL forms serve the extension engine's checks: ``seeds`` (``VALUES``:
start from given partial solutions) and ``exists`` (``ASK``: stop at the first
solution, reading the last pattern in windows).

The result equals ``Store.match`` (same solutions, same order: the distinct solutions
are sorted at the end, so the join order cannot change them); when a query does not
suit expansion (a predicate variable, no constant to start from, an intermediate
result over ``max_frontier`` rows, a node with more than ``EXPANSION_LIMIT`` facts of
one predicate) the function returns ``None`` and the caller runs its single-query path.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgstore.models import Entity, Fact, Literal, Object
from kgstore.patterns import (
    Binding,
    Constraint,
    EntityConstraint,
    MatchResult,
    NotEqual,
    PatternQuery,
    TriplePattern,
    ValueConstraint,
    Var,
    check_seeds,
    constraint_holds,
    seeded_solutions,
    unrestricted,
)

if TYPE_CHECKING:
    from kgstore.store import Store

MAX_FRONTIER = 20_000
"""Partial solutions kept between two patterns before handing the query back."""
EXPANSION_LIMIT = 100_000
"""Facts read per (node, predicate, direction)."""
FIRST_PROBE = 64
"""Facts read on each side in the first round of the size race."""
PROBE_GROWTH = 16
"""How much more each further round of the size race reads."""
NODE_COST = 3
"""The cost of looking up one node, in facts: in a batch, one adjacency-index lookup
costs about as much engine and conversion time as three fact rows."""
_HUB = sys.maxsize
"""The cost bound of a side with more than EXPANSION_LIMIT facts."""


def join_order(patterns: Sequence[TriplePattern]) -> list[int]:
    """Pattern indexes in a static evaluation order: first a pattern with the most
    constants (entity/literal ends and a fixed predicate), then repeatedly one that
    shares a variable with those already placed (most constants first). The compiled
    single-query path uses it (:func:`kgstore.cypher.compile.compile_match`)."""
    def constants(p: TriplePattern) -> int:
        return sum(not isinstance(t, Var) for t in (p.subject, p.object)) * 2 + \
            (not isinstance(p.predicate, Var))

    remaining = list(range(len(patterns)))
    order: list[int] = []
    bound: set[str] = set()
    while remaining:
        connected = [i for i in remaining
                     if bound & {v.name for v in patterns[i].variables()}] or remaining
        best = max(connected, key=lambda i: (constants(patterns[i]), -i))
        order.append(best)
        remaining.remove(best)
        bound.update(v.name for v in patterns[best].variables())
    return order


_Key = tuple[bool, str, str, bool]
"""(outgoing, node, predicate, with literal objects)."""


class _Expansions:
    """The facts around nodes of one store, each (direction, node, predicate) read
    once per match, with an index by the far end for filter steps."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.cache: dict[_Key, list[Fact] | None] = {}   # None: over EXPANSION_LIMIT
        self.known_over: dict[_Key, int] = {}   # incomplete reads: more than this many
        self.indexes: dict[_Key, dict[Object, list[Fact]]] = {}

    def size_at_most(self, outgoing: bool, nodes: Sequence[str], predicate: str,
                     literals: bool, limit: int) -> int | None:
        """The number of facts of all ``nodes`` when at most ``limit``, else ``None``;
        the nodes not read yet are read in one batch of at most what is left of
        ``limit``, and kept when that read is complete."""
        keys = [(outgoing, n, predicate, literals) for n in dict.fromkeys(nodes)]
        known = 0
        missing = []
        for key in keys:
            if key in self.cache:
                facts = self.cache[key]
                if facts is None:
                    return None
                known += len(facts)
            else:
                missing.append(key)
        if known > limit or any(self.known_over.get(k, -1) >= limit - known for k in missing):
            return None
        if not missing:
            return known
        found, more = self.store.facts_many([k[1] for k in missing], predicate=predicate,
                                            outgoing=outgoing, limit=limit - known,
                                            literals=literals)
        if more:
            if len(missing) == 1:
                self.known_over[missing[0]] = limit - known
            return None
        for key in missing:
            self.cache[key] = found[key[1]]
            known += len(found[key[1]])
        return known

    def read(self, outgoing: bool, nodes: Sequence[str], predicate: str, literals: bool,
             limit: int) -> bool:
        """Read the facts of every node not read yet, all in one batch while the batch
        has at most ``limit`` facts, else node by node. ``False`` when more than
        ``limit`` facts are needed and ``limit`` is a frontier cap (``limit <
        EXPANSION_LIMIT``), or when a node has more than ``EXPANSION_LIMIT`` facts."""
        missing = [n for n in dict.fromkeys(nodes) if (outgoing, n, predicate, literals)
                   not in self.cache]
        if not missing:
            return all(self.cache[(outgoing, n, predicate, literals)] is not None
                       for n in nodes)
        found, more = self.store.facts_many(missing, predicate=predicate, outgoing=outgoing,
                                            limit=limit, literals=literals)
        if more and limit < EXPANSION_LIMIT:
            return False
        for n in missing:
            key = (outgoing, n, predicate, literals)
            if not more:
                self.cache[key] = found[n]
                continue
            one, over = self.store.facts_many([n], predicate=predicate, outgoing=outgoing,
                                              limit=EXPANSION_LIMIT, literals=literals)
            self.cache[key] = None if over else one[n]
            if over:
                return False
        return True

    def facts(self, key: _Key) -> list[Fact]:
        facts = self.cache[key]
        assert facts is not None
        return facts

    def by_far_end(self, key: _Key) -> dict[Object, list[Fact]]:
        """The facts of ``key`` indexed by their other end (object when outgoing)."""
        index = self.indexes.get(key)
        if index is None:
            index = {}
            for f in self.facts(key):
                index.setdefault(f.object if key[0] else f.subject, []).append(f)
            self.indexes[key] = index
        return index


@dataclass(frozen=True, slots=True)
class _Step:
    """Pattern ``index`` read from its subject (``outgoing``) or its object."""

    index: int
    outgoing: bool


def match_by_expansion(store: Store, query: PatternQuery, *,
                       max_frontier: int = MAX_FRONTIER,
                       seeds: Sequence[Binding] | None = None,
                       exists: Callable[[Binding], bool] | None = None) -> MatchResult | None:
    """The solutions of ``query`` (see the module docstring), or ``None`` when the
    query should run as one engine query instead.

    ``seeds`` restricts the solutions to those that extend one of these partial
    solutions, as SPARQL's ``VALUES`` block does: every seed binds the same variables of
    the query (entity ids or literals), and the join starts from them instead of from a
    constant. Raises ``ValueError`` for seeds that bind different or unknown
    variables.

    ``exists`` asks only whether a solution passing it exists (SPARQL ``ASK``): the
    result then holds one such solution, whichever is found first, or none. The last
    pattern is read in growing windows (64, 1,024, … facts) until a row passes, so a
    hub at the end of the join is not read in full."""
    if query.predicate_variables():
        return None
    expansions = _Expansions(store)
    subject_vars = query.subject_variables()
    rows: list[Binding] = [{}]
    bound: set[str] = set()
    if seeds is not None:
        check_seeds(query, seeds)
        rows = [dict(b) for b in seeds]
        bound = set(rows[0]) if rows else set()
    remaining = list(range(len(query.patterns)))
    pending: list[Constraint] = [c for c in query.constraints if isinstance(c, ValueConstraint)]
    ready: list[Constraint] = [c for c in pending if _constraint_vars(c) <= bound]
    if ready:
        pending = [c for c in pending if c not in ready]
        rows = [b for b in rows if all(constraint_holds(c, b, {}) for c in ready)]
    selected = [v.name for v in query.selected()]
    # Type and CVT constraints need entity records, read once for all rows at the end.
    ask = exists is not None and not any(isinstance(c, EntityConstraint)
                                         for c in query.constraints)
    while remaining and rows:
        step = _next_step(query.patterns, remaining, bound, rows, expansions, subject_vars)
        if step is None:
            return None   # no bound end (or only a literal): not an expansion
        p = query.patterns[step.index]
        remaining.remove(step.index)
        before = set(bound)
        bound.update(v.name for v in p.variables())
        ready = [c for c in pending if _constraint_vars(c) <= bound]
        pending = [c for c in pending if c not in ready]
        if ask and not remaining:
            assert exists is not None
            found = _first_row(p, step.outgoing, rows, before, expansions, subject_vars,
                               ready, exists)
            if isinstance(found, _Declined):
                return None
            answer = [] if found is None else [{name: found[name] for name in selected}]
            return MatchResult(variables=selected, bindings=answer)
        extended = _expand(p, step.outgoing, rows, expansions, subject_vars, ready,
                           max_frontier)
        if extended is None:
            return None
        rows = extended
    rows = _apply_constraints(store, query, rows)
    if exists is not None:
        rows = [b for b in rows if exists(b)][:1]
    distinct: dict[tuple[tuple[str, str], ...], Binding] = {}
    for b in rows:
        row = {name: b[name] for name in selected}
        distinct.setdefault(tuple(_sort_key(row[name]) for name in selected), row)
    ordered = [distinct[k] for k in sorted(distinct)]
    truncated = query.limit is not None and len(ordered) > query.limit
    if truncated:
        ordered = ordered[: query.limit]
    return MatchResult(variables=selected, bindings=ordered, truncated=truncated)


def _constraint_vars(c: Constraint) -> set[str]:
    names = {c.var.name}
    if isinstance(c, NotEqual) and isinstance(c.value, Var):
        names.add(c.value.name)
    return names


def _known(term: Var | str | Literal, bound: set[str]) -> bool:
    return not isinstance(term, Var) or term.name in bound


def _literals(p: TriplePattern, bound: set[str], rows: list[Binding],
              subject_vars: set[str]) -> bool:
    """Whether reading ``p`` from its subject must include literal objects: not when
    the object is an entity constant, a variable that is some pattern's subject (a
    literal there has no facts) or a variable bound to entities only."""
    o = p.object
    if isinstance(o, Literal):
        return True
    if isinstance(o, str):
        return False
    if o.name in subject_vars:
        return False
    if o.name in bound:
        return any(not isinstance(b[o.name], str) for b in rows)
    return True


def _distinct_nodes(term: Var | str | Literal, rows: list[Binding]) -> list[str] | None:
    """The entity ids ``term`` takes over ``rows`` (one for a constant); ``None`` when
    it is a literal anywhere (no store read starts from a literal)."""
    if isinstance(term, Literal):
        return None
    if isinstance(term, str):
        return [term]
    values = list(dict.fromkeys(b[term.name] for b in rows))
    if any(not isinstance(v, str) for v in values):
        return None
    return values  # type: ignore[return-value]


@dataclass(slots=True)
class _Option:
    """One way to read the next pattern, with what is known of its cost so far."""

    order: int
    step: _Step
    nodes: list[str]
    predicate: str
    literals: bool
    fan: int        # rows each fact makes: 1, or the row count for a cross product
    lookups: int    # NODE_COST per node not read yet
    bound: int      # lower bound of the cost (exact once `exact`)
    probe: int      # facts to read in the next probe
    exact: bool = False


def _next_step(patterns: Sequence[TriplePattern], remaining: list[int], bound: set[str],
               rows: list[Binding], expansions: _Expansions, subject_vars: set[str]
               ) -> _Step | None:
    """The next pattern and the side to read it from (see the module docstring)."""
    connected = {i for i in remaining if bound & {v.name for v in patterns[i].variables()}}
    filters = [i for i in connected
               if _known(patterns[i].subject, bound) and _known(patterns[i].object, bound)]
    # Without a filter, a pattern that touches no bound variable competes too, from a
    # constant: a cross product with a constant's few facts beats a large expansion.
    pool = sorted(filters) if filters else remaining
    options: list[_Option] = []
    for i in pool:
        p = patterns[i]
        assert isinstance(p.predicate, str)
        for outgoing, near in ((True, p.subject), (False, p.object)):
            if not _known(near, bound):
                continue
            nodes = _distinct_nodes(near, rows)
            if nodes is None:
                continue
            literals = outgoing and _literals(p, bound, rows, subject_vars)
            lookups = NODE_COST * sum((outgoing, n, p.predicate, literals) not in expansions.cache
                                      for n in nodes)
            fan = 1 if i in connected or not bound else 1 + len(rows)
            # Reading fewer facts than the side has nodes would tell little: a lookup
            # costs about NODE_COST facts anyway.
            options.append(_Option(len(options), _Step(i, outgoing), nodes, p.predicate,
                                   literals, fan, lookups, lookups,
                                   min(max(FIRST_PROBE, lookups), EXPANSION_LIMIT)))
    if len(options) <= 1:
        return options[0].step if options else None
    # Best-first: the option with the lowest bound is read further (its next probe)
    # until the lowest bound is an exact cost.
    while True:
        best = min(options, key=lambda o: (o.bound, o.order))
        if best.exact:
            return best.step
        if best.bound == _HUB:
            return options[0].step   # every side is a hub: the read declines the query
        size = expansions.size_at_most(best.step.outgoing, best.nodes, best.predicate,
                                       best.literals, best.probe)
        if size is not None:
            best.bound, best.exact = size * best.fan + best.lookups, True
        elif best.probe >= EXPANSION_LIMIT:
            best.bound = _HUB
        else:
            best.bound = (best.probe + 1) * best.fan + best.lookups
            best.probe = min(best.probe * PROBE_GROWTH, EXPANSION_LIMIT)


def _expand(p: TriplePattern, outgoing: bool, rows: list[Binding], expansions: _Expansions,
            subject_vars: set[str], ready: list[Constraint], max_frontier: int
            ) -> list[Binding] | None:
    """``rows`` joined with the facts of ``p`` read from its subject (``outgoing``) or
    object, keeping the rows that pass the ``ready`` constraints; ``None`` when the
    frontier or a node's facts exceed the caps."""
    assert isinstance(p.predicate, str)
    near_term, far_term = (p.subject, p.object) if outgoing else (p.object, p.subject)
    bound = {name for name in rows[0]} if rows else set()
    nodes = _distinct_nodes(near_term, rows)
    assert nodes is not None
    literals = outgoing and _literals(p, bound, rows, subject_vars)
    is_filter = _known(far_term, bound)
    # Reading from an end that adds a variable gives every row at least one new row per
    # fact, so more facts than the frontier cap mean the query is handed back.
    if not expansions.read(outgoing, nodes, p.predicate, literals,
                           EXPANSION_LIMIT if is_filter else max_frontier):
        return None
    extended: list[Binding] = []
    for b in rows:
        near = _resolve(near_term, b)
        key = (outgoing, near, p.predicate, literals)
        if is_filter:
            facts = expansions.by_far_end(key).get(_resolve(far_term, b), ())  # type: ignore[arg-type]
        else:
            facts = expansions.facts(key)  # type: ignore[arg-type]
        for f in facts:
            nb = _bind(p, f, b)
            if nb is not None and all(constraint_holds(c, nb, {}) for c in ready):
                extended.append(nb)
        if len(extended) > max_frontier:
            return None
    return extended


class _Declined:
    """What :func:`_first_row` returns when a node of the last pattern is a hub."""


_DECLINED = _Declined()


def _first_row(p: TriplePattern, outgoing: bool, rows: list[Binding], bound: set[str],
               expansions: _Expansions, subject_vars: set[str], ready: list[Constraint],
               exists: Callable[[Binding], bool]) -> Binding | _Declined | None:
    """A row of ``rows`` joined with a fact of the last pattern ``p`` (read from its
    subject when ``outgoing``) that passes ``ready`` and ``exists``; ``None`` when there
    is none, ``_DECLINED`` when a node's facts exceed ``EXPANSION_LIMIT``. The facts are
    read in growing windows over all the step's nodes, since one found row settles
    it."""
    assert isinstance(p.predicate, str)
    near_term, far_term = (p.subject, p.object) if outgoing else (p.object, p.subject)
    nodes = _distinct_nodes(near_term, rows)
    assert nodes is not None
    literals = outgoing and _literals(p, bound, rows, subject_vars)
    is_filter = _known(far_term, bound)
    window = FIRST_PROBE
    while True:
        keys = [(outgoing, n, p.predicate, literals) for n in nodes]
        if all(expansions.cache.get(k) is not None for k in keys):
            found = {k[1]: expansions.facts(k) for k in keys}
            more = False
        else:
            found, more = expansions.store.facts_many(nodes, predicate=p.predicate,
                                                      outgoing=outgoing, limit=window,
                                                      literals=literals)
        # A filter looks its rows' far ends up in an index of the facts read.
        index: dict[tuple[Object, Object], list[Fact]] = {}
        if is_filter:
            for node, facts in found.items():
                for f in facts:
                    index.setdefault((node, f.object if outgoing else f.subject), []).append(f)
        for b in rows:
            near = _resolve(near_term, b)
            assert isinstance(near, str)
            far = _resolve(far_term, b)
            candidates = index.get((near, far), ()) if far is not None else found.get(near, ())
            for f in candidates:
                nb = _bind(p, f, b)
                if nb is not None and all(constraint_holds(c, nb, {}) for c in ready) \
                        and exists(nb):
                    return nb
        if not more:
            return None
        if window >= EXPANSION_LIMIT:
            return _DECLINED
        window = min(window * PROBE_GROWTH, EXPANSION_LIMIT)


def _resolve(term: Var | str | Literal, binding: Binding) -> Object | None:
    if isinstance(term, Var):
        return binding.get(term.name)
    return term


def _bind(p: TriplePattern, f: Fact, binding: Binding) -> Binding | None:
    out = dict(binding)
    for term, value in ((p.subject, f.subject), (p.object, f.object)):
        if isinstance(term, Var):
            bound = out.get(term.name)
            if bound is None:
                out[term.name] = value
            elif bound != value:
                return None
    return out


def _sort_key(value: Object) -> tuple[str, str]:
    """The engine's ORDER BY on (label, id): entities before literals, then by id
    (a literal's id is its content key)."""
    if isinstance(value, Literal):
        return ("Literal", value.key)
    return ("Entity", value)


def _apply_constraints(store: Store, query: PatternQuery, rows: list[Binding]) -> list[Binding]:
    if not query.constraints or not rows:
        return rows
    needs_entities = {c.var.name for c in query.constraints if isinstance(c, EntityConstraint)}
    entities: dict[str, Entity] = {}
    if needs_entities:
        ids = sorted({v for b in rows for name in needs_entities
                      if isinstance(v := b[name], str)})
        entities = store.entities(ids)
    kept = []
    for b in rows:
        if all(constraint_holds(c, b, entities) for c in query.constraints):
            kept.append(b)
    return kept


def match_with_fallback(store: Store, query: PatternQuery, seeds: Sequence[Binding] | None,
                        compiled: Callable[[PatternQuery], MatchResult]) -> MatchResult:
    """:meth:`Store.match` of the Cypher backends: one-hop expansions joined here
    (:func:`match_by_expansion`) where they do well, else ``compiled`` (the whole query
    as one Cypher query); seeded, the compiled query runs unseeded and is filtered."""
    result = match_by_expansion(store, query, seeds=seeds)
    if result is not None:
        return result
    if seeds is not None:
        check_seeds(query, seeds)
        return seeded_solutions(query, compiled(unrestricted(query)), seeds)
    return compiled(query)
