"""Store benchmark: bulk ingest and query latency of the embedded LadybugDB store,
against a networkx baseline holding the same graph in memory.

Steps (``python -m bench.store_bench --help``):

1. Generate a synthetic Freebase-like KG from ``--seed`` and write it directly in the
   staged layout (:mod:`kgstore.staging`, by :mod:`bench.synth_kg`): MIDs, Zipf degrees with a few big hubs, CVT
   mediator nodes of CVT types, ~300 Zipf-distributed predicates, names of which ~3% are
   shared by 2-5 entities, aliases, types, ~10% literal facts. The same seed gives the
   same Parquet bytes. Generation is not part of any timing.
2. Ingest: ``open_store(create=True)`` + ``import_stage`` in a child process; wall time,
   facts/s, the import's step times, the child's peak RSS, store size on disk.
3. Latency (p50/p99/mean) of ``entity``, ``find_by_name``, 1-hop and 2-hop
   ``neighborhood`` (default caps) over seeded random named entities; and of
   ``search`` (words, prefixes, substrings of the generated names) against the engine
   scanning its name keys (:mod:`bench.search_bench`), target p50 <= 20 ms.
4. The same four operations over a networkx ``MultiDiGraph`` (+ a name dict) built from
   the same stage (:mod:`bench.networkx_kg`); the k-hop walk is :func:`kgstore.algorithms.subgraph.neighborhood` itself over an
   adapter (``entities`` + ``adjacency``, read in LadybugStore's order), so caps and CVT
   hop rules are identical; ``agreement`` in the record checks that both give the same
   answers wherever no cap applies. networkx is in-memory only (no persistence).
5. One JSON record appended to ``OUT/store_bench.jsonl``, a plot
   ``OUT/store_bench_latency.png`` and a summary table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import (
    REPO,
    CpuWatch,
    disk_usage,
    git_commit,
    machine_info,
    module_command,
    peak_rss_kb,
)
from bench.networkx_kg import NetworkxKG
from bench.search_bench import measure_search
from bench.synth_kg import GenInfo, generate_kg

TARGETS = {
    "ingest_facts_per_s": 400_000,   # >=
    "ingest_peak_rss_mb": 3 * 1024,  # <  (3 GiB, in MiB)
    "2hop_p50_ms": 5.0,              # <=
    "search_p50_ms": 20.0,           # <=  (issue 38; bench/search_bench.py)
}
OPS = ("entity", "by_name", "1hop", "2hop")

# --------------------------------------------------------------------------------------
# 2. Ingest in a child process (clean peak-RSS measurement)
# --------------------------------------------------------------------------------------


def _ingest_child(argv: list[str]) -> int:
    """``--ingest-child STAGE STORE RESULT``: open + import + close, report as JSON."""
    stage, store_dir, result_path = argv
    import psutil

    from kgstore import open_store

    rss_start = psutil.Process().memory_info().rss

    def progress(step: str, done: int, total: int | None) -> None:
        print(f"PROGRESS {done} {total} {step}", flush=True)

    t0 = time.perf_counter()
    store = open_store(str(store_dir), create=True)
    t1 = time.perf_counter()
    report = store.import_stage(stage, progress=progress)
    t2 = time.perf_counter()
    # The peak so far is the ingest's; what follows (stats() scans the store) is not.
    maxrss_import_kb = peak_rss_kb()
    print("IMPORT_DONE", flush=True)
    rss_after_import = psutil.Process().memory_info().rss
    stats = store.stats()
    store.close()
    t3 = time.perf_counter()
    maxrss_kb = peak_rss_kb()
    Path(result_path).write_text(json.dumps({
        "open_seconds": t1 - t0, "import_seconds": t2 - t1, "close_seconds": t3 - t2,
        "report": asdict(report),
        "stats": {k: v for k, v in asdict(stats).items() if k not in ("sources", "location")},
        "maxrss_mb": maxrss_import_kb / 1024, "maxrss_incl_stats_mb": maxrss_kb / 1024,
        "rss_start_mb": rss_start / 2**20,
        "rss_after_import_mb": rss_after_import / 2**20,
    }))
    return 0


def run_ingest(stage: Path, store_dir: Path, work: Path,
               on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    import psutil

    result_path = work / "ingest_result.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    started = time.perf_counter()
    proc = subprocess.Popen(
        module_command("bench.store_bench", "--ingest-child", str(stage), str(store_dir),
                       str(result_path)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO),
    )
    stderr_lines: list[str] = []
    import_done = threading.Event()

    def pump_out() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("PROGRESS ") and on_progress:
                on_progress(line.split(" ", 3)[3].strip())
            elif line.startswith("IMPORT_DONE"):
                import_done.set()

    def pump_err() -> None:
        assert proc.stderr is not None
        stderr_lines.extend(proc.stderr)

    threads = [threading.Thread(target=pump_out, daemon=True),
               threading.Thread(target=pump_err, daemon=True)]
    for t in threads:
        t.start()
    sampled_peak = 0
    try:
        ps = psutil.Process(proc.pid)
        while proc.poll() is None and not import_done.is_set():
            try:
                sampled_peak = max(sampled_peak, ps.memory_info().rss)
            except psutil.Error:
                pass
            time.sleep(0.05)
    except psutil.Error:
        pass
    rc = proc.wait()
    for t in threads:
        t.join(timeout=5)
    wall = time.perf_counter() - started
    if rc != 0:
        raise RuntimeError(f"ingest child failed (rc={rc}):\n{''.join(stderr_lines)[-4000:]}")
    result = json.loads(result_path.read_text())
    result["child_wall_seconds"] = wall
    result["sampled_peak_rss_mb"] = sampled_peak / 2**20
    return result


# --------------------------------------------------------------------------------------
# 3. Latency measurement
# --------------------------------------------------------------------------------------


@dataclass
class Workload:
    ids: list[str]
    names: list[str]
    warm_ids: list[str]
    warm_names: list[str]


def make_workload(info: GenInfo, queries: int, warmup: int, seed: int) -> Workload:
    rng = np.random.default_rng([seed, 1])
    n = len(info.named_ids)
    pick = rng.integers(0, n, size=queries + warmup)
    ids = [info.named_ids[i] for i in pick]
    # by-name: the names of random entities (shared ones occur in proportion), plus a
    # fifth drawn from the shared names so ambiguous lookups are well represented; some
    # are re-cased / padded to exercise normalisation.
    names = [info.names[i] for i in rng.integers(0, n, size=queries + warmup)]
    if info.shared_names:
        for j in np.nonzero(rng.random(len(names)) < 0.2)[0]:
            names[j] = info.shared_names[int(rng.integers(len(info.shared_names)))]
    for j in np.nonzero(rng.random(len(names)) < 0.1)[0]:
        names[j] = "  " + names[j].upper() + " "
    return Workload(ids[warmup:], names[warmup:], ids[:warmup], names[:warmup])


def _ops(target: Any) -> dict[str, Callable[[str], Any]]:
    return {
        "entity": lambda x: target.entity(x),
        "by_name": lambda x: target.find_by_name(x),
        "1hop": lambda x: target.neighborhood(x, hops=1),
        "2hop": lambda x: target.neighborhood(x, hops=2),
    }


def measure(target: Any, wl: Workload, label: str, progress: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Per-op latency stats (ms) and the per-query results (for agreement checks).

    Objects alive before the run are frozen out of the garbage collector, so neither
    side pays for full collections scanning the millions of objects of the networkx
    graph or of the generator's id lists (they showed as multi-ms p99 spikes)."""
    gc.collect()
    gc.freeze()
    try:
        return _measure(target, wl, label, progress)
    finally:
        gc.unfreeze()


def _measure(target: Any, wl: Workload, label: str, progress: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    stats: dict[str, Any] = {}
    results: dict[str, list[Any]] = {}
    for op, fn in _ops(target).items():
        args, warm = (wl.names, wl.warm_names) if op == "by_name" else (wl.ids, wl.warm_ids)
        for a in warm:
            fn(a)
        task = progress.add_task(f"{label}: {op}", total=len(args)) if progress else None
        times = np.empty(len(args))
        out = []
        for i, a in enumerate(args):
            t0 = time.perf_counter_ns()
            r = fn(a)
            times[i] = (time.perf_counter_ns() - t0) / 1e6
            out.append(r)
            if task is not None and (i % 10 == 9 or i == len(args) - 1):
                progress.update(task, completed=i + 1)
        stats[op] = _summary(times)
        if op in ("1hop", "2hop"):
            stats[op]["mean_facts"] = round(float(np.mean([len(r.facts) for r in out])), 1)
            stats[op]["mean_entities"] = round(float(np.mean([len(r.entities) for r in out])), 1)
            stats[op]["truncated_fraction"] = round(float(np.mean([r.truncated for r in out])), 3)
        elif op == "by_name":
            stats[op]["mean_hits"] = round(float(np.mean([len(r) for r in out])), 2)
            stats[op]["empty_fraction"] = round(float(np.mean([not r for r in out])), 3)
        results[op] = out
    return stats, results


def _summary(ms: np.ndarray) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(ms, 50)), 4),
        "p99": round(float(np.percentile(ms, 99)), 4),
        "mean": round(float(ms.mean()), 4),
        "min": round(float(ms.min()), 4),
        "max": round(float(ms.max()), 4),
        "n": int(len(ms)),
    }


def agreement(store_res: dict[str, list[Any]], nx_res: dict[str, list[Any]]) -> dict[str, Any]:
    """How often the store and networkx gave the same answer. Exact for entity/by-name;
    for neighbourhoods only where neither hit a cap (capped walks keep a different
    subset, as the adjacency order differs)."""
    out: dict[str, Any] = {}
    out["entity_equal"] = sum(a == b for a, b in zip(store_res["entity"], nx_res["entity"], strict=True))
    out["by_name_equal"] = sum(a == b for a, b in zip(store_res["by_name"], nx_res["by_name"], strict=True))
    out["n"] = len(store_res["entity"])
    for op in ("1hop", "2hop"):
        both = [(a, b) for a, b in zip(store_res[op], nx_res[op], strict=True)
                if not a.truncated and not b.truncated]
        same = sum(set(a.facts) == set(b.facts) and a.hops == b.hops for a, b in both)
        out[f"{op}_untruncated"] = len(both)
        out[f"{op}_untruncated_equal"] = same
        out[f"{op}_same_truncation"] = sum(
            a.truncated == b.truncated for a, b in zip(store_res[op], nx_res[op], strict=True))
    return out


# --------------------------------------------------------------------------------------
# 5. Report
# --------------------------------------------------------------------------------------


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lat = record["latency_ms"]
    x = np.arange(len(OPS))
    w = 0.2
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series = [("store", "p50", "#1f77b4"), ("store", "p99", "#aec7e8"),
              ("networkx", "p50", "#ff7f0e"), ("networkx", "p99", "#ffbb78")]
    for i, (who, stat, color) in enumerate(series):
        vals = [max(lat[who][op][stat], 1e-4) for op in OPS]
        ax.bar(x + (i - 1.5) * w, vals, w, label=f"{who} {stat}", color=color)
    ax.set_yscale("log")
    ax.set_xticks(x, ["entity by id", "by name", "1-hop", "2-hop"])
    ax.set_ylabel("latency (ms, log scale)")
    p = record["params"]
    ax.set_title(f"kgstore (LadybugDB) vs networkx in memory — {p['entities']:,} entities, "
                 f"{record['generated']['facts_distinct']:,} facts", fontsize=10)
    ax.axhline(TARGETS["2hop_p50_ms"], color="red", lw=0.8, ls="--", label="2-hop p50 target")
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def print_summary(record: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    ing = record["ingest"]
    g = record["generated"]
    t = Table(title="store benchmark", show_lines=False)
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_row("graph", f"{g['entities']:,} entities ({g['cvt']:,} CVT), "
              f"{g['facts_distinct']:,} facts ({g['fact_rows']:,} stage rows), "
              f"max degree {g['max_degree']:,}")
    t.add_row("generation", f"{g['seconds']:.1f} s")
    t.add_row("ingest", f"{ing['facts_per_s']:,.0f} facts/s ({ing['seconds']:.1f} s, "
              f"{ing['facts_ingested']:,} facts)")
    t.add_row("ingest steps", ", ".join(f"{k} {v:.1f}s" for k, v in ing["steps"].items()))
    t.add_row("ingest peak RSS", f"{ing['peak_rss_mb']:,.0f} MiB")
    t.add_row("store on disk", f"{ing['store_mb']:,.0f} MiB")
    nxi = record["networkx"]
    t.add_row("networkx build", f"{nxi['build_seconds']:.1f} s, ~{nxi['rss_mb']:,.0f} MiB RSS "
              "(in memory, no persistence)")
    found = record["search"]
    scan = found["engine_scan"]
    t.add_row("search", f"p50 {found['index']['all']['p50']:.2f} ms, p99 "
              f"{found['index']['all']['p99']:.1f} ms (engine scan of the names: p50 "
              f"{scan['p50']:.0f} ms)" if scan else f"p50 {found['index']['all']['p50']:.2f} ms")
    console.print(t)

    lt = Table(title="latency (ms)")
    for col in ("op", "store p50", "store p99", "store mean", "nx p50", "nx p99", "nx mean",
                "p50 ratio", "p99 ratio"):
        lt.add_column(col, justify="right")
    lat = record["latency_ms"]
    for op in OPS:
        s, n, r = lat["store"][op], lat["networkx"][op], lat["ratio_store_over_networkx"][op]
        lt.add_row(op, f"{s['p50']:.3f}", f"{s['p99']:.3f}", f"{s['mean']:.3f}",
                   f"{n['p50']:.4f}", f"{n['p99']:.4f}", f"{n['mean']:.4f}",
                   f"{r['p50']:.1f}x", f"{r['p99']:.1f}x")
    console.print(lt)

    tt = Table(title="targets")
    for col in ("target", "value", "pass"):
        tt.add_column(col)
    for name, v in record["targets"].items():
        tt.add_row(f"{name} {v['op']} {v['target']:,}", f"{v['value']:,.2f}",
                   "[green]PASS[/]" if v["pass"] else "[red]FAIL[/]")
    console.print(tt)


def compare_backends(args: argparse.Namespace, info: GenInfo, stage: Path, store_dir: Path,
                     work: Path, warmup: int, console: Any) -> dict[str, Any]:
    """``--store URI``: import the stage into Neo4j (online; then neo4j-admin into a
    scratch home), and time the same calls on the embedded store and on Neo4j
    (:mod:`bench.backend_compare`)."""
    from bench import backend_compare as bc
    from kgstore import open_store

    out: dict[str, Any] = {"uri": args.store}
    console.print(f"neo4j: online import of the stage into {args.store} ...")
    cpu = CpuWatch()
    out["import_online"] = bc.import_online(args.store, stage)
    out["import_online"]["cpu"] = cpu.result()
    console.print(f"  {out['import_online']['facts_per_s']:,.0f} facts/s")
    classpath = args.neo4j_classpath or bc.default_classpath()
    if classpath.exists():
        console.print("neo4j: export + neo4j-admin database import full ...")
        cpu = CpuWatch()
        out["import_admin"] = bc.import_admin(stage, work, classpath)
        out["import_admin"]["cpu"] = cpu.result()
        console.print(f"  {out['import_admin']['import_facts_per_s']:,.0f} facts/s")
    else:
        out["import_admin"] = {"skipped": f"no classpath file {classpath}"}
    with open_store(str(store_dir), read_only=True) as emb:
        wl = bc.make_backend_workload(emb, info.named_ids, info.names, args.queries,
                                      warmup, args.seed)
    out["hubs"] = wl.hubs
    out["calls"] = {op: len(v) - wl.warmup[op] for op, v in wl.calls.items()}
    lat: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    cpu_use: dict[str, Any] = {}
    for name, location in (("embedded", str(store_dir)), ("neo4j", args.store)):
        def say(op: str, backend: str = name) -> None:
            console.print(f"{backend}: {op}")

        with open_store(location, read_only=True) as store:
            cpu = CpuWatch()
            lat[name], answers[name] = bc.measure_backend(store, wl, say)
            cpu_use[name] = cpu.result()
            if name == "neo4j":
                out["server"] = bc.server_info(store)
                out["empty_read_transaction_ms"] = bc.empty_transaction_ms(store)
                console.print("neo4j: hub read, property filter vs hub index ...")
                out["hub_read_layouts"] = bc.hub_read_layouts(
                    store, wl.calls["hub_in_predicate"][:100])
    out["latency_ms"] = lat
    out["ratio_neo4j_over_embedded"] = bc.compare(lat["embedded"], lat["neo4j"],
                                                  answers["embedded"], answers["neo4j"])
    out["cpu"] = cpu_use
    out["note"] = ("both read-only, as generate opens them; each operation gets its own "
                   "random arguments (caches of one operation do not answer the next); "
                   "sample_* calls each use a new seed (a whole-store scan on both)")
    return out


def print_backends(record: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    b = record["backends"]
    t = Table(title=f"embedded vs neo4j ({b['server']['agent']}) — latency ms")
    for col in ("op", "n", "emb p50", "emb p99", "neo4j p50", "neo4j p99", "p50 ratio",
                "p99 ratio", "neo4j tx/call", "engine ms/call", "same answers"):
        t.add_column(col, justify="right")
    lat, ratio = b["latency_ms"], b["ratio_neo4j_over_embedded"]
    for op, r in ratio.items():
        e, n = lat["embedded"][op], lat["neo4j"][op]
        t.add_row(op, str(e["n"]), f"{e['p50']:.3f}", f"{e['p99']:.3f}", f"{n['p50']:.3f}",
                  f"{n['p99']:.3f}", f"{r['p50']:.1f}x", f"{r['p99']:.1f}x",
                  f"{n.get('transactions_per_call', 0):.2f}",
                  f"{n.get('engine_ms_per_call', 0):.3f}", r["same_answers"])
    console.print(t)
    h = b["hub_read_layouts"]
    ht = Table(title=f"one predicate of a hub's incoming facts, raw Cypher ({h['pairs']} "
                     f"(hub, predicate) pairs x {h['rounds']})")
    for col in ("layout", "client p50", "client p99", "engine p50", "engine p99"):
        ht.add_column(col, justify="right")
    for k in h["client_ms"]:
        c, s = h["client_ms"][k], h["engine_ms"][k]
        ht.add_row(k, f"{c['p50']:.2f}", f"{c['p99']:.2f}", f"{s['p50']:.1f}", f"{s['p99']:.1f}")
    console.print(ht)
    on, ad = b["import_online"], b["import_admin"]
    console.print(f"import: embedded {record['ingest']['facts_per_s']:,.0f} facts/s; neo4j "
                  f"online {on['facts_per_s']:,.0f} facts/s ({on['seconds']:.1f} s); "
                  + (f"neo4j-admin {ad['import_facts_per_s']:,.0f} facts/s "
                     f"({ad['import_seconds']:.1f} s, + export {ad['export_seconds']:.1f} s)"
                     if "import_facts_per_s" in ad else f"neo4j-admin {ad.get('skipped')}"))
    console.print(f"hubs (id, incoming facts): {b['hubs'][:5]}; empty read transaction "
                  f"p50 {b['empty_read_transaction_ms']['p50']:.2f} ms")


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--facts", type=int, default=5_000_000)
    ap.add_argument("--cvt-fraction", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=None,
                    help="untimed queries per op first (default: queries/10, at most 50)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None,
                    help="working directory for the stage and store (default: a temp dir "
                    "under /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the stage and store afterwards")
    ap.add_argument("--store", default=None, metavar="URI",
                    help="also load the same KG into this Neo4j database (bolt://HOST:PORT; "
                    "credentials from KGBENCH_NEO4J_AUTH; its content is replaced) and report "
                    "both backends side by side: online and neo4j-admin import facts/s, "
                    "p50/p99 of every read operation, neo4j/embedded ratios, the hub read "
                    "with and without the hub index. E.g. --entities 200000 --facts 1000000 "
                    "--queries 200 --store bolt://127.0.0.1:7687")
    ap.add_argument("--neo4j-classpath", type=Path, default=None,
                    help="Maven classpath file of the Neo4j launcher, for neo4j-admin import "
                    "(default: KGBENCH_NEO4J_CLASSPATH, else tools/neo4j-test-server/target/"
                    "classpath.txt; `make neo4j-up` builds it); skipped when missing")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--ingest-child":
        sys.exit(_ingest_child(argv[1:]))
    args = parse_args(argv)
    import psutil
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from kgstore import open_store

    console = Console(stderr=True)
    created_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="kgbench-store-bench-", dir="/tmp")) if created_work \
        else args.work
    work.mkdir(parents=True, exist_ok=True)
    stage, store_dir = work / "stage", work / "store"
    for d in (stage, store_dir):
        if d.exists():
            shutil.rmtree(d)
    (work / "ingest_result.json").unlink(missing_ok=True)
    warmup = args.warmup if args.warmup is not None else min(50, max(1, args.queries // 10))
    progress_cols = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                     TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn())
    try:
        # 1. generate
        with Progress(*progress_cols, console=console, transient=False) as prog:
            steps = 8
            task = prog.add_task("generate: start", total=steps)

            def gen_progress(msg: str) -> None:
                prog.update(task, description=f"generate: {msg}", advance=1)

            info = generate_kg(stage, entities=args.entities, facts=args.facts,
                               cvt_fraction=args.cvt_fraction, seed=args.seed,
                               progress=gen_progress)
            prog.update(task, completed=steps, description=f"generated in {info.seconds:.1f}s")

        # 2. ingest (child process)
        with Progress(*progress_cols, console=console) as prog:
            task = prog.add_task("ingest", total=6)

            def ingest_progress(msg: str) -> None:
                prog.update(task, description=f"ingest: {msg} done", advance=1)

            cpu_ingest = CpuWatch()
            ing = run_ingest(stage, store_dir, work, ingest_progress)
            cpu_ingest_res = cpu_ingest.result()
        rep = ing["report"]
        store_blocks, store_apparent = disk_usage(store_dir)
        ingest_seconds = ing["open_seconds"] + ing["import_seconds"]
        facts_ingested = int(rep["facts_new"])
        peak_rss_mb = max(ing["maxrss_mb"], ing["sampled_peak_rss_mb"])

        # 3. store latencies
        wl = make_workload(info, args.queries, warmup, args.seed)
        with Progress(*progress_cols, console=console) as prog:
            store = open_store(str(store_dir), read_only=True)
            cpu_store = CpuWatch()
            try:
                store_lat, store_res = measure(store, wl, "store", prog)
                # Entity search by words, against the engine scanning its name keys.
                search = measure_search(store, info.names[:50_000], queries=args.queries,
                                        seed=args.seed)
            finally:
                store.close()
            cpu_store_res = cpu_store.result()

        # 4. networkx baseline
        with Progress(*progress_cols, console=console) as prog:
            task = prog.add_task("networkx: build", total=None)
            gc.collect()
            rss0 = psutil.Process().memory_info().rss
            t0 = time.perf_counter()
            nxkg = NetworkxKG(stage)
            build_s = time.perf_counter() - t0
            gc.collect()
            nx_rss = psutil.Process().memory_info().rss - rss0
            prog.update(task, description=f"networkx: built in {build_s:.1f}s", total=1,
                        completed=1)
            cpu_nx = CpuWatch()
            nx_lat, nx_res = measure(nxkg, wl, "networkx", prog)
            cpu_nx_res = cpu_nx.result()
        nx_info = {
            "build_seconds": round(build_s, 3), "rss_mb": round(nx_rss / 2**20, 1),
            "nodes": nxkg.g.number_of_nodes(), "edges": nxkg.g.number_of_edges(),
            "note": "networkx MultiDiGraph + name dict, in process memory only: no "
                    "persistence, no import/merge semantics; same neighborhood() code",
        }
        agree = agreement(store_res, nx_res)
        del nxkg, nx_res, store_res
        gc.collect()

        # 5. the same KG on Neo4j, both backends side by side
        backends = None
        if args.store:
            backends = compare_backends(args, info, stage, store_dir, work, warmup, console)

        ratios = {
            op: {k: round(store_lat[op][k] / max(nx_lat[op][k], 1e-9), 2)
                 for k in ("p50", "p99", "mean")}
            for op in OPS
        }
        facts_per_s = facts_ingested / ingest_seconds if ingest_seconds > 0 else 0.0
        targets = {
            "ingest_facts_per_s": {"op": ">=", "target": TARGETS["ingest_facts_per_s"],
                                   "value": round(facts_per_s, 1),
                                   "pass": facts_per_s >= TARGETS["ingest_facts_per_s"]},
            "ingest_peak_rss_mb": {"op": "<", "target": TARGETS["ingest_peak_rss_mb"],
                                   "value": round(peak_rss_mb, 1),
                                   "pass": peak_rss_mb < TARGETS["ingest_peak_rss_mb"]},
            "2hop_p50_ms": {"op": "<=", "target": TARGETS["2hop_p50_ms"],
                            "value": store_lat["2hop"]["p50"],
                            "pass": store_lat["2hop"]["p50"] <= TARGETS["2hop_p50_ms"]},
            "search_p50_ms": {"op": "<=", "target": TARGETS["search_p50_ms"],
                              "value": search["index"]["all"]["p50"],
                              "pass": search["index"]["all"]["p50"] <= TARGETS["search_p50_ms"]},
        }
        record: dict[str, Any] = {
            "timestamp": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "git_commit": git_commit(),
            "machine": machine_info(),
            "params": {"entities": args.entities, "facts": args.facts,
                       "cvt_fraction": args.cvt_fraction, "seed": args.seed,
                       "queries": args.queries, "warmup": warmup,
                       "caps": {"max_per_node": 50, "max_facts": 2000},
                       "buffer_pool_mb": os.environ.get("KGBENCH_BUFFER_POOL_MB", "2048 (default)"),
                       "duckdb_memory": os.environ.get("KGBENCH_DUCKDB_MEMORY", "2GB (default)")},
            "generated": info.public(),
            "ingest": {
                "facts_ingested": facts_ingested,
                "facts_per_s": round(facts_per_s, 1),
                "seconds": round(ingest_seconds, 3),
                "open_seconds": round(ing["open_seconds"], 3),
                "import_seconds": round(ing["import_seconds"], 3),
                "close_seconds": round(ing["close_seconds"], 3),
                "facts_per_s_incl_close": round(
                    facts_ingested / (ingest_seconds + ing["close_seconds"]), 1),
                "steps": rep["steps"],
                "report": rep,
                "store_stats": ing["stats"],
                "peak_rss_mb": round(peak_rss_mb, 1),
                "peak_rss_vmhwm_mb": round(ing["maxrss_mb"], 1),
                "peak_rss_incl_stats_mb": round(ing["maxrss_incl_stats_mb"], 1),
                "peak_rss_sampled_mb": round(ing["sampled_peak_rss_mb"], 1),
                "child_start_rss_mb": round(ing["rss_start_mb"], 1),
                "store_mb": round(store_blocks / 2**20, 1),
                "store_apparent_mb": round(store_apparent / 2**20, 1),
            },
            "latency_ms": {"store": store_lat, "networkx": nx_lat,
                           "ratio_store_over_networkx": ratios},
            "networkx": nx_info,
            "search": search,
            "agreement": agree,
            "cpu": {"ingest": cpu_ingest_res, "store_queries": cpu_store_res,
                    "networkx_queries": cpu_nx_res},
            "targets": targets,
            "pass": all(t["pass"] for t in targets.values()),
        }
        if backends is not None:
            record["backends"] = backends
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / "store_bench.jsonl", "a") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
        plot(record, args.out / "store_bench_latency.png")
        out_console = Console()
        if not out_console.is_terminal:
            out_console = Console(width=150)
        print_summary(record, out_console)
        if backends is not None:
            print_backends(record, out_console)
        console.print(f"record appended to {args.out / 'store_bench.jsonl'}; plot "
                      f"{args.out / 'store_bench_latency.png'}")
        if args.keep:
            console.print(f"stage and store kept under {work}")
        return record
    finally:
        if not args.keep:
            if created_work:
                shutil.rmtree(work, ignore_errors=True)
            else:
                for d in (stage, store_dir):
                    shutil.rmtree(d, ignore_errors=True)
                (work / "ingest_result.json").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
