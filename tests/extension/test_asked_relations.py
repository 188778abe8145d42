"""The prior of what people ask (:mod:`extension.core.asked_relations`, issue 34 item 2):
counts of the relations of WebQSP's and GrailQA's logical forms, and the draws of the
extension engine and the seed sampler that follow it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from extension.core.asked_relations import (
    asked_counts,
    asked_weight,
    count_asked_relations,
    format_table,
    read_datasets,
)
from extension.core.rules import Hop, asked_sample
from tests.external import external_path

WEBQSP = [
    {"Parses": [{"InferentialChain": ["film.film.starring", "film.performance.actor"],
                 "Constraints": [{"NodePredicate": "people.person.gender"}]},
                {"InferentialChain": ["film.film.starring", "film.performance.actor"],
                 "Constraints": []}]},
    {"Parses": [{"InferentialChain": ["film.film.directed_by"], "Constraints": None}]},
    {"Parses": [{"InferentialChain": None}]},
]
GRAILQA = [{"graph_query": {"edges": [{"relation": "film.film.directed_by"},
                                      {"relation": "film.film.directed_by"}]}},
           {"graph_query": {}}]


def test_each_relation_counts_once_per_question_with_mediator_hops_folded() -> None:
    counts = count_asked_relations(WEBQSP, GRAILQA)
    assert counts == Counter({
        "film.film.starring": 1, "film.performance.actor": 1, "people.person.gender": 1,
        "film.film.starring..film.performance.actor": 1, "film.film.directed_by": 2})
    table = format_table(counts, "hand-written")
    assert table.splitlines()[2] == "film.film.directed_by\t2"


def test_the_shipped_prior_weighs_asked_relations_above_unasked_ones() -> None:
    counts = asked_counts()
    assert counts["people.person.place_of_birth"] > 100
    assert "film.film.release_date_s..film.film_regional_release_date." \
           "film_release_distribution_medium" not in counts
    assert asked_weight("people.person.place_of_birth") > 5
    assert asked_weight("<http://rdf.freebase.com/ns/people.person.place_of_birth>") \
        == asked_weight("people.person.place_of_birth")
    assert asked_weight("no.such.relation") == 1.0


def test_the_engine_draws_asked_relations_first_more_often() -> None:
    asked = Hop("m.a", "people.person.place_of_birth")
    unasked = Hop("m.b", "film.film.release_date_s..film.film_regional_release_date."
                  "film_release_distribution_medium")
    firsts = Counter(asked_sample([unasked, asked], 1, random.Random(i))[0].predicate
                     for i in range(400))
    assert firsts[asked.predicate] > 300          # weight ~6.2 against 1: ~86% expected
    # the draw depends on the values and the seed only, not on the input order
    assert asked_sample([asked, unasked], 2, random.Random(7)) \
        == asked_sample([unasked, asked], 2, random.Random(7))


@pytest.mark.external
def test_the_shipped_counts_are_the_datasets_counts() -> None:
    """``asked_relations.tsv`` is what ``tools/asked_relations.py`` computes from the
    users' copies of WebQSP train + test and the GrailQA sample."""
    webqsp = [external_path("webqsp", f"WebQSP.{s}.json") for s in ("train", "test")]
    grailqa = [external_path("grailqa", "ToG_graliqa_1000.json")]
    assert dict(read_datasets(webqsp, grailqa)) == dict(asked_counts())
