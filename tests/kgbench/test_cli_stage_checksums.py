"""``kgbench load`` resuming from a kept stage that was tampered with (issue 18, item 6),
end to end through the CLI: the forged fact is not imported and the user is told."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tests.kgbench.test_cli import run, run_json


def _store_with_forged_stage(tmp_path: Path) -> tuple[Path, Path]:
    """A store with a kept stage of ``good.tsv`` that holds a forged facts part."""
    base = tmp_path / "base.tsv"
    base.write_text("/m/10\t/film/film/directed_by\t/m/11\n")
    good = tmp_path / "good.tsv"
    good.write_text("/m/01\t/film/film/directed_by\t/m/02\n")
    bad = tmp_path / "bad.tsv"
    bad.write_text("/m/05\t/film/film/directed_by\t/m/06\nnot a triple\n")
    store = tmp_path / "store"
    assert run("load", "triples", base, "--store", store).returncode == 0
    # A strict load stops at bad.tsv's line 2 before importing anything; good.tsv's
    # complete stage stays in the store for the next run.
    failed = run("load", "triples", good, bad, "--strict", "--store", store)
    assert failed.returncode == 1 and "bad.tsv:2" in failed.stderr
    (stage,) = (store / "staging").iterdir()
    # The attack: one more facts part, holding a fact nobody loaded.
    forged = pa.table({"subject": ["m.forged"], "predicate": ["film.film.directed_by"],
                       "object": ["m.01"], "object_kind": ["E"], "seq": [1]})
    pq.write_table(forged, stage / "facts" / "part-00001.parquet")
    return good, store


def test_forged_part_in_a_kept_stage_is_not_imported(tmp_path: Path) -> None:
    good, store = _store_with_forged_stage(tmp_path)
    proc = run("load", "triples", good, "--store", store, "--json")
    assert proc.returncode == 0, proc.stderr
    stats = run_json("stats", "--store", store)
    rows = run_json("cypher", "MATCH (e:Entity) RETURN e.id ORDER BY e.id", "--store", store)
    assert "m.forged" not in str(rows)
    assert stats["facts"] == 2
    # The note, on stderr while loading (the progress display) and in the report.
    assert "note: staging good.tsv again" in proc.stderr
    doc = json.loads(proc.stdout)
    (note,) = doc["summary"]["notes"]
    assert note.startswith("staging good.tsv again: its kept stage cannot be trusted "
                           "(facts/part-00001.parquet is not a part its manifest lists")
    assert doc["report"]["files"][0]["notes"] == [note]
    assert doc["report"]["files"][0]["reused_stage"] is False


def test_the_load_summary_prints_the_restage_note(tmp_path: Path) -> None:
    """Without --json the note is in the summary on stdout too (the progress line on
    stderr is cut to the terminal's width)."""
    good, store = _store_with_forged_stage(tmp_path)
    proc = run("load", "triples", good, "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert "note: staging good.tsv again: its kept stage cannot be trusted" in proc.stdout
