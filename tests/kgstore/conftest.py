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
from tests import neo4j_server
from tests.kgstore.kgdata import FILM_ENTITIES, FILM_FACTS, FILM_PREDICATES, KG

# Small buffer pools keep the many short-lived test databases cheap to open (read when a
# store is opened).
os.environ.setdefault("KGBENCH_BUFFER_POOL_MB", "256")


def _new_ladybug(directory: Path) -> Store:
    return open_store(directory / "store", create=True)


def _new_neo4j(directory: Path) -> Store:
    """The test server's database, emptied, as a new store; loads stage under
    ``directory`` (the backend's local work folder, :mod:`kgstore.backends.neo4j.workdir`)."""
    assert neo4j_server.URI is not None
    neo4j_server.wipe()
    os.environ["KGBENCH_NEO4J_WORK"] = str(directory / "neo4j-work")
    _NEO4J_HOLDER.clear()
    return open_store(neo4j_server.URI, create=True)


# Which fixture's content the one Neo4j test database holds now (see film_store).
_NEO4J_HOLDER: list[object] = []

# backend name -> function(scratch directory) returning a fresh, empty Store. Neo4j runs
# when KGBENCH_NEO4J_URI names a server (CI always; `make neo4j-up` starts one).
BACKEND_FACTORIES: dict[str, Callable[[Path], Store]] = {
    "ladybug": _new_ladybug,
    **({"neo4j": _new_neo4j} if neo4j_server.URI else {}),
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


class SharedStore:
    """A store with fixed content that a module's tests share (they must not modify
    it), built on first use and again whenever the one Neo4j test database was emptied
    since (every fresh Neo4j store empties it)."""

    def __init__(self, factory: Callable[[Path], Store], directory: Path,
                 load: Callable[[Store], object]) -> None:
        self.factory, self.directory, self.load = factory, directory, load
        self.store: Store | None = None

    def get(self) -> Store:
        if self.store is not None and (self.store.backend != "neo4j" or _NEO4J_HOLDER == [self]):
            return self.store
        self.close()
        self.store = self.factory(self.directory)
        self.load(self.store)
        if self.store.backend == "neo4j":
            _NEO4J_HOLDER.append(self)
        return self.store

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


@pytest.fixture(scope="module")
def _film_stores(
    backend: str, film_kg: KG, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedStore]:
    kept = SharedStore(BACKEND_FACTORIES[backend], tmp_path_factory.mktemp(f"film-{backend}"),
                       film_kg.load)
    yield kept
    kept.close()


@pytest.fixture
def film_store(_film_stores: SharedStore) -> Store:
    """A store holding the film KG, shared by a module's tests: do not modify it."""
    return _film_stores.get()


