"""The Neo4j store's graph schema: the embedded store's data model, with the constraints
and indexes Neo4j needs.

Graph schema (the same labels, types and properties as
:mod:`kgstore.backends.ladybug.schema`, so a ``kgbench cypher`` query ports)::

    (:Entity {id UNIQUE, name, aliases[], types[], is_cvt, description})
    (:Literal {id UNIQUE = Literal.key, value, datatype, lang, num, date})
    (:Entity)-[:Fact {predicate}]->(:Entity | :Literal)      predicate: indexed
    (:Name {key UNIQUE, fold})-[:NAMES]->(:Entity)  normalised names and aliases;
                                   fold: the search key (range and text indexed)
    (:Predicate {id UNIQUE, label, count})
    (:Meta {key UNIQUE, value})   (:Source {id UNIQUE, file, checksum, format, counts,
                                            loaded_at, status})
    (:InSlot {key UNIQUE = hub<US>predicate, predicate})-[:IN_SLOT]->(:Entity)  hub index
    (:Hub {id UNIQUE, head_subjects, head_predicates})  entities whose incoming facts the
                                   hub index holds, and their first 256 in window order
                                   (queries.mark_hub; none after neo4j-admin: reads merge
                                   the slots instead)

Predicates are a property of one relationship type, not relationship types of their
own: user queries keep the logical schema of both backends, and Cypher cannot take a
relationship type as a parameter (5.26's dynamic ``$(...)`` types read a hub's 400k
facts in 730 ms against 18 ms for a static type, so a per-predicate type would have to
be spliced into query text). The one read that a property filter makes slow, one
predicate of a hub's incoming facts (155 ms for 1k of 400k facts: Neo4j reads every
relationship of the node to test the property), goes through the hub index as on the
embedded store (:mod:`kgstore.backends.ladybug.hub_index`): an ``InSlot`` key lookup and
its own relationships only. Measured with ``bench/store_bench.py --store bolt://...``
(1M facts, hubs of up to 88k incoming facts, 100 (hub, predicate) reads of 100
facts: server time p50 22 ms by property filter, 1 ms by hub index).

Neo4j keeps no null properties: a missing ``name`` reads as null, as on the embedded
store. Indexes are created with the database (``IF NOT EXISTS``, so opening a database
loaded by ``neo4j-admin database import`` creates them too).
"""

from __future__ import annotations

__all__ = ["CONSTRAINTS", "INDEXES", "LABELS", "META_LABEL", "PROPERTY_KEYS", "REL_TYPES"]

LABELS = ("Entity", "Literal", "Name", "Predicate", "Meta", "Source", "InSlot", "Hub")
"""Every node label a kgbench store writes (a database holding others is not ours)."""
REL_TYPES = ("Fact", "NAMES", "IN_SLOT")
PROPERTY_KEYS = frozenset((
    "id", "name", "aliases", "types", "is_cvt", "description", "value", "datatype", "lang",
    "num", "date", "predicate", "key", "label", "count", "file", "checksum", "format",
    "counts", "loaded_at", "status"))
"""Every property the schema above has. A user query naming another is refused, as the
embedded store's binder refuses it (Neo4j itself only warns and reads null), so a typo
is an error on both backends; a schema property that no node holds yet is not."""

META_LABEL = "Meta"

# (label, key property) of every uniqueness constraint; each is backed by a range index,
# which also serves ``STARTS WITH`` (prefix search on Name.key) and ordered id scans.
_UNIQUE = (("Entity", "id"), ("Literal", "id"), ("Name", "key"), ("Predicate", "id"),
           ("Meta", "key"), ("Source", "id"), ("InSlot", "key"), ("Hub", "id"))

CONSTRAINTS = tuple(
    f"CREATE CONSTRAINT kgbench_{label.lower()}_{key} IF NOT EXISTS "
    f"FOR (n:{label}) REQUIRE n.{key} IS UNIQUE"
    for label, key in _UNIQUE
)

INDEXES = (
    # sample_facts(predicate=...) and matches that start from a predicate.
    "CREATE INDEX kgbench_fact_predicate IF NOT EXISTS FOR ()-[f:Fact]-() ON (f.predicate)",
    # Entity search (kgstore.search_index): exact and STARTS WITH on the range index,
    # CONTAINS (a word start after a space, a substring) on the trigram text index.
    "CREATE INDEX kgbench_name_fold IF NOT EXISTS FOR (n:Name) ON (n.fold)",
    "CREATE TEXT INDEX kgbench_name_fold_text IF NOT EXISTS FOR (n:Name) ON (n.fold)",
)
