"""Session-wide test setup: every test that uses the one Neo4j test database carries the
``neo4j`` marker, so ``make test`` can run them in a process of their own, one after the
other (``-m neo4j -p no:xdist``), beside the xdist workers that run the rest (``-m "not
neo4j"``). A fresh Neo4j store empties that database: two such tests side by side
clobber each other. (xdist's ``--dist loadgroup`` was tried first; its groups did not
hold here, see tests/test_neo4j_group.py.)"""

from __future__ import annotations

import pytest

from tests.llm.chat_server import other, server  # noqa: F401  (fixtures: a chat server, a second one)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        # Parametrized over the backends (tests/kgstore/conftest.py BACKEND_FACTORIES,
        # whatever the fixture's name): marked here, before `-m` selects.
        if callspec is not None and any(
                isinstance(v, str) and v == "neo4j" for v in callspec.params.values()):
            item.add_marker(pytest.mark.neo4j)
