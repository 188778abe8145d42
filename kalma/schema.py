"""The JSON Schema of a KaLMA entry line (``kalma/data/entry.schema.json``, draft
2020-12), shipped with every generated benchmark so other tools can check the files
without kgbench, and the check itself (``jsonschema-rs``, as for ``samples.jsonl``:
:func:`extension.outputs.sample_schema.iter_schema_violations`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from extension.outputs.sample_schema import SchemaViolation, iter_schema_violations

__all__ = ["SCHEMA_FILE", "entry_schema", "entry_schema_text", "iter_entry_violations"]

SCHEMA_FILE = "entry.schema.json"


def entry_schema_text() -> str:
    """The shipped schema file's text (copied as is into an output directory)."""
    return resources.files("kalma").joinpath("data", SCHEMA_FILE).read_text("utf-8")


@cache
def entry_schema() -> dict[str, Any]:
    return dict(json.loads(entry_schema_text()))


def iter_entry_violations(path: Path) -> Iterator[SchemaViolation]:
    """Every violation of the entry schema in the JSONL file ``path`` (a line that is
    not JSON is one), with its line number and JSON path."""
    return iter_schema_violations(path, schema=entry_schema())
