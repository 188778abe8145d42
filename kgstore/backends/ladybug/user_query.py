"""A user's read-only Cypher on the embedded store (``kgbench cypher``, ``POST
/api/cypher``; :meth:`~kgstore.store.Store.cypher`): the query runs in a read-only
transaction after the engine's plan is checked to only read, with the caller's row and
time bounds, and its values come back JSON-friendly.

Three layers: the allow-list check the store makes first
(:func:`kgstore.cypher.guard.assert_read_only`) is what stops files, native code and
extensions (the engine runs ``COPY ... TO``, ``LOAD`` and ``UNINSTALL`` inside a
read-only transaction); the engine's own plan is checked to be reads only
(:mod:`kgstore.cypher.plan_check`); the read-only transaction backs both up for writes.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from typing import Any

import ladybug as lb

from kgstore.cypher.plan_check import explain_ladybug
from kgstore.cypher.values import ENGINE_DST, ENGINE_ID, ENGINE_SRC, link_graph_values
from kgstore.errors import QueryError, QueryTimeoutError, ReadOnlyQueryError
from kgstore.store import CypherResult

__all__ = ["run_read_only"]


def run_read_only(conn: lb.Connection, query: str, params: dict[str, Any], *,
                  max_rows: int | None, timeout_s: float | None) -> CypherResult:
    """The result of ``query`` (already allowed by the guard, ``params`` checked) on
    ``conn``, at most ``max_rows`` rows, stopped after ``timeout_s`` seconds."""
    conn.execute("BEGIN TRANSACTION READ ONLY")
    try:
        if timeout_s is not None:   # applies from the next statement: the query
            conn.set_query_timeout(max(1, round(timeout_s * 1000)))
        explain_ladybug(conn, query, params)   # its plan may only read
        result = conn.execute(query, params)
        assert not isinstance(result, list)   # explain_ladybug refuses several
        columns = result.get_column_names()
        # The engine holds the whole result; Python objects are made only for
        # the rows returned (3M rows made 890 MB of them).
        rows: list[Any] = []
        while (max_rows is None or len(rows) < max_rows) and result.has_next():
            rows.append(result.get_next())
        truncated = result.has_next()
        result.close()
    except RuntimeError as exc:
        if "read-only" in str(exc).lower():
            raise ReadOnlyQueryError(
                "the query tries to modify the store; the cypher command runs read-only "
                "queries only"
            ) from None
        if timeout_s is not None and "interrupted" in str(exc).lower():
            raise QueryTimeoutError(timeout_s) from None
        raise QueryError(str(exc)) from None
    finally:
        if timeout_s is not None:
            conn.set_query_timeout(0)   # none for the store's own queries
        # A failed statement already ended the transaction; only end a live one.
        with contextlib.suppress(RuntimeError):
            conn.execute("ROLLBACK")
    return CypherResult(columns=columns, rows=link_graph_values([_plain(r) for r in rows]),
                        truncated=truncated)


def _plain(value: Any) -> Any:
    """Cypher result values -> JSON-friendly Python; a node's or relationship's
    internal ids (``{"table", "offset"}``) become ``"table:offset"`` for
    :func:`~kgstore.cypher.values.link_graph_values`, which drops them."""
    if isinstance(value, dict):
        return {k: (_engine_id(v) if k in (ENGINE_ID, ENGINE_SRC, ENGINE_DST) else _plain(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    return value


def _engine_id(value: Any) -> str | None:
    if isinstance(value, dict) and "table" in value and "offset" in value:
        return f"{value['table']}:{value['offset']}"
    return None
