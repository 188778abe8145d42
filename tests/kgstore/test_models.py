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


def test_literal_key_ignores_xsd_spelling() -> None:
    long = Literal("1999", "http://www.w3.org/2001/XMLSchema#gYear")
    short = Literal("1999", "xsd:gYear")
    assert long == short and long.key == short.key
    assert Literal("1999").key != short.key
    assert Literal("x", lang="EN").lang == "en"
