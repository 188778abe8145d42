"""The engine-side check of passthrough Cypher (issue 32, item 1): the store EXPLAINs a
query before it runs it and refuses any plan that does more than read.

With the text guard switched off (as if it had a gap), the real engines' plans of
file reads and writes, extensions, settings, administration commands and procedures
outside the catalogue are refused, and nothing happens: no file written or read, no
setting changed. The reads the guard allows pass the plan check on both engines. The
plan readers are also tried on plans that text in the query could try to forge.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgstore import Entity, Fact, ReadOnlyQueryError, Store, open_store
from kgstore.backends.ladybug import store as ladybug_store
from kgstore.cypher.plan_check import ladybug_plan_refusal, neo4j_plan_refusal
from tests import neo4j_server
from tests.kgstore.test_cypher_guard import LADYBUG_READS, NEO4J_READS

SECRET = "root:s3cr3t-canary-4711:0:0"

# -- LadybugDB ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plan-check")
    (root / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    with open_store(root / "kg", create=True) as s:
        s.ingest([Entity("m.1", "One"), Entity("m.2", "Two")], [Fact("m.1", "p", "m.2")])
    return root


@pytest.fixture
def unguarded_ladybug(files: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The embedded store with the text guard switched off."""
    monkeypatch.setattr(ladybug_store, "assert_read_only", lambda *a, **k: None)
    with open_store(files / "kg", read_only=True) as s:
        yield s


# (query, what the refusal names); {root} is the scratch folder
LADYBUG_PLAN_HOSTILE = [
    ("COPY (MATCH (e:Entity) RETURN e.id) TO '{root}/out.csv'", "`COPY_TO`"),
    ("LOAD FROM '{root}/secret.txt' (file_format='csv', header=false, delim=':') RETURN *",
     "`TABLE_FUNCTION_CALL` of READ_CSV_PARALLEL"),
    ("INSTALL httpfs", "`INSTALL_EXTENSION`"),
    ("UNINSTALL httpfs", "`UNINSTALL_EXTENSION`"),
    ("CALL threads=1", "`STANDALONE_CALL`"),
    ("CHECKPOINT", "`TRANSACTION`"),
    ("CALL current_setting('threads') RETURN *", "`TABLE_FUNCTION_CALL` of CURRENT_SETTING"),
    ("CALL show_attached_databases() RETURN *",
     "`TABLE_FUNCTION_CALL` of SHOW_ATTACHED_DATABASES"),
    ("CALL storage_info('Entity') RETURN *", "`TABLE_FUNCTION_CALL` of STORAGE_INFO"),
    ("CALL fsm_info() RETURN *", "`TABLE_FUNCTION_CALL` of FSM_INFO"),
]


@pytest.mark.parametrize(("query", "named"), LADYBUG_PLAN_HOSTILE)
def test_ladybug_plans_that_do_more_than_read_are_refused(
        unguarded_ladybug: Store, files: Path, query: str, named: str) -> None:
    assert_refused_by_plan(unguarded_ladybug, query.replace("{root}", str(files)), named)
    assert not (files / "out.csv").exists()


def assert_refused_by_plan(store: Store, query: str, named: str) -> None:
    """The store refuses ``query`` for the operator ``named`` in its plan, and says
    nothing of the secret."""
    with pytest.raises(ReadOnlyQueryError) as caught:
        store.cypher(query)
    message = str(caught.value)
    assert f"plans this query with {named}" in message and "read-only" in message
    assert SECRET not in message


def refused_reads(location: str, queries: list[str]) -> list[tuple[str, str]]:
    """The queries of ``queries`` the store refuses (a read the engine rejects, for an
    unknown label, say, fails with the engine's own error: not a refusal)."""
    refused = []
    params = {p: 1 for p in ("id", "x", "1", "odd name", "name", "param")}
    with open_store(location, read_only=True) as s:
        for query in queries:
            try:
                s.cypher(query, params if "$" in query else None)
            except ReadOnlyQueryError as exc:
                refused.append((query, str(exc)))
            except Exception:   # noqa: BLE001 - the engine's own error: not the plan check's
                pass
    return refused


def test_ladybug_reads_pass_the_plan_check(files: Path) -> None:
    """Every read of the guard's table gets past the plan check."""
    assert refused_reads(str(files / "kg"), LADYBUG_READS) == []


def test_ladybug_plan_reader_fails_closed() -> None:
    real = ("┌──────────┐\n││ Physical Plan ││\n└──────────┘\n"
            "│ RESULT_COLLECTOR[1] │\n│ SCAN_NODE_TABLE[0] │\n")
    assert ladybug_plan_refusal(real) is None
    assert ladybug_plan_refusal("") == "a plan the check cannot read"
    assert ladybug_plan_refusal(real.replace("[0]", "[5]")) == "a plan the check cannot read"
    # A string in the query drawn inside a box adds a name: it can only refuse.
    assert ladybug_plan_refusal(real + "│ Expressions: '│ COPY_TO[2] │' │\n") == "`COPY_TO`"
    assert ladybug_plan_refusal(real + "│ Expressions: '│ FILTER[7] │' │\n") == (
        "a plan the check cannot read")
    copying = real.replace("SCAN_NODE_TABLE[0]", "COPY_TO[0]")
    assert ladybug_plan_refusal(copying + "│ Expressions: '│ SCAN_NODE_TABLE[0] │' │\n") == (
        "`COPY_TO`")
    call = real.replace("SCAN_NODE_TABLE[0]", "TABLE_FUNCTION_CALL[0]")
    assert ladybug_plan_refusal(call) == "a table function call the check cannot name"
    assert ladybug_plan_refusal(call + "│ Function: SHOW_TABLES │\n") is None
    assert ladybug_plan_refusal(call + "│ Function: READ_JSON │\n") == (
        "`TABLE_FUNCTION_CALL` of READ_JSON")


def test_neo4j_plan_reader_fails_closed() -> None:
    def op(name: str, *children: dict[str, object], details: str = "") -> dict[str, object]:
        return {"operatorType": f"{name}@neo4j", "args": {"Details": details},
                "children": list(children)}

    assert neo4j_plan_refusal(op("ProduceResults", op("NodeUniqueIndexSeekByRange"))) is None
    assert neo4j_plan_refusal(None) == "no plan it could read"
    assert neo4j_plan_refusal({}) == "no plan it could read"
    assert neo4j_plan_refusal(op("ProduceResults", op("Filter", op("LoadCSV")))) == "`LoadCSV`"
    assert neo4j_plan_refusal(op("ProduceResults", op("SomeFutureOperator"))) == (
        "`SomeFutureOperator`")
    assert neo4j_plan_refusal(op("ProcedureCall", details="db.labels() :: (label :: STRING)")) is None
    assert neo4j_plan_refusal(op("ProcedureCall", details="db.labelsX() :: (x :: STRING)")) == (
        "`ProcedureCall` of db.labelsX")


# -- Neo4j -------------------------------------------------------------------------------

# (query, what the refusal names): issue 32's payloads and the other things a read
# transaction does not stop
NEO4J_PLAN_HOSTILE = [
    ("LOAD CSV FROM 'file://{root}/secret.txt' AS l RETURN l", "`LoadCSV`"),
    ("SHOW USERS", "`AdministrationCommand`"),
    ("SHOW DATABASES", "`AdministrationCommand`"),
    ("CALL dbms.listConfig()", "`ProcedureCall` of dbms.listConfig"),
    ("CALL dbms.listConnections()", "`ProcedureCall` of dbms.listConnections"),
    ("CALL db.clearQueryCaches()", "`ProcedureCall` of db.clearQueryCaches"),
    ("SHOW TRANSACTIONS", "`ShowTransactions`"),
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "`TerminateTransactions`"),
    ("SHOW PROCEDURES", "`ShowProcedures`"),
    ("CREATE (n:Canary) RETURN n", "`Create`"),
    ("MATCH (e:Entity) SET e.name = 'x'", "`SetProperty`"),
    ("FOREACH (x IN [1] | CREATE (:Canary))", "`Foreach`"),
    ("MATCH (e:Entity) WITH e LIMIT 1 MERGE (e)-[:Fact {predicate: 'x'}]->(:Canary)",
     "`LockingMerge`"),
]


@pytest.fixture(scope="module")
def neo4j_location(files: Path) -> str:
    if not neo4j_server.URI:
        pytest.skip(neo4j_server.SKIP_REASON)
    neo4j_server.wipe()
    with open_store(neo4j_server.URI, create=True) as s:
        s.ingest([Entity("m.1", "One"), Entity("m.2", "Two")], [Fact("m.1", "p", "m.2")])
    return neo4j_server.URI


@pytest.fixture
def unguarded_neo4j(neo4j_location: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    from kgstore.backends.neo4j import store as neo4j_store

    monkeypatch.setattr(neo4j_store, "assert_read_only", lambda *a, **k: None)
    with open_store(neo4j_location, read_only=True) as s:
        yield s


@pytest.mark.neo4j
@pytest.mark.parametrize(("query", "named"), NEO4J_PLAN_HOSTILE)
def test_neo4j_plans_that_do_more_than_read_are_refused(
        unguarded_neo4j: Store, files: Path, query: str, named: str) -> None:
    assert_refused_by_plan(unguarded_neo4j, query.replace("{root}", str(files)), named)
    assert neo4j_server.run_query("MATCH (n:Canary) RETURN count(n)") == [[0]]
    assert neo4j_server.run_query("MATCH (e:Entity) WHERE e.name = 'x' RETURN count(e)") == [[0]]


@pytest.mark.neo4j
def test_neo4j_reads_pass_the_plan_check(neo4j_location: str) -> None:
    assert refused_reads(neo4j_location, NEO4J_READS) == []


@pytest.mark.neo4j
@pytest.mark.parametrize("query", ["CREATE (n:Canary) RETURN n",
                                   "MATCH (e:Entity) SET e.name = 'x'",
                                   "CREATE USER canary SET PASSWORD 'canary-4711-pw'"])
def test_a_neo4j_write_past_both_checks_is_a_refusal_not_a_503(
        neo4j_location: str, monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    """The third layer, the read transaction: with the guard and the plan check both
    switched off, the server's refusal of the write is the query's refusal (a 400
    from the service), not "the store cannot answer" (a 503, as before)."""
    from kgbench.service.errors import store_error_status
    from kgstore.backends.neo4j import store as neo4j_store

    monkeypatch.setattr(neo4j_store, "assert_read_only", lambda *a, **k: None)
    monkeypatch.setattr(neo4j_store, "explain_neo4j", lambda *a, **k: None)
    with open_store(neo4j_location, read_only=True) as s, \
            pytest.raises(ReadOnlyQueryError) as caught:
        s.cypher(query)
    assert "modify the store" in str(caught.value) and "\n" not in str(caught.value)
    assert store_error_status(caught.value) == 400
    assert neo4j_server.run_query("MATCH (n:Canary) RETURN count(n)") == [[0]]
    assert neo4j_server.run_query("MATCH (e:Entity) WHERE e.name = 'x' RETURN count(e)") == [[0]]
