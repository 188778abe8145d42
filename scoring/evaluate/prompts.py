"""The prompts of the LLM evaluator, and how its reply becomes a label.

kgbench's own prompts (``scoring/evaluate/data/kgbench_prompts.json``, written for
kgbench) are the defaults: ``kgbench`` asks for our four labels (``--scheme ours`` and
``caqa``), ``kgbench-attrscore`` for AttrScore's three (``--scheme attrscore``).

The papers' prompts are not part of kgbench. ``--prompts FILE`` reads them from the
user's copy (CAQA §5.2 and Appendix C; AttrScore §3 and Appendix C):

==============================  ============================================  =====================================
``--prompt``                    task of the file                              file
==============================  ============================================  =====================================
``caqa-zero-shot``              ``attribution-no-definition``                 CAQA-Benchmark ``prompts.json``
``caqa-few-shot``               ``attribution-no-definition-w-examples``      CAQA-Benchmark ``prompts.json``
``attrscore``                   ``attribution-with-definition``               AttrScore ``task_prompts.json``
``attrscore-no-definition``     ``attribution-no-definition``                 AttrScore ``task_prompts.json``
==============================  ============================================  =====================================

Any other ``task_name`` of the file is chosen by that name; without ``--prompt`` the
file's ``attribution-no-definition`` task is used (the default ``prompt_type`` of both
papers' released inference scripts), or its only task.

A prompt file (:data:`PROMPT_FILE_LAYOUT`) is a JSON list of ``{"task_name",
"prompt_template", "input_template", "label_map"}``: ``input_template`` has two ``{}``
slots (the claim and the reference, or for an NLI-style template whose first slot
follows ``premise:``, the reference and the claim) and ``label_map`` maps each option
the reply may name to a label. An entry may add ``"preamble"``: a line sent before
``### Instruction:`` (the released scripts send one there; kgbench ships none).

The message (:meth:`AttributionPrompt.render`)::

    [preamble, then a blank line]
    ### Instruction:
    {prompt_template}

    ### Input:
    {input_template with the claim and the reference}

    ### Response:

Under ``--protocol kgbench`` an empty instruction leaves its section out; under
``--protocol released`` it stays, as the released scripts format it. The claim is
CAQA's ``{query} {answer}``: the extended question and the answer statement; the
reference the citations, one per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from llm.prompt_file import PromptFileError, read_prompt_json
from scoring.errors import ScoringError
from scoring.evaluate.schemes import LabelNameError, LabelScheme, SchemeName
from scoring.protocol import ProtocolName

__all__ = ["KGBENCH_PROMPTS", "PAPER_PROMPTS", "PROMPT_FILE_LAYOUT", "AttributionPrompt",
           "default_prompt", "load_prompt_file", "parse_reply", "select_prompt"]

KGBENCH_PROMPTS = ("kgbench", "kgbench-attrscore")
"""kgbench's own prompts (tasks of the shipped file)."""
PAPER_PROMPTS: Mapping[str, str] = {
    "caqa-zero-shot": "attribution-no-definition",
    "caqa-few-shot": "attribution-no-definition-w-examples",
    "attrscore": "attribution-with-definition",
    "attrscore-no-definition": "attribution-no-definition"}
"""Prompt name -> task of the paper's prompt file the user gives with ``--prompts``."""
RELEASED_DEFAULT_TASK = "attribution-no-definition"
"""The task of a ``--prompts`` file used without ``--prompt``: the default
``prompt_type`` of CAQA's ``inference.py`` and AttrScore's ``inference_alpaca.py``."""
PROMPT_FILE_LAYOUT = ('a prompt file is a JSON list of {"task_name", "prompt_template", '
                      '"input_template", "label_map"}, as CAQA\'s prompts.json and '
                      "AttrScore's task_prompts.json")
_SHIPPED_FILE = "kgbench_prompts.json"
_PAPER_HINT = ("pass --prompts with your copy of the paper's prompt file: CAQA's prompts.json "
               "(github.com/aannonymouuss/CAQA-Benchmark) or AttrScore's "
               "prompt_and_demo/task_prompts.json (github.com/OSU-NLP-Group/AttrScore); "
               "kgbench ships only its own prompts (--prompt kgbench)")


@dataclass(frozen=True, slots=True)
class AttributionPrompt:
    """One prompt: where it comes from, its instruction, input template, options
    (reply word -> label name, as the file's ``label_map``) and optional preamble."""

    name: str
    source: str
    instruction: str
    input_template: str
    options: Mapping[str, str]
    preamble: str = ""

    @property
    def premise_first(self) -> bool:
        """Whether the template's first slot is the premise (the reference): the text
        before it ends with ``premise:`` (an AutoIS-style template ``premise: {}
        hypothesis: {}``); otherwise the claim comes first."""
        return self.input_template.split("{}")[0].strip().lower().endswith("premise:")

    def render(self, claim: str, reference: str, protocol: ProtocolName = "kgbench") -> str:
        """The user message for one sample (see the module docstring)."""
        head, middle, tail = self.input_template.split("{}")
        first, second = (reference, claim) if self.premise_first else (claim, reference)
        parts = [self.preamble] if self.preamble else []
        if self.instruction.strip() or protocol == "released":
            parts.append(f"### Instruction:\n{self.instruction}")
        parts += [f"### Input:\n{head}{first}{middle}{second}{tail}", "### Response:"]
        return "\n\n".join(parts)

    def label_names(self) -> list[str]:
        """The label names the options stand for, each once, in file order."""
        return list(dict.fromkeys(self.options.values()))


def load_prompt_file(path: Path) -> dict[str, AttributionPrompt]:
    """The prompts of a prompt file, by ``task_name``. Raises
    :class:`~llm.prompt_file.PromptFileError` naming the file and the entry, and what
    it lacks, when it is not a prompt file."""
    return _prompts(read_prompt_json(path, layout=PROMPT_FILE_LAYOUT), str(path))


def _prompts(doc: object, source: str) -> dict[str, AttributionPrompt]:
    hint = PROMPT_FILE_LAYOUT
    if not isinstance(doc, list) or not doc:
        raise PromptFileError(f"{source}: not a prompt file (no list of prompts)", hint)
    prompts = {}
    for number, entry in enumerate(doc, 1):
        where = f"{source}: prompt {number}"
        if not isinstance(entry, dict):
            raise PromptFileError(f"{where} is not an object", hint)
        name = entry.get("task_name")
        if not isinstance(name, str) or not name:
            raise PromptFileError(f"{where}: no task_name", hint)
        prompts[name] = _prompt(entry, name, source)
    return prompts


def _prompt(entry: Mapping[str, Any], name: str, source: str) -> AttributionPrompt:
    hint = PROMPT_FILE_LAYOUT
    where = f"{source}: prompt {name!r}"
    instruction, template = entry.get("prompt_template"), entry.get("input_template")
    options, preamble = entry.get("label_map"), entry.get("preamble", "")
    if not isinstance(instruction, str):
        raise PromptFileError(f"{where}: no prompt_template string", hint)
    if not isinstance(template, str) or template.count("{}") != 2:
        raise PromptFileError(f"{where}: input_template needs two {{}} slots (the claim and "
                              "the reference)", hint)
    if (not isinstance(options, dict) or not options
            or not all(isinstance(k, str) and k.strip() and isinstance(v, str)
                       for k, v in options.items())):
        raise PromptFileError(f"{where}: label_map is not a map of reply options to labels",
                              hint)
    if not isinstance(preamble, str):
        raise PromptFileError(f"{where}: preamble is not a string", hint)
    return AttributionPrompt(name, source, instruction, template, options, preamble)


def _shipped() -> dict[str, AttributionPrompt]:
    text = resources.files("scoring.evaluate").joinpath("data", _SHIPPED_FILE).read_bytes()
    return _prompts(json.loads(text), "kgbench")


def default_prompt(scheme: SchemeName, prompt_file: Path | None = None) -> str:
    """The prompt used when ``--prompt`` is not given: kgbench's own for the scheme
    (``kgbench-attrscore`` for attrscore, ``kgbench`` otherwise); with a
    ``--prompts`` file, its :data:`RELEASED_DEFAULT_TASK` (or its only task)."""
    if prompt_file is not None:
        prompts = load_prompt_file(prompt_file)
        if RELEASED_DEFAULT_TASK in prompts or len(prompts) != 1:
            return RELEASED_DEFAULT_TASK
        return next(iter(prompts))
    return "kgbench-attrscore" if scheme == "attrscore" else "kgbench"


def select_prompt(name: str, scheme: LabelScheme, prompt_file: Path | None = None
                  ) -> AttributionPrompt:
    """The prompt called ``name`` (:data:`KGBENCH_PROMPTS`, :data:`PAPER_PROMPTS` or a
    task of ``prompt_file``), checked against ``scheme``: every option must name a
    label the scheme takes. Raises :class:`ScoringError` (or
    :class:`~llm.prompt_file.PromptFileError` for a bad file) otherwise."""
    if prompt_file is None:
        if name in KGBENCH_PROMPTS:
            prompt = _shipped()[name]
        elif name in PAPER_PROMPTS:
            raise ScoringError(f"--prompt {name} is the paper's prompt, which kgbench does "
                               "not ship", _PAPER_HINT)
        else:
            raise ScoringError(f"unknown prompt {name!r}",
                               f"use one of {', '.join(KGBENCH_PROMPTS)}, or pass --prompts "
                               f"FILE and one of {', '.join(PAPER_PROMPTS)} or a task_name "
                               "of that file")
    else:
        prompts = load_prompt_file(prompt_file)
        task = PAPER_PROMPTS.get(name, name)
        if task not in prompts:
            raise PromptFileError(f"{prompt_file}: no prompt {task!r}"
                                  + (f" (--prompt {name})" if task != name else ""),
                                  f"its prompts are {', '.join(map(repr, prompts))}: "
                                  "choose one with --prompt")
        prompt = prompts[task]
    for label in prompt.label_names():
        try:
            scheme.resolve(label)
        except LabelNameError as exc:
            raise ScoringError(f"prompt {prompt.name!r} ({prompt.source}) answers {label!r}, "
                               f"which the {scheme.name} scheme does not take: {exc}",
                               exc.hint) from None
    return prompt


_ANSWER_PREFIX = re.compile(
    r"^[\W_]*(?:(?:response|answer|label|output|category|prediction|verdict)\s*[:\-]\s*)?[\W_]*",
    re.IGNORECASE)


def _option_pattern(option: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(w) for w in option.split())
    return re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE)


def parse_reply(reply: str, options: Mapping[str, str]) -> str | None:
    """The label an evaluator's reply names, or ``None`` (unparsed): kgbench's reading
    (``--protocol kgbench``; the released scripts' reading is
    :func:`scoring.evaluate.protocol_released.parse_reply_released`).

    Options are matched as whole words without regard to case (CAQA Appendix C and
    AttrScore §4.2 read the label off the reply with a regular expression), in two
    steps:

    1. the reply starts with an option — after leading punctuation, markup and a
       ``Response:`` / ``Answer:`` / ``Label:`` prefix — as in ``Attributable, since the
       reference gives the year.`` (the longest option wins: "Not Enough Information"
       over a shorter option it begins with);
    2. otherwise the options named anywhere in the reply all stand for one label; an
       option found inside a longer option's match ("supportive" in "partially
       supportive") is not a mention of its own.

    A reply naming no option, or options of different labels ("not Attributable but
    Extrapolatory", an echo of the option list), is ``None``: counted as unparsed,
    never guessed."""
    head = _ANSWER_PREFIX.sub("", reply.strip(), count=1)
    patterns = {option: _option_pattern(option) for option in options}
    at_start = [o for o, p in patterns.items() if p.match(head)]
    if at_start:
        return options[max(at_start, key=len)]
    spans = [(m.start(), m.end(), options[o]) for o, p in patterns.items()
             for m in p.finditer(reply)]
    named = {label for start, end, label in spans
             if not any(s <= start and end <= e and (e - s) > (end - start)
                        for s, e, _ in spans)}
    return named.pop() if len(named) == 1 else None
