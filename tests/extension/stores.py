"""Small LadybugDB stores the extension tests build from hand-written records."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from kgstore import Entity, Fact, Store, open_store


def read_only_store(factory: pytest.TempPathFactory, name: str, entities: Sequence[Entity],
                    facts: Sequence[Fact]) -> Iterator[Store]:
    """Ingest ``entities`` and ``facts`` into a fresh store, then yield it opened
    read-only (as ``kgbench generate``'s workers open it); for module-scoped fixtures."""
    path: Path = factory.mktemp(name) / "store"
    with open_store(path, create=True) as s:
        s.ingest(entities, facts)
    with open_store(path, read_only=True) as s:
        yield s
