"""The LLM verbalization backend (:mod:`extension.verbalize.llm_verbalizer`) and its
reply checks, against a real OpenAI-compatible server on localhost
(:mod:`tests.llm.chat_server`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extension.core.samples import StructuredSample
from extension.verbalize.citations import citation_parts
from extension.verbalize.llm_checks import (
    LENGTH_FACTOR,
    MIN_LENGTH_LIMIT,
    check_answer,
    check_citation,
    check_question,
    clean_reply,
    length_limit,
)
from extension.verbalize.llm_verbalizer import LLMVerbalizer, verbalizer_from_options
from extension.verbalize.verbalizer import TemplateVerbalizer
from llm.cache import ResponseCache
from llm.endpoint import (
    DEFAULT_API_KEY_ENV,
)
from llm.errors import (
    LLMConfigError,
    LLMRedirectRefused,
    LLMRejected,
    LLMResponseTooLarge,
    LLMUnavailable,
)
from tests.llm.chat_server import HOSTILE_ERROR, KEY, FakeChatServer, endpoint


def test_endpoint_refusing_every_request_stops_the_verbalizer(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.always = "400"
    server.error_body = json.dumps(HOSTILE_ERROR).encode()
    with pytest.raises(LLMRejected) as caught:
        verbalizer(server, tmp_path, template).verbalize(SEQUEL)
    message = str(caught.value)
    assert caught.value.status == 400 and "does not exist" in message
    assert "--llm-fallback" in message and KEY not in message
    assert len(server.received) == 1   # stopped at the first refusal


def test_endpoint_refusing_every_request_with_fallback_uses_templates(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, KEY)
    server.always = "400"
    server.error_body = json.dumps(HOSTILE_ERROR).encode()
    text = verbalizer(server, tmp_path, template, on_error="fallback").verbalize(SEQUEL)
    expected = template.verbalize(SEQUEL)
    assert text.citations == expected.citations and text.answer == expected.answer
    assert len(text.fallbacks) == 4
    assert all("request refused" in f and "HTTP 400" in f for f in text.fallbacks)
    assert not any(KEY in f for f in text.fallbacks)
    assert ResponseCache(tmp_path).keys() == []   # nothing to cache: a rerun asks again


def test_huge_reply_stops_the_verbalizer_unless_fallback(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "huge-declared"
    with pytest.raises(LLMResponseTooLarge, match="--llm-fallback"):
        verbalizer(server, tmp_path, template).verbalize(SEQUEL)
    text = verbalizer(server, tmp_path, template, on_error="fallback").verbalize(SEQUEL)
    assert len(text.fallbacks) == 4 and all("reply too large" in f for f in text.fallbacks)


# Real samples of the demo store (`kgbench demo` questions, seed 0), compacted:
# sub-facts and, for unedited samples, the original subgraph are rebuilt by _sample.
_SAMPLES = """
{"id":"demo-001:supportive","source":{"dataset":"jsonl","qid":"demo-001","question":"who directed the godfather?"},"query":{"original":{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"?v1","kind":"variable","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0ge","kind":"entity","value":"m.0kgb0ge","name":"The Godfather Part II","is_cvt":false}],"edges":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"},{"source":"?v1","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","not_equal":[["?x","m.0kgb0ge"]],"function":"none"}],"rule":"intersection_way1","shape":"path","subjects":["m.0kgb0ge"],"added":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"}]},"answer_entities":[{"id":"m.0kgb085","name":"Francis Ford Coppola"}],"answers_capped":false,"label":"supportive","complexity":"concatenation","subgraph":[{"s":"m.0kgb0gd","p":"film.film.sequel","o":"m.0kgb0ge","s_name":"The Godfather","o_name":"The Godfather Part II","literal":false},{"s":"m.0kgb0gd","p":"film.film.directed_by","o":"m.0kgb085","s_name":"The Godfather","o_name":"Francis Ford Coppola","literal":false}],"edit":{"kind":"none"},"seed":0}
{"id":"demo-001:contradictory","source":{"dataset":"jsonl","qid":"demo-001","question":"who directed the godfather?"},"query":{"original":{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"?v1","kind":"variable","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0ge","kind":"entity","value":"m.0kgb0ge","name":"The Godfather Part II","is_cvt":false}],"edges":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"},{"source":"?v1","predicate":"film.film.directed_by","target":"?x"}],"answer":"?x","not_equal":[["?x","m.0kgb0ge"]],"function":"none"}],"rule":"intersection_way1","shape":"path","subjects":["m.0kgb0ge"],"added":[{"source":"?v1","predicate":"film.film.sequel","target":"m.0kgb0ge"}]},"answer_entities":[{"id":"m.0kgb085","name":"Francis Ford Coppola"}],"answers_capped":false,"label":"contradictory","complexity":"concatenation","subgraph":[{"s":"m.0kgb0gd","p":"film.film.sequel","o":"m.0kgb0ge","s_name":"The Godfather","o_name":"The Godfather Part II","literal":false},{"s":"m.0kgb0gd","p":"film.film.directed_by","o":"m.0kgb08d","s_name":"The Godfather","o_name":"Ridley Scott","literal":false}],"original_subgraph":[{"s":"m.0kgb0gd","p":"film.film.sequel","o":"m.0kgb0ge","s_name":"The Godfather","o_name":"The Godfather Part II","literal":false},{"s":"m.0kgb0gd","p":"film.film.directed_by","o":"m.0kgb085","s_name":"The Godfather","o_name":"Francis Ford Coppola","literal":false}],"edit":{"kind":"replace_answer","replaced":{"id":"m.0kgb085","name":"Francis Ford Coppola"},"replacement":{"id":"m.0kgb08d","name":"Ridley Scott"},"shared_type":"film.director"},"seed":0}
{"id":"demo-002:supportive","source":{"dataset":"jsonl","qid":"demo-002","question":"who played michael corleone in the godfather?"},"query":{"original":{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?y","kind":"variable","is_cvt":true},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0iw","kind":"entity","value":"m.0kgb0iw","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.starring","target":"?y"},{"source":"?y","predicate":"film.performance.actor","target":"?x"},{"source":"?y","predicate":"film.performance.character","target":"m.0kgb0iw"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"m.0kgb0gd","kind":"entity","value":"m.0kgb0gd","is_cvt":false},{"id":"?y","kind":"variable","is_cvt":true},{"id":"?x","kind":"answer","is_cvt":false},{"id":"m.0kgb0iw","kind":"entity","value":"m.0kgb0iw","is_cvt":false},{"id":"m.0kgb001","kind":"entity","value":"m.0kgb001","name":"United States of America","is_cvt":false}],"edges":[{"source":"m.0kgb0gd","predicate":"film.film.starring","target":"?y"},{"source":"?y","predicate":"film.performance.actor","target":"?x"},{"source":"?y","predicate":"film.performance.character","target":"m.0kgb0iw"},{"source":"?x","predicate":"people.person.nationality","target":"m.0kgb001"}],"answer":"?x","function":"none"}],"rule":"intersection_way2","shape":"tree","subjects":["m.0kgb0gd","m.0kgb001"],"added":[{"source":"?x","predicate":"people.person.nationality","target":"m.0kgb001"}]},"answer_entities":[{"id":"m.0kgb0ag","name":"Al Pacino"}],"answers_capped":false,"label":"supportive","complexity":"intersection","subgraph":[{"s":"m.0kgb0gd","p":"film.film.starring","o":"m.0kgb0ph","s_name":"The Godfather","literal":false},{"s":"m.0kgb0ph","p":"film.performance.actor","o":"m.0kgb0ag","o_name":"Al Pacino","literal":false},{"s":"m.0kgb0ph","p":"film.performance.character","o":"m.0kgb0iw","o_name":"Michael Corleone","literal":false},{"s":"m.0kgb0ag","p":"people.person.nationality","o":"m.0kgb001","s_name":"Al Pacino","o_name":"United States of America","literal":false}],"edit":{"kind":"none"},"seed":0,"cvt_nodes":["m.0kgb0ph"]}
{"id":"demo-008:supportive","source":{"dataset":"jsonl","qid":"demo-008","question":"when was inception released?"},"query":{"original":{"nodes":[{"id":"m.0kgb0h6","kind":"entity","value":"m.0kgb0h6","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0h6","predicate":"film.film.initial_release_date","target":"?x"}],"answer":"?x","function":"none"},"extended":[{"nodes":[{"id":"m.0kgb0h6","kind":"entity","value":"m.0kgb0h6","is_cvt":false},{"id":"?x","kind":"answer","is_cvt":false}],"edges":[{"source":"m.0kgb0h6","predicate":"film.film.initial_release_date","target":"?x"}],"answer":"?x","function":"none"}],"rule":"none","shape":"single","subjects":["m.0kgb0h6"]},"answer_entities":[{"value":"2010-07-16","datatype":"xsd:date"}],"answers_capped":false,"label":"supportive","complexity":"single","subgraph":[{"s":"m.0kgb0h6","p":"film.film.initial_release_date","o":"2010-07-16","s_name":"Inception","datatype":"xsd:date","literal":true}],"edit":{"kind":"none"},"seed":0}
"""


def _sample(doc: dict[str, Any]) -> StructuredSample:
    original = doc.setdefault("original_subgraph", doc["subgraph"])
    kept = [json.dumps(t, sort_keys=True) for t in doc["subgraph"]]
    doc["sub_facts"] = [{"triple": t, "supported": json.dumps(t, sort_keys=True) in kept}
                        for t in original]
    doc["supported_fraction"] = sum(f["supported"] for f in doc["sub_facts"]) / len(original)
    return StructuredSample.model_validate(doc)


SAMPLES = {s.id: s for s in (_sample(json.loads(line)) for line in _SAMPLES.strip().splitlines())}
SEQUEL = SAMPLES["demo-001:supportive"]           # concatenation: 2 hops, rule way 1
SEQUEL_CONTRA = SAMPLES["demo-001:contradictory"]  # same question, one hop replaced
CORLEONE = SAMPLES["demo-002:supportive"]         # a CVT (film performance) node
INCEPTION = SAMPLES["demo-008:supportive"]        # rule none, a date answer


@pytest.fixture
def template() -> TemplateVerbalizer:
    return TemplateVerbalizer()


def verbalizer(server: FakeChatServer, cache: Path, template: TemplateVerbalizer,
               **options: Any) -> LLMVerbalizer:
    return LLMVerbalizer(endpoint(server), cache, template, **options)


def test_one_request_per_part_and_the_llm_text_is_used(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    v = verbalizer(server, tmp_path, template)
    text = v.verbalize(SEQUEL)
    parts = citation_parts(SEQUEL)
    assert len(parts) == 2   # concatenation: one citation per hop
    assert len(server.received) == len(parts) + 2   # + question + answer statement
    assert v.name == text.backend == "llm:test-model"
    assert text.fallbacks == ()
    assert [c.triples for c in text.citations] == [tuple(p) for p in parts]
    assert text.citations[0].text == "The Godfather, has the sequel, The Godfather Part II."
    assert text.question_extended.endswith("?")
    assert "The Godfather Part II" in text.question_extended
    assert text.answer == "The answer is Francis Ford Coppola."
    # sub-fact sentences are the templates'
    assert text.sub_fact_texts == template.verbalize(SEQUEL).sub_fact_texts
    prompts = [r.body["messages"][0]["content"] for r in server.received]
    assert "(The Godfather, has the sequel, The Godfather Part II)" in prompts[0]
    assert prompts[0].endswith("Output only the passage.")
    assert f"Question: {text.question_extended}" in prompts[-1]


def test_samples_of_one_question_share_question_and_answer_requests(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    v = verbalizer(server, tmp_path, template)
    first = v.verbalize(SEQUEL)
    before = len(server.received)
    second = v.verbalize(SEQUEL_CONTRA)
    # only the citation of the replaced hop is new; its other hop, q̃ and ã are cached
    assert len(server.received) == before + 1
    assert second.question_extended == first.question_extended
    assert second.answer == first.answer
    assert "Ridley Scott" in " ".join(c.text for c in second.citations)


def test_rerun_makes_no_request(server: FakeChatServer, tmp_path: Path,
                                template: TemplateVerbalizer) -> None:
    first = [verbalizer(server, tmp_path, template).verbalize(s) for s in SAMPLES.values()]
    sent = len(server.received)
    rerun = verbalizer(server, tmp_path, template)
    assert [rerun.verbalize(s) for s in SAMPLES.values()] == first
    assert len(server.received) == sent
    assert rerun.client.stats.requests == 0 and rerun.client.stats.cache_hits > 0


def test_rule_none_keeps_the_question_and_a_date_answer_is_checked_by_year(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    text = verbalizer(server, tmp_path, template).verbalize(INCEPTION)
    assert len(server.received) == 2   # one citation + the answer statement
    assert text.question_extended == INCEPTION.source.question
    assert text.fallbacks == ()
    assert "2010" in text.answer and "2010" in text.citations[0].text


def test_cvt_nodes_become_records_never_ids(server: FakeChatServer, tmp_path: Path,
                                            template: TemplateVerbalizer) -> None:
    text = verbalizer(server, tmp_path, template).verbalize(CORLEONE)
    prompt = server.received[0].body["messages"][0]["content"]
    assert "[performance 1]" in prompt and "m.0kgb0ph" not in prompt
    assert "(The Godfather, " in prompt and ", Al Pacino)" in prompt
    assert text.fallbacks == ()
    assert "m.0kgb0ph" not in " ".join(c.text for c in text.citations)


def test_unusable_replies_fall_back_to_templates_and_are_flagged(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.reply = "I am sorry, I cannot help with that."
    text = verbalizer(server, tmp_path, template).verbalize(SEQUEL)
    expected = template.verbalize(SEQUEL)
    assert text.citations == expected.citations
    assert text.question_extended == expected.question_extended
    assert text.answer == expected.answer
    assert text.backend == "llm:test-model"
    assert [f.split(":")[0] for f in text.fallbacks] == [
        "citation 1", "citation 2", "question_extended", "answer"]
    assert "does not mention 'The Godfather'" in text.fallbacks[0]
    assert "no question mark" in text.fallbacks[2]


def test_garbage_bodies_fall_back_then_count_as_unavailable(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "garbage"
    v = verbalizer(server, tmp_path, template, max_bad_responses=6)
    text = v.verbalize(SEQUEL)
    assert len(text.fallbacks) == 4
    assert all("bad response" in f and "not JSON" in f for f in text.fallbacks)
    assert text.citations == template.verbalize(SEQUEL).citations
    with pytest.raises(LLMUnavailable, match="6 responses in a row were not chat completions"):
        v.verbalize(SEQUEL_CONTRA)
    assert ResponseCache(tmp_path).keys() == []   # nothing bad was cached


def test_endpoint_down_stops_with_a_clear_message_and_a_rerun_resumes(
        tmp_path: Path, template: TemplateVerbalizer) -> None:
    first = FakeChatServer()
    done = verbalizer(first, tmp_path, template).verbalize(SEQUEL)
    first.stop()
    down = LLMVerbalizer(endpoint(first, max_retries=1), tmp_path, template)
    with pytest.raises(LLMUnavailable) as caught:
        down.verbalize(CORLEONE)
    message = str(caught.value)
    assert first.url in message and "connection refused" in message
    assert str(tmp_path) in message and "run the same command again to resume" in message
    # the earlier sample is still answered from the cache while the server is down
    assert down.verbalize(SEQUEL) == done
    again = FakeChatServer()
    try:
        resumed = verbalizer(again, tmp_path, template)
        assert resumed.verbalize(SEQUEL) == done
        assert again.received == []
        assert resumed.verbalize(CORLEONE).fallbacks == ()
        assert len(again.received) == len(citation_parts(CORLEONE)) + 2
    finally:
        again.stop()


def test_on_error_fallback_keeps_going_and_pauses_the_dead_endpoint(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "500"
    v = LLMVerbalizer(endpoint(server, max_retries=1), tmp_path, template,
                      on_error="fallback", pause_s=60)
    text = v.verbalize(SEQUEL)
    assert text.citations == template.verbalize(SEQUEL).citations
    assert len(text.fallbacks) == 4
    assert all("LLM endpoint unavailable" in f for f in text.fallbacks)
    assert "HTTP 500" in text.fallbacks[0]
    assert len(server.received) == 2   # the first part tried twice, the rest skipped
    v.verbalize(CORLEONE)
    assert len(server.received) == 2


def test_configuration_errors_raise_even_with_fallback(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    server.always = "401"
    v = verbalizer(server, tmp_path, template, on_error="fallback")
    with pytest.raises(LLMRejected, match="KGBENCH_LLM_API_KEY"):
        v.verbalize(SEQUEL)


def test_verbalizer_from_options(server: FakeChatServer, tmp_path: Path,
                                 template: TemplateVerbalizer) -> None:
    assert verbalizer_from_options(None, None, tmp_path, template) is template
    v = verbalizer_from_options(server.url, "test-model", tmp_path, template)
    assert isinstance(v, LLMVerbalizer) and v.name == "llm:test-model"
    assert v.endpoint.chat_url == server.url + "/chat/completions"
    with pytest.raises(LLMConfigError, match="needs --llm-model"):
        verbalizer_from_options(server.url, None, tmp_path, template)
    with pytest.raises(LLMConfigError, match="needs --llm-url"):
        verbalizer_from_options(None, "test-model", tmp_path, template)
    with pytest.raises(LLMConfigError, match="not an http"):
        verbalizer_from_options("localhost:8000", "m", tmp_path, template)
    with pytest.raises(ValueError, match="on_error"):
        LLMVerbalizer(endpoint(server), tmp_path, template, on_error="ignore")  # type: ignore[arg-type]


def test_clean_reply_removes_wrapping() -> None:
    assert clean_reply("<think>hmm, names...</think>\n  Al Pacino acted.  ") == "Al Pacino acted."
    assert clean_reply('"Who directed it?"') == "Who directed it?"
    assert clean_reply("Question: Who directed it?") == "Who directed it?"
    assert clean_reply("```\nAl Pacino acted.\n```") == "Al Pacino acted."
    assert clean_reply("```text\nAl Pacino acted.\n```") == "Al Pacino acted."
    assert clean_reply("“Quoted.”") == "Quoted."


def test_check_citation() -> None:
    triples = list(CORLEONE.subgraph)
    good = ("The Godfather features a performance by Al Pacino as Michael Corleone; "
            "Al Pacino is a citizen of the United States of America.")
    assert check_citation(good, triples, CORLEONE.cvt_nodes, max_chars=500) is None
    assert check_citation(good.replace("Michael ", ""), triples, CORLEONE.cvt_nodes,
                          max_chars=500) == "does not mention 'Michael Corleone'"
    assert "placeholder [performance 1]" in (check_citation(
        good + " See [performance 1].", triples, CORLEONE.cvt_nodes, max_chars=500) or "")
    assert "2 lines" in (check_citation(good.replace("; ", "\n"), triples,
                                        CORLEONE.cvt_nodes, max_chars=500) or "")
    assert "over the limit of 50" in (check_citation(good, triples, CORLEONE.cvt_nodes,
                                                     max_chars=50) or "")
    assert check_citation(good, triples, CORLEONE.cvt_nodes, max_chars=500,
                          finish_reason="length") == "response cut off at max_tokens"
    # names match across case, curly quotes and digit grouping
    date = list(INCEPTION.subgraph)
    assert check_citation("INCEPTION came out on July 16, 2010.", date, (),
                          max_chars=500) is None
    assert check_citation("Inception came out in July.", date, (), max_chars=500) == \
        "does not mention '2010'"


def test_check_question_and_answer() -> None:
    assert check_question("Who directed the film whose sequel is The Godfather Part II?",
                          ["The Godfather Part II"], max_chars=300) is None
    assert "no question mark" in (check_question(
        "The Godfather Part II.", ["The Godfather Part II"], max_chars=300) or "")
    assert "variable ?v1" in (check_question(
        "Who directed ?v1, the prequel of The Godfather Part II?", ["The Godfather Part II"],
        max_chars=300) or "")
    answers = list(SEQUEL.answer_entities)
    assert check_answer("Francis Ford Coppola directed it.", answers, max_chars=300) is None
    assert check_answer("Who knows?", answers, max_chars=300) == \
        "is a question, not a statement"
    assert check_answer("Coppola directed it.", answers, max_chars=300) == \
        "does not mention 'Francis Ford Coppola'"
    assert length_limit("x" * 10) == MIN_LENGTH_LIMIT
    assert length_limit("x" * 1000) == 1000 * LENGTH_FACTOR


def test_redirect_refused_even_with_fallback(server: FakeChatServer, other: FakeChatServer,
                                             tmp_path: Path,
                                             template: TemplateVerbalizer) -> None:
    server.redirect = (302, f"{other.url}/chat/completions")
    v = LLMVerbalizer(endpoint(server, url=f"http://127.0.0.1:{server.port}/old/v1"),
                      tmp_path, template, on_error="fallback")
    with pytest.raises(LLMRedirectRefused):
        v.verbalize(SEQUEL)
    assert other.received == []


def _exhaustive_sample() -> StructuredSample:
    """"What genres is The Godfather in?" contradicted as a whole (issue 34): both genres
    replaced, the citation saying the replacements are its only ones."""
    def fact(o: str, name: str) -> dict[str, Any]:
        return {"s": "m.0kgb0gd", "p": "film.film.genre", "o": o, "s_name": "The Godfather",
                "o_name": name, "literal": False}

    def entity(id: str, name: str) -> dict[str, str]:
        return {"id": id, "name": name}

    query = {"nodes": [{"id": "m.0kgb0gd", "kind": "entity", "value": "m.0kgb0gd",
                        "is_cvt": False}, {"id": "?x", "kind": "answer", "is_cvt": False}],
             "edges": [{"source": "m.0kgb0gd", "predicate": "film.film.genre", "target": "?x"}],
             "answer": "?x", "function": "none"}
    pairs = [(entity("m.drama", "Drama"), entity("m.western", "Western")),
             (entity("m.crime", "Crime Fiction"), entity("m.horror", "Horror"))]
    replacements = [{"replaced": a, "replacement": b, "basis": "same_role"} for a, b in pairs]
    return _sample({
        "id": "g:contradictory", "seed": 0, "label": "contradictory", "complexity": "single",
        "source": {"dataset": "jsonl", "qid": "g", "question": "what genres is the godfather in?"},
        "query": {"original": query, "extended": [query], "rule": "none", "shape": "single",
                  "subjects": ["m.0kgb0gd"]},
        "answer_entities": [a for a, _ in pairs],
        "subgraph": [fact(b["id"], b["name"]) for _, b in pairs],
        "original_subgraph": [fact(a["id"], a["name"]) for a, _ in pairs],
        "edit": {"kind": "replace_answer", "replaced": pairs[0][0], "replacement": pairs[0][1],
                 "replacement_basis": "same_role", "replacements": replacements,
                 "contradicts": "exhaustive"}})


def test_an_exhaustive_citation_keeps_the_template_text(
        server: FakeChatServer, tmp_path: Path, template: TemplateVerbalizer) -> None:
    """The prompt cannot ask for "only": the template citation states it, and the LLM
    is asked for the answer statement alone (q̃ is q under rule none)."""
    sample = _exhaustive_sample()
    expected = "The Godfather's only genres are Western and Horror."
    assert [c.text for c in template.verbalize(sample).citations] == [expected]
    text = verbalizer(server, tmp_path, template).verbalize(sample)
    assert [c.text for c in text.citations] == [expected]
    assert text.fallbacks == ("citation 1: states a slot's only values",)
    assert len(server.received) == 1
