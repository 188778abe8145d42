"""``kgbench cypher``: a read-only Cypher query against the store, as a table or JSON.

The store is opened read-only and its guard refuses anything but reading
(:mod:`kgstore.cypher.guard`); this module parses ``--param`` and prints the result.

A query is bounded twice: at most ``--limit-rows`` rows are printed (the store makes
Python objects of no more), and the engine stops a query still running after
``--timeout``. The engine checks that limit only while it executes; compiling a query
(which the guard's size limits keep to a few seconds) is not interrupted, so a
watchdog ends the process a little after the limit if the engine has not returned.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from kgbench.cli.errors import CliError, print_error
from kgbench.cli.options import JsonOpt, StoreOpt, reading
from kgbench.cli.output import emit_json, note, out
from kgbench.cli.render import cell
from kgstore.cypher.guard import Dialect, assert_read_only, parameter_names
from kgstore.cypher.params import MAX_PARAMETER_DEPTH, check_parameters, json_nesting
from kgstore.cypher.worker_client import run_query_in_worker
from kgstore.errors import QueryParameterError, QueryTimeoutError, QueryTooLargeError
from kgstore.store import CypherResult

DEFAULT_LIMIT_ROWS = 10_000
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 86_400.0
"""The longest ``--timeout``: a day (the watchdog's timer and the engine's millisecond
timeout overflow on values like 1e12, issue 32)."""
WATCHDOG_GRACE_S = 2.0
"""How long after ``--timeout`` the watchdog waits for the engine's own stop, at most:
with a shorter timeout, as long again (the engine stops within a few milliseconds)."""


class _NotJson(ValueError):
    """NaN or Infinity in a --param value (Python's JSON reader accepts them)."""


def _refuse_constant(name: str) -> Any:
    raise _NotJson(name)


def _usage_error(message: str) -> CliError:
    return CliError(message, code=2)


def _parse_value(name: str, text: str) -> Any:
    """VALUE of ``--param NAME=VALUE``: JSON, else the text itself."""
    if json_nesting(text) > MAX_PARAMETER_DEPTH:
        raise _usage_error(
            f"--param {_shown(name)}: the value nests lists and maps more than "
            f"{MAX_PARAMETER_DEPTH} deep; flatten it")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except _NotJson as exc:
        try:
            json.loads(text)
        except ValueError:
            return text  # "NaN text": not JSON at all, so text
        raise _usage_error(
            f"--param {_shown(name)}: {exc} is not a JSON number; pass a finite number, or "
            f"'\"{exc}\"' for the text") from None
    except RecursionError:  # json_nesting bounds it; kept so deep text is never a traceback
        raise _usage_error(f"--param {_shown(name)}: the value nests too deep; flatten it") from None
    except ValueError:
        return text


def parse_params(raw: Sequence[str]) -> dict[str, Any]:
    """``--param NAME=VALUE`` options as query parameters (VALUE as JSON, else text),
    checked as the store will (:mod:`kgstore.cypher.params`); a malformed one, or a
    value the engine cannot take, is a usage error."""
    params: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        name = key.strip().lstrip("$")
        if not sep or not name:
            raise _usage_error(f"--param {ascii(item)}: expected NAME=VALUE")
        params[name] = _parse_value(name, value)
    try:
        return check_parameters(params)
    except QueryParameterError as exc:
        raise _usage_error(f"--param: {exc}") from None


def used_params(query: str, params: Mapping[str, Any],
                dialect: Dialect = "ladybug") -> dict[str, Any]:
    """The parameters ``query`` uses; a ``$name`` without a value is a usage error, and
    a value the query does not use gets a note (it is left out)."""
    used = parameter_names(query, dialect)
    missing = sorted(used - params.keys())
    if missing:
        name = _shown(missing[0])
        raise _usage_error(f"parameter ${name} is not given: pass -p {name}=VALUE")
    for name in sorted(params.keys() - used):
        note(f"-p {_shown(name)} is not used by the query")
    return {name: value for name, value in params.items() if name in used}


def _shown(name: str) -> str:
    """A parameter name on one line (a backquoted name may hold any character)."""
    return name if name.isprintable() else ascii(name)[1:-1]


@contextmanager
def _hard_deadline(seconds: float, message: str) -> Iterator[None]:
    """End the process with ``message`` if the block runs past ``seconds``: the engine
    does not interrupt a query it is still compiling, and a read-only store has
    nothing to lose when the process ends."""
    def stop() -> None:
        print_error(message)
        sys.stderr.flush()
        os._exit(1)

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def cypher(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="A read-only Cypher query.")],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", metavar="NAME=VALUE",
                     help="Query parameter $NAME (VALUE parsed as JSON, else a string); repeatable."),
    ] = None,
    limit_rows: Annotated[
        int,
        typer.Option("--limit-rows", min=1, metavar="N",
                     help="Print at most N rows (the output says when there were more)."),
    ] = DEFAULT_LIMIT_ROWS,
    timeout: Annotated[
        float,
        typer.Option("--timeout", min=0.001, max=MAX_TIMEOUT_S, metavar="SECONDS",
                     help="Stop a query still running after SECONDS (at most a day)."),
    ] = DEFAULT_TIMEOUT_S,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run a read-only Cypher query and print the result as a table.

    Exactly one query made of read clauses is accepted: MATCH, OPTIONAL MATCH, WHERE,
    WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, UNION, and CALL of the catalogue
    functions (embedded: show_tables, table_info, show_connection, show_functions,
    db_version; Neo4j: db.labels, db.relationshipTypes, db.propertyKeys, db.schema.*,
    dbms.components). Anything else (CREATE, SET, DELETE, COPY, LOAD, settings, a
    second statement, apoc.*) is refused with the clause named; the engine's own plan
    of the query (EXPLAIN) must hold read operators only, and it runs in a read-only
    transaction besides. So is a query beyond the engine's limits (4,000 tokens,
    brackets 32 deep, CASE 4 deep; embedded: repeat/lpad/rpad up to 1,000,000
    characters, written as literals). Every $NAME the query uses needs a --param.
    With --json, NaN and Infinity are null.

    Schema, the same on both backends (a query ports between them):
    (:Entity {id, name, aliases, types, is_cvt, description})
    -[:Fact {predicate}]-> (:Entity) or (:Literal {value, datatype, lang, num, date});
    (:Name {key})-[:NAMES]->(:Entity) with lower-cased names and aliases;
    (:Predicate {id, label, count}). A label or property outside it is an error on
    both. Functions differ: list_contains(e.types, 'x') embedded, 'x' IN e.types on
    Neo4j (--store bolt://host:7687).

    Example: kgbench cypher "MATCH (e:Entity) WHERE e.name = $n RETURN e.id" -p n=Titanic
    """
    given = parse_params(param or [])
    stopped = (f"the query ran past --timeout {timeout:g} s; narrow it (a LIMIT, a WHERE "
               "on e.id) or raise --timeout")
    with reading(ctx, store) as s:
        try:
            assert_read_only(query, s.dialect)   # the store's Cypher: ladybug or neo4j
        except QueryTooLargeError as exc:
            raise CliError(str(exc)) from None  # not a write: the read-only hint would mislead
        params = used_params(query, given, s.dialect)
        deadline = timeout + min(timeout, WATCHDOG_GRACE_S)
        try:
            if s.dialect == "ladybug":
                # The embedded engine runs in-process, and a query the check lets through
                # can still end it (a list past 2^32 built from a variable: a segfault);
                # in a worker process that costs the worker and says so in one line.
                doc = run_query_in_worker(s.location, query, params, max_rows=limit_rows,
                                          timeout_s=timeout, deadline_s=deadline)
                result = CypherResult(columns=doc["columns"], rows=doc["rows"],
                                      truncated=bool(doc["truncated"]))
            else:
                with _hard_deadline(deadline, stopped):
                    result = s.cypher(query, params, max_rows=limit_rows, timeout_s=timeout)
        except QueryTimeoutError:
            raise CliError(stopped) from None
    if as_json:
        emit_json(result)
    else:
        table = Table(box=box.SIMPLE_HEAD)
        for col in result.columns:
            table.add_column(escape(col))
        for row in result.rows:
            table.add_row(*(escape(cell(v)) for v in row))
        out.print(table)
        note(f"{len(result.rows)} row(s)")
    if result.truncated:
        note(f"the result was truncated: it has more than {limit_rows:,} rows and only the "
             f"first {limit_rows:,} are shown; raise --limit-rows to see more")
