"""Tests of ``loaders.rdf`` (``kgbench load rdf``): formats, namespace maps, errors, and
the W3C N-Triples / Turtle suites and a Wikidata Turtle file (need KGBENCH_EXTERNAL_DATA)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgstore import open_store
from kgstore.models import Literal
from kgstore.store import Store
from loaders.errors import (
    InputFileError,
    MalformedInputError,
    NotFormatError,
    UnsupportedFormatError,
)
from loaders.pipeline import LoadOptions
from loaders.rdf import (
    RDF_NAMESPACES,
    detect_rdf_format,
    load_rdf,
    parse_ns,
    rdf_options,
    read_ns_file,
)
from tests.loaders import write_compressed

EXTERNAL = os.environ.get("KGBENCH_EXTERNAL_DATA")
EX = "http://example.org/"
NS = {EX: "ex:"}

TTL = f"""\
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix schema: <http://schema.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:ada rdfs:label "Ada Lovelace"@en, "Ada Lovelace (fr)"@fr ;
    skos:altLabel "Countess of Lovelace"@en ;
    schema:description "mathematician"@en ;
    a ex:Person ;
    ex:born "1815-12-10"^^xsd:date ;
    ex:count "01"^^xsd:integer ;
    ex:knows ex:babbage .
ex:babbage rdfs:label "Charles Babbage" ;
    ex:employment [ ex:employer ex:cambridge ; ex:role "professor" ] .
"""

NT = f"""\
<{EX}ada> <http://www.w3.org/2000/01/rdf-schema#label> "Ada Lovelace"@en .
<{EX}ada> <{EX}knows> <{EX}babbage> .
<{EX}babbage> <http://www.w3.org/2000/01/rdf-schema#label> "Charles Babbage" .
this is not a triple
<{EX}babbage> <{EX}age> "79"^^<http://www.w3.org/2001/XMLSchema#integer> .
"""

RDFXML = f"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:ex="{EX}">
  <rdf:Description rdf:about="{EX}ada">
    <rdfs:label xml:lang="en">Ada Lovelace</rdfs:label>
    <ex:knows rdf:resource="{EX}babbage"/>
  </rdf:Description>
</rdf:RDF>
"""

BAD_TTL = f"""\
@prefix ex: <{EX}> .
ex:a ex:p ex:b .
ex:c ex:p .
ex:d ex:p ex:e .
"""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "store", create=True) as s:
        yield s


def write(tmp_path: Path, name: str, text: str) -> Path:
    return write_compressed(tmp_path / name, text)


# -- formats -----------------------------------------------------------------------------
@pytest.mark.parametrize("name, fmt", [
    ("a.nt", "ntriples"), ("a.nt.gz", "ntriples"), ("a.nt.zst", "ntriples"),
    ("a.ttl", "turtle"), ("a.ttl.bz2", "turtle"), ("a.rdf", "xml"), ("a.owl", "xml"),
    ("a.n3", "n3"), ("a.jsonld", "json-ld"), ("a.trig", "trig"), ("a.nq", "nquads"),
])
def test_detect_format(name: str, fmt: str) -> None:
    assert detect_rdf_format(name) == fmt


def test_detect_format_sniffs_extensionless_files(tmp_path: Path) -> None:
    assert detect_rdf_format(write(tmp_path, "dump", TTL)) == "turtle"
    assert detect_rdf_format(write(tmp_path, "dump2", NT)) == "ntriples"
    assert detect_rdf_format(write(tmp_path, "dump3", RDFXML)) == "xml"
    with pytest.raises(UnsupportedFormatError, match="unknown RDF extension"):
        detect_rdf_format("a.csv")


def test_turtle_maps_names_aliases_types_and_facts(tmp_path: Path, store: Store) -> None:
    report = load_rdf(store, [write(tmp_path, "a.ttl", TTL)], namespaces=NS)
    assert report.malformed == 0
    assert report.files[0].format == "turtle"
    ada = store.entity("ex:ada")
    assert ada is not None
    assert ada.name == "Ada Lovelace"  # English name; the French one is dropped
    assert ada.aliases == ("Countess of Lovelace",)
    assert ada.description == "mathematician"
    assert ada.types == ("ex:Person",)
    facts = {(f.predicate, f.object) for f in store.facts_out("ex:ada")}
    assert ("ex:knows", "ex:babbage") in facts
    assert ("ex:count", Literal("01", "xsd:integer")) in facts  # lexical form kept
    assert ("ex:born", Literal("1815-12-10", "xsd:date")) in facts
    assert report.files[0].mapped["skipped_lang"] == 1
    # the blank node is a CVT-like node (nameless subject of facts)
    emp = store.facts_out("ex:babbage", predicate="ex:employment")
    assert len(emp) == 1 and str(emp[0].object).startswith("_:")
    assert store.entity(str(emp[0].object)).is_cvt  # type: ignore[union-attr]


def test_ntriples_and_turtle_agree(tmp_path: Path) -> None:
    """The same triples in N-Triples (vectorised path) and Turtle (rdflib) load the same."""
    nt = write(tmp_path, "a.nt", NT.replace("this is not a triple\n", ""))
    ttl = write(tmp_path, "b.ttl", NT.replace("this is not a triple\n", ""))
    out = []
    for i, path in enumerate((nt, ttl)):
        with open_store(tmp_path / f"s{i}", create=True) as s:
            load_rdf(s, [path], namespaces=NS)
            out.append((s.entity("ex:ada"), sorted(map(repr, s.facts_out("ex:babbage"))),
                        s.stats().facts))
    assert out[0] == out[1]


def test_ntriples_counts_malformed_lines(tmp_path: Path, store: Store) -> None:
    report = load_rdf(store, [write(tmp_path, "a.nt.gz", NT)], namespaces=NS)
    assert (report.lines, report.triples, report.malformed) == (5, 4, 1)
    assert report.examples[0][1] == 4
    assert store.entity("ex:babbage").name == "Charles Babbage"  # type: ignore[union-attr]
    with open_store(tmp_path / "strict", create=True) as s2:
        with pytest.raises(MalformedInputError, match=r"a\.nt\.gz:4:"):
            load_rdf(s2, [write(tmp_path, "a.nt.gz", NT)], strict=True)
        assert s2.stats().facts == 0


def test_rdfxml(tmp_path: Path, store: Store) -> None:
    load_rdf(store, [write(tmp_path, "a.rdf", RDFXML)], namespaces=NS)
    ada = store.entity("ex:ada")
    assert ada is not None and ada.name == "Ada Lovelace"
    assert [f.object for f in store.facts_out("ex:ada")] == ["ex:babbage"]


def test_jsonld_and_compressed_turtle(tmp_path: Path, store: Store) -> None:
    doc = {"@id": f"{EX}ada", f"{EX}knows": {"@id": f"{EX}babbage"},
           "http://www.w3.org/2000/01/rdf-schema#label": "Ada"}
    load_rdf(store, [write(tmp_path, "a.jsonld", json.dumps(doc)),
                     write(tmp_path, "b.ttl.bz2", TTL)], namespaces=NS)
    assert store.entity("ex:ada").name in ("Ada", "Ada Lovelace")  # type: ignore[union-attr]
    assert store.entity("ex:babbage") is not None


def test_quads_ignore_the_graph_name(tmp_path: Path, store: Store) -> None:
    nq = (f"<{EX}a> <{EX}p> <{EX}b> <{EX}g1> .\n<{EX}a> <{EX}p> <{EX}b> <{EX}g2> .\n"
          f"<{EX}a> <{EX}q> \"x\" .\n")
    trig = f"@prefix ex: <{EX}> .\nex:g1 {{ ex:c ex:p ex:d . }}\nex:e ex:p ex:f .\n"
    report = load_rdf(store, [write(tmp_path, "a.nq", nq), write(tmp_path, "b.trig", trig)],
                      namespaces=NS)
    assert report.malformed == 0
    assert {(f.predicate, f.object) for f in store.facts_out("ex:a")} == {
        ("ex:p", "ex:b"), ("ex:q", Literal("x"))}
    assert store.facts_out("ex:c")[0].object == "ex:d"
    assert store.facts_out("ex:e")[0].object == "ex:f"


def test_n3_statements_that_are_not_rdf_are_dropped(tmp_path: Path, store: Store) -> None:
    n3 = f'@prefix ex: <{EX}> .\nex:a ex:p ex:b .\n"lit" ex:p ex:c .\n'
    report = load_rdf(store, [write(tmp_path, "a.n3", n3)], namespaces=NS)
    assert report.dropped == {"not_rdf": 1}
    assert store.stats().facts == 1


# -- errors ------------------------------------------------------------------------------
def test_bad_turtle_strict_fails_with_the_line(tmp_path: Path, store: Store) -> None:
    path = write(tmp_path, "bad.ttl", BAD_TTL)
    with pytest.raises(MalformedInputError) as err:
        load_rdf(store, [path], strict=True)
    assert err.value.line == 3
    assert err.value.path == str(path)
    assert "Turtle syntax error" in err.value.reason
    assert store.stats().facts == 0


def test_bad_turtle_counts_one_malformed_and_keeps_what_parsed(tmp_path: Path,
                                                               store: Store) -> None:
    report = load_rdf(store, [write(tmp_path, "bad.ttl", BAD_TTL)], namespaces=NS)
    assert report.malformed == 1
    assert report.examples[0][1] == 3
    assert store.facts_out("ex:a")[0].object == "ex:b"
    assert store.entity("ex:d") is None  # after the error: skipped


def test_bad_rdfxml_names_the_line(tmp_path: Path, store: Store) -> None:
    bad = RDFXML.replace("</rdf:Description>", "")
    with pytest.raises(MalformedInputError, match="RDF/XML syntax error") as err:
        load_rdf(store, [write(tmp_path, "bad.rdf", bad)], strict=True)
    assert err.value.line > 0


def test_files_too_large_for_rdflib_are_refused(tmp_path: Path, store: Store) -> None:
    path = write(tmp_path, "big.ttl.gz", TTL * 20)
    with pytest.raises(UnsupportedFormatError, match="convert it to N-Triples") as err:
        load_rdf(store, [path], max_memory_file=1000)
    assert "rapper" in str(err.value) and "riot" in str(err.value)
    # N-Triples streams whatever its size
    load_rdf(store, [write(tmp_path, "big.nt", NT * 5)], max_memory_file=10)


def test_missing_file(tmp_path: Path, store: Store) -> None:
    with pytest.raises(InputFileError, match="file not found"):
        load_rdf(store, [tmp_path / "nope.ttl"])


# -- namespaces --------------------------------------------------------------------------
def test_parse_ns() -> None:
    assert parse_ns("fb=http://rdf.freebase.com/ns/") == ("http://rdf.freebase.com/ns/", "fb:")
    assert parse_ns("=http://example.org/") == ("http://example.org/", "")
    for bad in ("nope", "x=", "x=not-an-iri", "bad prefix=http://x/"):
        with pytest.raises(ValueError):
            parse_ns(bad)


def test_read_ns_file(tmp_path: Path) -> None:
    js = tmp_path / "ns.json"
    js.write_text(json.dumps({"ex": EX, "": "http://bare.org/"}))
    assert read_ns_file(js) == {EX: "ex:", "http://bare.org/": ""}
    tsv = tmp_path / "ns.tsv"
    tsv.write_text(f"# comment\nex\t{EX}\n\n\thttp://bare.org/\n")
    assert read_ns_file(tsv) == {EX: "ex:", "http://bare.org/": ""}
    bad = tmp_path / "bad.tsv"
    bad.write_text("ex http://x/\n")
    with pytest.raises(InputFileError, match="line 1"):
        read_ns_file(bad)


def test_default_map_and_overrides() -> None:
    opts = rdf_options(LoadOptions(langs=("de",)), {EX: ""})
    assert opts.langs == ("de",)
    assert opts.namespaces["http://www.w3.org/2000/01/rdf-schema#"] == "rdfs:"
    assert opts.namespaces["http://rdf.freebase.com/ns/"] == ""
    assert opts.namespaces[EX] == ""
    assert set(RDF_NAMESPACES) <= set(opts.namespaces)


def test_namespace_mapping_in_ids(tmp_path: Path, store: Store) -> None:
    ttl = (f"@prefix ex: <{EX}> .\n@prefix fb: <http://rdf.freebase.com/ns/> .\n"
           "@prefix wd: <http://www.wikidata.org/entity/> .\n"
           "@prefix wdt: <http://www.wikidata.org/prop/direct/> .\n"
           "ex:x ex:p fb:m.0abc .\nwd:Q42 wdt:P31 wd:Q5 .\n"
           f"<{EX}sub/y> ex:p <http://other.org/z> .\n")
    load_rdf(store, [write(tmp_path, "a.ttl", ttl)],
             namespaces={EX: "", EX + "sub/": "s:"})
    assert store.facts_out("x")[0].object == "m.0abc"
    assert store.facts_out("Q42")[0].predicate == "P31"
    assert store.facts_out("Q42")[0].object == "Q5"
    assert store.facts_out("s:y")[0].object == "http://other.org/z"  # longest prefix wins


# -- external data -----------------------------------------------------------------------
def external(*parts: str) -> Path:
    if not EXTERNAL:
        pytest.skip("KGBENCH_EXTERNAL_DATA is not set")
    path = Path(EXTERNAL, *parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def _manifest_tests(suite: Path, classes: dict[str, str]) -> list[tuple[str, Path]]:
    import rdflib

    manifest = suite / "manifest.ttl"
    graph = rdflib.Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
    rdft = rdflib.Namespace("http://www.w3.org/ns/rdftest#")
    mf = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
    out = []
    for kind, cls in classes.items():
        for test in graph.subjects(rdflib.RDF.type, rdft[cls]):
            action = str(graph.value(test, mf.action))
            out.append((kind, suite / action.rsplit("/", 1)[-1]))
    return sorted(out, key=lambda kv: kv[1].name)


@pytest.mark.slow
@pytest.mark.external
def test_w3c_ntriples_suite_through_load_rdf(tmp_path: Path) -> None:
    suite = external("w3c-rdf-tests", "rdf-n-triples")
    cases = _manifest_tests(suite, {"positive": "TestNTriplesPositiveSyntax",
                                    "negative": "TestNTriplesNegativeSyntax"})
    assert len(cases) >= 60
    failures = []
    with open_store(tmp_path / "store", create=True) as store:
        # Every positive file in one load (one call, not 41; each file is still its own
        # stage and import, ~0.2 s each): under --strict a file with a syntax error
        # fails the load, naming the file.
        positive = [path for kind, path in cases if kind == "positive"]
        try:
            report = load_rdf(store, positive, strict=True)
            assert report.malformed == 0, report.examples
            assert len(report.files) == len(positive), report.files
        except MalformedInputError as exc:
            failures.append(str(exc))
        for _, path in (case for case in cases if case[0] == "negative"):
            facts = store.stats().facts
            try:
                load_rdf(store, [path], strict=True)
                failures.append(f"{path.name}: accepted under --strict")
            except MalformedInputError:
                pass
            if store.stats().facts != facts:
                failures.append(f"{path.name}: strict failure changed the store")
            try:
                report = load_rdf(store, [path])
            except NotFormatError:  # its only line is malformed: refused, store unchanged
                if store.stats().facts != facts:
                    failures.append(f"{path.name}: a refused file changed the store")
                continue
            if report.malformed != 1:
                failures.append(f"{path.name}: {report.malformed} malformed, expected 1")
    assert not failures, "\n".join(failures)


# rdflib 7 rejects these valid Turtle documents (known rdflib limitations).
RDFLIB_TURTLE_GAPS: frozenset[str] = frozenset()


@pytest.mark.slow
@pytest.mark.external
def test_w3c_turtle_positive_syntax_tests_parse(tmp_path: Path) -> None:
    suite = external("w3c-rdf-tests", "rdf-turtle")
    cases = _manifest_tests(suite, {"positive": "TestTurtlePositiveSyntax"})
    assert len(cases) >= 70
    paths = [path for _, path in cases if path.name not in RDFLIB_TURTLE_GAPS]
    with open_store(tmp_path / "store", create=True) as store:
        # all in one load (one call, not 74; each file is still its own stage and
        # import): under --strict a file with a syntax error fails the load, naming it
        report = load_rdf(store, paths, strict=True)
    assert report.malformed == 0, report.examples
    assert len(report.files) == len(paths), report.files


@pytest.mark.external
def test_wikidata_q42_turtle_loads_with_labels_as_names(tmp_path: Path, store: Store) -> None:
    path = external("wikidata", "wikidata-query-rdf_Q42.ttl")
    report = load_rdf(store, [path], strict=True)
    assert report.malformed == 0
    assert report.triples > 4000
    q42 = store.entity("Q42")
    assert q42 is not None
    assert q42.name == "Douglas Adams"
    assert "Q5" in {f.object for f in store.facts_out("Q42", predicate="P31")}
    assert q42.aliases  # skos:altLabel@en
    assert q42.description
