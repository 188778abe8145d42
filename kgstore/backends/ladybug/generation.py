"""The embedded store's generation: a token in ``STORE/generation`` that a writer
replaces when it closes a store it changed (after the engine's checkpoint, so whoever
reopens then reads the whole change).

A server holding read-only handles reads it before each request (a read of a few
bytes) and reopens them when it changed: an engine database opened read-only keeps
reading what the store held when it was opened. The search index
(:mod:`kgstore.search_index`) records the generation it was built for, so an index
left behind by a killed import is known to be stale.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from kgstore.diskspace import disk_full_error

__all__ = ["GENERATION_FILE", "new_generation", "read_generation", "write_generation"]

GENERATION_FILE = "generation"


def new_generation() -> str:
    return uuid.uuid4().hex


def read_generation(store_dir: Path) -> str:
    """The store's generation ("" for a store no writer has closed since generations
    exist)."""
    try:
        return (store_dir / GENERATION_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def write_generation(store_dir: Path, token: str) -> None:
    """Make ``token`` the store's generation (an atomic rename: a reader sees the old
    token or the new one)."""
    part = store_dir / f".{GENERATION_FILE}.{uuid.uuid4().hex}"
    try:
        part.write_text(token, encoding="ascii")
        os.replace(part, store_dir / GENERATION_FILE)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise disk_full_error(exc, store_dir / GENERATION_FILE) or exc from None
