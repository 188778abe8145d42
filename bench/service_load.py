"""Load generator of ``bench/service_bench.py``: N concurrent HTTP clients against a
running ``kgbench serve``, for a bounded time, in a process of its own.

Each client is an asyncio task with one keep-alive HTTP/1.1 connection
(:class:`HttpConnection`) that sends ``GET URL+PATH?PARAM=<id>&EXTRA`` one after another, the ids
read from ``--ids`` (one a line) starting at its own offset (client ``i`` of N starts
at ``i * len(ids) // N + --offset``) and wrapping around, so two runs with the same
arguments send the same requests. ``--warmup`` seconds of the same loop run first and
are not counted; then every request *sent* before the deadline counts, and the
throughput is those requests over the time until the last of them answered.

Prints one JSON object: requests, errors (non-200 answers and transport failures),
statuses, seconds, requests/s, latency (ms: p50, p99, mean, n), the requests of the
warm-up, the event loop and this process's CPU seconds (the client costs CPU too, on the same machine as the server).

``--loop uvloop`` (the default) runs the clients on uvloop, as the server runs: a
request cost the client 21 us of CPU there against 42-46 us on asyncio's own loop (1
client against a bare ASGI app, 2 cores at load 11), and at one client the client's
time is in every round trip. ``--loop asyncio`` is the client of the earlier records
(those without a ``loop``).

    python -m bench.service_load --url http://127.0.0.1:8765 --path /api/entity \\
        --ids ids.txt --clients 8 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import numpy as np


def summary(ms: list[float]) -> dict[str, float]:
    """p50/p99/mean (ms) and count of ``ms``."""
    if not ms:
        return {"p50": float("nan"), "p99": float("nan"), "mean": float("nan"), "n": 0}
    a = np.asarray(ms, dtype=float)
    return {"p50": round(float(np.percentile(a, 50)), 4),
            "p99": round(float(np.percentile(a, 99)), 4),
            "mean": round(float(a.mean()), 4), "n": int(len(a))}


def client_ids(ids: list[str], client: int, clients: int, offset: int) -> list[str]:
    """The ids client ``client`` of ``clients`` sends, in order (before wrapping)."""
    start = (client * len(ids) // clients + offset) % len(ids)
    return ids[start:] + ids[:start]


class HttpConnection:
    """One keep-alive HTTP/1.1 connection that sends GETs and reads whole answers.

    Deliberately minimal: ``httpx.AsyncClient`` spent a whole core on 140 requests/s
    with 32 connections (its pool, not the server, set the pace), and the load must
    come from a client much cheaper than the server it measures."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, target: str) -> tuple[int, bytes]:
        """``GET target``: the status and the body. A kept-alive connection the server
        has closed meanwhile (uvicorn closes one idle for 5 s, as between the warm-up
        and the timed part while the slowest client finishes) is reopened and the GET
        sent again once, as HTTP clients do for idempotent requests."""
        reused = self.writer is not None and not self.writer.is_closing()
        try:
            return await self._exchange(target)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            if not reused or (isinstance(exc, asyncio.IncompleteReadError) and exc.partial):
                raise
            await self.close()
            return await self._exchange(target)

    async def _exchange(self, target: str) -> tuple[int, bytes]:
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                          "Accept: application/json\r\n\r\n".encode("ascii"))
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in
                   (line.partition(":") for line in lines[1:] if line)}
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                body += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                del body[-2:]
            data = bytes(body)
        else:
            data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
            self.writer = None


async def run_load(url: str, path: str, param: str, ids: list[str], *, clients: int,
                   seconds: float, warmup: float = 0.0, offset: int = 0,
                   extra: dict[str, str] | None = None) -> dict[str, Any]:
    """``clients`` concurrent request loops (one connection each) for ``warmup`` +
    ``seconds``; the timed part's counts and latencies."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    failures = 0
    last_done = 0.0
    connections = [HttpConnection(host, port) for _ in range(clients)]
    sent = [0] * clients

    async def loop(client: int, until: float, record: bool) -> None:
        nonlocal failures, last_done
        mine = client_ids(ids, client, clients, offset)
        conn = connections[client]
        i = 0
        while time.perf_counter() < until:
            query = urlencode({param: mine[i % len(mine)], **(extra or {})})
            i += 1
            sent[client] += 1
            started = time.perf_counter()
            try:
                code, _ = await conn.get(f"{path}?{query}")
                status = str(code)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                    ValueError) as exc:
                await conn.close()
                status = f"transport:{type(exc).__name__}"
            done = time.perf_counter()
            if record:
                statuses[status] = statuses.get(status, 0) + 1
                if status == "200":
                    latencies.append((done - started) * 1000)
                else:
                    failures += 1
                last_done = max(last_done, done)

    warmup_requests = 0
    try:
        if warmup > 0:
            until = time.perf_counter() + warmup
            await asyncio.gather(*(loop(c, until, False) for c in range(clients)))
            warmup_requests = sum(sent)
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        await asyncio.gather(*(loop(c, started + seconds, True) for c in range(clients)))
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        for conn in connections:
            await conn.close()
    elapsed = max(last_done - started, 1e-9)
    requests = sum(statuses.values())
    return {"requests": requests, "ok": len(latencies), "errors": failures,
            "statuses": statuses, "seconds": round(elapsed, 4),
            "warmup_requests": warmup_requests,
            "rps": round(len(latencies) / elapsed, 2), "latency_ms": summary(latencies),
            "client_cpu_s": round(cpu1.ru_utime + cpu1.ru_stime
                                  - cpu0.ru_utime - cpu0.ru_stime, 3)}


LOOPS = ("uvloop", "asyncio")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8765")
    ap.add_argument("--path", required=True, help="e.g. /api/entity")
    ap.add_argument("--param", default="id", help="query parameter that carries the id")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=VALUE",
                    help="more query parameters (repeatable), e.g. hops=2")
    ap.add_argument("--ids", type=Path, required=True, help="file of ids, one a line")
    ap.add_argument("--clients", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--offset", type=int, default=0, help="rotation of every client's ids")
    ap.add_argument("--loop", choices=LOOPS, default="uvloop",
                    help="the clients' event loop (uvloop: the cheaper client)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    ids = [line for line in args.ids.read_text("utf-8").splitlines() if line]
    if not ids or args.clients < 1 or args.seconds <= 0:
        raise SystemExit("need at least one id, one client and a positive --seconds")
    extra = dict(item.split("=", 1) for item in args.extra)
    load = run_load(args.url, args.path, args.param, ids, clients=args.clients,
                    seconds=args.seconds, warmup=args.warmup, offset=args.offset, extra=extra)
    if args.loop == "uvloop":
        import uvloop

        result = uvloop.run(load)
    else:
        result = asyncio.run(load)
    print(json.dumps({**result, "loop": args.loop}, sort_keys=True))


if __name__ == "__main__":
    main()
