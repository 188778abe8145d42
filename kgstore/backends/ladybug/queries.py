"""Every Cypher statement the embedded store runs (but the bookkeeping ones both backends
share, :mod:`kgstore.cypher.bookkeeping`), each a builder that returns
``(query, params)``: the store (:mod:`~kgstore.backends.ladybug.store`), its bulk import
(:mod:`~kgstore.backends.ladybug.importer`), the hub index
(:mod:`~kgstore.backends.ladybug.hub_index`) and the check after a recovered checkpoint
(:mod:`~kgstore.backends.ladybug.recovery`). The graph schema's DDL is
:mod:`~kgstore.backends.ladybug.schema`'s; a user's query is the user's
(:meth:`~kgstore.backends.ladybug.store.LadybugStore.cypher`).

Values go in as parameters; what the query text holds besides is ours: labels, column
lists, counts (:func:`~kgstore.cypher.compile.inline_limit`: LadybugDB plans ``LIMIT
$n`` without pushing it down) and file paths of the import's own work folder as Cypher
string literals (:func:`~kgstore.enginepaths.cypher_path`: ``COPY`` and ``LOAD FROM``
take no parameter). A parameterized text is prepared once per connection, so the
builders make few distinct texts (limits are rounded by the caller where they vary).
"""

from __future__ import annotations

from typing import Any

from kgstore.cypher.compile import inline_limit
from kgstore.hubs import slot_key

Query = tuple[str, dict[str, Any]]
"""A statement and its parameters."""

ENTITY_COLS = "e.id, e.name, e.aliases, e.types, e.is_cvt, e.description"
"""An entity ``e``'s record, in the order :func:`~kgstore.backends.ladybug.store._entity_from_row` reads."""
OBJECT_COLS = ("label(o) AS kind, o.id AS id, o.value AS value, o.datatype AS datatype, "
               "o.lang AS lang")
"""Object ``o`` of a fact: entity or literal; the unused columns come back null."""
# Expansions of one entity (bound as `c`) along Fact edges; one labelled target table
# each, see LadybugStore._expand. Fact reads need the neighbour's id only; neighbourhood
# reads (adjacency) want its record. Aliases and descriptions are most of what a
# record costs to read (a hub's 200 neighbours: 4.1 ms with them, 2.5 ms without, 1.3 ms
# for ids alone, on 5M facts): "lean" reads leave them out, in the same column layout.
# "brief" reads leave the types list out as well: for a walk's typical 110 neighbours,
# 1.8 ms lean, 1.1-1.2 ms brief.
DETAIL_COLS = {
    "full": ENTITY_COLS,
    "lean": "e.id, e.name, NULL, e.types, e.is_cvt, NULL",
    "brief": "e.id, e.name, NULL, NULL, e.is_cvt, NULL",
}
EXPANSIONS = {
    "out": ("-[f:Fact]->(e:Entity)", "e.id"),
    "in": ("<-[f:Fact]-(e:Entity)", "e.id"),
    **{f"{direction}-{detail}": (pattern, cols) for detail, cols in DETAIL_COLS.items()
       for direction, pattern in (("out", "-[f:Fact]->(e:Entity)"),
                                  ("in", "<-[f:Fact]-(e:Entity)"))},
    "literal": ("-[f:Fact]->(e:Literal)", "e.value, e.datatype, e.lang"),
}
"""Expansion kinds: (pattern from ``c``, the columns of the far end ``e``)."""


# -- metadata --------------------------------------------------------------------------

def set_meta(key: str, value: str) -> Query:
    return "MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value}


def set_metas(values: dict[str, str]) -> Query:
    """Several ``Meta`` rows in one statement (one transaction)."""
    return ("UNWIND $rows AS r MERGE (m:Meta {key: r.k}) SET m.value = r.v",
            {"rows": [{"k": k, "v": v} for k, v in values.items()]})


def entity_count() -> Query:
    return "MATCH (e:Entity) RETURN count(e)", {}


def cvt_count() -> Query:
    return "MATCH (e:Entity) WHERE e.is_cvt RETURN count(e)", {}


def literal_count() -> Query:
    return "MATCH (l:Literal) RETURN count(l)", {}


def predicate_count() -> Query:
    return "MATCH (p:Predicate) RETURN count(p)", {}


def name_count() -> Query:
    return "MATCH (n:Name) RETURN count(n)", {}


def fact_count() -> Query:
    return "MATCH ()-[f:Fact]->() RETURN count(f)", {}


def entity_fact_count() -> Query:
    return "MATCH (:Entity)-[f:Fact]->(:Entity) RETURN count(f)", {}


def literal_fact_count() -> Query:
    return "MATCH (:Entity)-[f:Fact]->(:Literal) RETURN count(f)", {}


def tables() -> Query:
    return "CALL show_tables() RETURN name", {}


# -- entity lookups --------------------------------------------------------------------

def entity(id: str) -> Query:
    return f"MATCH (e:Entity {{id: $id}}) RETURN {ENTITY_COLS}", {"id": id}


def entities(ids: list[str]) -> Query:
    return f"UNWIND $ids AS i MATCH (e:Entity {{id: i}}) RETURN {ENTITY_COLS}", {"ids": ids}


def by_name(key: str, cap: int) -> Query:
    return (f"MATCH (n:Name {{key: $k}})-[:NAMES]->(e:Entity) RETURN {ENTITY_COLS} "
            f"{inline_limit(cap)}", {"k": key})


def searchable_entities() -> Query:
    """Every named, non-CVT entity's names: what the search index holds
    (:mod:`kgstore.search_index`)."""
    return ("MATCH (e:Entity) WHERE e.name IS NOT NULL AND NOT e.is_cvt "
            "RETURN e.id AS id, e.name AS name, e.aliases AS aliases", {})


def fact_degrees(outgoing: bool) -> Query:
    """Facts per entity out of it (``outgoing``) or into it, for every entity that has
    any: one grouped scan of the facts."""
    pattern = "(e:Entity)-[f:Fact]->()" if outgoing else "()-[f:Fact]->(e:Entity)"
    return f"MATCH {pattern} RETURN e.id AS id, count(*) AS n", {}


def predicates(limit: int | None, *, aliases: bool) -> Query:
    """Every predicate with its label, count and aliases (``[]`` on a store written
    before the ``aliases`` column), the most used first."""
    column = "p.aliases" if aliases else "[]"
    query = (f"MATCH (p:Predicate) RETURN p.id, p.label, p.count, {column} "
             "ORDER BY p.count DESC, p.id")
    if limit is not None:
        query += " " + inline_limit(limit)
    return query, {}


def predicate_ends(objects: bool) -> Query:
    """Per predicate: its distinct subjects (``objects`` False: of every fact) or
    entity objects, and how many of them have exactly one such fact."""
    column, target = ("o.id", "(o:Entity)") if objects else ("s.id", "(o)")
    return (f"MATCH (s:Entity)-[f:Fact]->{target} WITH f.predicate AS p, {column} AS e, "
            "count(*) AS c RETURN p, count(*) AS n_ends, "
            "sum(CASE WHEN c = 1 THEN 1 ELSE 0 END) AS n_single", {})


def type_counts() -> Query:
    return "MATCH (e:Entity) UNWIND e.types AS t RETURN t, count(*)", {}


def predicate_degrees(ids: list[str], outgoing: bool) -> Query:
    """``(id, predicate, facts)`` of each entity of ``ids``: its facts out, or in from
    entities, per predicate (the UNWIND + primary-key MATCH form, see :func:`expansions`)."""
    pattern = "-[f:Fact]->()" if outgoing else "<-[f:Fact]-(:Entity)"
    return ("UNWIND $ids AS i MATCH (c:Entity {id: i}) "
            f"MATCH (c){pattern} RETURN c.id, f.predicate, count(*)", {"ids": ids})


def fact_rows_to(path: str) -> Query:
    """Every fact as :data:`kgstore.predicate_stats.FACT_SCHEMA` rows, written to the
    Parquet file ``path`` (a Cypher string literal)."""
    return ("COPY (MATCH (s:Entity)-[f:Fact]->(o) RETURN s.id AS subject, "
            "f.predicate AS predicate, o.id AS object, "
            "CASE WHEN label(o) = 'Literal' THEN 'L' ELSE 'E' END AS object_kind, "
            f"o.value AS value, o.datatype AS datatype, o.lang AS lang) TO {path}", {})


# -- facts -----------------------------------------------------------------------------

def expansion(id: str, kind: str, predicate: str | None, cap: int) -> Query:
    """Rows ``[predicate, *columns]`` of one expansion of entity ``id`` (``kind`` a key
    of :data:`EXPANSIONS`), at most ``cap``."""
    pattern, columns = EXPANSIONS[kind]
    where, params = "", {"id": id}
    if predicate is not None:
        where, params["p"] = "WHERE f.predicate = $p ", predicate
    return (f"MATCH (c:Entity {{id: $id}}){pattern} {where}"
            f"RETURN f.predicate, {columns} {inline_limit(cap)}", params)


def facts_up_to(id: str, outgoing: bool, cap: int) -> Query:
    """How many facts leave (``outgoing``, to entities and literals) or reach entity
    ``id``, counted no further than ``cap``: the engine stops reading a hub there, and
    reads no record at the other end."""
    pattern = "-[f:Fact]->()" if outgoing else "<-[f:Fact]-()"
    return (f"MATCH (c:Entity {{id: $id}}){pattern} WITH f {inline_limit(cap)} "
            "RETURN count(*)", {"id": id})


def hub_slot(id: str, kind: str, predicate: str, cap: int) -> Query:
    """:func:`expansion` of a hub's incoming facts of one predicate, from its slot of
    the hub index: the same rows in the same order."""
    _, columns = EXPANSIONS[kind]
    return (f"MATCH (k:InSlot {{key: $k}})-[:IN_SLOT]->(e:Entity) "
            f"RETURN k.predicate, {columns} {inline_limit(cap)}",
            {"k": slot_key(id, predicate)})


def expansions(ids: list[str], kind: str, predicate: str, cap: int) -> Query:
    """Rows ``[id, *columns]`` of the ``predicate`` expansion of every entity of
    ``ids`` (an id without such facts: one row of nulls), at most ``cap``.

    UNWIND + a primary-key MATCH + OPTIONAL MATCH is a batch of index lookups; an
    UNWIND straight into the two-node pattern, a MATCH ... MATCH or an ``IN $ids``
    filter all make LadybugDB 0.22 scan every edge (0.5 s on 1M facts)."""
    pattern, columns = EXPANSIONS[kind]
    return (f"UNWIND $ids AS i MATCH (c:Entity {{id: i}}) OPTIONAL MATCH (c){pattern} "
            f"WHERE f.predicate = $p RETURN c.id, {columns} {inline_limit(cap)}",
            {"ids": ids, "p": predicate})


def hubs() -> Query:
    return "MATCH (h:Hub) RETURN h.id", {}


# -- sampling --------------------------------------------------------------------------

def sample_conditions(named_only: bool, include_cvt: bool) -> list[str]:
    """The WHERE conditions on entity ``e`` of a sample's two flags (the typed-sample
    prefix scan must select exactly the same entities)."""
    conditions = []
    if named_only:
        conditions.append("e.name IS NOT NULL")
    if not include_cvt:
        conditions.append("NOT e.is_cvt")
    return conditions


def sample_entities(k: int, salt: str, type_id: str | None, named_only: bool,
                    include_cvt: bool) -> Query:
    """The first ``k`` entities by ``md5(id || salt)``: a seeded shuffle that needs no
    RNG state in the database and gives the same sample for the same store and seed."""
    conditions = sample_conditions(named_only, include_cvt)
    params: dict[str, Any] = {"salt": salt}
    if type_id is not None:
        conditions.insert(0, "list_contains(e.types, $t)")
        params["t"] = type_id
    where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
    return (f"MATCH (e:Entity) {where} RETURN {ENTITY_COLS}, md5(concat(e.id, $salt)) AS h "
            f"ORDER BY h {inline_limit(k)}", params)


def typed_sample_heads(salt: str, cut: str, named_only: bool, include_cvt: bool) -> Query:
    """``(type, id, hash)`` of every entity whose salted hash is below ``cut``, in hash
    order, once per type it has."""
    conditions = ["h < $cut", *sample_conditions(named_only, include_cvt)]
    return ("MATCH (e:Entity) WITH e, md5(concat(e.id, $salt)) AS h "
            f"WHERE {' AND '.join(conditions)} "
            "UNWIND e.types AS t RETURN t, e.id, h ORDER BY h", {"salt": salt, "cut": cut})


def named_type_counts() -> Query:
    """Named, non-CVT members per type (the entities a typed sample draws from)."""
    return ("MATCH (e:Entity) WHERE e.name IS NOT NULL AND NOT e.is_cvt "
            "UNWIND e.types AS t RETURN t, count(*)", {})


def type_sample_rows(salt: str, cut: str, small: list[str]) -> Query:
    """``(type, id)`` of every named, non-CVT entity, once per type it has, whose
    salted hash is below ``cut`` or whose type is one of ``small``, in hash order."""
    return ("MATCH (e:Entity) WHERE e.name IS NOT NULL AND NOT e.is_cvt "
            "WITH e, md5(concat(e.id, $salt)) AS h UNWIND e.types AS t "
            "WITH t, e, h WHERE h < $cut OR list_contains($small, t) "
            "RETURN t, e.id ORDER BY h", {"salt": salt, "cut": cut, "small": small})


def sample_facts(k: int, salt: str, predicate: str | None) -> Query:
    params: dict[str, Any] = {"salt": salt}
    where = ""
    if predicate is not None:
        where = "WHERE f.predicate = $p"
        params["p"] = predicate
    return (f"MATCH (s:Entity)-[f:Fact]->(o) {where} "
            f"RETURN s.id, f.predicate, {OBJECT_COLS}, "
            f"md5(concat(s.id, '|', f.predicate, '|', o.id, $salt)) AS h ORDER BY h "
            f"{inline_limit(k)}", params)


# -- whole-store scans -----------------------------------------------------------------

def all_entities() -> Query:
    return f"MATCH (e:Entity) RETURN {ENTITY_COLS} ORDER BY e.id", {}


def all_facts() -> Query:
    return (f"MATCH (s:Entity)-[f:Fact]->(o) RETURN s.id, f.predicate, {OBJECT_COLS} "
            "ORDER BY s.id, f.predicate, o.id", {})


# -- bulk import (each reads or writes whole tables; ``path``: a Cypher string literal) --

def copy(table: str, path: str, options: str = "") -> Query:
    return f"COPY {table} FROM {path}{options}", {}


def stored_entities() -> Query:
    return ("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.aliases AS aliases, "
            "e.types AS types, e.is_cvt AS is_cvt, e.description AS description", {})


def update_entities(path: str) -> Query:
    return (f"LOAD FROM {path} MATCH (e:Entity {{id: id}}) SET e.name = name, "
            "e.aliases = aliases, e.types = types, e.is_cvt = is_cvt, "
            "e.description = description", {})


def stored_literal_ids() -> Query:
    return "MATCH (l:Literal) RETURN l.id AS id", {}


def stored_facts_of(path: str) -> Query:
    """The stored facts of the subjects listed (column ``sid``) in the file ``path``."""
    return (f"LOAD FROM {path} MATCH (s:Entity {{id: sid}})-[f:Fact]->(o) "
            "RETURN s.id AS subject, f.predicate AS predicate, o.id AS object", {})


def stored_name_keys() -> Query:
    return "MATCH (n:Name) RETURN n.key AS key", {}


def stored_names_of(path: str) -> Query:
    """The name keys of the entities listed (column ``eid``) in the file ``path``."""
    return (f"LOAD FROM {path} MATCH (n:Name)-[:NAMES]->(e:Entity {{id: eid}}) "
            "RETURN n.key AS key, e.id AS id", {})


def delete_name_links(path: str) -> Query:
    """Delete the ``(key k, entity eid)`` name links listed in the file ``path``."""
    return (f"LOAD FROM {path} MATCH (n:Name {{key: k}})-[r:NAMES]->(e:Entity {{id: eid}}) "
            "DELETE r", {})


def predicate_columns() -> Query:
    return "CALL table_info('Predicate') RETURN name", {}


def stored_predicates() -> Query:
    return ("MATCH (p:Predicate) RETURN p.id AS id, p.label AS label, p.aliases AS aliases",
            {})


def relabel_predicates(path: str) -> Query:
    return (f"LOAD FROM {path} MATCH (p:Predicate {{id: id}}) "
            "SET p.label = label, p.aliases = aliases", {})


def fact_counts() -> Query:
    return "MATCH ()-[f:Fact]->() RETURN f.predicate AS id, count(*) AS n", {}


def set_predicate_counts(path: str) -> Query:
    return f"LOAD FROM {path} MATCH (p:Predicate {{id: id}}) SET p.count = n", {}


def in_degrees_of(path: str) -> Query:
    """The in-degree of each entity listed (column ``oid``) in the file ``path``."""
    return (f"LOAD FROM {path} MATCH (o:Entity {{id: oid}})"
            "<-[f:Fact]-(:Entity) RETURN oid AS id, count(*) AS n", {})


def incoming_facts_of(path: str) -> Query:
    """The incoming facts of the hubs listed (column ``hid``) in the file ``path``."""
    return (f"LOAD FROM {path} MATCH (o:Entity {{id: hid}})"
            "<-[f:Fact]-(s:Entity) RETURN o.id AS hub, "
            "f.predicate AS predicate, s.id AS subject", {})


def delete_hubs(path: str) -> Query:
    return f"LOAD FROM {path} MATCH (h:Hub {{id: hid}}) DELETE h", {}


def delete_slots(path: str) -> Query:
    return f"LOAD FROM {path} MATCH (k:InSlot {{key: key}}) DETACH DELETE k", {}


# -- recovery checks -------------------------------------------------------------------

def row_count(table: str) -> Query:
    return f"MATCH (x:{table}) RETURN count(x)", {}


def key_sample(table: str, key: str, step: int, sample: int) -> Query:
    """Every ``step``-th row's ``key`` of node table ``table`` by offset, at most ``sample``."""
    return (f"MATCH (x:{table}) WHERE offset(id(x)) % $step = 0 RETURN x.{key} LIMIT {sample}",
            {"step": step})


def keys_found(table: str, key: str, keys: list[Any]) -> Query:
    return (f"UNWIND $keys AS k MATCH (x:{table} {{{key}: k}}) RETURN count(x)",
            {"keys": keys})


def source_files() -> Query:
    return "MATCH (s:Source) RETURN s.file", {}
