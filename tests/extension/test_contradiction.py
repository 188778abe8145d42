"""Contradictory and partially supportive samples a reader would label the same way
(issue 19, items 1, 3, 4 and 5), on real LadybugDB stores built from a small KG.

The KG has films with one director each (a functional relation), people with several
professions (not functional), a country everyone but one person is a national of, a
film with three genres (several answers) and a film whose cast is an n-ary CVT fact.
The same KG is loaded twice: with its type facts, and without any (as FB15k-237 is
grounded with ``--no-classes``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from extension.core import contradiction
from extension.core.edits import derived_answers
from extension.core.grounding import Grounder
from extension.core.query_graph import QueryGraph, build_query_graph
from extension.core.samples import SampleConfig
from extension.verbalize.verbalizer import TemplateVerbalizer
from kgstore import Entity, Fact, Store, open_store
from tests.extension.test_extend import by_label, samples_of

DIRECTED, PROFESSION, BORN = "film.film.directed_by", "people.person.profession", \
    "people.person.place_of_birth"
NATIONALITY, GENRE, MAYOR = "people.person.nationality", "film.film.genre", \
    "government.city.mayor"
STARRING, ACTOR, CHARACTER = "film.film.starring", "film.performance.actor", \
    "film.performance.character"
CVT_TYPES = ("film.performance",)
PERSON, DIRECTOR = "people.person", "film.director"


def _e(id: str, name: str | None, *types: str, cvt: bool = False) -> Entity:
    return Entity(id, name, types=types, is_cvt=cvt)


DIRECTORS = [f"m.d{i}" for i in range(1, 5)]
PEOPLE = [f"m.p{i}" for i in range(12)]
ENTITIES = [
    *(_e(f"m.f{i}", f"Film {i}", "film.film") for i in range(1, 7)),
    *(_e(d, f"Director {d[-1]}", PERSON, DIRECTOR) for d in DIRECTORS),
    *(_e(p, f"Person {p[3:]}", PERSON) for p in PEOPLE),
    *(_e(f"m.prof{i}", f"Profession {i}", "people.profession") for i in range(4)),
    *(_e(f"m.g{i}", f"Genre {i}", "film.film_genre") for i in range(4)),
    _e("m.paris", "Paris", "location.location", "location.citytown"),
    _e("m.lyon", "Lyon", "location.location", "location.citytown"),
    _e("m.nice", "Nice", "location.location", "location.citytown"),
    _e("m.georgia", "Georgia", "location.location", "location.us_state"),
    _e("m.france", "France", "location.location", "location.country"),
    _e("m.usa", "United States", "location.location", "location.country"),
    _e("m.paris_tx", "Paris", "location.location", "location.citytown"),
    *(_e(f"m.mayor{i}", f"Mayor {i}", PERSON, "government.politician") for i in range(5)),
    _e("m.c1", None, "film.performance", cvt=True),
    _e("m.c2", None, "film.performance", cvt=True),
    _e("m.a1", "Actor One", PERSON, "film.actor"),
    _e("m.a2", "Actor Two", PERSON, "film.actor"),
    _e("m.a3", "Actor Three", PERSON, "film.actor"),
    _e("m.ch1", "Character One", "film.film_character"),
    _e("m.ch2", "Character Two", "film.film_character"),
]
FACTS = [
    *(Fact(f"m.f{i}", DIRECTED, DIRECTORS[(i - 1) % 4]) for i in range(1, 7)),
    *(Fact(d, PROFESSION, f"m.prof{j}") for k, d in enumerate(DIRECTORS) for j in (k, (k + 1) % 4)),
    *(Fact(p, NATIONALITY, "m.france") for p in PEOPLE),
    Fact("m.p0", NATIONALITY, "m.usa"),
    *(Fact("m.f1", GENRE, f"m.g{i}") for i in range(3)), Fact("m.f2", GENRE, "m.g3"),
    # place of birth: one each; Georgia is someone's too, but it is no city
    Fact("m.d1", BORN, "m.paris"), Fact("m.d2", BORN, "m.lyon"), Fact("m.d3", BORN, "m.nice"),
    Fact("m.d4", BORN, "m.georgia"),
    # two cities named Paris, one mayor each (and three more cities with mayors)
    Fact("m.paris", MAYOR, "m.mayor0"), Fact("m.paris_tx", MAYOR, "m.mayor1"),
    Fact("m.lyon", MAYOR, "m.mayor2"), Fact("m.nice", MAYOR, "m.mayor3"),
    Fact("m.georgia", MAYOR, "m.mayor4"),
    # the cast of Film 1: an n-ary fact per actor
    Fact("m.f1", STARRING, "m.c1"), Fact("m.c1", ACTOR, "m.a1"), Fact("m.c1", CHARACTER, "m.ch1"),
    Fact("m.f1", STARRING, "m.c2"), Fact("m.c2", ACTOR, "m.a2"), Fact("m.c2", CHARACTER, "m.ch2"),
]


def _store(path: Path, *, types: bool) -> Store:
    store = open_store(path, create=True)
    entities = ENTITIES if types else [Entity(e.id, e.name, is_cvt=e.is_cvt) for e in ENTITIES]
    store.ingest(entities, FACTS, cvt_types=CVT_TYPES)
    return store


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = _store(tmp_path_factory.mktemp("typed") / "store", types=True)
    yield store
    store.close()


@pytest.fixture(scope="module")
def typeless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = _store(tmp_path_factory.mktemp("typeless") / "store", types=False)
    yield store
    store.close()


STRICT, DEFAULT = SampleConfig(caqa_strict=True), SampleConfig()
Q_DIRECTOR = build_query_graph([("m.f1", DIRECTED, "?a")], answer="a")
Q_PROFESSIONS = build_query_graph([("m.d1", PROFESSION, "?a")], answer="a")
Q_BORN = build_query_graph([("m.d1", BORN, "?a")], answer="a")
Q_PROFESSIONS_D2 = build_query_graph([("m.d2", PROFESSION, "?a")], answer="a")
Q_FILMS_OF_D1 = build_query_graph([("?a", DIRECTED, "m.d1")], answer="a")
Q_GENRES = build_query_graph([("m.f1", GENRE, "?a")], answer="a")
Q_MAYOR = build_query_graph([("m.paris", MAYOR, "?a")], answer="a")
Q_PLAYED = build_query_graph([("m.f1", STARRING, "?c"), ("?c", CHARACTER, "m.ch1"),
                              ("?c", ACTOR, "?a")], answer="a", cvt_types=frozenset(CVT_TYPES))
Q_CAST = build_query_graph([("m.f1", STARRING, "?c"), ("?c", ACTOR, "?a")], answer="a",
                           cvt_types=frozenset(CVT_TYPES))


# -- item 1: contradictions on stores without types -----------------------------------------


def test_a_typeless_store_replaces_the_answer_by_another_filler_of_its_role(
        typeless: Store) -> None:
    config = SampleConfig(classes=False)
    grounder = Grounder(typeless, classes=False)
    for skip in range(4):
        samples, failures = samples_of(typeless, grounder, "director", Q_DIRECTOR, "none",
                                       config, skip=skip)
        edit = by_label(samples)["contradictory"].edit
        assert edit.replacement_basis == "same_role" and edit.shared_type is None
        # another film's director (not a profession, a genre or a city)
        assert edit.replacement.id in set(DIRECTORS) - {"m.d1"}


# -- item 3: several answers: the citation supports none of them ----------------------------


def test_every_answer_of_a_union_is_replaced_and_strict_replaces_one(typed: Store) -> None:
    grounder = Grounder(typed)
    samples, _ = samples_of(typed, grounder, "mayor", Q_MAYOR, "union")
    edit = by_label(samples)["contradictory"].edit
    assert {r.replaced.id for r in edit.replacements} == {"m.mayor0", "m.mayor1"}
    cited = {t.o for t in by_label(samples)["contradictory"].subgraph}
    assert not cited & {"m.mayor0", "m.mayor1"}
    strict, _ = samples_of(typed, grounder, "mayor", Q_MAYOR, "union", STRICT)
    assert len(by_label(strict)["contradictory"].edit.replacements) == 1


# -- item 4: real contradictions --------------------------------------------------------------


def test_a_relation_with_several_values_is_contradicted_as_a_whole(typed: Store) -> None:
    """Director 1 has two professions: "Director 1 has the profession X" would sit
    beside them, so every answer is replaced and the citation says the replacements are
    the only ones (issue 34). --caqa-strict makes no such sample."""
    samples, _ = samples_of(typed, Grounder(typed), "prof", Q_PROFESSIONS, "none")
    sample = by_label(samples)["contradictory"]
    assert sample.edit.contradicts == "exhaustive"
    replaced = {r.replaced.id for r in sample.edit.replacements}
    new = {r.replacement.id for r in sample.edit.replacements}
    assert replaced == {"m.prof0", "m.prof1"}
    assert len(new) == 2 and new <= {"m.prof2", "m.prof3"}
    assert {t.fact() for t in sample.subgraph} == {Fact("m.d1", PROFESSION, n) for n in new}
    text = TemplateVerbalizer().verbalize(sample)
    (citation,) = text.citations
    names = sorted(f"Profession {n[-1]}" for n in new)
    assert citation.text in {f"Director 1's only professions are {a} and {b}."
                             for a, b in (names, names[::-1])}
    strict, failures = samples_of(typed, Grounder(typed), "prof", Q_PROFESSIONS, "none", STRICT)
    assert "contradictory" not in by_label(strict)
    reason = {f.stage: f.reason for f in failures}["contradictory"]
    assert "holds one value" in reason and PROFESSION in reason


def test_an_exhaustive_slot_must_hold_all_the_answers(typed: Store) -> None:
    """Only a slot of one entity whose values in ``G`` are exactly the answers can be
    stated as a whole."""
    facts = [Fact("m.d1", PROFESSION, "m.prof0"), Fact("m.d1", PROFESSION, "m.prof1")]
    slots = contradiction.exhaustive_slot(facts, {"m.prof0", "m.prof1"}, set())
    assert not isinstance(slots, str) and [s.fact for s in slots] == facts
    assert isinstance(contradiction.exhaustive_slot(facts, {"m.prof0"}, set()), str)
    assert isinstance(contradiction.exhaustive_slot(facts, {"m.prof0", "m.prof1"}, {"m.d1"}),
                      str)      # a CVT's slot: the reader does not see which n-ary fact
    mixed = [Fact("m.d1", PROFESSION, "m.prof0"), Fact("m.d2", PROFESSION, "m.prof1")]
    assert isinstance(contradiction.exhaustive_slot(mixed, {"m.prof0", "m.prof1"}, set()), str)


def test_a_cast_member_is_contradicted_only_where_the_question_pins_the_role(
        typed: Store) -> None:
    grounder = Grounder(typed)
    played, _ = samples_of(typed, grounder, "played", Q_PLAYED, "none")
    edit = by_label(played)["contradictory"].edit
    assert edit.replaced.id == "m.a1" and edit.replacement.id in {"m.a2", "m.a3"}
    cast, failures = samples_of(typed, grounder, "cast", Q_CAST, "none")
    assert "contradictory" not in by_label(cast)
    assert "does not pin" in {f.stage: f.reason for f in failures}["contradictory"]


def test_the_replacement_shares_the_most_specific_type(typed: Store) -> None:
    grounder = Grounder(typed)
    seen = set()
    for skip in range(8):
        samples, _ = samples_of(typed, grounder, "born", Q_BORN, "none", skip=skip)
        edit = by_label(samples)["contradictory"].edit
        seen.add(edit.replacement.id)
        assert edit.shared_type == "location.citytown"   # not location.location
    assert seen <= {"m.lyon", "m.nice"}   # never the state of Georgia


def test_a_value_the_slot_already_has_is_refused(typed: Store) -> None:
    """Person 0 is a national of France and of the United States: "Person 0 is a
    national of the United States" contradicts nothing."""
    slot = contradiction.single_valued_slot(typed, [Fact("m.p0", NATIONALITY, "m.france")],
                                            "m.france", cvts=set())
    assert isinstance(slot, contradiction.Slot)
    france = typed.entity("m.france")
    for seed in range(10):
        choice = contradiction.choose_replacement(typed, slot, "m.france", france, exclude=(),
                                                  seed=0, rng=random.Random(seed))
        assert isinstance(choice, str) or choice.replacement != "m.usa"


# -- item 5: partial samples for single questions ---------------------------------------------


def test_a_single_question_on_an_n_ary_fact_loses_one_of_its_triples(typed: Store) -> None:
    grounder = Grounder(typed)
    for skip in range(6):   # whatever the seed: the constraint goes, the answer stays
        samples, _ = samples_of(typed, grounder, "played", Q_PLAYED, "none", skip=skip)
        partial = by_label(samples)["partially_supportive"]
        assert partial.complexity == "single" and partial.edit.kind == "delete_triple"
        (deleted,) = partial.edit.deleted
        assert (deleted.s, deleted.p, deleted.o) == ("m.c1", CHARACTER, "m.ch1")
    assert [s.supported for s in partial.sub_facts].count(True) == 2
    strict, _ = samples_of(typed, grounder, "played", Q_PLAYED, "none", STRICT)
    assert "partially_supportive" not in by_label(strict)


def test_a_single_question_with_several_answers_loses_one_answers_fact(typed: Store) -> None:
    grounder = Grounder(typed)
    samples, _ = samples_of(typed, grounder, "genres", Q_GENRES, "none")
    partial = by_label(samples)["partially_supportive"]
    (deleted,) = partial.edit.deleted
    assert deleted.p == GENRE and partial.supported_fraction == pytest.approx(2 / 3)
    strict, _ = samples_of(typed, grounder, "genres", Q_GENRES, "none", STRICT)
    assert "partially_supportive" not in by_label(strict)


def test_a_single_question_with_one_triple_has_no_partial_sample(typed: Store) -> None:
    samples, failures = samples_of(typed, Grounder(typed), "director", Q_DIRECTOR, "none")
    assert "partially_supportive" not in by_label(samples)
    assert "partially_supportive" not in {f.stage for f in failures}


# -- item 4: where no answer slot holds one value, a constraint is contradicted ------------


def _professions_of_the_person_born_in_lyon(store: Store, config: SampleConfig = DEFAULT
                                            ) -> tuple[list, list]:
    """Director 2's professions (several values), asked as "… of the person born in
    Lyon" (way 1 rewrites Director 2 by his place of birth, which is single-valued; Lyon,
    unlike Paris, names one entity, so the question pins it)."""
    grounder = Grounder(store)
    for skip in range(20):
        samples, failures = samples_of(store, grounder, "prof", Q_PROFESSIONS_D2,
                                       "intersection_way1", config, skip=skip)
        if any(e["predicate"] == BORN for e in samples[0].query.added):
            return samples, failures
    raise AssertionError("no seed rewrites Director 2 by his place of birth")


def test_a_constraint_on_an_intermediate_entity_is_not_contradicted(typed: Store) -> None:
    """"Director 2 was born in Nice" against "the professions of the person born in
    Lyon": the chain from Lyon reads as missing rather than contradicted, so a slot whose
    other end is no answer is refused (issue 19's blind reading); the professions are
    stated as a whole instead (issue 34), Lyon stays."""
    samples, _ = _professions_of_the_person_born_in_lyon(typed)
    sample = by_label(samples)["contradictory"]
    assert sample.edit.contradicts == "exhaustive"
    assert {r.replaced.id for r in sample.edit.replacements} == {"m.prof1", "m.prof2"}
    assert Fact("m.d2", BORN, "m.lyon") in {t.fact() for t in sample.subgraph}


def test_a_functional_constraint_on_the_answers_is_contradicted_when_they_are_many(
        typed: Store) -> None:
    """"Which films did Director 1 direct?" (Film 1 and Film 5): Director 1 has several
    films, so no answer slot holds one value; but each film has one director, so the
    citation "Film 1 was directed by Director 2. Film 5 was directed by Director 2."
    contradicts the answer statement."""
    samples, _ = samples_of(typed, Grounder(typed), "films", Q_FILMS_OF_D1, "none")
    sample = by_label(samples)["contradictory"]
    edit = sample.edit
    assert edit.contradicts == "constraint" and edit.replaced.id == "m.d1"
    assert edit.replacement.id in set(DIRECTORS) - {"m.d1"}
    edited = [t.fact() for t in sample.subgraph]
    assert {f for f in edited if f.predicate == DIRECTED} == {
        Fact("m.f1", DIRECTED, edit.replacement.id), Fact("m.f5", DIRECTED, edit.replacement.id)}
    disjuncts = [QueryGraph.model_validate(d) for d in sample.query.extended]
    assert derived_answers(disjuncts, edited) == set()
    strict, failures = samples_of(typed, Grounder(typed), "films", Q_FILMS_OF_D1, "none", STRICT)
    assert "contradictory" not in by_label(strict)


def test_the_answer_slot_comes_first_and_caqa_strict_contradicts_no_constraint(
        typed: Store) -> None:
    _, failures = _professions_of_the_person_born_in_lyon(typed, STRICT)
    reason = {f.stage: f.reason for f in failures}["contradictory"]
    assert "holds one value" in reason and PROFESSION in reason
    grounder = Grounder(typed)
    for skip in range(4):   # a single-valued answer slot: the answer is replaced, as before
        samples, _ = samples_of(typed, grounder, "born", Q_BORN, "none", skip=skip)
        edit = by_label(samples)["contradictory"].edit
        assert edit.contradicts == "answer" and edit.replaced.id == "m.paris"


def test_a_constant_of_an_n_ary_fact_is_not_contradicted(typed: Store) -> None:
    """Actor One's character in Film 1 replaced would say "Actor Two played Character
    One", which does not contradict Actor One playing it: the CVT is refused."""
    slots = contradiction.constraint_slots(
        typed, [Fact("m.c1", ACTOR, "m.a1"), Fact("m.c1", CHARACTER, "m.ch1")],
        ["m.ch1"], cvts={"m.c1"}, answers={"m.a1"})
    assert isinstance(slots, str) and "n-ary fact" in slots
