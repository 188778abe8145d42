"""Fixtures for the store tests: one fresh, empty store per backend, and a small film KG.

Every test that takes ``store`` / ``store_factory`` / ``film_store`` runs once per entry of
:data:`BACKENDS`. Adding a backend is one entry in :data:`BACKEND_FACTORIES`: a function
that takes a scratch directory and returns a fresh, empty :class:`~kgstore.Store`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kgstore import Store, open_store
from tests.kgstore.kgdata import FILM_ENTITIES, FILM_FACTS, FILM_PREDICATES, KG

# Small buffer pools keep the many short-lived test databases cheap to open (read when a
# store is opened).
os.environ.setdefault("KGBENCH_BUFFER_POOL_MB", "256")


def _new_ladybug(directory: Path) -> Store:
    return open_store(directory / "store", create=True)


# backend name -> function(scratch directory) returning a fresh, empty Store.
# "neo4j" joins when its backend lands (e.g. a function that empties a test database
# on a local server and opens it).
BACKEND_FACTORIES: dict[str, Callable[[Path], Store]] = {
    "ladybug": _new_ladybug,
}
BACKENDS = list(BACKEND_FACTORIES)


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def backend_factory(backend: str) -> Callable[[Path], Store]:
    """The current backend's factory: ``backend_factory(scratch_dir)`` -> fresh empty
    Store (for tests that manage their own directories, e.g. Hypothesis examples)."""
    return BACKEND_FACTORIES[backend]


StoreFactory = Callable[[], Store]


@pytest.fixture
def store_factory(backend: str, tmp_path: Path) -> Iterator[StoreFactory]:
    """Call it to get another fresh, empty store of the current backend."""
    opened: list[Store] = []

    def make() -> Store:
        directory = tmp_path / f"s{len(opened)}"
        directory.mkdir()
        s = BACKEND_FACTORIES[backend](directory)
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.close()


@pytest.fixture
def store(store_factory: StoreFactory) -> Store:
    return store_factory()


# --------------------------------------------------------------------------------------
# The film KG (data in kgdata.py)
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def film_kg() -> KG:
    return KG(list(FILM_ENTITIES), list(FILM_FACTS), list(FILM_PREDICATES))


@pytest.fixture(scope="module")
def film_store(
    backend: str, film_kg: KG, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    """A store holding the film KG, shared by a module's tests: do not modify it."""
    s = BACKEND_FACTORIES[backend](tmp_path_factory.mktemp(f"film-{backend}"))
    film_kg.load(s)
    yield s
    s.close()


