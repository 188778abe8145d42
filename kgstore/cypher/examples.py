"""Read-only Cypher examples made from a store's own data: its most common predicate
that links two named entities, and a name of that predicate's facts, in the schema
every backend shares (``(:Entity)-[:Fact {predicate}]->(:Entity | :Literal)``,
``(:Predicate {id, label, count})``). The web UI's Cypher page offers them, so a first
query returns rows on any store, not only on the demo's film KG.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kgstore.enginepaths import cypher_string
from kgstore.store import Store

__all__ = ["CypherExample", "cypher_examples"]

CANDIDATE_PREDICATES = 8
"""The most frequent predicates tried for one that links two named entities."""
_NAMED_PAIR = ("MATCH (a:Entity)-[r:Fact]->(b:Entity) WHERE r.predicate = $p AND a.name IS "
               "NOT NULL AND b.name IS NOT NULL RETURN a.name, b.name LIMIT 20")
_PLAIN_NAME_CHARS = 60


@dataclass(frozen=True, slots=True)
class CypherExample:
    """A titled query; ``graph`` says its rows hold nodes and relationships to draw."""

    title: str
    query: str
    graph: bool = False


def _plain(name: object) -> bool:
    """A name a reader can take in at a glance in a query (no quote to escape)."""
    return isinstance(name, str) and 0 < len(name) <= _PLAIN_NAME_CHARS and not any(
        c in name for c in "'\"\\\n\r\t")


def _named_pair(store: Store) -> tuple[str, str] | None:
    """``(predicate, subject name)`` of the most frequent predicate whose facts link two
    named entities, with a plain name (:func:`_plain`) among the first of them;
    ``None`` when there is none."""
    for predicate in store.predicates(limit=CANDIDATE_PREDICATES):
        rows = store.cypher(_NAMED_PAIR, {"p": predicate.id}, max_rows=20).rows
        names = Counter(str(subject) for subject, _ in rows if _plain(subject))
        if names:   # the subject with most of these facts (then by name): not engine order
            return predicate.id, min(names, key=lambda n: (-names[n], n))
    return None


def cypher_examples(store: Store) -> list[CypherExample]:
    """Examples that return rows on ``store`` (each passes the read-only guard): the
    predicates by number of facts, and, when a predicate links named entities, its
    facts drawn as a graph, who has most of them, one entity by name and the facts
    around it."""
    examples = [CypherExample(
        "Predicates by number of facts",
        "MATCH (p:Predicate)\nRETURN p.id AS predicate, p.label AS label, p.count AS facts\n"
        "ORDER BY facts DESC LIMIT 10")]
    pair = _named_pair(store)
    if pair is None:
        return examples
    predicate, name = cypher_string(pair[0]), cypher_string(pair[1])
    return [
        CypherExample(f"Facts of {pair[0]}, drawn as a graph",
                      f"MATCH (a:Entity)-[r:Fact]->(b:Entity)\nWHERE r.predicate = {predicate}"
                      "\nRETURN a, r, b LIMIT 25", graph=True),
        CypherExample(f"Most {pair[0]} facts per object",
                      f"MATCH (a:Entity)-[r:Fact]->(b:Entity)\nWHERE r.predicate = {predicate}"
                      "\nRETURN b.name AS name, b.id AS id, count(*) AS facts\n"
                      "ORDER BY facts DESC, name LIMIT 10"),
        CypherExample(f"Entities named {pair[1]}",
                      f"MATCH (e:Entity)\nWHERE e.name = {name}\n"
                      "RETURN e.id AS id, e.name AS name, e.types AS types"),
        CypherExample(f"The facts around {pair[1]}, drawn as a graph",
                      f"MATCH (e:Entity)-[r:Fact]-(x)\nWHERE e.name = {name}\n"
                      "RETURN e, r, x LIMIT 50", graph=True),
        *examples]
