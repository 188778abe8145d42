"""The hub index of the LadybugDB store: one predicate's incoming facts of a hub entity
read through ``InSlot`` rather than a scan of all its incoming facts. Real stores in
temp dirs; the hub threshold is lowered through ``KGBENCH_HUB_MIN_DEGREE``."""

from __future__ import annotations

from pathlib import Path

import ladybug as lb
import pytest

from kgstore import Fact, Literal, Store, open_store
from kgstore.backends.ladybug import LadybugStore
from kgstore.backends.ladybug.schema import DB_FILE
from kgstore.staging import StageWriter

HUB = "hub"


def _stage(path: Path, facts: list[Fact], names: dict[str, str] | None = None) -> Path:
    with StageWriter(path) as w:
        for id, name in (names or {}).items():
            w.add_entity(id, name)
        for f in facts:
            w.add_fact_record(f)
    return w.dir


def _facts_into_hub() -> list[Fact]:
    """Twelve subjects pointing at the hub: odd ones over ``p``, even ones over ``q``,
    the first three over both; one literal fact and one fact into another node."""
    facts = [Fact(f"s{i:02d}", "p" if i % 2 else "q", HUB) for i in range(12)]
    facts += [Fact(f"s{i:02d}", "p" if i % 2 == 0 else "q", HUB) for i in range(3)]
    facts += [Fact("s00", "p", "other"), Fact("s01", "p", Literal("7", "xsd:integer"))]
    return facts


def _store(path: Path, facts: list[Fact], monkeypatch: pytest.MonkeyPatch, *,
           min_degree: int) -> LadybugStore:
    monkeypatch.setenv("KGBENCH_HUB_MIN_DEGREE", str(min_degree))
    store = open_store(path, create=True)
    assert isinstance(store, LadybugStore)
    store.import_stage(_stage(path.parent / f"{path.name}-stage", facts))
    return store


def _index(store: LadybugStore) -> tuple[list[str], list[tuple[str, str, str]]]:
    hubs = sorted(r[0] for r in store._rows("MATCH (h:Hub) RETURN h.id"))
    links = sorted(tuple(r) for r in store._rows(
        "MATCH (k:InSlot)-[:IN_SLOT]->(e:Entity) RETURN k.key, k.predicate, e.id"))
    return hubs, links  # type: ignore[return-value]


def _reads(store: Store) -> list[object]:
    """Every read that goes through the index when HUB is one, at several windows."""
    out: list[object] = []
    for predicate in ("p", "q", "absent"):
        for limit in (1, 2, 5, 100):
            out.append(store.facts_in(HUB, predicate=predicate, limit=limit))
            linked, more = store.linked_entities(HUB, predicate, outgoing=False, limit=limit)
            out.append(([e.id for e in linked], more))
        ids = [f"s{i:02d}" for i in range(20)] + [HUB]
        out.append(store.facts_many(ids, predicate=predicate, outgoing=False, limit=100))
    return out


def test_an_import_indexes_the_hubs_and_their_reads_equal_scans(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = _facts_into_hub()
    indexed = _store(tmp_path / "indexed", facts, monkeypatch, min_degree=10)
    scanned = _store(tmp_path / "scanned", facts, monkeypatch, min_degree=1000)
    with indexed, scanned:
        hubs, links = _index(indexed)
        assert hubs == [HUB]   # "other" has one incoming fact, the literal none
        expected = sorted((f"{HUB}\x1f{f.predicate}", f.predicate, f.subject)
                          for f in facts if f.object == HUB)
        assert links == expected
        assert _index(scanned) == ([], [])
        assert _reads(indexed) == _reads(scanned)
        # The index is what answers: the read is one InSlot lookup.
        seen: list[str] = []
        real = LadybugStore._rows

        def rows(self, query, params=None, **options):  # type: ignore[no-untyped-def]
            seen.append(query)
            return real(self, query, params, **options)

        monkeypatch.setattr(LadybugStore, "_rows", rows)
        assert len(indexed.facts_in(HUB, predicate="p", limit=3)) == 3
        assert any("InSlot" in q for q in seen)
        assert not any("InSlot" in q for q in seen if "other" in q)


def test_a_read_only_store_reads_the_index(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    facts = _facts_into_hub()
    with _store(tmp_path / "kg", facts, monkeypatch, min_degree=10):
        pass
    with _store(tmp_path / "ref", facts, monkeypatch, min_degree=1000) as ref:
        expected = _reads(ref)
    with open_store(tmp_path / "kg", read_only=True) as ro:
        assert isinstance(ro, LadybugStore)
        assert ro._hub_ids() == frozenset({HUB})
        assert _reads(ro) == expected
        assert _reads(ro) == expected   # again, from the read-only caches


def test_a_merge_indexes_new_hubs_and_new_facts_of_old_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = [Fact(f"a{i}", "p", "h1") for i in range(4)] + [Fact("a0", "p", "h2")]
    second = [Fact(f"b{i}", "q", "h1") for i in range(2)] + \
             [Fact(f"b{i}", "p", "h2") for i in range(3)] + [Fact("a0", "p", "h1")]
    monkeypatch.setenv("KGBENCH_HUB_MIN_DEGREE", "4")
    with open_store(tmp_path / "kg", create=True) as s:
        assert isinstance(s, LadybugStore)
        s.import_stage(_stage(tmp_path / "one", first))
        assert _index(s)[0] == ["h1"]
        s.import_stage(_stage(tmp_path / "two", second))
        hubs, links = _index(s)
        assert hubs == ["h1", "h2"]   # h2 became a hub: 4 incoming facts
        everything = {f for f in first + second}
        assert links == sorted((f"{f.object}\x1f{f.predicate}", f.predicate, f.subject)
                               for f in everything)
        assert {f.subject for f in s.facts_in("h1", predicate="q", limit=10)} == {"b0", "b1"}
        assert {f.subject for f in s.facts_in("h2", predicate="p", limit=10)} == \
            {"a0", "b0", "b1", "b2"}
        # The same stage again adds nothing, to the facts or to the index.
        s.import_stage(_stage(tmp_path / "three", second))
        assert _index(s) == (hubs, links)


def test_a_store_written_without_the_index_gets_it_with_its_next_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = _facts_into_hub()
    path = tmp_path / "kg"
    with _store(path, facts, monkeypatch, min_degree=10) as s:
        reads = _reads(s)
    # The layout of a store from before the index: the three tables dropped.
    db = lb.Database(str(path / DB_FILE))
    conn = lb.Connection(db)
    for table in ("IN_SLOT", "InSlot", "Hub"):
        conn.execute(f"DROP TABLE {table}")
    conn.close()
    db.close()
    with open_store(path, read_only=True) as old:
        assert isinstance(old, LadybugStore)
        assert old._hub_ids() == frozenset()
        assert _reads(old) == reads   # read by scans
    with open_store(path) as s:
        assert isinstance(s, LadybugStore)
        s.import_stage(_stage(tmp_path / "more", [Fact("s99", "p", HUB)],
                              names={"s99": "Ninety-nine"}))
        hubs, links = _index(s)
        assert hubs == [HUB]
        assert len(links) == len([f for f in facts if f.object == HUB]) + 1
        assert "s99" in {f.subject for f in s.facts_in(HUB, predicate="p", limit=100)}
