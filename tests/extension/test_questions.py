"""KGQA questions -> parsed questions (extension.inputs.questions): parse choice, GrailQA
graph_query conversion and cross-check, JSONL triples, and the real WebQSP / GrailQA
files (skipped unless ``KGBENCH_EXTERNAL_DATA`` is set).

The external spot checks were verified by reading each question's SPARQL / s-expression
and the CAQA shape rules (extension.core.shapes) by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extension.core.query_graph import Comparison, OrderBy, QueryGraph
from extension.core.shapes import REASONS
from extension.inputs.questions import (
    ANSWER_VARIABLES,
    Answer,
    ParsedQuestion,
    cross_check,
    grailqa_literal,
    graph_query_to_graph,
    parse_question,
    triples_to_graph,
)
from kgstore.models import Literal
from loaders.kgqa import (
    GoldAnswer,
    KGQAQuestion,
    LogicalForm,
    read_grailqa,
    read_kgqa_jsonl,
    read_webqsp,
)
from tests.extension.test_sparql import GRAIL_SINGLE, grailqa, webqsp
from tests.external import external_path as _external

XSD = "http://www.w3.org/2001/XMLSchema#"
CVT = frozenset({"film.performance", "people.marriage"})

SINGLE = webqsp("ns:m.03_r3 ns:location.country.languages_spoken ?x .")
UNION = webqsp("{ ns:m.1 ns:a.b.c ?x } UNION { ns:m.1 ns:a.b.d ?x }")
CVT_SINGLE = webqsp("ns:m.01_2n ns:tv.tv_program.regular_cast ?y .\n"
                    "?y ns:film.performance.character ns:m.015lwh .\n"
                    "?y ns:film.performance.actor ?x .")


def form(fid: str, sparql: str | None = None, **kw: Any) -> LogicalForm:
    return LogicalForm(id=fid, sparql=sparql, **kw)


def question(*forms: LogicalForm, dataset: str = "webqsp") -> KGQAQuestion:
    return KGQAQuestion("Q1", "what?", dataset, forms)


def edges(g: QueryGraph | None) -> set[tuple[str, str, str]]:
    assert g is not None
    return {(e.source, e.predicate, e.target) for e in g.edges}


# -- parse choice ------------------------------------------------------------------------------
def test_first_supported_parse_is_kept() -> None:
    q = question(form("P0", UNION), form("P1", SINGLE, topic_entities=(("m.03_r3", "Jamaica"),)),
                 form("P2", CVT_SINGLE))
    p = parse_question(q, cvt_types=CVT)
    assert (p.shape, p.parse_id) == ("single", "P1")
    assert [(a.parse_id, a.shape, a.reason) for a in p.parses] == [
        ("P0", "unsupported", "unsupported_sparql"), ("P1", "single", None)]   # P2 not tried
    assert edges(p.query) == {("m.03_r3", "location.country.languages_spoken", "?x")}
    assert p.query is not None and p.query.node("m.03_r3").name == "Jamaica"
    assert (p.reason, p.reason_detail, p.topic_entities, p.hops) == (None, None, ("m.03_r3",), 1)


def test_no_supported_parse_keeps_the_first() -> None:
    time_parse = webqsp("ns:m.1 ns:a.b.c ?x .\n?x ns:a.b.d ?d .\n"
                        'FILTER(?d > "2000"^^xsd:gYear)')
    q = question(form("P0", time_parse, topic_entities=(("m.1", None),)),
                 form("P1", UNION, topic_entities=(("m.2", None),)))
    p = parse_question(q)
    assert (p.shape, p.reason, p.parse_id) == ("unsupported", "literal_comparison", "P0")
    assert p.reason_detail == "?d > 2000"
    assert [(a.parse_id, a.reason) for a in p.parses] == [("P0", "literal_comparison"),
                                                         ("P1", "unsupported_sparql")]
    assert p.query is not None and p.query.comparisons[0].op == ">"
    assert p.topic_entities == ("m.1",)   # the dataset's annotation of the kept parse


def test_unparsed_first_parse_has_no_query() -> None:
    p = parse_question(question(form("P0", UNION, topic_entities=(("m.1", "One"),))))
    assert (p.shape, p.reason, p.query, p.topic_entities) == (
        "unsupported", "unsupported_sparql", None, ("m.1",))
    assert p.reason_detail == "unsupported SPARQL feature: UNION"


def test_syntax_error_reason_carries_parser_message() -> None:
    p = parse_question(question(form("P0", "SELECT ?x WHERE { ns:m.1 ns:a.b.c ?x ")))
    assert p.reason == "sparql_syntax"
    assert p.reason_detail is not None and p.reason_detail.startswith("SPARQL syntax error: ")


def test_no_parses_and_empty_parse() -> None:
    p = parse_question(question())
    assert (p.shape, p.reason, p.parse_id, p.query, p.parses) == (
        "unsupported", "no_logical_form", None, None, ())
    p = parse_question(question(form("P0")))   # WebQSP partial files: Sparql null
    assert (p.shape, p.reason, p.parse_id) == ("unsupported", "no_logical_form", "P0")
    assert [a.reason for a in p.parses] == ["no_logical_form"]


def test_answers_and_topic_names() -> None:
    f = form("P0", CVT_SINGLE, topic_entities=(("m.01_2n", "Coronation Street"),),
             constraints=({"ArgumentType": "Entity", "Argument": "m.015lwh",
                           "EntityName": "Ken Barlow"},),
             answers=(GoldAnswer("entity", "m.01j_gs", "William Roache"),
                      GoldAnswer("value", "1960", None, XSD + "gYear")))
    p = parse_question(question(f))
    assert (p.shape, p.topic_entities, p.qualifiers) == ("single", ("m.01_2n",), ("m.015lwh",))
    assert p.answers == (Answer(kind="entity", value="m.01j_gs", name="William Roache"),
                         Answer(kind="value", value="1960", datatype=XSD + "gYear"))
    assert p.query is not None
    assert p.query.node("m.015lwh").name == "Ken Barlow"
    assert p.query.node("m.01_2n").name == "Coronation Street"
    # the default CVT types are the curated mediator list: film.performance is one
    assert p.query.node("?y").is_cvt


def test_cvt_types_can_be_overridden() -> None:
    p = parse_question(question(form("P0", CVT_SINGLE)), cvt_types=frozenset())
    # ?y is then a plain variable with three neighbours
    assert (p.shape, p.reason) == ("unsupported", "intermediate_constraint")
    assert p.query is not None and not p.query.node("?y").is_cvt


def test_parsed_question_json_round_trip() -> None:
    p = parse_question(question(form("P0", CVT_SINGLE, answers=(
        GoldAnswer("entity", "m.01j_gs", "William Roache"),))))
    again = ParsedQuestion.model_validate_json(p.model_dump_json())
    assert again == p
    data = json.loads(p.model_dump_json())
    assert data["shape"] == "single" and data["query"]["answer"] == "?x"
    assert data["parses"] == [{"parse_id": "P0", "shape": "single", "reason": None}]


# -- GrailQA graph_query --------------------------------------------------------------------------
def gq_node(nid: int, node_type: str, nid_id: str, *, cls: str = "", question_node: int = 0,
            function: str = "none", friendly_name: str = "") -> dict[str, Any]:
    return {"nid": nid, "node_type": node_type, "id": nid_id, "class": cls or nid_id,
            "friendly_name": friendly_name or nid_id, "question_node": question_node,
            "function": function}


def gq_edge(start: int, end: int, relation: str) -> dict[str, Any]:
    return {"start": start, "end": end, "relation": relation, "friendly_name": relation}


PLAY = {"nodes": [gq_node(0, "class", "theater.play", question_node=1),
                  gq_node(1, "entity", "m.0yrlqjm", cls="theater.production",
                          friendly_name="The Illusion")],
        "edges": [gq_edge(0, 1, "theater.play.productions")]}
PLAY_SPARQL = GRAIL_SINGLE   # the same question's sparql_query


def court(function: str) -> dict[str, Any]:
    """GrailQA 3200648015000's graph query: a court founded first/last."""
    return {"nodes": [gq_node(0, "class", "law.court", question_node=1),
                      gq_node(1, "literal", "0^^" + XSD + "int", cls="type.datetime",
                              function=function),
                      gq_node(2, "entity", "m.05vm39")],
            "edges": [gq_edge(0, 1, "law.court.founded"),
                      gq_edge(2, 0, "law.court.inferior_courts")]}


def test_graph_query_classes_answer_entities() -> None:
    g = graph_query_to_graph(PLAY)
    assert g.answer == "?x0"
    assert g.node("?x0").kind == "answer" and g.node("?x0").classes == ("theater.play",)
    assert g.node("m.0yrlqjm").kind == "entity" and g.node("m.0yrlqjm").name == "The Illusion"
    assert edges(g) == {("?x0", "theater.play.productions", "m.0yrlqjm")}
    assert (g.function, g.order, g.comparisons) == ("none", None, ())


def test_graph_query_intermediate_class_node_and_cvt() -> None:
    gq = {"nodes": [gq_node(0, "class", "film.actor", question_node=1),
                    gq_node(1, "class", "film.performance"),
                    gq_node(2, "entity", "m.07g1sm")],
          "edges": [gq_edge(0, 1, "film.actor.film"), gq_edge(1, 2, "film.performance.film")]}
    g = graph_query_to_graph(gq, cvt_types=CVT)
    assert g.node("?x1").kind == "variable" and g.node("?x1").is_cvt
    assert g.node("?x1").classes == ("film.performance",)
    assert edges(g) == {("?x0", "film.actor.film", "?x1"), ("?x1", "film.performance.film", "m.07g1sm")}


def test_graph_query_literal_constant() -> None:
    gq = {"nodes": [gq_node(0, "class", "broadcast.internet_stream", question_node=1),
                    gq_node(1, "literal", "39^^" + XSD + "integer", cls="type.int")],
          "edges": [gq_edge(0, 1, "broadcast.internet_stream.stream_bitrate")]}
    g = graph_query_to_graph(gq)
    lit = Literal("39", "xsd:integer")
    assert edges(g) == {("?x0", "broadcast.internet_stream.stream_bitrate", lit.key)}
    assert g.node(lit.key).kind == "literal" and g.node(lit.key).literal() == lit


def test_graph_query_argmax_literal_is_the_ordered_variable() -> None:
    g = graph_query_to_graph(court("argmax"))
    assert g.node("?x1").kind == "variable"
    assert g.function == "argmax"
    assert g.order == OrderBy(node="?x1", descending=True, limit=1)
    assert edges(g) == {("?x0", "law.court.founded", "?x1"),
                        ("m.05vm39", "law.court.inferior_courts", "?x0")}
    g = graph_query_to_graph(court("argmin"))
    assert (g.function, g.order) == ("argmin", OrderBy(node="?x1", descending=False, limit=1))


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_graph_query_comparative(op: str) -> None:
    gq = {"nodes": [gq_node(0, "class", "cvg.musical_game_song", question_node=1),
                    gq_node(1, "literal", "2008-05-08^^" + XSD + "date", function=op),
                    gq_node(2, "entity", "m.0fq74z3")],
          "edges": [gq_edge(0, 1, "cvg.musical_game_song.release_date"),
                    gq_edge(0, 2, "cvg.musical_game_song.games")]}
    g = graph_query_to_graph(gq, function=op)
    assert g.comparisons == (Comparison(node="?x1", op=op, value="2008-05-08",  # type: ignore[arg-type]
                                        datatype="xsd:date"),)
    assert g.function == op
    assert g.node("?x1").kind == "variable"


def test_graph_query_count() -> None:
    gq = {"nodes": [gq_node(0, "class", "opera.librettist", question_node=1, function="count"),
                    gq_node(1, "entity", "m.05ssz1")],
          "edges": [gq_edge(1, 0, "opera.opera.librettist")]}
    assert graph_query_to_graph(gq).function == "count"
    gq["nodes"][0]["function"] = "none"
    assert graph_query_to_graph(gq).function == "none"
    assert graph_query_to_graph(gq, function="count").function == "count"


def test_graph_query_errors() -> None:
    with pytest.raises(ValueError, match="no question_node"):
        graph_query_to_graph({"nodes": [gq_node(0, "class", "a.b")], "edges": []})
    bad = {"nodes": [gq_node(0, "class", "a.b", question_node=1), gq_node(1, "relation", "x")],
           "edges": []}
    with pytest.raises(ValueError, match="unknown GrailQA node_type 'relation'"):
        graph_query_to_graph(bad)
    with pytest.raises(KeyError):
        graph_query_to_graph({"nodes": [gq_node(0, "class", "a.b", question_node=1)],
                              "edges": [gq_edge(0, 7, "a.b.c")]})


def test_invalid_graph_query_is_a_reason() -> None:
    p = parse_question(question(form("1", graph_query={"nodes": [gq_node(0, "class", "a.b")],
                                                       "edges": []}), dataset="grailqa"))
    assert (p.shape, p.reason) == ("unsupported", "invalid_logical_form")
    assert p.reason_detail == "graph_query has no question_node"


def test_grailqa_literal() -> None:
    assert grailqa_literal("1990^^" + XSD + "gYear") == Literal("1990", "xsd:gYear")
    assert grailqa_literal('"2011-02-14"^^' + XSD + "date") == Literal("2011-02-14", "xsd:date")
    assert grailqa_literal("plain") == Literal("plain")


# -- cross-check ------------------------------------------------------------------------------
def test_cross_check_agree() -> None:
    assert cross_check(graph_query_to_graph(PLAY), PLAY_SPARQL, frozenset()) == ("agree", None)
    p = parse_question(question(form("2101960008000", PLAY_SPARQL, graph_query=PLAY,
                                     topic_entities=(("m.0yrlqjm", "The Illusion"),)),
                                dataset="grailqa"))
    assert (p.shape, p.cross_check, p.cross_check_detail) == ("single", "agree", None)


def test_cross_check_differ() -> None:
    other = PLAY_SPARQL.replace(":theater.play.productions", ":theater.play.premiere")
    check, detail = cross_check(graph_query_to_graph(PLAY), other, frozenset())
    assert check == "differ"
    assert detail == ("edges: graph_query [('?x0', 'theater.play.productions', 'm.0yrlqjm')], "
                      "sparql_query [('?x0', 'theater.play.premiere', 'm.0yrlqjm')]")
    other = PLAY_SPARQL.replace(":type.object.type :theater.play", ":type.object.type :theater.x")
    check, detail = cross_check(graph_query_to_graph(PLAY), other, frozenset())
    assert check == "differ" and detail is not None and detail.startswith("classes: ")


def test_cross_check_superlative_compares_predicates() -> None:
    sparql = grailqa("""?x0 :type.object.type :law.court .
{ SELECT (MIN(?y1) AS ?x1)  WHERE {
?y0 :type.object.type :law.court . VALUES ?y2 { :m.05vm39 }
?y0 :law.court.founded ?y1 . ?y2 :law.court.inferior_courts ?y0 . } }
VALUES ?x2 { :m.05vm39 }
?x0 :law.court.founded ?x1 . ?x2 :law.court.inferior_courts ?x0 .""")
    g = graph_query_to_graph(court("argmin"))
    assert cross_check(g, sparql, frozenset()) == ("agree", None)
    check, detail = cross_check(g, sparql.replace("law.court.founded", "law.court.opened"),
                                frozenset())
    assert check == "differ" and detail is not None and detail.startswith("predicates: ")


def test_cross_check_sparql_failed() -> None:
    check, detail = cross_check(graph_query_to_graph(PLAY), UNION, frozenset())
    assert (check, detail) == ("sparql_failed", "unsupported SPARQL feature: UNION")
    p = parse_question(question(form("1", UNION, graph_query=PLAY), dataset="grailqa"))
    assert (p.shape, p.cross_check) == ("single", "sparql_failed")   # graph_query wins


def test_no_cross_check_without_sparql() -> None:
    p = parse_question(question(form("1", graph_query=PLAY), dataset="grailqa"))
    assert (p.shape, p.cross_check, p.cross_check_detail) == ("single", "not_checked", None)


# -- JSONL triples ------------------------------------------------------------------------------
def test_triples_with_literals() -> None:
    g = triples_to_graph([("m.02mjmr", "people.person.date_of_birth", '"1961"^^xsd:gYear'),
                          ("m.02mjmr", "common.topic.alias", '"Barry"@en'),
                          ("m.02mjmr", "x.y.z", '"7"^^<' + XSD + "int>"),
                          ("m.02mjmr", "x.y.w", '"plain text"'),
                          ("m.02mjmr", "people.person.children", "?a")])
    year, alias = Literal("1961", "xsd:gYear"), Literal("Barry", lang="en")
    seven, plain = Literal("7", "xsd:int"), Literal("plain text")
    assert edges(g) == {("m.02mjmr", "people.person.date_of_birth", year.key),
                        ("m.02mjmr", "common.topic.alias", alias.key),
                        ("m.02mjmr", "x.y.z", seven.key), ("m.02mjmr", "x.y.w", plain.key),
                        ("m.02mjmr", "people.person.children", "?a")}
    assert g.node(year.key).literal() == year
    assert g.node(alias.key).literal() == alias
    assert g.node(seven.key).datatype == "xsd:int"
    assert g.node(plain.key).value == "plain text"


@pytest.mark.parametrize("variables, answer", [
    (("?x", "?a", "?answer"), "?a"),
    (("?answer", "?x", "?y"), "?x"),
    (("?answer", "?y"), "?answer"),
])
def test_answer_variable_preference(variables: tuple[str, ...], answer: str) -> None:
    triples = [("m.1", f"p.q.r{i}", v) for i, v in enumerate(variables)]
    assert triples_to_graph(triples).answer == answer
    assert ANSWER_VARIABLES == ("?a", "?x", "?answer")


def test_explicit_answer_and_no_answer_variable() -> None:
    assert triples_to_graph([("m.1", "p.q.r", "?who")], answer="who").answer == "?who"
    with pytest.raises(ValueError, match=r"no answer variable: use one of \?a, \?x, \?answer"):
        triples_to_graph([("m.1", "p.q.r", "?who")])
    p = parse_question(question(form("J1", triples=(("m.1", "p.q.r", "?who"),)),
                                dataset="jsonl"))
    assert (p.shape, p.reason) == ("unsupported", "invalid_logical_form")
    assert p.reason_detail is not None and "no answer variable" in p.reason_detail


def test_jsonl_file_triples_and_sparql(tmp_path: Path) -> None:
    records = [
        {"id": "t1", "question": "who did obama marry?", "answers": ["m.025s5v9"],
         "topic_entities": [["m.02mjmr", "Barack Obama"]],
         "triples": [["m.02mjmr", "people.person.spouse_s", "?y"],
                     ["?y", "people.marriage.spouse", "?a"],
                     ["?y", "people.marriage.from", '"1992-10-03"^^xsd:date']]},
        {"id": "t2", "question": "when was obama born?",
         "answers": [{"kind": "value", "value": "1961-08-04", "datatype": "xsd:date"}],
         "sparql": webqsp("ns:m.02mjmr ns:people.person.date_of_birth ?x .")},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    got = {q.id: parse_question(q) for q in read_kgqa_jsonl(path, strict=True)}
    t1 = got["t1"]
    assert (t1.shape, t1.topic_entities, t1.dataset) == ("single", ("m.02mjmr",), "jsonl")
    assert t1.qualifiers == (Literal("1992-10-03", "xsd:date").key,)
    assert t1.query is not None and t1.query.node("m.02mjmr").name == "Barack Obama"
    t2 = got["t2"]
    assert (t2.shape, t2.answers) == ("single", (Answer(kind="value", value="1961-08-04",
                                                        datatype="xsd:date"),))


# -- external data --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def webqsp_parsed() -> dict[str, ParsedQuestion]:
    paths = [_external("webqsp", "WebQSP.train.json"), _external("webqsp", "WebQSP.test.json")]
    return {q.id: parse_question(q) for path in paths for q in read_webqsp(path, strict=True)}


@pytest.fixture(scope="module")
def grailqa_parsed() -> dict[str, ParsedQuestion]:
    path = _external("grailqa", "ToG_graliqa_1000.json")
    return {q.id: parse_question(q) for q in read_grailqa(path, strict=True)}


def _check_all_classified(parsed: dict[str, ParsedQuestion]) -> None:
    for p in parsed.values():
        if p.shape == "unsupported":
            assert p.reason in REASONS, p.id
            assert p.reason_detail, p.id
        else:
            assert p.shape in ("single", "path", "tree"), p.id
            assert p.reason is None and p.query is not None, p.id
            assert p.topic_entities and 1 <= p.hops <= 2, p.id
            assert (p.shape == "tree") == (len(p.topic_entities) == 2), p.id
            assert (p.shape == "path") == (p.hops == 2), p.id
        assert p.parses or p.reason == "no_logical_form", p.id


@pytest.mark.slow
@pytest.mark.external
def test_real_webqsp_all_classified(webqsp_parsed: dict[str, ParsedQuestion]) -> None:
    assert len(webqsp_parsed) == 4737
    _check_all_classified(webqsp_parsed)
    shapes = [p.shape for p in webqsp_parsed.values()]
    # most WebQSP questions are single-relation (through CVTs); a few per cent are trees
    assert shapes.count("single") > 3000 and shapes.count("tree") > 100
    assert shapes.count("unsupported") < 1000


@pytest.mark.slow
@pytest.mark.external
def test_real_grailqa_all_classified(grailqa_parsed: dict[str, ParsedQuestion]) -> None:
    assert len(grailqa_parsed) == 1000
    _check_all_classified(grailqa_parsed)
    checks = [p.cross_check for p in grailqa_parsed.values()]
    assert checks.count("sparql_failed") == 0
    # the only disagreements: SPARQL dates carry a -08:00 timezone the graph_query lacks
    assert sorted(i for i, p in grailqa_parsed.items() if p.cross_check == "differ") == [
        "2100867008000", "2102105007000"]
    functions = [p.reason for p in grailqa_parsed.values()]
    assert functions.count("function_count") == 3             # GrailQA 'count'
    assert functions.count("function_superlative") == 18      # 17 argmax + 1 argmin
    assert functions.count("function_comparative") == 7       # 5 '<=', 1 '>=', 1 '>'


def _spot(parsed: dict[str, ParsedQuestion], qid: str, question: str, shape: str,
          reason: str | None, topics: tuple[str, ...], answers: set[str]) -> ParsedQuestion:
    p = parsed[qid]
    assert p.question == question
    assert (p.shape, p.reason) == (shape, reason)
    assert p.topic_entities == topics
    assert {a.value for a in p.answers} == answers
    return p


@pytest.mark.slow
@pytest.mark.external
def test_real_webqsp_spot_checks(webqsp_parsed: dict[str, ParsedQuestion]) -> None:
    w = webqsp_parsed
    # 1. one relation from Jamaica
    p = _spot(w, "WebQTest-0", "what does jamaican people speak?", "single", None,
              ("m.03_r3",), {"m.01428y", "m.04ygk0"})
    assert edges(p.query) == {("m.03_r3", "location.country.languages_spoken", "?x")}
    assert p.query is not None and p.query.answer_languages == ("en",)
    # 2. through a CVT, the character (Ken Barlow) a qualifier
    p = _spot(w, "WebQTest-3", "who plays ken barlow in coronation street?", "single", None,
              ("m.01_2n",), {"m.01j_gs"})
    assert (p.qualifiers, p.hops) == (("m.015lwh",), 1)
    # 3. a time constraint on the roster CVT
    p = _spot(w, "WebQTrn-6", "who does joakim noah play for?", "unsupported",
              "literal_comparison", ("m.0c2yrf",), {"m.0jm74"})
    assert p.query is not None
    assert [(c.node, c.op, c.predicate, c.if_present) for c in p.query.comparisons] == [
        ("?y", "<=", "sports.sports_team_roster.from", True),
        ("?y", ">=", "sports.sports_team_roster.to", True)]
    # 4. ORDER BY ?d LIMIT 1: a superlative
    p = _spot(w, "WebQTrn-17", "which kennedy died first?", "unsupported",
              "function_superlative", ("m.0d3k14",), {"m.020t1x"})
    assert p.query is not None and p.query.order == OrderBy(node="?d", limit=1)
    # 5. a 2-hop path without a CVT: children -> date_of_birth
    p = _spot(w, "WebQTrn-2447", "when were the duggar kids born?", "path", None,
              ("m.089twl",), {a.value for a in w["WebQTrn-2447"].answers})
    assert edges(p.query) == {("m.089twl", "people.person.children", "?z"),
                              ("?z", "people.person.date_of_birth", "?x")}
    assert len(p.answers) > 10 and all(a.kind == "value" for a in p.answers)
    # 6. a path whose first hop passes a CVT (government_position_held)
    p = _spot(w, "WebQTrn-2559", "what type of political system is headed by queen elizabeth ii?",
              "path", None, ("m.0d1_f",), {a.value for a in w["WebQTrn-2559"].answers})
    assert {"m.014j8_", "m.0163hx", "m.018wl5"} <= {a.value for a in p.answers}
    assert p.hops == 2 and p.query is not None and p.query.node("?y1").is_cvt
    # 7. a tree: Henry VIII's marriage CVT (type of union a qualifier) and the cause of death
    p = _spot(w, "WebQTrn-30", "which wife did king henry behead?", "tree", None,
              ("m.03p77", "m.0jb19"), {"m.09sxn", "m.0crdw"})
    assert p.qualifiers == ("m.04ztj",)
    # 8. != naming an entity outside the patterns does not disconnect the graph
    p = _spot(w, "WebQTest-38", "who did george w. bush run against for the second term?",
              "path", None, ("m.04qwhs",), {"m.033tf9", "m.03vyyd", "m.06dnh", "m.0d3qd0"})
    assert p.query is not None and p.query.not_equal == (("?x", "m.09b6zr"),)
    # 9. UNION
    p = _spot(w, "WebQTrn-74", "when did the colorado rockies go to the world series?",
              "unsupported", "unsupported_sparql", tuple(e for e in w["WebQTrn-74"].topic_entities),
              {a.value for a in w["WebQTrn-74"].answers})
    assert p.reason_detail == "unsupported SPARQL feature: UNION" and p.query is None
    # 10. Ron Howard both starts the path and constrains the answer: a cycle
    _spot(w, "WebQTrn-2536", "what did ron howard direct?", "unsupported", "cycle", ("m.0g2lq",),
          {"m.02mh4b", "m.02yf34", "m.09m6kg", "m.0crrc8"})
    # 11. a constant-free query (alias literal only)
    _spot(w, "WebQTrn-1466", "what does the letters eu stand for?", "unsupported",
          "no_topic_entity", (), {"m.0_6t_z8", "m.01sxhr", "m.06hgr5"})


@pytest.mark.slow
@pytest.mark.external
def test_real_grailqa_spot_checks(grailqa_parsed: dict[str, ParsedQuestion]) -> None:
    g = grailqa_parsed
    # 1. (AND theater.play (JOIN theater.play.productions m.0yrlqjm))
    p = _spot(g, "2101960008000", "which play is produced by the illusion?", "single", None,
              ("m.0yrlqjm",), {"m.0yrltsn"})
    assert p.cross_check == "agree"
    assert p.query is not None and p.query.node("?x0").classes == ("theater.play",)
    # 2. two software genres converge on the answer
    p = _spot(g, "3200562005000",
              "what software has genres that include microsoft outlook and feed reader?", "tree",
              None, ("m.017xgd", "m.075x5v"), {"m.017xch", "m.0gd_9"})
    assert edges(p.query) == {("?x0", "computer.software.software_genre", "m.017xgd"),
                              ("?x0", "computer.software.software_genre", "m.075x5v")}
    # 3. a 2-hop path (R visual_art.artwork.period_or_movement) (R ...artworks)
    p = _spot(g, "3205293013000", "crayons has artworks from which period/movement?", "path",
              None, ("m.0ckdv",), {"m.0nk1p"})
    assert p.hops == 2
    # 4. ARGMIN ... law.court.founded
    p = _spot(g, "3200648015000",
              "what court is inferior to the caribbean court of justice and was founded first?",
              "unsupported", "function_superlative", ("m.05vm39",), {"m.08059cj"})
    assert p.query is not None and p.query.function == "argmin"
    assert p.query.order == OrderBy(node="?x1", limit=1)
    assert p.cross_check == "agree"
    # 5. COUNT
    p = _spot(g, "2105436005000", "the il turco in italia opera has how many librettists?",
              "unsupported", "function_count", ("m.05ssz1",), {"1"})
    assert p.answers[0].kind == "value"
    # 6. a comparative on a literal (ge ... end_base 20299592)
    p = _spot(g, "4302525008000", "chromosome 20 (human) has the same band as what genomic "
              "locus with an end base over 20299592?", "unsupported", "function_comparative",
              ("m.02kwgm0",), {a.value for a in g["4302525008000"].answers})
    assert len(p.answers) == 409
    assert p.query is not None and p.query.comparisons == (
        Comparison(node="?x1", op=">=", value="20299592", datatype="xsd:integer"),)
    # 7. a path through a CVT: fornax -> (constellation_bordering_relationship CVT) ->
    # constellation -> star is two hops, the CVT hop counting once
    p = _spot(g, "4300899014000",
              "what star can be found in a constellation whose location is by fornax?",
              "path", None, ("m.02_08",),
              {a.value for a in g["4300899014000"].answers})
    assert p.hops == 2
    # 8. two constraints on the intermediate game version
    _spot(g, "4301141017000", "in what countries is the version developed by calaris studios "
          "and distributed through wii ware released?", "unsupported", "intermediate_constraint",
          ("m.03hfyj6", "m.0fpnfkn"), {"m.075g54v"})
    # 9. a tree with a 2-hop branch
    _spot(g, "4300140008000", "what is the name of the religion that is part of abrahamic "
          "faiths and has same practices with protestantism?", "unsupported", "long_tree_branch",
          ("m.0f_h6", "m.05sfs"), {"m.01lp8", "m.03_gx"})
    # 10. only a literal constant: "39"^^xsd:integer
    p = _spot(g, "2101016015000", "which streams have a bit rate of 39?", "unsupported",
              "no_topic_entity", (), {"m.03gc609"})
    assert p.query is not None and p.query.entity_ids() == []
