"""``kgbench store ...``: whole-store operations (an offline export for Neo4j's import
tool). The work is in :mod:`kgstore.backends.neo4j.admin_export`; this module is the
command around it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table

from kgbench.cli.errors import NOTHING_WRITTEN, on_interrupt
from kgbench.cli.options import JsonOpt
from kgbench.cli.output import ProgressReporter, emit_json, field, note, out, progress

if TYPE_CHECKING:
    from kgstore.backends.neo4j.admin_export import Neo4jExportReport

store_app = typer.Typer(
    help=(
        "Operations on a whole store.\n\n"
        "Example: kgbench store export-neo4j kgbench-data/store --out neo4j-import"
    ),
    no_args_is_help=True,
)


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
    from kgstore.backends.neo4j.admin_export import export_for_neo4j_admin

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
    from kgstore.backends.neo4j.admin_export import AFTER_IMPORT

    return AFTER_IMPORT
