"""Options shared by several commands: which store (``--store``, global or per
command, else ``$KGBENCH_STORE``, else :data:`DEFAULT_STORE`) and ``--json``.

A store location is a string, never a :class:`~pathlib.Path`, from the command line to
:func:`kgstore.open_store`: ``Path`` would turn ``bolt://host:7687`` into
``bolt:/host:7687``. :func:`store_location` checks it before anything touches the file
system (a Neo4j URI, or a directory; any other URI is refused, so no command creates a
folder such as ``./bolt:``); :func:`local_store` wants a directory (the demo).

Input files are checked by the commands, not by Click: every ``Path`` parameter that
names an input says ``readable=False``, because Click's own check (Typer turns it on by
default) printed an unreadable file as a multi-line box with exit 2, where a missing
file got one line and exit 1. An unreadable or missing input file is one ``Error:``
line and exit 1 (:func:`readable_input`, and the loaders' own checks).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from kgstore import Store, open_store
from kgstore.location import checked_location, local_store_path
from loaders.errors import InputFileError
from loaders.input_file import check_input_file

__all__ = ["DEFAULT_STORE", "DEMO_STORE", "STORE_ENV", "JsonOpt", "LlmCacheOpt", "LlmModelOpt",
           "LlmRetriesOpt", "LlmRpsOpt", "LlmTimeoutOpt", "ProtocolOpt", "State", "StoreOpt",
           "any_store", "finite_number", "local_store", "prompts_option", "protocol_choice",
           "readable_input", "reading", "store_location"]

DEFAULT_STORE = "kgbench-data/store"
DEMO_STORE = "kgbench-data/demo-store"
STORE_ENV = "KGBENCH_STORE"

@dataclass(slots=True)
class State:
    """What the root callback learnt from the global options (``ctx.obj``)."""

    store: str
    explicit: bool  # --store given on the command line (not env/default)


StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store", metavar="STORE", show_default=False,
        help=f"Store: a directory (embedded) or a Neo4j URI (bolt://host:7687 or bolt://host:7687/DATABASE, "
        f"credentials in $KGBENCH_NEO4J_AUTH); overrides the global --store / ${STORE_ENV} "
        f"(default {DEFAULT_STORE}).",
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")
]


def local_store(location: str) -> str:
    """``location`` when it is a directory path; a URI (``bolt://…``, ``http://…``)
    raises :class:`~kgstore.location.StoreLocationError` (one line naming it) before
    anything is created. :mod:`kgstore.location` decides what a location is."""
    local_store_path(location)
    return location


def any_store(location: str) -> str:
    """``location`` when a backend can open it (a directory or a Neo4j URI, see
    :func:`kgstore.location.checked_location`); one line and nothing created otherwise."""
    return checked_location(location)


def store_location(ctx: typer.Context, store: str | None) -> str:
    """The store a command uses: its own ``--store``, else the global one (which
    Typer fills from ``$KGBENCH_STORE`` or the default), checked by :func:`any_store`."""
    if store is None:
        state = ctx.obj if isinstance(ctx.obj, State) else None
        store = state.store if state else (os.environ.get(STORE_ENV) or DEFAULT_STORE)
    return any_store(store)


@contextmanager
def reading(ctx: typer.Context, store: str | None) -> Iterator[Store]:
    """The store opened read-only (several readers may share it; nothing is changed)."""
    with open_store(store_location(ctx, store), read_only=True) as s:
        yield s


def finite_number(low: float, high: float | None,
                  message: str) -> Callable[[float | None], float | None]:
    """A Typer callback for a float option: ``nan``, ``inf`` and numbers outside
    ``[low, high]`` are a usage error (exit 2) saying ``message``, e.g. "must be a
    number between 0 and 1". Typer's own ``min``/``max`` let ``nan`` through to a
    misleading "should be less than or equal to 1" (every comparison with NaN is
    false), so float options check here instead. ``None`` (not given) passes."""
    def check(value: float | None) -> float | None:
        if value is None:
            return None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            raise typer.BadParameter(message)
        return value
    return check


def readable_input(path: Path) -> Path:
    """``path``, once this user may open it: :class:`~loaders.errors.InputFileError`
    (``PATH: permission denied; ...``, exit 1, the form of a missing file) when the
    system refuses, and (``PATH: is a FIFO (named pipe), not a regular file; ...``) for
    a FIFO, a device or a socket, which would block or never end
    (:func:`loaders.input_file.open_input`). A missing file or a directory is left to
    the command, whose own message says what to create or pass."""
    try:
        check_input_file(path)
    except PermissionError:
        raise InputFileError(path, "permission denied; check the file's permissions") from None
    except OSError:
        pass
    return path


# The options of the LLM client, shared by every command that asks an LLM (generate,
# evaluate): one wording, one check of each value. Each command writes its own --llm-url
# help (what the LLM is asked for there).
LlmModelOpt = Annotated[
    str | None, typer.Option("--llm-model", metavar="NAME", help="Model name for --llm-url.")
]
LlmTimeoutOpt = Annotated[
    float, typer.Option("--llm-timeout", metavar="SECONDS",
                        callback=finite_number(0.1, None, "must be a number of seconds, "
                                               "at least 0.1"),
                        help="Deadline of one whole LLM request, its retries and "
                        "their waits included.")
]
LlmRetriesOpt = Annotated[
    int, typer.Option("--llm-retries", min=0,
                      help="At most this many retries (exponential backoff) of a failed "
                      "request, within its --llm-timeout deadline.")
]
LlmRpsOpt = Annotated[
    float | None, typer.Option("--llm-rps", metavar="N",
                               callback=finite_number(0.01, None, "must be a number, at "
                                                      "least 0.01 (leave --llm-rps out "
                                                      "for no limit)"),
                               help="At most N LLM requests per second (per process: per "
                               "worker of generate --workers).")
]
LlmCacheOpt = Annotated[
    Path, typer.Option("--llm-cache", metavar="DIR",
                       help="Cache of LLM responses (reruns cost nothing).")
]


# The options of the ONNX scorers, shared by every command that runs models (score,
# kalma score, conner score): one wording, one check.
DeviceOpt = Annotated[
    str, typer.Option("--device", metavar="DEVICE",
                      help="Where the models run: auto (CUDA when it really runs, else CPU), "
                      "cpu or cuda.")
]
ThreadsOpt = Annotated[
    int | None, typer.Option("--threads", min=1, metavar="N",
                             help="CPU threads per model (default: onnxruntime's choice).")
]
LlmParallelOpt = Annotated[
    int, typer.Option("--llm-parallel", min=1, max=64, help="LLM requests in flight at once.")
]


# The protocol of a scoring command's numbers (evaluate, kalma score, conner score): one
# wording, one check; what each protocol means is :mod:`scoring.protocol`'s.
ProtocolOpt = Annotated[
    str, typer.Option("--protocol", metavar="PROTOCOL",
                      help="kgbench (kgbench's documented definitions) or released (every "
                      "number as the paper's released code computes it, its NaN as null); "
                      "README: Protocols.")
]


def protocol_choice(value: str) -> str:
    """The ``--protocol`` value, checked: an unknown one is a usage error (exit 2, one
    line naming the choices). Returns the protocol's name (``kgbench`` or ``released``)."""
    from kgbench.cli.errors import CliError
    from scoring.errors import ScoringError
    from scoring.protocol import protocol_of

    try:
        return protocol_of(value)
    except ScoringError as exc:
        raise CliError(str(exc), exc.hint, code=2) from None


def prompts_option(help_text: str) -> Any:
    """``--prompts FILE``: a user's prompt file in place of kgbench's own prompts (one
    spelling for every command; each command says in ``help_text`` which file and
    layout it takes, as each writes its own ``--llm-url`` help). The file is read and
    checked by :mod:`llm.prompt_file`, so Click does not check it."""
    return typer.Option("--prompts", metavar="FILE", readable=False, show_default=False,
                        help=help_text)
QuestionLimitOpt = Annotated[
    int | None, typer.Option("--limit", min=1, help="Only the first N questions.")
]
ClassesOpt = Annotated[
    bool, typer.Option("--classes/--no-classes", help="Apply class constraints when grounding.")
]
CaqaStrictOpt = Annotated[
    bool, typer.Option("--caqa-strict",
                       help="Edit exactly as CAQA §4.3: no partially supportive sample "
                       "for single questions, a union's contradiction replaces one answer.")
]
