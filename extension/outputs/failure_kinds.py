"""Failure reasons grouped into kinds a reader can act on.

``failures.jsonl`` holds one line per question or sample that was not produced, with
its stage and a free-text reason. Counted by stage alone, the most common cause stays
hidden: WebQSP on the FB15k-237 slice fails mostly at ``ground_original`` because the
slice lacks the questions' predicates (``unknown_predicate: predicates not in the
store: …``), which only the reason says. Reasons differ in their ids, so they are
grouped by a *kind*: the reason's leading code (``unknown_predicate``,
``unsupported: literal_comparison``), or, for prose reasons, the reason with its ids,
numbers and quoted values replaced by ``…`` ("no non-answer entity shares a type with
…"); a prose reason that gives its details after a colon ("no slot of the answer holds
one value, so a replacement would not contradict it: education.education.institution
on an n-ary fact …") is of the kind said before it. Each kind keeps its count, the
first failure met as an example, the ids its reasons name most often (the predicates
a store lacks, :func:`mentioned_ids`) and what to do about it (:func:`what_to_do`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from extension.core.shapes import REASONS as UNSUPPORTED_REASONS

MAX_KINDS = 40
"""Kinds kept in ``stats.json`` (the most common); the rest are summed as one."""
MAX_MENTIONS = 5
"""Ids kept per kind: those its reasons name most often."""

_CODE = re.compile(r"^([a-z][a-z0-9_]*[a-z0-9]):\s*(.*)$", re.DOTALL)
_SUB_CODE = re.compile(r"^[a-z][a-z0-9_]*$")
# ids of the KGs kgbench reads (m.0abc, g.11x, Q42, P31), IRIs, quoted values, numbers
_VARIABLE = re.compile(
    r"<[^>]*>|https?://\S+|\"[^\"]*\"|'[^']*'|\b[mg]\.[0-9a-z_]+\b|\b[QP]\d+\b|\b\d[\d.,]*\b")
_SPACES = re.compile(r"\s+")
_ELLIPSES = re.compile(r"…(?:[\s,;]*…)+")
_PREDICATE_ID = re.compile(r"\b(?:[a-z][a-z0-9_]*(?:\.[a-z0-9_]+){2,}|P\d+)\b")
"""A predicate id in a prose reason: Freebase's ``domain.type.property`` (a CVT's
``film.performance.actor`` too), Wikidata's ``P19``."""
MAX_KIND_CHARS = 120

GROUNDING_KINDS: Mapping[str, str] = {
    "unknown_predicate": "a predicate of the question's query is not in the store",
    "unknown_entity": "an entity of the question's query is not in the store",
    "no_match": "the question's query has no answer in the store",
    "not_groundable": "the query uses what triple patterns cannot express",
}
"""Codes of :data:`extension.core.grounding.Outcome` that fail a question -> what they mean."""


def failure_kind(reason: str) -> str:
    """The kind of a failure ``reason`` (see the module docstring)."""
    text = _SPACES.sub(" ", reason.strip())
    coded = _CODE.match(text)
    if coded:
        code, rest = coded.group(1), coded.group(2)
        # "unsupported: cycle" keeps its sub-code; a code followed by prose keeps the code
        return f"{code}: {rest}" if _SUB_CODE.match(rest) else code
    shaped = _ELLIPSES.sub("…", _VARIABLE.sub("…", text))
    head, colon, _ = shaped.partition(": ")
    if colon and head.strip():   # "what went wrong: the details"
        shaped = head.strip()
    if len(shaped) > MAX_KIND_CHARS:   # at a word's end, never inside one
        shaped = shaped[:MAX_KIND_CHARS].rsplit(" ", 1)[0] + " …"
    return shaped or "(no reason given)"


def mentioned_ids(reason: str) -> list[str]:
    """The ids a failure ``reason`` names: for ``unknown_predicate`` and
    ``unknown_entity``, the predicates or entities it lists as not in the store; for
    other reasons, the predicate ids it names (which relation the failure met)."""
    text = _SPACES.sub(" ", reason.strip())
    code = _CODE.match(text)
    if code and code.group(1) in ("unknown_predicate", "unknown_entity"):
        listed = code.group(2).rpartition(": ")[2]
        return [part.strip() for part in listed.split(",") if part.strip()]
    return list(dict.fromkeys(_PREDICATE_ID.findall(text)))


def describe_kind(kind: str) -> str:
    """What a :func:`failure_kind` means in words (the kind itself for prose kinds):
    "unsupported: cycle" -> "question form not supported: the query graph has a
    cycle …"."""
    if kind in GROUNDING_KINDS:
        return GROUNDING_KINDS[kind]
    code, _, sub = kind.partition(": ")
    if code == "unsupported" and sub in UNSUPPORTED_REASONS:
        return f"question form not supported: {UNSUPPORTED_REASONS[sub]}"
    return kind


LABEL_STAGES = ("supportive", "partially_supportive", "contradictory", "irrelevant")
"""The stages that make one label's sample of a question (``SampleFailure.stage``)."""
_ADVICE: Mapping[str, str] = {
    "unknown_predicate": "the store lacks these predicates: load the KG the questions were "
                         "written for (WebQSP and GrailQA need Freebase, not a slice such "
                         "as FB15k-237), or sample questions from this store with --domain",
    "unknown_entity": "the store lacks these entities: load more of the KG the questions were "
                      "written for, or sample questions from this store with --domain",
    "no_match": "the store has the question's entities and predicates but not the facts that "
                "answer it (a slice of the KG): load more of it, or use --domain",
    "not_groundable": "nothing to fix: triple patterns cannot express these questions, so "
                      "they are skipped",
    "unsupported": "skipped: kgbench makes query graphs of single, path and tree "
                   "questions (CAQA §4.1); --domain samples such questions from the store",
    "extend": "no CAQA extension rule (Table 4) found a fact to add around the question's "
              "entities; a store with more facts around them extends more questions",
}


def what_to_do(stage: str, kind: str) -> str:
    """One line on what a user can do about failures of ``kind`` at ``stage``."""
    code = kind.partition(": ")[0]
    if code in _ADVICE:
        return _ADVICE[code]
    if stage in _ADVICE:
        return _ADVICE[stage]
    if stage in LABEL_STAGES:
        return (f"the question's subgraph allows no {stage.replace('_', ' ')} edit (the "
                "question's other labels are kept); failures.jsonl gives each question's "
                "reason")
    return "failures.jsonl gives each question's reason"


@dataclass(frozen=True, slots=True)
class FailureKind:
    """One kind of failure at one stage: how many, the first met as an example, and
    the ids its reasons name most often (``(id, count)``, most frequent first)."""

    stage: str
    kind: str
    count: int
    example_qid: str
    example_reason: str
    mentions: tuple[tuple[str, int], ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "kind": self.kind, "meaning": describe_kind(self.kind),
                "count": self.count, "example": {"qid": self.example_qid, "reason": self.example_reason},
                "mentions": [{"id": i, "count": n} for i, n in self.mentions],
                "what_to_do": what_to_do(self.stage, self.kind)}


def group_failures(failures: Iterable[Mapping[str, Any]], *, most: int = MAX_KINDS
                   ) -> list[FailureKind]:
    """The ``failures`` (``failures.jsonl`` records: ``qid``, ``stage``, ``reason``)
    grouped by stage and :func:`failure_kind`, most common first (ties in the order
    first met, so the result is deterministic). Beyond ``most`` kinds, the rest become
    one ``(other kinds)`` entry per stage."""
    counts: dict[tuple[str, str], int] = {}
    examples: dict[tuple[str, str], tuple[str, str]] = {}
    mentions: dict[tuple[str, str], Counter[str]] = {}
    for failure in failures:
        stage = str(failure.get("stage") or "?")
        reason = str(failure.get("reason") or "")
        key = (stage, failure_kind(reason))
        counts[key] = counts.get(key, 0) + 1
        examples.setdefault(key, (str(failure.get("qid") or ""), reason))
        mentions.setdefault(key, Counter()).update(mentioned_ids(reason))
    order = sorted(counts, key=lambda k: -counts[k])   # stable: first met wins ties
    kept = [FailureKind(s, k, counts[(s, k)], *examples[(s, k)],
                        mentions=tuple(mentions[(s, k)].most_common(MAX_MENTIONS)))
            for s, k in order[:most]]
    rest: dict[str, list[tuple[str, str]]] = {}
    for key in order[most:]:
        rest.setdefault(key[0], []).append(key)
    for stage, keys in rest.items():
        qid, reason = examples[keys[0]]
        kept.append(FailureKind(stage, f"(other kinds: {len(keys)})",
                                sum(counts[k] for k in keys), qid, reason))
    return kept
