"""The same seed gives byte-identical ``samples.jsonl`` from ``kgbench generate`` on the
embedded store and on Neo4j loaded from the same dump (issue 20): the demo KG (its
questions and a domain drawn from the KG) and a synthetic Freebase dump of 100k+ facts.

Neo4j returns a node's relationships in no defined order; its store orders every read
as the embedded store keeps them (:mod:`kgstore.backends.neo4j.store`), and these tests
are what hold the two to it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbench.demo.tour import (
    DEMO_QUESTIONS,
    build_demo_store,
    generate_demo_args,
    generate_domain_args,
)
from kgstore import open_store
from kgstore.checksum import content_checksum
from tests import neo4j_server
from tests.kgbench.test_cli import run
from tests.shared_builds import copy_tree

pytestmark = [neo4j_server.requires_neo4j, pytest.mark.neo4j]


def _env(tmp_path: Path) -> dict[str, str]:
    return {"KGBENCH_NEO4J_WORK": str(tmp_path / "neo4j-work")}


def _generate(args: list[str], tmp_path: Path) -> bytes:
    proc = run(*args, cwd=tmp_path, env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = Path(args[args.index("--out") + 1])
    return (out / "samples.jsonl").read_bytes()


def _both(make_args: object, tmp_path: Path, embedded: str) -> tuple[bytes, bytes]:
    assert callable(make_args)
    assert neo4j_server.URI is not None
    return (_generate(make_args(embedded, str(tmp_path / "out-embedded")), tmp_path),
            _generate(make_args(neo4j_server.URI, str(tmp_path / "out-neo4j")), tmp_path))


def _demo_stores(shared_demo_store: Path, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> str:
    """The demo KG in an embedded store (returned: a copy of the run's one, as generate
    writes into the store it reads) and loaded into the Neo4j test database."""
    assert neo4j_server.URI is not None
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "neo4j-work"))
    neo4j_server.wipe()
    embedded = str(copy_tree(shared_demo_store, tmp_path / "demo-store"))
    build_demo_store(neo4j_server.URI)
    return embedded


def test_demo_benchmarks_are_byte_identical_on_both_backends(
        shared_demo_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    embedded = _demo_stores(shared_demo_store, tmp_path, monkeypatch)
    assert neo4j_server.URI is not None
    with open_store(embedded, read_only=True) as a, \
            open_store(neo4j_server.URI, read_only=True) as b:
        assert a.stats().facts == b.stats().facts > 0
    questions = str(DEMO_QUESTIONS)
    lady, neo = _both(lambda store, out: generate_demo_args(store, questions, out),
                      tmp_path, embedded)
    assert lady.count(b"\n") > 20
    assert lady == neo
    lady, neo = _both(generate_domain_args, tmp_path, embedded)
    assert lady.count(b"\n") > 20
    assert lady == neo


@pytest.mark.slow
def test_a_100k_fact_synthetic_benchmark_is_byte_identical_on_both_backends(
        tmp_path: Path) -> None:
    from bench.freebase_synth import generate

    assert neo4j_server.URI is not None
    neo4j_server.wipe()
    dump = generate(tmp_path / "fb.nt.gz", 360_000, seed=1)
    embedded = str(tmp_path / "fb-store")
    for store in (embedded, neo4j_server.URI):
        proc = run("load", "freebase", dump, "--store", store, cwd=tmp_path, env=_env(tmp_path))
        assert proc.returncode == 0, proc.stderr[-3000:]
    with open_store(embedded, read_only=True) as a, \
            open_store(neo4j_server.URI, read_only=True) as b:
        assert a.stats().facts == b.stats().facts >= 100_000

    def args(store: str, out: str) -> list[str]:
        return ["generate", "--store", store, "--domain", "film.film", "--n", "60",
                "--out", out, "--seed", "5", "--force"]

    lady, neo = _both(args, tmp_path, embedded)
    assert lady.count(b"\n") > 60
    assert lady == neo


def test_kalma_entries_are_byte_identical_on_both_backends(
        shared_demo_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kalma generate`` (issue 22) reads pairs, pools and predicate counts through the
    Store interface only: the same seed gives the same entries and [NA] variants on
    Neo4j as on the embedded store."""
    embedded = _demo_stores(shared_demo_store, tmp_path, monkeypatch)
    assert neo4j_server.URI is not None
    outputs = []
    for store, name in ((embedded, "embedded"), (neo4j_server.URI, "neo4j")):
        out = tmp_path / f"kalma-{name}"
        proc = run("kalma", "generate", "--store", store, "--domain", "people.person",
                   "--n", "12", "--out", out, "--seed", "3", "--incompetence", "1,2",
                   cwd=tmp_path, env=_env(tmp_path))
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs.append([(out / f).read_bytes() for f in
                        ("entries.jsonl", "incompetence-1.jsonl", "incompetence-2.jsonl")])
    lady, neo = outputs
    assert lady[0].count(b"\n") == 12
    assert lady == neo


def _fb15k237_layout(demo: str, directory: Path) -> tuple[Path, Path, Path]:
    """The demo KG written as FB15k-237 writes Freebase: each fact through a CVT as one
    folded relation path (``/film/film/starring./film/performance/actor``), other entity
    facts as they are, literals left out; its names file; and its predicate names as
    property JSON lines (label plus an alias each)."""
    def path(id: str) -> str:
        return "/" + id.replace(".", "/")

    with open_store(demo, read_only=True) as store:
        entities = {e.id: e for batch in store.iter_entities() for e in batch}
        facts = [f for batch in store.iter_facts() for f in batch if not f.is_literal]
        predicates = [p for p in store.predicates() if p.label]
    cvts = {i for i, e in entities.items() if e.is_cvt}
    lines = [f"{path(f.subject)}\t{path(f.predicate)}\t{path(str(f.object))}" for f in facts
             if f.subject not in cvts and f.object not in cvts]
    lines += [f"{path(into.subject)}\t{path(into.predicate)}.{path(out.predicate)}\t"
              f"{path(str(out.object))}"
              for into in facts if into.object in cvts and into.subject not in cvts
              for out in facts if out.subject == into.object and out.object not in cvts]
    tsv, names, predicate_names = (directory / n for n in ("test.tsv", "entity2text.txt",
                                                            "predicates.jsonl"))
    tsv.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    names.write_text("".join(f"{path(i)}\t{e.name}\n" for i, e in sorted(entities.items())
                             if e.name and "\t" not in e.name and "\n" not in e.name),
                     encoding="utf-8")
    predicate_names.write_text("".join(
        json.dumps({"id": p.id, "label": p.label, "aliases": [p.label.lower() + " (data)"]})
        + "\n" for p in predicates), encoding="utf-8")
    return tsv, names, predicate_names


def test_an_unfolded_fb15k237_slice_is_byte_identical_on_both_backends(
        shared_demo_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34: FB15k-237's folded relations loaded as derived mediators (with
    predicate names from the data) give the same store and the same samples on both
    backends. (Not yet with --reverse-properties: the embedded store does not keep a
    node's facts in (predicate, object) order when they come in another order, which
    the Neo4j store assumes; the same holds for FB15k-237 loaded as it is, before issue
    34 too. A mediator's reverse fact is staged before its other fact.)"""
    assert neo4j_server.URI is not None
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "neo4j-work"))
    neo4j_server.wipe()
    tsv, names, predicate_names = _fb15k237_layout(str(shared_demo_store), tmp_path)
    # one mediator per distinct folded fact (two CVTs may fold into the same line)
    folded = len({line for line in tsv.read_text().splitlines() if "./" in line})
    embedded = str(tmp_path / "fb-store")
    for store in (embedded, neo4j_server.URI):
        proc = run("load", "triples", tsv, "--names", names,
                   "--predicate-names", predicate_names, "--store", store, cwd=tmp_path,
                   env=_env(tmp_path))
        assert proc.returncode == 0, proc.stderr[-3000:]
    with open_store(embedded, read_only=True) as a, \
            open_store(neo4j_server.URI, read_only=True) as b:
        assert a.stats().cvt_entities == b.stats().cvt_entities == folded > 100
        assert a.predicates() == b.predicates()
        assert any(p.aliases for p in a.predicates())
    sums = []
    for store in (embedded, neo4j_server.URI):
        with open_store(store, read_only=True) as opened:
            sums.append(content_checksum(opened))
    assert sums[0] == sums[1]
    questions = str(DEMO_QUESTIONS)

    def dataset(store: str, out: str) -> list[str]:
        return [*generate_demo_args(store, questions, out), "--no-classes"]

    def domain(store: str, out: str) -> list[str]:
        return ["generate", "--store", store, "--domain", "film.", "--n", "40", "--out", out,
                "--seed", "3", "--no-classes", "--force"]

    for make_args in (dataset, domain):
        lady, neo = _both(make_args, tmp_path, embedded)
        assert lady.count(b"\n") > 20
        assert lady == neo
