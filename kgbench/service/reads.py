"""The read endpoints: the store as JSON, with the command line's behaviour and bounds.

Each route is a thin shell over the functions ``kgbench stats / predicates / search /
entity / neighbors / paths / cypher`` call (:mod:`kgstore.lookup`, the
:class:`~kgstore.Store` methods); its work runs on a pooled read-only handle in a
worker thread with a wall-clock bound (:class:`~kgbench.service.deps.Reader`). The
caps that the command line leaves open (``--max-facts``, ``--limit``) are bounded
here: one request cannot ask for the whole graph. Cypher goes through the same
allow-list guard and parameter checks as ``kgbench cypher``, in the store's dialect,
and then runs in a worker process of its own (:mod:`kgbench.service.cypher_workers`),
never on the handles of the other reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from kgbench.service.deps import CypherWorkersDep, ReaderDep, SettingsDep, StorePoolDep
from kgbench.service.errors import ERROR_RESPONSES, ApiError
from kgbench.service.graphjson import graph_doc
from kgbench.service.jsonbody import JsonBody, json_body, record_fields
from kgbench.service.models import (
    CypherRequest,
    CypherResultModel,
    EntityPage,
    FactPage,
    LookupResult,
    MatchRequest,
    MatchResultModel,
    NeighborhoodResult,
    PathsResult,
    PredicateList,
    SearchResult,
    StatsModel,
)
from kgstore import Entity, Store
from kgstore.cypher.guard import assert_read_only
from kgstore.cypher.params import parameters_for
from kgstore.lookup import (
    entity_facts,
    fact_entity_ids,
    lookup_entity,
    path_document,
    resolve_entity,
    search_document,
)
from kgstore.models import json_ready

__all__ = ["MAX_FACTS", "MAX_PER_NODE", "VERSION", "router"]

try:
    VERSION = version("kgbench")
except PackageNotFoundError:   # run from a checkout that is not installed
    VERSION = "0.0.0"

MAX_PER_NODE = 1_000
MAX_FACTS = 10_000
MAX_OFFSET = 100_000
MAX_PATHS = 200
MAX_MATCHED_PREDICATES = 100
"""Predicates one facts filter may match (each is one read)."""
AMBIGUOUS_SHOWN = 5
SHORT_PAGE = 100
"""Facts a direction up to which a page of an entity's facts is a short read (its
store reads and its JSON are bounded small: :meth:`kgbench.service.deps.Reader.run`)."""

router = APIRouter(prefix="/api", tags=["reads"], responses=ERROR_RESPONSES)


class Health(BaseModel):
    status: str = Field(description="Always \"ok\" when the server answers.")
    backend: str = Field(description="The store's backend: ladybug or neo4j.")
    version: str
    auth: bool = Field(description="Whether the server has a token.")

SAME_AS_CLI: dict[str, Any] = {"response_model_exclude_unset": True}
"""Answers hold the fields the records give, as ``--json`` prints them (a literal
without a language has no ``lang``), not every optional field of the model. The routes
that return a :class:`~kgbench.service.jsonbody.JsonBody` built it so themselves."""

IdParam = Annotated[str, Query(min_length=1, max_length=2048,
                               description="An entity id (or an unambiguous name).")]


def _labels(store: Store, ids: Iterable[str]) -> dict[str, Any]:
    """``names`` (``id -> name``, ``None`` for a nameless one) and ``cvts`` (``id ->
    types`` of the mediator nodes among them) of the entities among ``ids`` that exist,
    read in one batch: what a listing of facts or paths needs to show a CVT as "CVT ·
    education.education" rather than a bare id."""
    found = store.entities(list(dict.fromkeys(ids)))
    return {"names": {i: e.name for i, e in found.items()},
            "cvts": {i: list(e.types) for i, e in found.items() if e.is_cvt}}


@router.get("/health", response_model=Health)
def health(conf: SettingsDep, pool: StorePoolDep) -> dict[str, Any]:
    """Whether the server is up, which backend it reads, and whether it has a token."""
    return {"status": "ok", "backend": pool.backend, "version": VERSION, "auth": conf.auth}


def _stats(store: Store, top: int) -> JsonBody:
    return json_body({**record_fields(store.stats()),
                      "top_predicates": store.predicates(limit=top) if top else []})


@router.get("/stats", response_model=StatsModel, **SAME_AS_CLI)
async def stats(reader: ReaderDep,
                top: Annotated[int, Query(ge=0, le=1000)] = 10) -> JsonBody:
    """What the store holds: counts, loaded sources, the ``top`` predicates."""
    return await reader.run(_stats, top)


@router.get("/predicates", response_model=PredicateList, **SAME_AS_CLI)
async def predicates(reader: ReaderDep,
                     limit: Annotated[int, Query(ge=1, le=10_000)] = 50) -> JsonBody:
    """Predicates with their fact counts, most frequent first."""
    return await reader.run(lambda s: json_body({"predicates": s.predicates(limit=limit)}))


@router.get("/search", response_model=SearchResult, **SAME_AS_CLI)
async def search(reader: ReaderDep,
                 q: Annotated[str | None, Query(min_length=1, max_length=256, description=(
                     "Words or part of a name or alias: `obama` finds Barack Obama."))] = None,
                 prefix: Annotated[str | None, Query(min_length=1, max_length=256,
                                                     description="The former name of `q`.")
                                   ] = None,
                 limit: Annotated[int, Query(ge=1, le=100)] = 20) -> JsonBody:
    """Named entities (no CVTs) whose name or alias matches ``q`` exactly, by the start
    of a word or as a substring, accents and case ignored; ranked by that, then by
    degree (``kgbench search``): autocomplete."""
    text = q if q is not None else prefix
    if text is None:
        raise ApiError(422, "q: a search needs some text", "pass ?q=NAME, e.g. ?q=obama")
    return await reader.run(lambda s: json_body(search_document(text, s.search(text, limit=limit))))


def _entity_page(store: Store, id: str, limit: int) -> JsonBody:
    entity = store.entity(id)
    if entity is None:
        raise ApiError(404, f"no entity with id {ascii(id[:200])}",
                       "find ids with /api/search?q=NAME or /api/lookup?q=NAME")
    doc = entity_facts(store, entity, limit)
    return json_body({**record_fields(doc),
                      **_labels(store, fact_entity_ids(doc.facts_out + doc.facts_in))})


@router.get("/entity", response_model=EntityPage, **SAME_AS_CLI)
async def entity(reader: ReaderDep, id: IdParam,
                 limit: Annotated[int, Query(ge=1, le=1000,
                                             description="Facts per direction.")] = 20
                 ) -> JsonBody:
    """An entity by exact id with its first facts out and in (sorted by predicate)
    and the names of the entities they reach; 404 when no entity has that id."""
    return await reader.run(_entity_page, id, limit, short=limit <= SHORT_PAGE)


def _lookup(store: Store, q: str, limit: int) -> JsonBody:
    found = lookup_entity(store, q)
    if not found.found:
        raise ApiError(404, f"no entity with id or name, and none whose name holds "
                       f"{ascii(q[:200])}", "check the spelling, or search for one word of it")
    docs = [entity_facts(store, e, limit) for e in found.entities]
    ids = [i for d in docs for i in fact_entity_ids(d.facts_out + d.facts_in)]
    ids += [e.id for e in found.entities]
    return json_body({"query": q, "matched_by": found.matched_by, "results": docs,
                      "candidates": found.candidates, **_labels(store, ids)})


@router.get("/lookup", response_model=LookupResult, **SAME_AS_CLI)
async def lookup(reader: ReaderDep,
                 q: Annotated[str, Query(min_length=1, max_length=2048,
                                         description="An id, a name, or words of a name.")],
                 limit: Annotated[int, Query(ge=1, le=1000,
                                             description="Facts per direction.")] = 20
                 ) -> JsonBody:
    """What ``kgbench entity Q --json`` shows: an exact id wins, else every entity
    with that name or alias, else what a search finds (one match, or candidates)."""
    return await reader.run(_lookup, q, limit)


def _resolve(store: Store, text: str, what: str) -> Entity:
    """An entity by id, else by unambiguous name (``kgbench neighbors`` and ``paths``
    accept both): 404 for none, 400 naming a few ids when several share the name."""
    found = resolve_entity(store, text)
    if found.entity is not None:
        return found.entity
    if found.matches:
        ids = ", ".join(e.id for e in found.matches[:AMBIGUOUS_SHOWN])
        raise ApiError(400, f"{what} {ascii(text[:200])} is ambiguous: it names "
                       f"{len(found.matches)} entities", f"pass one of the ids: {ids}")
    raise ApiError(404, f"no entity with id or name {ascii(text[:200])}",
                   "find candidates with /api/search?q=NAME")


def _matching_predicates(store: Store, text: str) -> list[str]:
    """The store's predicates whose id or label holds ``text`` (case ignored), by id;
    400 when there are more than :data:`MAX_MATCHED_PREDICATES`."""
    needle = text.strip().casefold()
    found = sorted(p.id for p in store.predicates()
                   if needle in p.id.casefold() or needle in (p.label or "").casefold())
    if len(found) > MAX_MATCHED_PREDICATES:
        raise ApiError(400, f"{ascii(text[:200])} is part of {len(found):,} predicates",
                       "type more of the predicate, e.g. directed_by")
    return found


def _facts(store: Store, id: str, direction: str, predicate: str | None, match: str,
           offset: int, limit: int) -> JsonBody:
    if store.entity(id) is None:
        raise ApiError(404, f"no entity with id {ascii(id[:200])}",
                       "find ids with /api/search?q=NAME")
    read = store.facts_out if direction == "out" else store.facts_in
    wanted = offset + limit + 1
    if predicate is None or match == "exact":
        window = read(id, predicate=predicate, limit=wanted)
    else:   # each matching predicate in turn: indexed reads, not a scan of a hub's facts
        window = []
        for name in _matching_predicates(store, predicate):
            window += read(id, predicate=name, limit=wanted - len(window))
            if len(window) >= wanted:
                break
    page = window[offset:offset + limit]
    return json_body({"id": id, "direction": direction, "predicate": predicate,
                      "offset": offset, "limit": limit, "more": len(window) > offset + limit,
                      "facts": page, **_labels(store, fact_entity_ids(page))})


@router.get("/facts", response_model=FactPage, **SAME_AS_CLI)
async def facts(reader: ReaderDep,
                id: Annotated[str, Query(min_length=1, max_length=2048)],
                direction: Literal["out", "in"] = "out",
                predicate: Annotated[str | None, Query(min_length=1, max_length=2048)] = None,
                match: Annotated[Literal["contains", "exact"], Query(
                    description="contains: predicates whose id or label holds `predicate`, "
                    "case ignored (`directed` finds film.film.directed_by); exact: that "
                    "id only.")] = "contains",
                offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
                limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> JsonBody:
    """One page of an entity's facts in one direction, optionally of the predicates
    ``predicate`` matches, in the store's order per predicate (predicates by id; pages
    are windows of it); ``more`` says later pages exist."""
    # A "contains" filter walks the store's predicate list in Python: not short.
    short = offset + limit <= SHORT_PAGE and (predicate is None or match == "exact")
    return await reader.run(_facts, id, direction, predicate, match, offset, limit,
                            short=short)


def _neighborhood(store: Store, id: str, hops: int, max_per_node: int,
                  max_facts: int) -> JsonBody:
    center = _resolve(store, id, "centre")
    sub = store.neighborhood(center.id, hops=hops, max_per_node=max_per_node,
                             max_facts=max_facts)
    missing = [i for i in fact_entity_ids(sub.facts) if i not in sub.entities]
    sub.entities.update(store.entities(missing))
    return json_body({"center": center.id, "hops": hops,
                      "graph": graph_doc(sub, center=center.id), "entities": sub.entities,
                      "facts": sub.facts, "distance": sub.hops, "truncated": sub.truncated})


@router.get("/neighborhood", response_model=NeighborhoodResult, **SAME_AS_CLI)
async def neighborhood(
        reader: ReaderDep, id: IdParam,
        hops: Annotated[int, Query(ge=0, le=3, description="A hop through a CVT counts once.")
                        ] = 1,
        max_per_node: Annotated[int, Query(ge=1, le=MAX_PER_NODE)] = 50,
        max_facts: Annotated[int, Query(ge=1, le=MAX_FACTS)] = 2000) -> JsonBody:
    """The ``hops``-hop neighbourhood of an entity (``kgbench neighbors --json``) and
    the same as graph JSON; fan-out caps keep hubs cheap (``truncated`` says they cut)."""
    return await reader.run(_neighborhood, id, hops, max_per_node, max_facts)


def _paths(store: Store, source: str, target: str, max_length: int, limit: int,
           exclude: list[str]) -> JsonBody:
    src = _resolve(store, source, "source")
    dst = _resolve(store, target, "target")
    found = store.paths(src.id, dst.id, max_length=max_length, limit=limit,
                        exclude_predicates=exclude)
    return json_body({"source": src.id, "target": dst.id, "max_length": max_length,
                      "exclude_predicates": exclude,
                      "paths": [path_document(p) for p in found],
                      # both ends named even when no path joins them
                      **_labels(store, [src.id, dst.id, *(n for p in found for n in p.nodes)])})


@router.get("/paths", response_model=PathsResult, **SAME_AS_CLI)
async def paths(reader: ReaderDep, source: IdParam, target: IdParam,
                max_length: Annotated[int, Query(
                    ge=1, le=3, description="Hops; a hop through a CVT counts once.")] = 3,
                limit: Annotated[int, Query(ge=1, le=MAX_PATHS)] = 20,
                exclude_predicate: Annotated[list[str], Query(
                    max_length=2048, description="Predicates (globs: `common.*`) whose facts "
                    "are not walked; repeat for more.")] = [],   # noqa: B006 (FastAPI copies it)
                ) -> JsonBody:
    """Short paths between two entities (``kgbench paths --json``), each once: facts
    walked either way, literals not used, a hop through a CVT counted once; paths
    through a hub last, then shorter first."""
    if len(exclude_predicate) > MAX_MATCHED_PREDICATES:
        raise ApiError(400, f"{len(exclude_predicate)} predicates to exclude",
                       f"exclude at most {MAX_MATCHED_PREDICATES} (globs cover many)")
    return await reader.run(_paths, source, target, max_length, limit, exclude_predicate)


@router.post("/match", response_model=MatchResultModel, **SAME_AS_CLI)
async def match(body: MatchRequest, reader: ReaderDep, conf: SettingsDep) -> dict[str, Any]:
    """Solutions of a triple-pattern query (a :class:`kgstore.PatternQuery` as JSON),
    at most ``limit`` (and the server's --max-rows); ``truncated`` says more exist."""
    try:
        query = body.record(conf.max_rows)
    except ValueError as exc:
        raise ApiError(400, f"invalid pattern query: {exc}",
                       "see MatchRequest in /api/docs") from None
    result = await reader.run(lambda s: s.match(query))
    doc: dict[str, Any] = json_ready(result)
    return doc


@router.post("/cypher", response_model=CypherResultModel, **SAME_AS_CLI)
async def cypher(body: CypherRequest, workers: CypherWorkersDep, conf: SettingsDep,
                 pool: StorePoolDep) -> dict[str, Any]:
    """A read-only Cypher query (the allow-list of ``kgbench cypher``: read clauses
    and catalogue calls only, and a plan the engine makes of reads only; a write is
    refused with 400). At most ``limit_rows`` rows (``truncated`` says there were
    more) and ``timeout_s`` seconds (then 504), each bounded by the server's
    --max-rows and --query-timeout. It runs in one of the server's Cypher worker
    processes, not on the handles of the other reads: 503 when none frees up within
    5 s, 400 when the query crashes its worker or needs more than --cypher-memory."""
    dialect = pool.dialect
    assert_read_only(body.query, dialect)
    params = parameters_for(body.query, body.params, dialect)
    limit_rows = min(body.limit_rows or conf.max_rows, conf.max_rows)
    timeout_s = min(body.timeout_s or conf.query_timeout_s, conf.query_timeout_s)
    return await workers.run(body.query, params, max_rows=limit_rows, timeout_s=timeout_s)
