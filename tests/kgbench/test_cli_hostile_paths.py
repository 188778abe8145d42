"""Store and input paths holding quotes, spaces, non-ASCII and glob characters, end to
end through the CLI (issue 18, item 7).

Paths reach DuckDB (stage parts, chunk files, the import's work files and spill
folder) and LadybugDB (``COPY ... FROM``, ``LOAD FROM``): they must be parameters or
correctly quoted literals, never SQL or Cypher text, and both engines' glob expansion
must not turn ``[1]`` or ``*`` into patterns. Before the fix a store path with ``'``
crashed the load with a DuckDB parser error and one with ``[`` found no files.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.kgbench.test_cli import run, run_json

FB = "http://rdf.freebase.com/ns/"
HOSTILE_DIRS = [
    "o'brien \"ü\" dir",          # the quotes, a space, non-ASCII
    "dir [1] *?{a,b} 100%",        # glob characters of both engines
    "back\\slash 日本",             # a backslash (Cypher's escape character)
]
# Several COPY batches per table, more than the import cuts by filters: the
# partitioned export (its folder and glob) is used too.
ENV = {"KGBENCH_COPY_BATCH_ROWS": "3"}


def _fb(local: str) -> str:
    return f"<{FB}{local}>"


def _inputs(directory: Path) -> tuple[Path, Path, Path]:
    facts = directory / "facts 'one'.tsv"
    facts.write_text("".join(f"/m/{i:02d}\t/film/film/p{i % 3}\t/m/{i + 1:02d}\n"
                             for i in range(20)), encoding="utf-8")
    names = directory / "names \"ü\".tsv"
    names.write_text("".join(f"/m/{i:02d}\tEntity {i}\n" for i in range(21)), encoding="utf-8")
    dump = directory / "dump [x] 'ü'.nt.gz"
    lines = [f'{_fb(f"m.{i}")}\t{_fb("type.object.name")}\t"Thing {i}"@en\t.' for i in range(12)]
    lines += [f'{_fb(f"m.{i}")}\t{_fb("film.film.directed_by")}\t{_fb(f"m.{i + 1}")}\t.'
              for i in range(12)]
    dump.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return facts, names, dump


@pytest.mark.parametrize("name", HOSTILE_DIRS, ids=["quotes", "globs", "backslash"])
def test_load_and_read_with_hostile_store_and_input_paths(tmp_path: Path, name: str) -> None:
    base = tmp_path / name
    base.mkdir()
    facts, names, dump = _inputs(base)
    store = base / "store"

    first = run_json("load", "triples", facts, "--names", names, "--store", store, env=ENV)
    assert first["summary"]["facts_new"] == 20
    # Into a store that has data: the merge reads the store through exported files.
    second = run_json("load", "freebase", dump, "--store", store, env=ENV)
    assert second["summary"]["facts_new"] == 12 and second["summary"]["malformed"] == 0
    # The same files again: everything is a duplicate, nothing new.
    again = run_json("load", "triples", facts, "--names", names, "--store", store, env=ENV)
    assert again["summary"]["facts_new"] == 0 and again["summary"]["facts_duplicate"] == 20

    stats = run_json("stats", "--store", store)
    assert stats["facts"] == 32
    assert sorted(Path(s["file"]).name for s in stats["sources"]) == sorted(
        [facts.name, names.name, dump.name])
    assert all(s["status"] == "complete" for s in stats["sources"])
    entity = run_json("entity", "Entity 7", "--store", store)
    assert entity["results"][0]["entity"]["id"] == "m.07"
    thing = run_json("entity", "Thing 3", "--store", store)
    assert thing["results"][0]["entity"]["id"] == "m.3"
    assert not (store / "staging").exists()


def test_quoted_store_path_gives_no_parser_error(tmp_path: Path) -> None:
    """The issue's report: ``--store "/tmp/o'brien"`` crashed the load."""
    facts, names, _ = _inputs(tmp_path)
    store = tmp_path / "o'brien"
    proc = run("load", "triples", facts, "--names", names, "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert "Parser Error" not in proc.stderr and "Traceback" not in proc.stderr
    assert run_json("stats", "--store", store)["facts"] == 20
