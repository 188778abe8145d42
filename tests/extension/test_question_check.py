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


def test_way1_refused_when_the_question_does_not_name_the_subject(kg: Store) -> None:
    """Item 2: the old code appended ", where The Godfather is …" to a question that
    names the film otherwise; now the candidate is refused."""
    check = question_check(kg, "who directed coppola's crime classic?")
    assert check(way1("m.g2", SEQUEL, False)) is not None
    assert question_check(kg, "who directed the godfather?")(way1("m.g2", SEQUEL, False)) is None


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
        assert result.query.rule in ("none", "intersection_way2", "union")


def test_a_hop_over_a_relation_without_a_readable_phrase_is_refused(tmp_path: Path) -> None:
    """The Wikidata sample store lost whole questions at verbalization ("has the
    P190"): the extension now refuses the hop and tries another candidate."""
    from kgstore.models import Predicate

    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(ENTITIES, [*FACTS, Fact("m.g2", "P190", "m.g"), Fact("m.g2", "P57", "m.g")],
                     predicates=[Predicate("P57", "follows")])
        check = question_check(store, "who directed the godfather?")
        refused = check(way1("m.g2", "P190", True))
        assert refused is not None and "P190" in refused
        assert check(way1("m.g2", "P57", True)) is None   # labelled in the store: readable
