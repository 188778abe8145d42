"""``kgbench cypher``: a read-only Cypher query against the store, as a table or JSON.

The store is opened read-only and its guard refuses anything but reading
(:mod:`kgstore.cypher_guard`); this module parses ``--param`` and prints the result.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from kgbench.cli.options import JsonOpt, StoreOpt, reading
from kgbench.cli.output import emit_json, note, out
from kgbench.cli.render import cell


def parse_params(raw: Sequence[str]) -> dict[str, Any]:
    """``--param NAME=VALUE`` options as query parameters (VALUE as JSON, else text);
    a malformed one is a usage error."""
    params: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{item!r}: expected NAME=VALUE", param_hint="--param")
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        params[key.strip().lstrip("$")] = parsed
    return params


def cypher(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="A read-only Cypher query.")],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", metavar="NAME=VALUE",
                     help="Query parameter $NAME (VALUE parsed as JSON, else a string); repeatable."),
    ] = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run a read-only Cypher query and print the result as a table.

    Exactly one query made of read clauses is accepted: MATCH, OPTIONAL MATCH, WHERE,
    WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, UNION, and CALL of the catalogue
    functions show_tables, table_info, show_connection, show_functions, db_version.
    Anything else (CREATE, SET, DELETE, COPY, LOAD, settings, a second statement) is
    refused with the clause named, and the store is opened read-only besides.
    Schema: (:Entity {id, name, aliases, types, is_cvt, description})
    -[:Fact {predicate}]-> (:Entity) or (:Literal {value, datatype, lang});
    (:Predicate {id, label, count}).

    Example: kgbench cypher "MATCH (e:Entity) WHERE e.name = $n RETURN e.id" -p n=Titanic
    """
    params = parse_params(param or [])
    with reading(ctx, store) as s:
        result = s.cypher(query, params)
    if as_json:
        emit_json(result)
        return
    table = Table(box=box.SIMPLE_HEAD)
    for col in result.columns:
        table.add_column(escape(col))
    for row in result.rows:
        table.add_row(*(escape(cell(v)) for v in row))
    out.print(table)
    note(f"{len(result.rows)} row(s)")
