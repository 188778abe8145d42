"""The scorers on ONNX graphs whose weights the test knows (tests/scoring/runtime_models):
NLI role mapping, classifier labels, the cross-encoder's logit, causal-LM log-probs and
perplexity against numpy, input order under any batching, task checks. Parity with
PyTorch on exported tiny models: test_runtime_parity.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring.errors import ModelDirError, ScoringError
from scoring.runtime import CausalLM, CrossEncoder, NliScorer, NliScores, SequenceClassifier
from scoring.runtime.causal_lm import token_logprobs_from_logits
from scoring.runtime.scorers import softmax64
from tests.scoring.runtime_models import (
    bigram_lm,
    bytelevel_tokenizer,
    card_for,
    mean_pool_classifier,
    model_dir,
    wordpiece_tokenizer,
)

PREMISES = ["Berlin is the capital of Germany.", "Paris is a city in France.",
            "The river flows through three countries before it reaches the sea.", "", "x"]
HYPOTHESES = ["Germany has a capital.", "Paris", "A river reaches the sea.", "nothing",
              "Marie Curie won the Nobel Prize in Physics and in Chemistry."]


def graph_dir(tmp_path, name, task, labels, **card):
    tok = wordpiece_tokenizer()
    path = model_dir(tmp_path / name, card_for(task, labels=labels, **card), tok)
    emb, w = mean_pool_classifier(path, vocab=tok.get_vocab_size(), n_labels=len(labels))
    return tmp_path / name, emb, w


def pair_logits(scorer, emb, w, firsts, seconds, keep="second"):
    enc = scorer.model.tokenizer.encode_pairs(firsts, seconds, keep=keep).items
    return np.stack([emb[e.ids].sum(axis=0).astype(np.float64) @ w for e in enc])


@pytest.fixture(scope="module")
def nli(tmp_path_factory):
    # logit order of a checkpoint that puts contradiction first: the card's roles map it
    return graph_dir(tmp_path_factory.mktemp("nli"), "nli", "nli",
                     ("contradiction", "entailment", "neutral"),
                     nli_roles={"contradiction": 0, "entailment": 1, "neutral": 2})


def test_nli_probabilities_follow_the_cards_roles_in_input_order(nli):
    d, emb, w = nli
    scorer = NliScorer.open(d, device="cpu", batch_tokens=24)
    seen: list[int] = []
    scores = scorer.score(PREMISES, HYPOTHESES, progress=seen.append)
    assert sum(seen) == len(PREMISES) and len(seen) > 1
    probs = softmax64(pair_logits(scorer, emb, w, PREMISES, HYPOTHESES))
    for s, p in zip(scores, probs, strict=True):
        assert isinstance(s, NliScores)
        assert (s.contradiction, s.entailment, s.neutral) == pytest.approx(tuple(p), abs=1e-6)
        assert s.entailment + s.neutral + s.contradiction == pytest.approx(1.0)
        assert s.label == ("contradiction", "entailment", "neutral")[int(p.argmax())]
    assert scorer.runtime.provider == "CPUExecutionProvider" and scorer.card.task == "nli"
    assert scorer.score([], []) == []


def test_two_way_nli_has_zero_neutral(tmp_path):
    d, emb, w = graph_dir(tmp_path, "nli2", "nli", ("entailment", "not_entailment"),
                          nli_roles={"entailment": 0, "contradiction": 1})
    s = NliScorer.open(d, device="cpu").score(PREMISES[:1], HYPOTHESES[:1])[0]
    assert s.neutral == 0.0 and s.entailment + s.contradiction == pytest.approx(1.0)


def test_nli_hypothesis_cut_only_when_it_alone_is_too_long(tmp_path):
    d, _, _ = graph_dir(tmp_path, "short", "nli", ("entailment", "neutral", "contradiction"),
                        nli_roles={"entailment": 0, "neutral": 1, "contradiction": 2},
                        max_length=8)
    scorer = NliScorer.open(d, device="cpu")
    scorer.score(PREMISES, HYPOTHESES)
    # 5 tokens fit beside [CLS] [SEP] [SEP]. The test tokenizer is trained afresh, and its
    # trainer breaks frequency ties differently from run to run ("nothing" is 5 tokens in
    # one run, 6 in another), so the lengths come from this run's tokenizer: "Paris" always
    # fits, the three long hypotheses never do.
    lengths = [len(ids) for ids in scorer.model.tokenizer._raw(HYPOTHESES)]
    too_long = sum(n > 5 for n in lengths)
    assert lengths[1] <= 5 and min(lengths[0], lengths[2], lengths[4]) > 5
    assert scorer.truncated_hypotheses == too_long
    with pytest.raises(ScoringError, match="2 premises but 1 hypotheses"):
        scorer.score(PREMISES[:2], HYPOTHESES[:1])


def test_classifier_probabilities_and_predictions(tmp_path):
    labels = ("supportive", "partially_supportive", "contradictory", "irrelevant")
    d, emb, w = graph_dir(tmp_path, "clf", "classify", labels)
    clf = SequenceClassifier.open(d, device="cpu", batch_tokens=16)
    probs = clf.probabilities(PREMISES, HYPOTHESES)
    assert probs.shape == (5, 4) and probs.dtype == np.float64
    np.testing.assert_allclose(probs, softmax64(pair_logits(clf, emb, w, PREMISES, HYPOTHESES)),
                               atol=1e-6)
    assert clf.predict(PREMISES, HYPOTHESES) == [labels[i] for i in probs.argmax(axis=1)]
    single = clf.probabilities(PREMISES)
    enc = clf.model.tokenizer.encode_texts(PREMISES).items
    np.testing.assert_allclose(
        single, softmax64(np.stack([emb[e.ids].sum(0).astype(np.float64) @ w for e in enc])),
        atol=1e-6)
    assert clf.probabilities([]).shape == (0, 4) and clf.predict([]) == []


def test_cross_encoder_gives_the_relevance_logit_and_keeps_the_query(tmp_path):
    d, emb, w = graph_dir(tmp_path, "rr", "rerank", ("relevance",), max_length=12)
    ce = CrossEncoder.open(d, device="cpu")
    queries, passages = HYPOTHESES[:3], PREMISES[:3]
    got = ce.score(queries, passages)
    want = pair_logits(ce, emb, w, queries, passages, keep="first")[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    enc = ce.model.tokenizer.encode_pairs(queries, passages, keep="first").items[2]
    query = ce.model.tokenizer._raw([queries[2]])[0]
    assert enc.ids[1:1 + len(query)] == query        # the query whole, the passage cut


def test_a_rerank_model_needs_one_logit(tmp_path):
    d, _, _ = graph_dir(tmp_path, "rr3", "rerank", ("a", "b", "c"))
    with pytest.raises(ModelDirError, match="rerank model with 3 logits"):
        CrossEncoder.open(d, device="cpu")


def test_each_scorer_refuses_a_model_of_another_task(nli, tmp_path):
    d, _, _ = nli
    for scorer, task in ((SequenceClassifier, "classify"), (CrossEncoder, "rerank"),
                         (CausalLM, "causal-lm")):
        with pytest.raises(ModelDirError, match=f"a nli model, this needs a {task} model"):
            scorer.open(d, device="cpu")
    d2, _, _ = graph_dir(tmp_path, "c", "classify", ("a", "b"))
    with pytest.raises(ModelDirError, match="a classify model, this needs a nli model"):
        NliScorer.open(d2, device="cpu")


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    d = tmp_path_factory.mktemp("lm")
    tok = bytelevel_tokenizer()
    path = model_dir(d, card_for("causal-lm", max_length=24), tok)
    emb, w = bigram_lm(path, vocab=tok.get_vocab_size())
    return d, emb, w


def numpy_logprobs(emb, w, ids):
    logits = (emb[ids[:-1]] @ w).astype(np.float64)
    logz = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
    return logits[np.arange(len(ids) - 1), ids[1:]] - logz


def test_causal_lm_token_logprobs_perplexity_and_order(lm):
    d, emb, w = lm
    model = CausalLM.open(d, device="cpu", batch_tokens=30)
    texts = ["Berlin is the capital of Germany.", "", "Paris", " ".join(PREMISES * 2)]
    seen: list[int] = []
    got = model.token_logprobs(texts, progress=seen.append)
    assert sum(seen) == 4 and len(seen) > 1
    enc = model.model.tokenizer.encode_causal(texts).items
    for lp, e in zip(got, enc, strict=True):
        assert lp.dtype == np.float64 and len(lp) == len(e.ids) - 1
        np.testing.assert_allclose(lp, numpy_logprobs(emb, w, np.array(e.ids)), atol=1e-4)
    assert len(got[1]) == 0
    assert len(got[3]) == 23 and model.truncated_texts == 1      # BOS + 23 tokens fit
    ppl = model.perplexity(texts)
    assert ppl[0] == pytest.approx(math.exp(-got[0].mean()))
    assert math.isnan(ppl[1])


def test_conditional_logprob_sums_the_texts_tokens_given_the_prefix(lm):
    d, emb, w = lm
    model = CausalLM.open(d, device="cpu")
    prefixes, texts = ["The capital of Germany is", "Paris is a", "x"], [" Berlin", " city", ""]
    got = model.conditional_logprob(prefixes, texts)
    per_token = model.conditional_token_logprobs(prefixes, texts)
    enc = model.model.tokenizer.encode_conditional(prefixes, texts)
    for value, lp, e, start in zip(got, per_token, enc.items, enc.starts, strict=True):
        full = numpy_logprobs(emb, w, np.array(e.ids))
        np.testing.assert_allclose(lp, full[start - 1:], atol=1e-4)
        assert value == pytest.approx(full[start - 1:].sum(), abs=1e-4)
    assert got[2] == 0.0


def test_log_softmax_is_stable_for_huge_and_fp16_logits():
    logits = np.array([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    lp = token_logprobs_from_logits(logits, [0, 2])
    assert np.all(np.isfinite(lp))
    np.testing.assert_allclose(lp, [0.0, -math.log(3)], atol=1e-12)
    half = np.array([[1000.0, 990.0]], dtype=np.float16)
    assert token_logprobs_from_logits(half, [1])[0] == pytest.approx(
        -math.log1p(math.exp(10)), rel=1e-6)
    big = np.random.default_rng(0).normal(size=(3, 50000)).astype(np.float32)
    ref = big.astype(np.float64) - np.log(np.exp(big.astype(np.float64)).sum(1, keepdims=True))
    np.testing.assert_allclose(token_logprobs_from_logits(big, [5, 7, 9]),
                               ref[[0, 1, 2], [5, 7, 9]], atol=1e-6)


def test_chunked_tokenization_gives_the_same_results_in_order(nli, lm):
    """Inputs are tokenized a chunk at a time (the next in a background thread): small
    chunks give the same scores, in input order, with every input counted."""
    d, _, _ = nli
    whole = NliScorer.open(d, device="cpu").score(PREMISES * 3, HYPOTHESES * 3)
    chunked = NliScorer.open(d, device="cpu", batch_tokens=20)
    chunked.model.tokenize_chunk = 4
    seen: list[int] = []
    got = chunked.score(PREMISES * 3, HYPOTHESES * 3, progress=seen.append)
    # batch shapes differ, so float sums may round differently: equal to 1e-6
    for a, b in zip(got, whole, strict=True):
        assert (a.entailment, a.neutral, a.contradiction) == pytest.approx(
            (b.entailment, b.neutral, b.contradiction), abs=1e-6)
    assert sum(seen) == 15 and len(seen) > 4
    d, _, _ = lm
    texts = ["Berlin is the capital of Germany.", "", "Paris", " ".join(PREMISES * 2)] * 2
    lm_whole = CausalLM.open(d, device="cpu")
    lm_chunked = CausalLM.open(d, device="cpu")
    lm_chunked.model.tokenize_chunk = 3
    for a, b in zip(lm_whole.conditional_token_logprobs(["x"] * 8, texts),
                    lm_chunked.conditional_token_logprobs(["x"] * 8, texts), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-5)
    assert lm_chunked.perplexity(texts) == pytest.approx(lm_whole.perplexity(texts),
                                                         nan_ok=True)
    assert lm_chunked.truncated_texts == lm_whole.truncated_texts == 4
