"""KalmaBuilder: entries built from the demo KG, a Wikidata-shaped store and the real
Wikidata sample; Eq. 1 with the tiny causal LM; the App. D prompts through a real local
HTTP chat server."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from extension.inputs.domain_spec import DomainSpec
from kalma.builder import BuildConfig, BuildSkip, KalmaBuilder
from kalma.entry import KalmaEntry
from kalma.errors import KalmaError
from kalma.pairs import EntityPair
from kalma.prompts import kgbench_generation_prompts
from kalma.templates import qualifier_anchor
from kgstore import open_store
from llm.cache import ResponseCache
from llm.client import ChatClient
from loaders.wikidata import load_wikidata
from tests.external import external_path
from tests.kalma.stores import demo_store, wikidata_store  # noqa: F401
from tests.llm.chat_server import FakeChatServer, endpoint, server  # noqa: F401
from tests.scoring.models import exported, tiny_hf  # noqa: F401

PEOPLE = DomainSpec("type", "people.person")
HUMANS = DomainSpec("type", "Q5")


def entries(builder: KalmaBuilder, n: int) -> list[KalmaEntry]:
    built = [builder.build(start, i) for i, start in enumerate(builder.seeds()[:n])]
    assert not [b for b in built if isinstance(b, BuildSkip)]
    return [b for b in built if isinstance(b, KalmaEntry)]


def test_demo_entries(demo_store: str) -> None:  # noqa: F811
    config = BuildConfig(domain=PEOPLE, n=3, seed=1)
    with open_store(demo_store, read_only=True) as store:
        builder = KalmaBuilder(store, config)
        first = entries(builder, 3)
        again = entries(KalmaBuilder(store, config), 3)
    assert [e.to_line() for e in first] == [e.to_line() for e in again]
    for index, e in enumerate(first):
        assert e.id == f"kalma-{index:05d}" and e.seed == 1 and len(e.entities) == 2
        a, b = e.entities
        link = e.minimum_knowledge_set[0]
        # Iteration 1 is the marriage: a's spouse is b, through the CVT.
        assert (link.subject_id, link.relation, link.object_id) == (a.id, "spouse", b.id)
        assert link.via and "/" in (link.predicate or "")
        assert e.paragraph.startswith(f"{a.name}'s spouse is {b.name}.") or \
            e.paragraph.startswith(f"{a.name}' spouse is {b.name}.")
        assert len(e.minimum_knowledge_set) == 5
        pool_keys = e.retrieved_keys()
        assert all(k.key() in pool_keys for k in e.minimum_knowledge_set)
        assert len(pool_keys) == len(e.knowledge_pool)
        # Readable text: both names in the general question, every relation in the
        # specific one, one question each, no ids.
        assert a.name in e.question_general and b.name in e.question_general
        assert e.question_general.count("?") == e.question_specific.count("?") == 1
        for k in e.minimum_knowledge_set:
            words = k.relation if k.relation in e.question_specific else k.relation.split()[0]
            assert words in e.question_specific, (k.relation, e.question_specific)
            assert k.object in e.paragraph
        assert not re.search(r"\bm\.0|\bQ\d+|_", e.paragraph + e.question_specific)
        gen = e.generation
        assert (gen["method"], gen["alpha"], gen["coherence"]) == ("template", 0.5, "none")
        scores = [it["score"] for it in gen["iterations"][1:]]
        assert scores == [it["specificity"] for it in gen["iterations"][1:]]
        assert scores == sorted(scores, reverse=True)   # specificity alone: rarest first
    one = json.loads(first[0].to_line())
    assert KalmaEntry.from_json(one, "x") == first[0]


def test_a_cvt_qualifier_comes_with_its_anchor(demo_store: str) -> None:  # noqa: F811
    """A marriage's start date is told as the start of the marriage to someone already
    in the set: "James Cameron had a marriage with start date 1997" does not say which
    of his three marriages a reader should check."""
    config = BuildConfig(domain=PEOPLE, n=20, seed=1)
    with open_store(demo_store, read_only=True) as store:
        built = entries(KalmaBuilder(store, config), 20)
    qualifiers = 0
    for e in built:
        assert "had a marriage with" not in e.paragraph
        mks = e.minimum_knowledge_set
        for k in mks:
            anchor = qualifier_anchor(k, e.knowledge_pool)
            if anchor is None:
                continue
            qualifiers += 1
            # Its CVT is in the set through a fact that is not itself a qualifier.
            assert any(o.via == k.via and qualifier_anchor(o, e.knowledge_pool) is None
                       for o in mks), (e.id, k.triple())
            assert f"{anchor.object} is {k.object}." in e.paragraph, (e.id, e.paragraph)
    assert qualifiers >= 10


def test_the_specific_question_asks_for_exactly_the_set(demo_store: str) -> None:  # noqa: F811
    """Where the set holds some of a subject's values of a relation (one of Nolan's
    films), the question asks for that many, not for all: a careful reader answering
    "Christopher Nolan's films" from the set would leave films out."""
    config = BuildConfig(domain=PEOPLE, n=30, seed=7)
    with open_store(demo_store, read_only=True) as store:
        built = entries(KalmaBuilder(store, config), 30)
    counted = 0
    for e in built:
        mks, pool = e.minimum_knowledge_set, e.knowledge_pool
        stated = {k.statement() for k in mks}
        keys = {k.key() for k in mks}
        for k in mks:
            if qualifier_anchor(k, pool) is not None:
                # "the start date of A's marriage to B": which marriage is in the question.
                anchor = qualifier_anchor(k, pool)
                assert anchor is not None and f"marriage to {anchor.object}" in \
                    e.question_specific or "film role in" in e.question_specific
                continue
            group = (k.subject_id, k.relation)
            held = sum((m.subject_id, m.relation) == group for m in mks)
            values = sum((p.subject_id, p.relation) == group
                         and (p.key() in keys or p.statement() not in stated) for p in pool)
            if held < values:
                counted += 1
                number = ("one", "two", "three", "four")[held - 1]
                assert re.search(rf"\b{number} (of|other|things?)\b", e.question_specific), (
                    e.id, k.triple(), e.question_specific)
    assert counted >= 3


def test_gender_stays_in_the_pool_but_is_never_asked(demo_store: str) -> None:  # noqa: F811
    """Single-entity entries exhaust small pools: without the rule, "What are Paul
    Simon's place of birth, date of birth and gender?" came out."""
    config = BuildConfig(domain=PEOPLE, n=15, seed=11, single=True)
    with open_store(demo_store, read_only=True) as store:
        built = entries(KalmaBuilder(store, config), 15)
    assert sum(k.relation == "gender" for e in built for k in e.knowledge_pool) >= 10
    assert not [k for e in built for k in e.minimum_knowledge_set if k.relation == "gender"]
    assert not [e.question_specific for e in built if "gender" in e.question_specific]


def test_wikidata_shaped_entries(wikidata_store: str) -> None:  # noqa: F811
    with open_store(wikidata_store, read_only=True) as store:
        (pair,) = KalmaBuilder(store, BuildConfig(domain=HUMANS, n=5, seed=0)).seeds()
        entry = KalmaBuilder(store, BuildConfig(domain=HUMANS, n=5, seed=0)).build(pair, 0)
        single = KalmaBuilder(store, BuildConfig(domain=HUMANS, n=5, seed=0, single=True))
        solo = entries(single, 2)
    assert isinstance(pair, EntityPair) and isinstance(entry, KalmaEntry)
    assert "Anne Hathaway (spouse of William Shakespeare)" in entry.question_general
    assert "Shakespeare)'s" not in entry.question_specific
    link = entry.minimum_knowledge_set[0]
    assert {link.subject_id, link.object_id} == {"Q262479", "Q692"} and link.relation == "spouse"
    assert link.predicate == "P26" and link.via is None
    assert ["Q692", "date of birth", "23 April 1564"] in [k.triple() for k in entry.minimum_knowledge_set]
    assert all(e.generation["single"] and len(e.entities) == 1 for e in solo)


def test_real_wikidata_sample_needs_single(tmp_path: Path) -> None:
    humans = external_path("wikidata", "DERIVED_humans_Q5.jsonl")
    with open_store(str(tmp_path / "wd"), create=True) as store:
        load_wikidata(store, [humans])
        with pytest.raises(KalmaError, match="no connected pair") as info:
            KalmaBuilder(store, BuildConfig(domain=HUMANS, n=3, seed=0)).seeds()
        assert "--single" in (info.value.hint or "")
        builder = KalmaBuilder(store, BuildConfig(domain=HUMANS, n=5, seed=0, single=True))
        built = [builder.build(s, i) for i, s in enumerate(builder.seeds())]
    made = [b for b in built if isinstance(b, KalmaEntry)]
    skipped = [b for b in built if isinstance(b, BuildSkip)]
    assert made and all(e.generation["single"] for e in made)
    douglas = next(e for e in made if e.entities[0].id == "Q42")
    # his height (P2048) reads since it has a frame (29 Nov): a usable fact too
    assert {k.object for k in douglas.minimum_knowledge_set} == {"11 March 1952", "11 May 2001",
                                                                "1.96"}
    assert all("usable fact" in s.reason for s in skipped)


def test_coherence_from_the_causal_lm(demo_store: str, exported) -> None:  # noqa: F811
    from scoring.runtime import CausalLM

    lm = CausalLM.open(exported("gpt2", "causal-lm"), device="cpu")
    config = BuildConfig(domain=PEOPLE, n=1, seed=1, iterations=3, alpha=0.5)
    with open_store(demo_store, read_only=True) as store:
        builder = KalmaBuilder(store, config, lm=lm)
        start = builder.seeds()[0]
        entry = builder.build(start, 0)
        # Candidates of equal specificity (one relation): specificity alone breaks the
        # tie by key; the perplexity decides with the LM.
        hanks = store.find_by_name("Tom Hanks")[0].id
        films = [k for k in builder.pool(hanks) if k.relation == "film"]
        paragraph = "Tom Hanks' spouse is Rita Wilson."
        step = builder.choose(paragraph, films)
        plain = KalmaBuilder(store, config).choose(paragraph, films)
    assert isinstance(entry, KalmaEntry) and entry.generation["coherence"] == "perplexity"
    assert all(it["coherence"] is not None for it in entry.generation["iterations"][1:])
    perplexities = lm.perplexity([f"{paragraph} {s}" for s in step.sentences])
    inverse = [1 / p for p in perplexities]
    by_hand = [math.exp(x) / sum(math.exp(y) for y in inverse) for x in inverse]
    assert step.coherences == pytest.approx(by_hand, rel=1e-9)
    assert step.scores == pytest.approx([0.5 * s + 0.5 * c for s, c in
                                         zip(step.specificities, by_hand, strict=True)], rel=1e-9)
    assert len(set(step.specificities)) == 1
    assert step.index == perplexities.index(min(perplexities))
    assert plain.index == min(range(len(films)), key=lambda i: films[i].key())


def _reply(prompt: str) -> str:
    """An LLM that follows the demonstrations of kgbench's prompts: the paragraph with
    the knowledge added (annotated), or one question."""
    tail = prompt.rsplit("\n\n", 3)
    if prompt.endswith("Question:"):
        return "Who are these people, and how did their lives meet?"
    if prompt.endswith("Extended paragraph:"):
        paragraph = tail[-3].removeprefix("Paragraph: ")
        knowledge = tail[-2].removeprefix("Fact: ")
        relation, _, value = knowledge.strip("{}").split(", ")[-1].partition(": ")
        return f"{paragraph} They are known for {value} [qid: Q1, {relation}: {value}]."
    sentence = tail[-3].removeprefix("Sentence: ")
    return f"In short, {sentence[0].lower()}{sentence[1:]} [qid: Q1, spouse: someone]"


def test_llm_writes_the_text_with_kgbench_prompts(
        demo_store: str, server: FakeChatServer, tmp_path: Path) -> None:  # noqa: F811
    server.responder = _reply
    client = ChatClient(endpoint(server), ResponseCache(tmp_path / "cache"))
    config = BuildConfig(domain=PEOPLE, n=1, seed=1, iterations=3)
    ours = kgbench_generation_prompts()
    with open_store(demo_store, read_only=True) as store:
        builder = KalmaBuilder(store, config, client=client)
        start = builder.seeds()[0]
        entry = builder.build(start, 0)
        assert len(server.received) == 1 + 2 + 2   # annotate, extend twice, two questions
        prompts = [r.body["messages"][0]["content"] for r in server.received]
        assert prompts[0].startswith(ours.annotate.text.split("Sentence: {sentence}")[0])
        assert all(p.startswith(ours.extend.text.split("Paragraph: {paragraph}")[0])
                   for p in prompts[1:3])
        assert prompts[3].startswith(ours.general_question.text.split("Paragraph: {par")[0])
        assert prompts[4].startswith(ours.specific_question.text.split("Paragraph: {par")[0])
        assert "{sentence}" not in prompts[0] and "{knowledge}" not in prompts[1]
        again = builder.build(start, 0)   # from the cache, no request
        assert len(server.received) == 5 and again == entry
        # A reply that is not one question falls back to the template, and says so.
        server.responder = lambda p: "Who? Why?" if p.endswith("Question:") else _reply(p)
        other = KalmaBuilder(store, config, client=ChatClient(endpoint(server)))
        fallen = other.build(start, 0)
    assert isinstance(entry, KalmaEntry) and isinstance(fallen, KalmaEntry)
    assert entry.generation["method"] == "llm" and entry.generation["fallbacks"] == []
    assert entry.paragraph.startswith("In short, ") and "[qid" not in entry.paragraph
    assert entry.paragraph.count("They are known for") == 2
    assert entry.question_general == "Who are these people, and how did their lives meet?"
    assert fallen.generation["fallbacks"] == ["general question: response is not one question",
                                             "specific question: response is not one question"]
    assert fallen.question_general.startswith("Who are ")
