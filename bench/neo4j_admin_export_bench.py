"""Offline Neo4j bulk path, measured: a synthetic stage of N facts exported with
``kgbench store export-neo4j``'s use case, then loaded by Neo4j's own import tool (from
the test launcher's classpath, ``make neo4j-up`` builds it) into a scratch DBMS home.

    .venv/bin/python -m bench.neo4j_admin_export_bench --facts 1000000

Prints export facts/s and import facts/s (the tool's wall time, JVM start included).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from kgstore import Literal
from kgstore.neo4j_admin import export_for_neo4j_admin
from kgstore.staging import StageWriter

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "tools" / "neo4j-test-server" / "target"
JAVA = Path(os.environ.get("JDK17", "/usr/lib/jvm/java-17-openjdk-amd64")) / "bin" / "java"


def synthetic_stage(path: Path, facts: int, seed: int = 7) -> None:
    """A KG of ``facts`` facts: 1/10 as many entities (Zipf-ish objects, so a few
    hubs), 50 predicates, one fact in five with a literal object."""
    rng = random.Random(seed)
    entities = max(facts // 10, 10)
    with StageWriter(path) as w:
        for i in range(entities):
            w.add_entity(f"e{i}", f"Entity {i}", aliases=(f"E-{i}",), types=(f"t{i % 20}",))
        for _ in range(facts):
            s = f"e{rng.randrange(entities)}"
            p = f"p{rng.randrange(50)}"
            if rng.random() < 0.2:
                w.add_fact(s, p, Literal(str(rng.randrange(10**6)), "xsd:integer"))
            else:
                w.add_fact(s, p, f"e{int(entities * rng.random() ** 3)}")


def export_stage(stage: Path, out: Path) -> Any:
    """``kgbench store export-neo4j``'s use case on ``stage`` into ``out`` (its report:
    facts, seconds, the neo4j-admin command)."""
    return export_for_neo4j_admin(str(stage), out, force=True)


def run_admin_import(report: Any, home: Path, classpath: Path) -> tuple[float, str]:
    """Run ``report.command`` (neo4j-admin database import full) with Neo4j's own tool
    from the launcher's Maven ``classpath`` into a fresh DBMS ``home``: wall seconds
    (JVM start included) and the tool's ``IMPORT DONE`` line."""
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    started = time.perf_counter()
    run = subprocess.run(
        [str(JAVA), "-Xmx1g", "-cp", classpath.read_text().strip(), "org.neo4j.cli.AdminTool",
         *report.command[1:]], env=dict(os.environ, NEO4J_HOME=str(home)),
        capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if run.returncode != 0 or "IMPORT DONE" not in run.stdout:
        raise SystemExit(f"neo4j-admin failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    done = next(line for line in run.stdout.splitlines() if "IMPORT DONE" in line)
    return seconds, done.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: a temp one)")
    parser.add_argument("--classpath", type=Path, default=LAUNCHER / "classpath.txt",
                        help="the Neo4j launcher's Maven classpath file (default: this "
                             "checkout's tools/neo4j-test-server/target/classpath.txt)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="kgbench-neo4j-export-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        synthetic_stage(work / "stage", args.facts)
        print(f"staged {args.facts:,} facts in {time.perf_counter() - started:.1f} s")
        report = export_stage(work / "stage", work / "export")
        print(f"export: {report.facts:,} distinct facts in {report.seconds:.1f} s = "
              f"{report.facts / report.seconds:,.0f} facts/s; nodes {report.nodes}, "
              f"relationships {report.relationships}")
        seconds, done = run_admin_import(report, work / "home", args.classpath)
        print(f"neo4j-admin import: {seconds:.1f} s wall ({done}) = "
              f"{report.facts / seconds:,.0f} facts/s")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
