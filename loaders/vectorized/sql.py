"""SQL building blocks of the vectorised stager: IRIs to ids (namespace prefixes), the
IRIREF grammar as one regular expression, datatypes and N-Triples string escapes, all
as the Python parser and :class:`~loaders.triples.TripleMapper` read them.
"""

from __future__ import annotations

import re

from kgstore.models import XSD
from loaders.pipeline import (
    FREEBASE_NS,
    sql_str,
)

_IRI_BAD = r'[\x00-\x20<>"{}|^`\\]'
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*:"
XSD_STRING = XSD + "string"
_ESCAPES = (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ("\\'", "'"),
            ("\\b", "\b"), ("\\f", "\f"))
SENTINEL = "\uffff"  # stands for an escaped backslash while the others are resolved


# -- SQL building blocks -----------------------------------------------------------------
def ordered_namespaces(namespaces: dict[str, str]) -> list[tuple[str, str]]:
    """Prefixes in the order SQL must test them: any prefix before the prefixes it
    extends (longest first), except that the Freebase namespace goes first when no
    other prefix extends it (it matches nearly every IRI of a Freebase dump)."""
    items = sorted(namespaces.items(), key=lambda kv: len(kv[0]), reverse=True)
    final = [kv for kv in items if kv[0] == FREEBASE_NS
             and not any(p != FREEBASE_NS and p.startswith(FREEBASE_NS) for p in namespaces)]
    return final + [kv for kv in items if kv not in final]


def iri_id_sql(col: str, namespaces: dict[str, str], *, bracketed: bool) -> str:
    """SQL turning the IRI in ``col`` (with ``<>`` when ``bracketed``) into an id as
    :meth:`TripleMapper.iri_id` does: the longest matching namespace prefix replaced
    (only when something follows it), else the IRI itself."""
    b = 1 if bracketed else 0
    whens = []
    for prefix, repl in ordered_namespaces(namespaces):
        start = len(prefix) + 1 + b
        rest = f"substr({col}, {start}, length({col}) - {len(prefix) + 2 * b})"
        value = rest if repl == "" else f"{sql_str(repl)} || {rest}"
        test = sql_str(("<" if b else "") + prefix)
        whens.append(f"WHEN starts_with({col}, {test}) AND length({col}) > "
                     f"{len(prefix) + 2 * b} THEN {value}")
    plain = f"substr({col}, 2, length({col}) - 2)" if b else col
    if not whens:
        return plain
    return f"(CASE {' '.join(whens)} ELSE {plain} END)"


IRI_RE = _SCHEME + "[^" + _IRI_BAD[1:] + "*"
"""An absolute IRI without escapes (N-Triples IRIREF body, [8], UCHARs excluded)."""
_IRI_PY = re.compile(IRI_RE)


def iri_ok_sql(col: str, *, bracketed: bool) -> str:
    """SQL: ``col`` is an absolute IRI (``<...>`` when ``bracketed``) without escapes
    or characters N-Triples forbids in IRIs (a regular expression: exact, not cheap)."""
    if bracketed:
        return f"regexp_full_match({col}, {sql_str('<' + IRI_RE + '>')})"
    return f"regexp_full_match({col}, {sql_str(IRI_RE)})"


def iri_ok_py(key: str, *, bracketed: bool) -> bool:
    """:func:`iri_ok_sql` in Python (the two must agree)."""
    if bracketed:
        if not (key.startswith("<") and key.endswith(">")):
            return False
        key = key[1:-1]
    return _IRI_PY.fullmatch(key) is not None


def datatype_sql(col: str) -> str:
    """SQL: the stored datatype of a full datatype IRI (``xsd:...``; xsd:string -> NULL)."""
    return (f"(CASE WHEN {col} = {sql_str(XSD_STRING)} THEN NULL "
            f"WHEN starts_with({col}, {sql_str(XSD)}) AND length({col}) > {len(XSD)} "
            f"THEN 'xsd:' || substr({col}, {len(XSD) + 1}, length({col}) - {len(XSD)}) "
            f"ELSE {col} END)")


def unescape_sql(col: str) -> str:
    """SQL resolving the ECHAR escapes of a string body; a result still holding a
    backslash had ``\\u``/``\\U`` or invalid escapes (the caller sends those lines to
    the Python parser). ``\\\\`` is replaced by a sentinel first, so ``\\\\n`` stays
    backslash + n."""
    expr = f"replace({col}, '\\\\', {sql_str(SENTINEL)})"
    for escaped, plain in _ESCAPES:
        expr = f"replace({expr}, {sql_str(escaped)}, {_chr(plain)})"
    return expr


def _chr(ch: str) -> str:
    return sql_str(ch) if ch.isprintable() else f"chr({ord(ch)})"


COMMON_LANGS = frozenset(
    "en fr de es it ja ru pt zh nl pl sv fi da no nb nn ko ar he iw tr cs hu ro el bg uk hr "
    "sr sk sl et lv lt fa hi th vi id ms ca eu gl cy ga is mk sq be ka hy az kk uz ta te bn "
    "ur mr ml kn gu pa si km lo my tl la eo af sw zh-hans zh-hant zh-tw zh-cn zh-hk pt-br "
    "en-gb en-us es-419 fr-ca sr-latn".split())
"""Language tags known to be valid, so most lines skip the language-tag regex."""
