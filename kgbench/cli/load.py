"""``kgbench load <format>``: knowledge-graph files -> the store (created if missing).

One command per input format (triples, freebase, wikidata, rdf) around its loader;
:func:`loaders.into_store.load_into_store` does the checking, creating and cleaning
up, this module the options, the progress display and the summary tables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from kgbench.cli.errors import RESUMES, on_interrupt
from kgbench.cli.options import JsonOpt, StoreOpt, store_location
from kgbench.cli.output import (
    ProgressReporter,
    emit_json,
    field,
    human_bytes,
    note,
    out,
    progress,
)
from kgstore import Store, StoreStats, to_jsonable

if TYPE_CHECKING:  # imported when a load runs: the other commands do not need them
    from kgstore.store import ProgressCallback
    from loaders.into_store import LoadFunction
    from loaders.pipeline import LoadOptions, LoadReport

load_app = typer.Typer(
    help=(
        "Load a knowledge graph into the store (created if missing).\n\n"
        "Example: kgbench load triples facts.tsv --names names.tsv"
    ),
    no_args_is_help=True,
)


def run_load(location: str, inputs: Sequence[Path], load: LoadFunction, *,
             force: bool, report_file: Path | None = None) -> LoadReport:
    """:func:`loaders.into_store.load_into_store` under a progress display (bytes read
    of total, rate, lines/s, ETA). ``report_file`` (``--report``) is checked before the
    load starts, so a path that cannot take the report does not waste a load. Errors
    propagate to :func:`kgbench.cli.app.main`, which prints them; Ctrl-C says that a
    rerun resumes (stages are kept, imports are idempotent)."""
    from extension.outputs.output_file import check_apart_from_inputs, output_target
    from kgstore import store_directory
    from loaders.into_store import load_into_store

    folder = store_directory(location)
    if folder is not None:   # --force removes the store first: never with an input in it
        check_apart_from_inputs(folder, inputs, option="--store", replaced=force)
    if report_file is not None:
        output_target(report_file, option="--report", inputs=[*inputs, location])
    with on_interrupt(RESUMES), progress() as display:
        reporter = ProgressReporter(display)
        result = load_into_store(location, inputs, load, force=force, progress=reporter)
        reporter.finish()
    if result.removed_old_store:
        note(f"removed the old store at {location}")
    return result.report


def print_load_summary(report: LoadReport, location: str, *,
                       totals: StoreStats | None = None) -> None:
    """The tables every ``load`` command prints: per file (size, lines, triples, kept
    facts, dropped, malformed), the store change, dropped lines by reason, the top
    predicates, the first malformed lines as ``file:line: reason``, and the store."""
    table = Table(title="Loaded", box=box.SIMPLE_HEAD, title_justify="left")
    # The numbers never wrap and the path folds into what they leave: on an 80-column
    # terminal a minimum width for the path made rich drop the last columns
    # (`malformed` went missing, issue 38).
    table.add_column("file", overflow="fold", min_width=12)
    table.add_column("format")
    show_bytes = any(f.bytes for f in report.files)
    show_dropped = any(f.dropped for f in report.files)
    if show_bytes:
        table.add_column("size", justify="right", no_wrap=True)
    for col in ("lines", "triples"):
        table.add_column(col, justify="right", no_wrap=True)
    if show_dropped:
        table.add_column("dropped", justify="right", no_wrap=True)
    table.add_column("malformed", justify="right", no_wrap=True)
    for f in report.files:
        row = [field(f.path), f.format + (" (reused stage)" if f.reused_stage else "")]
        if show_bytes:
            row.append(human_bytes(f.bytes))
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
        ("names replaced (old kept as alias)", imp.names_replaced),
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
            dt.add_row(field(reason), f"{n:,}")
        out.print(dt)
    preds = report.predicates
    if preds:
        out.print(f"[italic]Top {len(preds)} predicates (kept lines)[/]")
        pt = Table(box=box.SIMPLE_HEAD)
        pt.add_column("predicate", overflow="fold")
        pt.add_column("lines", justify="right")
        for pred, n in preds.items():
            pt.add_row(field(pred), f"{n:,}")
        out.print(pt)
    if report.malformed:
        out.print(f"[yellow]{report.malformed:,} malformed line(s) skipped[/]; first ones:")
        for path, line, reason in report.examples[:10]:
            out.print(f"  {field(f'{path}:{line}: {reason}')}", soft_wrap=True)
        out.print("[dim]use --strict to stop at the first malformed line instead[/]")
    for text in report.notes:
        out.print(f"[yellow]note:[/] {field(text)}", soft_wrap=True)
    out.print(f"[green]store:[/] {field(location)}  "
              f"[dim](next: kgbench stats --store {field(location)})[/]")


def finish_load_command(report: LoadReport, location: str, *, as_json: bool,
                        report_file: Path | None = None) -> None:
    """Print a load's result (tables, or one JSON document with ``as_json``) and write
    the JSON document to ``report_file`` when given. Reads the store's totals."""
    from loaders.into_store import load_report_doc, store_totals

    totals = store_totals(location)
    doc = load_report_doc(report, location, totals=totals)
    if report_file is not None:
        from extension.outputs.output_file import write_atomic

        write_atomic(report_file, json.dumps(to_jsonable(doc), ensure_ascii=False, indent=2,
                                             default=str) + "\n", option="--report")
    if as_json:
        emit_json(doc)
    else:
        print_load_summary(report, location, totals=totals)
        if report_file is not None:
            note(f"report written to {report_file}")


# Options of every `load` command.
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="Stop at the first malformed line (nothing is loaded).")
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Delete the store first and rebuild it from these files.")
]
PredicateNamesOpt = Annotated[
    Path | None,
    typer.Option("--predicate-names", metavar="FILE", readable=False,
                 help="Names for the predicates, read after the facts: FB15k-237's "
                      "relation2text.txt, Wikidata property JSON lines, or N-Triples "
                      "naming properties (a Freebase dump). Only predicates in the store "
                      "get names."),
]


def with_predicate_names(load: LoadFunction, path: Path | None, *,
                         options: LoadOptions | None = None, strict: bool = False
                         ) -> LoadFunction:
    """``load`` followed by loading ``path``'s predicate names (``--predicate-names``);
    a file that cannot be one is refused now, before anything is loaded."""
    if path is None:
        return load
    from loaders.predicate_names import add_predicate_names, check_predicate_names

    check_predicate_names(path, options)

    def load_then_name(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return add_predicate_names(load(s, progress), s, path, options=options,
                                   strict=strict, progress=progress)
    return load_then_name


def load_and_report(location: str, files: Sequence[Path], load: LoadFunction, *,
                    predicate_names: Path | None, strict: bool, force: bool, as_json: bool,
                    options: LoadOptions | None = None, report_file: Path | None = None,
                    other_inputs: Sequence[Path] = ()) -> None:
    """What every ``load`` command ends with: ``load`` (then ``--predicate-names``) run
    over ``files`` and ``other_inputs`` (:func:`run_load`), its result printed and
    written (:func:`finish_load_command`)."""
    then_named = with_predicate_names(load, predicate_names, options=options, strict=strict)
    inputs = [*files, *other_inputs, *_given(predicate_names)]
    report = run_load(location, inputs, then_named, force=force, report_file=report_file)
    finish_load_command(report, location, as_json=as_json, report_file=report_file)


@load_app.command("triples")
def load_triples_cmd(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="Triple files (.nt/.tsv, optionally .gz/.bz2/.zst).",
                                   show_default=False, metavar="FILE", readable=False)
    ],
    names: Annotated[
        Path | None, typer.Option("--names", metavar="FILE", readable=False,
                                  help="Tab-separated id/name file giving entities their names.")
    ] = None,
    strict: StrictOpt = False,
    force: ForceOpt = False,
    unfold: Annotated[
        bool, typer.Option("--unfold/--no-unfold",
                           help="Tab-separated files: load a relation path through a "
                                "mediator (FB15k-237's a/b/c./d/e/f) as a mediator node "
                                "with the two real predicates, marked derived.")
    ] = True,
    reverse_properties: Annotated[
        bool, typer.Option("--reverse-properties/--no-reverse-properties",
                           help="Tab-separated files: also store each fact of a Freebase "
                                "property that has a reverse property the other way round, "
                                "as Freebase does (FB15k-237 kept one direction), so "
                                "KGQA queries written either way find it.")
    ] = False,
    predicate_names: PredicateNamesOpt = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load triple files into the store (created if missing).

    Parses N-Triples or tab-separated triples, stages them and merges them into the
    store: loading the same file again adds nothing. Malformed lines are skipped,
    counted and listed (with --strict the first one stops the load and nothing changes).
    Tab-separated files in FB15k-237's layout get Freebase's mediator nodes for
    folded relations (--no-unfold: as is) and, with --reverse-properties, the reverse
    facts Freebase stores.

    Example: kgbench load triples dev.tsv test.tsv --names entity2text.txt
    --reverse-properties --predicate-names relation2text.txt
    """
    from loaders.triples import load_triples

    location = store_location(ctx, store)

    def load(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_triples(s, list(files), names=names, strict=strict, progress=progress,
                            unfold=unfold, reverse_properties=reverse_properties)

    load_and_report(location, files, load, predicate_names=predicate_names, strict=strict,
                    force=force, as_json=as_json, other_inputs=_given(names))


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
                                   show_default=False, metavar="PATH", readable=False)
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
    predicate_names: PredicateNamesOpt = None,
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

    location = store_location(ctx, store)
    options = load_options(lang, keep, drop, top=top, default_filter=not no_default_filter,
                           nameless_is_cvt=nameless_cvt)

    def load(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_freebase(s, files, options=options, strict=strict, progress=progress)

    load_and_report(location, files, load, predicate_names=predicate_names, strict=strict,
                    force=force, as_json=as_json, options=options, report_file=report_file)


@load_app.command("wikidata")
def load_wikidata_cmd(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="Wikidata dumps: JSON (.json, .json.gz, .json.bz2) or "
                                        "truthy N-Triples (.nt, .nt.gz, .nt.bz2).",
                                   show_default=False, metavar="PATH", readable=False)
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
    predicate_names: PredicateNamesOpt = None,
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

    location = store_location(ctx, store)
    options = load_options(lang, keep, drop, top=top, default_filter=not no_default_filter,
                           qualifiers=qualifiers)

    def load(s: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_wikidata(s, files, options=options, strict=strict, progress=progress)

    load_and_report(location, files, load, predicate_names=predicate_names, strict=strict,
                    force=force, as_json=as_json, options=options, report_file=report_file)


def _given(path: Path | None) -> list[Path]:
    return [] if path is None else [path]


def _size_bytes(text: str) -> int:
    """``"256M"``, ``"2G"``, ``"1048576"`` -> bytes (K/M/G are powers of 1024)."""
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
                                   show_default=False, metavar="PATH", readable=False)
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
    predicate_names: PredicateNamesOpt = None,
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
    from loaders.into_store import check_inputs
    from loaders.rdf import load_rdf, parse_ns, read_ns_file

    location = store_location(ctx, store)
    options = load_options(lang, keep, drop, top=top, nameless_is_cvt=nameless_cvt)
    limit = _size_bytes(max_memory_file)
    namespaces: dict[str, str] = {}
    if ns_file is not None:
        check_inputs([ns_file])
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

    load_and_report(location, files, load, predicate_names=predicate_names, strict=strict,
                    force=force, as_json=as_json, options=options.with_namespaces(namespaces),
                    report_file=report_file)
