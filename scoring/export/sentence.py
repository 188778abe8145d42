"""What a sentence-transformers checkpoint says about its embeddings, read before an
``--task embed`` export: the pooling its ``Pooling`` module computes, whether a
``Normalize`` module follows, and the ``max_seq_length`` it truncates to.

A sentence-transformers directory is a Hugging Face encoder checkpoint plus
``modules.json`` (the pipeline: ``Transformer`` → ``Pooling`` → optional ``Normalize``),
the pooling module's ``config.json`` (``pooling_mode_mean_tokens`` and the other modes)
and ``sentence_bert_config.json`` (``max_seq_length``). kgbench's embed graph computes
mean pooling then L2 normalisation (:mod:`scoring.export.graph`), so a checkpoint whose
pipeline computes something else (CLS or max pooling, a ``Dense`` layer after the
pooling) is refused: exported as mean-pooled it would give vectors the model was never
trained to give, and nothing downstream could tell. A plain encoder directory without
``modules.json`` is taken as mean-pooled, with a note saying so.

Pure file reading; neither torch nor transformers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.errors import ModelDirError, ScoringError

__all__ = ["SentencePipeline", "read_sentence_pipeline"]

_MODULE_KINDS = {"Transformer": "transformer", "Pooling": "pooling", "Normalize": "normalize"}
_POOLING_MODES = ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                  "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens",
                  "pooling_mode_lasttoken")
"""The modes other than mean: any of them set means the model pools otherwise."""


@dataclass(frozen=True)
class SentencePipeline:
    """What the checkpoint's sentence-transformers files say (all None / False for a
    plain encoder directory): ``max_seq_length`` the length it truncates to,
    ``normalized`` whether its pipeline ends in ``Normalize``; ``notes`` for the
    export report."""

    max_seq_length: int | None
    normalized: bool
    notes: tuple[str, ...]


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelDirError(f"{path}: cannot read it as JSON ({exc})",
                            "restore the file from the model's release, or remove the "
                            "sentence-transformers files to export it as a plain encoder"
                            ) from None


def _inside(root: Path, relative: object, where: Path) -> Path:
    """``root / relative`` for a module path of modules.json, refused when it leaves
    ``root`` (an absolute path or ``..``: a config must not make us read elsewhere)."""
    if not isinstance(relative, str):
        raise ModelDirError(f"{where}: a module's path is {relative!r}, not a string",
                            "restore modules.json from the model's release")
    target = (root / relative).resolve()
    if target != root.resolve() and root.resolve() not in target.parents:
        raise ModelDirError(f"{where}: module path {relative!r} points outside the checkpoint",
                            "restore modules.json from the model's release")
    return target


def _pooling_check(config: Any, path: Path) -> None:
    if not isinstance(config, dict):
        raise ModelDirError(f"{path}: not a pooling config (a JSON object)",
                            "restore the file from the model's release")
    others = [mode for mode in _POOLING_MODES if config.get(mode)]
    if others or not config.get("pooling_mode_mean_tokens"):
        used = ", ".join(m.removeprefix("pooling_mode_") for m in others) or "no mean pooling"
        raise ScoringError(f"{path}: the model pools its tokens with {used}; kgbench's embed "
                           "graph computes mean pooling only, so its vectors would not be "
                           "the ones the model was trained to give",
                           "export a mean-pooled sentence encoder (e.g. all-MiniLM-L6-v2)")


def read_sentence_pipeline(path: Path) -> SentencePipeline:
    """Read and check the sentence-transformers files of the checkpoint ``path`` (see
    the module docstring). Raises :class:`ModelDirError` for an unreadable file and
    :class:`ScoringError` for a pipeline kgbench does not compute."""
    modules_file = path / "modules.json"
    if not modules_file.is_file():
        return SentencePipeline(None, False, (
            "no sentence-transformers modules.json: mean pooling over the last hidden "
            "states assumed",))
    modules = _json(modules_file)
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise ModelDirError(f"{modules_file}: not a list of modules",
                            "restore modules.json from the model's release")
    kinds: list[tuple[str, Path]] = []
    for module in modules:
        kind = str(module.get("type", "")).rsplit(".", 1)[-1]
        if kind not in _MODULE_KINDS:
            raise ScoringError(f"{modules_file}: the pipeline has a {kind or 'nameless'} "
                               "module, which kgbench's embed graph does not compute (it "
                               "exports Transformer, mean Pooling and Normalize)",
                               "export a sentence encoder without extra modules")
        kinds.append((_MODULE_KINDS[kind], _inside(path, module.get("path", ""), modules_file)))
    order = [kind for kind, _ in kinds]
    if order not in (["transformer", "pooling"], ["transformer", "pooling", "normalize"]):
        raise ScoringError(f"{modules_file}: the pipeline is {' → '.join(order) or 'empty'}; "
                           "kgbench exports Transformer → Pooling (→ Normalize)",
                           "export a sentence encoder with that pipeline")
    pooling_file = kinds[1][1] / "config.json"
    if not pooling_file.is_file():
        raise ModelDirError(f"{pooling_file}: missing (modules.json names a Pooling module)",
                            "restore the file from the model's release")
    _pooling_check(_json(pooling_file), pooling_file)
    max_seq_length = None
    settings_file = kinds[0][1] / "sentence_bert_config.json"
    if settings_file.is_file():
        settings = _json(settings_file)
        value = settings.get("max_seq_length") if isinstance(settings, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 2:
            max_seq_length = value
    normalized = order[-1] == "normalize"
    notes = () if normalized else (
        "the model's pipeline has no Normalize module; the exported embeddings are "
        "L2-normalised all the same (cosines are unchanged)",)
    return SentencePipeline(max_seq_length, normalized, notes)
