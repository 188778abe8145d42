"""Store locations (:mod:`kgstore.location`): a directory path opens the embedded store;
a Neo4j URI (``bolt://``, ``neo4j+s://``) opens the Neo4j backend (an unreachable one is
one clear error); any other ``scheme://``, and the ``bolt:/host`` that ``Path`` makes of a
Neo4j URI, is refused with one clear error, and nothing is created for it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgstore import (
    NEO4J_SCHEMES,
    Entity,
    Fact,
    Literal,
    StoreError,
    StoreLocationError,
    is_uri,
    local_store_path,
    location_scheme,
    open_store,
    remove_store,
    store_exists,
)
from kgstore.backends.ladybug import LadybugStore
from kgstore.backends.ladybug import remove_store as remove_directory_store
from kgstore.backends.neo4j import StoreUnavailableError

NEO4J_URIS = [
    "bolt://127.0.0.1:7687", "bolt+s://db.example.org:7687", "bolt+ssc://db:7687",
    "neo4j://127.0.0.1:7687", "neo4j+s://x.databases.neo4j.io", "neo4j+ssc://db",
    "BOLT://HOST:7687",
    # what `Path("bolt://127.0.0.1:7687")` prints: the CLI's old Path options made this
    "bolt:/127.0.0.1:7687", "neo4j+s:/x.databases.neo4j.io",
]
FOLDED_URIS = [u for u in NEO4J_URIS if "://" not in u]
OTHER_URIS = ["file:///tmp/kg", "http://127.0.0.1:7474/db", "s3://bucket/kg", "mem:/kg"]
PATHS = ["kg", "./kg", "/tmp/kg", "kgbench-data/store", "C:/data/kg", "./bolt:/x",
         "a b/c:d", "store:", "ünïcode/kg", "../kg"]

OPENERS: dict[str, Callable[[str], Any]] = {
    "open_store": lambda loc: open_store(loc),
    "open_store create": lambda loc: open_store(loc, create=True),
    "open_store read-only": lambda loc: open_store(loc, read_only=True),
    "store_exists": store_exists,
    "remove_store": remove_store,
    "LadybugStore(Path) create": lambda loc: LadybugStore(Path(loc), create=True),
    "ladybug remove_store(Path)": lambda loc: remove_directory_store(Path(loc)),
}


@pytest.mark.parametrize("uri", [*NEO4J_URIS, *OTHER_URIS])
def test_a_uri_is_a_uri(uri: str) -> None:
    assert is_uri(uri)
    scheme = location_scheme(uri)
    assert scheme is not None and uri.lower().startswith(scheme + ":/")


def test_the_neo4j_schemes_are_recognised() -> None:
    assert {location_scheme(u) for u in NEO4J_URIS} == set(NEO4J_SCHEMES)


@pytest.mark.parametrize("path", PATHS)
def test_a_path_is_not_a_uri(path: str) -> None:
    assert not is_uri(path)
    assert location_scheme(path) is None
    assert local_store_path(path) == Path(path)


PATH_OPENERS = [o for o in OPENERS if "Path" in o]


@pytest.mark.parametrize("opener", list(OPENERS))
@pytest.mark.parametrize("uri", [*FOLDED_URIS, *OTHER_URIS])
def test_a_uri_no_backend_reads_is_refused_and_nothing_is_created(
        uri: str, opener: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreLocationError) as info:
        OPENERS[opener](uri)
    message = str(info.value)
    assert isinstance(info.value, StoreError)   # the CLI prints StoreErrors as one line
    assert message.startswith(str(Path(uri)) if "Path" in opener else uri)
    assert "needs two slashes" in message or "no backend reads" in message
    assert "\n" not in message
    assert list(tmp_path.iterdir()) == []   # no ./bolt: folder


@pytest.mark.parametrize("opener", PATH_OPENERS)
@pytest.mark.parametrize("uri", [u for u in NEO4J_URIS if "://" in u])
def test_the_embedded_backend_refuses_a_neo4j_uri(
        uri: str, opener: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreLocationError, match="needs two slashes"):
        OPENERS[opener](uri)   # Path() folded it
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("opener", [o for o in OPENERS if o not in PATH_OPENERS])
@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_an_unreachable_neo4j_is_one_clear_error_and_nothing_is_created(
        scheme: str, opener: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:   # a loopback port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        uri = f"{scheme}://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KGBENCH_NEO4J_AUTH", "neo4j/not-used")
    with pytest.raises(StoreUnavailableError) as info:
        OPENERS[opener](uri)
    message = str(info.value)
    assert message.startswith(f"{uri}: cannot reach Neo4j")
    assert "check that the server runs" in message and "\n" not in message
    assert list(tmp_path.iterdir()) == []


def test_a_directory_store_is_opened_found_and_removed_by_its_str_location(
        tmp_path: Path) -> None:
    location = str(tmp_path / "kg")
    assert not store_exists(location)
    with open_store(location, create=True) as store:
        assert store.location == location
        store.ingest([Entity("m.1", "One")], [Fact("m.1", "p", Literal("x"))])
    assert store_exists(location)
    with open_store(location, read_only=True) as store:
        assert store.stats().facts == 1
    remove_store(location)
    assert not Path(location).exists()
    assert not store_exists(location)


def test_remove_store_still_refuses_a_directory_that_is_not_a_store(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(StoreError, match="not a kgbench store"):
        remove_store(str(tmp_path))
    assert (tmp_path / "notes.txt").exists()
