"""scoring.runtime.tokenize: the truncation policy (the premise is cut, never the
hypothesis), dynamic padding with the tokenizer's pad id, and causal-LM inputs
(BOS first, prefix and text tokenized separately), on tokenizers trained here."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tokenizers import Tokenizer

from scoring.errors import ModelDirError, ScoringError
from scoring.runtime.tokenize import TextTokenizer, pad_batch
from tests.scoring.runtime_models import bytelevel_tokenizer, wordpiece_tokenizer

PREMISE = ("Berlin is the capital of Germany. Paris is a city in France and the home of "
           "many museums. The river flows through three countries before it reaches the sea.")
HYPOTHESIS = "Berlin is the capital of Germany."


@pytest.fixture(scope="module")
def wordpiece():
    return wordpiece_tokenizer()


def same(tok: Tokenizer) -> Tokenizer:
    """A copy (training is not deterministic across runs, and TextTokenizer turns the
    file's truncation off in the instance it is given)."""
    return Tokenizer.from_str(tok.to_str())


def raw(tok, text):
    return tok.encode(text, add_special_tokens=False).ids


def test_a_pair_that_fits_is_the_tokenizers_own_pair_encoding(wordpiece):
    tt = TextTokenizer(same(wordpiece), max_length=128)
    enc = tt.encode_pairs([PREMISE], [HYPOTHESIS])
    full = wordpiece.encode(PREMISE, HYPOTHESIS)
    assert enc.items[0].ids == full.ids and enc.items[0].type_ids == full.type_ids
    assert enc.cut == 0


def test_truncation_cuts_the_premise_never_the_hypothesis(wordpiece):
    tt = TextTokenizer(same(wordpiece), max_length=20)
    enc = tt.encode_pairs([PREMISE], [HYPOTHESIS]).items[0]
    cls, sep = wordpiece.token_to_id("[CLS]"), wordpiece.token_to_id("[SEP]")
    hyp, prem = raw(wordpiece, HYPOTHESIS), raw(wordpiece, PREMISE)
    assert len(enc.ids) == 20
    # [CLS] premise[:k] [SEP] hypothesis [SEP]: the whole hypothesis, the premise's start
    k = 20 - 3 - len(hyp)
    assert enc.ids == [cls, *prem[:k], sep, *hyp, sep]
    assert enc.type_ids == [0] * (k + 2) + [1] * (len(hyp) + 1)


def test_a_hypothesis_too_long_alone_is_cut_at_its_end_and_counted(wordpiece):
    tt = TextTokenizer(same(wordpiece), max_length=8)
    enc = tt.encode_pairs(["short premise", "x"], [PREMISE, "ok"])
    cls, sep = wordpiece.token_to_id("[CLS]"), wordpiece.token_to_id("[SEP]")
    assert enc.items[0].ids == [cls, sep, *raw(wordpiece, PREMISE)[:5], sep]
    assert enc.cut == 1
    assert enc.items[1].ids == wordpiece.encode("x", "ok").ids


def test_keep_first_cuts_the_second_text_instead(wordpiece):
    tt = TextTokenizer(same(wordpiece), max_length=16)
    enc = tt.encode_pairs([HYPOTHESIS], [PREMISE], keep="first").items[0]
    hyp = raw(wordpiece, HYPOTHESIS)
    assert enc.ids[1:1 + len(hyp)] == hyp and len(enc.ids) == 16
    assert enc.ids[2 + len(hyp):-1] == raw(wordpiece, PREMISE)[:16 - 3 - len(hyp)]


def test_single_texts_are_cut_at_their_end(wordpiece):
    tt = TextTokenizer(same(wordpiece), max_length=6)
    enc = tt.encode_texts([PREMISE, "paris"])
    assert enc.items[0].ids[1:-1] == raw(wordpiece, PREMISE)[:4] and enc.cut == 1
    assert enc.items[1].ids == wordpiece.encode("paris").ids


def test_mismatched_pair_lists_are_refused():
    tt = TextTokenizer(wordpiece_tokenizer(), max_length=16)
    with pytest.raises(ScoringError, match="2 first texts but 1 second"):
        tt.encode_pairs(["a", "b"], ["c"])


def test_padding_is_dynamic_with_the_tokenizers_pad_id():
    tok = wordpiece_tokenizer()
    tt = TextTokenizer(tok, max_length=64)
    assert tt.pad_id == tok.token_to_id("[PAD]") == 0
    enc = tt.encode_pairs(["paris", PREMISE], ["berlin", HYPOTHESIS]).items
    feeds = pad_batch(enc, 7, ["input_ids", "attention_mask", "token_type_ids"])
    longest = max(len(e) for e in enc)
    assert longest < 64                                   # never padded to max_length
    assert feeds["input_ids"].shape == (2, longest) and feeds["input_ids"].dtype == np.int64
    n0 = len(enc[0])
    assert feeds["input_ids"][0].tolist() == enc[0].ids + [7] * (longest - n0)
    assert feeds["attention_mask"][0].tolist() == [1] * n0 + [0] * (longest - n0)
    assert feeds["token_type_ids"][1].tolist() == enc[1].type_ids
    assert list(pad_batch(enc, 0, ["input_ids"])) == ["input_ids"]


def test_the_pad_id_of_the_files_padding_setting_wins(tmp_path):
    tok = wordpiece_tokenizer()
    tok.enable_padding(pad_id=4, pad_token="[MASK]")
    tok.enable_truncation(max_length=3)
    tok.save(str(tmp_path / "tokenizer.json"))
    tt = TextTokenizer.from_file(tmp_path / "tokenizer.json", max_length=64)
    assert tt.pad_id == 4
    # the file's own truncation and padding are off: the runtime's policy alone applies
    assert len(tt.encode_texts([PREMISE]).items[0]) > 3


def test_causal_inputs_start_with_bos():
    tok = bytelevel_tokenizer()
    tt = TextTokenizer(tok, max_length=64)
    eot = tok.token_to_id("<|endoftext|>")
    enc = tt.encode_causal(["Berlin is the capital.", ""])
    assert enc.items[0].ids == [eot, *raw(tok, "Berlin is the capital.")]
    assert enc.items[1].ids == [eot]


def test_conditional_inputs_keep_the_texts_own_tokens():
    tok = bytelevel_tokenizer()
    tt = TextTokenizer(tok, max_length=64)
    eot = tok.token_to_id("<|endoftext|>")
    prefixes, texts = ["The capital of Germany is", "Paris is a"], [" Berlin", " city"]
    enc = tt.encode_conditional(prefixes, texts)
    for item, start, p, t in zip(enc.items, enc.starts, prefixes, texts, strict=True):
        assert item.ids == [eot, *raw(tok, p), *raw(tok, t)]
        assert item.ids[start:] == raw(tok, t)             # the same for every prefix


def test_conditional_truncation_cuts_the_prefix_from_its_start():
    tok = bytelevel_tokenizer()
    tt = TextTokenizer(tok, max_length=10)
    enc = tt.encode_conditional([PREMISE, "Paris"], [" the sea.", PREMISE])
    text = raw(tok, " the sea.")
    assert enc.items[0].ids == [0, *raw(tok, PREMISE)[-(9 - len(text)):], *text]
    assert enc.items[1].ids == [0, *raw(tok, PREMISE)[:9]] and enc.starts[1] == 1
    assert enc.cut == 1
    long = tt.encode_causal([PREMISE])
    assert len(long.items[0]) == 10 and long.cut == 1


def test_a_causal_lm_tokenizer_without_bos_is_refused(tmp_path):
    tt = TextTokenizer(wordpiece_tokenizer(), max_length=16)
    assert tt.bos_id() == 2                   # a template's first special token ([CLS])
    tok = bytelevel_tokenizer()
    doc = json.loads(tok.to_str())
    doc["added_tokens"][0]["content"] = "<unk>"
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc))
    tt = TextTokenizer.from_file(tmp_path / "tokenizer.json", max_length=16)
    with pytest.raises(ModelDirError, match="no beginning-of-sequence token"):
        tt.encode_causal(["x"])


def test_missing_or_broken_tokenizer_file_names_the_file(tmp_path):
    with pytest.raises(ModelDirError, match=r"no tokenizer\.json in it"):
        TextTokenizer.from_file(tmp_path / "tokenizer.json", max_length=16)
    (tmp_path / "tokenizer.json").write_text("{not json")
    with pytest.raises(ModelDirError, match=r"tokenizer\.json: not a `tokenizers`") as err:
        TextTokenizer.from_file(tmp_path / "tokenizer.json", max_length=16)
    assert "\n" not in str(err.value)


def test_max_length_without_room_for_text_is_refused():
    tt = TextTokenizer(wordpiece_tokenizer(), max_length=3)
    with pytest.raises(ScoringError, match="leaves no room"):
        tt.encode_pairs(["a"], ["b"])


@pytest.mark.parametrize("processor", ["template", "bert", "roberta", "none"])
def test_special_tokens_are_placed_as_the_tokenizers_post_processor_places_them(processor):
    """The runtime applies the post-processor's layout itself (read once from a probe):
    the same ids and type ids as ``Tokenizer.encode(first, second)`` for every kind."""
    from tokenizers import processors

    tok = wordpiece_tokenizer()
    cls, sep = ("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))
    tok.post_processor = {"template": tok.post_processor,
                          "bert": processors.BertProcessing(sep, cls),
                          "roberta": processors.RobertaProcessing(sep, cls),
                          "none": None}[processor]
    tt = TextTokenizer(same(tok), max_length=512)
    pairs = [(PREMISE, HYPOTHESIS), ("paris", "berlin is a city"), ("", "x")]
    got = tt.encode_pairs([p for p, _ in pairs], [h for _, h in pairs]).items
    for item, (p, h) in zip(got, pairs, strict=True):
        want = tok.encode(p, h)
        assert (item.ids, item.type_ids) == (want.ids, want.type_ids)
    for item, text in zip(tt.encode_texts([PREMISE, ""]).items, [PREMISE, ""], strict=True):
        assert item.ids == tok.encode(text).ids
