"""The LLM side of KaLMA generation: the paper's prompts (App. D, Tables 9–12, verbatim
with their one human-written demonstration) sent through :class:`llm.client.ChatClient`,
the client and response cache that ``kgbench generate --llm-url`` uses, and each reply
checked before it is used.

* Table 9, the first round: annotate the opening sentence(s) with knowledge of the
  pool. kgbench has no human-written biography sentence (App. A.1 takes it from the
  biographical database), so the sentence is the templated text of the pair's link.
* Table 10, rounds 2 to 5: extend the paragraph by one sentence holding the knowledge
  that Eq. 1 chose.
* Tables 11 and 12: the general and the specific question of the final paragraph.

The model writes annotations (``[qid: Q212657, place of birth: Rome]``) as the
demonstrations do; the paragraph keeps the text without them (Table 11's paragraph has
none). A reply that is empty, more than one paragraph, cut off, misses the knowledge it
had to add, or (for a question) is not exactly one question, is replaced by the
template text, and :meth:`QuestionWriter.take_fallbacks` says where and why; the entry's
``generation`` records it. Errors of the endpoint itself (:class:`llm.errors.LLMError`)
stop the run: every reply so far is cached, so a rerun resumes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from extension.verbalize.llm_checks import clean_reply, reply_problem
from kalma.entry import Knowledge, normalized_text
from kalma.pool import is_citable
from llm.chat import ChatMessage
from llm.client import ChatClient

__all__ = ["ANNOTATE_PROMPT", "EXTEND_PROMPT", "GENERAL_PROMPT", "SPECIFIC_PROMPT",
           "QuestionWriter", "annotate_messages", "check_paragraph", "check_question",
           "extend_messages", "knowledge_dict", "question_messages", "strip_annotations"]

ANNOTATE_PROMPT = """Instruction: Your objective is to select relevant knowledge to label the sentence and generate a question

sentence: Artemisia Gentileschi was born Artemisia Gentileschi Lomi in Rome on July 8 1593 although her birth certificate from the Archivio di Stato indicated she was born in 1590 the eldest child of the Tuscan painter Orazio Gentileschi and Prudenzia di Ottaviano Montoni.

knowledge: {qid: Q367360, name: Orazio Gentileschi, sex or gender: male, place of birth: Pisa, place of death: London, instance of: human, occupation: painter, child: Artemisia Gentileschi, described by source: The Great Theatre of Dutch Painters, notable works: Diana the Huntress, given name: Orazio, topic's main category: Category:Orazio Gentileschi, surname: Gentileschi, genre: portrait, languages spoken: Italian, movement: mannerism, work location: Rome, ethnic group: Italians, date of birth: 1563-07-19, date of death: 1639-02-07} {qid: Q212657, name: Artemisia Gentileschi, sex or gender: female, place of birth: Rome, place of death: Naples, instance of: human, occupation: painter, member of: Accademia delle Arti del Disegno, father: Orazio Gentileschi, described by source: The Great Theatre of Dutch Painters, notable works: Judith Slaying Holofernes, topic's main category: Category: Artemisia Gentileschi, movement: Caravaggisti, ethnic group: Italians, work location: Florence, depicted by: Artemisia, field of work: painting, surname: Gentileschi, genre: portrait, languages spoken: Italian, position held: court painter, student of: Orazio Gentileschi, spouse: Pierantonio Stiattesi, given name: Artemisia, mother: Prudenzia di Ottaviano Montoni, date of birth: 1596-07-08, date of death: 1654-01-01}

Generated Answer: Artemisia Gentileschi [qid: Q212657, name: Artemisia Gentileschi] was born Artemisia Gentileschi Lomi in Rome [qid: Q212657, place of birth: Rome] on July 8 1593 [qid: Q212657, date of birth: 1596-07-08] although her birth certificate from the Archivio di Stato indicated she was born in 1590 the eldest child of the Tuscan painter Orazio Gentileschi [qid: Q212657, father: Orazio Gentileschi] [qid: Q367360, name: Orazio Gentileschi, occupation: painter] and Prudenzia di Ottaviano Montoni.

sentence: {sentence}

knowledge: {knowledge}

Generated Answer:"""
"""KaLMA App. D Table 9: the first round of the evolutionary question construction."""

_DEMO_ANSWER = ("Artemisia Gentileschi [qid: Q212657, name: Artemisia Gentileschi] was born "
                "Artemisia Gentileschi Lomi in Rome [qid: Q212657, place of birth: Rome] on July "
                "8 1593 [qid: Q212657, date of birth: 1596-07-08] although her birth certificate "
                "from the Archivio di Stato indicated she was born in 1590 the eldest child of the "
                "Tuscan painter Orazio Gentileschi [qid: Q212657, father: Orazio Gentileschi] "
                "[qid: Q367360, name: Orazio Gentileschi, occupation: painter] and Prudenzia di "
                "Ottaviano Montoni.")

EXTEND_PROMPT = ("""Instruction: Your objective is to extend the original paragraph by adding one sentence that includes the given knowledge

answer: """ + _DEMO_ANSWER + """ knowledge: {qid: Q212657, name: Artemisia Gentileschi, notable works: Judith Slaying Holofernes}

Generated Answer: """ + _DEMO_ANSWER + """ Under the influence of her father, Artemisia Gentileschi created her iconic painting Judith Slaying Holofernes [qid: Q212657, notable works: Judith Slaying Holofernes] when she was around twenty years old.

answer: {paragraph} knowledge: {knowledge}

Generated Answer:""")
"""KaLMA App. D Table 10: rounds 2 to 5, extending the paragraph with one knowledge."""

_DEMO_PARAGRAPH = ("Artemisia Gentileschi was born Artemisia Gentileschi Lomi in Rome on July 8 1593 "
                   "although her birth certificate from the Archivio di Stato indicated she was "
                   "born in 1590 the eldest child of the Tuscan painter Orazio Gentileschi and "
                   "Prudenzia di Ottaviano Montoni. Her life and work were later depicted in the "
                   "film Ärtemisia; which brought her story to a wider audience. Her father, "
                   "Orazio, was a prominent figure in the Mannerism art movement, which likely "
                   "influenced Artemisia's own artistic style. However, Artemisia herself was a "
                   "part of the Caravaggisti movement, a group of artists who followed the style "
                   "of Caravaggio. She was also a student of her father, Orazio Gentileschi, which "
                   "further shaped her artistic development. Orazio's influence on Artemisia's "
                   "development as a prominent Baroque painter can be seen in her highly "
                   "naturalistic portrayal of figures, dramatic scenes and the use of chiaroscuro "
                   "technique")

GENERAL_PROMPT = ("""Instruction: Your objective is to ask a question whose answer is the given paragraph. There should be only one question when possible, if not, make sure the question is as concise as possible.

Paragraph: """ + _DEMO_PARAGRAPH + """

Generated Question: Who was Artemisia Gentileschi and what influences shaped her artistic style?

Paragraph: {paragraph}

Generated Question:""")
"""KaLMA App. D Table 11: the general question."""

SPECIFIC_PROMPT = ("""Instruction: Your objective is to ask a question whose answer is the given paragraph. The question should not be too tedious.

Paragraph: """ + _DEMO_PARAGRAPH + """

Generated Question: What were the key artistic influences and characteristics that shaped Artemisia Gentileschi's unique Baroque style, and how did her relationship with her father, Orazio Gentileschi, impact her artistic development?

Paragraph: {paragraph}

Generated Question:""")
"""KaLMA App. D Table 12: the specific question."""

POOL_IN_PROMPT = 60
"""Most pieces of one entity's pool shown in the Table 9 prompt (BioKaLMA's entity dicts
hold a few dozen; a Freebase actor can have hundreds of film credits)."""

_ANNOTATION = re.compile(r"\s*\[(?:qid:|Q\d+|NA\])[^\[\]]*\]?")


def knowledge_dict(items: Sequence[Knowledge]) -> str:
    """BioKaLMA's entity dict as the prompts show it: ``{qid: Q212657, name: Artemisia
    Gentileschi, place of birth: Rome, ...}``, for knowledge of one subject."""
    if not items:
        return "{}"
    head = f"qid: {items[0].subject_id}, name: {items[0].subject_name}"
    return "{" + ", ".join([head, *(f"{k.relation}: {k.object}" for k in items)]) + "}"


def _pool_dicts(pools: Sequence[Sequence[Knowledge]]) -> str:
    return " ".join(knowledge_dict([k for k in pool if is_citable(k)][:POOL_IN_PROMPT])
                    for pool in pools if pool)


def _message(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


def annotate_messages(sentence: str, pools: Sequence[Sequence[Knowledge]]) -> list[ChatMessage]:
    """Table 9 for ``sentence`` and the entities' pools."""
    return _message(ANNOTATE_PROMPT.replace("{sentence}", sentence)
                    .replace("{knowledge}", _pool_dicts(pools)))


def extend_messages(paragraph: str, knowledge: Knowledge) -> list[ChatMessage]:
    """Table 10: extend ``paragraph`` with one sentence holding ``knowledge``."""
    return _message(EXTEND_PROMPT.replace("{paragraph}", paragraph)
                    .replace("{knowledge}", knowledge_dict([knowledge])))


def question_messages(paragraph: str, *, specific: bool) -> list[ChatMessage]:
    """Table 11 (general) or Table 12 (specific) for ``paragraph``."""
    return _message((SPECIFIC_PROMPT if specific else GENERAL_PROMPT)
                    .replace("{paragraph}", paragraph))


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

    def __init__(self, client: ChatClient) -> None:
        self.client = client
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
        text = self._ask("round 1", annotate_messages(sentence, pools),
                         lambda t, f: check_paragraph(strip_annotations(t), f, wanted))
        return sentence if text is None else strip_annotations(text)

    def extend(self, paragraph: str, knowledge: Knowledge, template_sentence: str) -> str:
        """A later round (Table 10): the paragraph with one sentence more; the template
        sentence appended when the reply is unusable."""
        text = self._ask(f"round with {knowledge.relation}", extend_messages(paragraph, knowledge),
                         lambda t, f: check_paragraph(strip_annotations(t), f,
                                                      [knowledge.object], paragraph))
        return f"{paragraph} {template_sentence}" if text is None else strip_annotations(text)

    def questions(self, paragraph: str, general_template: str,
                  specific_template: str) -> tuple[str, str]:
        """The general (Table 11) and specific (Table 12) questions; each falls back to
        its template when the reply is unusable."""
        general = self._ask("general question", question_messages(paragraph, specific=False),
                            check_question)
        specific = self._ask("specific question", question_messages(paragraph, specific=True),
                             check_question)
        return general or general_template, specific or specific_template
