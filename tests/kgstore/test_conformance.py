"""Store conformance: what every backend must do, run once per entry of ``BACKENDS``.

Most read tests share the module-scoped ``film_store`` (see ``kgdata.py``); tests that
write take a fresh ``store``.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from kgstore import (
    Entity,
    Fact,
    HasType,
    IsCvt,
    IsEntity,
    Literal,
    NotEqual,
    NotIn,
    PatternQuery,
    Predicate,
    QueryError,
    ReadOnlyQueryError,
    SourceRecord,
    Store,
    TriplePattern,
    Var,
)
from tests.kgstore.kgdata import (
    ACTOR,
    CHARACTER,
    CONTAINEDBY,
    DIRECTED_BY,
    FILM_FACTS,
    KG,
    LABEL_DE,
    LABEL_DE_2,
    NATIONALITY,
    PARIS_EN,
    RATING,
    RELEASE,
    RELEASE_1972,
    RELEASE_1974,
    RUNTIME_175,
    STARRING,
    TAGLINE,
    XSD,
    fact_key,
    snapshot,
)

A, B, C, D, F, OB, P, X, Y = (Var(n) for n in "abcdfopxy")


def fs(facts: list[Fact]) -> set[Fact]:
    return set(facts)


# --------------------------------------------------------------------------------------
# Ingest and lookups
# --------------------------------------------------------------------------------------


def test_entity_by_id_round_trip(film_store: Store) -> None:
    e = film_store.entity("m.godfather")
    assert e is not None
    assert e.id == "m.godfather"
    assert e.name == "The Godfather"
    assert set(e.aliases) == {"  the GODFATHER  ", "Il Padrino"}  # stored as given
    assert e.types == ("film.film",)
    assert e.description == "1972 crime film"
    assert e.is_cvt is False
    assert e.label == "The Godfather"


def test_cvt_entity(film_store: Store) -> None:
    e = film_store.entity("m.perf1")
    assert e is not None and e.is_cvt and e.name is None
    assert e.types == ("film.performance",)
    assert e.label == "m.perf1"


def test_placeholder_entity_for_endpoint_without_row(film_store: Store) -> None:
    e = film_store.entity("m.nino_rota")
    assert e == Entity("m.nino_rota")


def test_unknown_entity_is_none(film_store: Store) -> None:
    assert film_store.entity("m.nope") is None
    assert film_store.entity("") is None


def test_entities_leaves_out_missing_ids(film_store: Store) -> None:
    got = film_store.entities(["m.brando", "m.nope", "m.perf2", "m.brando"])
    assert set(got) == {"m.brando", "m.perf2"}
    assert got["m.brando"].name == "Marlon Brando"
    assert got["m.perf2"].is_cvt
    assert film_store.entities([]) == {}


@pytest.mark.parametrize(
    "query",
    ["The Godfather", "the godfather", "  THE   GODFATHER ", "the\tgodfather\n", "il padrino",
     "IL  PADRINO"],
)
def test_find_by_name_ignores_case_and_whitespace(film_store: Store, query: str) -> None:
    # The name and the alias "  the GODFATHER  " share a key: still one result.
    assert [e.id for e in film_store.find_by_name(query)] == ["m.godfather"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("usa", ["m.usa"]),
        ("u.s.", ["m.usa"]),
        ("United States of America", ["m.usa"]),
        ("francis coppola", ["m.coppola"]),
        ("paris, texas", ["m.paris_tx"]),
        ("Paris", ["m.paris_fr", "m.paris_tx"]),  # shared name: both, sorted by id
        ("Pari", []),
        ("nonexistent film", []),
        ("", []),
    ],
)
def test_find_by_name(film_store: Store, query: str, expected: list[str]) -> None:
    assert [e.id for e in film_store.find_by_name(query)] == expected


def test_find_by_name_limit(film_store: Store) -> None:
    assert [e.id for e in film_store.find_by_name("paris", limit=1)] == ["m.paris_fr"]


def test_find_by_name_returns_full_entities(film_store: Store) -> None:
    (e,) = film_store.find_by_name("al pacino")
    assert e == film_store.entity("m.pacino")


def ids(hits) -> list[str]:
    return [h.entity.id for h in hits]


def test_search_finds_words_inside_names(film_store: Store) -> None:
    # Before search was by words, only a name's beginning was found: "coppola" found
    # nothing though Francis Ford Coppola is there (issue 38).
    assert ids(film_store.search("coppola")) == ["m.coppola"]
    assert ids(film_store.search("pacino")) == ["m.pacino"]
    # Two word matches: the one with more facts first.
    assert [(h.entity.id, h.facts) for h in film_store.search("corleone")] == [
        ("m.michael", 2), ("m.vito", 1)]
    (hit,) = film_store.search("  FORD  cop")   # words in order, the last one begun
    assert hit.entity == film_store.entity("m.coppola") and hit.match == "word"


def test_search_substrings_accents_and_punctuation(film_store: Store) -> None:
    assert [(h.entity.id, h.match) for h in film_store.search("oppol")] == [
        ("m.coppola", "substring")]
    assert ids(film_store.search("Còppölá")) == ["m.coppola"]
    assert ids(film_store.search("u.s.")) == ["m.usa"]          # alias "  U.S.  " folds to "us"
    assert ids(film_store.search("paris-texas")) == ["m.paris_tx"]  # alias "Paris,   TEXAS"
    assert ids(film_store.search("alfredo")) == ["m.pacino"]     # an alias


def test_search_ranks_exact_then_word_then_substring_then_degree(film_store: Store) -> None:
    hits = film_store.search("paris")
    # Both are named Paris: exact, the better-connected first, then by id.
    assert [(h.entity.id, h.match) for h in hits] == [("m.paris_fr", "exact"),
                                                      ("m.paris_tx", "exact")]
    degrees = {h.entity.id: h.facts for h in hits}
    assert degrees["m.paris_fr"] >= degrees["m.paris_tx"]
    assert [(h.entity.id, h.match) for h in film_store.search("the godfather")] == [
        ("m.godfather", "exact"), ("m.godfather2", "word")]
    godfather = film_store.search("godfather")
    assert [h.match for h in godfather] == ["word", "word"]
    assert godfather[0].facts > godfather[1].facts   # the one with more facts first
    assert [h.match for h in film_store.search("fathe")] == ["substring", "substring"]


def test_search_hit_degree_counts_facts_in_and_out(film_store: Store, film_kg: KG) -> None:
    (hit,) = film_store.search("al pacino")
    facts = set(film_kg.facts)
    assert hit.facts == sum(1 for f in facts if "m.pacino" in (f.subject, f.object_key))


def test_search_limit_and_empty(film_store: Store) -> None:
    assert len(film_store.search("the god", limit=1)) == 1
    assert film_store.search("") == []
    assert film_store.search("   ") == []
    assert film_store.search("...") == []
    assert film_store.search("zzz") == []
    assert film_store.search("godfather", limit=0) == []


def test_search_only_named_non_cvt_entities(store: Store) -> None:
    assert store.search("star") == []   # an empty store
    store.ingest([
        Entity("x.named", "Star"),
        Entity("x.cvt", "Star performance", is_cvt=True),
        Entity("x.alias_only", aliases=("Stardust",)),
    ])
    assert ids(store.search("star")) == ["x.named"]
    # find_by_name has no such filter: exact lookups find them.
    assert [e.id for e in store.find_by_name("stardust")] == ["x.alias_only"]


def test_search_follows_incremental_loads(store: Store) -> None:
    store.ingest([Entity("x.obama", "Barack Obama"), Entity("x.hawaii", "Hawaii")],
                 [Fact("x.obama", "born_in", "x.hawaii")])
    assert ids(store.search("obama")) == ["x.obama"]
    # A second load: a new namesake with more facts, and a rename (the old name stays
    # an alias, so it still finds the entity).
    store.ingest([Entity("x.michelle", "Michelle Obama"), Entity("x.hawaii", "Hawai'i")],
                 [Fact("x.michelle", "p", "x.hawaii"), Fact("x.michelle", "q", "x.obama"),
                  Fact("x.michelle", "r", Literal("1964", "xsd:gYear"))])
    hits = store.search("obama")
    assert [(h.entity.id, h.facts) for h in hits] == [("x.michelle", 3), ("x.obama", 2)]
    assert ids(store.search("HAWAI’I")) == ids(store.search("hawaii")) == ["x.hawaii"]
    assert store.search("hawaii")[0].entity.name == "Hawai'i"


def test_predicates_with_counts(film_store: Store, film_kg: KG) -> None:
    preds = film_store.predicates()
    expected = Counter(f.predicate for f in set(film_kg.facts))
    assert {p.id: p.count for p in preds} == dict(expected)
    # Most frequent first, ties by id.
    assert [(-p.count, p.id) for p in preds] == sorted((-p.count, p.id) for p in preds)
    assert preds[0] == Predicate("rdfs:label", None, 4)
    assert [p.id for p in preds[1:5]] == [STARRING, ACTOR, CHARACTER, NATIONALITY]
    labels = {p.id: p.label for p in preds}
    assert labels[DIRECTED_BY] == "directed by"
    assert labels[STARRING] == "starring"
    assert labels[ACTOR] is None
    assert film_store.predicates(limit=2) == preds[:2]


def test_facts_out(film_store: Store) -> None:
    out = film_store.facts_out("m.godfather")
    # Every fact of the KG with that subject: entity and literal objects alike.
    assert fs(out) == {f for f in FILM_FACTS if f.subject == "m.godfather"}
    assert len(out) == 10 and {f.is_literal for f in out} == {True, False}


def test_facts_out_predicate_filter_and_limit(film_store: Store) -> None:
    starring = film_store.facts_out("m.godfather", predicate=STARRING)
    assert fs(starring) == {Fact("m.godfather", STARRING, "m.perf1"),
                            Fact("m.godfather", STARRING, "m.perf2")}
    one = film_store.facts_out("m.godfather", predicate=STARRING, limit=1)
    assert len(one) == 1 and one[0] in starring
    assert len(film_store.facts_out("m.godfather", limit=3)) == 3
    assert film_store.facts_out("m.godfather", predicate="no.such.predicate") == []
    assert film_store.facts_out("m.nope") == []
    assert film_store.facts_out("m.nino_rota") == []


def test_facts_in(film_store: Store) -> None:
    into = film_store.facts_in("m.usa")
    assert fs(into) == {
        Fact("m.godfather", "film.film.country", "m.usa"),
        Fact("m.coppola", NATIONALITY, "m.usa"),
        Fact("m.brando", NATIONALITY, "m.usa"),
        Fact("m.pacino", NATIONALITY, "m.usa"),
        Fact("m.paris_tx", CONTAINEDBY, "m.usa"),
    }
    nationals = film_store.facts_in("m.usa", predicate=NATIONALITY)
    assert {f.subject for f in nationals} == {"m.coppola", "m.brando", "m.pacino"}
    limited = film_store.facts_in("m.usa", predicate=NATIONALITY, limit=2)
    assert len(limited) == 2 and set(limited) <= set(nationals)
    assert film_store.facts_in("m.godfather") == []
    assert film_store.facts_in("m.nope") == []


def test_facts_around(film_store: Store) -> None:
    facts, more = film_store.facts_around("m.perf1", limit=10)
    assert fs(facts) == {Fact("m.godfather", STARRING, "m.perf1"),
                         Fact("m.perf1", ACTOR, "m.brando"),
                         Fact("m.perf1", CHARACTER, "m.vito")}
    assert more is False
    facts, more = film_store.facts_around("m.usa", limit=3)
    assert len(facts) == 3 and more is True
    facts, more = film_store.facts_around("m.usa", limit=5)
    assert len(facts) == 5 and more is False


@pytest.mark.parametrize(
    ("subject", "predicate", "literal", "python"),
    [
        ("m.godfather", RELEASE, Literal("1972-03-24", "xsd:date"), dt.date(1972, 3, 24)),
        ("m.godfather", "film.film.runtime", Literal("175", "xsd:integer"), 175),
        ("m.godfather", "film.film.rating", Literal("9.2", "xsd:double"), 9.2),
        ("m.godfather", "rdfs:label", Literal("Der Pate", lang="de"), "Der Pate"),
        ("m.godfather", "common.topic.tagline", Literal("An offer you can't refuse."),
         "An offer you can't refuse."),
        ("m.godfather2", "rdfs:label", Literal("Der Pate – Teil II", lang="de"),
         "Der Pate – Teil II"),
    ],
)
def test_literal_objects_intact(
    film_store: Store, subject: str, predicate: str, literal: Literal, python: object
) -> None:
    (fact,) = film_store.facts_out(subject, predicate=predicate)
    assert fact.is_literal
    obj = fact.object
    assert isinstance(obj, Literal)
    assert (obj.value, obj.datatype, obj.lang) == (literal.value, literal.datatype, literal.lang)
    assert obj.to_python() == python


def test_full_xsd_datatype_is_stored_short(film_store: Store) -> None:
    (fact,) = film_store.facts_out("m.godfather", predicate=RELEASE)
    assert fact.object == Literal("1972-03-24", XSD + "date")
    assert isinstance(fact.object, Literal) and fact.object.datatype == "xsd:date"


def test_stats_counts(film_store: Store, film_kg: KG) -> None:
    st = film_store.stats()
    facts = set(film_kg.facts)
    assert st.entities == len(film_kg.entity_ids) == 16
    assert st.cvt_entities == 3
    assert st.literals == len(film_kg.literals) == 8  # "Paris"@en is stored once
    assert st.facts == len(facts) == 28
    assert st.literal_facts == sum(f.is_literal for f in facts)
    assert st.entity_facts == st.facts - st.literal_facts
    assert st.predicates == len({f.predicate for f in facts})
    assert st.backend == film_store.backend
    assert st.location == film_store.location
    assert st.schema_version >= 1


def test_empty_store(store: Store) -> None:
    st = store.stats()
    assert (st.entities, st.literals, st.facts, st.predicates, st.sources) == (0, 0, 0, 0, [])
    assert store.find_by_name("x") == []
    assert store.predicates() == []
    assert store.sample_entities(5, seed=1) == []
    assert store.sample_facts(5, seed=1) == []
    assert store.neighborhood("x").entities == {}
    assert store.paths("x", "y") == []


def test_ingest_report(store: Store, film_kg: KG) -> None:
    report = store.ingest(film_kg.entities, film_kg.facts, predicates=film_kg.predicates)
    assert report.entities_new == 16
    assert report.facts_new == 28
    assert report.literals_new == 8
    assert report.predicates_new == len({f.predicate for f in film_kg.facts})
    assert report.facts_duplicate == 0
    assert report.entities_updated == 0


def test_ingest_counts_duplicates_within_input(store: Store) -> None:
    f = Fact("a", "p", "b")
    report = store.ingest([], [f, f, Fact("a", "p", Literal("1")), Fact("a", "p", Literal("1"))])
    assert report.facts_new == 2
    assert report.facts_duplicate == 2
    assert store.stats().facts == 2


# --------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------


def test_record_source_round_trip(store: Store) -> None:
    first = SourceRecord("a.nt", "sha256:1", "ntriples", {"facts": 10, "entities": 3},
                         "2024-01-01T00:00:00+00:00", "loading")
    second = SourceRecord("b.nt", "sha256:2", "ntriples", {}, "2024-01-02T00:00:00+00:00")
    store.record_source(second)
    store.record_source(first)
    assert store.sources() == [first, second]  # oldest first
    # Same file + checksum: replaced, not added.
    done = SourceRecord("a.nt", "sha256:1", "ntriples", {"facts": 12},
                        "2024-01-01T00:00:00+00:00", "complete")
    store.record_source(done)
    assert store.sources() == [done, second]
    assert store.stats().sources == [done, second]
    # Another checksum of the same file is another source.
    store.record_source(SourceRecord("a.nt", "sha256:3", "ntriples", {},
                                     "2024-01-03T00:00:00+00:00"))
    assert [(s.file, s.checksum) for s in store.sources()] == [
        ("a.nt", "sha256:1"), ("b.nt", "sha256:2"), ("a.nt", "sha256:3")]


# --------------------------------------------------------------------------------------
# Idempotent re-ingest and merge semantics
# --------------------------------------------------------------------------------------


def test_reingest_identical_data_changes_nothing(store: Store, film_kg: KG) -> None:
    film_kg.load(store)
    before = snapshot(store)
    report = store.ingest(film_kg.entities, film_kg.facts, predicates=film_kg.predicates)
    assert report.entities_new == 0
    assert report.entities_updated == 0
    assert report.facts_new == 0
    assert report.literals_new == 0
    assert report.predicates_new == 0
    assert report.facts_duplicate == len(film_kg.facts)
    assert snapshot(store) == before
    assert store.find_by_name("paris") == [store.entity("m.paris_fr"),
                                           store.entity("m.paris_tx")]


def test_reingest_in_pieces_equals_one_ingest(store_factory, film_kg: KG) -> None:
    whole = store_factory()
    film_kg.load(whole)
    expected = snapshot(whole)   # before the next store: Neo4j's has the one database
    pieces = store_factory()
    half = len(film_kg.facts) // 2
    pieces.ingest(film_kg.entities[::2], film_kg.facts[:half])
    pieces.ingest(film_kg.entities[1::2], film_kg.facts[half:], predicates=film_kg.predicates)
    pieces.ingest(film_kg.entities, film_kg.facts)
    assert snapshot(pieces) == expected


def test_merge_unions_lists_and_new_name_wins(store: Store) -> None:
    store.ingest([Entity("m.x", "Old Name", aliases=("First",), types=("t.one",),
                         description="old")])
    report = store.ingest([Entity("m.x", "New Name", aliases=("Second", "First"),
                                  types=("t.two",))])
    assert report.entities_new == 0 and report.entities_updated == 1
    assert report.names_replaced == 1
    e = store.entity("m.x")
    assert e is not None
    assert e.name == "New Name"
    # The replaced name stays as an alias (issue 18: a second names file must not make
    # the first one's names unfindable).
    assert set(e.aliases) == {"First", "Second", "Old Name"}
    assert set(e.types) == {"t.one", "t.two"}
    assert e.description == "old"  # the new row had none: the stored one stays
    assert [x.id for x in store.find_by_name("new name")] == ["m.x"]
    assert [x.id for x in store.find_by_name("second")] == ["m.x"]
    assert [x.id for x in store.find_by_name("first")] == ["m.x"]
    assert [x.id for x in store.find_by_name("old name")] == ["m.x"]
    assert store.stats().entities == 1
    again = store.ingest([Entity("m.x", "New Name")])  # the same name: nothing replaced
    assert (again.names_replaced, again.entities_updated) == (0, 0)


def test_merge_new_description_wins(store: Store) -> None:
    store.ingest([Entity("m.x", "X", description="first")])
    store.ingest([Entity("m.x", description="second")])
    e = store.entity("m.x")
    assert e is not None and (e.name, e.description) == ("X", "second")


def test_predicate_labels_merge(store: Store) -> None:
    store.ingest([], [Fact("a", "p", "b")], predicates=[Predicate("p", "old label")])
    assert store.predicates() == [Predicate("p", "old label", 1)]
    store.ingest([], [], predicates=[Predicate("p", "new label"), Predicate("q", "unused")])
    assert store.predicates() == [Predicate("p", "new label", 1), Predicate("q", "unused", 0)]
    store.ingest([], [Fact("a", "p", "c")], predicates=[Predicate("p", None)])
    assert store.predicates() == [Predicate("p", "new label", 2), Predicate("q", "unused", 0)]
    assert store.stats().predicates == 2


def test_predicate_aliases_merge(store: Store) -> None:
    """Aliases of a predicate are the union of every import's, sorted; a label-only
    import keeps them (issue 34: a lexicon from the data)."""
    store.ingest([], [Fact("a", "P19", "b")],
                 predicates=[Predicate("P19", "place of birth", aliases=("born in",))])
    assert store.predicates() == [Predicate("P19", "place of birth", 1, ("born in",))]
    store.ingest([], [], predicates=[Predicate("P19", None, aliases=("birthplace", "born in"))])
    store.ingest([], [], predicates=[Predicate("P19", "birthplace")])
    assert store.predicates() == [Predicate("P19", "birthplace", 1, ("birthplace", "born in"))]


def test_merge_without_name_keeps_stored_name(store: Store) -> None:
    store.ingest([Entity("m.x", "Kept", types=("t.one",))])
    report = store.ingest([Entity("m.x", types=("t.one",))])
    assert report.entities_updated == 0
    e = store.entity("m.x")
    assert e is not None and e.name == "Kept" and e.types == ("t.one",)


def test_merge_cvt_flag_is_sticky(store: Store) -> None:
    store.ingest([Entity("m.c", is_cvt=True)])
    store.ingest([Entity("m.c", types=("film.performance",))])
    e = store.entity("m.c")
    assert e is not None and e.is_cvt and e.types == ("film.performance",)
    assert store.stats().cvt_entities == 1


def test_placeholder_later_gets_its_name(store: Store) -> None:
    store.ingest([], [Fact("m.film", DIRECTED_BY, "m.dir")])
    assert store.entity("m.dir") == Entity("m.dir")
    assert store.find_by_name("the director") == []
    report = store.ingest([Entity("m.dir", "The Director", aliases=("Dir",),
                                  types=("film.director",))])
    assert report.entities_new == 0 and report.entities_updated == 1
    e = store.entity("m.dir")
    assert e is not None and e.name == "The Director" and e.types == ("film.director",)
    assert store.find_by_name("THE director") == [e]
    assert store.find_by_name("dir") == [e]
    assert store.facts_in("m.dir") == [Fact("m.film", DIRECTED_BY, "m.dir")]
    assert store.stats().entities == 2


def test_nameless_is_cvt(store: Store) -> None:
    store.ingest(
        [Entity("m.film", "Film"), Entity("m.cvt")],
        [Fact("m.film", STARRING, "m.cvt"), Fact("m.cvt", ACTOR, "m.actor")],
        nameless_is_cvt=True,
    )
    cvt, actor, film = (store.entity(i) for i in ("m.cvt", "m.actor", "m.film"))
    assert cvt is not None and cvt.is_cvt  # nameless subject
    assert actor is not None and not actor.is_cvt  # nameless, but never a subject
    assert film is not None and not film.is_cvt


def test_new_facts_on_existing_entities(store: Store, film_kg: KG) -> None:
    film_kg.load(store)
    new = [Fact("m.godfather", "film.film.sequel", "m.godfather2"),
           Fact("m.godfather", RELEASE, RELEASE_1974)]  # an existing literal, new fact
    report = store.ingest([], new + film_kg.facts[:3])
    assert report.facts_new == 2
    assert report.facts_duplicate == 3
    assert report.literals_new == 0
    assert report.predicates_new == 1
    assert set(new) <= set(store.facts_out("m.godfather"))
    assert store.stats().facts == 30
    assert {p.id: p.count for p in store.predicates()}[RELEASE] == 3


# --------------------------------------------------------------------------------------
# Neighbourhood
# --------------------------------------------------------------------------------------

HOP1 = {"m.godfather": 0, "m.coppola": 1, "m.perf1": 1, "m.perf2": 1, "m.brando": 1,
        "m.vito": 1, "m.pacino": 1, "m.michael": 1, "m.usa": 1, "m.nino_rota": 1}
HOP2 = {**HOP1, "m.godfather2": 2, "m.perf3": 2, "m.paris_tx": 2}
HOP3 = {**HOP2, "m.nyc": 3}


@pytest.mark.parametrize(("hops", "expected"), [(1, HOP1), (2, HOP2), (3, HOP3)])
def test_neighborhood_hops_with_cvt_as_one_hop(
    film_store: Store, hops: int, expected: dict[str, int]
) -> None:
    sub = film_store.neighborhood("m.godfather", hops=hops)
    assert sub.hops == expected
    assert set(sub.entities) == set(expected)
    assert sub.truncated is False
    # The entities come back whole; the CVT is marked as such.
    assert sub.entities["m.brando"].name == "Marlon Brando"
    assert sub.entities["m.perf1"].is_cvt
    # Facts: no duplicates, each touches a reached entity, none is invented.
    assert len(sub.facts) == len(set(sub.facts))
    assert all(f.subject in sub.hops or f.object_key in sub.hops for f in sub.facts)


def test_neighborhood_facts_hop1(film_store: Store, film_kg: KG) -> None:
    sub = film_store.neighborhood("m.godfather", hops=1)
    expanded = {"m.godfather", "m.perf1", "m.perf2"}  # the centre and the CVTs it reached
    expected = {f for f in film_kg.facts if f.subject in expanded or f.object_key in expanded}
    assert set(sub.facts) == expected
    assert {f.object for f in sub.facts if f.is_literal} == {
        RELEASE_1972, RUNTIME_175, RATING, LABEL_DE, TAGLINE}


def test_neighborhood_hop0(film_store: Store) -> None:
    sub = film_store.neighborhood("m.godfather", hops=0)
    assert sub.hops == {"m.godfather": 0}
    assert list(sub.entities) == ["m.godfather"]
    assert sub.facts == []
    assert sub.truncated is False


def test_neighborhood_from_an_actor_through_cvt(film_store: Store) -> None:
    sub = film_store.neighborhood("m.brando", hops=1)
    assert sub.hops == {"m.brando": 0, "m.perf1": 1, "m.godfather": 1, "m.vito": 1,
                        "m.usa": 1}


def test_neighborhood_literals_do_not_connect_entities(film_store: Store) -> None:
    # Both Parises share the literal "Paris"@en; that is not a path between them.
    sub = film_store.neighborhood("m.paris_fr", hops=3)
    assert sub.hops == {"m.paris_fr": 0, "m.france": 1}
    assert Fact("m.paris_fr", "rdfs:label", PARIS_EN) in sub.facts


def test_neighborhood_without_literals(film_store: Store) -> None:
    sub = film_store.neighborhood("m.godfather", hops=1, include_literals=False)
    assert sub.hops == HOP1
    assert not any(f.is_literal for f in sub.facts)


def test_neighborhood_several_centres(film_store: Store) -> None:
    sub = film_store.neighborhood(["m.paris_fr", "m.paris_tx", "m.nope"], hops=1)
    assert sub.hops == {"m.paris_fr": 0, "m.paris_tx": 0, "m.france": 1, "m.usa": 1}
    assert "m.nope" not in sub.entities


def test_neighborhood_unknown_centre(film_store: Store) -> None:
    sub = film_store.neighborhood("m.nope", hops=2)
    assert (sub.entities, sub.facts, sub.hops, sub.truncated) == ({}, [], {}, False)


@pytest.mark.parametrize("hops", [-1, 4])
def test_neighborhood_rejects_bad_hops(film_store: Store, hops: int) -> None:
    with pytest.raises(ValueError, match="hops"):
        film_store.neighborhood("m.godfather", hops=hops)


def test_neighborhood_max_per_node_truncates(film_store: Store) -> None:
    capped = film_store.neighborhood("m.usa", hops=1, max_per_node=2)
    assert capped.truncated is True
    assert len(capped.facts) == 2
    assert len(capped.hops) == 3
    exact = film_store.neighborhood("m.usa", hops=1, max_per_node=5)
    assert exact.truncated is False
    assert len(exact.facts) == 5
    assert set(exact.hops) == {"m.usa", "m.godfather", "m.coppola", "m.brando", "m.pacino",
                               "m.paris_tx"}


def test_neighborhood_max_facts_truncates(film_store: Store) -> None:
    sub = film_store.neighborhood("m.godfather", hops=3, max_facts=4)
    assert sub.truncated is True
    assert len(sub.facts) <= 4


def test_neighborhood_hub_is_capped(store: Store) -> None:
    n = 150
    store.ingest([Entity("hub", "Hub")] + [Entity(f"leaf{i:03d}", f"Leaf {i}") for i in range(n)],
                 [Fact(f"leaf{i:03d}", "p.in", "hub") for i in range(n)]
                 + [Fact("leaf000", "p.own", "own")])
    sub = store.neighborhood("hub", hops=1, max_per_node=40)
    assert sub.truncated is True
    assert len(sub.facts) == 40
    assert len(sub.hops) == 41
    # From a leaf, the hub is reached at hop 1; its 150 edges are capped at hop 2.
    sub = store.neighborhood("leaf000", hops=2, max_per_node=40)
    assert sub.truncated is True
    assert sub.hops["hub"] == 1 and sub.hops["own"] == 1
    assert len(sub.hops) <= 3 + 40
    full = store.neighborhood("hub", hops=1, max_per_node=1000)
    assert full.truncated is False and len(full.hops) == n + 1


def test_neighborhood_cvt_chain_is_one_hop(store: Store) -> None:
    # a -> cvt1 -> cvt2 -> b: mediators chained are still one hop.
    store.ingest([Entity("a", "A"), Entity("cvt1", is_cvt=True), Entity("cvt2", is_cvt=True),
                  Entity("b", "B"), Entity("c", "C")],
                 [Fact("a", "p", "cvt1"), Fact("cvt1", "q", "cvt2"), Fact("cvt2", "r", "b"),
                  Fact("b", "s", "c")])
    assert store.neighborhood("a", hops=1).hops == {"a": 0, "cvt1": 1, "cvt2": 1, "b": 1}
    assert store.neighborhood("a", hops=2).hops == {"a": 0, "cvt1": 1, "cvt2": 1, "b": 1, "c": 2}


# --------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------


def _check_path_shape(path, source: str, target: str, cvts: set[str]) -> None:
    assert path.nodes[0] == source and path.nodes[-1] == target
    assert len(path.nodes) == len(set(path.nodes)) == len(path.facts) + 1
    # A hop through a CVT counts once: hops are the entities reached that are not CVTs.
    assert path.length == sum(1 for n in path.nodes[1:-1] if n not in cvts) + 1
    for (u, v), f in zip(zip(path.nodes, path.nodes[1:], strict=False), path.facts, strict=True):
        assert {f.subject, f.object_key} == {u, v}


CVTS = {"m.perf1", "m.perf2", "m.perf3"}


def test_paths_godfather_to_brando(film_store: Store) -> None:
    paths = film_store.paths("m.godfather", "m.brando")
    for p in paths:
        _check_path_shape(p, "m.godfather", "m.brando", CVTS)
    # The performance CVT is no hop of its own (issue 38: paths counted it as two while
    # neighbors counted it as one).
    assert [(p.nodes, p.length) for p in paths] == [
        (["m.godfather", "m.perf1", "m.brando"], 1),
        (["m.godfather", "m.usa", "m.brando"], 2),
        (["m.godfather", "m.coppola", "m.usa", "m.brando"], 3),
        (["m.godfather", "m.perf2", "m.pacino", "m.usa", "m.brando"], 3),
    ]
    assert paths[2].facts == [Fact("m.godfather", DIRECTED_BY, "m.coppola"),
                              Fact("m.coppola", NATIONALITY, "m.usa"),
                              Fact("m.brando", NATIONALITY, "m.usa")]  # walked backwards
    assert not any(p.through_hub for p in paths)


def test_paths_are_direction_agnostic(film_store: Store) -> None:
    forward = film_store.paths("m.godfather", "m.brando")
    backward = film_store.paths("m.brando", "m.godfather")
    assert {tuple(reversed(p.nodes)) for p in backward} == {tuple(p.nodes) for p in forward}
    assert {tuple(sorted(map(fact_key, p.facts))) for p in backward} == {
        tuple(sorted(map(fact_key, p.facts))) for p in forward}
    assert [p.length for p in backward] == [p.length for p in forward]


def test_paths_max_length_and_limit(film_store: Store) -> None:
    assert [p.nodes for p in film_store.paths("m.godfather", "m.coppola", max_length=1)] == [
        ["m.godfather", "m.coppola"]]
    assert [p.nodes for p in film_store.paths("m.godfather", "m.brando", max_length=1)] == [
        ["m.godfather", "m.perf1", "m.brando"]]
    assert len(film_store.paths("m.godfather", "m.brando", limit=1)) == 1
    assert [p.length for p in film_store.paths("m.godfather", "m.brando", max_length=2)] == [
        1, 2]


def test_paths_none(film_store: Store) -> None:
    assert film_store.paths("m.godfather", "m.paris_fr") == []  # only via a shared literal
    assert film_store.paths("m.godfather", "m.godfather") == []
    assert film_store.paths("m.godfather", "m.nope") == []
    assert film_store.paths("m.godfather", "m.nyc", max_length=2) == []
    found = film_store.paths("m.godfather", "m.nyc", max_length=3)
    assert [p.nodes for p in found] == [
        ["m.godfather", "m.coppola", "m.godfather2", "m.nyc"],
        # Michael Corleone in both films, through their performance CVTs.
        ["m.godfather", "m.perf2", "m.michael", "m.perf3", "m.godfather2", "m.nyc"],
        ["m.godfather", "m.perf2", "m.pacino", "m.perf3", "m.godfather2", "m.nyc"],
    ]


@pytest.mark.parametrize("max_length", [0, 4])
def test_paths_rejects_bad_length(film_store: Store, max_length: int) -> None:
    with pytest.raises(ValueError):
        film_store.paths("m.godfather", "m.brando", max_length=max_length)


def test_paths_list_a_path_once_whatever_facts_link_its_steps(store: Store) -> None:
    # Issue 38: a fact and its inverse on each of three steps listed one path 8 times.
    store.ingest([Entity("a", "A"), Entity("c", is_cvt=True), Entity("f", "F"),
                  Entity("d", "D")],
                 [Fact("a", "actor.film", "c"), Fact("c", "performance.actor", "a"),
                  Fact("c", "performance.film", "f"), Fact("f", "film.starring", "c"),
                  Fact("f", "film.directed_by", "d"), Fact("d", "director.film", "f"),
                  Fact("a", "p", "a")])
    (path,) = store.paths("a", "d")
    assert path.nodes == ["a", "c", "f", "d"] and path.length == 2
    # One fact per step: the one walked forward.
    assert path.facts == [Fact("a", "actor.film", "c"), Fact("c", "performance.film", "f"),
                          Fact("f", "film.directed_by", "d")]


def test_paths_through_hubs_come_last_and_predicates_can_be_excluded(store: Store) -> None:
    # a and b share a gender (a hub of 30 facts, over the cap of 10 read of a node), a
    # country, and a film; the film's path is listed first though all are 2 hops.
    people = [Entity(f"p{i}", f"Person {i}") for i in range(30)]
    store.ingest([Entity("a", "A"), Entity("b", "B"), Entity("male", "Male"),
                  Entity("usa", "USA"), Entity("film", "Film"), *people],
                 [Fact("a", "gender", "male"), Fact("b", "gender", "male"),
                  *(Fact(p.id, "gender", "male") for p in people),
                  Fact("a", "nationality", "usa"), Fact("b", "nationality", "usa"),
                  Fact("film", "starring", "a"), Fact("film", "directed_by", "b")])
    found = store.paths("a", "b", max_per_node=10)
    assert [(p.nodes[1], p.length, p.through_hub) for p in found] == [
        ("film", 2, False), ("usa", 2, False), ("male", 2, True)]
    assert found[-1].facts == [Fact("a", "gender", "male"), Fact("b", "gender", "male")]
    kept = store.paths("a", "b", max_per_node=10, exclude_predicates=["gender", "star*"])
    assert [p.nodes[1] for p in kept] == ["usa"]


# --------------------------------------------------------------------------------------
# Pattern matching
# --------------------------------------------------------------------------------------


def q(*patterns: tuple, constraints: tuple = (), select: tuple | None = None,
      limit: int | None = None) -> PatternQuery:
    return PatternQuery(tuple(TriplePattern(*p) for p in patterns), constraints, select, limit)


def test_match_constants(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", DIRECTED_BY, D)))
    assert res.variables == ["d"]
    assert res.bindings == [{"d": "m.coppola"}]
    assert res.truncated is False
    res = film_store.match(q((F, DIRECTED_BY, "m.coppola")))
    assert res.bindings == [{"f": "m.godfather"}, {"f": "m.godfather2"}]


def test_match_all_constants(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", DIRECTED_BY, "m.coppola"), (A, NATIONALITY, "m.usa")))
    assert res.values("a") == ["m.brando", "m.coppola", "m.pacino"]
    assert film_store.match(q(("m.godfather", DIRECTED_BY, "m.brando"),
                              (A, NATIONALITY, "m.usa"))).bindings == []


def test_match_join_through_cvt(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", STARRING, P), (P, ACTOR, A), (P, CHARACTER, C),
                             select=(A, C)))
    assert res.variables == ["a", "c"]
    assert res.bindings == [{"a": "m.brando", "c": "m.vito"},
                            {"a": "m.pacino", "c": "m.michael"}]


def test_match_shared_variable_join(film_store: Store) -> None:
    # Films whose director has the same nationality as one of their actors.
    res = film_store.match(q(
        (F, DIRECTED_BY, D), (D, NATIONALITY, C), (F, STARRING, P), (P, ACTOR, A),
        (A, NATIONALITY, C), select=(F, A)))
    assert res.bindings == [{"f": "m.godfather", "a": "m.brando"},
                            {"f": "m.godfather", "a": "m.pacino"},
                            {"f": "m.godfather2", "a": "m.pacino"}]


def test_match_predicate_variable(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", P, "m.coppola")))
    assert res.bindings == [{"p": DIRECTED_BY}]
    res = film_store.match(q((X, P, "m.usa"), select=(P,)))
    assert res.variables == ["p"]
    assert res.bindings == [{"p": "film.film.country"}, {"p": CONTAINEDBY}, {"p": NATIONALITY}]


def test_match_shared_predicate_variable(film_store: Store) -> None:
    # The same predicate links m.coppola and m.paris_tx to m.usa? No: different ones.
    assert film_store.match(q(("m.coppola", P, "m.usa"), ("m.paris_tx", P, "m.usa"))).bindings == []
    res = film_store.match(q(("m.coppola", P, "m.usa"), (X, P, "m.usa"),
                             constraints=(NotEqual(X, "m.coppola"),)))
    assert res.bindings == [{"p": NATIONALITY, "x": "m.brando"},
                            {"p": NATIONALITY, "x": "m.pacino"}]


def test_match_literal_constant_object(film_store: Store) -> None:
    assert film_store.match(q((F, RELEASE, RELEASE_1972))).bindings == [{"f": "m.godfather"}]
    # Given with the full XSD IRI: the same literal.
    full = Literal("1972-03-24", XSD + "date")
    assert film_store.match(q((F, RELEASE, full))).bindings == [{"f": "m.godfather"}]
    # Same value, other datatype: another literal.
    assert film_store.match(q((F, RELEASE, Literal("1972-03-24")))).bindings == []
    # A literal shared by two subjects, and with a lang tag given in upper case.
    res = film_store.match(q((X, "rdfs:label", Literal("Paris", lang="EN"))))
    assert res.bindings == [{"x": "m.paris_fr"}, {"x": "m.paris_tx"}]


def test_match_literal_bindings(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", P, OB), constraints=(IsEntity(OB, False),)))
    got = {b["p"]: b["o"] for b in res.bindings}
    assert got == {RELEASE: RELEASE_1972, "film.film.runtime": RUNTIME_175,
                   "film.film.rating": RATING, "rdfs:label": LABEL_DE,
                   "common.topic.tagline": TAGLINE}
    for lit in got.values():
        assert isinstance(lit, Literal)
    res = film_store.match(q((F, "rdfs:label", OB), select=(OB,)))
    assert set(res.values("o")) == {LABEL_DE, LABEL_DE_2, PARIS_EN}
    assert len(res.bindings) == 3  # distinct: the shared "Paris"@en once


def test_match_object_variable_binds_entities_and_literals(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather2", P, OB)))
    objs = {b["o"] for b in res.bindings}
    assert objs == {"m.coppola", "m.perf3", "m.nyc", RELEASE_1974, LABEL_DE_2}


def test_match_not_equal_constant(film_store: Store) -> None:
    res = film_store.match(q((F, DIRECTED_BY, "m.coppola"),
                             constraints=(NotEqual(F, "m.godfather"),)))
    assert res.bindings == [{"f": "m.godfather2"}]
    res = film_store.match(q(("m.godfather", P, OB),
                             constraints=(IsEntity(OB, False), NotEqual(OB, RUNTIME_175),
                                          NotEqual(P, "rdfs:label"))))
    assert {b["p"] for b in res.bindings} == {RELEASE, "film.film.rating",
                                              "common.topic.tagline"}


def test_match_not_equal_variable(film_store: Store) -> None:
    pairs = q((X, NATIONALITY, C), (Y, NATIONALITY, C), select=(X, Y))
    assert len(film_store.match(pairs).bindings) == 9
    res = film_store.match(q((X, NATIONALITY, C), (Y, NATIONALITY, C), select=(X, Y),
                             constraints=(NotEqual(X, Y),)))
    assert len(res.bindings) == 6
    assert all(b["x"] != b["y"] for b in res.bindings)


def test_match_not_in(film_store: Store) -> None:
    res = film_store.match(q((X, NATIONALITY, "m.usa"),
                             constraints=(NotIn(X, ("m.brando", "m.pacino")),)))
    assert res.bindings == [{"x": "m.coppola"}]
    # On a predicate variable.
    res = film_store.match(q(("m.godfather", P, OB), select=(P,),
                             constraints=(NotIn(P, (STARRING, "rdfs:label", RELEASE,
                                                    "film.film.runtime")),)))
    assert [b["p"] for b in res.bindings] == sorted([
        DIRECTED_BY, "film.film.rating", "common.topic.tagline", "film.film.country",
        "film.film.music"])
    # Literal values.
    res = film_store.match(q(("m.godfather", P, OB), select=(OB,),
                             constraints=(IsEntity(OB, False), NotIn(OB, (RATING, TAGLINE)))))
    assert set(res.values(OB)) == {RELEASE_1972, RUNTIME_175, LABEL_DE}


def test_match_has_type(film_store: Store) -> None:
    res = film_store.match(q((X, NATIONALITY, "m.usa"),
                             constraints=(HasType(X, "film.director"),)))
    assert res.bindings == [{"x": "m.coppola"}]
    res = film_store.match(q((X, NATIONALITY, "m.usa"),
                             constraints=(HasType(X, "film.actor"),)))
    assert res.values("x") == ["m.brando", "m.pacino"]
    # On an object variable.
    res = film_store.match(q(("m.godfather", P, OB), constraints=(HasType(OB, "location.country"),)))
    assert res.bindings == [{"p": "film.film.country", "o": "m.usa"}]


def test_match_is_cvt(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", P, OB), select=(OB,), constraints=(IsCvt(OB),)))
    assert res.bindings == [{"o": "m.perf1"}, {"o": "m.perf2"}]
    res = film_store.match(q(("m.godfather", P, OB), select=(OB,),
                             constraints=(IsCvt(OB, False),)))
    assert res.values("o") == ["m.coppola", "m.nino_rota", "m.usa"]
    res = film_store.match(q((X, ACTOR, A), constraints=(IsCvt(X, False),)))
    assert res.bindings == []


def test_match_is_entity(film_store: Store) -> None:
    res = film_store.match(q(("m.godfather", P, OB), select=(OB,), constraints=(IsEntity(OB),)))
    assert res.values("o") == ["m.coppola", "m.nino_rota", "m.perf1", "m.perf2", "m.usa"]
    assert all(isinstance(v, str) for v in res.values("o"))


def test_match_limit_and_truncated(film_store: Store) -> None:
    query = q((X, NATIONALITY, "m.usa"), limit=2)
    res = film_store.match(query)
    assert res.bindings == [{"x": "m.brando"}, {"x": "m.coppola"}]
    assert res.truncated is True
    res = film_store.match(q((X, NATIONALITY, "m.usa"), limit=3))
    assert len(res.bindings) == 3 and res.truncated is False
    res = film_store.match(q((X, NATIONALITY, "m.usa"), limit=100))
    assert len(res.bindings) == 3 and res.truncated is False


def test_match_select_is_distinct(film_store: Store) -> None:
    res = film_store.match(q((F, DIRECTED_BY, D), select=(D,)))
    assert res.bindings == [{"d": "m.coppola"}]


def test_match_instantiate_gives_supporting_facts(film_store: Store) -> None:
    query = q((F, STARRING, P), (P, ACTOR, A), (P, CHARACTER, C))
    res = film_store.match(query)
    assert len(res.bindings) == 3
    for b in res.bindings:
        support = query.instantiate(b)
        assert len(support) == 3
        for fact in support:
            assert fact in film_store.facts_out(fact.subject, predicate=fact.predicate)
    assert query.instantiate(res.bindings[0]) == [
        Fact("m.godfather", STARRING, "m.perf1"), Fact("m.perf1", ACTOR, "m.brando"),
        Fact("m.perf1", CHARACTER, "m.vito")]
    lit_query = q(("m.godfather", P, OB), constraints=(IsEntity(OB, False),))
    for b in film_store.match(lit_query).bindings:
        (fact,) = lit_query.instantiate(b)
        assert fact in film_store.facts_out("m.godfather")


def test_match_two_patterns_may_match_the_same_edge(film_store: Store) -> None:
    # SPARQL semantics: no implicit "different edges" rule.
    res = film_store.match(q((F, DIRECTED_BY, B), (F, DIRECTED_BY, C)))
    assert res.bindings == [{"f": "m.godfather", "b": "m.coppola", "c": "m.coppola"},
                            {"f": "m.godfather2", "b": "m.coppola", "c": "m.coppola"}]
    res = film_store.match(q(("m.perf1", P, X), ("m.perf1", P, Y)))
    assert {(b["x"], b["y"]) for b in res.bindings} == {("m.brando", "m.brando"),
                                                         ("m.vito", "m.vito")}


def test_match_order_is_deterministic(film_store: Store, film_kg: KG) -> None:
    query = q((X, P, OB))
    first = film_store.match(query)
    assert film_store.match(query).bindings == first.bindings
    keys = [(b["x"], b["p"]) for b in first.bindings]
    assert keys == sorted(keys)  # sorted by the bound values, in variable order
    assert len(first.bindings) == 28
    assert {fact_key(f) for b in first.bindings for f in query.instantiate(b)} == {
        fact_key(f) for f in film_kg.facts}


def test_match_no_solutions(film_store: Store) -> None:
    for query in (q(("m.nope", P, OB)), q((X, "no.such.predicate", OB)),
                  q((X, DIRECTED_BY, "m.brando"))):
        res = film_store.match(query)
        assert res.bindings == [] and res.truncated is False


# --------------------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------------------


def test_sample_entities_reproducible(film_store: Store) -> None:
    a = film_store.sample_entities(4, seed=7)
    assert film_store.sample_entities(4, seed=7) == a
    assert len(a) == 4 and len({e.id for e in a}) == 4
    samples = {tuple(e.id for e in film_store.sample_entities(4, seed=s)) for s in range(10)}
    assert len(samples) > 1


def test_sample_entities_filters(film_store: Store) -> None:
    named = film_store.sample_entities(100, seed=1)
    assert all(e.name and not e.is_cvt for e in named)
    assert len(named) == 12
    films = film_store.sample_entities(100, seed=1, type_id="film.film")
    assert sorted(e.id for e in films) == ["m.godfather", "m.godfather2"]
    assert film_store.sample_entities(100, seed=1, type_id="no.such.type") == []
    everything = film_store.sample_entities(100, seed=1, named_only=False)
    assert not any(e.is_cvt for e in everything)  # CVTs excluded by default
    assert "m.nino_rota" in {e.id for e in everything}
    assert len(everything) == 13
    with_cvt = film_store.sample_entities(100, seed=1, named_only=False, include_cvt=True)
    assert len(with_cvt) == 16
    perf = film_store.sample_entities(100, seed=1, type_id="film.performance",
                                      named_only=False, include_cvt=True)
    assert sorted(e.id for e in perf) == ["m.perf1", "m.perf2", "m.perf3"]
    assert all(e.is_cvt for e in perf)


def test_sample_facts(film_store: Store, film_kg: KG) -> None:
    a = film_store.sample_facts(5, seed=3)
    assert film_store.sample_facts(5, seed=3) == a
    assert len(set(a)) == 5 and set(a) <= set(film_kg.facts)
    samples = {tuple(film_store.sample_facts(5, seed=s)) for s in range(10)}
    assert len(samples) > 1
    nat = film_store.sample_facts(10, seed=3, predicate=NATIONALITY)
    assert sorted(f.subject for f in nat) == ["m.brando", "m.coppola", "m.pacino"]
    assert set(film_store.sample_facts(1000, seed=9)) == set(film_kg.facts)
    assert any(f.is_literal for f in film_store.sample_facts(1000, seed=9))


# --------------------------------------------------------------------------------------
# Cypher passthrough
# --------------------------------------------------------------------------------------


def test_the_store_says_which_cypher_it_speaks(film_store: Store, backend: str) -> None:
    # What kgbench cypher and POST /api/cypher check a user's query against: asked of
    # the store, not read off its location. A list test spelt in the store's dialect runs.
    assert film_store.dialect == backend
    spelt = {"ladybug": "list_contains(e.types, $t)", "neo4j": "$t IN e.types"}[backend]
    res = film_store.cypher(f"MATCH (e:Entity) WHERE {spelt} RETURN e.id ORDER BY e.id",
                            {"t": "film.film"})
    assert [r[0] for r in res.rows] == ["m.godfather", "m.godfather2"]


def test_cypher_read_with_params(film_store: Store) -> None:
    res = film_store.cypher("MATCH (e:Entity) WHERE e.id = $id RETURN e.name AS name",
                            {"id": "m.godfather"})
    assert res.columns == ["name"]
    assert res.rows == [["The Godfather"]]
    res = film_store.cypher("MATCH (e:Entity) WHERE e.is_cvt RETURN e.id ORDER BY e.id")
    assert res.rows == [["m.perf1"], ["m.perf2"], ["m.perf3"]]


def test_cypher_nodes_and_relationships_read_alike(film_store: Store) -> None:
    """A node holds its own properties only (an untyped node of the embedded store read
    every node table's, all null), a relationship names its ends by node id when the
    row returns them, and no engine id leaks (issue 38: the UI draws the rows)."""
    res = film_store.cypher(
        "MATCH (a:Entity)-[r:Fact]->(b) WHERE a.id = 'm.godfather' AND r.predicate IN "
        "[$directed, $release] RETURN a, r, b ORDER BY r.predicate",
        {"directed": DIRECTED_BY, "release": RELEASE})
    (film, directed, coppola), (_, released, date) = res.rows
    assert film["_LABEL"] == "Entity" and film["id"] == "m.godfather"
    assert set(coppola) == {"_LABEL", "id", "name", "aliases", "types", "is_cvt"}   # no nulls
    assert (coppola["_LABEL"], coppola["id"], coppola["is_cvt"]) == ("Entity", "m.coppola", False)
    assert directed == {"_LABEL": "Fact", "predicate": DIRECTED_BY,
                        "_START": "m.godfather", "_END": "m.coppola"}
    assert date["_LABEL"] == "Literal" and None not in date.values()
    assert released["_START"] == "m.godfather" and released["_END"] == date["id"]
    alone = film_store.cypher("MATCH (a:Entity)-[r:Fact]->(b:Entity) WHERE a.id = "
                              "'m.godfather' AND r.predicate = $p RETURN r", {"p": DIRECTED_BY})
    assert alone.rows == [[{"_LABEL": "Fact", "predicate": DIRECTED_BY}]]


def test_cypher_examples_come_from_the_stores_own_data(store: Store) -> None:
    """issue 38: the UI's example query assumed the demo's film predicates and found
    nothing elsewhere. Examples name this store's predicate and a name its facts
    hold, pass the read-only guard and return rows."""
    from kgstore.cypher.examples import cypher_examples

    assert [e.title for e in cypher_examples(store)] == ["Predicates by number of facts"]
    store.ingest([Entity("q.ada", "Ada O'Brien"), Entity("q.bob", "Bob"),
                  Entity("q.cy", "Cy")],
                 [Fact("q.bob", "rel.knows", "q.ada"), Fact("q.bob", "rel.knows", "q.cy"),
                  Fact("q.cy", "rel.knows", "q.ada"), Fact("q.ada", "rel.age", Literal("7"))])
    examples = cypher_examples(store)
    assert len(examples) == 5
    text = "\n".join(e.query for e in examples)
    assert "'rel.knows'" in text and "'Bob'" in text and "film" not in text
    for example in examples:
        rows = store.cypher(example.query).rows   # (store.cypher applies the guard)
        assert rows, example
        if example.graph:
            assert any(isinstance(v, dict) and v.get("_START") for row in rows for v in row)


def test_cypher_write_keyword_in_string_is_allowed(film_store: Store) -> None:
    res = film_store.cypher(
        "MATCH (e:Entity) WHERE e.name = 'CREATE or DELETE; SET x' RETURN count(e) AS n")
    assert res.rows == [[0]]
    res = film_store.cypher('RETURN "DETACH DELETE everything" AS s')
    assert res.rows == [["DETACH DELETE everything"]]


WRITES = {
    "create": "CREATE (:Entity {id: 'm.new', name: 'New'})",
    "merge": "MERGE (e:Entity {id: 'm.merged'})",
    "set": "MATCH (e:Entity {id: 'm.godfather'}) SET e.name = 'Hacked'",
    "delete": "MATCH (:Entity {id: 'm.godfather'})-[f:Fact]->() DELETE f",
    "detach_delete": "MATCH (e:Entity {id: 'm.godfather'}) DETACH DELETE e",
    "remove": "MATCH (e:Entity {id: 'm.godfather'}) REMOVE e.name",
    "drop": "DROP TABLE Predicate",
    "copy": "COPY Entity FROM '/nonexistent/entities.parquet'",
    "alter": "ALTER TABLE Entity ADD extra STRING",
    "lowercase": "match (e:Entity) set e.name = 'x'",
    "after_comment": "// a comment\nMATCH (e) /* ... */ DETACH\n DELETE e",
    "with_params": "MATCH (e:Entity {id: $id}) SET e.name = $name",
}


@pytest.mark.parametrize("query", list(WRITES.values()), ids=list(WRITES))
def test_cypher_refuses_writes_and_changes_nothing(film_store: Store, query: str) -> None:
    before = snapshot(film_store)
    with pytest.raises(ReadOnlyQueryError):
        film_store.cypher(query, {"id": "m.godfather", "name": "x"} if "$" in query else None)
    assert snapshot(film_store) == before
    # Still usable afterwards.
    assert film_store.cypher("MATCH (e:Entity) RETURN count(e)").rows == [[16]]


def test_cypher_syntax_error(film_store: Store) -> None:
    with pytest.raises(QueryError):
        film_store.cypher("MATCH (e:Entity RETURN e")
    with pytest.raises(QueryError):
        film_store.cypher("MATCH (e:Entity) RETURN e.no_such_property")
    assert film_store.cypher("RETURN 1 AS one").rows == [[1]]


def test_cvt_types_recorded_and_applied(store: Store) -> None:
    assert store.cvt_types() == frozenset()
    store.ingest(
        [Entity("m.film", name="Film"), Entity("m.roster", types=("sports.sports_team_roster",))],
        [Fact("m.film", "film.film.directed_by", "m.roster")],
        cvt_types=["sports.sports_team_roster"],
    )
    assert store.cvt_types() == {"sports.sports_team_roster"}
    roster = store.entity("m.roster")
    assert roster is not None and roster.is_cvt
    store.ingest(cvt_types=["people.marriage"])
    assert store.cvt_types() == {"sports.sports_team_roster", "people.marriage"}


def test_type_counts(film_store: Store, film_kg: KG) -> None:
    expected = Counter(t for e in film_kg.entities for t in e.types)
    assert film_store.type_counts() == dict(expected)
    assert expected["film.film"] >= 2


def test_predicate_ends(film_store: Store, film_kg: KG) -> None:
    facts = set(film_kg.facts)
    expected: dict[str, tuple[int, int, int, int]] = {}
    for p in {f.predicate for f in facts}:
        subj = Counter(f.subject for f in facts if f.predicate == p)
        obj = Counter(f.object for f in facts
                      if f.predicate == p and isinstance(f.object, str))
        expected[p] = (len(subj), sum(c == 1 for c in subj.values()),
                       len(obj), sum(c == 1 for c in obj.values()))
    assert film_store.predicate_ends() == expected
