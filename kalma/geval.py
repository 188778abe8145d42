"""Text quality of cited answers with G-Eval (KaLMA §4.1, App. B.2, App. D Tables 14-17):
an LLM rates each answer 1 to 5 for coherence, consistency, fluency and relevance.

The four instructions are the paper's (Tables 14-17, the same text as BioKaLMA's
``prompt_gpteval_prompt.json``). The tables end at the evaluation steps; the inputs are
appended in G-Eval's own layout (Liu et al., 2023: the inputs, then "Evaluation Form
(scores ONLY):" and the metric's name), with the question, the answer's text without
its citation brackets, and — for consistency, the one metric whose steps read it — the
knowledge the system was given. Requests go through :class:`llm.client.ChatClient` with
its on-disk cache at temperature 0 (App. B.2 uses temperature 0), so a rerun asks
nothing twice and an interrupted run resumes.

A reply is read by :func:`parse_rating`; one that gives no score from 1 to 5 is counted
as unparsed and left out of that metric's mean, never fatal.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from kalma.entry import KalmaEntry
from llm.chat import ChatMessage
from llm.client import ChatClient

__all__ = ["ASPECTS", "GEVAL_INSTRUCTIONS", "GevalItem", "GevalScores", "geval_prompt",
           "geval_scores", "knowledge_text", "parse_rating"]

_PREAMBLE = ("You will be given one question and answer. Your task is to rate the answer on "
             "one metric. Please make sure you read and understand these instructions "
             "carefully. Please keep this document open while reviewing, and refer to it as "
             "needed. \nEvaluation Criteria:\n")
_ASSIGN = ("3. Assign a score for {aspect} on a scale of 1 to 5, where 1 is the lowest and 5 "
           "is the highest based on the Evaluation Criteria.")

GEVAL_INSTRUCTIONS: dict[str, str] = {
    "coherence": _PREAMBLE + (
        "Coherence (1-5) - the collective quality of all sentences. We align this dimension "
        "with the DUC quality question of structure and coherence whereby the answer should "
        "be well-structured and well-organized. The answer should not just be a heap of "
        "related information, but should build from sentence to sentence to a coherent "
        "body of information about a topic.\nEvaluation Steps:\n1. Read the questions "
        "carefully and identify the main topic and key points.\n2. Read the answer and "
        "compare it to the question. Check if the answer covers the main topic and key "
        "points of the question, and if it presents them in a clear and logical order.\n"
        + _ASSIGN.format(aspect="coherence")),
    "consistency": _PREAMBLE + (
        "Consistency (1-5) - the answer should be consistent with the given knowledge. The "
        "answer should also be self-consistent, without any contradiction to itself.\n"
        "Evaluation Steps:\n1. Read the question and knowledge carefully.\n2. Read the "
        "answer and compare it to the knowledge. Check if the answer is consistent with "
        "the give knowledge.\n" + _ASSIGN.format(aspect="consistency")),
    "fluency": _PREAMBLE + (
        "Fluency (1-5) - the answer should be written in fluent language. The answer should "
        "use appropriate vocabulary, grammar, and sentence structures that enable readers "
        "or listeners to comprehend the content effortlessly.\nEvaluation Steps:\n1. Read "
        "the question carefully.\n2. Read the answer and check if the language in the "
        "answer is fluent.\n" + _ASSIGN.format(aspect="fluency")),
    "relevance": _PREAMBLE + (
        "Relevance (1-5) - the answer should be relevant to the question. The answer "
        "should directly answers the question, without providing any irrelevant "
        "information.\nEvaluation Steps:\n1. Read the question carefully.\n2. Read the "
        "answer and compare with the question to check if it fully answers the question "
        "and have no redundancies.\n" + _ASSIGN.format(aspect="relevance")),
}
"""App. D Tables 14-17, word for word (their typos kept: they are the paper's prompt)."""

ASPECTS = tuple(GEVAL_INSTRUCTIONS)
"""coherence, consistency, fluency, relevance (§4.1)."""


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


def geval_prompt(aspect: str, item: GevalItem) -> str:
    """The request for one metric of one answer: the paper's instruction, then the
    inputs and G-Eval's evaluation form."""
    inputs = [f"Question:\n{item.question}"]
    if aspect == "consistency":
        inputs.append(f"Knowledge:\n{item.knowledge}")
    inputs.append(f"Answer:\n{item.answer}")
    return (GEVAL_INSTRUCTIONS[aspect] + "\n\n" + "\n\n".join(inputs)
            + f"\n\nEvaluation Form (scores ONLY):\n- {aspect.capitalize()}:")


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

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "answers": self.answers,
                **{aspect: self.means[aspect] for aspect in ASPECTS},
                "unparsed": dict(self.unparsed)}


def geval_scores(items: Sequence[GevalItem], client: ChatClient, *, parallel: int = 4,
                 progress: Callable[[int], None] | None = None) -> GevalScores:
    """Each item rated on the four metrics (one request each, ``parallel`` in flight),
    averaged per metric over the replies that gave a score. A failed request raises the
    client's :class:`~llm.errors.LLMError`; the replies received so far are cached."""
    jobs = [(aspect, item) for item in items for aspect in ASPECTS]

    def ask(job: tuple[str, GevalItem]) -> float | None:
        aspect, item = job
        reply = client.complete([ChatMessage("user", geval_prompt(aspect, item))]).content
        if progress is not None:
            progress(1)
        return parse_rating(reply, aspect)

    pool = ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="geval")
    try:
        ratings = list(pool.map(ask, jobs))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    given: dict[str, list[float]] = {aspect: [] for aspect in ASPECTS}
    unparsed = dict.fromkeys(ASPECTS, 0)
    for (aspect, _item), rating in zip(jobs, ratings, strict=True):
        if rating is None:
            unparsed[aspect] += 1
        else:
            given[aspect].append(rating)
    means = {aspect: (sum(v) / len(v) if v else None) for aspect, v in given.items()}
    return GevalScores(means, unparsed, len(items), client.endpoint.model)
