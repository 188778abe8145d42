"""What a benchmark's text gets wrong, counted without a reader (issue 34, "done means").

Blind readers rated kgbench's questions 3.1 of 5 and 40% of them 1 or 2; what they
pointed at is mostly mechanical, so it can be counted over every sample of a run:

* **placeholder words** where a template had no noun ("something", "Which entity", "the
  one that"; :data:`PLACEHOLDERS`, :func:`placeholder_words`);
* **doubled words** ("with with", "whose album is Queen is Queen"; :func:`doubled_words`);
* **more than two constraints** in q̃: constants the extended question names
  (:func:`constraint_count`; a union's namesakes count once);
* **hub constants**: a constant that more than :data:`HUB_SHARE` of its relation's facts
  point at ("…whose gender is Male", "…released on DVD"), among the constants kgbench
  chose (:func:`chosen_constants`; a dataset question's own topic is a person's choice);
* the **grammar gate**'s findings (:mod:`extension.verbalize.grammar_gate`): every
  LanguageTool match by rule, and those in the blocked categories.

:func:`quality_report` runs them all over a run's samples; ``tests/extension/
test_text_quality_runs.py`` asserts on it for 1,000 samples per KG and
``bench/text_quality.py`` prints it per KG. The same word checks give each sample a
rough 1-5 score (:func:`text_score`) by which ``report.html`` picks its showcase samples
(issue 34, item 7).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from extension.verbalize.grammar_gate import (
    GrammarGate,
    check_samples,
    is_variant_spelling,
    sample_names,
    sample_parts,
)
from extension.verbalize.planner import HUB_MIN_FACTS, HUB_SHARE, MAX_CONSTRAINTS, HubCounter
from kgstore.store import Store

EXAMPLES = 3
"""Examples kept per kind of finding, for a failing test's message and the bench."""

KGQA_DATASETS = frozenset({"webqsp", "grailqa", "jsonl"})
"""Sources whose original question a person wrote: its constants are theirs."""

PLACEHOLDERS = ("something", "someone", "which entity", "the one", "one that", "an entry",
                "is related to", "a fact", "what entity")
"""Words a template writes where it had no noun or phrase for a thing."""

_PLACEHOLDER = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in PLACEHOLDERS) + r")\b",
                          re.IGNORECASE)
_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)
_ID = re.compile(r"\b(?:[PQ]\d+|[mg]\.[0-9a-z_]+)\b|_|\w\.\w+\.\w")


def _without(text: str, names: Iterable[str]) -> str:
    """``text`` with each of ``names`` blanked (a name's own words are no fault)."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = text.replace(name, " NAME ")
    return text


def placeholder_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """The placeholder words of ``text`` outside the entity ``names``."""
    return [m.group(0) for m in _PLACEHOLDER.finditer(_without(text, names))]


def doubled_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """Words written twice in a row in ``text`` outside the entity ``names`` ("with
    with"); "NAME NAME" (two names side by side) is not counted."""
    return [m.group(0) for m in _DOUBLED.finditer(_without(text, names))
            if m.group(1) != "NAME"]


def text_score(question: str, answer: str, citation: str, names: Iterable[str] = ()) -> float:
    """A rough 1-5 score of a sample's text: 5 less a point per placeholder, doubled
    word or id, less a little per word beyond a plain question (14 words), statement
    (20) or citation (60)."""
    names = list(names)
    faults = 0
    for text in (question, answer, citation):
        faults += len(placeholder_words(text, names)) + len(doubled_words(text, names))
        faults += len(_ID.findall(_without(text, names)))
    length = (max(0, len(question.split()) - 14) / 10 + max(0, len(answer.split()) - 20) / 15
              + max(0, len(citation.split()) - 60) / 40)
    return max(1.0, 5.0 - faults - length)


def _graph_constants(graph: Mapping[str, Any]) -> set[str]:
    return {str(n["id"]) for n in graph.get("nodes") or ()
            if isinstance(n, Mapping) and n.get("kind") in ("entity", "literal")}


def constraint_count(doc: Mapping[str, Any]) -> int:
    """Constants the extended question names: per disjunct of the extended query (a
    union's namesakes sit in separate disjuncts, so they count once), the most."""
    query = doc.get("query") or {}
    graphs = query.get("extended") or [query.get("original") or {}]
    return max((len(_graph_constants(g)) for g in graphs if isinstance(g, Mapping)), default=0)


@dataclass(frozen=True, slots=True)
class ChosenConstant:
    """A constant of q̃ and one relation that links it to the rest of the query."""

    entity: str
    predicate: str
    entity_is_subject: bool


def chosen_constants(doc: Mapping[str, Any]) -> list[ChosenConstant]:
    """The entity constants of the extended query that kgbench chose, with their edges:
    all of them for a ``--domain`` seed question, those not in the original query for a
    dataset question (a person asked about its topic, hub or not)."""
    query = doc.get("query") or {}
    source = doc.get("source") or {}
    kept: set[str] = set()
    if source.get("dataset") in KGQA_DATASETS:
        kept = _graph_constants(query.get("original") or {})
    out: dict[tuple[str, str, bool], ChosenConstant] = {}
    for graph in query.get("extended") or ():
        entities = {str(n["id"]) for n in graph.get("nodes") or ()
                    if isinstance(n, Mapping) and n.get("kind") == "entity"} - kept
        for e in graph.get("edges") or ():
            for end, is_subject in ((str(e["source"]), True), (str(e["target"]), False)):
                if end in entities:
                    key = (end, str(e["predicate"]), is_subject)
                    out.setdefault(key, ChosenConstant(*key))
    return list(out.values())


@dataclass
class GrammarCounts:
    """The grammar gate over a run's samples. Matches are counted per sample they occur
    in (a question's q̃ recurs in its four samples), keyed ``part|category|rule``."""

    languagetool: str = ""
    startup_s: float = 0.0
    seconds: float = 0.0
    texts: int = 0
    unique_texts: int = 0
    by_rule: Counter[str] = field(default_factory=Counter)
    blocked_by_rule: Counter[str] = field(default_factory=Counter)
    on_names: Counter[str] = field(default_factory=Counter)
    samples_with_matches: int = 0
    blocked_samples: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"languagetool": self.languagetool, "startup_s": round(self.startup_s, 2),
                "seconds": round(self.seconds, 2), "texts": self.texts,
                "unique_texts": self.unique_texts,
                "texts_per_s": (round(self.unique_texts / self.seconds, 1) if self.seconds
                                else None),
                "samples_with_matches": self.samples_with_matches,
                "blocked_samples": self.blocked_samples,
                "blocked_by_rule": dict(self.blocked_by_rule.most_common()),
                "by_rule": dict(self.by_rule.most_common()),
                "on_names_by_category": dict(self.on_names.most_common())}


@dataclass
class QualityReport:
    """Counts of each kind of finding over one run's samples (``*_samples``: samples with
    at least one), with up to :data:`EXAMPLES` examples of each kind."""

    kg: str
    samples: int = 0
    questions: int = 0
    placeholders: Counter[str] = field(default_factory=Counter)
    placeholder_samples: int = 0
    doubled: Counter[str] = field(default_factory=Counter)
    doubled_samples: int = 0
    constraints: Counter[int] = field(default_factory=Counter)
    over_constraint_samples: int = 0
    hubs: Counter[str] = field(default_factory=Counter)
    hub_samples: int = 0
    grammar: GrammarCounts | None = None
    examples: dict[str, list[str]] = field(default_factory=dict)

    def example(self, kind: str, text: str) -> None:
        kept = self.examples.setdefault(kind, [])
        if len(kept) < EXAMPLES and text not in kept:
            kept.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "kg": self.kg, "samples": self.samples, "questions": self.questions,
            "placeholder_samples": self.placeholder_samples,
            "placeholders": dict(self.placeholders.most_common()),
            "doubled_samples": self.doubled_samples,
            "doubled": dict(self.doubled.most_common()),
            "constraints": {str(k): v for k, v in sorted(self.constraints.items())},
            "over_constraint_samples": self.over_constraint_samples,
            "max_constraints": MAX_CONSTRAINTS,
            "hub_samples": self.hub_samples, "hub_share": HUB_SHARE,
            "hubs": dict(self.hubs.most_common(20)),
            "grammar": self.grammar.to_json() if self.grammar else None,
            "examples": self.examples,
        }

    def lines(self) -> list[str]:
        """A plain-text summary, one finding kind a line, examples indented."""
        n = self.samples or 1
        out = [f"{self.kg}: {self.samples:,} samples from {self.questions:,} questions",
               f"  placeholder words   {self.placeholder_samples:>5} samples "
               f"({100 * self.placeholder_samples / n:.1f}%) "
               f"{dict(self.placeholders.most_common(5))}",
               f"  doubled words       {self.doubled_samples:>5} samples "
               f"({100 * self.doubled_samples / n:.1f}%)",
               f"  > {MAX_CONSTRAINTS} constraints     {self.over_constraint_samples:>5} samples "
               f"({100 * self.over_constraint_samples / n:.1f}%) "
               f"histogram {dict(sorted(self.constraints.items()))}",
               f"  hub constants       {self.hub_samples:>5} samples "
               f"({100 * self.hub_samples / n:.1f}%) share > {HUB_SHARE:.0%}"]
        g = self.grammar
        if g is not None:
            out.append(f"  grammar gate        {g.blocked_samples:>5} samples blocked "
                       f"({100 * g.blocked_samples / n:.1f}%), {g.samples_with_matches} with "
                       f"any match; {g.unique_texts:,} texts in {g.seconds:.1f} s "
                       f"(LanguageTool {g.languagetool}, start-up {g.startup_s:.1f} s)")
            for key, count in g.by_rule.most_common():
                mark = "BLOCKED" if key in g.blocked_by_rule else "       "
                out.append(f"    {mark} {count:>5}  {key}")
            if g.on_names:
                out.append(f"    on names (not counted): {dict(g.on_names.most_common())}")
        for kind, texts in sorted(self.examples.items()):
            out += [f"  e.g. {kind}: {t}" for t in texts]
        return out


def quality_report(docs: Iterable[Mapping[str, Any]], *, kg: str, store: Store | None = None,
                   gate: GrammarGate | None = None) -> QualityReport:
    """Every check over ``docs`` (sample JSON documents): the hub check needs the run's
    ``store``, the grammar check a ``gate``; each is left out without it."""
    samples = list(docs)
    qids = {str((d.get("source") or {}).get("qid")) for d in samples}
    report = QualityReport(kg=kg, samples=len(samples), questions=len(qids))
    hubs = HubCounter(store) if store is not None else None
    for doc in samples:
        _text_checks(report, doc)
        count = constraint_count(doc)
        report.constraints[count] += 1
        if count > MAX_CONSTRAINTS:
            report.over_constraint_samples += 1
            report.example("constraints", f"{count}: {_question(doc)}")
        if hubs is not None:
            found = [c for c in chosen_constants(doc)
                     if hubs.hub(c.entity, c.predicate, entity_is_subject=c.entity_is_subject)]
            for c in found:
                linked, total = hubs.linked(c.entity, c.predicate,
                                            entity_is_subject=c.entity_is_subject)
                report.hubs[f"{c.entity} via {c.predicate}"] += 1
                report.example("hub", f"{c.entity} via {c.predicate} "
                               f"(≥{linked}/{total} facts): {_question(doc)}")
            report.hub_samples += bool(found)
    if gate is not None:
        report.grammar = grammar_counts(gate, samples, report)
    return report


def _question(doc: Mapping[str, Any]) -> str:
    return str(doc.get("question_extended") or doc.get("question") or "")


def _text_checks(report: QualityReport, doc: Mapping[str, Any]) -> None:
    names = sample_names(doc)
    found_placeholder = found_doubled = False
    for part, text in sample_parts(doc):
        for word in placeholder_words(text, names):
            report.placeholders[word.lower()] += 1
            report.example("placeholder", f"{part}: {text}")
            found_placeholder = True
        for pair in doubled_words(text, names):
            report.doubled[pair.lower()] += 1
            report.example("doubled", f"{part}: {text}")
            found_doubled = True
    report.placeholder_samples += found_placeholder
    report.doubled_samples += found_doubled


def grammar_counts(gate: GrammarGate, samples: Sequence[Mapping[str, Any]],
                   report: QualityReport | None = None) -> GrammarCounts:
    """The gate's findings over ``samples``, counted (examples of blocked matches go
    into ``report``)."""
    counts = GrammarCounts(languagetool=gate.version, startup_s=gate.startup_s)
    checked_before = gate.texts_checked
    started = time.monotonic()
    findings = check_samples(gate, samples)
    counts.seconds = time.monotonic() - started
    counts.unique_texts = gate.texts_checked - checked_before
    counts.texts = sum(len(sample_parts(d)) for d in samples)
    for sample in findings:
        blocked = False
        for f in sample:
            if f.on_name:
                counts.on_names[f.match.category] += 1
                continue
            variety = " (British spelling)" if is_variant_spelling(f.match) else ""
            key = f"{f.part}|{f.match.category}|{f.match.rule}{variety}"
            counts.by_rule[key] += 1
            if f.blocked:
                counts.blocked_by_rule[key] += 1
                blocked = True
                if report is not None:
                    report.example(f"grammar {f.match.rule}", f.describe())
        counts.samples_with_matches += any(not f.on_name for f in sample)
        counts.blocked_samples += blocked
    return counts


__all__ = ["HUB_MIN_FACTS", "HUB_SHARE", "KGQA_DATASETS", "MAX_CONSTRAINTS", "PLACEHOLDERS",
           "ChosenConstant", "GrammarCounts", "QualityReport", "chosen_constants",
           "constraint_count", "doubled_words", "grammar_counts", "placeholder_words",
           "quality_report", "text_score"]
