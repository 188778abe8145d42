"""The texts a model reads for one benchmark sample: one home, so that the NLI scorer,
an exported classifier, its fine-tuning and the evaluators all feed a model the same
strings.

A sample's evidence is its citations (CAQA §3.1: the citation set C that should support
the answer); what must be supported is the answer statement ã (CAQA §3.1, the claim),
which the generator writes as one declarative sentence that states every constraint of
q̃, so it stands alone as an NLI hypothesis. Models read the pair (premise, hypothesis)
in that order, premise first, the order of NLI models (AutoIS reads "premise: …
hypothesis: …", CAQA Table 12) and the order in which truncation cuts the premise and
never the hypothesis.
"""

from __future__ import annotations

from extension.outputs.sample_schema import BenchmarkSample

__all__ = ["hypothesis", "premise", "sub_fact_pairs"]


def premise(sample: BenchmarkSample) -> str:
    """The citations' texts, in order, joined by a space (without the ``[1]`` markers,
    which are not part of what the citations say)."""
    return " ".join(c.text for c in sample.citations)


def hypothesis(sample: BenchmarkSample) -> str:
    """The answer statement ã."""
    return sample.answer


def sub_fact_pairs(sample: BenchmarkSample) -> list[tuple[str, str]]:
    """(premise, sub-fact sentence) for each triple of the original subgraph G (CAQA
    §6.3: a partially supportive sample's citation supports some of G's sub-facts and
    not the others; ``sub_facts[i].supported`` says which, by construction)."""
    text = premise(sample)
    return [(text, fact.text) for fact in sample.sub_facts]
