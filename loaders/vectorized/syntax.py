"""How a chunk's lines become terms in SQL (step 2 of :mod:`loaders.vectorized`): the
Freebase dump's tab-separated layout (:class:`TabSyntax`) and general N-Triples by
regular expression (:class:`RegexSyntax`), each deciding which lines it fully
understands; the rest go to the Python parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from loaders.errors import InputFileError
from loaders.pipeline import (
    sql_str,
)
from loaders.vectorized.chunks import CSV_MAX_LINE, head_lines
from loaders.vectorized.sql import (
    COMMON_LANGS,
    IRI_RE,
    SENTINEL,
    datatype_sql,
    iri_id_sql,
    iri_ok_sql,
    unescape_sql,
)

_CSV_BUFFER = 16 << 20  # the unit of DuckDB's parallel CSV scan: several per chunk
_LANG_RE = "[a-zA-Z]+(-[a-zA-Z0-9]+)*"


class LineSyntax:
    """How a chunk's lines become terms in SQL (the part that depends on the layout).

    :meth:`source_sql` reads the chunk file: any columns :meth:`raw_sql` needs to give
    the line back, ``x`` (not NULL when the line has more fields than expected: then
    :meth:`raw_sql` gives only its start, and the line is looked up in the chunk), and
    ``p_key`` (the predicate as written: the key of the predicate cache).
    :meth:`terms_sql` parses a relation holding those columns and ``early`` (the
    predicate is known to be dropped: the line is checked, not mapped) into
    ``shape_ok`` (the line is understood, its predicate aside), ``sid``, ``okind``
    (``'E'`` entity, ``'L'`` literal), ``obj`` (entity id or unescaped value), ``dt``
    (stored datatype) and ``lang`` (lower case), passing every input column through.
    """

    bracketed_keys = True

    def source_sql(self, chunk: Path) -> str:
        raise NotImplementedError

    def terms_sql(self, src: str, namespaces: dict[str, str]) -> str:
        raise NotImplementedError

    def raw_sql(self) -> str:
        raise NotImplementedError

    def key_of(self, iri: str) -> str:
        """The ``p_key`` of predicate ``iri``."""
        return f"<{iri}>" if self.bracketed_keys else iri

    def fits(self, path: Path) -> bool:
        """Whether the first lines of ``path`` have the layout this syntax expects."""
        return True


_NULL_FIELD = "\x00\x03\x00"
"""``nullstr`` of the CSV reader: no real field equals it, so an empty field reads as ''
and NULL means a missing field."""


def _read_csv(chunk: Path, columns: Sequence[str], delim: str) -> str:
    """DuckDB's CSV reader over a chunk: the ``columns`` plus ``x``, the first extra
    field (lines with fewer fields get NULLs). Not ``strict_mode``: that disables the
    parallel scan; extra fields beyond ``x`` are dropped silently, which is why a line
    with ``x`` set is looked up again. Only invalid UTF-8 is rejected (with its line)."""
    cols = ", ".join(f"'{c}': 'VARCHAR'" for c in (*columns, "x"))
    return (f"read_csv({sql_str(str(chunk))}, delim={sql_str(delim)}, quote='', escape='', "
            f"header=false, auto_detect=false, columns={{{cols}}}, strict_mode=false, "
            f"new_line='\\n', store_rejects=true, max_line_size={CSV_MAX_LINE}, "
            f"buffer_size={_CSV_BUFFER}, null_padding=true, "
            f"nullstr={sql_str(_NULL_FIELD)})")


class TabSyntax(LineSyntax):
    """The Freebase dump layout, ``<s>\\t<p>\\t<o>\\t.``: DuckDB's CSV reader splits a
    line into four fields, string functions do the rest (regular expressions only for
    rare cases). A line with another shape goes to the Python parser."""

    def source_sql(self, chunk: Path) -> str:
        return f"(SELECT s, p, o, d, x, p AS p_key FROM {_read_csv(chunk, 'spod', chr(9))})"

    def fits(self, path: Path) -> bool:
        """Most of the first 100 data lines are four tab-separated fields."""
        try:
            lines = [ln for ln in head_lines(path, 100)
                     if ln.strip() and not ln.lstrip().startswith("#")]
        except (UnicodeDecodeError, OSError, InputFileError):
            return True  # the load itself reports what is wrong
        tabbed = sum(1 for ln in lines if ln.count("\t") == 3)
        return not lines or tabbed * 2 >= len(lines)

    def terms_sql(self, src: str, namespaces: dict[str, str]) -> str:
        sid = iri_id_sql("s", namespaces, bracketed=True)
        oid = iri_id_sql("o", namespaces, bracketed=True)
        known = ", ".join(sql_str(x) for x in sorted(COMMON_LANGS))
        dt_ok = iri_ok_sql("dt_iri", bracketed=False)
        unesc = unescape_sql("body")
        sentinel = sql_str(SENTINEL)
        # CASE rather than AND/OR around costly terms: DuckDB evaluates both sides of
        # AND/OR in a projection, a CASE branch only for the rows that take it. Lines
        # whose predicate is dropped (``early``) get the same checks, so what is dropped
        # and what is malformed is what the Python parser says; only mapping is skipped.
        return f"""
        SELECT *,
               CASE WHEN shape_ok AND NOT early THEN {sid} END AS sid,
               CASE WHEN NOT shape_ok OR early THEN NULL WHEN okind = 'E' THEN {oid}
                    WHEN form = 'B' THEN replace(value, {sentinel}, '\\') ELSE value END AS obj,
               CASE WHEN shape_ok AND dt_iri IS NOT NULL THEN {datatype_sql('dt_iri')} END AS dt,
               CASE WHEN shape_ok THEN lower(tag) END AS lang
        FROM (
          SELECT *, coalesce(d = '.' AND x IS NULL AND CASE
                 WHEN NOT {iri_ok_sql('s', bracketed=True)} THEN false
                 WHEN okind = 'E' THEN {iri_ok_sql('o', bracketed=True)}
                 WHEN okind = 'L' THEN CASE
                      WHEN q <= 1 THEN false
                      WHEN form = 'B' THEN NOT contains(value, '\\')
                           AND NOT contains(replace(replace(body, '\\\\', '_'), '\\"', ''), '"')
                           AND NOT contains(body, {sentinel})
                      ELSE NOT contains(body, '"') END
                      AND CASE WHEN tag IS NOT NULL THEN CASE WHEN lower(tag) IN ({known})
                                    THEN true ELSE regexp_full_match(tag, '{_LANG_RE}') END
                               WHEN dt_iri IS NOT NULL THEN {dt_ok}
                               ELSE q = length(o) END
                 ELSE false END, false) AS shape_ok
          FROM (
            SELECT *,
                   CASE form WHEN 'G' THEN substr(o, q + 2)
                        WHEN 'B' THEN CASE WHEN q > 1 AND substr(o, q + 1, 1) = '@'
                                           THEN substr(o, q + 2) END END AS tag,
                   CASE form WHEN 'T' THEN substr(o, q + 4, length(o) - q - 4)
                        WHEN 'B' THEN CASE WHEN q > 1 AND substr(o, q + 1, 3) = '^^<'
                                                AND ends_with(o, '>')
                                           THEN substr(o, q + 4, length(o) - q - 4) END
                        END AS dt_iri,
                   CASE WHEN form = 'B' THEN {unesc} ELSE body END AS value
            FROM (
              SELECT *, CASE WHEN q > 1 THEN substr(o, 2, q - 2) END AS body
              FROM (
                SELECT *, CASE form
                       WHEN 'P' THEN length(o)
                       WHEN 'T' THEN strpos(o, '"^^<')
                       WHEN 'G' THEN strpos(o, '"@')
                       WHEN 'B' THEN length(o) + 1 - strpos(reverse(o), '"')
                       ELSE 0 END AS q
                FROM (
                  SELECT *,
                         CASE WHEN starts_with(o, '"') THEN 'L'
                              WHEN starts_with(o, '<') THEN 'E' END AS okind,
                         CASE WHEN NOT starts_with(o, '"') THEN NULL
                              WHEN contains(o, '\\') THEN 'B'
                              WHEN ends_with(o, '"') THEN 'P'
                              WHEN ends_with(o, '>') THEN 'T'
                              ELSE 'G' END AS form
                  FROM {src}
                )
              )
            )
          )
        )"""

    def raw_sql(self) -> str:
        return "concat_ws(chr(9), s, p, o, d, x)"


class RegexSyntax(LineSyntax):
    """Generic N-Triples (any spacing): one ``regexp_extract`` with groups over each
    whole line without a backslash; lines with backslashes (escapes) and everything
    the expression does not match go to the Python parser."""

    bracketed_keys = False
    _LINE = (rf'^[ \t]*<({IRI_RE})>[ \t]*<({IRI_RE})>[ \t]*'
             rf'(?:(<{IRI_RE}>)|("[^"\\\r\n]*")'
             rf'(?:\^\^<({IRI_RE})>|@({_LANG_RE.replace("(", "(?:")}))?)'
             rf'[ \t]*\.[ \t]*(?:#.*)?$')
    """Groups in order: s, p, oi (IRI object with <>), ol (literal with quotes), dt, lang."""

    def source_sql(self, chunk: Path) -> str:
        groups = "['s', 'p', 'oi', 'ol', 'dt', 'lang']"
        return f"""(
          SELECT line, x, g.p AS p_key, g FROM (
            SELECT line, x, CASE WHEN x IS NULL AND NOT contains(line, '\\')
                        THEN regexp_extract(line, {sql_str(self._LINE)}, {groups}) END AS g
            FROM {_read_csv(chunk, ('line',), chr(1))}
          )
        )"""

    def terms_sql(self, src: str, namespaces: dict[str, str]) -> str:
        sid = iri_id_sql("g.s", namespaces, bracketed=False)
        oid = iri_id_sql("g.oi", namespaces, bracketed=True)
        return f"""
        SELECT *,
               CASE WHEN shape_ok THEN {sid} END AS sid,
               CASE WHEN shape_ok THEN CASE WHEN g.oi <> '' THEN 'E' ELSE 'L' END END AS okind,
               CASE WHEN NOT shape_ok THEN NULL WHEN g.oi <> '' THEN {oid}
                    ELSE substr(g.ol, 2, length(g.ol) - 2) END AS obj,
               CASE WHEN shape_ok AND g.dt <> '' THEN {datatype_sql('g.dt')} END AS dt,
               CASE WHEN shape_ok AND g.lang <> '' THEN lower(g.lang) END AS lang
        FROM (SELECT *, coalesce(g.s <> '', false) AS shape_ok FROM {src})"""

    def raw_sql(self) -> str:
        return "concat_ws(chr(1), line, x)"
