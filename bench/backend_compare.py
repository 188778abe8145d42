"""Embedded store vs Neo4j on the same synthetic KG: the parts ``bench/store_bench.py
--store bolt://...`` and ``bench/extend_bench.py --store bolt://...`` share.

* :func:`import_online` loads a stage into a Neo4j database (``Neo4jStore.import_stage``,
  batched ``UNWIND`` writes over Bolt) and times it; :func:`import_admin` exports the
  same stage for ``neo4j-admin database import full`` and runs Neo4j's own import tool
  from the test launcher's Maven classpath (:mod:`bench.neo4j_admin_export_bench`).
* :func:`make_backend_workload` draws the arguments of every operation once, from the
  embedded store, so both backends answer exactly the same calls;
  :func:`measure_backend` times them (p50/p99 per operation).
* :func:`hub_read_layouts` times one predicate of a hub's incoming facts through the raw
  driver, both ways the schema could answer it (a ``Fact.predicate`` property filter,
  the ``InSlot`` hub index), with Neo4j's own server-side times: the measurement behind
  the layout decision in :mod:`kgstore.backends.neo4j.schema`.
* :class:`BoltMeter` counts a Neo4j store's read transactions, queries and network round
  trips (a query's RUN+PULL, a transaction's end; a managed transaction's BEGIN goes
  with its first query) and splits their wall time into
  the server's engine time (``result_available_after + result_consumed_after`` of each
  query's summary) and the rest (network, Bolt encoding, the driver): "X transactions
  per question x Y ms each = Z of W ms".
"""

from __future__ import annotations

import gc
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgstore import Store, open_store, remove_store, store_exists
from kgstore.patterns import PatternQuery, TriplePattern, Var

# Calls per operation that read (or sort) a whole store: each sample_* call with a new
# seed orders every entity / fact by a salted hash, so a few calls say enough.
SCAN_CALLS = 3


def _summary(ms: Sequence[float]) -> dict[str, float]:
    a = np.asarray(ms, dtype=float)
    if not len(a):
        return {"p50": float("nan"), "p99": float("nan"), "mean": float("nan"), "n": 0}
    return {"p50": round(float(np.percentile(a, 50)), 4),
            "p99": round(float(np.percentile(a, 99)), 4),
            "mean": round(float(a.mean()), 4), "n": int(len(a))}


# --------------------------------------------------------------------------------------
# Round trips and engine time of a Neo4j store
# --------------------------------------------------------------------------------------


@dataclass
class BoltMeter:
    """Counts a :class:`~kgstore.backends.neo4j.Neo4jStore`'s read transactions and
    queries (the store's own :attr:`read_counts`: a transaction shared by a block's
    reads counts once), their client wall time and the server's engine time. Installed
    on one store instance: it wraps that instance's ``_read_many`` (the one path every
    read takes) for the wall time, ``_run_queries`` (the same queries in the same
    transaction, each query's summary kept) for the engine time, and the end of a
    shared read transaction (its rollback is a round trip too)."""

    wall_s: float = 0.0
    server_ms: float = 0.0
    _store: Any = field(default=None, repr=False)
    _counted_from: tuple[int, int, int] = (0, 0, 0)

    @property
    def transactions(self) -> int:
        return int(self._store.read_counts.transactions) - self._counted_from[0]

    @property
    def queries(self) -> int:
        return int(self._store.read_counts.queries) - self._counted_from[1]

    @property
    def round_trips(self) -> int:
        """Network round trips (:class:`~kgstore.backends.neo4j.shared_reads.ReadCounts`)."""
        return int(self._store.read_counts.round_trips) - self._counted_from[2]

    @classmethod
    def install(cls, store: Store) -> BoltMeter | None:
        """A meter on ``store``, or ``None`` when it is not a Neo4j store."""
        if getattr(store, "backend", None) != "neo4j":
            return None
        neo4j_store: Any = store
        counts = neo4j_store.read_counts
        meter = cls(_store=store, _counted_from=(counts.transactions, counts.queries,
                                                 counts.round_trips))

        def timed(read: Callable[..., Any]) -> Callable[..., Any]:
            def timed_read(*args: Any) -> Any:
                started = time.perf_counter()
                try:
                    return read(*args)
                finally:
                    meter.wall_s += time.perf_counter() - started
            return timed_read

        def run_queries(tx: Any, queries: Sequence[tuple[str, dict[str, Any]]]
                        ) -> list[list[list[Any]]]:
            out = []
            for q, p in queries:
                result = tx.run(q, p)
                out.append(result.values())
                summary = result.consume()
                meter.server_ms += (summary.result_available_after or 0) + \
                    (summary.result_consumed_after or 0)
            return out

        neo4j_store._read_many = timed(neo4j_store._read_many)
        neo4j_store._run_queries = run_queries
        neo4j_store._shared.end = timed(neo4j_store._shared.end)
        return meter

    def snapshot(self) -> dict[str, float]:
        return {"transactions": self.transactions, "queries": self.queries,
                "round_trips": self.round_trips, "wall_s": self.wall_s,
                "server_ms": self.server_ms}

    @staticmethod
    def explain(counts: dict[str, float], questions: int, total_ms: float) -> dict[str, Any]:
        """Per question: transactions x ms each = ms in Neo4j reads, of which the
        server's engine time, against the whole time per question."""
        tx = counts["transactions"]
        per_tx_ms = counts["wall_s"] * 1000 / tx if tx else 0.0
        read_ms = counts["wall_s"] * 1000 / questions if questions else 0.0
        engine_ms = counts["server_ms"] / questions if questions else 0.0
        per_q_ms = total_ms / questions if questions else 0.0
        return {
            "transactions_per_question": round(tx / questions, 2) if questions else 0.0,
            "queries_per_question": round(counts["queries"] / questions, 2) if questions else 0.0,
            "round_trips_per_question": round(counts["round_trips"] / questions, 2)
            if questions else 0.0,
            "ms_per_transaction": round(per_tx_ms, 3),
            "engine_ms_per_transaction": round(counts["server_ms"] / tx, 3) if tx else 0.0,
            "neo4j_read_ms_per_question": round(read_ms, 3),
            "engine_ms_per_question": round(engine_ms, 3),
            "ms_per_question": round(per_q_ms, 3),
            "neo4j_read_share": round(read_ms / per_q_ms, 3) if per_q_ms else 0.0,
            "engine_share": round(engine_ms / per_q_ms, 3) if per_q_ms else 0.0,
        }


def empty_transaction_ms(store: Store, n: int = 200) -> dict[str, float]:
    """Latency of a read transaction that does nothing (``RETURN 1``) on this store's
    session: the floor every Neo4j read pays (network round trips + driver)."""
    neo: Any = store
    times = []
    for _ in range(n):
        t = time.perf_counter()
        neo._sess().execute_read(lambda tx: tx.run("RETURN 1").values())
        times.append((time.perf_counter() - t) * 1000)
    return _summary(times)


# --------------------------------------------------------------------------------------
# Imports
# --------------------------------------------------------------------------------------


def import_online(uri: str, stage: Path) -> dict[str, Any]:
    """Empty the Neo4j database at ``uri`` (when it holds a store), create a store there
    and import ``stage`` into it; wall time and facts/s (the connection and schema
    creation are outside the timing, as for the embedded store's import_seconds)."""
    if store_exists(uri):
        t = time.perf_counter()
        remove_store(uri)
        wiped_s = time.perf_counter() - t
    else:
        wiped_s = 0.0
    with open_store(uri, create=True) as store:
        started = time.perf_counter()
        report = store.import_stage(stage)
        seconds = time.perf_counter() - started
        stats = store.stats()
    return {"seconds": round(seconds, 3), "facts_new": report.facts_new,
            "facts_per_s": round(report.facts_new / seconds, 1) if seconds else 0.0,
            "steps": report.steps, "wipe_seconds": round(wiped_s, 3),
            "stats": {"entities": stats.entities, "facts": stats.facts,
                      "literals": stats.literals, "predicates": stats.predicates}}


def import_admin(stage: Path, work: Path, classpath: Path) -> dict[str, Any]:
    """``kgbench store export-neo4j``'s export of ``stage``, then Neo4j's own
    ``neo4j-admin database import full`` on it (the JVM from ``classpath``, a scratch
    DBMS home under ``work``): both timed."""
    from bench.neo4j_admin_export_bench import export_stage, run_admin_import

    report = export_stage(stage, work / "admin-export")
    try:
        seconds, done = run_admin_import(report, work / "admin-home", classpath)
    finally:
        shutil.rmtree(work / "admin-home", ignore_errors=True)
        shutil.rmtree(work / "admin-export", ignore_errors=True)
    return {"export_seconds": round(report.seconds, 3),
            "export_facts_per_s": round(report.facts / report.seconds, 1),
            "import_seconds": round(seconds, 3), "facts": report.facts,
            "import_facts_per_s": round(report.facts / seconds, 1),
            "export_plus_import_facts_per_s": round(report.facts / (seconds + report.seconds), 1),
            "tool_summary": done, "note": "import wall time includes the JVM start"}


# --------------------------------------------------------------------------------------
# Operations, drawn once and answered by both backends
# --------------------------------------------------------------------------------------

BACKEND_OPS = ("entity", "find_by_name", "search", "facts_out", "facts_in",
               "hub_in_predicate", "1hop", "2hop", "paths", "match", "sample_entities",
               "sample_facts")


@dataclass
class BackendWorkload:
    """Arguments per operation (each list: warm-up calls first, then timed ones)."""

    calls: dict[str, list[Any]]
    warmup: dict[str, int]
    hubs: list[tuple[str, int]]


def make_backend_workload(store: Store, named_ids: list[str], names: list[str],
                          queries: int, warmup: int, seed: int) -> BackendWorkload:
    """Draw every operation's arguments from ``store`` (the embedded one, opened for
    this only, so its caches do not help the timed runs). Each operation gets its own
    random entities, so one operation's reads do not warm the next one's.

    ``hub_in_predicate``: ``facts_in(hub, predicate=p, limit=100)`` over distinct
    (hub, predicate) pairs of the entities with the most incoming facts, so no call is
    answered from a cache."""
    rng = random.Random(seed * 1_000_003 + 17)
    n = queries + warmup

    def ids() -> list[str]:
        return [named_ids[rng.randrange(len(named_ids))] for _ in range(n)]

    calls: dict[str, list[Any]] = {}
    calls["entity"] = ids()
    calls["find_by_name"] = [names[rng.randrange(len(names))] for _ in range(n)]
    calls["search"] = [names[rng.randrange(len(names))][:4] for _ in range(n)]
    calls["facts_out"] = ids()
    calls["facts_in"] = ids()
    calls["1hop"] = ids()
    calls["2hop"] = ids()

    # Hubs: the objects of sampled facts, by in-degree (cheap: the hubs dominate them).
    facts = store.sample_facts(20_000, seed=seed)
    objects = [str(f.object) for f in facts if not f.is_literal]
    hub_ids = [o for o, _ in sorted(_count(objects).items(), key=lambda kv: (-kv[1], kv[0]))[:20]]
    hubs: list[tuple[str, int]] = []
    pairs: list[tuple[str, str]] = []
    for hub in hub_ids:
        incoming = store.facts_in(hub, limit=10_000_000)
        hubs.append((hub, len(incoming)))
        by_pred = _count([f.predicate for f in incoming])
        # Predicates with at least 100 facts into the hub: the reads extension does.
        pairs += [(hub, p) for p, c in sorted(by_pred.items()) if c >= 100]
    rng.shuffle(pairs)
    calls["hub_in_predicate"] = pairs[:n]

    # paths and match: from sampled entity facts s -p-> o with an onward fact o -p2-> a.
    paths: list[tuple[str, str]] = []
    matches: list[PatternQuery] = []
    for f in facts:
        if len(matches) >= n:
            break
        if f.is_literal or str(f.object) in hub_ids:
            continue
        onward = [g for g in store.facts_out(str(f.object), limit=20)
                  if not g.is_literal and g.object != f.subject]
        if not onward:
            continue
        g = onward[rng.randrange(len(onward))]
        paths.append((f.subject, str(g.object)))
        matches.append(PatternQuery(
            (TriplePattern(f.subject, f.predicate, Var("v")),
             TriplePattern(Var("v"), g.predicate, Var("a"))), limit=100))
    calls["paths"] = paths
    calls["match"] = matches
    scan = SCAN_CALLS + 1
    calls["sample_entities"] = [seed * 100 + i for i in range(scan)]
    calls["sample_facts"] = [seed * 100 + i for i in range(scan)]
    warm = {op: min(warmup, max(len(v) - 1, 0)) for op, v in calls.items()}
    warm["sample_entities"] = warm["sample_facts"] = 1
    return BackendWorkload(calls=calls, warmup=warm, hubs=hubs)


def _count(values: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def backend_ops(store: Store) -> dict[str, Callable[[Any], Any]]:
    return {
        "entity": lambda x: store.entity(x),
        "find_by_name": lambda x: store.find_by_name(x),
        "search": lambda x: store.search(x),
        "facts_out": lambda x: store.facts_out(x),
        "facts_in": lambda x: store.facts_in(x),
        "hub_in_predicate": lambda x: store.facts_in(x[0], predicate=x[1], limit=100),
        "1hop": lambda x: store.neighborhood(x, hops=1),
        "2hop": lambda x: store.neighborhood(x, hops=2),
        "paths": lambda x: store.paths(x[0], x[1], max_length=2),
        "match": lambda x: store.match(x),
        "sample_entities": lambda x: store.sample_entities(10, seed=x),
        "sample_facts": lambda x: store.sample_facts(10, seed=x),
    }


def measure_backend(store: Store, wl: BackendWorkload,
                    on_op: Callable[[str], None] | None = None
                    ) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Latency per operation (ms) on ``store``, and a digest of each answer (so the
    backends can be checked to answer alike). On a Neo4j store also the read
    transactions per call and the server's engine time per call."""
    meter = BoltMeter.install(store)
    stats: dict[str, Any] = {}
    answers: dict[str, list[str]] = {}
    gc.collect()
    gc.freeze()
    try:
        for op, fn in backend_ops(store).items():
            if on_op:
                on_op(op)
            args = wl.calls[op]
            warm = wl.warmup[op]
            for a in args[:warm]:
                fn(a)
            before = meter.snapshot() if meter else None
            times, out = [], []
            for a in args[warm:]:
                t = time.perf_counter_ns()
                r = fn(a)
                times.append((time.perf_counter_ns() - t) / 1e6)
                out.append(repr(r))
            stats[op] = _summary(times)
            if meter and before and times:
                after = meter.snapshot()
                stats[op]["transactions_per_call"] = round(
                    (after["transactions"] - before["transactions"]) / len(times), 2)
                stats[op]["engine_ms_per_call"] = round(
                    (after["server_ms"] - before["server_ms"]) / len(times), 3)
            answers[op] = out
    finally:
        gc.unfreeze()
    return stats, answers


def compare(embedded: dict[str, Any], neo: dict[str, Any],
            emb_answers: dict[str, list[str]], neo_answers: dict[str, list[str]]
            ) -> dict[str, Any]:
    """neo4j / embedded per operation and statistic, and how many answers agree."""
    out: dict[str, Any] = {}
    for op in BACKEND_OPS:
        if op not in embedded or op not in neo:
            continue
        out[op] = {k: round(neo[op][k] / max(embedded[op][k], 1e-9), 2)
                   for k in ("p50", "p99", "mean")}
        same = sum(a == b for a, b in zip(emb_answers[op], neo_answers[op], strict=True))
        out[op]["same_answers"] = f"{same}/{len(emb_answers[op])}"
    return out


# --------------------------------------------------------------------------------------
# The hub read, two physical layouts
# --------------------------------------------------------------------------------------

HUB_READS = {
    # What a Fact.predicate property filter costs: Neo4j expands every incoming
    # relationship of the hub and tests the property.
    "property_filter": ("MATCH (:Entity {id: $id})<-[f:Fact]-(e:Entity) "
                        "WHERE f.predicate = $p RETURN e.id ORDER BY e.id LIMIT 100"),
    # The hub index: one InSlot (hub, predicate) by key, its own relationships only.
    "hub_index": ("MATCH (:InSlot {key: $k})-[:IN_SLOT]->(e:Entity) "
                  "RETURN e.id ORDER BY e.id LIMIT 100"),
}


def hub_read_layouts(store: Store, pairs: list[tuple[str, str]], rounds: int = 3
                     ) -> dict[str, Any]:
    """Raw Cypher of one predicate of a hub's incoming facts, both ways, over
    ``pairs`` (each read ``rounds`` times, alternating the two ways so load drifts hit
    both alike): client ms and the server's engine ms, p50/p99, and whether both give
    the same rows."""
    from kgstore.hubs import slot_key

    neo: Any = store
    session = neo._sess()
    client: dict[str, list[float]] = {k: [] for k in HUB_READS}
    server: dict[str, list[float]] = {k: [] for k in HUB_READS}
    rows: dict[str, list[Any]] = {k: [] for k in HUB_READS}
    for r in range(rounds):
        for hub, p in pairs:
            params = {"id": hub, "p": p, "k": slot_key(hub, p)}
            for name, query in HUB_READS.items():
                def work(tx: Any, q: str = query, p: dict[str, str] = params
                         ) -> tuple[list[Any], Any]:
                    result = tx.run(q, p)
                    return result.values(), result.consume()

                t = time.perf_counter()
                values, summary = session.execute_read(work)
                client[name].append((time.perf_counter() - t) * 1000)
                server[name].append(float((summary.result_available_after or 0)
                                          + (summary.result_consumed_after or 0)))
                if r == 0:
                    rows[name].append(values)
    same = sum(a == b for a, b in zip(rows["property_filter"], rows["hub_index"], strict=True))
    return {"pairs": len(pairs), "rounds": rounds,
            "client_ms": {k: _summary(v) for k, v in client.items()},
            "engine_ms": {k: _summary(v) for k, v in server.items()},
            "same_rows": f"{same}/{len(pairs)}",
            "queries": HUB_READS}


def server_info(store: Store) -> dict[str, Any]:
    neo: Any = store
    driver = neo._driver
    info = driver.get_server_info()
    return {"agent": info.agent, "address": str(info.address),
            "uri_host_is_loopback": str(info.address).startswith(("127.", "localhost"))}


def default_classpath() -> Path:
    """The Neo4j launcher's Maven classpath: ``KGBENCH_NEO4J_CLASSPATH``, else this
    checkout's ``tools/neo4j-test-server/target/classpath.txt``."""
    env = os.environ.get("KGBENCH_NEO4J_CLASSPATH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1] / "tools" / "neo4j-test-server" / "target" \
        / "classpath.txt"
