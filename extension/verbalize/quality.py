"""What a benchmark's text gets wrong, counted without a reader (issue 34, "done means").

Blind readers rated kgbench's questions 3.1 of 5 and 40% of them 1 or 2; what they
pointed at is mostly mechanical, so it can be counted over every sample of a run:

* **placeholder words** where a template had no noun ("something", "Which entity", "the
  one that"; :data:`extension.verbalize.text_quality.PLACEHOLDERS`);
* **doubled words** ("with with");
* **more than two constraints** in q̃: constants the extended question names
  (:func:`constraint_count`; a union's namesakes count once);
* **hub constants**: a constant that more than :data:`HUB_SHARE` of its relation's facts
  point at ("…whose gender is Male", "…released on DVD"), among the constants kgbench
  chose (:func:`chosen_constants`; a dataset question's own topic is a person's choice);
* the **grammar gate**'s findings (:mod:`extension.verbalize.grammar_gate`): every
  LanguageTool match by rule, and those in the blocked categories.

:func:`quality_report` runs them all over a run's samples; ``tests/extension/
test_text_quality_runs.py`` asserts on it for 1,000 samples per KG and
``bench/text_quality.py`` prints it per KG.
"""

from __future__ import annotations

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
from extension.verbalize.text_quality import doubled_words, placeholder_words
from kgstore.store import Store

try:   # the planner's documented thresholds (issue 34, item 2; h/nl-core, merged to main)
    from extension.verbalize.planner import (  # type: ignore[import-not-found,unused-ignore]
        HUB_MAX_LINKS,
        HUB_MIN_FACTS,
        HUB_SHARE,
        MAX_CONSTRAINTS,
    )
except ImportError:  # pragma: no cover - on a tree without the planner: its numbers
    MAX_CONSTRAINTS = 2
    HUB_SHARE = 0.10
    HUB_MIN_FACTS = 5
    HUB_MAX_LINKS = 2_000

EXAMPLES = 3
"""Examples kept per kind of finding, for a failing test's message and the bench."""

KGQA_DATASETS = frozenset({"webqsp", "grailqa", "jsonl"})
"""Sources whose original question a person wrote: its constants are theirs."""


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


class HubShares:
    """How many of a relation's facts point at a constant, read from a store once per
    (constant, relation, side): at most enough facts to pass :data:`HUB_SHARE`, never
    more than :data:`HUB_MAX_LINKS` + 1 (a constant linked that often is a hub on any
    KG). The planner's rule, measured independently of the planner's code, with the
    counts kept for the report."""

    def __init__(self, store: Store, *, share: float = HUB_SHARE,
                 min_facts: int = HUB_MIN_FACTS) -> None:
        self.store = store
        self.share = share
        self.min_facts = min_facts
        self.totals = {p.id: p.count for p in store.predicates()}
        self._linked: dict[tuple[str, str, bool], int] = {}

    def linked(self, c: ChosenConstant) -> tuple[int, int]:
        """``(facts of c.predicate at c.entity on its side, capped past the threshold;
        facts of c.predicate)``."""
        total = self.totals.get(c.predicate, 0)
        key = (c.entity, c.predicate, c.entity_is_subject)
        if key not in self._linked:
            cap = min(max(self.min_facts, int(self.share * total) + 1), HUB_MAX_LINKS) + 1
            read = self.store.facts_out if c.entity_is_subject else self.store.facts_in
            self._linked[key] = len(read(c.entity, predicate=c.predicate, limit=cap))
        return self._linked[key], total

    def is_hub(self, c: ChosenConstant) -> bool:
        linked, total = self.linked(c)
        return linked > HUB_MAX_LINKS or (
            linked >= self.min_facts and total > 0 and linked / total > self.share)


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
    hubs = HubShares(store) if store is not None else None
    for doc in samples:
        _text_checks(report, doc)
        count = constraint_count(doc)
        report.constraints[count] += 1
        if count > MAX_CONSTRAINTS:
            report.over_constraint_samples += 1
            report.example("constraints", f"{count}: {_question(doc)}")
        if hubs is not None:
            found = [c for c in chosen_constants(doc) if hubs.is_hub(c)]
            for c in found:
                linked, total = hubs.linked(c)
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


__all__ = ["HUB_MIN_FACTS", "HUB_SHARE", "KGQA_DATASETS", "MAX_CONSTRAINTS",
           "ChosenConstant", "GrammarCounts", "HubShares", "QualityReport", "chosen_constants",
           "constraint_count", "grammar_counts", "quality_report"]
