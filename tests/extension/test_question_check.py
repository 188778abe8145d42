"""The question check the extension engine runs on each candidate (issue 19, items 2
and 9), on a real store: a way-1 hop the question cannot absorb, a description that
does not pin the replaced entity, and a constant whose name others share are refused,
and extend_query goes on to a candidate it can phrase."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from extension.core.extend import ExtendedQuery, ExtensionFailure, extend_query
from extension.core.grounding import Grounder
from extension.core.query_graph import build_query_graph
from extension.core.rules import complexity_of, result_shape
from extension.verbalize.question_check import question_check
from kgstore import Entity, Fact, Store, open_store

DIRECTED = "film.film.directed_by"
SEQUEL = "film.film.sequel"
GENRE = "film.film.genre"
LANGUAGE = "film.film.language"
ENTITIES = [Entity(i, n) for i, n in [
    ("m.g", "The Godfather"), ("m.g2", "The Godfather Part II"), ("m.ffc", "Francis Coppola"),
    ("m.drama", "Drama"), ("m.x", "Other Film"), ("m.mad", "Madagascar"),
    ("m.mad_country", "Madagascar")]]
FACTS = [Fact("m.g", DIRECTED, "m.ffc"), Fact("m.g", SEQUEL, "m.g2"),
         Fact("m.g", GENRE, "m.drama"), Fact("m.x", GENRE, "m.drama"),
         Fact("m.g", LANGUAGE, "m.mad")]
Q = build_query_graph([("m.g", DIRECTED, "?x")], answer="x")


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = open_store(Path(tmp_path_factory.mktemp("qcheck")) / "store", create=True)
    store.ingest(ENTITIES, FACTS)
    yield store
    store.close()


def way1(hop_entity: str, predicate: str, entity_is_subject: bool) -> ExtendedQuery:
    edge = (hop_entity, predicate, "?v1") if entity_is_subject else ("?v1", predicate, hop_entity)
    extended = build_query_graph([edge, ("?v1", DIRECTED, "?x")], answer="x")
    rule = "intersection_way1"
    shape = result_shape(rule, "single")
    return ExtendedQuery(original=Q, disjuncts=(extended,), rule=rule, shape=shape,
                         complexity=complexity_of(rule, shape), subjects=(hop_entity,),
                         added=(extended.edges[0],))


def test_way1_no_longer_depends_on_the_wording_of_q(kg: Store) -> None:
    """Issue 34, item 4: q̃ is realised from the extended logical form, so a way-1 hop
    is phrasable whether or not q spells the old subject (issue 19 refused it when q
    did not, since q̃ was q with the description spliced in)."""
    for q in ("who directed coppola's crime classic?", "who directed the godfather?"):
        assert question_check(kg, q)(way1("m.g2", SEQUEL, False)) is None


def test_way1_description_must_pin_the_entity_it_replaces(kg: Store) -> None:
    """Item 9: "the film whose genre is Drama" fits two films of the store."""
    reason = question_check(kg, "who directed the godfather?")(way1("m.drama", GENRE, False))
    assert reason is not None and "describes more" in reason


def test_a_constant_whose_name_others_share_is_refused(kg: Store) -> None:
    """Item 9: "the film whose language is Madagascar" (the film? the country?)."""
    reason = question_check(kg, "who directed the godfather?")(way1("m.mad", LANGUAGE, False))
    assert reason is not None and "Madagascar" in reason


def test_extend_query_records_the_refusal_and_tries_other_candidates(kg: Store) -> None:
    grounder = Grounder(kg)
    for seed in range(20):
        result = extend_query(kg, grounder, Q, "single", ("m.g",), random.Random(seed),
                              phrasable=question_check(kg, "who made it?"))
        if isinstance(result, ExtensionFailure):
            assert "question:" in result.reason
            continue
        assert result.query.rule in ("none", "intersection_way1", "intersection_way2",
                                     "union")


def test_a_hop_over_a_relation_without_a_readable_phrase_is_refused(tmp_path: Path) -> None:
    """The Wikidata sample store lost whole questions at verbalization ("has the
    P190", P190 has had a frame since): the extension now refuses the hop and tries
    another candidate."""
    from kgstore.models import Predicate

    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(ENTITIES, [*FACTS, Fact("m.g2", "P9190", "m.g"), Fact("m.g2", "P57", "m.g")],
                     predicates=[Predicate("P57", "follows")])
        check = question_check(store, "who directed the godfather?")
        refused = check(way1("m.g2", "P9190", True))
        assert refused is not None and "P9190" in refused
        assert check(way1("m.g2", "P57", True)) is None   # labelled in the store: readable


def test_a_hub_constant_is_refused_as_a_new_constraint(tmp_path: Path) -> None:
    """Issue 34, item 2: "… and is in the genre Drama" when most films are dramas
    narrows nothing; a constant held by few films of the relation is kept."""
    films = [Entity(f"m.f{i}", f"Film {i}") for i in range(20)]
    facts = [*FACTS, *(Fact(f.id, GENRE, "m.drama") for f in films),
             Fact("m.g", GENRE, "m.noir"), Fact("m.f1", GENRE, "m.noir")]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*ENTITIES, *films, Entity("m.noir", "Film noir")], facts)
        check = question_check(store, "who directed the godfather?")

        def way2(constant: str) -> ExtendedQuery:
            extended = build_query_graph([("m.g", DIRECTED, "?x"), ("?x", GENRE, constant)],
                                         answer="x")
            rule, shape = "intersection_way2", result_shape("intersection_way2", "single")
            return ExtendedQuery(original=Q, disjuncts=(extended,), rule=rule, shape=shape,
                                 complexity=complexity_of(rule, shape),
                                 subjects=("m.g", constant), added=(extended.edges[-1],))

        refused = check(way2("m.drama"))
        assert refused is not None and "hub" in refused
        assert check(way2("m.noir")) is None


def test_a_way1_description_a_reader_takes_for_several_is_refused(tmp_path: Path) -> None:
    """Blind rounds 30-31: "the person who died in Berlin", "one of the people born in
    Honolulu" rated 3 (placeholder-ish). The store keeps one film a sequel of The
    Godfather Part II names, but when most films have several sequels (measured over
    enough facts) "the film whose sequel is X" pins nothing for a reader."""
    from extension.verbalize.planner import MEASURED_FACTS, fits_several

    assert fits_several(0.57, MEASURED_FACTS) and not fits_several(0.57, MEASURED_FACTS - 1)
    assert not fits_several(0.97, 10_000)
    films = [Entity(f"m.f{i}", f"Film {i}") for i in range(60)]
    # films 0-19 each have two sequels, each sequel one film before it: the relation
    # fits several from its subject's side, one from its object's
    many = [Fact(f"m.f{i}", SEQUEL, f"m.f{20 + i}") for i in range(20)] + \
        [Fact(f"m.f{i}", SEQUEL, f"m.f{40 + i}") for i in range(20)]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*ENTITIES, *films], [*FACTS, *many])
        check = question_check(store, "who directed the godfather?")
        # ?v1 --sequel--> m.g2: read from The Godfather Part II, one prequel per film
        assert check(way1("m.g2", SEQUEL, False)) is None
        # m.g --sequel--> ?v1: read from The Godfather, "its sequels" fit several
        refused = check(way1("m.g", SEQUEL, True))
        assert refused is not None and "several" in refused, refused


def test_a_way1_description_by_a_vague_noun_is_refused(tmp_path: Path) -> None:
    """Blind round 33: "the language of Collateral" rated 3 in 14 of 16 ratings."""
    from kgstore.models import Predicate

    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*ENTITIES, Entity("m.en", "English")],
                     [*FACTS, Fact("m.g2", LANGUAGE, "m.en")],
                     predicates=[Predicate(LANGUAGE, "language")])
        check = question_check(store, "who directed the godfather?")
        refused = check(way1("m.g2", LANGUAGE, True))
        assert refused is not None and "the language of" in refused, refused


def test_a_question_that_doubles_a_word_is_refused(tmp_path: Path) -> None:
    """Blind round 35: "Where is the place where Saint Lucia is located located?" (2)."""
    within, contains = "location.location.containedby", "location.location.contains"
    places = [Entity("m.sl", "Saint Lucia"), Entity("m.car", "Caribbean"),
              Entity("m.am", "Americas")]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(places, [Fact("m.car", within, "m.am"), Fact("m.car", contains, "m.sl")])
        original = build_query_graph([("m.car", within, "?x")], answer="x")
        extended = build_query_graph([("?v1", contains, "m.sl"), ("?v1", within, "?x")],
                                     answer="x")
        rule = "intersection_way1"
        shape = result_shape(rule, "single")
        query = ExtendedQuery(original=original, disjuncts=(extended,), rule=rule, shape=shape,
                              complexity=complexity_of(rule, shape), subjects=("m.sl",),
                              added=(extended.edges[0],))
        refused = question_check(store, "where is the caribbean located?")(query)
        # since round 64 a described place is asked without "located" ("Where is the
        # place where Saint Lucia is located?"), which says no place either
        assert refused is not None and ("doubles a word" in refused
                                        or "does not say which place" in refused), refused


def test_a_description_by_its_own_noun_is_refused() -> None:
    """Blind round 36: "Which film was produced by the distributor of the distributors of
    The Black Dahlia?" (2)."""
    from extension.verbalize.question_check import _REPEATED_NOUN

    assert _REPEATED_NOUN.search("the distributor of the distributors of The Black Dahlia")
    assert _REPEATED_NOUN.search("the actor in the actors of X")
    assert not _REPEATED_NOUN.search("the capital of the country where Kokomo is located")


def way2(original: list[tuple[str, str, str]], added: tuple[str, str, str],
         subject: str) -> ExtendedQuery:
    """An intersection (way 2) of ``original`` with one more constraint on its answer."""
    extended = build_query_graph([*original, added], answer="x")
    rule = "intersection_way2"
    shape = result_shape(rule, "single")
    return ExtendedQuery(original=build_query_graph(original, answer="x"),
                         disjuncts=(extended,), rule=rule, shape=shape,
                         complexity=complexity_of(rule, shape), subjects=(subject,),
                         added=(extended.edges[-1],))


def test_a_profession_the_questions_verb_implies_is_refused(tmp_path: Path) -> None:
    """Blind round 40: "Who composed the music for Ocean's Eleven and works as a
    composer?" (3 from both readers): whoever composed a film's music is a composer;
    another profession still narrows the question."""
    music, profession = "film.film.music", "people.person.profession"
    people = [Entity("m.oe", "Ocean's Eleven"), Entity("m.dh", "David Holmes"),
              Entity("m.composer", "Composer"), Entity("m.dj", "Disc jockey")]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(people, [Fact("m.oe", music, "m.dh"), Fact("m.dh", profession, "m.composer"),
                              Fact("m.dh", profession, "m.dj")])
        check = question_check(store, "who composed the music for ocean's eleven?")
        original = [("m.oe", music, "?x")]
        refused = check(way2(original, ("?x", profession, "m.composer"), "m.composer"))
        assert refused is not None and "says again" in refused, refused
        assert check(way2(original, ("?x", profession, "m.dj"), "m.dj")) is None


def test_a_netflix_tag_does_not_describe_a_country_or_a_language() -> None:
    """Blind round 40: "What is the form of government of the country that includes the
    title Agora?" (2 from both readers); round 44: "Where is the genre that includes the
    title The Orphanage spoken?" (2): Netflix lists films under countries and languages,
    which no reader calls a genre of the film."""
    from extension.verbalize.planner import netflix_tag_description as tagged

    assert tagged("Which country includes the title Agora and is …?")
    assert tagged("Where is the language that includes the title The Orphanage spoken?")
    assert tagged("Where is the genre that includes the title The Orphanage spoken?")
    # round 52 (2 and 3): the answer asked as a genre is a language by its other constraint
    assert tagged("Which genre is an official language of Taiwan and includes the title "
                  "Crouching Tiger, Hidden Dragon?")
    assert not tagged("Which genre includes the title Agora?")
    # rounds 57-62 (3 from four readers): a film constrained by a country's tag
    assert tagged("Which film features Kristen Stewart and is listed on Netflix under the "
                  "United Kingdom?")
    assert tagged("Which films are listed on Netflix under French and star Gérard Depardieu?")
    assert not tagged("Which film features Will Ferrell and is listed on Netflix under "
                      "Auto racing?")
    assert not tagged("What includes the titles distributed by Samuel Goldwyn Films?")


def test_a_relations_noun_before_a_description_is_refused() -> None:
    """Blind round 45: "Which film had the crew member the person who composed the music
    for North by Northwest?" and "Which genres include the title the films that feature
    Tim Curry?" (2 from both readers); descriptions that start with a place noun and a
    relative word still read."""
    from extension.verbalize.planner import noun_before_description as garbled

    assert garbled("Which film had the crew member the person who composed the music for X?")
    assert garbled("Which genres include the title the films that feature Tim Curry?")
    for fine in ("Where is the place where the director of Jaws was born located?",
                 "What is the genre of the film that the person who directed Jaws produced?",
                 "Which language is spoken in the country where the director of Jaws was born?",
                 "Who is the spouse of the director of Jaws?"):
        assert not garbled(fine), fine


def test_a_restated_profession_is_named_by_its_verb_either_way_round() -> None:
    """Blind rounds 40 and 47: "Who composed the music for A Clockwork Orange and works
    as a composer?" (a seed question: the sampler refuses it with the engine's rule)."""
    from extension.verbalize.planner import restated_profession

    assert restated_profession("Who composed the music for A Clockwork Orange and works as a composer?")
    assert restated_profession("Who works as a film director and directed Jaws?")
    # a seed question's own text, before q̃ reads it (round 48's draw)
    assert restated_profession("Who composed the music for Spirited Away and has the profession Composer?")
    assert not restated_profession("Who directed The Godfather Part III and works as a screenwriter?")
    assert not restated_profession("Who was born in Frankfurt am Main and works as a composer?")


def test_a_place_described_only_as_where_another_lies_is_refused() -> None:
    """Blind rounds 40-51 rated "What is the time zone of the place where Pueblo is
    located?" and "Which team is based in the place where Siena is located?" 3 in 14 of
    20 ratings: Pueblo lies in Colorado, the United States and North America."""
    from extension.verbalize.planner import some_place_where

    assert some_place_where("What is the time zone of the place where Pueblo is located?")
    assert some_place_where("Which teams are based in the places where Siena and Padua are located?")
    assert some_place_where("What is the time zone of the place that contains City 3?")
    # round 54 (2 from both readers)
    assert some_place_where("Where is the place that is partially located in Ohio located?")
    assert not some_place_where("What is the form of government of the country where Kokomo is located?")
    assert not some_place_where("Where is the place where the director of Jaws was born located?")
