"""Issue 19 item 6 on real stores: the irrelevant edit where the subject's
neighbourhood is small, the union rule over same-name entities whose relations
differ by domain, and the union rule's availability in ``stats.json``.

* Pat has one date and one profession: "When was Pat born?" has no other literal around
  Pat, so a walk that maps the date only to a literal found no irrelevant subgraph;
* two "Titanic"s, a film (``film.film.directed_by``) and a TV episode
  (``tv.tv_episode.directed_by``): the union rule wanted the exact predicate;
* a KG where no name is shared: every union attempt is counted as
  ``no_same_name_entities``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from extension.core.extend import UNION_NO_SAME_NAME, RuleAttempt, UnionSubject, union_outcome
from extension.core.grounding import Grounder
from extension.core.query_graph import build_query_graph
from extension.run.generate import GenerateConfig, generate
from kgstore import Entity, Fact, Literal, Store, open_store
from tests.extension.stores import read_only_store
from tests.extension.test_extend import (
    applied,
    check_all,
    extend,
    parsed,
    samples_of,
    seed_drawing,
)

DOB, PROFESSION = "people.person.date_of_birth", "people.person.profession"
GENDER = "people.person.gender"
FILM_DIRECTED, EPISODE_DIRECTED = "film.film.directed_by", "tv.tv_episode.directed_by"
SERIES, GENRE = "tv.tv_episode.series", "film.film.genre"

ENTITIES = [
    Entity("m.pat", "Pat Lone", types=("people.person",)),
    Entity("m.actor", "Actor", types=("people.profession",)),
    Entity("m.t_film", "Titanic", types=("film.film",)),
    Entity("m.t_episode", "Titanic", types=("tv.tv_episode",)),
    Entity("m.cameron", "James Cameron", types=("people.person",)),
    Entity("m.ep_director", "Edda Director", types=("people.person",)),
    Entity("m.stories", "Ocean Stories", types=("tv.tv_series",)),
    Entity("m.romance", "Romance", types=("film.film_genre",)),
]
FACTS = [
    Fact("m.pat", DOB, Literal("1950-01-01", "xsd:date")),
    Fact("m.pat", PROFESSION, "m.actor"),
    Fact("m.t_film", FILM_DIRECTED, "m.cameron"),
    Fact("m.t_film", GENRE, "m.romance"),
    Fact("m.t_episode", EPISODE_DIRECTED, "m.ep_director"),
    Fact("m.t_episode", SERIES, "m.stories"),
]
Q_BORN = build_query_graph([("m.pat", DOB, "?a")], answer="a")
Q_DIRECTED = build_query_graph([("m.t_film", FILM_DIRECTED, "?a")], answer="a")


@pytest.fixture(scope="module")
def kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    yield from read_only_store(tmp_path_factory, "item6", ENTITIES, FACTS)


@pytest.fixture(scope="module")
def grounder(kg: Store) -> Grounder:
    return Grounder(kg)


# -- irrelevant --------------------------------------------------------------------------


def test_irrelevant_takes_an_entity_leaf_when_the_subject_has_no_other_literal(
        kg: Store, grounder: Grounder) -> None:
    samples, failures = samples_of(kg, grounder, "born", Q_BORN, "none")
    assert "irrelevant" not in [f.stage for f in failures]
    irrelevant = next(s for s in samples if s.label == "irrelevant")
    assert [t.fact() for t in irrelevant.subgraph] == [Fact("m.pat", PROFESSION, "m.actor")]
    assert irrelevant.edit.subject == "m.pat"   # check_all (in samples_of) verified the rest


def test_irrelevant_never_cites_a_bookkeeping_value(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """"Pat Lone has the gender Male" is filler to every reader: the irrelevant walk
    leaves out relations whose value is bookkeeping (a gender, a currency, a colour),
    and with nothing else around Pat no irrelevant sample is made."""
    entities = [ENTITIES[0], Entity("m.male", "Male", types=("people.gender",))]
    facts = [Fact("m.pat", DOB, Literal("1950-01-01", "xsd:date")),
             Fact("m.pat", GENDER, "m.male")]
    for kg in read_only_store(tmp_path_factory, "gender", entities, facts):
        samples, failures = samples_of(kg, Grounder(kg), "born", Q_BORN, "none")
        assert "irrelevant" not in [s.label for s in samples]
        assert "irrelevant" in [f.stage for f in failures]


def test_irrelevant_never_cites_an_identifier_literal(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A plain-string literal (an identifier, a URL) reads as "Pat Lone has the code
    nm0001": the irrelevant walk takes the typed literal instead, as the seed sampler
    only asks about typed ones (extension.core.vocabulary.is_answerable_literal)."""
    code, height = "people.person.code", "people.person.height_meters"
    facts = [Fact("m.pat", DOB, Literal("1950-01-01", "xsd:date")),
             Fact("m.pat", code, Literal("nm0001")),
             Fact("m.pat", height, Literal("1.8", "xsd:float"))]
    for kg in read_only_store(tmp_path_factory, "ids", [ENTITIES[0]], facts):
        samples, _ = samples_of(kg, Grounder(kg), "born", Q_BORN, "none")
        irrelevant = next(s for s in samples if s.label == "irrelevant")
        assert [t.fact() for t in irrelevant.subgraph] == [facts[2]]


# -- union ---------------------------------------------------------------------------------


def test_union_over_a_same_name_entity_with_a_relation_of_the_same_family(
        kg: Store, grounder: Grounder) -> None:
    ext = applied(extend(kg, grounder, Q_DIRECTED, "union"))
    q = ext.query
    assert (q.rule, q.complexity) == ("union", "union")
    assert q.subjects == ("m.t_film", "m.t_episode")
    assert [[(e.source, e.predicate, e.target) for e in d.edges] for d in q.disjuncts] == [
        [("m.t_film", FILM_DIRECTED, "?a")], [("m.t_episode", EPISODE_DIRECTED, "?a")]]
    assert set(ext.answers) == {"m.cameron", "m.ep_director"}
    # what the question's text needs to tell the two Titanics apart, never the answer
    assert q.union_subjects == (
        UnionSubject(entity="m.t_film", name="Titanic", matched="subject",
                     predicate=FILM_DIRECTED, type="film.film", fact_predicate=GENRE,
                     fact_object="m.romance", fact_outgoing=True, fact_object_name="Romance"),
        UnionSubject(entity="m.t_episode", name="Titanic", matched="name",
                     predicate=EPISODE_DIRECTED, type="tv.tv_episode",
                     fact_predicate=SERIES, fact_object="m.stories", fact_outgoing=True,
                     fact_object_name="Ocean Stories"))


def test_union_samples_carry_the_subjects_distinctions(kg: Store, grounder: Grounder) -> None:
    samples, _ = samples_of(kg, grounder, "directed", Q_DIRECTED, "union")
    check_all(kg, samples)
    assert {s.complexity for s in samples} == {"union"}
    assert [u["type"] for u in samples[0].query.union_subjects] == ["film.film",
                                                                    "tv.tv_episode"]


# -- the union rule's availability in stats.json -------------------------------------------


def test_stats_say_when_no_entity_shares_a_name(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with open_store(path, create=True) as s:
        s.ingest(ENTITIES[:2], FACTS[:2])
    question = parsed("born", Q_BORN)
    seed = seed_drawing("single", "union", "born")
    result = generate(str(path), [question], tmp_path / "bench", GenerateConfig(seed=seed),
                      source={"kind": "test"}, report=False)
    stats = json.loads((tmp_path / "bench" / "stats.json").read_text())
    assert stats == result.stats
    assert stats["rule_availability"] == {
        "union": {"tried": 1, "applied": 0, UNION_NO_SAME_NAME: 1}}


def test_union_outcome_reads_attempts_and_failure_reasons() -> None:
    assert union_outcome([RuleAttempt(rule="union", outcome="applied")]) == "applied"
    assert union_outcome([RuleAttempt(rule="none", outcome="applied")]) is None
    reason = ("no rule of shape 'single' applies: intersection_way1: no prepended hop; "
              f"union: {UNION_NO_SAME_NAME}: no other entity shares the subject's name; none: x")
    assert union_outcome(None, reason) == UNION_NO_SAME_NAME
    assert union_outcome(None, "union has more than 3 answers") is None
    assert union_outcome([RuleAttempt(rule="union", outcome="union has more than 3 answers")]
                         ) == "other"


def test_the_irrelevant_walk_avoids_predicates_that_read_as_ids(tmp_path: Path) -> None:
    """Issue 19: on the Wikidata sample store the walk took unlabelled properties
    ("has P2163"), whose citations cannot be written: 1 irrelevant sample of 27."""
    from extension.core.samples import unreadable_predicates
    from kgstore.models import Predicate

    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([Entity("Q1", "Alpha"), Entity("Q2", "Beta")],
                     [Fact("Q1", "P2163", "Q2"), Fact("Q1", "P57", "Q2"),
                      Fact("Q1", "film.film.genre", "Q2")],
                     predicates=[Predicate("P57", "director")])
        assert unreadable_predicates(store) == frozenset({"P2163"})
        # Worked out once per store (every question's irrelevant edit asks): the
        # store's predicates are not read again.
        asked: list[int] = []
        read = store.predicates
        store.predicates = lambda **kw: asked.append(1) or read(**kw)  # type: ignore[method-assign]
        assert unreadable_predicates(store) == frozenset({"P2163"})
        assert asked == []


def test_an_irrelevant_citation_takes_no_relation_whose_words_echo_an_answer(
        tmp_path: Path) -> None:
    """Blind round 10: "Bill Conti composed the music for Rocky" as the irrelevant
    citation of "What is the profession of Bill Conti? — Composer" was read as
    supportive or partial by both readers: the relation's words say the answer."""
    from extension.core.grounding import Grounder
    from extension.core.query_graph import build_query_graph
    from extension.core.samples import structured_samples
    from extension.inputs.questions import ParsedQuestion, classify

    entities = [Entity("m.bc", "Bill Conti"), Entity("m.comp", "Composer"),
                Entity("m.rocky", "Rocky"), Entity("m.x", "Another Person"),
                Entity("m.pian", "Pianist")]
    facts = [Fact("m.bc", "people.person.profession", "m.comp"),
             Fact("m.bc", "film.music_contributor.film", "m.rocky"),
             Fact("m.x", "people.person.profession", "m.pian")]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(entities, facts)
        graph = build_query_graph([("m.bc", "people.person.profession", "?a")], answer="a")
        c = classify(graph)
        question = ParsedQuestion(id="q1", dataset="test", question="Bill Conti's job?",
                                  shape=c.shape, query=graph, topic_entities=c.subjects,
                                  hops=c.hops)
        cited = set()
        for seed in range(8):   # whichever rule a seed draws
            samples, _ = structured_samples(store, Grounder(store), question, seed=seed)
            cited |= {t.p for s in samples if s.label == "irrelevant" for t in s.subgraph}
        assert "film.music_contributor.film" not in cited, cited
