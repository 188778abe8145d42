"""A store loaded before search by words existed gets its search index once: the
embedded one on its first search (also read-only: the index lives beside the database),
a Neo4j one through a handle that may write (``kgbench store search-index``, or the
next load), with a one-line error that says so on a read-only one. Also: a copy of a
store searches as its source does, and an index left by a killed import is rebuilt."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgstore import Entity, Fact, Store, StoreError, open_store
from kgstore.search_index import INDEX_POINTER
from kgstore.transfer import copy_store
from tests import neo4j_server

ENTITIES = [Entity("x.obama", "Barack Obama"), Entity("x.hawaii", "Hawaii")]
FACTS = [Fact("x.obama", "born_in", "x.hawaii")]


def _forget_index(store: Store) -> None:
    """Make ``store`` look as a store written before the search index did."""
    if store.backend == "ladybug":
        (Path(store.location) / INDEX_POINTER).unlink()
    else:
        neo4j_server.run_query("MATCH (n:Name) REMOVE n.fold")
        neo4j_server.run_query("MATCH (m:Meta {key: 'search_keys'}) DELETE m")


def test_a_store_loaded_before_the_index_gets_it_once(store: Store) -> None:
    store.ingest(ENTITIES, FACTS)
    location = store.location
    store.close()
    with open_store(location) as writer:
        _forget_index(writer)
    with open_store(location, read_only=True) as reader:
        if reader.backend == "neo4j":
            with pytest.raises(StoreError, match="kgbench store search-index"):
                reader.search("obama")
        else:
            assert reader.prepare_search() is True   # built on first use
            assert reader.prepare_search() is False
            assert [h.entity.id for h in reader.search("obama")] == ["x.obama"]
    with open_store(location) as writer:   # what `kgbench store search-index` does
        steps: list[str] = []
        assert writer.prepare_search(lambda what, done, total: steps.append(what)) is (
            writer.backend == "neo4j")
        assert writer.prepare_search() is False
    with open_store(location, read_only=True) as reader:
        assert [h.entity.id for h in reader.search("obama")] == ["x.obama"]
        assert [h.entity.id for h in reader.search("awai")] == ["x.hawaii"]


def test_an_index_of_another_generation_is_rebuilt(tmp_path: Path) -> None:
    # An import killed after it wrote to the store but before it rebuilt the index
    # leaves the index of the generation before it: not used, built again.
    folder = tmp_path / "store"
    with open_store(str(folder), create=True) as writer:
        writer.ingest(ENTITIES, FACTS)
    before = tmp_path / "index-before"
    before.mkdir()
    for path in folder.glob("search-index*"):
        (shutil.copytree if path.is_dir() else shutil.copy)(path, before / path.name)
    with open_store(str(folder)) as writer:
        writer.ingest([Entity("x.michelle", "Michelle Obama")], [])
    for path in folder.glob("search-index*"):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    for path in before.iterdir():
        (shutil.copytree if path.is_dir() else shutil.copy)(path, folder / path.name)
    with open_store(str(folder), read_only=True) as reader:
        assert reader.prepare_search() is True
        assert [h.entity.id for h in reader.search("obama")] == ["x.obama", "x.michelle"]


def test_a_copy_searches_as_its_source(store: Store, tmp_path: Path) -> None:
    store.ingest(ENTITIES, FACTS)
    copy = str(tmp_path / "copy")
    copy_store(store.location, copy)
    with open_store(copy, read_only=True) as reader:
        assert [(h.entity.id, h.match, h.facts) for h in reader.search("obama")] == [
            (h.entity.id, h.match, h.facts) for h in store.search("obama")]
