"""A process that runs users' Cypher queries on one read-only store handle, so that a
query that crashes the engine or eats memory costs that process, not its caller.

LadybugDB runs in the caller's process, and some queries the read-only check lets
through still end it: a string or list built past 2^32 from values the check cannot
see (``WITH 5000000000 AS n RETURN size(range(1, n))`` segfaults), or a value grown
step by step until the machine runs out of memory (issue 32: one query killed
``kgbench serve``). ``python -m kgstore.cypher.worker LOCATION`` opens the store at
LOCATION read-only and answers one query per line on stdin with one line on stdout,
both JSON, until stdin closes:

* it first writes ``{"ready": true}`` (or ``{"error": ...}`` and exits);
* a request is ``{"query", "params", "max_rows", "timeout_s"}``;
* before each request it reopens the store if a writer changed it since
  (:meth:`kgstore.store.Store.generation`);
* an answer is ``{"result": {"columns", "rows", "truncated"}}``, the rows made
  JSON-ready as an HTTP body holds them (:func:`kgstore.models.json_ready`), or
  ``{"error": {"type", "message", "timeout_s"}}`` naming the :mod:`kgstore.errors`
  class (``"type": "internal"`` for anything else: a bug, its message for the log).

An answer longer than ``KGBENCH_WORKER_MAX_ANSWER_BYTES`` (default 64 MiB) is replaced
by an error, so the caller never reads an unbounded line. The caller
(:mod:`kgbench.service.cypher_workers`) watches the process's memory and time, and
kills and replaces it when either runs out. The process writes no core file and
ignores Ctrl-C (its caller stops it by closing stdin).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
from typing import IO, Any

from kgstore import open_store
from kgstore.backends.ladybug.engine import buffer_pool_bytes
from kgstore.errors import QueryError, QueryTimeoutError, StoreError
from kgstore.models import json_ready

__all__ = ["DEFAULT_MAX_ANSWER_BYTES", "MAX_ANSWER_ENV", "MEMORY_ENV", "answer_line", "serve"]

MAX_ANSWER_ENV = "KGBENCH_WORKER_MAX_ANSWER_BYTES"
DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024
MEMORY_ENV = "KGBENCH_WORKER_MEMORY_MB"
"""The memory its caller allows the worker: the embedded engine's buffer pool gets at
most half of it, so that pages it caches do not count against a query."""


def _cap_buffer_pool() -> None:
    memory_mb = os.environ.get(MEMORY_ENV)
    if memory_mb:
        pool_mb = min(buffer_pool_bytes() // (1024 * 1024), int(memory_mb) // 2)
        os.environ["KGBENCH_BUFFER_POOL_MB"] = str(max(pool_mb, 64))


def _error(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, StoreError):
        kind = type(exc).__name__
    else:
        kind = "internal"
    doc: dict[str, Any] = {"type": kind, "message": str(exc)}
    if isinstance(exc, QueryTimeoutError):
        doc["timeout_s"] = exc.timeout_s
    return {"error": doc}


def answer_line(store: Any, request: dict[str, Any], max_bytes: int) -> str:
    """The answer to one request, as one JSON line (no newline)."""
    try:
        result = store.cypher(request["query"], request.get("params") or {},
                              max_rows=request.get("max_rows"),
                              timeout_s=request.get("timeout_s"))
        line = json.dumps({"result": json_ready(result)}, allow_nan=False)
    except Exception as exc:   # noqa: BLE001 - every failure is an answer, never a crash
        return json.dumps(_error(exc))
    if len(line) > max_bytes:
        return json.dumps(_error(QueryError(
            f"the answer is larger than {max_bytes // (1024 * 1024)} MB; ask for fewer "
            "rows (a LIMIT) or smaller values")))
    return line


def serve(location: str, lines: IO[str], out: IO[str]) -> int:
    """Open ``location`` read-only and answer each request line of ``lines`` on
    ``out`` until ``lines`` ends; the exit status."""
    max_bytes = int(os.environ.get(MAX_ANSWER_ENV, DEFAULT_MAX_ANSWER_BYTES))
    _cap_buffer_pool()
    try:
        store = open_store(location, read_only=True)
    except Exception as exc:   # noqa: BLE001 - the caller reports it
        out.write(json.dumps(_error(exc)) + "\n")
        out.flush()
        return 1
    try:
        out.write('{"ready": true}\n')
        out.flush()
        seen = store.generation()
        for line in lines:
            try:
                request = json.loads(line)
                # A load into the store since: the query reads what it holds now (a
                # read-only handle keeps reading what it held when it was opened).
                if (now := store.generation()) != seen:
                    store.close()
                    store, seen = open_store(location, read_only=True), now
            except ValueError as exc:
                answer = json.dumps(_error(exc))
            except StoreError as exc:   # the store cannot be reopened right now
                answer = json.dumps(_error(exc))
            else:
                answer = answer_line(store, request, max_bytes)
            out.write(answer + "\n")
            out.flush()
    finally:
        store.close()
    return 0


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # a crash leaves no core file
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python -m kgstore.cypher.worker LOCATION\n")
        sys.exit(2)
    # The answers get the real stdout to themselves; anything else that prints (a
    # library's warning) goes to stderr instead of into the protocol.
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    sys.exit(serve(sys.argv[1], requests, answers))


if __name__ == "__main__":
    main()
