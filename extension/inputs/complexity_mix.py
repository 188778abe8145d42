"""The complexity mix of ``--domain`` seed questions (issue 34, item 6).

CAQA's samples are 52.3% *single*, 34.3% *concatenation*, 9.6% *intersection* and 3.9%
*union* (Hu et al., *CAQA*, Table 5). Seed questions drawn evenly over the three query
shapes and extended by a uniformly drawn rule (§4.2) gave ``--domain`` runs 69-78%
intersection and about 10% single, since every tree seed and half of the rules end as
trees. A domain run now draws its seed questions in the shares of a
:class:`ComplexityMix`, CAQA Table 5's by default (:data:`CAQA_MIX`) or any other
(``kgbench generate --complexity-mix``), each as the question of its complexity
(:data:`SEED_OF_COMPLEXITY`): a *single* seed left as it is; a *union* single seed
given the union rule (Table 4: same-name subjects); a *concatenation* path seed (two
hops, the second through a named intermediate entity) and an *intersection* tree
seed (two subjects converging on the answer) left as they are. A domain seed is
already the question it is meant to be, so Table 4's rule ``none`` applies to every
shape here (:func:`extension.core.rules.rule_order`); extending a path or a tree seed
further would give three hops or three constraints, which nobody asks. Where the
union rule has no candidate the others are tried as for any question, so a run's
shares come close to the mix rather than equal it (``stats.json`` has them).
``--complexity-mix shapes`` keeps the §4.2 draw: shapes in equal numbers, rules drawn
uniformly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from extension.core.labels import COMPLEXITIES, Complexity
from extension.core.rules import Rule
from extension.inputs.questions import ParsedQuestion
from extension.inputs.seed_sampler import SeedShape
from extension.outputs.caqa_table5 import CAQA_TABLE5_TOTALS

__all__ = ["CAQA_MIX", "SEED_OF_COMPLEXITY", "SHAPES", "ComplexityMix", "parse_complexity_mix",
           "seed_counts", "with_rules"]

SEED_OF_COMPLEXITY: Mapping[Complexity, tuple[SeedShape, Rule]] = {
    "single": ("single", "none"), "union": ("single", "union"),
    "concatenation": ("path", "none"), "intersection": ("tree", "none")}
"""The seed shape and extension rule of each complexity (CAQA Table 4: a single query
with the union rule is a union-tree; a path is a concatenation, a tree an
intersection)."""

SHAPES = "shapes"
"""The ``--complexity-mix`` value that keeps §4.2's draw (no mix)."""


@dataclass(frozen=True, slots=True)
class ComplexityMix:
    """Shares of the complexities (``weights``, any non-negative numbers, normalised)."""

    weights: Mapping[Complexity, float]

    def counts(self, n: int) -> dict[Complexity, int]:
        """``n`` split by the weights, rounded by largest remainder (ties in
        :data:`~extension.core.labels.COMPLEXITIES` order), summing to ``n``."""
        total = sum(self.weights.values())
        exact = {c: n * self.weights.get(c, 0.0) / total for c in COMPLEXITIES}
        counts = {c: math.floor(x) for c, x in exact.items()}
        left = n - sum(counts.values())
        for c in sorted(COMPLEXITIES, key=lambda c: (-(exact[c] - counts[c]),
                                                    COMPLEXITIES.index(c)))[:left]:
            counts[c] += 1
        return counts

    def describe(self) -> str:
        total = sum(self.weights.values())
        return ", ".join(f"{c} {100 * self.weights.get(c, 0.0) / total:.1f}%"
                         for c in COMPLEXITIES)


CAQA_MIX = ComplexityMix({c: float(CAQA_TABLE5_TOTALS["complexity"][c]) for c in COMPLEXITIES})
"""CAQA Table 5's complexity shares: single 52.3%, union 3.9%, intersection 9.6%,
concatenation 34.3%."""


def parse_complexity_mix(spec: str) -> ComplexityMix | None:
    """``"caqa"`` -> :data:`CAQA_MIX`; ``"shapes"`` -> None (§4.2's draw); else
    ``"single=50,concatenation=30,intersection=15,union=5"`` (complexities left out
    weigh 0). Raises ``ValueError`` saying what is wrong."""
    text = spec.strip().lower()
    if text == "caqa":
        return CAQA_MIX
    if text == SHAPES:
        return None
    weights: dict[Complexity, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or name not in COMPLEXITIES:
            raise ValueError(f"{part!r} is not COMPLEXITY=WEIGHT (complexities: "
                             f"{', '.join(COMPLEXITIES)}); or use 'caqa' or 'shapes'")
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"the weight of {name} must be a number >= 0, got {value.strip()!r}")
        if name in weights:
            raise ValueError(f"{name} is given twice")
        weights[name] = weight   # type: ignore[index]  # checked against COMPLEXITIES
    if not weights or sum(weights.values()) <= 0:
        raise ValueError("a complexity mix needs a weight above 0, e.g. "
                         "'single=50,concatenation=30,intersection=15,union=5'")
    return ComplexityMix(weights)


def seed_counts(n: int, mix: ComplexityMix) -> dict[SeedShape, int]:
    """How many seed questions of each shape ``n`` questions in ``mix`` need."""
    counts: dict[SeedShape, int] = {}
    for complexity, k in mix.counts(n).items():
        shape = SEED_OF_COMPLEXITY[complexity][0]
        counts[shape] = counts.get(shape, 0) + k
    return counts


def with_rules(questions: Sequence[ParsedQuestion], mix: ComplexityMix, *, seed: int
               ) -> list[ParsedQuestion]:
    """``questions`` (seeds sampled by :func:`seed_counts`) each with the rule of its
    complexity: the single seeds split between single and union in ``mix``'s shares,
    in a seeded order."""
    singles = [q for q in questions if q.shape == "single"]
    counts = mix.counts(len(questions))
    union_share = counts["union"] / max(1, counts["single"] + counts["union"])
    unions = round(len(singles) * union_share)
    union: list[Rule] = ["union"]
    none: list[Rule] = ["none"]
    rules = union * unions + none * (len(singles) - unions)
    random.Random(f"{seed}:complexity-mix").shuffle(rules)
    by_id = {q.id: rule for q, rule in zip(singles, rules, strict=True)}
    return [q.model_copy(update={"rule": by_id.get(q.id, "none")}) for q in questions]
