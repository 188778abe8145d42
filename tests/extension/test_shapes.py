"""CAQA shape classification (extension.core.shapes): single / path / tree with CVT
contraction, and every reason code classify can give. Expected shapes are hand-checked
against CAQA §4.1 / Appendix B as the module docstring states them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from extension.core import query_graph as qg
from extension.core.shapes import (
    REASONS,
    Classification,
    Hop,
    classify,
    contract_cvts,
    unsupported,
)
from extension.inputs.questions import parse_question
from kgstore.models import Literal
from loaders.kgqa import read_kgqa_jsonl

REPO = Path(__file__).resolve().parents[2]
CVT = frozenset({"people.marriage", "film.performance", "education.education",
                 "government.government_position_held", "award.award_honor"})
LIT = Literal("1961", "xsd:gYear")


def graph(*triples: tuple[qg.Term, str, qg.Term], answer: str = "?a", **kw: Any) -> qg.QueryGraph:
    return qg.build_query_graph(list(triples), answer=answer, cvt_types=CVT, **kw)


def shape_of(*triples: tuple[qg.Term, str, qg.Term], topics: tuple[str, ...] = (),
             **kw: Any) -> Classification:
    return classify(graph(*triples, **kw), topics)


def reason_of(*triples: tuple[qg.Term, str, qg.Term], **kw: Any) -> str | None:
    result = shape_of(*triples, **kw)
    assert result.shape == "unsupported"
    assert result.detail
    return result.reason


# -- single ----------------------------------------------------------------------------------------
def test_single() -> None:
    r = shape_of(("m.03_r3", "location.country.languages_spoken", "?a"))
    assert (r.shape, r.reason, r.hops) == ("single", None, 1)
    assert r.subjects == ("m.03_r3",)
    assert r.branches == (("m.03_r3", "?a"),)
    assert r.qualifiers == ()
    assert r.supported


def test_single_answer_as_subject() -> None:
    # direction does not matter: (?a, r, e) is a single too
    r = shape_of(("?a", "film.film.directed_by", "m.0g2lq"))
    assert (r.shape, r.subjects, r.hops) == ("single", ("m.0g2lq",), 1)


def test_single_through_cvt_harper_lee() -> None:
    r = shape_of(("m.0bqsx", "people.person.education", "?cvt"),
                 ("?cvt", "education.education.institution", "?a"))
    assert (r.shape, r.hops, r.subjects) == ("single", 1, ("m.0bqsx",))
    assert r.branches == (("m.0bqsx", "?a"),)
    assert r.hop_list == (Hop(("m.0bqsx", "?a"), "?cvt", ()),)


def test_single_without_cvt_knowledge_is_a_path() -> None:
    g = qg.build_query_graph([("m.0bqsx", "people.person.education", "?cvt"),
                              ("?cvt", "education.education.institution", "?a")], answer="?a")
    r = classify(g)
    assert (r.shape, r.hops) == ("path", 2)


CORLEONE = (("m.07g1sm", "film.film.starring", "?y"),
            ("?y", "film.performance.character", "m.04fd6x"),
            ("?y", "film.performance.actor", "?a"))


def test_cvt_with_qualifier_constant_is_single() -> None:
    r = shape_of(*CORLEONE, topics=("m.07g1sm",))
    assert (r.shape, r.hops) == ("single", 1)
    assert r.subjects == ("m.07g1sm",)
    assert r.qualifiers == ("m.04fd6x",)
    assert r.hop_list == (Hop(("m.07g1sm", "?a"), "?y", ("m.04fd6x",)),)


def test_cvt_topic_choice_honours_topic_entities() -> None:
    r = shape_of(*CORLEONE, topics=("m.04fd6x",))
    assert (r.shape, r.subjects, r.qualifiers) == ("single", ("m.04fd6x",), ("m.07g1sm",))
    # a topic entity that is not on the CVT is ignored: the CVT's first constant in edge
    # order is the subject
    r = shape_of(*CORLEONE, topics=("m.999",))
    assert (r.shape, r.subjects, r.qualifiers) == ("single", ("m.07g1sm",), ("m.04fd6x",))
    r = shape_of(*reversed(CORLEONE))
    assert (r.shape, r.subjects, r.qualifiers) == ("single", ("m.04fd6x",), ("m.07g1sm",))


def test_topic_choice_does_not_depend_on_the_hash_seed() -> None:
    code = ("from extension.core.query_graph import build_query_graph as b\n"
            "from extension.core.shapes import classify\n"
            f"g = b({list(CORLEONE)!r}, answer='?a', cvt_types=frozenset({{'film.performance'}}))\n"
            "r = classify(g)\n"
            "print(r.subjects, r.qualifiers)")
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO,
                              capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    assert outputs == {"('m.07g1sm',) ('m.04fd6x',)\n"}


def test_cvt_with_two_qualifiers() -> None:
    r = shape_of(("m.1", "award.award_winner.awards_won", "?y"),
                 ("?y", "award.award_honor.award", "m.2"),
                 ("?y", "award.award_honor.year", LIT),
                 ("?y", "award.award_honor.honored_for", "?a"), topics=("m.1",))
    assert (r.shape, r.subjects) == ("single", ("m.1",))
    assert sorted(r.qualifiers) == sorted(["m.2", LIT.key])


# -- path ------------------------------------------------------------------------------------------
def test_path_two_hops() -> None:
    r = shape_of(("m.0kgb085", "people.person.place_of_birth", "?y"),
                 ("?y", "location.location.containedby", "?a"))
    assert (r.shape, r.hops, r.subjects) == ("path", 2, ("m.0kgb085",))
    assert r.branches == (("m.0kgb085", "?y", "?a"),)


def test_path_with_a_cvt_hop() -> None:
    r = shape_of(("m.0kgb0h8", "film.film.directed_by", "?y"),
                 ("?y", "people.person.education", "?z"),
                 ("?z", "education.education.institution", "?a"))
    assert (r.shape, r.hops) == ("path", 2)
    assert r.branches == (("m.0kgb0h8", "?y", "?a"),)
    assert [h.via for h in r.hop_list] == [None, "?z"]


def test_path_cvt_first_hop_with_qualifier() -> None:
    r = shape_of(("m.1", "film.actor.film", "?y"), ("?y", "film.performance.film", "m.2"),
                 ("?y", "film.performance.character", "?c"),
                 ("?c", "fictional_universe.fictional_character.gender", "?a"), topics=("m.1",))
    assert (r.shape, r.hops, r.subjects, r.qualifiers) == ("path", 2, ("m.1",), ("m.2",))


def test_path_two_cvt_hops() -> None:
    r = shape_of(("m.1", "people.person.spouse_s", "?m"), ("?m", "people.marriage.spouse", "?s"),
                 ("?s", "people.person.education", "?e"),
                 ("?e", "education.education.institution", "?a"))
    assert (r.shape, r.hops) == ("path", 2)
    assert r.branches == (("m.1", "?s", "?a"),)


# -- tree ------------------------------------------------------------------------------------------
def test_tree_two_subjects() -> None:
    r = shape_of(("?a", "film.film.directed_by", "m.0kgb086"),
                 ("?a", "film.film.music", "m.0kgb09e"))
    assert (r.shape, r.hops) == ("tree", 1)
    assert r.subjects == ("m.0kgb086", "m.0kgb09e")
    assert r.branches == (("m.0kgb086", "?a"), ("m.0kgb09e", "?a"))


def test_tree_branches_through_cvts() -> None:
    r = shape_of(("?a", "film.film.starring", "?y"), ("?y", "film.performance.actor", "m.0kgb0am"),
                 ("?a", "film.film.starring", "?z"), ("?z", "film.performance.actor", "m.0kgb0ag"))
    assert (r.shape, r.hops) == ("tree", 1)
    assert set(r.subjects) == {"m.0kgb0am", "m.0kgb0ag"}
    assert {h.via for h in r.hop_list} == {"?y", "?z"}


def test_tree_one_cvt_branch_one_direct() -> None:
    r = shape_of(("?a", "film.film.directed_by", "m.0kgb086"), ("?a", "film.film.starring", "?y"),
                 ("?y", "film.performance.actor", "m.0kgb0b8"))
    assert (r.shape, r.hops, set(r.subjects)) == ("tree", 1, {"m.0kgb086", "m.0kgb0b8"})


# -- constraints do not change the shape -------------------------------------------------------------
def test_class_constraints_do_not_change_shape() -> None:
    r = shape_of(("?a", qg.TYPE_PREDICATE, "film.film"), ("m.1", "film.director.film", "?a"),
                 ("?y", qg.TYPE_PREDICATE, "people.person"))
    # ?y only has a class: it is a node with no edge, so the graph is not connected
    assert r.reason == "disconnected"
    r = shape_of(("?a", qg.TYPE_PREDICATE, "film.film"), ("m.1", "film.director.film", "?a"))
    assert (r.shape, r.subjects) == ("single", ("m.1",))
    r = shape_of(("m.1", "people.person.spouse_s", "?y"),
                 ("?y", qg.TYPE_PREDICATE, "people.marriage"),
                 ("?y", "x.y.z", "?a"), ("?a", qg.TYPE_PREDICATE, "people.person"))
    assert (r.shape, r.hops) == ("single", 1)   # the class makes ?y a CVT


def test_not_equal_filters_do_not_change_shape() -> None:
    base = (("m.1", "people.person.spouse_s", "?y"), ("?y", "people.marriage.spouse", "?a"))
    plain = shape_of(*base)
    for pairs in ([("?a", "m.1")], [("?a", "?y")], [("?a", "m.99")], [("?a", LIT)]):
        r = shape_of(*base, not_equal=pairs)
        assert (r.shape, r.subjects, r.hops) == (plain.shape, plain.subjects, plain.hops) == (
            "single", ("m.1",), 1)


def test_language_filter_does_not_change_shape() -> None:
    r = shape_of(("m.1", "p.q.r", "?a"), answer_languages=("en",))
    assert r.shape == "single"


# -- every reason ---------------------------------------------------------------------------------
def test_function_reasons() -> None:
    t = ("m.1", "p.q.r", "?a")
    assert reason_of(t, function="count") == "function_count"
    assert reason_of(t, function="argmax") == "function_superlative"
    assert reason_of(t, function="argmin") == "function_superlative"
    for op in ("<", "<=", ">", ">="):
        r = shape_of(t, function=op)
        assert (r.reason, r.detail) == ("function_comparative", f"comparative {op!r}")
    ordered = graph(t, ("?a", "p.q.s", "?d")).model_copy(
        update={"order": qg.OrderBy(node="?d", limit=1)})
    assert classify(ordered).reason == "function_superlative"


def test_literal_comparison() -> None:
    g = graph(("m.1", "p.q.r", "?a"), comparisons=[
        qg.Comparison(node="?a", op="<=", value="2015", predicate="p.q.from", if_present=True)])
    r = classify(g)
    assert (r.shape, r.reason, r.detail) == ("unsupported", "literal_comparison",
                                             "?a p.q.from <= 2015")
    g = graph(("m.1", "p.q.r", "?a"), ("?a", "p.q.s", "?b"),
              comparisons=[qg.Comparison(node="?a", op="!=", other="?b")])
    assert classify(g).detail == "?a != ?b"


def test_no_topic_entity() -> None:
    assert reason_of(("?a", "common.topic.alias", Literal("EU", lang="en"))) == "no_topic_entity"
    assert reason_of(("?y", "p.q.r", "?a")) == "no_topic_entity"
    # an entity that only a != filter names is no topic entity
    assert reason_of(("?a", "p.q.r", LIT), not_equal=[("?a", "m.1")]) == "no_topic_entity"


def test_literal_subject() -> None:
    r = shape_of(("m.1", "p.q.r", "?a"), ("?a", "p.q.born", LIT))
    assert (r.reason, r.detail) == ("literal_subject", "literal '1961'")


def test_too_many_hops() -> None:
    r = shape_of(("m.1", "p.q.r", "?v1"), ("?v1", "p.q.s", "?v2"), ("?v2", "p.q.t", "?a"))
    assert (r.reason, r.detail) == ("too_many_hops", "3 hops")
    # a CVT hop counts once: the same length through a CVT is a path
    assert shape_of(("m.1", "p.q.r", "?v1"), ("?v1", "people.person.spouse_s", "?m"),
                    ("?m", "people.marriage.spouse", "?a")).shape == "path"


def test_too_many_subjects() -> None:
    r = shape_of(("?a", "p.q.r", "m.1"), ("?a", "p.q.s", "m.2"), ("?a", "p.q.t", "m.3"))
    assert (r.reason, r.detail) == ("too_many_subjects", "3 subject entities")


def test_long_tree_branch() -> None:
    r = shape_of(("m.1", "p.q.r", "?v"), ("?v", "p.q.s", "?a"), ("?a", "p.q.t", "m.2"))
    assert (r.reason, r.detail) == ("long_tree_branch", "a branch of 2 hops")


def test_intermediate_constraint() -> None:
    r = shape_of(("m.1", "p.q.r", "?v"), ("?v", "p.q.s", "?a"), ("?v", "p.q.t", "m.2"))
    assert (r.reason, r.detail) == ("intermediate_constraint", "variable ?v has 3 neighbours")


@pytest.mark.parametrize("triples", [
    (("m.1", "p.q.r", "?a"), ("m.1", "p.q.s", "?a")),                       # two relations
    (("m.1", "p.q.r", "?a"), ("?a", "p.q.s", "?a")),                        # self loop
    (("m.1", "p.q.r", "?v"), ("?v", "p.q.s", "?a"), ("?a", "p.q.t", "m.1")),  # triangle
    (("m.1", "film.actor.film", "?y"), ("?y", "film.performance.film", "?a"),
     ("?a", "film.film.directed_by", "m.1")),                               # via a CVT
])
def test_cycle(triples: tuple[tuple[str, str, str], ...]) -> None:
    assert reason_of(*triples) == "cycle"


def test_disconnected() -> None:
    assert reason_of(("m.1", "p.q.r", "?a"), ("m.2", "p.q.s", "?b")) == "disconnected"


def test_dangling_variable() -> None:
    r = shape_of(("m.1", "p.q.r", "?a"), ("?a", "p.q.s", "?b"))
    assert (r.reason, r.detail) == ("dangling_variable", "variable ?b is a leaf")
    # a CVT with a single neighbour leads nowhere
    r = shape_of(("m.1", "p.q.r", "?a"), ("?y", "people.marriage.spouse", "?a"))
    assert (r.reason, r.detail) == ("dangling_variable", "CVT ?y leads nowhere")


def test_cvt_joins_variables() -> None:
    r = shape_of(("m.1", "people.person.spouse_s", "?y"), ("?y", "people.marriage.spouse", "?a"),
                 ("?y", "people.marriage.location", "?b"), ("?y", "people.marriage.type", "?c"))
    assert r.reason == "cvt_joins_variables"
    assert "?y joins" in (r.detail or "")
    r = shape_of(("m.1", "people.person.spouse_s", "?y"),
                 ("?y", "people.marriage.ceremony", "?z"),
                 ("?z", "film.performance.actor", "?a"))
    assert (r.reason, r.detail) == ("cvt_joins_variables", "CVT ?y is joined to another CVT")


def test_inner_constant() -> None:
    r = shape_of(("m.2", "p.q.r", "?v"), ("?v", "p.q.s", "m.1"), ("m.1", "p.q.t", "?a"))
    assert (r.reason, r.detail) == ("inner_constant", "constant m.1 has 2 neighbours")


def test_answer_is_cvt() -> None:
    g = qg.QueryGraph(nodes=(qg.QueryNode(id="m.1", kind="entity", value="m.1"),
                             qg.QueryNode(id="?a", kind="answer", is_cvt=True)),
                      edges=(qg.QueryEdge(source="m.1", predicate="people.person.spouse_s",
                                          target="?a"),),
                      answer="?a")
    assert classify(g).reason == "answer_is_cvt"


def test_reasons_classify_can_give_are_all_tested() -> None:
    produced = {"function_count", "function_superlative", "function_comparative",
                "literal_comparison", "no_topic_entity", "literal_subject", "too_many_hops",
                "too_many_subjects", "long_tree_branch", "intermediate_constraint", "cycle",
                "disconnected", "dangling_variable", "cvt_joins_variables", "inner_constant",
                "answer_is_cvt"}
    parse_only = {"unsupported_sparql", "sparql_syntax", "sparql_too_deep", "no_logical_form",
                  "invalid_logical_form"}
    assert set(REASONS) == produced | parse_only


def test_unsupported_helper() -> None:
    r = unsupported("cycle")
    assert (r.shape, r.reason, r.detail, r.supported) == (
        "unsupported", "cycle", REASONS["cycle"], False)
    assert unsupported("cycle", "why").detail == "why"
    with pytest.raises(ValueError, match="unknown reason code 'bogus'"):
        unsupported("bogus")


def test_contract_cvts() -> None:
    hops = contract_cvts(graph(*CORLEONE), ["m.04fd6x"])
    assert hops == [Hop(("m.04fd6x", "?a"), "?y", ("m.07g1sm",))]
    joined = contract_cvts(graph(("m.1", "people.person.spouse_s", "?y"),
                                 ("?y", "people.marriage.spouse", "?a"),
                                 ("?y", "people.marriage.location", "m.2"),
                                 ("?b", "p.q.r", "?y"), ("m.3", "p.q.s", "?b")))
    # a CVT between two variables: its constants are all qualifiers (in edge order)
    assert joined == [Hop(("m.3", "?b")), Hop(("?a", "?b"), "?y", ("m.1", "m.2"))]
    assert contract_cvts(graph(("m.1", "p.q.r", "?a"), ("?y", "people.marriage.spouse", "?a"))) \
        == unsupported("dangling_variable", "CVT ?y leads nowhere")


# -- the demo questions -----------------------------------------------------------------------
def test_demo_questions_get_their_listed_shape() -> None:
    import json

    path = REPO / "kgbench" / "demo" / "data" / "questions.jsonl"
    expected = {r["id"]: r["shape"] for r in map(json.loads, path.read_text().splitlines())}
    got = {q.id: parse_question(q) for q in read_kgqa_jsonl(path, strict=True)}
    assert len(got) == len(expected) == 15
    assert {i: p.shape for i, p in got.items()} == expected
    assert got["demo-002"].qualifiers == ("m.0kgb0iw",)
    assert got["demo-002"].topic_entities == ("m.0kgb0gd",)
    assert set(got["demo-012"].topic_entities) == {"m.0kgb0am", "m.0kgb0ag"}
    assert got["demo-011"].hops == 2
