"""Load generator of ``bench/service_bench.py``: N concurrent HTTP clients against a
running ``kgbench serve``, for a bounded time, in a process of its own.

Each client is an asyncio task on one shared ``httpx.AsyncClient`` (keep-alive, at most
N connections) that sends ``GET URL+PATH?PARAM=<id>&EXTRA`` one after another, the ids
read from ``--ids`` (one a line) starting at its own offset (client ``i`` of N starts
at ``i * len(ids) // N + --offset``) and wrapping around, so two runs with the same
arguments send the same requests. ``--warmup`` seconds of the same loop run first and
are not counted; then every request *sent* before the deadline counts, and the
throughput is those requests over the time until the last of them answered.

Prints one JSON object: requests, errors (non-200 answers and transport failures),
statuses, seconds, requests/s, latency (ms: p50, p99, mean, n) and this process's CPU
seconds (the client costs CPU too, on the same machine as the server).

    python bench/service_load.py --url http://127.0.0.1:8765 --path /api/entity \\
        --ids ids.txt --clients 8 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from pathlib import Path
from typing import Any

import httpx
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


async def run_load(url: str, path: str, param: str, ids: list[str], *, clients: int,
                   seconds: float, warmup: float = 0.0, offset: int = 0,
                   extra: dict[str, str] | None = None) -> dict[str, Any]:
    """``clients`` concurrent request loops for ``warmup`` + ``seconds``; the timed part's
    counts and latencies."""
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    failures = 0
    last_done = 0.0
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60.0) as http:

        async def loop(client: int, until: float, record: bool) -> None:
            nonlocal failures, last_done
            mine = client_ids(ids, client, clients, offset)
            i = 0
            while time.perf_counter() < until:
                params = {param: mine[i % len(mine)], **(extra or {})}
                i += 1
                started = time.perf_counter()
                try:
                    response = await http.get(path, params=params)
                    await response.aread()
                    status = str(response.status_code)
                except httpx.HTTPError:
                    status = "transport"
                done = time.perf_counter()
                if record:
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == "200":
                        latencies.append((done - started) * 1000)
                    else:
                        failures += 1
                    last_done = max(last_done, done)

        if warmup > 0:
            until = time.perf_counter() + warmup
            await asyncio.gather(*(loop(c, until, False) for c in range(clients)))
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        until = started + seconds
        await asyncio.gather(*(loop(c, until, True) for c in range(clients)))
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    elapsed = max(last_done - started, 1e-9)
    requests = sum(statuses.values())
    return {"requests": requests, "ok": len(latencies), "errors": failures,
            "statuses": statuses, "seconds": round(elapsed, 4),
            "rps": round(len(latencies) / elapsed, 2), "latency_ms": summary(latencies),
            "client_cpu_s": round(cpu1.ru_utime + cpu1.ru_stime
                                  - cpu0.ru_utime - cpu0.ru_stime, 3)}


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
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    ids = [line for line in args.ids.read_text("utf-8").splitlines() if line]
    if not ids or args.clients < 1 or args.seconds <= 0:
        raise SystemExit("need at least one id, one client and a positive --seconds")
    extra = dict(item.split("=", 1) for item in args.extra)
    result = asyncio.run(run_load(args.url, args.path, args.param, ids, clients=args.clients,
                                  seconds=args.seconds, warmup=args.warmup,
                                  offset=args.offset, extra=extra))
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
