"""TSV triples and names files (FB15k-237 layout)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from loaders import tsv
from loaders.errors import MalformedInputError, ParseReport
from loaders.tsv import (
    TsvSyntaxError,
    freebase_id,
    iter_names,
    iter_tsv_triples,
    parse_name_line,
    parse_triple_line,
)

EXTERNAL = os.environ.get("KGBENCH_EXTERNAL_DATA")


def write(tmp_path: Path, text: str, name: str = "data.tsv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, expected", [
    ("/m/0abc", "m.0abc"),
    ("/m/02_j1w", "m.02_j1w"),
    ("/g/11b6r_0x7n", "g.11b6r_0x7n"),
    ("/film/film/genre", "film.film.genre"),
    ("/people/person/spouse_s./people/marriage/type_of_union",
     "people.person.spouse_s..people.marriage.type_of_union"),
    ("m.0abc", "m.0abc"),  # already dotted
    ("Q42", "Q42"),
    ("00260881", "00260881"),  # WordNet offsets
    ("_hypernym", "_hypernym"),
])
def test_freebase_id(text: str, expected: str) -> None:
    assert freebase_id(text) == expected


@pytest.mark.parametrize("line, expected", [
    ("/m/07pd_j\t/film/film/genre\t/m/02l7c8", ("m.07pd_j", "film.film.genre", "m.02l7c8")),
    ("Q42\tP69\tQ691283", ("Q42", "P69", "Q691283")),
    (" /m/a \t /r/x \t /m/b ", ("m.a", "r.x", "m.b")),  # surrounding spaces are trimmed
    ("a b\tr\tc d", ("a b", "r", "c d")),  # inner spaces are part of the id
])
def test_triple_lines(line: str, expected: tuple[str, str, str]) -> None:
    assert parse_triple_line(line) == expected


@pytest.mark.parametrize("line", ["", "   ", " \r"])  # tabs: test_tsv_blank_lines.py
def test_blank_triple_lines(line: str) -> None:
    assert parse_triple_line(line) is None


@pytest.mark.parametrize("line, reason", [
    ("/m/a\t/r/x", "expected 3 tab-separated fields (head, relation, tail), found 2"),
    ("/m/a\t/r/x\t/m/b\t/m/c", "found 4"),
    ("/m/a /r/x /m/b", "found 1 (is the file space-separated?)"),
    ("\t/r/x\t/m/b", "empty head field"),
    ("/m/a\t\t/m/b", "empty relation field"),
    ("/m/a\t/r/x\t", "empty tail field"),
    ("/m/a\t/r/x\t  ", "empty tail field"),
])
def test_malformed_triple_lines(line: str, reason: str) -> None:
    with pytest.raises(TsvSyntaxError) as info:
        parse_triple_line(line)
    assert reason in info.value.reason


@pytest.mark.parametrize("line, expected", [
    ("/m/06rf7\tSchleswig-Holstein", ("m.06rf7", "Schleswig-Holstein")),
    ("/m/0c94fn\tGary_Rydstrom", ("m.0c94fn", "Gary_Rydstrom")),  # kept as written
    ("Q42\tDouglas Adams", ("Q42", "Douglas Adams")),
    ("/m/x\tName\twith tab", ("m.x", "Name\twith tab")),  # everything after the first tab
    ("/m/x\t  Padded  ", ("m.x", "Padded")),
    ("/m/x\tÉmile Zola", ("m.x", "Émile Zola")),
])
def test_name_lines(line: str, expected: tuple[str, str]) -> None:
    assert parse_name_line(line) == expected


@pytest.mark.parametrize("line, reason", [
    ("/m/x Name", "no tab"),
    ("\tName", "empty id"),
    ("/m/x\t", "empty name"),
    ("/m/x\t   ", "empty name"),
])
def test_malformed_name_lines(line: str, reason: str) -> None:
    with pytest.raises(TsvSyntaxError, match=reason):
        parse_name_line(line)


def test_iter_counts_and_skips_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "/m/a\t/r/x\t/m/b\n\n/m/b\t/r/y\t/m/c\r\n   \n")
    report = ParseReport()
    assert list(iter_tsv_triples(path, strict=True, report=report)) == [
        ("m.a", "r.x", "m.b"), ("m.b", "r.y", "m.c")]
    assert (report.lines, report.triples, report.malformed) == (4, 2, 0)


def test_counting_mode_keeps_going(tmp_path: Path) -> None:
    path = write(tmp_path, "/m/a\t/r/x\t/m/b\nbad line\n/m/a\t/r/x\n/m/c\t/r/x\t/m/d\n")
    report = ParseReport()
    triples = list(iter_tsv_triples(path, report=report))
    assert [t[0] for t in triples] == ["m.a", "m.c"]
    assert report.malformed == 2
    assert [(p, line) for p, line, _ in report.examples] == [(str(path), 2), (str(path), 3)]
    assert "found 2" in report.examples[1][2]


def test_strict_stops_at_first(tmp_path: Path) -> None:
    path = write(tmp_path, "/m/a\t/r/x\t/m/b\n/m/a\t\t/m/b\nalso bad\n")
    with pytest.raises(MalformedInputError) as info:
        list(iter_tsv_triples(path, strict=True))
    assert info.value.line == 2 and info.value.reason == "empty relation field"
    assert str(info.value) == f"{path}:2: empty relation field"


def test_names_iter(tmp_path: Path) -> None:
    path = write(tmp_path, "/m/a\tAlpha\n/m/b\n\n/m/c\tGamma\n", "names.txt")
    report = ParseReport()
    assert list(iter_names(path, report=report)) == [("m.a", "Alpha"), ("m.c", "Gamma")]
    assert (report.lines, report.triples, report.malformed) == (4, 2, 1)
    assert report.examples[0][1:] == (2, "expected 'id<TAB>name', found no tab")


def test_invalid_utf8_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_bytes(b"/m/a\t/r/x\t/m/b\n/m/\xff\t/r/x\t/m/b\n/m/c\t/r/x\t/m/d\n")
    report = ParseReport()
    assert len(list(iter_tsv_triples(path, report=report))) == 2
    assert report.malformed == 1 and "invalid UTF-8" in report.examples[0][2]


def test_gzip_tsv(tmp_path: Path) -> None:
    path = tmp_path / "data.tsv.gz"
    path.write_bytes(gzip.compress(b"/m/a\t/r/x\t/m/b\n" * 4))
    assert len(list(iter_tsv_triples(path, strict=True))) == 4


def test_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tsv, "PROGRESS_EVERY", 2)
    path = write(tmp_path, "/m/a\t/r/x\t/m/b\n" * 5)
    calls: list[tuple[str, int, int | None]] = []
    list(iter_tsv_triples(path, progress=lambda *a: calls.append(a)))
    assert [c[0] for c in calls] == ["parsing data.tsv"] * 3
    assert calls[-1][1:] == (path.stat().st_size, path.stat().st_size)


# -- FB15k-237 ---------------------------------------------------------------------------
def _external(name: str) -> Path:
    if not EXTERNAL:
        pytest.skip("KGBENCH_EXTERNAL_DATA is not set")
    path = Path(EXTERNAL, "freebase", "fb15k237", name)
    if not path.is_file():
        pytest.skip(f"{path} is not available")
    return path


@pytest.mark.external
def test_fb15k237_dev() -> None:
    report = ParseReport()
    triples = list(iter_tsv_triples(_external("dev.tsv"), strict=True, report=report))
    assert (report.lines, report.triples, report.malformed) == (17_535, 17_535, 0)
    assert triples[0] == ("m.07pd_j", "film.film.genre", "m.02l7c8")
    assert all(h.startswith("m.") and t.startswith("m.") for h, _, t in triples)
    assert all("/" not in r for _, r, _ in triples)


@pytest.mark.external
def test_fb15k237_entity_names() -> None:
    report = ParseReport()
    names = dict(iter_names(_external("entity2text.txt"), strict=True, report=report))
    assert report.malformed == 0
    assert report.triples == report.lines == 14_951
    assert names["m.06rf7"] == "Schleswig-Holstein"
    assert names["m.0c94fn"] == "Gary Rydstrom"
