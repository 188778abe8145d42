"""``scoring.export``: tiny real checkpoints (BERT, DeBERTa-v2, GPT-2 shapes) exported to
ONNX and run by the real onnxruntime against the real PyTorch model.

Parity is checked here independently of the export's own check: on texts and batch
sizes the export never saw (a batch of five padded to 40+ tokens, and one input alone),
so a batch or sequence size frozen into the graph, or padding that leaks into other
rows, fails here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scoring.card import read_card
from tests.scoring.models import Exported, TinyHf

CASES = [("bert", "nli"), ("deberta-v2", "nli"), ("bert", "classify"), ("bert", "rerank"),
         ("gpt2", "causal-lm")]

TEXTS = [
    ("Niels Bohr worked at a university in Copenhagen for many years and received the "
     "Nobel Prize in Physics in 1922, according to the record of the academy.",
     "Niels Bohr won the Nobel Prize in Physics."),
    ("Vienna.", "Lise Meitner was born in Vienna."),
    ("Ada Lovelace lived in London.", "Ada Lovelace did not win the Copley Medal."),
    ("In 1950, Rosalind Franklin moved from the United Kingdom to Paris, a city in France.",
     "Rosalind Franklin lived in France in 1950."),
    ("Berlin is the capital of Germany.", "The capital of Germany is Berlin."),
]


def _batch(directory: Path, rows: list[tuple[str, str]], task: str) -> dict[str, np.ndarray]:
    """The exported tokenizer's padded batch for ``rows`` (what the runtime would feed)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    if task == "causal-lm":
        encodings = tokenizer.encode_batch([f"{p} {h}" for p, h in rows])
    else:
        encodings = tokenizer.encode_batch(rows)
    return {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64)}


def onnx_logits(directory: Path, batch: dict[str, np.ndarray]) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(directory / "model.onnx"),
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return np.asarray(session.run(["logits"], {n: batch[n] for n in names})[0])


def torch_logits(source: Path, task: str, batch: dict[str, np.ndarray],
                 with_types: bool) -> np.ndarray:
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    auto = AutoModelForCausalLM if task == "causal-lm" else AutoModelForSequenceClassification
    model = auto.from_pretrained(source).eval()
    feed = {"input_ids": torch.from_numpy(batch["input_ids"]),
            "attention_mask": torch.from_numpy(batch["attention_mask"])}
    if with_types:
        feed["token_type_ids"] = torch.from_numpy(batch["token_type_ids"])
    with torch.no_grad():
        return model(**feed).logits.numpy()


@pytest.mark.parametrize(("kind", "task"), CASES)
def test_parity_on_shapes_the_export_never_saw(kind: str, task: str, tiny_hf: TinyHf,
                                               exported: Exported) -> None:
    directory, source = exported(kind, task), tiny_hf(kind, task)
    card = read_card(directory)
    with_types = "token_type_ids" in card.inputs
    for rows in (TEXTS, TEXTS[1:2]):
        batch = _batch(directory, rows, task)
        assert batch["input_ids"].shape[1] > 10
        got = onnx_logits(directory, batch)
        want = torch_logits(source, task, batch, with_types)
        if task == "causal-lm":
            mask = batch["attention_mask"].astype(bool)
            got, want = got[mask], want[mask]
        assert got.shape == want.shape
        assert np.abs(want).max() > 0.1   # logits of order one: a difference would show
        assert np.abs(got - want).max() < 1e-4, (kind, task, len(rows))
    assert card.parity.max_abs_diff <= card.parity.tolerance == 1e-4
