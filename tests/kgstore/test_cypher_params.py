"""Query parameters and the bounds of a passthrough query, against a real LadybugDB store.

Parameters: every value the engine cannot type (issue 18, findings C5, U5) is refused
with one line naming the parameter and the element, and every value that passes, the
engine returns unchanged. A ``$name`` without a value is refused (W4). The store's
``cypher`` caps the rows it turns into Python objects and stops a query at its
timeout (S3).
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from typing import Any

import pytest

from kgstore import Entity, Fact, open_store
from kgstore.cypher.params import (
    MAX_PARAMETER_DEPTH,
    check_parameters,
    json_nesting,
    parameters_for,
)
from kgstore.errors import QueryParameterError, QueryTimeoutError


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("params") / "kg"
    with open_store(path, create=True) as s:
        s.ingest([Entity("m.1", "One"), Entity("m.2", "Two"), Entity("m.3", "Three")],
                 [Fact("m.1", "p", "m.2"), Fact("m.2", "p", "m.3")])
    return path


REFUSED = [
    # (the JSON value of $p, a fragment of the one-line refusal); on the old code each
    # of these raised from inside the binding, crashed an assertion or came back changed
    ('[1, "a", null]', "$p[1] is a string, but $p already holds a number (element 0)"),
    ('[[1], ["a"]]', "$p[1][…] is a string"),
    ('[[1, 2], [3, "x"]]', "$p[1][1] is a string"),
    ('{"a": [1, "x"]}', "$p.a[1] is a string"),
    ('[true, 1]', "$p[1] is a number, but $p already holds a boolean"),
    ('[{"a": 1}, {"a": "x"}]', "$p[1].a is a string"),
    ('[{"a": 1}, {"b": 2}]', "the maps of a list must have the same keys"),
    ('[{}, {"a": 1}]', "keys a, but an earlier map of $p has none"),
    ('[[1], null]', "null among lists or maps"),
    ('[{"a": 1}, null]', "null among lists or maps"),
    ('[]', "the type of $p[…] cannot be told"),
    ('[null, null]', "the type of $p[…] cannot be told"),
    ('[[]]', "the type of $p[…][…] cannot be told"),
    ('{"a": null}', "the type of $p.a cannot be told"),
    ('{"a": {"b": []}}', "the type of $p.a.b[…] cannot be told"),
    ('9223372036854775808', "beyond a 64-bit integer"),
    ('-9223372036854775809', "beyond a 64-bit integer"),
    ('99999999999999999999999999', "beyond a 64-bit integer"),
    ('[1, 99999999999999999999]', "$p[1] is 99999999999999999999, beyond a 64-bit integer"),
    ('1e400', "$p is inf"),
    ('[NaN]', "$p[0] is nan"),
    ("[" * (MAX_PARAMETER_DEPTH + 1) + "1" + "]" * (MAX_PARAMETER_DEPTH + 1),
     f"more than {MAX_PARAMETER_DEPTH} deep"),
]


@pytest.mark.parametrize(("value", "fragment"), REFUSED)
def test_values_the_engine_cannot_take_are_refused(store_path: Path, value: str,
                                                   fragment: str) -> None:
    with open_store(store_path, read_only=True) as s:
        with pytest.raises(QueryParameterError) as info:
            s.cypher("RETURN $p AS x", {"p": json.loads(value)})
    message = str(info.value)
    assert fragment in message, message
    assert "\n" not in message


ACCEPTED = [
    "1", "-9223372036854775808", "9223372036854775807", "2.5", "-0.0", '"x"', "true", "null",
    "[1, 2, 3]", "[1, null]", "[null, 1]", "[true, false, null]", '["a", null]',
    "[[1], [2, 3]]", "[[], [1]]", "[[1], [null]]", "[[1, null]]", "{}", '{"a": 1, "b": "x"}',
    '{"a": {"b": {"c": 1}}}', '[{"a": 1}, {"a": null}]', '[{"a": []}, {"a": [1]}]',
    '{"a b": 1, "": 2}',
    "[" * MAX_PARAMETER_DEPTH + "1" + "]" * MAX_PARAMETER_DEPTH,
]


@pytest.mark.parametrize("value", ACCEPTED)
def test_values_that_pass_come_back_unchanged(store_path: Path, value: str) -> None:
    given = json.loads(value)
    with open_store(store_path, read_only=True) as s:
        assert s.cypher("RETURN $p AS x", {"p": given}).rows == [[given]]


def test_numbers_of_a_list_become_decimals(store_path: Path) -> None:
    with open_store(store_path, read_only=True) as s:
        assert s.cypher("RETURN $p AS x", {"p": [1, 2.5]}).rows == [[[1.0, 2.5]]]


@pytest.mark.parametrize("value", [
    [{"a": 1, "b": 2}, {"b": 3, "a": 4}],
    [[{"x": 1, "y": 2}], [{"y": 3, "x": 4}]],
    {"z": [{"d": 1, "c": 2}, {"c": 3, "d": 4}], "a": 1},
])
def test_maps_of_a_list_keep_their_values_whatever_the_key_order(
        store_path: Path, value: Any) -> None:
    """The engine matched the maps of a list by position: {"b": 3, "a": 4} after
    {"a": 1, "b": 2} came back as {"a": 3, "b": 4}."""
    with open_store(store_path, read_only=True) as s:
        (row,) = s.cypher("RETURN $p AS x", {"p": value}).rows
    assert row == [value]


def test_a_parameter_the_query_uses_must_be_given(store_path: Path) -> None:
    with open_store(store_path, read_only=True) as s:
        with pytest.raises(QueryParameterError, match=r"uses \$p but no value"):
            s.cypher("RETURN $p AS x")
        with pytest.raises(QueryParameterError, match=r"\$a, \$b"):
            s.cypher("RETURN $a AS x, $b AS y", {"c": 1})
        # in a string or a comment it is no parameter
        assert s.cypher("RETURN '$p' AS x // $q").rows == [["$p"]]


def test_unused_parameters_are_left_out() -> None:
    assert parameters_for("RETURN $a AS x", {"a": 1, "zz": [1, "mixed"]}) == {"a": 1}


def test_json_nesting_ignores_strings_and_does_not_recurse() -> None:
    assert json_nesting('[1, {"a": [2]}]') == 3
    assert json_nesting('["[[[", "\\"[{"]') == 1
    assert json_nesting("[" * 1_000_000) == 1_000_000  # json.loads: RecursionError
    assert json_nesting("plain text") == 0


def test_check_parameters_names_odd_names_on_one_line() -> None:
    with pytest.raises(QueryParameterError) as info:
        check_parameters({"a\nb": [1, "x"]})
    assert "$a\\nb[1]" in str(info.value)


# -- the bounds: rows and time ----------------------------------------------------------


def test_rows_past_the_cap_are_never_made(store_path: Path) -> None:
    """Finding S3: 3M rows took 20 s and 890 MB as Python lists; with a cap the store
    reads the first rows of the engine's result and says it was truncated."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with open_store(store_path, read_only=True) as s:
        result = s.cypher("UNWIND range(1, 3000000) AS x RETURN x", max_rows=10_000)
        exact = s.cypher("UNWIND range(1, 5) AS x RETURN x", max_rows=5)
    assert time.perf_counter() - started < 10
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 400, grown_mb
    assert result.truncated
    assert result.rows == [[i] for i in range(1, 10_001)]
    assert not exact.truncated and len(exact.rows) == 5


def _slow_query() -> str:
    """A cartesian product of 3^16 rows with a filter on each: minutes, on any store
    of three entities (a count alone the engine would take from the factor sizes)."""
    nodes = ", ".join(f"(a{i}:Entity)" for i in range(16))
    ids = " + ".join(f"a{i}.id" for i in range(16))
    return f"MATCH {nodes} WHERE {ids} = 'none' RETURN count(*) AS n"


def test_a_slow_query_is_stopped_at_its_timeout(store_path: Path) -> None:
    with open_store(store_path, read_only=True) as s:
        started = time.perf_counter()
        with pytest.raises(QueryTimeoutError, match="time limit of 1 s"):
            s.cypher(_slow_query(), timeout_s=1)
        assert time.perf_counter() - started < 5
        # the limit was for that query only: the store's own queries run on, unbounded
        assert s.cypher("MATCH (e:Entity) RETURN count(e) AS n").rows == [[3]]
        assert s.entity("m.1") is not None
