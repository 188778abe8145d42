"""Fixtures of the CLI tests.

* ``demo_store`` (module): the demo KG's embedded store, a copy of ``shared_demo_store``
  (``tests/conftest.py``: built once per test run) for the module's tests alone, as each
  module built its own before: ``kgbench generate`` writes into the store it reads (its
  seed's type samples, :mod:`kgstore.type_samples`), so a shared one would be changed,
  and locked by one worker while another reads it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared_builds import copy_tree


@pytest.fixture(scope="module")
def demo_store(shared_demo_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_tree(shared_demo_store, tmp_path_factory.mktemp("demo") / "demo")
