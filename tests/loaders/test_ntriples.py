"""N-Triples parser: line grammar, escapes, errors, file iteration, input files, and
the W3C RDF 1.1 N-Triples test suite (needs KGBENCH_EXTERNAL_DATA)."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import pytest
import rdflib
import rdflib.exceptions
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib.compare import isomorphic

from kgstore.models import Literal
from loaders import ntriples
from loaders.errors import (
    MAX_EXAMPLES,
    InputFileError,
    MalformedInputError,
    ParseReport,
)
from loaders.ntriples import (
    IRI,
    BlankNode,
    NTriplesSyntaxError,
    iter_raw_triples,
    iter_triples,
    parse_line,
    parse_line_raw,
)
from loaders.sources import file_checksum, open_text
from tests.external import EXTERNAL
from tests.external import external_path as _external

EX = "http://example/"
XSD = "http://www.w3.org/2001/XMLSchema#"
FB = "http://rdf.freebase.com/ns/"


def obj(line: str):
    """The object of a one-triple line."""
    triple = parse_line(line)
    assert triple is not None
    return triple[2]


def lit(body: str, suffix: str = "") -> Literal:
    """Parse ``<s> <p> "body"suffix .`` and return the literal."""
    result = obj(f'<{EX}s> <{EX}p> "{body}"{suffix} .')
    assert isinstance(result, Literal)
    return result


def write(tmp_path: Path, text: str | bytes, name: str = "data.nt") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    return path


# -- terms -------------------------------------------------------------------------------
def test_iri_triple() -> None:
    assert parse_line(f"<{EX}s> <{EX}p> <{EX}o> .") == (IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o"))


def test_terms_are_frozen_and_hashable() -> None:
    assert len({IRI("http://a/x"), IRI("http://a/x"), BlankNode("x")}) == 2
    assert IRI("http://a/x") != BlankNode("http://a/x")
    with pytest.raises(AttributeError):
        IRI("http://a/x").value = "y"  # type: ignore[misc]
    assert str(IRI("http://a/x")) == "<http://a/x>" and str(BlankNode("b")) == "_:b"


@pytest.mark.parametrize("line, expected", [
    (f"_:b1 <{EX}p> <{EX}o> .", (BlankNode("b1"), IRI(EX + "p"), IRI(EX + "o"))),
    (f"<{EX}s> <{EX}p> _:b1 .", (IRI(EX + "s"), IRI(EX + "p"), BlankNode("b1"))),
    (f"_:1a <{EX}p> _:x.y .", (BlankNode("1a"), IRI(EX + "p"), BlankNode("x.y"))),
    (f"_:a-b_c\u00b7d <{EX}p> _:_x .", (BlankNode("a-b_c\u00b7d"), IRI(EX + "p"), BlankNode("_x"))),
    (f"_:\u00e9t\u00e9 <{EX}p> _:anon.", (BlankNode("\u00e9t\u00e9"), IRI(EX + "p"), BlankNode("anon"))),
])
def test_blank_nodes(line: str, expected: tuple) -> None:
    assert parse_line(line) == expected


@pytest.mark.parametrize("suffix, value, datatype, lang", [
    ("", "v", None, None),
    ("@en", "v", None, "en"),
    ("@en-GB", "v", None, "en-gb"),  # Literal lower-cases tags
    ("@zh-Hant-TW", "v", None, "zh-hant-tw"),
    ("@x-private1", "v", None, "x-private1"),
    (f"^^<{XSD}integer>", "v", "xsd:integer", None),  # XSD datatypes are shortened
    (f"^^<{XSD}string>", "v", "xsd:string", None),
    ("^^<http://example/dt>", "v", "http://example/dt", None),
])
def test_literal_forms(suffix: str, value: str, datatype: str | None, lang: str | None) -> None:
    assert lit("v", suffix) == Literal(value, datatype, lang)


@pytest.mark.parametrize("escaped, value", [
    (r"\t", "\t"), (r"\b", "\b"), (r"\n", "\n"), (r"\r", "\r"), (r"\f", "\f"),
    (r"\"", '"'), (r"\'", "'"), (r"\\", "\\"),
    (r"\u00E9", "\u00e9"), (r"\u20ac", "\u20ac"), (r"\U0001F600", "\U0001f600"),
    (r"\U00000053", "S"), (r"\u0000", "\x00"),
    (r"a\\nb", "a\\nb"),  # an escaped backslash followed by n is not a newline
    (r"\\\"", '\\"'),
    (r"\uD83D\uDE00", "\U0001f600"),  # an escaped UTF-16 surrogate pair is combined
    (r"x\ty\"z\u0041", 'x\ty"zA'),
])
def test_string_escapes(escaped: str, value: str) -> None:
    assert lit(escaped).value == value


def test_raw_characters_allowed_in_strings() -> None:
    # [9] excludes only '"', '\', LF and CR: tabs, controls, quotes and UTF-8 are raw.
    assert lit("a\tb\x00\x7f'\u00e9\U0001f600").value == "a\tb\x00\x7f'\u00e9\U0001f600"


def test_datatype_and_string_with_escapes_together() -> None:
    assert lit(r"1\u0030", f"^^<{XSD}int>") == Literal("10", "xsd:int")


@pytest.mark.parametrize("iri, value", [
    (r"http://example/\u0053", "http://example/S"),
    (r"http://example/\U00000053", "http://example/S"),
    ("scheme:!$%25&'()*+,-./0123456789:/@ABCXYZ_abcxyz~?#", "scheme:!$%25&'()*+,-./0123456789:/@ABCXYZ_abcxyz~?#"),
    ("urn:isbn:0451450523", "urn:isbn:0451450523"),
    ("http://example/\u00e9\u4e2d", "http://example/\u00e9\u4e2d"),
])
def test_iri_forms(iri: str, value: str) -> None:
    assert obj(f"<{EX}s> <{EX}p> <{iri}> .") == IRI(value)


@pytest.mark.parametrize("line", [
    f"<{EX}s>\t<{EX}p>\t<{EX}o>\t.",  # Freebase dump layout
    f"<{EX}s><{EX}p><{EX}o>.",  # minimal whitespace
    f"  \t <{EX}s>   <{EX}p> \t <{EX}o>   .  \t",
    f"<{EX}s> <{EX}p> <{EX}o> . # trailing comment",
    f"<{EX}s> <{EX}p> <{EX}o> .#comment",
])
def test_whitespace_and_comments(line: str) -> None:
    assert parse_line(line) == (IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o"))


@pytest.mark.parametrize("line", ["", "   ", "\t\t", "# comment", "   # indented comment", "#"])
def test_blank_and_comment_lines(line: str) -> None:
    assert parse_line(line) is None
    assert parse_line_raw(line) is None


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_trailing_eol_is_allowed(eol: str) -> None:
    assert parse_line(f"<{EX}s> <{EX}p> \"x\" .{eol}") == (IRI(EX + "s"), IRI(EX + "p"), Literal("x"))
    assert parse_line(f"# comment{eol}") is None


def test_freebase_dump_lines() -> None:
    assert parse_line(f'<{FB}m.0abc>\t<{FB}type.object.name>\t"The \\"Film\\""@en\t.') == (
        IRI(FB + "m.0abc"), IRI(FB + "type.object.name"), Literal('The "Film"', lang="en"))
    assert parse_line(f'<{FB}m.0abc>\t<{FB}film.film.initial_release_date>\t'
                      f'"2001-07-13"^^<{XSD}date>\t.')[2] == Literal("2001-07-13", "xsd:date")
    assert parse_line(f'<{FB}film.film>\t<{FB}freebase.type_hints.mediator>\t"true"\t.')[2] == Literal("true")


def test_raw_tuple_shape() -> None:
    assert parse_line_raw(f'_:b <{EX}p> "x"@en .') == (None, "b", EX + "p", None, None, "x", None, "en")
    assert parse_line_raw(f'<{EX}s> <{EX}p> "x\\ty"^^<{EX}d> .') == (
        EX + "s", None, EX + "p", None, None, "x\ty", EX + "d", None)
    assert parse_line_raw(f"<{EX}s> <{EX}p> _:o .") == (EX + "s", None, EX + "p", None, "o", None, None, None)


# -- rejected lines ----------------------------------------------------------------------
@pytest.mark.parametrize("line, reason", [
    (f"<{EX}s> <{EX}p> <{EX}o>", "expected '.'"),
    (f"<{EX}s> <{EX}p> .", "expected the object"),
    (f"<{EX}s> .", "expected the predicate"),
    (f"<{EX}s> <{EX}p> <{EX}o> . <{EX}o2> .", "after the final '.'"),
    (f"<{EX}s> <{EX}p> <{EX}o>, <{EX}o2> .", "object lists"),
    (f"<{EX}s> <{EX}p> <{EX}o>; <{EX}p2> <{EX}o2> .", "predicate lists"),
    (f"<{EX}s> <{EX}p> <{EX}o> .\x0c", "after the final '.'"),  # only space/tab are WS
    (f"<{EX}s> <{EX}p> <{EX}o> ..", "after the final '.'"),
    # IRIs
    (f"<s> <{EX}p> <{EX}o> .", "relative IRI <s>"),
    (f"<{EX}s> <p> <{EX}o> .", "relative IRI <p>"),
    (f"<{EX}s> <{EX}p> <o> .", "relative IRI <o>"),
    (f'<{EX}s> <{EX}p> "x"^^<dt> .', "relative IRI <dt>"),
    (f"<{EX}a b> <{EX}p> <{EX}o> .", "a space is not allowed"),
    (f"<{EX}a|b> <{EX}p> <{EX}o> .", "'|' is not allowed"),
    (f"<{EX}a{{b}}> <{EX}p> <{EX}o> .", "'{' is not allowed"),
    (f"<{EX}a\\nb> <{EX}p> <{EX}o> .", "escape '\\n' is not allowed in an IRI"),
    (f"<{EX}a\\u00ZZ> <{EX}p> <{EX}o> .", "needs 4 hex digits"),
    (f"<{EX}a\\U0000ZZZZ> <{EX}p> <{EX}o> .", "needs 8 hex digits"),
    (f"<{EX}a\\u0020b> <{EX}p> <{EX}o> .", "escape in IRI produces ' '"),
    (f"<{EX}s<{EX}p> <{EX}o> .", "'<' is not allowed"),
    (f"<{EX}s", "unterminated IRI"),
    # blank nodes
    (f"_::a <{EX}p> <{EX}o> .", "invalid blank node label"),
    (f"_:abc:def <{EX}p> <{EX}o> .", "':' is not allowed in blank node label"),
    (f"_:.a <{EX}p> <{EX}o> .", "invalid blank node label"),
    (f"<{EX}s> _:p <{EX}o> .", "blank node cannot be the predicate"),
    # literals
    (f'"s" <{EX}p> <{EX}o> .', "literal cannot be the subject"),
    (f'<{EX}s> "p" <{EX}o> .', "literal cannot be the predicate"),
    (f'<{EX}s> <{EX}p> "abc .', "unterminated string"),
    (f"<{EX}s> <{EX}p> \"abc' .", "unterminated string"),
    (f"<{EX}s> <{EX}p> 'abc' .", "single-quoted strings"),
    (f'<{EX}s> <{EX}p> """abc""" .', "long strings"),
    (f"<{EX}s> <{EX}p> '''abc''' .", "long strings"),
    (f'<{EX}s> <{EX}p> abc" .', "expected the object"),
    (f'<{EX}s> <{EX}p> "a\\zb" .', "invalid escape '\\z'"),
    (f'<{EX}s> <{EX}p> "\\uWXYZ" .', "needs 4 hex digits"),
    (f'<{EX}s> <{EX}p> "\\U0000WXYZ" .', "needs 8 hex digits"),
    (f'<{EX}s> <{EX}p> "\\U00110000" .', "beyond U+10FFFF"),
    (f'<{EX}s> <{EX}p> "\\uD800" .', "lone surrogate"),
    (f'<{EX}s> <{EX}p> "x"@1 .', "invalid language tag '@1'"),
    (f'<{EX}s> <{EX}p> "x"@en_US .', "invalid language tag"),
    (f'<{EX}s> <{EX}p> "x"@ .', "invalid language tag"),
    (f'<{EX}s> <{EX}p> "x"^^xsd:int .', "must be a full IRI"),
    (f'<{EX}s> <{EX}p> "x"@en^^<{EX}dt> .', "expected '.'"),
    # Turtle-only syntax
    ("@prefix ex: <http://example/> .", "directives are Turtle"),
    ("@base <http://example/> .", "directives are Turtle"),
    ("PREFIX ex: <http://example/>", "directives are Turtle"),
    (f"<{EX}s> <{EX}p> 1 .", "bare numbers"),
    (f"<{EX}s> <{EX}p> -1.5e3 .", "bare numbers"),
    (f"<{EX}s> <{EX}p> true .", "bare numbers/booleans"),
    (f"<{EX}s> a <{EX}C> .", "'a' is Turtle shorthand"),
    (f"ex:s <{EX}p> <{EX}o> .", "prefixed name 'ex:s'"),
    (f"<{EX}s> <{EX}p> ex:o .", "prefixed name 'ex:o'"),
    (f"<{EX}s> <{EX}p> [ <{EX}q> <{EX}o> ] .", "Turtle blank node"),
    (f"<{EX}s> <{EX}p> ( <{EX}o> ) .", "Turtle blank node/collection"),
])
def test_rejected_lines(line: str, reason: str) -> None:
    with pytest.raises(NTriplesSyntaxError) as info:
        parse_line(line)
    assert reason in info.value.reason
    assert info.value.reason.startswith("column ")


def test_error_names_the_column() -> None:
    with pytest.raises(NTriplesSyntaxError, match=r"^column 17: a space"):
        parse_line("<http://example/ space> <http://example/p> <http://example/o> .")


# -- round trip against rdflib's serializer ----------------------------------------------
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(value=_TEXT, lang=st.sampled_from([None, "en", "en-GB", "fr"]))
def test_round_trip_with_rdflib_serializer(value: str, lang: str | None) -> None:
    graph = rdflib.Graph()
    graph.add((rdflib.URIRef(EX + "s"), rdflib.URIRef(EX + "p"), rdflib.Literal(value, lang=lang)))
    # split on LF only: str.splitlines would also split on raw \x0c, \x1c, \u2028 ...
    lines = [x for x in graph.serialize(format="nt").split("\n") if x.strip()]
    assert len(lines) == 1
    assert obj(lines[0]) == Literal(value, lang=lang)


# -- files -------------------------------------------------------------------------------
GOOD = f"<{EX}s> <{EX}p> <{EX}o> ."
BAD = f"<{EX}s> <{EX}p> ."


def test_iter_triples_counts(tmp_path: Path) -> None:
    path = write(tmp_path, f"# header\n\n{GOOD}\n{GOOD.replace('o>', 'o2>')}\n")
    report = ParseReport()
    triples = list(iter_triples(path, strict=True, report=report))
    assert len(triples) == 2
    assert (report.lines, report.triples, report.malformed) == (4, 2, 0)


def test_counting_mode_keeps_going(tmp_path: Path) -> None:
    path = write(tmp_path, f"{GOOD}\n{BAD}\n{GOOD}\nnonsense\n{GOOD}\n")
    report = ParseReport()
    triples = list(iter_triples(path, strict=False, report=report))
    assert len(triples) == 3
    assert report.malformed == 2
    assert [line for _, line, _ in report.examples] == [2, 4]
    assert "expected the object" in report.examples[0][2]
    assert report.examples[1][2].startswith("column 1: ")
    assert all(p == str(path) for p, _, _ in report.examples)


def test_strict_stops_at_first_malformed_line(tmp_path: Path) -> None:
    path = write(tmp_path, f"{GOOD}\n{GOOD}\n{BAD}\n{BAD}\n")
    seen = []
    with pytest.raises(MalformedInputError) as info:
        for triple in iter_triples(path, strict=True, report=ParseReport()):
            seen.append(triple)
    err = info.value
    assert len(seen) == 2
    assert (err.path, err.line) == (str(path), 3)
    assert "expected the object" in err.reason
    assert str(err) == f"{path}:3: {err.reason}"


def test_examples_are_capped(tmp_path: Path) -> None:
    path = write(tmp_path, f"{BAD}\n" * (MAX_EXAMPLES + 5))
    report = ParseReport()
    assert list(iter_triples(path, report=report)) == []
    assert report.malformed == MAX_EXAMPLES + 5
    assert len(report.examples) == MAX_EXAMPLES
    assert report.examples[-1][1] == MAX_EXAMPLES


def test_line_endings(tmp_path: Path) -> None:
    # CRLF, a lone CR between two triples, and a comment ended by a lone CR.
    text = f"{GOOD}\r\n# c\r{GOOD.replace('s>', 's2>')}\r{GOOD.replace('s>', 's3>')}\n{GOOD}"
    report = ParseReport()
    subjects = [t[0] for t in iter_triples(write(tmp_path, text), strict=True, report=report)]
    assert subjects == [IRI(EX + "s"), IRI(EX + "s2"), IRI(EX + "s3"), IRI(EX + "s")]
    assert (report.lines, report.triples) == (3, 4)


def test_bad_line_after_lone_cr_is_reported_with_its_physical_line(tmp_path: Path) -> None:
    path = write(tmp_path, f"{GOOD}\n{GOOD}\r{BAD}\n")
    with pytest.raises(MalformedInputError) as info:
        list(iter_triples(path, strict=True))
    assert info.value.line == 2


def test_invalid_utf8(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.encode() + b"\n" + f'<{EX}s> <{EX}p> "'.encode() + b"\xff\xfe" + b'" .\n'
                 + GOOD.encode() + b"\n")
    report = ParseReport()
    assert len(list(iter_triples(path, report=report))) == 2
    assert report.malformed == 1 and report.examples[0][1] == 2
    assert "invalid UTF-8" in report.examples[0][2]
    with pytest.raises(MalformedInputError, match=r":2: invalid UTF-8"):
        list(iter_triples(path, strict=True))


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    assert len(list(iter_triples(write(tmp_path, "\ufeff" + GOOD + "\n"), strict=True))) == 1


@pytest.mark.parametrize("name, compress", [
    ("data.nt.gz", gzip.compress), ("data.nt.bz2", bz2.compress), ("data.nt", gzip.compress),
])
def test_compressed_files(tmp_path: Path, name: str, compress) -> None:
    path = write(tmp_path, compress(((GOOD + "\n") * 3).encode()), name)
    assert len(list(iter_triples(path, strict=True))) == 3


def test_raw_and_term_iterators_agree(tmp_path: Path) -> None:
    path = write(tmp_path, f'{GOOD}\n_:b <{EX}p> "x\\n"@en .\n')
    raws = list(iter_raw_triples(path, strict=True))
    assert [ntriples.raw_to_terms(r) for r in raws] == list(iter_triples(path, strict=True))


def test_progress_is_called_periodically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ntriples, "PROGRESS_EVERY", 10)
    path = write(tmp_path, (GOOD + "\n") * 35)
    calls: list[tuple[str, int, int | None]] = []
    list(iter_triples(path, progress=lambda *a: calls.append(a)))
    size = path.stat().st_size
    assert len(calls) == 4  # after 10, 20, 30 lines and at the end
    assert all(c[0] == "parsing data.nt" and c[2] == size for c in calls)
    assert calls[-1][1] == size


# -- input files (loaders.sources) -------------------------------------------------------
def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="file not found"):
        list(iter_triples(tmp_path / "nope.nt"))
    with pytest.raises(InputFileError, match="file not found"):
        file_checksum(tmp_path / "nope.nt")


def test_directory_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="is a directory"):
        open_text(tmp_path)


def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress((GOOD + "\n").encode() * 10_000)
    path = write(tmp_path, data[: len(data) // 2], "cut.nt.gz")
    with pytest.raises(InputFileError, match="truncated or corrupt"):
        list(iter_triples(path))


def test_compressed_name_without_compressed_content(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="not gz-compressed"):
        open_text(write(tmp_path, GOOD, "plain.nt.gz"))


def test_zstd_when_available(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = write(tmp_path, zstandard.ZstdCompressor().compress((GOOD + "\n").encode() * 3),
                 "data.nt.zst")
    assert len(list(iter_triples(path, strict=True))) == 3


def test_checksum_is_sha256_of_stored_bytes(tmp_path: Path) -> None:
    import hashlib

    path = write(tmp_path, b"abc" * 1000)
    assert file_checksum(path, chunk_size=7) == hashlib.sha256(b"abc" * 1000).hexdigest()


def test_error_pickles_with_fields() -> None:
    import pickle

    err = pickle.loads(pickle.dumps(MalformedInputError("f.nt", 3, "bad")))
    assert (err.path, err.line, err.reason, str(err)) == ("f.nt", 3, "bad", "f.nt:3: bad")


# -- external data -----------------------------------------------------------------------
def _w3c_cases() -> list:
    """(kind, file) for every test in the W3C manifest, or one skipped placeholder."""
    if not EXTERNAL:
        return [pytest.param("none", None, id="w3c-unavailable")]
    suite = Path(EXTERNAL, "w3c-rdf-tests", "rdf-n-triples")
    manifest = suite / "manifest.ttl"
    if not manifest.is_file():
        return [pytest.param("none", None, id="w3c-unavailable")]
    graph = rdflib.Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
    rdft = rdflib.Namespace("http://www.w3.org/ns/rdftest#")
    mf = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
    cases = []
    for kind, cls in (("positive", rdft.TestNTriplesPositiveSyntax),
                      ("negative", rdft.TestNTriplesNegativeSyntax)):
        for test in graph.subjects(rdflib.RDF.type, cls):
            action = Path(str(graph.value(test, mf.action)).removeprefix("file://"))
            cases.append(pytest.param(kind, action, id=f"{kind}-{action.stem}"))
    return sorted(cases, key=lambda p: p.id)


def _to_rdflib(term):
    if isinstance(term, IRI):
        return rdflib.URIRef(term.value)
    if isinstance(term, BlankNode):
        return rdflib.BNode(term.label)
    datatype = term.datatype
    if datatype and datatype.startswith("xsd:"):
        datatype = XSD + datatype[4:]
    return rdflib.Literal(term.value, lang=term.lang, datatype=datatype)


@pytest.mark.external
@pytest.mark.parametrize("kind, path", _w3c_cases())
def test_w3c_ntriples_suite(kind: str, path: Path | None) -> None:
    if path is None:
        pytest.skip("KGBENCH_EXTERNAL_DATA is not set (W3C N-Triples suite)")
    report = ParseReport()
    triples = list(iter_triples(path, strict=False, report=report))
    if kind == "negative":
        assert report.malformed > 0, f"{path.name} should be rejected"
        assert report.examples[0][2], "a rejection carries a reason"
        with pytest.raises(MalformedInputError):
            list(iter_triples(path, strict=True))
        return
    assert report.malformed == 0, report.examples
    ours = rdflib.Graph()
    for s, p, o in triples:
        ours.add((_to_rdflib(s), _to_rdflib(p), _to_rdflib(o)))
    theirs = _rdflib_parse(path)
    assert len(ours) == len(theirs)
    assert isomorphic(ours, theirs)  # same triples, blank-node labels aside


def _rdflib_parse(path: Path) -> rdflib.Graph:
    """rdflib's reading of an N-Triples file, language tags lower-cased (they are
    case-insensitive; kgstore's Literal stores them lower-case). rdflib's N-Triples
    parser rejects some valid files (``minimal_whitespace``); N-Triples is a subset of
    Turtle, so its Turtle parser is the fallback oracle."""
    try:
        graph = rdflib.Graph().parse(path, format="nt")
    except rdflib.exceptions.ParserError:
        graph = rdflib.Graph().parse(path, format="turtle", publicID="http://invalid.example/")
    out = rdflib.Graph()
    for s, p, o in graph:
        if isinstance(o, rdflib.Literal) and o.language:
            o = rdflib.Literal(str(o), lang=o.language.lower())
        out.add((s, p, o))
    return out


@pytest.mark.external
def test_w3c_suite_size() -> None:
    cases = _w3c_cases()
    if cases[0].values[1] is None:
        pytest.skip("KGBENCH_EXTERNAL_DATA is not set")
    kinds = [c.values[0] for c in cases]
    assert (kinds.count("positive"), kinds.count("negative")) == (41, 29)


@pytest.mark.external
def test_freebase_dump_head() -> None:
    path = _external("freebase", "dump_head", "fb-rdf-10k-head.nt")
    report = ParseReport()
    triples = list(iter_triples(path, strict=True, report=report))
    assert (report.lines, report.triples, report.malformed) == (10_000, 10_000, 0)
    first = triples[0]
    assert first[0] == IRI(FB + "american_football.football_player.footballdb_id")
    assert Literal("footballdb ID", lang="en") in {t[2] for t in triples[:5]}


@pytest.mark.external
def test_wikidata_truthy_sample() -> None:
    path = _external("wikidata", "DERIVED_Q42_truthy.nt")
    report = ParseReport()
    triples = list(iter_triples(path, strict=True, report=report))
    assert report.malformed == 0 and len(triples) == report.lines
    assert len(set(triples)) == len(_rdflib_parse(path))
