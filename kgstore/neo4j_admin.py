"""The offline path into Neo4j for big dumps, as code above ``kgstore`` sees it: a store
or a stage written as the CSV files of ``neo4j-admin database import full``, with the
exact command (:func:`export_for_neo4j_admin`), and what the export reports.

The writer is the Neo4j backend's (:mod:`kgstore.backends.neo4j.admin_export`: the files
follow its graph schema), loaded when an export runs; callers see only this module.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kgstore.errors import StoreError
from kgstore.store import ProgressCallback

__all__ = ["AFTER_IMPORT", "ARRAY_DELIMITERS", "ExportFile", "Neo4jExportError",
           "Neo4jExportReport", "SourceKind", "export_for_neo4j_admin"]

SourceKind = Literal["store", "stage"]


ARRAY_DELIMITERS = ("\x1e", "\x1d", "\x1c", "\x1f", "\x07", "\x01")
"""Array delimiters tried in turn: ASCII record, group, file and unit separators, then
two more controls. None of them is the field delimiter (``,``) or the quote (``"``)."""


class Neo4jExportError(StoreError):
    """The export cannot be made (bad input, an output folder in the way); the message
    says what to do."""


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One CSV data file of the export, with the header file that describes it."""

    name: str
    """File stem (``entity``): data ``entity.csv``, header ``entity.header.csv``."""
    kind: Literal["nodes", "relationships"]
    label: str
    """Node label or relationship type."""
    header: str
    rows: int
    multiline: bool
    """Whether a field holds a line break (the import tool must be told)."""


@dataclass(slots=True)
class Neo4jExportReport:
    """What :func:`export_for_neo4j_admin` wrote."""

    source: str
    kind: SourceKind
    out: str
    database: str
    files: list[ExportFile] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    array_delimiter: str = ARRAY_DELIMITERS[0]
    facts: int = 0
    seconds: float = 0.0

    @property
    def command_line(self) -> str:
        """The command, quoted for a POSIX shell."""
        return shlex.join(self.command)

    @property
    def nodes(self) -> dict[str, int]:
        return _totals(f for f in self.files if f.kind == "nodes")

    @property
    def relationships(self) -> dict[str, int]:
        return _totals(f for f in self.files if f.kind == "relationships")

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source, "kind": self.kind, "out": self.out,
            "database": self.database, "facts": self.facts, "seconds": self.seconds,
            "nodes": self.nodes, "relationships": self.relationships,
            "array_delimiter": f"U+{ord(self.array_delimiter):04X}",
            "files": [{"data": f"{f.name}.csv", "header": f"{f.name}.header.csv",
                       "kind": f.kind, "label": f.label, "rows": f.rows,
                       "multiline": f.multiline} for f in self.files],
            "command": self.command, "command_line": self.command_line,
            "after_import": AFTER_IMPORT,
        }


AFTER_IMPORT = (
    "Start Neo4j, then open the database once with kgbench (e.g. `kgbench stats --store "
    "bolt://HOST:7687`): that first open creates the constraints and indexes a kgbench "
    "store needs (uniqueness of every id, the Fact predicate index), which the import "
    "tool does not; then give its names their search keys once with `kgbench store "
    "search-index bolt://HOST:7687` (what `kgbench search` reads)."
)


def _totals(files: Iterator[ExportFile] | Any) -> dict[str, int]:
    totals: dict[str, int] = {}
    for f in files:
        totals[f.label] = totals.get(f.label, 0) + f.rows
    return totals


def export_for_neo4j_admin(source: str, out: str | Path, *, database: str = "neo4j",
                           force: bool = False, nameless_is_cvt: bool = False,
                           progress: ProgressCallback | None = None) -> Neo4jExportReport:
    """Write the ``neo4j-admin database import full`` input for ``source`` (a store
    location or a stage directory) into the new folder ``out``, with ``import.sh``
    (the command) and ``export.json`` (what was written); see
    :func:`kgstore.backends.neo4j.admin_export.write_import_files`.
    :class:`Neo4jExportError` says what to do when it cannot be made."""
    from kgstore.backends.neo4j.admin_export import write_import_files

    return write_import_files(source, out, database=database, force=force,
                              nameless_is_cvt=nameless_is_cvt, progress=progress)
