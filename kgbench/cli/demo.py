"""``kgbench demo``: build the bundled film KG and take a guided tour of kgbench.

The steps that read or build something are :mod:`kgbench.demo.tour`; this module
prints each step with the command a user would type for it — with every option the
step used, so that running it reproduces what the step showed (the benchmark steps'
files byte for byte).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from kgbench.cli.errors import CliError
from kgbench.cli.options import DEFAULT_STORE, DEMO_STORE, State, local_store
from kgbench.cli.output import note, out, print_command
from kgbench.cli.render import (
    LABEL_TITLES,
    Labels,
    cell,
    entity_label,
    entity_table,
    fact_line,
    path_text,
    print_entity,
    table5,
)
from kgbench.demo import tour
from kgstore import Store, open_store, store_exists
from kgstore.lookup import entity_facts


def shown_path(path: Path) -> str:
    """``path`` as the copy-paste commands name it: relative to the working directory
    when it lies below it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def print_kgbench(args: list[str], *, prompt: str = "$ ", comment: str | None = None,
                  style: str = "dim") -> None:
    """``kgbench ARGS`` as a user copies it, broken only between arguments
    (:func:`~kgbench.cli.output.print_command`)."""
    print_command(["kgbench", *args], prompt=prompt, comment=comment, style=style)


def demo(
    ctx: typer.Context,
    store: Annotated[
        str | None,
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
    _tour(Path(local_store(store)), fresh=fresh)


def _step(n: int, title: str, *commands: list[str]) -> None:
    """A step's rule and the ``kgbench`` commands (argument lists) that do the same."""
    out.print()
    out.rule(f"[bold]{n}. {escape(title)}[/]", align="left")
    for args in commands:
        print_kgbench(args)


def _tour(store_path: Path, *, fresh: bool) -> None:
    from kgbench.demo import DEMO_KG, DEMO_QUESTIONS

    questions = shown_path(DEMO_QUESTIONS)
    started = time.perf_counter()
    sp = str(store_path)
    if not store_path.is_absolute() and not sp.startswith("."):
        sp = f"./{sp}"  # shown in copy-paste commands: make it obviously a path
    opt = ["--store", sp]
    if fresh or not store_exists(str(store_path)):   # a file, or no access: one line
        note(f"building the demo store at {sp} from {DEMO_KG.name} ...")
        imp = tour.build_demo_store(str(store_path)).report.import_report
        note(f"loaded {imp.facts_new:,} facts about {imp.entities_new:,} entities "
             f"in {time.perf_counter() - started:.1f}s")
    else:
        note(f"reusing the demo store at {sp} (--fresh rebuilds it)")

    with open_store(str(store_path), read_only=True) as s:
        labels = Labels(s)

        # 1. what is there
        _step(1, "What is in the store", ["stats", *opt])
        st = s.stats()
        out.print(f"{st.entities:,} entities ({st.cvt_entities:,} of them CVT mediator nodes), "
                  f"{st.facts:,} facts ({st.literal_facts:,} with literal values), "
                  f"{st.predicates:,} predicates")

        # 2. shared names
        shared = tour.shared_names(s)
        if shared:
            name0 = shared[0][0]
            _step(2, "Names are not ids: lookup by name", ["entity", name0, *opt])
            for name, matches in shared:
                out.print(entity_table(matches, title=f"'{escape(name)}' names "
                                       f"{len(matches)} entities"))
            out.print("[dim]A benchmark must say which one a question means, so questions "
                      "carry entity ids.[/]")

        # 3. one entity with its facts
        featured = tour.featured_entity(s, shared)
        if featured is None:
            raise CliError("the demo store is empty", "rebuild it with `kgbench demo --fresh`")
        _step(3, f"An entity and its facts: {entity_label(featured, featured.id)}",
              ["entity", featured.id, "--limit", str(tour.DEMO_ENTITY_FACTS), *opt])
        doc = entity_facts(s, featured, tour.DEMO_ENTITY_FACTS)
        labels.add_facts(doc.facts_out + doc.facts_in)
        print_entity(doc, labels)

        # 4. neighbourhood through a CVT
        center, cvt_fact = tour.cvt_centre(s, featured)
        _step(4, "A 2-hop neighbourhood through a CVT",
              ["neighbors", center.id, "--hops", "2", *opt])
        sub = s.neighborhood(center.id, hops=2)  # the command's default caps
        labels.entities.update(sub.entities)
        labels.add_facts(sub.facts)
        at = {h: sum(1 for v in sub.hops.values() if v == h) for h in (1, 2)}
        out.print(f"{escape(labels.with_id(center.id))}: {at[1]} entities at hop 1, {at[2]} at hop 2, "
                  f"{len(sub.facts)} facts" + (" (capped sample)" if sub.truncated else ""))
        if cvt_fact is not None:
            cvt = cvt_fact.subject if cvt_fact.subject != center.id else str(cvt_fact.object)
            tree = Tree(fact_line(cvt_fact, labels))
            # The CVT's own (outgoing) facts; Freebase also stores their reverses.
            own = sorted((f for f in s.facts_out(cvt, limit=20) if f.object != center.id),
                         key=lambda f: (f.predicate, f.object_key))
            for f in own[:6]:
                labels.add_facts([f])
                tree.add(fact_line(f, labels))
            out.print(tree)
            out.print("[dim]The CVT (a nameless mediator node) holds an n-ary fact together; "
                      "crossing it counts as one hop, not two.[/]")

        # 5. a path
        target = tour.path_target(s, sub, center.id)
        if target is not None:
            _step(5, "Paths between two entities",
                  ["paths", center.id, target, "--max-length", "2", "--limit",
                   str(tour.DEMO_PATHS), *opt])
            found = s.paths(center.id, target, max_length=2, limit=tour.DEMO_PATHS)
            labels.add(n for p in found for n in p.nodes)
            for p in found:
                out.print(path_text(p, labels))

        # 6. the demo questions: parsed, classified and grounded, into the files the
        # printed commands write
        files = tour.QuestionFiles.under(store_path.parent)
        parsed, grounded = shown_path(files.parsed), shown_path(files.grounded)
        _step(6, "KGQA questions: parse, classify (CAQA shapes), ground",
              ["questions", "parse", questions, "--out", parsed, *opt],
              ["questions", "ground", parsed, "--out", grounded, *opt])
        tour.write_question_files(s, sp, files)
        _print_questions(s, labels)
        note(f"wrote {parsed} and {grounded} (summaries beside them: "
             f"{files.parsed.with_name('coverage.json').name}, "
             f"{files.grounded.with_name('grounding.json').name})")

    # 7-8 generate benchmarks; they open the store themselves (their worker processes may too)
    bench_dir = store_path.parent / "demo-benchmark"
    domain_dir = store_path.parent / "demo-domain-benchmark"
    _step(7, "Generate a benchmark: extend, ground, edit, verbalize (CAQA)",
          tour.generate_demo_args(sp, questions, str(bench_dir)))
    _print_generate_step(store_path, bench_dir, Path(questions))

    _step(8, "A new domain: seed questions sampled from the KG itself",
          tour.generate_domain_args(sp, str(domain_dir)))
    _print_domain_step(store_path, domain_dir)

    with open_store(str(store_path), read_only=True) as s:
        # 9. read-only cypher
        _step(9, "Read-only Cypher for anything else", ["cypher", tour.DEMO_CYPHER, *opt])
        res = s.cypher(tour.DEMO_CYPHER)
        table = Table(box=box.SIMPLE_HEAD)
        for col in res.columns:
            table.add_column(col)
        for row in res.rows:
            table.add_row(*(escape(cell(v)) for v in row))
        out.print(table)

    out.print()
    out.rule("[bold]Try next[/]", align="left")
    first_shared = shared[0][0] if shared else entity_label(featured, featured.id)
    for args, comment in (
        (["entity", first_shared, *opt], None),
        (["neighbors", center.id, "--hops", "2", *opt], None),
        (["search", "john", *opt], None),
        (["predicates", "--limit", "15", *opt], None),
        (["stats", "--json", *opt], None),
        (["export", str(bench_dir), "--to", "caqa", "--out", "demo-caqa.csv"], None),
        (["serve", *opt, "--data", str(store_path.parent)],
         "web UI and API on http://127.0.0.1:8765/"),
        (["load", "triples", "YOUR_FILE.nt.gz"], f"your own KG (default store {DEFAULT_STORE})"),
    ):
        print_kgbench(args, prompt="  ", comment=comment, style="")
    note(f"demo finished in {time.perf_counter() - started:.1f}s")


def _print_questions(s: Store, labels: Labels) -> None:
    """The bundled questions with their shape, hops, grounded answers and F1."""
    table = Table(box=box.SIMPLE_HEAD)
    for col in ("id", "shape", "hops", "question", "grounded answers", "F1"):
        table.add_column(col, justify="right" if col in ("hops", "F1") else "left")
    shapes: dict[str, int] = {}
    for row in tour.demo_questions(s):
        parsed = row.parsed
        shapes[parsed.shape] = shapes.get(parsed.shape, 0) + 1
        if row.f1 is None:
            table.add_row(parsed.id, parsed.shape, "", escape(parsed.question),
                          escape(parsed.reason or ""), "")
            continue
        shown = row.answers[:3]
        labels.add(a for a in shown if isinstance(a, str))
        answers = ", ".join(labels(a) if isinstance(a, str) else a.value for a in shown)
        if len(row.answers) > 3:
            answers += f" (+{len(row.answers) - 3})"
        table.add_row(parsed.id, parsed.shape, str(parsed.hops), escape(parsed.question),
                      escape(answers or row.outcome or ""), f"{row.f1:.2f}")
    out.print(table)
    out.print("[dim]" + ", ".join(f"{n} {shape}" for shape, n in sorted(shapes.items()))
              + ". A hop through a CVT counts as one (CAQA §4.1), so 'who played Michael "
              "Corleone in The Godfather?' is single.[/]")


def _print_generate_step(store_path: Path, out_dir: Path, questions: Path) -> None:
    """The demo benchmark: the Table-5 counts and one question's sample per label."""
    result = tour.generate_demo_benchmark(str(store_path), out_dir, questions)
    out.print(table5(result.stats))
    _print_examples(out_dir)
    note(f"{result.stats['samples']:,} samples in {out_dir / 'samples.jsonl'}; "
         f"open {out_dir / 'report.html'} for plots and a drawing of each kind of sample")


def _print_domain_step(store_path: Path, out_dir: Path) -> None:
    """Seed questions drawn from the KG's people, and the benchmark made from them."""
    from extension.core.labels import COMPLEXITIES, LABELS, SPLITS

    sampled, result = tour.generate_domain_benchmark(str(store_path), out_dir)
    questions = sampled.questions
    by_shape = {r.shape: r.produced for r in sampled.shapes}
    out.print(f"{len(questions)} seed questions sampled from {tour.DEMO_DOMAIN} ("
              + ", ".join(f"{n} {shape}" for shape, n in by_shape.items()) + "), e.g.")
    for shape in ("single", "path", "tree"):
        example = next((q for q in questions if q.shape == shape), None)
        if example is not None:
            out.print(f"  [dim]{shape}:[/] {escape(example.question)}")
    stats = result.stats
    totals = {label: sum(stats["by_split"][sp][label][c] for sp in SPLITS for c in COMPLEXITIES)
              for label in LABELS}
    out.print(f"-> {stats['samples']:,} samples: "
              + ", ".join(f"{n} {LABEL_TITLES[label]}" for label, n in totals.items())
              + f" (report: {out_dir / 'report.html'})")


def _print_examples(out_dir: Path) -> None:
    """The first sample of each label, as a reader of the benchmark sees it."""
    from extension.core.labels import LABELS

    shown = tour.example_samples(out_dir)
    first = next(iter(shown.values()), None)
    if first is None:
        return
    out.print(f"[bold]question[/] {escape(first.question)}")
    out.print(f"[bold]extended[/] {escape(first.question_extended)}  "
              f"[dim]({first.query.rule}, {first.complexity})[/]")
    out.print(f"[bold]answer[/]   {escape(first.answer)}")
    for label in LABELS:
        same = shown.get(label)
        if same is not None and same.source.qid == first.source.qid:
            out.print(f"  [bold]{LABEL_TITLES[label]:>13}[/] {escape(same.citation)}")
