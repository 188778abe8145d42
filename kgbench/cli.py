"""The ``kgbench`` command line: load knowledge graphs into a store and explore them.

Every query command prints tables for people and, with ``--json``, exactly one JSON
document on stdout for programs (progress and notes always go to stderr). Errors from
the store and the loaders are turned into one red ``Error: ...`` line plus a hint by
:func:`main` (exit 1; usage errors exit 2), never a traceback.

Read-only commands open the store with ``read_only=True`` so they cannot modify it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from kgstore import (
    Entity,
    Fact,
    FactPath,
    IncompatibleStoreError,
    Literal,
    QueryError,
    ReadOnlyQueryError,
    Store,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
    Subgraph,
    open_store,
    to_jsonable,
)
from loaders.errors import InputFileError, LoaderError, MalformedInputError

if TYPE_CHECKING:  # imported lazily at run time: only `load` and `demo` need it
    from collections.abc import Callable

    from extension.questions import ParsedQuestion
    from kgstore import StoreStats
    from kgstore.store import ProgressCallback
    from loaders.pipeline import LoadOptions, LoadReport

    LoadFunction = Callable[[Store, ProgressCallback | None], LoadReport]
    """``load(store, progress)``: runs one loader (what :func:`run_load_command` wraps)."""

DEFAULT_STORE = Path("kgbench-data/store")
DEMO_STORE = Path("kgbench-data/demo-store")
STORE_ENV = "KGBENCH_STORE"
SOURCE_COUNTS = ("lines", "triples", "malformed", "facts_new", "entities_new")
"""Counts of a source record shown by `kgbench stats` (--json has them all)."""

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


# ----------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------


class CliError(Exception):
    """An error the CLI itself detects (nothing matched, ambiguous name, ...)."""

    def __init__(self, message: str, hint: str | None = None, *, code: int = 1) -> None:
        super().__init__(message)
        self.hint = hint
        self.code = code


_HINTS: list[tuple[type[BaseException], str | None]] = [
    (MalformedInputError,
     "nothing was loaded; fix that line, or drop --strict to skip malformed lines "
     "(they are counted and listed in the summary)"),
    (InputFileError, None),
    (LoaderError, None),
    (StoreNotFoundError,
     "build a store first with `kgbench load triples FILE...`, or run `kgbench demo` "
     "for a ready-made one; --store / $KGBENCH_STORE choose which store is used"),
    (StoreLockedError,
     "another kgbench process (a load?) has this store open for writing; only one "
     "writer at a time"),
    (IncompatibleStoreError, None),
    (ReadOnlyQueryError,
     "`kgbench cypher` only reads; change a store by loading data with `kgbench load`"),
    (QueryError,
     "check the query syntax; `kgbench cypher --help` shows the graph schema"),
    (StoreError, None),
]
_ENGINE_ERRORS = (
    ("extension.generate", "GenerateError"),
    ("extension.llm", "LLMError"),   # messages name the endpoint, what to check, and that a rerun resumes
)
"""Errors of the engine, whose messages say what to do. Looked up by name: the engine
is imported only by the commands that run it (which keeps the others quick), and an
error of a module that was never imported cannot have been raised."""


def _error_hints() -> list[tuple[type[BaseException], str | None]]:
    engine = [(getattr(sys.modules[module], name), None) for module, name in _ENGINE_ERRORS
              if module in sys.modules]
    return [*_HINTS, *engine]


def report_error(exc: BaseException) -> int | None:
    """Print ``Error: ...`` (+ hint) on stderr for our own exceptions and return the
    exit code; ``None`` for anything else (a bug: let the traceback show)."""
    if isinstance(exc, CliError):
        _print_error(str(exc), exc.hint)
        return exc.code
    for kind, hint in _error_hints():
        if isinstance(exc, kind):
            message = str(exc)
            if isinstance(exc, QueryError) and not message.lower().startswith("invalid"):
                message = f"the Cypher query failed: {message}"
            _print_error(message, hint)
            return 1
    return None


def _print_error(message: str, hint: str | None) -> None:
    lines = message.strip().splitlines() or ["unknown error"]
    # soft_wrap: one logical line stays one line (greppable), whatever the width.
    err.print(f"[bold red]Error:[/] {escape(lines[0])}", soft_wrap=True)
    for line in lines[1:]:
        err.print(f"  {escape(line)}", soft_wrap=True)
    if hint:
        err.print(f"[dim]hint: {escape(hint)}[/]", soft_wrap=True)


# ----------------------------------------------------------------------------------
# App, global options, shared helpers
# ----------------------------------------------------------------------------------

app = typer.Typer(
    name="kgbench",
    help=(
        "kgbench turns knowledge graphs into benchmarks for attributed question "
        "answering.\n\n"
        "Load a KG into a local store, then explore it: stats, entity, neighbors, "
        "paths, search, predicates, cypher. New here? Run `kgbench demo`."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
load_app = typer.Typer(
    help=(
        "Load a knowledge graph into the store (created if missing).\n\n"
        "Example: kgbench load triples facts.tsv --names names.tsv"
    ),
    no_args_is_help=True,
)
app.add_typer(load_app, name="load")


@dataclass(slots=True)
class State:
    store: Path
    explicit: bool  # --store given on the command line (not env/default)


@app.callback()
def _root(
    ctx: typer.Context,
    store: Annotated[
        Path,
        typer.Option(
            "--store", envvar=STORE_ENV, metavar="PATH",
            help="Store directory (created by `kgbench load`).",
        ),
    ] = DEFAULT_STORE,
) -> None:
    """kgbench turns knowledge graphs into benchmarks for attributed question answering."""
    source = ctx.get_parameter_source("store")
    # Compared by name: the enum lives in click (vendored privately by newer Typer).
    ctx.obj = State(store=store, explicit=getattr(source, "name", "") == "COMMANDLINE")


StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store", metavar="PATH", show_default=False,
        help=f"Store directory; overrides the global --store / ${STORE_ENV} "
        f"(default {DEFAULT_STORE}).",
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")
]


def _store_path(ctx: typer.Context, store: Path | None) -> Path:
    if store is not None:
        return store
    state = ctx.obj if isinstance(ctx.obj, State) else None
    return state.store if state else Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


@contextmanager
def _reading(ctx: typer.Context, store: Path | None) -> Iterator[Store]:
    """The store opened read-only (several readers may share it; nothing is changed)."""
    with open_store(_store_path(ctx, store), read_only=True) as s:
        yield s


def _emit_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(doc), ensure_ascii=False, indent=2, default=str))
    sys.stdout.write("\n")
    sys.stdout.flush()


def _note(message: str) -> None:
    """Informational line on stderr (keeps stdout clean for --json)."""
    err.print(f"[dim]{escape(message)}[/]", soft_wrap=True)


def _label(entity: Entity | None, id: str) -> str:
    if entity is None:
        return id
    if entity.is_cvt and not entity.name:
        return f"(CVT {id})"
    return entity.name or id


class Labels:
    """Entity id -> display label, fetched in one batch through ``store.entities``."""

    def __init__(self, store: Store, ids: Iterable[str] = ()) -> None:
        self.store = store
        self.entities: dict[str, Entity] = {}
        self.add(ids)

    def add(self, ids: Iterable[str]) -> None:
        missing = [i for i in dict.fromkeys(ids) if i not in self.entities]
        if missing:
            self.entities.update(self.store.entities(missing))

    def add_facts(self, facts: Iterable[Fact]) -> None:
        ids: list[str] = []
        for f in facts:
            ids.append(f.subject)
            if isinstance(f.object, str):
                ids.append(f.object)
        self.add(ids)

    def __call__(self, id: str) -> str:
        return _label(self.entities.get(id), id)

    def with_id(self, id: str) -> str:
        lab = self(id)
        return lab if lab.startswith("(CVT") or lab == id else f"{lab} ({id})"

    def obj(self, o: str | Literal) -> str:
        return str(o) if isinstance(o, Literal) else self.with_id(o)

    def json(self) -> dict[str, str | None]:
        return {i: e.name for i, e in self.entities.items()}


def _fact_line(f: Fact, labels: Labels) -> Text:
    text = Text()
    text.append(labels.with_id(f.subject), style="cyan")
    text.append(f" —{f.predicate}→ ", style="magenta")
    text.append(labels.obj(f.object), style="green" if f.is_literal else "cyan")
    return text


def _entity_table(entities: Sequence[Entity], title: str | None = None) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("id", style="cyan", no_wrap=True)
    table.add_column("name")
    table.add_column("types", style="dim")
    for e in entities:
        types = ", ".join(e.types[:3]) + (f" +{len(e.types) - 3}" if len(e.types) > 3 else "")
        table.add_row(escape(e.id), escape(_label(e, e.id)), escape(types))
    return table


def _resolve(store: Store, text: str, what: str = "entity") -> Entity:
    """An entity by exact id, else by unambiguous name (several: exit 2, list them)."""
    entity = store.entity(text)
    if entity is not None:
        return entity
    matches = store.find_by_name(text, limit=20)
    if len(matches) == 1:
        _note(f"'{text}' is the name of {matches[0].id}")
        return matches[0]
    if matches:
        err.print(_entity_table(matches, title=f"'{text}' names {len(matches)} entities"))
        raise CliError(
            f"'{text}' is ambiguous: it names {len(matches)} entities",
            f"pass one of the ids above as the {what}", code=2,
        )
    raise CliError(
        f"no entity with id or name '{text}'",
        f'find candidates with `kgbench search "{text[:12]}"`',
    )


# ----------------------------------------------------------------------------------
# load
# ----------------------------------------------------------------------------------


def _bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


class CountColumn(ProgressColumn):
    """``done/total`` in the task's unit (bytes while parsing, steps while importing)."""

    def render(self, task: Task) -> Text:
        fmt = _bytes if task.fields.get("unit") == "bytes" else (lambda n: f"{n:,.0f}")
        total = f"/{fmt(task.total)}" if task.total is not None else ""
        return Text(f"{fmt(task.completed)}{total}", style="progress.download")


class RateColumn(ProgressColumn):
    """Throughput of a task (bytes/s while parsing); blank for step counters."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed or task.fields.get("unit") != "bytes":
            return Text("", style="progress.data.speed")
        return Text(f"{_bytes(speed)}/s", style="progress.data.speed")


class ProgressReporter:
    """Adapts the loaders' ``progress(description, done, total)`` callback to a rich
    progress display: one bar per phase (``"import: entities"`` and ``"import: facts"``
    are the same phase, the text before the first ``:``), earlier phases completed."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}
        self.current: str | None = None

    @staticmethod
    def _key(description: str) -> str:
        # "parsing FILE | 1,234 lines, ..." : live stats after " | " keep one bar.
        description = description.partition(" | ")[0]
        head, sep, _ = description.partition(": ")
        return head if sep and len(head) <= 24 else description

    def __call__(self, description: str, done: int, total: int | None) -> None:
        key = self._key(description)
        if key != self.current:
            self.finish()
            self.current = key
        task = self.tasks.get(key)
        if task is None:
            unit = "bytes" if description.startswith(("parsing", "reading")) else "steps"
            task = self.progress.add_task(escape(description), total=total, unit=unit)
            self.tasks[key] = task
        self.progress.update(task, completed=done, total=total, description=escape(description))

    def finish(self) -> None:
        if self.current is None:
            return
        task_id = self.tasks[self.current]
        task = next(t for t in self.progress.tasks if t.id == task_id)
        total = task.total if task.total is not None else task.completed
        self.progress.update(task_id, total=total, completed=total)


def _progress() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        CountColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )


def _check_inputs(paths: Sequence[Path]) -> None:
    """Fail before touching the store when an input cannot be read at all."""
    for p in paths:
        if not p.exists():
            raise InputFileError(p, "file not found; check the path")
        if p.is_dir():
            raise InputFileError(p, "is a directory; pass the files inside it")
        if not os.access(p, os.R_OK):
            raise InputFileError(p, "permission denied; check the file's permissions")


def run_load_command(store_path: Path, inputs: Sequence[Path], load: LoadFunction, *,
                     force: bool, quiet: bool = False) -> LoadReport:
    """What every ``kgbench load <format>`` command does around its loader: check the
    inputs, with ``force`` delete the old store, open (or create) the store, run
    ``load(store, progress)`` under a progress display (bytes read of total, rate,
    lines/s, ETA; none when ``quiet``), and when parsing fails (strict mode, corrupt or
    wrong-format data) remove a store this command created, so nothing is left behind.
    Errors propagate to :func:`main`, which prints them (see :func:`report_error`)."""
    from kgstore.ladybug_store import MARKER, remove_store

    _check_inputs(inputs)
    if force and (store_path / MARKER).exists():
        remove_store(store_path)
        if not quiet:
            _note(f"removed the old store at {store_path}")
    created = not (store_path / MARKER).exists()
    try:
        with open_store(store_path, create=True) as store:
            if quiet:
                return load(store, None)
            with _progress() as progress:
                reporter = ProgressReporter(progress)
                report = load(store, reporter)
                reporter.finish()
            return report
    except LoaderError:
        # Parse-phase failures (strict mode, unreadable data) import nothing: do not
        # leave behind an empty store that this command created.
        if created and (store_path / MARKER).exists():
            remove_store(store_path)
        raise


def _run_load(store_path: Path, files: Sequence[Path], *, names: Path | None, strict: bool,
              force: bool, quiet: bool = False) -> LoadReport:
    """``load triples``: :func:`run_load_command` with :func:`loaders.triples.load_triples`."""
    from loaders.triples import load_triples

    def load(store: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_triples(store, list(files), names=names, strict=strict, progress=progress)

    return run_load_command(store_path, [*files, *([names] if names else [])], load,
                            force=force, quiet=quiet)


def print_load_summary(report: LoadReport, store_path: Path, *,
                       totals: StoreStats | None = None) -> None:
    """The tables every ``load`` command prints: per file (size, lines, triples, kept
    facts, dropped, malformed), the store change, dropped lines by reason, the top
    predicates, the first malformed lines as ``file:line: reason``, and the store."""
    table = Table(title="Loaded", box=box.SIMPLE_HEAD, title_justify="left")
    longest = max((len(f.path) for f in report.files), default=10)
    table.add_column("file", overflow="fold", min_width=min(36, longest))
    table.add_column("format")
    show_bytes = any(f.bytes for f in report.files)
    show_dropped = any(f.dropped for f in report.files)
    if show_bytes:
        table.add_column("size", justify="right")
    for col in ("lines", "triples"):
        table.add_column(col, justify="right")
    if show_dropped:
        table.add_column("dropped", justify="right")
    table.add_column("malformed", justify="right")
    for f in report.files:
        row = [escape(f.path), f.format + (" (reused stage)" if f.reused_stage else "")]
        if show_bytes:
            row.append(_bytes(f.bytes))
        row += [f"{f.lines:,}", f"{f.triples:,}"]
        if show_dropped:
            row.append(f"{sum(f.dropped.values()):,}")
        row.append(f"[yellow]{f.malformed:,}[/]" if f.malformed else "0")
        table.add_row(*row)
    out.print(table)
    imp = report.import_report
    summary = Table(box=box.SIMPLE_HEAD)
    summary.add_column("store change")
    summary.add_column("count", justify="right")
    for label, value in (
        ("entities new", imp.entities_new), ("entities updated", imp.entities_updated),
        ("placeholder entities", imp.entities_placeholder), ("literals new", imp.literals_new),
        ("facts new", imp.facts_new), ("facts duplicate", imp.facts_duplicate),
        ("predicates new", imp.predicates_new),
    ):
        summary.add_row(label, f"{value:,}")
    if totals is not None:
        summary.add_row("[dim]store: entities / literals / facts[/]",
                        f"[dim]{totals.entities:,} / {totals.literals:,} / {totals.facts:,}[/]")
    summary.add_row("seconds", f"{report.seconds:.1f}")
    if report.lines and report.seconds:
        summary.add_row("lines/s", f"{report.lines / report.seconds:,.0f}")
    out.print(summary)
    dropped = report.dropped
    if dropped:
        out.print("[italic]Dropped lines by reason[/]")
        dt = Table(box=box.SIMPLE_HEAD)
        dt.add_column("reason")
        dt.add_column("lines", justify="right")
        for reason, n in dropped.items():
            dt.add_row(escape(reason), f"{n:,}")
        out.print(dt)
    preds = report.predicates
    if preds:
        out.print(f"[italic]Top {len(preds)} predicates (kept lines)[/]")
        pt = Table(box=box.SIMPLE_HEAD)
        pt.add_column("predicate", overflow="fold")
        pt.add_column("lines", justify="right")
        for pred, n in preds.items():
            pt.add_row(escape(pred), f"{n:,}")
        out.print(pt)
    if report.malformed:
        out.print(f"[yellow]{report.malformed:,} malformed line(s) skipped[/]; first ones:")
        for path, line, reason in report.examples[:10]:
            out.print(f"  {escape(f'{path}:{line}: {reason}')}", soft_wrap=True)
        out.print("[dim]use --strict to stop at the first malformed line instead[/]")
    out.print(f"[green]store:[/] {escape(str(store_path))}  "
              f"[dim](next: kgbench stats --store {escape(str(store_path))})[/]")


_print_load_summary = print_load_summary  # the name `load triples` used


def load_report_doc(report: LoadReport, store_path: Path, *,
                    totals: StoreStats | None = None) -> dict[str, Any]:
    """The JSON document of a load (``--json`` and ``--report FILE``): the full report,
    ``totals`` (lines, triples, malformed), ``summary`` (:meth:`LoadReport.summary`:
    dropped by reason, top predicates, store changes), malformed examples and the
    store's totals after the load."""
    doc: dict[str, Any] = {
        "store": str(store_path), "report": report,
        "totals": {"lines": report.lines, "triples": report.triples,
                   "malformed": report.malformed},
        "summary": report.summary(),
        "malformed_examples": report.examples,
    }
    if totals is not None:
        doc["store_totals"] = {"entities": totals.entities, "cvt_entities": totals.cvt_entities,
                               "literals": totals.literals, "facts": totals.facts,
                               "predicates": totals.predicates}
    return doc


def finish_load_command(report: LoadReport, store_path: Path, *, as_json: bool,
                        report_file: Path | None = None) -> None:
    """Print a load's result (tables, or one JSON document with ``as_json``) and write
    the JSON document to ``report_file`` when given. Reads the store's totals."""
    totals = None
    with contextlib.suppress(StoreError):
        with open_store(store_path, read_only=True) as s:
            totals = s.stats()
    doc = load_report_doc(report, store_path, totals=totals)
    if report_file is not None:
        report_file.parent.mkdir(parents=True, exist_ok=True)
        report_file.write_text(json.dumps(to_jsonable(doc), ensure_ascii=False, indent=2,
                                          default=str) + "\n", encoding="utf-8")
    if as_json:
        _emit_json(doc)
    else:
        print_load_summary(report, store_path, totals=totals)
        if report_file is not None:
            _note(f"report written to {report_file}")


@load_app.command("triples")
def load_triples_cmd(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="Triple files (.nt/.tsv, optionally .gz/.bz2/.zst).",
                                   show_default=False, metavar="FILE")
    ],
    names: Annotated[
        Path | None, typer.Option("--names", metavar="FILE",
                                  help="Tab-separated id/name file giving entities their names.")
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first malformed line (nothing is loaded).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Delete the store first and rebuild it from these files.")
    ] = False,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load triple files into the store (created if missing).

    Parses N-Triples or tab-separated triples, stages them and merges them into the
    store: loading the same file again adds nothing. Malformed lines are skipped,
    counted and listed (with --strict the first one stops the load and nothing changes).

    Example: kgbench load triples facts.tsv.gz --names names.tsv
    """
    store_path = _store_path(ctx, store)
    report = _run_load(store_path, files, names=names, strict=strict, force=force)
    finish_load_command(report, store_path, as_json=as_json)


# Options shared by the dump loaders (`load freebase`, `load wikidata`, `load rdf`).
LangOpt = Annotated[
    list[str] | None,
    typer.Option("--lang", metavar="LANG",
                 help="Language of names, aliases, descriptions (repeatable, in order of "
                      "preference; default: en). 'all' keeps every language."),
]
KeepOpt = Annotated[
    list[str] | None,
    typer.Option("--keep", metavar="PRED",
                 help="Never drop this predicate (id or pattern with *, e.g. "
                      "'type.type.instance', 'user.*'); repeatable."),
]
DropOpt = Annotated[
    list[str] | None,
    typer.Option("--drop", metavar="PRED",
                 help="Also drop this predicate (id or pattern with *); repeatable."),
]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Stop at the first malformed line (nothing is loaded).")
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Delete the store first and rebuild it from these files.")
]
ReportOpt = Annotated[
    Path | None,
    typer.Option("--report", metavar="FILE.json",
                 help="Also write the load report (counts, dropped, malformed) as JSON."),
]
TopOpt = Annotated[
    int, typer.Option("--top", min=0, help="How many predicates the report lists.")
]
NoDefaultFilterOpt = Annotated[
    bool, typer.Option("--no-default-filter",
                       help="Keep everything the format's default filter would drop.")
]
NamelessCvtOpt = Annotated[
    bool | None,
    typer.Option("--nameless-cvt/--no-nameless-cvt",
                 help="Whether subjects of facts that have no name become CVT (mediator) "
                      "nodes. Default: the format decides (Freebase: only when no file "
                      "declares mediator types; N-Triples: yes).", show_default=False),
]


def load_options(lang: Sequence[str] | None, keep: Sequence[str] | None,
                 drop: Sequence[str] | None, *, top: int = 20,
                 default_filter: bool = True, **extra: Any) -> LoadOptions:
    """:class:`~loaders.pipeline.LoadOptions` from the shared ``load`` options
    (``--lang all`` accepts every language)."""
    from loaders.pipeline import LoadOptions

    langs: tuple[str, ...] | None = tuple(lang) if lang else ("en",)
    if langs is not None and any(x.strip().lower() in ("all", "*") for x in langs):
        langs = None
    for x in langs or ():
        if not x.replace("-", "").isalnum():
            raise typer.BadParameter(f"{x!r} is not a language tag (e.g. en, pt-br)",
                                     param_hint="--lang")
    return LoadOptions(langs=langs, keep_predicates=tuple(keep or ()),
                       drop_predicates=tuple(drop or ()), top_n=top,
                       default_filter=default_filter, **extra)


@load_app.command("freebase")
def load_freebase_cmd(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="Freebase dump files (N-Triples; .gz/.bz2/.zst or plain).",
                                   show_default=False, metavar="PATH")
    ],
    lang: LangOpt = None,
    keep: KeepOpt = None,
    drop: DropOpt = None,
    no_default_filter: NoDefaultFilterOpt = False,
    nameless_cvt: NamelessCvtOpt = None,
    strict: StrictOpt = False,
    force: ForceOpt = False,
    report_file: ReportOpt = None,
    top: TopOpt = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load the Freebase RDF dump (or slices of it) into the store.

    Streams each file through a vectorised parser, keeps names, aliases, types,
    descriptions, facts between entities and literal facts, drops schema and bulky
    non-facts by a default filter (keys, notable_for, type.type.instance, user.*,
    other languages...; see --keep/--drop), detects CVT mediator nodes, and merges
    the result into the store. Interrupted? Run the same command again: it resumes.

    Example: kgbench load freebase freebase-rdf-latest.gz --lang en --report load.json
    """
    from loaders.freebase import load_freebase

    store_path = _store_path(ctx, store)
    options = load_options(lang, keep, drop, top=top, default_filter=not no_default_filter,
                           nameless_is_cvt=nameless_cvt)

    def load(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_freebase(s, files, options=options, strict=strict, progress=progress)

    report = run_load_command(store_path, files, load, force=force)
    finish_load_command(report, store_path, as_json=as_json, report_file=report_file)


@load_app.command("wikidata")
def load_wikidata_cmd(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="Wikidata dumps: JSON (.json, .json.gz, .json.bz2) or "
                                        "truthy N-Triples (.nt, .nt.gz, .nt.bz2).",
                                   show_default=False, metavar="PATH")
    ],
    lang: LangOpt = None,
    qualifiers: Annotated[
        bool, typer.Option("--qualifiers", help="Keep statement qualifiers: a qualified "
                                                "statement becomes a CVT-like statement node.")
    ] = False,
    keep: KeepOpt = None,
    drop: DropOpt = None,
    no_default_filter: NoDefaultFilterOpt = False,
    strict: StrictOpt = False,
    force: ForceOpt = False,
    report_file: ReportOpt = None,
    top: TopOpt = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load a Wikidata dump (JSON entity dump or truthy N-Triples) into the store.

    Keeps items and properties (property labels name the predicates), labels, aliases
    and descriptions in the chosen languages, and the truthy claims (best rank, no
    deprecated) as facts between entities or literal facts (dates, quantities,
    strings, coordinates); P31 gives types. Interrupted? Run the same command again.

    Example: kgbench load wikidata latest-all.json.gz --lang en --qualifiers
    """
    from loaders.wikidata import load_wikidata

    store_path = _store_path(ctx, store)
    options = load_options(lang, keep, drop, top=top, default_filter=not no_default_filter,
                           qualifiers=qualifiers)

    def load(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_wikidata(s, files, options=options, strict=strict, progress=progress)

    report = run_load_command(store_path, files, load, force=force)
    finish_load_command(report, store_path, as_json=as_json, report_file=report_file)


def _size_bytes(text: str) -> int:
    """``"256M"``, ``"2G"``, ``"1048576"`` -> bytes (K/M/G are powers of 1024)."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)i?[bB]?\s*", text)
    if m is None:
        raise typer.BadParameter(f"{text!r} is not a size (e.g. 256M, 2G)",
                                 param_hint="--max-memory-file")
    return int(float(m.group(1)) * 1024 ** " KMG".index(m.group(2).upper() or " "))


@load_app.command("rdf")
def load_rdf_cmd(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="RDF files: N-Triples (.nt, any size) or Turtle, "
                                        "RDF/XML, N3, JSON-LD, TriG, N-Quads (.ttl .rdf .owl "
                                        ".n3 .jsonld .trig .nq); optionally .gz/.bz2/.zst.",
                                   show_default=False, metavar="PATH")
    ],
    ns: Annotated[
        list[str] | None,
        typer.Option("--ns", metavar="PREFIX=IRI",
                     help="Map IRIs starting with IRI to ids 'PREFIX:local' ('=IRI': just "
                          "'local'); repeatable, added to the default map."),
    ] = None,
    ns_file: Annotated[
        Path | None,
        typer.Option("--ns-file", metavar="FILE",
                     help='Namespace map file: JSON {"prefix": "IRI"} or prefix<TAB>IRI lines.'),
    ] = None,
    lang: LangOpt = None,
    keep: KeepOpt = None,
    drop: DropOpt = None,
    max_memory_file: Annotated[
        str, typer.Option("--max-memory-file", metavar="SIZE",
                          help="Largest non-N-Triples file parsed in memory with rdflib "
                               "(decompressed; e.g. 256M, 2G). Convert bigger ones to N-Triples.")
    ] = "256M",
    nameless_cvt: NamelessCvtOpt = None,
    strict: StrictOpt = False,
    force: ForceOpt = False,
    report_file: ReportOpt = None,
    top: TopOpt = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load generic RDF files into the store.

    N-Triples stream at dump scale (W3C-conformant parser, vectorised); other syntaxes
    are parsed in memory with rdflib (graph names of TriG/N-Quads are ignored). Ids
    come from IRIs through a namespace map (defaults: Freebase, Wikidata wd:/wdt: to
    bare ids; rdf: rdfs: skos: schema: owl: p: ps: pq: wds: kept as prefixes); rdfs:label
    gives names, skos:altLabel aliases, rdf:type types, schema:description
    descriptions, everything else facts. Interrupted? Run the same command again.

    Example: kgbench load rdf data.ttl dump.nt.gz --ns ex=http://example.org/ --lang en
    """
    from loaders.rdf import load_rdf, parse_ns, read_ns_file

    store_path = _store_path(ctx, store)
    options = load_options(lang, keep, drop, top=top, nameless_is_cvt=nameless_cvt)
    limit = _size_bytes(max_memory_file)
    namespaces: dict[str, str] = {}
    if ns_file is not None:
        _check_inputs([ns_file])
        namespaces.update(read_ns_file(ns_file))
    for spec in ns or ():
        try:
            iri, prefix = parse_ns(spec)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--ns") from None
        namespaces[iri] = prefix

    def load(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_rdf(s, files, options=options, namespaces=namespaces, strict=strict,
                        progress=progress, max_memory_file=limit)

    report = run_load_command(store_path, files, load, force=force)
    finish_load_command(report, store_path, as_json=as_json, report_file=report_file)


# ----------------------------------------------------------------------------------
# stats / predicates / search
# ----------------------------------------------------------------------------------


@app.command()
def stats(
    ctx: typer.Context,
    top: Annotated[int, typer.Option("--top", min=0, help="How many top predicates to list.")] = 10,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show what the store holds: counts, loaded sources, top predicates.

    Counts entities (and CVT mediator nodes), literals, facts and predicates, lists every
    loaded input file with its status, and the most frequent predicates.

    Example: kgbench stats --store ./kgbench-data/demo-store
    """
    with _reading(ctx, store) as s:
        st = s.stats()
        preds = s.predicates(limit=top) if top else []
    if as_json:
        doc = to_jsonable(st)
        doc["top_predicates"] = to_jsonable(preds)
        _emit_json(doc)
        return
    out.print(f"[bold]Store[/] {escape(st.location)} [dim]({st.backend}, schema "
              f"v{st.schema_version})[/]")
    counts = Table(box=box.SIMPLE_HEAD)
    counts.add_column("what")
    counts.add_column("count", justify="right")
    for label, value in (
        ("entities", st.entities), ("  of which CVT", st.cvt_entities),
        ("literals", st.literals), ("facts", st.facts), ("  entity → entity", st.entity_facts),
        ("  entity → literal", st.literal_facts), ("predicates", st.predicates),
    ):
        counts.add_row(label, f"{value:,}")
    out.print(counts)
    if st.sources:
        src = Table(title="Sources", box=box.SIMPLE_HEAD, title_justify="left")
        src.add_column("file", overflow="fold",
                       min_width=min(20, max(len(r.file) for r in st.sources)))
        src.add_column("format")
        src.add_column("status")
        src.add_column("counts")
        src.add_column("loaded (UTC)", min_width=10)
        for r in st.sources:
            status = r.status if r.status == "complete" else f"[yellow]{escape(r.status)}[/]"
            shown = {k: r.counts[k] for k in SOURCE_COUNTS if k in r.counts} or r.counts
            src.add_row(escape(r.file), r.format, status,
                        escape("\n".join(f"{k}={v:,}" for k, v in shown.items())),
                        _when(r.loaded_at))
        out.print(src)
    else:
        out.print("[dim]no sources recorded[/]")
    if preds:
        out.print(_predicate_table(preds, title=f"Top {len(preds)} predicates"))


def _when(iso: str) -> str:
    """An ISO timestamp as date and time (two lines) in UTC; unparseable text unchanged."""
    try:
        moment = _dt.datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        moment = moment.astimezone(_dt.UTC)
    return moment.strftime("%Y-%m-%d\n%H:%M")


def _predicate_table(preds: Sequence[Any], title: str | None = None) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("predicate", style="magenta")
    table.add_column("label")
    table.add_column("facts", justify="right")
    for p in preds:
        table.add_row(escape(p.id), escape(p.label or ""), f"{p.count:,}")
    return table


@app.command()
def predicates(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many to list.")] = 50,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List predicates with their fact counts, most frequent first.

    Useful to see which relations a KG has before writing patterns or Cypher.

    Example: kgbench predicates --limit 20
    """
    with _reading(ctx, store) as s:
        preds = s.predicates(limit=limit)
    if as_json:
        _emit_json({"predicates": preds})
        return
    out.print(_predicate_table(preds))


@app.command()
def search(
    ctx: typer.Context,
    prefix: Annotated[str, typer.Argument(help="Start of a name or alias (case-insensitive).")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many to list.")] = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find named entities whose name or alias starts with PREFIX.

    Case and extra spaces are ignored; shortest names come first, CVTs are left out.

    Example: kgbench search "john w"
    """
    with _reading(ctx, store) as s:
        found = s.search_prefix(prefix, limit=limit)
    if as_json:
        _emit_json({"prefix": prefix, "entities": found})
        return
    if not found:
        out.print(f"no entity name starts with '{escape(prefix)}'")
        return
    out.print(_entity_table(found, title=f"{len(found)} match(es) for '{escape(prefix)}'"))


# ----------------------------------------------------------------------------------
# entity
# ----------------------------------------------------------------------------------


def _entity_doc(s: Store, e: Entity, limit: int, labels: Labels) -> dict[str, Any]:
    fo = s.facts_out(e.id, limit=limit + 1)
    fi = s.facts_in(e.id, limit=limit + 1)
    shown_out = sorted(fo[:limit], key=lambda f: (f.predicate, f.object_key))
    shown_in = sorted(fi[:limit], key=lambda f: (f.predicate, f.subject))
    labels.add_facts(shown_out + shown_in)
    return {"entity": e, "facts_out": shown_out, "more_out": len(fo) > limit,
            "facts_in": shown_in, "more_in": len(fi) > limit}


def _print_entity(doc: dict[str, Any], labels: Labels) -> None:
    e: Entity = doc["entity"]
    head = Table(box=box.ROUNDED, show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column()
    head.add_row("name", escape(e.name or "—"))
    head.add_row("id", escape(e.id))
    head.add_row("types", escape(", ".join(e.types) or "—"))
    if e.aliases:
        head.add_row("aliases", escape(", ".join(e.aliases)))
    head.add_row("cvt", "yes (mediator node)" if e.is_cvt else "no")
    if e.description:
        head.add_row("description", escape(e.description))
    out.print(head)
    fo = Table(title=f"facts out ({len(doc['facts_out'])}{'+' if doc['more_out'] else ''})",
               box=box.SIMPLE_HEAD, title_justify="left")
    fo.add_column("predicate", style="magenta")
    fo.add_column("object")
    for f in doc["facts_out"]:
        fo.add_row(escape(f.predicate), escape(labels.obj(f.object)))
    out.print(fo)
    fi = Table(title=f"facts in ({len(doc['facts_in'])}{'+' if doc['more_in'] else ''})",
               box=box.SIMPLE_HEAD, title_justify="left")
    fi.add_column("subject")
    fi.add_column("predicate", style="magenta")
    for f in doc["facts_in"]:
        fi.add_row(escape(labels.with_id(f.subject)), escape(f.predicate))
    out.print(fi)
    if doc["more_out"] or doc["more_in"]:
        out.print("[dim]more facts exist; raise --limit to see them[/]")


@app.command()
def entity(
    ctx: typer.Context,
    name_or_id: Annotated[str, typer.Argument(metavar="NAME_OR_ID",
                                              help="An entity id, or a name / alias.")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1,
                                       help="Facts shown per direction.")] = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show an entity and its facts, looked up by id, then by name, then by prefix.

    An exact id wins; otherwise every entity with that name or alias is shown (names
    are shared: "Paris" is a city and a film); otherwise name prefixes are tried.

    Example: kgbench entity "Titanic" --limit 10
    """
    with _reading(ctx, store) as s:
        matched_by = "id"
        candidates: list[Entity] = []
        found = s.entity(name_or_id)
        entities = [found] if found else []
        if not entities:
            matched_by = "name"
            entities = s.find_by_name(name_or_id, limit=10)
        if not entities:
            matched_by = "prefix"
            candidates = s.search_prefix(name_or_id, limit=10)
            entities = candidates[:1] if len(candidates) == 1 else []
        if not entities and not candidates:
            raise CliError(f"no entity with id, name or name prefix '{name_or_id}'",
                           "try a shorter prefix with `kgbench search`")
        labels = Labels(s)
        docs = [_entity_doc(s, e, limit, labels) for e in entities]
    if as_json:
        _emit_json({"query": name_or_id, "matched_by": matched_by, "results": docs,
                    "candidates": candidates, "names": labels.json()})
        return
    if matched_by == "id":
        _note(f"matched the id {name_or_id}")
    elif matched_by == "name":
        _note(f"matched the name '{name_or_id}': {len(entities)} entit"
              f"{'y' if len(entities) == 1 else 'ies share it'}")
    else:
        _note(f"no exact id or name; matched the prefix '{name_or_id}'")
    if len(candidates) > 1:
        out.print(_entity_table(candidates, title=f"entities whose name starts with "
                                f"'{escape(name_or_id)}'"))
        out.print("[dim]pass one of these ids (or a full name) to see its facts[/]")
        return
    for i, doc in enumerate(docs):
        if len(docs) > 1:
            out.rule(f"{i + 1} of {len(docs)}: {escape(doc['entity'].id)}")
        _print_entity(doc, labels)


# ----------------------------------------------------------------------------------
# neighbors / paths
# ----------------------------------------------------------------------------------


def _fact_hop(f: Fact, sub: Subgraph) -> int:
    """The hop in which the neighbourhood walk read ``f`` (for grouping the display)."""
    hs = sub.hops.get(f.subject, 0)
    s_cvt = f.subject in sub.entities and sub.entities[f.subject].is_cvt
    if isinstance(f.object, Literal):
        return hs if s_cvt else hs + 1
    ho = sub.hops.get(f.object, 0)
    o_cvt = f.object in sub.entities and sub.entities[f.object].is_cvt
    if hs == ho and not (s_cvt or o_cvt):
        return hs + 1
    return max(hs, ho)


def _print_neighborhood(center: Entity, sub: Subgraph, labels: Labels, hops: int,
                        show: int) -> None:
    by_hop: dict[int, list[Fact]] = {}
    for f in sub.facts:
        by_hop.setdefault(_fact_hop(f, sub), []).append(f)
    tree = Tree(Text(f"{labels.with_id(center.id)}", style="bold cyan"))
    for hop in range(1, hops + 1):
        reached = [i for i, h in sub.hops.items() if h == hop]
        cvts = sum(1 for i in reached if i in sub.entities and sub.entities[i].is_cvt)
        facts = by_hop.get(hop, [])
        branch = tree.add(Text(f"hop {hop}: {len(reached)} entities ({cvts} CVT), "
                               f"{len(facts)} facts", style="bold"))
        for f in facts[:show]:
            branch.add(_fact_line(f, labels))
        if len(facts) > show:
            branch.add(Text(f"… {len(facts) - show} more (raise --show, or use --json)",
                            style="dim"))
    out.print(tree)
    if sub.truncated:
        out.print("[yellow]truncated:[/] a fan-out cap dropped edges, so this is a sample of "
                  "the neighbourhood (raise --max-per-node / --max-facts)")


@app.command()
def neighbors(
    ctx: typer.Context,
    id: Annotated[str, typer.Argument(metavar="ID", help="Centre entity id (or unambiguous name).")],
    hops: Annotated[int, typer.Option("--hops", min=0, max=3,
                                      help="Distance; a hop through a CVT counts once.")] = 1,
    max_per_node: Annotated[int, typer.Option("--max-per-node", min=1,
                                              help="Facts read per expanded node.")] = 50,
    max_facts: Annotated[int, typer.Option("--max-facts", min=1,
                                           help="Facts read overall.")] = 2000,
    show: Annotated[int, typer.Option("--show", min=1, help="Facts printed per hop.")] = 30,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the k-hop neighbourhood of an entity, grouped by hop.

    CVT (mediator) nodes are expanded in the same hop, so film → performance → actor is
    one hop. Fan-out caps keep hubs cheap; the output says when they cut edges.

    Example (demo store): kgbench neighbors m.0kgb0gs --hops 2 --max-per-node 20
    """
    with _reading(ctx, store) as s:
        center = _resolve(s, id, "centre")
        sub = s.neighborhood(center.id, hops=hops, max_per_node=max_per_node,
                             max_facts=max_facts)
        labels = Labels(s)
        labels.entities.update(sub.entities)
        labels.add_facts(sub.facts)
    if as_json:
        _emit_json({"center": center.id, "hops": hops, "entities": sub.entities,
                    "facts": sub.facts, "distance": sub.hops, "truncated": sub.truncated})
        return
    _print_neighborhood(center, sub, labels, hops, show)


def _path_text(p: FactPath, labels: Labels) -> Text:
    text = Text()
    text.append(labels.with_id(p.nodes[0]), style="cyan")
    for node, f in zip(p.nodes[1:], p.facts, strict=True):
        if f.subject == node:  # walked backwards
            text.append(f" ←{f.predicate}— ", style="magenta")
        else:
            text.append(f" —{f.predicate}→ ", style="magenta")
        text.append(labels.with_id(node), style="cyan")
    return text


@app.command()
def paths(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(metavar="A", help="Source entity id (or unambiguous name).")],
    b: Annotated[str, typer.Argument(metavar="B", help="Target entity id (or unambiguous name).")],
    max_length: Annotated[int, typer.Option("--max-length", min=1, max=3,
                                            help="Longest path, in facts.")] = 3,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Paths listed.")] = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find short paths between two entities, shortest first.

    Facts may be walked in either direction (arrows show which); literals are not used.

    Example (demo store): kgbench paths "Al Pacino" "Robert De Niro" --max-length 2
    """
    with _reading(ctx, store) as s:
        src = _resolve(s, a, "source")
        dst = _resolve(s, b, "target")
        found = s.paths(src.id, dst.id, max_length=max_length, limit=limit)
        labels = Labels(s, [n for p in found for n in p.nodes])
    if as_json:
        _emit_json({"source": src.id, "target": dst.id, "max_length": max_length,
                    "paths": [{"length": p.length, "nodes": p.nodes, "facts": p.facts}
                              for p in found],
                    "names": labels.json()})
        return
    if not found:
        out.print(f"no path of at most {max_length} facts between {escape(src.id)} and "
                  f"{escape(dst.id)}")
        return
    table = Table(box=box.SIMPLE_HEAD, title=f"{len(found)} path(s)", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("len", justify="right")
    table.add_column("path")
    for i, p in enumerate(found, 1):
        table.add_row(str(i), str(p.length), _path_text(p, labels))
    out.print(table)


# ----------------------------------------------------------------------------------
# cypher
# ----------------------------------------------------------------------------------


def _parse_params(raw: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{item!r}: expected NAME=VALUE", param_hint="--param")
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        params[key.strip().lstrip("$")] = parsed
    return params


def _cell(value: Any) -> str:
    if value is None:
        return "∅"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


@app.command()
def cypher(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="A read-only Cypher query.")],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", metavar="NAME=VALUE",
                     help="Query parameter $NAME (VALUE parsed as JSON, else a string); repeatable."),
    ] = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run a read-only Cypher query and print the result as a table.

    The store is opened read-only and writes (CREATE, SET, DELETE, ...) are refused.
    Schema: (:Entity {id, name, aliases, types, is_cvt, description})
    -[:Fact {predicate}]-> (:Entity) or (:Literal {value, datatype, lang});
    (:Predicate {id, label, count}).

    Example: kgbench cypher "MATCH (e:Entity) WHERE e.name = $n RETURN e.id" -p n=Titanic
    """
    params = _parse_params(param or [])
    with _reading(ctx, store) as s:
        result = s.cypher(query, params)
    if as_json:
        _emit_json(result)
        return
    table = Table(box=box.SIMPLE_HEAD)
    for col in result.columns:
        table.add_column(escape(col))
    for row in result.rows:
        table.add_row(*(escape(_cell(v)) for v in row))
    out.print(table)
    _note(f"{len(result.rows)} row(s)")


# ----------------------------------------------------------------------------------
# demo
# ----------------------------------------------------------------------------------


@app.command()
def demo(
    ctx: typer.Context,
    store: Annotated[
        Path | None,
        typer.Option("--store", metavar="PATH", show_default=False,
                     help=f"Where to build the demo store (default {DEMO_STORE})."),
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh/--no-fresh",
                           help="Rebuild the demo store from scratch (default) or reuse it.")
    ] = True,
) -> None:
    """Build a small film knowledge graph and take a guided tour of kgbench.

    Loads the bundled demo KG (a few thousand Freebase facts about films, people and
    places) into its own store, then shows lookups, shared names, CVTs, neighbourhoods,
    paths, a pattern query answering a benchmark question, and read-only Cypher.

    Example: kgbench demo --store /tmp/demo-store
    """
    state = ctx.obj if isinstance(ctx.obj, State) else None
    if store is None:
        # The global --store counts only when typed: $KGBENCH_STORE names the user's
        # real store, which a fresh demo must not replace.
        store = state.store if state is not None and state.explicit else DEMO_STORE
    _demo_tour(store, fresh=fresh)


SHARED_NAME_CANDIDATES = ("Titanic", "Paris", "John Williams", "Casablanca", "Alien")
DEMO_CYPHER = (
    "MATCH (f:Entity)-[r:Fact]->(d:Entity) WHERE r.predicate = 'film.film.directed_by' "
    "RETURN d.name AS director, count(*) AS films ORDER BY films DESC, director LIMIT 5"
)


DEMO_QUESTIONS_HINT = "kgbench/demo/data/questions.jsonl"


def _demo_questions_step(s: Store, labels: Labels) -> list[ParsedQuestion]:
    """Parse the bundled questions into query graphs, classify and ground them."""
    from extension.grounding import Grounder, score_answers
    from extension.questions import parse_question
    from kgbench.demo import DEMO_QUESTIONS
    from loaders.kgqa import read_kgqa_jsonl

    grounder = Grounder(s)
    table = Table(box=box.SIMPLE_HEAD)
    for col in ("id", "shape", "hops", "question", "grounded answers", "F1"):
        table.add_column(col, justify="right" if col in ("hops", "F1") else "left")
    shapes: dict[str, int] = {}
    parsed_all = []
    for question in read_kgqa_jsonl(DEMO_QUESTIONS, strict=True):
        parsed = parse_question(question, cvt_types=s.cvt_types() or None)
        parsed_all.append(parsed)
        shapes[parsed.shape] = shapes.get(parsed.shape, 0) + 1
        if parsed.query is None or parsed.shape == "unsupported":
            table.add_row(parsed.id, parsed.shape, "", escape(parsed.question),
                          escape(parsed.reason or ""), "")
            continue
        grounding = grounder.ground(parsed.query)
        score = score_answers(grounding.answers, [(a.kind, a.value) for a in parsed.answers])
        shown = grounding.answers[:3]
        labels.add(a for a in shown if isinstance(a, str))
        answers = ", ".join(labels(a) if isinstance(a, str) else a.value for a in shown)
        if len(grounding.answers) > 3:
            answers += f" (+{len(grounding.answers) - 3})"
        table.add_row(parsed.id, parsed.shape, str(parsed.hops), escape(parsed.question),
                      escape(answers or grounding.outcome), f"{score.f1:.2f}")
    out.print(table)
    out.print("[dim]" + ", ".join(f"{n} {shape}" for shape, n in sorted(shapes.items()))
              + ". A hop through a CVT counts as one (CAQA §4.1), so 'who played Michael "
              "Corleone in The Godfather?' is single.[/]")
    return parsed_all


def _ids(values: Iterable[Any]) -> list[str]:
    """Entity ids from a list of ids or of ``{"id": ...}`` records."""
    return [v["id"] if isinstance(v, dict) else str(v) for v in values]


def _step(n: int, title: str, command: str | None = None) -> None:
    out.print()
    out.rule(f"[bold]{n}. {escape(title)}[/]", align="left")
    if command:
        out.print(f"[dim]$ {escape(command)}[/]")


def _demo_tour(store_path: Path, *, fresh: bool) -> None:
    from kgbench.demo import DEMO_KG
    from kgstore.ladybug_store import MARKER

    started = time.perf_counter()
    sp = str(store_path)
    if not store_path.is_absolute() and not sp.startswith("."):
        sp = f"./{sp}"  # shown in copy-paste commands: make it obviously a path
    opt = f" --store {sp}"
    if fresh or not (store_path / MARKER).exists():
        _note(f"building the demo store at {sp} from {DEMO_KG.name} ...")
        report = _run_load(store_path, [DEMO_KG], names=None, strict=False, force=True,
                           quiet=True)
        imp = report.import_report
        _note(f"loaded {imp.facts_new:,} facts about {imp.entities_new:,} entities "
              f"in {time.perf_counter() - started:.1f}s")
    else:
        _note(f"reusing the demo store at {sp} (--fresh rebuilds it)")

    with open_store(store_path, read_only=True) as s:
        labels = Labels(s)

        # 1. what is there
        _step(1, "What is in the store", f"kgbench stats{opt}")
        st = s.stats()
        out.print(f"{st.entities:,} entities ({st.cvt_entities:,} of them CVT mediator nodes), "
                  f"{st.facts:,} facts ({st.literal_facts:,} with literal values), "
                  f"{st.predicates:,} predicates")

        # 2. shared names
        shared: list[tuple[str, list[Entity]]] = []
        for name in SHARED_NAME_CANDIDATES:
            matches = s.find_by_name(name)
            if len(matches) > 1:
                shared.append((name, matches))
            if len(shared) == 2:
                break
        if shared:
            name0 = shared[0][0]
            _step(2, "Names are not ids: lookup by name", f'kgbench entity "{name0}"{opt}')
            for name, matches in shared:
                out.print(_entity_table(matches, title=f"'{escape(name)}' names "
                                        f"{len(matches)} entities"))
            out.print("[dim]A benchmark must say which one a question means, so questions "
                      "carry entity ids.[/]")

        # 3. one entity with its facts
        pool = [e for _, ms in shared for e in ms]
        featured = next((e for e in pool if "film.film" in e.types), None) or (
            pool[0] if pool else None)
        if featured is None:
            sample = s.sample_entities(1, seed=0)
            featured = sample[0] if sample else None
        if featured is None:
            raise CliError("the demo store is empty", "rebuild it with `kgbench demo --fresh`")
        _step(3, f"An entity and its facts: {_label(featured, featured.id)}",
              f"kgbench entity {featured.id}{opt}")
        _print_entity(_entity_doc(s, featured, 8, labels), labels)

        # 4. neighbourhood through a CVT
        center = featured
        cvt_fact = _first_cvt_fact(s, center)
        if cvt_fact is None:
            for cand in s.sample_entities(40, seed=1):
                cvt_fact = _first_cvt_fact(s, cand)
                if cvt_fact is not None:
                    center = cand
                    break
        _step(4, "A 2-hop neighbourhood through a CVT",
              f"kgbench neighbors {center.id} --hops 2{opt}")
        sub = s.neighborhood(center.id, hops=2)  # the command's default caps
        labels.entities.update(sub.entities)
        labels.add_facts(sub.facts)
        at = {h: sum(1 for v in sub.hops.values() if v == h) for h in (1, 2)}
        out.print(f"{escape(labels.with_id(center.id))}: {at[1]} entities at hop 1, {at[2]} at hop 2, "
                  f"{len(sub.facts)} facts" + (" (capped sample)" if sub.truncated else ""))
        if cvt_fact is not None:
            cvt = cvt_fact.subject if cvt_fact.subject != center.id else str(cvt_fact.object)
            tree = Tree(_fact_line(cvt_fact, labels))
            # The CVT's own (outgoing) facts; Freebase also stores their reverses.
            own = sorted((f for f in s.facts_out(cvt, limit=20) if f.object != center.id),
                         key=lambda f: (f.predicate, f.object_key))
            for f in own[:6]:
                labels.add_facts([f])
                tree.add(_fact_line(f, labels))
            out.print(tree)
            out.print("[dim]The CVT (a nameless mediator node) holds an n-ary fact together; "
                      "crossing it counts as one hop, not two.[/]")

        # 5. a path
        target = _demo_path_target(s, sub, center.id)
        if target is not None:
            _step(5, "Paths between two entities",
                  f"kgbench paths {center.id} {target} --max-length 2{opt}")
            found = s.paths(center.id, target, max_length=2, limit=4)
            labels.add(n for p in found for n in p.nodes)
            for p in found:
                out.print(_path_text(p, labels))

        # 6. the demo questions: parsed, classified and grounded
        _step(6, "KGQA questions: parse, classify (CAQA shapes), ground",
              f"kgbench questions parse {DEMO_QUESTIONS_HINT} --out parsed.jsonl && "
              f"kgbench questions ground parsed.jsonl{opt}")
        _demo_questions_step(s, labels)

    # 7-8 generate benchmarks; they open the store themselves (their worker processes may too)
    from kgbench.demo import DEMO_QUESTIONS
    from kgbench.generate_cli import (
        DEMO_DOMAIN,
        DEMO_DOMAIN_N,
        DEMO_SEED,
        demo_domain_step,
        demo_generate_step,
    )

    bench_dir = store_path.parent / "demo-benchmark"
    domain_dir = store_path.parent / "demo-domain-benchmark"
    _step(7, "Generate a benchmark: extend, ground, edit, verbalize (CAQA)",
          f"kgbench generate{opt} --questions {DEMO_QUESTIONS_HINT} --out {bench_dir} "
          f"--seed {DEMO_SEED}")
    demo_generate_step(store_path, DEMO_QUESTIONS, bench_dir)

    _step(8, "A new domain: seed questions sampled from the KG itself",
          f"kgbench generate{opt} --domain {DEMO_DOMAIN} --n {DEMO_DOMAIN_N} "
          f"--out {domain_dir}")
    demo_domain_step(store_path, domain_dir)

    with open_store(store_path, read_only=True) as s:
        # 9. read-only cypher
        _step(9, "Read-only Cypher for anything else", f'kgbench cypher "{DEMO_CYPHER}"{opt}')
        res = s.cypher(DEMO_CYPHER)
        table = Table(box=box.SIMPLE_HEAD)
        for col in res.columns:
            table.add_column(col)
        for row in res.rows:
            table.add_row(*(escape(_cell(v)) for v in row))
        out.print(table)

    out.print()
    out.rule("[bold]Try next[/]", align="left")
    first_shared = shared[0][0] if shared else _label(featured, featured.id)
    for cmd in (
        f'kgbench entity "{first_shared}"{opt}',
        f"kgbench neighbors {center.id} --hops 2{opt}",
        f'kgbench search "john"{opt}',
        f"kgbench predicates --limit 15{opt}",
        f"kgbench stats --json{opt}",
        f"kgbench export {store_path.parent / 'demo-benchmark'} --to caqa --out demo-caqa.csv",
        f"kgbench load triples YOUR_FILE.nt.gz   # your own KG (default store {DEFAULT_STORE})",
    ):
        out.print(f"  {escape(cmd)}")
    _note(f"demo finished in {time.perf_counter() - started:.1f}s")


def _first_cvt_fact(s: Store, e: Entity) -> Fact | None:
    facts = s.facts_out(e.id, limit=200) + s.facts_in(e.id, limit=200)
    ends = {f.object if f.subject == e.id else f.subject for f in facts
            if isinstance(f.object, str)}
    found = s.entities(ends)
    cvts = sorted(i for i, x in found.items() if x.is_cvt)
    if not cvts:
        return None
    return next(f for f in facts if cvts[0] in (f.subject, f.object))


def _demo_path_target(s: Store, sub: Subgraph, center: str) -> str | None:
    """Another film by the same director, else a named non-CVT entity two hops away
    (films and people first)."""
    for d in s.facts_out(center, predicate="film.film.directed_by", limit=5):
        if isinstance(d.object, str):
            films = s.facts_in(d.object, predicate="film.film.directed_by", limit=20)
            others = sorted(f.subject for f in films if f.subject != center)
            if others:
                return others[0]
    far = sorted(i for i, h in sub.hops.items()
                 if h == 2 and i in sub.entities and not sub.entities[i].is_cvt
                 and sub.entities[i].name and i != center)
    for prefer in ("film.film", "people.person"):
        for i in far:
            if prefer in sub.entities[i].types:
                return i
    return far[0] if far else None


# Imported last: kgbench.questions_cli and kgbench.extend_cli build on this module's
# helpers and add their commands to ``app`` themselves, so any of them can be imported
# first.
import kgbench.export_cli  # noqa: E402,F401
import kgbench.extend_cli  # noqa: E402,F401
import kgbench.generate_cli  # noqa: E402,F401
import kgbench.questions_cli  # noqa: E402,F401


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the app, turning our errors into one-line
    messages (exit 1) instead of tracebacks."""
    try:
        app(args=list(argv) if argv is not None else None, prog_name="kgbench")
    except Exception as exc:  # only ours are reported; anything else is a bug
        code = report_error(exc)
        if code is None:
            raise
        sys.exit(code)


if __name__ == "__main__":
    # `python -m kgbench.cli` runs this file as __main__, a second copy of the module;
    # the questions commands registered on kgbench.cli's app, so run that one.
    from kgbench.cli import main as _main

    _main()
