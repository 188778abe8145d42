"""Query parameters, checked before the engine binds them.

LadybugDB's Python binding guesses a parameter's engine type from its value, and what it
cannot type ends badly (issue 18, findings C5 and U5): a traceback from inside the
binding (``[1, "a"]``: "invalid literal for int()"), a C++ assertion (``{"a": null}``),
an internal error ("a vector with ANY type": ``[]``, ``[null]``), a pybind11 cast
message (an integer beyond 64 bits), a list turned into text (``[[1], null]``), or,
silently, other values than were given: the maps of a list are matched by position, so
``[{"a": 1, "b": 2}, {"b": 3, "a": 4}]`` came back as ``[{"b": 1, "a": 2}, ...]``.

:func:`check_parameters` refuses what the engine cannot type, with one line that names
the parameter and the element, and passes maps with their keys sorted, so every map of
a list lists its keys in one order. :func:`json_nesting` measures the nesting of JSON
text without parsing it (Python's parser recurses, and fails on deep text with
RecursionError). The rules, all from LadybugDB 0.22's behaviour:

* integers fit INT64; floats are finite (JSON has no NaN or Infinity, ``1e400`` is one);
* nesting is at most :data:`MAX_PARAMETER_DEPTH` lists and maps deep;
* the elements of a list share one type (integers and floats mix: they become
  DOUBLE); lists of lists unify their elements, maps of a list have the same keys;
* ``null`` stands for a value of a known type: alone, in a list of scalars, or as a map
  value another map of the same list gives a type; not in a list of lists or maps, and
  not where no type is known at all (``[]``, ``[null]``, ``{"a": null}``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kgstore.cypher.guard import Dialect, parameter_names
from kgstore.errors import QueryParameterError

MAX_PARAMETER_DEPTH = 32
"""How deeply lists and maps may nest in a parameter: far beyond real data; the engine
itself fails from about 500 deep maps."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_UNKNOWN = "unknown"  # the type of null, and of the elements of an empty list
_Type = str | tuple[Any, ...]  # a scalar's name, ("list", element), ("map", ((key, type), ...))


def json_nesting(text: str) -> int:
    """How deeply ``[`` and ``{`` nest in JSON ``text`` (outside strings), read in one
    pass without recursion; for text that is not JSON, a number all the same."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(depth - 1, 0)
    return deepest


def check_parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as the engine should get them (maps with sorted keys); raise
    :class:`QueryParameterError` for a value the engine cannot take (module docstring)."""
    checked: dict[str, Any] = {}
    for name, value in params.items():
        if not isinstance(name, str) or not name:
            raise QueryParameterError(f"parameter name {name!r} is not a name: use text")
        where = f"${_printable(name)}"
        kind = _type_of(value, where, 0)
        unknown = _unknown_part(kind, where)
        if value is not None and unknown is not None:
            raise QueryParameterError(
                f"the type of {unknown} cannot be told (an empty list, or only nulls), and "
                "LadybugDB cannot bind a value without one: give at least one value of "
                "the type it stands for, or leave it out")
        checked[name] = _sorted_maps(value)
    return checked


def _describe(kind: _Type) -> str:
    if isinstance(kind, tuple):
        return "a list" if kind[0] == "list" else "a map"
    return {"number": "a number", "string": "a string", "bool": "a boolean",
            _UNKNOWN: "null"}.get(kind, f"a {kind}")


def _type_of(value: Any, where: str, depth: int) -> _Type:
    if value is None:
        return _UNKNOWN
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise QueryParameterError(
                f"{where} is {_short(value)}, beyond a 64-bit integer (from {INT64_MIN} to "
                f"{INT64_MAX}): pass a smaller number, or a float (1e30) or text")
        return "number"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QueryParameterError(
                f"{where} is {value}, which is not a number the engine can store (JSON has "
                "no NaN or Infinity, and 1e400 is beyond a double): pass a finite number, "
                "or null")
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple | Mapping):
        if depth >= MAX_PARAMETER_DEPTH:
            raise QueryParameterError(
                f"{where} nests lists and maps more than {MAX_PARAMETER_DEPTH} deep: "
                "flatten it")
        if isinstance(value, Mapping):
            return ("map", tuple(
                (str(k), _type_of(value[k], f"{where}.{_printable(str(k))}", depth + 1))
                for k in sorted(value, key=str)))
        return ("list", _element_type(value, where, depth))
    return type(value).__name__  # a date, bytes, ...: the engine's own conversions


def _element_type(items: list[Any] | tuple[Any, ...], where: str, depth: int) -> _Type:
    kind: _Type = _UNKNOWN
    first: dict[str, int] = {}  # the first index of each kind of element, for messages
    for i, item in enumerate(items):
        here = f"{where}[{i}]"
        item_kind = _type_of(item, here, depth + 1)
        first.setdefault(_describe(item_kind), i)
        if (item is None and isinstance(kind, tuple)) or (
                isinstance(item_kind, tuple) and "null" in first):
            raise QueryParameterError(
                f"{where} holds null among lists or maps (element {first['null']}), which "
                "LadybugDB turns into text: leave the nulls out")
        kind = _unify(kind, item_kind, here, where, first)
    return kind


def _unify(a: _Type, b: _Type, here: str, where: str, first: dict[str, int]) -> _Type:
    """The type of a list holding elements of types ``a`` (so far) and ``b`` (at
    ``here``); raise where the engine cannot give them one."""
    if a == _UNKNOWN:
        return b
    if b == _UNKNOWN or a == b:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0]:
        if a[0] == "list":
            return ("list", _unify(a[1], b[1], f"{here}[…]", where, {}))
        keys_a, keys_b = [k for k, _ in a[1]], [k for k, _ in b[1]]
        if keys_a != keys_b:
            raise QueryParameterError(
                f"{here} is a map with the keys {_keys(keys_b)}, but an earlier map of "
                f"{where} has {_keys(keys_a)}: the maps of a list must have the same keys")
        return ("map", tuple((k, _unify(ta, tb, f"{here}.{_printable(k)}", where, {}))
                             for (k, ta), (_, tb) in zip(a[1], b[1], strict=True)))
    shown = _describe(a)
    earlier = f" (element {first[shown]})" if shown in first else ""
    raise QueryParameterError(
        f"{here} is {_describe(b)}, but {where} already holds {shown}{earlier}: the "
        "elements of a list must have one type (numbers may mix integers and decimals)")


def _unknown_part(kind: _Type, where: str) -> str | None:
    """Where in a value of type ``kind`` the type is unknown, if anywhere."""
    if kind == _UNKNOWN:
        return where
    if isinstance(kind, tuple):
        if kind[0] == "list":
            return _unknown_part(kind[1], f"{where}[…]")
        for key, value_kind in kind[1]:
            found = _unknown_part(value_kind, f"{where}.{_printable(key)}")
            if found is not None:
                return found
    return None


def _sorted_maps(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _sorted_maps(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_sorted_maps(v) for v in value]
    return value


def _keys(keys: list[str]) -> str:
    return ", ".join(map(_printable, keys)) if keys else "none"


def _printable(name: str) -> str:
    """A name from the user's data on one line: control characters as escapes."""
    return name if name.isprintable() else ascii(name)[1:-1]


def _short(value: int) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}…{text[-6:]} ({len(text)} digits)"


def parameters_for(query: str, params: Mapping[str, Any] | None,
                   dialect: Dialect = "ladybug") -> dict[str, Any]:
    """The parameters ``query`` uses, checked (:func:`check_parameters`); raise
    :class:`QueryParameterError` for a ``$name`` of the query that ``params`` lacks
    (the engine would read it as null). Parameters the query does not use are left
    out. Check the query with :func:`~kgstore.cypher.guard.assert_read_only` first."""
    used = parameter_names(query, dialect)
    given = dict(params or {})
    missing = sorted(used - given.keys())
    if missing:
        shown = ", ".join(f"${_printable(n)}" for n in missing)
        raise QueryParameterError(
            f"the query uses {shown} but no value is given for "
            f"{'it' if len(missing) == 1 else 'them'}: pass every parameter it names")
    return check_parameters({name: value for name, value in given.items() if name in used})
