"""Causal language model log-probabilities: per token, per-sentence perplexity, and the
conditional log P(text | prefix) that CONNER's informativeness (Eq. 5) and helpfulness
(Eq. 6) are built from.

Every text is read as ``[BOS] + text`` (:mod:`scoring.runtime.tokenize`), so each of the
text's tokens, the first one included, has a probability given the ones before it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from scoring.card import Task
from scoring.errors import ScoringError
from scoring.runtime.scorers import TaskModel
from scoring.runtime.session import OnnxTextModel
from scoring.runtime.tokenize import Encoded, Encodings

__all__ = ["LOGITS_BUDGET", "CausalLM", "token_logprobs_from_logits"]

Progress = Callable[[int], None]

LOGITS_BUDGET = 2**26
"""Most logits one causal-LM batch may produce (256 MiB in float32): a batch's output
is ``[batch, seq, vocab]``, so with GPT-2's 50,257-token vocabulary the token budget is
about 1,300 tokens, whatever ``batch_tokens`` allows for a classifier."""


def token_logprobs_from_logits(logits: np.ndarray, targets: Sequence[int]) -> np.ndarray:
    """``log softmax(logits[i])[targets[i]]`` for each row, float64, numerically stable:
    the row maximum is subtracted before ``exp`` (nothing overflows; fp16 logits are
    widened to float32 first) and the sum of exponentials is accumulated in float64,
    so a 50k-token vocabulary loses no precision to the summation."""
    x = np.asarray(logits, dtype=np.float32)
    if len(targets) == 0:
        return np.zeros(0, dtype=np.float64)
    peak = x.max(axis=-1, keepdims=True)
    total = np.exp(x - peak).sum(axis=-1, dtype=np.float64)
    picked = x[np.arange(len(targets)), np.asarray(targets)].astype(np.float64)
    out: np.ndarray = picked - peak[:, 0].astype(np.float64) - np.log(total)
    return out


class CausalLM(TaskModel):
    """A GPT-2-family model exported with ``--task causal-lm``."""

    task: Task = "causal-lm"

    def __init__(self, model: OnnxTextModel) -> None:
        super().__init__(model)
        vocab = model.output_shape[-1]
        vocab = vocab if isinstance(vocab, int) else model.tokenizer.vocab_size
        self.batch_tokens = max(1, min(model.batch_tokens, LOGITS_BUDGET // max(vocab, 1)))
        """The token budget of one batch: the model's, capped by :data:`LOGITS_BUDGET`."""
        self.truncated_texts = 0
        """Texts that did not fit ``max_length`` and were cut at their end (their
        log-probabilities cover the tokens that fit), over this scorer's life."""

    def token_logprobs(self, texts: Sequence[str], *, progress: Progress | None = None
                       ) -> list[np.ndarray]:
        """For each text, float64 ``log P(token_i | BOS, token_1 … token_{i-1})`` for each
        of its tokens (empty for an empty text)."""
        return self._logprobs(
            len(texts), lambda a, b: self.model.tokenizer.encode_causal(texts[a:b]), progress)

    def perplexity(self, texts: Sequence[str], *, progress: Progress | None = None
                   ) -> list[float]:
        """``exp(-mean token log P)`` per text, the PPL whose inverse CONNER (Chen et al.
        2023, §3.3, Eq. 3) averages over a text's sentences as sentence-level cohesion,
        ``S_coh_sent = 1/m Σ 1/PPL(s_i)``. NaN for a text with no tokens (undefined)."""
        return [math.exp(-float(lp.mean())) if len(lp) else math.nan
                for lp in self.token_logprobs(texts, progress=progress)]

    def conditional_token_logprobs(self, prefixes: Sequence[str], texts: Sequence[str], *,
                                   progress: Progress | None = None) -> list[np.ndarray]:
        """For each pair, float64 ``log P(text_t | BOS, prefix, text_<t)`` for each token
        of the text (tokenized on its own: see :mod:`scoring.runtime.tokenize`). Their
        mean is the ``1/M Σ ln P(k_t | k_1:t-1, q)`` of CONNER's informativeness
        (Eq. 5)."""
        if len(prefixes) != len(texts):
            raise ScoringError(f"{len(prefixes)} prefixes but {len(texts)} texts",
                               "pass one prefix for each text")
        return self._logprobs(
            len(texts),
            lambda a, b: self.model.tokenizer.encode_conditional(prefixes[a:b], texts[a:b]),
            progress)

    def conditional_logprob(self, prefixes: Sequence[str], texts: Sequence[str], *,
                            progress: Progress | None = None) -> list[float]:
        """``log P(text | prefix)``: the sum of the text's token log-probabilities given
        the prefix, CONNER's ``log P(a | q, k)`` (Eq. 6, helpfulness). 0.0 for an empty
        text."""
        return [float(lp.sum()) for lp in
                self.conditional_token_logprobs(prefixes, texts, progress=progress)]

    def logprobs_of_ids(self, token_ids: Sequence[list[int]], starts: Sequence[int], *,
                        progress: Progress | None = None) -> list[np.ndarray]:
        """For each id list, float64 ``log P(ids[p] | ids[:p])`` for every position ``p``
        from ``starts[i]`` (at least 1: the first id has nothing before it) to the end;
        empty when the start is past the end. The ids are read as given, no BOS put
        before them: what a released script scores on its own tokenization
        (:meth:`TextTokenizer.encode_own`)."""
        if len(token_ids) != len(starts):
            raise ScoringError(f"{len(token_ids)} id lists but {len(starts)} starts",
                               "pass one start for each id list")

        def encode(a: int, b: int) -> Encodings:
            items = [Encoded(list(ids), [0] * len(ids)) for ids in token_ids[a:b]]
            return Encodings(items, 0, [max(1, min(s, len(ids)))
                                        for s, ids in zip(starts[a:b], token_ids[a:b],
                                                          strict=True)])

        return self._logprobs(len(token_ids), encode, progress)

    def _logprobs(self, n: int, encode: Callable[[int, int], Encodings],
                  progress: Progress | None) -> list[np.ndarray]:
        """Log-probabilities of each input's text tokens: from ``starts[i]`` (1, right
        after BOS, without a prefix) to the end."""

        def counted(a: int, b: int) -> Encodings:
            encodings = encode(a, b)
            self.truncated_texts += encodings.cut
            return encodings

        def reduce(chunk: Encodings, logits: np.ndarray, rows: list[int]) -> list[np.ndarray]:
            out = []
            for row, i in enumerate(rows):
                ids = chunk.items[i].ids
                start = chunk.starts[i] if chunk.starts is not None else 1
                # Position p's logits predict token p + 1.
                out.append(token_logprobs_from_logits(logits[row, start - 1:len(ids) - 1],
                                                      ids[start:]))
            return out

        return self.model.map_chunks(n, counted, reduce, progress=progress,
                                     batch_tokens=self.batch_tokens)
