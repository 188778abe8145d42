"""Kept stages are checked against the checksums in their manifest before they are
imported (issue 18, item 6).

The issue's attack: a Parquet part written into a kept stage (there through the
cypher command's ``COPY ... TO``) was imported by the next ``kgbench load`` that
resumed from the stage. Here the forged parts are written with Arrow, as any process
that can write into the store's folder could; real LadybugDB stores, real files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kgstore import Store, open_store
from kgstore.staging import SCHEMAS, StageWriter, read_manifest, staged_parts, verify_stage
from loaders.errors import MalformedInputError
from loaders.triples import load_triples

FORGED = ("m.forged", "film.film.directed_by", "m.01")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    good = tmp_path / "good.tsv"
    good.write_text("/m/01\t/film/film/directed_by\t/m/02\n/m/03\t/film/film/starring\t/m/04\n")
    bad = tmp_path / "bad.tsv"
    bad.write_text("/m/05\t/film/film/directed_by\t/m/06\nnot a triple\n")
    return {"good": good, "bad": bad}


def _kept_stage(store: Store, store_dir: Path, files: dict[str, Path]) -> Path:
    """Fail a strict load on its second file: the first file's complete stage is kept
    in the store for the next run."""
    with pytest.raises(MalformedInputError):
        load_triples(store, [files["good"], files["bad"]], strict=True)
    (stage,) = (store_dir / "staging").iterdir()
    assert stage.name.startswith("good.tsv-") and verify_stage(stage) is None
    return stage


def _forge(path: Path) -> None:
    subject, predicate, obj = FORGED
    pq.write_table(pa.table({"subject": [subject], "predicate": [predicate], "object": [obj],
                             "object_kind": ["E"], "seq": [1]}, schema=SCHEMAS["facts"]), path)


def _facts(store: Store) -> set[tuple[str, str, str]]:
    rows = store.cypher("MATCH (s:Entity)-[f:Fact]->(o) RETURN s.id, f.predicate, o.id").rows
    return {(r[0], r[1], r[2]) for r in rows}


@pytest.mark.parametrize("how", ["added part", "replaced part"])
def test_tampered_kept_stage_is_staged_again_with_a_note(tmp_path: Path, files: dict[str, Path],
                                                         how: str) -> None:
    store_dir = tmp_path / "store"
    with open_store(store_dir, create=True) as store:
        stage = _kept_stage(store, store_dir, files)
        if how == "added part":
            _forge(stage / "facts" / "part-00001.parquet")
        else:
            _forge(stage / "facts" / "part-00000.parquet")
        assert verify_stage(stage) is not None

        progress: list[str] = []
        report = load_triples(store, [files["good"]], progress=lambda d, *_: progress.append(d))
        (f,) = report.files
        assert f.reused_stage is False  # parsed again
        assert len(f.notes) == 1 and "staging good.tsv again" in f.notes[0]
        assert "cannot be trusted" in f.notes[0] and str(stage) in f.notes[0]
        assert report.notes == f.notes and report.summary()["notes"] == f.notes
        assert [p for p in progress if p.startswith("note: ")] == [f"note: {f.notes[0]}"]
        facts = _facts(store)
        assert FORGED not in facts
        assert facts == {("m.01", "film.film.directed_by", "m.02"),
                         ("m.03", "film.film.starring", "m.04")}
        assert [s.status for s in store.sources()] == ["complete"]


def test_untouched_kept_stage_is_reused_without_a_note(tmp_path: Path,
                                                       files: dict[str, Path]) -> None:
    store_dir = tmp_path / "store"
    with open_store(store_dir, create=True) as store:
        _kept_stage(store, store_dir, files)
        report = load_triples(store, [files["good"]])
        assert report.files[0].reused_stage and report.notes == []
        assert len(_facts(store)) == 2


def test_stage_without_checksums_from_an_older_kgbench_is_staged_again(
        tmp_path: Path, files: dict[str, Path]) -> None:
    """Decision: a manifest without part checksums cannot vouch for its parts, so the
    file is staged again (cheap next to an import; a note says why)."""
    store_dir = tmp_path / "store"
    with open_store(store_dir, create=True) as store:
        stage = _kept_stage(store, store_dir, files)
        manifest = json.loads((stage / "manifest.json").read_text())
        del manifest["files"]  # what kgbench wrote before checksums
        (stage / "manifest.json").write_text(json.dumps(manifest))
        _forge(stage / "facts" / "part-00001.parquet")
        report = load_triples(store, [files["good"]])
        assert report.files[0].reused_stage is False
        assert "no part checksums (it was written by an older kgbench)" in report.notes[0]
        assert FORGED not in _facts(store)


def test_stage_changed_while_other_files_staged_is_staged_again(
        tmp_path: Path, files: dict[str, Path]) -> None:
    """The check runs again right before each import: a stage forged while later files
    of the same load were parsing is not imported either."""
    other = tmp_path / "other.tsv"
    other.write_text("/m/07\t/film/film/directed_by\t/m/08\n")
    store_dir = tmp_path / "store"
    forged: list[Path] = []

    def progress(description: str, *_: object) -> None:
        if description.startswith("parsing other.tsv") and not forged:
            (stage,) = [p for p in (store_dir / "staging").iterdir()
                        if p.name.startswith("good.tsv-")]
            forged.append(stage / "facts" / "part-00001.parquet")
            _forge(forged[0])

    with open_store(store_dir, create=True) as store:
        report = load_triples(store, [files["good"], other], progress=progress)
        assert forged
        assert "changed since it was written" in report.files[0].notes[0]
        assert report.files[1].notes == []
        assert FORGED not in _facts(store) and len(_facts(store)) == 3


def test_import_reads_only_the_parts_the_manifest_lists(tmp_path: Path) -> None:
    """A store imports the listed parts whatever else lies in the stage's folders."""
    with StageWriter(tmp_path / "stage") as w:
        w.add_fact("m.01", "p", "m.02")
    _forge(w.dir / "facts" / "part-00009.parquet")
    manifest = read_manifest(w.dir)
    assert [p.name for p in staged_parts(w.dir, manifest, "facts")] == ["part-00000.parquet"]
    with open_store(tmp_path / "store", create=True) as store:
        store.import_stage(w.dir)
        assert _facts(store) == {("m.01", "p", "m.02")}


def test_manifest_records_size_and_sha256_of_every_part(tmp_path: Path) -> None:
    import hashlib

    with StageWriter(tmp_path / "stage", batch_rows=2) as w:
        for i in range(5):
            w.add_fact(f"e{i}", "p", f"e{i + 1}")
        bulk = w.new_part("facts")
        _forge(bulk)
        empty = w.new_part("facts")  # reserved, then left out by its writer
        assert not empty.exists()
    listed = read_manifest(w.dir)["files"]["facts"]
    assert [e["name"] for e in listed] == [f"part-0000{i}.parquet" for i in range(4)]
    for entry in listed:
        data = (w.dir / "facts" / entry["name"]).read_bytes()
        assert entry["bytes"] == len(data)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert verify_stage(w.dir) is None
    (w.dir / "facts" / "part-00002.parquet").write_bytes(b"PAR1")
    assert "does not have the size" in (verify_stage(w.dir) or "")
