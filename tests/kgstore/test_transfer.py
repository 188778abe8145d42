"""Whole-store copies (:mod:`kgstore.transfer`) and the content checksum
(:mod:`kgstore.checksum`) on real embedded stores: the film KG, a store the real
loaders built from the demo data, interrupted copies, and checksums that see one
changed alias, language tag or fact.

Copies to and from Neo4j: :mod:`tests.kgstore.test_transfer_neo4j`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kgstore import (
    Entity,
    Fact,
    Literal,
    Predicate,
    SourceRecord,
    StoreNotFoundError,
    open_store,
)
from kgstore.checksum import ContentHash, content_checksum
from kgstore.transfer import (
    CopyError,
    copy_store,
    same_location,
    store_counts,
)
from tests.kgstore.kgdata import FILM_ENTITIES, FILM_FACTS, FILM_PREDICATES

# Beyond the film KG: a nameless entity that is the subject of a fact but no CVT (the
# loaders' nameless_is_cvt rule would make it one), a CVT without any type (only its
# own flag says so), and an id beyond U+FFFF.
EXTRA_ENTITIES = [Entity("m.stmt", is_cvt=True), Entity("m.\U0001f3ac", "Clapper 🎬")]
EXTRA_FACTS = [
    Fact("m.nino_rota", "people.person.profession", "m.composer"),
    Fact("m.stmt", "film.film.rating", Literal("8", "xsd:integer")),
    Fact("m.\U0001f3ac", "rdfs:label", Literal("Klappe", lang="de")),
]
CVT_TYPES = ["film.performance"]
SOURCE = SourceRecord(file="/data/film.tsv", checksum="abc123", format="triples",
                      counts={"facts": 31}, loaded_at="2026-01-01T00:00:00+00:00")


def build(location: Path, entities: list[Entity] | None = None, facts: list[Fact] | None = None,
          predicates: list[Predicate] | None = None, cvt_types: list[str] | None = None) -> str:
    """A store at ``location`` holding the film KG plus :data:`EXTRA_FACTS` (or the
    records given), closed again; returns its location."""
    with open_store(str(location), create=True) as store:
        store.ingest(
            FILM_ENTITIES + EXTRA_ENTITIES if entities is None else entities,
            FILM_FACTS + EXTRA_FACTS if facts is None else facts,
            predicates=FILM_PREDICATES if predicates is None else predicates,
            cvt_types=CVT_TYPES if cvt_types is None else cvt_types)
        store.record_source(SOURCE)
    return str(location)


def content(location: str) -> dict[str, Any]:
    """Everything a store holds, read through the Store interface."""
    with open_store(location, read_only=True) as store:
        return {
            "entities": sorted((e.id, e.name, tuple(e.aliases), tuple(e.types), e.is_cvt,
                                e.description) for b in store.iter_entities() for e in b),
            "facts": sorted((f.subject, f.predicate, f.object_key, repr(f.object))
                             for b in store.iter_facts() for f in b),
            "predicates": sorted((p.id, p.label, p.count, p.aliases) for p in store.predicates()),
            "cvt_types": sorted(store.cvt_types()),
            "sources": store.sources(),
            "counts": store_counts(store.stats()),
        }


def checksum_at(location: str) -> str:
    with open_store(location, read_only=True) as store:
        return content_checksum(store)


@pytest.fixture
def film(tmp_path: Path) -> str:
    return build(tmp_path / "film")


# -- copies -------------------------------------------------------------------------------

def test_copy_reproduces_every_record(film: str, tmp_path: Path) -> None:
    destination = str(tmp_path / "copy")
    report = copy_store(film, destination)

    assert content(destination) == content(film)
    assert report.source_checksum == report.destination_checksum == checksum_at(film)
    assert report.counts == content(film)["counts"]
    assert report.sources_copied == 1 and not report.reused_stage
    with open_store(destination, read_only=True) as copy:
        # A placeholder stays one, also when it is the subject of a fact (no CVT).
        assert copy.entity("m.nino_rota") == Entity("m.nino_rota")
        assert copy.entity("m.composer") == Entity("m.composer")
        assert copy.entity("m.stmt") == Entity("m.stmt", is_cvt=True)
        assert copy.entity("m.perf1") == Entity("m.perf1", types=("film.performance",),
                                                is_cvt=True)
        names = {p.id: (p.label, p.aliases) for p in copy.predicates()}
        assert names["film.film.directed_by"] == ("directed by", ("director", "film director"))
        assert copy.cvt_types() == frozenset(CVT_TYPES)
        # The stage has done its work: nothing is left in the copy's staging folder.
        staging = copy.staging_dir()
        assert staging is None or not staging.exists()


def test_copy_of_a_store_the_loaders_built(shared_demo_store: Path, tmp_path: Path) -> None:
    """The source is the run's demo store, which ``kgbench load triples`` built (copying
    reads it only)."""
    source = str(shared_demo_store)
    destination = str(tmp_path / "copy")
    report = copy_store(source, destination)

    assert content(destination) == content(source)
    assert report.counts["facts"] > 1000
    assert checksum_at(destination) == checksum_at(source) == report.source_checksum


def test_a_store_is_not_overwritten_unless_forced(film: str, tmp_path: Path) -> None:
    other = build(tmp_path / "other", entities=[Entity("m.x", "X")],
                  facts=[Fact("m.x", "p", "m.y")], predicates=[], cvt_types=[])
    before = content(other)
    with pytest.raises(CopyError, match="already holds a store; pass --force"):
        copy_store(film, other)
    assert content(other) == before

    report = copy_store(film, other, force=True)
    assert report.replaced_destination
    assert content(other) == content(film)   # replaced, not merged: m.x is gone
    # And again: a second forced copy into the same DST.
    assert copy_store(film, other, force=True).destination_checksum == checksum_at(film)


def test_an_empty_store_may_take_a_copy(film: str, tmp_path: Path) -> None:
    destination = str(tmp_path / "empty")
    open_store(destination, create=True).close()
    copy_store(film, destination)
    assert content(destination) == content(film)


def test_same_location_and_missing_source_are_refused(film: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for same in ("film", "./film/", str(tmp_path / "film")):
        with pytest.raises(CopyError, match="are the same store"):
            copy_store(film, same)
    assert same_location("bolt://Host:7687", "neo4j://host:7687")
    assert same_location("bolt://host", "neo4j+s://host:7687/")
    assert not same_location("bolt://host:7687", "bolt://other:7687")
    assert not same_location("bolt://host:7687", "host:7687")

    with pytest.raises(StoreNotFoundError, match="no kgbench store there"):
        copy_store(str(tmp_path / "missing"), str(tmp_path / "dst"))
    assert not (tmp_path / "dst").exists()


def interrupt_at(phase: str) -> Callable[[str, int, int | None], None]:
    def progress(description: str, done: int, total: int | None) -> None:
        if description.startswith(phase):
            raise KeyboardInterrupt
    return progress


@pytest.mark.parametrize("phase", ["import: facts", "verify entities"])
def test_an_interrupted_copy_resumes_from_its_stage(film: str, tmp_path: Path,
                                                    phase: str) -> None:
    destination = str(tmp_path / "copy")
    with pytest.raises(KeyboardInterrupt):
        copy_store(film, destination, progress=interrupt_at(phase))
    with open_store(destination, read_only=True) as partial:
        staging = partial.staging_dir()
    assert staging is not None and any(staging.glob("copy-*/manifest.json"))

    report = copy_store(film, destination)
    assert report.reused_stage
    assert content(destination) == content(film)
    assert not staging.exists()


def test_an_interrupted_dump_leaves_nothing_to_reuse(film: str, tmp_path: Path) -> None:
    destination = str(tmp_path / "copy")
    with pytest.raises(KeyboardInterrupt):
        copy_store(film, destination, progress=interrupt_at("copy facts"))
    with open_store(destination, read_only=True) as partial:
        staging = partial.staging_dir()
    assert staging is None or not staging.exists()

    report = copy_store(film, destination)   # DST is empty: a fresh copy
    assert not report.reused_stage
    assert content(destination) == content(film)


def test_a_source_changed_since_an_interrupted_copy_is_refused(film: str,
                                                               tmp_path: Path) -> None:
    destination = str(tmp_path / "copy")
    with pytest.raises(KeyboardInterrupt):
        copy_store(film, destination, progress=interrupt_at("verify entities"))
    with open_store(film) as source:
        source.ingest(facts=[Fact("m.godfather", "film.film.genre", "m.crime")])

    with pytest.raises(CopyError, match="has changed since; pass --force"):
        copy_store(film, destination)
    report = copy_store(film, destination, force=True)
    assert not report.reused_stage
    assert content(destination) == content(film)


# -- the checksum -------------------------------------------------------------------------

def test_checksum_does_not_depend_on_order(tmp_path: Path) -> None:
    records: list[Any] = [*FILM_ENTITIES, *FILM_FACTS, *FILM_PREDICATES, "film.performance"]
    digests = set()
    for seed in range(3):
        random.Random(seed).shuffle(records)
        content_hash = ContentHash()
        for record in records:
            if isinstance(record, Entity) and seed % 2:   # lists in another order too
                content_hash.entity(replace(record, aliases=tuple(reversed(record.aliases)),
                                            types=tuple(reversed(record.types))))
            elif isinstance(record, Entity):
                content_hash.entity(record)
            elif isinstance(record, Fact):
                content_hash.fact(record)
            elif isinstance(record, Predicate):
                content_hash.predicate(record)
            else:
                content_hash.cvt_type(record)
        digests.add(content_hash.hexdigest())
    assert len(digests) == 1

    # Two stores loaded in different orders (and in two imports) hold the same content.
    one = build(tmp_path / "one")
    with open_store(str(tmp_path / "two"), create=True) as two:
        two.ingest(facts=list(reversed(FILM_FACTS + EXTRA_FACTS)), cvt_types=CVT_TYPES)
        two.ingest(list(reversed(FILM_ENTITIES + EXTRA_ENTITIES)), predicates=FILM_PREDICATES)
    assert checksum_at(one) == checksum_at(str(tmp_path / "two"))


def _with_entity(entities: list[Entity], id: str, **change: Any) -> list[Entity]:
    return [replace(e, **change) if e.id == id else e for e in entities]


def _with_fact(facts: list[Fact], old: Fact, new: Fact) -> list[Fact]:
    return [new if f == old else f for f in facts]


BASE_ENTITIES = FILM_ENTITIES + EXTRA_ENTITIES
BASE_FACTS = FILM_FACTS + EXTRA_FACTS
LABEL_FACT = next(f for f in FILM_FACTS if f.object == Literal("Der Pate", lang="de"))
DIRECTED = FILM_FACTS[0]
TAMPERED: dict[str, dict[str, Any]] = {
    "one alias": {"entities": _with_entity(BASE_ENTITIES, "m.godfather",
                                           aliases=("  the GODFATHER  ", "Il padrino"))},
    "a literal's language": {"facts": _with_fact(
        BASE_FACTS, LABEL_FACT, replace(LABEL_FACT, object=Literal("Der Pate", lang="de-at")))},
    "a literal's datatype": {"facts": _with_fact(
        BASE_FACTS, EXTRA_FACTS[1], replace(EXTRA_FACTS[1], object=Literal("8", "xsd:int")))},
    "one fact's object": {"facts": _with_fact(
        BASE_FACTS, DIRECTED, replace(DIRECTED, object="m.godfather2"))},
    "one fact more": {"facts": [*BASE_FACTS, Fact("m.nyc", "p", "m.usa")]},
    "a description": {"entities": _with_entity(BASE_ENTITIES, "m.paris_tx",
                                               description="a city in Texas")},
    "a CVT flag": {"entities": _with_entity(BASE_ENTITIES, "m.stmt", is_cvt=False)},
    "a type": {"entities": _with_entity(BASE_ENTITIES, "m.nyc", types=("location.city",))},
    "a predicate label": {"predicates": [replace(FILM_PREDICATES[0], label="director"),
                                         FILM_PREDICATES[1]]},
    "a predicate alias": {"predicates": [replace(FILM_PREDICATES[0], aliases=("director",)),
                                         FILM_PREDICATES[1]]},
    "a CVT type": {"cvt_types": [*CVT_TYPES, "type.statement"]},
}


@pytest.mark.parametrize("change", list(TAMPERED))
def test_checksum_sees_one_changed_record(film: str, tmp_path: Path, change: str) -> None:
    tampered = build(tmp_path / "tampered", **TAMPERED[change])
    assert checksum_at(tampered) != checksum_at(film)


def test_checksum_of_a_tampered_copy_differs(film: str, tmp_path: Path) -> None:
    destination = str(tmp_path / "copy")
    copy_store(film, destination)
    with open_store(destination) as copy:   # one alias more, through an ordinary import
        copy.ingest([Entity("m.france", aliases=("République française",))])
        counts = store_counts(copy.stats())
    assert counts == content(film)["counts"]          # the counts cannot see it
    assert checksum_at(destination) != checksum_at(film)


def test_checksum_tells_apart_what_serialisations_confuse() -> None:
    def digest(*records: Entity | Fact) -> str:
        content_hash = ContentHash()
        for r in records:
            if isinstance(r, Entity):
                content_hash.entity(r)
            else:
                content_hash.fact(r)
        return content_hash.hexdigest()

    assert digest(Entity("a", None)) != digest(Entity("a", ""))
    assert digest(Fact("a", "p", "x")) != digest(Fact("a", "p", Literal("x")))
    assert digest(Entity("a", "b c")) != digest(Entity("a b", "c"))
    assert digest(Entity("a", aliases=("x,y",))) != digest(Entity("a", aliases=("x", "y")))
    assert digest() == "0" * 64   # nothing summed yet

