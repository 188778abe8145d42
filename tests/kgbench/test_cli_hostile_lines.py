"""A newline, tab or CR inside a value from the data (a name, a literal, a predicate)
or from the user (an argument echoed in a message) is shown as ``\\n``, ``\\t``,
``\\r``, so the value stays on its line: a name ``"Line1\\nError: fake line"`` once
printed a line of its own that read as the CLI's error. Invisible format characters
(U+200B zero width space, U+FEFF, Unicode category Cf) are shown as escapes too. The
tables' own line breaks stay."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest

from kgbench.cli.output import field, one_line, visible
from tests.kgbench.test_cli import run

NS = "http://rdf.freebase.com/ns/"
FORGED = "Line1\nError: fake line\twith tab"
HIDDEN = "Car\rriage\u200bzero\ufeffwidth"
LITERAL = "lit\nError: forged literal\r\u2060"
PREDICATE = "film.\u200bdirected_by"
DATA = (
    f'<{NS}m.01> <{NS}type.object.name> "Line1\\nError: fake line\\twith tab" .\n'
    f'<{NS}m.02> <{NS}type.object.name> "Car\\rriage\\u200Bzero\\uFEFFwidth" .\n'
    f'<{NS}m.01> <{NS}film.\\u200Bdirected_by> <{NS}m.02> .\n'
    f'<{NS}m.02> <{NS}film.note> "lit\\nError: forged literal\\r\\u2060" .\n'
)
SHOWN = {
    FORGED: r"Line1\nError: fake line\twith tab",
    HIDDEN: r"Car\rriage\u200bzero\ufeffwidth",
    LITERAL: r"lit\nError: forged literal\r\u2060",
    PREDICATE: r"film.\u200bdirected_by",
}
INVISIBLE = re.compile("[\r\u200b\ufeff\u2060]")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lines")
    (root / "data.nt").write_text(DATA, encoding="utf-8")
    proc = run("load", "triples", root / "data.nt", "--store", root / "store")
    assert proc.returncode == 0, proc.stderr
    return root / "store"


COMMANDS = {
    "entity m.01": (["entity", "m.01"], [FORGED, PREDICATE, HIDDEN]),
    "entity m.02": (["entity", "m.02"], [HIDDEN, LITERAL, FORGED, PREDICATE]),
    "search forged": (["search", "line1"], [FORGED]),
    "search hidden": (["search", "car"], [HIDDEN]),
    "neighbors": (["neighbors", "m.01"], [FORGED, PREDICATE, HIDDEN]),
    "neighbors of a literal holder": (["neighbors", "m.02"], [HIDDEN, LITERAL]),
    "paths": (["paths", "m.01", "m.02"], [FORGED, PREDICATE, HIDDEN]),
    "predicates": (["predicates"], [PREDICATE]),
    "cypher": (["cypher", "MATCH (a:Entity)-[f:Fact]->(b) RETURN a.name, f.predicate, "
                "b.name, b.value, [a.name] AS listed"], [FORGED, PREDICATE, HIDDEN, LITERAL]),
}


def assert_no_forged_lines(proc: object, expected_errors: int = 0) -> None:
    stdout, stderr = proc.stdout, proc.stderr  # type: ignore[attr-defined]
    for name, text in (("stdout", stdout), ("stderr", stderr)):
        assert not INVISIBLE.search(text), f"{name} has raw {INVISIBLE.findall(text)!r}"
    errors = [line for line in (stdout + stderr).split("\n") if line.lstrip().startswith("Error")]
    assert len(errors) == expected_errors, stdout + stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_values_with_newlines_tabs_and_invisibles_stay_on_their_line(store: Path,
                                                                      command: str) -> None:
    args, values = COMMANDS[command]
    proc = run(*args, "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert_no_forged_lines(proc)
    for value in values:
        assert SHOWN[value] in proc.stdout, proc.stdout


def test_a_users_argument_in_an_error_stays_one_line(store: Path) -> None:
    proc = run("entity", "ab\rcd", "--store", store)
    assert proc.returncode == 1
    assert_no_forged_lines(proc, expected_errors=1)
    assert proc.stderr.split("\n")[0] == (r"Error: no entity with id or name 'ab\rcd', and no "
                                          "name or alias holds it")
    proc = run("entity", "ab\nError: cd\u200b", "--store", store)
    assert proc.returncode == 1
    assert_no_forged_lines(proc, expected_errors=1)
    assert proc.stderr.split("\n")[0] == (r"Error: no entity with id or name "
                                          r"'ab\nError: cd\u200b', and no name or alias holds it")
    proc = run("neighbors", "x\ry\nError: z", "--store", store)
    assert proc.returncode == 1
    assert_no_forged_lines(proc, expected_errors=1)
    assert r"'x\ry\nError: z'" in proc.stderr.split("\n")[0]


def test_a_users_argument_in_a_result_stays_one_line(store: Path) -> None:
    proc = run("search", "ab\nError: cd\r", "--store", store)
    assert proc.returncode == 0
    assert_no_forged_lines(proc)
    assert proc.stdout.strip().startswith(r"no entity name or alias holds 'ab\nError: cd\r' (")


def test_every_format_character_is_escaped() -> None:
    """Unicode category Cf (this Python's Unicode version) is invisible: all of it is
    shown as escapes, whatever the place."""
    format_chars = [chr(c) for c in range(sys.maxunicode + 1)
                    if unicodedata.category(chr(c)) == "Cf"]
    assert len(format_chars) > 150
    for char in format_chars:
        shown = visible(f"a{char}b")
        assert char not in shown and shown.startswith("a\\") and shown.endswith("b"), repr(char)
    assert visible("\U000e0041") == "\\U000e0041"   # a tag character: 8 hex digits


def test_one_line_and_field() -> None:
    assert visible("a\nb\tc\rd") == "a\nb\tc\\rd"           # the layout's own stay
    assert one_line("a\nb\tc\rd\u200b") == "a\\nb\\tc\\rd\\u200b"
    assert field("[bold]x\ny") == "\\[bold]x\\ny"
