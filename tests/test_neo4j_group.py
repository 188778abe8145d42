"""The tests that use the one Neo4j test database never run side by side: a fresh Neo4j
store empties the database, so two at once clobber each other (a grounding test
parametrized through a fixture not named ``backend`` once ran beside the conformance
suite and both failed). They carry the ``neo4j`` marker, and ``make test`` runs them
in one process of their own."""

from __future__ import annotations

import pytest


def _uses_neo4j(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(
        isinstance(v, str) and v == "neo4j" for v in callspec.params.values())


def test_every_backend_parametrized_neo4j_test_is_marked(request: pytest.FixtureRequest) -> None:
    for item in request.session.items:
        if _uses_neo4j(item):
            assert item.get_closest_marker("neo4j") is not None, item.nodeid


def test_no_neo4j_test_runs_on_an_xdist_worker(request: pytest.FixtureRequest) -> None:
    if not hasattr(request.config, "workerinput"):
        pytest.skip("not on an xdist worker: Neo4j tests run one after the other here")
    marked = [i.nodeid for i in request.session.items if i.get_closest_marker("neo4j")]
    assert marked == [], f"run Neo4j tests with -m neo4j -p no:xdist: {marked[:3]}"
