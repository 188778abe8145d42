"""The search rules of :mod:`kgstore.search_index`: folding (one definition in Arrow
for names, the same in Python for queries), and the Arrow index against a brute-force
reference of :func:`match_kind` and the ranking. Both backends answer by these rules
(``test_conformance.py``: ``test_search_*``)."""

from __future__ import annotations

import random
import unicodedata

import pyarrow as pa
import pytest

from kgstore.search_index import (
    MATCH_KINDS,
    EntitySearchIndex,
    fold,
    fold_texts,
    match_kind,
    read_index,
    write_index,
)


@pytest.mark.parametrize(("text", "key"), [
    ("Barack Obama", "barack obama"),
    ("  Zoë   SALDAÑA ", "zoe saldana"),
    ("O'Brien", "obrien"),
    ("U.S.", "us"),
    ("Straße", "strasse"),
    ("Łódź", "lodz"),
    ("Jean-Luc Godard", "jean luc godard"),
    ("Paris,   TEXAS", "paris texas"),
    ("ﬁlm Ⅻ", "film xii"),
    ("東京 タワー", "東京 タワー"),
    ("a\tb\nc\u200bd\u202ee", "a b c d e"),
    ("...", ""),
    ("", ""),
])
def test_fold(text: str, key: str) -> None:
    assert fold(text) == key
    assert fold_texts(pa.array([text]))[0].as_py() == key


def test_python_fold_agrees_with_arrow_on_every_known_character() -> None:
    # Every code point Python's Unicode tables assign, alone and between letters, plus
    # hostile mixtures: the query's key (Python) must be the names' key (Arrow).
    chars = [chr(c) for c in range(0x20, 0x30000)
             if not 0xD800 <= c < 0xE000 and unicodedata.category(chr(c)) != "Cn"]
    rng = random.Random(7)
    texts = chars + [f"a{c}b" for c in chars] + [
        "".join(rng.choice(chars) for _ in range(rng.randint(1, 12))) for _ in range(20_000)]
    arrow = fold_texts(pa.array(texts, pa.string())).to_pylist()
    wrong = [(t, a, fold(t)) for t, a in zip(texts, arrow, strict=True) if a != fold(t)]
    assert wrong == []


@pytest.mark.parametrize(("key", "query", "kind"), [
    ("barack obama", "barack obama", 0),
    ("barack obama", "obama", 1),
    ("barack obama", "bar", 1),
    ("barack obama", "barack ob", 1),
    ("barack obama", "ck ob", 2),
    ("barack obama", "bam", 2),
    ("barack obama", "obama barack", None),
    ("barack obama", "", None),
])
def test_match_kind(key: str, query: str, kind: int | None) -> None:
    assert match_kind(key, query) == kind


def _reference(rows: list[tuple[str, str, list[str], int]], query: str,
               limit: int) -> list[tuple[str, int, int]]:
    """The search, by brute force: best kind over name and aliases, then degree, id."""
    found = []
    for id, name, aliases, degree in rows:
        kinds = [k for text in (name, *aliases)
                 if (k := match_kind(fold(text), query)) is not None]
        if kinds:
            found.append((min(kinds), -degree, id))
    return [(id, kind, -neg) for kind, neg, id in sorted(found)[:limit]]


def _index(rows: list[tuple[str, str, list[str], int]]) -> EntitySearchIndex:
    return EntitySearchIndex.build(pa.table({
        "id": [r[0] for r in rows], "name": [r[1] for r in rows],
        "aliases": pa.array([r[2] for r in rows], pa.list_(pa.string())),
        "degree": pa.array([r[3] for r in rows], pa.int64())}))


SYLLABLES = ["ka", "lo", "mi", "ra", "ven", "to", "sa", "ri", "é", "o'", "mar", "ñ"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3)))


def test_index_answers_as_the_reference() -> None:
    rng = random.Random(11)
    rows = [(f"e{i:04d}", " ".join(_word(rng) for _ in range(rng.randint(1, 3))),
             [_word(rng) for _ in range(rng.randint(0, 2))], rng.choice([0, 1, 2, 5, 40]))
            for i in range(600)]
    index = _index(rows)
    queries = ["ka", "kalo", "lo", "a", "ar", "ven to", "o", "omar", "mi ra", "ri ka l",
               "zz", "amarka", "markalo", *(_word(rng) for _ in range(40)),
               *(fold(r[1])[1:5] for r in rows[:40])]
    for query in queries:
        for limit in (1, 5, 20, 1000):
            assert index.search(fold(query), limit) == _reference(rows, fold(query), limit), \
                (query, limit)


def test_long_query_words_beyond_the_suffix_length() -> None:
    rows = [("a", "Supercalifragilisticexpialidocious", [], 1),
            ("b", "Supercalifragilistic", [], 9)]
    index = _index(rows)
    assert index.search("califragilisticexpiali", 10) == [("a", 2, 1)]
    assert index.search("supercalifragilistic", 10) == [("b", 0, 9), ("a", 1, 1)]
    assert [MATCH_KINDS[k] for _, k, _ in index.search("alifragilis", 10)] == [
        "substring", "substring"]


def test_index_files_round_trip_and_stale_generation(tmp_path) -> None:
    index = _index([("x", "Barack Obama", ["Obama"], 3)])
    write_index(tmp_path, index, "gen-1")
    write_index(tmp_path, index, "gen-2")   # the older folder goes
    assert len(list(tmp_path.glob("search-index-*"))) == 1
    loaded = read_index(tmp_path, "gen-2")
    assert loaded is not None and loaded.search("obama", 5) == [("x", 0, 3)]
    assert read_index(tmp_path, "gen-1") is None   # built for another generation
    (tmp_path / "search-index.json").write_text("{not json")
    assert read_index(tmp_path, "gen-2") is None
