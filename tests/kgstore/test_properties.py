"""Property tests: random small KGs, checked against what went in and against networkx.

Each example gets its own store in a ``tempfile.TemporaryDirectory()`` (Hypothesis runs
many examples per test call, so pytest's ``tmp_path`` would be shared between them).
Examples are kept few: every one opens a database and runs a bulk import.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgstore import Entity, Fact, Literal, Store, normalize_name
from tests.kgstore.kgdata import KG, XSD, fact_key, snapshot

Factory = Callable[[Path], Store]

ENTITY_IDS = [f"e{i}" for i in range(10)]
PLACEHOLDER_IDS = ["x0", "x1"]  # fact endpoints without an entity row
PREDICATES = ["p", "q", "r.s"]
TYPES = ["t.a", "t.b", "t.c"]

# KGBENCH_PROPERTY_SCALE=10 runs ten times the examples (a deeper local search).
SCALE = int(os.environ.get("KGBENCH_PROPERTY_SCALE", "1"))
SETTINGS = settings(
    deadline=None, max_examples=10 * SCALE, suppress_health_check=[HealthCheck.too_slow],
)

# Characters assigned in this Python's Unicode tables only: case mappings of newer
# scripts differ between the engines that build name keys (utf8proc in pyarrow knows
# Unicode 16, DuckDB's tables are older), a limit documented in kgstore.models.
names = st.text(st.characters(exclude_categories=("Cs", "Cn")), min_size=1, max_size=12)
any_literal = st.one_of(
    st.builds(Literal, st.text(max_size=10)),
    st.builds(Literal, st.text(max_size=10),
              st.sampled_from(["xsd:string", "xsd:integer", XSD + "date", "xsd:double",
                               "http://example.org/dt"])),
    st.builds(Literal, st.text(max_size=10), lang=st.sampled_from(["en", "DE", "fr-CA"])),
)
# A small pool, so different entities often share a literal object.
shared_literal = st.sampled_from([Literal("1", "xsd:integer"), Literal("a"),
                                  Literal("a", lang="en"), Literal("2000-01-01", "xsd:date")])


@st.composite
def kgs(draw: st.DrawFn, literals: st.SearchStrategy[Literal] = any_literal,
        min_entities: int = 1, min_facts: int = 0, max_facts: int = 25,
        cvt_weight: float = 0.3) -> KG:
    n = draw(st.integers(min_entities, len(ENTITY_IDS)))
    entities = [
        Entity(
            id,
            name=draw(st.none() | names),
            aliases=tuple(draw(st.lists(names, max_size=2))),
            types=tuple(draw(st.lists(st.sampled_from(TYPES), max_size=2, unique=True))),
            is_cvt=draw(st.floats(0, 1)) < cvt_weight,
            description=draw(st.none() | st.text(max_size=8)),
        )
        for id in ENTITY_IDS[:n]
    ]
    nodes = ENTITY_IDS[:n] + PLACEHOLDER_IDS[: draw(st.integers(0, len(PLACEHOLDER_IDS)))]
    facts = draw(st.lists(
        st.builds(Fact, st.sampled_from(nodes), st.sampled_from(PREDICATES),
                  st.sampled_from(nodes) | literals),
        min_size=min_facts, max_size=max_facts,
    ))
    return KG(entities, facts)


def fresh(factory: Factory, tmp: str) -> Store:
    return factory(Path(tmp))


# --------------------------------------------------------------------------------------
# (1) Round trip
# --------------------------------------------------------------------------------------


@SETTINGS
@given(kg=kgs())
def test_ingest_round_trip(backend_factory: Factory, kg: KG) -> None:
    with tempfile.TemporaryDirectory() as tmp, fresh(backend_factory, tmp) as store:
        store.ingest(kg.entities, kg.facts)
        rows = {e.id: e for e in kg.entities}
        for id in kg.entity_ids:
            got = store.entity(id)
            assert got is not None, id
            want = rows.get(id, Entity(id))
            assert (got.name, set(got.aliases), set(got.types), got.is_cvt, got.description) == (
                want.name, set(want.aliases), set(want.types), want.is_cvt, want.description)
        facts = set(kg.facts)
        for id in kg.entity_ids:
            out = store.facts_out(id, limit=1000)
            assert len(out) == len(set(out))
            assert set(out) == {f for f in facts if f.subject == id}  # literals intact
            into = store.facts_in(id, limit=1000)
            assert set(into) == {f for f in facts if f.object_key == id and not f.is_literal}
        for f in facts:
            assert f in store.facts_out(f.subject, predicate=f.predicate, limit=1000)
        stats = store.stats()
        assert stats.entities == len(kg.entity_ids)
        assert stats.cvt_entities == sum(e.is_cvt for e in kg.entities)
        assert stats.facts == len(facts)
        assert stats.literal_facts == sum(f.is_literal for f in facts)
        assert stats.literals == len({lit.key for lit in kg.literals})
        assert {p.id: p.count for p in store.predicates()} == {
            p: sum(f.predicate == p for f in facts) for p in {f.predicate for f in facts}}
        # Name lookup: exactly the entities with a name or alias of the same key, found by
        # any spelling with that key (normalize_name is the definition of "same").
        by_key: dict[str, set[str]] = {}
        spellings: dict[str, set[str]] = {}
        for e in kg.entities:
            for text in ((e.name,) if e.name else ()) + e.aliases:
                key = normalize_name(text)
                if key:
                    by_key.setdefault(key, set()).add(e.id)
                    spellings.setdefault(key, set()).update(
                        t for t in (text, f"  {text.upper()}\t", text.swapcase())
                        if normalize_name(t) == key)
        for key, ids in by_key.items():
            for text in spellings[key]:
                found = store.find_by_name(text, limit=100)
                assert [e.id for e in found] == sorted(ids), (key, text)


# --------------------------------------------------------------------------------------
# (2) Idempotent re-ingest, in any order, with duplicates
# --------------------------------------------------------------------------------------


@settings(SETTINGS, max_examples=6 * SCALE)
@given(kg=kgs(), seed=st.integers(0, 2**32 - 1))
def test_reingest_shuffled_and_duplicated_changes_nothing(
    backend_factory: Factory, kg: KG, seed: int
) -> None:
    rng = random.Random(seed)
    entities = kg.entities + rng.choices(kg.entities, k=len(kg.entities) // 2)
    facts = kg.facts + rng.choices(kg.facts, k=len(kg.facts) // 2) if kg.facts else []
    rng.shuffle(entities)
    rng.shuffle(facts)
    # One store after the other: the Neo4j backend's test server has one database.
    with tempfile.TemporaryDirectory() as tmp_a, fresh(backend_factory, tmp_a) as a:
        a.ingest(kg.entities, kg.facts)
        first = snapshot(a)
        report = a.ingest(entities, facts)
        assert (report.entities_new, report.entities_updated, report.facts_new,
                report.literals_new, report.predicates_new) == (0, 0, 0, 0, 0)
        assert report.facts_duplicate == len(facts)
        assert snapshot(a) == first
    with tempfile.TemporaryDirectory() as tmp_b, fresh(backend_factory, tmp_b) as b:
        # The shuffled, duplicated input alone gives the same store.
        b.ingest(entities, facts)
        assert snapshot(b) == first
        assert sorted(map(fact_key, first["facts"])) == sorted(  # type: ignore[arg-type]
            map(fact_key, set(kg.facts)))


# --------------------------------------------------------------------------------------
# (3) Neighbourhood = a networkx reference
# --------------------------------------------------------------------------------------


def reference_hops(kg: KG, centre: str, k: int) -> dict[str, int]:
    """Hop distances as a weighted shortest path on a directed view of the undirected
    entity graph: stepping *out of* a CVT (other than the centre) costs 0, every other
    step 1. So film -> cvt -> actor is 1 hop, and the CVT itself is at the hop that
    reached it. Literal objects are not nodes."""
    cvts = {e.id for e in kg.entities if e.is_cvt}
    g = nx.DiGraph()
    g.add_nodes_from(kg.entity_ids)
    for f in kg.facts:
        if f.is_literal or f.subject == f.object_key:
            continue
        for u, v in ((f.subject, f.object_key), (f.object_key, f.subject)):
            g.add_edge(u, v, weight=0 if u in cvts and u != centre else 1)
    return dict(nx.single_source_dijkstra_path_length(g, centre, cutoff=k, weight="weight"))


@settings(SETTINGS, max_examples=12 * SCALE)
@given(kg=kgs(literals=shared_literal, min_entities=3, min_facts=4, max_facts=30,
               cvt_weight=0.4), data=st.data())
def test_neighborhood_matches_networkx(backend_factory: Factory, kg: KG, data: st.DataObject
                                       ) -> None:
    centre = data.draw(st.sampled_from(sorted(kg.entity_ids)), label="centre")
    cvts = {e.id for e in kg.entities if e.is_cvt}
    facts = set(kg.facts)
    with tempfile.TemporaryDirectory() as tmp, fresh(backend_factory, tmp) as store:
        store.ingest(kg.entities, kg.facts)
        for k in (1, 2, 3):
            sub = store.neighborhood(centre, hops=k, max_per_node=10_000, max_facts=1_000_000)
            expected = reference_hops(kg, centre, k)
            assert sub.hops == expected, k
            assert set(sub.entities) == set(expected)
            assert sub.truncated is False
            # The facts read: everything around the nodes the walk expanded.
            expanded = {centre} | {n for n, d in expected.items()
                                   if (n in cvts and d <= k) or (n not in cvts and d < k)}
            assert set(sub.facts) == {f for f in facts
                                      if f.subject in expanded or f.object_key in expanded}
            assert len(sub.facts) == len(set(sub.facts))


# --------------------------------------------------------------------------------------
# (4) Paths = networkx's simple paths
# --------------------------------------------------------------------------------------


def reference_paths(kg: KG, a: str, b: str) -> dict[tuple[str, ...], int]:
    """Simple paths of at most 3 hops on the undirected entity graph, each once (as its
    sequence of entities), with its length in hops: stepping onto a CVT other than
    ``b`` is free, as :func:`reference_hops` makes stepping out of one."""
    cvts = {e.id for e in kg.entities if e.is_cvt}
    g = nx.Graph()
    for f in set(kg.facts):
        if not f.is_literal and f.subject != f.object_key:
            g.add_edge(f.subject, f.object_key)
    if a not in g or b not in g:
        return {}
    found = {}
    for nodes in nx.all_simple_paths(g, a, b, cutoff=9):
        hops = sum(1 for n in nodes[1:] if n not in cvts or n == b)
        if hops <= 3:
            found[tuple(nodes)] = hops
    return found


@settings(SETTINGS, max_examples=12 * SCALE)
@given(kg=kgs(literals=shared_literal, min_entities=3, min_facts=4, max_facts=30,
               cvt_weight=0.4), data=st.data())
def test_paths_match_networkx(backend_factory: Factory, kg: KG, data: st.DataObject) -> None:
    ids = sorted(kg.entity_ids)
    pairs = [(a, b) for a in ids for b in ids if a != b]
    chosen = data.draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=4, unique=True),
                       label="pairs")
    limit = data.draw(st.integers(1, 5), label="limit")
    facts = set(kg.facts)
    with tempfile.TemporaryDirectory() as tmp, fresh(backend_factory, tmp) as store:
        store.ingest(kg.entities, kg.facts)
        for a, b in chosen:
            expected = reference_paths(kg, a, b)
            paths = store.paths(a, b, max_length=3, limit=10_000, max_per_node=10_000)
            got = {tuple(p.nodes): p.length for p in paths}
            assert len(got) == len(paths)   # each path once
            assert got == expected, (a, b)
            assert [p.length for p in paths] == sorted(p.length for p in paths)  # shortest first
            for p in paths:
                assert len(p.facts) == len(p.nodes) - 1
                for u, v, f in zip(p.nodes, p.nodes[1:], p.facts, strict=False):
                    # The fact shown for a step: one walked forward where there is one.
                    linking = [g for g in facts if not g.is_literal
                               and {g.subject, g.object_key} == {u, v}]
                    assert f == min(linking, key=lambda g: (g.subject != u, g.predicate,
                                                            g.object_key))
            # With a limit: a prefix of the full, deterministic order.
            limited = store.paths(a, b, max_length=3, limit=limit, max_per_node=10_000)
            assert [p.nodes for p in limited] == [p.nodes for p in paths][:limit]
