"""The prompts of ``kalma generate --llm-url``: kgbench's own by default, a user's file
with ``--prompts`` (checked: a wrong file is one line naming what it lacks), the paper's
App. D prompts through that route (built here from the shared copy of the paper, never
stored in kgbench), and a run that records which prompts wrote it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from extension.inputs.domain_spec import DomainSpec
from kalma.builder import BuildConfig
from kalma.errors import KalmaError
from kalma.generate import generate_entries
from kalma.prompts import (
    GENERATION_SLOTS,
    annotate_messages,
    kgbench_generation_prompts,
    load_generation_prompts,
)
from llm.prompt_file import PromptFileError, PromptTemplate
from tests.external import shared_path
from tests.kalma.stores import demo_store  # noqa: F401
from tests.kalma.test_cli_generate import one_error
from tests.kgbench.test_cli import run
from tests.llm.chat_server import FakeChatServer, endpoint

PEOPLE = DomainSpec("type", "people.person")

OWN = {"annotate": "ROUND ONE\nSentence <{sentence}>\nFacts <{knowledge}>\nAnswer:",
       "extend": "LATER ROUND\nParagraph <{paragraph}>\nFact <{knowledge}>\nAnswer:",
       "general_question": "GENERAL\n<{paragraph}>\nQuestion:",
       "specific_question": "SPECIFIC\n<{paragraph}>\nQuestion:"}


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_slots_are_filled_once_and_nothing_else_is_read() -> None:
    template = PromptTemplate("t", "a {sentence} b {knowledge} {qid: Q1} {other} {}", "x")
    assert template.slots == {"sentence", "knowledge", "other"}
    # A value holding a slot's name is not filled again; braces of the text stay.
    assert template.render(sentence="{knowledge}", knowledge="K") == \
        "a {knowledge} b K {qid: Q1} {other} {}"
    # A user's text never reaches str.format: attribute lookups stay text.
    assert PromptTemplate("t", "{0.__class__} {sentence}", "x").render(sentence="s") == \
        "{0.__class__} s"


def test_kgbench_prompts_hold_every_slot_and_render_the_knowledge() -> None:
    ours = kgbench_generation_prompts()
    for key, slots in GENERATION_SLOTS.items():
        assert set(slots) <= getattr(ours, key).slots, key
    assert ours.source == "kgbench" and len(ours.fingerprint()["digest"]) == 16
    (message,) = annotate_messages("Ann was born in Oslo.", [])
    assert message.content.endswith("Sentence: Ann was born in Oslo.\n\nFacts: \n\n"
                                     "Marked sentence:")


@pytest.mark.parametrize(("doc", "says"), [
    ({k: v for k, v in OWN.items() if k != "extend"}, "no 'extend' prompt"),
    ({**OWN, "extend": "Paragraph <{paragraph}>"}, "prompt 'extend' has no {knowledge} slot"),
    ({**OWN, "annotate": "nothing"}, "prompt 'annotate' has no {sentence} and {knowledge} slots"),
    ({**OWN, "general_question": 3}, "prompt 'general_question' is not a non-empty string"),
    ([OWN], "not a generation prompt file (no JSON object)"),
])
def test_a_wrong_file_is_one_line_naming_what_is_missing(tmp_path: Path, doc: object,
                                                         says: str) -> None:
    path = write(tmp_path / "prompts.json", doc)
    with pytest.raises(PromptFileError) as info:
        load_generation_prompts(path)
    assert str(info.value) == f"{path}: {says}"
    assert "annotate" in str(info.value.hint) and "{paragraph}" in str(info.value.hint)


def test_a_users_prompts_write_the_text_and_are_part_of_the_run(
        demo_store: str, server: FakeChatServer, tmp_path: Path) -> None:  # noqa: F811
    server.responder = lambda prompt: "Who?"   # every reply falls back: only the asks matter
    prompts = load_generation_prompts(write(tmp_path / "mine.json", OWN))
    config = BuildConfig(domain=PEOPLE, n=1, seed=1, iterations=2)
    cache = tmp_path / "cache"
    generate_entries(demo_store, config, tmp_path / "out", llm=endpoint(server),
                     llm_cache=cache, prompts=prompts)
    sent = [r.body["messages"][0]["content"] for r in server.received]
    assert [m.split("\n")[0] for m in sent] == ["ROUND ONE", "LATER ROUND", "GENERAL",
                                               "SPECIFIC"]
    assert re.fullmatch(r"ROUND ONE\nSentence <[^<>]+>\nFacts <\{qid: .+\}>\nAnswer:", sent[0],
                        re.S)
    run = json.loads((tmp_path / "out" / "run.json").read_text("utf-8"))
    assert run["prompts"] == str(tmp_path / "mine.json")
    assert run["fingerprint"]["prompts"] == prompts.fingerprint()
    # The same output directory with kgbench's prompts is another run: refused, saying why.
    with pytest.raises(KalmaError, match="--prompts"):
        generate_entries(demo_store, config, tmp_path / "out", llm=endpoint(server),
                         llm_cache=cache)


def test_the_cli_checks_the_prompts_before_it_starts(
        demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    good = write(tmp_path / "mine.json", OWN)
    proc = run("kalma", "generate", "--store", demo_store, "--domain", "people.person",
               "--n", "1", "--out", tmp_path / "a", "--prompts", good)
    assert proc.returncode == 2 and "--prompts needs --llm-url" in proc.stderr
    bad = write(tmp_path / "bad.json", {**OWN, "extend": "no slots here"})
    error = one_error(run("kalma", "generate", "--store", demo_store, "--domain",
                          "people.person", "--n", "1", "--out", tmp_path / "b",
                          "--llm-url", "http://127.0.0.1:9/v1", "--llm-model", "m",
                          "--prompts", bad))
    assert f"{bad}: prompt 'extend' has no {{paragraph}} and {{knowledge}} slots" in error
    assert not (tmp_path / "b").exists()
    error = one_error(run("kalma", "generate", "--store", demo_store, "--domain",
                          "people.person", "--n", "1", "--out", tmp_path / "c",
                          "--llm-url", "http://127.0.0.1:9/v1", "--llm-model", "m",
                          "--prompts", tmp_path / "missing.json"))
    assert "missing.json: no such prompt file" in error


def paper_generation_prompts(path: Path) -> Path:
    """App. D Tables 9–12 as a user would copy them from the paper into a prompt file:
    each table's instruction and demonstration, then its input lines with the slots.
    Read from the shared copy of the paper; written only under the test's tmp_path."""
    text = shared_path("papers", "000_53a4b7a99ac34308.txt").read_text("utf-8")
    tables = re.findall(r"\n(Instruction: Your objective.*?)\n\nTable (9|10|11|12):", text,
                        re.S)
    assert [number for _, number in tables] == ["9", "10", "11", "12"]
    body = {number: table for table, number in tables}
    return write(path, {
        "annotate": body["9"] + "\n\nsentence: {sentence}\n\nknowledge: {knowledge}\n\n"
                                "Generated Answer:",
        "extend": body["10"] + "\n\nanswer: {paragraph} knowledge: {knowledge}\n\n"
                               "Generated Answer:",
        "general_question": body["11"] + "\n\nParagraph: {paragraph}\n\nGenerated Question:",
        "specific_question": body["12"] + "\n\nParagraph: {paragraph}\n\nGenerated Question:"})


@pytest.mark.external
def test_the_papers_prompts_through_the_prompts_file(
        demo_store: str, server: FakeChatServer, tmp_path: Path) -> None:  # noqa: F811
    path = paper_generation_prompts(tmp_path / "kalma-app-d.json")
    server.responder = lambda prompt: "Who?"
    proc = run("kalma", "generate", "--store", demo_store, "--domain", "people.person",
               "--n", "1", "--iterations", "2", "--seed", "1", "--out", tmp_path / "out",
               "--llm-url", server.url, "--llm-model", "m", "--llm-cache",
               tmp_path / "cache", "--prompts", path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(path.read_text("utf-8"))
    sent = [r.body["messages"][0]["content"] for r in server.received]
    assert len(sent) == 4
    for message, key in zip(sent, GENERATION_SLOTS, strict=True):
        first_slot = min(doc[key].index("{" + slot + "}") for slot in GENERATION_SLOTS[key])
        assert message.startswith(doc[key][:first_slot]), key
