"""Typed records the store reads and writes.

These are plain dataclasses: cheap to build in hot loops (loaders create millions) and
backend-neutral. Boundary layers (CLI ``--json``, HTTP) turn them into dicts with
:func:`to_jsonable`.

Identifiers follow the source KG: Freebase MIDs in dotted form (``m.0abc``), Wikidata
``Q42``/``P57``, or any IRI-derived id for other domains. Predicates are plain string ids
(``film.film.directed_by``, ``P57``) with an optional readable label.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from typing import Literal as TypingLiteral

import pyarrow as pa
import pyarrow.compute as pc

XSD = "http://www.w3.org/2001/XMLSchema#"

_NUMERIC_TYPES = {
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort",
    "unsignedByte",
}
_FLOAT_TYPES = {"decimal", "double", "float"}


NORMALIZE_NAME_SQL = r"trim(regexp_replace(lower({x}), '\s+', ' ', 'g'), ' ')"
"""The same key as :func:`normalize_names` as a SQL expression (DuckDB), for bulk
import. Both lower-case with utf8proc and match whitespace with RE2, so they agree;
``tests/kgstore/test_models.py`` checks it on hostile strings. Known limit: letters of
scripts newer than DuckDB's Unicode tables (e.g. Garay, Unicode 16) are lower-cased by
pyarrow only, so their names match case-sensitively."""


def normalize_names(values: pa.Array) -> pa.Array:
    """Lookup keys for an Arrow string array: lower-cased, runs of ASCII whitespace
    collapsed to one space, leading/trailing spaces trimmed."""
    lowered = pc.utf8_lower(values)
    collapsed = pc.replace_substring_regex(lowered, pattern=r"\s+", replacement=" ")
    # Trim spaces only: engines disagree on which other characters are "whitespace".
    return pc.utf8_trim(collapsed, characters=" ")


KEPT_NAME_CHARS = 200
"""Longest text whose :func:`normalize_name` key is kept (names; not what a client
sends the server to look up, up to 2,048 characters a request)."""


def normalize_name(text: str) -> str:
    """Key used for name/alias lookup (see :func:`normalize_names`), kept per text up to
    :data:`KEPT_NAME_CHARS` characters: an Arrow array and three kernels for one string
    cost ~40 us, and generation asks for the same names question after question.

    ``normalize_name("  The  Godfather ")`` == ``normalize_name("the godfather")``.
    """
    return _kept_key(text) if len(text) <= KEPT_NAME_CHARS else _name_key(text)


def _name_key(text: str) -> str:
    return str(normalize_names(pa.array([text], type=pa.string()))[0].as_py())


# At most 32,768 texts of at most 200 characters: ~26 MB if every one were 4-byte
# characters, a few MB of real names.
_kept_key = functools.lru_cache(maxsize=1 << 15)(_name_key)


def short_datatype(datatype: str | None) -> str | None:
    """``http://www.w3.org/2001/XMLSchema#date`` -> ``xsd:date``; other IRIs unchanged."""
    if datatype and datatype.startswith(XSD):
        return "xsd:" + datatype[len(XSD):]
    return datatype


@dataclass(frozen=True, slots=True)
class Literal:
    """An RDF-style literal object: lexical value plus datatype *or* language tag.

    ``datatype`` is stored in short form (``xsd:date``) when it is an XSD type.
    ``key`` is a stable content hash, so the same literal is stored once however often
    it occurs.
    """

    value: str
    datatype: str | None = None
    lang: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "datatype", short_datatype(self.datatype))
        if self.lang is not None:
            object.__setattr__(self, "lang", self.lang.lower())

    @property
    def key(self) -> str:
        return literal_key(self.value, self.datatype, self.lang)

    def to_python(self) -> Any:
        """The value as a Python object where the datatype says how (else the string)."""
        local = (self.datatype or "").removeprefix("xsd:")
        try:
            if local in _NUMERIC_TYPES:
                return int(self.value)
            if local in _FLOAT_TYPES:
                return float(self.value)
            if local == "boolean":
                return self.value.strip() in ("true", "1")
            if local == "date":
                return _dt.date.fromisoformat(self.value[:10])
            if local == "dateTime":
                return _dt.datetime.fromisoformat(self.value.replace("Z", "+00:00"))
            if local == "gYear":
                return int(self.value[:5] if self.value.startswith("-") else self.value[:4])
        except ValueError:
            return self.value
        return self.value

    def __str__(self) -> str:
        if self.lang:
            return f'"{self.value}"@{self.lang}'
        if self.datatype:
            return f'"{self.value}"^^{self.datatype}'
        return f'"{self.value}"'


def literal_key(value: str, datatype: str | None, lang: str | None) -> str:
    """Content hash identifying a literal node (``lit:`` + 24 hex chars of SHA-1)."""
    digest = hashlib.sha1(
        f"{value}\x1f{datatype or ''}\x1f{lang or ''}".encode(), usedforsecurity=False
    ).hexdigest()
    return "lit:" + digest[:24]


Object = str | Literal
"""A fact's object: an entity id or a literal."""


@dataclass(slots=True)
class Entity:
    """A KG node. ``is_cvt`` marks nameless mediator nodes (Freebase CVTs, Wikidata
    statement nodes) that only exist to hold n-ary facts together."""

    id: str
    name: str | None = None
    aliases: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    is_cvt: bool = False
    description: str | None = None

    @property
    def label(self) -> str:
        """What to show a person: the name, else the id."""
        return self.name or self.id


@dataclass(frozen=True, slots=True)
class Fact:
    """One edge ``(subject, predicate, object)``; the object is an entity id or a Literal."""

    subject: str
    predicate: str
    object: Object

    @property
    def is_literal(self) -> bool:
        return isinstance(self.object, Literal)

    @property
    def object_key(self) -> str:
        """The stored id of the object node (entity id, or the literal's content key)."""
        return self.object.key if isinstance(self.object, Literal) else self.object


@dataclass(frozen=True, slots=True)
class Predicate:
    """A predicate id with its fact ``count`` and the names the data gives it: a
    ``label`` (Freebase ``type.object.name`` of the property, a Wikidata property
    label) and ``aliases`` (other names, e.g. Wikidata's "born in" for P19), sorted."""

    id: str
    label: str | None = None
    count: int = 0
    aliases: tuple[str, ...] = ()


@dataclass(slots=True)
class SourceRecord:
    """One loaded input, as recorded in the store's metadata."""

    file: str
    checksum: str
    format: str
    counts: dict[str, int] = field(default_factory=dict)
    loaded_at: str = ""
    status: str = "complete"


@dataclass(slots=True)
class StoreStats:
    backend: str
    location: str
    schema_version: int
    entities: int
    cvt_entities: int
    literals: int
    facts: int
    entity_facts: int
    literal_facts: int
    predicates: int
    sources: list[SourceRecord] = field(default_factory=list)


@dataclass(slots=True)
class Subgraph:
    """Entities and facts around a centre. ``hops`` maps each reached entity id to its
    distance from the centre(s) (a hop through a CVT counts as one). ``truncated`` says
    a fan-out cap dropped edges, so the result is a sample of the true neighbourhood."""

    entities: dict[str, Entity] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    hops: dict[str, int] = field(default_factory=dict)
    truncated: bool = False


EntityDetail = TypingLiteral["full", "lean", "brief"]
"""How much of each neighbour's record :meth:`kgstore.Store.adjacency` reads:
``"full"`` every field; ``"lean"`` no aliases or description (name, types and CVT flag
stay); ``"brief"`` the name and CVT flag only (no types either). A backend may return
more than asked; callers must not read the fields their level leaves out."""

ENTITY_DETAILS: tuple[EntityDetail, ...] = ("full", "lean", "brief")
"""The levels, most detailed first: a read at one level answers every later one."""


@dataclass(slots=True)
class Adjacency:
    """The facts at one entity (out and in, capped) with the entities at their other
    ends, so a graph walk needs no second lookup per neighbour."""

    facts: list[Fact] = field(default_factory=list)
    entities: dict[str, Entity] = field(default_factory=dict)
    truncated: bool = False


@dataclass(slots=True)
class FactPath:
    """A chain of facts linking two entities. Facts keep their stored direction, so a
    path may walk some of them backwards; ``nodes`` lists the entity ids visited, one
    fact per step. ``length`` is in hops: a step into a CVT and the step out of it are
    one (as in a neighbourhood); ``through_hub``: an intermediate entity has more facts
    than the walk read of it (:func:`kgstore.algorithms.subgraph.paths`)."""

    nodes: list[str]
    facts: list[Fact]
    length: int
    through_hub: bool = False


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, literals, tuples and dates -> JSON-ready dicts/lists/strings."""
    if isinstance(obj, Literal):
        out: dict[str, Any] = {"value": obj.value}
        if obj.datatype:
            out["datatype"] = obj.datatype
        if obj.lang:
            out["lang"] = obj.lang
        return out
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, _dt.date | _dt.datetime):
        return obj.isoformat()
    return obj


_JSON_SCALARS = (str, int, bool, type(None))


def json_ready(obj: Any) -> Any:
    """:func:`to_jsonable`, then what strict JSON has no words for made plain: NaN and
    infinite floats become ``None``, any other value (bytes, intervals, decimals from a
    Cypher result) its ``str``. What a ``--json`` document and an HTTP body hold."""
    def plain(value: Any) -> Any:
        if isinstance(value, _JSON_SCALARS):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return str(value)

    return plain(to_jsonable(obj))
