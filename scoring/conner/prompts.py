"""The prompts of ``conner score --protocol released --prompts FILE``: CONNER's released
scripts ask a causal LM with their own prompts (``info.py``'s instruction before the
knowledge, ``helpfulness.py``'s passage-query-answer layout and its few-shot
demonstrations), which are not kgbench's to ship; the user's file gives them.

The file is a JSON object:

* ``"informativeness"``: the text before the knowledge, with a ``{query}`` slot and
  optionally ``{topic}`` (filled from a record's ``"topic"``, empty without one);
* ``"helpfulness"``: the layout of one sample, with ``{knowledge}`` and ``{query}``
  slots, ending where the answer begins;
* ``"demonstrations"`` (optional): few-shot samples, a list of ``{"knowledge",
  "query", "answer"}`` objects (``"topic"`` optional: a knowledge text starting with
  its topic loses it, as the script does), each written in the ``helpfulness`` layout
  followed by its answer. A record's own ``"demonstrations"`` take their place.

Without ``--prompts`` the released computation runs with kgbench's own layouts
(:data:`KGBENCH_RELEASED_PROMPTS`: no demonstrations), and a note says that the prompt
is not the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm.prompt_file import (
    PromptFileError,
    PromptTemplate,
    prompts_digest,
    read_prompt_json,
    template_of,
)

__all__ = ["CONNER_PROMPTS_LAYOUT", "ConnerPrompts", "Demonstration", "KGBENCH_RELEASED_PROMPTS",
           "demonstrations_of", "load_conner_prompts"]

CONNER_PROMPTS_LAYOUT = (
    'a CONNER prompt file is a JSON object {"informativeness": TEXT with {query} (and '
    'optionally {topic}), "helpfulness": TEXT with {knowledge} and {query}, '
    '"demonstrations": [{"knowledge", "query", "answer"}, ...] (optional)}')


@dataclass(frozen=True, slots=True)
class Demonstration:
    """One few-shot sample of the helpfulness prompt."""

    knowledge: str
    query: str
    answer: str
    topic: str = ""


@dataclass(frozen=True)
class ConnerPrompts:
    """The two templates, the default demonstrations, and where they come from."""

    informativeness: PromptTemplate
    helpfulness: PromptTemplate
    demonstrations: tuple[Demonstration, ...] = ()
    source: str = "kgbench"

    def digest(self) -> str:
        """What a resumed run compares (:func:`llm.prompt_file.prompts_digest`)."""
        return prompts_digest([self.informativeness.text, self.helpfulness.text,
                               *(f"{d.topic}\x1f{d.knowledge}\x1f{d.query}\x1f{d.answer}"
                                 for d in self.demonstrations)])


KGBENCH_RELEASED_PROMPTS = ConnerPrompts(
    PromptTemplate("informativeness", "Question: {query}\nKnowledge: ", "kgbench"),
    PromptTemplate("helpfulness", "Knowledge: {knowledge}\nQuestion: {query}\nAnswer: ",
                   "kgbench"))
"""kgbench's layouts (those of :mod:`scoring.conner.batch`) as templates."""


def demonstrations_of(items: Any, where: str) -> tuple[Demonstration, ...]:
    """The demonstrations of a JSON list ``items``; :class:`PromptFileError` naming
    ``where`` (a file, or a record's ``file:line``) when one is not an object of
    strings with ``knowledge``, ``query`` and ``answer``."""
    if not isinstance(items, list):
        raise PromptFileError(f"{where}: \"demonstrations\" must be a list",
                              CONNER_PROMPTS_LAYOUT)
    out = []
    for i, item in enumerate(items):
        if not (isinstance(item, Mapping)
                and all(isinstance(item.get(k), str) for k in ("knowledge", "query", "answer"))
                and isinstance(item.get("topic", ""), str)):
            raise PromptFileError(f"{where}: demonstration {i + 1} is not an object with "
                                  "string \"knowledge\", \"query\" and \"answer\"",
                                  CONNER_PROMPTS_LAYOUT)
        out.append(Demonstration(item["knowledge"], item["query"], item["answer"],
                                 item.get("topic", "")))
    return tuple(out)


def load_conner_prompts(path: Path) -> ConnerPrompts:
    """The prompts of the user's file ``path`` (see the module docstring); a
    :class:`PromptFileError` naming the file and what it lacks otherwise."""
    doc = read_prompt_json(path, layout=CONNER_PROMPTS_LAYOUT)
    if not isinstance(doc, dict):
        raise PromptFileError(f"{path}: not a CONNER prompt file (no JSON object)",
                              CONNER_PROMPTS_LAYOUT)
    source = str(path)
    info = template_of(doc, "informativeness", ("query",), source=source,
                       layout=CONNER_PROMPTS_LAYOUT)
    helpful = template_of(doc, "helpfulness", ("knowledge", "query"), source=source,
                          layout=CONNER_PROMPTS_LAYOUT)
    demonstrations = demonstrations_of(doc.get("demonstrations", []), source)
    return ConnerPrompts(info, helpful, demonstrations, source)
