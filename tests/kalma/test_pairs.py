"""Connected pairs and name disambiguation (App. A.1-A.2) on the demo KG, a
Wikidata-shaped store and the real Wikidata sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from extension.inputs.domain_spec import DomainSpec
from kalma.errors import KalmaError
from kalma.pairs import connected_pairs, find_connected_pairs, single_entities
from kgstore import open_store
from loaders.wikidata import load_wikidata
from tests.external import external_path
from tests.kalma.stores import demo_store, wikidata_store  # noqa: F401

PEOPLE = DomainSpec("type", "people.person")
HUMANS = DomainSpec("type", "Q5")


def test_demo_pairs_are_married_people_linked_through_the_marriage(demo_store: str) -> None:  # noqa: F811
    with open_store(demo_store, read_only=True) as store:
        pairs = connected_pairs(store, PEOPLE, seed=1, limit=10)
        again = connected_pairs(store, PEOPLE, seed=1, limit=10)
        other = connected_pairs(store, PEOPLE, seed=2, limit=10)
        cvts = {e.id for e in store.sample_entities(500, seed=0, type_id="people.marriage",
                                                    named_only=False, include_cvt=True)}
    assert len(pairs) == 10 and pairs == again and pairs != other
    assert len({frozenset((p.a.id, p.b.id)) for p in pairs}) == 10
    for p in pairs:
        (link,) = p.link
        assert (link.subject_id, link.relation, link.object_id) == (p.a.id, "spouse", p.b.id)
        assert link.via in cvts
        assert link.predicate == "people.person.spouse_s/people.marriage.spouse"


def test_namesakes_are_told_apart_by_the_connection_or_skipped(wikidata_store: str) -> None:  # noqa: F811
    with open_store(wikidata_store, read_only=True) as store:
        search = find_connected_pairs(store, HUMANS, seed=0, limit=10)
        singles = single_entities(store, HUMANS, seed=0, limit=10)
    (pair,) = search.pairs
    assert {pair.a.id, pair.b.id} == {"Q692", "Q262479"}
    wife = pair.a if pair.a.id == "Q262479" else pair.b
    assert pair.display_name(wife) == "Anne Hathaway (spouse of William Shakespeare)"
    # Jane Doe's spouse and her child are both John Smith: both pairs are left out.
    assert search.ambiguous == 2
    # One entity alone: a shared name cannot be told apart.
    assert {e.id for e in singles} == {"Q692", "Q900"}


def test_no_pair_says_so_and_suggests_single(tmp_path: Path) -> None:
    humans = external_path("wikidata", "DERIVED_humans_Q5.jsonl")
    with open_store(str(tmp_path / "wd"), create=True) as store:
        load_wikidata(store, [humans])
        with pytest.raises(KalmaError, match="no connected pair of type Q5 in the store") as info:
            connected_pairs(store, HUMANS, seed=0, limit=5)
        assert info.value.hint is not None and "--single" in info.value.hint
        assert len(single_entities(store, HUMANS, seed=0, limit=5)) == 5
