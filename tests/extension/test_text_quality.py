"""extension/verbalize/quality.py: each check on hand-written samples (whole generate
runs, 1,000 samples per KG among them, are in test_text_quality_runs.py)."""

from __future__ import annotations

import pytest

from extension.verbalize import quality
from extension.verbalize.planner import HubCounter
from extension.verbalize.quality import (
    ChosenConstant,
    chosen_constants,
    constraint_count,
    quality_report,
)
from kgstore import Entity, Fact
from tests.extension.stores import read_only_store
from tests.grammar import started_gate


def _node(id_: str, kind: str) -> dict:
    return {"id": id_, "kind": kind}


def _graph(constants: list[str], edges: list[tuple[str, str, str]]) -> dict:
    nodes = [_node("?x", "answer"), _node("?v", "variable"),
             *(_node(c, "literal" if c.startswith('"') else "entity") for c in constants)]
    return {"nodes": nodes, "answer": "?x",
            "edges": [{"source": s, "predicate": p, "target": o} for s, p, o in edges]}


def _sample(question: str, original: dict, extended: list[dict], *, dataset: str = "domain",
            qid: str = "q1", answer: str = "Jaws was directed by Steven Spielberg.",
            citations: tuple[str, ...] = ("Jaws was directed by Steven Spielberg.",)) -> dict:
    return {"id": f"{qid}:supportive", "source": {"dataset": dataset, "qid": qid},
            "question": question, "question_extended": question, "answer": answer,
            "citations": [{"text": c, "triples": []} for c in citations],
            "query": {"original": original, "extended": extended}, "subgraph": [],
            "answer_entities": [{"name": "Steven Spielberg"}]}


SPIELBERG = _graph(["m.spielberg"], [("?x", "film.film.directed_by", "m.spielberg")])
THREE = _graph(["m.spielberg", "m.williams", '"1975"'],
               [("?x", "film.film.directed_by", "m.spielberg"),
                ("?x", "film.film.music", "m.williams"), ("?x", "film.film.year", '"1975"')])


def test_constraints_are_the_constants_of_the_extended_question():
    assert constraint_count(_sample("q", SPIELBERG, [SPIELBERG])) == 1
    assert constraint_count(_sample("q", SPIELBERG, [THREE])) == 3
    # a union: each namesake in its own disjunct counts once
    union = [_graph(["m.a1", "m.b"], [("?x", "p", "m.a1"), ("?x", "q", "m.b")]),
             _graph(["m.a2", "m.b"], [("?x", "p", "m.a2"), ("?x", "q", "m.b")])]
    assert constraint_count(_sample("q", SPIELBERG, union)) == 2


def test_chosen_constants_leave_a_dataset_questions_own_topic_alone():
    doc = _sample("q", SPIELBERG, [THREE], dataset="webqsp")
    chosen = {(c.entity, c.predicate) for c in chosen_constants(doc)}
    assert chosen == {("m.williams", "film.film.music")}
    doc = _sample("q", SPIELBERG, [THREE], dataset="domain")
    assert {c.entity for c in chosen_constants(doc)} == {"m.spielberg", "m.williams"}


ENTITIES = [Entity("m.male", "Male"), Entity("m.female", "Female"),
            *(Entity(f"m.p{i}", f"Person {i}") for i in range(40))]
FACTS = [Fact(f"m.p{i}", "people.person.gender", "m.male" if i < 30 else "m.female")
         for i in range(40)] + [Fact("m.p0", "people.person.spouse", "m.p1")]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    yield from read_only_store(tmp_path_factory, "quality", ENTITIES, FACTS)


def test_a_hub_is_a_constant_that_most_of_a_relations_facts_point_at(store):
    hubs = HubCounter(store)

    def hub(c: ChosenConstant, counter: HubCounter = hubs) -> bool:
        return counter.hub(c.entity, c.predicate, entity_is_subject=c.entity_is_subject)

    male = ChosenConstant("m.male", "people.person.gender", entity_is_subject=False)
    female = ChosenConstant("m.female", "people.person.gender", entity_is_subject=False)
    spouse = ChosenConstant("m.p1", "people.person.spouse", entity_is_subject=False)
    assert hub(male) and hub(female)                          # 30/40 and 10/40 > 10%
    assert not hub(spouse)                                    # 1 fact: under HUB_MIN_FACTS
    linked, total = hubs.linked("m.male", "people.person.gender", entity_is_subject=False)
    assert total == 40 and quality.HUB_MIN_FACTS <= linked <= 30   # read only past the cap
    assert not hub(male, HubCounter(store, share=0.8))


def test_report_counts_each_kind_of_finding(store):
    gendered = _graph(["m.male", "m.p1"], [("?x", "people.person.gender", "m.male"),
                                           ("?x", "people.person.spouse", "m.p1")])
    docs = [
        _sample("Which entity is the one that directed Jaws?", SPIELBERG, [SPIELBERG], qid="a"),
        _sample("Who was married to Person 1 with with Male?", SPIELBERG, [gendered], qid="b"),
        _sample("Which 1975 film has music by John Williams and was directed by Steven "
                "Spielberg?", SPIELBERG, [THREE], qid="c"),
        _sample("Who directed Jaws?", SPIELBERG, [SPIELBERG], qid="d"),
    ]
    report = quality_report(docs, kg="hand", store=store)
    assert (report.samples, report.questions) == (4, 4)
    assert report.placeholder_samples == 1
    assert report.placeholders["which entity"] == 1 and report.placeholders["the one"] == 1
    assert report.doubled_samples == 1 and report.doubled == {"with with": 1}
    assert report.over_constraint_samples == 1 and report.constraints == {1: 2, 2: 1, 3: 1}
    assert report.hub_samples == 1 and list(report.hubs) == ["m.male via people.person.gender"]
    assert report.grammar is None
    text = "\n".join(report.lines())
    assert "placeholder" in text and "e.g. hub: m.male" in text
    assert report.to_json()["over_constraint_samples"] == 1


def test_a_name_is_never_a_placeholder_or_a_doubled_word():
    doc = _sample("Who directed Something Something?", SPIELBERG, [SPIELBERG],
                  answer="Something Something was directed by Steven Spielberg.")
    doc["subgraph"] = [{"s_name": "Something Something", "o_name": "Steven Spielberg"}]
    report = quality_report([doc], kg="names")
    assert report.placeholder_samples == 0 and report.doubled_samples == 0


@pytest.fixture(scope="module")
def gate():
    yield from started_gate()


def test_report_counts_the_grammar_gate_by_rule_and_leaves_names_out(gate):
    docs = [_sample("Who directed Jaws?", SPIELBERG, [SPIELBERG], qid="a",
                    answer="The films is directed by Steven Spielberg."),
            _sample("who directed Jaws?", SPIELBERG, [SPIELBERG], qid="b",
                    citations=("Greg Graffin follows the religion Atheism.",))]
    docs[1]["subgraph"] = [{"s_name": "Greg Graffin", "o_name": "Atheism"}]
    report = quality_report(docs, kg="g", gate=gate)
    g = report.grammar
    assert g is not None and g.languagetool == "6.8"
    assert g.blocked_samples == 2 and g.samples_with_matches == 2
    assert g.blocked_by_rule == {"answer|GRAMMAR|AGREEMENT_SENT_START": 1,
                                 "question|CASING|UPPERCASE_SENTENCE_START": 1}
    assert g.on_names == {"TYPOS": 1}                       # "Graffin"
    assert g.texts == 6 and g.unique_texts <= 5
    assert g.to_json()["blocked_samples"] == 2
