"""Session-wide test setup: every test that uses the one Neo4j test database carries the
``neo4j`` marker, so ``make test`` can run them in a process of their own, one after the
other (``-m neo4j -p no:xdist``), beside the xdist workers that run the rest (``-m "not
neo4j"``). A fresh Neo4j store empties that database: two such tests side by side
clobber each other. (xdist's ``--dist loadgroup`` was tried first; its groups did not
hold here, see tests/test_neo4j_group.py.)

Fixtures every test directory may use:

* ``shared_demo_store`` (session): the demo KG in an embedded store, built once per test
  run for all xdist workers (:mod:`tests.shared_builds`). Never changed: a test that
  writes to it (``kgbench generate`` does: its seed's type samples) uses a copy
  (``tests.shared_builds.copy_tree``, 0.05 s against 1-3 s for a build).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm.chat_server import other, server  # noqa: F401  (fixtures: a chat server, a second one)
from tests.shared_builds import build_once, file_states, shared_root

BROWSER_FIXTURES = frozenset({"browser"})
"""Fixtures that start Chromium (tests/service/conftest.py): their tests are ``browser``."""
TORCH_FIXTURES = frozenset({"tiny_hf"})
"""The fixture every PyTorch-built model comes from (tests/scoring/models.py; ``exported``
and ``minilm`` use it): its tests are ``torch``."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Markers derived from what a test uses, added here, before ``-m`` selects (so that
    ``make test-fast`` can leave out what needs Neo4j, a browser or PyTorch without each
    test saying so)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        # Parametrized over the backends (tests/kgstore/conftest.py BACKEND_FACTORIES,
        # whatever the fixture's name).
        if callspec is not None and any(
                isinstance(v, str) and v == "neo4j" for v in callspec.params.values()):
            item.add_marker(pytest.mark.neo4j)
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if fixtures & TORCH_FIXTURES:
            item.add_marker(pytest.mark.torch)


@pytest.fixture(scope="session")
def shared_demo_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bundled demo KG (``kgbench/demo/data/films.nt.gz``) in an embedded store, as
    ``kgbench demo`` and ``kgbench load triples`` build it; shared: never modify it (the
    session's end fails if a test did: even opening it writable rewrites its file)."""
    from kgbench.demo.tour import build_demo_store

    store = build_once(shared_root(tmp_path_factory, "stores") / "demo",
                       lambda work: build_demo_store(str(work)))
    before = file_states(store)
    yield store
    assert file_states(store) == before, (
        f"a test changed the shared demo store {store}: copy it first "
        "(tests.shared_builds.copy_tree), or open it with read_only=True")
