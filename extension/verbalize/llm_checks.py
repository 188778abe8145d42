"""Checks on an LLM's reply before it is used: cleaned of reasoning, fences and labels
(:func:`clean_reply`), not cut off or too long (:func:`reply_problem`), and naming what
it must (:func:`check_citation`, :func:`check_question`, :func:`check_answer`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence

from extension.core.samples import AnswerEntity, StructuredSample, Triple
from extension.verbalize.literals import render_literal
from extension.verbalize.llm_prompts import answer_text, sample_names

MIN_LENGTH_LIMIT = 300
"""No reply limit is below this many characters."""

LENGTH_FACTOR = 4
"""A reply longer than this many times the template text (and than
:data:`MIN_LENGTH_LIMIT`) is unusable: it says more than the facts do."""

_THINK = re.compile(r"^\s*<think>.*?</think>", re.S)
_FENCE = re.compile(r"```(?:[\w-]*\n)?(.*?)\n?```", re.S)   # a code fence, its language tag
_LABEL = re.compile(r"^(?:passage|citation|extended question|question|answer statement|"
                    r"statement|answer)\s*:\s*", re.I)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`", "«": "»"}
_VARIABLE = re.compile(r"(?<![\w?])\?[A-Za-z_]\w*")
_PLACEHOLDER = re.compile(r"\[[a-z][a-z ]{0,40} \d+\]")
_DATE_TYPES = frozenset({"date", "dateTime", "gYear", "gYearMonth"})


def clean_reply(text: str) -> str:
    """A reply without the wrapping models add: a leading ``<think>…</think>`` block
    (reasoning models), surrounding whitespace, quotes or a code fence, and a leading
    label such as "Question:"."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(1).strip()
    text = _LABEL.sub("", text).strip()
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def length_limit(template_text: str) -> int:
    """The longest usable reply for a part whose template text is ``template_text``."""
    return max(MIN_LENGTH_LIMIT, LENGTH_FACTOR * len(template_text))


def reply_problem(text: str, finish_reason: str | None, max_chars: int) -> str | None:
    """Why a cleaned reply is unusable whatever the part, or None: empty, cut off at
    ``max_tokens``, more than one line (one paragraph was asked for), longer than
    ``max_chars``."""
    if not text:
        return "empty response"
    if finish_reason == "length":
        return "response cut off at max_tokens"
    if "\n" in text:
        return f"response has {text.count(chr(10)) + 1} lines, not one paragraph"
    if len(text) > max_chars:
        return f"response is {len(text)} characters long, over the limit of {max_chars}"
    return None


def _normalize(text: str) -> str:
    """For mention checks: NFKC, straight quotes and hyphens, case-folded, digit-group
    commas removed ("1,500" -> "1500"), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans("‘’‛“”„–—‐‑", "'''\"\"\"----"))
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return " ".join(text.casefold().split())


def _missing(text: str, wanted: Sequence[str]) -> list[str]:
    normalized = _normalize(text)
    return [w for w in dict.fromkeys(wanted) if w and _normalize(w) not in normalized]


def _literal_mention(value: str, datatype: str | None, lang: str | None) -> str:
    """What a text must contain to state a literal: the year of a date (models write
    dates their own way), else the rendered value."""
    kind = (datatype or "").rpartition("#")[2].removeprefix("xsd:")
    if kind in _DATE_TYPES:
        match = re.match(r"\s*[+-]?0*(\d+)", value)
        if match:
            return match.group(1)
    return render_literal(value, datatype, lang)


def check_citation(text: str, triples: Sequence[Triple], cvt_nodes: Collection[str],
                   *, max_chars: int, finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not a usable citation of ``triples``, or None. Besides
    :func:`reply_problem`: it must mention every named non-CVT entity (by name) and
    every literal (a date by its year), and no bracketed record placeholder."""
    problem = reply_problem(text, finish_reason, max_chars)
    if problem:
        return problem
    cvts = frozenset(cvt_nodes)
    wanted: list[str] = []
    for t in triples:
        if t.s not in cvts and t.s_name:
            wanted.append(t.s_name)
        if t.literal:
            wanted.append(_literal_mention(t.o, t.datatype, t.lang))
        elif t.o not in cvts and t.o_name:
            wanted.append(t.o_name)
    missing = _missing(text, wanted)
    if missing:
        return f"does not mention {_quoted(missing)}"
    placeholder = _PLACEHOLDER.search(text)
    if placeholder:
        return f"mentions the placeholder {placeholder.group(0)}"
    return None


def check_question(text: str, required_names: Sequence[str], *, max_chars: int,
                   finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not a usable extended question, or None. Besides
    :func:`reply_problem`: it must end with "?", mention ``required_names`` (the named
    entities of the added constraints) and no query variable (``?v1``)."""
    problem = reply_problem(text, finish_reason, max_chars)
    if problem:
        return problem
    if not text.endswith("?"):
        return "is not a question (no question mark at the end)"
    missing = _missing(text, required_names)
    if missing:
        return f"does not mention {_quoted(missing)}"
    variable = _VARIABLE.search(text)
    if variable:
        return f"mentions the query variable {variable.group(0)}"
    return None


def check_answer(text: str, answers: Sequence[AnswerEntity], *, max_chars: int,
                 finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not a usable answer statement of ``answers``, or None. Besides
    :func:`reply_problem`: it must mention every answer (a date by its year) and not be
    a question."""
    problem = reply_problem(text, finish_reason, max_chars)
    if problem:
        return problem
    if text.endswith("?"):
        return "is a question, not a statement"
    wanted = [_literal_mention(a.value, a.datatype, a.lang) if a.value is not None
              else answer_text(a) for a in answers]
    missing = _missing(text, wanted)
    if missing:
        return f"does not mention {_quoted(missing)}"
    return None


def _quoted(items: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def added_constraint_names(sample: StructuredSample) -> list[str]:
    """The names of the entities the extension rule added (ends of ``query.added``
    that are not variables): what the extended question must mention."""
    names = sample_names(sample)
    wanted = []
    for edge in sample.query.added:
        for end in (edge.get("source"), edge.get("target")):
            if isinstance(end, str) and not end.startswith("?") and end in names:
                wanted.append(names[end])
    return wanted
