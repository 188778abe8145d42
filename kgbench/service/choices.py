"""What the web UI's forms offer to pick from: the files and directories under
``--data`` (a job's inputs) and Cypher examples made from the served store's own data.

The listing walks ``--data`` (or a directory under it, named through
:func:`kgbench.service.paths.resolve_under`) without following links, skipping hidden
names, the server's job records (``jobs/``: each job's files are behind the token, at
``/api/jobs/{id}/files``) and the store when it lives there; it stops at
:data:`MAX_DEPTH` levels and :data:`MAX_ENTRIES` entries (``truncated`` says so).
Names only: nothing is opened.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from kgbench.service.deps import DataRootDep, ReaderDep, SettingsDep
from kgbench.service.errors import ERROR_RESPONSES, ApiError
from kgbench.service.jobs.manager import JOBS_DIR
from kgbench.service.paths import resolve_under
from kgstore import store_directory
from kgstore.cypher.examples import cypher_examples

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "router"]

router = APIRouter(prefix="/api", tags=["reads"], responses=ERROR_RESPONSES)

MAX_DEPTH = 6
MAX_ENTRIES = 5_000


class DataEntry(BaseModel):
    path: str = Field(description="Relative to --data, as job parameters name it.")
    kind: Literal["file", "dir"]
    size: int | None = Field(None, description="Bytes (files only).")


class DataListing(BaseModel):
    under: str
    entries: list[DataEntry]
    truncated: bool


class CypherExampleModel(BaseModel):
    title: str
    query: str
    graph: bool = Field(description="Its rows hold nodes and relationships to draw.")


class CypherExamples(BaseModel):
    examples: list[CypherExampleModel]


def _skipped(settings_store: str, root: Path) -> set[Path]:
    """Directories the listing does not enter: the job records and the store."""
    skipped = {root / JOBS_DIR}
    folder = store_directory(settings_store)
    if folder is not None:
        skipped.add(Path(os.path.realpath(folder)))
    return skipped


def list_data(root: Path, under: Path, skipped: set[Path], kind: str,
              suffixes: tuple[str, ...]) -> tuple[list[DataEntry], bool]:
    """Entries below ``under`` (itself below ``root``) as the module docstring says;
    files only with a name ending in one of ``suffixes`` (all when empty)."""
    entries: list[DataEntry] = []
    base = root.resolve()
    for directory, dirnames, filenames in os.walk(under, followlinks=False):
        here = Path(directory)
        depth = len(here.relative_to(under).parts)
        kept = []
        for name in sorted(dirnames):
            path = here / name
            if name.startswith(".") or path.is_symlink() or path in skipped:
                continue
            kept.append(name)
            if kind in ("dir", "any"):
                entries.append(DataEntry(path=path.relative_to(base).as_posix(), kind="dir",
                                         size=None))
        dirnames[:] = kept if depth + 1 < MAX_DEPTH else []
        if kind in ("file", "any"):
            for name in sorted(filenames):
                path = here / name
                if name.startswith(".") or path.is_symlink() or (
                        suffixes and not name.endswith(suffixes)):
                    continue
                entries.append(DataEntry(path=path.relative_to(base).as_posix(), kind="file",
                                         size=path.lstat().st_size))
        if len(entries) >= MAX_ENTRIES:
            return sorted(entries[:MAX_ENTRIES], key=lambda e: e.path), True
    return sorted(entries, key=lambda e: e.path), False


@router.get("/data/files", response_model=DataListing)
def data_files(
    root: DataRootDep, conf: SettingsDep,
    under: Annotated[str, Query(max_length=1024, description="A directory under --data "
                                "(default: all of it).")] = ".",
    kind: Annotated[Literal["file", "dir", "any"], Query(
        description="Files, directories or both.")] = "any",
    suffix: Annotated[list[str] | None, Query(max_length=16, description=
                                              "Only files ending so (repeatable), e.g. .jsonl."
                                              )] = None,
) -> DataListing:
    """The files and directories under ``--data`` a job may read (names and sizes; the
    job records and the store are left out, links are not followed)."""
    start = resolve_under(root, under, kind="dir") if under.strip() not in ("", ".") \
        else root.resolve()
    skipped = _skipped(conf.store, root.resolve())
    if any(start == s or start.is_relative_to(s) for s in skipped):
        raise ApiError(400, f"{ascii(under[:200])} is not listed: the server's job records "
                       "and the store are not inputs", "list another directory, or all "
                       "of --data")
    suffixes = tuple(s for s in (suffix or []) if s and len(s) <= 32)
    entries, truncated = list_data(root, start, skipped, kind, suffixes)
    shown = start.relative_to(root.resolve()).as_posix()
    return DataListing(under=shown, entries=entries, truncated=truncated)


@router.get("/cypher/examples", response_model=CypherExamples)
async def examples(reader: ReaderDep) -> CypherExamples:
    """Read-only Cypher examples made from this store's own predicates and names
    (:mod:`kgstore.cypher.examples`): each returns rows here."""
    found = await reader.run(cypher_examples)
    return CypherExamples(examples=[CypherExampleModel(title=e.title, query=e.query,
                                                       graph=e.graph) for e in found])
