"""The "not a <format> file" rule (issue 18, item 12), one rule for every loader: a file
more than half of whose first :data:`~loaders.errors.FORMAT_CHECK_LINES` lines are
malformed is refused while it stages, so nothing reaches the store. Real stores, real
files; the CLI side is tests/kgbench/test_cli_load_garbage.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgstore import open_store
from loaders.errors import FORMAT_CHECK_LINES, NotFormatError, ParseReport
from loaders.freebase import load_freebase
from loaders.rdf import load_rdf
from loaders.triples import load_triples

FB = "http://rdf.freebase.com/ns/"


def tsv(path: Path, good: int, bad: int, *, bad_first: bool = False) -> Path:
    good_lines = [f"/m/{i}\t/r/p\t/m/x{i}" for i in range(good)]
    bad_lines = [f"bad line {i}" for i in range(bad)]
    lines = bad_lines + good_lines if bad_first else good_lines + bad_lines
    path.write_text("\n".join(lines) + "\n")
    return path


def test_half_malformed_is_loaded_more_is_refused(tmp_path: Path) -> None:
    with open_store(tmp_path / "store", create=True) as store:
        report = load_triples(store, [tsv(tmp_path / "half.tsv", 5, 5)])
        assert (report.triples, report.malformed) == (5, 5)
        before = store.stats()
        sources = store.sources()
        with pytest.raises(NotFormatError) as info:
            load_triples(store, [tsv(tmp_path / "more.tsv", 4, 6, bad_first=True)])
        message = str(info.value)
        assert message.startswith(f"{tmp_path / 'more.tsv'}: not a tab-separated triples file: "
                                  "6 of its first 10 lines are malformed (line 1: expected 3 ")
        assert "nothing was loaded" in message
        after = store.stats()
        assert (after.facts, after.entities) == (before.facts, before.entities)
        assert store.sources() == sources  # no source recorded, not even as "loading"
    assert not (tmp_path / "store" / "staging").exists()


def test_a_large_garbage_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tsv(tmp_path / "big.tsv", 0, 5 * FORMAT_CHECK_LINES)
    with open_store(tmp_path / "store", create=True) as store, \
            pytest.raises(NotFormatError, match="5,001 of its first 10,000 lines"):
        load_triples(store, [path])


def test_only_the_first_lines_are_judged(tmp_path: Path) -> None:
    """Malformed lines after the first FORMAT_CHECK_LINES are counted, not judged."""
    path = tsv(tmp_path / "tail.tsv", FORMAT_CHECK_LINES, 2 * FORMAT_CHECK_LINES)
    with open_store(tmp_path / "store", create=True) as store:
        report = load_triples(store, [path])
    assert (report.triples, report.malformed) == (FORMAT_CHECK_LINES, 2 * FORMAT_CHECK_LINES)


def test_freebase_dump_turning_into_garbage_is_refused(tmp_path: Path) -> None:
    """check_freebase looks at the first 50 lines; the rule covers the rest."""
    good = [f"<{FB}m.{i}>\t<{FB}film.film.genre>\t<{FB}m.g>\t." for i in range(50)]
    path = tmp_path / "dump.nt"
    path.write_text("\n".join(good + ["\x01 garbage \x02"] * 200) + "\n")
    with open_store(tmp_path / "store", create=True) as store:
        with pytest.raises(NotFormatError, match="not a Freebase N-Triples file: 200 of its "
                                                 "first 250 lines are malformed"):
            load_freebase(store, [path])
        assert store.sources() == [] and store.stats().facts == 0


def test_rdflib_file_that_fails_before_any_triple_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.ttl"
    path.write_text("these are my notes, not Turtle\n" + "<http://ex.org/a> <http://ex.org/p> "
                    "<http://ex.org/b> .\n" * 5)
    with open_store(tmp_path / "store", create=True) as store:
        with pytest.raises(NotFormatError, match=r"not a Turtle file: line 1: Turtle syntax "
                                                 r"error: .*, before any triple"):
            load_rdf(store, [path])
        assert store.sources() == []


def test_the_rule_needs_a_format_to_name() -> None:
    """A report without ``expected`` (a stager called directly) only counts."""
    report = ParseReport()
    for line in range(1, FORMAT_CHECK_LINES + 1):
        report.add_malformed("x", line, "bad")
    report.lines = FORMAT_CHECK_LINES
    report.check_format("x")
    assert report.malformed == FORMAT_CHECK_LINES
