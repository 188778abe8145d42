"""Benchmark: ``kgbench kalma generate`` with templates, entries per second, on the
5M-fact synthetic Freebase-like KG and on a synthetic Wikidata-shaped store.

The Freebase-like KG is the one ``bench/generate_bench.py`` and ``bench/extend_bench.py``
use (:func:`bench.synth_kg.generate_kg`: 1M entities, 5M facts, Zipf degrees and
hubs, ``people.person`` entities married through ``people.marriage`` CVTs hung on
``people.person.spouse_s`` as in Freebase; built once and reusable with
``--store-dir``). The Wikidata-shaped store is built here (:func:`build_wikidata`:
Q/P ids with labels, ``P31 Q5`` humans, ``P26`` spouses both ways, ``P40`` children,
places, occupations, works, dates; ~3% shared names), deterministic by ``--seed``.

Per KG and repeat, in the same process and on the same warm store:

* **baseline** — :class:`kalma.builder.KalmaBuilder` alone: ``seeds()`` then ``build``
  until ``--n`` entries, in memory (no files). It is what the entries cost; the ratio
  to it is what :func:`kalma.generate.generate_entries` adds around it (the run's
  fingerprint, chunk files written atomically, the concatenation, the JSON Schema check
  of every entry, the three ``--incompetence`` variant files, ``report.html``) — the
  part of ``kalma generate`` this layer owns, as ``generate_bench`` compares
  ``generate`` with its structured samples alone;
* **generate** — :func:`generate_entries` end to end into a fresh directory, with
  ``--incompetence 1,2,3``. Its ``entries.jsonl`` is checked to hold exactly the
  baseline's entries, and to be byte-identical across repeats.

Reported: the median entries/s of each over ``--repeats``, the ratio, the seconds of
the pair search (``seeds()``) and of building, the load average and CPU steal (the
machine is shared). Appends to ``bench/results/kalma_generate_bench.jsonl``.

    python -m bench.kalma_generate_bench --store-dir /tmp/kgbench-extend-5m --n 200
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.extend_bench import build_store
from bench.harness import REPO, CpuWatch, append_record, git_commit, machine_info
from extension.inputs.domain_spec import DomainSpec
from kalma.builder import BuildConfig, BuildSkip, KalmaBuilder
from kalma.generate import generate_entries
from kgstore import open_store
from kgstore.models import Entity, Fact, Literal, Predicate

WD_PREDICATES = [
    Predicate("P31", "instance of"), Predicate("P21", "sex or gender"),
    Predicate("P19", "place of birth"), Predicate("P20", "place of death"),
    Predicate("P27", "country of citizenship"), Predicate("P106", "occupation"),
    Predicate("P26", "spouse"), Predicate("P40", "child"), Predicate("P800", "notable work"),
    Predicate("P69", "educated at"), Predicate("P569", "date of birth"),
    Predicate("P570", "date of death"),
]
_SYLLABLES = ("an", "bel", "cor", "da", "el", "fin", "gar", "hal", "is", "jo", "ka", "lin",
              "mar", "nor", "os", "per", "quin", "ros", "sal", "tor", "ul", "ven", "wil", "zan")


def _name(rnd: random.Random, words: int) -> str:
    return " ".join("".join(rnd.choice(_SYLLABLES) for _ in range(rnd.randint(2, 3))).title()
                    for _ in range(words))


def build_wikidata(path: Path, humans: int, seed: int) -> dict[str, int]:
    """A Wikidata-shaped store of ``humans`` people (``Q5``) at ``path``; returns its
    counts. Deterministic by ``seed``."""
    rnd = random.Random(seed)
    entities: list[Entity] = [Entity("Q5", "human"), Entity("Q6581097", "male"),
                              Entity("Q6581072", "female")]
    places = [f"Q{1_000_000 + i}" for i in range(2_000)]
    countries = [f"Q{2_000_000 + i}" for i in range(150)]
    jobs = [f"Q{3_000_000 + i}" for i in range(300)]
    works = [f"Q{4_000_000 + i}" for i in range(humans // 4)]
    schools = [f"Q{5_000_000 + i}" for i in range(1_000)]
    for group, words in ((places, 1), (countries, 1), (jobs, 1), (works, 3), (schools, 2)):
        entities.extend(Entity(q, _name(rnd, words)) for q in group)
    people = [f"Q{10_000_000 + i}" for i in range(humans)]
    names: list[str] = []
    for _ in people:   # ~3% reuse an earlier name: namesakes to tell apart
        names.append(rnd.choice(names) if names and rnd.random() < 0.03 else _name(rnd, 2))
    entities.extend(Entity(q, n, types=("Q5",)) for q, n in zip(people, names, strict=True))
    facts: list[Fact] = []
    for q in people:
        facts.append(Fact(q, "P31", "Q5"))
        facts.append(Fact(q, "P21", rnd.choice(("Q6581097", "Q6581072"))))
        facts.append(Fact(q, "P19", rnd.choice(places)))
        facts.append(Fact(q, "P27", rnd.choice(countries)))
        for job in rnd.sample(jobs, rnd.randint(1, 3)):
            facts.append(Fact(q, "P106", job))
        year = rnd.randint(1500, 1990)
        facts.append(Fact(q, "P569", Literal(f"{year}-{rnd.randint(1, 12):02d}-"
                                             f"{rnd.randint(1, 28):02d}", "xsd:date")))
        if rnd.random() < 0.5:
            facts.append(Fact(q, "P570", Literal(str(year + rnd.randint(20, 90)), "xsd:gYear")))
            facts.append(Fact(q, "P20", rnd.choice(places)))
        if rnd.random() < 0.3:
            facts.append(Fact(q, "P800", rnd.choice(works)))
        if rnd.random() < 0.3:
            facts.append(Fact(q, "P69", rnd.choice(schools)))
    order = people[:]
    rnd.shuffle(order)
    married = order[: int(0.4 * humans) // 2 * 2]
    for a, b in zip(married[::2], married[1::2], strict=True):
        facts.extend((Fact(a, "P26", b), Fact(b, "P26", a)))
    for parent in rnd.sample(people, humans // 5):
        facts.append(Fact(parent, "P40", rnd.choice(people)))
    with open_store(str(path), create=True) as store:
        store.ingest(entities, facts, predicates=WD_PREDICATES)
        stats = store.stats()
    return {"humans": humans, "entities": stats.entities, "facts": stats.facts}


def baseline(store_dir: str, config: BuildConfig) -> dict[str, Any]:
    """The builder alone, in memory: the entries and the seconds of seeds and builds."""
    with open_store(store_dir, read_only=True) as store:
        started = time.perf_counter()
        builder = KalmaBuilder(store, config)
        starts = builder.seeds()
        seeded = time.perf_counter()
        lines: list[str] = []
        for start in starts:
            if len(lines) >= config.n:
                break
            built = builder.build(start, len(lines))
            if not isinstance(built, BuildSkip):
                lines.append(built.to_line())
        done = time.perf_counter()
    seconds = done - started
    return {"entries": len(lines), "seconds": round(seconds, 3),
            "seeds_seconds": round(seeded - started, 3),
            "build_seconds": round(done - seeded, 3),
            "entries_per_s": len(lines) / seconds if seconds > 0 else None,
            "text": "".join(lines)}


def end_to_end(store_dir: str, config: BuildConfig, out: Path) -> dict[str, Any]:
    started = time.perf_counter()
    result = generate_entries(store_dir, config, out, incompetence=(1, 2, 3))
    seconds = time.perf_counter() - started
    return {"entries": result.entries, "seconds": round(seconds, 3),
            "entries_per_s": result.entries / seconds if seconds > 0 else None,
            "variants": dict(result.variants), "skips": dict(result.skips),
            "text": (out / "entries.jsonl").read_text("utf-8")}


def bench_kg(name: str, store_dir: str, domain: DomainSpec, args: argparse.Namespace,
             work: Path) -> dict[str, Any]:
    config = BuildConfig(domain=domain, n=args.n, seed=args.seed)
    base_runs, gen_runs = [], []
    for r in range(args.repeats):
        base_runs.append(baseline(store_dir, config))
        gen_runs.append(end_to_end(store_dir, config, work / f"{name}-{r}"))
        print(f"{name} repeat {r + 1}: baseline {base_runs[-1]['entries_per_s']:.1f} entries/s, "
              f"generate {gen_runs[-1]['entries_per_s']:.1f} entries/s", flush=True)
    texts = {run.pop("text") for run in base_runs + gen_runs}
    base_eps = statistics.median(r["entries_per_s"] for r in base_runs)
    gen_eps = statistics.median(r["entries_per_s"] for r in gen_runs)
    return {"domain": domain.value, "entries": gen_runs[0]["entries"],
            "baseline_entries_per_s_median": round(base_eps, 2),
            "generate_entries_per_s_median": round(gen_eps, 2),
            "ratio_generate_vs_baseline": round(gen_eps / base_eps, 3),
            "seeds_seconds_median": statistics.median(r["seeds_seconds"] for r in base_runs),
            "build_seconds_median": statistics.median(r["build_seconds"] for r in base_runs),
            "identical_entries": len(texts) == 1,
            "baseline_runs": base_runs, "generate_runs": gen_runs}


def run(args: argparse.Namespace) -> dict[str, Any]:
    own_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="kalma-bench-")) if own_work else args.work
    work.mkdir(parents=True, exist_ok=True)
    try:
        fb_dir = args.store_dir or work / "fb"
        fb_start = time.perf_counter()
        kg, built = build_store(fb_dir, work, args)
        fb_build = None if built is None else round(time.perf_counter() - fb_start, 1)
        wd_dir = args.wd_store_dir or work / "wd"
        wd_info_file = wd_dir / "kalma-bench-wd.json"
        wd_params = {"humans": args.wd_humans, "seed": args.seed}
        wd_build = None
        if wd_info_file.exists() and json.loads(wd_info_file.read_text())["params"] == wd_params:
            wd_kg = json.loads(wd_info_file.read_text())["kg"]
        else:
            shutil.rmtree(wd_dir, ignore_errors=True)
            wd_dir.mkdir(parents=True)
            started = time.perf_counter()
            wd_kg = build_wikidata(wd_dir / "store", args.wd_humans, args.seed)
            wd_build = round(time.perf_counter() - started, 1)
            wd_info_file.write_text(json.dumps({"params": wd_params, "kg": wd_kg}))
        watch = CpuWatch()
        load_start = os.getloadavg()
        results = {
            "freebase_5m": bench_kg("freebase", str(fb_dir / "store"),
                                    DomainSpec("type", "people.person"), args, work),
            "wikidata": bench_kg("wikidata", str(wd_dir / "store"), DomainSpec("type", "Q5"),
                                 args, work),
        }
        return {"benchmark": "kalma_generate_bench", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "commit": git_commit(), "machine": machine_info(), "cpu": watch.result(),
                "load_average": {"start": load_start, "end": os.getloadavg()},
                "params": {"entities": args.entities, "facts": args.facts, "n": args.n,
                           "seed": args.seed, "repeats": args.repeats,
                           "wd_humans": args.wd_humans, "text": "template",
                           "incompetence": [1, 2, 3]},
                "kg": {"freebase": kg, "wikidata": wd_kg},
                "build_seconds": {"freebase": fb_build, "wikidata": wd_build},
                "results": results}
    finally:
        if own_work and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--facts", type=int, default=5_000_000)
    ap.add_argument("--wd-humans", type=int, default=100_000,
                    help="people of the Wikidata-shaped store (about 9 facts each)")
    ap.add_argument("--n", type=int, default=200, help="entries per run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default: temp)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--store-dir", type=Path, default=None,
                    help="the Freebase-like store, kept and reused (shared with "
                         "generate_bench / extend_bench at the same sizes and seed)")
    ap.add_argument("--wd-store-dir", type=Path, default=None,
                    help="the Wikidata-shaped store, kept and reused")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes for a smoke run (20k facts, 2k humans, 20 entries)")
    args = ap.parse_args(argv)
    if args.quick:
        args.entities, args.facts, args.wd_humans, args.n, args.repeats = 5_000, 20_000, 2_000, 20, 1
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    record = run(args)
    append_record(args.out / "kalma_generate_bench.jsonl", record, sort_keys=True)
    summary = {kg: {k: v for k, v in r.items() if not k.endswith("_runs")}
               for kg, r in record["results"].items()}
    print(json.dumps({"results": summary, "cpu": record["cpu"],
                      "build_seconds": record["build_seconds"]}, indent=2))
    for kg, r in record["results"].items():
        if not r["identical_entries"]:
            raise SystemExit(f"{kg}: generate_entries and the builder gave different entries")
    return record


if __name__ == "__main__":
    main()
