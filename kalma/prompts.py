"""The LLM side of KaLMA generation: the prompts of the four rounds of App. D (Tables
9–12), sent through :class:`llm.client.ChatClient` (the client and response cache that
``kgbench generate --llm-url`` uses), and each reply checked before it is used.

* annotate (the purpose of Table 9, the first round): mark the opening sentence(s) with
  knowledge of the pool. kgbench has no human-written biography sentence (App. A.1
  takes it from the biographical database), so the sentence is the templated text of
  the pair's link.
* extend (Table 10, rounds 2 to 5): extend the paragraph by one sentence holding the
  knowledge that Eq. 1 chose.
* general_question and specific_question (Tables 11 and 12): the general and the
  specific question of the final paragraph.

kgbench's own prompts (:func:`kgbench_generation_prompts`) are written for kgbench,
with a demonstration of its own; they ask for the same thing as the paper's tables. The
paper's prompts are not part of kgbench: ``kalma generate --prompts FILE`` reads a copy
the user made (:func:`load_generation_prompts`, layout :data:`GENERATION_LAYOUT`).

The model writes annotations (``[qid: Q7259, place of birth: London]``) as the
demonstrations do; the paragraph keeps the text without them. A reply that is empty,
more than one paragraph, cut off, misses the knowledge it had to add, or (for a
question) is not exactly one question, is replaced by the template text, and
:meth:`QuestionWriter.take_fallbacks` says where and why; the entry's ``generation``
records it. Errors of the endpoint itself (:class:`llm.errors.LLMError`) stop the run:
every reply so far is cached, so a rerun resumes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extension.verbalize.llm_checks import clean_reply, reply_problem
from kalma.entry import Knowledge, normalized_text
from kalma.pool import is_citable
from llm.chat import ChatMessage
from llm.client import ChatClient
from llm.prompt_file import (
    PromptFileError,
    PromptTemplate,
    prompts_digest,
    read_prompt_json,
    template_of,
)

__all__ = ["GENERATION_LAYOUT", "GENERATION_SLOTS", "GenerationPrompts", "QuestionWriter",
           "annotate_messages", "check_paragraph", "check_question", "extend_messages",
           "kgbench_generation_prompts", "knowledge_dict", "load_generation_prompts",
           "question_messages", "strip_annotations"]

GENERATION_SLOTS: Mapping[str, tuple[str, ...]] = {
    "annotate": ("sentence", "knowledge"),
    "extend": ("paragraph", "knowledge"),
    "general_question": ("paragraph",),
    "specific_question": ("paragraph",)}
"""The four prompts of a generation prompt file and the slots each must hold."""
GENERATION_LAYOUT = ('a generation prompt file is a JSON object with four strings: "annotate" '
                     '(slots {sentence} and {knowledge}), "extend" ({paragraph} and '
                     '{knowledge}), "general_question" and "specific_question" ({paragraph})')

_DEMO_FACTS = ("{qid: Q7259, name: Ada Lovelace, place of birth: London, date of birth: "
               "1815-12-10, father: Lord Byron, occupation: mathematician} {qid: Q5679, name: "
               "Lord Byron, occupation: poet, child: Ada Lovelace}")
_DEMO_OPENING = ("Ada Lovelace [qid: Q7259, name: Ada Lovelace] was born in London [qid: Q7259, "
                 "place of birth: London] in 1815 [qid: Q7259, date of birth: 1815-12-10].")
_DEMO_PARAGRAPH = ("Ada Lovelace was born in London in 1815, the only legitimate child of the "
                   "poet Lord Byron. She worked as a mathematician and died in 1852.")

_KGBENCH_PROMPTS: Mapping[str, str] = {
    "annotate": (
        "Task: show which of the given facts each part of a sentence states. Copy the "
        "sentence word for word; right after a phrase that states one of the facts, add that "
        "fact in square brackets as [qid: ID, relation: value]. Phrases that state none of the "
        "facts stay unmarked.\n\n"
        "Sentence: Ada Lovelace was born in London in 1815, the only legitimate child of the "
        "poet Lord Byron.\n\n"
        f"Facts: {_DEMO_FACTS}\n\n"
        "Marked sentence: Ada Lovelace [qid: Q7259, name: Ada Lovelace] was born in London "
        "[qid: Q7259, place of birth: London] in 1815 [qid: Q7259, date of birth: 1815-12-10], "
        "the only legitimate child of the poet [qid: Q5679, occupation: poet] Lord Byron "
        "[qid: Q7259, father: Lord Byron].\n\n"
        "Sentence: {sentence}\n\nFacts: {knowledge}\n\nMarked sentence:"),
    "extend": (
        "Task: repeat the paragraph unchanged, then add exactly one new sentence that states "
        "the given fact, marked right after the phrase that states it as [qid: ID, relation: "
        "value].\n\n"
        f"Paragraph: {_DEMO_OPENING}\n\n"
        "Fact: {qid: Q7259, name: Ada Lovelace, occupation: mathematician}\n\n"
        f"Extended paragraph: {_DEMO_OPENING} She worked as a mathematician [qid: Q7259, "
        "occupation: mathematician].\n\n"
        "Paragraph: {paragraph}\n\nFact: {knowledge}\n\nExtended paragraph:"),
    "general_question": (
        "Task: write the question that the paragraph answers. Ask a single question, as short "
        "as it can be while the whole paragraph still answers it.\n\n"
        f"Paragraph: {_DEMO_PARAGRAPH}\n\n"
        "Question: Who was Ada Lovelace?\n\n"
        "Paragraph: {paragraph}\n\nQuestion:"),
    "specific_question": (
        "Task: write one question that the paragraph answers and that names the particular "
        "things it tells, so that a shorter text would not answer it as well. Keep it to one "
        "readable sentence rather than a list of every detail.\n\n"
        f"Paragraph: {_DEMO_PARAGRAPH}\n\n"
        "Question: Where and when was Ada Lovelace born, who was her father, and what was her "
        "profession?\n\n"
        "Paragraph: {paragraph}\n\nQuestion:"),
}
"""kgbench's own prompts for App. D's four rounds (their purpose; the words and the
demonstration are kgbench's)."""


@dataclass(frozen=True, slots=True)
class GenerationPrompts:
    """The four prompts of a generation run (see the module docstring) and where they
    come from (``kgbench``, or the user's file)."""

    annotate: PromptTemplate
    extend: PromptTemplate
    general_question: PromptTemplate
    specific_question: PromptTemplate
    source: str

    def fingerprint(self) -> dict[str, str]:
        """What a run records of its prompts: their source and a digest of their text,
        so a rerun with other prompts is not taken for the same run."""
        texts = (self.annotate.text, self.extend.text, self.general_question.text,
                 self.specific_question.text)
        return {"source": self.source, "digest": prompts_digest(texts)}


def _generation_prompts(doc: Any, source: str) -> GenerationPrompts:
    if not isinstance(doc, dict):
        raise PromptFileError(f"{source}: not a generation prompt file (no JSON object)",
                              GENERATION_LAYOUT)
    templates = {key: template_of(doc, key, slots, source=source, layout=GENERATION_LAYOUT)
                 for key, slots in GENERATION_SLOTS.items()}
    return GenerationPrompts(**templates, source=source)


def kgbench_generation_prompts() -> GenerationPrompts:
    """kgbench's own prompts (the default of ``kalma generate --llm-url``)."""
    return _generation_prompts(dict(_KGBENCH_PROMPTS), "kgbench")


def load_generation_prompts(path: Path) -> GenerationPrompts:
    """The prompts of the user's file ``path`` (:data:`GENERATION_LAYOUT`; e.g. App. D
    Tables 9–12 copied from the paper, each table's input lines replaced by the slots).
    Raises :class:`~llm.prompt_file.PromptFileError` naming the file and what it lacks."""
    return _generation_prompts(read_prompt_json(path, layout=GENERATION_LAYOUT), str(path))


POOL_IN_PROMPT = 60
"""Most pieces of one entity's pool shown in the first round's prompt (BioKaLMA's entity dicts
hold a few dozen; a Freebase actor can have hundreds of film credits)."""

_ANNOTATION = re.compile(r"\s*\[(?:qid:|Q\d+|NA\])[^\[\]]*\]?")


def knowledge_dict(items: Sequence[Knowledge]) -> str:
    """BioKaLMA's entity dict as the prompts show it: ``{qid: Q7259, name: Ada Lovelace,
    place of birth: London, ...}``, for knowledge of one subject."""
    if not items:
        return "{}"
    head = f"qid: {items[0].subject_id}, name: {items[0].subject_name}"
    return "{" + ", ".join([head, *(f"{k.relation}: {k.object}" for k in items)]) + "}"


def _pool_dicts(pools: Sequence[Sequence[Knowledge]]) -> str:
    return " ".join(knowledge_dict([k for k in pool if is_citable(k)][:POOL_IN_PROMPT])
                    for pool in pools if pool)


def _message(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


def annotate_messages(sentence: str, pools: Sequence[Sequence[Knowledge]],
                      prompts: GenerationPrompts | None = None) -> list[ChatMessage]:
    """The first round for ``sentence`` and the entities' pools."""
    prompt = (prompts or kgbench_generation_prompts()).annotate
    return _message(prompt.render(sentence=sentence, knowledge=_pool_dicts(pools)))


def extend_messages(paragraph: str, knowledge: Knowledge,
                    prompts: GenerationPrompts | None = None) -> list[ChatMessage]:
    """A later round: extend ``paragraph`` with one sentence holding ``knowledge``."""
    prompt = (prompts or kgbench_generation_prompts()).extend
    return _message(prompt.render(paragraph=paragraph, knowledge=knowledge_dict([knowledge])))


def question_messages(paragraph: str, *, specific: bool,
                      prompts: GenerationPrompts | None = None) -> list[ChatMessage]:
    """The general or the specific question for ``paragraph``."""
    chosen = prompts or kgbench_generation_prompts()
    prompt = chosen.specific_question if specific else chosen.general_question
    return _message(prompt.render(paragraph=paragraph))


def strip_annotations(text: str) -> str:
    """The text of an annotated answer without its ``[qid: …]`` / ``[Q… , …]`` marks,
    spacing before punctuation tidied."""
    plain = _ANNOTATION.sub("", text)
    plain = re.sub(r"\s+([.,;:!?])", r"\1", plain)
    return " ".join(plain.split())


def check_paragraph(text: str, finish_reason: str | None, must_mention: Sequence[str],
                    previous: str = "") -> str | None:
    """Why a paragraph reply is unusable, or None: see :func:`reply_problem`; it must
    mention every value of ``must_mention`` (the knowledge it adds) and be longer than
    the ``previous`` paragraph it extends."""
    problem = reply_problem(text, finish_reason, max_chars=max(2000, 4 * len(previous) + 600))
    if problem:
        return problem
    said = normalized_text(text)
    missing = [m for m in must_mention if normalized_text(m) not in said]
    if missing:
        return f"response does not mention {', '.join(missing)}"
    if len(text) <= len(previous):
        return "response adds nothing to the paragraph"
    return None


def check_question(text: str, finish_reason: str | None) -> str | None:
    """Why a question reply is unusable, or None: :func:`reply_problem`, and it must be
    exactly one question (one ``?``, at its end)."""
    problem = reply_problem(text, finish_reason, max_chars=500)
    if problem:
        return problem
    if not text.endswith("?") or text.count("?") != 1:
        return "response is not one question"
    return None


class QuestionWriter:
    """The LLM rounds of one run (see the module docstring); not thread-safe (one per
    worker)."""

    def __init__(self, client: ChatClient, prompts: GenerationPrompts | None = None) -> None:
        self.client = client
        self.prompts = prompts or kgbench_generation_prompts()
        self._fallbacks: list[str] = []

    def take_fallbacks(self) -> list[str]:
        """Where template text replaced a reply since the last call, and why."""
        taken, self._fallbacks = self._fallbacks, []
        return taken

    def _ask(self, part: str, messages: list[ChatMessage],
             check: Callable[[str, str | None], str | None]) -> str | None:
        reply = self.client.complete(messages)
        text = clean_reply(reply.content)
        why = check(text, reply.finish_reason)
        if why:
            self._fallbacks.append(f"{part}: {why}")
            return None
        return text

    def annotate(self, sentence: str, link: Sequence[Knowledge],
                 pools: Sequence[Sequence[Knowledge]]) -> str:
        """Round 1 (Table 9): the opening sentence as the model writes it, without its
        annotations; ``sentence`` itself when the reply is unusable."""
        wanted = [k.object for k in link]
        text = self._ask("round 1", annotate_messages(sentence, pools, self.prompts),
                         lambda t, f: check_paragraph(strip_annotations(t), f, wanted))
        return sentence if text is None else strip_annotations(text)

    def extend(self, paragraph: str, knowledge: Knowledge, template_sentence: str) -> str:
        """A later round (Table 10): the paragraph with one sentence more; the template
        sentence appended when the reply is unusable."""
        text = self._ask(f"round with {knowledge.relation}",
                         extend_messages(paragraph, knowledge, self.prompts),
                         lambda t, f: check_paragraph(strip_annotations(t), f,
                                                      [knowledge.object], paragraph))
        return f"{paragraph} {template_sentence}" if text is None else strip_annotations(text)

    def questions(self, paragraph: str, general_template: str,
                  specific_template: str) -> tuple[str, str]:
        """The general (Table 11) and specific (Table 12) questions; each falls back to
        its template when the reply is unusable."""
        general = self._ask("general question", question_messages(
            paragraph, specific=False, prompts=self.prompts), check_question)
        specific = self._ask("specific question", question_messages(
            paragraph, specific=True, prompts=self.prompts), check_question)
        return general or general_template, specific or specific_template
