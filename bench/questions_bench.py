"""Questions benchmark: KGQA parse throughput and query-graph grounding throughput,
each against a baseline measured in the same run.

Steps (``python -m bench.questions_bench --help``):

1. Parse (when ``KGBENCH_EXTERNAL_DATA`` or ``--external`` names the data folder):
   WebQSP train + test (4,737 questions) and the GrailQA dev sample (1,000), read once
   (untimed), then :func:`extension.inputs.questions.parse_question` over every question in
   file order, starting from an empty SPARQL template cache (``--repeats`` runs, the
   median quoted). Baseline: the same parse with the cache cleared before each question
   (rdflib parses every query), on a seeded sample of ``--baseline-questions`` per
   dataset (rdflib is slow; per-question cost does not depend on the other questions).
   Ratio = cached / uncached questions/s. The sample's results must be identical in
   both modes.
2. Grounding: the store benchmark's synthetic Freebase-like KG
   (:func:`bench.synth_kg.generate_kg`, ``--facts``, default 5M with 1M entities),
   imported into a fresh store; ``--queries`` per shape generated from facts sampled
   from the store (``Store.sample_facts``): **single** (``(e, r, ?x)``, a third of them
   through a CVT), **path** (2 hops) and **tree** (two subject entities converging on
   ``?x``), each with the sampled answer among its solutions. Latency of
   :meth:`extension.core.grounding.Grounder.ground` (p50/p99/mean) and queries/s, per shape.
   Baseline: the same Grounder over the same graph held in networkx
   (:class:`bench.networkx_kg.NetworkxKG` plus a backtracking triple-pattern matcher
   here); ``agreement`` checks both return the same answers where neither truncated.
3. One JSON record appended to ``OUT/questions_bench.jsonl``, a plot
   ``OUT/questions_bench.png`` and a summary table.

    .venv/bin/python -m bench.questions_bench --facts 5000000 --seed 0
    .venv/bin/python -m bench.questions_bench --quick     # seconds; the smoke test's size
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import REPO, CpuWatch, git_commit, machine_info
from bench.networkx_kg import NetworkxKG
from bench.store_bench import _summary
from bench.synth_kg import generate_kg
from extension.core.grounding import Grounder, Grounding
from extension.core.query_graph import QueryGraph, build_query_graph
from extension.core.shapes import classify
from kgstore.models import Entity, Fact, Literal, Predicate
from kgstore.patterns import (
    Binding,
    HasType,
    MatchResult,
    NotEqual,
    PatternQuery,
    TriplePattern,
    Var,
)

SHAPES = ("single", "path", "tree")
DATASETS = {  # name -> (format, files under the external data folder)
    "webqsp": ("webqsp", ("webqsp/WebQSP.train.json", "webqsp/WebQSP.test.json")),
    "grailqa": ("grailqa", ("grailqa/ToG_graliqa_1000.json",)),
}
QUICK = {"facts": 20_000, "entities": 4_000, "queries": 20, "repeats": 1,
         "baseline_questions": 8, "parse_limit": 50}


# --------------------------------------------------------------------------------------
# 1. Parse throughput
# --------------------------------------------------------------------------------------


def read_dataset(root: Path, name: str, limit: int | None) -> list[Any]:
    from loaders.kgqa import read_questions

    fmt, files = DATASETS[name]
    questions = [q for f in files for q in read_questions(root / f, fmt)]
    return questions[:limit] if limit else questions


def _timed_parse(questions: list[Any], cvt_types: frozenset[str], *, cached: bool
                 ) -> tuple[np.ndarray, list[Any]]:
    """Per-question seconds and results. ``cached``: the template cache is cleared once,
    first; otherwise before every question."""
    from extension.inputs.questions import parse_question
    from extension.inputs.sparql import _parse_algebra

    _parse_algebra.cache_clear()
    times = np.empty(len(questions))
    results = []
    for i, q in enumerate(questions):
        if not cached:
            _parse_algebra.cache_clear()
        t0 = time.perf_counter()
        results.append(parse_question(q, cvt_types=cvt_types))
        times[i] = time.perf_counter() - t0
    return times, results


def bench_parse(root: Path, name: str, *, repeats: int, baseline_questions: int,
                limit: int | None, seed: int, say: Callable[[str], None]) -> dict[str, Any]:
    from extension.core.query_graph import known_mediator_types
    from extension.inputs.sparql import _parse_algebra

    cvt_types = known_mediator_types()
    t0 = time.perf_counter()
    questions = read_dataset(root, name, limit)
    read_s = time.perf_counter() - t0
    _timed_parse(questions[:1], cvt_types, cached=False)  # rdflib's one-time grammar set-up
    runs = []
    for r in range(repeats):
        say(f"parse {name}: cached run {r + 1}/{repeats} ({len(questions):,} questions)")
        times, results = _timed_parse(questions, cvt_types, cached=True)
        info = _parse_algebra.cache_info()
        runs.append({"seconds": float(times.sum()), "qps": len(questions) / float(times.sum()),
                     "p50_ms": float(np.median(times) * 1e3),
                     "p99_ms": float(np.percentile(times, 99) * 1e3),
                     "cache_hits": info.hits, "cache_misses": info.misses})
    rng = np.random.default_rng([seed, 2])
    sample_idx = sorted(rng.choice(len(questions), size=min(baseline_questions, len(questions)),
                                   replace=False).tolist())
    sample = [questions[i] for i in sample_idx]
    say(f"parse {name}: baseline without the cache ({len(sample):,} questions)")
    base_times, base_results = _timed_parse(sample, cvt_types, cached=False)
    # The same sample through the cache (warm from the runs above would flatter it: cold).
    _, cached_results = _timed_parse(sample, cvt_types, cached=True)
    same = sum(a == b for a, b in zip(base_results, cached_results, strict=True))
    shapes: dict[str, int] = {}
    for p in results:
        shapes[p.shape] = shapes.get(p.shape, 0) + 1
    qps = statistics.median(r["qps"] for r in runs)
    base_qps = len(sample) / float(base_times.sum())
    return {
        "questions": len(questions), "read_seconds": round(read_s, 3), "repeats": runs,
        "qps": round(qps, 2), "p50_ms": round(statistics.median(r["p50_ms"] for r in runs), 3),
        "baseline": {"questions": len(sample), "qps": round(base_qps, 2),
                     "p50_ms": round(float(np.median(base_times) * 1e3), 3),
                     "p99_ms": round(float(np.percentile(base_times, 99) * 1e3), 3),
                     "note": "template cache cleared before every question (rdflib parses "
                             "each query); a seeded sample of the dataset"},
        "ratio_cached_over_uncached": round(qps / base_qps, 2),
        "sample_results_identical": same, "shapes": shapes,
    }


# --------------------------------------------------------------------------------------
# 2. Grounding: query generation
# --------------------------------------------------------------------------------------


@dataclass
class GeneratedQuery:
    shape: str
    kind: str          # single / single_cvt / path / tree
    graph: QueryGraph
    topics: tuple[str, ...]
    expected: str | Literal  # one answer the query must find


def generate_queries(store: Any, per_shape: int, seed: int) -> list[GeneratedQuery]:
    """``per_shape`` single, path and tree queries built around facts sampled from the
    store, so each has at least one solution (``expected``)."""
    cvt_types = store.cvt_types()
    rng = np.random.default_rng([seed, 3])
    facts = store.sample_facts(per_shape * 40, seed=seed)
    ids = {f.subject for f in facts} | {f.object for f in facts if isinstance(f.object, str)}
    ents = store.entities(ids)

    def named(x: str | Literal) -> bool:
        return isinstance(x, str) and x in ents and not ents[x].is_cvt

    def pick(options: list[Fact]) -> Fact | None:
        return options[int(rng.integers(len(options)))] if options else None

    def build(triples: list[tuple[str | Literal, str, str | Literal]]) -> QueryGraph:
        return build_query_graph(triples, answer="?x", cvt_types=cvt_types)  # type: ignore[arg-type]

    out: dict[str, list[GeneratedQuery]] = {s: [] for s in SHAPES}
    cvt_quota = per_shape // 3  # a third of the single queries pass a CVT
    for f in facts:
        if all(len(v) >= per_shape for v in out.values()):
            break
        if not named(f.subject):
            continue
        s, p, o = f.subject, f.predicate, f.object
        singles = out["single"]
        if isinstance(o, str) and o in ents and ents[o].is_cvt:
            role = pick([r for r in store.facts_out(o, limit=20) if r.object != s])
            if role is not None and sum(q.kind == "single_cvt" for q in singles) < cvt_quota \
                    and len(singles) < per_shape:
                singles.append(GeneratedQuery(
                    "single", "single_cvt", build([(s, p, "?c"), ("?c", role.predicate, "?x")]),
                    (s,), role.object))
            continue
        choice = int(rng.integers(3))
        if choice == 0 and len(singles) - sum(q.kind == "single_cvt" for q in singles) < \
                per_shape - cvt_quota:
            singles.append(GeneratedQuery("single", "single", build([(s, p, "?x")]), (s,), o))
        elif choice == 1 and named(o) and len(out["path"]) < per_shape:
            nxt = pick([g for g in store.facts_out(str(o), limit=50)
                        if g.object != s and (not isinstance(g.object, str) or named(g.object)
                                              or g.object not in ents)])
            if nxt is not None:
                out["path"].append(GeneratedQuery(
                    "path", "path", build([(s, p, "?v"), ("?v", nxt.predicate, "?x")]), (s,),
                    nxt.object))
        elif choice == 2 and named(o) and len(out["tree"]) < per_shape:
            other = pick([g for g in store.facts_in(str(o), limit=50)
                          if g.subject != s and named(g.subject)])
            if other is not None:
                out["tree"].append(GeneratedQuery(
                    "tree", "tree", build([(s, p, "?x"), (other.subject, other.predicate, "?x")]),
                    (s, other.subject), o))
    return [q for shape in SHAPES for q in out[shape]]


# --------------------------------------------------------------------------------------
# 2. Grounding: the networkx baseline
# --------------------------------------------------------------------------------------


class NetworkxStore:
    """What :class:`~extension.core.grounding.Grounder` needs of a store (``predicates``,
    ``entities``, ``match``) over :class:`bench.networkx_kg.NetworkxKG`: ``match`` is a
    backtracking join of the triple patterns over the MultiDiGraph (edge key =
    predicate), with the store's semantics (distinct solutions sorted, ``limit`` + 1
    fetched to flag truncation)."""

    def __init__(self, kg: NetworkxKG) -> None:
        self.kg = kg
        self.g = kg.g
        self._literal_nodes = kg._literals  # literal key -> Literal

    def predicates(self, *, limit: int | None = None) -> list[Predicate]:
        seen = {k for _, _, k in self.g.edges(keys=True)}
        return [Predicate(p) for p in sorted(seen)][:limit]

    def entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        return self.kg.entities(ids)

    def _value(self, node: str) -> str | Literal:
        return self._literal_nodes.get(node, node)

    def _solve(self, patterns: list[TriplePattern], binding: dict[str, Any]
               ) -> Iterator[dict[str, Any]]:
        if not patterns:
            yield binding
            return
        p, rest = patterns[0], patterns[1:]

        def bound(t: Any) -> Any:
            if isinstance(t, Var):
                return binding.get(t.name)
            return t

        s, o = bound(p.subject), bound(p.object)
        o_node = o.key if isinstance(o, Literal) else o
        if s is not None:
            if isinstance(s, Literal) or s not in self.g._succ:
                return
            candidates = ((s, v, keys) for v, keys in self.g._succ[s].items()
                          if o_node is None or v == o_node)
        elif o_node is not None:
            if o_node not in self.g._pred:
                return
            candidates = ((u, o_node, keys) for u, keys in self.g._pred[o_node].items())
        else:
            candidates = ((u, v, keys) for u, nbrs in self.g._succ.items()
                          for v, keys in nbrs.items())
        for u, v, keys in candidates:
            if p.predicate not in keys:
                continue
            extended = dict(binding)
            if isinstance(p.subject, Var):
                extended[p.subject.name] = u
            if isinstance(p.object, Var):
                value = self._value(v)
                if extended.get(p.object.name, value) != value:
                    continue
                extended[p.object.name] = value
            yield from self._solve(rest, extended)

    def match(self, query: PatternQuery) -> MatchResult:
        order = sorted(range(len(query.patterns)),
                       key=lambda i: sum(isinstance(t, Var) for t in
                                         (query.patterns[i].subject, query.patterns[i].object)))
        patterns = _connected(query.patterns, order)
        names = [v.name for v in query.selected()]
        seen: dict[tuple[Any, ...], Binding] = {}
        for b in self._solve(patterns, {}):
            if not all(self._holds(c, b) for c in query.constraints):
                continue
            key = tuple(b[n] for n in names)
            seen.setdefault(key, {n: b[n] for n in names})
        rows = sorted(seen.values(), key=lambda b: [_sort_key(b[n]) for n in names])
        truncated = query.limit is not None and len(rows) > query.limit
        return MatchResult(names, rows[: query.limit] if truncated else rows, truncated)

    def _holds(self, c: Any, b: dict[str, Any]) -> bool:
        if isinstance(c, HasType):
            node = self.g._node.get(b[c.var.name], {})
            return c.type_id in node.get("types", ())
        if isinstance(c, NotEqual):
            other = b[c.value.name] if isinstance(c.value, Var) else c.value
            return b[c.var.name] != other
        raise NotImplementedError(type(c).__name__)


def _connected(patterns: tuple[TriplePattern, ...], order: list[int]) -> list[TriplePattern]:
    """``order`` rearranged so each pattern after the first shares a variable with one
    before it where possible (a join, not a cross product)."""
    placed: list[TriplePattern] = []
    names: set[str] = set()
    remaining = list(order)
    while remaining:
        nxt = next((i for i in remaining if names & {v.name for v in patterns[i].variables()}),
                   remaining[0])
        remaining.remove(nxt)
        placed.append(patterns[nxt])
        names.update(v.name for v in patterns[nxt].variables())
    return placed


def _sort_key(v: Any) -> str:
    return v.key if isinstance(v, Literal) else v


# --------------------------------------------------------------------------------------
# 2. Grounding: measurement
# --------------------------------------------------------------------------------------


def time_grounding(grounder: Grounder, queries: list[GeneratedQuery], warmup: int
                   ) -> tuple[dict[str, Any], list[Grounding]]:
    for q in queries[:warmup]:
        grounder.ground(q.graph)
    gc.collect()
    gc.freeze()
    try:
        times = np.empty(len(queries))
        results = []
        for i, q in enumerate(queries):
            t0 = time.perf_counter_ns()
            results.append(grounder.ground(q.graph))
            times[i] = (time.perf_counter_ns() - t0) / 1e6
    finally:
        gc.unfreeze()
    stats: dict[str, Any] = {}
    for shape in (*SHAPES, "all"):
        sel = np.array([shape in ("all", q.shape) for q in queries])
        if not sel.any():
            continue
        s = _summary(times[sel])
        s["qps"] = round(1e3 * int(sel.sum()) / float(times[sel].sum()), 1)
        picked = [r for r, keep in zip(results, sel, strict=True) if keep]
        s["mean_answers"] = round(float(np.mean([len(r.answers) for r in picked])), 1)
        s["mean_facts"] = round(float(np.mean([len(r.facts) for r in picked])), 1)
        s["truncated"] = sum(r.truncated for r in picked)
        stats[shape] = s
    return stats, results


def bench_grounding(args: argparse.Namespace, work: Path, say: Callable[[str], None]
                    ) -> dict[str, Any]:
    from kgstore import open_store

    stage, store_dir = work / "stage", work / "store"
    entities = args.entities or max(1_000, args.facts // 5)
    say(f"generate KG: {entities:,} entities, {args.facts:,} facts")
    info = generate_kg(stage, entities=entities, facts=args.facts, seed=args.seed)
    say("import into a fresh store")
    t0 = time.perf_counter()
    store = open_store(str(store_dir), create=True)
    report = store.import_stage(stage)
    ingest_s = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        queries = generate_queries(store, args.queries, args.seed)
        gen_s = time.perf_counter() - t0
        kinds: dict[str, int] = {}
        classified: dict[str, int] = {}
        for q in queries:
            kinds[q.kind] = kinds.get(q.kind, 0) + 1
            shape = classify(q.graph, q.topics).shape
            classified[shape] = classified.get(shape, 0) + 1
        say(f"ground {len(queries):,} queries in the store")
        warmup = min(50, max(1, len(queries) // 10))
        cpu = CpuWatch()
        store_stats, store_res = time_grounding(Grounder(store), queries, warmup)
        cpu_store = cpu.result()
    finally:
        store.close()
    found = sum(q.expected in r.answers or r.truncated for q, r in zip(queries, store_res,
                                                                     strict=True))
    say("build the networkx baseline")
    t0 = time.perf_counter()
    nxkg = NetworkxKG(stage)
    build_s = time.perf_counter() - t0
    say(f"ground {len(queries):,} queries in networkx")
    cpu = CpuWatch()
    nx_stats, nx_res = time_grounding(Grounder(NetworkxStore(nxkg)), queries, warmup)
    cpu_nx = cpu.result()
    del nxkg
    gc.collect()
    both = [(a, b) for a, b in zip(store_res, nx_res, strict=True)
            if not a.truncated and not b.truncated]
    agree = sum(set(a.answers) == set(b.answers) and set(a.facts) == set(b.facts)
                for a, b in both)
    return {
        "kg": info.public(), "ingest_seconds": round(ingest_s, 2),
        "facts_stored": report.facts_new,
        "queries": {"per_shape": args.queries, "generated": len(queries), "by_kind": kinds,
                    "classified": classified, "generation_seconds": round(gen_s, 2),
                    "expected_answer_found": found, "warmup": warmup},
        "store": store_stats, "networkx": nx_stats,
        "networkx_build_seconds": round(build_s, 2),
        "ratio_store_over_networkx": {
            shape: {k: round(store_stats[shape][k] / max(nx_stats[shape][k], 1e-9), 2)
                    for k in ("p50", "p99", "mean")} for shape in store_stats},
        "agreement": {"compared": len(both), "equal": agree},
        "cpu": {"store": cpu_store, "networkx": cpu_nx},
    }


# --------------------------------------------------------------------------------------
# 3. Report
# --------------------------------------------------------------------------------------


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    parse = {k: v for k, v in record["parse"].items() if isinstance(v, dict) and "qps" in v}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5),
                                   gridspec_kw={"width_ratios": [1, 2]})
    if parse:
        x = np.arange(len(parse))
        ax1.bar(x - 0.2, [v["qps"] for v in parse.values()], 0.4, label="template cache",
                color="#1f77b4")
        ax1.bar(x + 0.2, [v["baseline"]["qps"] for v in parse.values()], 0.4,
                label="no cache (rdflib each)", color="#ff7f0e")
        ax1.set_xticks(x, list(parse))
        ax1.legend(fontsize=8)
    else:
        ax1.text(0.5, 0.5, "parse: no external data", ha="center", va="center")
    ax1.set_ylabel("questions/s")
    ax1.set_title("parse throughput", fontsize=10)
    g = record["grounding"]
    shapes = [s for s in (*SHAPES, "all") if s in g["store"]]
    x = np.arange(len(shapes))
    w = 0.2
    for i, (who, stat, color) in enumerate([("store", "p50", "#1f77b4"), ("store", "p99", "#aec7e8"),
                                            ("networkx", "p50", "#ff7f0e"),
                                            ("networkx", "p99", "#ffbb78")]):
        ax2.bar(x + (i - 1.5) * w, [max(g[who][s][stat], 1e-4) for s in shapes], w,
                label=f"{who} {stat}", color=color)
    ax2.set_yscale("log")
    ax2.set_xticks(x, shapes)
    ax2.set_ylabel("grounding latency (ms, log scale)")
    ax2.set_title(f"grounding — {g['kg']['entities']:,} entities, "
                  f"{g['kg']['facts_distinct']:,} facts", fontsize=10)
    ax2.legend(fontsize=8)
    ax2.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def print_summary(record: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    t = Table(title="parse throughput (median of runs)")
    for col in ("dataset", "questions", "cached q/s", "p50 ms", "no-cache q/s", "no-cache p50 ms",
                "ratio", "identical"):
        t.add_column(col, justify="right")
    for name, v in record["parse"].items():
        if not isinstance(v, dict) or "qps" not in v:
            t.add_row(name, str(v), "", "", "", "", "", "")
            continue
        b = v["baseline"]
        t.add_row(name, f"{v['questions']:,}", f"{v['qps']:,.1f}", f"{v['p50_ms']:.2f}",
                  f"{b['qps']:,.1f}", f"{b['p50_ms']:.2f}",
                  f"{v['ratio_cached_over_uncached']:.1f}x",
                  f"{v['sample_results_identical']}/{b['questions']}")
    console.print(t)
    g = record["grounding"]
    t = Table(title=f"grounding ({g['kg']['facts_distinct']:,} facts; ms)")
    for col in ("shape", "n", "store q/s", "store p50", "store p99", "nx q/s", "nx p50",
                "nx p99", "p50 ratio"):
        t.add_column(col, justify="right")
    for shape, s in g["store"].items():
        n = g["networkx"][shape]
        t.add_row(shape, f"{s['n']:,}", f"{s['qps']:,.0f}", f"{s['p50']:.2f}", f"{s['p99']:.2f}",
                  f"{n['qps']:,.0f}", f"{n['p50']:.3f}", f"{n['p99']:.3f}",
                  f"{g['ratio_store_over_networkx'][shape]['p50']:.1f}x")
    console.print(t)
    a = g["agreement"]
    console.print(f"agreement: {a['equal']}/{a['compared']} untruncated queries equal; "
                  f"expected answer found {g['queries']['expected_answer_found']}/"
                  f"{g['queries']['generated']}; import {g['ingest_seconds']:.1f}s, "
                  f"networkx build {g['networkx_build_seconds']:.1f}s")


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--facts", type=int, default=5_000_000,
                    help="synthetic KG size for grounding (default 5M, the issue's)")
    ap.add_argument("--entities", type=int, default=None, help="default: facts / 5")
    ap.add_argument("--queries", type=int, default=300, help="generated queries per shape")
    ap.add_argument("--repeats", type=int, default=3, help="cached parse runs (median quoted)")
    ap.add_argument("--baseline-questions", type=int, default=200,
                    help="questions per dataset parsed without the cache")
    ap.add_argument("--parse-limit", type=int, default=None,
                    help="parse only the first N questions of each dataset")
    ap.add_argument("--external", type=Path, default=None,
                    help="external data folder (default: $KGBENCH_EXTERNAL_DATA; parse "
                         "benchmark skipped without it)")
    ap.add_argument("--skip-parse", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes (seconds): " + ", ".join(f"{k}={v}" for k, v in QUICK.items()))
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None,
                    help="working directory for the stage and store (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the stage and store afterwards")
    args = ap.parse_args(argv)
    if args.quick:
        for key, value in QUICK.items():
            if ap.get_default(key) == getattr(args, key):  # only what was not given
                setattr(args, key, value)
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    from rich.console import Console

    console = Console(stderr=True)

    def say(msg: str) -> None:
        console.print(f"[dim]{time.strftime('%H:%M:%S')}[/] {msg}")

    external = args.external or (Path(os.environ["KGBENCH_EXTERNAL_DATA"])
                                 if os.environ.get("KGBENCH_EXTERNAL_DATA") else None)
    created_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="kgbench-questions-bench-")) if created_work \
        else args.work
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        parse: dict[str, Any] = {}
        for name, (_, files) in DATASETS.items():
            if args.skip_parse:
                parse[name] = "skipped (--skip-parse)"
            elif external is None:
                parse[name] = "skipped (KGBENCH_EXTERNAL_DATA not set)"
            elif not all((external / f).exists() for f in files):
                parse[name] = f"skipped ({', '.join(files)} not under {external})"
            else:
                parse[name] = bench_parse(external, name, repeats=args.repeats,
                                          baseline_questions=args.baseline_questions,
                                          limit=args.parse_limit, seed=args.seed, say=say)
        grounding = bench_grounding(args, work, say)
        record: dict[str, Any] = {
            "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "commit": git_commit(),
            "machine": machine_info(),
            "params": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                       if k not in ("out", "work", "keep")},
            "parse": parse,
            "grounding": grounding,
            "seconds": round(time.perf_counter() - started, 1),
        }
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / "questions_bench.jsonl", "a") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
        plot(record, args.out / "questions_bench.png")
        out_console = Console()
        if not out_console.is_terminal:
            out_console = Console(width=150)
        print_summary(record, out_console)
        say(f"record appended to {args.out / 'questions_bench.jsonl'}; plot "
            f"{args.out / 'questions_bench.png'} ({record['seconds']:.0f}s in all)")
        return record
    finally:
        if args.keep:
            say(f"stage and store kept under {work}")
        elif created_work:
            shutil.rmtree(work, ignore_errors=True)
        else:
            for d in (work / "stage", work / "store"):
                shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
