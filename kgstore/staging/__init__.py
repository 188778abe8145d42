"""Staged Parquet between the loaders and a backend's bulk import.

:mod:`kgstore.staging.writer` writes and checks a stage (the loaders' side);
:mod:`kgstore.staging.diff` reads one into DuckDB and computes what a store lacks of
it (the backends' side, the same for every backend).
"""

from __future__ import annotations

from kgstore.staging.writer import (
    LAYOUT_VERSION,
    SCHEMAS,
    TABLES,
    StageWriter,
    part_glob,
    read_manifest,
    staged_parts,
    verify_stage,
)

__all__ = ["LAYOUT_VERSION", "SCHEMAS", "TABLES", "StageWriter", "part_glob", "read_manifest",
           "staged_parts", "verify_stage"]
