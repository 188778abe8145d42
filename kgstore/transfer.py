"""Copying a whole store to another location or backend, verified.

``copy_store(SRC, DST)`` goes through the :class:`~kgstore.store.Store` interface only,
so it copies between any two backends (embedded to Neo4j and back, embedded to
embedded):

1. dump SRC into a stage (:mod:`kgstore.staging`): every entity as it is (placeholders
   and CVTs with their flag), every fact, the predicates with their labels, the CVT
   types, while summing SRC's content checksum (:mod:`kgstore.checksum`) on the way;
2. ``DST.import_stage(stage, nameless_is_cvt=False)``: the entity rows carry their own
   CVT flag, so no rule of the loaders' re-decides it;
3. copy SRC's source records (what was loaded, when), so DST tells the same history;
4. verify: the counts of :meth:`~kgstore.store.Store.stats` and the content checksum of
   DST must equal SRC's, else :class:`CopyVerificationError`.

DST must not hold a store already: one that holds anything is refused, unless
``force`` (then it is removed first and the copy starts from nothing; a copy is never
merged into other content, which would make the verification meaningless). An empty
store at DST is used as it is.

Interrupted copies resume. The stage goes where DST's backend keeps stages
(:meth:`~kgstore.store.Store.staging_dir`, named after SRC), and is kept until the copy
is verified; its manifest records SRC's checksum. Running the same copy again finds
DST holding part of the copy and that stage: when SRC's checksum is still the one
recorded, the stage is imported again (imports are idempotent merges, so what the
first import wrote is completed, not doubled), else the copy is refused (SRC changed
meanwhile; ``force`` starts over). A backend that keeps no stages stages into a
temporary folder that is always removed: an interrupted copy into it is restarted with
``force``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kgstore import open_store, remove_store, store_exists
from kgstore.checksum import ContentHash, content_checksum
from kgstore.errors import StagingError, StoreError, StoreNotFoundError
from kgstore.location import NEO4J_SCHEMES, location_scheme
from kgstore.models import StoreStats
from kgstore.staging import StageWriter, read_manifest, verify_stage
from kgstore.store import ImportReport, ProgressCallback, Store

__all__ = ["COUNT_FIELDS", "CopyError", "CopyReport", "CopyVerificationError", "copy_store",
           "store_counts"]

COUNT_FIELDS = ("entities", "cvt_entities", "literals", "facts", "entity_facts",
                "literal_facts", "predicates")
"""The counts of :class:`~kgstore.models.StoreStats` a copy must reproduce."""

COPY_STAGE_PREFIX = "copy-"


class CopyError(StoreError):
    """A copy that cannot start (same location, DST holds a store, SRC changed since an
    interrupted copy); nothing was written."""


class CopyVerificationError(CopyError):
    """The copy was written but DST does not hold what SRC holds."""


@dataclass(slots=True)
class CopyReport:
    """The outcome of a verified copy: ``counts`` are SRC's and DST's (equal), the
    checksums equal too. ``reused_stage``: an interrupted copy's stage was imported
    again; ``replaced_destination``: ``force`` removed a store at DST first."""

    source: str
    destination: str
    counts: dict[str, int]
    source_checksum: str
    destination_checksum: str
    sources_copied: int
    reused_stage: bool
    replaced_destination: bool
    import_report: ImportReport
    seconds: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)


def store_counts(stats: StoreStats) -> dict[str, int]:
    """The :data:`COUNT_FIELDS` of ``stats``."""
    return {name: int(getattr(stats, name)) for name in COUNT_FIELDS}


def copy_store(source: str, destination: str, *, force: bool = False,
               progress: ProgressCallback | None = None, batch: int = 10_000) -> CopyReport:
    """Copy the store at ``source`` to ``destination`` and verify it (module docstring).

    Raises :class:`CopyError` (same location, DST not empty without ``force``, SRC
    changed since an interrupted copy), :class:`StoreNotFoundError` (no store at
    SRC), :class:`CopyVerificationError`, or the backends' errors."""
    started = time.perf_counter()
    if same_location(source, destination):
        raise CopyError(f"{source} and {destination} are the same store; copy it to another "
                        "location")
    if not store_exists(source):
        raise StoreNotFoundError(f"{source}: no kgbench store there to copy; check the "
                                 "location (kgbench stats --store LOCATION reads one)")
    replaced = False
    if force and store_exists(destination):
        remove_store(destination)
        replaced = True
    elif store_exists(destination):
        _refuse_a_store_at(destination, source)
    steps: dict[str, float] = {}
    with open_store(source, read_only=True) as src, \
            open_store(destination, create=True) as dst:
        src_counts = store_counts(src.stats())
        stage, temp_root = _stage_location(dst, source)
        try:
            t0 = time.perf_counter()
            src_checksum, reused = _prepare_stage(src, dst, stage, source, destination,
                                                  src_counts, progress, batch)
            steps["dump"] = round(time.perf_counter() - t0, 3)
            t0 = time.perf_counter()
            imported = dst.import_stage(stage, nameless_is_cvt=False, progress=progress)
            records = src.sources()
            for record in records:
                dst.record_source(record)
            steps["import"] = round(time.perf_counter() - t0, 3)
            t0 = time.perf_counter()
            dst_counts = store_counts(dst.stats())
            dst_checksum = content_checksum(dst, progress=progress, label="verify",
                                            batch=batch)
            steps["verify"] = round(time.perf_counter() - t0, 3)
        except BaseException:
            # An incomplete stage is useless; a complete one in DST's staging folder
            # is what a rerun resumes from.
            if temp_root is not None:
                shutil.rmtree(temp_root, ignore_errors=True)
            elif not _complete(stage):
                _remove_stage(stage)
            raise
        # Verified or not, the stage has done its work: importing it again changes
        # nothing.
        if temp_root is not None:
            shutil.rmtree(temp_root, ignore_errors=True)
        else:
            _remove_stage(stage)
    problems = [f"{name} {src_counts[name]:,} in SRC, {dst_counts[name]:,} in DST"
                for name in COUNT_FIELDS if src_counts[name] != dst_counts[name]]
    if src_checksum != dst_checksum:
        problems.append(f"content checksum {src_checksum[:16]}… in SRC, "
                        f"{dst_checksum[:16]}… in DST")
    if problems:
        raise CopyVerificationError(
            f"the copy at {destination} differs from {source}: {'; '.join(problems)}; "
            "copy again with --force (if it differs again, report it as a bug)")
    return CopyReport(
        source=source, destination=destination, counts=src_counts,
        source_checksum=src_checksum, destination_checksum=dst_checksum,
        sources_copied=len(records), reused_stage=reused, replaced_destination=replaced,
        import_report=imported, seconds=round(time.perf_counter() - started, 3), steps=steps)


def same_location(a: str, b: str) -> bool:
    """Whether two locations name the same store: the same directory (however
    written), or the same Neo4j server and database (``bolt://`` and ``neo4j://``
    reach the same one)."""
    scheme_a, scheme_b = location_scheme(a), location_scheme(b)
    if scheme_a is None and scheme_b is None:
        path_a, path_b = Path(a).resolve(), Path(b).resolve()
        if path_a == path_b:
            return True
        with contextlib.suppress(OSError):
            return os.path.samefile(path_a, path_b)
        return False
    if scheme_a is None or scheme_b is None:
        return False
    return _uri_key(a) == _uri_key(b)


def _uri_key(location: str) -> tuple[str, ...]:
    parts = urlsplit(location)
    scheme = parts.scheme.lower()
    family = "neo4j" if scheme in NEO4J_SCHEMES else scheme
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None and family == "neo4j":
        port = 7687   # the driver's default: bolt://host is bolt://host:7687
    return (family, (parts.hostname or "").lower(), str(port or ""), parts.path.strip("/"),
            parts.query)


def _stage_location(dst: Store, source: str) -> tuple[Path, Path | None]:
    """Where SRC is staged: ``(stage, temp_root)``. In DST's staging folder, named after
    SRC (so a rerun of the same copy finds it), where DST's backend keeps one;
    else in a temporary folder ``temp_root`` that is always removed."""
    staging = dst.staging_dir()
    if staging is not None:
        return staging / _stage_name(source), None
    root = Path(tempfile.mkdtemp(prefix="kgbench-copy-"))
    return root / "stage", root


def _stage_name(source: str) -> str:
    """The name of the stage of a copy of ``source`` in DST's staging folder."""
    return COPY_STAGE_PREFIX + hashlib.sha256(source.encode("utf-8", "surrogatepass")
                                              ).hexdigest()[:12]


def _prepare_stage(src: Store, dst: Store, stage: Path, source: str, destination: str,
                   src_counts: dict[str, int], progress: ProgressCallback | None,
                   batch: int) -> tuple[str, bool]:
    """A complete stage of SRC at ``stage``: the kept one of an interrupted copy of the
    same SRC content, or a fresh dump. Returns SRC's checksum and whether the stage was
    reused. Refuses (:class:`CopyError`) a DST that holds anything that is not part of
    this copy."""
    kept = _kept_copy(stage)
    empty = _is_empty(dst)
    if kept is None:
        if not empty:
            raise CopyError(_HOLDS_A_STORE.format(destination=destination))
        return _dump(src, stage, source, src_counts, progress, batch), False
    recorded = str(kept.get("source_checksum", ""))
    current = content_checksum(src, progress=progress, label="checksum SRC", batch=batch)
    if current == recorded:
        return current, True
    if not empty:
        raise CopyError(
            f"{destination} holds part of an interrupted copy of {source}, which has "
            "changed since; pass --force to copy it again from the start")
    return _dump(src, stage, source, src_counts, progress, batch), False


def _refuse_a_store_at(destination: str, source: str) -> None:
    """Refuse a DST that holds a store other than an interrupted copy of SRC, seen
    read-only: opening it to write would already change its files, refused or not."""
    with open_store(destination, read_only=True) as dst:
        staging = dst.staging_dir()
        kept = _kept_copy(staging / _stage_name(source)) if staging is not None else None
        if kept is None and not _is_empty(dst):
            raise CopyError(_HOLDS_A_STORE.format(destination=destination))


_HOLDS_A_STORE = ("{destination} already holds a store; pass --force to replace it with the "
                  "copy (its content is removed first), or copy to another location")


def _kept_copy(stage: Path) -> dict[str, Any] | None:
    """The copy record of a complete, intact stage at ``stage``, else None."""
    try:
        manifest = read_manifest(stage)
    except (StagingError, OSError, ValueError):
        return None
    extra = manifest.get("extra")
    record = extra.get("copy") if isinstance(extra, dict) else None
    if not isinstance(record, dict) or verify_stage(stage, manifest) is not None:
        return None
    return record


def _is_empty(store: Store) -> bool:
    stats = store.stats()
    return (not any(store_counts(stats).values()) and not stats.sources
            and not store.cvt_types())


def _dump(src: Store, stage: Path, source: str, src_counts: dict[str, int],
          progress: ProgressCallback | None, batch: int) -> str:
    """Write everything ``src`` holds into a complete stage at ``stage``; return its
    content checksum (summed on the way, so SRC is read once)."""
    content = ContentHash()
    writer = StageWriter(stage)
    done = 0
    for rows in src.iter_entities(batch=batch):
        for entity in rows:
            writer.add_entity_record(entity)
            content.entity(entity)
        done += len(rows)
        if progress is not None:
            progress("copy entities", done, src_counts["entities"])
    done = 0
    for facts in src.iter_facts(batch=batch):
        for fact in facts:
            writer.add_fact_record(fact)
            content.fact(fact)
        done += len(facts)
        if progress is not None:
            progress("copy facts", done, src_counts["facts"])
    for predicate in src.predicates():
        writer.add_predicate(predicate.id, predicate.label, predicate.aliases)
        content.predicate(predicate)
    for type_id in sorted(src.cvt_types()):
        writer.add_cvt_type(type_id)
        content.cvt_type(type_id)
    checksum = content.hexdigest()
    writer.close(extra={"copy": {"source": source, "source_checksum": checksum,
                                 "counts": src_counts}})
    return checksum


def _complete(stage: Path) -> bool:
    return _kept_copy(stage) is not None


def _remove_stage(stage: Path) -> None:
    shutil.rmtree(stage, ignore_errors=True)
    with contextlib.suppress(OSError):
        stage.parent.rmdir()  # the staging folder itself, once empty
