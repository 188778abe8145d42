"""One batch of CONNER records through the models: every model is called once per
batch with all of its inputs (the runtime sorts them by length into token-budget
batches), and each record's scores are the pure functions of
:mod:`scoring.conner.metrics` applied to its share of the outputs.

What each model reads:

* NLI (Eq. 1, 7, 8): premise = evidence text, hypothesis = knowledge sentence, for
  every (sentence, evidence) pair of the record; validity: premise
  ``"{query} {gold_answer}"``, hypothesis ``"{query} {answer}"`` (Eq. 7, "concatenate
  (q, a*)"), or premise = evidence, hypothesis = answer (Eq. 8).
* Cross-encoder (Eq. 2): (query, knowledge), the passage cut to fit, never the query.
* Causal LM: each sentence's perplexity (Eq. 3); the knowledge's token log-probabilities
  given the query (Eq. 5) in the layout :data:`INFORMATIVENESS_PREFIX` + ``" " +
  knowledge``; the answer's log-probability given query and knowledge (Eq. 6) in the
  layout :data:`HELPFULNESS_PREFIX` + ``" " + answer``, with the record's knowledge and
  with each baseline knowledge. The runtime tokenizes prefix and text apart, so the
  answer's tokens are the same under every knowledge and the ratio of Eq. 6 compares
  like with like.
* Classifier (Eq. 4): the knowledge as one text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from scoring.conner.metrics import (
    Aggregate,
    Factuality,
    factuality,
    helpfulness,
    informativeness,
    paragraph_coherence,
    relevance,
    sentence_cohesion,
    sentence_factuality,
    validity_open,
    validity_span,
)
from scoring.conner.records import ConnerRecord
from scoring.runtime import CausalLM, CrossEncoder, NliScorer, NliScores, SequenceClassifier
from scoring.score.records import significant

__all__ = ["HELPFULNESS_PREFIX", "INFORMATIVENESS_PREFIX", "ConnerModels", "Prepared",
           "base_document", "input_counts", "score_batch"]

INFORMATIVENESS_PREFIX = "Question: {query}\nKnowledge:"
"""What the LM reads before the knowledge for Eq. 5's ``P(k_t | k_<t, q)``."""
HELPFULNESS_PREFIX = "Question: {query}\nKnowledge: {knowledge}\nAnswer:"
"""What the LM reads before the answer for Eq. 6's ``P(a | q, k)``."""

Step = Callable[[str, int], None]
"""``progress(model, n)``: ``n`` more inputs of ``model`` (nli, rerank, lm, coherence)."""


@dataclass(frozen=True)
class ConnerModels:
    """The models of a run; a perspective whose model is None is not scored."""

    nli: NliScorer | None = None
    rerank: CrossEncoder | None = None
    lm: CausalLM | None = None
    coherence: SequenceClassifier | None = None
    coherent_index: int = 0
    """Which of the classifier's labels is "coherent" (Eq. 4)."""


EvidenceSource = Literal["record", "kg", "none"]


@dataclass(frozen=True)
class Prepared:
    """A record ready to score: its sentences, its evidence (and where it came from),
    and the random other knowledge texts of its helpfulness baseline."""

    record: ConnerRecord
    sentences: tuple[str, ...]
    evidence: tuple[str, ...]
    evidence_source: EvidenceSource
    baseline: tuple[str, ...] = ()
    baseline_ids: tuple[str, ...] = ()

    @property
    def validity_kind(self) -> Literal["span", "open"] | None:
        """Eq. 7 with a gold answer, Eq. 8 with evidence only, None otherwise (or
        without an answer)."""
        if self.record.answer is None or not self.record.answer.strip():
            return None
        if self.record.gold_answer is not None and self.record.gold_answer.strip():
            return "span"
        return "open" if self.evidence else None

    @property
    def helpful(self) -> bool:
        return bool(self.record.answer and self.record.answer.strip() and self.baseline)

    def nli_pairs(self) -> list[tuple[str, str]]:
        """(premise, hypothesis): every sentence against every evidence, then validity."""
        pairs = [(e, s) for s in self.sentences for e in self.evidence]
        r = self.record
        kind = self.validity_kind
        if kind == "span":
            pairs.append((f"{r.query} {r.gold_answer}", f"{r.query} {r.answer}"))
        elif kind == "open":
            pairs += [(e, r.answer or "") for e in self.evidence]
        return pairs

    def help_inputs(self) -> list[tuple[str, str]]:
        """(prefix, text) for Eq. 6: the record's knowledge, then each baseline's."""
        if not self.helpful:
            return []
        r = self.record
        return [(HELPFULNESS_PREFIX.format(query=r.query, knowledge=k.strip()),
                 " " + (r.answer or "").strip()) for k in (r.knowledge, *self.baseline)]


def input_counts(items: Sequence[Prepared], models: ConnerModels) -> dict[str, int]:
    """Model inputs of ``items`` per model (progress totals)."""
    counts = {"nli": sum(len(p.nli_pairs()) for p in items) if models.nli else 0,
              "rerank": len(items) if models.rerank else 0,
              "lm": sum(len(p.sentences) + 1 + len(p.help_inputs()) for p in items)
              if models.lm else 0,
              "coherence": len(items) if models.coherence else 0}
    return {k: v for k, v in counts.items() if v}


def score_batch(items: Sequence[Prepared], models: ConnerModels, *,
                aggregate: Aggregate = "min", progress: Step | None = None
                ) -> list[dict[str, Any]]:
    """The per-record score documents of ``items`` (see :mod:`scoring.conner.run` for
    their layout), each model called once for the whole batch."""

    def step(model: str) -> Callable[[int], None] | None:
        return None if progress is None else (lambda n: progress(model, n))

    docs = [base_document(p, validity_kind=p.validity_kind, helpful=p.helpful) for p in items]
    if models.nli is not None:
        pairs = [p.nli_pairs() for p in items]
        flat = [pair for ps in pairs for pair in ps]
        results = models.nli.score([a for a, _ in flat], [b for _, b in flat],
                                   progress=step("nli"))
        at = 0
        for doc, p, ps in zip(docs, items, pairs, strict=True):
            _nli_scores(doc, p, results[at:at + len(ps)], aggregate)
            at += len(ps)
    if models.rerank is not None:
        logits = models.rerank.score([p.record.query for p in items],
                                     [p.record.knowledge for p in items], progress=step("rerank"))
        for doc, logit in zip(docs, logits, strict=True):
            doc["relevance"] = significant(relevance(logit))
            doc["relevance_logit"] = significant(logit)
    if models.lm is not None:
        _lm_scores(docs, items, models.lm, step("lm"))
    if models.coherence is not None:
        probs = models.coherence.probabilities([p.record.knowledge for p in items],
                                               progress=step("coherence"))
        for doc, row in zip(docs, probs, strict=True):
            doc["coherence_paragraph"] = significant(
                paragraph_coherence(row.tolist(), models.coherent_index))
    return docs


def base_document(p: Prepared, *, validity_kind: Literal["span", "open"] | None,
                  helpful: bool) -> dict[str, Any]:
    """A record's score document before any model ran: every score null (see
    :mod:`scoring.conner.run` for the layout)."""
    return {"id": p.record.id, "sentences": len(p.sentences),
            "evidence": {"source": p.evidence_source, "count": len(p.evidence)},
            "factuality": None, "sentence_factuality": None, "relevance": None,
            "relevance_logit": None, "coherence_sentence": None, "coherence_paragraph": None,
            "informativeness": None, "helpfulness": None,
            "helpfulness_baseline": list(p.baseline_ids) if helpful else None,
            "validity": None, "validity_kind": validity_kind}


def _vector(v: Factuality) -> list[float]:
    return [significant(x) for x in v]


def _nli_scores(doc: dict[str, Any], p: Prepared, results: Sequence[NliScores],
                aggregate: Aggregate) -> None:
    n = len(p.evidence)
    per_sentence = [results[i * n:(i + 1) * n] for i in range(len(p.sentences))]
    fact = factuality(per_sentence, aggregate)
    if fact is not None:
        doc["factuality"] = dict(zip(("consistent", "non_verified", "inconsistent"),
                                     _vector(fact), strict=True))
        doc["sentence_factuality"] = [_vector(sentence_factuality(s)) for s in per_sentence]
    rest = results[len(p.sentences) * n:]
    if p.validity_kind == "span":
        doc["validity"] = significant(validity_span(rest[0]))
    elif p.validity_kind == "open":
        value = validity_open(rest)
        doc["validity"] = significant(value) if value is not None else None


def _lm_scores(docs: list[dict[str, Any]], items: Sequence[Prepared], lm: CausalLM,
               progress: Callable[[int], None] | None) -> None:
    sentences = [s for p in items for s in p.sentences]
    perplexities = lm.perplexity(sentences, progress=progress)
    prefixes = [INFORMATIVENESS_PREFIX.format(query=p.record.query) for p in items]
    knowledge = [" " + p.record.knowledge.strip() for p in items]
    info = lm.conditional_token_logprobs(prefixes, knowledge, progress=progress)
    helps = [p.help_inputs() for p in items]
    flat = [pair for hs in helps for pair in hs]
    answer_logp = lm.conditional_logprob([a for a, _ in flat], [b for _, b in flat],
                                         progress=progress)
    at = help_at = 0
    for doc, p, logprobs, hs in zip(docs, items, info, helps, strict=True):
        cohesion = sentence_cohesion(perplexities[at:at + len(p.sentences)])
        at += len(p.sentences)
        doc["coherence_sentence"] = significant(cohesion) if cohesion is not None else None
        value = informativeness(np.asarray(logprobs).tolist())
        doc["informativeness"] = significant(value) if value is not None else None
        if hs:
            own, *baseline = answer_logp[help_at:help_at + len(hs)]
            help_at += len(hs)
            value = helpfulness(own, baseline)
            doc["helpfulness"] = significant(value) if value is not None else None
