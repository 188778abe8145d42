"""Neo4j's ``\\uXXXX`` escapes as the guard decodes them, against the real Neo4j 5.26
(issue 32, item 1: Neo4j decodes them in the whole query before it lexes; the guard
lexed the raw text, and ``/* \\u002a/ LOAD CSV ... // */ RETURN 1`` read /etc/passwd).

The decoder's rules are checked on their own, then against the server: what the
guard passes, Neo4j reads as the guard does (the values of its strings and names);
what the guard refuses, Neo4j would indeed have read as something else than the raw
text says (a comment or string closed early, a decoded sign or fullwidth digit).
"""

from __future__ import annotations

import pytest

from kgstore.cypher.escapes import EscapeError, decode_neo4j_escapes
from kgstore.cypher.guard import assert_read_only
from kgstore.errors import ReadOnlyQueryError
from tests import neo4j_server
from tests.kgstore.test_cypher_guard import _assert_refused


@pytest.mark.parametrize(("query", "text", "escapes"), [
    ("RETURN 1", "RETURN 1", {}),
    ("'\\u0041'", "'A'", {1: ("\\u0041", 1)}),
    ("'\\\\u0041'", "'\\\\u0041'", {}),             # an escaped backslash: no escape
    ("'\\\\\\u0041'", "'\\\\A'", {3: ("\\u0041", 3)}),
    ("\\u005c\\u0041", "\\A", {0: ("\\u005c", 0), 1: ("\\u0041", 6)}),  # decoded \ escapes nothing
    ("\\u005cu0041", "\\u0041", {0: ("\\u005c", 0)}),
    ("\\ud83d\\ude00", "\ud83d\ude00", {0: ("\\ud83d", 0), 1: ("\\ude00", 6)}),
    ("a\\U0001F600", "a\\U0001F600", {}),
])
def test_decoding(query: str, text: str, escapes: dict[int, tuple[str, int]]) -> None:
    decoded = decode_neo4j_escapes(query)
    assert decoded.text == text
    assert decoded.escapes == escapes


@pytest.mark.parametrize("query", [
    "\\u+041", "\\u-001", "\\u００４１", "\\u٠٠٤١", "\\uu0041", "\\u41", "\\u", "x\\u00g1",
])
def test_what_is_not_four_ascii_hex_digits_is_refused(query: str) -> None:
    with pytest.raises(EscapeError, match="is not \\\\u and four hexadecimal digits"):
        decode_neo4j_escapes(query)


# Hostile queries with escapes, refused by the guard (the rest of the Neo4j table is in
# test_cypher_guard.py): issue 32's payloads behind an escape that ends a comment, a
# string or a name, spells a keyword, and the escapes it cannot decode with certainty.
NEO4J_ESCAPES_HOSTILE = [
    ("/* \\u002a/ LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l LIMIT 3 // */ RETURN 1",
     "the escape \\u002a at character 4 stands for U+002A"),
    ("/* \\u002A/ SHOW USERS // */ RETURN 1", "\\u002A"),
    ("RETURN 1 // \\u000a CALL dbms.listConfig()", "\\u000a"),
    ("RETURN 1 // \\u000d\\u000a CALL dbms.listConnections()", "\\u000d"),
    ("RETURN '\\u0027 AS s CALL db.clearQueryCaches() //'", "\\u0027"),
    ("MATCH (n) WHERE n.name = 'O\\u0027Neil' RETURN n", "not closed"),  # it ends the string
    ('RETURN "\\u0022 AS s LOAD CSV FROM \'x\' AS l RETURN l //"', "\\u0022"),
    ("RETURN 1 AS `a\\u0060 LOAD CSV FROM 'x' AS l RETURN l //`", "\\u0060"),
    ("\\u0053HOW USERS", "\\u0053"),
    ("RETURN 1 AS x \\u0055NION LOAD CSV FROM 'x' AS l RETURN l", "\\u0055"),
    ("MATCH (n) RETURN n \\u003b SHOW USERS", "\\u003b"),
    ("RETURN $\\u0070", "\\u0070"),
    ("RETURN 1 AS x /* \\u002a/ */", "\\u002a"),
    # escapes the check cannot decode with certainty (Neo4j reads some, as parseInt does)
    ("/* \\u+02a/ SHOW USERS // */ RETURN 1", "is not \\u and four hexadecimal digits"),
    ("RETURN '\\u-001' AS s", "is not \\u and four"),
    ("RETURN '\\u００２７ AS s SHOW USERS //'", "is not \\u and four"),
    ("RETURN '\\u٠٠٢٧' AS s", "is not \\u and four"),
    ("RETURN '\\uu0041' AS s", "is not \\u and four"),
    ("RETURN '\\u41' AS s", "is not \\u and four"),
    ("RETURN 1 // \\u", "is not \\u and four"),
    ("RETURN '\\uZZZZ'", "is not \\u and four"),
]


@pytest.mark.parametrize(("query", "fragment"), NEO4J_ESCAPES_HOSTILE)
def test_neo4j_escapes_that_change_the_query_are_refused(query: str, fragment: str) -> None:
    _assert_refused(query, "neo4j", fragment)


# -- against the real server ------------------------------------------------------------

# (query the guard passes, the rows Neo4j returns: what the guard read as values)
NEO4J_READS_THE_SAME = [
    ("RETURN '\\u0041\\u00e9' AS s", [["Aé"]]),
    ("RETURN '\\\\u0041' AS s", [["\\u0041"]]),
    ("RETURN '\\\\\\u0041' AS s", [["\\A"]]),
    ("RETURN '\\u005c'' AS s", [["'"]]),
    ("RETURN \"\\u0027\" AS s", [["'"]]),
    ("RETURN '\\ud83d\\ude00' AS s", [["\U0001f600"]]),
    ("RETURN 7 AS `a\\u0041b`", [[7]]),
    ("RETURN '\\U0001F600' AS s", [["\\U0001F600"]]),
    ("RETURN 1 AS x /* \\\\u002a/ */", [[1]]),
]


@pytest.mark.neo4j
@neo4j_server.requires_neo4j
@pytest.mark.parametrize(("query", "rows"), NEO4J_READS_THE_SAME)
def test_neo4j_reads_escapes_in_values_as_the_guard_does(query: str,
                                                        rows: list[list[object]]) -> None:
    assert_read_only(query, "neo4j")
    assert neo4j_server.run_query(query) == rows


# (query the guard refuses, the rows Neo4j returns for it: not what the raw text says)
NEO4J_READS_OTHERWISE = [
    # the comment ends at the escape: the "hidden" RETURN runs
    ("/* \\u002a/ RETURN 'leaked' AS x // */ RETURN 1 AS x", [["leaked"]]),
    # the string ends at the escape: the rest is code
    ("RETURN '\\u0027 AS x, 'leaked' AS y //' AS x", [["", "leaked"]]),
    # the line comment ends at the escape
    ("RETURN 1 AS x // \\u000a , 'leaked' AS y", [[1, "leaked"]]),
    # the backquoted name ends at the escape
    ("WITH 1 AS a RETURN `a\\u0060 AS x, 'leaked' AS y //`", [[1, "leaked"]]),
    # parseInt reads a sign, fullwidth and Arabic-Indic digits
    ("RETURN '\\u+041' AS s", [["A"]]),
    ("RETURN '\\u００４１' AS s", [["A"]]),
    ("RETURN '\\u٠٠٤١' AS s", [["A"]]),
    ("RETURN '\\u-001' AS s", [["\uffff"]]),
]


@pytest.mark.neo4j
@neo4j_server.requires_neo4j
@pytest.mark.parametrize(("query", "rows"), NEO4J_READS_OTHERWISE)
def test_neo4j_reads_what_the_guard_refuses_otherwise(query: str,
                                                      rows: list[list[object]]) -> None:
    with pytest.raises(ReadOnlyQueryError):
        assert_read_only(query, "neo4j")
    assert neo4j_server.run_query(query) == rows
