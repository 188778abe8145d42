"""The scorers on real exported tiny models (tests/scoring/conftest.py) agree with the
same model in PyTorch (transformers, loaded from the tiny checkpoint), fed the same
token ids: NLI and classifier probabilities, rerank logits, causal-LM token log-probs,
perplexity and conditional log-prob; results in input order whatever the batching;
truncation cuts only the premise (on the exported tokenizers' own ids)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring.runtime import CausalLM, CrossEncoder, NliScorer, SequenceClassifier
from scoring.runtime.scorers import softmax64
from scoring.runtime.tokenize import Encoded, pad_batch
from tests.scoring.models import NLI_PAIRS

torch = pytest.importorskip("torch", reason="the export extra compares with PyTorch")
pytestmark = pytest.mark.torch

PAIRS = [*NLI_PAIRS, ("", "Berlin is the capital of Germany."),
         ("Berlin is the capital of Germany.", "The capital of Germany is Berlin.")]
PREMISES = [p for p, _ in PAIRS]
HYPOTHESES = [h for _, h in PAIRS]
TOL = 1e-4      # fp32 graph vs eager: float rounding of the same arithmetic


def torch_logits(hf_dir, task, encoded: list[Encoded], pad_id: int, inputs) -> np.ndarray:
    """The checkpoint in PyTorch eager on the padded batch of ``encoded``."""
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    auto = AutoModelForCausalLM if task == "causal-lm" else AutoModelForSequenceClassification
    model = auto.from_pretrained(hf_dir).eval()
    feeds = pad_batch(encoded, pad_id, inputs)
    with torch.inference_mode():
        out = model(**{k: torch.from_numpy(v) for k, v in feeds.items()})
    return out.logits.double().numpy()


@pytest.mark.parametrize("kind", ["bert", "deberta-v2"])
def test_nli_probabilities_agree_with_pytorch_in_input_order(kind, tiny_hf, exported):
    d = exported(kind, "nli")
    scorer = NliScorer.open(d, device="cpu", batch_tokens=64)      # several batches
    seen: list[int] = []
    scores = scorer.score(PREMISES, HYPOTHESES, progress=seen.append)
    assert len(seen) > 1 and sum(seen) == len(PAIRS)
    enc = scorer.model.tokenizer.encode_pairs(PREMISES, HYPOTHESES).items
    probs = softmax64(torch_logits(tiny_hf(kind, "nli"), "nli", enc,
                                   scorer.model.tokenizer.pad_id, scorer.model.input_names))
    roles = scorer.card.nli_roles
    for s, p in zip(scores, probs, strict=True):
        for role in ("entailment", "neutral", "contradiction"):
            assert getattr(s, role) == pytest.approx(p[roles[role]], abs=TOL)
    assert scorer.runtime.provider == "CPUExecutionProvider"


@pytest.mark.parametrize("kind", ["bert", "deberta-v2"])
def test_the_exported_tokenizer_matches_transformers_and_cuts_only_the_premise(kind, tiny_hf,
                                                                                 exported):
    from transformers import AutoTokenizer

    scorer = NliScorer.open(exported(kind, "nli"), device="cpu")
    tok = scorer.model.tokenizer
    hf = AutoTokenizer.from_pretrained(tiny_hf(kind, "nli"))
    for item, (p, h) in zip(tok.encode_pairs(PREMISES, HYPOTHESES).items, PAIRS, strict=True):
        assert item.ids == hf(p, h)["input_ids"]
    long_premise = " ".join(PREMISES * 20)
    item = tok.encode_pairs([long_premise], [HYPOTHESES[0]]).items[0]
    assert len(item.ids) == scorer.card.max_length
    hyp = hf(HYPOTHESES[0], add_special_tokens=False)["input_ids"]
    prem = hf(long_premise, add_special_tokens=False)["input_ids"]
    cls, sep = hf.cls_token_id, hf.sep_token_id
    k = scorer.card.max_length - 3 - len(hyp)
    assert item.ids == [cls, *prem[:k], sep, *hyp, sep]
    scorer.score([long_premise], [HYPOTHESES[0]])
    assert scorer.truncated_hypotheses == 0
    scorer.score(["x"], [long_premise])
    assert scorer.truncated_hypotheses == 1


def test_classifier_probabilities_agree_with_pytorch(tiny_hf, exported):
    clf = SequenceClassifier.open(exported("bert", "classify"), device="cpu", batch_tokens=50)
    probs = clf.probabilities(PREMISES, HYPOTHESES)
    enc = clf.model.tokenizer.encode_pairs(PREMISES, HYPOTHESES).items
    ref = softmax64(torch_logits(tiny_hf("bert", "classify"), "classify", enc,
                                 clf.model.tokenizer.pad_id, clf.model.input_names))
    np.testing.assert_allclose(probs, ref, atol=TOL)
    assert clf.labels == ("supportive", "partially_supportive", "contradictory", "irrelevant")
    assert clf.predict(PREMISES, HYPOTHESES) == [clf.labels[i] for i in ref.argmax(axis=1)]


def test_rerank_logits_agree_with_pytorch(tiny_hf, exported):
    ce = CrossEncoder.open(exported("bert", "rerank"), device="cpu", batch_tokens=50)
    got = ce.score(HYPOTHESES, PREMISES)
    enc = ce.model.tokenizer.encode_pairs(HYPOTHESES, PREMISES, keep="first").items
    ref = torch_logits(tiny_hf("bert", "rerank"), "rerank", enc, ce.model.tokenizer.pad_id,
                       ce.model.input_names)
    np.testing.assert_allclose(got, ref[:, 0], atol=TOL)


def test_causal_lm_logprobs_perplexity_and_conditional_agree_with_pytorch(tiny_hf, exported):
    lm = CausalLM.open(exported("gpt2", "causal-lm"), device="cpu", batch_tokens=40)
    texts = [*HYPOTHESES, ""]
    got = lm.token_logprobs(texts)
    tok = lm.model.tokenizer
    enc = tok.encode_causal(texts).items
    logits = torch_logits(tiny_hf("gpt2", "causal-lm"), "causal-lm", enc, tok.pad_id,
                          lm.model.input_names)
    logp = torch.log_softmax(torch.from_numpy(logits), dim=-1).numpy()
    for row, (lp, e) in enumerate(zip(got, enc, strict=True)):
        n = len(e.ids)
        want = logp[row, np.arange(n - 1), e.ids[1:]]
        np.testing.assert_allclose(lp, want, atol=TOL)
    assert len(got[-1]) == 0
    ppl = lm.perplexity(texts[:-1])
    for p, lp in zip(ppl, got, strict=False):
        assert p == pytest.approx(math.exp(-lp.mean()), rel=1e-9)
    prefixes = PREMISES[:4]
    continuations = [" " + h for h in HYPOTHESES[:4]]
    cond = lm.conditional_logprob(prefixes, continuations)
    cenc = tok.encode_conditional(prefixes, continuations)
    clogits = torch_logits(tiny_hf("gpt2", "causal-lm"), "causal-lm", cenc.items, tok.pad_id,
                           lm.model.input_names)
    clogp = torch.log_softmax(torch.from_numpy(clogits), dim=-1).numpy()
    for row, (value, e, start) in enumerate(zip(cond, cenc.items, cenc.starts, strict=True)):
        positions = np.arange(start - 1, len(e.ids) - 1)
        assert value == pytest.approx(clogp[row, positions, e.ids[start:]].sum(), abs=10 * TOL)
