"""``kgbench cypher`` on a Neo4j store (issue 20): read transactions plus the same
allow-list guard as the embedded store, in Neo4j's dialect; a query written against the
logical schema returns the same rows on both backends.

Real CLI in a subprocess, real Neo4j test server, the same small KG loaded into both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import neo4j_server
from tests.kgbench.test_cli import run

pytestmark = [neo4j_server.requires_neo4j, pytest.mark.neo4j]

FACTS = "/m/01\t/film/film/directed_by\t/m/02\n/m/01\t/film/film/starring\t/m/03\n"
LITERALS = ('<http://example.org/m03> <http://example.org/height> '
            '"1.82"^^<http://www.w3.org/2001/XMLSchema#double> .\n'
            '<http://example.org/m03> <http://example.org/nick> "Sammy"@en .\n')
NAMES = "/m/01\tAlpha Film\n/m/02\tCREATE\n/m/03\tSam Star\n"


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    """(embedded location, Neo4j URI, a scratch folder): the same KG in both."""
    assert neo4j_server.URI is not None
    root = tmp_path_factory.mktemp("cypher-neo4j")
    (root / "facts.tsv").write_text(FACTS, encoding="utf-8")
    (root / "names.tsv").write_text(NAMES, encoding="utf-8")
    (root / "literals.nt").write_text(LITERALS, encoding="utf-8")
    neo4j_server.wipe()
    embedded = str(root / "store")
    for location in (embedded, neo4j_server.URI):
        proc = cli(root, "load", "triples", root / "facts.tsv", "--names",
                   root / "names.tsv", "--store", location)
        assert proc.returncode == 0, proc.stderr
        proc = cli(root, "load", "rdf", root / "literals.nt", "--store", location)
        assert proc.returncode == 0, proc.stderr
    return embedded, neo4j_server.URI, root


def cli(cwd: Path, *args: str | Path):  # type: ignore[no-untyped-def]
    return run(*args, cwd=cwd, env={"KGBENCH_NEO4J_WORK": str(cwd / "neo4j-work")})


def rows(cwd: Path, store: str, query: str, *extra: str) -> dict[str, object]:
    proc = cli(cwd, "cypher", query, "--store", store, "--json", *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def one_error(proc) -> str:  # type: ignore[no-untyped-def]
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


@pytest.mark.parametrize("query", [
    "MATCH (e:Entity)-[f:Fact]->(o:Entity) RETURN e.name, f.predicate, o.name "
    "ORDER BY e.name, f.predicate",
    "MATCH (n:Name)-[:NAMES]->(e:Entity) WHERE n.key STARTS WITH $k RETURN e.id ORDER BY e.id",
    "MATCH (e:Entity)-[f:Fact]->(l:Literal) RETURN e.id, l.value, l.datatype, l.lang, l.num "
    "ORDER BY l.value",
    "MATCH (p:Predicate) RETURN p.id, p.count ORDER BY p.id",
])
def test_a_query_on_the_logical_schema_gives_the_same_rows_on_both(
        stores: tuple[str, str, Path], query: str) -> None:
    embedded, neo4j, root = stores
    extra = ("-p", "k=s") if "$k" in query else ()
    a, b = rows(root, embedded, query, *extra), rows(root, neo4j, query, *extra)
    assert a["rows"], a
    assert a == b


@pytest.mark.parametrize(("query", "clause"), [
    ("MATCH (e:Entity) SET e.name = 'x'", "SET"),
    ("MATCH (e:Entity) DETACH DELETE e", "DETACH DELETE"),
    ("CREATE (:Entity {id: 'x'})", "CREATE"),
    ("LOAD CSV FROM 'file:///etc/passwd' AS r RETURN r", "LOAD CSV"),
    ("CALL apoc.help('x')", "CALL apoc.help"),
    ("MATCH (e:Entity) RETURN e.id; MATCH (e:Entity) DETACH DELETE e", ";"),
])
def test_writes_files_and_procedures_are_refused_and_nothing_changes(
        stores: tuple[str, str, Path], query: str, clause: str) -> None:
    _, neo4j, root = stores
    before = rows(root, neo4j, "MATCH (e:Entity) RETURN e.id, e.name ORDER BY e.id")
    line = one_error(cli(root, "cypher", query, "--store", neo4j))
    assert f"`{clause}` is not allowed" in line
    assert rows(root, neo4j, "MATCH (e:Entity) RETURN e.id, e.name ORDER BY e.id") == before


def test_a_misspelt_property_is_an_error_as_on_the_embedded_store(
        stores: tuple[str, str, Path]) -> None:
    embedded, neo4j, root = stores
    for store in (embedded, neo4j):
        line = one_error(cli(root, "cypher", "MATCH (e:Entity) RETURN e.nme", "--store", store))
        assert "nme" in line
    # A schema property that no node holds (no description was loaded) is not an error.
    assert rows(root, neo4j, "MATCH (e:Entity) RETURN e.description LIMIT 1")["rows"] == [[None]]


def test_schema_procedures_limits_and_timeouts(stores: tuple[str, str, Path]) -> None:
    _, neo4j, root = stores
    labels = {r[0] for r in rows(root, neo4j, "CALL db.labels()")["rows"]}  # type: ignore[index, union-attr]
    assert {"Entity", "Literal", "Name", "Predicate"} <= labels
    proc = cli(root, "cypher", "UNWIND range(1, 100) AS i RETURN i", "--store", neo4j,
               "--limit-rows", "7", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["rows"] == [[i] for i in range(1, 8)] and result["truncated"] is True
    line = one_error(cli(root, "cypher",
                         "UNWIND range(1, 100000000) AS i WITH i WHERE i % 7 = 3 RETURN count(i)",
                         "--store", neo4j, "--timeout", "0.5"))
    assert "--timeout" in line
