"""Vectorised staging of dump-scale N-Triples with DuckDB (Freebase dump, ``load rdf``).

The Python parser (:mod:`loaders.ntriples`) reads ~200k lines/s; a Freebase dump has
3 billion. This package stages such files at DuckDB speed while keeping the Python
parser's results (W3C N-Triples) and the :class:`~loaders.triples.TripleMapper`
mapping conventions, in four steps:

1. **Read** (:mod:`~loaders.vectorized.chunks`): decompress on a background thread and
   cut the text into plain chunk files at line ends, numbering lines; lines too long for
   the CSV reader are taken out for the Python parser. A damaged compressed file is
   located to the byte (:mod:`~loaders.vectorized.faults`).
2. **Parse** each chunk in SQL (:mod:`~loaders.vectorized.syntax`, built from
   :mod:`~loaders.vectorized.sql`): a line syntax splits lines into terms and decides
   which lines it fully understands; everything else goes to the Python parser with its
   exact line number, so the result is what the W3C-conformant parser says.
3. **Map and filter** in SQL and 4. **write** Parquet parts of the stage
   (:mod:`~loaders.vectorized.stager`).

What other modules may use is named here.
"""

from __future__ import annotations

from loaders.vectorized.chunks import ChunkReader, LineGuard, LongLine, head_lines
from loaders.vectorized.faults import locate_fault
from loaders.vectorized.stager import VectorStager, stage_ntriples_vectorized
from loaders.vectorized.syntax import RegexSyntax, TabSyntax

__all__ = ["ChunkReader", "LineGuard", "LongLine", "RegexSyntax", "TabSyntax", "VectorStager",
           "head_lines", "locate_fault", "stage_ntriples_vectorized"]
