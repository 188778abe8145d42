"""The tests that use the one Neo4j test database never run side by side (xdist): a
fresh Neo4j store empties the database, so two at once clobber each other (a grounding
test parametrized through a fixture not named ``backend`` once ran beside the
conformance suite and both failed)."""

from __future__ import annotations

import pytest

from tests.neo4j_server import GROUP


def test_every_neo4j_test_is_in_the_neo4j_group(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    neo4j_items = [item for item in items if "[neo4j" in item.nodeid
                   or item.get_closest_marker("neo4j") is not None]
    for item in neo4j_items:
        groups = [m.args[0] for m in item.iter_markers("xdist_group") if m.args]
        assert groups == [GROUP], item.nodeid
