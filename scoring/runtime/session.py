"""One exported model directory opened for inference with onnxruntime.

Provider choice. onnxruntime-gpu lists ``CUDAExecutionProvider`` among its available
providers whether or not CUDA can run, and when the CUDA libraries or the driver are
missing it logs an error on the process's stderr and runs the session on the CPU
provider *silently*. So the runtime never trusts the list: it asks the session that was
created which providers it really runs (``session.get_providers()``), reports that in
:class:`RuntimeInfo` (which goes into every output's metadata), and says why CUDA is
not used (``fallback``), with onnxruntime's own reason captured from its log instead of
letting it scroll past on the user's terminal. Before trying CUDA the runtime checks
that the NVIDIA driver (``libcuda.so.1``) loads at all — no driver, no GPU, and no need
to load a gigabyte of CUDA libraries to find out — and then lets onnxruntime preload
the CUDA and cuDNN libraries that pip packages (``nvidia-*``, e.g. from a CUDA build of
torch) put in site-packages. ``device="cuda"`` that cannot run is an error, never a
quiet CPU run; ``device="auto"`` falls back and says so.

An int8 model (``model export --int8``) runs on the CPU provider, GPU or not: its
MatMuls take uint8 activations and int8 weights (``MatMulInteger``, fused by the CPU
provider into ``DynamicQuantizeMatMul``), and onnxruntime's CUDA provider has kernels
for neither (its ``MatMulInteger`` takes int8 × int8 only), so under CUDA each of them
would run on the CPU anyway, with copies to and from the GPU around it. ``auto`` says
so in ``fallback`` without trying CUDA; ``cuda`` is an error.

CPU: ``threads`` intra-op threads (default: the physical cores this process may use;
hyper-threads share a core's arithmetic units and do not speed up matrix products),
sequential execution (one transformer layer after another: there is no parallel branch
for inter-op threads to run), every graph optimization. GPU: the graph runs in the
precision it was exported in (fp16 when ``model export --fp16``), with IO binding:
inputs are copied to the device once, the output is allocated on the device and copied
back once per batch, instead of onnxruntime staging every array through host buffers.
IO binding is the same code on the CPU provider (``io_binding=True``), which is how the
tests run it on a machine without a GPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import onnxruntime as ort

from scoring.card import MODEL_FILE, TOKENIZER_FILE, ModelCard, read_card
from scoring.errors import ModelDirError, ScoringError
from scoring.runtime.batching import in_input_order, plan_batches
from scoring.runtime.tokenize import Encoded, Encodings, TextTokenizer, pad_batch

__all__ = ["CPU", "CUDA", "Device", "INT8_ON_CPU", "OnnxTextModel", "RuntimeInfo", "TEXT_INPUTS", "TOKENIZE_CHUNK",
           "cuda_fallback_reason", "physical_cores"]

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
Device = Literal["auto", "cpu", "cuda"]
T = TypeVar("T")

TOKENIZE_CHUNK = 4096
"""Inputs tokenized at a time (see :meth:`OnnxTextModel.map_chunks`)."""
TEXT_INPUTS = ("input_ids", "attention_mask", "token_type_ids", "position_ids")
"""The graph inputs a text model may take, each int64 ``[batch, sequence]``."""
_FLOAT_OUTPUTS = ("tensor(float)", "tensor(float16)")
INT8_ON_CPU = ("an int8 model runs on the CPU: onnxruntime's CUDA provider has no kernel "
               "for its integer MatMuls (uint8 x int8)")
_CUDA_HINT = ("install the NVIDIA driver and the CUDA {cuda} and cuDNN 9 libraries "
              "onnxruntime-gpu {ort} needs (`pip install 'onnxruntime-gpu[cuda,cudnn]'`, or a "
              "CUDA {cuda} build of torch in the same environment), check that `nvidia-smi` "
              "lists a GPU, or run on the CPU (device cpu or auto)")


@dataclass(frozen=True)
class RuntimeInfo:
    """How a model really runs: recorded with every score and benchmark figure."""

    provider: str
    """The provider the session really runs (``session.get_providers()[0]``)."""
    requested: str
    """``auto``, ``cpu`` or ``cuda``, as asked."""
    fallback: str | None
    """Why CUDA is not used when ``auto`` or ``cuda`` asked for it; None otherwise."""
    precision: str
    """``fp32``, ``fp16`` or ``int8``: the graph's precision, from the card."""
    io_binding: bool
    threads: int | None
    """Intra-op threads on the CPU provider; None on the GPU."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class OnnxTextModel:
    """An exported model directory (``model.onnx``, ``tokenizer.json``, the card) with an
    onnxruntime session, its tokenizer and the batching of :mod:`batching`."""

    def __init__(self, *, directory: Path, card: ModelCard, session: ort.InferenceSession,
                 tokenizer: TextTokenizer, runtime: RuntimeInfo, batch_tokens: int) -> None:
        self.directory = directory
        self.card = card
        self.session = session
        self.tokenizer = tokenizer
        self.runtime = runtime
        self.batch_tokens = batch_tokens
        self.tokenize_chunk = TOKENIZE_CHUNK
        self.input_names = tuple(i.name for i in session.get_inputs())
        self.output_shape = tuple(next(o.shape for o in session.get_outputs()
                                       if o.name == card.output))

    @classmethod
    def open(cls, directory: Path, *, device: Device = "auto", threads: int | None = None,
             batch_tokens: int = 16384, io_binding: bool | None = None) -> OnnxTextModel:
        """Open ``directory`` on ``device``: ``auto`` runs CUDA when it really runs and
        the CPU otherwise (saying why in ``runtime.fallback``), ``cuda`` raises a
        :class:`ScoringError` when CUDA cannot run, ``cpu`` never tries it.
        ``threads``: CPU intra-op threads (default :func:`physical_cores`).
        ``batch_tokens``: the token budget of one batch (batch size × padded length).
        ``io_binding``: default on exactly when CUDA runs.

        A :class:`ModelDirError` names the file at fault: no card, no ``model.onnx``,
        no ``tokenizer.json``, a graph onnxruntime cannot load or whose inputs are not a
        text model's."""
        if device not in ("auto", "cpu", "cuda"):
            raise ScoringError(f"unknown device {device!r}", "use auto, cpu or cuda")
        if batch_tokens < 1:
            raise ScoringError(f"batch_tokens must be positive, not {batch_tokens}")
        card = read_card(directory)
        model_path = directory / MODEL_FILE
        if not model_path.is_file():
            raise ModelDirError(f"{directory}: no {MODEL_FILE} in it",
                                "export the model again with `kgbench model export`")
        tokenizer = TextTokenizer.from_file(directory / TOKENIZER_FILE, card.max_length)
        threads = physical_cores() if threads is None else threads
        if threads < 1:
            raise ScoringError(f"threads must be positive, not {threads}")
        options = _session_options(threads)
        session, fallback = _start_session(model_path, card, options, device)
        provider = session.get_providers()[0]
        on_gpu = provider == CUDA
        runtime = RuntimeInfo(provider=provider, requested=device, fallback=fallback,
                              precision=card.precision,
                              io_binding=on_gpu if io_binding is None else io_binding,
                              threads=None if on_gpu else threads)
        _check_text_graph(session, card, model_path)
        return cls(directory=directory, card=card, session=session, tokenizer=tokenizer,
                   runtime=runtime, batch_tokens=batch_tokens)

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """The card's output (logits) for one padded batch."""
        if self.runtime.io_binding:
            on_gpu = self.runtime.provider == CUDA
            return run_with_io_binding(self.session, feeds, self.card.output,
                                       "cuda" if on_gpu else "cpu")
        out = self.session.run([self.card.output], feeds)[0]
        return np.asarray(out)

    def map_batches(self, encoded: Sequence[Encoded],
                    reduce: Callable[[np.ndarray, list[int]], Sequence[T]], *,
                    progress: Callable[[int], None] | None = None,
                    batch_tokens: int | None = None) -> list[T]:
        """Run every input in token-budget batches (sorted by length, padded per batch)
        and return ``reduce(logits, indices)``'s per-input results in input order.
        ``reduce`` gets a batch's logits and the indices of its rows into ``encoded``;
        it reduces the logits right away, so a causal LM's ``[batch, seq, vocab]``
        logits never pile up. ``progress(n)`` after each batch of ``n`` inputs."""
        plan = plan_batches([len(e) for e in encoded],
                            batch_tokens=batch_tokens or self.batch_tokens)
        results: list[Sequence[T]] = []
        for batch in plan:
            feeds = pad_batch([encoded[i] for i in batch], self.tokenizer.pad_id,
                              self.input_names)
            results.append(reduce(self.run(feeds), batch))
            if progress is not None:
                progress(len(batch))
        return in_input_order(plan, results)

    def map_chunks(self, n: int, encode: Callable[[int, int], Encodings],
                   reduce: Callable[[Encodings, np.ndarray, list[int]], Sequence[T]], *,
                   progress: Callable[[int], None] | None = None,
                   batch_tokens: int | None = None) -> list[T]:
        """:meth:`map_batches` over ``n`` inputs tokenized ``tokenize_chunk`` (default
        :data:`TOKENIZE_CHUNK`) at a time by ``encode(start, stop)``, the next chunk in a
        background thread while the model runs this one (`tokenizers` and onnxruntime
        both release the GIL): on a GPU, tokenizing everything first would leave it idle
        for a share of the run.
        ``reduce(chunk, logits, rows)`` gets the chunk's encodings and the batch's row
        indices into it. Batches are planned within a chunk, which holds enough inputs
        for sorting by length to keep padding low."""
        out: list[T] = []
        if n == 0:
            return out
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgbench-tokenize") as pool:
            size = self.tokenize_chunk
            pending = pool.submit(encode, 0, min(n, size))
            for start in range(0, n, size):
                chunk = pending.result()
                stop = min(n, start + size)
                if stop < n:
                    pending = pool.submit(encode, stop, min(n, stop + size))
                out.extend(self.map_batches(chunk.items, functools.partial(reduce, chunk),
                                            progress=progress, batch_tokens=batch_tokens))
        return out


def run_with_io_binding(session: ort.InferenceSession, feeds: dict[str, np.ndarray],
                        output: str, device: Literal["cpu", "cuda"], device_id: int = 0
                        ) -> np.ndarray:
    """One run with IO binding: each input copied to ``device`` once as an OrtValue,
    the output allocated there by onnxruntime, then copied to host memory once."""
    binding = session.io_binding()
    values = [ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(array), device, device_id)
              for array in feeds.values()]
    for name, value in zip(feeds, values, strict=True):
        binding.bind_ortvalue_input(name, value)
    binding.bind_output(output, device, device_id)
    session.run_with_iobinding(binding)
    return np.asarray(binding.copy_outputs_to_cpu()[0])


def physical_cores() -> int:
    """Physical cores this process may run on: psutil's physical count, never more
    than the CPUs in the process's affinity mask (a container or `taskset` limit)."""
    import psutil

    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    physical = psutil.cpu_count(logical=False) or os.cpu_count() or 1
    return max(1, min(physical, allowed or physical))


def _session_options(threads: int) -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Session warnings (e.g. "some nodes were not assigned to CUDA", which is normal for
    # shape arithmetic) are not the user's business; errors still raise.
    options.log_severity_level = 3
    return options


def _start_session(path: Path, card: ModelCard, options: ort.SessionOptions, device: Device
                   ) -> tuple[ort.InferenceSession, str | None]:
    """The session and, when CUDA was wanted and does not run, why."""
    if device == "cpu":
        return _load(path, card, options, [CPU]), None
    if card.precision == "int8":
        if device == "cuda":
            raise ScoringError(f"{path}: CUDA was asked for, but {INT8_ON_CPU}",
                               "run it on the CPU (device cpu or auto), or export the model "
                               "without --int8 (--fp16 for a GPU)")
        return _load(path, card, options, [CPU]), INT8_ON_CPU
    reason = _cuda_unusable()
    session = None
    if reason is None:
        session, reason = cuda_session_or_reason(path, card, options)
    if reason is not None and device == "cuda":
        raise ScoringError(f"CUDA was asked for but cannot run here: {reason}",
                           _CUDA_HINT.format(cuda=ort.cuda_version or "13",
                                             ort=ort.__version__))
    if session is None:
        session = _load(path, card, options, [CPU])
    return session, reason


def _cuda_unusable() -> str | None:
    """Why CUDA cannot run, when that is clear before asking onnxruntime."""
    if CUDA not in ort.get_available_providers():
        return (f"this onnxruntime package ({ort.__version__}) has no CUDA provider: "
                f"install onnxruntime-gpu instead of onnxruntime")
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return "no NVIDIA driver (libcuda.so.1 not found), so no GPU is usable"
    return None


def cuda_session_or_reason(path: Path, card: ModelCard, options: ort.SessionOptions
                           ) -> tuple[ort.InferenceSession, str | None]:
    """Create the session with CUDA first and the CPU behind it, as onnxruntime does;
    return it with None when CUDA really runs, else with the reason onnxruntime logged
    (captured, not printed)."""
    with contextlib.redirect_stdout(io.StringIO()), _native_stderr_captured() as log:
        if hasattr(ort, "preload_dlls"):
            ort.preload_dlls(cuda=True, cudnn=True, msvc=False)
        session = _load(path, card, options, [CUDA, CPU])
    if session.get_providers()[0] == CUDA:
        return session, None
    return session, cuda_fallback_reason(log.text)


def cuda_fallback_reason(log: str) -> str:
    """onnxruntime's log of a CUDA provider that did not start, in one short line: the
    library that failed to load, no device, or the first error it logged."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", log)
    needs = re.search(r"Require (cuDNN [\w.*]+ and CUDA [\w.*]+)", text)
    needed = f" (onnxruntime-gpu {ort.__version__} needs {needs.group(1)})" if needs else ""
    missing = re.search(r"with error: (\S+?): cannot open shared object file", text)
    if missing:
        lib = missing.group(1)
        if lib.startswith("libcuda.so"):
            return f"no NVIDIA driver ({lib} not found), so no GPU is usable"
        return f"CUDA libraries missing: {lib} not found{needed}"
    if re.search(r"no CUDA-capable device|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE", text):
        return "no CUDA device"
    if re.search(r"driver version is insufficient", text):
        return f"the NVIDIA driver is too old for this CUDA runtime{needed}"
    for line in text.splitlines():
        logged = re.search(r"\[[EW]:onnxruntime:[^\]]*\]\s*(.+)", line)
        if logged:
            return f"the CUDA provider did not start: {logged.group(1).strip()[:300]}"
    return "the CUDA provider did not start (onnxruntime logged no reason)"


class _Captured:
    text = ""


@contextlib.contextmanager
def _native_stderr_captured() -> Iterator[_Captured]:
    """Capture what native code writes to file descriptor 2 (onnxruntime's logger writes
    there, past Python's ``sys.stderr``); lines that are not onnxruntime's are passed on
    to stderr afterwards, so nothing else printed meanwhile is lost."""
    captured = _Captured()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield captured
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            captured.text = tmp.read().decode("utf-8", errors="replace")
    others = [line for line in captured.text.splitlines(keepends=True)
              if line.strip() and ":onnxruntime:" not in line
              and not re.fullmatch(r"(\x1b\[[0-9;]*m)+\s*", line)]
    if others:
        sys.stderr.write("".join(others))


def _load(path: Path, card: ModelCard, options: ort.SessionOptions, providers: list[str]
          ) -> ort.InferenceSession:
    try:
        return ort.InferenceSession(str(path), options, providers=providers)
    except Exception as exc:  # onnxruntime raises its own exception types for a bad file
        reason = re.sub(r"\s+", " ", str(exc)).strip()[:300] or type(exc).__name__
        hint = "export the model again with `kgbench model export`"
        if card.precision == "fp16" and providers == [CPU]:
            hint = ("this is an fp16 export, which the CPU provider may not run: export "
                    "without --fp16 for the CPU")
        raise ModelDirError(f"{path}: onnxruntime cannot load it ({reason})", hint) from None


def _check_text_graph(session: ort.InferenceSession, card: ModelCard, path: Path) -> None:
    """The graph takes int64 token tensors ``[batch, sequence]`` named as a text model's
    inputs, the ones the card lists, and gives float logits (or embeddings) of the
    task's rank."""
    inputs = session.get_inputs()
    for node in inputs:
        if node.name not in TEXT_INPUTS or node.type != "tensor(int64)" or len(node.shape) != 2:
            shape = ", ".join(str(d) for d in node.shape)
            raise ModelDirError(
                f"{path}: an ONNX file whose inputs are not a text model's: input "
                f"{node.name!r} is {node.type} [{shape}], a text model takes int64 token "
                f"tensors [batch, sequence] named {', '.join(TEXT_INPUTS[:3])}",
                "export a Hugging Face text model with `kgbench model export`")
    names = {node.name for node in inputs}
    if "input_ids" not in names or names != set(card.inputs):
        raise ModelDirError(f"{path}: the graph's inputs ({', '.join(sorted(names))}) are not "
                            f"the card's ({', '.join(card.inputs)})",
                            "export the model again with `kgbench model export`")
    outputs = {o.name: o for o in session.get_outputs()}
    out = outputs.get(card.output)
    if out is None:
        raise ModelDirError(f"{path}: no output {card.output!r} (the graph has "
                            f"{', '.join(outputs)})",
                            "export the model again with `kgbench model export`")
    rank = 3 if card.task == "causal-lm" else 2
    if out.type not in _FLOAT_OUTPUTS or len(out.shape) != rank:
        raise ModelDirError(f"{path}: output {out.name!r} is {out.type} of rank "
                            f"{len(out.shape)}, a {card.task} model gives float logits of "
                            f"rank {rank}",
                            "export the model again with `kgbench model export`")
    labels = out.shape[-1]
    if card.embedding is not None:
        if isinstance(labels, int) and labels != card.embedding.dimension:
            raise ModelDirError(f"{path}: {labels}-value embeddings but the card says "
                                f"{card.embedding.dimension}",
                                "export the model again with `kgbench model export`")
    elif card.task != "causal-lm" and isinstance(labels, int) and labels != len(card.labels):
        raise ModelDirError(f"{path}: {labels} logits but the card names "
                            f"{len(card.labels)} labels",
                            "export the model again with `kgbench model export`")
