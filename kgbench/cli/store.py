"""``kgbench store ...``: whole stores, whatever their backend: ``copy`` (to another
location or backend, verified), ``checksum`` (of the content), ``predicate-stats``
(compute the statistics generation reads), ``export-neo4j`` (the input of Neo4j's
offline import tool) and ``search-index`` (for a store loaded before search by words).

The work is in :mod:`kgstore.transfer`, :mod:`kgstore.checksum`,
:mod:`kgstore.predicate_stats` and :mod:`kgstore.neo4j_admin`; this module is the
options, the progress display and the tables around them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, RESUMES, on_interrupt
from kgbench.cli.options import JsonOpt
from kgbench.cli.output import ProgressReporter, emit_json, field, note, out, progress

if TYPE_CHECKING:
    from kgstore.neo4j_admin import Neo4jExportReport
    from kgstore.transfer import CopyReport

store_app = typer.Typer(
    help=(
        "Whole stores: copy one to another location or backend, checksum its content, "
        "or export it for Neo4j's offline import tool.\n\n"
        "Example: kgbench store copy kgbench-data/store /data/kg-backup"
    ),
    no_args_is_help=True,
)

_ROW_PHASES = ("copy ", "verify ", "checksum ", "predicate statistics")
"""Progress descriptions of the scans (:mod:`kgstore.transfer`, :mod:`kgstore.checksum`):
rows with rows/s."""

SourceArg = Annotated[
    str, typer.Argument(metavar="SRC", show_default=False,
                        help="The store to copy: a directory (or a Neo4j URI).")]
LocationArg = Annotated[
    str, typer.Argument(metavar="LOCATION", show_default=False,
                        help="The store: a directory (or a Neo4j URI).")]
DestinationArg = Annotated[
    str, typer.Argument(metavar="DST", show_default=False,
                        help="Where the copy goes: a directory (created) or a Neo4j URI.")]


@store_app.command("copy")
def copy_cmd(
    source: SourceArg,
    destination: DestinationArg,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a store that DST already holds: it is "
                           "removed first, then SRC copied in (never merged).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Copy the store SRC to DST (another directory or backend) and verify the copy.

    Every entity (placeholders and CVTs as they are), fact, literal, predicate label,
    CVT type and source record is copied; then DST's counts (entities, CVTs, literals,
    facts, predicates) and content checksum (see `kgbench store checksum`) must equal
    SRC's, else the command fails. SRC is only read.

    DST must not hold a store already (an empty one is fine): pass --force to replace
    it. An interrupted copy resumes: rerun the same command (the dump of SRC is kept in
    DST's staging folder until the copy is verified, and reused while SRC is unchanged).

    Example: kgbench store copy kgbench-data/store /data/kg-backup --json
    """
    from extension.outputs.output_file import check_apart_from_inputs
    from kgstore import store_directory
    from kgstore.transfer import copy_store, same_location

    folder = store_directory(destination)
    if folder is not None and not same_location(source, destination):
        check_apart_from_inputs(folder, [source], replaced=force)
    with on_interrupt(RESUMES), progress() as display:
        reporter = ProgressReporter(display, row_phases=_ROW_PHASES)
        report = copy_store(source, destination, force=force, progress=reporter)
        reporter.finish()
    if report.replaced_destination:
        note(f"removed the old store at {destination}")
    if as_json:
        emit_json(_copy_doc(report))
        return
    _print_copy(report)


@store_app.command("checksum")
def checksum_cmd(
    location: LocationArg,
    as_json: JsonOpt = False,
) -> None:
    """Print the content checksum of a store, to compare two stores anywhere.

    Two stores with the same checksum hold the same entities (name, aliases, types,
    CVT flag, description), facts (literals with datatype and language), predicate
    labels and CVT types, whichever backend holds them and in whatever order it lists
    them. Derived counts and the record of what was loaded are left out. The store is
    only read.

    Example: kgbench store checksum kgbench-data/store --json
    """
    from kgstore import open_store
    from kgstore.checksum import CHECKSUM_SCHEME, content_checksum
    from kgstore.transfer import store_counts

    started = time.perf_counter()
    _require_store(location)
    with on_interrupt(NOTHING_WRITTEN), open_store(location, read_only=True) as store, \
            progress() as display:
        reporter = ProgressReporter(display, row_phases=_ROW_PHASES)
        checksum = content_checksum(store, progress=reporter)
        reporter.finish()
        counts = store_counts(store.stats())
    seconds = round(time.perf_counter() - started, 3)
    if as_json:
        emit_json({"store": location, "checksum": checksum, "scheme": CHECKSUM_SCHEME,
                   "counts": counts, "seconds": seconds})
        return
    out.print(f"{checksum}  {field(location)}", soft_wrap=True)
    note(f"{CHECKSUM_SCHEME}: {counts['entities']:,} entities, {counts['facts']:,} facts "
         f"in {seconds:.1f}s")


@store_app.command("search-index")
def search_index_cmd(
    location: LocationArg,
) -> None:
    """Give a store loaded before kgbench searched by words its search index, once.

    `kgbench search`, `kgbench entity NAME` and the server's search find entities by
    words and parts of their names through an index that every load keeps up to date.
    An embedded store loaded before that index existed builds it on its first search;
    a Neo4j store gets its search keys here (or by the next load into it), since the
    search commands open it read-only. Running it again changes nothing.

    Example: kgbench store search-index bolt://localhost:7687
    """
    from kgstore import open_store

    started = time.perf_counter()
    with on_interrupt(RESUMES), open_store(location) as store, progress() as display:
        reporter = ProgressReporter(display)
        built = store.prepare_search(reporter)
        reporter.finish()
    seconds = time.perf_counter() - started
    if built:
        note(f"built the search index of {location} in {seconds:.1f}s")
    else:
        note(f"{location} has its search index already; loads keep it up to date")


@store_app.command("predicate-stats")
def predicate_stats_cmd(
    location: LocationArg,
    as_json: JsonOpt = False,
) -> None:
    """Compute the predicate statistics that generation reads, from all the store's facts.

    Every load keeps them (per predicate: how many of its subjects and objects have
    exactly one fact over it, and a fixed sample of its facts, which the contradictory
    edit draws replacements from). A store loaded by an older kgbench has none, and
    neither has one whose last load was interrupted until it is loaded again: run this
    once for it (`kgbench generate` does it itself on first use when it can write the
    store). Reads every fact once (5M facts: about a minute); nothing else in the
    store changes.

    Example: kgbench store predicate-stats kgbench-data/store
    """
    from kgstore import open_store

    started = time.perf_counter()
    _require_store(location)
    with on_interrupt(NOTHING_WRITTEN), open_store(location) as store, \
            progress() as display:
        reporter = ProgressReporter(display, row_phases=_ROW_PHASES)
        predicates = store.refresh_predicate_stats(progress=reporter)
        reporter.finish()
    seconds = round(time.perf_counter() - started, 3)
    if as_json:
        emit_json({"store": location, "predicates": predicates, "seconds": seconds})
        return
    out.print(f"[green]predicate statistics kept:[/] {predicates:,} predicates in "
              f"{field(location)}", soft_wrap=True)
    note(f"in {seconds:.1f}s")


def _require_store(location: str) -> None:
    from kgstore import StoreNotFoundError, store_exists

    if not store_exists(location):
        raise StoreNotFoundError(f"{location}: no kgbench store there; check the location "
                                 "(kgbench load creates one)")


def _copy_doc(report: CopyReport) -> dict[str, Any]:
    return {
        "source": report.source, "destination": report.destination, "verified": True,
        "counts": report.counts, "source_checksum": report.source_checksum,
        "destination_checksum": report.destination_checksum,
        "sources_copied": report.sources_copied, "reused_stage": report.reused_stage,
        "replaced_destination": report.replaced_destination, "seconds": report.seconds,
        "steps": report.steps, "import": report.import_report,
    }


def _print_copy(report: CopyReport) -> None:
    table = Table(title="Copied and verified", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("")
    table.add_column("SRC = DST", justify="right")
    for name, value in report.counts.items():
        table.add_row(name.replace("_", " "), f"{value:,}")
    table.add_row("content checksum", report.source_checksum)
    table.add_row("source records", f"{report.sources_copied:,}")
    table.add_row("seconds", f"{report.seconds:.1f}")
    rows = report.counts["entities"] + report.counts["facts"]
    if report.seconds:
        table.add_row("rows/s", f"{rows / report.seconds:,.0f}")
    out.print(table)
    if report.reused_stage:
        note("resumed an interrupted copy (its dump of SRC was reused)")
    out.print(f"[green]copied:[/] {field(report.source)} -> {field(report.destination)}  "
              f"[dim](next: kgbench stats --store {field(report.destination)})[/]",
              soft_wrap=True)


@store_app.command("export-neo4j")
def export_neo4j_cmd(
    source: Annotated[
        str, typer.Argument(metavar="STORE_OR_STAGE", show_default=False,
                            help="A store directory (written by `kgbench load`) or a "
                            "complete stage directory (Parquet with a manifest.json).")],
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", metavar="DIR", show_default=False,
                           help="New folder for the CSV files, their headers, import.sh "
                           "and export.json (must be absent or empty).")],
    database: Annotated[
        str, typer.Option("--database", metavar="NAME",
                          help="The Neo4j database the command imports into.")
    ] = "neo4j",
    nameless_cvt: Annotated[
        bool, typer.Option("--nameless-cvt/--no-nameless-cvt",
                           help="For a stage: mark nameless fact subjects as CVTs, as "
                           "`kgbench load` does for N-Triples, RDF and Freebase stages.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace what --out holds (once the new "
                           "export is complete).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write a store (or a stage) as the CSV input of Neo4j's offline bulk importer.

    For a KG too big to load over Bolt: writes node and relationship CSV files with
    separate header files (`id:ID(Entity)`, `:LABEL`, `aliases:string[]`,
    `:START_ID(Entity)`, `:END_ID(Literal)`, `:TYPE`, ...) in the Neo4j store's graph
    schema, and import.sh with the exact `neo4j-admin database import full` command,
    which is also printed. Array elements are separated by a control character the
    data does not contain (`--array-delimiter=U+001E`), not `;`. The folder appears
    only when complete (it is written beside --out and renamed).

    After the import, start Neo4j and open the database once with kgbench: that
    creates the constraints and indexes the store needs, which the tool does not.

    Example: kgbench store export-neo4j kgbench-data/store --out /data/kg-import
    && NEO4J_ADMIN=$NEO4J_HOME/bin/neo4j-admin sh /data/kg-import/import.sh
    """
    from extension.outputs.output_file import check_output_dir
    from kgstore.neo4j_admin import export_for_neo4j_admin

    check_output_dir(out_dir, option="--out", inputs=[source], replaced=force)
    with on_interrupt(NOTHING_WRITTEN), progress() as display:
        reporter = ProgressReporter(display)
        report = export_for_neo4j_admin(source, out_dir, database=database, force=force,
                                        nameless_is_cvt=nameless_cvt, progress=reporter)
        reporter.finish()
    if as_json:
        emit_json(report.to_json())
        return
    _print_report(report)


def _print_report(report: Neo4jExportReport) -> None:
    table = Table(title=f"Exported for neo4j-admin to {field(report.out)}",
                  box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("file")
    table.add_column("label / type")
    table.add_column("rows", justify="right")
    for f in report.files:
        table.add_row(field(f"{f.name}.csv"), f.label, f"{f.rows:,}")
    out.print(table)
    rate = report.facts / report.seconds if report.seconds else 0.0
    note(f"{report.facts:,} facts in {report.seconds:.1f} s ({rate:,.0f} facts/s)")
    note("Run it (Neo4j stopped; import.sh holds the same command):")
    out.print(report.command_line, soft_wrap=True, markup=False)
    note(_after_import())


def _after_import() -> str:
    from kgstore.neo4j_admin import AFTER_IMPORT

    return AFTER_IMPORT
