"""A line that is not UTF-8 is a malformed line wherever it is: ``load freebase`` on a
four-line file whose third line is ``\\xff\\xfe`` refused the whole file as "not text
(or not UTF-8)", while the same line at line 20,001 was skipped and listed. The format
sniff now leaves such lines to the load, which counts and lists them with their
numbers; a file is refused only by the general rule (more than half of its first lines
malformed) or when it is binary."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgstore import open_store
from loaders.errors import UnsupportedFormatError
from loaders.freebase import check_freebase, load_freebase
from loaders.rdf import load_rdf
from loaders.vectorized import head_lines
from tests.kgbench.test_cli import run

NS = "http://rdf.freebase.com/ns/"
BAD = b"\xff\xfe"


def good(i: int) -> bytes:
    return f"<{NS}m.0{i}> <{NS}film.film.directed_by> <{NS}m.1{i}> .\n".encode()


def write(path: Path, before: int, after: int = 1) -> Path:
    path.write_bytes(b"".join(good(i) for i in range(before)) + BAD + b"\n"
                     + b"".join(good(before + i) for i in range(after)))
    return path


def test_head_lines_leave_out_a_minority_of_undecodable_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "fb.nt", 2)
    assert head_lines(path, 50) == [good(i).decode().rstrip("\n") for i in range(3)]
    mostly_bad = tmp_path / "latin1.nt"
    mostly_bad.write_bytes(b"caf\xe9\n\xe9t\xe9\n" + good(0))
    with pytest.raises(UnicodeDecodeError):
        head_lines(mostly_bad, 50)


@pytest.mark.parametrize("before", [2, 20_000])
def test_a_bad_line_is_malformed_at_any_line_number(tmp_path: Path, before: int) -> None:
    path = write(tmp_path / "fb.nt", before)
    check_freebase(path)   # looks like the Freebase dump
    with open_store(str(tmp_path / "store"), create=True) as store:
        report = load_freebase(store, [path])
    [file] = report.files
    assert (file.triples, file.malformed) == (before + 1, 1)
    [(where, number, reason)] = file.examples
    assert (where, number) == (str(path), before + 1)
    assert "invalid UTF-8" in reason


def test_the_rdf_sniff_treats_it_the_same(tmp_path: Path) -> None:
    path = write(tmp_path / "noextension", 2)
    with open_store(str(tmp_path / "store"), create=True) as store:
        report = load_rdf(store, [path])
    assert (report.files[0].triples, report.files[0].malformed) == (3, 1)


def test_text_that_is_mostly_not_utf8_or_binary_is_still_refused(tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1.nt"
    latin1.write_bytes(b"caf\xe9\n\xe9t\xe9\n\xff\n" + good(0))
    with pytest.raises(UnsupportedFormatError, match="not text"):
        check_freebase(latin1)
    binary = tmp_path / "blob.nt"
    binary.write_bytes(good(0) + b"\x00\x01\x02\n")
    with pytest.raises(UnsupportedFormatError, match="not text"):
        check_freebase(binary)


def test_the_cli_loads_and_lists_it(tmp_path: Path) -> None:
    path = write(tmp_path / "fb.nt", 2)
    proc = run("load", "freebase", path, "--store", tmp_path / "s")
    assert proc.returncode == 0, proc.stderr
    assert "1 malformed line(s) skipped" in proc.stdout
    assert "fb.nt:3: invalid UTF-8 at byte 1 of the line" in proc.stdout
