"""Data is printed as it is (issue 32, item 14): rich reads ``:x:`` as an emoji code
and ``[bold]`` as markup, so a passwd line ``root:x:0`` in a table showed as ``root❌0``.
Every human-readable output (tables, titles, trees, notes, errors, the progress
display) now shows names, ids, predicates, literals and file names with their
colons and brackets, through the real CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.kgbench.test_cli import run

ROOT_LINE = "root:x:0:0:root"
NAME = ":smile: [bold]Bold[/bold] :thumbs_up:"
PREDICATE = "people.p:x:q"
LITERAL = "[red]alarm[/red] :warning:"
FACTS = (f"m.01\t{PREDICATE}\tm.02\nm.02\tpeople.born_in\tm.03\n"
         f'm.03\tpeople.quote\t"{LITERAL}"\n')
NAMES = f"m.01\t{ROOT_LINE}\nm.02\t{NAME}\nm.03\tplain\n"
FILE_NAME = "kg:x:facts.tsv"

EMOJI = re.compile("[\u2600-\u27bf\U0001f300-\U0001faff]")
"""Emoji rich would put in place of the codes (❌ U+274C, 😄, 👍, ⚠)."""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("as-is")
    facts = root / FILE_NAME
    facts.write_text(FACTS, encoding="utf-8")
    (root / "names.tsv").write_text(NAMES, encoding="utf-8")
    proc = run("load", "triples", facts, "--names", root / "names.tsv",
               "--store", root / "store")
    assert proc.returncode == 0, proc.stderr
    return root / "store", proc.stdout + proc.stderr


def shown(proc_out: str) -> str:
    assert not EMOJI.search(proc_out), proc_out
    return proc_out


def test_load_shows_the_file_name_as_it_is(loaded: tuple[Path, str]) -> None:
    """The progress display, the per-file table and the summary name the file."""
    _, output = loaded
    assert FILE_NAME in shown(output)


COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "entity": (["entity", "m.01"], [ROOT_LINE, PREDICATE, NAME]),
    "entity with a literal": (["entity", "m.03"], [LITERAL]),
    "search": (["search", "root"], [ROOT_LINE]),
    "neighbors": (["neighbors", "m.01", "--hops", "2"], [ROOT_LINE, PREDICATE]),
    "paths": (["paths", "m.01", "m.03"], [ROOT_LINE, PREDICATE, NAME]),
    "predicates": (["predicates"], [PREDICATE]),
    "stats": (["stats"], [FILE_NAME]),
    "cypher": (["cypher", "MATCH (e:Entity) RETURN e.name AS `n:x:n` ORDER BY e.id"],
               ["n:x:n", ROOT_LINE, NAME]),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_table_shows_the_data_as_it_is(loaded: tuple[Path, str], command: str) -> None:
    store, _ = loaded
    args, expected = COMMANDS[command]
    proc = run(*args, "--store", store)
    assert proc.returncode == 0, proc.stderr
    output = shown(proc.stdout + proc.stderr)
    for text in expected:
        assert text in output, (text, output)


def test_messages_and_errors_show_the_data_as_it_is(loaded: tuple[Path, str]) -> None:
    store, _ = loaded
    proc = run("entity", ":x: [b]nothing[/b]", "--store", store)
    assert proc.returncode != 0
    assert ":x: [b]nothing[/b]" in shown(proc.stderr), proc.stderr
    proc = run("search", ":smile:", "--store", store)
    assert "':smile:'" in shown(proc.stdout + proc.stderr)
