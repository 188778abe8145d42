"""The loaders' APIs with store and input paths holding quotes, spaces, non-ASCII, glob
characters and backslashes (issue 18, item 7): every loader stages through DuckDB or
Arrow and imports through DuckDB and LadybugDB, which must get those paths as
parameters or correctly quoted literals. Real stores, real files."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kgstore import open_store
from loaders.freebase import load_freebase
from loaders.rdf import load_rdf
from loaders.triples import load_triples

FB = "http://rdf.freebase.com/ns/"
EX = "http://example.org/"
HOSTILE_DIRS = {
    "quotes": "o'brien \"ü\" dir",
    "globs": "dir [1] *?{a,b}",
    "backslash": "back\\slash 日本",
}


def _freebase_dump(path: Path) -> Path:
    fb = lambda local: f"<{FB}{local}>"  # noqa: E731
    lines = [f'{fb(f"m.{i}")}\t{fb("type.object.name")}\t"Thing {i}"@en\t.' for i in range(12)]
    lines += [f'{fb(f"m.{i}")}\t{fb("film.film.directed_by")}\t{fb(f"m.{i + 1}")}\t.'
              for i in range(12)]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


@pytest.mark.parametrize("name", list(HOSTILE_DIRS.values()), ids=list(HOSTILE_DIRS))
def test_every_loader_with_hostile_paths(tmp_path: Path, name: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGBENCH_COPY_BATCH_ROWS", "3")  # batched and partitioned COPYs
    base = tmp_path / name
    base.mkdir()
    tsv = base / "facts 'x' ü.tsv"
    tsv.write_text("".join(f"/m/{i:02d}\t/r/p\t/m/{i + 1:02d}\n" for i in range(15)),
                   encoding="utf-8")
    ttl = base / "data \"[y]\".ttl"
    ttl.write_text(f"@prefix ex: <{EX}> .\nex:a ex:knows ex:b .\nex:b ex:knows ex:c .\n",
                   encoding="utf-8")
    nt = base / "more *z*.nt"
    nt.write_text(f"<{EX}c> <{EX}knows> <{EX}d> .\n", encoding="utf-8")
    dump = _freebase_dump(base / "dump 'fb'.nt.gz")

    with open_store(base / "store", create=True) as store:
        assert load_triples(store, [tsv]).import_report.facts_new == 15
        report = load_rdf(store, [ttl, nt], namespaces={EX: "ex:"})
        assert report.import_report.facts_new == 3 and report.malformed == 0
        assert load_freebase(store, [dump]).import_report.facts_new == 12
        again = load_triples(store, [tsv])  # merges against the store: all duplicates
        assert again.import_report.facts_new == 0
        assert store.stats().facts == 30
        assert [e.id for e in store.find_by_name("Thing 4")] == ["m.4"]
        assert [f.object for f in store.facts_out("ex:b")] == ["ex:c"]
    assert not (base / "store" / "staging").exists()
