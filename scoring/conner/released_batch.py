"""One batch of CONNER records through the models under ``--protocol released``: what
each model reads as CONNER's released scripts feed it, each model called once per
batch, and each record's scores from :mod:`scoring.conner.released`.

A record's score document has the keys of :func:`scoring.conner.batch.base_document`,
with ``factuality`` the one-hot vector of the record's label (so a file's mean is the
share of records with each label, the script's number) and ``factuality_label`` the
label; ``validity`` is 1.0 for a record whose pair is entailment, else 0.0 (its mean is
the share). Values are kept at full precision; NaN (where the script would stop or its
mean skips) is ``null``, and the summary's means skip it, as ``np.nanmean`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scoring.conner import released
from scoring.conner.batch import ConnerModels, Prepared, Step, base_document
from scoring.conner.metrics import nli_vector, paragraph_coherence, relevance
from scoring.conner.prompts import ConnerPrompts, Demonstration
from scoring.runtime import CausalLM, NliScores

__all__ = ["ReleasedSetup", "helpfulness_texts", "informativeness_texts",
           "released_input_counts", "released_validity_kind", "score_batch_released"]

ENTAILMENT = released.RELEASED_LABELS.index("entailment")


@dataclass(frozen=True)
class ReleasedSetup:
    """What the released computation needs besides the models."""

    task: released.ReleasedTask
    prompts: ConnerPrompts


def released_validity_kind(p: Prepared, task: released.ReleasedTask
                           ) -> Literal["span", "open"] | None:
    """``nq``: span validity when the record has an answer and a gold answer; ``wow``:
    open validity when it has an answer and a gold answer or evidence."""
    r = p.record
    if not (r.answer and r.answer.strip()):
        return None
    gold = bool(r.gold_answer and r.gold_answer.strip())
    if task == "nq":
        return "span" if gold else None
    return "open" if gold or p.evidence else None


def _validity_pairs(p: Prepared, task: released.ReleasedTask) -> list[tuple[str, str]]:
    r = p.record
    kind = released_validity_kind(p, task)
    answer = (r.answer or "").strip()
    if kind == "span":
        query = released.asked_query(r.query, task)
        return [(f"{query}\t{r.gold_answer}", f"{query}\t{answer}")]
    if kind == "open":
        premises = ([r.gold_answer] if r.gold_answer and r.gold_answer.strip() else [])
        return [(e, answer) for e in [*premises, *p.evidence][:released.MAX_PREMISES]]
    return []


def _fact_pairs(p: Prepared) -> list[list[tuple[str, str]]]:
    return [[(e, s) for e in p.evidence[:released.MAX_PREMISES]] for s in p.sentences]


def _helps(p: Prepared) -> bool:
    return bool(p.record.gold_answer and p.record.gold_answer.strip() and p.baseline)


def released_input_counts(items: Sequence[Prepared], models: ConnerModels,
                          task: released.ReleasedTask) -> dict[str, int]:
    """Model inputs of ``items`` per model under this protocol (progress totals)."""
    counts = {"nli": sum(sum(len(x) for x in _fact_pairs(p)) + len(_validity_pairs(p, task))
                         for p in items) if models.nli else 0,
              "rerank": len(items) if models.rerank else 0,
              "lm": sum(len(p.sentences) + 1 + ((1 + len(p.baseline)) if _helps(p) else 0)
                        for p in items) if models.lm else 0,
              "coherence": len(items) if models.coherence else 0}
    return {k: v for k, v in counts.items() if v}


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def score_batch_released(items: Sequence[Prepared], models: ConnerModels, setup: ReleasedSetup,
                         *, progress: Step | None = None) -> list[dict[str, Any]]:
    """The per-record score documents of ``items`` (see the module docstring)."""

    def step(model: str) -> Callable[[int], None] | None:
        return None if progress is None else (lambda n: progress(model, n))

    docs = [{**base_document(p, validity_kind=released_validity_kind(p, setup.task),
                             helpful=_helps(p)), "factuality_label": None} for p in items]
    if models.nli is not None:
        fact = [_fact_pairs(p) for p in items]
        valid = [_validity_pairs(p, setup.task) for p in items]
        flat = [pair for f, v in zip(fact, valid, strict=True)
                for pair in [*(x for s in f for x in s), *v]]
        results = models.nli.score([a for a, _ in flat], [b for _, b in flat],
                                   progress=step("nli"))
        at = 0
        for doc, f, v in zip(docs, fact, valid, strict=True):
            per_sentence = []
            for pairs in f:
                per_sentence.append(results[at:at + len(pairs)])
                at += len(pairs)
            _factuality(doc, per_sentence)
            _validity(doc, results[at:at + len(v)])
            at += len(v)
    if models.rerank is not None:
        models.rerank.longest_first_max = released.RELEVANCE_MAX_TOKENS
        logits = models.rerank.score([p.record.query for p in items],
                                     [p.record.knowledge.strip() for p in items],
                                     progress=step("rerank"))
        for doc, logit in zip(docs, logits, strict=True):
            doc["relevance"] = relevance(logit)
            doc["relevance_logit"] = logit
    if models.lm is not None:
        _lm_scores(docs, items, models.lm, setup, step("lm"))
    if models.coherence is not None:
        probs = models.coherence.probabilities([p.record.knowledge for p in items],
                                               progress=step("coherence"))
        for doc, row in zip(docs, probs, strict=True):
            doc["coherence_paragraph"] = paragraph_coherence(row.tolist(),
                                                             models.coherent_index)
    return docs


def _factuality(doc: dict[str, Any], per_sentence: Sequence[Sequence[NliScores]]) -> None:
    label = released.record_label(per_sentence)
    if label is None:
        return
    one_hot = [1.0 if i == label else 0.0 for i in range(len(released.RELEASED_LABELS))]
    doc["factuality"] = {"consistent": one_hot[2], "non_verified": one_hot[1],
                         "inconsistent": one_hot[0]}
    doc["factuality_label"] = released.RELEASED_LABELS[label]
    doc["sentence_factuality"] = [list(nli_vector(s[released.best_evidence(s)]))
                                  for s in per_sentence]


def _validity(doc: dict[str, Any], results: Sequence[NliScores]) -> None:
    if results:
        best = results[released.best_evidence(results)]
        doc["validity"] = 1.0 if released.released_label(best) == ENTAILMENT else 0.0


def _demonstration_text(d: Demonstration, prompts: ConnerPrompts) -> str:
    knowledge = d.knowledge[len(d.topic):] if d.topic and d.knowledge.startswith(d.topic) \
        else d.knowledge
    return prompts.helpfulness.render(knowledge=knowledge.strip(),
                                      query=released.last_turn(d.query)) + d.answer.strip()


def informativeness_texts(p: Prepared, setup: ReleasedSetup) -> tuple[str, str]:
    """(prompt, prompt + knowledge) of ``info.py``: the prompt's ``{topic}`` and
    ``{query}`` filled (the query as :func:`asked_query` gives it, stripped), then the
    knowledge's first 300 words."""
    instruction = setup.prompts.informativeness.render(
        topic=(p.record.topic or "").strip(),
        query=released.asked_query(p.record.query, setup.task).strip())
    return instruction, instruction + released.cut_knowledge(p.record.knowledge.strip())


def helpfulness_texts(p: Prepared, prompts: ConnerPrompts) -> list[str]:
    """The texts ``helpfulness.py`` scores for a record, its own knowledge first, then
    each baseline knowledge: the few-shot prompt (the record's demonstrations, else the
    file's) with that knowledge and the query's last turn, then the gold answer."""
    demos = [_demonstration_text(d, prompts)
             for d in (p.record.demonstrations or prompts.demonstrations)]
    texts = []
    for knowledge in (p.record.knowledge, *p.baseline):
        asked = prompts.helpfulness.render(knowledge=knowledge.strip(),
                                           query=released.last_turn(p.record.query))
        texts.append(released.few_shot_prompt(demos, asked) + (p.record.gold_answer or ""))
    return texts


def _logprobs(lm: CausalLM, ids: list[list[int]], starts: list[int],
              progress: Callable[[int], None] | None) -> list[list[float]]:
    """Log-probabilities from each start; an id list with nothing to score is not run
    (it would be an empty input) and gives none."""
    runnable = [i for i, (x, s) in enumerate(zip(ids, starts, strict=True))
                if len(x) >= 2 and s < len(x)]
    got = lm.logprobs_of_ids([ids[i] for i in runnable], [starts[i] for i in runnable],
                             progress=progress)
    out: list[list[float]] = [[] for _ in ids]
    for i, values in zip(runnable, got, strict=True):
        out[i] = [float(v) for v in values]
    if progress is not None and len(ids) > len(runnable):
        progress(len(ids) - len(runnable))
    return out


def _lm_scores(docs: list[dict[str, Any]], items: Sequence[Prepared], lm: CausalLM,
               setup: ReleasedSetup, progress: Callable[[int], None] | None) -> None:
    tok = lm.model.tokenizer
    sentences = [s for p in items for s in p.sentences]
    sentence_lp = _logprobs(lm, tok.encode_own(sentences, released.PPL_MAX_TOKENS),
                            [1] * len(sentences), progress)
    instructions, examples = zip(*(informativeness_texts(p, setup) for p in items),
                                 strict=True) if items else ((), ())
    info_lp = _logprobs(lm, tok.encode_own(examples),
                        [len(x) + 1 for x in tok.encode_own(instructions)], progress)
    fulls: list[str] = []
    answers: list[str] = []
    for p in (p for p in items if _helps(p)):
        texts = helpfulness_texts(p, setup.prompts)
        fulls += texts
        answers += [p.record.gold_answer or ""] * len(texts)
    full_ids = tok.encode_own(fulls)
    answer_lengths = [len(x) for x in tok.encode_own(answers)]
    help_lp = _logprobs(lm, full_ids, [len(f) - n + 1 for f, n in
                                       zip(full_ids, answer_lengths, strict=True)], progress)
    at = help_at = 0
    for doc, p, info in zip(docs, items, info_lp, strict=True):
        ppls = [released.sentence_perplexity(lp) for lp in sentence_lp[at:at + len(p.sentences)]]
        at += len(p.sentences)
        doc["coherence_sentence"] = _finite(released.sentence_coherence(ppls))
        doc["informativeness"] = _finite(released.informativeness_from_logprobs(info))
        if _helps(p):
            losses = [(-sum(lp) / len(lp)) if lp else math.nan
                      for lp in help_lp[help_at:help_at + 1 + len(p.baseline)]]
            help_at += 1 + len(p.baseline)
            doc["helpfulness"] = _finite(released.helpfulness_from_losses(losses[0], losses[1:]))
