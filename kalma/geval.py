"""Text quality of cited answers with G-Eval (KaLMA §4.1, App. B.2, App. D Tables 14-17):
an LLM rates each answer 1 to 5 for coherence, consistency, fluency and relevance.

kgbench's own instructions (:data:`KGBENCH_GEVAL`, written for kgbench) rate the same
four qualities as the paper's tables; the paper's own instructions are not part of
kgbench: ``kalma score --geval --prompts FILE`` reads them from the user's copy
(:func:`load_geval_prompts`), e.g. BioKaLMA's ``prompt/gpteval_prompt.json``, a JSON
list of the four instructions in the order coherence, consistency, fluency, relevance
(the order of its ``auto_eval/GPT_EVAL.py``), or a JSON object keyed by those names.

An instruction is followed by the inputs, in kgbench's layout: the question, the
answer's text without its citation brackets and — for consistency, the one quality
judged against it — the knowledge the system was given, then a line asking for the
score. Requests go through :class:`llm.client.ChatClient` with its on-disk cache at
temperature 0 (App. B.2 uses temperature 0), so a rerun asks nothing twice and an
interrupted run resumes.

A reply is read by :func:`parse_rating`; one that gives no score from 1 to 5 is counted
as unparsed and left out of that metric's mean, never fatal.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kalma.entry import KalmaEntry
from llm.chat import ChatMessage
from llm.client import ChatClient
from llm.prompt_file import PromptFileError, read_prompt_json
from scoring.protocol import ProtocolName

__all__ = ["ASPECTS", "GEVAL_LAYOUT", "KGBENCH_GEVAL", "GevalItem", "GevalPrompts",
           "GevalScores", "geval_prompt", "geval_scores", "kgbench_geval_prompts",
           "knowledge_text", "load_geval_prompts", "parse_rating"]

ASPECTS = ("coherence", "consistency", "fluency", "relevance")
"""The four qualities (§4.1), in the order of the paper's Tables 14-17."""
SUFFIX_KEY = "suffix"
GEVAL_LAYOUT = ("a G-Eval prompt file is a JSON list of four instruction strings in the "
                "order coherence, consistency, fluency, relevance (BioKaLMA's "
                "gpteval_prompt.json), or a JSON object with those four keys and, "
                "optionally, a \"suffix\" string appended to each instruction")

_RATE = ("You rate one answer to a question on a single quality, on a scale from 1 (worst) "
         "to 5 (best).\n\n")
_GIVE = "3. Reply with one whole number from 1 to 5."

KGBENCH_GEVAL: Mapping[str, str] = {
    "coherence": _RATE + (
        "Quality: coherence. A coherent answer reads as one connected account: its sentences "
        "come in an order a reader can follow, each building on what came before, instead of "
        "a pile of loosely related facts.\n\nHow to rate:\n1. Read the question and note "
        "the topic it asks about.\n2. Read the answer and judge how well its sentences are "
        "ordered and linked around that topic.\n" + _GIVE),
    "consistency": _RATE + (
        "Quality: consistency. A consistent answer states nothing that the given knowledge "
        "contradicts, and no part of it contradicts another part.\n\nHow to rate:\n1. Read "
        "the question and the knowledge.\n2. Compare each statement of the answer with the "
        "knowledge and with the rest of the answer.\n" + _GIVE),
    "fluency": _RATE + (
        "Quality: fluency. A fluent answer is written in correct, natural language: its "
        "words, grammar and sentence structure let a reader take it in without effort.\n\n"
        "How to rate:\n1. Read the answer.\n2. Judge its wording and grammar only, not "
        "whether it is true.\n" + _GIVE),
    "relevance": _RATE + (
        "Quality: relevance. A relevant answer addresses what the question asks and adds "
        "nothing that does not help to answer it.\n\nHow to rate:\n1. Read the question."
        "\n2. Judge whether the answer answers all of it and whether any part is beside the "
        "point.\n" + _GIVE),
}
"""kgbench's own G-Eval instructions (the qualities of App. D Tables 14-17, in
kgbench's words)."""


@dataclass(frozen=True, slots=True)
class GevalPrompts:
    """The instruction of each quality and where they come from (``kgbench``, or the
    user's file)."""

    instructions: Mapping[str, str]
    source: str
    suffix: str = ""
    """Text appended to every instruction (the file's ``"suffix"``): BioKaLMA's
    ``GPT_EVAL.py`` appends a sentence asking for one integer, which is not kgbench's
    to ship; copy it there from your copy of the script."""

    def instruction(self, aspect: str) -> str:
        """The instruction of ``aspect`` with the suffix."""
        return self.instructions[aspect] + self.suffix


def kgbench_geval_prompts() -> GevalPrompts:
    """kgbench's own instructions (the default of ``kalma score --geval``)."""
    return GevalPrompts(dict(KGBENCH_GEVAL), "kgbench")


def load_geval_prompts(path: Path) -> GevalPrompts:
    """The instructions of the user's file ``path`` (:data:`GEVAL_LAYOUT`). Raises
    :class:`~llm.prompt_file.PromptFileError` naming the file and what it lacks."""
    doc = read_prompt_json(path, layout=GEVAL_LAYOUT)
    if isinstance(doc, list):
        if len(doc) != len(ASPECTS):
            raise PromptFileError(f"{path}: {len(doc)} instructions where G-Eval needs "
                                  f"{len(ASPECTS)} ({', '.join(ASPECTS)})", GEVAL_LAYOUT)
        doc = dict(zip(ASPECTS, doc, strict=True))
    if not isinstance(doc, dict):
        raise PromptFileError(f"{path}: not a G-Eval prompt file (no JSON list or object)",
                              GEVAL_LAYOUT)
    suffix = doc.get(SUFFIX_KEY, "")
    if not isinstance(suffix, str):
        raise PromptFileError(f"{path}: the {SUFFIX_KEY!r} is not a string", GEVAL_LAYOUT)
    missing = [aspect for aspect in ASPECTS if aspect not in doc]
    if missing:
        raise PromptFileError(f"{path}: no {' and no '.join(map(repr, missing))} "
                              "instruction", GEVAL_LAYOUT)
    for aspect in ASPECTS:
        if not isinstance(doc[aspect], str) or not doc[aspect].strip():
            raise PromptFileError(f"{path}: the {aspect} instruction is not a non-empty "
                                  "string", GEVAL_LAYOUT)
    return GevalPrompts({aspect: doc[aspect] for aspect in ASPECTS}, str(path), suffix)


@dataclass(frozen=True, slots=True)
class GevalItem:
    """What G-Eval reads of one answer."""

    question: str
    answer: str
    knowledge: str


def knowledge_text(entry: KalmaEntry) -> str:
    """The entry's knowledge pool as the answering prompt shows it (App. D Table 13):
    one ``{name: ..., relation: value, ..., qid: ...}`` per subject."""
    by_subject: dict[str, list[str]] = defaultdict(list)
    names: dict[str, str] = {}
    for k in entry.knowledge_pool:
        names.setdefault(k.subject_id, k.subject_name)
        by_subject[k.subject_id].append(f"{k.relation}: {k.object}")
    return " ".join("{" + ", ".join([f"name: {names[s]}", *facts, f"qid: {s}"]) + "}"
                    for s, facts in by_subject.items())


def geval_prompt(aspect: str, item: GevalItem, prompts: GevalPrompts | None = None) -> str:
    """The request for one quality of one answer: the instruction (kgbench's, or
    ``prompts``'), then the inputs and the line that asks for the score."""
    inputs = [f"Question:\n{item.question}"]
    if aspect == "consistency":
        inputs.append(f"Knowledge:\n{item.knowledge}")
    inputs.append(f"Answer:\n{item.answer}")
    instruction = (prompts or kgbench_geval_prompts()).instruction(aspect)
    return (instruction + "\n\n" + "\n\n".join(inputs)
            + f"\n\n{aspect.capitalize()} score (1 to 5):")


_NUMBER = r"([1-5](?:\.\d+)?)(?![\d.]*\d)"


def parse_rating(reply: str, aspect: str) -> float | None:
    """The score a reply gives, 1 to 5, or ``None``. Read, in this order: a number after
    the metric's name or "score" (``Coherence: 4``, ``Score - 4.5``); a reply that is a
    number alone; the one number of a reply that holds a single number. So "On a scale
    of 1 to 5, 4" is unparsed rather than misread as 1."""
    text = reply.strip()
    named = re.search(rf"(?:{re.escape(aspect)}|score)\s*(?:is|of|[:=\-])?\s*\**\s*{_NUMBER}",
                      text, re.IGNORECASE)
    if named:
        return float(named.group(1))
    alone = re.fullmatch(rf"\**{_NUMBER}\**\.?", text)
    if alone:
        return float(alone.group(1))
    numbers = re.findall(r"\d+(?:\.\d+)?", text)
    if len(numbers) == 1 and 1.0 <= float(numbers[0]) <= 5.0:
        return float(numbers[0])
    return None


@dataclass(frozen=True, slots=True)
class GevalScores:
    """The mean score per metric (``None`` when no reply gave one), the replies that
    gave none, and the answers rated."""

    means: dict[str, float | None]
    unparsed: dict[str, int]
    answers: int
    model: str
    prompts: str = "kgbench"
    """Where the instructions came from: ``kgbench``, or the user's file."""

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "prompts": self.prompts, "answers": self.answers,
                **{aspect: self.means[aspect] for aspect in ASPECTS},
                "unparsed": dict(self.unparsed)}


def geval_scores(items: Sequence[GevalItem], client: ChatClient, *, parallel: int = 4,
                 prompts: GevalPrompts | None = None, protocol: ProtocolName = "kgbench",
                 progress: Callable[[int], None] | None = None) -> GevalScores:
    """Each item rated on the four metrics (one request each, ``parallel`` in flight)
    with ``prompts`` (default: kgbench's own). ``kgbench``: kgbench's message, replies
    read by :func:`parse_rating`, each metric the mean of the replies that gave a score.
    ``released``: the message and reading of BioKaLMA's script
    (:mod:`kalma.geval_released`), a reply without a score counted as 3, every reply in
    the mean. A failed request raises the client's :class:`~llm.errors.LLMError`; the
    replies received so far are cached."""
    chosen = prompts or kgbench_geval_prompts()
    jobs = [(aspect, item) for item in items for aspect in ASPECTS]
    if protocol == "released":
        from kalma.geval_released import released_messages, released_rating

        def messages(aspect: str, item: GevalItem) -> list[ChatMessage]:
            return released_messages(aspect, item, chosen)

        def read(reply: str, aspect: str) -> tuple[float | None, bool]:
            return released_rating(reply)
    else:
        def messages(aspect: str, item: GevalItem) -> list[ChatMessage]:
            return [ChatMessage("user", geval_prompt(aspect, item, chosen))]

        def read(reply: str, aspect: str) -> tuple[float | None, bool]:
            rating = parse_rating(reply, aspect)
            return rating, rating is not None

    def ask(job: tuple[str, GevalItem]) -> tuple[float | None, bool]:
        aspect, item = job
        reply = client.complete(messages(aspect, item)).content
        if progress is not None:
            progress(1)
        return read(reply, aspect)

    pool = ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="geval")
    try:
        ratings = list(pool.map(ask, jobs))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    given: dict[str, list[float]] = {aspect: [] for aspect in ASPECTS}
    unparsed = dict.fromkeys(ASPECTS, 0)
    for (aspect, _item), (rating, parsed) in zip(jobs, ratings, strict=True):
        unparsed[aspect] += not parsed
        if rating is not None:
            given[aspect].append(rating)
    empty = math.nan if protocol == "released" else None
    means = {aspect: (sum(v) / len(v) if v else empty) for aspect, v in given.items()}
    return GevalScores(means, unparsed, len(items), client.endpoint.model, chosen.source)
