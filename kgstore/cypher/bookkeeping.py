"""The statements on a store's own bookkeeping nodes (``Meta``, ``Source``): the two
backends keep them alike and spell them alike, so they are written once here and run by
either store (each backend's other statements are in its ``queries.py``)."""

from __future__ import annotations

import json
from typing import Any

from kgstore.models import SourceRecord

__all__ = ["meta", "record_source", "sources"]

Query = tuple[str, dict[str, Any]]


def meta(key: str) -> Query:
    """The value of ``Meta`` row ``key``."""
    return "MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key}


def sources() -> Query:
    """Every loaded source, oldest first."""
    return ("MATCH (s:Source) RETURN s.file, s.checksum, s.format, s.counts, s.loaded_at, "
            "s.status ORDER BY s.loaded_at, s.file", {})


def record_source(source: SourceRecord) -> Query:
    """Insert or replace the record of one source (keyed by file + checksum)."""
    return ("MERGE (s:Source {id: $id}) SET s.file = $file, s.checksum = $checksum, "
            "s.format = $format, s.counts = $counts, s.loaded_at = $loaded_at, "
            "s.status = $status",
            {"id": f"{source.file}#{source.checksum}", "file": source.file,
             "checksum": source.checksum, "format": source.format,
             "counts": json.dumps(source.counts, sort_keys=True),
             "loaded_at": source.loaded_at, "status": source.status})
