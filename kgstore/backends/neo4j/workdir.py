"""Where a Neo4j store's loads stage their input: a local folder, since the server may
be on another machine and the stage is read by this process only.

``$KGBENCH_NEO4J_WORK/<host>-<port>-<database>/`` when that variable is set, else
``./kgbench-data/neo4j-work/<host>-<port>-<database>/`` beside the embedded stores'
default folder (``kgbench-data/``) in the directory the command runs in. A stage kept
after a failed import is found there by the next load of the same database, as an
embedded store finds its own in ``STORE/staging``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from kgstore.backends.neo4j.connection import Neo4jLocation

__all__ = ["WORK_ENV", "staging_folder", "work_folder"]

WORK_ENV = "KGBENCH_NEO4J_WORK"


def work_folder(location: Neo4jLocation) -> Path:
    """The local work folder of one Neo4j database (not created here)."""
    root = Path(os.environ.get(WORK_ENV) or Path("kgbench-data") / "neo4j-work")
    rest = location.uri.split("://", 1)[1]
    name = f"{rest}-{location.database or 'default'}"
    # A folder name, whatever the host spells (IPv6 brackets, colons).
    return root / re.sub(r"[^A-Za-z0-9._-]+", "-", name)


def staging_folder(location: Neo4jLocation) -> Path:
    return work_folder(location) / "staging"
