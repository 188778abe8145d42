"""Finding the entity a person means: by exact id, else by name or alias (names are
shared: "Paris" is a city and a film), else by a search of words and parts of names
(:meth:`~kgstore.store.Store.search`: ``obama`` finds Barack Obama); and an entity with
a first page of its facts. Built on the :class:`~kgstore.store.Store` primitives, so every
backend answers the same way, and printing nothing (the command line's ``entity``,
``neighbors`` and ``paths`` and a future service share it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from typing import Literal as TypingLiteral

from kgstore.models import Entity, Fact, FactPath
from kgstore.search_index import SearchHit
from kgstore.store import Store

__all__ = ["EntityFacts", "EntityLookup", "Resolution", "entity_facts", "entity_names",
           "fact_entity_ids", "lookup_entity", "path_document", "resolve_entity",
           "search_document"]

MatchedBy = TypingLiteral["id", "name", "search"]


@dataclass(frozen=True, slots=True)
class EntityFacts:
    """An entity with up to ``limit`` facts in each direction (sorted by predicate);
    ``more_out`` / ``more_in`` say that more exist."""

    entity: Entity
    facts_out: list[Fact]
    more_out: bool
    facts_in: list[Fact]
    more_in: bool


def entity_facts(store: Store, entity: Entity, limit: int) -> EntityFacts:
    """``entity`` with its first ``limit`` facts out and in."""
    fo = store.facts_out(entity.id, limit=limit + 1)
    fi = store.facts_in(entity.id, limit=limit + 1)
    shown_out = sorted(fo[:limit], key=lambda f: (f.predicate, f.object_key))
    shown_in = sorted(fi[:limit], key=lambda f: (f.predicate, f.subject))
    return EntityFacts(entity, shown_out, len(fo) > limit, shown_in, len(fi) > limit)


def search_document(query: str, hits: list[SearchHit]) -> dict[str, Any]:
    """What ``kgbench search --json`` prints and ``GET /api/search`` answers: the found
    ``entities`` and, in the same order, how each ``matches`` (kind and degree)."""
    return {"query": query, "entities": [hit.entity for hit in hits],
            "matches": [{"id": hit.entity.id, "match": hit.match, "facts": hit.facts}
                        for hit in hits]}


def path_document(path: FactPath) -> dict[str, Any]:
    """One path as ``kgbench paths --json`` prints it and ``GET /api/paths`` answers."""
    return {"length": path.length, "through_hub": path.through_hub, "nodes": path.nodes,
            "facts": path.facts}


@dataclass(frozen=True, slots=True)
class EntityLookup:
    """What :func:`lookup_entity` found for ``query``: the ``entities`` it matched
    (one by id, every one sharing a name, or the only one a search found), or several
    ``candidates`` the search found, best first, to choose from. Both empty: nothing
    matched."""

    query: str
    matched_by: MatchedBy
    entities: list[Entity] = field(default_factory=list)
    candidates: list[Entity] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.entities or self.candidates)


def lookup_entity(store: Store, text: str, *, limit: int = 10) -> EntityLookup:
    """The entities ``text`` means: an exact id wins; otherwise every entity with that
    name or alias (at most ``limit``); otherwise the entities a search of ``text``
    finds (one is a match, several are candidates)."""
    found = store.entity(text)
    if found is not None:
        return EntityLookup(text, "id", [found])
    named = store.find_by_name(text, limit=limit)
    if named:
        return EntityLookup(text, "name", named)
    candidates = [hit.entity for hit in store.search(text, limit=limit)]
    return EntityLookup(text, "search", candidates[:1] if len(candidates) == 1 else [],
                        candidates)


@dataclass(frozen=True, slots=True)
class Resolution:
    """What :func:`resolve_entity` found: ``entity`` when ``text`` names exactly one
    (``by_name`` when through its name), else the ``matches`` sharing the name (none:
    nothing has that id or name)."""

    entity: Entity | None
    by_name: bool = False
    matches: list[Entity] = field(default_factory=list)


def resolve_entity(store: Store, text: str, *, limit: int = 20) -> Resolution:
    """One entity by exact id, else by unambiguous name (at most ``limit`` namesakes
    are returned when the name is shared)."""
    entity = store.entity(text)
    if entity is not None:
        return Resolution(entity)
    matches = store.find_by_name(text, limit=limit)
    if len(matches) == 1:
        return Resolution(matches[0], by_name=True)
    return Resolution(None, matches=matches)


def fact_entity_ids(facts: Iterable[Fact]) -> list[str]:
    """The entity ids at the ends of ``facts`` (subjects and entity objects), each once,
    in order of appearance: whose names a listing of those facts shows."""
    ids: dict[str, None] = {}
    for f in facts:
        ids.setdefault(f.subject)
        if isinstance(f.object, str):
            ids.setdefault(f.object)
    return list(ids)


def entity_names(store: Store, ids: Iterable[str]) -> dict[str, str | None]:
    """``id -> name`` (``None`` for a nameless one) of the entities among ``ids`` that
    exist, read in one batch: the ``names`` map beside a list of facts or paths."""
    return {i: e.name for i, e in store.entities(list(dict.fromkeys(ids))).items()}
