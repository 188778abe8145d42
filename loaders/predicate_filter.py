"""Which predicates a load keeps: ordered glob rules over predicate ids, each keeping a
predicate or dropping it for a named reason (counted in the load report), applied the
same way in Python (:meth:`PredicateFilter.reason`) and in the vectorised loaders' DuckDB
SQL (:meth:`PredicateFilter.sql`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from loaders.pipeline import LoadOptions

__all__ = ["KEEP", "PredicateFilter", "sql_str"]

KEEP = ""
"""The reason of a keep rule in a :class:`PredicateFilter`."""


class PredicateFilter:
    """An ordered list of ``(pattern, reason)`` rules over predicate ids; the first
    matching rule decides: reason :data:`KEEP` keeps the predicate, any other reason
    drops it (counted under that reason). A predicate no rule matches is kept.

    Patterns are globs: ``*`` any run of characters, ``?`` one character; other
    characters (``[`` included) match themselves. :meth:`sql` compiles the same rules
    into a DuckDB expression, so the vectorised loaders and Python agree.
    """

    def __init__(self, rules: Iterable[tuple[str, str]]) -> None:
        self.rules = tuple((str(p), str(r)) for p, r in rules)
        self._cache: dict[str, str | None] = {}
        self._compiled = [(re.compile(_glob_regex(p)), r) for p, r in self.rules]

    @classmethod
    def for_options(cls, options: LoadOptions,
                    defaults: Iterable[tuple[str, str]] = ()) -> PredicateFilter:
        """The user's keep and drop patterns, then (if enabled) the format defaults."""
        rules = [(p, KEEP) for p in options.keep_predicates]
        rules += [(p, "option") for p in options.drop_predicates]
        if options.default_filter:
            rules += list(defaults)
        return cls(rules)

    def reason(self, predicate: str) -> str | None:
        """Why ``predicate`` is dropped, or None when it is kept."""
        try:
            return self._cache[predicate]
        except KeyError:
            pass
        verdict: str | None = None
        for regex, reason in self._compiled:
            if regex.fullmatch(predicate):
                verdict = reason or None
                break
        if len(self._cache) < 100_000:
            self._cache[predicate] = verdict
        return verdict

    def sql(self, column: str) -> str:
        """A DuckDB expression giving the drop reason of ``column`` (NULL = keep)."""
        if not self.rules:
            return "NULL::VARCHAR"
        parts = []
        for pattern, reason in self.rules:
            parts.append(f"WHEN {_glob_sql(column, pattern)} THEN "
                         f"{sql_str(reason) if reason else 'NULL'}")
        return f"(CASE {' '.join(parts)} ELSE NULL END)"


def _glob_regex(pattern: str) -> str:
    out = []
    for ch in pattern:
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
    return "".join(out)


def _glob_sql(column: str, pattern: str) -> str:
    if "?" not in pattern:
        stars = pattern.count("*")
        if stars == 0:
            return f"{column} = {sql_str(pattern)}"
        if stars == 1 and pattern.endswith("*"):
            return f"starts_with({column}, {sql_str(pattern[:-1])})"
        if stars == 1 and pattern.startswith("*"):
            return f"ends_with({column}, {sql_str(pattern[1:])})"
    return f"regexp_full_match({column}, {sql_str(_glob_regex(pattern))})"


def sql_str(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"
