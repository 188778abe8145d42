"""G-Eval under ``kalma score --geval --protocol released``: the requests and the reading
of the replies of BioKaLMA's ``auto_eval/GPT_EVAL.py`` (lixinze777/Knowledge-aware-
Language-Model-Attribution at fa3ee26), re-implemented from reading it.

* **Which answers** (:func:`released_items`): the first :data:`RELEASED_GEVAL_ANSWERS`
  entries, in file order, whose knowledge text is not ``[]``; an entry without an
  answer is rated as an empty answer (the script reads its CSV with the ``csv`` module,
  where a missing answer is an empty string).
* **The request** (:func:`released_messages`): the instruction, with the prompt file's
  ``"suffix"`` appended (the script appends a sentence asking for one integer; that
  sentence is not kgbench's, so it comes from your file), as a *system* message; then
  one *user* message holding the question, the knowledge and the answer after the
  labels ``Question:``, ``Knowledge:`` and ``Answer:``, joined by the two characters
  ``/n`` (the script's, not a newline). The answer is its plain text
  (:func:`kalma.released.plain_text`); the knowledge is the entry's entity dicts as
  ``kalma export`` writes them (:func:`released_knowledge_text`).
* **The reply** (:func:`released_rating`): a reply over 20 characters is cut to its
  last 10; the first run of digits in what is left is the score; no digits score 3. A
  number above 5 is kept as it is: the script checks it with an ``assert`` only after
  assigning it, so a reply "7" scores 7 (and "0" scores 0).
* **The mean** of every rating, the fallback 3s included.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from kalma.biokalma import biokalma_record
from kalma.entry import KalmaEntry
from kalma.geval import GevalItem, GevalPrompts
from kalma.released import plain_text
from llm.chat import ChatMessage

__all__ = ["FALLBACK_RATING", "RELEASED_GEVAL_ANSWERS", "released_items",
           "released_knowledge_text", "released_messages", "released_rating", "released_row"]

RELEASED_GEVAL_ANSWERS = 100
"""The script rates the first 100 answers with knowledge."""
FALLBACK_RATING = 3
"""The score of a reply that holds no digit."""
INPUT_JOIN = "/n"
"""What the script puts between the question, the knowledge and the answer."""
EMPTY_KNOWLEDGE = "[]"

_DIGITS = re.compile(r"[0-9]+")
_QUOTES = (("{'", "{"), ("': '", ": "), ("', '", ", "), ("'}", "}"))


def _unquoted(text: str) -> str:
    """Python's text of a list of dicts with the quotes around keys and values taken
    out where the script takes them out (``{'a': 'b'}`` reads ``{a: b}``)."""
    for old, new in _QUOTES:
        text = text.replace(old, new)
    return text


def released_row(entry: KalmaEntry, question: str = "specific") -> tuple[str, str]:
    """The question and knowledge columns the script reads for ``entry``, from the
    entry as ``kalma export`` writes it (:func:`kalma.biokalma.biokalma_record`): the
    question as in BioKaLMA's file (a general one keeps its ``question: `` prefix),
    and the entity dicts (each relation's first value, then ``name``, the two dates and
    ``qid``) written as Python writes a list, quotes taken out once by the answering
    script and once more by ``GPT_EVAL.py``."""
    general, specific = biokalma_record(entry, Counter())
    row = specific if question == "specific" else general
    return row[0], _unquoted(_unquoted(str(row[1])))


def released_knowledge_text(entry: KalmaEntry) -> str:
    """The knowledge column of :func:`released_row`."""
    return released_row(entry)[1]


def released_items(scored: Sequence[tuple[KalmaEntry, str | None]],
                   question: str = "specific") -> list[GevalItem]:
    """The items the script rates: see the module docstring. ``question``: which of the
    entry's questions the answers answer."""
    items = []
    for entry, text in scored:
        asked, knowledge = released_row(entry, question)
        if knowledge == EMPTY_KNOWLEDGE:
            continue
        items.append(GevalItem(asked, plain_text(text or ""), knowledge))
        if len(items) == RELEASED_GEVAL_ANSWERS:
            break
    return items


def released_messages(aspect: str, item: GevalItem, prompts: GevalPrompts) -> list[ChatMessage]:
    """The script's two messages for one quality of one answer."""
    inputs = (f"Question: {item.question}", f"Knowledge: {item.knowledge}",
              f"Answer: {item.answer}")
    return [ChatMessage("system", prompts.instruction(aspect)),
            ChatMessage("user", INPUT_JOIN.join(inputs))]


def released_rating(reply: str) -> tuple[float, bool]:
    """The score the script reads from ``reply`` and whether it found digits (see the
    module docstring)."""
    tail = reply[-10:] if len(reply) > 20 else reply
    found = _DIGITS.search(tail)
    if found is None:
        return float(FALLBACK_RATING), False
    return float(int(found.group())), True
