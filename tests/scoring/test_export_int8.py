"""``export_model(..., int8=True)`` / ``kgbench model export --int8``: dynamic int8
quantization of the tiny real checkpoints, checked here against PyTorch on texts and
batch sizes the export never saw, and refused when it differs (by more than the
tolerance, or in a label)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from scoring.card import CARD_FILE, MODEL_FILE, ModelCard, read_card
from scoring.errors import ModelDirError, ScoringError
from scoring.export import export_model
from scoring.export.corpus import PARITY_PAIRS
from scoring.export.parity import LABEL_TIE, label_disagreements, stage_tolerance
from tests.scoring.models import Exported, TinyHf
from tests.scoring.test_export import TEXTS, _batch, _io_types, _op_types, onnx_logits, torch_logits


@pytest.mark.parametrize(("kind", "task"), [("bert", "nli"), ("deberta-v2", "nli"),
                                            ("gpt2", "causal-lm")])
def test_int8_graphs_keep_parity_and_labels(kind: str, task: str, tiny_hf: TinyHf,
                                            exported: Exported) -> None:
    import onnx

    directory, source = exported(kind, task, int8=True), tiny_hf(kind, task)
    card = read_card(directory)
    assert (card.precision, card.optimized) == ("int8", False)
    # Integer MatMuls on int8 weights; the embedding tables stay float32; the runtime
    # feeds the same int64 ids and reads the same float32 logits.
    assert "MatMulInteger" in _op_types(directory)
    weights = {i.data_type for i in onnx.load(str(directory / MODEL_FILE)).graph.initializer}
    assert {onnx.TensorProto.INT8, onnx.TensorProto.FLOAT} <= weights
    assert _io_types(directory) == ({"tensor(int64)"}, {"tensor(float)"})
    for rows in (TEXTS, TEXTS[1:2]):
        batch = _batch(directory, rows, task)
        got = onnx_logits(directory, batch)
        want = torch_logits(source, task, batch, "token_type_ids" in card.inputs)
        if task == "causal-lm":
            mask = batch["attention_mask"].astype(bool)
            got, want = got[mask], want[mask]
        bound = 1e-1 * max(1.0, float(np.abs(want).max()))
        diff = float(np.abs(got - want).max())
        assert 1e-4 < diff < bound, (kind, task, len(rows))   # quantized, yet close
        if task == "nli":
            assert label_disagreements([want], [got]) == 0
    # The card: the int8 stage's parity, its default tolerance 1e-1 x the logits' size.
    assert 0 < card.parity.max_abs_diff <= card.parity.tolerance
    assert card.parity.tolerance >= 1e-1


def test_int8_report_and_notes(exported: Exported, tiny_hf: TinyHf, tmp_path: Path) -> None:
    """After --optimize too (the fused Attention is quantized as well); the report lists
    each stage, the label check on the int8 one, and says what was quantized."""
    report = export_model(tiny_hf("bert", "nli"), "nli", tmp_path / "m", optimize=True,
                          int8=True)
    doc = json.loads(json.dumps(report.to_json()))
    assert [s["stage"] for s in doc["parity"]] == ["fp32", "optimized", "int8"]
    assert doc["parity"][-1]["label_disagreements"] == 0
    assert "label_disagreements" not in doc["parity"][0]
    assert (report.card.precision, report.card.optimized) == ("int8", True)
    assert {"QAttention", "MatMulInteger"} <= _op_types(tmp_path / "m")
    assert any(n.startswith("int8: ") and "MatMuls quantized" in n for n in report.notes)
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == sorted(
        [MODEL_FILE, CARD_FILE, "tokenizer.json"])


def test_int8_beyond_tolerance_writes_nothing(tmp_path: Path, tiny_hf: TinyHf) -> None:
    """A tolerance the fp32 graph meets (it differs by ~5e-7) and the int8 graph does
    not (~3e-2): refused at the int8 stage, nothing at --out, no temporary left."""
    with pytest.raises(ScoringError, match=r"parity check failed \(int8\): .* more than the "
                                           r"tolerance 0\.001; nothing was written"):
        export_model(tiny_hf("bert", "nli"), "nli", tmp_path / "out", int8=True,
                     tolerance=1e-3)
    assert list(tmp_path.iterdir()) == []


def _undecided_by_int8(source: Path, target: Path) -> None:
    """A copy of the tiny BERT NLI checkpoint whose labels int8 cannot keep: on the
    parity samples PyTorch says entailment by a clear 0.05 (more than :data:`LABEL_TIE`),
    while the neutral and contradiction logits read directions the samples' pooled
    vectors have none of (their null space), times 100, so float32 rounding stays far
    below 0.05 and the int8 graph's few-percent error becomes logits of order one."""
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    shutil.copytree(source, target)
    model = AutoModelForSequenceClassification.from_pretrained(target).eval()
    tokenizer = Tokenizer.from_file(str(target / "tokenizer.json"))
    tokenizer.enable_padding(pad_id=0)
    encodings = tokenizer.encode_batch(list(PARITY_PAIRS))
    feed = {"input_ids": torch.tensor([e.ids for e in encodings]),
            "attention_mask": torch.tensor([e.attention_mask for e in encodings]),
            "token_type_ids": torch.tensor([e.type_ids for e in encodings])}
    with torch.no_grad():
        pooled = model.bert(**feed).pooler_output.double().numpy()
        null_space = np.linalg.svd(pooled)[2][len(PARITY_PAIRS):]
        weight = np.zeros((3, pooled.shape[1]))
        weight[1], weight[2] = 100 * null_space[0], 100 * null_space[1]
        model.classifier.weight.copy_(torch.from_numpy(weight).float())
        model.classifier.bias.copy_(torch.tensor([0.05, 0.0, 0.0]))
    model.save_pretrained(target)


def test_int8_that_changes_a_label_writes_nothing(tmp_path: Path, tiny_hf: TinyHf) -> None:
    """Within the (here huge) tolerance, yet the int8 graph gives samples another label
    than PyTorch: refused, with the count, and nothing written. The fp32 export of the
    same checkpoint keeps every label (so it is the quantization that changes them)."""
    source = tmp_path / "hf"
    _undecided_by_int8(tiny_hf("bert", "nli"), source)
    fp32 = export_model(source, "nli", tmp_path / "fp32", tolerance=10.0)
    assert fp32.stages[0].max_abs_diff < 1e-3
    with pytest.raises(ScoringError, match=r"parity check failed \(int8\): the int8 graph gives "
                                           r"[1-8] of 8 sample rows another label than "
                                           r"PyTorch .*; nothing was written") as caught:
        export_model(source, "nli", tmp_path / "int8", int8=True, tolerance=10.0)
    assert "without --int8" in (caught.value.hint or "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fp32", "hf"]


def test_label_disagreements_leave_ties_out() -> None:
    ref = np.array([[2.0, 0.0, -1.0],       # decided: entailment
                    [0.5, 0.5 + LABEL_TIE / 2, 0.0],   # a tie: left out
                    [0.0, 1.0, 0.0]])
    same = ref + 0.01
    assert label_disagreements([ref], [same]) == 0
    flipped = np.array([[0.0, 2.0, -1.0], [0.6, 0.5, 0.0], [0.0, 1.0, 0.0]])
    assert label_disagreements([ref], [flipped]) == 1          # the tie is not counted
    assert label_disagreements([ref, ref], [flipped, flipped[[2, 1, 0]]]) == 2
    with pytest.raises(ValueError, match="needs \\[batch, labels\\] logits"):
        label_disagreements([ref[:, :1]], [ref[:, :1]])
    assert stage_tolerance("int8", None, 0.4) == 0.1
    assert stage_tolerance("int8", None, 5.0) == 0.5


def test_int8_with_fp16_is_refused(tmp_path: Path, tiny_hf: TinyHf) -> None:
    with pytest.raises(ScoringError, match="--fp16 and --int8 are two different precisions"):
        export_model(tiny_hf("bert", "nli"), "nli", tmp_path / "out", fp16=True, int8=True)
    assert not (tmp_path / "out").exists()


def test_card_precision_int8_and_cards_written_before_it(exported: Exported,
                                                         tmp_path: Path) -> None:
    """precision int8 is a card value of version 1: a card written before int8 existed
    (fp32 or fp16) still reads; a precision this kgbench does not know is one clear line."""
    card = read_card(exported("bert", "nli")).model_dump(mode="json")
    assert card["version"] == 1
    for precision in ("fp32", "fp16", "int8"):
        assert ModelCard.model_validate({**card, "precision": precision}).precision == precision
    (tmp_path / CARD_FILE).write_text(json.dumps({**card, "precision": "int4"}))
    with pytest.raises(ModelDirError, match=r"not a kgbench model card \(precision: "):
        read_card(tmp_path)
