"""Batch reads and read caches of the Store interface (``facts_many``, ``entities``,
``adjacency(detail=...)``), checked against the one-at-a-time reads they
replace, on real stores.

``facts_many`` switches to one UNWIND query per batch from ``_MANY_MIN`` ids on and to
several queries past ``_BATCH`` ids, so the id lists here are long enough to take every
path (missing ids pad them: they must come back empty). A store opened read-only keeps
what it read; those tests reopen the film store read-only and compare every answer with
the writable store's.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgstore import Entity, Fact, Literal, Store, open_store, type_samples
from kgstore.backends.ladybug.store import _BATCH, _MANY_MIN
from tests.kgstore.kgdata import KG, NATIONALITY, RELEASE, STARRING


def _predicates(kg: KG) -> list[str]:
    return sorted({f.predicate for f in kg.facts})


def _one_by_one(store: Store, ids: list[str], predicate: str, outgoing: bool,
                literals: bool) -> dict[str, set[Fact]]:
    out: dict[str, set[Fact]] = {}
    for id in ids:
        facts = (store.facts_out(id, predicate=predicate, limit=1000) if outgoing
                 else store.facts_in(id, predicate=predicate, limit=1000))
        out[id] = {f for f in facts if literals or not f.is_literal}
    return out


def _id_lists(kg: KG) -> list[list[str]]:
    known = sorted(kg.entity_ids)
    padded = known + [f"m.missing{i}" for i in range(_MANY_MIN)]
    random.Random(0).shuffle(padded)
    return [known[:1], known[:3], padded, padded + padded[:5]]   # short, batch, duplicates


@pytest.mark.parametrize("outgoing", [True, False])
@pytest.mark.parametrize("literals", [True, False])
def test_facts_many_equals_reading_each_id(film_store: Store, film_kg: KG, outgoing: bool,
                                           literals: bool) -> None:
    for predicate in _predicates(film_kg):
        for ids in _id_lists(film_kg):
            found, more = film_store.facts_many(ids, predicate=predicate, outgoing=outgoing,
                                                limit=10_000, literals=literals)
            assert not more
            assert list(found) == list(dict.fromkeys(ids))
            assert {k: set(v) for k, v in found.items()} == \
                _one_by_one(film_store, list(found), predicate, outgoing, literals)
            assert all(len(v) == len(set(v)) for v in found.values())


@pytest.mark.parametrize("outgoing", [True, False])
@pytest.mark.parametrize("literals", [True, False])
def test_the_interface_default_agrees_with_the_backend(film_store: Store, film_kg: KG,
                                                       outgoing: bool, literals: bool) -> None:
    # Store.facts_many's own body (one read per id) runs on the same store. The backend
    # flags exactly the reads over the limit; the default may flag more (with
    # literals=False it counts the literal facts it drops), never fewer.
    ids = _id_lists(film_kg)[2]
    for predicate in _predicates(film_kg):
        full, _ = film_store.facts_many(ids, predicate=predicate, outgoing=outgoing,
                                        limit=10_000, literals=literals)
        everything = {k: set(v) for k, v in full.items()}
        total = sum(len(v) for v in full.values())
        for limit in (0, 1, 2, total, 10_000):
            default, more = Store.facts_many(film_store, ids, predicate=predicate,
                                             outgoing=outgoing, limit=limit, literals=literals)
            backend, backend_more = film_store.facts_many(
                ids, predicate=predicate, outgoing=outgoing, limit=limit, literals=literals)
            assert backend_more == (total > limit)
            assert more or total <= limit
            if not more:
                assert {k: set(v) for k, v in default.items()} == everything
            if not backend_more:
                assert {k: set(v) for k, v in backend.items()} == everything


def test_facts_many_over_several_batches(film_store: Store, film_kg: KG) -> None:
    known = sorted(film_kg.entity_ids)
    ids = [f"m.absent{i}" for i in range(_BATCH)] + known
    found, more = film_store.facts_many(ids, predicate=STARRING, outgoing=True, limit=100)
    assert not more and len(found) == len(ids)
    assert {k: set(v) for k, v in found.items() if v} == \
        {k: v for k, v in _one_by_one(film_store, known, STARRING, True, True).items() if v}


def test_facts_many_limit_counts_all_ids(film_store: Store, film_kg: KG) -> None:
    ids = _id_lists(film_kg)[2]
    found, more = film_store.facts_many(ids, predicate=STARRING, outgoing=True, limit=100)
    total = sum(len(v) for v in found.values())
    assert (total, more) == (3, False)
    for limit in (0, 1, 2):
        _, more = film_store.facts_many(ids, predicate=STARRING, outgoing=True, limit=limit)
        assert more, limit
    _, more = film_store.facts_many(ids, predicate=STARRING, outgoing=True, limit=3)
    assert not more


def test_entities_in_one_batch_equal_single_lookups(film_store: Store, film_kg: KG) -> None:
    known = sorted(film_kg.entity_ids)
    ids = [f"m.absent{i}" for i in range(_BATCH)] + known[::-1] + known[:2]
    found = film_store.entities(ids)
    assert list(found) == known[::-1]   # input order, each once, missing ids left out
    assert found == {i: film_store.entity(i) for i in known[::-1]}
    assert film_store.entities([]) == {}
    assert film_store.entities(["m.godfather"]) == {"m.godfather": film_store.entity("m.godfather")}


def test_lean_and_brief_adjacency_leave_out_what_they_say(film_store: Store,
                                                          film_kg: KG) -> None:
    checked_types = False
    for id in sorted(film_kg.entity_ids):
        for limit in (1, 3, 50):
            full = film_store.adjacency(id, limit=limit)
            lean = film_store.adjacency(id, limit=limit, detail="lean")
            brief = film_store.adjacency(id, limit=limit, detail="brief")
            for poorer in (lean, brief):
                assert (poorer.facts, poorer.truncated) == (full.facts, full.truncated)
            assert lean.entities == {k: _lean(e) for k, e in full.entities.items()}
            assert brief.entities == {k: dataclasses.replace(_lean(e), types=())
                                      for k, e in full.entities.items()}
            checked_types |= any(e.types for e in full.entities.values())
    assert checked_types   # the film KG's neighbours have types for brief to leave out


def _lean(e: Entity) -> Entity:
    return dataclasses.replace(e, aliases=(), description=None)


@pytest.mark.parametrize("limit", [0, 1, 2, 50])
def test_linked_entities_are_one_relation_of_the_facts(film_store: Store, film_kg: KG,
                                                       limit: int) -> None:
    # Every (node, predicate, direction) of the film KG, literal facts included (they
    # are never linked entities), against the facts read one by one and the generic
    # implementation of the Store interface.
    relations = {(f.subject, f.predicate, True) for f in film_kg.facts} | \
                {(f.object_key, f.predicate, False) for f in film_kg.facts if not f.is_literal}
    for node, predicate, outgoing in sorted(relations):
        linked, more = film_store.linked_entities(node, predicate, outgoing=outgoing,
                                                  limit=limit)
        facts = (film_store.facts_out if outgoing else film_store.facts_in)(
            node, predicate=predicate, limit=100)
        ends = [f.object_key if outgoing else f.subject for f in facts if not f.is_literal]
        assert [e.id for e in linked] == ends[:limit]
        assert more == (len(ends) > limit)
        records = film_store.entities(ends)
        assert [_lean(e) for e in linked] == [_lean(records[i]) for i in ends[:limit]]
        generic, _ = Store.linked_entities(film_store, node, predicate, outgoing=outgoing,
                                           limit=limit)
        assert [_lean(e) for e in generic] == [_lean(e) for e in linked]


def test_linked_entities_of_a_hub(film_store: Store) -> None:
    linked, more = film_store.linked_entities("m.usa", NATIONALITY, outgoing=False, limit=2)
    assert more and len(linked) == 2
    everyone, more = film_store.linked_entities("m.usa", NATIONALITY, outgoing=False, limit=3)
    assert not more
    assert {e.id for e in everyone} == {"m.coppola", "m.brando", "m.pacino"}
    assert all(e.name and "people.person" in e.types for e in everyone)
    assert film_store.linked_entities("m.godfather", RELEASE, outgoing=True, limit=5) == ([], False)


# -- a read-only store keeps what it reads ---------------------------------------------------


@pytest.fixture(scope="module")
def film_store_path(film_kg: KG, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("read-only-film") / "store"
    with open_store(path, create=True) as s:
        film_kg.load(s)
    return path


@pytest.fixture
def read_only_film(film_store_path: Path) -> Iterator[Store]:
    """The film store reopened read-only (its caches are on), fresh for each test: what
    one test's reads keep (a richer read answers a poorer one) must not answer the
    next test's (the brief-read test failed after its [ladybug] run in one process)."""
    with open_store(film_store_path, read_only=True) as s:
        yield s


def test_read_only_brief_read_does_not_answer_a_richer_one(read_only_film: Store,
                                                           film_store: Store,
                                                           film_kg: KG) -> None:
    for id in sorted(film_kg.entity_ids):
        read_only_film.adjacency(id, limit=7, detail="brief")   # kept first
        for detail in ("lean", "full"):
            assert read_only_film.adjacency(id, limit=7, detail=detail).entities == \
                film_store.adjacency(id, limit=7, detail=detail).entities


def test_read_only_larger_window_answers_a_smaller_one(film_kg: KG, film_store: Store,
                                                       tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store"
    with open_store(path, create=True) as s:
        film_kg.load(s)
    with open_store(path, read_only=True) as s:
        ids = sorted(film_kg.entity_ids)
        for id in ids:
            s.adjacency(id, limit=100, detail="brief")   # kept first: the whole neighbourhood
        s.adjacency(ids[0], limit=2, detail="lean")      # and one small lean window
        kept = len(s._adjacency_cache.entries)  # type: ignore[attr-defined]
        queries: list[str] = []
        run_query = s._rows  # type: ignore[attr-defined]
        monkeypatch.setattr(s, "_rows", lambda q, *a, **k: queries.append(q) or run_query(q, *a, **k))
        for id in ids:
            for limit in (1, 2, 3, 100):
                small = s.adjacency(id, limit=limit, detail="brief")
                fresh = film_store.adjacency(id, limit=limit, detail="brief")
                # (the lean window answers with the richer records it has)
                assert (small.facts, small.truncated) == (fresh.facts, fresh.truncated)
                assert {k: (e.name, e.is_cvt) for k, e in small.entities.items()} == \
                    {k: (e.name, e.is_cvt) for k, e in fresh.entities.items()}
        # served from the kept reads: no query, no new entry (the small lean window
        # answers a brief read of at most 2 facts, the others the whole neighbourhood)
        assert queries == []
        assert len(s._adjacency_cache.entries) == kept  # type: ignore[attr-defined]
        lean = s.adjacency(ids[0], limit=3, detail="lean")   # more than the kept window
        assert lean.facts == film_store.adjacency(ids[0], limit=3, detail="lean").facts
        assert len(s._adjacency_cache.entries) == kept  # replaced by the larger window  # type: ignore[attr-defined]


def test_read_only_reads_answer_like_the_first_time(read_only_film: Store, film_kg: KG) -> None:
    s = read_only_film
    ids = sorted(film_kg.entity_ids)
    for _ in range(2):   # the second round is served from the caches
        for id in ids:
            for limit in (1, 2, 100):
                adjacency = s.adjacency(id, limit=limit, detail="lean")
                again = s.adjacency(id, limit=limit, detail="lean")
                assert (again.facts, again.entities, again.truncated) == \
                    (adjacency.facts, adjacency.entities, adjacency.truncated)
                adjacency.facts.clear()      # a caller's edits do not reach the cache
                adjacency.entities.clear()
                assert s.adjacency(id, limit=limit, detail="lean").facts == again.facts
                # the kept lean read answers a brief one, with the records it has
                brief = s.adjacency(id, limit=limit, detail="brief")
                assert (brief.facts, brief.entities, brief.truncated) == \
                    (again.facts, again.entities, again.truncated)
            for predicate in _predicates(film_kg):
                # a long read first, then shorter ones: prefixes of the kept read
                for limit in (100, 1, 2):
                    out = s.facts_out(id, predicate=predicate, limit=limit)
                    assert out == s.facts_out(id, predicate=predicate, limit=limit)
                    assert len(out) == min(limit, len(s.facts_out(id, predicate=predicate,
                                                                  limit=100)))
                    linked, more = s.linked_entities(id, predicate, outgoing=False, limit=limit)
                    into = s.facts_in(id, predicate=predicate, limit=100)
                    assert [e.id for e in linked] == [f.subject for f in into][:limit]
                    assert more == (len(into) > limit)
        found, _ = s.facts_many(ids, predicate=STARRING, outgoing=True, limit=100)
        assert {k: set(v) for k, v in found.items()} == \
            _one_by_one(s, ids, STARRING, True, True)


def test_read_only_samples_are_prefixes_of_longer_ones(read_only_film: Store) -> None:
    s = read_only_film
    long = s.sample_entities(10, seed=3, named_only=False, include_cvt=True)
    assert len(long) == 10
    for k in (1, 4, 10):
        assert s.sample_entities(k, seed=3, named_only=False, include_cvt=True) == long[:k]
    more = s.sample_entities(50, seed=3, named_only=False, include_cvt=True)
    assert more[:10] == long and len(more) > 10
    films = s.sample_entities(5, seed=1, type_id="film.film")
    assert sorted(e.id for e in films) == ["m.godfather", "m.godfather2"]
    first = list(films)
    films.clear()   # a caller's edits do not reach the cache
    assert s.sample_entities(5, seed=1, type_id="film.film") == first


def test_read_only_entity_lookups_are_kept_and_copied(read_only_film: Store, film_kg: KG) -> None:
    s = read_only_film
    ids = sorted(film_kg.entity_ids)
    first = s.entities([*ids, "m.missing"])
    for e in first.values():
        e.name = "changed"   # a caller's edits do not reach the kept records
    again = s.entities(["m.missing", *ids])
    assert list(again) == ids and all(e.name != "changed" for e in again.values())
    assert s.entity("m.missing") is None and "m.missing" not in s.entities(["m.missing"])
    godfather = s.entity("m.godfather")
    assert godfather is not None and godfather.description == "1972 crime film"
    assert godfather.aliases == ("  the GODFATHER  ", "Il Padrino")


def test_read_only_typed_samples_match_the_per_type_scan(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 800 entities of five types (some with two, some nameless, some CVTs), and a cut
    # that keeps about 100 of them: groups shorter than k send the read to the scan.
    monkeypatch.setattr(type_samples, "HEAD_ENTITIES", 100)
    rng = random.Random(5)
    types = [f"t.type{i}" for i in range(5)]
    entities = [Entity(f"m.e{i}", None if i % 9 == 0 else f"E{i}",
                       types=tuple(rng.sample(types, rng.choice((1, 1, 2)))),
                       is_cvt=i % 13 == 0) for i in range(800)]
    path = tmp_path / "store"
    with open_store(path, create=True) as writable:
        writable.ingest(entities, [Fact("m.e1", "r.p", "m.e2")])
        expected = {(seed, t, named, cvt, k): writable.sample_entities(
                        k, seed=seed, type_id=t, named_only=named, include_cvt=cvt)
                    for seed in (0, 1) for t in [*types, "t.none"]
                    for named, cvt in ((True, False), (False, True))
                    for k in (1, 5, 30, 300)}
    with open_store(path, read_only=True) as s:
        for (seed, t, named, cvt, k), sample in expected.items():
            assert s.sample_entities(k, seed=seed, type_id=t, named_only=named,
                                     include_cvt=cvt) == sample, (seed, t, named, cvt, k)
        # The one scan served the types for each (seed, flags) once a second type came.
        prefixes = s._type_prefixes.entries  # type: ignore[attr-defined]
        assert set(prefixes) == {(seed, named, not named) for seed in (0, 1)
                                 for named in (True, False)}
        assert all(5 <= len(group) < 100 for p, _ in prefixes.values() for group in p.values())
        # A fifth seed drops the least recently used one; its samples stay the same.
        s.sample_entities(3, seed=9, type_id=types[0])
        s.sample_entities(3, seed=9, type_id=types[1])
        assert len(prefixes) == 4 and (0, True, False) not in prefixes
        assert s.sample_entities(30, seed=0, type_id=types[2]) == \
            expected[(0, types[2], True, False, 30)]


# -- slot counts: the backend's count against the interface's own (the window's facts) ----


def _slot_kg() -> KG:
    """A KG whose neighbourhoods a small window cuts: a hub with facts in and out, a
    fact from an entity to itself (in its window twice, once each way), literal
    objects, a predicate with both kinds of object, and an entity with no facts."""
    hub, loop = "m.slot_hub", "m.slot_loop"
    facts = [Fact(hub, "p.member", f"m.slot_m{i}") for i in range(4)]
    facts += [Fact(f"m.slot_m{i}", "p.in", hub) for i in range(3)]
    facts += [Fact(hub, "p.label", Literal(f"hub {i}")) for i in range(2)]
    facts += [Fact(loop, "p.same", loop), Fact(loop, "p.same", "m.slot_m0"),
              Fact(loop, "p.member", Literal("itself")), Fact(loop, "p.member", hub),
              Fact("m.slot_m1", "p.same", loop)]
    ids = sorted({f.subject for f in facts} | {f.object_key for f in facts
                                                  if not f.is_literal} | {"m.slot_alone"})
    return KG([Entity(id, id.removeprefix("m.slot_")) for id in ids], facts)


def _slot_cases(kg: KG) -> Iterator[tuple[str, str, bool, int]]:
    predicates = sorted({f.predicate for f in kg.facts}) + ["p.none"]
    for id in sorted(kg.entity_ids):
        for predicate in predicates:
            for outgoing in (True, False):
                for window in (0, 1, 2, 3, 4, 5, 8, 9, 10, 100):
                    yield id, predicate, outgoing, window


def test_slot_count_is_the_count_in_the_adjacency_window(store: Store) -> None:
    kg = _slot_kg()
    kg.load(store)
    counted = 0
    for id, predicate, outgoing, window in _slot_cases(kg):
        expected = Store.slot_count(store, id, predicate, outgoing=outgoing, window=window)
        assert store.slot_count(id, predicate, outgoing=outgoing, window=window) == expected, \
            (id, predicate, outgoing, window)
        counted += expected is not None and expected > 0
    # the cases cover cut windows, counts of 2 and the self-loop's double count
    assert store.slot_count("m.slot_hub", "p.member", outgoing=True, window=9) is None
    assert store.slot_count("m.slot_hub", "p.member", outgoing=True, window=10) == 4
    assert store.slot_count("m.slot_loop", "p.same", outgoing=True, window=10) == 3
    assert store.slot_count("m.slot_loop", "p.same", outgoing=False, window=10) == 3
    assert store.slot_count("m.slot_loop", "p.member", outgoing=True, window=10) == 2
    assert store.slot_count("m.slot_alone", "p.member", outgoing=True, window=0) == 0
    assert counted > 50


def test_read_only_slot_counts_answer_like_the_first_time(tmp_path: Path) -> None:
    kg = _slot_kg()
    path = tmp_path / "store"
    with open_store(path, create=True) as s:
        kg.load(s)
        fresh = {case: s.slot_count(case[0], case[1], outgoing=case[2], window=case[3])
                 for case in _slot_cases(kg)}
    with open_store(path, read_only=True) as s:
        s.adjacency("m.slot_loop", limit=100, detail="brief")   # kept: answers its counts
        for _ in range(2):   # the second time from what the first kept
            for case, expected in fresh.items():
                assert s.slot_count(case[0], case[1], outgoing=case[2],
                                    window=case[3]) == expected, case
