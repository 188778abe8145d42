"""The vectorised stager's SQL checks must accept exactly what the W3C parser accepts
and take accepted lines apart as it does, for kept predicates and for dropped ones
(whose lines are checked, not mapped): literals whose string starts like a suffix or
ends in a character that joins the closing quote's grapheme, and randomly damaged
lines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from loaders.ntriples import NTriplesSyntaxError, parse_line_raw
from loaders.pipeline import LoadOptions
from loaders.vectorized import TabSyntax, VectorStager
from tests.loaders.test_freebase import (
    FB,
    XSD,
    fb,
    line,
    lit,
    python_reference,
    stage_with,
    write_lines,
)

DROPPED = "common.topic.notable_for"
PREDICATES = ["film.film.genre", "type.object.name", "common.topic.alias", DROPPED]


def parses(text: str) -> bool:
    try:
        return parse_line_raw(text) is not None
    except NTriplesSyntaxError:
        return False


def assert_agrees(tmp_path: Path, lines: list[str]) -> None:
    """Stage ``lines`` (small chunks, a dropped predicate) and compare with the Python
    parser: report, malformed lines, and every table without the dropped lines."""
    path = write_lines(tmp_path / "lines.nt", lines)
    options = LoadOptions(langs=("en",), bnode_scope="abc")
    stager = VectorStager(TabSyntax(), default_filter=[(DROPPED, "test")])
    got, report, counts = stage_with(stager, path, tmp_path / "stage", options)
    _, ref = python_reference(path, tmp_path, options)
    assert (report.lines, report.triples, report.malformed) == (ref.lines, ref.triples,
                                                               ref.malformed)
    assert report.examples == ref.examples
    # The Python path keeps every predicate: compare tables without the dropped lines.
    dropped = {t for t in lines if f"<{FB}{DROPPED}>" in t and parses(t)}
    assert counts.get("dropped_test", 0) == sum(t in dropped for t in lines)
    kept = write_lines(tmp_path / "kept.nt", [t for t in lines if t not in dropped])
    (tmp_path / "ref").rename(tmp_path / "ref-all")
    want, _ = python_reference(kept, tmp_path, options)
    assert got == want


LOOKALIKES = [
    lit("@ame", "@en"),                          # the first '"@' opens the string
    lit("@ame"),
    lit("^^<x:y>", "^^<http://ex.org/dt>"),     # the first '"^^<' opens the string
    lit("^^<x:y>", "@en"),
    lit("\\\"@en", "@fr"),                      # an escaped quote before '@'
    lit("a\\n\u0600", "@en"),                   # a prepend character before the quote
    lit("\u0600", "@en"),
    lit("\u0600"),
    lit("a\u0301", "@en"),                      # a combining mark before the quote
    lit("@", "@en"),
    lit(""),
    lit("", "@en"),
    lit("", f"^^<{XSD}int>"),
]


def test_literals_that_start_like_a_suffix(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [line(f"m.{i}", p, o) for i, o in enumerate(LOOKALIKES)
             for p in ("film.film.tagline", "type.object.name", DROPPED)]
    # Two chunks: the second meets the predicates in the cache (the dropped one early).
    monkeypatch.setenv("KGBENCH_CHUNK_BYTES", str(len("\n".join(lines)) // 2))
    assert_agrees(tmp_path, lines + lines)


OBJECTS = [
    fb("m.0x1"),
    "<http://example.org/a%20b?c=d#e>",
    lit("plain text"),
    lit("Name", "@en"),
    lit("Nom", "@fr-CA"),
    lit("1999-01-02", f"^^<{XSD}date>"),
    lit("v", f"^^<{XSD}string>"),
    lit('say \\"hi\\" \\\\ done\\n', "@en"),
    lit("tab\\there", ""),
    lit(""),
]
NOISE = ['"', "\\", "<", ">", " ", "{", "}", "|", "^", "`", "@", "\x00", "\x01", "\x1f",
         "\x7f", "é", "\uffff", "\\u0041", "\\n", '\\"', "\\\\", "^^<", '"@', "-", ":", "#",
         ".", "\t", "_:b", "ns/", "7", "@e7", "-x7", "en-", "\u0600", "\u0301"]


def damaged(rng: random.Random, text: str) -> str:
    """``text`` with one to three random insertions, deletions or replacements."""
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        op = rng.random()
        if op < 0.5:
            text = text[:i] + rng.choice(NOISE) + text[i:]
        elif op < 0.75:
            text = text[:i] + text[i + 1:]
        else:
            text = text[:i] + rng.choice(NOISE) + text[i + 1:]
    return text


@pytest.mark.parametrize("seed", range(4))
def test_damaged_lines_agree_with_the_python_parser(tmp_path: Path, seed: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    lines = []
    for i in range(3000):
        text = line(f"m.{i % 97}", rng.choice(PREDICATES), rng.choice(OBJECTS))
        lines.append(damaged(rng, text) if rng.random() < 0.6 else text)
    # Small chunks: after the first, predicates come from the cache, and lines of the
    # dropped one take the path that checks without mapping.
    monkeypatch.setenv("KGBENCH_CHUNK_BYTES", "20000")
    assert_agrees(tmp_path, lines)
    assert 300 < sum(not parses(t) for t in lines) < 1500
