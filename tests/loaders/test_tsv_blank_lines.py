"""A TSV line of tabs and spaces only (``\\t\\t``, `` \\t \\t ``) is a malformed line,
"empty fields", counted and listed with its number; only a truly blank line (empty,
or spaces only) is skipped. Such lines were counted as lines but neither loaded nor
listed, so a file that lost its values loaded "cleanly"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loaders.errors import MalformedInputError, ParseReport
from loaders.tsv import (
    TsvSyntaxError,
    iter_names,
    iter_tsv_triples,
    parse_name_line,
    parse_triple_line,
)
from tests.kgbench.test_cli import run

EMPTY_FIELDS = "empty fields: the line has only tabs and spaces"


@pytest.mark.parametrize("line", ["\t", "\t\t", " \t \t ", "\t\t\t", " \t\r"])
def test_a_line_of_tabs_is_malformed(line: str) -> None:
    with pytest.raises(TsvSyntaxError) as info:
        parse_triple_line(line)
    assert info.value.reason == EMPTY_FIELDS
    with pytest.raises(TsvSyntaxError) as info:
        parse_name_line(line)
    assert info.value.reason == EMPTY_FIELDS


@pytest.mark.parametrize("line", ["", "   ", "\r"])
def test_a_blank_line_is_skipped(line: str) -> None:
    assert parse_triple_line(line) is None
    assert parse_name_line(line) is None


GOOD = "".join(f"/m/{i}\t/r/x\t/m/{i + 1}\n" for i in range(8))
TEXT = GOOD[:30] + "\t\t\n" + " \t \t \n" + "   \n" + "\n" + GOOD[30:]


def test_counted_and_listed_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "data.tsv"
    path.write_text(TEXT, encoding="utf-8")
    report = ParseReport()
    assert len(list(iter_tsv_triples(path, report=report))) == 8
    assert (report.lines, report.triples, report.malformed) == (12, 8, 2)
    assert report.examples == [(str(path), 3, EMPTY_FIELDS), (str(path), 4, EMPTY_FIELDS)]
    with pytest.raises(MalformedInputError) as info:
        list(iter_tsv_triples(path, strict=True))
    assert str(info.value) == f"{path}:3: {EMPTY_FIELDS}"
    names = tmp_path / "names.tsv"
    names.write_text("/m/1\tOne\n\t\n\n/m/2\tTwo\n", encoding="utf-8")
    report = ParseReport()
    assert list(iter_names(names, report=report)) == [("m.1", "One"), ("m.2", "Two")]
    assert report.examples == [(str(names), 2, EMPTY_FIELDS)]


def test_the_load_summary_lists_them(tmp_path: Path) -> None:
    path = tmp_path / "data.tsv"
    path.write_text(TEXT, encoding="utf-8")
    proc = run("load", "triples", path, "--store", tmp_path / "s", "--json")
    assert proc.returncode == 0, proc.stderr
    [file] = json.loads(proc.stdout)["report"]["files"]
    assert (file["lines"], file["triples"], file["malformed"]) == (12, 8, 2)
    assert [line for _, line, _ in file["examples"]] == [3, 4]
