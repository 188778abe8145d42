"""The prompts of the LLM evaluator, and how its reply becomes a label.

Prompt files have the layout of CAQA's ``prompts.json`` and AttrScore's
``prompt_and_demo/task_prompts.json``: a JSON list of ``{"task_name",
"prompt_template", "input_template", "label_map"}``, where ``input_template`` has two
``{}`` slots (the claim and the reference, or for an NLI-style template whose first slot
follows ``premise:``, the reference and the claim) and ``label_map`` maps each option the
reply may name to a label (``"Extrapolatory": "Irrelevant"`` in CAQA's reading of
AttrScore).

Which prompts ship with kgbench, and why: AttrScore's repository is MIT-licensed, so
its two attribution prompts are shipped unchanged with its licence
(``scoring/evaluate/data/``; ``--prompt attrscore`` is its "attribution-with-definition",
its main prompt, ``attrscore-no-definition`` the other). CAQA's repository has no
licence, so its prompts are not copied into kgbench: ``--prompts FILE`` reads them from
the user's copy of ``CAQA-Benchmark/prompts.json``, where ``caqa-zero-shot`` is the task
``attribution-no-definition`` and ``caqa-few-shot`` ``attribution-no-definition-w-examples``
(CAQA §5.2 and Appendix C, Table 13); any other task of the file is chosen by its
``task_name``.

The message is AttrScore's layout (AttrScore Appendix C, Table 6; CAQA's few-shot
examples end in ``### Response: Support`` alike)::

    ### Instruction:
    {prompt_template}

    ### Input:
    {input_template with the claim and the reference}

    ### Response:

The claim is CAQA's ``{query} {answer}``: the extended question and the answer
statement; the reference the citations, one per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from scoring.errors import ScoringError
from scoring.evaluate.schemes import LabelNameError, LabelScheme, SchemeName

__all__ = ["SHIPPED_PROMPTS", "AttributionPrompt", "default_prompt", "load_prompt_file",
           "parse_reply", "select_prompt"]

SHIPPED_PROMPTS: Mapping[str, str] = {
    "attrscore": "attribution-with-definition",
    "attrscore-no-definition": "attribution-no-definition"}
"""Prompt name -> task of the shipped AttrScore file."""
CAQA_PROMPTS: Mapping[str, str] = {
    "caqa-zero-shot": "attribution-no-definition",
    "caqa-few-shot": "attribution-no-definition-w-examples"}
"""Prompt name -> task of CAQA's ``prompts.json`` (given with ``--prompts``)."""
_SHIPPED_FILE = "attrscore_prompts.json"
_CAQA_HINT = ("pass --prompts with your copy of CAQA's prompts.json (github.com/"
              "aannonymouuss/CAQA-Benchmark); it is not shipped: that repository has no "
              "licence. AttrScore's prompt is shipped: --scheme attrscore --prompt attrscore")


@dataclass(frozen=True, slots=True)
class AttributionPrompt:
    """One prompt: where it comes from, its instruction, input template and options
    (reply word -> label name, as the file's ``label_map``)."""

    name: str
    source: str
    instruction: str
    input_template: str
    options: Mapping[str, str]

    @property
    def premise_first(self) -> bool:
        """Whether the template's first slot is the premise (the reference): the text
        before it ends with ``premise:`` (CAQA's AutoIS template ``premise: {}
        hypothesis: {}``); otherwise the claim comes first."""
        return self.input_template.split("{}")[0].strip().lower().endswith("premise:")

    def render(self, claim: str, reference: str) -> str:
        """The user message for one sample (see the module docstring)."""
        head, middle, tail = self.input_template.split("{}")
        first, second = (reference, claim) if self.premise_first else (claim, reference)
        parts = [f"### Instruction:\n{self.instruction}"] if self.instruction.strip() else []
        parts += [f"### Input:\n{head}{first}{middle}{second}{tail}", "### Response:"]
        return "\n\n".join(parts)

    def label_names(self) -> list[str]:
        """The label names the options stand for, each once, in file order."""
        return list(dict.fromkeys(self.options.values()))


def load_prompt_file(path: Path) -> dict[str, AttributionPrompt]:
    """The prompts of a prompt file, by ``task_name``. Raises :class:`ScoringError`
    naming the file and the entry when it is not a prompt file."""
    try:
        doc = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise ScoringError(f"{path}: no such prompt file", _CAQA_HINT) from None
    except IsADirectoryError:
        raise ScoringError(f"{path} is a directory, not a prompt file",
                           "pass the prompts.json file itself") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScoringError(f"{path}: not a JSON prompt file ({exc})",
                           "pass a prompts.json of CAQA or AttrScore") from None
    return _prompts(doc, str(path))


def _prompts(doc: object, source: str) -> dict[str, AttributionPrompt]:
    hint = ('a prompt file is a JSON list of {"task_name", "prompt_template", '
            '"input_template", "label_map"}, as CAQA\'s prompts.json')
    if not isinstance(doc, list) or not doc:
        raise ScoringError(f"{source}: not a prompt file (no list of prompts)", hint)
    prompts = {}
    for number, entry in enumerate(doc, 1):
        where = f"{source}: prompt {number}"
        if not isinstance(entry, dict):
            raise ScoringError(f"{where} is not an object", hint)
        name, instruction = entry.get("task_name"), entry.get("prompt_template")
        template, options = entry.get("input_template"), entry.get("label_map")
        if not isinstance(name, str) or not name:
            raise ScoringError(f"{where}: no task_name", hint)
        where = f"{source}: prompt {name!r}"
        if not isinstance(instruction, str):
            raise ScoringError(f"{where}: prompt_template is not a string", hint)
        if not isinstance(template, str) or template.count("{}") != 2:
            raise ScoringError(f"{where}: input_template needs two {{}} slots (the claim "
                               "and the reference)", hint)
        if (not isinstance(options, dict) or not options
                or not all(isinstance(k, str) and k.strip() and isinstance(v, str)
                           for k, v in options.items())):
            raise ScoringError(f"{where}: label_map is not a map of reply options to "
                               "labels", hint)
        prompts[name] = AttributionPrompt(name, source, instruction, template, options)
    return prompts


def _shipped() -> dict[str, AttributionPrompt]:
    text = resources.files("scoring.evaluate").joinpath("data", _SHIPPED_FILE).read_bytes()
    return _prompts(json.loads(text), "AttrScore (shipped, MIT)")


def default_prompt(scheme: SchemeName) -> str:
    """The prompt used when ``--prompt`` is not given: AttrScore's for the attrscore
    scheme, CAQA's zero-shot prompt for the four-class schemes."""
    return "attrscore" if scheme == "attrscore" else "caqa-zero-shot"


def select_prompt(name: str, scheme: LabelScheme, prompt_file: Path | None = None
                  ) -> AttributionPrompt:
    """The prompt called ``name`` (:data:`SHIPPED_PROMPTS`, :data:`CAQA_PROMPTS` or a
    task of ``prompt_file``), checked against ``scheme``: every option must name a
    label the scheme takes. Raises :class:`ScoringError` otherwise."""
    if name in SHIPPED_PROMPTS:
        prompt = _shipped()[SHIPPED_PROMPTS[name]]
    else:
        if prompt_file is None:
            if name in CAQA_PROMPTS:
                raise ScoringError(f"--prompt {name} needs CAQA's prompt file", _CAQA_HINT)
            raise ScoringError(f"unknown prompt {name!r}",
                               f"use one of {', '.join([*SHIPPED_PROMPTS, *CAQA_PROMPTS])}, "
                               "or a task_name of the --prompts file")
        prompts = load_prompt_file(prompt_file)
        task = CAQA_PROMPTS.get(name, name)
        if task not in prompts:
            raise ScoringError(f"{prompt_file}: no prompt {task!r}",
                               f"its prompts are {', '.join(map(repr, prompts))}")
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
    """The label an evaluator's reply names, or ``None`` (unparsed).

    As CAQA Appendix C and AttrScore §4.2 do ("we extract the predicted label with
    regular expression"), in two steps, options matched as whole words without regard
    to case:

    1. the reply starts with an option — after leading punctuation, markup and a
       ``Response:`` / ``Answer:`` / ``Label:`` prefix — as in ``Attributable. From the
       given reference, …`` (the longest option wins: "Not Enough Information" over a
       shorter option it begins with);
    2. otherwise the options named anywhere in the reply all stand for one label.

    A reply naming no option, or options of different labels ("not Attributable but
    Extrapolatory", an echo of the option list), is ``None``: counted as unparsed,
    never guessed."""
    head = _ANSWER_PREFIX.sub("", reply.strip(), count=1)
    patterns = {option: _option_pattern(option) for option in options}
    at_start = [o for o, p in patterns.items() if p.match(head)]
    if at_start:
        return options[max(at_start, key=len)]
    named = {options[o] for o, p in patterns.items() if p.search(reply)}
    return named.pop() if len(named) == 1 else None
