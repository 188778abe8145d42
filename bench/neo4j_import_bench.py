"""Benchmark: online import into Neo4j (``Neo4jStore.import_stage``, batched Bolt
writes) of the store benchmark's synthetic KG, against the same import by another
revision of kgbench (``--baseline-ref``, default ``main``) and the embedded store's
import, in one run.

Steps:

1. The stage: :func:`bench.store_bench.generate_kg` (``--entities``, ``--facts``,
   ``--seed``), kept in ``--work`` and reused while those stay the same.
2. The embedded import of it (``bench.store_bench.run_ingest``, a child process): the
   ratio's other side.
3. A warm-up, not timed: two imports of a smaller KG (``--warmup-facts``) by this
   checkout, so that neither side pays for the server's JIT compiling the write paths (a
   server with the tiered JIT, ``make neo4j-up NEO4J_JVM=server``, spent 40, 17-20, then
   8-10 CPU-s on successive 200k-fact imports; a long-running server is warm).
4. ``--repeats`` rounds of: the Neo4j database emptied (not timed), then the online
   import by the baseline revision (a ``git worktree`` of ``--baseline-ref``), emptied,
   then by this checkout; each in a child process that imports only this kgbench
   (``PYTHONPATH`` is its tree). Per import: wall time, facts/s, the import's step times,
   the child's CPU time and, when the server runs on this machine (``--server-pid``, by
   default the test server ``make neo4j-up`` started), the server's CPU time: on a
   shared machine wall time follows the load, CPU time per fact much less.
5. After each import, what it left: the content checksum (:mod:`kgstore.checksum`) and
   the counts of what the checksum leaves out (names, the hub index, predicate counts).
   Both revisions must leave the same (``same_content``).
6. One JSON record appended to ``OUT/neo4j_import_bench.jsonl`` (medians, the ratios
   this/baseline and this/embedded, machine and load, the server JVM's options when
   it runs here) and a table.

    make neo4j-up NEO4J_JVM=server   # a server's JIT and heap, not the tests' fast start
    python bench/neo4j_import_bench.py --store bolt://127.0.0.1:7687 --work /tmp/kgbench-imp
    python bench/neo4j_import_bench.py --store bolt://127.0.0.1:7687 --facts 200000 \\
        --entities 50000 --repeats 2 --baseline-ref 4b4d092
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

from bench.store_bench import (  # noqa: E402
    CpuWatch,
    generate_kg,
    git_commit,
    machine_info,
    run_ingest,
)

# The child: the public API only, so that any revision runs it. Prints one JSON line.
CHILD = """
import json, resource, sys, time
from kgstore import open_store
stage, uri = sys.argv[1], sys.argv[2]
with open_store(uri, create=True) as store:
    started = time.perf_counter()
    report = store.import_stage(stage)
    seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": seconds, "facts_new": report.facts_new, "steps": report.steps,
                  "client_cpu_s": usage.ru_utime + usage.ru_stime}))
"""

# What the content checksum leaves out, counted (kgstore.checksum's docstring).
DERIVED = {
    "name_keys": "MATCH (n:Name) RETURN count(n)",
    "name_links": "MATCH (:Name)-[l:NAMES]->() RETURN count(l)",
    "hubs": "MATCH (h:Hub) RETURN count(h)",
    "slots": "MATCH (k:InSlot) RETURN count(k)",
    "slot_links": "MATCH (:InSlot)-[l:IN_SLOT]->() RETURN count(l)",
    "predicate_count_sum": "MATCH (p:Predicate) RETURN sum(p.count)",
    "literals_typed": "MATCH (l:Literal) WHERE l.num IS NOT NULL OR l.date IS NOT NULL "
                      "RETURN count(l)",
}


def server_cpu_s(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (``None`` without one)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_server_pid(uri: str) -> int | None:
    """The pid of the test server ``make neo4j-up`` started from this checkout, when
    it serves ``uri``'s port."""
    try:
        pid = int((REPO / ".neo4j-test" / "server.pid").read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return None
    port = uri.rsplit(":", 1)[-1].split("/")[0].encode()
    return pid if b"kgbench.neo4j.TestServer" in cmdline and port in cmdline else None


def server_jvm_options(pid: int | None) -> list[str] | None:
    """The ``-X``, ``-D`` and ``--add-opens`` options of the JVM of process ``pid``
    (heap, JIT, the test server's page cache), from its command line."""
    if pid is None:
        return None
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except OSError:
        return None
    return [a for a in args if a.startswith(("-X", "-D", "--add-opens"))]


def empty_database(uri: str) -> float:
    """Remove the store at ``uri`` (if any); seconds taken."""
    from kgstore import remove_store, store_exists

    started = time.perf_counter()
    if store_exists(uri):
        remove_store(uri)
    return time.perf_counter() - started


def what_it_left(uri: str) -> dict[str, Any]:
    from kgstore import open_store
    from kgstore.checksum import content_checksum

    with open_store(uri, read_only=True) as store:
        out: dict[str, Any] = {name: store.cypher(query).rows[0][0]
                               for name, query in DERIVED.items()}
        out["checksum"] = content_checksum(store)
        stats = store.stats()
        out.update(entities=stats.entities, facts=stats.facts, literals=stats.literals,
                   predicates=stats.predicates)
    return out


def import_online(tree: Path, stage: Path, uri: str, server_pid: int | None) -> dict[str, Any]:
    """One online import by the kgbench in ``tree``, in a child process."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cpu = CpuWatch()
    server0 = server_cpu_s(server_pid)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(stage), uri], cwd=str(tree),
                          env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    server1 = server_cpu_s(server_pid)
    if proc.returncode != 0:
        raise RuntimeError(f"import by {tree} failed:\n{proc.stderr[-4000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["facts_per_s"] = round(out["facts_new"] / out["seconds"], 1)
    out["child_wall_s"] = round(wall, 3)
    out["cpu"] = cpu.result()
    if server0 is not None and server1 is not None:
        out["server_cpu_s"] = round(server1 - server0, 2)
        out["cpu_us_per_fact"] = round(
            (out["server_cpu_s"] + out["client_cpu_s"]) / out["facts_new"] * 1e6, 1)
    return out


def baseline_tree(ref: str, work: Path) -> Path:
    """A detached ``git worktree`` of ``ref`` under ``work`` (made again each run)."""
    tree = work / "baseline-tree"
    subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO,
                   capture_output=True, check=False)
    shutil.rmtree(tree, ignore_errors=True)
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), ref], cwd=REPO,
                   capture_output=True, text=True, check=True)
    return tree


def stage_for(work: Path, name: str, *, entities: int, facts: int, seed: int) -> Path:
    """The stage ``work/name`` of this size, generated unless ``work`` holds it."""
    stage, key_file = work / name, work / f"{name}.json"
    key = {"entities": entities, "facts": facts, "seed": seed}
    if not (stage.is_dir() and key_file.is_file() and json.loads(key_file.read_text()) == key):
        info = generate_kg(stage, entities=entities, facts=facts, seed=seed)
        key_file.write_text(json.dumps(key))
        print(f"{name}: generated in {info.seconds:.1f} s", file=sys.stderr)
    return stage


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 2) if values else None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", default=os.environ.get("KGBENCH_NEO4J_URI"), metavar="URI",
                    help="the Neo4j database to import into (emptied first; default "
                    "$KGBENCH_NEO4J_URI)")
    ap.add_argument("--entities", type=int, default=200_000)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--warmup-facts", type=int, default=200_000,
                    help="facts of the untimed warm-up import (0: none)")
    ap.add_argument("--baseline-ref", default="main",
                    help="the git revision whose import is the baseline ('' for none)")
    ap.add_argument("--server-pid", type=int, default=None,
                    help="the Neo4j server's pid, for its CPU time (default: the test "
                    "server of `make neo4j-up` when it serves --store)")
    ap.add_argument("--work", type=Path, default=None,
                    help="keeps the stage between runs (default: a temporary folder)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = ap.parse_args(argv)
    if not args.store:
        ap.error("give --store bolt://HOST:PORT (or set KGBENCH_NEO4J_URI)")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="kgbench-neo4j-import-"))
    work.mkdir(parents=True, exist_ok=True)
    stage = stage_for(work, "stage", entities=args.entities, facts=args.facts, seed=args.seed)
    pid = args.server_pid or test_server_pid(args.store)
    shutil.rmtree(work / "embedded", ignore_errors=True)
    print("embedded import ...", file=sys.stderr)
    cpu = CpuWatch()
    emb = run_ingest(stage, work / "embedded", work)
    facts = int(emb["report"]["facts_new"])
    embedded = {"facts_per_s": round(facts / emb["import_seconds"], 1), "facts_new": facts,
                "seconds": round(emb["import_seconds"], 3), "cpu": cpu.result()}
    shutil.rmtree(work / "embedded", ignore_errors=True)
    trees = {"this": REPO}
    if args.baseline_ref:
        trees = {"baseline": baseline_tree(args.baseline_ref, work), **trees}
    if args.warmup_facts:
        warmup = stage_for(work, "warmup-stage", entities=max(args.warmup_facts // 5, 1),
                           facts=args.warmup_facts, seed=args.seed + 1)
        for _ in range(2):   # C2 was still compiling during the first of them
            print("warm-up import ...", file=sys.stderr)
            empty_database(args.store)
            import_online(REPO, warmup, args.store, pid)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    left: dict[str, dict[str, Any]] = {}
    try:
        for round_ in range(args.repeats):
            for name, tree in trees.items():
                wipe_s = empty_database(args.store)
                print(f"round {round_ + 1}: {name} online import ...", file=sys.stderr)
                run = import_online(tree, stage, args.store, pid)
                run["wipe_s"] = round(wipe_s, 1)
                runs[name].append(run)
                print(f"  {run['facts_per_s']:,.0f} facts/s ({run['seconds']:.1f} s, load "
                      f"{run['cpu']['loadavg_1m_start']}-{run['cpu']['loadavg_1m_end']})",
                      file=sys.stderr)
                left[name] = what_it_left(args.store)
    finally:
        if "baseline" in trees:
            subprocess.run(["git", "worktree", "remove", "--force", str(trees["baseline"])],
                           cwd=REPO, capture_output=True, check=False)
    summary = {name: {"facts_per_s": _median(rs, "facts_per_s"),
                      "seconds": _median(rs, "seconds"),
                      "cpu_us_per_fact": _median(rs, "cpu_us_per_fact")}
               for name, rs in runs.items()}
    this = summary["this"]["facts_per_s"] or 0.0
    record = {
        "bench": "neo4j_import_bench",
        "timestamp": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(), "baseline_ref": args.baseline_ref or None,
        "machine": machine_info(), "uri": args.store, "server_pid_known": pid is not None,
        "server_jvm": server_jvm_options(pid), "warmup_facts": args.warmup_facts,
        "writers": os.environ.get("KGBENCH_NEO4J_WRITERS", "default"),
        "kg": {"entities": args.entities, "facts": args.facts, "seed": args.seed},
        "embedded": embedded, "runs": runs, "summary": summary,
        "ratio_this_over_embedded": round(this / embedded["facts_per_s"], 3),
        "same_content": len({json.dumps(v, sort_keys=True) for v in left.values()}) == 1,
        "left": left,
        "target": {"facts_per_s": 20_000, "pass": this >= 20_000},
    }
    if "baseline" in summary:
        record["ratio_this_over_baseline"] = round(
            this / (summary["baseline"]["facts_per_s"] or float("nan")), 3)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "neo4j_import_bench.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    print_table(record)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return record


def print_table(record: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"online import, {record['kg']['facts']:,} facts "
                        f"(load {record['runs']['this'][-1]['cpu']['loadavg_1m_end']})")
    for col in ("import", "facts/s", "seconds", "CPU µs/fact (server + client)"):
        table.add_column(col, justify="right")
    table.add_row("embedded", f"{record['embedded']['facts_per_s']:,.0f}",
                  f"{record['embedded']['seconds']:.1f}", "")
    for name, s in record["summary"].items():
        table.add_row(f"neo4j, {name}", f"{s['facts_per_s'] or 0:,.0f}", f"{s['seconds']:.1f}",
                      f"{s['cpu_us_per_fact'] or float('nan'):.0f}")
    Console(stderr=True).print(table)
    print(f"this/embedded {record['ratio_this_over_embedded']}"
          + (f", this/baseline {record['ratio_this_over_baseline']}"
             if "ratio_this_over_baseline" in record else "")
          + f", same content: {record['same_content']}", file=sys.stderr)


if __name__ == "__main__":
    main()
