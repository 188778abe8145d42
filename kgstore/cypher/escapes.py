"""Neo4j's ``\\uXXXX`` escapes, decoded where Neo4j decodes them: everywhere.

Neo4j 5 replaces every unicode escape in the whole query text *before* its lexer sees
it (``UnicodeEscapeReader`` in front of the Cypher 5 parser; the pre-parser that reads
``EXPLAIN``/``CYPHER`` options decodes the same way), so an escape is not just a
character inside a string: ``\\u002a/`` closes a comment, ``\\u0027`` closes a string,
``\\u000a`` ends a ``//`` comment (issue 32: ``/* \\u002a/ LOAD CSV ... // */ RETURN 1``
read /etc/passwd past a guard that lexed the raw text). Measured on Neo4j 5.26:

* a backslash starts an escape unless the character before it is a backslash that
  is not itself part of an escape or escaped (``\\\\u0041`` stays as it is, and so
  becomes the text ``\\u0041`` in a string; ``\\\\\\u0041`` is a backslash and ``A``);
* a decoded backslash (``\\u005c``) escapes nothing in this pass, but the lexer then
  reads it like a typed one (``'\\u005c'`` is an unterminated string);
* the four characters after ``\\u`` are read with Java's ``Integer.parseInt(s, 16)``:
  ``\\u+041`` and fullwidth or Arabic-Indic digits decode too (to ``A``), ``\\u-001``
  to U+FFFF; the pre-parser reads ``\\uu0041`` as ``A`` while the parser refuses it.

:func:`decode_neo4j_escapes` decodes what both readers decode alike (``\\u`` and four
ASCII hex digits) and raises :class:`~kgstore.cypher.lexer.LexError` for every other
``\\u``: where Neo4j's two readers disagree, or decode characters no one types, the
guard refuses rather than guess. LadybugDB decodes escapes only inside strings, as
part of the string (:mod:`kgstore.cypher.lexer` handles those).
"""

from __future__ import annotations

import string
from dataclasses import dataclass

__all__ = ["DecodedQuery", "EscapeError", "decode_neo4j_escapes"]

_HEX = frozenset(string.hexdigits)


class EscapeError(ValueError):
    """A ``\\u`` that is not followed by four ASCII hexadecimal digits."""


@dataclass(frozen=True)
class DecodedQuery:
    """The text Neo4j's lexer reads, and where the escapes were.

    ``escapes`` maps the index of each decoded character in ``text`` to the escape as
    written (``"\\u002a"``) and its 0-based offset in the original query."""

    text: str
    escapes: dict[int, tuple[str, int]]


def decode_neo4j_escapes(query: str) -> DecodedQuery:
    """``query`` with its ``\\uXXXX`` escapes decoded as Neo4j 5 decodes them before it
    lexes (see the module docstring); :class:`EscapeError` for a ``\\u`` that is not
    followed by four ASCII hexadecimal digits."""
    if "\\" not in query:
        return DecodedQuery(query, {})
    out: list[str] = []
    escapes: dict[int, tuple[str, int]] = {}
    escaped = False   # the last character was a backslash that escapes the next one
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if c == "\\" and not escaped and query.startswith("u", i + 1):
            digits = query[i + 2:i + 6]
            if len(digits) != 4 or not all(d in _HEX for d in digits):
                written = query[i:i + 6]
                shown = (written if written.isascii() and written.isprintable()
                         else ascii(written)[1:-1])
                raise EscapeError(
                    f"the escape {shown} at character {i + 1} is not \\u and four hexadecimal "
                    "digits; Neo4j decodes \\u escapes anywhere in the query, before it reads "
                    "it, and the read-only check refuses those it cannot decode with "
                    "certainty (write \\\\u for a backslash followed by u)")
            escapes[len(out)] = (query[i:i + 6], i)
            out.append(chr(int(digits, 16)))
            escaped = False
            i += 6
            continue
        escaped = c == "\\" and not escaped
        out.append(c)
        i += 1
    return DecodedQuery("".join(out), escapes)
