"""One query in a :mod:`kgstore.cypher.worker` process, for a caller that must outlive
it: the ``kgbench cypher`` command on the embedded store, where a query the read-only
check lets through can still end the engine's process (``WITH 4294967296 AS n RETURN
size(range(1, n))`` is a segfault inside LadybugDB: issue 32). The query costs the
worker, and the caller gets one :class:`~kgstore.errors.QueryError` naming the signal.
The service keeps long-lived workers of its own (:mod:`kgbench.service.cypher_workers`);
both read the worker's answers with :func:`error_from_answer`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import kgstore.errors as store_errors
from kgstore.errors import QueryCrashedError, QueryTimeoutError, StoreError

__all__ = ["error_from_answer", "run_query_in_worker", "signal_name"]

_SOURCE_ROOT = str(Path(__file__).resolve().parents[2])


def signal_name(returncode: int | None) -> str:
    """How a process ended: ``SIGSEGV`` for a signal, else its exit status."""
    if returncode is not None and returncode < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-returncode).name
        return f"signal {-returncode}"
    return f"exit status {returncode}"


def error_from_answer(doc: Mapping[str, Any]) -> Exception:
    """The exception a worker's ``{"type", "message"}`` stands for (a
    :class:`RuntimeError` for an internal error: a bug, not the user's query)."""
    kind, message = str(doc.get("type", "")), str(doc.get("message", ""))
    if kind == "QueryTimeoutError":
        return QueryTimeoutError(float(doc.get("timeout_s") or 0))
    cls = getattr(store_errors, kind, None)
    if isinstance(cls, type) and issubclass(cls, StoreError):
        try:
            return cls(message)
        except TypeError:   # a class with other arguments: the message still says it
            return StoreError(message)
    return RuntimeError(f"internal error in a Cypher worker: {kind}: {message}")


def run_query_in_worker(location: str, query: str, params: Mapping[str, Any], *,
                        max_rows: int | None, timeout_s: float | None,
                        deadline_s: float) -> dict[str, Any]:
    """``{"columns", "rows", "truncated"}`` of ``query`` run by a fresh worker on the
    store at ``location`` (read-only), rows JSON-ready. Raises the worker's error, a
    :class:`QueryCrashedError` when the worker died (the signal named), or
    :class:`QueryTimeoutError` when it is still running after ``deadline_s``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SOURCE_ROOT, env.get("PYTHONPATH")]))
    request = json.dumps({"query": query, "params": dict(params), "max_rows": max_rows,
                          "timeout_s": timeout_s}) + "\n"
    with subprocess.Popen([sys.executable, "-m", "kgstore.cypher.worker", location],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=env, text=True,
                          encoding="utf-8") as proc:
        try:
            out, _ = proc.communicate(request, timeout=deadline_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise QueryTimeoutError(timeout_s or deadline_s) from None
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    for doc in answers:
        if "error" in doc:
            raise error_from_answer(doc["error"])
        if "result" in doc:
            result: dict[str, Any] = doc["result"]
            return result
    raise QueryCrashedError(f"the query ended the database engine's process "
                     f"({signal_name(proc.returncode)}): the engine cannot run it; narrow "
                     "it (smaller values or lists, a LIMIT)")
