"""Where tests find the shared real data: ``$KGBENCH_EXTERNAL_DATA`` (``.ci/run`` sets it
to ``../shared/data/external``). Tests that need it skip cleanly when it is absent."""

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
