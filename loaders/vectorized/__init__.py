"""Vectorised staging of dump-scale N-Triples with DuckDB (Freebase dump, ``load rdf``):
see :mod:`loaders.vectorized.stager`. What other modules may use is named here."""

from __future__ import annotations

from loaders.vectorized.stager import (
    ChunkReader,
    LineGuard,
    LongLine,
    RegexSyntax,
    TabSyntax,
    VectorStager,
    head_lines,
    locate_fault,
    stage_ntriples_vectorized,
)

__all__ = ["ChunkReader", "LineGuard", "LongLine", "RegexSyntax", "TabSyntax", "VectorStager",
           "head_lines", "locate_fault", "stage_ntriples_vectorized"]
