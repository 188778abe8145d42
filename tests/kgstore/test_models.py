"""Name keys: the Python lookup side and the SQL import side must agree exactly."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from kgstore.models import NORMALIZE_NAME_SQL, Literal, normalize_name, normalize_names

HOSTILE = [
    "The Godfather", "  the   GODFATHER  ", "Tab\tand\nnewline\r\nend", "École Normale",
    "ÅNGSTRÖM", "İstanbul", "Straße", "ΣΊΣΥΦΟΣ", "non\u00a0breaking", "\u2003em space\u2003",
    "", "   ", "日本 映画", "Ǆemal", "x\x0bvt\x0cff",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_sql_and_python_name_keys_agree(text: str) -> None:
    con = duckdb.connect()
    sql_key = con.execute(f"SELECT {NORMALIZE_NAME_SQL.format(x='?')}", [text]).fetchone()
    assert sql_key is not None
    assert sql_key[0] == normalize_name(text)


def test_name_key_examples() -> None:
    assert normalize_name("  The\tGodfather  II ") == "the godfather ii"
    assert normalize_name("ÉCOLE") == "école"
    assert normalize_names(pa.array(["A  B", None])).to_pylist() == ["a b", None]


def test_long_texts_get_the_same_key_and_are_not_kept() -> None:
    # What a client sends the server to look up (up to 2,048 characters) is keyed like
    # any name, but not kept: a client sending many long texts pins no memory.
    from kgstore import models

    for text in ("  Ab  " * 40, "Ǆ\t" * 150, "x" * 2048):
        assert len(text) > models.KEPT_NAME_CHARS
        before = models._kept_key.cache_info().currsize
        assert normalize_name(text) == normalize_names(pa.array([text])).to_pylist()[0]
        assert models._kept_key.cache_info().currsize == before
    short = "A  Short   Name"
    normalize_name(short)
    assert models._kept_key.cache_info().hits + models._kept_key.cache_info().currsize > 0
    assert normalize_name(short) == "a short name"


def test_literal_key_ignores_xsd_spelling() -> None:
    long = Literal("1999", "http://www.w3.org/2001/XMLSchema#gYear")
    short = Literal("1999", "xsd:gYear")
    assert long == short and long.key == short.key
    assert Literal("1999").key != short.key
    assert Literal("x", lang="EN").lang == "en"
