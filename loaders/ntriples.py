"""A streaming N-Triples parser (W3C RDF 1.1 N-Triples, https://www.w3.org/TR/n-triples/).

Grammar implemented (productions numbered as in the Recommendation, section 7)::

    [1]    ntriplesDoc      ::= triple? (EOL triple)* EOL?
    [2]    triple           ::= subject predicate object '.'
    [3]    subject          ::= IRIREF | BLANK_NODE_LABEL
    [4]    predicate        ::= IRIREF
    [5]    object           ::= IRIREF | BLANK_NODE_LABEL | literal
    [6]    literal          ::= STRING_LITERAL_QUOTE ('^^' IRIREF | LANGTAG)?
    [144s] LANGTAG          ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*
    [7]    EOL              ::= [#xD#xA]+
    [8]    IRIREF           ::= '<' ([^#x00-#x20<>"{}|^`\\] | UCHAR)* '>'
    [9]    STRING_LITERAL_QUOTE ::= '"' ([^#x22#x5C#xA#xD] | ECHAR | UCHAR)* '"'
    [141s] BLANK_NODE_LABEL ::= '_:' (PN_CHARS_U | [0-9]) ((PN_CHARS | '.')* PN_CHARS)?
    [10]   UCHAR            ::= '\\u' HEX{4} | '\\U' HEX{8}
    [153s] ECHAR            ::= '\\' [tbnrf"'\\]
    [157s] PN_CHARS_BASE, [158s] PN_CHARS_U, [160s] PN_CHARS   (character classes below)

Space and tab may separate terms (and are optional, see the ``minimal_whitespace``
test); ``#`` starts a comment running to the end of the line. Two points where the
test suite is stricter than the grammar text, and we follow the test suite:

* IRIs must be absolute (have a scheme): ``nt-syntax-bad-uri-06..09``.
* ``PN_CHARS_U`` does not include ``:`` (as in Turtle): ``nt-syntax-bad-bnode-01/02``.

Also rejected: a ``\\u`` escape in an IRI that produces a character IRIREF forbids
(space, ``<`` ...), and lone surrogate code points (``\\uD800``); an escaped UTF-16
surrogate *pair* is combined into its character, as producers that escape via UTF-16
(JSON-style) write them.

Freebase dump lines (``<s>\\t<p>\\t<o>\\t.``) are ordinary N-Triples and take the fast
path. Performance: one precompiled regex matches a whole escape-free line (the vast
majority); a line with backslashes is matched by an escape-aware variant and then
unescaped; only blank, comment and malformed lines reach the token-by-token scanner,
which also produces the reason strings of :class:`NTriplesSyntaxError`. Bulk loaders
use :func:`iter_raw_triples` (plain strings) to skip building term objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kgstore.models import Literal
from kgstore.store import ProgressCallback
from loaders.errors import ParseReport
from loaders.sources import LineSyntaxError, iter_records

__all__ = [
    "IRI", "BlankNode", "Literal", "NTriplesSyntaxError", "ParseReport", "RawTriple", "Term",
    "Triple", "iter_raw_triples", "iter_triples", "parse_line", "parse_line_raw", "raw_to_terms",
]

PROGRESS_EVERY = 50_000
"""Lines between two progress callbacks."""


@dataclass(frozen=True, slots=True)
class IRI:
    """An IRI term; ``value`` is the unescaped, absolute IRI without ``<>``."""

    value: str

    def __str__(self) -> str:
        return f"<{self.value}>"


@dataclass(frozen=True, slots=True)
class BlankNode:
    """A blank node; ``label`` is the text after ``_:`` (scoped to its document)."""

    label: str

    def __str__(self) -> str:
        return f"_:{self.label}"


Term = IRI | BlankNode | Literal
Triple = tuple[IRI | BlankNode, IRI, Term]


class NTriplesSyntaxError(LineSyntaxError):
    """A line is not N-Triples. ``reason`` says why, starting with the 1-based column."""


# -- character classes (N-Triples productions [157s] [158s] [160s]) ----------------------
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
    "\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
    "\U00010000-\U000effff"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_"
_PN_CHARS = _PN_CHARS_U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_BNODE_LABEL = f"[{_PN_CHARS_U}0-9](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?"  # [141s] after '_:'
_IRI_CHAR = r'[^\x00-\x20<>"{}|^`\\]'  # [8] without UCHAR
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*:"  # RFC 3987 scheme: makes the IRI absolute
_LANG = r"[a-zA-Z]+(?:-[a-zA-Z0-9]+)*"  # [144s] after '@'
_WS = r"[ \t]*"

_UCHAR = r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"  # [10]
# [8] IRIREF body and [9] STRING_LITERAL_QUOTE body, written as "unrolled loops"
# (plain-run (escape plain-run)*) so the regex engine scans plain runs in one tight loop
# instead of trying an alternation per character.
_IRI_BODY = rf"{_IRI_CHAR}*(?:(?:{_UCHAR}){_IRI_CHAR}*)*"
_STRING_BODY = rf'[^"\\\r\n]*(?:(?:\\[tbnrf"\'\\]|{_UCHAR})[^"\\\r\n]*)*'
_ABS_IRI = f"{_SCHEME}{_IRI_BODY}"  # a scheme first: the IRI is absolute

# Fast path: a whole triple line in one match. Groups: 1 subject IRI, 2 subject bnode,
# 3 predicate, 4 object IRI, 5 object bnode, 6 string, 7 datatype, 8 lang. Escapes are
# validated by the regex but still need resolving (only when the line has a backslash).
_LINE = re.compile(
    rf"{_WS}(?:<({_ABS_IRI})>|_:({_BNODE_LABEL}))"
    rf"{_WS}<({_ABS_IRI})>"
    rf"{_WS}(?:<({_ABS_IRI})>|_:({_BNODE_LABEL})"
    rf'|"({_STRING_BODY})"(?:\^\^<({_ABS_IRI})>|@({_LANG}))?)'
    rf"{_WS}\.{_WS}(?:#.*)?\Z"
)
# The same without escapes: measurably faster on the escape-free lines that make up
# nearly all of a dump, so it is tried first.
_FAST = re.compile(
    rf"{_WS}(?:<({_SCHEME}{_IRI_CHAR}*)>|_:({_BNODE_LABEL}))"
    rf"{_WS}<({_SCHEME}{_IRI_CHAR}*)>"
    rf"{_WS}(?:<({_SCHEME}{_IRI_CHAR}*)>|_:({_BNODE_LABEL})"
    rf'|"([^"\\\r\n]*)"(?:\^\^<({_SCHEME}{_IRI_CHAR}*)>|@({_LANG}))?)'
    rf"{_WS}\.{_WS}(?:#.*)?\Z"
)
_IRI_GROUPS = (0, 2, 3, 6)  # indices into the groups tuple holding IRIs
_STRING_GROUP = 5

# Slow path: one token at a time, with a reason for every error.
_S_IRI = re.compile(f"<({_IRI_BODY})>")
_S_STRING = re.compile(f'"({_STRING_BODY})"')
_S_BNODE = re.compile(f"_:({_BNODE_LABEL})")
_S_LANG = re.compile(rf"@({_LANG})(?![A-Za-z0-9_\-])")
_S_END = re.compile(rf"{_WS}(?:#.*)?\Z")
_S_SCHEME = re.compile(_SCHEME)
_S_PREFIXED = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*:")
_S_NUMBER = re.compile(r"[+\-]?(?:[0-9]|\.[0-9])")
_S_BAD_IRI_CHAR = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'",
          "\\": "\\"}
_HEX = frozenset("0123456789abcdefABCDEF")
_SURROGATE = re.compile("[\ud800-\udfff]")

# A dump uses few distinct predicates, one per line; reusing their IRI objects saves an
# allocation per line. Bounded so memory stays flat.
_CACHE_LIMIT = 50_000
_iri_cache: dict[str, IRI] = {}


def _cached_iri(value: str) -> IRI:
    iri = _iri_cache.get(value)
    if iri is None:
        if len(_iri_cache) >= _CACHE_LIMIT:
            _iri_cache.clear()
        iri = _iri_cache[value] = IRI(value)
    return iri


RawTriple = tuple[
    str | None, str | None, str, str | None, str | None, str | None, str | None, str | None
]
"""A parsed line as plain strings, for hot loops that need no term objects:
``(subject_iri, subject_bnode, predicate_iri, object_iri, object_bnode, string,
datatype_iri, lang)``. Exactly one of each subject/object alternative is set (an object
literal sets ``string`` and at most one of ``datatype_iri``/``lang``); values are
unescaped, IRIs without ``<>``, blank nodes without ``_:``."""


def parse_line_raw(line: str) -> RawTriple | None:
    """Like :func:`parse_line` but returns a :data:`RawTriple` of strings.

    A well-formed line costs one regex match (plus escape resolution when it holds a
    backslash); blank, comment and malformed lines go through the scanner.
    """
    if line.endswith(("\n", "\r")):
        line = line.rstrip("\r\n")  # a trailing EOL ([7]) is allowed
    m = _FAST.match(line)
    if m is not None:
        return m.groups()  # type: ignore[return-value]  # the regex guarantees the shape
    if "\\" in line:
        m = _LINE.match(line)
        if m is not None:
            return _resolve_escapes(m)
    return _parse_slow(line)


def _resolve_escapes(m: re.Match[str]) -> RawTriple:
    """Unescape the IRI and string groups of a :data:`_LINE` match that has escapes."""
    groups = list(m.groups())
    for i in _IRI_GROUPS:
        value = groups[i]
        if value is not None and "\\" in value:
            value = _unescape(value, m.start(i + 1))
            bad = _S_BAD_IRI_CHAR.search(value)
            if bad is not None:
                raise _error(m.start(i + 1) - 1, f"escape in IRI produces {bad.group()!r}, "
                                                 "which IRIs may not contain")
            groups[i] = value
    string = groups[_STRING_GROUP]
    if string is not None and "\\" in string:
        groups[_STRING_GROUP] = _unescape(string, m.start(_STRING_GROUP + 1))
    return tuple(groups)  # type: ignore[return-value]


def parse_line(line: str) -> Triple | None:
    """Parse one N-Triples line into ``(subject, predicate, object)``.

    A trailing EOL is allowed. Returns ``None`` for an empty, whitespace-only or
    comment-only line. Literals are :class:`kgstore.models.Literal` with the unescaped
    value; ``"x"@en`` has ``lang="en"`` and no datatype (rdf:langString), an XSD
    datatype is shortened to ``xsd:...`` by Literal itself, and a literal without
    ``^^`` or ``@`` has neither.
    Raises :class:`NTriplesSyntaxError` (its ``reason`` names the column) for anything
    the grammar in the module docstring does not derive.
    """
    raw = parse_line_raw(line)
    return None if raw is None else raw_to_terms(raw)


def raw_to_terms(raw: RawTriple) -> Triple:
    """Build term objects from a :data:`RawTriple`."""
    s_iri, s_bnode, p, o_iri, o_bnode, string, datatype, lang = raw
    subject: IRI | BlankNode = IRI(s_iri) if s_iri is not None else BlankNode(s_bnode or "")
    obj: Term
    if o_iri is not None:
        obj = IRI(o_iri)
    elif string is not None:
        obj = Literal(string, datatype, lang)
    else:
        obj = BlankNode(o_bnode or "")
    return subject, _cached_iri(p), obj


# -- slow path ---------------------------------------------------------------------------
def _error(pos: int, message: str) -> NTriplesSyntaxError:
    return NTriplesSyntaxError(f"column {pos + 1}: {message}")


def _found(line: str, pos: int) -> str:
    """What is at ``pos``, for messages: a short quoted excerpt or 'the end of the line'."""
    if pos >= len(line):
        return "the end of the line"
    return repr(line[pos:pos + 12])


def _parse_slow(line: str) -> RawTriple | None:
    """Token-by-token parse of a line the fast regex did not match (escapes, odd
    spacing, or an error), producing precise reasons for errors."""
    pos = _skip_ws(line, 0)
    if pos == len(line) or line[pos] == "#":
        return None
    s_iri, s_bnode, pos = _subject(line, pos)
    predicate, pos = _predicate(line, _skip_ws(line, pos))
    o_iri, o_bnode, string, datatype, lang, pos = _object(line, _skip_ws(line, pos))
    pos = _skip_ws(line, pos)
    if not line.startswith(".", pos):
        c = line[pos:pos + 1]
        if c == ",":
            raise _error(pos, "object lists with ',' are Turtle, not N-Triples; "
                              "write one triple per line")
        if c == ";":
            raise _error(pos, "predicate lists with ';' are Turtle, not N-Triples; "
                              "write one triple per line")
        raise _error(pos, f"expected '.' to end the triple, found {_found(line, pos)}")
    if _S_END.match(line, pos + 1) is None:
        raise _error(pos + 1, f"unexpected {_found(line, pos + 1)} after the final '.' "
                              "(one triple per line; comments start with '#')")
    return s_iri, s_bnode, predicate, o_iri, o_bnode, string, datatype, lang


def _skip_ws(line: str, pos: int) -> int:
    """Position of the first non-space/tab character at or after ``pos``."""
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    return pos


def _not_nt(line: str, pos: int, role: str) -> NTriplesSyntaxError:
    """The error for a term that is not an IRI/blank node/literal, naming the Turtle
    construct it resembles so the user knows to convert the file."""
    rest = line[pos:]
    if rest.startswith(("@prefix", "@base", "PREFIX", "BASE", "prefix", "base")):
        return _error(pos, "@prefix/@base directives are Turtle, not N-Triples; "
                           "expand prefixed names to full <IRIs>")
    if rest.startswith(("[", "(")):
        return _error(pos, f"'{rest[0]}' (Turtle blank node/collection syntax) is not "
                           "N-Triples")
    if rest.startswith('"""') or rest.startswith("'''"):
        return _error(pos, "long strings (\"\"\"...\"\"\") are Turtle, not N-Triples")
    if rest.startswith("'"):
        return _error(pos, "single-quoted strings are Turtle; N-Triples strings use "
                           "double quotes")
    if _S_NUMBER.match(rest) or rest.startswith(("true", "false")):
        return _error(pos, f"bare numbers/booleans ({rest.split()[0]!r}) are Turtle; in "
                           "N-Triples write a quoted literal, e.g. "
                           '"1"^^<http://www.w3.org/2001/XMLSchema#integer>')
    if _S_PREFIXED.match(rest):
        return _error(pos, f"prefixed name {rest.split()[0]!r} is Turtle; write the full "
                           "IRI in <...>")
    return _error(pos, f"expected the {role}, found {_found(line, pos)}")


def _subject(line: str, pos: int) -> tuple[str | None, str | None, int]:
    """[3] subject ::= IRIREF | BLANK_NODE_LABEL  ->  (iri, bnode_label, end)"""
    if line.startswith("<", pos):
        iri, end = _iri(line, pos)
        return iri, None, end
    if line.startswith("_:", pos):
        label, end = _bnode(line, pos, " \t<")
        return None, label, end
    if line.startswith('"', pos) and not line.startswith('"""', pos):
        raise _error(pos, "a literal cannot be the subject")
    raise _not_nt(line, pos, "subject (an <IRI> or a _:blank node)")


def _predicate(line: str, pos: int) -> tuple[str, int]:
    """[4] predicate ::= IRIREF  ->  (iri, end)"""
    if line.startswith("<", pos):
        return _iri(line, pos)
    if line.startswith("_:", pos):
        raise _error(pos, "a blank node cannot be the predicate")
    if line.startswith('"', pos):
        raise _error(pos, "a literal cannot be the predicate")
    if line.startswith(("a ", "a\t"), pos):
        raise _error(pos, "'a' is Turtle shorthand; write "
                          "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>")
    raise _not_nt(line, pos, "predicate (an <IRI>)")


_ObjectParts = tuple[str | None, str | None, str | None, str | None, str | None, int]


def _object(line: str, pos: int) -> _ObjectParts:
    """[5] object ::= IRIREF | BLANK_NODE_LABEL | literal
    ->  (iri, bnode_label, string, datatype, lang, end)"""
    if line.startswith("<", pos):
        iri, end = _iri(line, pos)
        return iri, None, None, None, None, end
    if line.startswith("_:", pos):
        label, end = _bnode(line, pos, " \t.")
        return None, label, None, None, None, end
    if line.startswith('"', pos) and not line.startswith('"""', pos):
        string, datatype, lang, end = _literal(line, pos)
        return None, None, string, datatype, lang, end
    raise _not_nt(line, pos, "object (an <IRI>, a _:blank node or a \"literal\")")


def _iri(line: str, pos: int) -> tuple[str, int]:
    """[8] IRIREF at ``pos``, unescaped and required to be absolute -> (iri, end)."""
    m = _S_IRI.match(line, pos)
    if m is None:
        raise _iri_error(line, pos)
    value = m.group(1)
    if "\\" in value:
        value = _unescape(value, m.start(1))
        bad = _S_BAD_IRI_CHAR.search(value)
        if bad is not None:
            raise _error(pos, f"escape in IRI produces {bad.group()!r}, which IRIs may "
                              "not contain")
    if _S_SCHEME.match(value) is None:
        raise _error(pos, f"relative IRI <{value}>: N-Triples IRIs must be absolute "
                          "(start with a scheme such as http:)")
    return value, m.end()


def _iri_error(line: str, pos: int) -> NTriplesSyntaxError:
    """Explain why no IRIREF starts at ``pos`` (which holds '<')."""
    def escape(i: int, kind: str) -> int:
        raise _error(i, f"escape '\\{kind}' is not allowed in an IRI (only \\uXXXX and "
                        "\\UXXXXXXXX; percent-encode other characters)")

    def char(i: int, c: str) -> None:
        if _S_BAD_IRI_CHAR.match(c):
            what = "a space" if c == " " else repr(c)
            raise _error(i, f"{what} is not allowed in an IRI (percent-encode it, e.g. %20)")

    if not _walk_to(line, pos, ">", escape, char):
        raise _error(pos, "unterminated IRI: missing '>'")
    raise _error(pos, "invalid IRI")  # pragma: no cover - the regex accepts all else


def _walk_to(line: str, pos: int, close: str, escape: Callable[[int, str], int],
             char: Callable[[int, str], None] | None = None) -> bool:
    """Step through the token that starts at ``pos`` up to its closing ``close``
    (whether it was found): UCHARs are checked and skipped, another escape ``\\k`` goes
    to ``escape(i, k)`` (the index after it, or it raises), every other character to
    ``char`` (which raises for one the token may not hold)."""
    i = pos + 1
    while i < len(line):
        c = line[i]
        if c == close:
            return True
        if c == "\\":
            kind = line[i + 1:i + 2]
            if kind in ("u", "U"):
                _check_uchar(line, i)
                i += 6 if kind == "u" else 10
            else:
                i = escape(i, kind)
            continue
        if char is not None:
            char(i, c)
        i += 1
    return False


def _check_uchar(line: str, i: int) -> None:
    """Raise unless ``line[i:]`` starts with a well-formed [10] UCHAR."""
    width = 4 if line[i + 1] == "u" else 8
    digits = line[i + 2:i + 2 + width]
    if len(digits) < width or not _HEX.issuperset(digits):
        raise _error(i, f"invalid escape '{line[i:i + 2 + width]}': '\\{line[i + 1]}' needs "
                        f"{width} hex digits")


def _bnode(line: str, pos: int, followers: str) -> tuple[str, int]:
    """[141s] BLANK_NODE_LABEL at ``pos`` -> (label, end); ``followers`` are the
    characters that may come right after it."""
    m = _S_BNODE.match(line, pos)
    if m is None:
        raise _error(pos, "invalid blank node label: '_:' must be followed by a letter, "
                          "digit or '_'")
    end = m.end()
    if end < len(line) and line[end] not in followers:
        raise _error(end, f"character {line[end]!r} is not allowed in blank node label "
                          f"_:{m.group(1)}")
    return m.group(1), end


def _literal(line: str, pos: int) -> tuple[str, str | None, str | None, int]:
    """[6] literal ::= STRING_LITERAL_QUOTE ('^^' IRIREF | LANGTAG)?
    ->  (unescaped value, datatype IRI, language tag, end)"""
    m = _S_STRING.match(line, pos)
    if m is None:
        raise _string_error(line, pos)
    value = m.group(1)
    if "\\" in value:
        value = _unescape(value, m.start(1))
    end = m.end()
    if line.startswith("^^", end):
        if not line.startswith("<", end + 2):
            raise _error(end + 2, "the datatype after '^^' must be a full IRI in <...>")
        datatype, end = _iri(line, end + 2)
        return value, datatype, None, end
    if line.startswith("@", end):
        lm = _S_LANG.match(line, end)
        if lm is None:
            tag = (line[end:].split() or ["@"])[0]
            raise _error(end, f"invalid language tag {tag!r}: expected letters, then "
                              "'-'-separated letters/digits (e.g. @en, @en-GB)")
        return value, None, lm.group(1), lm.end()
    return value, None, None, end


def _string_error(line: str, pos: int) -> NTriplesSyntaxError:
    """Explain why no STRING_LITERAL_QUOTE starts at ``pos`` (which holds '"')."""
    def escape(i: int, kind: str) -> int:
        if kind and kind in _ECHAR:
            return i + 2
        raise _error(i, f"invalid escape '\\{kind}' in a string (allowed: \\t \\b \\n "
                        "\\r \\f \\\" \\' \\\\ \\uXXXX \\UXXXXXXXX)")

    if not _walk_to(line, pos, '"', escape):
        raise _error(pos, "unterminated string: missing the closing '\"'")
    raise _error(pos, "invalid string")  # pragma: no cover - the regex accepts all else


def _unescape(text: str, offset: int) -> str:
    """Resolve [10] UCHAR and [153s] ECHAR escapes (the caller's regex validated them;
    IRIs only ever contain UCHARs). ``offset`` locates ``text`` in the line for errors."""

    def one(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            return _ECHAR[m.group(3)]
        code = int(m.group(1) or m.group(2), 16)
        if code > 0x10FFFF:
            raise _error(offset + m.start(), f"escape {m.group()!r} is beyond U+10FFFF")
        return chr(code)

    out = _ESCAPE.sub(one, text)
    if _SURROGATE.search(out):
        # Escaped UTF-16 surrogate pairs become one character; a lone surrogate is no
        # character at all and could not be stored as UTF-8.
        try:
            out = out.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            raise _error(offset, "escape produces a lone surrogate code point "
                                 "(U+D800..U+DFFF), which is not a character") from None
    return out


# -- files -------------------------------------------------------------------------------
def iter_triples(
    path: str | Path,
    *,
    strict: bool = False,
    report: ParseReport | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[Triple]:
    """Stream the triples of an N-Triples file (plain, .gz, .bz2, .zst) as term objects.

    Counts go to ``report`` (``lines`` = physical lines, ``triples`` yielded,
    ``malformed`` skipped). A malformed line (syntax or invalid UTF-8) raises
    :class:`MalformedInputError` ``path:line: reason`` when ``strict``; otherwise it is
    counted, the first examples kept, and parsing goes on. Lone CRs split a line (EOL is
    ``[#xD#xA]+``, production [7]). ``progress("parsing NAME", bytes_read, file_size)``
    is called every :data:`PROGRESS_EVERY` lines and once at the end.
    Raises :class:`InputFileError` for missing or unreadable files.
    """
    for raw in iter_raw_triples(path, strict=strict, report=report, progress=progress):
        yield raw_to_terms(raw)


def iter_raw_triples(
    path: str | Path,
    *,
    strict: bool = False,
    report: ParseReport | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[RawTriple]:
    """:func:`iter_triples` yielding :data:`RawTriple` strings instead of term objects
    (what the bulk loader uses: it needs ids, not objects). The line loop is
    :func:`loaders.sources.iter_records`."""
    fast = _FAST.match

    def parse(line: str) -> RawTriple | None:
        m = fast(line)  # the inlined fast path of parse_line_raw: most dump lines
        if m is not None:
            return m.groups()  # type: ignore[return-value]  # the regex guarantees the shape
        return parse_line_raw(line)

    return iter_records(path, parse, strict=strict, report=report, progress=progress,
                        every=PROGRESS_EVERY, split_cr=True)
