"""File paths handed to DuckDB and LadybugDB, which both read paths as glob patterns.

Paths are user text (the store location, input files): they never become SQL or
Cypher code. DuckDB takes them as prepared parameters (``read_parquet($files)``,
``COPY ... TO $path``, ``SET temp_directory = $dir``); LadybugDB cannot bind a path
(a string parameter of ``COPY``/``LOAD FROM`` means a DataFrame to scan), so
:func:`cypher_path` writes it as a string literal with the engine's backslash
escapes. Both engines then expand ``*``, ``?`` and ``[...]`` in the path, so a
directory named ``a[1]`` is not found and one named ``a*`` matches its siblings too:
:func:`glob_literal` puts each of those characters in a bracket class of its own
(``[[]``, ``[*]``, ``[?]``), which both engines read as the character itself.

Measured with DuckDB 2.0 and LadybugDB 0.22: quotes, spaces, non-ASCII, newlines,
tabs, ``%``, ``{`` and backslashes need nothing more; DuckDB cannot read a file whose
path holds a backslash *and* a glob character (it reads the backslash as an escape in
a pattern, whatever the escaping), so :func:`duckdb_read_path` refuses that one case
with a message rather than reading something else.
"""

from __future__ import annotations

from pathlib import Path

from kgstore.errors import StoreError

_GLOB_CHARS = frozenset("*?[")


def glob_literal(path: str | Path) -> str:
    """``path`` as a glob pattern that matches exactly that path."""
    return "".join(f"[{ch}]" if ch in _GLOB_CHARS else ch for ch in str(path))


def cypher_string(text: str) -> str:
    """``text`` as a LadybugDB (Cypher) string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def cypher_path(path: str | Path, pattern: str | None = None) -> str:
    """The Cypher literal for reading ``path`` (``COPY t FROM``, ``LOAD FROM``); with
    ``pattern`` (e.g. ``"*.parquet"``), the files matching it inside directory ``path``."""
    literal = glob_literal(path)
    return cypher_string(f"{literal}/{pattern}" if pattern else literal)


def duckdb_read_path(path: str | Path) -> str:
    """``path`` as a DuckDB reader parameter (``read_parquet``, ``read_csv``) that reads
    that one file. Raises :class:`StoreError` for a path DuckDB cannot read exactly."""
    text = str(path)
    if not _GLOB_CHARS.intersection(text):
        return text
    if "\\" in text:
        raise StoreError(
            f"{text}: DuckDB cannot read a file whose path holds both a backslash and one "
            "of '*', '?', '['; choose a --store (or input) path without them")
    return glob_literal(text)
