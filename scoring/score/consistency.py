"""The label-consistency rule: what an NLI model should say about a sample's
citation → answer-statement pair given the sample's gold label, and the table of how
often it does (gold label × NLI outcome).

A benchmark built by editing subgraphs (CAQA §4.3) knows each sample's label by
construction; an NLI model reading the verbalized text is an independent check that
the *text* carries that label (CAQA §5.2 uses an NLI model, AutoIS, as an attribution
evaluator that tells supportive from non-supportive; CONNER Eq. 1 scores factuality
with an NLI model over premise → hypothesis). Where the two disagree the verbalization
may have lost or added meaning, so those samples are the ones to review or drop.

The rule, per gold label (premise = the citations, hypothesis = the answer statement
ã, :mod:`scoring.inputs`):

``supportive`` → **entailment**
    The citations state every triple of the answer's subgraph, so they entail ã.
``contradictory`` → **contradiction**
    The citations state the query's constraints with another answer (CAQA §4.3:
    the answer entity is replaced), so they contradict ã.
``irrelevant`` → **not entailment** (neutral, *or* contradiction)
    The citations are about the question's subject over other relations (CAQA §4.3:
    the subgraph is swapped), so they say nothing on ã: the ideal outcome is
    neutral. Contradiction counts as consistent too, for two reasons. The gold label
    only says the citation does not support the claim (CAQA's *Irrelevant* and
    AttrScore's *Extrapolatory* are both "not attributable"); and NLI models trained on
    SNLI/MNLI, whose pairs are taken to describe one and the same situation, often read
    two different facts about one subject ("The Godfather is in Italian" against "the
    director of The Godfather is Francis Ford Coppola") as contradiction, so counting
    that as an error of the *benchmark* would flag good samples. The table keeps
    neutral and contradiction in separate columns: how the model splits them stays
    visible.
``partially_supportive`` → **not entailment** (neutral or contradiction)
    The citations keep only part of the original subgraph G (CAQA §4.3: a triple or a
    path is deleted), so ã, which states all of G, is not entailed. The missing part
    is absent, not denied: neutral is the ideal, contradiction counts for the same
    reasons as for irrelevant samples, and a 2-way NLI model (entailment vs not) can
    only say "not entailment" anyway.

Sub-facts of a partially supportive sample (CAQA §6.3): each sub-fact sentence of G
is read against the sample's citations; a **supported** sub-fact (still in the
sample's subgraph) is expected to be entailed, an **unsupported** one (deleted) not to
be (neutral or contradiction, as above).

The model's outcome is the argmax of its three probabilities (ties go to the first of
entailment, neutral, contradiction). The probability of the expected outcome is
P(entailment), P(contradiction), or for "not entailment" 1 − P(entailment) = P(neutral)
+ P(contradiction); ``kgbench score --flag-below P`` flags samples where it is below P.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from extension.core.labels import LABELS, Label
from scoring.card import NLI_ROLES, NliRole

__all__ = ["EXPECTED_OUTCOMES", "SUB_FACT_KINDS", "ConsistencyTable", "Expected", "OutcomeCounts",
           "agrees", "consistency_table", "expected_outcome", "expected_probability",
           "predicted_role", "sub_fact_expected"]

Expected = Literal["entailment", "contradiction", "not_entailment"]
EXPECTED_OUTCOMES: tuple[Expected, ...] = get_args(Expected)
SubFactKind = Literal["supported", "unsupported"]
SUB_FACT_KINDS: tuple[SubFactKind, ...] = get_args(SubFactKind)

_RULE: Mapping[Label, Expected] = {
    "supportive": "entailment", "partially_supportive": "not_entailment",
    "contradictory": "contradiction", "irrelevant": "not_entailment"}


def expected_outcome(label: Label) -> Expected:
    """The NLI outcome a sample of gold ``label`` should get (the module docstring
    gives the rule and its reasons)."""
    return _RULE[label]


def sub_fact_expected(supported: bool) -> Expected:
    """The NLI outcome of a partially supportive sample's sub-fact (CAQA §6.3): a
    supported sub-fact is entailed by the citations, an unsupported one is not."""
    return "entailment" if supported else "not_entailment"


def predicted_role(probabilities: Mapping[NliRole, float]) -> NliRole:
    """The argmax role of an NLI model's probabilities; a tie goes to the first of
    entailment, neutral, contradiction (a 2-way model's neutral is 0.0 and never wins)."""
    best: NliRole = NLI_ROLES[0]
    for role in NLI_ROLES[1:]:
        if probabilities[role] > probabilities[best]:
            best = role
    return best


def agrees(expected: Expected, predicted: NliRole) -> bool:
    """Whether the model's outcome ``predicted`` is the ``expected`` one ("not
    entailment" is met by neutral and by contradiction)."""
    if expected == "not_entailment":
        return predicted != "entailment"
    return predicted == expected


def expected_probability(expected: Expected, probabilities: Mapping[NliRole, float]) -> float:
    """The model's probability of the ``expected`` outcome: P(entailment),
    P(contradiction), or 1 − P(entailment) for "not entailment"."""
    if expected == "not_entailment":
        return 1.0 - probabilities["entailment"]
    return probabilities[expected]


@dataclass(slots=True)
class OutcomeCounts:
    """One row of the table: the pairs of one gold label (or sub-fact kind), how many
    the model gave each outcome, and how many of them are consistent with the rule."""

    expected: Expected
    outcomes: dict[NliRole, int] = field(default_factory=lambda: dict.fromkeys(NLI_ROLES, 0))
    consistent: int = 0

    @property
    def n(self) -> int:
        return sum(self.outcomes.values())

    @property
    def consistent_share(self) -> float | None:
        """consistent / n; ``None`` for a row without pairs (not 0: nothing disagreed)."""
        return self.consistent / self.n if self.n else None

    def add(self, predicted: NliRole, consistent: bool) -> None:
        self.outcomes[predicted] += 1
        self.consistent += consistent

    def to_json(self) -> dict[str, Any]:
        share = self.consistent_share
        doc: dict[str, Any] = {"expected": self.expected, "n": self.n}
        for role in NLI_ROLES:
            doc[role] = self.outcomes[role]
        return {**doc, "consistent": self.consistent,
                "consistent_share": round(share, 6) if share is not None else None}


@dataclass(slots=True)
class ConsistencyTable:
    """Gold label × NLI outcome counts with the consistent share per label, and the
    same for the sub-facts of partially supportive samples (supported / unsupported)."""

    by_label: dict[Label, OutcomeCounts] = field(default_factory=lambda: {
        label: OutcomeCounts(expected_outcome(label)) for label in LABELS})
    sub_facts: dict[SubFactKind, OutcomeCounts] = field(default_factory=lambda: {
        "supported": OutcomeCounts("entailment"), "unsupported": OutcomeCounts("not_entailment")})

    @property
    def total(self) -> OutcomeCounts:
        """All samples' pairs together (their expectations differ: ``expected`` is
        not meaningful here, only the counts)."""
        row = OutcomeCounts("not_entailment")
        for counts in self.by_label.values():
            for role, n in counts.outcomes.items():
                row.outcomes[role] += n
            row.consistent += counts.consistent
        return row

    def to_json(self) -> dict[str, Any]:
        total = self.total.to_json()
        del total["expected"]
        return {"rule": {label: expected_outcome(label) for label in LABELS},
                "by_label": {label: row.to_json() for label, row in self.by_label.items()},
                "total": total,
                "sub_facts": {kind: row.to_json() for kind, row in self.sub_facts.items()}}


def consistency_table(records: Iterable[Mapping[str, Any]]) -> ConsistencyTable:
    """The table of ``scores.jsonl`` records (:mod:`scoring.score.records`): each
    record's ``label``, its ``nli.predicted`` and ``nli.consistent``, and those of its
    ``sub_facts``. Records without NLI scores (an ``--lm``-only run) count nowhere."""
    table = ConsistencyTable()
    for record in records:
        nli = record.get("nli")
        if not nli:
            continue
        table.by_label[record["label"]].add(nli["predicted"], nli["consistent"])
        for fact in record.get("sub_facts") or ():
            kind: SubFactKind = "supported" if fact["supported"] else "unsupported"
            table.sub_facts[kind].add(fact["predicted"], fact["consistent"])
    return table
