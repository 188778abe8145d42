"""How records look on a terminal: entity labels (name, else id; CVTs marked), entity
and predicate tables, an entity with its facts, facts and paths as arrows, and a
benchmark's counts laid out like CAQA Table 5. Shared by the commands and the demo
tour, which show the same records the same way."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from extension.core.labels import COMPLEXITIES, LABELS, SPLITS
from kgbench.cli.output import field, one_line, out
from kgstore import Entity, Fact, FactPath, Literal, Predicate, Store
from kgstore.lookup import EntityFacts, fact_entity_ids
from kgstore.search_index import SearchHit

__all__ = ["COMPLEXITY_TITLES", "LABEL_TITLES", "Labels", "caqa_shares", "cell", "entity_label",
           "entity_table", "fact_line", "path_text", "predicate_table", "print_entity",
           "search_table", "table5"]


def entity_label(entity: Entity | None, id: str) -> str:
    """The name of ``entity``, ``(CVT id)`` for a nameless mediator, else ``id``."""
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
        self.add(fact_entity_ids(facts))

    def __call__(self, id: str) -> str:
        return entity_label(self.entities.get(id), id)

    def with_id(self, id: str) -> str:
        lab = self(id)
        return lab if lab.startswith("(CVT") or lab == id else f"{lab} ({id})"

    def obj(self, o: str | Literal) -> str:
        return str(o) if isinstance(o, Literal) else self.with_id(o)

    def json(self) -> dict[str, str | None]:
        return {i: e.name for i, e in self.entities.items()}


def fact_line(f: Fact, labels: Labels) -> Text:
    """``subject —predicate→ object`` with labels (a :class:`Text` is printed as is:
    the data in it goes through :func:`one_line` here)."""
    text = Text()
    text.append(one_line(labels.with_id(f.subject)), style="cyan")
    text.append(f" —{one_line(f.predicate)}→ ", style="magenta")
    text.append(one_line(labels.obj(f.object)), style="green" if f.is_literal else "cyan")
    return text


def path_text(p: FactPath, labels: Labels) -> Text:
    """A path as labelled nodes joined by arrows in the direction each fact points."""
    text = Text()
    text.append(one_line(labels.with_id(p.nodes[0])), style="cyan")
    for node, f in zip(p.nodes[1:], p.facts, strict=True):
        if f.subject == node:  # walked backwards
            text.append(f" ←{one_line(f.predicate)}— ", style="magenta")
        else:
            text.append(f" —{one_line(f.predicate)}→ ", style="magenta")
        text.append(one_line(labels.with_id(node)), style="cyan")
    return text


def entity_table(entities: Sequence[Entity], title: str | None = None,
                 extra: Sequence[tuple[str, Sequence[str]]] = ()) -> Table:
    """id, name and (the first three) types of each entity, and the ``extra`` columns
    (a header and one value per entity, right-aligned). ``title`` is markup."""
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("id", style="cyan", no_wrap=True)
    table.add_column("name")
    table.add_column("types", style="dim")
    for header, _ in extra:
        table.add_column(header, justify="right")
    for i, e in enumerate(entities):
        types = ", ".join(e.types[:3]) + (f" +{len(e.types) - 3}" if len(e.types) > 3 else "")
        table.add_row(field(e.id), field(entity_label(e, e.id)), field(types),
                      *(values[i] for _, values in extra))
    return table


def search_table(hits: Sequence[SearchHit], title: str | None = None) -> Table:
    """:func:`entity_table` of what a search found, with how each matched and its facts."""
    return entity_table([hit.entity for hit in hits], title,
                        extra=(("match", [hit.match for hit in hits]),
                               ("facts", [f"{hit.facts:,}" for hit in hits])))


def predicate_table(preds: Sequence[Predicate], title: str | None = None) -> Table:
    """Predicates with their labels and fact counts."""
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("predicate", style="magenta")
    table.add_column("label")
    table.add_column("facts", justify="right")
    for p in preds:
        table.add_row(field(p.id), field(p.label or ""), f"{p.count:,}")
    return table


def cell(value: Any) -> str:
    """A Cypher result value as table text (one line, :func:`one_line`): ``∅`` for
    null, JSON for non-strings."""
    if value is None:
        return "∅"
    if isinstance(value, str):
        return one_line(value)
    return one_line(json.dumps(value, ensure_ascii=False, default=str))


def print_entity(doc: EntityFacts, labels: Labels) -> None:
    """An entity's properties, then its facts out and in (labels fetched already)."""
    e = doc.entity
    head = Table(box=box.ROUNDED, show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column()
    head.add_row("name", field(e.name or "—"))
    head.add_row("id", field(e.id))
    head.add_row("types", field(", ".join(e.types) or "—"))
    if e.aliases:
        head.add_row("aliases", field(", ".join(e.aliases)))
    head.add_row("cvt", "yes (mediator node)" if e.is_cvt else "no")
    if e.description:
        head.add_row("description", field(e.description))
    out.print(head)
    fo = Table(title=f"facts out ({len(doc.facts_out)}{'+' if doc.more_out else ''})",
               box=box.SIMPLE_HEAD, title_justify="left")
    fo.add_column("predicate", style="magenta")
    fo.add_column("object")
    for f in doc.facts_out:
        fo.add_row(field(f.predicate), field(labels.obj(f.object)))
    out.print(fo)
    fi = Table(title=f"facts in ({len(doc.facts_in)}{'+' if doc.more_in else ''})",
               box=box.SIMPLE_HEAD, title_justify="left")
    fi.add_column("subject")
    fi.add_column("predicate", style="magenta")
    for f in doc.facts_in:
        fi.add_row(field(labels.with_id(f.subject)), field(f.predicate))
    out.print(fi)
    if doc.more_out or doc.more_in:
        out.print("[dim]more facts exist; raise --limit to see them[/]")


LABEL_TITLES = {"supportive": "supportive", "partially_supportive": "partial",
                "contradictory": "contradictory", "irrelevant": "irrelevant"}
COMPLEXITY_TITLES = {"single": "single", "union": "union", "intersection": "intersect.",
                     "concatenation": "concat."}


def table5(stats: dict[str, Any]) -> Table:
    """The counts laid out like CAQA Table 5: one row per split × label, one column
    per complexity, with totals."""
    table = Table(title="Samples by split, label and complexity (cf. CAQA Table 5)",
                  box=box.SIMPLE_HEAD)
    table.add_column("split")
    table.add_column("label")
    for c in (*COMPLEXITIES, "total"):
        table.add_column(COMPLEXITY_TITLES.get(c, c), justify="right")
    grand = {c: 0 for c in COMPLEXITIES}
    for split in SPLITS:
        block = stats["by_split"][split]
        for i, label in enumerate(LABELS):
            row = [block[label][c] for c in COMPLEXITIES]
            for c, v in zip(COMPLEXITIES, row, strict=True):
                grand[c] += v
            table.add_row(split if i == 0 else "", LABEL_TITLES[label],
                          *(f"{v:,}" for v in row), f"{sum(row):,}",
                          end_section=i == len(LABELS) - 1)
    table.add_row("all", "", *(f"{grand[c]:,}" for c in COMPLEXITIES),
                  f"{sum(grand.values()):,}", style="bold")
    return table


def caqa_shares(stats: dict[str, Any]) -> Table:
    """Our label and complexity shares beside CAQA Table 5's, with the difference in
    percentage points; a label more than 5 points away is marked (:mod:`extension.
    caqa_table5`)."""
    from extension.outputs.caqa_table5 import (
        CAQA_TABLE5_SAMPLES,
        LABEL_TOLERANCE_POINTS,
        compare_with_caqa,
        counts_of_stats,
    )

    comparison = compare_with_caqa(counts_of_stats(stats))
    table = Table(title=f"Share of all samples vs CAQA Table 5 ({CAQA_TABLE5_SAMPLES:,} "
                  "samples)", box=box.SIMPLE_HEAD)
    for column in ("", "", "ours", "CAQA", "diff (points)"):
        table.add_column(column, justify="right" if column else "left")
    titles = {**LABEL_TITLES, **COMPLEXITY_TITLES}
    for row in comparison.rows:
        flag = (f" [red]off by > {LABEL_TOLERANCE_POINTS:g}[/]" if row.flagged else "")
        table.add_row(row.group, titles.get(row.name, row.name), f"{row.share:.1f}%",
                      f"{row.caqa_share:.1f}%", f"{row.diff_points:+.1f}{flag}",
                      end_section=row.name == LABELS[-1])
    return table
