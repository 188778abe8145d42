"""Loader tests; :func:`write_compressed` writes their input files."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path


def write_compressed(path: Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path``, gzip- or bzip2-compressed when its name
    ends in ``.gz`` or ``.bz2``."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path.name.endswith(".gz"):
        raw = gzip.compress(raw)
    elif path.name.endswith(".bz2"):
        raw = bz2.compress(raw)
    path.write_bytes(raw)
    return path
