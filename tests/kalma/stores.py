"""Stores the kbuild tests share: the demo KG (Freebase layout, marriages through CVTs),
built once per test run, and a small Wikidata-shaped store (Q/P ids with labels, P31 Q5
types) built in the test, with the paper's own namesakes (App. A.2: Anne Hathaway the
actress, and the wife of William Shakespeare)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgstore import open_store
from kgstore.models import Entity, Fact, Literal, Predicate
from tests.shared_builds import build_once, shared_root

WD_PREDICATES = [Predicate("P19", "place of birth"), Predicate("P26", "spouse"),
                 Predicate("P106", "occupation"), Predicate("P569", "date of birth"),
                 Predicate("P40", "child"), Predicate("P800", "notable work"),
                 Predicate("P31", "instance of")]


def human(qid: str, name: str) -> Entity:
    return Entity(qid, name, types=("Q5",))


WD_ENTITIES = [
    human("Q692", "William Shakespeare"), human("Q262479", "Anne Hathaway"),
    human("Q36301", "Anne Hathaway"), human("Q900", "Jane Doe"),
    human("Q901", "John Smith"), human("Q902", "John Smith"),
    Entity("Q5", "human"), Entity("Q21", "England"), Entity("Q36180", "writer"),
    Entity("Q33999", "actor"), Entity("Q41567", "Hamlet"), Entity("Q60", "New York City"),
]
WD_FACTS = [
    Fact("Q692", "P31", "Q5"), Fact("Q692", "P26", "Q262479"), Fact("Q262479", "P26", "Q692"),
    Fact("Q692", "P19", "Q21"), Fact("Q692", "P106", "Q36180"), Fact("Q692", "P800", "Q41567"),
    Fact("Q692", "P569", Literal("1564-04-23", "xsd:date")),
    Fact("Q262479", "P569", Literal("1556", "xsd:gYear")),
    Fact("Q36301", "P106", "Q33999"), Fact("Q36301", "P19", "Q60"),
    Fact("Q36301", "P569", Literal("1982-11-12", "xsd:date")),
    # Jane Doe's spouse and her child are both named John Smith: nothing tells them apart.
    Fact("Q900", "P26", "Q901"), Fact("Q900", "P40", "Q902"),
    Fact("Q900", "P106", "Q36180"),
]


def build_wikidata_store(path: Path) -> str:
    with open_store(str(path), create=True) as store:
        store.ingest(WD_ENTITIES, WD_FACTS, predicates=WD_PREDICATES)
    return str(path)


@pytest.fixture(scope="session")
def demo_store(shared_demo_store: Path) -> str:
    """The demo KG: the run's one store (``tests/conftest.py``), which the kbuild tests
    only read (``kalma generate`` opens its store read-only)."""
    return str(shared_demo_store)


@pytest.fixture(scope="session")
def wikidata_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The small Wikidata-shaped store, built once per test run (read it only)."""
    return str(build_once(shared_root(tmp_path_factory, "stores") / "kalma-wikidata",
                          build_wikidata_store))
