"""The grammar gate for tests: LanguageTool in a child JVM (``make grammar-gate`` builds
it; ``make test`` builds it first and sets ``KGBENCH_GRAMMAR_GATE_REQUIRED=1``, so that a
gate that cannot start fails the tests instead of skipping them)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from extension.verbalize.grammar_gate import GrammarGate, unavailable_reason

REQUIRED_ENV = "KGBENCH_GRAMMAR_GATE_REQUIRED"


def require_gate() -> None:
    """Skip the calling test when the gate is not built, unless it is required."""
    missing = unavailable_reason()
    if missing is None:
        return
    if os.environ.get(REQUIRED_ENV):
        pytest.fail(f"{REQUIRED_ENV} is set but {missing}")
    pytest.skip(missing)


def started_gate() -> Iterator[GrammarGate]:
    """A fixture body: one started gate, closed after its scope."""
    require_gate()
    with GrammarGate() as gate:
        yield gate
