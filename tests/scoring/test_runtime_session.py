"""scoring.runtime.session: the provider that really runs and why CUDA does not, the
CPU settings, IO binding, and model directories that are refused — on ONNX graphs
written here with onnx.helper (a text classifier's and a causal LM's interface, weights
known, so the expected logits are computed with numpy)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from scoring.card import CARD_FILE, MODEL_FILE, TOKENIZER_FILE
from scoring.errors import ModelDirError, ScoringError
from scoring.runtime.session import (
    CPU,
    INT8_ON_CPU,
    OnnxTextModel,
    RuntimeInfo,
    _session_options,
    cuda_fallback_reason,
    cuda_session_or_reason,
    physical_cores,
    run_with_io_binding,
)
from scoring.runtime.tokenize import pad_batch
from tests.scoring.runtime_models import (
    card_for,
    float_input_graph,
    mean_pool_classifier,
    model_dir,
    wordpiece_tokenizer,
)


def _gpu_here() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    done = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return done.returncode == 0 and "GPU" in done.stdout


GPU = _gpu_here()
without_gpu = pytest.mark.skipif(GPU, reason="a GPU is usable here: CUDA does not fall back")
with_gpu = pytest.mark.skipif(not GPU, reason="no GPU here")

TEXTS = ["Berlin is the capital of Germany.", "Paris", "The river flows through three "
         "countries before it reaches the sea.", "", "Marie Curie won the Nobel Prize."]


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    """A model directory: 3-label mean-pool classifier, its card and tokenizer."""
    d = tmp_path_factory.mktemp("clf")
    tok = wordpiece_tokenizer()
    path = model_dir(d, card_for("classify", labels=("a", "b", "c")), tok)
    emb, w = mean_pool_classifier(path, vocab=tok.get_vocab_size(), n_labels=3)
    return d, emb, w


def expected_logits(model: OnnxTextModel, emb, w, texts):
    enc = model.tokenizer.encode_texts(texts).items
    return np.stack([emb[e.ids].sum(axis=0) @ w for e in enc])


@without_gpu
def test_auto_on_a_machine_without_a_gpu_reports_the_cpu_and_why(classifier):
    d, _, _ = classifier
    model = OnnxTextModel.open(d)
    info = model.runtime
    assert info.provider == CPU == model.session.get_providers()[0]
    assert info.requested == "auto"
    # onnxruntime-gpu lists CUDA as available here, yet it cannot run: the fallback says why
    assert "CUDAExecutionProvider" in ort.get_available_providers()
    assert info.fallback and ("libcuda.so.1" in info.fallback or "CUDA" in info.fallback)
    assert info.threads == physical_cores() and info.io_binding is False
    assert info.precision == "fp32"
    assert set(info.to_json()) == {"provider", "requested", "fallback", "precision",
                                   "io_binding", "threads"}


def test_cpu_asked_is_not_a_fallback_and_threads_are_applied(classifier):
    d, _, _ = classifier
    info = OnnxTextModel.open(d, device="cpu", threads=1).runtime
    assert info == RuntimeInfo(provider=CPU, requested="cpu", fallback=None,
                               precision="fp32", io_binding=False, threads=1)


@without_gpu
def test_cuda_asked_where_it_cannot_run_is_one_clear_error(classifier, capfd):
    d, _, _ = classifier
    with pytest.raises(ScoringError, match="CUDA was asked for but cannot run here") as err:
        OnnxTextModel.open(d, device="cuda")
    assert "\n" not in str(err.value)
    assert "nvidia-smi" in err.value.hint and "onnxruntime-gpu" in err.value.hint
    assert capfd.readouterr().err == ""


@without_gpu
def test_onnxruntimes_silent_fallback_is_detected_and_its_log_captured(classifier, capfd):
    """The real onnxruntime asked for CUDA first: it makes a CPU session without raising
    and logs why on fd 2; the runtime reads the session's providers, turns the log into
    the reason and prints nothing."""
    d, _, _ = classifier
    session, reason = cuda_session_or_reason(d / MODEL_FILE, card_for("classify", labels="abc"),
                                             _session_options(1))
    assert session.get_providers() == [CPU]
    assert reason is not None and ("not found" in reason or "CUDA" in reason)
    assert capfd.readouterr().err == ""


@pytest.fixture(scope="module")
def int8_classifier(tmp_path_factory):
    """The mean-pool classifier quantized by the export's own int8 step (a real
    MatMulInteger graph), its card saying int8."""
    from scoring.export.convert import to_int8

    d = tmp_path_factory.mktemp("int8")
    tok = wordpiece_tokenizer()
    card = card_for("classify", labels=("a", "b", "c")).model_copy(update={"precision": "int8"})
    path = model_dir(d, card, tok)
    emb, w = mean_pool_classifier(d / "fp32.onnx", vocab=tok.get_vocab_size(), n_labels=3)
    assert to_int8(d / "fp32.onnx", path) == 1
    return d, emb, w


def test_an_int8_model_runs_on_the_cpu_and_says_why(int8_classifier, capfd):
    """GPU or not: auto runs it on the CPU provider without trying CUDA (nothing logged)
    and says why; cuda is one clear error; cpu is no fallback."""
    d, emb, w = int8_classifier
    model = OnnxTextModel.open(d)
    assert model.runtime == RuntimeInfo(provider=CPU, requested="auto", fallback=INT8_ON_CPU,
                                        precision="int8", io_binding=False,
                                        threads=physical_cores())
    assert "CUDA provider has no kernel for its integer MatMuls" in INT8_ON_CPU
    got = model.run(pad_batch(model.tokenizer.encode_texts(TEXTS).items,
                              model.tokenizer.pad_id, model.input_names))
    want = expected_logits(model, emb, w, TEXTS)
    assert np.abs(got - want).max() < 5e-2 * np.abs(want).max()
    assert OnnxTextModel.open(d, device="cpu").runtime.fallback is None
    with pytest.raises(ScoringError, match="CUDA was asked for, but an int8 model runs on the "
                                           "CPU") as err:
        OnnxTextModel.open(d, device="cuda")
    assert "\n" not in str(err.value) and "without --int8" in err.value.hint
    assert capfd.readouterr().err == ""


def test_fallback_reasons_from_onnxruntimes_log_lines():
    lib = ("\x1b[1;31m2026-01-01 [E:onnxruntime:Default, provider_bridge_ort.cc:2458 operator()] "
           "FAIL : Failed to load library /x/libonnxruntime_providers_cuda.so with error: "
           "{}: cannot open shared object file: No such file or directory\n\x1b[m\n"
           "\x1b[0;93m2026-01-01 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:1295 "
           "CreateExecutionProviderFactoryInstance] Failed to create CUDAExecutionProvider. "
           "Require cuDNN 9.* and CUDA 13.*. Please install all dependencies\x1b[m\n")
    assert cuda_fallback_reason(lib.format("libcublasLt.so.13")).startswith(
        "CUDA libraries missing: libcublasLt.so.13 not found (onnxruntime-gpu ")
    assert "needs cuDNN 9.* and CUDA 13.*" in cuda_fallback_reason(lib.format("libcudnn.so.9"))
    assert cuda_fallback_reason(lib.format("libcuda.so.1")).startswith("no NVIDIA driver")
    assert cuda_fallback_reason("[E:onnxruntime:Default, x] CUDA failure 100: no "
                                "CUDA-capable device is detected") == "no CUDA device"
    assert cuda_fallback_reason("[W:onnxruntime:Default, x] something new") == (
        "the CUDA provider did not start: something new")
    assert "logged no reason" in cuda_fallback_reason("")


def test_logits_match_the_graphs_weights_in_input_order(classifier):
    d, emb, w = classifier
    model = OnnxTextModel.open(d, device="cpu", batch_tokens=12)   # several small batches
    enc = model.tokenizer.encode_texts(TEXTS).items
    seen: list[int] = []
    rows = model.map_batches(enc, lambda logits, _: list(logits), progress=seen.append)
    assert len(seen) > 1 and sum(seen) == len(TEXTS)
    np.testing.assert_allclose(np.stack(rows), expected_logits(model, emb, w, TEXTS),
                               rtol=1e-5, atol=1e-5)


def test_io_binding_path_gives_the_same_logits(classifier):
    """The GPU path's IO binding, run on the CPU provider (same code, device 'cpu')."""
    d, emb, w = classifier
    bound = OnnxTextModel.open(d, device="cpu", io_binding=True)
    assert bound.runtime.io_binding is True
    enc = bound.tokenizer.encode_texts(TEXTS).items
    feeds = pad_batch(enc, bound.tokenizer.pad_id, bound.input_names)
    plain = bound.session.run(["logits"], feeds)[0]
    np.testing.assert_array_equal(
        run_with_io_binding(bound.session, feeds, "logits", "cpu"), plain)
    rows = bound.map_batches(enc, lambda logits, _: list(logits))
    np.testing.assert_allclose(np.stack(rows), expected_logits(bound, emb, w, TEXTS),
                               rtol=1e-5, atol=1e-5)


def test_a_graph_whose_inputs_are_not_a_text_models_is_refused(tmp_path):
    path = model_dir(tmp_path, card_for("classify", labels=("a", "b", "c"),
                                        inputs=("input_ids",)), wordpiece_tokenizer())
    float_input_graph(path)
    with pytest.raises(ModelDirError, match="an ONNX file whose inputs are not a text "
                                            "model's: input 'input_ids' is tensor.float."):
        OnnxTextModel.open(tmp_path, device="cpu")


def test_a_graph_that_disagrees_with_its_card_is_refused(tmp_path):
    tok = wordpiece_tokenizer()
    path = model_dir(tmp_path, card_for("classify", labels=("a", "b"),
                                        inputs=("input_ids", "attention_mask")), tok)
    mean_pool_classifier(path, vocab=tok.get_vocab_size(), n_labels=3)
    with pytest.raises(ModelDirError, match="3 logits but the card names 2 labels"):
        OnnxTextModel.open(tmp_path, device="cpu")
    model_dir(tmp_path, card_for("classify", labels=("a", "b", "c"),
                                 inputs=("input_ids", "attention_mask", "token_type_ids")), tok)
    with pytest.raises(ModelDirError, match=r"inputs \(attention_mask, input_ids\) are not "
                                            r"the card's"):
        OnnxTextModel.open(tmp_path, device="cpu")
    model_dir(tmp_path, card_for("causal-lm", inputs=("input_ids", "attention_mask")), tok)
    with pytest.raises(ModelDirError, match="a causal-lm model gives float logits of rank 3"):
        OnnxTextModel.open(tmp_path, device="cpu")


def test_missing_or_broken_files_are_refused_by_name(classifier, tmp_path):
    d, _, _ = classifier
    no_tok = tmp_path / "no_tok"
    no_tok.mkdir()
    for name in (CARD_FILE, MODEL_FILE):
        (no_tok / name).write_bytes((d / name).read_bytes())
    with pytest.raises(ModelDirError, match=r"no tokenizer\.json in it"):
        OnnxTextModel.open(no_tok)
    no_graph = tmp_path / "no_graph"
    no_graph.mkdir()
    for name in (CARD_FILE, TOKENIZER_FILE):
        (no_graph / name).write_bytes((d / name).read_bytes())
    with pytest.raises(ModelDirError, match=r"no model\.onnx in it"):
        OnnxTextModel.open(no_graph)
    (no_graph / MODEL_FILE).write_bytes(b"not a protobuf")
    with pytest.raises(ModelDirError, match=r"model\.onnx: onnxruntime cannot load it") as err:
        OnnxTextModel.open(no_graph, device="cpu")
    assert "\n" not in str(err.value)
    with pytest.raises(ModelDirError, match="kgbench-model.json"):
        OnnxTextModel.open(tmp_path)


def test_bad_settings_are_refused(classifier):
    d, _, _ = classifier
    with pytest.raises(ScoringError, match="unknown device 'gpu'"):
        OnnxTextModel.open(d, device="gpu")  # type: ignore[arg-type]
    with pytest.raises(ScoringError, match="threads must be positive"):
        OnnxTextModel.open(d, threads=0)
    with pytest.raises(ScoringError, match="batch_tokens must be positive"):
        OnnxTextModel.open(d, batch_tokens=0)


@with_gpu
def test_cuda_runs_with_io_binding_and_matches_the_cpu(classifier):
    """Only on a machine with a GPU (bench/gpu_scoring.sh runs it there)."""
    d, emb, w = classifier
    model = OnnxTextModel.open(d, device="cuda")
    assert model.runtime.provider == "CUDAExecutionProvider" and model.runtime.fallback is None
    assert model.runtime.io_binding is True and model.runtime.threads is None
    enc = model.tokenizer.encode_texts(TEXTS).items
    rows = model.map_batches(enc, lambda logits, _: list(logits))
    np.testing.assert_allclose(np.stack(rows), expected_logits(model, emb, w, TEXTS),
                               rtol=1e-4, atol=1e-4)


def test_the_runtime_never_loads_torch_or_transformers():
    """The runtime needs onnxruntime, tokenizers and numpy only (torch is the export
    extra): importing it loads neither torch nor transformers."""
    code = ("import sys; import scoring.runtime, scoring.runtime.causal_lm; "
            "bad = {'torch', 'transformers'} & set(sys.modules); assert not bad, bad")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                          text=True, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
