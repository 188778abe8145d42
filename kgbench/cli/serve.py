"""``kgbench serve``: the HTTP API and web UI (:mod:`kgbench.service`) on one port.

This module checks the options (a missing ``--data``, a store that cannot be opened,
a public bind without a token: one line, nothing started) and runs uvicorn.
"""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Annotated

import typer

from kgbench.cli.errors import CliError
from kgbench.cli.options import StoreOpt, store_location
from kgbench.cli.output import err, note

TOKEN_ENV = "KGBENCH_TOKEN"


def _port_free(host: str, port: int) -> bool:
    """Whether ``host:port`` can be bound now (checked before the store is opened,
    so that a busy port is one clear line)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return False
            raise CliError(f"--host {host}: cannot listen there ({exc.strerror})",
                           "pass an address of this machine, e.g. 127.0.0.1", code=2) from None
    return True


def serve(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option(
        "--data", metavar="DIR", readable=False,
        help="The one directory the server reads benchmarks from and writes jobs to.")],
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on; anything but loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")
                    ] = 8765,
    token: Annotated[str | None, typer.Option(
        "--token", envvar=TOKEN_ENV, show_default=False, show_envvar=True,
        help="Shared secret: jobs and writes need it; on a non-loopback --host every "
        "request does.")] = None,
    readers: Annotated[int, typer.Option(
        "--readers", min=1, max=64, help="Store handles serving reads at once.")] = 4,
    max_jobs: Annotated[int, typer.Option(
        "--max-jobs", min=1, max=64, help="Jobs running at once.")] = 1,
    query_timeout: Annotated[float, typer.Option(
        "--query-timeout", min=0.1, max=3600, metavar="SECONDS",
        help="Longest a read (a Cypher query, a neighbourhood) may run.")] = 30.0,
    max_rows: Annotated[int, typer.Option(
        "--max-rows", min=1, max=1_000_000, help="Most rows a Cypher answer returns.")
    ] = 10_000,
    cypher_workers: Annotated[int, typer.Option(
        "--cypher-workers", min=1, max=64,
        help="Processes running Cypher queries at once (apart from the other reads).")] = 2,
    cypher_memory: Annotated[int, typer.Option(
        "--cypher-memory", min=256, max=1_048_576, metavar="MB",
        help="Memory one Cypher query may use; its process is stopped past it.")] = 2048,
    store: StoreOpt = None,
) -> None:
    """Serve the HTTP API and the web UI over a store and a data directory.

    Explore the KG (search, entities, neighbourhoods, paths, Cypher), run jobs
    (generate, score, ...) and browse the benchmarks under --data from a browser or a
    script. The API is described at /api/docs. Listens on 127.0.0.1 unless --host says
    otherwise; a server other machines can reach needs --token (or $KGBENCH_TOKEN).

    Example: kgbench serve --store ./kgbench-data/demo-store --data ./kgbench-data

    Example (shared): KGBENCH_TOKEN=s3cret kgbench serve --store bolt://db:7687 --data /srv/kg --host 0.0.0.0
    """
    from extension.outputs.output_file import check_apart_from_inputs
    from kgbench.service.settings import ServiceSettings, SettingsError
    from kgstore import open_store

    location = store_location(ctx, store)
    check_apart_from_inputs(data, [location], option="--data")   # jobs write under it
    try:
        settings = ServiceSettings(
            store=location, data_dir=data, host=host, port=port, token=token,
            readers=readers, max_jobs=max_jobs, query_timeout_s=query_timeout,
            max_rows=max_rows, cypher_workers=cypher_workers,
            cypher_memory_mb=cypher_memory).check()
    except SettingsError as exc:
        raise CliError(str(exc), code=2) from None
    if not _port_free(host, port):
        raise CliError(f"port {port} on {host} is in use", "pass another --port", code=1)
    with open_store(location, read_only=True):   # fails here, in one line, if it cannot
        pass
    import uvicorn

    from kgbench.service import create_app
    from kgbench.service.protocol import HttpProtocol
    from kgbench.service.serving import run_server

    app = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    note(f"serving {location} (data {settings.data_dir}) at http://{shown}:{port}/ "
         f"— API docs at /api/docs; Ctrl-C stops")
    err.file.flush()
    # httptools (kgbench.service.protocol) and uvloop, not uvicorn's pure-Python h11 and
    # asyncio's loop: h11 alone cost more per request than an entity page's store reads.
    # The event loop on a thread of its own, not the main one (kgbench.service.serving).
    run_server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                              server_header=False, date_header=False, proxy_headers=False,
                              access_log=False, http=HttpProtocol, loop="uvloop"))
