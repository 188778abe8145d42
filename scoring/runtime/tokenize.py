"""Tokenization for the runtime: the model directory's ``tokenizer.json`` read by the
`tokenizers` library (no transformers), batch encoding, the truncation policy, and
dynamic padding.

Truncation policy (the issue's "truncate the premise, never the hypothesis"):

* **Pairs** (premise, hypothesis), and any pair where one side must stay whole: the
  other side is cut at its end until the pair, with the model's special tokens, fits
  the card's ``max_length`` (the `tokenizers` strategy ``only_first`` for the premise
  side). Only when the kept side *alone* is longer than that is it cut at its end too
  (then the other side is left empty); :attr:`Encodings.cut` counts those inputs, so a
  scorer can say how many hypotheses it could not read whole.
* **Single texts**: cut at their end.
* **Causal LM**: the ids are ``[BOS] + text`` so that the first token of the text has a
  conditional probability too (GPT-2 has no separate BOS: its ``<|endoftext|>`` is
  both, which is what GPT-2 itself was trained with between documents). A conditional
  ``log P(text | prefix)`` tokenizes prefix and text **separately** and concatenates the
  ids, ``[BOS] + prefix + text``: the text's tokens are then exactly the tokens of the
  text alone, the same for every prefix, so scores of one text under different prefixes
  (CONNER's informativeness and helpfulness) sum over the same tokens. Tokenizing the
  joined string would let a BPE merge across the boundary and change which tokens count.
  Give the text its leading space when it continues the prefix (``" Paris"``), as GPT-2
  tokenizes running text. Too long: the prefix is cut from its *start* (the words next to
  the text condition it most), and a text that alone does not fit is cut at its end.

Padding is dynamic: each batch is padded to its own longest member (never to
``max_length``) with the tokenizer's pad id, and the attention mask hides the padding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from tokenizers import Tokenizer

from scoring.errors import ModelDirError, ScoringError

__all__ = ["Encoded", "Encodings", "TextTokenizer", "pad_batch"]

_PAD_NAMES = ("[PAD]", "<pad>", "<|pad|>", "<|padding|>")
_BOS_NAMES = ("<|endoftext|>", "<|begin_of_text|>", "<s>", "<bos>", "[BOS]", "<|startoftext|>")


@dataclass(frozen=True)
class Encoded:
    """One model input: token ids and token type ids (0 for the first segment, 1 for
    the second, where the tokenizer's template says so)."""

    ids: list[int]
    type_ids: list[int]

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Encodings:
    """A list of inputs and how many of them had to cut the part that is kept whole
    (the hypothesis of a pair, a causal LM's text)."""

    items: list[Encoded]
    cut: int = 0
    starts: list[int] | None = None
    """Causal LM with a prefix: the position of each text's first token in ``ids``."""


class TextTokenizer:
    """A model directory's tokenizer with the runtime's truncation and padding policy
    (see the module docstring)."""

    def __init__(self, tokenizer: Tokenizer, max_length: int, *, source: str = "tokenizer") -> None:
        self.pad_id = _pad_id(tokenizer)
        self._bos = _template_start(tokenizer)
        if self._bos is None:
            self._bos = _special_id(tokenizer, _BOS_NAMES)
        # The runtime truncates and pads itself: whatever the file asks for is turned off.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._single = _Template.probe(tokenizer, pair=False, source=source)
        self._pair = _Template.probe(tokenizer, pair=True, source=source)
        self._tok = tokenizer
        self._source = source
        self.max_length = max_length
        self._truncating: dict[int, Tokenizer] = {}

    @classmethod
    def from_file(cls, path: Path, max_length: int) -> TextTokenizer:
        """Read ``tokenizer.json``; a :class:`ModelDirError` naming the file when it is
        missing or not a `tokenizers` file."""
        if not path.is_file():
            raise ModelDirError(f"{path.parent}: no {path.name} in it, so its texts cannot be "
                                f"tokenized",
                                "export the model again with `kgbench model export`, which "
                                "writes the tokenizer beside model.onnx")
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # the Rust library raises a bare Exception
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ModelDirError(f"{path}: not a `tokenizers` tokenizer.json ({reason})",
                                "export the model again with `kgbench model export`") from None
        return cls(tokenizer, max_length, source=str(path))

    @property
    def vocab_size(self) -> int:
        return int(self._tok.get_vocab_size(with_added_tokens=True))

    def bos_id(self) -> int:
        """The id a causal LM's input starts with (see the module docstring)."""
        if self._bos is None:
            raise ModelDirError(f"{self._source}: no beginning-of-sequence token (none of "
                                f"{', '.join(_BOS_NAMES)}), so a causal LM's first token "
                                f"has nothing to be conditioned on",
                                "export a causal LM whose tokenizer has a BOS or "
                                "<|endoftext|> token")
        return self._bos

    def _raw(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._tok.encode_batch(list(texts), add_special_tokens=False)]

    def encode_texts(self, texts: Sequence[str]) -> Encodings:
        """Single texts with the model's special tokens, each cut at its end to fit."""
        budget = self._budget(pair=False)
        out, cut = [], 0
        for ids in self._raw(texts):
            if len(ids) > budget:
                ids = ids[:budget]
                cut += 1
            out.append(self._single.apply(ids))
        return Encodings(out, cut)

    def encode_pairs(self, firsts: Sequence[str], seconds: Sequence[str], *,
                     keep: Literal["first", "second"] = "second") -> Encodings:
        """(first, second) pairs with the model's special tokens; the side not named by
        ``keep`` is cut at its end to fit, the kept side only when it alone does not
        fit (counted in :attr:`Encodings.cut`). NLI keeps the hypothesis (second)."""
        if len(firsts) != len(seconds):
            raise ScoringError(f"{len(firsts)} first texts but {len(seconds)} second texts",
                               "pass one premise for each hypothesis")
        budget = self._budget(pair=True)
        out, cut = [], 0
        for a, b in zip(self._raw(firsts), self._raw(seconds), strict=True):
            kept, other = (b, a) if keep == "second" else (a, b)
            if len(kept) > budget:
                kept, other = kept[:budget], []
                cut += 1
            elif len(kept) + len(other) > budget:
                other = other[:budget - len(kept)]
            a, b = (other, kept) if keep == "second" else (kept, other)
            out.append(self._pair.apply(a, b))
        return Encodings(out, cut)

    def encode_causal(self, texts: Sequence[str]) -> Encodings:
        """``[BOS] + text`` for each text, the text cut at its end to fit."""
        bos = self.bos_id()
        out, cut = [], 0
        for ids in self._raw(texts):
            if 1 + len(ids) > self.max_length:
                ids = ids[: self.max_length - 1]
                cut += 1
            out.append(Encoded([bos, *ids], [0] * (1 + len(ids))))
        return Encodings(out, cut)

    def encode_conditional(self, prefixes: Sequence[str], texts: Sequence[str]) -> Encodings:
        """``[BOS] + prefix + text``, each tokenized on its own; :attr:`Encodings.starts`
        gives where each text begins. Too long: the prefix loses its start; a text that
        alone does not fit is cut at its end (counted)."""
        if len(prefixes) != len(texts):
            raise ScoringError(f"{len(prefixes)} prefixes but {len(texts)} texts",
                               "pass one prefix for each text")
        bos = self.bos_id()
        room = self.max_length - 1
        out, starts, cut = [], [], 0
        for prefix, text in zip(self._raw(prefixes), self._raw(texts), strict=True):
            if len(text) > room:
                text, prefix = text[:room], []
                cut += 1
            elif len(prefix) + len(text) > room:
                prefix = prefix[len(prefix) + len(text) - room:]
            ids = [bos, *prefix, *text]
            out.append(Encoded(ids, [0] * len(ids)))
            starts.append(1 + len(prefix))
        return Encodings(out, cut, starts)

    def encode_own(self, texts: Sequence[str], max_length: int | None = None) -> list[list[int]]:
        """Each text as the tokenizer itself encodes it, its own special tokens included
        (a Hugging Face tokenizer's ``encode``: nothing for GPT-2, ``<s>`` first for
        Llama), cut at its end to ``max_length`` (default the card's). What released
        scripts feed a causal LM; kgbench's own runs use :meth:`encode_causal`."""
        limit = self.max_length if max_length is None else min(max_length, self.max_length)
        return [e.ids[:limit] for e in self._tok.encode_batch(list(texts),
                                                              add_special_tokens=True)]

    def encode_pairs_longest_first(self, firsts: Sequence[str], seconds: Sequence[str],
                                   max_length: int | None = None) -> Encodings:
        """(first, second) pairs with the model's special tokens, truncated as a Hugging
        Face tokenizer's ``truncation=True`` does (`tokenizers`' ``longest_first``: tokens
        come off the longer side first) to ``max_length`` (default the card's), what a
        released script's cross-encoder reads. kgbench's own runs keep one side whole
        (:meth:`encode_pairs`)."""
        if len(firsts) != len(seconds):
            raise ScoringError(f"{len(firsts)} first texts but {len(seconds)} second texts",
                               "pass one second text for each first")
        limit = self.max_length if max_length is None else min(max_length, self.max_length)
        tok = self._truncating.get(limit)
        if tok is None:   # a copy: this tokenizer's own truncation stays off
            tok = self._truncating[limit] = Tokenizer.from_str(self._tok.to_str())
            tok.enable_truncation(limit, strategy="longest_first")
        encoded = tok.encode_batch(list(zip(firsts, seconds, strict=True)))
        return Encodings([Encoded(list(e.ids), list(e.type_ids)) for e in encoded])

    def _budget(self, *, pair: bool) -> int:
        budget = self.max_length - (self._pair if pair else self._single).specials
        if budget < 1:
            raise ScoringError(f"{self._source}: max_length {self.max_length} leaves no room "
                               f"for text beside the special tokens",
                               "export the model with a larger --max-length")
        return budget


@dataclass(frozen=True)
class _Template:
    """Where the tokenizer's post-processor puts its special tokens around one text or
    a pair (``[CLS] A [SEP] B [SEP]``, ``<s> A </s></s> B </s>``, nothing for GPT-2),
    read once from the post-processor's own output on a probe. Applying it to id lists
    gives what ``Tokenizer.post_process`` gives, without the overflow pieces that
    ``Encoding.truncate`` leaves behind and that ``post_process`` would process again
    for every pair (on long premises that made tokenization slower than the model)."""

    parts: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]
    """(-1, special ids, their type ids) or (sequence 0|1, (), (type id,))."""

    @property
    def specials(self) -> int:
        return sum(len(ids) for seq, ids, _ in self.parts if seq < 0)

    @classmethod
    def probe(cls, tok: Tokenizer, *, pair: bool, source: str) -> _Template:
        a, b = (tok.encode(text, add_special_tokens=False) for text in ("a", "b"))
        if not a.ids or not b.ids:
            raise ModelDirError(f"{source}: the tokenizer turns the probe texts 'a' and 'b' "
                                f"into no token at all",
                                "export the model again with `kgbench model export`")
        # The tokenizer's own encoding of the probe (its pair encoding gives the second
        # text type id 1 even without a post-processor, as post_process alone does not).
        out = tok.encode("a", "b") if pair else tok.encode("a")
        parts: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
        lengths = (len(a.ids), len(b.ids))
        pos, seq = 0, 0
        mask, ids, types = out.special_tokens_mask, out.ids, out.type_ids
        while pos < len(ids):
            start = pos
            if mask[pos]:
                while pos < len(ids) and mask[pos]:
                    pos += 1
                parts.append((-1, tuple(ids[start:pos]), tuple(types[start:pos])))
            elif seq < (2 if pair else 1):
                # A and B may follow each other with no special token between (GPT-2).
                parts.append((seq, (), (types[start],)))
                pos += lengths[seq]
                seq += 1
            else:
                break
        if seq != (2 if pair else 1) or pos != len(ids):
            raise ModelDirError(f"{source}: the post-processor gives {seq} text segments "
                                f"for {'a pair' if pair else 'one text'}",
                                "export the model again with `kgbench model export`")
        return cls(tuple(parts))

    def apply(self, first: list[int], second: list[int] | None = None) -> Encoded:
        seqs = (first, second or [])
        ids: list[int] = []
        types: list[int] = []
        for seq, special, type_ids in self.parts:
            if seq < 0:
                ids.extend(special)
                types.extend(type_ids)
            else:
                ids.extend(seqs[seq])
                types.extend(type_ids * len(seqs[seq]))
        return Encoded(ids, types)


def pad_batch(batch: Sequence[Encoded], pad_id: int, input_names: Sequence[str]
              ) -> dict[str, np.ndarray]:
    """The graph's inputs for one batch, padded on the right to the batch's longest
    member: ``input_ids`` (``pad_id`` after the end), ``attention_mask`` (1 on real
    tokens), ``token_type_ids`` and ``position_ids`` when the graph takes them; int64
    ``[batch, seq]``."""
    width = max((len(e) for e in batch), default=1) or 1
    ids = np.full((len(batch), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    types = np.zeros((len(batch), width), dtype=np.int64)
    for row, enc in enumerate(batch):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = 1
        types[row, :n] = enc.type_ids
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types,
             "position_ids": np.broadcast_to(np.arange(width, dtype=np.int64),
                                             (len(batch), width)).copy()}
    return {name: feeds[name] for name in input_names}


def _tokenizer_json(tok: Tokenizer) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(tok.to_str())
    return doc


def _special_id(tok: Tokenizer, names: Sequence[str]) -> int | None:
    special = {t.content: i for i, t in tok.get_added_tokens_decoder().items() if t.special}
    for name in names:
        if name in special:
            return int(special[name])
    return None


def _pad_id(tok: Tokenizer) -> int:
    """The tokenizer's pad id: the file's padding setting, else a special token named
    like a pad token, else 0 — the attention mask hides padded positions, so which id
    fills them does not change a score."""
    padding = _tokenizer_json(tok).get("padding")
    if isinstance(padding, dict) and isinstance(padding.get("pad_id"), int):
        return int(padding["pad_id"])
    found = _special_id(tok, _PAD_NAMES)
    return 0 if found is None else found


def _template_start(tok: Tokenizer) -> int | None:
    """The special token a `TemplateProcessing` post-processor puts first in a single
    sequence (``<s> $A``, Llama-style), looked for in a `Sequence` of processors too."""
    processor = _tokenizer_json(tok).get("post_processor")
    candidates = (processor.get("processors") or [processor]) if isinstance(processor, dict) else []
    for proc in candidates:
        if not isinstance(proc, dict) or proc.get("type") != "TemplateProcessing":
            continue
        single = proc.get("single") or []
        if single and "SpecialToken" in single[0]:
            name = single[0]["SpecialToken"]["id"]
            ids = proc.get("special_tokens", {}).get(name, {}).get("ids") or []
            if len(ids) == 1:
                return int(ids[0])
    return None
