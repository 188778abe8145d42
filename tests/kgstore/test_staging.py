"""The staged Parquet layout: StageWriter batching, manifest, incomplete stages."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kgstore import Entity, Fact, Literal, StagingError
from kgstore.staging import LAYOUT_VERSION, SCHEMAS, TABLES, StageWriter, part_glob, read_manifest


def _read(stage: Path, table: str) -> list[dict]:
    parts = sorted((stage / table).glob("*.parquet"))
    rows: list[dict] = []
    for p in parts:
        t = pq.read_table(p)
        assert t.schema.equals(SCHEMAS[table]), (table, t.schema)
        rows.extend(t.to_pylist())
    return rows


def test_batches_into_several_parts(tmp_path: Path) -> None:
    with StageWriter(tmp_path / "stage", batch_rows=3) as w:
        for i in range(10):
            w.add_entity(f"e{i}", name=f"E {i}")
        for i in range(7):
            w.add_fact(f"e{i}", "p", f"e{i + 1}")
    stage = w.dir
    assert sorted(p.name for p in (stage / "entities").iterdir()) == [
        "part-00000.parquet", "part-00001.parquet", "part-00002.parquet", "part-00003.parquet"]
    assert len(list((stage / "facts").glob("*.parquet"))) == 3
    assert [len(pq.read_table(p)) for p in sorted((stage / "entities").glob("*.parquet"))] == [
        3, 3, 3, 1]
    assert [r["id"] for r in _read(stage, "entities")] == [f"e{i}" for i in range(10)]
    manifest = read_manifest(stage)
    assert manifest["layout"] == LAYOUT_VERSION
    assert manifest["complete"] is True
    assert manifest["counts"] == {"entities": 10, "facts": 7, "literals": 0, "predicates": 0,
                                  "cvt_types": 0}
    assert manifest["parts"] == {"entities": 4, "facts": 3, "literals": 0, "predicates": 0,
                                 "cvt_types": 0}


def test_rows_and_columns(tmp_path: Path) -> None:
    lit = Literal("1972-03-24", "http://www.w3.org/2001/XMLSchema#date")
    with StageWriter(tmp_path / "stage") as w:
        w.add_entity_record(Entity("m.1", "One", aliases=("Uno",), types=("t",), description="d"))
        w.add_entity("m.2", is_cvt=None)
        w.add_fact_record(Fact("m.1", "released", lit))
        w.add_fact("m.1", "next", "m.2")
        w.add_predicate("next", "next one")
        w.add_cvt_type("film.performance")
    stage = w.dir
    entities = _read(stage, "entities")
    assert entities[0] == {"id": "m.1", "name": "One", "aliases": ["Uno"], "types": ["t"],
                           "is_cvt": False, "description": "d", "seq": entities[0]["seq"]}
    assert entities[1]["is_cvt"] is None and entities[1]["aliases"] == []
    facts = _read(stage, "facts")
    assert [(f["subject"], f["predicate"], f["object"], f["object_kind"]) for f in facts] == [
        ("m.1", "released", lit.key, "L"), ("m.1", "next", "m.2", "E")]
    seqs = [r["seq"] for r in entities] + [r["seq"] for r in facts]
    assert len(set(seqs)) == len(seqs)  # one sequence over all records
    assert facts[0]["seq"] < facts[1]["seq"]
    assert _read(stage, "literals") == [
        {"id": lit.key, "value": "1972-03-24", "datatype": "xsd:date", "lang": None}]
    assert _read(stage, "predicates") == [{"id": "next", "label": "next one", "aliases": []}]
    assert _read(stage, "cvt_types") == [{"type": "film.performance"}]


def test_counts_are_before_dedupe(tmp_path: Path) -> None:
    w = StageWriter(tmp_path / "stage", batch_rows=2)
    for _ in range(3):
        w.add_fact("a", "p", Literal("x"))
    assert w.counts == {"entities": 0, "facts": 3, "literals": 3, "predicates": 0,
                        "cvt_types": 0}
    w.close(extra={"source": "test.nt"})
    manifest = read_manifest(w.dir)
    assert manifest["counts"]["facts"] == 3
    assert manifest["extra"] == {"source": "test.nt"}
    assert w.close() == w.dir  # closing twice is harmless


def test_part_glob(tmp_path: Path) -> None:
    with StageWriter(tmp_path / "stage") as w:
        w.add_entity("e")
    assert part_glob(w.dir, "entities") == str(w.dir / "entities" / "*.parquet")
    assert part_glob(w.dir, "facts") is None
    assert all((w.dir / t).is_dir() for t in TABLES)


def test_existing_directory_is_replaced(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    with StageWriter(stage, batch_rows=1) as w:
        w.add_entity("old1")
        w.add_entity("old2")
    with StageWriter(stage) as w:
        w.add_entity("new")
    assert [r["id"] for r in _read(stage, "entities")] == ["new"]
    assert read_manifest(stage)["counts"]["entities"] == 1


def test_exception_leaves_stage_incomplete(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    with pytest.raises(RuntimeError), StageWriter(stage, batch_rows=1) as w:
        w.add_entity("e1")
        raise RuntimeError("parser died")
    assert not (stage / "manifest.json").exists()
    assert any((stage / "entities").glob("*.parquet"))  # parts written before the crash
    with pytest.raises(StagingError, match="interrupted"):
        read_manifest(stage)


def test_read_manifest_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(StagingError, match="no manifest"):
        read_manifest(tmp_path / "nope")


@pytest.mark.parametrize(
    "manifest",
    [{"layout": LAYOUT_VERSION, "complete": False}, {"layout": LAYOUT_VERSION},
     {"layout": LAYOUT_VERSION + 1, "complete": True}, {}],
)
def test_read_manifest_refuses_incomplete_or_other_layout(tmp_path: Path, manifest: dict) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StagingError):
        read_manifest(tmp_path)
