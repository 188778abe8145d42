"""The format-independent part of every ``kgbench load``: stage, import, record.

Each input format plugs in a *stager*: a callable that streams one file into a
:class:`~kgstore.staging.StageWriter` (see :class:`Stager`). :func:`run_load` does the
rest, identically for every format:

1. *stage* every input file into its own stage directory: ``<file>-<hash>`` in the
   store's staging folder where its backend keeps one (``Store.staging_dir()``, e.g.
   ``<store>/staging/``; kept after a failure, so a re-run reuses it), else a
   temporary directory. A complete stage made from the same file content (SHA-256)
   with the same settings (:meth:`LoadOptions.stage_key`, the format and the stager's
   ``stage_version``) is reused instead of parsing again (``FileReport.reused_stage``).
   An interrupted stage has no complete manifest and is rebuilt from scratch; a kept
   stage whose parts do not match the checksums in its manifest (or that has none) is
   rebuilt too, with a note (``FileReport.notes``, also passed to ``progress``).
2. *import* the stages in input order: check the stage's parts against its manifest
   again (a stage that changed while others were staged is rebuilt, with a note),
   record the source as ``status="loading"`` (file, checksum, format),
   ``store.import_stage(stage, nameless_is_cvt=...)``, record it again as
   ``"complete"`` with its counts, delete the stage. A source already recorded (the
   same file and content, imported before: a load run again after an interruption
   imports the files it had finished again) keeps what it changed in the store: the
   import counts (``facts_new``...) of the records add up, so a repeated import, which
   finds everything stored already, does not turn them into zeros.

Nothing is written to the store before every file has staged, so a malformed line in
strict mode, corrupt compressed data or a wrong format leaves the store unchanged. A
file most of whose first lines are malformed (see
:data:`~loaders.errors.FORMAT_CHECK_LINES`) is refused while it stages, as "not a
<format> file" (:class:`~loaders.errors.NotFormatError`; :data:`FORMAT_LABELS`). A
process killed at any point leaves either incomplete stages (rebuilt by the next run),
complete stages (reused) or a ``"loading"`` source record whose import the next run
repeats: imports are idempotent, so re-running the same command finishes the job
without duplicates, and a source is only ever marked ``"complete"`` after its import.

Stager contract: ``stager(path, writer, report, *, options, strict, progress)`` fills
``writer`` and ``report`` (:class:`~loaders.errors.ParseReport`: physical ``lines``,
valid ``triples``, ``malformed`` + examples; under ``strict`` the first malformed line
raises :class:`~loaders.errors.MalformedInputError`), calls ``progress("parsing NAME",
bytes_done, bytes_total)`` now and then, and returns extra counts: keys starting with
``dropped_`` count lines dropped by reason (``dropped_lang`` -> ``FileReport.dropped
["lang"]``), ``by_predicate:<id>`` count kept triples per predicate (the report keeps
the top ``options.top_n``), anything else is a mapping count (``facts``, ``names`` ...).
A stager may set a ``stage_version`` attribute (bump it when its mapping changes, so
stages of an older mapping are not reused) and a ``nameless_is_cvt`` attribute (its
format's import default, see :attr:`LoadOptions.nameless_is_cvt`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Protocol

from kgstore.diskspace import disk_full_error
from kgstore.errors import StagingError
from kgstore.models import SourceRecord
from kgstore.staging import StageWriter, read_manifest, verify_stage
from kgstore.store import ImportReport, ProgressCallback, Store
from loaders.errors import MAX_EXAMPLES, InputFileError, ParseReport
from loaders.input_file import check_input_file

# Re-exported: the loaders and their callers import the filter from here too.
from loaders.predicate_filter import KEEP as KEEP
from loaders.predicate_filter import PredicateFilter as PredicateFilter
from loaders.predicate_filter import sql_str as sql_str
from loaders.sources import file_checksum

PIPELINE_VERSION = 3
"""Bumped when the stage bookkeeping changes, so older kept stages are not reused
(3: over-long lines are counted as malformed, mostly malformed files refused)."""

FORMAT_LABELS: dict[str, str] = {
    "ntriples": "N-Triples", "tsv": "tab-separated triples", "names": "id<TAB>name names",
    "freebase": "Freebase N-Triples", "wikidata-json": "Wikidata JSON",
    "wikidata-ntriples": "Wikidata N-Triples", "turtle": "Turtle", "n3": "N3",
    "xml": "RDF/XML", "json-ld": "JSON-LD", "trig": "TriG", "nquads": "N-Quads",
    "predicate-names": "predicate names",
}
"""What each format (:attr:`Input.format`) is called in the "not a <format> file" error."""

FREEBASE_NS = "http://rdf.freebase.com/ns/"
DEFAULT_NAMESPACES: dict[str, str] = {
    FREEBASE_NS: "",
    "http://www.wikidata.org/entity/": "",
    "http://www.wikidata.org/prop/direct/": "",
}
"""IRI prefix -> replacement used to turn IRIs into ids (``m.0abc``, ``Q42``, ``P57``)."""

DROPPED_PREFIX = "dropped_"
"""Stager count keys ``dropped_<reason>``: lines dropped (filtered) for that reason."""
PREDICATE_PREFIX = "by_predicate:"
"""Stager count keys ``by_predicate:<id>``: kept triples of that predicate."""
_MANIFEST_PREDICATES = 1000  # per-predicate counts kept in a stage's manifest


# -- options -----------------------------------------------------------------------------
@dataclass(frozen=True)
class LoadOptions:
    """Settings shared by every loader (each format reads the ones it understands).

    ``langs``: accepted language tags for names, aliases, descriptions (and, for
    Freebase, any language-tagged literal), lower-case, in order of preference;
    untagged literals are always accepted; ``None`` accepts every language.
    ``namespaces``: IRI prefix -> id prefix, the *effective* map (defaults included;
    :meth:`with_namespaces` extends the defaults). ``keep_predicates`` /
    ``drop_predicates``: predicate id patterns (``*`` and ``?`` wildcards, e.g.
    ``user.*``, ``*.display_name``) applied before the format's default filter: a
    predicate matching a keep pattern is never dropped, else one matching a drop
    pattern is dropped (reason ``option``), else the format's defaults decide
    (``default_filter=False`` turns those off). ``qualifiers``: Wikidata statement
    qualifiers become statement (CVT) nodes. ``nameless_is_cvt``: passed to
    ``Store.import_stage``: ``True``/``False`` force it; ``None`` lets the format decide
    (its stager's ``nameless_is_cvt`` attribute; ``"auto"`` there means: only when no
    file of the load declared mediator types). ``unfold`` / ``reverse_properties``:
    tab-separated triples in FB15k-237's layout get Freebase's (mediator nodes for
    folded relations, reverse facts; :mod:`loaders.unfold`). ``top_n``: predicates kept
    in reports.
    ``bnode_scope`` is set per file by :func:`run_load` (blank node labels are scoped
    to their file).
    """

    langs: tuple[str, ...] | None = ("en",)
    namespaces: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_NAMESPACES))
    keep_predicates: tuple[str, ...] = ()
    drop_predicates: tuple[str, ...] = ()
    default_filter: bool = True
    qualifiers: bool = False
    nameless_is_cvt: bool | None = None
    unfold: bool = True
    reverse_properties: bool = False
    top_n: int = 20
    bnode_scope: str = ""

    def __post_init__(self) -> None:
        if self.langs is not None:
            langs = tuple(dict.fromkeys(x.strip().lower() for x in self.langs if x.strip()))
            object.__setattr__(self, "langs", langs)
        object.__setattr__(self, "keep_predicates", tuple(self.keep_predicates))
        object.__setattr__(self, "drop_predicates", tuple(self.drop_predicates))

    def with_namespaces(self, extra: Mapping[str, str] | None) -> LoadOptions:
        """These options with ``extra`` prefixes added to (or overriding) the current map."""
        return replace(self, namespaces={**self.namespaces, **(extra or {})})

    def stage_key(self) -> list[Any]:
        """What a stage's content depends on (import-time settings left out)."""
        return [None if self.langs is None else list(self.langs),
                sorted(self.namespaces.items()), list(self.keep_predicates),
                list(self.drop_predicates), self.default_filter, self.qualifiers,
                self.unfold, self.reverse_properties]


class Stager(Protocol):
    """Streams one file into a stage; see the module docstring for the contract."""

    def __call__(self, path: Path, writer: StageWriter, report: ParseReport, *,
                 options: LoadOptions, strict: bool,
                 progress: ProgressCallback | None) -> dict[str, int]: ...


@dataclass(frozen=True, slots=True)
class Input:
    """One file to load and its format name (as recorded in the source record).
    ``nameless_is_cvt`` overrides the options/stager default for this file."""

    path: Path
    format: str
    nameless_is_cvt: bool | None = None


# -- reports -----------------------------------------------------------------------------
@dataclass(slots=True)
class FileReport:
    """What loading one file did. ``mapped`` holds the stager's mapping counts (facts,
    names, ...), ``dropped`` lines dropped by reason, ``predicates`` the kept triples
    of the top ``top_n`` predicates (most frequent first), ``bytes`` the file's size
    on disk, ``import_report`` the store's answer; ``reused_stage`` says the file was
    not parsed again (a kept stage was imported); ``notes`` are remarks for the user
    (a kept stage that failed its checksums and was staged again)."""

    path: str
    format: str
    checksum: str = ""
    bytes: int = 0
    lines: int = 0
    triples: int = 0
    malformed: int = 0
    examples: list[tuple[str, int, str]] = field(default_factory=list)
    mapped: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    predicates: dict[str, int] = field(default_factory=dict)
    import_report: ImportReport | None = None
    seconds: float = 0.0
    parse_seconds: float = 0.0
    reused_stage: bool = False
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The counts stored in the file's source record."""
        out = {"lines": self.lines, "triples": self.triples, "malformed": self.malformed}
        out.update(self.mapped)
        for reason, n in self.dropped.items():
            out[DROPPED_PREFIX + reason] = n
        if self.import_report is not None:
            for f in fields(ImportReport):
                value = getattr(self.import_report, f.name)
                if isinstance(value, int):
                    out[f.name] = value
        return out


@dataclass(slots=True)
class LoadReport:
    """The result of a load: one :class:`FileReport` per input (in import order), the
    summed :class:`ImportReport`, and the total wall time."""

    files: list[FileReport] = field(default_factory=list)
    import_report: ImportReport = field(default_factory=ImportReport)
    seconds: float = 0.0
    top_n: int = 20

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def triples(self) -> int:
        return sum(f.triples for f in self.files)

    @property
    def malformed(self) -> int:
        return sum(f.malformed for f in self.files)

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.files)

    @property
    def notes(self) -> list[str]:
        """The notes of every file, in load order."""
        return [n for f in self.files for n in f.notes]

    @property
    def examples(self) -> list[tuple[str, int, str]]:
        """The first malformed-line examples over all files."""
        return [e for f in self.files for e in f.examples][:MAX_EXAMPLES]

    @property
    def dropped(self) -> dict[str, int]:
        """Dropped lines by reason over all files, most frequent first."""
        total: dict[str, int] = {}
        for f in self.files:
            for reason, n in f.dropped.items():
                total[reason] = total.get(reason, 0) + n
        return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def predicates(self) -> dict[str, int]:
        """Kept triples of the top predicates over all files (from each file's top N)."""
        total: dict[str, int] = {}
        for f in self.files:
            for pred, n in f.predicates.items():
                total[pred] = total.get(pred, 0) + n
        return top_counts(total, self.top_n)

    def summary(self) -> dict[str, Any]:
        """Totals for people and programs (the CLI prints and writes this)."""
        imp = self.import_report
        return {
            "files": len(self.files),
            "bytes": self.bytes,
            "lines": self.lines,
            "triples": self.triples,
            "malformed": self.malformed,
            "malformed_examples": [list(e) for e in self.examples],
            "dropped": self.dropped,
            "dropped_total": sum(self.dropped.values()),
            "top_predicates": self.predicates,
            "facts_new": imp.facts_new,
            "facts_duplicate": imp.facts_duplicate,
            "entities_new": imp.entities_new,
            "entities_updated": imp.entities_updated,
            "names_replaced": imp.names_replaced,
            "literals_new": imp.literals_new,
            "predicates_new": imp.predicates_new,
            "seconds": self.seconds,
            "notes": self.notes,
        }


def top_counts(counts: Mapping[str, int], n: int) -> dict[str, int]:
    """The ``n`` largest counts, largest first (ties by key)."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return dict(ranked[:max(n, 0)])


def add_import_reports(total: ImportReport, part: ImportReport) -> None:
    for f in fields(ImportReport):
        if f.name == "steps":
            for step, secs in part.steps.items():
                total.steps[step] = round(total.steps.get(step, 0.0) + secs, 3)
        else:
            setattr(total, f.name, getattr(total, f.name) + getattr(part, f.name))
    total.seconds = round(total.seconds, 3)


def split_counts(counts: Mapping[str, int], top_n: int
                 ) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """A stager's counts as ``(mapped, dropped by reason, top predicates)``."""
    mapped: dict[str, int] = {}
    dropped: dict[str, int] = {}
    preds: dict[str, int] = {}
    for key, value in counts.items():
        if key.startswith(PREDICATE_PREFIX):
            preds[key[len(PREDICATE_PREFIX):]] = int(value)
        elif key.startswith(DROPPED_PREFIX):
            if value:
                dropped[key[len(DROPPED_PREFIX):]] = int(value)
        else:
            mapped[key] = int(value)
    dropped = dict(sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])))
    return mapped, dropped, top_counts(preds, top_n)


# -- loading -----------------------------------------------------------------------------
StagerLookup = Callable[[str], Stager] | Mapping[str, Stager]


def run_load(
    store: Store,
    inputs: Sequence[Input | tuple[str | Path, str]],
    *,
    stager_for_format: StagerLookup,
    options: LoadOptions | None = None,
    strict: bool = False,
    progress: ProgressCallback | None = None,
) -> LoadReport:
    """Stage every input with its format's stager, then import the stages in order;
    see the module docstring. A file listed twice (same path) loads once.

    Raises :class:`InputFileError` for a missing or unreadable input (before reading
    any), whatever a stager raises (:class:`MalformedInputError` in strict mode,
    :class:`InputFileError` for corrupt data, :class:`UnsupportedFormatError`), all
    with the store unchanged, and whatever an import raises (the stages not imported
    yet are kept for the next run).
    """
    started = time.perf_counter()
    opts = options or LoadOptions()
    plan: list[Input] = []
    seen: set[Path] = set()
    for given in inputs:
        inp = given if isinstance(given, Input) else Input(Path(given[0]), given[1])
        inp = replace(inp, path=Path(inp.path))
        if inp.path in seen:
            continue
        seen.add(inp.path)
        plan.append(inp)
    for inp in plan:
        check_readable(inp.path)
    lookup = stager_for_format
    stagers = [lookup[inp.format] if isinstance(lookup, Mapping) else lookup(inp.format)
               for inp in plan]
    staged: list[_Staged] = []
    try:
        for inp, stager in zip(plan, stagers, strict=True):
            staged.append(_prepare(store, inp, stager, opts, strict, progress,
                                   taken={item.stage for item in staged}))
    except BaseException:
        for item in staged:
            item.discard()
        raise
    any_mediators = any(item.report.mapped.get("cvt_types", 0) for item in staged)
    report = LoadReport(top_n=opts.top_n)
    for i, item in enumerate(staged):
        nameless = _nameless_is_cvt(item, opts, any_mediators)
        try:
            _import(store, item, nameless, progress)
        except BaseException:
            for later in staged[i + 1:]:
                later.discard()
            raise
        report.files.append(item.report)
        if item.report.import_report is not None:
            add_import_reports(report.import_report, item.report.import_report)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _nameless_is_cvt(item: _Staged, options: LoadOptions, any_mediators: bool) -> bool:
    choice: Any = item.input.nameless_is_cvt
    if choice is None:
        choice = options.nameless_is_cvt
    if choice is None:
        choice = getattr(item.stager, "nameless_is_cvt", False)
    if choice == "auto":
        return not any_mediators
    return bool(choice)


@dataclass(slots=True)
class _Staged:
    """A staged file waiting for import. ``temp_root`` is a temporary directory to
    remove afterwards; None means the stage lives in the store and is kept on failure.
    ``restage`` stages the file again (into ``stage``)."""

    input: Input
    stager: Stager
    stage: Path
    temp_root: Path | None
    report: FileReport
    started: float
    restage: Callable[[], None] = lambda: None

    def discard(self) -> None:
        """Remove what the import will not use: temporary stages only (a complete
        stage in the store is kept for the next run to reuse)."""
        if self.temp_root is not None:
            shutil.rmtree(self.temp_root, ignore_errors=True)


def check_readable(path: Path) -> None:
    """Raise :class:`InputFileError` unless ``path`` is an existing, readable regular
    file (a FIFO or a device is refused: :func:`loaders.input_file.open_input`)."""
    if not path.exists():
        raise InputFileError(path, "file not found; check the path")
    if path.is_dir():
        raise InputFileError(path, "is a directory; pass the files inside it")
    try:
        check_input_file(path)
    except PermissionError:
        raise InputFileError(path, "permission denied; check the file's permissions") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot open ({exc.strerror or exc})") from None


def readable_inputs(paths: Iterable[str | Path]) -> list[Path]:
    """``paths`` as :class:`~pathlib.Path`, each once in the order given (a file listed
    twice loads once), every one checked by :func:`check_readable` before any is read."""
    inputs = list(dict.fromkeys(Path(p) for p in paths))
    for path in inputs:
        check_readable(path)
    return inputs


def now_iso() -> str:
    """ISO-8601 UTC time; microseconds so the records of one load sort in load order."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds")


def stage_location(
    store: Store, path: Path, checksum: str, taken: set[Path]
) -> tuple[Path, Path | None]:
    """Where to stage ``path``: ``(stage_dir, temp_root)``. In the store's own staging
    folder where its backend keeps one (:meth:`~kgstore.store.Store.staging_dir`;
    ``temp_root`` None: kept after a failed import so a re-run can reuse it), else in a
    fresh temporary directory ``temp_root`` that is always removed. The name is derived
    from the file name and content (so a re-run finds it), avoiding the directories in
    ``taken`` (files with the same name and content in one load)."""
    staging = store.staging_dir()
    if staging is not None:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", path.name)
        stage = staging / f"{safe}-{checksum[:12]}"
        n = 1
        while stage in taken:
            n += 1
            stage = staging / f"{safe}-{checksum[:12]}-{n}"
        return stage, None
    root = Path(tempfile.mkdtemp(prefix="kgbench-stage-"))
    return root / "stage", root


def _stage_key(fmt: str, stager: Stager, checksum: str, options: LoadOptions) -> str:
    """Identifies what a stage holds: the same key means the same records."""
    blob = json.dumps([PIPELINE_VERSION, fmt, getattr(stager, "stage_version", 0), checksum,
                       options.stage_key()])
    return hashlib.sha256(blob.encode()).hexdigest()


def _reusable(stage: Path, key: str) -> dict[str, Any] | None:
    """The ``extra`` of a complete stage made with ``key``, else None."""
    try:
        extra = read_manifest(stage).get("extra", {})
    except (StagingError, OSError, ValueError):  # absent, incomplete or unreadable
        return None
    return extra if isinstance(extra, dict) and extra.get("key") == key else None


def _prepare(store: Store, inp: Input, stager: Stager, options: LoadOptions, strict: bool,
             progress: ProgressCallback | None, taken: set[Path]) -> _Staged:
    """Phase 1 for one file: checksum and stage it (or find a kept stage of the same
    content and settings). Writes nothing to the store."""
    started = time.perf_counter()
    path = inp.path
    checksum = file_checksum(path, progress=progress)
    report = FileReport(path=str(path), format=inp.format, checksum=checksum,
                        bytes=path.stat().st_size)
    stage, temp_root = stage_location(store, path, checksum, taken)
    key = _stage_key(inp.format, stager, checksum, options)

    def restage() -> None:
        try:
            _stage_file(stage, path, stager, report, key=key, strict=strict,
                        progress=progress, options=replace(options, bnode_scope=checksum[:8]),
                        expected=FORMAT_LABELS.get(inp.format, inp.format))
        except BaseException as exc:
            shutil.rmtree(temp_root or stage, ignore_errors=True)  # incomplete: useless
            if temp_root is None:
                with contextlib.suppress(OSError):
                    stage.parent.rmdir()  # staging/ itself, when nothing else is kept
            full = disk_full_error(exc, stage) if isinstance(exc, Exception) else None
            if full is None or full is exc:
                raise
            raise full from exc

    staged = _Staged(inp, stager, stage, temp_root, report, started, restage)
    extra = _reusable(stage, key) if temp_root is None else None
    if extra is not None:
        problem = verify_stage(stage)
        if problem is None:
            _restore(report, extra, options.top_n)
            report.reused_stage = True
            return staged
        _note(report, progress, f"staging {path.name} again: its kept stage cannot be "
                                f"trusted ({problem}; {stage})")
    restage()
    report.parse_seconds = round(time.perf_counter() - started, 3)
    return staged


def _note(report: FileReport, progress: ProgressCallback | None, text: str) -> None:
    """Tell the user ``text``: in the file's report, and now through ``progress``."""
    report.notes.append(text)
    if progress is not None:
        progress(f"note: {text}", 1, 1)


def _stage_file(stage: Path, path: Path, stager: Stager, report: FileReport, *, key: str,
                strict: bool, progress: ProgressCallback | None,
                options: LoadOptions, expected: str) -> None:
    """Run ``stager`` into a complete stage at ``stage``, filling ``report``; a file
    that is mostly malformed (not ``expected``) raises instead."""
    parsed = ParseReport(expected=expected)
    writer = StageWriter(stage)
    counts: dict[str, int] = {}
    try:
        counts = stager(path, writer, parsed, options=options, strict=strict,
                        progress=progress)
        parsed.check_format(path)
    finally:
        report.lines, report.triples = parsed.lines, parsed.triples
        report.malformed, report.examples = parsed.malformed, list(parsed.examples)
    report.mapped, report.dropped, kept = split_counts(counts, max(options.top_n,
                                                                  _MANIFEST_PREDICATES))
    report.predicates = top_counts(kept, options.top_n)
    writer.close(extra={"key": key, "file": str(path), "lines": report.lines,
                        "triples": report.triples, "malformed": report.malformed,
                        "examples": report.examples, "mapped": report.mapped,
                        "dropped": report.dropped, "predicates": kept})


def _restore(report: FileReport, extra: dict[str, Any], top_n: int) -> None:
    """Fill ``report``'s parse counts from a kept stage's manifest."""
    report.lines = int(extra.get("lines", 0))
    report.triples = int(extra.get("triples", 0))
    report.malformed = int(extra.get("malformed", 0))
    report.examples = [(str(p), int(n), str(r)) for p, n, r in extra.get("examples", [])]
    report.mapped = {str(k): int(v) for k, v in extra.get("mapped", {}).items()}
    report.dropped = {str(k): int(v) for k, v in extra.get("dropped", {}).items()}
    report.predicates = top_counts(
        {str(k): int(v) for k, v in extra.get("predicates", {}).items()}, top_n)


def _import(store: Store, staged: _Staged, nameless_is_cvt: bool,
            progress: ProgressCallback | None) -> None:
    """Phase 2 for one file: record it as loading, import its stage, record it as
    complete with its counts, and remove the stage."""
    report = staged.report
    # The parts are read by the import: check them right before, as a stage may have
    # waited while other files staged.
    problem = verify_stage(staged.stage)
    if problem is not None:
        _note(report, progress, f"staging {staged.input.path.name} again: its stage "
                                f"changed since it was written ({problem}; {staged.stage})")
        report.reused_stage = False
        staged.restage()
    record = SourceRecord(file=str(staged.input.path.resolve()), checksum=report.checksum,
                          format=report.format, counts={}, loaded_at=now_iso(),
                          status="loading")
    earlier = recorded_counts(store, record)
    store.record_source(replace(record, counts=earlier))  # kept should this import die
    try:
        report.import_report = store.import_stage(
            staged.stage, nameless_is_cvt=nameless_is_cvt, progress=progress)
    except BaseException:
        staged.discard()
        raise
    report.seconds = round(time.perf_counter() - staged.started, 3)
    store.record_source(replace(record, status="complete", loaded_at=now_iso(),
                                counts=add_store_changes(report.counts(), earlier)))
    # The source is complete: only now is the stage useless.
    if staged.temp_root is not None:
        shutil.rmtree(staged.temp_root, ignore_errors=True)
    else:
        shutil.rmtree(staged.stage, ignore_errors=True)
        with contextlib.suppress(OSError):
            staged.stage.parent.rmdir()  # staging/ itself, once empty


def recorded_counts(store: Store, record: SourceRecord) -> dict[str, int]:
    """The counts the store already holds for ``record``'s source (same file and
    checksum; empty when it was never recorded, or only as an interrupted first load)."""
    for old in store.sources():
        if old.file == record.file and old.checksum == record.checksum:
            return dict(old.counts)
    return {}


def add_store_changes(counts: dict[str, int], earlier: Mapping[str, int]) -> dict[str, int]:
    """``counts`` of an import with the store changes (:class:`ImportReport`'s counts)
    that ``earlier`` imports of the same source recorded added in."""
    out = dict(counts)
    for f in fields(ImportReport):
        if f.name in earlier and f.name not in ("seconds", "steps"):
            out[f.name] = int(earlier[f.name]) + int(out.get(f.name, 0))
    return out
