"""Splitting a Cypher query into tokens the way its engine does.

The read-only guard (:mod:`kgstore.cypher.guard`) decides on tokens, so it must see
comments, strings and backquoted names exactly where the engine sees them: a guard that
ends a comment where the engine does not checks text the engine ignores and misses text
the engine runs (issue 18: ``/* **/ ' */ COPY (...) TO '/tmp/x.csv'`` wrote a file).
Each dialect states its engine's lexical rules (:data:`LADYBUG`, :data:`NEO4J`); Neo4j
decodes ``\\uXXXX`` escapes in the whole text before it lexes, so its tokens are those of
the decoded text (:mod:`kgstore.cypher.escapes`), and an escape may only stand inside a
string or a backquoted name, where it is plainly part of a value. Where
the text is not plainly one thing to the engine (an unterminated comment, string or
name, an escape the engine rejects, a character outside strings that is neither ASCII
nor the engine's whitespace) :func:`tokenise` raises :class:`LexError`, and the guard
refuses the query rather than guess.
"""

from __future__ import annotations

import bisect
import string
import unicodedata
from dataclasses import dataclass
from enum import Enum

from kgstore.cypher.escapes import EscapeError, decode_neo4j_escapes

_DIGITS = frozenset(string.digits)
_HEX = frozenset(string.hexdigits)
_WORD_START = frozenset(string.ascii_letters + "_")
_WORD_PART = _WORD_START | _DIGITS
# Whitespace both engines' grammars list (tab, LF, VT, FF, CR, FS..US, space, and the
# Unicode spaces); LadybugDB adds U+180E. Outside this set only ASCII is read.
_SHARED_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_SYMBOLS = frozenset("()[]{}<>=!+-*/%^,.;:|&~")


class Kind(Enum):
    """What a token is; comments and whitespace make no tokens."""

    WORD = "word"      # a keyword or a plain identifier (ASCII)
    NAME = "name"      # a `backquoted` name; the token's text is the name itself
    STRING = "string"  # a string literal, quotes included
    NUMBER = "number"
    PARAM = "param"    # $name, $1 or $`name`; the text is what follows the $
    SYMBOL = "symbol"  # one punctuation character, or ".."


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str
    pos: int  # 0-based offset in the query (in Neo4j's decoded text, see tokenise)
    end: int  # offset just after the token

    def is_symbol(self, text: str) -> bool:
        return self.kind is Kind.SYMBOL and self.text == text


class LexError(ValueError):
    """The query cannot be split into tokens with certainty (see the module docstring)."""


@dataclass(frozen=True)
class LexRules:
    """An engine's lexical rules, as far as they decide what is code."""

    engine: str                        # for messages
    whitespace: frozenset[str]
    star_pairs_in_comments: bool       # LadybugDB: inside /* */ a '*' takes the next char
    any_char_escapes: bool             # Neo4j: a backslash escapes any character
    lone_cr_breaks_line_comment: bool  # LadybugDB: // ... must end at LF, CR LF or the end
    dollar_in_names: bool              # LadybugDB: '$' may continue an identifier
    numbers_take_letters: bool         # Neo4j: 0x1F, 1_000 (and invalid 1abc) are one token
    symbols: frozenset[str]
    escapes_before_lexing: bool = False  # Neo4j: \uXXXX is decoded in the whole text first


LADYBUG = LexRules(
    # LadybugDB (a Kuzu fork), src/antlr4/Cypher.g4: CypherComment is
    # '/*' ( ~[*] | '*' ~[/] )* '*/', so '**/' does not close a comment; strings accept
    # only \\ \' \" \b \f \n \r \t \xHH \uHHHH \UHHHHHHHH; names may contain '$'.
    engine="LadybugDB",
    whitespace=_SHARED_WHITESPACE | {"\u180e"},
    star_pairs_in_comments=True,
    any_char_escapes=False,
    lone_cr_breaks_line_comment=True,
    dollar_in_names=True,
    numbers_take_letters=False,
    symbols=_SYMBOLS,
)
NEO4J = LexRules(
    # Neo4j 5, Cypher5Lexer.g4: MULTI_LINE_COMMENT is '/*' .*? '*/' (the first '*/'
    # closes it), SINGLE_LINE_COMMENT '//' ~[\r\n]*, EscapeSequence '\\' . (any character).
    engine="Neo4j",
    whitespace=_SHARED_WHITESPACE,
    star_pairs_in_comments=False,
    any_char_escapes=True,
    lone_cr_breaks_line_comment=False,
    dollar_in_names=False,
    numbers_take_letters=True,
    symbols=_SYMBOLS | {"?"},
    escapes_before_lexing=True,
)

_LADYBUG_SIMPLE_ESCAPES = frozenset("\\'\"bBfFnNrRtT")


def tokenise(query: str, rules: LexRules, *, max_tokens: int | None = None) -> list[Token]:
    """Return the tokens of ``query`` under ``rules``; raise :class:`LexError` where the
    engine's reading of the text is not certain.

    With ``max_tokens``, stop after ``max_tokens + 1`` tokens: the caller refuses a query
    that long anyway, and a megabyte of ``1+1+...`` need not become a million tokens.

    Under rules that decode escapes before lexing (Neo4j), the tokens are those of the
    decoded text, and their positions are offsets in it."""
    if not rules.escapes_before_lexing:
        return _tokenise(query, rules, max_tokens)
    try:
        decoded = decode_neo4j_escapes(query)
    except EscapeError as exc:
        raise LexError(str(exc)) from None
    tokens = _tokenise(decoded.text, rules, max_tokens)
    if max_tokens is None or len(tokens) <= max_tokens:   # else refused for its length
        _check_escapes_in_values(tokens, decoded.text, decoded.escapes)
    return tokens


def _check_escapes_in_values(tokens: list[Token], text: str,
                             escapes: dict[int, tuple[str, int]]) -> None:
    """Refuse an escape that does not stand inside a string or a backquoted name (not
    as its quote): elsewhere it changes what the query says (ends a comment or a
    string, or spells a keyword), and Neo4j's pre-parser even reads a statement that
    starts with one from the wrong offset."""
    starts = [t.pos for t in tokens]
    for at, (written, raw_at) in escapes.items():
        k = bisect.bisect_right(starts, at) - 1
        t = tokens[k] if k >= 0 else None
        if (t is not None and t.kind in (Kind.STRING, Kind.NAME)
                and t.pos < at < t.end - 1):
            continue
        raise LexError(
            f"the escape {written} at character {raw_at + 1} stands for "
            f"{_describe(text[at])} outside a string or a `backquoted` name; Neo4j decodes "
            "\\u escapes before it reads the query, so there one changes what the query "
            "says (it may end a comment or a string): write the character itself")


def _tokenise(query: str, rules: LexRules, max_tokens: int | None) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(query)
    while i < n and (max_tokens is None or len(tokens) <= max_tokens):
        c = query[i]
        nxt = query[i + 1] if i + 1 < n else ""
        if c in rules.whitespace:
            i += 1
        elif c == "/" and nxt == "*":
            i = _block_comment_end(query, i, rules)
        elif c == "/" and nxt == "/":
            i = _line_comment_end(query, i, rules)
        elif c in "'\"":
            end = _string_end(query, i, rules)
            tokens.append(Token(Kind.STRING, query[i:end], i, end))
            i = end
        elif c == "`":
            end, name = _quoted_name(query, i)
            tokens.append(Token(Kind.NAME, name, i, end))
            i = end
        elif c == "$" and (nxt in _WORD_PART or nxt == "`"):
            if nxt == "`":
                end, name = _quoted_name(query, i + 1)
            else:
                end = _word_end(query, i + 1, rules)
                name = query[i + 1:end]
            tokens.append(Token(Kind.PARAM, name, i, end))
            i = end
        elif c in _WORD_START:
            end = _word_end(query, i, rules)
            tokens.append(Token(Kind.WORD, query[i:end], i, end))
            i = end
        elif c in _DIGITS or (c == "." and nxt in _DIGITS):
            end = _number_end(query, i, rules)
            tokens.append(Token(Kind.NUMBER, query[i:end], i, end))
            i = end
        elif c == "." and nxt == ".":
            tokens.append(Token(Kind.SYMBOL, "..", i, i + 2))
            i += 2
        elif c in rules.symbols:
            tokens.append(Token(Kind.SYMBOL, c, i, i + 1))
            i += 1
        else:
            raise LexError(
                f"character {i + 1} is {_describe(c)}, outside a string or a `backquoted` "
                "name: write keywords and names in plain ASCII (a name with other "
                "characters goes in backquotes)"
            )
    return tokens


def _describe(c: str) -> str:
    return f"U+{ord(c):04X} ({unicodedata.name(c, 'unnamed character')})"


def _block_comment_end(query: str, start: int, rules: LexRules) -> int:
    i, n = start + 2, len(query)
    while i < n:
        if query[i] == "*":
            if query.startswith("/", i + 1):
                return i + 2
            if rules.star_pairs_in_comments:
                i += 2  # the '*' and the character it takes, whatever that is
                continue
        i += 1
    raise LexError(f"the comment opened at character {start + 1} is not closed with */")


def _line_comment_end(query: str, start: int, rules: LexRules) -> int:
    i, n = start + 2, len(query)
    while i < n and query[i] not in "\r\n":
        i += 1
    if (rules.lone_cr_breaks_line_comment and query.startswith("\r", i)
            and i + 1 < n and query[i + 1] != "\n"):
        raise LexError(
            f"the // comment at character {start + 1} ends in a carriage return without a "
            "line feed, which LadybugDB does not read as the end of a comment"
        )
    return i


def _string_end(query: str, start: int, rules: LexRules) -> int:
    quote, i, n = query[start], start + 1, len(query)
    while i < n:
        c = query[i]
        if c == quote:
            return i + 1
        if c == "\\":
            i = _escape_end(query, i, start, rules)
        else:
            i += 1
    raise LexError(f"the string opened at character {start + 1} is not closed with {quote}")


def _escape_end(query: str, i: int, string_start: int, rules: LexRules) -> int:
    """End of the escape sequence that starts with the backslash at ``i``."""
    n = len(query)
    if i + 1 >= n:
        raise LexError(f"the string opened at character {string_start + 1} is not closed")
    if rules.any_char_escapes:
        return i + 2
    c = query[i + 1]
    if c in _LADYBUG_SIMPLE_ESCAPES:
        return i + 2
    for prefix, width in (("xX", 2), ("uU", 8), ("uU", 4)):
        digits = query[i + 2:i + 2 + width]
        if c in prefix and len(digits) == width and all(d in _HEX for d in digits):
            return i + 2 + width
    shown = query[i:i + 2] if query[i + 1].isprintable() else ascii(query[i:i + 2])[1:-1]
    raise LexError(
        f"the string opened at character {string_start + 1} has the escape {shown}, "
        f"which {rules.engine} does not accept (write \\\\ for a backslash)"
    )


def _quoted_name(query: str, start: int) -> tuple[int, str]:
    """(end, name) of the backquoted name at ``start``; a doubled backquote stands for
    one, in both engines."""
    parts: list[str] = []
    i = start
    while True:
        close = query.find("`", i + 1)
        if close < 0:
            raise LexError(f"the `name` opened at character {start + 1} is not closed with `")
        parts.append(query[i + 1:close])
        if not query.startswith("`", close + 1):
            return close + 1, "`".join(parts)
        i = close + 1


def _word_end(query: str, i: int, rules: LexRules) -> int:
    n = len(query)
    while i < n and (query[i] in _WORD_PART or (rules.dollar_in_names and query[i] == "$")):
        i += 1
    return i


def _number_end(query: str, i: int, rules: LexRules) -> int:
    n = len(query)
    part = _WORD_PART if rules.numbers_take_letters else _DIGITS

    def run(j: int) -> int:
        while j < n and query[j] in part:
            j += 1
        return j

    i = run(i)
    if i + 1 < n and query[i] == "." and query[i + 1] in _DIGITS:
        i = run(i + 1)
    # The exponent: Neo4j's letters were taken above, and a sign may follow its e/E;
    # LadybugDB's is e/E, an optional '-', digits.
    if rules.numbers_take_letters:
        if query[i - 1] in "eE" and query[i:i + 1] in ("+", "-") and query[i + 1:i + 2] in _DIGITS:
            i = run(i + 1)
    elif query[i:i + 1] in ("e", "E"):
        j = i + 2 if query[i + 1:i + 2] == "-" else i + 1
        if query[j:j + 1] in _DIGITS:
            i = run(j)
    return i
