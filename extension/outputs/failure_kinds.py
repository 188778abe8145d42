"""Failure reasons grouped into kinds a reader can act on.

``failures.jsonl`` holds one line per question or sample that was not produced, with
its stage and a free-text reason. Counted by stage alone, the most common cause stays
hidden: WebQSP on the FB15k-237 slice fails mostly at ``ground_original`` because the
slice lacks the questions' predicates (``unknown_predicate: predicates not in the
store: …``), which only the reason says. Reasons differ in their ids, so they are
grouped by a *kind*: the reason's leading code (``unknown_predicate``,
``unsupported: literal_comparison``), or, for prose reasons, the reason with its ids,
numbers and quoted values replaced by ``…`` ("no non-answer entity shares a type with
…"). Each kind keeps its count and the first failure met as an example.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from extension.core.shapes import REASONS as UNSUPPORTED_REASONS

MAX_KINDS = 40
"""Kinds kept in ``stats.json`` (the most common); the rest are summed as one."""

_CODE = re.compile(r"^([a-z][a-z0-9_]*[a-z0-9]):\s*(.*)$", re.DOTALL)
_SUB_CODE = re.compile(r"^[a-z][a-z0-9_]*$")
# ids of the KGs kgbench reads (m.0abc, g.11x, Q42, P31), IRIs, quoted values, numbers
_VARIABLE = re.compile(
    r"<[^>]*>|https?://\S+|\"[^\"]*\"|'[^']*'|\b[mg]\.[0-9a-z_]+\b|\b[QP]\d+\b|\b\d[\d.,]*\b")
_SPACES = re.compile(r"\s+")
_ELLIPSES = re.compile(r"…(?:[\s,;]*…)+")

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
    return shaped[:120] or "(no reason given)"


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


@dataclass(frozen=True, slots=True)
class FailureKind:
    """One kind of failure at one stage: how many, and the first met as an example."""

    stage: str
    kind: str
    count: int
    example_qid: str
    example_reason: str

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "kind": self.kind, "meaning": describe_kind(self.kind),
                "count": self.count, "example": {"qid": self.example_qid, "reason": self.example_reason}}


def group_failures(failures: Iterable[Mapping[str, Any]], *, most: int = MAX_KINDS
                   ) -> list[FailureKind]:
    """The ``failures`` (``failures.jsonl`` records: ``qid``, ``stage``, ``reason``)
    grouped by stage and :func:`failure_kind`, most common first (ties in the order
    first met, so the result is deterministic). Beyond ``most`` kinds, the rest become
    one ``(other kinds)`` entry per stage."""
    counts: dict[tuple[str, str], int] = {}
    examples: dict[tuple[str, str], tuple[str, str]] = {}
    for failure in failures:
        stage = str(failure.get("stage") or "?")
        reason = str(failure.get("reason") or "")
        key = (stage, failure_kind(reason))
        counts[key] = counts.get(key, 0) + 1
        examples.setdefault(key, (str(failure.get("qid") or ""), reason))
    order = sorted(counts, key=lambda k: -counts[k])   # stable: first met wins ties
    kept = [FailureKind(s, k, counts[(s, k)], *examples[(s, k)]) for s, k in order[:most]]
    rest: dict[str, list[tuple[str, str]]] = {}
    for key in order[most:]:
        rest.setdefault(key[0], []).append(key)
    for stage, keys in rest.items():
        qid, reason = examples[keys[0]]
        kept.append(FailureKind(stage, f"(other kinds: {len(keys)})",
                                sum(counts[k] for k in keys), qid, reason))
    return kept
