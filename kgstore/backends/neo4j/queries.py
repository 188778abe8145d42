"""Every Cypher statement the Neo4j store runs (but the bookkeeping ones both backends
share, :mod:`kgstore.cypher.bookkeeping`), each a builder that returns ``(query,
params)``: the store's reads and writes (:mod:`~kgstore.backends.neo4j.store`) and its
online import (:mod:`~kgstore.backends.neo4j.importer`). The constraints and indexes are
:mod:`~kgstore.backends.neo4j.schema`'s; a user's query is the user's
(:meth:`~kgstore.backends.neo4j.store.Neo4jStore.cypher`).

Values go in as parameters (limits too: Neo4j plans ``LIMIT $n`` well); what the text
holds besides is ours (labels, column lists).

**Order.** Neo4j returns a node's relationships in no defined order, so every read
orders explicitly, in the embedded store's order: a node's outgoing facts by
(predicate, object id), entity objects before literals; its incoming facts by (subject
id, predicate); windows (``LIMIT``) are prefixes of those orders.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from kgstore.hubs import SLOT_SEPARATOR, slot_key

Query = tuple[str, dict[str, Any]]
"""A statement and its parameters."""

IDS_PER_QUERY = 2_000
"""Ids per ``UNWIND`` query of a batch lookup (bounds one parameter list and one result)."""

ENTITY_COLS = "e.id, e.name, e.aliases, e.types, e.is_cvt, e.description"
"""An entity ``e``'s record, in the order :func:`~kgstore.cypher.rows.entity_from_row` reads."""
# Records of a neighbour at each detail (:data:`~kgstore.models.EntityDetail`); Neo4j
# wants distinct column names.
DETAIL_COLS = {
    "full": ENTITY_COLS,
    "lean": "e.id, e.name, NULL AS aliases, e.types, e.is_cvt, NULL AS description",
    "brief": "e.id, e.name, NULL AS aliases, NULL AS types, e.is_cvt, NULL AS description",
}


# -- several reads in one statement -----------------------------------------------------

def together(queries: Sequence[Query]) -> Query:
    """One statement for several reads, each query of :func:`rows_as_lists`'s form:
    its one row holds, per query in order, that query's rows (lists of its columns,
    in its order), so the reads cost one network round trip instead of one each.
    Each query's parameters are renamed apart (``$n`` of the second: ``$q1_n``); each
    runs in a subquery of its own that returns one row even when it finds nothing."""
    parts, params = [], {}
    for k, (query, values) in enumerate(queries):
        prefix = f"q{k}_"
        body = re.sub(r"\$(?=\w)", "$" + prefix, rows_as_lists(query))
        parts.append(f"CALL () {{ CALL () {{ {body} }} RETURN collect(row) AS r{k} }}")
        params.update({prefix + name: value for name, value in values.items()})
    return " ".join(parts) + " RETURN " + ", ".join(f"r{k}" for k in range(len(queries))), params


@functools.lru_cache(maxsize=256)   # a few builders' texts, over and over
def rows_as_lists(query: str) -> str:
    """``query`` (a builder's read) returning its columns as one list, ``row``: its last
    top-level ``RETURN a, b AS x ORDER BY ... LIMIT ...`` becomes ``RETURN [a, b] AS row
    ORDER BY ... LIMIT ...`` (its ``ORDER BY`` may name variables, not the aliases)."""
    start = _top_level(query, " RETURN ")[-1] + len(" RETURN ")
    tail = query[start:]
    ends = [*_top_level(tail, " ORDER BY "), *_top_level(tail, " LIMIT "), len(tail)]
    end = min(ends)
    items = [re.sub(r"\s+AS\s+\w+$", "", item.strip())
             for item in _split_top_level(tail[:end])]
    return f"{query[:start]}[{', '.join(items)}] AS row{tail[end:]}"


def _depths(text: str) -> list[int]:
    """The bracket depth (``()``, ``[]``, ``{}``) at each character of ``text``."""
    depth, out = 0, []
    for ch in text:
        if ch in ")]}":
            depth -= 1
        out.append(depth)
        if ch in "([{":
            depth += 1
    return out


def _top_level(text: str, word: str) -> list[int]:
    depth = _depths(text)
    return [m.start() for m in re.finditer(re.escape(word), text) if depth[m.start()] == 0]


def _split_top_level(text: str) -> list[str]:
    depth = _depths(text)
    cuts = [i for i, ch in enumerate(text) if ch == "," and depth[i] == 0]
    return [text[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(text)], strict=True)]


# -- metadata --------------------------------------------------------------------------

def schema_version() -> Query:
    return "MATCH (m:Meta {key: 'schema_version'}) RETURN m.value", {}


def foreign_node(ours: list[str]) -> Query:
    """Labels of one node that is not a ``Meta`` node keyed by one of ``ours``."""
    return ("MATCH (n) WHERE NOT (n:Meta AND n.key IN $ours AND size(labels(n)) = 1) "
            "RETURN labels(n) LIMIT 1", {"ours": ours})


def await_indexes() -> Query:
    return "CALL db.awaitIndexes(600)", {}


def set_meta(values: dict[str, str]) -> Query:
    return ("UNWIND $rows AS r MERGE (m:Meta {key: r.k}) SET m.value = r.v",
            {"rows": [{"k": k, "v": v} for k, v in values.items()]})


def stats() -> list[Query]:
    """Facts, literal facts, entities, CVTs, literals, predicates, schema version."""
    return [(query, {}) for query in (
        "MATCH ()-[f:Fact]->() RETURN count(f)",
        "MATCH ()-[f:Fact]->(:Literal) RETURN count(f)",
        "MATCH (e:Entity) RETURN count(e)",
        "MATCH (e:Entity) WHERE e.is_cvt RETURN count(e)",
        "MATCH (l:Literal) RETURN count(l)",
        "MATCH (p:Predicate) RETURN count(p)",
        "MATCH (m:Meta {key: 'schema_version'}) RETURN toInteger(m.value)",
    )]


# -- entity lookups --------------------------------------------------------------------

def entities(ids: list[str]) -> Query:
    return f"UNWIND $ids AS i MATCH (e:Entity {{id: i}}) RETURN {ENTITY_COLS}", {"ids": ids}


def by_name(key: str, limit: int) -> Query:
    return (f"MATCH (n:Name {{key: $k}})-[:NAMES]->(e:Entity) RETURN {ENTITY_COLS} "
            "ORDER BY e.id LIMIT $n", {"k": key, "n": limit})


# A found entity's rank keys (kgstore.search_index): how it matched, then its degree.
_SEARCH_RANKED = ("MATCH (n)-[:NAMES]->(e:Entity) WHERE e.name IS NOT NULL AND NOT e.is_cvt "
                  "{also} WITH e, min({kind}) AS kind "
                  "WITH e, kind, COUNT {{ (e)-[:Fact]-() }} AS degree "
                  f"RETURN {ENTITY_COLS}, kind, degree ORDER BY kind, degree DESC, e.id "
                  "LIMIT $n")


def search_words(query: str, limit: int) -> Query:
    """Entities with a folded name or alias (``Name.fold``) that is ``query`` (kind 0)
    or has a word starting with it (kind 1), the best ``limit`` (columns: the record,
    kind, degree). ``STARTS WITH`` is a seek of the range index, ``CONTAINS`` of the
    text index."""
    return ("CALL () { MATCH (n:Name) WHERE n.fold STARTS WITH $q RETURN n UNION "
            "MATCH (n:Name) WHERE n.fold CONTAINS $word RETURN n } "
            + _SEARCH_RANKED.format(also="", kind="CASE WHEN n.fold = $q THEN 0 ELSE 1 END"),
            {"q": query, "word": f" {query}", "n": limit})


def search_substrings(query: str, found: list[str], limit: int) -> Query:
    """Entities not among ``found`` with a folded name holding ``query`` (kind 2)."""
    return ("MATCH (n:Name) WHERE n.fold CONTAINS $q "
            + _SEARCH_RANKED.format(also="AND NOT e.id IN $found", kind="2"),
            {"q": query, "found": found, "n": limit})


def names_without_fold(after: str, limit: int) -> Query:
    """Up to ``limit`` keys of ``Name`` nodes without a search key, after ``after``, in
    key order (a seek of the key's index: a store of millions is paged, not scanned)."""
    return ("MATCH (n:Name) WHERE n.key > $after AND n.fold IS NULL RETURN n.key "
            "ORDER BY n.key LIMIT $n", {"after": after, "n": limit})


def set_folds(rows: list[dict[str, Any]]) -> Query:
    return "UNWIND $rows AS r MATCH (n:Name {key: r.k}) SET n.fold = r.f", {"rows": rows}
def names_of(ids: list[str], limit: int) -> Query:
    """``[key, *record]``: for every name and alias key of the entities ``ids``, the
    entities it names, :func:`by_name`'s first ``limit`` of each."""
    return ("UNWIND $ids AS i MATCH (:Entity {id: i})<-[:NAMES]-(n:Name) WITH DISTINCT n "
            "CALL (n) { MATCH (n)-[:NAMES]->(e:Entity) RETURN e ORDER BY e.id LIMIT $n } "
            f"RETURN n.key, {ENTITY_COLS}", {"ids": ids, "n": limit})


def metas(keys: list[str]) -> Query:
    return "UNWIND $keys AS k MATCH (m:Meta {key: k}) RETURN m.key, m.value", {"keys": keys}



def predicates(limit: int | None) -> Query:
    query = ("MATCH (p:Predicate) RETURN p.id, p.label, p.count, p.aliases "
             "ORDER BY p.count DESC, p.id")
    if limit is None:
        return query, {}
    return query + " LIMIT $n", {"n": limit}


def predicate_ends() -> list[Query]:
    """Per predicate, of every fact's subject and then of its entity objects: how many
    there are, and how many of them have exactly one such fact."""
    return [(f"MATCH (s:Entity)-[f:Fact]->{target} WITH f.predicate AS p, {end} AS e, "
             "count(*) AS c RETURN p, count(*), sum(CASE WHEN c = 1 THEN 1 ELSE 0 END)", {})
            for target, end in (("(o)", "s"), ("(o:Entity)", "o"))]


def type_counts() -> Query:
    return "MATCH (e:Entity) UNWIND e.types AS t RETURN t, count(*) ORDER BY t", {}


def any_fact() -> Query:
    return "MATCH ()-[f:Fact]->() RETURN 1 LIMIT 1", {}


def predicate_degrees(ids: list[str], outgoing: bool) -> Query:
    """``(id, predicate, facts)`` of each entity of ``ids``: its facts out, or in from
    entities, per predicate."""
    pattern = "-[f:Fact]->()" if outgoing else "<-[f:Fact]-(:Entity)"
    return (f"UNWIND $ids AS i MATCH (c:Entity {{id: i}}){pattern} "
            "RETURN i, f.predicate, count(*)", {"ids": ids})


def hubs() -> Query:
    """Every hub's id, and whether its node lists its head (:func:`mark_hub`)."""
    return "MATCH (h:Hub) RETURN h.id, h.head_subjects IS NOT NULL", {}


# -- facts -----------------------------------------------------------------------------

def out_facts(id: str, predicate: str | None, cols: str, literal: bool, limit: int) -> Query:
    """``[predicate, *columns]`` of ``id``'s outgoing facts to entities (``cols`` of the
    object ``e``) or to literals (value, datatype, lang)."""
    where = " WHERE f.predicate = $p" if predicate is not None else ""
    params = {"id": id, "p": predicate, "n": limit}
    if literal:
        return (f"MATCH (:Entity {{id: $id}})-[f:Fact]->(o:Literal){where} "
                "RETURN f.predicate, o.value, o.datatype, o.lang "
                "ORDER BY f.predicate, o.id LIMIT $n", params)
    return (f"MATCH (:Entity {{id: $id}})-[f:Fact]->(e:Entity){where} "
            f"RETURN f.predicate, {cols} ORDER BY f.predicate, e.id LIMIT $n", params)


def in_facts(id: str, predicate: str | None, cols: str, limit: int, *, hub: bool,
             head: bool = False) -> Query:
    """``[predicate, *columns]`` of ``id``'s incoming facts (``cols`` of the subject
    ``e``); one predicate of a ``hub`` from its slot of the hub index, not a filter over
    every incoming fact; a window of all of a hub's whose node lists its ``head``
    (:func:`mark_hub`) of at most :data:`HUB_HEAD` from that list."""
    if predicate is not None and hub:
        return (f"MATCH (:InSlot {{key: $k}})-[:IN_SLOT]->(e:Entity) "
                f"RETURN $p, {cols} ORDER BY e.id LIMIT $n",
                {"k": slot_key(id, predicate), "p": predicate, "n": limit})
    if hub and head and limit <= HUB_HEAD:
        # One index seek per fact of the window: no read of the hub's other facts.
        return ("MATCH (h:Hub {id: $id}) "
                "UNWIND range(0, size(h.head_subjects[0..$n]) - 1) AS i "
                "MATCH (e:Entity {id: h.head_subjects[i]}) "
                f"RETURN h.head_predicates[i] AS p, {cols} ORDER BY i",
                {"id": id, "n": limit})
    if hub:
        # The first of each of the hub's slots, merged: the same window as the filter
        # below, which sorts every incoming fact (400k facts: 200 ms, against 5 ms).
        return ("MATCH (k:InSlot) WHERE k.key STARTS WITH $prefix "
                "CALL (k) { MATCH (k)-[:IN_SLOT]->(e:Entity) RETURN e ORDER BY e.id LIMIT $n } "
                f"RETURN k.predicate AS p, {cols} ORDER BY e.id, k.predicate LIMIT $n",
                {"prefix": id + SLOT_SEPARATOR, "n": limit})
    where = " WHERE f.predicate = $p" if predicate is not None else ""
    return (f"MATCH (:Entity {{id: $id}})<-[f:Fact]-(e:Entity){where} "
            f"RETURN f.predicate, {cols} ORDER BY e.id, f.predicate LIMIT $n",
            {"id": id, "p": predicate, "n": limit})


def neighbourhoods(kind: str, ids: list[str], limit: int) -> Query:
    """``[id, predicate, *columns]`` of every entity of ``ids``: its facts of ``kind``
    ("out": entity objects, "in": subjects, brief records; "literal": value, datatype,
    lang), at most ``limit`` per id, each id's in :func:`out_facts` / :func:`in_facts`
    order (a window of each is a prefix of the one-id read)."""
    if kind == "literal":
        pattern, order, cols = ("-[f:Fact]->(e:Literal)", "p, e.id",
                                "e.value, e.datatype, e.lang")
    else:
        pattern = "-[f:Fact]->(e:Entity)" if kind == "out" else "<-[f:Fact]-(e:Entity)"
        order = "p, e.id" if kind == "out" else "e.id, p"
        cols = DETAIL_COLS["brief"]
    return ("UNWIND $ids AS i MATCH (c:Entity {id: i}) "
            f"CALL (c) {{ MATCH (c){pattern} RETURN f.predicate AS p, e "
            f"ORDER BY {order} LIMIT $n }} RETURN i, p, {cols}", {"ids": ids, "n": limit})


def facts_of_many(kind: str, ids: list[str], predicate: str, limit: int) -> Query:
    """``[id, *columns]`` of the ``predicate`` facts of every entity of ``ids``
    (``kind`` "out": entity objects, "literal": literal objects, "in": subjects), in
    the order of ``ids`` and then of each id's facts."""
    head = "UNWIND range(0, size($ids) - 1) AS i MATCH (c:Entity {id: $ids[i]})"
    params = {"ids": ids, "p": predicate, "n": limit}
    if kind == "out":
        return (f"{head}-[f:Fact]->(e:Entity) WHERE f.predicate = $p "
                "RETURN c.id, e.id ORDER BY i, e.id LIMIT $n", params)
    if kind == "literal":
        return (f"{head}-[f:Fact]->(o:Literal) WHERE f.predicate = $p "
                "RETURN c.id, o.value, o.datatype, o.lang ORDER BY i, o.id LIMIT $n", params)
    return (f"{head}<-[f:Fact]-(e:Entity) WHERE f.predicate = $p "
            "RETURN c.id, e.id ORDER BY i, e.id LIMIT $n", params)


# -- sampling --------------------------------------------------------------------------

def sample_entity_ids(type_id: str | None, named_only: bool, include_cvt: bool) -> Query:
    """The ids a sample is drawn from (the store orders them by salted md5)."""
    conditions = []
    if type_id is not None:
        conditions.append("$t IN e.types")
    if named_only:
        conditions.append("e.name IS NOT NULL")
    if not include_cvt:
        conditions.append("NOT e.is_cvt")
    where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
    return f"MATCH (e:Entity) {where} RETURN e.id", {"t": type_id}


def entity_count() -> Query:
    return "MATCH (e:Entity) RETURN count(e)", {}


def named_entity_types() -> Query:
    """Id and types of every named, non-CVT entity (what a typed sample draws from)."""
    return "MATCH (e:Entity) WHERE e.name IS NOT NULL AND NOT e.is_cvt RETURN e.id, e.types", {}


def sample_fact_keys(predicate: str | None) -> Query:
    """``subject|predicate|object``, subject, predicate, object id, whether a literal:
    of every fact (of ``predicate``), for the salted md5 order."""
    where = "WHERE f.predicate = $p" if predicate is not None else ""
    return (f"MATCH (s:Entity)-[f:Fact]->(o) {where} "
            "RETURN s.id + '|' + f.predicate + '|' + o.id, s.id, f.predicate, o.id, "
            "o:Literal", {"p": predicate})


def literals(ids: list[str]) -> Query:
    return ("UNWIND $ids AS i MATCH (l:Literal {id: i}) "
            "RETURN l.id, l.value, l.datatype, l.lang", {"ids": ids})


# -- whole-store scans -----------------------------------------------------------------

def all_entities() -> Query:
    return f"MATCH (e:Entity) RETURN {ENTITY_COLS} ORDER BY e.id", {}


def all_facts() -> Query:
    return ("MATCH (s:Entity)-[f:Fact]->(o) "
            "RETURN s.id, f.predicate, o:Literal, o.id, o.value, o.datatype, o.lang "
            "ORDER BY s.id, f.predicate, o.id", {})


def delete_relationships(label: str) -> Query:
    """Delete the relationships of ``label``'s nodes, in batches (a hub's in one
    transaction would pass the server's memory limit)."""
    return (f"MATCH (n:{label})-[r]-() CALL (r) {{ DELETE r }} "
            "IN TRANSACTIONS OF 10000 ROWS", {})


def delete_nodes(label: str) -> Query:
    return (f"MATCH (n:{label}) CALL (n) {{ DETACH DELETE n }} "
            "IN TRANSACTIONS OF 10000 ROWS", {})


# -- online import: what the store holds of a batch of ``ids``, and batches of rows, one
# write transaction each. A batch travels as columns (one list per property, ``UNWIND
# range(...)`` over them): no key names repeated per row, a third of the client's
# packing time of a list of maps. Nodes the import has met are then found by their
# ``elementId`` (a direct seek) rather than by their key (an index seek): a fact costs
# the server ~25 µs instead of ~40. ----------------------------------------------------

Columns = dict[str, list[Any]]
"""A batch of rows as one list per column, all of one length."""

_EACH = "UNWIND range(0, size($id) - 1) AS i "
_ENTITY_PROPS = ("name: $name[i], aliases: $aliases[i], types: $types[i], "
                 "is_cvt: $is_cvt[i], description: $description[i]")


_NEW_REFS = "RETURN collect($id[i]), collect(elementId(e))"
"""What a ``CREATE`` of nodes ``e`` from rows ``i`` returns: (ids, element ids)."""


def entities_and_literals() -> list[Query]:
    """How many entity nodes, and literal nodes, there are (Neo4j's count store: no
    scan)."""
    return [("MATCH (e:Entity) RETURN count(e)", {}), ("MATCH (l:Literal) RETURN count(l)", {})]


def stored_entities(ids: list[str]) -> Query:
    """The records of the stored entities among ``ids``, and their element ids."""
    return ("UNWIND $ids AS i MATCH (e:Entity {id: i}) "
            "RETURN e.id, e.name, e.aliases, e.types, e.is_cvt, e.description, elementId(e)",
            {"ids": ids})


def create_entities(cols: Columns) -> Query:
    """New entities (the import found none of these ids); one row: their ids and element
    ids, two lists (one record, not one per node: the client's cost of a record is
    most of a node's)."""
    return (_EACH + f"CREATE (e:Entity {{id: $id[i], {_ENTITY_PROPS}}}) "
            + _NEW_REFS, cols)


def update_entities(cols: Columns) -> Query:
    """Stored entities (``ref``: element id) with their merged records."""
    return (_EACH + "MATCH (e) WHERE elementId(e) = $ref[i] SET e.name = $name[i], "
            "e.aliases = $aliases[i], e.types = $types[i], e.is_cvt = $is_cvt[i], "
            "e.description = $description[i]", cols)


def stored_literal_ids(ids: list[str]) -> Query:
    return ("UNWIND $ids AS i MATCH (l:Literal {id: i}) RETURN l.id, elementId(l)",
            {"ids": ids})


def create_literals(cols: Columns) -> Query:
    """New literals; their ids and element ids (as :func:`create_entities`)."""
    return (_EACH + "CREATE (e:Literal {id: $id[i], value: $value[i], datatype: $datatype[i], "
            "lang: $lang[i], num: $num[i], date: $date[i]}) " + _NEW_REFS, cols)


def stored_facts(ids: list[str]) -> Query:
    return ("UNWIND $ids AS i MATCH (s:Entity {id: i})-[f:Fact]->(o) "
            "RETURN s.id, f.predicate, o.id",
            {"ids": ids})


def unmark_hubs(ids: list[str]) -> Query:
    return "UNWIND $ids AS i MATCH (h:Hub {id: i}) DELETE h", {"ids": ids}


def create_facts(cols: Columns) -> Query:
    """Facts from subject ``s`` to object ``o`` (element ids of an entity, and of an
    entity or a literal) with predicate ``p``; how many were written (fewer only
    when a node went away during the import)."""
    return ("UNWIND range(0, size($s) - 1) AS i MATCH (s) WHERE elementId(s) = $s[i] "
            "MATCH (o) WHERE elementId(o) = $o[i] CREATE (s)-[:Fact {predicate: $p[i]}]->(o) "
            "RETURN count(*)", cols)


def in_degrees(ids: list[str]) -> Query:
    return ("UNWIND $ids AS i MATCH (o:Entity {id: i}) "
            "RETURN o.id, COUNT { (o)<-[:Fact]-() }, EXISTS { MATCH (:Hub {id: i}) }",
            {"ids": ids})


def delete_slots(hub: str) -> Query:
    return ("MATCH (k:InSlot) WHERE k.key STARTS WITH $prefix "
            "CALL (k) { DETACH DELETE k } IN TRANSACTIONS OF 10000 ROWS",
            {"prefix": hub + SLOT_SEPARATOR})


def fill_slots(hub: str) -> Query:
    return ("MATCH (:Entity {id: $h})<-[f:Fact]-(s:Entity) "
            "CALL (f, s) { MERGE (k:InSlot {key: $h + $sep + f.predicate}) "
            "ON CREATE SET k.predicate = f.predicate CREATE (k)-[:IN_SLOT]->(s) } "
            "IN TRANSACTIONS OF 10000 ROWS", {"h": hub, "sep": SLOT_SEPARATOR})


HUB_HEAD = 256
"""Incoming facts of a hub that its ``Hub`` node lists, in the window order of
:func:`in_facts` (subject id, predicate): the extension engine's windows of a node's
facts (48, 200) then read no more of a hub's thousands than they return, where the
merge of its slots' first facts read every one of them (43k facts: 95 ms)."""


def mark_hub(hub: str) -> Query:
    """``hub``'s node, with its head: the subjects and predicates of its first
    :data:`HUB_HEAD` incoming facts in window order, two lists (its slots are filled:
    its ``Hub`` node comes last, see :mod:`~kgstore.backends.neo4j.importer`)."""
    return ("MATCH (:Entity {id: $h})<-[f:Fact]-(s:Entity) "
            "WITH s.id AS s, f.predicate AS p ORDER BY s, p LIMIT $n "
            "WITH collect(s) AS subjects, collect(p) AS predicates "
            "MERGE (h:Hub {id: $h}) "
            "SET h.head_subjects = subjects, h.head_predicates = predicates",
            {"h": hub, "n": HUB_HEAD})


def stored_names(ids: list[str]) -> Query:
    return ("UNWIND $ids AS i MATCH (n:Name)-[:NAMES]->(e:Entity {id: i}) RETURN n.key, e.id",
            {"ids": ids})


def create_names(cols: Columns) -> Query:
    """Links from each name ``k`` (made where missing, with ``f`` its search key:
    :func:`kgstore.search_index.fold`) to the entities of element ids ``e`` (a list per
    name) that it does not name yet."""
    return ("UNWIND range(0, size($k) - 1) AS i MERGE (n:Name {key: $k[i]}) "
            "SET n.fold = $f[i] WITH n, i "
            "UNWIND $e[i] AS ref MATCH (e) WHERE elementId(e) = ref CREATE (n)-[:NAMES]->(e)",
            cols)


def delete_names(cols: Columns) -> Query:
    return ("UNWIND range(0, size($k) - 1) AS i "
            "MATCH (:Name {key: $k[i]})-[l:NAMES]->(:Entity {id: $id[i]}) DELETE l", cols)


def stored_predicates(ids: list[str]) -> Query:
    return ("UNWIND $ids AS i MATCH (p:Predicate {id: i}) RETURN p.id, p.label, p.aliases",
            {"ids": ids})


def write_predicates(cols: Columns) -> Query:
    """Predicates with their counts from the store's facts (right even after an
    interrupted import that stored facts but not counts): one index seek each."""
    return (_EACH + "MERGE (p:Predicate {id: $id[i]}) "
            "SET p.label = $label[i], p.aliases = $aliases[i] "
            "WITH p CALL (p) { MATCH ()-[f:Fact]->() WHERE f.predicate = p.id "
            "RETURN count(f) AS n } SET p.count = n", cols)
