"""Bounds on the functions that build a value as large as an argument says.

LadybugDB 0.22 builds the whole value before anything else happens, outside its
buffer pool, and crashes (a segfault, no error) once a string reaches 2^32 bytes or a
list 2^32 elements (issue 32): ``RETURN size(repeat('A', 4294967296))`` and
``RETURN size(range(1, 5000000000))`` killed the process, ``repeat('AB', 2147483648)``
too; ``lpad('a', 500000000, 'b')`` took 3 GB and 20 s. Its functions that take a size
are ``repeat(s, n)``, ``lpad(s, n, pad)``, ``rpad(s, n, pad)`` and ``range(a, b[,
step])`` (``CALL show_functions()``; the others build values no larger than their
arguments). So the read-only check (:mod:`kgstore.cypher.guard`) lets them build at most
:data:`MAX_BUILT_CHARS` characters or :data:`MAX_RANGE_ELEMENTS` elements, with sizes
it can read: ``repeat`` and the pads take number literals (``repeat`` a string literal
too, since the length of a property is not known before it runs); ``range`` with
literal ends is bounded, and with computed ends (``range(0, size(l) - 1)``) it is
left to the engine, as are values grown step by step (``s + s``), which fail with
the engine's "buffer pool is full" rather than crash. ``kgbench serve`` runs Cypher
in worker processes with a memory limit for what gets past these bounds.

Neo4j 5.26 has no such functions: no ``repeat`` or pads, its ``range`` is lazy
(``size(range(1, 5000000000))`` answers at once), and a string grown past its heap
fails the query with an out-of-memory error the server survives.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgstore.cypher.lexer import Kind, Token

__all__ = ["LADYBUG_SIZE_FUNCTIONS", "MAX_BUILT_CHARS", "MAX_RANGE_ELEMENTS",
           "size_refusal"]

MAX_BUILT_CHARS = 1_000_000
"""The longest string ``repeat``, ``lpad`` and ``rpad`` may build."""
MAX_RANGE_ELEMENTS = 10_000_000
"""The longest list ``range`` with literal ends may build (80 MB of integers)."""

LADYBUG_SIZE_FUNCTIONS = frozenset({"repeat", "lpad", "rpad", "range"})
"""LadybugDB's functions whose result is as large as an argument says (lower case)."""


def size_refusal(name: str, args: Sequence[Sequence[Token]]) -> str | None:
    """Why the call ``name(args...)`` of a LadybugDB size function may build more than
    the bounds allow (``args`` are the tokens of each argument), or None when it may
    not. The engine reports wrong argument counts and types itself."""
    key = name.lower()
    if key in ("lpad", "rpad") and len(args) == 3:
        length = _integer(args[1])
        if length is None:
            return (f"the length of {key}(…) must be a number written in the query (at "
                    f"most {MAX_BUILT_CHARS:,}), so that the check can bound what it builds")
        if length > MAX_BUILT_CHARS:
            return f"{key}(…) would build {length:,} characters (at most {MAX_BUILT_CHARS:,})"
    elif key == "repeat" and len(args) == 2:
        text, count = _string(args[0]), _integer(args[1])
        if text is None or count is None:
            return ("repeat(…) takes a string literal and a number written in the query, "
                    "so that the check can bound what it builds (at most "
                    f"{MAX_BUILT_CHARS:,} characters)")
        if count < 0:   # LadybugDB reads it as a huge unsigned count
            return "repeat(…) takes a count of 0 or more"
        if len(text) * count > MAX_BUILT_CHARS:
            return (f"repeat(…) would build up to {len(text) * count:,} characters (at "
                    f"most {MAX_BUILT_CHARS:,})")
    elif key == "range" and len(args) in (2, 3):
        ends = [_integer(a) for a in args]
        if all(e is not None for e in ends):
            start, stop, step = ends[0], ends[1], ends[2] if len(ends) == 3 else 1
            assert start is not None and stop is not None and step is not None
            elements = (stop - start) // step + 1 if step else 0
            if elements > MAX_RANGE_ELEMENTS:
                return (f"range(…) would build a list of {elements:,} numbers (at most "
                        f"{MAX_RANGE_ELEMENTS:,}); count with a smaller range, or "
                        "aggregate over MATCH instead")
    return None


def _integer(tokens: Sequence[Token]) -> int | None:
    """The value of an argument that is an integer literal, optionally negated."""
    sign = 1
    if len(tokens) == 2 and tokens[0].is_symbol("-"):
        sign, tokens = -1, tokens[1:]
    if len(tokens) != 1 or tokens[0].kind is not Kind.NUMBER:
        return None
    text = tokens[0].text
    if not text.isdigit():
        return None
    return sign * (int(text) if len(text) <= 19 else 10**19)   # int() of 5,000 digits fails


def _string(tokens: Sequence[Token]) -> str | None:
    """The text of an argument that is one string literal, between its quotes and
    with its escapes as written (so at least as long as the string)."""
    if len(tokens) != 1 or tokens[0].kind is not Kind.STRING:
        return None
    return tokens[0].text[1:-1]
