"""The embedded engine's memory: LadybugDB's buffer pool, how many rows one ``COPY``
(or one batched update) of an import fits in it, and the handles that share one engine
database (so one buffer pool) in a process.
"""

from __future__ import annotations

import os
import threading

__all__ = ["MIN_COPY_ROWS", "DatabaseUsers", "buffer_pool_bytes", "copy_batch_rows"]


def buffer_pool_bytes() -> int:
    """Buffer pool size: ``KGBENCH_BUFFER_POOL_MB`` or 2 GiB (LadybugDB's own default is
    80% of RAM, which would crowd out DuckDB during imports)."""
    return int(os.environ.get("KGBENCH_BUFFER_POOL_MB", "2048")) * 1024 * 1024



# LadybugDB 0.22 keeps everything one COPY loads in its buffer pool until the COPY
# commits, and a COPY that does not fit fails ("Unable to allocate memory! The buffer
# pool is full") rather than spilling. Measured: a 2 GiB pool takes one COPY of 14M
# facts with 26-character predicates, not of 23M (so up to ~150 bytes a fact: both
# directions keep the rel and a copy of its predicate); a 1 GiB pool takes one COPY of
# 8M 35-character Name keys, not of 10M (~130 bytes a row, mostly the primary-key
# index). Imports therefore COPY in batches that fill at most 2/3 of the pool by these
# estimates (the rest for the index pages a COPY reads). A COPY into a non-empty table
# costs more than one into an empty table, and more the bigger the table (five COPYs of
# 4.7M facts each: 10, 23, 29, 37, 30 s; 4.7M facts in four COPYs: 26-31 s, in one:
# 10-19 s), so batches are as large as the pool allows, and an import that fits stays
# one COPY per table.
REL_ROW_BYTES = 100  # plus twice the mean length of the rel's property (the predicate)
NODE_ROW_BYTES = 130
COPY_POOL_SHARE = 2 / 3
MIN_COPY_ROWS = 10_000


def copy_batch_rows(kind: str, property_chars: float = 0.0) -> int:
    """Most rows one COPY (or one batched update) of a ``kind`` table (``"node"`` or
    ``"rel"``, whose property values average ``property_chars`` characters) takes:
    ``$KGBENCH_COPY_BATCH_ROWS`` when set, else what fits in the buffer pool (see
    :data:`REL_ROW_BYTES`)."""
    forced = os.environ.get("KGBENCH_COPY_BATCH_ROWS")
    if forced:
        return max(int(forced), 1)
    per_row = NODE_ROW_BYTES if kind == "node" else REL_ROW_BYTES + 2 * property_chars
    return max(int(buffer_pool_bytes() * COPY_POOL_SHARE / per_row), MIN_COPY_ROWS)


class DatabaseUsers:
    """How many handles use one engine database (:meth:`LadybugStore.reader`)."""

    def __init__(self) -> None:
        self._count = 1
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self._count += 1

    def remove(self) -> bool:
        """One handle fewer; whether it was the last."""
        with self._lock:
            self._count -= 1
            return self._count == 0
