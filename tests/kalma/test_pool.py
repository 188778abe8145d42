"""The knowledge pool (App. A.2) and relation labels, on the demo KG (Freebase layout,
marriages through CVTs) and on a Wikidata-shaped store."""

from __future__ import annotations

from kalma.pool import is_citable, knowledge_pool, relation_label
from kgstore import open_store
from kgstore.models import Predicate
from tests.kalma.stores import demo_store, wikidata_store  # noqa: F401


def test_relation_labels() -> None:
    assert relation_label("P19", "Place of birth") == "place of birth"
    assert relation_label(Predicate("P19", "place of birth"), None) == "place of birth"
    assert relation_label("P212", "ISBN-13") == "ISBN-13"
    assert relation_label("people.person.place_of_birth", "Place of birth") == "place of birth"
    assert relation_label("people.person.spouse_s", "Spouse (or domestic partner)") == "spouse"
    assert relation_label("http://rdf.freebase.com/ns/people.person.spouse_s", None) == "spouse"
    # The segment only repeats the domain: the curated phrase says what the relation is.
    assert relation_label("film.director.film", "Films directed") == "directed"
    # Unlabelled Wikidata properties: the curated phrase without its verb, else the id.
    assert relation_label("P106", None) == "occupation"
    assert relation_label("P19", None) == "born in"
    assert relation_label("P1050", None) == "P1050"
    assert relation_label("http://schema.org/birthPlace", None) == "birth place"


def test_demo_pool_flattens_marriages(demo_store: str) -> None:  # noqa: F811
    with open_store(demo_store, read_only=True) as store:
        labels = {p.id: p.label for p in store.predicates() if p.label}
        hanks = store.find_by_name("Tom Hanks")[0]
        wilson = store.find_by_name("Rita Wilson")[0]
        pool = knowledge_pool(store, hanks.id, labels=labels)
    triples = [k.triple() for k in pool]
    spouse = next(k for k in pool if k.relation == "spouse")
    assert spouse.object == "Rita Wilson" and spouse.object_id == wilson.id
    assert spouse.predicate == "people.person.spouse_s/people.marriage.spouse"
    assert spouse.via is not None and spouse.via.startswith("m.")
    start = next(k for k in pool if k.relation == "spouse start date")
    assert (start.object, start.object_id, start.via) == ("1988", None, spouse.via)
    assert [hanks.id, "place of birth", "Concord"] in triples
    assert [hanks.id, "date of birth", "9 July 1956"] in triples
    # The marriage's fact back to Tom Hanks, his name, types and description are no
    # knowledge; CVT ids never show.
    assert all(k.object_id != hanks.id and k.object != "Tom Hanks" or k.relation == "film character"
               for k in pool)
    assert not any(k.relation in ("name", "type", "description") for k in pool)
    assert not any(k.object.startswith("m.") for k in pool)
    assert pool == sorted(pool, key=lambda k: (k.relation, k.object, k.predicate or "", k.via or ""))
    assert all(is_citable(k) for k in pool)


def test_wikidata_pool_uses_labels_and_renders_values(wikidata_store: str) -> None:  # noqa: F811
    with open_store(wikidata_store, read_only=True) as store:
        labels = {p.id: p.label for p in store.predicates() if p.label}
        pool = knowledge_pool(store, "Q692", labels=labels)
        limited = knowledge_pool(store, "Q692", labels=labels, limit=2)
    assert [k.triple() for k in pool] == [
        ["Q692", "date of birth", "23 April 1564"], ["Q692", "notable work", "Hamlet"],
        ["Q692", "occupation", "writer"], ["Q692", "place of birth", "England"],
        ["Q692", "spouse", "Anne Hathaway"]]   # P31 (instance of) is bookkeeping
    assert pool[-1].object_id == "Q262479" and pool[-1].predicate == "P26"
    assert len(limited) == 2
