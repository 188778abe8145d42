"""Load benchmark: a synthetic Freebase-format dump through ``kgbench load``, with baselines.

For each size (``--sizes``, raw lines), :mod:`bench.freebase_synth` writes a gzip
Freebase-format dump with the real mix (names in several languages, types, aliases,
CVTs, literals, filtered-out predicates); then, each in its own child process (peak RSS
= the child's ``VmHWM`` from ``/proc/<pid>/status``, so nothing of the parent counts):

* ``freebase``: :func:`loaders.freebase.load_freebase` (vectorised parse + default
  filter + import), the loader the targets are about;
* ``rdf``: :func:`loaders.rdf.load_rdf` on the same file (generic N-Triples path, no
  Freebase filter: it stores more);
* ``rdflib`` baseline: what a user would write: rdflib parses the N-Triples in batches
  of 100k lines (``Graph.parse(format="nt")``), the triples are mapped with the same
  :class:`~loaders.triples.TripleMapper` and ingested per batch into the same store.
  It is slow, so with ``--baseline-lines N`` it runs on the first N lines of the file
  only (a **prefix**; its rate is lines/s on that prefix, recorded as such);
* ``oxigraph`` baseline: pyoxigraph's ``Store.bulk_load`` of the whole file into its
  own on-disk store (a fast native reference; it parses and indexes, no filtering).

Per run: wall seconds, raw lines/s end to end and through parse+filter (the staging
phase), stored facts/s (facts in the store after the load / wall seconds), peak RSS,
store size on disk; per size the speed-up over rdflib, and the extrapolated time for
the full Freebase dump (3.13 billion lines) from the raw and end-to-end rates. Appends
one JSON record to ``<out>/load_bench.jsonl`` and draws ``<out>/load_bench.png``.

    .venv/bin/python -m bench.load_bench --sizes 5000000,20000000 --seed 0
    .venv/bin/python -m bench.load_bench --sizes 20000000 --loaders freebase --work /tmp/lb

Each run also records the machine's load average at its start and end (a shared
machine's other work slows every rate down) and, for kgbench's loaders, the seconds of
each import step.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import REPO, disk_usage, git_commit, git_dirty, machine_info, module_command

FREEBASE_LINES = 3_130_000_000
TARGETS = {"raw_lines_per_s": 1_000_000, "stored_facts_per_s": 350_000,
           "speedup_vs_rdflib": 30, "peak_rss_mb": 4096}
RDFLIB_BATCH = 100_000
LOADERS = ("freebase", "rdf", "rdflib", "oxigraph")


# -- measurement helpers -----------------------------------------------------------------
def _vmhwm_kb(pid: int | str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def uncompressed_size(path: Path) -> int:
    n = 0
    with gzip.open(path, "rb") as fh:
        while chunk := fh.read(8 << 20):
            n += len(chunk)
    return n


# -- child processes ---------------------------------------------------------------------
def _child(loader: str, dump: Path, store_dir: Path, limit: int) -> dict[str, Any]:
    """Run one loader (in this, a fresh, process) and return its measurements."""
    started = time.perf_counter()
    load_start = os.getloadavg()  # other work on a shared machine slows this run down
    out: dict[str, Any] = {"loader": loader}
    if loader == "oxigraph":
        import pyoxigraph

        ox = pyoxigraph.Store(str(store_dir))
        with gzip.open(dump, "rb") as fh:
            ox.bulk_load(input=fh, format=pyoxigraph.RdfFormat.N_TRIPLES)
        ox.flush()
        out["stored_facts"] = len(ox)
        out["lines"] = -1  # filled by the parent (the file's line count)
        del ox
    elif loader == "rdflib":
        out.update(_rdflib_baseline(dump, store_dir, limit))
    else:
        from kgstore import open_store

        with open_store(str(store_dir), create=True) as store:
            if loader == "freebase":
                from loaders.freebase import load_freebase
                report = load_freebase(store, [dump])
            else:
                from loaders.rdf import load_rdf
                report = load_rdf(store, [dump])
            stats = store.stats()
        out.update(lines=report.lines, triples=report.triples, malformed=report.malformed,
                   parse_seconds=sum(f.parse_seconds for f in report.files),
                   import_seconds=report.import_report.seconds,
                   import_steps=report.import_report.steps,
                   dropped_total=sum(report.dropped.values()), dropped=report.dropped,
                   stored_facts=stats.facts, entities=stats.entities,
                   literals=stats.literals, facts_new=report.import_report.facts_new)
    out["seconds"] = time.perf_counter() - started
    out["load_average"] = {"start": load_start, "end": os.getloadavg()}
    out["peak_rss_mb"] = _vmhwm_kb() / 1024
    return out


def _rdflib_baseline(dump: Path, store_dir: Path, limit: int) -> dict[str, Any]:
    """rdflib parse + TripleMapper + batched ``import_stage`` of the first ``limit`` lines."""
    import itertools

    import rdflib

    from kgstore import open_store
    from kgstore.staging import StageWriter
    from loaders.pipeline import LoadOptions
    from loaders.rdf import _raw_triples
    from loaders.triples import TripleMapper

    opts = LoadOptions()
    lines = triples = 0
    parse_s = 0.0
    with open_store(str(store_dir), create=True) as store, gzip.open(dump, "rt",
                                                                 encoding="utf-8") as fh:
        tmp = Path(tempfile.mkdtemp(prefix="rdflib-bench-"))
        try:
            batch_no = 0
            while lines < limit:
                batch = list(itertools.islice(fh, min(RDFLIB_BATCH, limit - lines)))
                if not batch:
                    break
                lines += len(batch)
                t = time.perf_counter()
                g = rdflib.Graph()
                g.parse(data="".join(batch), format="nt")
                parse_s += time.perf_counter() - t
                triples += len(g)
                stage = tmp / f"b{batch_no}"
                batch_no += 1
                writer = StageWriter(stage)
                mapper = TripleMapper(writer, namespaces=opts.namespaces, langs=opts.langs)
                for raw in _raw_triples(g, {"not_rdf": 0}):
                    mapper.add(raw)
                writer.close()
                store.import_stage(stage, nameless_is_cvt=True)
                shutil.rmtree(stage, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        stats = store.stats()
    return {"lines": lines, "triples": triples, "parse_seconds": parse_s,
            "stored_facts": stats.facts, "prefix_lines": lines}


def run_child(loader: str, dump: Path, store_dir: Path, work: Path, limit: int,
              timeout: float | None = None) -> dict[str, Any]:
    result = work / f"{loader}-result.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = module_command("bench.load_bench", "--child", loader, str(dump), str(store_dir),
                         str(result), str(limit))
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(REPO),
                          timeout=timeout, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{loader} child failed (rc={proc.returncode}):\n"
                           f"{proc.stderr[-4000:]}")
    out: dict[str, Any] = json.loads(result.read_text())
    out["child_wall_seconds"] = wall
    out["disk_bytes"] = disk_usage(store_dir)[0]
    return out


# -- one size ----------------------------------------------------------------------------
def bench_size(lines: int, args: argparse.Namespace, work: Path, log: Any) -> dict[str, Any]:
    from bench.freebase_synth import generate

    dump = work / f"freebase-synth-{lines}-s{args.seed}.nt.gz"
    if not dump.exists():
        log(f"generating {lines:,} lines -> {dump}")
        t = time.perf_counter()
        tmp = dump.with_name(dump.name + ".part.gz")
        generate(tmp, lines, seed=args.seed)
        tmp.rename(dump)
        log(f"  generated in {time.perf_counter() - t:.0f}s")
    raw = uncompressed_size(dump)
    size: dict[str, Any] = {"lines": lines, "file": dump.name, "gz_bytes": dump.stat().st_size,
                            "raw_bytes": raw, "gzip_ratio": raw / max(dump.stat().st_size, 1),
                            "runs": {}}
    loaders = [x for x in args.loaders
               if not (args.skip_baselines and x in ("rdflib", "oxigraph"))]
    for loader in loaders:
        store_dir = work / f"store-{loader}-{lines}"
        shutil.rmtree(store_dir, ignore_errors=True)
        limit = min(args.baseline_lines or lines, lines) if loader == "rdflib" else lines
        log(f"{loader}: loading {limit:,} lines")
        try:
            run = run_child(loader, dump, store_dir, work, limit)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            log(f"  {loader} failed: {exc}")
            size["runs"][loader] = {"loader": loader, "error": str(exc)[-2000:]}
            continue
        finally:
            if not args.keep:
                pass
        if run.get("lines", 0) < 0:
            run["lines"] = lines
        secs = run["seconds"]
        run["lines_per_s"] = run["lines"] / secs
        run["stored_facts_per_s"] = run["stored_facts"] / secs
        if run.get("parse_seconds"):
            run["raw_lines_per_s_parse_filter"] = run["lines"] / run["parse_seconds"]
        if loader == "rdflib":
            run["prefix"] = run["lines"] < lines
        size["runs"][loader] = run
        log(f"  {secs:.1f}s  {run['lines_per_s']:,.0f} lines/s  "
            f"{run['stored_facts_per_s']:,.0f} facts/s  peak {run['peak_rss_mb']:,.0f} MB  "
            f"disk {run['disk_bytes'] / 2**20:,.0f} MiB"
            + (f"  import {run['import_seconds']:.1f}s" if "import_seconds" in run else "")
            + f"  load {run['load_average']['start'][0]:.1f}-{run['load_average']['end'][0]:.1f}")
        if not args.keep:
            shutil.rmtree(store_dir, ignore_errors=True)
    fb = size["runs"].get("freebase", {})
    if "seconds" in fb:
        rate_raw = fb.get("raw_lines_per_s_parse_filter", fb["lines_per_s"])
        size["extrapolation_full_dump"] = {
            "lines": FREEBASE_LINES,
            "hours_parse_filter": FREEBASE_LINES / rate_raw / 3600,
            "hours_end_to_end": FREEBASE_LINES / fb["lines_per_s"] / 3600,
            "hours_via_stored_facts": (FREEBASE_LINES * fb["stored_facts"] / fb["lines"])
            / fb["stored_facts_per_s"] / 3600,
            "note": "linear extrapolation from this size: 3.13e9 lines / measured rate; the "
                    "import of a store that large is not measured and may scale worse",
        }
        rl = size["runs"].get("rdflib", {})
        if "lines_per_s" in rl:
            size["speedup_vs_rdflib"] = fb["lines_per_s"] / rl["lines_per_s"]
            size["speedup_vs_rdflib_facts"] = fb["stored_facts_per_s"] / max(
                rl["stored_facts_per_s"], 1e-9)
        size["targets_met"] = {
            "raw_lines_per_s": rate_raw >= TARGETS["raw_lines_per_s"],
            "stored_facts_per_s": fb["stored_facts_per_s"] >= TARGETS["stored_facts_per_s"],
            "peak_rss_mb": fb["peak_rss_mb"] <= TARGETS["peak_rss_mb"],
        }
        if "speedup_vs_rdflib" in size:
            size["targets_met"]["speedup_vs_rdflib"] = (
                size["speedup_vs_rdflib"] >= TARGETS["speedup_vs_rdflib"])
    return size


# -- record, table, plot -----------------------------------------------------------------


def flatness(sizes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Peak RSS of the main loader at the largest vs the smallest size."""
    peaks = [s["runs"].get("freebase", {}).get("peak_rss_mb") for s in sizes]
    if len(sizes) < 2 or None in peaks:
        return None
    return {"peak_rss_mb_by_size": dict(zip([s["lines"] for s in sizes], peaks, strict=True)),
            "growth_ratio": peaks[-1] / peaks[0]}


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = record["sizes"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    width = 0.8 / len(LOADERS)
    for i, loader in enumerate(LOADERS):
        xs, rates, rss = [], [], []
        for j, s in enumerate(sizes):
            run = s["runs"].get(loader, {})
            if "lines_per_s" in run:
                xs.append(j + (i - (len(LOADERS) - 1) / 2) * width)
                rates.append(run["lines_per_s"])
                rss.append(run["peak_rss_mb"])
        label = loader + (" (prefix)" if loader == "rdflib" else "")
        ax1.bar(xs, rates, width, label=label)
        ax2.bar(xs, rss, width, label=label)
    labels = [f"{s['lines'] / 1e6:g}M lines" for s in sizes]
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(sizes)), labels)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    ax1.set_yscale("log")
    ax1.set_ylabel("raw lines/s end to end (log)")
    ax1.axhline(TARGETS["raw_lines_per_s"], color="red", lw=0.8, ls="--")
    ax2.set_ylabel("peak RSS (MB)")
    ax2.axhline(TARGETS["peak_rss_mb"], color="red", lw=0.8, ls="--")
    fig.suptitle(f"kgbench load: synthetic Freebase dump, {record['machine']['cores']} cores",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def print_summary(record: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="load benchmark")
    for col in ("lines", "loader", "seconds", "lines/s", "parse+filter lines/s", "facts",
                "facts/s", "peak RSS MB", "disk MiB"):
        table.add_column(col, justify="right")
    for s in record["sizes"]:
        for loader, run in s["runs"].items():
            if "seconds" not in run:
                table.add_row(f"{s['lines']:,}", loader, "failed", *[""] * 6)
                continue
            pf = run.get("raw_lines_per_s_parse_filter")
            table.add_row(
                f"{s['lines']:,}", loader + (" (prefix)" if run.get("prefix") else ""),
                f"{run['seconds']:.1f}", f"{run['lines_per_s']:,.0f}",
                f"{pf:,.0f}" if pf else "-", f"{run['stored_facts']:,}",
                f"{run['stored_facts_per_s']:,.0f}", f"{run['peak_rss_mb']:,.0f}",
                f"{run['disk_bytes'] / 2**20:,.0f}")
    console.print(table)
    for s in record["sizes"]:
        ex = s.get("extrapolation_full_dump")
        if ex:
            # Without the rdflib baseline in --loaders there is no ratio to show.
            speedup = (f"{s['speedup_vs_rdflib']:.0f}x" if "speedup_vs_rdflib" in s
                       else "not measured (rdflib not among --loaders)")
            console.print(f"{s['lines']:,} lines (gzip ratio {s['gzip_ratio']:.1f}x): full "
                          f"dump ≈ {ex['hours_parse_filter']:.1f} h parse+filter, "
                          f"{ex['hours_end_to_end']:.1f} h end to end; speed-up vs rdflib "
                          f"{speedup}; targets {s.get('targets_met')}")


# -- main --------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="5000000,20000000",
                    help="comma-separated dump sizes in raw lines")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None,
                    help="where dumps and stores go (default: a temporary directory; "
                         "a dump already there is reused)")
    ap.add_argument("--skip-baselines", action="store_true")
    ap.add_argument("--loaders", type=lambda text: [x.strip() for x in text.split(",")
                                                    if x.strip()],
                    default=list(LOADERS),
                    help=f"comma-separated loaders to run, of {','.join(LOADERS)} (default: all)")
    ap.add_argument("--baseline-lines", type=int, default=500_000,
                    help="run the rdflib baseline on this prefix of the file (0: all)")
    ap.add_argument("--keep", action="store_true", help="keep the stores afterwards")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    unknown = set(args.loaders) - set(LOADERS)
    if unknown:
        ap.error(f"unknown loader(s) {', '.join(sorted(unknown))}; choose from "
                 f"{', '.join(LOADERS)}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    sizes = [int(float(x)) for x in args.sizes.split(",") if x.strip()]
    own_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="load-bench-")) if own_work else args.work
    work.mkdir(parents=True, exist_ok=True)

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    started = time.time()
    load_start = os.getloadavg()  # a shared machine's other work slows every rate down
    try:
        results = [bench_size(n, args, work, log) for n in sorted(sizes)]
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
    record: dict[str, Any] = {
        "benchmark": "load_bench",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "commit": git_commit(), "dirty": git_dirty(), "machine": machine_info(),
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "params": {"sizes": sizes, "seed": args.seed, "baseline_lines": args.baseline_lines,
                   "skip_baselines": args.skip_baselines, "loaders": args.loaders,
                   "rdflib_batch": RDFLIB_BATCH},
        "targets": TARGETS, "freebase_lines": FREEBASE_LINES,
        "sizes": results, "rss_flatness": flatness(results),
        "seconds": time.time() - started,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "load_bench.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    plot(record, args.out / "load_bench.png")
    if not args.quiet:
        print_summary(record)
    return record


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        loader, dump, store_dir, result, limit = sys.argv[2:7]
        res = _child(loader, Path(dump), Path(store_dir), int(limit))
        Path(result).write_text(json.dumps(res))
        sys.exit(0)
    main()
