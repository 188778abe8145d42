"""A :class:`~kgstore.patterns.PatternQuery` compiled into one parameterized Cypher query.

The query shape (one ``MATCH`` per triple pattern, each followed by ``WITH *``, in a
connected order from the constants) suits every Cypher engine; what differs between
engines is spelt by a :class:`CypherDialect`: how a list property is tested, how a
node's label is read and tested. LadybugDB's is :data:`LADYBUG`, Neo4j's :data:`NEO4J`
(``$t IN n.types``, ``n:Entity``, ``head(labels(n))``); :data:`DIALECTS` finds a
store's by its :attr:`~kgstore.store.Store.dialect`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgstore import patterns as pat
from kgstore.algorithms.expansion import join_order
from kgstore.models import Literal

__all__ = ["DIALECTS", "LADYBUG", "NEO4J", "CypherDialect", "compile_match", "inline_limit",
           "match_result"]


@dataclass(frozen=True, slots=True)
class CypherDialect:
    """The expressions of one engine that :func:`compile_match` writes. Each takes a
    node variable (and a parameter or label name, never user text) and returns a
    Cypher expression."""

    has_type: Callable[[str, str], str]
    """``has_type(node, "$param")``: the node's ``types`` list holds the parameter."""
    has_label: Callable[[str, str], str]
    """``has_label(node, "Entity")``: the node carries that label."""
    label_of: Callable[[str], str]
    """``label_of(node)``: the node's (one) label as a string."""


LADYBUG = CypherDialect(
    has_type=lambda node, param: f"list_contains({node}.types, {param})",
    has_label=lambda node, label: f"label({node}) = '{label}'",
    label_of=lambda node: f"label({node})",
)
"""LadybugDB (Kùzu's dialect): list functions and ``label()``."""

NEO4J = CypherDialect(
    has_type=lambda node, param: f"{param} IN {node}.types",
    has_label=lambda node, label: f"{node}:{label}",
    label_of=lambda node: f"head(labels({node}))",
)
"""Neo4j 5: ``IN`` on lists, label predicates and ``labels()``."""

DIALECTS = {"ladybug": LADYBUG, "neo4j": NEO4J}
"""Each :data:`~kgstore.cypher.guard.Dialect`'s expressions."""


def inline_limit(n: int) -> str:
    """A LIMIT clause with the count inlined. LadybugDB plans ``LIMIT $param`` without
    pushing the limit down (measured 6-9x slower per lookup), so the count is written
    into the query text; it is validated as a non-negative int, never user text."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"limit must be a non-negative integer, got {n!r}")
    return f"LIMIT {n}"




def compile_match(query: pat.PatternQuery, dialect: CypherDialect
                  ) -> tuple[str, dict[str, Any], list[tuple[str, str]]]:
    """Compile a :class:`PatternQuery` into one parameterized Cypher query.

    Returns (cypher, params, columns) where columns lists (variable, kind) in RETURN
    order; kind is "entity" (one column), "object" (five: kind, id, value, datatype,
    lang) or "predicate" (one). One MATCH clause per triple pattern keeps SPARQL's
    semantics (two patterns may match the same edge) on every Cypher engine. Only
    parameters carry values; node/rel variable names are generated here.

    Each MATCH carries its own predicate filter and is followed by ``WITH *``, and the
    patterns are visited in a connected order starting from constants
    (:func:`kgstore.algorithms.expansion.join_order`). Both matter: LadybugDB 0.22 returns wrong (missing) rows
    when the filters of several MATCH clauses that close a cycle are pooled into one
    WHERE (its multi-way join drops matches; see
    ``tests/kgstore/test_properties.py::test_match_agrees_with_brute_force``).
    """
    params: dict[str, Any] = {}
    node_names: dict[str, str] = {}   # variable name or constant key -> cypher variable
    subject_vars = query.subject_variables()
    entity_object_vars: set[str] = set()
    for c in query.constraints:
        if isinstance(c, pat.EntityConstraint) or (isinstance(c, pat.IsEntity) and c.value):
            entity_object_vars.add(c.var.name)
    predicate_of: dict[str, list[str]] = {}  # predicate variable -> rel variables
    clauses: list[str] = []
    where: list[str] = []
    declared: set[str] = set()

    def node(term: pat.Var | str | Literal) -> str:
        if isinstance(term, pat.Var):
            key = "v:" + term.name
            name = node_names.setdefault(key, f"v{len(node_names)}")
            if name in declared:
                return f"({name})"
            declared.add(name)
            if term.name in subject_vars or term.name in entity_object_vars:
                return f"({name}:Entity)"
            return f"({name})"
        key = ("l:" + term.key) if isinstance(term, Literal) else ("e:" + term)
        name = node_names.setdefault(key, f"c{len(node_names)}")
        if name in declared:
            return f"({name})"
        declared.add(name)
        params[name] = term.key if isinstance(term, Literal) else term
        label = "Literal" if isinstance(term, Literal) else "Entity"
        return f"({name}:{label} {{id: ${name}}})"

    for i in join_order(query.patterns):
        pattern = query.patterns[i]
        rel = f"f{i}"
        s, o = node(pattern.subject), node(pattern.object)
        if isinstance(pattern.predicate, pat.Var):
            predicate_of.setdefault(pattern.predicate.name, []).append(rel)
            clauses.append(f"MATCH {s}-[{rel}:Fact]->{o}")
        else:
            params[f"p{i}"] = pattern.predicate
            clauses.append(f"MATCH {s}-[{rel}:Fact]->{o} WHERE {rel}.predicate = $p{i}")
    for rels in predicate_of.values():
        where.extend(f"{rels[0]}.predicate = {r}.predicate" for r in rels[1:])

    def value_expr(var: pat.Var) -> str:
        if var.name in predicate_of:
            return f"{predicate_of[var.name][0]}.predicate"
        return f"{node_names['v:' + var.name]}.id"

    def const_param(value: str | Literal) -> str:
        name = f"k{len(params)}"
        params[name] = value.key if isinstance(value, Literal) else value
        return f"${name}"

    for c in query.constraints:
        target = value_expr(c.var)
        if isinstance(c, pat.NotEqual):
            other = value_expr(c.value) if isinstance(c.value, pat.Var) else const_param(c.value)
            where.append(f"{target} <> {other}")
        elif isinstance(c, pat.NotIn):
            name = f"k{len(params)}"
            params[name] = [v.key if isinstance(v, Literal) else v for v in c.values]
            where.append(f"NOT {target} IN ${name}")
        elif isinstance(c, pat.HasType):
            name = f"k{len(params)}"
            params[name] = c.type_id
            where.append(dialect.has_type(node_names["v:" + c.var.name], f"${name}"))
        elif isinstance(c, pat.IsCvt):
            n = node_names["v:" + c.var.name]
            where.append(f"{n}.is_cvt = {'true' if c.value else 'false'}")
        elif isinstance(c, pat.IsEntity):
            n = node_names["v:" + c.var.name]
            where.append(dialect.has_label(n, "Entity" if c.value else "Literal"))

    returns: list[str] = []
    columns: list[tuple[str, str]] = []
    for i, var in enumerate(query.selected()):
        if var.name in predicate_of:
            returns.append(f"{predicate_of[var.name][0]}.predicate AS r{i}")
            columns.append((var.name, "predicate"))
        elif var.name in subject_vars or var.name in entity_object_vars:
            returns.append(f"{node_names['v:' + var.name]}.id AS r{i}")
            columns.append((var.name, "entity"))
        else:
            n = node_names["v:" + var.name]
            returns.extend([f"{dialect.label_of(n)} AS r{i}k", f"{n}.id AS r{i}",
                            f"{n}.value AS r{i}v",
                            f"{n}.datatype AS r{i}d", f"{n}.lang AS r{i}l"])
            columns.append((var.name, "object"))
    order = ", ".join(r.rsplit(" AS ", 1)[1] for r in returns)
    cypher = " WITH * ".join(clauses)
    if where:
        cypher += " WITH * WHERE " + " AND ".join(where)
    cypher += f" RETURN DISTINCT {', '.join(returns)} ORDER BY {order}"
    if query.limit is not None:
        cypher += " " + inline_limit(query.limit + 1)
    return cypher, params, columns



def match_result(query: pat.PatternQuery, columns: list[tuple[str, str]],
                 rows: list[list[Any]]) -> pat.MatchResult:
    """The :class:`MatchResult` of the rows of a :func:`compile_match` query (its
    ``LIMIT`` is the query's limit + 1: one row more says it was truncated). An
    "object" column group is (label, id, value, datatype, lang) on every engine."""
    variables = [v.name for v in query.selected()]
    truncated = query.limit is not None and len(rows) > query.limit
    if truncated:
        rows = rows[: query.limit]
    bindings: list[pat.Binding] = []
    for row in rows:
        binding: pat.Binding = {}
        i = 0
        for name, kind in columns:
            if kind == "object":
                label, oid, value, datatype, lang = row[i:i + 5]
                binding[name] = Literal(value, datatype, lang) if label == "Literal" \
                    else str(oid)
                i += 5
            else:
                binding[name] = row[i]
                i += 1
        bindings.append(binding)
    return pat.MatchResult(variables=variables, bindings=bindings, truncated=truncated)


# --------------------------------------------------------------------------------------
# Bulk import: staged Parquet -> merged with the store in DuckDB -> COPY
# --------------------------------------------------------------------------------------

# LadybugDB 0.22 keeps everything one COPY loads in its buffer pool until the COPY
# commits, and a COPY that does not fit fails ("Unable to allocate memory! The buffer
# pool is full") rather than spilling. Measured: a 2 GiB pool takes one COPY of 14M
# facts with 26-character predicates, not of 23M (so up to ~150 bytes a fact: both
# directions keep the rel and a copy of its predicate); a 1 GiB pool takes one COPY of
# 8M 35-character Name keys, not of 10M (~130 bytes a row, mostly the primary-key
# index). Imports therefore COPY in batches that fill at most 2/3 of the pool by these
# estimates (the rest for the index pages a COPY reads). A COPY into a non-empty table
# costs more than one into an empty table, and more the bigger the table (five COPYs of
# 4.7M facts each: 10, 23, 29, 37, 30 s; 4.7M facts in four COPYs: 26-31 s, in one:
