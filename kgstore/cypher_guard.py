"""Guarding the read-only Cypher passthrough and the few names we must interpolate.

Two layers protect a store from ``kgbench cypher``: this lexical check, which gives a
clear message naming the offending clause, and the backend's own read-only
transaction, which catches whatever a lexical check cannot see (procedures, functions
with side effects).
"""

from __future__ import annotations

import re

from kgstore.errors import ReadOnlyQueryError

# Clauses that change data or schema in openCypher, Neo4j and LadybugDB/Kuzu dialects.
WRITE_CLAUSES = (
    "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY",
    "INSTALL", "LOAD EXTENSION", "ATTACH", "DETACH", "IMPORT", "EXPORT", "CHECKPOINT",
    "FOREACH", "BEGIN", "COMMIT", "ROLLBACK",
)
_WRITE_RE = re.compile(
    r"\b(" + "|".join(sorted({c.replace(" ", r"\s+") for c in WRITE_CLAUSES}, key=len,
                             reverse=True)) + r")\b",
    re.IGNORECASE,
)
# String literals, backquoted names and comments may contain write keywords harmlessly.
_STRIP_RE = re.compile(
    r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.DOTALL
)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}\Z")


def assert_read_only(query: str) -> None:
    """Raise :class:`ReadOnlyQueryError` if ``query`` contains a write clause outside
    strings and comments."""
    code = _STRIP_RE.sub(" ", query)
    m = _WRITE_RE.search(code)
    if m:
        clause = " ".join(m.group(1).upper().split())
        raise ReadOnlyQueryError(
            f"`{clause}` would modify the store; the cypher command runs read-only queries "
            "(MATCH ... RETURN). Load data with `kgbench load` instead."
        )


def check_identifier(name: str, what: str = "name") -> str:
    """Return ``name`` if it is a plain identifier safe to place in Cypher text.

    Labels, property names and variable names cannot be parameters, so the few that
    are built from input are validated here instead.
    """
    if not _IDENTIFIER.match(name):
        raise ValueError(f"invalid {what} {name!r}: use letters, digits and _ only")
    return name
