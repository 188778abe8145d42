"""Checking a LadybugDB store after the engine recovered a checkpoint that failed.

A checkpoint writes the pages of the last transactions into the database file through
a shadow file (``graph.lbdb.shadow``, ``graph.lbdb.wal.checkpoint`` while it runs).
When it fails half-way because the disk filled up, LadybugDB 0.22 says "the committed
data is durable and will be recovered on restart", and the next open does recover it,
but not always intact: measured on a 20 MB tmpfs (tests/kgbench/test_cli_disk_full.py),
the recovered store's rows were all there for scans while its primary-key indexes
missed every ``Source`` and ``Meta`` row in one case and every ``Entity`` in another.
Such a store would answer every lookup wrongly, silently, and a rerun of the load
would add a second copy of each source record.

So an open that finds those files (:func:`checkpoint_interrupted`) checks a sample of
every keyed table's keys by lookup once the engine recovered (:func:`check_indexes`)
and refuses a store that lost any, saying how to rebuild it; the refusal is written
into the store's marker file (:func:`mark_damaged`), as the engine finishes its
recovery on that open and the next one would find nothing to check.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from kgstore.backends.ladybug import queries as q
from kgstore.errors import DamagedStoreError, QueryError

if TYPE_CHECKING:
    from kgstore.backends.ladybug.store import LadybugStore

CHECKPOINT_FILES = (".shadow", ".wal.checkpoint")
"""Suffixes of the files a running checkpoint keeps next to the database file."""
KEYED_TABLES = (("Meta", "key"), ("Source", "id"), ("Predicate", "id"), ("Entity", "id"),
                ("Literal", "id"), ("Name", "key"), ("Hub", "id"), ("InSlot", "key"))
"""Node tables and their primary keys."""
SAMPLE = 500
"""Keys looked up per table (spread over the table): a few ms each; a recovery that
loses index entries was seen to lose all of a table's."""


def checkpoint_interrupted(db_file: Path) -> bool:
    """Whether the last checkpoint of ``db_file`` did not finish (a kill or a full
    disk during it): the next open recovers it."""
    return any(db_file.with_name(db_file.name + s).exists() for s in CHECKPOINT_FILES)


def check_indexes(store: LadybugStore) -> None:
    """Raise :class:`DamagedStoreError` when a sample of some table's rows, found by a
    scan, is not all found again by primary key."""
    for table, key in KEYED_TABLES:
        try:
            rows = store._count(*q.row_count(table))
        except QueryError:   # a table older stores do not have (Hub, InSlot)
            continue
        if not rows:
            continue
        keys = [r[0] for r in store._rows(*q.key_sample(table, key, max(1, rows // SAMPLE), SAMPLE),
                                          scan=True)]
        found = store._rows(*q.keys_found(table, key, keys))[0][0]
        if found != len(keys):
            files = sorted({r[0] for r in store._rows(*q.source_files())})
            raise DamagedStoreError(
                f"store {store.path} was damaged by a write that failed half-way (its disk "
                "filled up, or the process was killed while the database engine "
                "checkpointed): recovering it, the engine lost the index entries of "
                f"{len(keys) - found} of {len(keys)} sampled {table} rows, so lookups "
                "would miss them; rebuild it: free space, then rerun the load commands "
                f"with --force (its sources: {', '.join(files) or 'none recorded'})")


def mark_damaged(marker: Path, message: str) -> None:
    """Record in the store's marker file (atomically) that the store is damaged, so
    every later open refuses it with ``message``."""
    with contextlib.suppress(OSError, ValueError):
        info = json.loads(marker.read_text())
        info["damaged"] = message
        temp = marker.with_name(marker.name + ".tmp")
        temp.write_text(json.dumps(info, indent=2))
        os.replace(temp, marker)
