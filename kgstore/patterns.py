"""Triple-pattern queries: the backend-neutral matching primitive.

A :class:`PatternQuery` is a conjunction of triple patterns ``(s, p, o)`` where each
position is a constant or a :class:`Var`, plus constraints on variables. It is what
query grounding and query extension compile to; each backend turns it into
parameterized Cypher (see :mod:`kgstore.cypher.compile`).

Semantics (SPARQL basic graph pattern with filters):

* a subject is an entity id or a variable; a predicate is a predicate id or a variable
  (bound to the predicate id); an object is an entity id, a :class:`~kgstore.models.Literal`
  or a variable (bound to an entity id or a Literal);
* the same variable in several places must bind the same value;
* solutions are distinct assignments of the selected variables (all by default),
  returned in a deterministic order (sorted by the bound values).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kgstore.models import Entity, Fact, Literal, Object

_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}\Z")


@dataclass(frozen=True, slots=True)
class Var:
    """A query variable. Names are identifiers (``a``, ``cvt1``); a leading ``?`` is
    accepted and dropped, so ``Var("?a") == Var("a")``."""

    name: str

    def __post_init__(self) -> None:
        name = self.name.removeprefix("?")
        if not _VAR_NAME.match(name):
            raise ValueError(f"invalid variable name {self.name!r}: use letters, digits, _")
        object.__setattr__(self, "name", name)

    def __str__(self) -> str:
        return "?" + self.name


Node = Var | str
"""Subject position: entity id or variable."""
ObjectTerm = Var | str | Literal
"""Object position: entity id, literal or variable."""
PredicateTerm = Var | str


@dataclass(frozen=True, slots=True)
class TriplePattern:
    subject: Node
    predicate: PredicateTerm
    object: ObjectTerm

    def variables(self) -> list[Var]:
        return [t for t in (self.subject, self.predicate, self.object) if isinstance(t, Var)]


@dataclass(frozen=True, slots=True)
class NotEqual:
    """``FILTER(?var != value)`` — value is a constant (entity id / Literal) or a Var."""

    var: Var
    value: Var | str | Literal


@dataclass(frozen=True, slots=True)
class NotIn:
    """``?var`` must not be any of ``values`` (entity ids, predicate ids or Literals)."""

    var: Var
    values: tuple[str | Literal, ...]


@dataclass(frozen=True, slots=True)
class HasType:
    """``?var type.object.type type_id`` — the entity's type list contains ``type_id``."""

    var: Var
    type_id: str


@dataclass(frozen=True, slots=True)
class IsCvt:
    """``?var`` is (``value=True``) or is not (``False``) a CVT/mediator node."""

    var: Var
    value: bool = True


@dataclass(frozen=True, slots=True)
class IsEntity:
    """``?var`` (an object variable) binds an entity (``True``) or a literal (``False``)."""

    var: Var
    value: bool = True


Constraint = NotEqual | NotIn | HasType | IsCvt | IsEntity

ValueConstraint = NotEqual | NotIn | IsEntity
"""The constraints a solution's bound values decide alone (no store read)."""
EntityConstraint = HasType | IsCvt
"""The constraints on the bound entity's record (its types, its CVT flag): deciding
them reads the store (:func:`constraint_holds` takes the records)."""

Binding = dict[str, Object]
"""One solution: variable name (without ``?``) -> entity id, predicate id or Literal."""


@dataclass(frozen=True, slots=True)
class PatternQuery:
    patterns: tuple[TriplePattern, ...]
    constraints: tuple[Constraint, ...] = ()
    select: tuple[Var, ...] | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if not self.patterns:
            raise ValueError("a pattern query needs at least one triple pattern")
        names = {v.name for v in self.variables()}
        for c in self.constraints:
            if c.var.name not in names:
                raise ValueError(f"constraint on {c.var} which no triple pattern uses")
            if isinstance(c, NotEqual) and isinstance(c.value, Var) and c.value.name not in names:
                raise ValueError(f"constraint compares with {c.value}, which no pattern uses")
        for v in self.select or ():
            if v.name not in names:
                raise ValueError(f"selected variable {v} is not used by any pattern")
        if self.limit is not None and self.limit < 1:
            raise ValueError("limit must be >= 1")
        predicate_vars = self.predicate_variables()
        node_vars = {
            t.name
            for p in self.patterns
            for t in (p.subject, p.object)
            if isinstance(t, Var)
        }
        if predicate_vars & node_vars:
            raise ValueError(
                f"variables used both as predicate and node: {sorted(predicate_vars & node_vars)}"
            )
        for c in self.constraints:
            if isinstance(c, HasType | IsCvt | IsEntity) and c.var.name in predicate_vars:
                raise ValueError(f"{type(c).__name__} applies to nodes, but {c.var} is a predicate")

    def variables(self) -> list[Var]:
        """Variables in first-appearance order, each once."""
        seen: dict[str, Var] = {}
        for p in self.patterns:
            for v in p.variables():
                seen.setdefault(v.name, v)
        return list(seen.values())

    def selected(self) -> list[Var]:
        return list(self.select) if self.select is not None else self.variables()

    def predicate_variables(self) -> set[str]:
        return {p.predicate.name for p in self.patterns if isinstance(p.predicate, Var)}

    def subject_variables(self) -> set[str]:
        """Variables that must bind entities (they appear as a subject somewhere)."""
        return {p.subject.name for p in self.patterns if isinstance(p.subject, Var)}

    def instantiate(self, binding: Binding) -> list[Fact]:
        """The facts a full binding (all variables bound) makes of the patterns: the
        supporting subgraph of that solution."""
        def resolve(term: Var | str | Literal) -> str | Literal:
            if isinstance(term, Var):
                try:
                    return binding[term.name]
                except KeyError:
                    raise KeyError(f"binding has no value for {term}") from None
            return term

        facts = []
        for p in self.patterns:
            s, pr, o = resolve(p.subject), resolve(p.predicate), resolve(p.object)
            if isinstance(s, Literal) or isinstance(pr, Literal):
                raise ValueError(f"binding puts a literal in subject/predicate of {p}")
            facts.append(Fact(s, pr, o))
        return facts


@dataclass(slots=True)
class MatchResult:
    """Solutions of a :class:`PatternQuery`. ``truncated`` is true when ``limit`` cut
    the result short (there may be more solutions)."""

    variables: list[str]
    bindings: list[Binding] = field(default_factory=list)
    truncated: bool = False

    def values(self, var: str | Var) -> list[Object]:
        """Distinct values of one variable over all solutions, in solution order."""
        name = var.name if isinstance(var, Var) else var.removeprefix("?")
        seen: dict[str, Object] = {}
        for b in self.bindings:
            v = b[name]
            seen.setdefault(v.key if isinstance(v, Literal) else v, v)
        return list(seen.values())


def check_seeds(query: PatternQuery, seeds: Sequence[Binding]) -> None:
    """``ValueError`` unless every seed binds the same variables, all of ``query``'s."""
    bound = set(seeds[0]) if seeds else set()
    known = {v.name for v in query.variables()}
    if any(set(b) != bound for b in seeds) or not bound <= known:
        raise ValueError("seeds must all bind the same variables of the query")


def unrestricted(query: PatternQuery) -> PatternQuery:
    """``query`` selecting every variable, without a limit: what
    :func:`seeded_solutions` filters."""
    return replace(query, select=None, limit=None)


def seeded_solutions(query: PatternQuery, full: MatchResult,
                     seeds: Sequence[Binding]) -> MatchResult:
    """The solutions of ``query`` that extend one of ``seeds`` (as SPARQL's ``VALUES``),
    from ``full``, the solutions of :func:`unrestricted` ``(query)``: projected on
    ``query``'s selected variables, distinct, in ``full``'s order, cut to its limit.
    What a seeded :meth:`~kgstore.store.Store.match` returns where a backend has no
    better way than to filter."""
    check_seeds(query, seeds)

    def key(value: Object) -> str:
        return "l:" + value.key if isinstance(value, Literal) else "e:" + value

    names = sorted(seeds[0]) if seeds else []
    wanted = {tuple(key(b[n]) for n in names) for b in seeds}
    selected = [v.name for v in query.selected()]
    kept: dict[tuple[str, ...], Binding] = {}
    for b in full.bindings:
        if tuple(key(b[n]) for n in names) in wanted:
            kept.setdefault(tuple(key(b[n]) for n in selected), {n: b[n] for n in selected})
    bindings = list(kept.values())
    truncated = query.limit is not None and len(bindings) > query.limit
    return MatchResult(selected, bindings[:query.limit] if truncated else bindings, truncated)


def match_facts(query: PatternQuery, facts: Iterable[Fact],
                entities: Mapping[str, Entity] | None = None) -> list[Binding]:
    """Solutions of ``query`` over an in-memory fact list (no store): the same
    semantics as ``Store.match`` without ``limit``, for small subgraphs such as a
    sample's citation subgraph.

    Constraints on entity properties (``HasType``, ``IsCvt``) are checked against
    ``entities`` when the entity is there and treated as satisfied otherwise (a
    subgraph carries facts, not always its entities' records); a literal never
    satisfies them. Solutions come back
    distinct, in a deterministic order.
    """
    fact_list = list(dict.fromkeys(facts))
    solutions: list[Binding] = []

    def unify(term: Var | str | Literal, value: Object, binding: Binding) -> Binding | None:
        if isinstance(term, Var):
            bound = binding.get(term.name)
            if bound is None:
                return {**binding, term.name: value}
            return binding if bound == value else None
        return binding if term == value else None

    def extend(i: int, binding: Binding) -> None:
        if i == len(query.patterns):
            solutions.append(binding)
            return
        p = query.patterns[i]
        for f in fact_list:
            b: Binding | None = binding
            for term, value in ((p.subject, f.subject), (p.predicate, f.predicate),
                                (p.object, f.object)):
                b = unify(term, value, b) if b is not None else None
            if b is not None:
                extend(i + 1, b)

    extend(0, {})
    kept = [b for b in solutions if all(constraint_holds(c, b, entities or {}) for c in query.constraints)]
    selected = [v.name for v in query.selected()]
    distinct: dict[tuple[str, ...], Binding] = {}
    for b in kept:
        row = {name: b[name] for name in selected}
        key = tuple(v.key if isinstance(v, Literal) else v for v in row.values())
        distinct.setdefault(key, row)
    return [distinct[k] for k in sorted(distinct)]


def constraint_holds(c: Constraint, binding: Binding, entities: Mapping[str, Entity]) -> bool:
    """Whether one solution satisfies constraint ``c``. Entity properties (types, CVT
    flag) come from ``entities``; an entity missing there counts as satisfying them."""
    value = binding[c.var.name]
    if isinstance(c, NotEqual):
        other = binding[c.value.name] if isinstance(c.value, Var) else c.value
        return value != other
    if isinstance(c, NotIn):
        return value not in c.values
    if isinstance(c, IsEntity):
        return isinstance(value, str) == c.value
    if not isinstance(value, str):
        return False   # types and CVT flags belong to entities (the store's :Entity nodes)
    entity = entities.get(value)
    if isinstance(c, HasType):
        return entity is None or c.type_id in entity.types
    if isinstance(c, IsCvt):
        return entity is None or entity.is_cvt == c.value
    raise TypeError(f"unknown constraint {c!r}")
