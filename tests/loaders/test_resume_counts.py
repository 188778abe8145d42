"""A resumed load keeps the counts its sources recorded (issue 18, smaller defects).

Running a load again after an interruption imports again the files it had finished
(imports are idempotent): that re-import finds everything stored already, and used to
overwrite the file's recorded counts (``facts_new``...) with its own zeros. The counts
of a source's imports now add up. Real stores; the interruption is a kill -9 of a real
load process, as in test_freebase.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kgstore import open_store
from loaders.triples import load_triples

ROOT = Path(__file__).resolve().parents[2]
FACTS = "".join(f"/m/a{i}\t/film/film/genre\t/m/g{i % 3}\n" for i in range(10))
SCRIPT = textwrap.dedent("""
    import sys
    from kgstore import open_store
    from loaders.triples import load_triples
    with open_store(sys.argv[1], create=True) as store:
        load_triples(store, [sys.argv[2], sys.argv[3]])
""")


def counts_by_file(store_dir: Path) -> dict[str, tuple[str, dict[str, int]]]:
    with open_store(store_dir, read_only=True) as store:
        return {Path(s.file).name: (s.status, s.counts) for s in store.sources()}


@pytest.mark.slow
def test_kill_9_then_rerun_keeps_the_finished_files_counts(tmp_path: Path) -> None:
    from bench.freebase_synth import generate

    small = tmp_path / "small.tsv"
    small.write_text(FACTS)
    big = generate(tmp_path / "big.nt.gz", 40_000, seed=5)
    store = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-c", SCRIPT, str(store), str(small), str(big)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # small.tsv imports first; its stage is removed once it is recorded complete, while
    # big.nt.gz's stays until its own import ends: kill in between.
    deadline = time.monotonic() + 120
    staging = store / "staging"
    while time.monotonic() < deadline and proc.poll() is None:
        stages = [p.name for p in staging.glob("*")] if staging.exists() else []
        if stages and all(name.startswith("big.nt.gz-") for name in stages):
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the load ended before big.nt.gz was imported"
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL

    before = counts_by_file(store)
    status, first = before["small.tsv"]
    assert status == "complete" and first["facts_new"] == 10 and first["entities_new"] == 13
    assert before.get("big.nt.gz", ("loading", {}))[0] == "loading"

    subprocess.run(cmd, env=env, check=True, timeout=300, capture_output=True)
    after = counts_by_file(store)
    status, counts = after["small.tsv"]
    assert status == "complete" and after["big.nt.gz"][0] == "complete"
    # The re-import found the 10 facts stored already: they are still what this file added.
    assert (counts["facts_new"], counts["entities_new"]) == (10, 13)
    assert counts["facts_duplicate"] == first["facts_duplicate"] + 10
    assert (counts["lines"], counts["triples"], counts["malformed"]) == (10, 10, 0)


def test_loading_a_file_again_keeps_its_counts(tmp_path: Path) -> None:
    small = tmp_path / "small.tsv"
    small.write_text(FACTS)
    with open_store(tmp_path / "store", create=True) as store:
        first = load_triples(store, [small])
        again = load_triples(store, [small])
        assert again.import_report.facts_new == 0  # this run's own report says so
        (record,) = store.sources()
    assert first.import_report.facts_new == 10
    assert record.counts["facts_new"] == 10 and record.counts["facts_duplicate"] == 10
