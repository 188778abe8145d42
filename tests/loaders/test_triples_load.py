"""Mapping triples into the staged layout, and load_triples end to end (a recording
fake store for the protocol, the LadybugDB store for the result)."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from kgstore.location import is_uri
from kgstore.models import Literal, SourceRecord
from kgstore.staging import TABLES, StageWriter, read_manifest
from kgstore.store import ImportReport
from loaders.errors import InputFileError, MalformedInputError, UnsupportedFormatError
from loaders.ntriples import parse_line_raw
from loaders.triples import (
    DEFAULT_NAMESPACES,
    LoadReport,
    TripleMapper,
    detect_format,
    load_triples,
)
from tests.external import external_path as _external

FB = "http://rdf.freebase.com/ns/"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
XSD = "http://www.w3.org/2001/XMLSchema#"


def fb(local: str) -> str:
    return f"<{FB}{local}>"


def read_stage(stage: Path) -> dict[str, list[dict[str, Any]]]:
    """Every table of a stage as a list of row dicts (``seq`` dropped)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for table in TABLES:
        rows: list[dict[str, Any]] = []
        for part in sorted((stage / table).glob("*.parquet")):
            rows.extend(pq.read_table(part).to_pylist())
        for row in rows:
            row.pop("seq", None)
        out[table] = rows
    return out


def stage_lines(tmp_path: Path, lines: list[str], **kwargs: Any) -> tuple[dict, TripleMapper]:
    """Map N-Triples ``lines`` into a fresh stage; return its tables and the mapper."""
    writer = StageWriter(tmp_path / "stage")
    mapper = TripleMapper(writer, **kwargs)
    for line in lines:
        raw = parse_line_raw(line)
        assert raw is not None, line
        mapper.add(raw)
    writer.close()
    return read_stage(writer.dir), mapper


def entity_rows(tables: dict) -> list[tuple]:
    return [(r["id"], r["name"], r["aliases"], r["types"], r["description"])
            for r in tables["entities"]]


def fact_rows(tables: dict) -> list[tuple]:
    literals = {r["id"]: Literal(r["value"], r["datatype"], r["lang"]) for r in tables["literals"]}
    return [(r["subject"], r["predicate"],
             literals[r["object"]] if r["object_kind"] == "L" else r["object"])
            for r in tables["facts"]]


# -- ids ---------------------------------------------------------------------------------
@pytest.mark.parametrize("iri, expected", [
    (FB + "m.0abc", "m.0abc"),
    (FB + "film.film.directed_by", "film.film.directed_by"),
    (WD + "Q42", "Q42"),
    (WD + "P57", "P57"),
    (WDT + "P57", "P57"),
    ("http://example.org/thing", "http://example.org/thing"),
    ("urn:isbn:123", "urn:isbn:123"),
    (FB, FB),  # nothing after the prefix: keep the IRI rather than make an empty id
])
def test_iri_ids(iri: str, expected: str) -> None:
    mapper = TripleMapper(StageWriter.__new__(StageWriter))
    assert mapper.iri_id(iri) == expected


def test_custom_namespaces_longest_prefix_wins() -> None:
    mapper = TripleMapper(StageWriter.__new__(StageWriter), namespaces={
        "http://ex.org/": "ex:", "http://ex.org/people/": "person:"})
    # Both orders: the mapper remembers the last prefix it matched.
    for iri, expected in [("http://ex.org/x", "ex:x"), ("http://ex.org/people/ann", "person:ann"),
                          ("http://ex.org/people/bob", "person:bob"), ("http://ex.org/y", "ex:y"),
                          ("http://ex.org/people/", "ex:people/"), ("http://ex.org/z", "ex:z")]:
        assert mapper.iri_id(iri) == expected
    assert mapper.iri_id(FB + "m.0abc") == FB + "m.0abc"  # replaced map: no defaults


# -- mapping -----------------------------------------------------------------------------
def test_plain_facts(tmp_path: Path) -> None:
    tables, mapper = stage_lines(tmp_path, [
        f"{fb('m.0f')}\t{fb('film.film.directed_by')}\t{fb('m.0d')}\t.",
        f'{fb("m.0f")}\t{fb("film.film.initial_release_date")}\t"1972-03-24"^^<{XSD}date>\t.',
        f'{fb("m.0f")}\t{fb("film.film.tagline")}\t"An offer"@en\t.',
        f'{fb("m.0f")}\t{fb("film.film.runtime")}\t"175"^^<{XSD}string>\t.',
        f'<{WD}Q42> <{WDT}P69> <{WD}Q691283> .',
        '<http://ex.org/a> <http://ex.org/rel> "plain" .',
    ])
    assert fact_rows(tables) == [
        ("m.0f", "film.film.directed_by", "m.0d"),
        ("m.0f", "film.film.initial_release_date", Literal("1972-03-24", "xsd:date")),
        ("m.0f", "film.film.tagline", Literal("An offer", lang="en")),
        ("m.0f", "film.film.runtime", Literal("175")),  # xsd:string == simple literal
        ("Q42", "P69", "Q691283"),
        ("http://ex.org/a", "http://ex.org/rel", Literal("plain")),
    ]
    assert tables["entities"] == [] and tables["predicates"] == []
    assert mapper.counts["facts"] == 6
    assert mapper.predicates_used == {
        "film.film.directed_by", "film.film.initial_release_date", "film.film.tagline",
        "film.film.runtime", "P69", "http://ex.org/rel"}


def test_literal_keys_match_the_literal_table(tmp_path: Path) -> None:
    tables, _ = stage_lines(tmp_path, [f'{fb("m.a")} {fb("x.y.z")} "v"@en .'])
    assert tables["facts"][0]["object"] == Literal("v", lang="en").key
    assert tables["literals"] == [
        {"id": Literal("v", lang="en").key, "value": "v", "datatype": None, "lang": "en"}]


def test_names_and_languages(tmp_path: Path) -> None:
    tables, mapper = stage_lines(tmp_path, [
        f'{fb("m.a")}\t{fb("type.object.name")}\t"Alpha"@en\t.',
        f'{fb("m.a")}\t{fb("type.object.name")}\t"Alpha FR"@fr\t.',
        f'{fb("m.a")}\t{fb("type.object.name")}\t"Alpha GB"@en-gb\t.',
        f'{fb("m.b")}\t<{RDFS}label>\t"Beta"\t.',
        f'{fb("m.c")}\t<{RDFS}label>\t"Gamma"@EN\t.',
    ])
    assert [(r[0], r[1]) for r in entity_rows(tables)] == [
        ("m.a", "Alpha"), ("m.b", "Beta"), ("m.c", "Gamma")]
    assert mapper.counts["names"] == 3 and mapper.counts["skipped_lang"] == 2
    assert tables["facts"] == []


@pytest.mark.parametrize("langs, expected", [
    (("fr",), ["Alpha FR", "Untagged"]),
    (("en", "fr"), ["Alpha", "Alpha FR", "Untagged"]),
    (None, ["Alpha", "Alpha FR", "Alpha GB", "Untagged"]),
])
def test_langs_parameter(tmp_path: Path, langs: tuple[str, ...] | None, expected: list[str]) -> None:
    tables, _ = stage_lines(tmp_path, [
        f'{fb("m.a")} {fb("type.object.name")} "Alpha"@en .',
        f'{fb("m.a")} {fb("type.object.name")} "Alpha FR"@fr .',
        f'{fb("m.a")} {fb("type.object.name")} "Alpha GB"@en-GB .',
        f'{fb("m.a")} {fb("type.object.name")} "Untagged" .',
    ], langs=langs)
    assert [r[1] for r in entity_rows(tables)] == expected


def test_aliases_types_descriptions(tmp_path: Path) -> None:
    tables, mapper = stage_lines(tmp_path, [
        f'{fb("m.a")} {fb("common.topic.alias")} "A1"@en .',
        f'{fb("m.a")} {fb("common.topic.alias")} "A-de"@de .',
        f'<{WD}Q42> <{SKOS}altLabel> "DNA"@en .',
        f'{fb("m.a")} {fb("type.object.type")} {fb("film.film")} .',
        f'<{WD}Q42> <{RDF}type> <http://schema.org/Person> .',
        f'{fb("film.film")} {fb("type.type.instance")} {fb("m.b")} .',
        f'{fb("m.a")} {fb("common.topic.description")} "A film."@en .',
        f'<{WD}Q42> <http://schema.org/description> "English writer"@en .',
        f'<{WD}Q42> <http://schema.org/description> "Schriftsteller"@de .',
    ])
    assert entity_rows(tables) == [
        ("m.a", None, ["A1"], [], None),
        ("Q42", None, ["DNA"], [], None),
        ("m.a", None, [], ["film.film"], None),
        ("Q42", None, [], ["http://schema.org/Person"], None),
        ("m.b", None, [], ["film.film"], None),  # type.type.instance types its object
        ("m.a", None, [], [], "A film."),
        ("Q42", None, [], [], "English writer"),
    ]
    assert (mapper.counts["aliases"], mapper.counts["types"], mapper.counts["descriptions"],
            mapper.counts["skipped_lang"]) == (2, 3, 2, 2)


def test_mediator_hint(tmp_path: Path) -> None:
    tables, mapper = stage_lines(tmp_path, [
        f'{fb("film.performance")}\t{fb("freebase.type_hints.mediator")}\t"true"\t.',
        f'{fb("film.film")}\t{fb("freebase.type_hints.mediator")}\t"false"\t.',
        f'{fb("x.y")}\t{fb("freebase.type_hints.mediator")}\t"true"^^<{XSD}boolean>\t.',
    ])
    assert tables["cvt_types"] == [{"type": "film.performance"}, {"type": "x.y"}]
    assert tables["facts"] == [] and mapper.counts["cvt_types"] == 2


def test_special_predicates_with_wrong_object_kind_stay_facts(tmp_path: Path) -> None:
    tables, _ = stage_lines(tmp_path, [
        f'{fb("m.a")} {fb("type.object.name")} {fb("m.n")} .',
        f'{fb("m.a")} {fb("type.object.type")} "film.film" .',
        f'{fb("m.a")} <{SKOS}altLabel> _:b .',
    ], bnode_scope="f1")
    assert fact_rows(tables) == [
        ("m.a", "type.object.name", "m.n"),
        ("m.a", "type.object.type", Literal("film.film")),
        ("m.a", f"{SKOS}altLabel", "_:f1_b"),
    ]


def test_blank_nodes_are_scoped(tmp_path: Path) -> None:
    line = '_:b1 <http://ex.org/p> _:b2 .'
    one, _ = stage_lines(tmp_path / "1", [line], bnode_scope="aaaa")
    two, _ = stage_lines(tmp_path / "2", [line], bnode_scope="bbbb")
    assert fact_rows(one) == [("_:aaaa_b1", "http://ex.org/p", "_:aaaa_b2")]
    assert fact_rows(two) == [("_:bbbb_b1", "http://ex.org/p", "_:bbbb_b2")]


def test_predicate_labels(tmp_path: Path) -> None:
    tables, mapper = stage_lines(tmp_path, [
        f'{fb("film.film.directed_by")} {fb("type.object.name")} "Directed by"@en .',
        f'<{WD}P57> <{RDFS}label> "director"@en .',
        f'{fb("m.0abc.x")} {fb("type.object.name")} "Not a property"@en .',
        f'{fb("film.film")} {fb("type.object.name")} "Film"@en .',  # a type, not a property
        f'{fb("m.a")} <http://ex.org/knows> {fb("m.b")} .',
        '<http://ex.org/knows> <http://www.w3.org/2000/01/rdf-schema#label> "knows" .',
    ])
    assert tables["predicates"] == [
        {"id": "film.film.directed_by", "label": "Directed by", "aliases": []},
        {"id": "P57", "label": "director", "aliases": []},
        {"id": "http://ex.org/knows", "label": "knows", "aliases": []},  # used as a predicate above
    ]
    assert mapper.counts["predicate_labels"] == 3
    # Labelled predicates are entities too (Freebase properties are topics).
    assert ("film.film", "Film") in [(r[0], r[1]) for r in entity_rows(tables)]


# -- format detection --------------------------------------------------------------------
@pytest.mark.parametrize("name, fmt", [
    ("a.nt", "ntriples"), ("a.NT", "ntriples"), ("a.nt.gz", "ntriples"), ("a.nt.bz2", "ntriples"),
    ("a.nt.zst", "ntriples"), ("a.tsv", "tsv"), ("a.txt", "tsv"), ("a.tsv.gz", "tsv"),
    ("train.txt.bz2", "tsv"),
])
def test_detect_format(tmp_path: Path, name: str, fmt: str) -> None:
    assert detect_format(tmp_path / name) == fmt  # by name only: the file need not exist


@pytest.mark.parametrize("name, message", [
    ("a.ttl", "Turtle is not supported; convert it to N-Triples"),
    ("a.ttl.gz", "Turtle is not supported"),
    ("a.rdf", "RDF/XML is not supported"),
    ("a.nq", "N-Quads is not supported"),
    ("a.csv", "cannot tell the format from the extension '.csv'"),
    ("a.json.gz", "extension '.json'"),
])
def test_unsupported_formats(tmp_path: Path, name: str, message: str) -> None:
    with pytest.raises(UnsupportedFormatError, match=message):
        detect_format(tmp_path / name)


@pytest.mark.parametrize("content, fmt", [
    (f"# Freebase\n{fb('m.a')}\t{fb('x.y.z')}\t{fb('m.b')}\t.\n", "ntriples"),
    ("\n/m/a\t/r/x\t/m/b\n", "tsv"),
])
def test_extensionless_files_are_sniffed(tmp_path: Path, content: str, fmt: str) -> None:
    path = tmp_path / "freebase-rdf-latest.gz"
    path.write_bytes(gzip.compress(content.encode()))
    assert detect_format(path) == fmt


def test_extensionless_garbage(tmp_path: Path) -> None:
    path = tmp_path / "README"
    path.write_text("hello world\n")
    with pytest.raises(UnsupportedFormatError, match="cannot tell the format"):
        detect_format(path)


# -- load_triples protocol (fake store) --------------------------------------------------
class FakeStore:
    """Records what load_triples asks of a store. ``fail_imports`` makes that many
    import calls raise first."""

    def __init__(self, location: str | Path, fail_imports: int = 0) -> None:
        self._location = str(location)
        self.calls: list[tuple[str, Any]] = []
        self.fail_imports = fail_imports
        self.stages: list[dict[str, Any]] = []

    @property
    def location(self) -> str:
        return self._location

    def staging_dir(self) -> Path | None:
        """A directory store's own folder; a server's store keeps no stages."""
        return None if is_uri(self._location) else Path(self._location) / "staging"

    def record_source(self, source: SourceRecord) -> None:
        self.calls.append(("record", replace(source, counts=dict(source.counts))))

    def sources(self) -> list[SourceRecord]:
        latest = {(r.file, r.checksum): r for k, r in self.calls if k == "record"}
        return list(latest.values())

    def import_stage(self, stage_dir, *, nameless_is_cvt=False, progress=None) -> ImportReport:
        stage = Path(stage_dir)
        self.calls.append(("import", (stage, nameless_is_cvt)))
        if self.fail_imports:
            self.fail_imports -= 1
            raise RuntimeError("database went away")
        read_manifest(stage)  # must be complete
        self.stages.append(read_stage(stage))
        if progress:
            progress("import: facts", 1, 1)
        return ImportReport(facts_new=len(self.stages[-1]["facts"]), entities_new=1, seconds=0.5)

    def records(self) -> list[tuple[str, str, str]]:
        return [(Path(r.file).name, r.format, r.status) for k, r in self.calls if k == "record"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    data = tmp_path / "data"
    data.mkdir()
    out = {
        "nt": data / "films.nt",
        "tsv": data / "facts.tsv",
        "names": data / "names.txt",
        "bad_nt": data / "bad.nt",
    }
    out["nt"].write_text(
        f'{fb("m.f")}\t{fb("type.object.name")}\t"The Film"@en\t.\n'
        f'{fb("m.f")}\t{fb("film.film.directed_by")}\t{fb("m.d")}\t.\n'
        f'{fb("m.f")}\t{fb("film.film.starring")}\t{fb("m.p")}\t.\n')
    out["tsv"].write_text("/m/f\t/film/film/genre\t/m/g\n/m/f\t/film/film/genre\t/m/h\n")
    out["names"].write_text("/m/f\tThe Film\n/m/g\tDrama\n")
    # Two malformed lines of five: a file with errors, not one that is mostly malformed
    # (that one is refused as not N-Triples: test_mostly_malformed_file_is_refused).
    out["bad_nt"].write_text(
        f'{fb("m.a")} {fb("x.y.z")} {fb("m.b")} .\nnot a triple\n{fb("m.a")} {fb("x.y.z")} .\n'
        f'{fb("m.a")} {fb("x.y.z")} {fb("m.c")} .\n{fb("m.a")} {fb("x.y.z")} {fb("m.d")} .\n')
    return out


def test_protocol_and_report(tmp_path: Path, files: dict[str, Path]) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    store = FakeStore(store_dir)
    progress: list[tuple[str, int, int | None]] = []
    report = load_triples(store, [files["nt"], files["tsv"]], names=files["names"],
                          progress=lambda *a: progress.append(a))
    # names first; each file: loading -> import -> complete
    assert [k for k, _ in store.calls] == ["record", "import", "record"] * 3
    assert store.records() == [
        ("names.txt", "names", "loading"), ("names.txt", "names", "complete"),
        ("films.nt", "ntriples", "loading"), ("films.nt", "ntriples", "complete"),
        ("facts.tsv", "tsv", "loading"), ("facts.tsv", "tsv", "complete")]
    imports = [v for k, v in store.calls if k == "import"]
    assert [cvt for _, cvt in imports] == [False, True, False]
    assert all(stage.parent == store_dir / "staging" for stage, _ in imports)
    assert not (store_dir / "staging").exists()  # stages removed after import

    records = [r for k, r in store.calls if k == "record"]
    assert records[0].file == str(files["names"].resolve())
    assert len(records[0].checksum) == 64 and records[0].loaded_at.endswith("+00:00")
    assert [r.loaded_at for r in records] == sorted(r.loaded_at for r in records)
    assert records[3].counts == {
        "lines": 3, "triples": 3, "malformed": 0, "facts": 2, "names": 1, "aliases": 0,
        "types": 0, "descriptions": 0, "cvt_types": 0, "predicate_labels": 0,
        "skipped_lang": 0, "entities_new": 1, "entities_updated": 0,
        "entities_placeholder": 0, "literals_new": 0, "facts_new": 2, "facts_duplicate": 0,
        "predicates_new": 0, "names_replaced": 0}
    assert records[1].counts["names"] == 2 and records[5].counts["facts"] == 2

    names_stage, nt_stage, tsv_stage = store.stages
    assert [(r["id"], r["name"]) for r in names_stage["entities"]] == [
        ("m.f", "The Film"), ("m.g", "Drama")]
    assert fact_rows(tsv_stage) == [("m.f", "film.film.genre", "m.g"),
                                    ("m.f", "film.film.genre", "m.h")]
    assert len(nt_stage["facts"]) == 2

    assert isinstance(report, LoadReport)
    assert [Path(f.path).name for f in report.files] == ["names.txt", "films.nt", "facts.tsv"]
    assert (report.lines, report.triples, report.malformed) == (7, 7, 0)
    assert report.import_report.facts_new == 4 and report.import_report.entities_new == 3
    assert report.import_report.seconds == 1.5
    assert report.seconds > 0 and all(f.seconds > 0 for f in report.files)
    assert [p[0] for p in progress if p[0].startswith("parsing")] == [
        "parsing names.txt", "parsing films.nt", "parsing facts.tsv"]


def test_non_local_store_uses_a_temporary_stage(tmp_path: Path, files: dict[str, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    store = FakeStore("bolt://localhost:7687")
    load_triples(store, [files["nt"]])
    stage, _ = next(v for k, v in store.calls if k == "import")
    assert stage.is_relative_to(tmp_path / "tmp")
    assert list((tmp_path / "tmp").iterdir()) == []


def test_counting_mode_reports_malformed(tmp_path: Path, files: dict[str, Path]) -> None:
    store = FakeStore(tmp_path)
    report = load_triples(store, [files["bad_nt"]])
    (file_report,) = report.files
    assert (file_report.lines, file_report.triples, file_report.malformed) == (5, 3, 2)
    assert [e[1] for e in report.examples] == [2, 3]
    assert report.examples[0][0] == str(files["bad_nt"])
    complete = [r for k, r in store.calls if k == "record"][-1]
    assert complete.status == "complete" and complete.counts["malformed"] == 2


def test_strict_failure_leaves_the_store_untouched(tmp_path: Path, files: dict[str, Path]) -> None:
    store = FakeStore(tmp_path)
    with pytest.raises(MalformedInputError) as info:
        load_triples(store, [files["nt"], files["bad_nt"]], strict=True)
    assert info.value.line == 2 and info.value.path == str(files["bad_nt"])
    assert store.calls == []  # nothing recorded, nothing imported
    # The good file's complete stage is kept for the next run; the bad one's is gone.
    assert [p.name.split("-")[0] for p in (tmp_path / "staging").iterdir()] == ["films.nt"]
    report = load_triples(store, [files["nt"]], strict=True)
    assert report.files[0].reused_stage
    with pytest.raises(MalformedInputError):
        load_triples(store, [files["bad_nt"]], strict=True)
    assert not (tmp_path / "staging").exists()  # no empty staging/ left behind


def test_inputs_are_checked_before_loading(tmp_path: Path, files: dict[str, Path]) -> None:
    store = FakeStore(tmp_path)
    with pytest.raises(InputFileError, match="file not found"):
        load_triples(store, [files["nt"], tmp_path / "missing.nt"])
    with pytest.raises(InputFileError, match="file not found"):
        load_triples(store, [files["nt"]], names=tmp_path / "missing.txt")
    with pytest.raises(InputFileError, match="is a directory"):
        load_triples(store, [tmp_path])
    ttl = tmp_path / "data.ttl"
    ttl.write_text("@prefix ex: <http://ex.org/> .\n")
    with pytest.raises(UnsupportedFormatError, match="convert it to N-Triples"):
        load_triples(store, [files["nt"], ttl])
    assert store.calls == []


def test_format_override(tmp_path: Path) -> None:
    path = tmp_path / "facts.dat"
    path.write_text("/m/a\t/r/x\t/m/b\n")
    store = FakeStore(tmp_path)
    report = load_triples(store, [path], format="tsv")
    assert report.files[0].format == "tsv" and report.triples == 1
    with pytest.raises(UnsupportedFormatError, match="unknown format 'csv'"):
        load_triples(store, [path], format="csv")


def test_failed_import_keeps_the_stage_for_the_next_run(tmp_path: Path,
                                                        files: dict[str, Path]) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    store = FakeStore(store_dir, fail_imports=1)
    with pytest.raises(RuntimeError, match="database went away"):
        load_triples(store, [files["nt"], files["tsv"]])
    assert store.records() == [("films.nt", "ntriples", "loading")]
    kept = sorted(p.name for p in (store_dir / "staging").iterdir())
    assert len(kept) == 2 and kept[0].startswith("facts.tsv-") and kept[1].startswith("films.nt-")

    progress: list[str] = []
    report = load_triples(store, [files["nt"], files["tsv"]],
                          progress=lambda step, *_: progress.append(step))
    assert [f.reused_stage for f in report.files] == [True, True]
    assert not [p for p in progress if p.startswith("parsing")]  # not parsed again
    assert report.files[0].lines == 3 and report.files[0].mapped["facts"] == 2
    assert not (store_dir / "staging").exists()
    assert store.records()[-1] == ("facts.tsv", "tsv", "complete")


def test_changed_settings_do_not_reuse_a_kept_stage(tmp_path: Path, files: dict[str, Path]) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    with pytest.raises(RuntimeError):
        load_triples(FakeStore(store_dir, fail_imports=1), [files["nt"]])
    report = load_triples(FakeStore(store_dir), [files["nt"]], langs=("fr",))
    assert report.files[0].reused_stage is False
    assert report.files[0].mapped["skipped_lang"] == 1


def test_default_namespaces_are_extended_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "x.nt"
    path.write_text(f'<http://ex.org/a> {fb("x.y.z")} {fb("m.b")} .\n')
    store = FakeStore(tmp_path)
    load_triples(store, [path], namespaces={"http://ex.org/": "ex:"})
    assert fact_rows(store.stages[0]) == [("ex:a", "x.y.z", "m.b")]
    assert DEFAULT_NAMESPACES[FB] == ""


# -- end to end with the LadybugDB store -------------------------------------------------
@pytest.fixture
def open_store():
    pytest.importorskip("kgstore.backends.ladybug")
    from kgstore import open_store as _open

    return _open


FILM_NT = "\n".join([
    "# a small Freebase-style graph with a CVT",
    f'{fb("film.performance")}\t{fb("freebase.type_hints.mediator")}\t"true"\t.',
    f'{fb("film.film.starring")}\t{fb("type.object.name")}\t"Starring"@en\t.',
    f'{fb("m.f")}\t{fb("type.object.name")}\t"The Godfather"@en\t.',
    f'{fb("m.f")}\t{fb("type.object.name")}\t"Le Parrain"@fr\t.',
    f'{fb("m.f")}\t{fb("common.topic.alias")}\t"Godfather I"@en\t.',
    f'{fb("m.f")}\t{fb("type.object.type")}\t{fb("film.film")}\t.',
    f'{fb("m.f")}\t{fb("film.film.initial_release_date")}\t"1972-03-24"^^<{XSD}date>\t.',
    f'{fb("m.f")}\t{fb("film.film.starring")}\t{fb("m.cvt1")}\t.',
    f'{fb("m.cvt1")}\t{fb("type.object.type")}\t{fb("film.performance")}\t.',
    f'{fb("m.cvt1")}\t{fb("film.performance.actor")}\t{fb("m.a")}\t.',
    f'{fb("m.cvt1")}\t{fb("film.performance.character")}\t{fb("m.c")}\t.',
    f'{fb("m.a")}\t{fb("type.object.name")}\t"Marlon Brando"@en\t.',
    f'{fb("m.n")}\t{fb("people.person.place_of_birth")}\t{fb("m.a")}\t.',
    f"_:x\t{fb('film.film.genre')}\t_:y\t.",
    "",
])


def test_end_to_end_ntriples(tmp_path: Path, open_store) -> None:
    path = tmp_path / "films.nt"
    path.write_text(FILM_NT)
    with open_store(tmp_path / "store", create=True) as store:
        report = load_triples(store, [path], strict=True)
        assert report.malformed == 0 and report.import_report.facts_new == 6
        film = store.entity("m.f")
        assert film is not None
        assert (film.name, film.aliases, film.types) == (
            "The Godfather", ("Godfather I",), ("film.film",))
        assert store.entity("m.cvt1").is_cvt  # mediator type
        assert store.entity("m.n").is_cvt  # nameless subject of a fact (N-Triples rule)
        assert not store.entity("m.a").is_cvt
        assert {f.predicate: f.object for f in store.facts_out("m.cvt1")} == {
            "film.performance.actor": "m.a", "film.performance.character": "m.c"}
        assert Literal("1972-03-24", "xsd:date") in [f.object for f in store.facts_out("m.f")]
        labels = {p.id: p.label for p in store.predicates()}
        assert labels["film.film.starring"] == "Starring"
        assert [e.id for e in store.find_by_name("godfather i")] == ["m.f"]
        scope = report.files[0].checksum[:8]
        assert [f.object for f in store.facts_out(f"_:{scope}_x")] == [f"_:{scope}_y"]
        (source,) = store.sources()
        assert (source.status, source.format, source.counts["facts_new"]) == (
            "complete", "ntriples", 6)
        assert source.file == str(path.resolve())

        again = load_triples(store, [path], strict=True)
        assert again.import_report.facts_new == 0 and again.import_report.entities_new == 0
        assert again.import_report.facts_duplicate == 6
        assert len(store.sources()) == 1  # same file + checksum: one record
    assert not (tmp_path / "store" / "staging").exists()


def test_end_to_end_tsv_with_names(tmp_path: Path, files: dict[str, Path], open_store) -> None:
    with open_store(tmp_path / "store", create=True) as store:
        report = load_triples(store, [files["tsv"]], names=files["names"])
        assert report.import_report.facts_new == 2
        assert store.entity("m.f").name == "The Film"
        assert store.entity("m.g").name == "Drama"
        assert not store.entity("m.f").is_cvt  # TSV: no nameless-subject rule
        assert store.entity("m.h").name is None  # placeholder from a fact
        assert sorted(f.object for f in store.facts_out("m.f")) == ["m.g", "m.h"]
        assert [(s.format, s.status) for s in store.sources()] == [
            ("names", "complete"), ("tsv", "complete")]


def test_end_to_end_blank_nodes_differ_between_files(tmp_path: Path, open_store) -> None:
    one, two = tmp_path / "one.nt", tmp_path / "two.nt"
    one.write_text("_:b1 <http://ex.org/p> <http://ex.org/o1> .\n")
    two.write_text("_:b1 <http://ex.org/p> <http://ex.org/o2> .\n")
    with open_store(tmp_path / "store", create=True) as store:
        load_triples(store, [one, two])
        subjects = {f.subject for o in ("http://ex.org/o1", "http://ex.org/o2")
                    for f in store.facts_in(o)}
        assert len(subjects) == 2 and all(s.startswith("_:") for s in subjects)


@pytest.mark.external
def test_fb15k237_dev_with_names(tmp_path: Path, open_store) -> None:
    dev = _external("freebase", "fb15k237", "dev.tsv")
    names = _external("freebase", "fb15k237", "entity2text.txt")
    with open_store(tmp_path / "store", create=True) as store:
        report = load_triples(store, [dev], names=names, strict=True)
        assert report.malformed == 0
        assert [f.triples for f in report.files] == [14_951, 17_535]
        imp, mapped = report.import_report, report.files[1].mapped
        # A folded fact stages two facts with a mediator between (loaders.unfold).
        assert (mapped["facts"], mapped["unfolded_facts"]) == (17_535, 10_494)
        assert imp.facts_new + imp.facts_duplicate == 17_535 + 10_494
        assert store.stats().facts == imp.facts_new
        assert store.entity("m.07pd_j").name == "American Pie"
        assert "film.film.genre" in {f.predicate for f in store.facts_out("m.07pd_j")}


@pytest.mark.external
def test_freebase_head_and_wikidata_sample(tmp_path: Path, open_store) -> None:
    head = _external("freebase", "dump_head", "fb-rdf-10k-head.nt")
    q42 = _external("wikidata", "DERIVED_Q42_truthy.nt")
    with open_store(tmp_path / "store", create=True) as store:
        report = load_triples(store, [head, q42], strict=True)
        assert [(f.lines, f.malformed) for f in report.files] == [(10_000, 0), (680, 0)]
        douglas = store.entity("Q42")
        assert douglas.name == "Douglas Adams"
        assert douglas.description == "English author and humourist (1952–2001)"
        assert "DNA" in douglas.aliases
        assert len(store.facts_out("Q42", limit=1000)) == 300
        prop = store.entity("american_football.football_player.footballdb_id")
        assert prop is not None and prop.name == "footballdb ID"
        labels = {p.id: p.label for p in store.predicates()}
        assert "P69" in labels


def test_same_file_twice_and_identical_copies(tmp_path: Path, files: dict[str, Path]) -> None:
    copy_dir = tmp_path / "copy"
    copy_dir.mkdir()
    copy = copy_dir / files["nt"].name
    copy.write_bytes(files["nt"].read_bytes())  # same name, same content, other path
    store = FakeStore(tmp_path)
    report = load_triples(store, [files["nt"], files["nt"], copy])
    assert [f.path for f in report.files] == [str(files["nt"]), str(copy)]
    stages = [v[0] for k, v in store.calls if k == "import"]
    assert len(set(stages)) == 2
    assert [len(s["facts"]) for s in store.stages] == [2, 2]
