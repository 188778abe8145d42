"""KGQA question readers: WebQSP, GrailQA and generic JSONL (loaders.kgqa).

Every input is written by the test itself; the real WebQSP and GrailQA files are read
in place and skipped when ``KGBENCH_EXTERNAL_DATA`` is unset.
"""

from __future__ import annotations

import bz2
import gzip
import json
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from loaders.errors import InputFileError, LoaderError, MalformedRecordError
from loaders.kgqa import (
    GoldAnswer,
    KGQAQuestion,
    LogicalForm,
    ReadIssue,
    detect_question_format,
    read_grailqa,
    read_kgqa_jsonl,
    read_questions,
    read_webqsp,
)
from tests.external import external_path as _external

REPO = Path(__file__).resolve().parents[2]
XSD = "http://www.w3.org/2001/XMLSchema#"


# -- helpers ----------------------------------------------------------------------------------
def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def write_json(tmp_path: Path, name: str, data: Any) -> Path:
    return write(tmp_path, name, json.dumps(data, indent=2))


def write_jsonl(tmp_path: Path, name: str, records: list[Any]) -> Path:
    return write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in records))


def compress(path: Path, suffix: str) -> Path:
    """A copy of ``path`` compressed as ``suffix`` (.gz, .bz2 or .zst)."""
    data = path.read_bytes()
    if suffix == ".gz":
        packed = gzip.compress(data)
    elif suffix == ".bz2":
        packed = bz2.compress(data)
    else:
        zstandard = pytest.importorskip("zstandard")
        packed = zstandard.ZstdCompressor().compress(data)
    out = path.with_name(path.name + suffix)
    out.write_bytes(packed)
    return out


def assert_file_error(read: Callable[[Path], object], path: Path, problem: str) -> None:
    """``read(path)`` raises InputFileError naming ``path``, its problem containing ``problem``."""
    with pytest.raises(InputFileError) as info:
        read(path)
    assert info.value.path == str(path)
    assert problem in info.value.problem


def wq_parse(n: int = 0, qid: str = "WebQTrn-1", **fields: Any) -> dict[str, Any]:
    """A WebQSP parse shaped like the official file; ``fields`` override."""
    parse = {
        "ParseId": f"{qid}.P{n}",
        "AnnotatorId": 1,
        "AnnotatorComment": {"ParseQuality": "Complete"},
        "Sparql": "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x\nWHERE {\n"
                  "ns:m.06w2sn5 ns:people.person.sibling_s ?y .\n"
                  "?y ns:people.sibling_relationship.sibling ?x .\n}\n",
        "PotentialTopicEntityMention": "justin bieber",
        "TopicEntityName": "Justin Bieber",
        "TopicEntityMid": "m.06w2sn5",
        "InferentialChain": ["people.person.sibling_s", "people.sibling_relationship.sibling"],
        "Constraints": [],
        "Time": None,
        "Order": None,
        "Answers": [{"AnswerType": "Entity", "AnswerArgument": "m.0gxnnwc",
                     "EntityName": "Jazmyn Bieber"}],
    }
    parse.update(fields)
    return parse


def wq_question(qid: str = "WebQTrn-1", parses: list[Any] | None = None,
                **fields: Any) -> dict[str, Any]:
    question = {
        "QuestionId": qid,
        "RawQuestion": "what is the name of justin bieber brother?",
        "ProcessedQuestion": "what is the name of justin bieber brother",
        "Parses": [wq_parse(qid=qid)] if parses is None else parses,
    }
    question.update(fields)
    return question


def wq_file(tmp_path: Path, questions: list[Any], name: str = "webqsp.json") -> Path:
    return write_json(tmp_path, name, {"Version": "1.0", "FreebaseVersion": "2015-08-09",
                                       "Questions": questions})


def only_parse(questions: Iterable[KGQAQuestion]) -> LogicalForm:
    """The parse of the one question read (fails unless there is exactly one of each)."""
    [question] = questions
    [parse] = question.parses
    return parse


def one_webqsp(tmp_path: Path, **fields: Any) -> LogicalForm:
    """The parse of a one-question WebQSP file whose parse has ``fields``."""
    return only_parse(read_webqsp(wq_file(tmp_path, [wq_question(parses=[wq_parse(**fields)])])))


def gq_record(qid: Any = 2101960008000, **fields: Any) -> dict[str, Any]:
    """A GrailQA record shaped like the ToG dev file; ``fields`` override."""
    record = {
        "qid": qid,
        "question": "which play is produced by the illusion?",
        "answer": [{"answer_type": "Entity", "answer_argument": "m.0yrltsn",
                    "entity_name": "The Illusion"}],
        "function": "none",
        "num_node": 2,
        "num_edge": 1,
        "graph_query": {
            "nodes": [
                {"nid": 0, "node_type": "class", "id": "theater.play", "class": "theater.play",
                 "friendly_name": "Play", "question_node": 1, "function": "none"},
                {"nid": 1, "node_type": "entity", "id": "m.0yrlqjm",
                 "class": "theater.theater_production", "friendly_name": "The Illusion",
                 "question_node": 0, "function": "none"},
            ],
            "edges": [{"start": 0, "end": 1, "relation": "theater.play.productions",
                       "friendly_name": "Productions"}],
        },
        "sparql_query": "PREFIX : <http://rdf.freebase.com/ns/> SELECT (?x0 AS ?value) WHERE "
                        "{ ?x0 :theater.play.productions :m.0yrlqjm . }",
        "domains": ["theater"],
        "level": "i.i.d.",
        "s_expression": "(AND theater.play (JOIN theater.play.productions m.0yrlqjm))",
        "topic_entity": {"m.0yrlqjm": "The Illusion"},
    }
    record.update(fields)
    return record


def one_grailqa(tmp_path: Path, **fields: Any) -> LogicalForm:
    return only_parse(read_grailqa(write_json(tmp_path, "g.json", [gq_record(**fields)])))


def jl_record(rid: str = "q1", **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"id": rid, "question": "who directed the godfather?",
                              "answers": ["m.0kgb085"],
                              "sparql": "SELECT ?x WHERE { ns:m.0kgb0gd ns:film.film.directed_by ?x }"}
    record.update(fields)
    return record


def one_jsonl(tmp_path: Path, **fields: Any) -> LogicalForm:
    return only_parse(read_kgqa_jsonl(write_jsonl(tmp_path, "q.jsonl", [jl_record(**fields)])))


# -- WebQSP -----------------------------------------------------------------------------------
def test_webqsp_fields(tmp_path: Path) -> None:
    time = {"Start": "2010-01-01", "End": "2010-12-31", "PathFromTopicNode": ["x.y"]}
    order = {"SortOn": "film.film.initial_release_date", "SortOrder": "Ascending",
             "Start": 0, "Count": 1, "NodePredicate": "film.film.initial_release_date"}
    constraint = {"Operator": "Equal", "ArgumentType": "Entity", "Argument": "m.05zppz",
                  "EntityName": "Male", "SourceNodeIndex": 1,
                  "NodePredicate": "people.person.gender", "ValueType": "String"}
    first = wq_question("WebQTrn-0", parses=[
        wq_parse(0, "WebQTrn-0", Constraints=[constraint]),
        wq_parse(1, "WebQTrn-0", Time=time, Order=order, TopicEntityMid="m.02", TopicEntityName="B",
                 InferentialChain=["a.b.c"], Sparql="SELECT ?x {}", Answers=[]),
    ])
    second = wq_question("WebQTrn-9", RawQuestion="where is x?", ProcessedQuestion="where is x")
    q0, q1 = read_webqsp(wq_file(tmp_path, [first, second]))

    assert isinstance(q0, KGQAQuestion)
    assert (q0.id, q0.dataset) == ("WebQTrn-0", "webqsp")
    assert q0.question == "what is the name of justin bieber brother?"
    assert q0.extra == {"ProcessedQuestion": "what is the name of justin bieber brother"}
    p0, p1 = q0.parses
    assert p0.id == "WebQTrn-0.P0"
    assert p0.sparql == wq_parse()["Sparql"]
    assert p0.topic_entities == (("m.06w2sn5", "Justin Bieber"),)
    assert p0.answers == (GoldAnswer("entity", "m.0gxnnwc", "Jazmyn Bieber"),)
    assert p0.inferential_chain == ("people.person.sibling_s",
                                    "people.sibling_relationship.sibling")
    assert p0.constraints == (constraint,)
    assert (p0.time, p0.order, p0.function) == (None, None, "none")
    assert (p0.graph_query, p0.triples, p0.s_expression) == (None, None, None)
    assert p1.id == "WebQTrn-0.P1"
    assert (p1.sparql, p1.time, p1.order) == ("SELECT ?x {}", time, order)
    assert p1.topic_entities == (("m.02", "B"),)
    assert (p1.inferential_chain, p1.answers, p1.constraints) == (("a.b.c",), (), ())
    assert (q1.id, q1.question, len(q1.parses)) == ("WebQTrn-9", "where is x?", 1)


def test_webqsp_manual_sparql_kept_verbatim(tmp_path: Path) -> None:
    sparql = "#MANUAL SPARQL\nPREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x\n"
    assert one_webqsp(tmp_path, Sparql=sparql).sparql == sparql


def test_webqsp_null_inferential_chain(tmp_path: Path) -> None:
    assert one_webqsp(tmp_path, InferentialChain=None).inferential_chain is None


def test_webqsp_value_answer_without_name(tmp_path: Path) -> None:
    parse = one_webqsp(tmp_path, Answers=[
        {"AnswerType": "Value", "AnswerArgument": "1963", "EntityName": None},
        {"AnswerType": "Entity", "AnswerArgument": "m.0abc", "EntityName": "A"},
    ])
    assert parse.answers == (GoldAnswer("value", "1963", None),
                             GoldAnswer("entity", "m.0abc", "A"))


@pytest.mark.parametrize("mid", [None, "", "  "])
def test_webqsp_no_topic_entity(tmp_path: Path, mid: str | None) -> None:
    assert one_webqsp(tmp_path, TopicEntityMid=mid, TopicEntityName=None).topic_entities == ()


def test_webqsp_partial_parse_without_sparql_or_answers(tmp_path: Path) -> None:
    parse = one_webqsp(tmp_path, Sparql=None, Answers=None, InferentialChain=None)
    assert (parse.sparql, parse.answers, parse.inferential_chain) == (None, (), None)


def test_webqsp_missing_parse_id_is_numbered(tmp_path: Path) -> None:
    parses = [wq_parse(ParseId=None), wq_parse()]
    del parses[1]["ParseId"]
    [question] = read_webqsp(wq_file(tmp_path, [wq_question(parses=parses)]))
    assert [p.id for p in question.parses] == ["WebQTrn-1.P0", "WebQTrn-1.P1"]


def test_webqsp_processed_question_fallback(tmp_path: Path) -> None:
    [question] = read_webqsp(wq_file(tmp_path, [wq_question(RawQuestion=None)]))
    assert question.question == "what is the name of justin bieber brother"


def test_webqsp_bare_list_and_empty_parses(tmp_path: Path) -> None:
    path = write_json(tmp_path, "list.json", [wq_question("a"), wq_question("b", parses=[])])
    assert [(q.id, len(q.parses)) for q in read_webqsp(path)] == [("a", 1), ("b", 0)]


def test_webqsp_keeps_unknown_question_keys(tmp_path: Path) -> None:
    [question] = read_webqsp(wq_file(tmp_path, [wq_question(Url="http://x")]))
    assert question.extra["Url"] == "http://x"


WEBQSP_BAD: list[tuple[Any, str, str]] = [
    # (question, record name, reason fragment)
    ("not a question", "#2", "must be a JSON object, not a string"),
    (wq_question(QuestionId=None), "#2", "'QuestionId' is missing"),
    (wq_question(QuestionId=""), "#2", "'QuestionId' is empty"),
    (wq_question(QuestionId=["x"]), "#2", "'QuestionId' is a list"),
    (wq_question("bad", RawQuestion=None, ProcessedQuestion=""), "bad", "no question text"),
    (wq_question("bad", RawQuestion=7), "bad", "'RawQuestion' must be a string or null"),
    (wq_question("bad", Parses=None), "bad", "'Parses' must be a list, not null"),
    (wq_question("bad", Parses={"P0": {}}), "bad", "'Parses' must be a list, not an object"),
    (wq_question("bad", parses=[wq_parse(), "P1"]), "bad",
     "parse #2 must be an object, not a string"),
    (wq_question("bad", parses=[wq_parse(InferentialChain="a.b")]), "bad",
     "parse #1: 'InferentialChain' must be a list or null, not a string"),
    (wq_question("bad", parses=[wq_parse(InferentialChain=["a", 1])]), "bad",
     "'InferentialChain' must be a list of strings"),
    (wq_question("bad", parses=[wq_parse(Constraints=["x"])]), "bad",
     "'Constraints' #1 must be an object"),
    (wq_question("bad", parses=[wq_parse(Time="2010")]), "bad", "'Time' must be an object"),
    (wq_question("bad", parses=[wq_parse(Sparql=["SELECT"])]), "bad", "'Sparql' must be a string"),
    (wq_question("bad", parses=[wq_parse(TopicEntityMid=5)]), "bad", "'TopicEntityMid'"),
    (wq_question("bad", parses=[wq_parse(Answers=[{"AnswerType": "Literal",
                                                   "AnswerArgument": "x"}])]), "bad",
     "parse #1 answer #1: 'AnswerType' must be 'Entity' or 'Value', not 'Literal'"),
    (wq_question("bad", parses=[wq_parse(Answers=[{"AnswerType": ["Entity"],
                                                   "AnswerArgument": "x"}])]), "bad",
     "'AnswerType' must be 'Entity' or 'Value'"),
    (wq_question("bad", parses=[wq_parse(Answers=[{"AnswerType": "Entity"}])]), "bad",
     "'AnswerArgument' must be a string, not null"),
    (wq_question("bad", parses=[wq_parse(Answers=[{"AnswerType": "Entity", "AnswerArgument": "m.1",
                                                   "EntityName": 3}])]), "bad",
     "'EntityName' must be a string or null, not a number"),
]


@pytest.mark.parametrize("bad, record, reason", WEBQSP_BAD)
def test_webqsp_malformed_question_is_skipped(tmp_path: Path, bad: Any, record: str,
                                              reason: str) -> None:
    path = wq_file(tmp_path, [wq_question("ok-1"), bad, wq_question("ok-2")])
    issues: list[ReadIssue] = []
    assert [q.id for q in read_webqsp(path, issues=issues)] == ["ok-1", "ok-2"]
    [issue] = issues
    assert (issue.path, issue.record) == (str(path), record)
    assert reason in issue.reason
    if record == "bad":  # the id names it; the reason still says where it is
        assert issue.reason.endswith("(at #2)")


@pytest.mark.parametrize("bad, record, reason", WEBQSP_BAD[:3] + WEBQSP_BAD[-3:])
def test_webqsp_strict_stops_at_the_malformed_question(tmp_path: Path, bad: Any, record: str,
                                                       reason: str) -> None:
    path = wq_file(tmp_path, [wq_question("ok-1"), bad, wq_question("ok-2")])
    read = []
    with pytest.raises(MalformedRecordError) as info:
        for question in read_webqsp(path, strict=True):
            read.append(question.id)
    assert read == ["ok-1"]
    assert (info.value.path, info.value.record) == (str(path), record)
    assert reason in info.value.reason
    assert str(info.value).startswith(f"{path}: {record}: ")


def test_webqsp_lenient_without_issue_list_skips_quietly(tmp_path: Path) -> None:
    path = wq_file(tmp_path, [wq_question("ok"), {"QuestionId": "x"}])
    assert [q.id for q in read_webqsp(path)] == ["ok"]


@pytest.mark.parametrize("text, problem", [
    ("", "is empty"),
    ("  \n\n", "is empty"),
    ("QuestionId,RawQuestion\n", "is not valid JSON"),
    ('{"Questions": [', "is not valid JSON"),
    ('{"Version": "1.0"}', "an object without a 'Questions' list"),
    ('{"Questions": {"a": 1}}', "an object without a 'Questions' list"),
    ("42", "holds a number"),
])
def test_webqsp_unusable_file(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, "bad.json", text)
    assert_file_error(lambda p: list(read_webqsp(p)), path, problem)
    assert_file_error(lambda p: list(read_webqsp(p)), path, "expected WebQSP JSON")


def test_missing_file(tmp_path: Path) -> None:
    for reader in (read_webqsp, read_grailqa, read_kgqa_jsonl):
        with pytest.raises(InputFileError, match="file not found"):
            list(reader(tmp_path / "nope.json"))
    with pytest.raises(InputFileError, match="file not found"):
        detect_question_format(tmp_path / "nope.json")


def test_whole_json_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"Questions": [\n{"RawQuestion": "caf\xe9"}]}'.encode("latin-1"))
    with pytest.raises(InputFileError, match="line 2: invalid UTF-8"):
        list(read_webqsp(path))


# -- GrailQA ----------------------------------------------------------------------------------
def test_grailqa_fields(tmp_path: Path) -> None:
    record = gq_record(hops=1)
    [question] = read_grailqa(write_json(tmp_path, "g.json", [record]))
    assert (question.id, question.dataset) == ("2101960008000", "grailqa")
    assert question.question == "which play is produced by the illusion?"
    assert question.extra == {"num_node": 2, "num_edge": 1, "domains": ["theater"],
                              "level": "i.i.d.", "hops": 1}
    [parse] = question.parses
    assert parse.id == "2101960008000"
    assert parse.sparql == record["sparql_query"]
    assert parse.graph_query == record["graph_query"]
    assert parse.s_expression == record["s_expression"]
    assert parse.function == "none"
    assert parse.topic_entities == (("m.0yrlqjm", "The Illusion"),)
    assert parse.answers == (GoldAnswer("entity", "m.0yrltsn", "The Illusion"),)
    assert (parse.triples, parse.inferential_chain, parse.constraints) == (None, None, ())
    assert (parse.time, parse.order) == (None, None)


def test_grailqa_string_qid(tmp_path: Path) -> None:
    assert one_grailqa(tmp_path, qid="g-1").id == "g-1"


def test_grailqa_topic_entity_mapping_wins(tmp_path: Path) -> None:
    parse = one_grailqa(tmp_path, topic_entity={"m.1": "One", "m.2": None})
    assert parse.topic_entities == (("m.1", "One"), ("m.2", None))


@pytest.mark.parametrize("topic_entity", ["absent", {}, None])
def test_grailqa_topics_from_entity_nodes(tmp_path: Path, topic_entity: Any) -> None:
    graph = gq_record()["graph_query"]
    graph["nodes"] += [
        {"nid": 2, "node_type": "entity", "id": "g.11bc15x6_k", "friendly_name": "Series"},
        {"nid": 3, "node_type": "literal", "id": f"0^^{XSD}int", "friendly_name": "0"},
        {"nid": 4, "node_type": "entity", "id": "m.0yrlqjm", "friendly_name": "again"},
    ]
    fields: dict[str, Any] = {"graph_query": graph}
    if topic_entity != "absent":
        fields["topic_entity"] = topic_entity
    record = gq_record(**fields)
    if topic_entity == "absent":
        del record["topic_entity"]
    [question] = read_grailqa(write_json(tmp_path, "g.json", [record]))
    assert question.parses[0].topic_entities == (("m.0yrlqjm", "The Illusion"),
                                                 ("g.11bc15x6_k", "Series"))


def test_grailqa_value_answers(tmp_path: Path) -> None:
    parse = one_grailqa(tmp_path, function="count", answer=[
        {"answer_type": "Value", "answer_argument": "5"},
        {"answer_type": "Value", "answer_argument": f"2008-05-08^^{XSD}date"},
        {"answer_type": "Value", "answer_argument": 1.5},
    ])
    assert parse.function == "count"
    assert parse.answers == (GoldAnswer("value", "5", None),
                             GoldAnswer("value", "2008-05-08", None, f"{XSD}date"),
                             GoldAnswer("value", "1.5", None))


@pytest.mark.parametrize("function", ["none", "count", "argmax", "argmin", "<=", ">=", "<", ">"])
def test_grailqa_functions(tmp_path: Path, function: str) -> None:
    assert one_grailqa(tmp_path, function=function).function == function


def test_grailqa_test_split_without_answers_or_queries(tmp_path: Path) -> None:
    record = {"qid": 1, "question": "q?", "domains": ["x"], "level": "zero-shot"}
    [question] = read_grailqa(write_json(tmp_path, "test.json", [record]))
    [parse] = question.parses
    assert (parse.answers, parse.sparql, parse.graph_query, parse.topic_entities) == (
        (), None, None, ())
    assert (parse.function, question.extra) == ("none", {"domains": ["x"], "level": "zero-shot"})


def test_grailqa_jsonl(tmp_path: Path) -> None:
    path = write(tmp_path, "g.jsonl", "\n".join(json.dumps(gq_record(n)) for n in (1, 2)) + "\n\n")
    assert [q.id for q in read_grailqa(path)] == ["1", "2"]


GRAILQA_BAD: list[tuple[Any, str, str]] = [
    (gq_record(qid=1.5), "#2", "'qid' is a number"),
    (gq_record(qid=True), "#2", "'qid' is a boolean"),
    (gq_record("bad", question=None), "bad", "no question text: 'question' missing or empty"),
    (gq_record("bad", function="sum"), "bad", "'function' is 'sum', not one of none, count"),
    (gq_record("bad", answer={"answer_type": "Entity"}), "bad", "'answer' must be a list"),
    (gq_record("bad", answer=[{"answer_type": "entity", "answer_argument": "m.1"}]), "bad",
     "answer #1: 'answer_type' must be 'Entity' or 'Value', not 'entity'"),
    (gq_record("bad", graph_query={"nodes": []}), "bad", "'graph_query' needs a 'edges' list"),
    (gq_record("bad", graph_query={"nodes": [1], "edges": []}), "bad",
     "graph_query: 'nodes' #1 must be an object"),
    (gq_record("bad", topic_entity=["m.1"]), "bad", "'topic_entity' must be an object"),
    (gq_record("bad", topic_entity={"m.1": 1}), "bad", "'topic_entity' 'm.1' must be a string"),
    (gq_record("bad", s_expression=["AND"]), "bad", "'s_expression' must be a string"),
]


@pytest.mark.parametrize("bad, record, reason", GRAILQA_BAD)
def test_grailqa_malformed_record_is_skipped(tmp_path: Path, bad: Any, record: str,
                                             reason: str) -> None:
    path = write_json(tmp_path, "g.json", [gq_record("ok-1"), bad, gq_record("ok-2")])
    issues: list[ReadIssue] = []
    assert [q.id for q in read_grailqa(path, issues=issues)] == ["ok-1", "ok-2"]
    assert [(i.record, reason in i.reason) for i in issues] == [(record, True)], issues
    with pytest.raises(MalformedRecordError) as info:
        list(read_grailqa(path, strict=True))
    assert info.value.record == record


def test_grailqa_jsonl_bad_line(tmp_path: Path) -> None:
    good = json.dumps(gq_record("ok"))
    path = write(tmp_path, "g.jsonl", f'{good}\n{{"qid": 3, \n{json.dumps(gq_record(4))}\n')
    issues: list[ReadIssue] = []
    assert [q.id for q in read_grailqa(path, issues=issues)] == ["ok", "4"]
    assert [i.record for i in issues] == ["line 2"]
    assert "not valid JSON" in issues[0].reason


@pytest.mark.parametrize("text, problem", [
    ("", "is empty; expected GrailQA JSON"),
    ("[1, 2", "is not valid JSON"),
    ('"qid"', "holds a string; expected GrailQA JSON"),
    # a pretty-printed single object is neither a list nor JSONL
    (json.dumps({"qid": 1, "question": "q?"}, indent=2), "no line holds a JSON object"),
])
def test_grailqa_unusable_file(tmp_path: Path, text: str, problem: str) -> None:
    assert_file_error(lambda p: list(read_grailqa(p)), write(tmp_path, "g.json", text), problem)


# -- generic JSONL ----------------------------------------------------------------------------
def test_jsonl_fields(tmp_path: Path) -> None:
    record = jl_record("demo-1", answers=["m.1", "m.2"], answer_names=["One", None],
                       topic_entities=["m.0kgb0gd", ["m.9", "Nine"], ["m.8", None]],
                       shape="single", notes={"a": 1})
    [question] = read_kgqa_jsonl(write_jsonl(tmp_path, "q.jsonl", [record]))
    assert (question.id, question.dataset) == ("demo-1", "jsonl")
    assert question.question == "who directed the godfather?"
    assert question.extra == {"shape": "single", "notes": {"a": 1}}
    [parse] = question.parses
    assert parse.id == "demo-1"
    assert parse.sparql == record["sparql"]
    assert parse.triples is None
    assert parse.answers == (GoldAnswer("entity", "m.1", "One"), GoldAnswer("entity", "m.2", None))
    assert parse.topic_entities == (("m.0kgb0gd", None), ("m.9", "Nine"), ("m.8", None))
    assert (parse.function, parse.graph_query, parse.inferential_chain) == ("none", None, None)


def test_jsonl_triples(tmp_path: Path) -> None:
    triples = [["Q1", "P26", "?s"], ["?s", "P69", "?x"]]
    parse = one_jsonl(tmp_path, sparql=None, triples=triples)
    assert parse.sparql is None
    assert parse.triples == (("Q1", "P26", "?s"), ("?s", "P69", "?x"))


def test_jsonl_explicit_answer_objects(tmp_path: Path) -> None:
    parse = one_jsonl(tmp_path, answers=[
        {"value": "1972", "kind": "value", "datatype": f"{XSD}gYear"},
        {"value": "m.1", "kind": "entity", "name": "Own"},
        {"value": 3, "kind": "value"},
        "m.2",
    ], answer_names=[None, "Parallel", None, "Two"])
    assert parse.answers == (GoldAnswer("value", "1972", None, f"{XSD}gYear"),
                             GoldAnswer("entity", "m.1", "Own"),
                             GoldAnswer("value", "3", None),
                             GoldAnswer("entity", "m.2", "Two"))


def test_jsonl_optional_fields_absent(tmp_path: Path) -> None:
    [question] = read_kgqa_jsonl(write(tmp_path, "q.jsonl", '{"id": 7, "question": "q?"}'))
    [parse] = question.parses
    assert (question.id, question.extra) == ("7", {})
    assert (parse.sparql, parse.triples, parse.answers, parse.topic_entities) == (None, None, (), ())


def test_jsonl_blank_lines_crlf_and_bom(tmp_path: Path) -> None:
    lines = ["\ufeff" + json.dumps(jl_record("a")), "", "   ", json.dumps(jl_record("b")), ""]
    path = tmp_path / "q.jsonl"
    path.write_bytes("\r\n".join(lines).encode("utf-8"))
    issues: list[ReadIssue] = []
    assert [q.id for q in read_kgqa_jsonl(path, issues=issues)] == ["a", "b"]
    assert issues == []


def test_jsonl_empty_file_has_no_questions(tmp_path: Path) -> None:
    assert list(read_kgqa_jsonl(write(tmp_path, "q.jsonl", "\n\n"))) == []


JSONL_BAD: list[tuple[str, str, str]] = [
    # (line 2 of the file, record name, reason fragment)
    ('{"id": "x", "question": ', "line 2", "not valid JSON"),
    ('["q2", "who?"]', "line 2", "holds a list, not a JSON object"),
    ('"q2"', "line 2", "holds a string, not a JSON object"),
    ('{"question": "who?"}', "line 2", "'id' is missing"),
    ('{"id": "bad"}', "bad", "no question text"),
    ('{"id": "bad", "question": "q?", "answers": "m.1"}', "bad", "'answers' must be a list"),
    ('{"id": "bad", "question": "q?", "answers": [1]}', "bad",
     "answer #1 must be a string (an entity id) or an object, not a number"),
    ('{"id": "bad", "question": "q?", "answers": [{"value": "m.1"}]}', "bad",
     "answer #1: 'kind' must be 'entity' or 'value', not None"),
    ('{"id": "bad", "question": "q?", "answers": [{"kind": "value"}]}', "bad",
     "answer #1: 'value' must be a string, not null"),
    ('{"id": "bad", "question": "q?", "answers": ["m.1"], "answer_names": []}', "bad",
     "'answer_names' has 0 names for 1 answers"),
    ('{"id": "bad", "question": "q?", "answers": ["m.1"], "answer_names": [1]}', "bad",
     "'answer_names' #1 must be a string or null"),
    ('{"id": "bad", "question": "q?", "triples": [["s", "p"]]}', "bad",
     'triple #1 must be a list of 3 strings [s, p, o], not ["s", "p"]'),
    ('{"id": "bad", "question": "q?", "triples": [["s", "p", 1]]}', "bad", "triple #1"),
    ('{"id": "bad", "question": "q?", "triples": "s p o"}', "bad", "'triples' must be a list"),
    ('{"id": "bad", "question": "q?", "topic_entities": [["m.1", "A", "B"]]}', "bad",
     "'topic_entities' #1 must be an id or an [id, name] pair"),
    ('{"id": "bad", "question": "q?", "sparql": {"q": 1}}', "bad", "'sparql' must be a string"),
]


@pytest.mark.parametrize("line, record, reason", JSONL_BAD)
def test_jsonl_malformed_line_is_skipped(tmp_path: Path, line: str, record: str,
                                         reason: str) -> None:
    path = write(tmp_path, "q.jsonl", "\n".join([json.dumps(jl_record("ok-1")), line,
                                                 json.dumps(jl_record("ok-2"))]))
    issues: list[ReadIssue] = []
    assert [q.id for q in read_kgqa_jsonl(path, issues=issues)] == ["ok-1", "ok-2"]
    [issue] = issues
    assert (issue.path, issue.record) == (str(path), record)
    assert reason in issue.reason
    if record == "bad":
        assert issue.reason.endswith("(at line 2)")
    with pytest.raises(MalformedRecordError) as info:
        list(read_kgqa_jsonl(path, strict=True))
    assert (info.value.record, info.value.reason) == (record, issue.reason)


def test_jsonl_bad_utf8_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes(json.dumps(jl_record("a")).encode() + b'\n{"id": "\xff"}\n'
                     + json.dumps(jl_record("b")).encode())
    issues: list[ReadIssue] = []
    assert [q.id for q in read_kgqa_jsonl(path, issues=issues)] == ["a", "b"]
    assert [i.record for i in issues] == ["line 2"]
    assert "invalid UTF-8" in issues[0].reason


def test_jsonl_bad_first_lines_then_good(tmp_path: Path) -> None:
    path = write(tmp_path, "q.jsonl", "oops\n[1]\n" + json.dumps(jl_record("a")) + "\n")
    issues: list[ReadIssue] = []
    assert [q.id for q in read_kgqa_jsonl(path, issues=issues)] == ["a"]
    assert [i.record for i in issues] == ["line 1", "line 2"]
    with pytest.raises(MalformedRecordError, match="line 1: not valid JSON"):
        list(read_kgqa_jsonl(path, strict=True))


@pytest.mark.parametrize("strict", [False, True])
def test_jsonl_reader_on_a_file_that_is_not_jsonl(tmp_path: Path, strict: bool) -> None:
    path = wq_file(tmp_path, [wq_question()])  # pretty-printed WebQSP
    issues: list[ReadIssue] = []
    with pytest.raises(InputFileError) as info:
        list(read_kgqa_jsonl(path, strict=strict, issues=issues))
    assert "no line holds a JSON object (line 1: " in info.value.problem
    assert "expected JSONL" in info.value.problem
    assert issues == []


def test_demo_questions() -> None:
    path = REPO / "kgbench" / "demo" / "data" / "questions.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    issues: list[ReadIssue] = []
    questions = list(read_questions(path, issues=issues))
    assert issues == []
    assert [q.id for q in questions] == [r["id"] for r in records]
    for question, record in zip(questions, records, strict=True):
        [parse] = question.parses
        assert [a.value for a in parse.answers] == record["answers"]
        assert [a.name for a in parse.answers] == record.get("answer_names", [None] * len(
            record["answers"]))
        assert question.extra.get("shape") == record.get("shape")


# -- compression, detection, dispatch ---------------------------------------------------------
def sample_files(tmp_path: Path) -> dict[str, Path]:
    return {
        "webqsp": wq_file(tmp_path, [wq_question("w1"), wq_question("w2")]),
        "grailqa": write_json(tmp_path, "grailqa.json", [gq_record(1), gq_record(2)]),
        "jsonl": write_jsonl(tmp_path, "questions.jsonl", [jl_record("j1"), jl_record("j2")]),
    }


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".zst"])
def test_compressed_inputs(tmp_path: Path, suffix: str) -> None:
    for fmt, plain in sample_files(tmp_path).items():
        packed = compress(plain, suffix)
        assert detect_question_format(packed) == fmt
        issues: list[ReadIssue] = []
        assert list(read_questions(packed, fmt, issues=issues)) == list(
            read_questions(plain, fmt)), fmt
        assert issues == []


def test_read_questions_detects_and_dispatches(tmp_path: Path) -> None:
    files = sample_files(tmp_path)
    ids = {fmt: [q.id for q in read_questions(path)] for fmt, path in files.items()}
    assert ids == {"webqsp": ["w1", "w2"], "grailqa": ["1", "2"], "jsonl": ["j1", "j2"]}
    assert [q.dataset for q in read_questions(files["grailqa"], "GrailQA")] == ["grailqa"] * 2


def test_read_questions_passes_strict_and_issues(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, "q.jsonl", [jl_record("a"), {"id": "b"}])
    issues: list[ReadIssue] = []
    assert [q.id for q in read_questions(path, "jsonl", issues=issues)] == ["a"]
    assert [i.record for i in issues] == ["b"]
    with pytest.raises(MalformedRecordError):
        list(read_questions(path, "jsonl", strict=True))


def test_read_questions_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown question format 'csv'; expected one of "
                                         "webqsp, grailqa, jsonl"):
        read_questions(tmp_path / "q.csv", "csv")


@pytest.mark.parametrize("text, expected", [
    (json.dumps({"Version": "1.0", "Questions": []}), "webqsp"),
    (json.dumps({"Questions": [wq_question()]}), "webqsp"),  # minified, one line
    (json.dumps([wq_question()], indent=4), "webqsp"),
    ("\n\n" + json.dumps([gq_record()], indent=4), "grailqa"),
    (json.dumps(gq_record()) + "\n" + json.dumps(gq_record()), "grailqa"),
    (json.dumps(jl_record()) + "\n", "jsonl"),
    ('{"id": "x", "question": "q?", "triples": [["s", "p", "?x"]]}', "jsonl"),
])
def test_detect_question_format(tmp_path: Path, text: str, expected: str) -> None:
    assert detect_question_format(write(tmp_path, "questions", text)) == expected


@pytest.mark.parametrize("text, problem", [
    ("", "is empty"),
    ("\n  \n", "is empty"),
    ("id\tquestion\n", "starts with 'i', so it is neither JSON nor JSONL"),
    ('[{"id": "x", "question": "q?"}]', "neither WebQSP (QuestionId, Parses) nor GrailQA"),
])
def test_detect_question_format_cannot_tell(tmp_path: Path, text: str, problem: str) -> None:
    assert_file_error(detect_question_format, write(tmp_path, "questions", text), problem)


def test_detection_looks_only_at_the_head(tmp_path: Path) -> None:
    padding = [jl_record(f"q{n}", question="x" * 1000) for n in range(100)]
    path = write_jsonl(tmp_path, "q.jsonl", [*padding, {"qid": 1, "question": "late"}])
    assert detect_question_format(path) == "jsonl"


# -- records and errors -----------------------------------------------------------------------
def test_records_are_frozen_and_hashable(tmp_path: Path) -> None:
    [question] = read_webqsp(wq_file(tmp_path, [wq_question(parses=[wq_parse(
        Time={"Start": "2010"}, Constraints=[{"Operator": "Equal"}])])]))
    with pytest.raises(AttributeError):
        question.id = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        question.parses[0].answers[0].value = "m.x"  # type: ignore[misc]
    assert hash(question) == hash(question)
    assert {question.parses[0]} == {question.parses[0]}
    assert not hasattr(question, "__dict__")


def test_error_types() -> None:
    err = MalformedRecordError("q.jsonl", "line 3", "not valid JSON")
    assert isinstance(err, LoaderError)
    assert str(err) == "q.jsonl: line 3: not valid JSON"
    again = pickle.loads(pickle.dumps(err))
    assert (type(again), again.path, again.record, again.reason) == (
        MalformedRecordError, "q.jsonl", "line 3", "not valid JSON")
    assert str(ReadIssue("f.json", "WebQTrn-1", "why")) == "f.json: WebQTrn-1: why"


# -- external data ----------------------------------------------------------------------------
@pytest.mark.external
@pytest.mark.parametrize("name, count", [
    ("WebQSP.train.json", 3098),
    ("WebQSP.test.json", 1639),
    ("WebQSP.train.partial.json", 680),
    ("WebQSP.test.partial.json", 393),
])
def test_real_webqsp(name: str, count: int) -> None:
    path = _external("webqsp", name)
    raw = json.loads(path.read_text(encoding="utf-8"))["Questions"]
    assert detect_question_format(path) == "webqsp"
    issues: list[ReadIssue] = []
    questions = list(read_webqsp(path, strict=True, issues=issues))
    assert issues == []
    assert len(questions) == len(raw) == count
    assert [q.id for q in questions] == [r["QuestionId"] for r in raw]
    parses = [p for q in questions for p in q.parses]
    raw_parses = [p for r in raw for p in r["Parses"]]
    assert [p.id for p in parses] == [p["ParseId"] for p in raw_parses]
    assert [p.sparql for p in parses] == [p["Sparql"] for p in raw_parses]
    assert sum(len(p.answers) for p in parses) == sum(len(p["Answers"] or ()) for p in raw_parses)
    values = sum(a["AnswerType"] == "Value" for p in raw_parses for a in p["Answers"] or ())
    assert sum(a.kind == "value" for p in parses for a in p.answers) == values
    assert sum(p.inferential_chain is None for p in parses) == sum(
        p["InferentialChain"] is None for p in raw_parses)
    assert sum(not p.topic_entities for p in parses) == sum(
        not p["TopicEntityMid"] for p in raw_parses)


@pytest.mark.external
def test_real_webqsp_spot_check() -> None:
    path = _external("webqsp", "WebQSP.train.json")
    question = next(q for q in read_webqsp(path) if q.id == "WebQTrn-0")
    assert question.question == "what is the name of justin bieber brother?"
    [parse] = question.parses
    assert parse.topic_entities == (("m.06w2sn5", "Justin Bieber"),)
    assert parse.inferential_chain == ("people.person.sibling_s",
                                       "people.sibling_relationship.sibling")
    assert parse.answers == (GoldAnswer("entity", "m.0gxnnwq", "Jaxon Bieber"),)
    assert parse.constraints[0]["Argument"] == "m.05zppz"


@pytest.mark.external
def test_real_grailqa() -> None:
    path = _external("grailqa", "ToG_graliqa_1000.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert detect_question_format(path) == "grailqa"
    issues: list[ReadIssue] = []
    questions = list(read_grailqa(path, strict=True, issues=issues))
    assert issues == []
    assert len(questions) == len(raw) == 1000
    assert [q.id for q in questions] == [str(r["qid"]) for r in raw]
    assert sum(len(q.parses[0].answers) for q in questions) == sum(len(r["answer"]) for r in raw)
    assert [q.parses[0].function for q in questions] == [r["function"] for r in raw]
    assert all(q.parses[0].topic_entities or not any(
        n["node_type"] == "entity" for n in r["graph_query"]["nodes"])
        for q, r in zip(questions, raw, strict=True))
    question = next(q for q in questions if q.id == "2101960008000")
    assert question.question == "which play is produced by the illusion?"
    [parse] = question.parses
    assert [a.value for a in parse.answers] == ["m.0yrltsn"]
    assert parse.topic_entities == (("m.0yrlqjm", "The Illusion"),)
    assert question.extra["level"] == "i.i.d."
