"""Where tests find the shared real data: ``$KGBENCH_EXTERNAL_DATA`` (``.ci/run`` sets it
to ``../shared/data/external``), and the rest of that shared folder two levels above it
(``../shared/papers``: the papers' text). Tests that need it skip cleanly when it is
absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

EXTERNAL_ENV = "KGBENCH_EXTERNAL_DATA"
EXTERNAL = os.environ.get(EXTERNAL_ENV)


def external_path(*parts: str) -> Path:
    """``$KGBENCH_EXTERNAL_DATA/<parts>``; skips the calling test when the variable is
    unset or the file is not there."""
    if not EXTERNAL:
        pytest.skip(f"{EXTERNAL_ENV} is not set")
    path = Path(EXTERNAL, *parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def shared_path(*parts: str) -> Path:
    """``<shared>/<parts>``, the shared folder being ``$KGBENCH_EXTERNAL_DATA/../..``
    (``shared/data/external`` -> ``shared``); skips like :func:`external_path`."""
    if not EXTERNAL:
        pytest.skip(f"{EXTERNAL_ENV} is not set")
    path = Path(EXTERNAL).resolve().parent.parent.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path
