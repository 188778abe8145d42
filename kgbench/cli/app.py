"""The ``kgbench`` Typer app: the global options and every command, registered here
once, and :func:`main`, which turns our errors into one-line messages.

Every query command prints tables for people and, with ``--json``, exactly one JSON
document on stdout for programs (progress and notes always go to stderr). Errors from
the store, the loaders and the engine become one red ``Error: ...`` line plus a hint
(exit 1; usage errors exit 2), never a traceback (:mod:`kgbench.cli.errors`).
Read-only commands open the store with ``read_only=True`` so they cannot modify it.

The command modules import the shared ones (:mod:`~kgbench.cli.options`,
:mod:`~kgbench.cli.output`, :mod:`~kgbench.cli.errors`, :mod:`~kgbench.cli.render`)
and never each other; only this module imports them all.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Sequence
from typing import Annotated

import typer
import typer.core

from kgbench.cli import (
    conner,
    cypher,
    demo,
    evaluate,
    explore,
    export,
    extend,
    generate,
    kalma,
    load,
    model,
    questions,
    score,
    serve,
    store,
)
from kgbench.cli.errors import (
    INTERRUPTED_EXIT,
    Interrupted,
    ctrl_c_seen,
    print_interrupted,
    quiet_teardown,
    report_error,
    watch_ctrl_c,
)
from kgbench.cli.options import DEFAULT_STORE, STORE_ENV, State
from kgbench.cli.output import show_warning

__all__ = ["app", "main"]


def _show_flags_without_a_value() -> None:
    """Make ``--help`` list a flag as a flag (``--strict``), not as ``--strict <bool>``.

    Typer 0.29's rich help prints every option's value type, flags included (even
    ``--help``), which reads as if ``--strict true`` were the way to set one; its plain
    help and click leave the type out for flags. The type column of the rich help comes
    from ``TyperOption.display_type_rich``: for a flag (or a counter) it now gives
    nothing. Typer versions without that method need nothing.
    """
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if option is None or shown is None or getattr(shown, "flags_without_a_value", False):
        return

    def display_type_rich(self: typer.core.TyperOption, ctx: typer.Context) -> str | None:
        if self.is_flag or self.count:
            return None
        return shown(self, ctx)

    display_type_rich.flags_without_a_value = True  # type: ignore[attr-defined]
    option.display_type_rich = display_type_rich


_show_flags_without_a_value()

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


@app.callback()
def _root(
    ctx: typer.Context,
    store: Annotated[
        str,
        typer.Option(
            "--store", envvar=STORE_ENV, metavar="STORE",
            help="Store: a directory (embedded LadybugDB, created by `kgbench load`) or a "
            "Neo4j 5 database, bolt://host:7687 or bolt://host:7687/DATABASE (credentials in "
            "$KGBENCH_NEO4J_AUTH=user/password, never in the URI).",
        ),
    ] = DEFAULT_STORE,
) -> None:
    """kgbench turns knowledge graphs into benchmarks for attributed question answering."""
    source = ctx.get_parameter_source("store")
    # Compared by name: the enum lives in click (vendored privately by newer Typer).
    ctx.obj = State(store=store, explicit=getattr(source, "name", "") == "COMMANDLINE")


# In the order `kgbench --help` lists them.
app.add_typer(load.load_app, name="load")
app.command("stats")(explore.stats)
app.command("predicates")(explore.predicates)
app.command("search")(explore.search)
app.command("entity")(explore.entity)
app.command("neighbors")(explore.neighbors)
app.command("paths")(explore.paths)
app.command("cypher")(cypher.cypher)
app.command("demo")(demo.demo)
app.command("export")(export.export_cmd)
app.command("extend")(extend.extend_cmd)
app.command("generate")(generate.generate_cmd)
app.command("score")(score.score_cmd)
app.command("evaluate")(evaluate.evaluate_cmd)
app.command("serve")(serve.serve)
app.add_typer(questions.questions_app, name="questions")
app.add_typer(store.store_app, name="store")
app.add_typer(model.model_app, name="model")
app.add_typer(kalma.kalma_app, name="kalma")
app.add_typer(conner.conner_app, name="conner")


def _reflowed(doc: str) -> str:
    """A command's docstring as its ``--help`` shows it: the lines of each prose
    paragraph joined, so that rich wraps them to the terminal (the docstrings are
    wrapped at 90 columns and Typer keeps their line breaks: at 80 columns every line
    broke in two). Paragraphs of examples or lists (an indented line, a ``*`` or ``-``
    item) keep their lines."""
    paragraphs = []
    for paragraph in inspect.cleandoc(doc).split("\n\n"):
        lines = paragraph.split("\n")
        if any(line[:1].isspace() or line.lstrip().startswith(("* ", "- ", "\b"))
               for line in lines):
            paragraphs.append(paragraph)
        else:
            paragraphs.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(paragraphs)


def _reflow_help(group: typer.Typer) -> None:
    """:func:`_reflowed` help for every command of ``group`` and its subgroups."""
    for info in group.registered_commands:
        doc = info.help or (inspect.getdoc(info.callback) if info.callback else None)
        if doc:
            info.help = _reflowed(doc)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _reflow_help(sub.typer_instance)


_reflow_help(app)


def _after_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while handling a ``KeyboardInterrupt`` (Typer's
    ``Exit(130)`` is raised from one)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the app, turning our errors into one-line
    messages (exit 1) instead of tracebacks. Warnings are shown through
    :func:`~kgbench.cli.output.visible` like everything else. Ctrl-C outside a
    command's :func:`~kgbench.cli.errors.on_interrupt` block (Typer exits 130 without
    a word) still says "interrupted"."""
    warnings.showwarning = show_warning
    try:
        with watch_ctrl_c():
            app(args=list(argv) if argv is not None else None, prog_name="kgbench")
    except SystemExit as exc:
        if exc.code == INTERRUPTED_EXIT and _after_ctrl_c(exc):
            quiet_teardown()
            print_interrupted()
        raise
    except KeyboardInterrupt:   # before Typer's own handling began (building the app)
        sys.exit(report_error(Interrupted()))
    except Exception as exc:  # only ours are reported; anything else is a bug
        if ctrl_c_seen() and not isinstance(exc, Interrupted):
            exc = Interrupted()   # an engine's own error for the interrupt
        code = report_error(exc)
        if code is None:
            raise
        sys.exit(code)
