"""The real Neo4j 5 server the Neo4j backend is tested against (``make neo4j-up``).

``.ci/run`` starts it and exports ``KGBENCH_NEO4J_URI`` / ``KGBENCH_NEO4J_AUTH``; a developer
without it gets a skip that says how to start it. Once the URI is set, nothing here may skip:
a server that cannot be reached is a failure, so CI can never go green without Neo4j.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import neo4j
import pytest

URI_ENV = "KGBENCH_NEO4J_URI"
URI = os.environ.get(URI_ENV)

pytestmark = [pytest.mark.skipif(
    not URI, reason=f"{URI_ENV} is not set: `make neo4j-up` starts a local Neo4j 5 and prints its URI"
), pytest.mark.neo4j]


def _auth() -> tuple[str, str]:
    """``KGBENCH_NEO4J_AUTH``, else ``NEO4J_AUTH`` (``user/password``); a missing one fails."""
    for name in ("KGBENCH_NEO4J_AUTH", "NEO4J_AUTH"):
        user, sep, password = os.environ.get(name, "").partition("/")
        if sep and user and password:
            return user, password
    pytest.fail(f"{URI_ENV} is set but KGBENCH_NEO4J_AUTH (user/password) is not")


@pytest.fixture(scope="module")
def driver() -> Iterator[neo4j.Driver]:
    assert URI is not None
    drv = neo4j.GraphDatabase.driver(URI, auth=_auth(), connection_timeout=10)
    try:
        drv.verify_connectivity()
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
        drv.close()
        pytest.fail(f"{URI_ENV}={URI} is set but Neo4j cannot be reached: {exc!r}")
    yield drv
    drv.close()


def test_server_is_neo4j_5(driver: neo4j.Driver) -> None:
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions RETURN name, versions[0] AS version",
        routing_=neo4j.RoutingControl.READ,
    )
    assert records[0]["name"] == "Neo4j Kernel"
    assert records[0]["version"].split(".")[0] == "5", records[0]["version"]
    assert driver.get_server_info().agent.startswith("Neo4j/5.")


def test_write_then_read_round_trip(driver: neo4j.Driver) -> None:
    marker = f"kgbench-test-{uuid.uuid4()}"

    def write(tx: neo4j.ManagedTransaction) -> None:
        tx.run("CREATE (:KgbenchServerProbe {marker: $marker, text: $text})",
               marker=marker, text="näive \u2014 'quoted' \"text\"").consume()

    def read(tx: neo4j.ManagedTransaction) -> list[str]:
        result = tx.run("MATCH (n:KgbenchServerProbe {marker: $marker}) RETURN n.text AS text",
                        marker=marker)
        return [record["text"] for record in result]

    with driver.session() as session:
        session.execute_write(write)
        try:
            assert session.execute_read(read) == ["näive \u2014 'quoted' \"text\""]
        finally:
            session.run("MATCH (n:KgbenchServerProbe {marker: $marker}) DELETE n",
                        marker=marker).consume()
        assert session.execute_read(read) == []


def test_wrong_password_is_refused(driver: neo4j.Driver) -> None:
    assert URI is not None
    user, password = _auth()
    with neo4j.GraphDatabase.driver(URI, auth=(user, password + "-wrong")) as wrong:
        with pytest.raises(neo4j.exceptions.AuthError):
            wrong.verify_connectivity()
