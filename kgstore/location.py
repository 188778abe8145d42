"""Store locations: a directory path (the embedded LadybugDB store) or a URI with a
scheme (``bolt://host:7687[/database]``: a Neo4j database).

A location is a ``str`` everywhere above the backends, never a ``Path``: ``Path``
folds ``bolt://host:7687`` into ``bolt:/host:7687``, which then reads as a relative
directory, so a load would create a folder ``./bolt:``. This module is the one place
that decides which kind a location is, so the CLI and the library agree; it also reads
the folded form as the URI it was, so that it is refused, not created.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from kgstore.errors import StoreError

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
"""URI schemes of a Neo4j database (the Neo4j driver's)."""

# An RFC 3986 scheme followed by ":/": "bolt://host" and also "bolt:/host" (what Path
# makes of it). Two characters at least, so that a Windows drive ("C:/data") stays a
# path; "./name:/x" is how a directory whose name ends in ":" is written.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]+):/")


class StoreLocationError(StoreError):
    """The location names no store this kgbench can open (a URI of a backend that is not
    available)."""


def location_scheme(location: str) -> str | None:
    """The URI scheme of ``location``, lower-cased (``"bolt"``, ``"neo4j+s"``,
    ``"file"``), or ``None`` for a filesystem path."""
    match = _SCHEME.match(location)
    return match.group(1).lower() if match else None


def is_uri(location: str) -> bool:
    """Whether ``location`` is a URI (``scheme://...``) rather than a directory path."""
    return location_scheme(location) is not None


def store_directory(location: str) -> Path | None:
    """The directory that holds the store at ``location`` (an embedded store), or
    ``None`` for a database on a server (a URI): what a caller that must keep its own
    files out of the store asks, instead of reading the location itself."""
    return None if is_uri(location) else Path(location)


def local_store_path(location: str | os.PathLike[str]) -> Path:
    """The directory of an embedded store at ``location``; :class:`StoreLocationError`
    for a URI, before anything is created. Takes a ``Path`` too, for the embedded
    backend's own callers: one folded from a URI (``bolt:/host``) is refused all the
    same."""
    text = os.fspath(location)
    scheme = location_scheme(text)
    if scheme is None:
        return Path(text)
    if scheme in NEO4J_SCHEMES and "://" not in text:
        raise StoreLocationError(
            f"{text}: a Neo4j location needs two slashes ({scheme}://host:7687); a "
            f"directory of that name is ./{text}")
    if scheme in NEO4J_SCHEMES:
        raise StoreLocationError(f"{text} is a Neo4j database; this needs a directory "
                                 "(an embedded store), e.g. --store ./kg")
    raise StoreLocationError(
        f"{text}: no backend reads {scheme}:// locations; use a directory path for the "
        f"embedded store (e.g. --store ./kg; a directory of that name: ./{text}) or a "
        "Neo4j URI (bolt://host:7687, neo4j://host:7687, neo4j+s://host)")


def is_neo4j(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` names a Neo4j database (``bolt://``, ``neo4j+s://``, ...):
    :class:`StoreLocationError` for any other URI, and for the folded form a ``Path``
    makes of one (``bolt:/host``)."""
    text = os.fspath(location)
    scheme = location_scheme(text)
    if scheme is None:
        return False
    if scheme in NEO4J_SCHEMES and text[len(scheme):].startswith("://"):
        return True
    local_store_path(text)   # raises: what is wrong with it
    return False


def checked_location(location: str) -> str:
    """``location`` when some backend can open it: a directory path, or a Neo4j URI
    without credentials in it; :class:`StoreLocationError` (one line, nothing created)
    otherwise. The CLI checks ``--store`` with this before anything runs."""
    if is_neo4j(location):
        from kgstore.backends.neo4j.connection import parse_location

        try:
            parse_location(location)
        except StoreError as exc:
            raise StoreLocationError(str(exc)) from None
    return location
