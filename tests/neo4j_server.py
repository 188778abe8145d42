"""The real Neo4j 5 server that the Neo4j backend's tests use (``make neo4j-up``).

``.ci/run`` starts it and exports ``KGBENCH_NEO4J_URI`` / ``KGBENCH_NEO4J_AUTH``. Without the
URI, Neo4j tests skip with a reason that says how to start it; with it, nothing may skip: a
server that cannot be reached fails the test, so CI cannot go green without Neo4j.

The community server has one user database, so Neo4j tests take turns on it: each fresh
store empties it first, and every test that uses it carries the ``neo4j`` marker, which
``make test`` runs in one process of its own (see ``tests/conftest.py``).
"""

from __future__ import annotations

import os

import pytest

URI_ENV = "KGBENCH_NEO4J_URI"
URI = os.environ.get(URI_ENV)
SKIP_REASON = f"{URI_ENV} is not set: `make neo4j-up` starts a local Neo4j 5 and prints its URI"

requires_neo4j = pytest.mark.skipif(not URI, reason=SKIP_REASON)


def auth() -> tuple[str, str]:
    """``KGBENCH_NEO4J_AUTH``, else ``NEO4J_AUTH`` (``user/password``); a missing one fails."""
    for name in ("KGBENCH_NEO4J_AUTH", "NEO4J_AUTH"):
        user, sep, password = os.environ.get(name, "").partition("/")
        if sep and user and password:
            return user, password
    pytest.fail(f"{URI_ENV} is set but KGBENCH_NEO4J_AUTH (user/password) is not")


def wipe() -> None:
    """Empty the test database (relationships first, in batches: a hub's
    ``DETACH DELETE`` in one transaction exceeds the server's memory limit). Fails the
    test when the server cannot be reached."""
    import neo4j

    assert URI is not None
    try:
        with neo4j.GraphDatabase.driver(URI, auth=auth(), connection_timeout=10,
                                        notifications_min_severity="OFF") as driver:
            with driver.session() as session:
                for query in ("MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 20000 ROWS",
                              "MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 20000 ROWS"):
                    session.run(query).consume()
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
        pytest.fail(f"{URI_ENV}={URI} is set but Neo4j cannot be reached: {exc!r}")


def run_query(query: str, params: dict[str, object] | None = None, *,
              uri: str | None = None) -> list[list[object]]:
    """The rows of one query on the test server (or ``uri``), outside any store: to
    set up what a test needs (a foreign node, another schema version) and to read what
    the store wrote."""
    import neo4j

    with neo4j.GraphDatabase.driver(uri or URI or "", auth=auth(), connection_timeout=10,
                                    notifications_min_severity="OFF") as driver:
        records, _, _ = driver.execute_query(query, params or {})
    return [list(r.values()) for r in records]


def content(uri: str | None = None) -> dict[str, list[tuple[object, ...]]]:
    """Everything a kgbench store holds in the database, sorted, for comparing two
    imports: every node's labels and properties and every relationship with its ends
    and properties, except what differs between two runs of the same load
    (``Meta.created_at``, ``generation`` and ``import_token``, tokens each import draws anew; the time
    and counts of a ``Source``)."""
    nodes = []
    for labels, props in run_query("MATCH (n) RETURN labels(n), properties(n)", uri=uri):
        assert isinstance(props, dict) and isinstance(labels, list)
        if "Meta" in labels and props.get("key") in ("created_at", "generation", "import_token"):
            continue
        if "Source" in labels:
            props = {k: v for k, v in props.items() if k not in ("loaded_at", "counts")}
        nodes.append((tuple(sorted(labels)), repr(sorted(props.items()))))
    rels = [tuple(map(repr, row)) for row in run_query(
        "MATCH (a)-[r]->(b) RETURN type(r), coalesce(a.id, a.key), "
        "[k IN keys(r) | [k, r[k]]], coalesce(b.id, b.key)", uri=uri)]
    return {"nodes": sorted(nodes), "relationships": sorted(rels)}
