"""Commands that look around a store: ``stats``, ``predicates``, ``search``, ``entity``,
``neighbors`` and ``paths``. They open the store read-only, ask it (through
:mod:`kgstore.lookup` where a name must become an entity) and print tables, or one
JSON document with ``--json``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from kgbench.cli.errors import CliError
from kgbench.cli.options import JsonOpt, StoreOpt, reading
from kgbench.cli.output import (
    ProgressReporter,
    emit_json,
    err,
    field,
    note,
    one_line,
    out,
    progress,
)
from kgbench.cli.render import (
    Labels,
    entity_table,
    fact_line,
    path_text,
    predicate_table,
    print_entity,
    search_table,
)
from kgstore import Entity, Fact, Literal, Store, Subgraph, to_jsonable
from kgstore.lookup import (
    entity_facts,
    lookup_entity,
    path_document,
    resolve_entity,
    search_document,
)

SOURCE_COUNTS = ("lines", "triples", "malformed", "facts_new", "entities_new")
"""Counts of a source record shown by `kgbench stats` (--json has them all)."""


def resolve(store: Store, text: str, what: str = "entity") -> Entity:
    """An entity by exact id, else by unambiguous name; several share the name: list
    them and exit 2; none: exit 1."""
    found = resolve_entity(store, text)
    if found.entity is not None:
        if found.by_name:
            note(f"'{one_line(text)}' is the name of {one_line(found.entity.id)}")
        return found.entity
    if found.matches:
        err.print(entity_table(found.matches,
                               title=f"'{field(text)}' names {len(found.matches)} entities"))
        raise CliError(
            f"'{one_line(text)}' is ambiguous: it names {len(found.matches)} entities",
            f"pass one of the ids above as the {what}", code=2,
        )
    raise CliError(
        f"no entity with id or name '{one_line(text)}'",
        f'find candidates with `kgbench search "{one_line(text[:40])}"`',
    )


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
    with reading(ctx, store) as s:
        st = s.stats()
        preds = s.predicates(limit=top) if top else []
    if as_json:
        doc = to_jsonable(st)
        doc["top_predicates"] = to_jsonable(preds)
        emit_json(doc)
        return
    out.print(f"[bold]Store[/] {field(st.location)} [dim]({st.backend}, schema "
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
            status = r.status if r.status == "complete" else f"[yellow]{field(r.status)}[/]"
            shown = {k: r.counts[k] for k in SOURCE_COUNTS if k in r.counts} or r.counts
            src.add_row(field(r.file), field(r.format), status,
                        escape("\n".join(f"{k}={v:,}" for k, v in shown.items())),
                        _when(r.loaded_at))
        out.print(src)
    else:
        out.print("[dim]no sources recorded[/]")
    if preds:
        out.print(predicate_table(preds, title=f"Top {len(preds)} predicates"))


def _when(iso: str) -> str:
    """An ISO timestamp as date and time (two lines) in UTC; unparseable text unchanged."""
    try:
        moment = _dt.datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        moment = moment.astimezone(_dt.UTC)
    return moment.strftime("%Y-%m-%d\n%H:%M")


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
    with reading(ctx, store) as s:
        preds = s.predicates(limit=limit)
    if as_json:
        emit_json({"predicates": preds})
        return
    out.print(predicate_table(preds))


def prepare_search(store: Store) -> None:
    """Build the store's search index now, with progress, if it has none yet (a store
    written before there was one): once, then it is kept beside the store. The
    progress display starts with the first step, so a store with its index prints
    nothing."""
    with contextlib.ExitStack() as stack:
        reporters: list[ProgressReporter] = []

        def report(step: str, done: int, total: int | None) -> None:
            if not reporters:
                reporters.append(ProgressReporter(stack.enter_context(progress())))
            reporters[0](step, done, total)

        if store.prepare_search(report):
            note("built the search index of this store (kept beside it; loads keep it up "
                 "to date)")


def search(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(
        metavar="TEXT", help="Words or part of a name or alias (accents and case ignored).")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many to list.")] = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find named entities by words or parts of their names and aliases.

    A name matches exactly, by the start of one of its words ("obama" and "barack ob"
    find Barack Obama), or as a substring ("bam"); accents, case and punctuation are
    ignored. Exact matches come first, then word starts, then substrings, each by
    degree (the facts touching the entity, most first). CVTs are left out.

    Example: kgbench search obama
    """
    with reading(ctx, store) as s:
        prepare_search(s)
        found = s.search(text, limit=limit)
    if as_json:
        emit_json(search_document(text, found))
        return
    if not found:
        out.print(f"no entity name or alias holds '{field(text)}' [dim](check the spelling, "
                  "or search for one word of it)[/]")
        return
    out.print(search_table(found, title=f"{len(found)} match(es) for '{field(text)}'"))


def entity(
    ctx: typer.Context,
    name_or_id: Annotated[str, typer.Argument(metavar="NAME_OR_ID",
                                              help="An entity id, or a name / alias.")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1,
                                       help="Facts shown per direction.")] = 20,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show an entity and its facts, looked up by id, then by name, then by search.

    An exact id wins; otherwise every entity with that name or alias is shown (names
    are shared: "Paris" is a city and a film); otherwise the text is searched for as
    `kgbench search` does ("obama" finds Barack Obama): one result is shown, several
    are listed.

    Example: kgbench entity "Titanic" --limit 10
    """
    with reading(ctx, store) as s:
        if s.entity(name_or_id) is None and not s.find_by_name(name_or_id, limit=1):
            prepare_search(s)
        found = lookup_entity(s, name_or_id)
        if not found.found:
            raise CliError(f"no entity with id or name '{one_line(name_or_id)}', and no name "
                           "or alias holds it",
                           "check the spelling, or search for one word of it with "
                           "`kgbench search WORD`")
        labels = Labels(s)
        docs = [entity_facts(s, e, limit) for e in found.entities]
        for doc in docs:
            labels.add_facts(doc.facts_out + doc.facts_in)
    entities, candidates, matched_by = found.entities, found.candidates, found.matched_by
    if as_json:
        emit_json({"query": name_or_id, "matched_by": matched_by, "results": docs,
                   "candidates": candidates, "names": labels.json()})
        return
    if matched_by == "id":
        note(f"matched the id {one_line(name_or_id)}")
    elif matched_by == "name":
        note(f"matched the name '{one_line(name_or_id)}': {len(entities)} entit"
             f"{'y' if len(entities) == 1 else 'ies share it'}")
    else:
        note(f"no exact id or name; searched for '{one_line(name_or_id)}'")
    if len(candidates) > 1:
        out.print(entity_table(candidates, title=f"entities whose names hold "
                               f"'{field(name_or_id)}', best first"))
        out.print("[dim]pass one of these ids (or a full name) to see its facts[/]")
        return
    for i, doc in enumerate(docs):
        if len(docs) > 1:
            out.rule(f"{i + 1} of {len(docs)}: {field(doc.entity.id)}")
        print_entity(doc, labels)


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
    tree = Tree(Text(one_line(labels.with_id(center.id)), style="bold cyan"))
    for hop in range(1, hops + 1):
        reached = [i for i, h in sub.hops.items() if h == hop]
        cvts = sum(1 for i in reached if i in sub.entities and sub.entities[i].is_cvt)
        facts = by_hop.get(hop, [])
        branch = tree.add(Text(f"hop {hop}: {len(reached)} entities ({cvts} CVT), "
                               f"{len(facts)} facts", style="bold"))
        for f in facts[:show]:
            branch.add(fact_line(f, labels))
        if len(facts) > show:
            branch.add(Text(f"… {len(facts) - show} more (raise --show, or use --json)",
                            style="dim"))
    out.print(tree)
    if sub.truncated:
        out.print("[yellow]truncated:[/] a fan-out cap dropped edges, so this is a sample of "
                  "the neighbourhood (raise --max-per-node / --max-facts)")


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
    with reading(ctx, store) as s:
        center = resolve(s, id, "centre")
        sub = s.neighborhood(center.id, hops=hops, max_per_node=max_per_node,
                             max_facts=max_facts)
        labels = Labels(s)
        labels.entities.update(sub.entities)
        labels.add_facts(sub.facts)
    if as_json:
        emit_json({"center": center.id, "hops": hops, "entities": sub.entities,
                   "facts": sub.facts, "distance": sub.hops, "truncated": sub.truncated})
        return
    _print_neighborhood(center, sub, labels, hops, show)


def paths(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(metavar="A", help="Source entity id (or unambiguous name).")],
    b: Annotated[str, typer.Argument(metavar="B", help="Target entity id (or unambiguous name).")],
    max_length: Annotated[int, typer.Option(
        "--max-length", min=1, max=3,
        help="Longest path, in hops; a hop through a CVT counts once.")] = 3,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Paths listed.")] = 20,
    exclude: Annotated[list[str] | None, typer.Option(
        "--exclude-predicate", "-x", metavar="PREDICATE",
        help="Do not walk facts of this predicate (a glob such as 'common.*' works); "
             "repeat for more.")] = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find short paths between two entities, each once, the most telling first.

    Facts may be walked in either direction (arrows show which); literals are not
    used. A hop through a CVT (mediator) counts once, as in `neighbors`; where two
    entities are linked by a fact and its inverse, a path shows one of them. Paths
    through a hub (an entity with more than 200 facts: a country, a gender; marked
    "hub") come last, then shorter ones first.

    Example (demo store): kgbench paths "Al Pacino" "Francis Ford Coppola" --max-length 2
    """
    excluded = list(exclude or [])
    with reading(ctx, store) as s:
        src = resolve(s, a, "source")
        dst = resolve(s, b, "target")
        found = s.paths(src.id, dst.id, max_length=max_length, limit=limit,
                        exclude_predicates=excluded)
        labels = Labels(s, [n for p in found for n in p.nodes])
    if as_json:
        emit_json({"source": src.id, "target": dst.id, "max_length": max_length,
                   "exclude_predicates": excluded,
                   "paths": [path_document(p) for p in found], "names": labels.json()})
        return
    if not found:
        out.print(f"no path of at most {max_length} hops between {field(src.id)} and "
                  f"{field(dst.id)}")
        return
    table = Table(box=box.SIMPLE_HEAD, title=f"{len(found)} path(s)", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("hops", justify="right")
    table.add_column("path")
    for i, p in enumerate(found, 1):
        hops = f"{p.length} hub" if p.through_hub else str(p.length)
        table.add_row(str(i), hops, path_text(p, labels))
    out.print(table)
