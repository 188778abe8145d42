"""The lexical read-only check of the Cypher passthrough, and identifier validation."""

from __future__ import annotations

import pytest

from kgstore import ReadOnlyQueryError
from kgstore.cypher_guard import assert_read_only, check_identifier

READS = [
    "MATCH (e:Entity) RETURN e.id LIMIT 5",
    "MATCH (e:Entity {id: $id})-[f:Fact]->(o) RETURN f.predicate, o.id",
    "MATCH (e:Entity) WHERE e.name = 'CREATE' RETURN e",
    "MATCH (e:Entity) WHERE e.name = \"DETACH DELETE\" RETURN e",
    "MATCH (e:Entity) WHERE e.name = 'it\\'s a SET' RETURN e",
    'RETURN "say \\"MERGE\\" twice" AS s',
    "MATCH (e:Entity) RETURN e.id AS `create` ORDER BY `delete`",
    "// DELETE everything? no\nMATCH (e) RETURN e",
    "MATCH (e) /* SET e.x = 1 */ RETURN e",
    "MATCH (e)\n/* multi\nline DROP TABLE Entity\n*/ RETURN count(e)",
    "MATCH (e:Entity) RETURN e.id SKIP 10 LIMIT 5",
    "MATCH (e:Entity) WITH e ORDER BY e.id RETURN e.created_at, e.offset, e.reset, e.settings",
    "MATCH (e:Entity) RETURN e.id UNION ALL MATCH (l:Literal) RETURN l.id",
    "LOAD FROM 'x.parquet' RETURN *",
    "CALL show_tables() RETURN *",
    "MATCH p = (a)-[*1..3]-(b) RETURN length(p)",
    "RETURN 'http://example.org/a' AS iri, 2 // trailing CREATE comment",
    "",
]


@pytest.mark.parametrize("query", READS)
def test_reads_pass(query: str) -> None:
    assert_read_only(query)


WRITES = [
    ("CREATE (n:Entity {id: 'x'})", "CREATE"),
    ("create (n)", "CREATE"),
    ("MERGE (n:Entity {id: 'x'})", "MERGE"),
    ("MATCH (n) SET n.name = 'x'", "SET"),
    ("match (n) set n.name = 'x'", "SET"),
    ("MATCH (n) DELETE n", "DELETE"),
    ("MATCH (n) DETACH DELETE n", "DETACH"),
    ("MATCH (n) detach\n\tdelete n", "DETACH"),
    ("MATCH (n) REMOVE n.name", "REMOVE"),
    ("DROP TABLE Entity", "DROP"),
    ("Drop Table Entity", "DROP"),
    ("ALTER TABLE Entity ADD x STRING", "ALTER"),
    ("COPY Entity FROM 'e.parquet'", "COPY"),
    ("INSTALL json", "INSTALL"),
    ("LOAD EXTENSION json", "LOAD EXTENSION"),
    ("load   extension json", "LOAD EXTENSION"),
    ("ATTACH 'other.lbdb' AS o", "ATTACH"),
    ("IMPORT DATABASE 'dump'", "IMPORT"),
    ("EXPORT DATABASE 'dump'", "EXPORT"),
    ("CHECKPOINT", "CHECKPOINT"),
    ("BEGIN TRANSACTION", "BEGIN"),
    ("COMMIT", "COMMIT"),
    ("ROLLBACK", "ROLLBACK"),
    ("UNWIND [1] AS x FOREACH (y IN [x] | CREATE (:N))", "FOREACH"),
    ("MATCH (n) RETURN n; CREATE (m)", "CREATE"),
    ("MATCH (n) WHERE n.name = 'x' SET n.name = 'y'", "SET"),
    ("// comment\nMATCH (n) DELETE n", "DELETE"),
    ("MATCH (n) /* it's */ DELETE n", "DELETE"),
    ("MATCH (n) // don't\nDELETE n", "DELETE"),
    ("MATCH (n:`Entity`) SET n.x = 1", "SET"),
]


@pytest.mark.parametrize(("query", "clause"), WRITES)
def test_writes_are_refused(query: str, clause: str) -> None:
    with pytest.raises(ReadOnlyQueryError) as info:
        assert_read_only(query)
    message = str(info.value)
    assert f"`{clause}`" in message  # names the clause, upper case, single-spaced
    assert "read-only" in message


@pytest.mark.parametrize(
    "name", ["Entity", "_x", "a1", "e_2_b", "A" * 128],
)
def test_check_identifier_accepts(name: str) -> None:
    assert check_identifier(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "1a", "a b", "a-b", "a.b", "`a`", "a`", "A" * 129, "é", "a\n", "\na",
     "a) DETACH DELETE n //", "a;", "$a"],
)
def test_check_identifier_rejects(name: str) -> None:
    with pytest.raises(ValueError, match="invalid label"):
        check_identifier(name, "label")
