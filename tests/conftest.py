"""Session-wide test setup: the tests that use the one Neo4j test database run in one
xdist group (``make test`` runs ``--dist loadgroup``), so they never run side by side."""

from __future__ import annotations

import pytest

from tests.neo4j_server import GROUP


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        # Parametrized over the backends (tests/kgstore/conftest.py BACKEND_FACTORIES,
        # whatever the fixture's name), or marked.
        uses_neo4j = (callspec is not None and any(
            isinstance(v, str) and v == "neo4j" for v in callspec.params.values())) \
            or item.get_closest_marker("neo4j") is not None
        if uses_neo4j:
            item.add_marker(pytest.mark.xdist_group(GROUP))
