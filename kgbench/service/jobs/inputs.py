"""A job's input paths, resolved under ``--data`` by
:func:`kgbench.service.paths.resolve_under` (no absolute path, no ``..``, no symlink
out of ``--data``): by the server when the job is submitted (a bad path is a 4xx
there) and by the job's process before it reads anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgbench.service.paths import resolve_under

__all__ = ["resolve_inputs"]


def resolve_inputs(params: Any, data_dir: Path) -> dict[str, Path]:
    """``name -> absolute path`` of every input of ``params`` (a :mod:`specs` model)."""
    return {name: resolve_under(data_dir, relative, must_exist=True, kind=kind)
            for name, (relative, kind) in params.input_paths().items()}
