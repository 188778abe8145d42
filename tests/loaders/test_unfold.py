"""Folded relations unfolded at load (issue 34, item 3): FB15k-237's relation paths
through a mediator become a derived mediator node with the two real predicates, and a
Freebase property's reverse is stored too, so WebQSP's chains ground on FB15k-237 as on
Freebase. Real LadybugDB stores, real loads, real grounding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extension.core.grounding import Grounder
from extension.core.shapes import classify
from extension.inputs.questions import ParsedQuestion, parse_question
from kgstore import Fact, open_store
from loaders.kgqa import read_questions
from loaders.triples import load_triples
from loaders.unfold import (
    MEDIATOR_PREFIX,
    UNFOLDED_MEDIATOR_TYPE,
    folded_parts,
    freebase_reverse_properties,
    mediator_id,
)
from tests.external import external_path

ACTOR, FILM, OTHER_FILM = "/m/0irons", "/m/0lion", "/m/0dead"
PERFORMED = "/film/actor/film./film/performance/film"
FACTS = (f"{ACTOR}\t{PERFORMED}\t{FILM}\n"
         f"{ACTOR}\t{PERFORMED}\t{OTHER_FILM}\n"
         f"{FILM}\t/film/film/genre\t/m/0drama\n"
         "/m/0nixon\t/people/person/spouse_s./people/marriage/type_of_union\t/m/0marriage\n"
         "/m/0nixon\t/people/person/spouse_s./people/marriage/spouse\t/m/0pat\n")
NAMES = ("/m/0irons\tJeremy Irons\n/m/0lion\tThe Lion King\n/m/0dead\tDead Ringers\n"
         "/m/0drama\tDrama\n/m/0nixon\tRichard Nixon\n/m/0pat\tPat Nixon\n"
         "/m/0marriage\tMarriage\n")


def _load(tmp_path: Path, *, unfold: bool = True, reverse_properties: bool = True) -> str:
    """The facts and names above loaded (default: unfolded, with the reverse
    properties)."""
    facts, names = tmp_path / "test.tsv", tmp_path / "entity2text.txt"
    facts.write_text(FACTS, encoding="utf-8")
    names.write_text(NAMES, encoding="utf-8")
    location = str(tmp_path / "store")
    with open_store(location, create=True) as store:
        report = load_triples(store, [facts], names=names, unfold=unfold,
                              reverse_properties=reverse_properties)
    assert report.malformed == 0
    return location


def test_folded_parts() -> None:
    assert folded_parts("film.actor.film..film.performance.film") == (
        "film.actor.film", "film.performance.film")
    assert folded_parts("film.film.genre") is None
    assert folded_parts("a..b") is None          # not two Freebase properties
    assert mediator_id("m.a", "p..q", "m.b") == mediator_id("m.a", "p..q", "m.b")
    assert mediator_id("m.a", "p..q", "m.b") != mediator_id("m.a", "p..q", "m.c")
    assert mediator_id("m.a", "p..q", "m.b").startswith(MEDIATOR_PREFIX)


def test_reverse_table_pairs_properties_both_ways() -> None:
    reverse = freebase_reverse_properties()
    assert reverse["film.actor.film"] == "film.performance.actor"
    assert reverse["film.performance.actor"] == "film.actor.film"
    assert reverse["location.location.containedby"] == "location.location.contains"
    for prop, back in reverse.items():
        assert reverse[back] == prop and prop != back
        assert prop.count(".") >= 2 and " " not in prop


def test_a_folded_fact_becomes_a_derived_mediator(tmp_path: Path) -> None:
    location = _load(tmp_path)
    mediator = mediator_id("m.0irons", "film.actor.film..film.performance.film", "m.0lion")
    with open_store(location, read_only=True) as store:
        m = store.entity(mediator)
        assert m is not None and m.is_cvt and m.name is None
        assert set(m.types) == {"film.performance", UNFOLDED_MEDIATOR_TYPE}
        assert "film.performance" in store.cvt_types()
        assert set(store.facts_out(mediator)) == {
            Fact(mediator, "film.performance.film", "m.0lion"),
            Fact(mediator, "film.performance.actor", "m.0irons")}      # the reverse
        assert Fact("m.0irons", "film.actor.film", mediator) in store.facts_out("m.0irons")
        assert store.facts_out("m.0lion", predicate="film.film.starring") == [
            Fact("m.0lion", "film.film.starring", mediator)]
        assert store.facts_out("m.0drama", predicate="film.film_genre.films_in_this_genre")
        ids = {p.id for p in store.predicates()}
        assert not any(".." in p for p in ids)       # no folded relation is left


def test_folded_facts_sharing_a_first_hop_get_their_own_mediators(tmp_path: Path) -> None:
    """Nixon's marriage type and spouse are two folded facts: two mediators (FB15k-237
    does not say they were one marriage), and a query pinning one marriage by both
    finds none."""
    location = _load(tmp_path)
    with open_store(location, read_only=True) as store:
        marriages = [f.object for f in store.facts_out("m.0nixon",
                                                       predicate="people.person.spouse_s")]
        assert len(marriages) == 2 and len(set(marriages)) == 2
        grounder = Grounder(store, classes=False)
        married = _question("ns:m.0nixon ns:people.person.spouse_s ?y . "
                            "?y ns:people.marriage.spouse ?x . FILTER (?x != ns:m.0nixon)",
                            tmp_path)
        assert married.query is not None
        assert grounder.ground(married.query).answers == ("m.0pat",)
        pinned = _question("ns:m.0nixon ns:people.person.spouse_s ?y . "
                           "?y ns:people.marriage.spouse ?x . "
                           "?y ns:people.marriage.type_of_union ns:m.0marriage . "
                           "FILTER (?x != ns:m.0nixon)", tmp_path)
        assert pinned.query is not None
        assert grounder.ground(pinned.query).outcome == "no_match"


def _question(where: str, directory: Path) -> ParsedQuestion:
    """The parsed question of a WebQSP-style SPARQL ``WHERE`` body."""
    record = {"id": "q", "question": "?", "answers": [],
              "sparql": "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
                        f"SELECT DISTINCT ?x WHERE {{ {where} }}"}
    path = directory / "question.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (question,) = list(read_questions(path, "jsonl"))
    return parse_question(question)


@pytest.mark.parametrize("where, answers", [
    # WebQSP's two-step chain, as written from the actor ...
    ("ns:m.0irons ns:film.actor.film ?y . ?y ns:film.performance.film ?x",
     ["m.0dead", "m.0lion"]),
    # ... and from the film, through the reverse properties FB15k-237 dropped.
    ("ns:m.0lion ns:film.film.starring ?y . ?y ns:film.performance.actor ?x", ["m.0irons"]),
])
def test_webqsp_chains_ground_as_one_hop(tmp_path: Path, where: str, answers: list[str]
                                         ) -> None:
    location = _load(tmp_path)
    parsed = _question(where, tmp_path)
    # a hop through a CVT counts once
    assert parsed.shape == "single" and parsed.query is not None
    with open_store(location, read_only=True) as store:
        got = Grounder(store, classes=False).ground(parsed.query)
        assert got.outcome == "answered" and sorted(map(str, got.answers)) == answers
        assert classify(parsed.query).hops == 1


def test_reloading_adds_nothing(tmp_path: Path) -> None:
    location = _load(tmp_path)
    with open_store(location) as store:
        before = store.stats()
        report = load_triples(store, [tmp_path / "test.tsv"], reverse_properties=True)
        assert report.import_report.facts_new == 0
        assert report.import_report.entities_new == 0
        assert store.stats().facts == before.facts


def test_as_is_on_request(tmp_path: Path) -> None:
    location = _load(tmp_path, unfold=False, reverse_properties=False)
    with open_store(location, read_only=True) as store:
        ids = {p.id for p in store.predicates()}
        assert ids == {"film.actor.film..film.performance.film", "film.film.genre",
                       "people.person.spouse_s..people.marriage.type_of_union",
                       "people.person.spouse_s..people.marriage.spouse"}
        assert store.stats().cvt_entities == 0


def test_unfolding_alone_by_default(tmp_path: Path) -> None:
    facts = tmp_path / "test.tsv"
    facts.write_text(FACTS, encoding="utf-8")
    with open_store(str(tmp_path / "store"), create=True) as store:
        report = load_triples(store, [facts])
        assert report.files[0].mapped == {"facts": 5, "unfolded_facts": 4, "reverse_facts": 0}
        assert store.stats().cvt_entities == 4
        assert store.facts_out("m.0drama") == []


def test_reverse_facts_without_unfolding(tmp_path: Path) -> None:
    location = _load(tmp_path, unfold=False)
    with open_store(location, read_only=True) as store:
        assert store.facts_out("m.0drama") == [
            Fact("m.0drama", "film.film_genre.films_in_this_genre", "m.0lion")]
        assert store.stats().cvt_entities == 0


@pytest.mark.slow
def test_webqsp_test_questions_on_fb15k237(tmp_path: Path) -> None:
    """The issue's numbers: WebQSP test on FB15k-237 dev + test named by entity2text.
    Before unfolding 70 questions grounded and 1,043 failed as unknown_predicate."""
    fb = external_path("freebase", "fb15k237")
    webqsp = external_path("webqsp", "WebQSP.test.json")
    location = str(tmp_path / "store")
    with open_store(location, create=True) as store:
        load_triples(store, [fb / "dev.tsv", fb / "test.tsv"], names=fb / "entity2text.txt",
                     reverse_properties=True)
    outcomes: dict[str, int] = {}
    with open_store(location, read_only=True) as store:
        grounder = Grounder(store, classes=False)
        for question in read_questions(webqsp):
            parsed = parse_question(question)
            if parsed.query is None or parsed.shape == "unsupported":
                continue
            outcome = grounder.ground(parsed.query).outcome
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes["answered"] >= 140
    assert outcomes["unknown_predicate"] <= 700
