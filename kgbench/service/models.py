"""The API's JSON shapes: pydantic models of the :mod:`kgstore` records (so OpenAPI
describes them), made from the records' own fields (:func:`record_model`), and the
request bodies of the POST reads.

Records become JSON through :func:`kgstore.models.json_ready`, the same as the
command line's ``--json``; routes declare these models as their response models,
so FastAPI checks every answer against its schema.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from kgstore import Entity, Fact, Predicate, SourceRecord, StoreStats
from kgstore import Literal as KgLiteral
from kgstore import patterns as pq

__all__ = ["CypherRequest", "CypherResultModel", "EntityFactsModel", "EntityModel",
           "EntityPage", "FactModel", "FactPage", "LiteralModel", "LookupResult",
           "MatchRequest", "MatchResultModel", "NeighborhoodResult", "PathModel",
           "PathsResult", "PredicateList", "PredicateModel", "SearchResult",
           "SourceModel", "StatsModel"]

Names = Annotated[dict[str, str | None], Field(
    description="The name of each entity the facts reach (null: nameless, e.g. a CVT).")]
Cvts = Annotated[dict[str, list[str]], Field(
    description="The CVTs (mediator nodes of n-ary facts) among those entities, with "
    "their types: show them as \"CVT · education.education\", not as a bare id.")]
MAX_ID_CHARS = 2048


def record_model(record: type, *, held: Mapping[type, type[BaseModel]] | None = None,
                 exclude: tuple[str, ...] = (), **extra: Any) -> type[BaseModel]:
    """The base of the model of dataclass ``record``: its fields in its order, typed as
    its JSON shows them (:func:`kgstore.models.json_ready`): tuples are lists, a record
    held is its model (``held``), a default factory a default. ``extra`` adds fields
    (``name=(type, default)``); ``exclude`` leaves fields out. The API's shapes follow
    the records instead of repeating them field by field; a subclass gives the model
    its name and its description."""
    hints = typing.get_type_hints(record)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        if f.name in exclude:
            continue
        kind = _json_type(hints[f.name], held or {})
        if f.default is not dataclasses.MISSING:
            default = list(f.default) if isinstance(f.default, tuple) else f.default
            fields[f.name] = (kind, default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (kind, f.default_factory())
        else:
            fields[f.name] = (kind, ...)
    return create_model(f"_{record.__name__}Fields", __module__=__name__,  # type: ignore[call-overload, no-any-return]
                        **fields, **extra)


def _json_type(kind: Any, held: Mapping[type, type[BaseModel]]) -> Any:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind in held:
        return held[kind]
    if origin in (tuple, list):
        return list[_json_type(args[0], held)]  # type: ignore[misc]
    if origin in (types.UnionType, typing.Union):
        return functools.reduce(operator.or_, (_json_type(a, held) for a in args))
    return kind


class LiteralModel(record_model(KgLiteral)):  # type: ignore[misc]
    """A literal object: its lexical value, and a datatype or a language tag."""

    def record(self) -> KgLiteral:
        return KgLiteral(self.value, self.datatype, self.lang)


class EntityModel(record_model(Entity)):  # type: ignore[misc]
    """A KG node; ``is_cvt`` marks nameless mediator nodes of n-ary facts."""


class FactModel(record_model(Fact, held={KgLiteral: LiteralModel})):  # type: ignore[misc]
    """One edge; ``object`` is an entity id or a literal."""


class PredicateModel(record_model(Predicate)):  # type: ignore[misc]
    """A predicate with its fact count and the names the data gives it."""


class SourceModel(record_model(SourceRecord)):  # type: ignore[misc]
    """One loaded input file."""


class StatsModel(record_model(StoreStats, held={SourceRecord: SourceModel},  # type: ignore[misc]
                              top_predicates=(list[PredicateModel], []))):
    """What the store holds (``kgbench stats --json``)."""


class PredicateList(BaseModel):
    predicates: list[PredicateModel]


class SearchMatch(BaseModel):
    """How one found entity matched (``exact``, ``word`` or ``substring``) and its
    degree (facts in and out): what it was ranked by."""

    id: str
    match: Literal["exact", "word", "substring"]
    facts: int


class SearchResult(BaseModel):
    query: str
    entities: list[EntityModel]
    matches: list[SearchMatch] = Field(
        description="One per entity, in the same order: how it matched and its degree.")


class EntityFactsModel(BaseModel):
    """An entity with its first facts out and in; ``more_*`` say more exist."""

    entity: EntityModel
    facts_out: list[FactModel]
    more_out: bool
    facts_in: list[FactModel]
    more_in: bool


class EntityPage(EntityFactsModel):
    """An entity by id, with the names of the entities its facts reach."""

    names: Names
    cvts: Cvts


class LookupResult(BaseModel):
    """``kgbench entity --json``: matched by id, by name (every namesake) or by prefix
    (one match, or several ``candidates``)."""

    query: str
    matched_by: Literal["id", "name", "search"]
    results: list[EntityFactsModel]
    candidates: list[EntityModel]
    names: Names
    cvts: Cvts


class FactPage(BaseModel):
    """A window of an entity's facts in one direction; ``more``: later pages exist."""

    id: str
    direction: Literal["out", "in"]
    predicate: str | None
    offset: int
    limit: int
    more: bool
    facts: list[FactModel]
    names: Names
    cvts: Cvts


class GraphNode(BaseModel):
    id: str
    label: str
    kind: Literal["entity", "cvt", "literal"]
    types: list[str] = []
    center: bool = False


class GraphEdge(BaseModel):
    id: str
    source: str
    target: str
    predicate: str
    label: str
    highlight: bool = False


class GraphJson(BaseModel):
    """A subgraph ready to draw: entities, CVTs and literals (one leaf per fact) as
    nodes, facts as edges; ``truncated``: a cap left some facts out."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = False


class NeighborhoodResult(BaseModel):
    """``kgbench neighbors --json`` plus the ``graph`` to draw."""

    center: str
    hops: int
    graph: GraphJson
    entities: dict[str, EntityModel]
    facts: list[FactModel]
    distance: dict[str, int]
    truncated: bool


class PathModel(BaseModel):
    length: int = Field(description="Hops; a hop through a CVT counts once.")
    through_hub: bool = Field(description="An intermediate entity has more facts than "
                              "the walk reads of one (a country, a gender).")
    nodes: list[str]
    facts: list[FactModel]


class PathsResult(BaseModel):
    source: str
    target: str
    max_length: int
    exclude_predicates: list[str]
    paths: list[PathModel]
    names: Names
    cvts: Cvts


# -- POST bodies ------------------------------------------------------------------------

class CypherRequest(BaseModel):
    """A read-only Cypher query with its parameters and bounds (each at most the
    server's own; leave them out for the server's)."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=100_000)
    params: dict[str, Any] = {}
    limit_rows: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)


class CypherResultModel(BaseModel):
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = Field(description="More rows existed than limit_rows.")


def _term(text: str) -> pq.Var | str:
    """``?name`` is a variable, anything else an id."""
    return pq.Var(text) if text.startswith("?") else text


Id = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]


class TriplePatternModel(BaseModel):
    """``subject predicate object``: ``?name`` is a variable, other text an id (entity
    or predicate); an object may also be a literal."""

    model_config = ConfigDict(extra="forbid")

    subject: Id
    predicate: Id
    object: Id | LiteralModel

    def record(self) -> pq.TriplePattern:
        obj = self.object.record() if isinstance(self.object, LiteralModel) else _term(self.object)
        return pq.TriplePattern(_term(self.subject), _term(self.predicate), obj)


class ConstraintModel(BaseModel):
    """A filter on variable ``var``: ``not_equal`` (``value``), ``not_in``
    (``values``), ``has_type`` (``type_id``), ``is_cvt`` / ``is_entity`` (``value``:
    true or false)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["not_equal", "not_in", "has_type", "is_cvt", "is_entity"]
    var: Id
    value: Id | LiteralModel | bool | None = None
    values: list[Id | LiteralModel] = Field(default=[], max_length=1000)
    type_id: Id | None = None

    def record(self) -> pq.NotEqual | pq.NotIn | pq.HasType | pq.IsCvt | pq.IsEntity:
        var = pq.Var(self.var)
        if self.kind == "has_type":
            if self.type_id is None:
                raise ValueError("has_type needs type_id")
            return pq.HasType(var, self.type_id)
        if self.kind == "not_in":
            return pq.NotIn(var, tuple(v.record() if isinstance(v, LiteralModel) else v
                                    for v in self.values))
        if self.kind in ("is_cvt", "is_entity"):
            flag = True if self.value is None else self.value
            if not isinstance(flag, bool):
                raise ValueError(f"{self.kind} takes value true or false")
            return pq.IsCvt(var, flag) if self.kind == "is_cvt" else pq.IsEntity(var, flag)
        if self.value is None or isinstance(self.value, bool):
            raise ValueError("not_equal needs a value (an id, ?variable or literal)")
        value = self.value.record() if isinstance(self.value, LiteralModel) else _term(self.value)
        return pq.NotEqual(var, value)


class MatchRequest(BaseModel):
    """A :class:`kgstore.PatternQuery` as JSON. Example: ``{"patterns": [{"subject":
    "?film", "predicate": "film.film.directed_by", "object": "?d"}], "limit": 10}``."""

    model_config = ConfigDict(extra="forbid")

    patterns: list[TriplePatternModel] = Field(min_length=1, max_length=16)
    constraints: list[ConstraintModel] = Field(default=[], max_length=64)
    select: list[Id] | None = None
    limit: int | None = Field(default=None, ge=1)

    @field_validator("select")
    @classmethod
    def _variables(cls, select: list[str] | None) -> list[str] | None:
        for name in select or ():
            if not name.startswith("?"):
                raise ValueError(f"select names variables (?name), not {name!r}")
        return select

    def record(self, max_rows: int) -> pq.PatternQuery:
        """The query, its ``limit`` at most ``max_rows``; ``ValueError`` when it is
        not a valid pattern query."""
        limit = min(self.limit or max_rows, max_rows)
        return pq.PatternQuery(
            patterns=tuple(p.record() for p in self.patterns),
            constraints=tuple(c.record() for c in self.constraints),
            select=tuple(pq.Var(v) for v in self.select) if self.select is not None else None,
            limit=limit)


class MatchResultModel(BaseModel):
    variables: list[str]
    bindings: list[dict[str, str | LiteralModel]]
    truncated: bool
