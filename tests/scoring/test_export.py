"""``scoring.export``: tiny real checkpoints (BERT, DeBERTa-v2, GPT-2 shapes) exported to
ONNX and run by the real onnxruntime against the real PyTorch model.

Parity is checked here independently of the export's own check: on texts and batch
sizes the export never saw (a batch of five padded to 40+ tokens, and one input alone),
so a batch or sequence size frozen into the graph, or padding that leaks into other
rows, fails here.
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from scoring.card import CARD_FILE, MODEL_FILE, TOKENIZER_FILE, read_card
from scoring.errors import ModelDirError, ScoringError
from scoring.export import export_model
from scoring.export.checkpoint import checkpoint_sha256, plan_labels
from scoring.export.graph import check_size
from scoring.export.parity import logit_scale, ort_logits, stage_tolerance
from tests.scoring.models import NLI_PAIRS, Exported, TinyHf

CASES = [("bert", "nli"), ("deberta-v2", "nli"), ("bert", "classify"), ("bert", "rerank"),
         ("gpt2", "causal-lm")]

TEXTS = [*NLI_PAIRS,
         ("Berlin is the capital of Germany.", "The capital of Germany is Berlin.")]


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


@functools.cache
def _torch_model(source: Path, task: str) -> Any:
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    auto = AutoModelForCausalLM if task == "causal-lm" else AutoModelForSequenceClassification
    return auto.from_pretrained(source).eval()


def torch_logits(source: Path, task: str, batch: dict[str, np.ndarray],
                 with_types: bool) -> np.ndarray:
    """The checkpoint's logits in PyTorch, loaded as transformers loads it by default
    (not through the export's code)."""
    import torch

    model = _torch_model(source, task)
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
    largest = 0.0
    for rows in (TEXTS, TEXTS[3:4]):
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
        largest = max(largest, float(np.abs(want).max()))
    # 1e-4 times the logits' size (at least 1), on the export's own samples.
    assert 0 < card.parity.max_abs_diff <= card.parity.tolerance
    assert 1e-4 <= card.parity.tolerance <= 1e-4 * max(1.0, 2 * largest)


def _initializer_types(directory: Path) -> set[int]:
    import onnx

    model = onnx.load(str(directory / "model.onnx"))
    return {i.data_type for i in model.graph.initializer}


def _io_types(directory: Path) -> tuple[set[str], set[str]]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(directory / "model.onnx"),
                                   providers=["CPUExecutionProvider"])
    return ({i.type for i in session.get_inputs()}, {o.type for o in session.get_outputs()})


def _op_types(directory: Path) -> set[str]:
    import onnx

    return {n.op_type for n in onnx.load(str(directory / "model.onnx")).graph.node}


@pytest.mark.parametrize(("kind", "task", "options", "bound"), [
    ("bert", "nli", {"fp16": True}, 5e-2),
    ("bert", "nli", {"optimize": True}, 1e-3),
    ("gpt2", "causal-lm", {"fp16": True, "optimize": True}, 5e-2),
    ("deberta-v2", "nli", {"optimize": True}, 1e-3),
])
def test_fp16_and_optimized_graphs_keep_parity(kind: str, task: str, options: dict[str, Any],
                                               bound: float, tiny_hf: TinyHf,
                                               exported: Exported) -> None:
    import onnx

    directory, source = exported(kind, task, **options), tiny_hf(kind, task)
    card = read_card(directory)
    assert card.precision == ("fp16" if options.get("fp16") else "fp32")
    assert card.optimized is bool(options.get("optimize"))
    float16, float32 = onnx.TensorProto.FLOAT16, onnx.TensorProto.FLOAT
    weights = _initializer_types(directory)
    assert (float16 in weights) is (card.precision == "fp16")
    if card.precision == "fp16":
        assert float32 not in weights
    if kind == "bert" and card.optimized:
        assert {"Attention", "SkipLayerNormalization"} <= _op_types(directory)
    if kind == "gpt2" and card.optimized:
        assert "SkipLayerNormalization" in _op_types(directory)
    # keep_io_types: the runtime feeds int64 ids and reads float32 logits either way.
    assert _io_types(directory) == ({"tensor(int64)"}, {"tensor(float)"})
    batch = _batch(directory, TEXTS, task)
    got = onnx_logits(directory, batch)
    want = torch_logits(source, task, batch, "token_type_ids" in card.inputs)
    if task == "causal-lm":
        mask = batch["attention_mask"].astype(bool)
        got, want = got[mask], want[mask]
    assert np.abs(got - want).max() < bound * max(1.0, float(np.abs(want).max()))
    assert 0 < card.parity.max_abs_diff <= card.parity.tolerance
    assert bound <= card.parity.tolerance <= bound * max(1.0, 2 * float(np.abs(want).max()))


def test_default_tolerance_scales_with_the_logits() -> None:
    """Float error is relative: a GPT-2 head's logits near 100 get 100x the tolerance of
    logits below 1; a user's --tolerance is taken as given."""
    assert stage_tolerance("fp32", None, 0.3) == 1e-4
    assert stage_tolerance("fp32", None, 123.0) == 0.012
    assert stage_tolerance("fp16", None, 8.0) == 0.4
    assert stage_tolerance("fp16", 1e-12, 123.0) == 1e-12
    mask = np.array([[1, 1, 0]])
    logits = np.array([[[1.0, -2.0], [0.5, 3.0], [-500.0, 0.0]]])   # padding: -500
    assert logit_scale([logits], [{"attention_mask": mask}], "causal-lm") == 3.0
    assert logit_scale([logits[:, 0]], [{"attention_mask": mask}], "nli") == 2.0


EXPORTED_FILES = {MODEL_FILE, TOKENIZER_FILE, CARD_FILE}


def test_card_round_trip(tmp_path: Path, tiny_hf: TinyHf) -> None:
    source = tiny_hf("bert", "classify")
    report = export_model(source, "classify", tmp_path / "model")
    assert {p.name for p in (tmp_path / "model").iterdir()} == EXPORTED_FILES
    card = read_card(tmp_path / "model")
    assert card == report.card
    assert card.labels == ("supportive", "partially_supportive", "contradictory", "irrelevant")
    assert card.source.sha256 == checkpoint_sha256(source)
    assert card.source.model_type == "bert"
    assert card.exporter.startswith("kgbench ")
    doc = json.loads(json.dumps(report.to_json()))
    assert doc["card"] == json.loads((tmp_path / "model" / CARD_FILE).read_text())
    assert [s["stage"] for s in doc["parity"]] == ["fp32"]
    assert doc["size_bytes"] == (tmp_path / "model" / MODEL_FILE).stat().st_size


@pytest.mark.parametrize(("kind", "task", "inputs", "labels", "roles"), [
    ("bert", "nli", ("input_ids", "attention_mask", "token_type_ids"),
     ("entailment", "neutral", "contradiction"),
     {"entailment": 0, "neutral": 1, "contradiction": 2}),
    # DeBERTa-v3 has no token types (type_vocab_size 0): the input is left out.
    ("deberta-v2", "nli", ("input_ids", "attention_mask"),
     ("entailment", "neutral", "contradiction"),
     {"entailment": 0, "neutral": 1, "contradiction": 2}),
    ("bert", "rerank", ("input_ids", "attention_mask", "token_type_ids"), ("relevance",), None),
    ("gpt2", "causal-lm", ("input_ids", "attention_mask"), (), None),
])
def test_card_of_each_task(kind: str, task: str, inputs: tuple[str, ...],
                           labels: tuple[str, ...], roles: dict[str, int] | None,
                           exported: Exported) -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    directory = exported(kind, task)
    card = read_card(directory)
    assert (card.task, card.inputs, card.labels, card.nli_roles) == (task, inputs, labels, roles)
    assert (card.max_length, card.opset, card.precision, card.optimized) == (128, 18, "fp32", False)
    session = ort.InferenceSession(str(directory / MODEL_FILE), providers=["CPUExecutionProvider"])
    assert tuple(i.name for i in session.get_inputs()) == inputs
    # Dynamic axes: named, not numbers.
    assert all(isinstance(d, str) for i in session.get_inputs() for d in i.shape)
    # The exported tokenizer pads (with the model's pad token) and does not truncate.
    tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
    assert tokenizer.padding is not None and tokenizer.truncation is None


def test_source_checksum_covers_config_weights_and_tokenizer(tmp_path: Path,
                                                             tiny_hf: TinyHf) -> None:
    copy = Path(shutil.copytree(tiny_hf("bert", "nli"), tmp_path / "copy"))
    before = checkpoint_sha256(copy)
    (copy / "README.md").write_text("notes", encoding="utf-8")
    assert checkpoint_sha256(copy) == before
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        saved = (copy / name).read_bytes()
        (copy / name).write_bytes(saved + b" ")
        assert checkpoint_sha256(copy) != before, name
        (copy / name).write_bytes(saved)
    assert checkpoint_sha256(copy) == before


def _config(*names: str) -> SimpleNamespace:
    return SimpleNamespace(id2label=dict(enumerate(names)), num_labels=len(names))


def test_nli_roles_are_found_by_name_in_any_case() -> None:
    plan = plan_labels(_config("CONTRADICTION", "Neutral", "entail"), "nli")
    assert plan.labels == ("CONTRADICTION", "Neutral", "entail")
    assert plan.nli_roles == {"entailment": 2, "neutral": 1, "contradiction": 0}
    two_way = plan_labels(_config("entailment", "not_entailment"), "nli",
                          {"not_entailment": "contradiction"})
    assert two_way.nli_roles == {"entailment": 0, "contradiction": 1}


def test_nli_roles_that_cannot_be_found_ask_for_label_map() -> None:
    with pytest.raises(ScoringError, match="cannot tell which label is entailment") as caught:
        plan_labels(_config("LABEL_0", "LABEL_1", "LABEL_2"), "nli")
    assert "--label-map LABEL_0=entailment" in (caught.value.hint or "")
    plan = plan_labels(_config("LABEL_0", "LABEL_1", "LABEL_2"), "nli",
                       {"LABEL_0": "contradiction", "LABEL_1": "entailment", "LABEL_2": "neutral"})
    assert plan.nli_roles == {"entailment": 1, "neutral": 2, "contradiction": 0}
    with pytest.raises(ScoringError, match="not an NLI role"):
        plan_labels(_config("LABEL_0", "LABEL_1"), "nli", {"LABEL_0": "yes"})
    with pytest.raises(ScoringError, match="not a label of the model"):
        plan_labels(_config("entailment", "neutral", "contradiction"), "nli", {"LABEL_9": "neutral"})
    with pytest.raises(ScoringError, match="two labels are entailment"):
        plan_labels(_config("entailment", "entails", "contradiction"), "nli")


def test_rerank_relevance_logit() -> None:
    assert plan_labels(_config("score"), "rerank").labels == ("score",)
    by_name = plan_labels(_config("Relevant", "not relevant"), "rerank")
    assert (by_name.labels, by_name.relevance, by_name.note) == (("Relevant",), 0, None)
    by_convention = plan_labels(_config("LABEL_0", "LABEL_1"), "rerank")
    assert (by_convention.labels, by_convention.relevance) == (("LABEL_1",), 1)
    assert "pass --label-map LABEL_0=relevance" in (by_convention.note or "")
    with pytest.raises(ScoringError, match="a cross-encoder has one relevance logit"):
        plan_labels(_config("a", "b", "c"), "rerank")


def test_classify_labels_can_be_renamed() -> None:
    plan = plan_labels(_config("LABEL_0", "LABEL_1"), "classify", {"LABEL_1": "supportive"})
    assert plan.labels == ("LABEL_0", "supportive") and plan.nli_roles is None
    with pytest.raises(ScoringError, match="at least two labels"):
        plan_labels(_config("score"), "classify")


def test_two_logit_cross_encoder_exports_relevance_minus_the_other(tmp_path: Path,
                                                                   tiny_hf: TinyHf) -> None:
    source = tiny_hf("bert", "rerank", labels=["irrelevant", "relevant"])
    report = export_model(source, "rerank", tmp_path / "by-name")
    batch = _batch(tmp_path / "by-name", TEXTS, "rerank")
    both = torch_logits(source, "rerank", batch, with_types=True)
    assert report.card.labels == ("relevant",)
    got = onnx_logits(tmp_path / "by-name", batch)
    assert got.shape == (len(TEXTS), 1)
    np.testing.assert_allclose(got[:, 0], both[:, 1] - both[:, 0], atol=1e-5)
    flipped = export_model(source, "rerank", tmp_path / "mapped",
                           label_map={"irrelevant": "relevance"})
    assert flipped.card.labels == ("irrelevant",)
    np.testing.assert_allclose(onnx_logits(tmp_path / "mapped", batch)[:, 0],
                               both[:, 0] - both[:, 1], atol=1e-5)


def test_checkpoint_without_tokenizer(tmp_path: Path, tiny_hf: TinyHf) -> None:
    copy = Path(shutil.copytree(tiny_hf("bert", "nli"), tmp_path / "copy"))
    (copy / TOKENIZER_FILE).unlink()
    with pytest.raises(ModelDirError, match=r"copy: no tokenizer \(no tokenizer.json") as caught:
        export_model(copy, "nli", tmp_path / "out")
    assert "save_pretrained" in (caught.value.hint or "")
    assert not (tmp_path / "out").exists()


def test_slow_tokenizer_files_are_converted(tmp_path: Path, tiny_hf: TinyHf) -> None:
    """A BERT checkpoint with vocab.txt only (as older checkpoints ship): converted with
    transformers, saved as tokenizer.json, said in the notes; same ids as the original."""
    from tokenizers import Tokenizer

    source = tiny_hf("bert", "nli")
    copy = Path(shutil.copytree(source, tmp_path / "slow"))
    fast = Tokenizer.from_file(str(copy / TOKENIZER_FILE))
    vocab = sorted(fast.get_vocab().items(), key=lambda item: item[1])
    (copy / "vocab.txt").write_text("".join(f"{word}\n" for word, _ in vocab), encoding="utf-8")
    (copy / TOKENIZER_FILE).unlink()
    (copy / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 128}))
    report = export_model(copy, "nli", tmp_path / "out")
    assert any("converted the slow tokenizer (vocab.txt)" in n for n in report.notes)
    converted = Tokenizer.from_file(str(tmp_path / "out" / TOKENIZER_FILE))
    for premise, hypothesis in TEXTS:
        assert converted.encode(premise, hypothesis).ids == fast.encode(premise, hypothesis).ids


@pytest.mark.parametrize("where", ["empty", "files", "etc"])
def test_directory_that_is_not_a_checkpoint(tmp_path: Path, where: str) -> None:
    directory = {"empty": tmp_path, "files": tmp_path, "etc": Path("/etc")}[where]
    if where == "files":
        (tmp_path / "model.safetensors").write_bytes(b"not weights")
    with pytest.raises(ModelDirError, match="no config.json, so it is not a Hugging Face"):
        export_model(directory, "nli", tmp_path / "out")


def test_unknown_task(tmp_path: Path, tiny_hf: TinyHf) -> None:
    with pytest.raises(ScoringError, match="unknown task 'summarize'"):
        export_model(tiny_hf("bert", "nli"), "summarize", tmp_path / "out")  # type: ignore[arg-type]


def test_model_that_does_not_fit_the_task(tmp_path: Path, tiny_hf: TinyHf) -> None:
    with pytest.raises(ScoringError, match=r"a language model \(GPT2LMHeadModel\), not a "
                                           "sequence classifier: it has no weights for --task nli"):
        export_model(tiny_hf("gpt2", "causal-lm"), "nli", tmp_path / "out")
    with pytest.raises(ScoringError, match="a sequence classifier .* --task causal-lm"):
        export_model(tiny_hf("bert", "nli"), "causal-lm", tmp_path / "out")
    # Without `architectures` in config.json, the weights tell: no classification head.
    copy = Path(shutil.copytree(tiny_hf("gpt2", "causal-lm"), tmp_path / "bare"))
    config = json.loads((copy / "config.json").read_text())
    del config["architectures"]
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(ScoringError, match="has no weights for a sequence-classification head"):
        export_model(copy, "nli", tmp_path / "out",
                     label_map={"LABEL_0": "entailment", "LABEL_1": "contradiction"})
    assert not (tmp_path / "out").exists()


def test_out_that_is_not_a_model_is_refused_unless_forced(tmp_path: Path,
                                                          tiny_hf: TinyHf) -> None:
    source, out = tiny_hf("bert", "rerank"), tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ScoringError, match="exists and is not an exported model") as caught:
        export_model(source, "rerank", out)
    assert "--force" in (caught.value.hint or "")
    assert (out / "notes.txt").read_text() == "mine"
    export_model(source, "rerank", out, force=True)
    assert {p.name for p in out.iterdir()} == EXPORTED_FILES
    # An exported model is replaced without --force (re-exporting is the normal case).
    export_model(source, "rerank", out, max_length=64)
    assert read_card(out).max_length == 64
    with pytest.raises(ScoringError, match="the export would replace it"):
        export_model(source, "rerank", source.parent, force=True)
    with pytest.raises(ScoringError, match="position embeddings for 128 tokens only"):
        export_model(source, "rerank", out, max_length=1000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_parity_beyond_tolerance_writes_nothing(tmp_path: Path, tiny_hf: TinyHf,
                                                exported: Exported) -> None:
    """The real check refusing: a tolerance no float32 graph meets (the fp32 export
    differs from PyTorch by ~1e-7 here). Nothing appears at --out, no temporary
    directory is left, and a model already there stays as it was."""
    source, out = tiny_hf("bert", "nli"), tmp_path / "out"
    with pytest.raises(ScoringError, match=r"parity check failed \(fp32\): .* differ from "
                                           r"PyTorch's by up to \S+ on 6 sample inputs, more "
                                           "than the tolerance 1e-12; nothing was written"):
        export_model(source, "nli", out, tolerance=1e-12)
    assert list(tmp_path.iterdir()) == []
    shutil.copytree(exported("bert", "nli"), out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(ScoringError, match=r"parity check failed \(fp16\)"):
        export_model(source, "nli", out, fp16=True, tolerance=1e-5)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_graph_onnxruntime_cannot_run_is_a_parity_failure(exported: Exported) -> None:
    """Inputs of shapes that do not fit together (as a graph with a size frozen in it
    gets): onnxruntime's own error becomes one line naming the stage."""
    directory = exported("bert", "nli")
    batch = _batch(directory, TEXTS, "nli")
    batch["token_type_ids"] = batch["token_type_ids"][:, :3]
    with pytest.raises(ScoringError, match=r"parity check failed \(fp16\): onnxruntime cannot "
                                           "run the exported graph"):
        ort_logits(directory / MODEL_FILE, [batch], stage="fp16")


def test_weights_beyond_one_onnx_file_are_refused(tmp_path: Path) -> None:
    check_size(1_900_000_000, tmp_path)
    with pytest.raises(ScoringError, match=r"the weights take 6.0 GB, more than one ONNX file"):
        check_size(6_000_000_000, tmp_path)
