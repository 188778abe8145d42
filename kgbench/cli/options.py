"""Options shared by several commands: which store (``--store``, global or per
command, else ``$KGBENCH_STORE``, else :data:`DEFAULT_STORE`) and ``--json``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from kgstore import Store, open_store

__all__ = ["DEFAULT_STORE", "DEMO_STORE", "STORE_ENV", "JsonOpt", "State", "StoreOpt",
           "reading", "store_path"]

DEFAULT_STORE = Path("kgbench-data/store")
DEMO_STORE = Path("kgbench-data/demo-store")
STORE_ENV = "KGBENCH_STORE"


@dataclass(slots=True)
class State:
    """What the root callback learnt from the global options (``ctx.obj``)."""

    store: Path
    explicit: bool  # --store given on the command line (not env/default)


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


def store_path(ctx: typer.Context, store: Path | None) -> Path:
    """The store a command uses: its own ``--store``, else the global one (which
    Typer fills from ``$KGBENCH_STORE`` or the default)."""
    if store is not None:
        return store
    state = ctx.obj if isinstance(ctx.obj, State) else None
    return state.store if state else Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


@contextmanager
def reading(ctx: typer.Context, store: Path | None) -> Iterator[Store]:
    """The store opened read-only (several readers may share it; nothing is changed)."""
    with open_store(store_path(ctx, store), read_only=True) as s:
        yield s
