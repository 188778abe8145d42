"""The Freebase loader: the vectorised (DuckDB) stager against the W3C Python parser and
TripleMapper, filters, languages, CVTs, corrupt input, strict mode, resuming and merging.

Every hostile file is written by the test itself; external data (the real dump head)
is read in place and skipped when ``KGBENCH_EXTERNAL_DATA`` is unset.
"""

from __future__ import annotations

import bz2
import gzip
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kgstore.models import Literal
from kgstore.staging import TABLES, StageWriter
from loaders.errors import InputFileError, MalformedInputError, ParseReport, UnsupportedFormatError
from loaders.freebase import FREEBASE_FILTER, check_freebase, load_freebase, stage_freebase
from loaders.ntriples import iter_raw_triples, parse_line_raw
from loaders.pipeline import KEEP, LoadOptions, PredicateFilter
from loaders.triples import stage_ntriples
from loaders.vectorized import (
    RegexSyntax,
    TabSyntax,
    VectorStager,
    locate_fault,
    stage_ntriples_vectorized,
)
from tests.external import external_path as _external
from tests.loaders import write_compressed

FB = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "kgbench" / "demo" / "data" / "films.nt.gz"


def fb(local: str) -> str:
    return f"<{FB}{local}>"


def line(s: str, p: str, o: str) -> str:
    return f"{fb(s)}\t{fb(p)}\t{o}\t."


def lit(value: str, suffix: str = "") -> str:
    return f'"{value}"{suffix}'


# -- helpers -----------------------------------------------------------------------------
def read_stage(stage: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every staged table as a sorted list of row tuples (``seq`` left out)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in TABLES:
        rows: list[tuple[Any, ...]] = []
        for part in sorted((stage / table).glob("*.parquet")):
            for row in pq.read_table(part).to_pylist():
                row.pop("seq", None)
                rows.append(tuple(tuple(v) if isinstance(v, list) else v
                                  for v in row.values()))
        out[table] = sorted(rows, key=repr)
    return out


def stage_with(stager: Any, path: Path, out: Path, options: LoadOptions | None = None,
               strict: bool = False) -> tuple[dict[str, list[tuple[Any, ...]]], ParseReport,
                                               dict[str, int]]:
    writer = StageWriter(out)
    report = ParseReport()
    counts = stager(path, writer, report, options=options or LoadOptions(langs=None),
                    strict=strict, progress=None)
    writer.close()
    return read_stage(out), report, counts


@pytest.fixture
def open_store():
    from kgstore import open_store as _open

    return _open


# -- hostile input: the SQL path agrees with the W3C parser + TripleMapper ----------------
HOSTILE = [
    line("m.01", "type.object.name", lit("Caf\\u00e9 \\\"Noir\\\"", "@en")),
    line("m.01", "type.object.name", lit("Le caf\\u00E9", "@fr")),
    line("m.01", "common.topic.alias", lit("tab\\there \\\\n not a newline", "@en")),
    line("m.01", "common.topic.description", lit("two\\nlines and a \\\\ backslash", "@en")),
    line("m.01", "film.film.tagline", lit("quote \\\" and 'single' \\' \\b\\f\\r end")),
    line("m.01", "film.film.tagline", lit("\\U0001F600 emoji and \\ud83d\\ude00 pair")),
    line("m.01", "film.film.initial_release_date", lit("1972-03-24", f"^^<{XSD}date>")),
    line("m.01", "film.film.runtime", lit("175", f"^^<{XSD}int>")),
    line("m.01", "film.film.code", lit("abc", f"^^<{XSD}string>")),
    line("m.01", "film.film.geo", lit("POINT(1 2)", "^^<http://www.opengis.net/ont/geosparql#wktLiteral>")),
    line("m.01", "film.film.empty", lit("")),
    line("m.01", "film.film.lang", lit("mixed", "@EN-gb")),
    line("m.01", "film.film.directed_by", fb("m.02")),
    line("m.01", "film.film.odd", "<http://example.org/a%20b$c(d)'e~f?g=h#frag>"),
    line("m.01", "film.film.unicode", fb("m.é_ü")),
    line("m.01", "film.film.escaped_iri", f"<{FB}m.\\u0030x>"),
    "",
    "   ",
    "# a comment line",
    f"{fb('m.03')} {fb('film.film.genre')} {fb('m.04')} .",
    f"{fb('m.03')}\t{fb('film.film.genre')}\t{fb('m.05')}\t.\t# trailing comment",
    f"_:b1\t{fb('film.film.genre')}\t_:b2\t.",
    f"{fb('m.06')}\t{fb('film.film.title')}\t\"has\ta raw tab\"@en\t.",
    f"{fb('m.07')}\t{fb('film.film.genre')}\t{fb('m.0 8')}\t.",        # space in IRI
    f"{fb('m.07')}\t{fb('film.film.genre')}\t\"unterminated\t.",       # malformed
    f"{fb('m.07')}\t{fb('film.film.genre')}\t\"bad \\x escape\"\t.",   # malformed
    f"{fb('m.07')}\t{fb('film.film.genre')}\t\"x\"@\t.",               # malformed lang
    f"{fb('m.07')}\t{fb('film.film.genre')}\t\"a\"b\"\t.",             # raw quote
    f"{fb('m.07')}\t{fb('film.film.genre')}",                          # too few fields
    f"<relative>\t{fb('film.film.genre')}\t{fb('m.09')}\t.",           # relative IRI
    f"{fb('m.07')}\t{fb('film.film.genre')}\t{fb('m.10')}\t.\textra",  # junk after '.'
    f"{fb('m.11')}\t<{FB}film.film.weird\\u0041>\t{fb('m.12')}\t.",     # escaped predicate
    f"{fb('m.13')}\t<http://www.w3.org/2000/01/rdf-schema#label>\t\"Thirteen\"@en\t.",
    f"{fb('film.performance')}\t{fb('freebase.type_hints.mediator')}\t\"true\"\t.",
    f"{fb('m.cvt')}\t{fb('type.object.type')}\t{fb('film.performance')}\t.",
    f"{fb('film.performance')}\t{fb('type.type.instance')}\t{fb('m.cvt2')}\t.",
    f"{fb('film.film.directed_by')}\t{fb('type.object.name')}\t\"Directed by\"@en\t.",
]


def write_lines(path: Path, lines: list[str], *, eol: str = "\n", final_eol: bool = True) -> Path:
    text = eol.join(lines) + (eol if final_eol else "")
    return write_compressed(path, text)


def python_reference(path: Path, tmp: Path, options: LoadOptions
                     ) -> tuple[dict[str, list[tuple[Any, ...]]], ParseReport]:
    tables, report, _ = stage_with(stage_ntriples, path, tmp / "ref", options)
    return tables, report


@pytest.mark.parametrize("syntax", ["tab", "regex"])
@pytest.mark.parametrize("variant", ["lf", "crlf", "lone_cr", "gz", "bz2", "tiny_chunks",
                                     "bom_bad_utf8"])
def test_sql_path_equals_python_parser(tmp_path: Path, variant: str, syntax: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    lines = list(HOSTILE)
    if variant == "lone_cr":
        lines.append(f"{fb('m.20')}\t{fb('film.film.genre')}\t{fb('m.21')}\t.\r"
                     f"{fb('m.22')}\t{fb('film.film.genre')}\t{fb('m.23')}\t.")
    name = {"gz": "x.nt.gz", "bz2": "x.nt.bz2"}.get(variant, "x.nt")
    path = write_lines(tmp_path / name, lines, eol="\r\n" if variant == "crlf" else "\n",
                       final_eol=variant != "lf")
    if variant == "tiny_chunks":
        monkeypatch.setenv("KGBENCH_CHUNK_BYTES", "300")
    if variant == "bom_bad_utf8":  # a byte-order mark, and a line that is not UTF-8
        data = path.read_bytes().split(b"\n")
        data[2] = data[2].replace(b"tab", b"t\xffb")
        path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(data))
    options = LoadOptions(langs=("en",), bnode_scope="abc")
    stager = VectorStager(TabSyntax() if syntax == "tab" else RegexSyntax())
    got, report, counts = stage_with(stager, path, tmp_path / "stage", options)
    want, ref = python_reference(path, tmp_path, options)
    assert (report.lines, report.triples, report.malformed) == (ref.lines, ref.triples,
                                                               ref.malformed)
    assert report.examples == ref.examples
    for table in TABLES:
        assert got[table] == want[table], table
    assert report.malformed == (9 if variant == "bom_bad_utf8" else 8)
    assert counts["facts"] == len(want["facts"]) and counts["dropped_lang"] == 1


IRI_FORBIDDEN = [chr(c) for c in range(0x21) if chr(c) not in "\t\n\r"] + list('<>"{}|^`\\')
"""Characters N-Triples IRIREF forbids (tab, LF and CR end fields and lines: not IRI
characters the fast path could see)."""


@pytest.mark.parametrize("char", IRI_FORBIDDEN, ids=lambda c: f"U+{ord(c):04X}")
def test_fast_path_rejects_forbidden_iri_characters(tmp_path: Path, char: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An IRI holding a character IRIREF forbids is malformed on the fast path too (as
    subject, as object, and on a line whose predicate the default filter drops), with
    the Python parser's line number and reason; --strict stops at the first."""
    bad = f"<{FB}m.a{char}b>"
    lines = big_lines(8)
    lines[0] = f"{fb('m.0')}\t{fb('common.topic.notable_for')}\t{fb('g.1')}\t."
    lines[2] = f"{bad}\t{fb('film.film.genre')}\t{fb('m.1')}\t."
    lines[4] = f"{fb('m.2')}\t{fb('film.film.genre')}\t{bad}\t."
    lines[6] = f"{fb('m.3')}\t{fb('common.topic.notable_for')}\t{bad}\t."
    path = write_lines(tmp_path / "iri.nt", lines)
    # Small chunks: the later lines meet predicates already classified (and, for the
    # dropped one, known to be dropped), the shortcut a big dump takes.
    monkeypatch.setenv("KGBENCH_CHUNK_BYTES", "300")
    _, report, counts = stage_with(stage_freebase, path, tmp_path / "s", LoadOptions())
    _, ref = python_reference(path, tmp_path, LoadOptions())
    assert [e[1] for e in report.examples] == [3, 5, 7]
    assert report.examples == ref.examples and report.malformed == 3
    assert counts["facts"] == 4 and counts["dropped_notable_for"] == 1
    with pytest.raises(MalformedInputError) as info:
        stage_with(stage_freebase, path, tmp_path / "strict", LoadOptions(), strict=True)
    assert info.value.line == 3 and str(info.value).startswith(f"{path}:3: ")


def test_unescaping_and_literal_keys(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "x.nt", HOSTILE[:16])
    got, report, _ = stage_with(stage_freebase, path, tmp_path / "s",
                                LoadOptions(langs=None, default_filter=False))
    values = {row[1] for row in got["literals"]}
    assert 'quote " and \'single\' \' \b\f\r end' in values
    assert "\U0001F600 emoji and \U0001F600 pair" in values
    assert "1972-03-24" in values and "" in values
    names = {row[1] for row in got["entities"] if row[1]}
    assert names == {'Café "Noir"', "Le café"}
    alias = next(row[2] for row in got["entities"] if row[2])
    assert alias == ("tab\there \\n not a newline",)
    # Every staged literal id is Literal.key of the W3C parser's literal.
    for raw in (parse_line_raw(x) for x in HOSTILE[:16]):
        assert raw is not None
        if raw[5] is not None and raw[2].endswith(("tagline", "date", "runtime", "code",
                                                   "geo", "empty", "lang")):
            dt = None if raw[6] == XSD + "string" else raw[6]
            key = Literal(raw[5], dt, raw[7]).key
            assert key in {row[0] for row in got["literals"]}, raw
    for key, value, datatype, lang in got["literals"]:
        assert key == Literal(value, datatype, lang).key
    assert ("m.01", "film.film.code", Literal("abc").key, "L") in got["facts"]
    assert ("m.01", "film.film.lang", Literal("mixed", None, "en-gb").key, "L") in got["facts"]
    assert report.malformed == 0


def test_literal_key_sql_matches_python_on_many_values(tmp_path: Path) -> None:
    values = ["plain", "ünïcödé ✓", "x" * 300, "with\ttab", "a\\\\b", "0", "-1.5e3",
              "日本語", "emoji \U0001F600"]
    lines = []
    for i, v in enumerate(values):
        esc = v.replace("\t", "\\t")
        lines.append(line(f"m.{i}", "a.b.plain", lit(esc)))
        lines.append(line(f"m.{i}", "a.b.typed", lit(esc, f"^^<{XSD}decimal>")))
        lines.append(line(f"m.{i}", "a.b.other", lit(esc, "^^<http://ex.org/dt>")))
        lines.append(line(f"m.{i}", "a.b.lang", lit(esc, "@en")))
    path = write_lines(tmp_path / "k.nt", lines)
    got, _, _ = stage_with(stage_freebase, path, tmp_path / "s", LoadOptions())
    assert len(got["literals"]) == len(lines)
    for key, value, datatype, lang in got["literals"]:
        assert key == Literal(value, datatype, lang).key
        assert datatype in (None, "xsd:decimal", "http://ex.org/dt")


# -- languages, filters, CVTs --------------------------------------------------------------
LANG_LINES = [
    line("m.1", "type.object.name", lit("Paris", "@en")),
    line("m.1", "type.object.name", lit("Paris (fr)", "@fr")),
    line("m.1", "type.object.name", lit("Parigi", "@it")),
    line("m.1", "common.topic.alias", lit("City of Light", "@en")),
    line("m.1", "common.topic.alias", lit("Ville Lumière", "@fr")),
    line("m.1", "common.topic.description", lit("capital", "@en")),
    line("m.1", "common.topic.description", lit("capitale", "@fr")),
    line("m.2", "type.object.name", lit("Roma", "@it")),
    line("m.3", "type.object.name", lit("Berlin", "@de")),
    line("m.3", "type.object.name", lit("Berlin (fr)", "@fr")),
    line("m.1", "location.location.motto", lit("Fluctuat", "@la")),
    line("m.1", "location.location.containedby", fb("m.9")),
]


@pytest.mark.parametrize("langs, names, dropped", [
    (("en",), {"m.1": "Paris"}, 8),
    (("fr", "en"), {"m.1": "Paris (fr)", "m.3": "Berlin (fr)"}, 4),
    (("en", "fr"), {"m.1": "Paris", "m.3": "Berlin (fr)"}, 4),
    (("it",), {"m.1": "Parigi", "m.2": "Roma"}, 9),
    (None, None, 0),
])
def test_language_selection(tmp_path: Path, open_store, langs: tuple[str, ...] | None,
                            names: dict[str, str] | None, dropped: int) -> None:
    path = write_lines(tmp_path / "langs.nt", LANG_LINES)
    with open_store(tmp_path / "store", create=True) as store:
        report = load_freebase(store, [path], options=LoadOptions(langs=langs))
        got = {e: store.entity(e) for e in ("m.1", "m.2", "m.3")}
        if names is not None:
            assert {k: v.name for k, v in got.items() if v and v.name} == names
        else:
            assert got["m.1"] is not None and got["m.1"].name in ("Paris", "Paris (fr)", "Parigi")
        assert report.dropped.get("lang", 0) == dropped
        if langs == ("fr", "en"):
            m1 = got["m.1"]
            assert m1 is not None and m1.description == "capitale"
            assert set(m1.aliases) == {"City of Light", "Ville Lumière"}


def test_default_filter_and_overrides(tmp_path: Path, open_store) -> None:
    lines = [
        line("m.1", "type.object.name", lit("One", "@en")),
        line("m.1", "type.object.type", fb("film.film")),
        line("m.1", "type.object.key", lit("/wikipedia/en/One")),
        line("m.1", "common.topic.notable_for", fb("g.1abc")),
        line("g.1abc", "common.notable_for.display_name", lit("Film", "@en")),
        line("film.film", "type.type.instance", fb("m.1")),
        line("film.film.directed_by", "type.property.expected_type", fb("film.director")),
        line("m.1", "freebase.valuenotation.is_reviewed", fb("type.object.name")),
        line("m.1", "common.topic.image", fb("m.img")),
        line("m.1", "common.topic.topic_equivalent_webpage", "<http://en.wikipedia.org/wiki/One>"),
        line("m.1", "user.alice.default_domain.fav", fb("m.2")),
        line("m.1", "base.schemastaging.x", fb("m.3")),
        line("m.1", "film.film.directed_by", fb("m.4")),
        line("m.1", "film.film.genre", fb("m.5")),
    ]
    path = write_lines(tmp_path / "f.nt", lines)
    with open_store(tmp_path / "a", create=True) as store:
        report = load_freebase(store, [path])
        assert report.dropped == {"keys": 1, "notable_for": 2, "reverse_types": 1,
                                  "schema": 1, "bookkeeping": 1, "media": 1, "webpages": 1,
                                  "user_domains": 1}
        assert {f.predicate for f in store.facts_out("m.1")} == {
            "base.schemastaging.x", "film.film.directed_by", "film.film.genre"}
        assert report.files[0].predicates["type.object.name"] == 1
        assert report.files[0].counts()["dropped_keys"] == 1
    opts = LoadOptions(keep_predicates=("type.object.key", "user.*"),
                       drop_predicates=("film.film.*", "base.*"))
    with open_store(tmp_path / "b", create=True) as store:
        report = load_freebase(store, [path], options=opts)
        assert report.dropped["option"] == 3 and "keys" not in report.dropped
        assert {f.predicate for f in store.facts_out("m.1")} == {
            "type.object.key", "user.alice.default_domain.fav"}
    with open_store(tmp_path / "c", create=True) as store:
        report = load_freebase(store, [path], options=LoadOptions(default_filter=False))
        assert report.dropped == {}
        assert len(store.facts_out("m.1", limit=100)) == 9


@pytest.mark.parametrize("predicate", [
    "type.object.name", "type.object.key", "type.type.instance", "type.property.unique",
    "common.notable_for.display_name", "common.topic.notable_types", "freebase.type_hints.mediator",
    "freebase.valuenotation.has_value", "user.x.y.z", "base.x.y", "film.film.genre",
    "http://www.w3.org/2002/07/owl#inverseOf", "http://www.w3.org/2000/01/rdf-schema#label",
    "common.topic.image", "kg.object_profile.prominent_type", "a*b", "x?y",
])
def test_filter_sql_agrees_with_python(predicate: str) -> None:
    import duckdb

    flt = PredicateFilter.for_options(
        LoadOptions(keep_predicates=("a*b",), drop_predicates=("x?y", "film.*.genre")),
        FREEBASE_FILTER)
    sql = duckdb.connect().execute(f"SELECT {flt.sql('p')} FROM (SELECT ? AS p)",
                                   [predicate]).fetchone()
    assert sql is not None and sql[0] == flt.reason(predicate)


def test_filter_rules_first_match_wins() -> None:
    flt = PredicateFilter([("freebase.type_hints.mediator", KEEP), ("freebase.*", "bk"),
                           ("*.name", "names")])
    assert flt.reason("freebase.type_hints.mediator") is None
    assert flt.reason("freebase.other") == "bk"
    assert flt.reason("type.object.name") == "names"
    assert flt.reason("film.film.genre") is None


CVT_LINES = [
    line("film.performance", "freebase.type_hints.mediator", lit("true")),
    line("people.person", "freebase.type_hints.mediator", lit("false")),
    line("m.film", "type.object.name", lit("Film", "@en")),
    line("m.film", "film.film.starring", fb("m.perf")),
    line("m.perf", "type.object.type", fb("film.performance")),
    line("m.perf", "film.performance.actor", fb("m.actor")),
    line("m.actor", "type.object.name", lit("Actor", "@en")),
    line("m.actor", "type.object.type", fb("people.person")),
    line("m.nameless", "people.person.place_of_birth", fb("m.city")),
]


def test_cvts_from_mediator_hints(tmp_path: Path, open_store) -> None:
    path = write_lines(tmp_path / "cvt.nt", CVT_LINES)
    with open_store(tmp_path / "store", create=True) as store:
        report = load_freebase(store, [path])
        assert report.files[0].mapped["cvt_types"] == 1
        assert store.entity("m.perf").is_cvt
        assert not store.entity("m.actor").is_cvt and not store.entity("m.film").is_cvt
        assert not store.entity("m.nameless").is_cvt  # hints given: no nameless fallback


def test_cvts_from_nameless_fallback(tmp_path: Path, open_store) -> None:
    path = write_lines(tmp_path / "slice.nt", CVT_LINES[2:])  # no schema lines
    with open_store(tmp_path / "store", create=True) as store:
        load_freebase(store, [path])
        assert store.entity("m.perf").is_cvt and store.entity("m.nameless").is_cvt
        assert not store.entity("m.film").is_cvt and not store.entity("m.actor").is_cvt
    with open_store(tmp_path / "forced", create=True) as store:
        load_freebase(store, [path], options=LoadOptions(nameless_is_cvt=False))
        assert not store.entity("m.perf").is_cvt


# -- bad input ------------------------------------------------------------------------------
def big_lines(n: int, start: int = 0) -> list[str]:
    return [line(f"m.{i:07d}", "film.film.genre", fb(f"m.g{i % 97}")) for i in range(start, start + n)]


def test_truncated_gzip_names_file_and_offset_and_leaves_store_unchanged(
        tmp_path: Path, open_store) -> None:
    good = write_lines(tmp_path / "good.nt", big_lines(50))
    data = gzip.compress("\n".join(big_lines(60_000)).encode(), compresslevel=1)
    cut = tmp_path / "cut.nt.gz"
    cut.write_bytes(data[: len(data) // 2])
    with open_store(tmp_path / "store", create=True) as store:
        load_freebase(store, [good])
        before = store.stats()
        with pytest.raises(InputFileError) as info:
            load_freebase(store, [good, cut])
        message = str(info.value)
        assert str(cut) in message and f"at byte {cut.stat().st_size:,}" in message
        assert "truncated" in message
        after = store.stats()
        assert (after.facts, after.entities) == (before.facts, before.entities)
        assert [(Path(s.file).name, s.status) for s in store.sources()] == [
            ("good.nt", "complete")]
    assert not (tmp_path / "store" / "staging" / "cut.nt.gz").exists()
    assert not any(p.name.startswith("cut.nt.gz")
                   for p in (tmp_path / "store" / "staging").glob("*"))


def test_corrupt_gzip_reports_where_it_broke(tmp_path: Path) -> None:
    data = bytearray(gzip.compress("\n".join(big_lines(40_000)).encode(), compresslevel=6))
    pos = len(data) // 3
    for i in range(pos, pos + 64):
        data[i] ^= 0xA5
    bad = tmp_path / "bad.nt.gz"
    bad.write_bytes(bytes(data))
    offset, problem = locate_fault(bad, "gzip")
    assert pos <= offset < len(data) and "corrupt gzip data" in problem
    writer = StageWriter(tmp_path / "s")
    with pytest.raises(InputFileError, match=rf"bad\.nt\.gz: corrupt gzip data .* at byte {offset:,}"):
        stage_freebase(bad, writer, ParseReport(), options=LoadOptions())


def test_bz2_and_zstd(tmp_path: Path) -> None:
    text = "\n".join(big_lines(1000)) + "\n"
    b = tmp_path / "x.nt.bz2"
    b.write_bytes(bz2.compress(text.encode()))
    z = tmp_path / "x.nt.zst"
    with pa.CompressedOutputStream(str(z), "zstd") as out:
        out.write(text.encode())
    for path in (b, z):
        got, report, counts = stage_with(stage_freebase, path, tmp_path / f"s-{path.suffix}")
        assert (report.lines, counts["facts"], report.malformed) == (1000, 1000, 0)
    cut = tmp_path / "cut.nt.bz2"
    cut.write_bytes(b.read_bytes()[:-40])
    with pytest.raises(InputFileError, match="cut.nt.bz2: .*at byte"):
        stage_with(stage_freebase, cut, tmp_path / "s-cut")


def test_strict_mode_names_file_and_line(tmp_path: Path, open_store) -> None:
    lines = big_lines(30)
    for bad_line, broken in ((12, f"{fb('m.x')}\t{fb('a.b.c')}\t\"bad \\q\"\t."),
                             (20, f"{fb('m.x')}\t{fb('a.b.c')}")):
        bad = list(lines)
        bad[bad_line - 1] = broken
        path = write_lines(tmp_path / f"bad{bad_line}.nt", bad)
        with open_store(tmp_path / f"store{bad_line}", create=True) as store:
            with pytest.raises(MalformedInputError) as info:
                load_freebase(store, [path], strict=True)
            assert info.value.path == str(path) and info.value.line == bad_line
            assert str(info.value).startswith(f"{path}:{bad_line}: ")
            assert store.sources() == [] and store.stats().facts == 0
            report = load_freebase(store, [path])
            assert report.malformed == 1 and report.examples[0][1] == bad_line


def test_malformed_examples_keep_line_numbers_across_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = big_lines(400)
    bad_at = [5, 77, 78, 200, 399]
    for n in bad_at:
        lines[n - 1] = f"{fb('m.x')}\t{fb('a.b.c')}\t<{FB}m. space>\t."
    path = write_lines(tmp_path / "m.nt", lines)
    monkeypatch.setenv("KGBENCH_CHUNK_BYTES", "2000")
    _, report, _ = stage_with(stage_freebase, path, tmp_path / "s")
    assert [e[1] for e in report.examples] == bad_at
    assert report.lines == 400 and report.triples == 395


@pytest.mark.parametrize("content, loader", [
    ("/m/01\t/film/film/genre\t/m/02\n", "kgbench load triples"),
    ('[\n{"type":"item","id":"Q42","labels":{}},\n', "kgbench load wikidata"),
    ("<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P31> "
     "<http://www.wikidata.org/entity/Q5> .\n", "kgbench load wikidata"),
    ("@prefix ex: <http://ex.org/> .\nex:a ex:b ex:c .\n", "kgbench load rdf"),
    ("<http://ex.org/a> <http://ex.org/b> <http://ex.org/c> .\n", "kgbench load rdf"),
])
def test_wrong_format_says_which_loader(tmp_path: Path, content: str, loader: str) -> None:
    path = tmp_path / "data.gz"
    path.write_bytes(gzip.compress(content.encode()))
    with pytest.raises(UnsupportedFormatError, match=loader):
        check_freebase(path)


def test_binary_and_misnamed_files(tmp_path: Path) -> None:
    blob = tmp_path / "x.bin"
    blob.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(UnsupportedFormatError, match="not text"):
        check_freebase(blob)
    liar = tmp_path / "x.nt.gz"
    liar.write_text(line("m.1", "a.b.c", fb("m.2")) + "\n")
    with pytest.raises(InputFileError, match="content is not gz"):
        check_freebase(liar)
    ttl = tmp_path / "x.ttl"
    ttl.write_text("")
    with pytest.raises(UnsupportedFormatError, match="load rdf"):
        check_freebase(ttl)
    empty = tmp_path / "empty.nt"
    empty.write_text("")
    check_freebase(empty)


def test_space_separated_dump_uses_the_regex_syntax(tmp_path: Path) -> None:
    lines = [x for x in HOSTILE if x.count("\t") == 3 and "\\" not in x and '"' not in x]
    tabbed = write_lines(tmp_path / "tab.nt", lines)
    spaced = write_lines(tmp_path / "space.nt", [x.replace("\t", " ") for x in lines])
    assert TabSyntax().fits(tabbed) and not TabSyntax().fits(spaced)
    a, ra, _ = stage_with(stage_freebase, tabbed, tmp_path / "a", LoadOptions())
    b, rb, _ = stage_with(stage_freebase, spaced, tmp_path / "b", LoadOptions())
    assert a == b and (ra.triples, ra.malformed) == (rb.triples, rb.malformed)


# -- store-level behaviour ------------------------------------------------------------------
def store_snapshot(store: Any) -> tuple[Any, ...]:
    st = store.stats()
    facts = sorted(map(tuple, store.cypher(
        "MATCH (s:Entity)-[r:Fact]->(o) RETURN s.id, r.predicate, o.id").rows))
    ents = sorted(map(tuple, store.cypher(
        "MATCH (e:Entity) RETURN e.id, e.name, e.aliases, e.types, e.is_cvt, "
        "e.description").rows), key=repr)
    preds = sorted(map(tuple, store.cypher(
        "MATCH (p:Predicate) RETURN p.id, p.label, p.count").rows))
    return (st.entities, st.cvt_entities, st.literals, st.facts, st.predicates), facts, ents, preds


def test_demo_kg_parity_with_the_python_path(tmp_path: Path, open_store) -> None:
    from loaders.triples import load_triples

    with open_store(tmp_path / "python", create=True) as store:
        load_triples(store, [DEMO])
        want = store_snapshot(store)
    with open_store(tmp_path / "duckdb", create=True) as store:
        report = load_freebase(store, [DEMO], options=LoadOptions(nameless_is_cvt=True))
        got = store_snapshot(store)
        assert report.malformed == 0 and report.dropped == {}
        assert [(s.format, s.status) for s in store.sources()] == [("freebase", "complete")]
    assert got[0] == want[0]
    assert got[1] == want[1]
    assert got[2] == want[2]
    assert got[3] == want[3]


def test_second_source_merges_and_is_recorded(tmp_path: Path, open_store) -> None:
    one = write_lines(tmp_path / "one.nt", [
        line("m.1", "type.object.name", lit("One", "@en")),
        line("m.1", "film.film.genre", fb("m.2")),
    ])
    two = write_lines(tmp_path / "two.nt.gz", [
        line("m.2", "type.object.name", lit("Drama", "@en")),
        line("m.1", "common.topic.alias", lit("Uno", "@en")),
        line("m.1", "film.film.genre", fb("m.2")),
        line("m.1", "film.film.genre", fb("m.3")),
    ])
    with open_store(tmp_path / "store", create=True) as store:
        load_freebase(store, [one])
        report = load_freebase(store, [two])
        assert report.import_report.facts_new == 1 and report.import_report.facts_duplicate == 1
        sources = store.sources()
        assert [(Path(s.file).name, s.format, s.status) for s in sources] == [
            ("one.nt", "freebase", "complete"), ("two.nt.gz", "freebase", "complete")]
        assert sources[1].counts["facts_new"] == 1 and sources[1].counts["lines"] == 4
        m1 = store.entity("m.1")
        assert m1 is not None and (m1.name, m1.aliases) == ("One", ("Uno",))
        assert store.entity("m.2").name == "Drama"
        again = load_freebase(store, [one, two])
        assert again.import_report.facts_new == 0 and len(store.sources()) == 2


def test_failed_import_keeps_the_stage_and_rerun_reuses_it(tmp_path: Path, open_store,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_lines(tmp_path / "x.nt", big_lines(100))
    with open_store(tmp_path / "store", create=True) as store:
        original = type(store).import_stage

        def failing(self: Any, *a: Any, **k: Any) -> Any:
            raise RuntimeError("disk full")

        monkeypatch.setattr(type(store), "import_stage", failing)
        with pytest.raises(RuntimeError, match="disk full"):
            load_freebase(store, [path])
        assert [s.status for s in store.sources()] == ["loading"]
        assert len(list((tmp_path / "store" / "staging").iterdir())) == 1
        monkeypatch.setattr(type(store), "import_stage", original)
        progress: list[str] = []
        report = load_freebase(store, [path], progress=lambda d, *_: progress.append(d))
        assert report.files[0].reused_stage and report.files[0].lines == 100
        assert not any(p.startswith("parsing") for p in progress)
        assert [s.status for s in store.sources()] == ["complete"]
        assert store.stats().facts == 100
    assert not (tmp_path / "store" / "staging").exists()


def test_progress_reports_bytes_and_rates(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "p.nt.gz", big_lines(2000))
    calls: list[tuple[str, int, int | None]] = []
    writer = StageWriter(tmp_path / "s")
    stage_freebase(path, writer, ParseReport(), options=LoadOptions(),
                   progress=lambda *a: calls.append(a))
    assert calls and calls[-1][1] == calls[-1][2] == path.stat().st_size
    assert calls[-1][0].startswith("parsing p.nt.gz | 2,000 lines")
    assert "lines/s" in calls[-1][0] and "2,000 facts kept" in calls[-1][0]


def test_generic_vectorised_ntriples_stager(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "g.nt", [
        "<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .",
        '<http://ex.org/a>  <http://www.w3.org/2000/01/rdf-schema#label>  "A"@en .',
        "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P31> "
        "<http://www.wikidata.org/entity/Q5> .",
    ])
    got, report, counts = stage_with(stage_ntriples_vectorized, path, tmp_path / "s")
    want, _ = python_reference(path, tmp_path, LoadOptions(langs=None))
    assert got == want and counts["facts"] == 2 and counts["names"] == 1


# -- kill -9 and resume -----------------------------------------------------------------------
KILL_SCRIPT = textwrap.dedent("""
    import sys
    from kgstore import open_store
    from loaders.freebase import load_freebase
    with open_store(sys.argv[1], create=True) as store:
        load_freebase(store, sys.argv[2:])
    print("done", flush=True)
""")


@pytest.mark.slow
def test_kill_9_during_load_then_rerun_gives_the_clean_store(tmp_path: Path, open_store) -> None:
    from bench.freebase_synth import generate

    data = generate(tmp_path / "dump.nt.gz", 40_000, seed=3)
    part2 = write_lines(tmp_path / "part2.nt", big_lines(3000))
    env = {**os.environ, "KGBENCH_CHUNK_BYTES": str(1 << 20),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    cmd = [sys.executable, "-c", KILL_SCRIPT]
    subprocess.run([*cmd, str(clean), str(data), str(part2)], env=env, check=True,
                   timeout=120, capture_output=True)
    # Kill once while staging, once while importing (a 'loading' record exists).
    for wait_for in ("stage", "loading"):
        proc = subprocess.Popen([*cmd, str(killed), str(data), str(part2)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            staging = killed / "staging"
            if wait_for == "stage" and staging.exists() and any(staging.rglob("part-*")):
                break
            if wait_for == "loading" and any(killed.glob("merge-*")):
                break
            time.sleep(0.01)
        assert proc.poll() is None, f"the load ended before the {wait_for} phase"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
        if wait_for == "loading":
            with open_store(killed, read_only=True) as store:
                assert "complete" not in {s.status for s in store.sources()
                                          if Path(s.file).name == "dump.nt.gz"}
    subprocess.run([*cmd, str(killed), str(data), str(part2)], env=env, check=True,
                   timeout=120, capture_output=True)
    with open_store(clean, read_only=True) as a, open_store(killed, read_only=True) as b:
        assert store_snapshot(a) == store_snapshot(b)
        assert [(Path(s.file).name, s.status) for s in b.sources()] == [
            ("dump.nt.gz", "complete"), ("part2.nt", "complete")]
        assert [s.counts for s in a.sources()][1]["facts_new"] == 3000
    assert not (killed / "staging").exists()


# -- external data ----------------------------------------------------------------------------
def _predicate_counts(path: Path) -> Counter[str]:
    """Lines per predicate id, counted independently with plain string operations."""
    counts: Counter[str] = Counter()
    with open(path, encoding="utf-8") as fh:
        for text in fh:
            fields = text.rstrip("\n").split("\t")
            if len(fields) == 4:
                counts[fields[1][1:-1].removeprefix(FB)] += 1
    return counts


@pytest.mark.external
def test_real_dump_head(tmp_path: Path, open_store) -> None:
    head = _external("freebase", "dump_head", "fb-rdf-10k-head.nt")
    expected = _predicate_counts(head)
    with open_store(tmp_path / "store", create=True) as store:
        report = load_freebase(store, [head], strict=True,
                               options=LoadOptions(keep_predicates=("type.type.instance",)))
        (f,) = report.files
        assert (f.lines, f.triples, f.malformed) == (10_000, 10_000, 0)
        flt = PredicateFilter.for_options(LoadOptions(keep_predicates=("type.type.instance",)),
                                          FREEBASE_FILTER)
        kept = {p: n for p, n in expected.items() if flt.reason(p) is None}
        assert f.predicates == dict(sorted(kept.items(), key=lambda kv: (-kv[1], kv[0]))[:20])
        assert sum(f.dropped.values()) == 10_000 - sum(kept.values())
        assert f.mapped["types"] == expected["type.type.instance"] + expected["type.object.type"]
        prop = store.entity("american_football.football_player.footballdb_id")
        assert prop is not None and prop.name == "footballdb ID"
        assert "type.property" in prop.types
        winners = {text.split("\t")[2] for text in head.read_text().splitlines()
                   if "type.type.instance" in text}
        typed = store.cypher("MATCH (e:Entity) WHERE list_contains(e.types, "
                             "'award.award_winner') RETURN count(e)").rows[0][0]
        assert typed == len(winners) > 9000
    with open_store(tmp_path / "default", create=True) as store:
        report = load_freebase(store, [head])
        assert report.dropped["reverse_types"] == expected["type.type.instance"]
        assert report.malformed == 0


@pytest.mark.external
def test_webqsp_support_in_dump_format(tmp_path: Path, open_store) -> None:
    path = _external("freebase", "fb15k237", "DERIVED_webqsp_support_in_dump_format.nt")
    expected = _predicate_counts(path)
    raws = list(iter_raw_triples(path, strict=True))
    with open_store(tmp_path / "store", create=True) as store:
        report = load_freebase(store, [path], strict=True)
        (f,) = report.files
        assert (f.lines, f.triples, f.malformed) == (len(raws), len(raws), 0)
        assert f.mapped["names"] == expected["type.object.name"]
        facts = len(raws) - expected["type.object.name"]
        assert f.mapped["facts"] == facts
        assert store.stats().facts == report.import_report.facts_new <= facts
        named = store.cypher("MATCH (e:Entity) WHERE e.name IS NOT NULL RETURN count(e)")
        assert named.rows[0][0] == len({r[0] for r in raws if r[2].endswith("type.object.name")})
