"""Benchmark: what ``kgbench serve`` costs over calling the store in-process.

Two reads a UI and a script make most: an entity page (``GET /api/entity?id=``) and a
2-hop neighbourhood with the default caps (``GET /api/neighborhood?id=&hops=2``), each
with 1, 8 and 32 concurrent clients (``--clients``), on the store benchmark's 5M-fact
synthetic Freebase-like KG (:func:`bench.synth_kg.generate_kg`, built once and reused
with ``--store-dir`` as ``bench/extend_bench.py`` does), on both backends
(``--backends embedded,neo4j``; Neo4j at ``--neo4j-uri``, default
``$KGBENCH_NEO4J_URI``, loaded online from the same stage unless it already holds a KG
with the embedded store's counts).

Per backend, operation, client count and repeat, three cells over the same ids:

* **http** — a real ``kgbench serve`` subprocess on a free loopback port
  (``--readers`` store handles) and the load from a second process
  (``bench/service_load.py``: N asyncio clients, one keep-alive connection each, on
  uvloop unless ``--client-loop asyncio``),
  bounded by ``--seconds`` after ``--warmup`` seconds;
* **inproc** — the same store calls the endpoint makes (:data:`INPROC_OPS`), from N
  threads of this process over a :class:`kgbench.service.storepool.StorePool` of the
  same size (the server's own pool design), bounded the same way;
* **handler** — the route's own work function (:mod:`kgbench.service.reads`: the store
  calls plus the JSON shaping, graph JSON included) the same way, which splits the
  overhead into shaping the answer and the HTTP stack (FastAPI, validation,
  serialisation, uvicorn, the worker thread hop);
* **floor** — the transport alone: a bare ASGI app (``bench/bare_server.py``, the
  server's protocol and event loop) answering every request with the route's answer
  for the last id, from the same load generator. At one client its round trip is in
  every HTTP request of any server on this machine, so ``ceiling`` =
  inproc / (inproc + floor) in requests/s is the most of the in-process rate HTTP could
  reach here (issue 35 asks 0.6x: on the 2-core VM of 30 Nov the loopback round trip
  alone was 107 us, against 31 us on the machine of 29 Nov);
* **fastapi_floor** — the same answer through one plain FastAPI route
  (``bare_server.py --fastapi``): ``fastapi_ceiling`` is what a server built on
  FastAPI could reach at most, whatever its own work costs.

The ids: ``--ids`` named entities drawn once with a seeded ``sample_entities`` from the
embedded store (so both backends get the same ones); client ``i`` of N starts at its own
offset, rotated per cell, and both cells of a pair send the same sequence. The stores'
read-only caches are warm in both cells alike (the warm-up runs the same loop).

Reported per cell: requests/s, p50/p99 latency (ms) of the answered requests, errors by
status (503: no store handle freed up within the pool's wait; ``transport:...``: the
connection failed), the load generator's CPU, and CPU per request (http: the server's,
warm-up included on both sides of the division, plus the client's; in-process: this
process's), which a busy machine moves less than requests/s;
medians over ``--repeats``; and the service's overhead: http/inproc p50 latency and
inproc/http requests/s. Before timing, the server's and the store calls' answers are
compared for 20 ids (``same_answers``). The machine (2 cores shared with other jobs) is recorded with
its load average and CPU steal. Appends to ``bench/results/service_bench.jsonl``.

    python -m bench.service_bench --store-dir /tmp/kgbench-svc-5m --seconds 8 --repeats 3
    python -m bench.service_bench --facts 200000 --entities 40000 --backends embedded
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
from rich.console import Console
from rich.table import Table

from bench.extend_bench import build_store, load_neo4j
from bench.harness import REPO, CpuWatch, append_record, git_commit, machine_info
from bench.service_load import LOOPS, client_ids, summary
from kgbench.service import reads
from kgbench.service.storepool import StorePool
from kgstore import Store, open_store
from kgstore.lookup import (
    entity_facts,
    entity_names,
    fact_entity_ids,
    resolve_entity,
)

CONSOLE = Console(stderr=True)
LOAD_SCRIPT = Path(__file__).resolve().with_name("service_load.py")
BARE_SCRIPT = Path(__file__).resolve().with_name("bare_server.py")
OPS = ("entity", "neighborhood_2hop")


ENTITY_LIMIT = 20
"""Facts per direction of ``GET /api/entity`` (its default ``limit``)."""
HOPS = 2


@dataclass(frozen=True)
class Op:
    """One read: its endpoint and query parameters, the store calls it makes, and the
    route's own work function (store calls plus the JSON shaping)."""

    path: str
    extra: dict[str, str]
    calls: Callable[[Store, str], Any]
    handler: Callable[[Store, str], Any]


def _entity_calls(store: Store, id: str) -> Any:
    """The store reads of ``GET /api/entity?id=`` (:func:`kgbench.service.reads`'
    entity page): the entity, its first facts both ways, the names at their ends."""
    entity = store.entity(id)
    if entity is None:
        raise LookupError(id)
    doc = entity_facts(store, entity, ENTITY_LIMIT)
    return doc, entity_names(store, fact_entity_ids(doc.facts_out + doc.facts_in))


def _neighborhood_calls(store: Store, id: str) -> Any:
    """The store reads of ``GET /api/neighborhood?id=&hops=2`` (default caps): the
    centre, the neighbourhood, the records of entities it reaches without them."""
    center = resolve_entity(store, id).entity
    if center is None:
        raise LookupError(id)
    sub = store.neighborhood(center.id, hops=HOPS)
    missing = [i for i in fact_entity_ids(sub.facts) if i not in sub.entities]
    sub.entities.update(store.entities(missing))
    return sub


def _entity_handler(store: Store, id: str) -> Any:
    return reads._entity_page(store, id, ENTITY_LIMIT)


def _neighborhood_handler(store: Store, id: str) -> Any:
    return reads._neighborhood(store, id, HOPS, NEIGHBORHOOD_MAX_PER_NODE,
                               NEIGHBORHOOD_MAX_FACTS)


_caps = inspect.signature(Store.neighborhood).parameters
NEIGHBORHOOD_MAX_PER_NODE = int(_caps["max_per_node"].default)
NEIGHBORHOOD_MAX_FACTS = int(_caps["max_facts"].default)

INPROC_OPS: dict[str, Op] = {
    "entity": Op("/api/entity", {}, _entity_calls, _entity_handler),
    "neighborhood_2hop": Op("/api/neighborhood", {"hops": str(HOPS)}, _neighborhood_calls,
                            _neighborhood_handler),
}
MODES = ("inproc", "handler", "http", "floor", "fastapi_floor")
"""inproc: the store calls; handler: the route's work function (store calls + JSON
shaping), both from threads of this process; http: the server, from another process;
floor: the bare server (``bench/bare_server.py``) answering the route's answer for the
last id, from another process; fastapi_floor: the same through one plain FastAPI
route (``bare_server.py --fastapi``)."""


# --------------------------------------------------------------------------------------
# The server, in a process of its own
# --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(location: str, data: Path, readers: int, log: Path,
          timeout: float = 120.0) -> Iterator[tuple[str, int]]:
    """A ``kgbench serve`` subprocess on a free loopback port, until it answers
    ``/api/health``; yields its URL and process id, stops it (SIGINT, then kill)
    afterwards."""
    port = free_port()
    cmd = [sys.executable, "-m", "kgbench.cli", "serve", "--store", location,
           "--data", str(data), "--host", "127.0.0.1", "--port", str(port),
           "--readers", str(readers)]
    with server_process(cmd, port, log, "kgbench serve", timeout) as running:
        yield running


@contextmanager
def bare_serve(body: Path, log: Path, timeout: float = 60.0, *,
               fastapi: bool = False) -> Iterator[tuple[str, int]]:
    """The transport floor (``bench/bare_server.py``: every answer ``body``'s bytes;
    ``fastapi``: through one plain FastAPI route) on a free loopback port, as
    :func:`serve`."""
    port = free_port()
    cmd = [sys.executable, str(BARE_SCRIPT), "--port", str(port), "--body", str(body),
           *(["--fastapi"] if fastapi else [])]
    with server_process(cmd, port, log, "the bare server", timeout) as running:
        yield running


@contextmanager
def server_process(cmd: list[str], port: int, log: Path, name: str,
                   timeout: float) -> Iterator[tuple[str, int]]:
    """``cmd``, a server on loopback ``port``, until it answers ``/api/health``; yields
    its URL and process id, stops it (SIGINT, then kill) afterwards."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    env.pop("KGBENCH_TOKEN", None)   # loopback, no token: the plain read path
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited ({proc.returncode}):\n"
                                 f"{log.read_text(errors='replace')[-3000:]}")
            try:
                if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"{name} did not answer in {timeout:.0f} s:\n"
                                 f"{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def http_cell(url: str, server_pid: int, op: Op, ids_file: Path, clients: int,
              seconds: float, warmup: float, offset: int, loop: str) -> dict[str, Any]:
    """The load generator, in a second process, against ``url``; with the server's CPU
    per request (warm-up included on both sides of the division) and the client's."""
    server = psutil.Process(server_pid)
    cpu_before = server.cpu_times()
    cmd = [sys.executable, str(LOAD_SCRIPT), "--url", url, "--path", op.path,
           "--ids", str(ids_file), "--clients", str(clients), "--seconds", str(seconds),
           "--warmup", str(warmup), "--offset", str(offset), "--loop", loop,
           *[a for k, v in op.extra.items() for a in ("--extra", f"{k}={v}")]]
    run = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=seconds + warmup + 300)
    cpu_after = server.cpu_times()
    if run.returncode != 0:
        raise SystemExit(f"load generator failed:\n{run.stderr[-3000:]}")
    cell = dict(json.loads(run.stdout.strip().splitlines()[-1]))
    server_s = (cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system)
    answered = cell["requests"] + cell["warmup_requests"]
    server_us = 1e6 * server_s / answered if answered else float("nan")
    client_us = 1e6 * cell["client_cpu_s"] / cell["requests"] if cell["requests"] else \
        float("nan")
    return {**cell, "server_cpu_s": round(server_s, 3),
            "cpu_us_per_request": {"server": round(server_us, 1), "client": round(client_us, 1),
                                   "total": round(server_us + client_us, 1)}}


# --------------------------------------------------------------------------------------
# The same store calls, in this process
# --------------------------------------------------------------------------------------


def inproc_cell(pool: StorePool, fn: Callable[[Store, str], Any], ids: list[str],
                clients: int, seconds: float, warmup: float, offset: int) -> dict[str, Any]:
    """``clients`` threads, each calling ``fn(store, id)`` on a store checked out of
    ``pool`` per call (as each request does), the ids as the load generator sends them."""
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[str] = []
    last_done = 0.0

    def loop(client: int, until: float, record: bool) -> None:
        nonlocal last_done
        mine = client_ids(ids, client, clients, offset)
        mine_ms: list[float] = []
        i = 0
        while time.perf_counter() < until:
            id = mine[i % len(mine)]
            i += 1
            started = time.perf_counter()
            try:
                with pool.checkout() as store:
                    fn(store, id)
            except Exception as exc:  # counted like an HTTP error, the cell goes on
                if record:
                    with lock:
                        errors.append(getattr(exc, "status", None) or type(exc).__name__)
                continue
            mine_ms.append((time.perf_counter() - started) * 1000)
        if record:
            with lock:
                latencies.extend(mine_ms)
                last_done = max(last_done, time.perf_counter())

    def run(until: float, record: bool) -> None:
        threads = [threading.Thread(target=loop, args=(c, until, record))
                   for c in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    if warmup > 0:
        run(time.perf_counter() + warmup, False)
    cpu_started = time.process_time()
    started = time.perf_counter()
    run(started + seconds, True)
    cpu_s = time.process_time() - cpu_started
    elapsed = max(last_done - started, 1e-9)
    statuses = {"200": len(latencies)}
    for error in errors:
        statuses[str(error)] = statuses.get(str(error), 0) + 1
    return {"requests": len(latencies) + len(errors), "ok": len(latencies),
            "errors": len(errors), "statuses": statuses, "seconds": round(elapsed, 4),
            "rps": round(len(latencies) / elapsed, 2), "latency_ms": summary(latencies),
            "cpu_us_per_request": {"total": round(1e6 * cpu_s / max(len(latencies), 1), 1)}}


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


def sample_ids(location: str, n: int, seed: int) -> list[str]:
    """``n`` named entities (no CVTs), seeded: the same for the same store and seed."""
    with open_store(location, read_only=True) as store:
        return [e.id for e in store.sample_entities(n, seed=seed)]


def same_answers(url: str, pool: StorePool, ids: list[str]) -> dict[str, str]:
    """For how many of ``ids`` the server and the in-process store calls give the same
    answer (entity page: the facts both ways and the names; neighbourhood: the facts,
    the centre, whether a cap cut it)."""
    out: dict[str, str] = {}
    with httpx.Client(base_url=url, timeout=60) as http, pool.checkout() as store:
        agree = 0
        for id in ids:
            body = http.get("/api/entity", params={"id": id}).json()
            doc, names = _entity_calls(store, id)
            agree += (len(body["facts_out"]), len(body["facts_in"]), body["names"]) == \
                (len(doc.facts_out), len(doc.facts_in), names)
        out["entity"] = f"{agree}/{len(ids)}"
        agree = 0
        for id in ids:
            body = http.get("/api/neighborhood", params={"id": id, "hops": HOPS}).json()
            sub = _neighborhood_calls(store, id)
            agree += (len(body["facts"]), body["center"], body["truncated"]) == \
                (len(sub.facts), id, sub.truncated)
        out["neighborhood_2hop"] = f"{agree}/{len(ids)}"
    return out


def ceiling(inproc_rps: float, floor_rps: float) -> float | None:
    """The most of ``inproc_rps`` a server could serve over HTTP at one client, whose
    every request costs the store calls plus the transport floor's round trip (the
    bare server's ``floor_rps``) and nothing more: ``(1/inproc) / (1/inproc + 1/floor)``.
    Issue 35's 0.6x target is out of reach wherever this is below it."""
    if inproc_rps <= 0 or floor_rps <= 0:
        return None
    return round(floor_rps / (inproc_rps + floor_rps), 3)


def median_cell(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over repeats of requests/s, latency and CPU per request (http: the
    server's and the client's; in-process: this process's); errors summed."""
    return {"rps": round(statistics.median(r["rps"] for r in runs), 2),
            "p50_ms": round(statistics.median(r["latency_ms"]["p50"] for r in runs), 4),
            "p99_ms": round(statistics.median(r["latency_ms"]["p99"] for r in runs), 4),
            "requests": sum(r["requests"] for r in runs),
            "errors": sum(r["errors"] for r in runs),
            "cpu_us_per_request": round(statistics.median(
                r["cpu_us_per_request"]["total"] for r in runs), 1)}


def bench_backend(name: str, location: str, ids: list[str], args: argparse.Namespace,
                  work: Path) -> dict[str, Any]:
    """Every (operation, clients) cell of one backend, both ways, ``--repeats`` times."""
    ids_file = work / "ids.txt"
    ids_file.write_text("\n".join(ids) + "\n", encoding="utf-8")
    data = work / f"data-{name}"
    data.mkdir(exist_ok=True)
    runs: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {
        op: {str(c): {m: [] for m in MODES} for c in args.clients} for op in args.ops}
    # One pool per in-process mode, and the server's own: each mode's read-only caches
    # see the same ids in the same order, so none runs on another's warm caches.
    bodies: dict[str, int] = {}
    with StorePool(location, 1) as check, \
            StorePool(location, args.readers) as inproc_pool, \
            StorePool(location, args.readers) as handler_pool, \
            serve(location, data, args.readers, work / f"serve-{name}.log") as (url, pid), \
            contextlib.ExitStack() as bare:
        agreement = same_answers(url, check, ids[-20:])
        floors: dict[tuple[str, str], tuple[str, int]] = {}
        for op_name in args.ops:
            body = work / f"floor-{name}-{op_name}.json"
            # of an id same_answers has read already: no cache warmed for one mode only
            answer = httpx.get(f"{url}{INPROC_OPS[op_name].path}", timeout=60,
                               params={**INPROC_OPS[op_name].extra, "id": ids[-1]})
            if answer.status_code != 200:
                raise SystemExit(f"the server answered {answer.status_code} for the floor's "
                                 f"body ({op_name}, id {ids[-1]}): {answer.text[:300]}")
            body.write_bytes(answer.content)
            bodies[op_name] = body.stat().st_size
            for mode in ("floor", "fastapi_floor"):
                floors[mode, op_name] = bare.enter_context(bare_serve(
                    body, work / f"{mode}-{name}-{op_name}.log",
                    fastapi=mode == "fastapi_floor"))
        for r in range(args.repeats):
            for op_name in args.ops:
                op = INPROC_OPS[op_name]

                def measure(mode: str, c: int, offset: int, op: Op = op,
                            op_name: str = op_name) -> dict[str, Any]:
                    if mode in ("http", "floor", "fastapi_floor"):
                        at, server = (url, pid) if mode == "http" else \
                            floors[mode, op_name]
                        return http_cell(at, server, op, ids_file, c, args.seconds,
                                         args.warmup, offset, args.client_loop)
                    pool, fn = (inproc_pool, op.calls) if mode == "inproc" \
                        else (handler_pool, op.handler)
                    return inproc_cell(pool, fn, ids, c, args.seconds, args.warmup, offset)

                # The mode that goes first warms what all share (the OS page cache,
                # Neo4j's): the modes take turns to go first, one a repeat (the floor
                # modes read no store).
                order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
                for c in args.clients:
                    # Each (repeat, op, clients) starts elsewhere in the ids; the
                    # cells of all modes send the same sequence.
                    offset = (r * 7919 + c * 104_729 + OPS.index(op_name) * 15_485_863) \
                        % len(ids)
                    cell = runs[op_name][str(c)]
                    for mode in order:
                        cell[mode].append(measure(mode, c, offset))
                    CONSOLE.print(
                        f"{name} {op_name} x{c} repeat {r + 1}: " + ", ".join(
                            f"{m} {cell[m][-1]['rps']:.0f}/s" for m in MODES)
                        + f"  (load {os.getloadavg()[0]:.1f})")
    results: dict[str, Any] = {}
    for op_name, by_clients in runs.items():
        results[op_name] = {}
        for c, cell in by_clients.items():
            http, inproc = median_cell(cell["http"]), median_cell(cell["inproc"])
            floor = median_cell(cell["floor"])
            fastapi_floor = median_cell(cell["fastapi_floor"])
            results[op_name][c] = {
                "http": http, "inproc": inproc, "handler": median_cell(cell["handler"]),
                "floor": floor, "fastapi_floor": fastapi_floor,
                "floor_body_bytes": bodies[op_name],
                "overhead_p50": round(http["p50_ms"] / inproc["p50_ms"], 2)
                if inproc["p50_ms"] > 0 else None,
                "overhead_rps": round(inproc["rps"] / http["rps"], 2) if http["rps"] > 0 else None,
                "http_vs_inproc": round(http["rps"] / inproc["rps"], 3)
                if inproc["rps"] > 0 else None,
                "ceiling": ceiling(inproc["rps"], floor["rps"]) if c == "1" else None,
                "fastapi_ceiling": ceiling(inproc["rps"], fastapi_floor["rps"])
                if c == "1" else None,
                "client_cpu_s_median": statistics.median(
                    r["client_cpu_s"] for r in cell["http"]),
                "runs": cell}
    return {"location": location, "same_answers": agreement, "results": results}


def run(args: argparse.Namespace) -> dict[str, Any]:
    own_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="service-bench-")) if own_work else args.work
    work.mkdir(parents=True, exist_ok=True)
    try:
        store_dir = args.store_dir or work / "kg"
        started = time.perf_counter()
        kg, built = build_store(store_dir, work, args)
        build_s = None if built is None else round(time.perf_counter() - started, 1)
        embedded = str(store_dir / "store")
        ids = sample_ids(embedded, args.ids, args.seed)
        locations: dict[str, str] = {}
        neo4j_load: dict[str, Any] | None = None
        if "embedded" in args.backends:
            locations["embedded"] = embedded
        if "neo4j" in args.backends:
            started = time.perf_counter()
            neo4j_load = load_neo4j(argparse.Namespace(
                store=args.neo4j_uri, facts=args.facts, entities=args.entities,
                seed=args.seed), store_dir / "store", work)
            neo4j_load["seconds_total"] = round(time.perf_counter() - started, 1)
            locations["neo4j"] = args.neo4j_uri
        watch = CpuWatch()
        load_start = os.getloadavg()
        backends = {name: bench_backend(name, loc, ids, args, work)
                    for name, loc in locations.items()}
        return {"benchmark": "service_bench", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "commit": git_commit(), "machine": machine_info(), "cpu": watch.result(),
                "load_average": {"start": load_start, "end": os.getloadavg()},
                "params": {"entities": args.entities, "facts": args.facts, "seed": args.seed,
                           "ids": args.ids, "clients": args.clients, "seconds": args.seconds,
                           "warmup": args.warmup, "repeats": args.repeats,
                           "readers": args.readers, "ops": list(args.ops),
                           "client_loop": args.client_loop,
                           "backends": list(locations)},
                "kg": kg, "build_seconds": build_s, "neo4j_load": neo4j_load,
                "backends": backends}
    finally:
        if own_work and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def print_table(record: dict[str, Any], console: Console) -> None:
    p = record["params"]
    table = Table(title=f"kgbench serve vs in-process: {record['kg']['facts_distinct']:,} "
                        f"facts, {p['seconds']:g} s per cell, median of {p['repeats']}, "
                        f"{p['readers']} store handles")
    for col in ("backend", "read", "clients", "http req/s", "p50 ms", "p99 ms",
                "store calls req/s", "p50 ms", "p99 ms", "+JSON shaping req/s", "p50 ms",
                "p50 http/store", "req/s http/store (ceilings: bare, FastAPI)",
                "floor req/s bare / FastAPI",
                "CPU us/req http/store", "errors http/store/+JSON"):
        table.add_column(col, justify="right")
    for backend, b in record["backends"].items():
        for op, by_clients in b["results"].items():
            for c, cell in by_clients.items():
                h, i, w = cell["http"], cell["inproc"], cell["handler"]
                table.add_row(backend, op, c, f"{h['rps']:,.0f}", f"{h['p50_ms']:.2f}",
                              f"{h['p99_ms']:.2f}", f"{i['rps']:,.0f}", f"{i['p50_ms']:.2f}",
                              f"{i['p99_ms']:.2f}", f"{w['rps']:,.0f}", f"{w['p50_ms']:.2f}",
                              f"{cell['overhead_p50']}",
                              f"{cell['http_vs_inproc']}" + (
                                  f" ({cell['ceiling']}, {cell['fastapi_ceiling']})"
                                  if cell["ceiling"] else ""),
                              f"{cell['floor']['rps']:,.0f} / "
                              f"{cell['fastapi_floor']['rps']:,.0f}",
                              f"{h['cpu_us_per_request']:.0f}/{i['cpu_us_per_request']:.0f}",
                              f"{h['errors']}/{i['errors']}/{w['errors']}")
    console.print(table)
    cpu = record["cpu"]
    console.print(f"machine: {record['machine']['cores']} cores, load average "
                  f"{record['load_average']['start'][0]:.1f} -> "
                  f"{record['load_average']['end'][0]:.1f}, CPU steal "
                  f"{cpu['steal_fraction']:.1%}, idle {cpu['idle_fraction']:.1%}")


def _csv_ints(value: str) -> list[int]:
    return [int(v) for v in value.split(",") if v]


def _csv_choice(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    def parse(value: str) -> list[str]:
        items = [v for v in value.split(",") if v]
        bad = [v for v in items if v not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(choices)}")
        return items
    return parse


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--facts", type=int, default=5_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backends", type=_csv_choice(("embedded", "neo4j")),
                    default=["embedded", "neo4j"])
    ap.add_argument("--neo4j-uri", default=os.environ.get("KGBENCH_NEO4J_URI"),
                    help="the Neo4j database (credentials from KGBENCH_NEO4J_AUTH); its "
                         "content is replaced unless it already holds this KG")
    ap.add_argument("--ops", type=_csv_choice(OPS), default=list(OPS))
    ap.add_argument("--clients", type=_csv_ints, default=[1, 8, 32])
    ap.add_argument("--seconds", type=float, default=10.0, help="timed seconds per cell")
    ap.add_argument("--warmup", type=float, default=1.0, help="untimed seconds before each cell")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ids", type=int, default=20_000, help="distinct entities to ask for")
    ap.add_argument("--readers", type=int, default=4,
                    help="store handles of the server's pool and of the in-process one")
    ap.add_argument("--client-loop", choices=LOOPS, default="uvloop",
                    help="the load generator's event loop (bench/service_load.py; asyncio: "
                         "the client of the records without params.client_loop)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: temp)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--store-dir", type=Path, default=None,
                    help="build the KG store here and keep it; reused by later runs with "
                         "the same --entities/--facts/--seed (shared with extend_bench)")
    args = ap.parse_args(argv)
    if "neo4j" in args.backends and not args.neo4j_uri:
        ap.error("--backends neo4j needs --neo4j-uri or KGBENCH_NEO4J_URI "
                 "(or --backends embedded)")
    if min(args.clients, default=0) < 1 or args.seconds <= 0 or args.repeats < 1:
        ap.error("--clients must be >= 1, --seconds > 0, --repeats >= 1")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    record = run(args)
    append_record(args.out / "service_bench.jsonl", record, sort_keys=True)
    print_table(record, Console(width=200))   # 16 columns: wider than a default terminal
    return record


if __name__ == "__main__":
    main()
