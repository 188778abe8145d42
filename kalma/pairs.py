"""Which entities a KaLMA entry is about (App. A.1 person selection, A.2 name
disambiguation), found in the store instead of in a biographical database: pairs of
domain entities linked directly or through one CVT (two people and their marriage), or,
with ``--single``, one entity.

BioKaLMA maps the two names of a human-annotated triple to Wikidata and keeps them when
the two entities are connected by that relation; kgbench starts from the connection, so
both ends are known entities. Names still matter, because the entry's text names people:
when another entity of the domain has the same name, the connection must tell them
apart (it does unless the namesake is connected to the other person as well) and the
text then says who is meant: "John Smith (spouse of Jane Doe)".
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from extension.core.vocabulary import is_bookkeeping_predicate
from extension.inputs.domain_spec import DomainSpec
from extension.verbalize import english
from kalma.entry import EntityRef, Knowledge
from kalma.errors import KalmaError
from kalma.pool import is_citable, knowledge_pool
from kgstore.models import Entity
from kgstore.store import Store

__all__ = ["EntityPair", "PairSearch", "connected_pairs", "domain_entities",
           "find_connected_pairs", "single_entities"]

SINGLE_HINT = "use --single to build entries around one entity"

_SCAN_FACTOR = 20
"""Domain entities looked at per pair wanted (most people of a KG are linked to no other
person); the scan stops as soon as enough pairs are found."""
_SCAN_MIN = 500
_PREDICATE_SCANS = 32
"""Most predicates of a predicate-prefix domain whose facts are sampled for subjects."""


@dataclass(frozen=True)
class EntityPair:
    """Two entities of the domain and the fact(s) connecting them: ``link`` holds
    knowledge of ``a``'s pool whose object is ``b`` (a direct fact, or facts through one
    CVT, flattened as in :func:`~kalma.pool.knowledge_pool`). ``display`` gives the text
    that names an entity whose name another domain entity shares ("John Williams
    (spouse of Samantha Winslow)"); the others are named by their name."""

    a: EntityRef
    b: EntityRef
    link: tuple[Knowledge, ...]
    display: tuple[tuple[str, str], ...] = field(default=())

    def display_name(self, entity: EntityRef) -> str:
        """How the entry's text first names ``entity``."""
        return dict(self.display).get(entity.id, entity.name)

    @property
    def id(self) -> str:
        return f"{self.a.id}+{self.b.id}"


@dataclass
class PairSearch:
    """What :func:`find_connected_pairs` found: the pairs, how many domain entities it
    looked at, and how many pairs it left out because a name could not be told apart
    from a namesake's."""

    pairs: list[EntityPair]
    scanned: int = 0
    ambiguous: int = 0


def domain_entities(store: Store, domain: DomainSpec, *, seed: int, k: int) -> list[Entity]:
    """Up to ``k`` named, non-CVT entities of ``domain`` in a seeded order (same store +
    same seed -> same list). A type: :meth:`Store.sample_entities` of it. A predicate
    prefix: the subjects of sampled facts of its predicates (at most
    :data:`_PREDICATE_SCANS` of them), ordered by a seeded hash of their ids."""
    if domain.kind == "type":
        return store.sample_entities(k, seed=seed, type_id=domain.value)
    matching = [p for p in store.predicates()
                if p.count > 0 and domain.matches_predicate(p.id)
                and not is_bookkeeping_predicate(p.id)][:_PREDICATE_SCANS]
    subjects: dict[str, None] = {}
    for p in matching:
        subjects.update(dict.fromkeys(f.subject for f in store.sample_facts(k, seed=seed,
                                                                            predicate=p.id)))
    ordered = sorted(subjects, key=lambda s: random.Random(f"{seed}:{s}").random())
    records = store.entities(ordered)
    found = [records[s] for s in ordered if s in records]
    return [e for e in found if e.name and not e.is_cvt][:k]


def find_connected_pairs(store: Store, domain: DomainSpec, *, seed: int, limit: int,
                         labels: Mapping[str, str] | None = None) -> PairSearch:
    """Up to ``limit`` pairs of domain entities connected directly or through one CVT,
    each unordered pair once, in the seeded order of :func:`domain_entities` (``a`` is
    the entity scanned first). The link must be citable (:func:`is_citable`); for a
    predicate-prefix domain a predicate of the link must be in the domain. A pair with
    a name that a namesake in the domain shares is kept only when the namesake is not
    connected to the other entity too (then ``display`` says who is meant), else
    counted in ``ambiguous``."""
    labels = _labels(store) if labels is None else labels
    search = PairSearch([])
    if limit <= 0:
        return search
    seen: set[frozenset[str]] = set()
    for a in domain_entities(store, domain, seed=seed, k=max(limit * _SCAN_FACTOR, _SCAN_MIN)):
        search.scanned += 1
        pool = knowledge_pool(store, a.id, labels=labels)
        links: dict[str, list[Knowledge]] = {}
        for k in pool:
            if k.object_id and k.object_id != a.id and is_citable(k) and (
                    domain.kind == "type" or any(domain.matches_predicate(p)
                                                 for p in (k.predicate or "").split("/"))):
                links.setdefault(k.object_id, []).append(k)
        ends = store.entities(list(links))
        for b_id, link in links.items():
            b = ends.get(b_id)
            if b is None or not _in_domain(b, domain) or frozenset((a.id, b_id)) in seen:
                continue
            seen.add(frozenset((a.id, b_id)))
            pair = _disambiguated(store, domain, a, b, tuple(link), labels)
            if pair is None:
                search.ambiguous += 1
                continue
            search.pairs.append(pair)
            if len(search.pairs) >= limit:
                return search
    return search


def connected_pairs(store: Store, domain: DomainSpec, *, seed: int, limit: int) -> list[EntityPair]:
    """:func:`find_connected_pairs`' pairs; raises :class:`KalmaError` (hint: ``--single``)
    when the store has none, as the 50-entity Wikidata sample, whose humans link to no
    other human, does not."""
    search = find_connected_pairs(store, domain, seed=seed, limit=limit)
    if not search.pairs and limit > 0:
        if search.scanned == 0:
            raise KalmaError(f"no named entity of {domain} in the store",
                             "check --domain: a type such as Q5 or people.person, or a "
                             "predicate prefix such as people.")
        ambiguous = (f"; {search.ambiguous} left out because a namesake could not be told "
                     "apart" if search.ambiguous else "")
        raise KalmaError(f"no connected pair of {domain} in the store ({search.scanned} "
                         f"entities of the domain looked at, none linked to another directly "
                         f"or through one CVT{ambiguous})", SINGLE_HINT)
    return search.pairs


def single_entities(store: Store, domain: DomainSpec, *, seed: int, limit: int) -> list[EntityRef]:
    """Up to ``limit`` named entities of the domain for ``--single`` entries, in the
    seeded order of :func:`domain_entities`; an entity whose name another domain entity
    shares is left out (nothing in a one-entity entry tells them apart)."""
    found: list[EntityRef] = []
    for e in domain_entities(store, domain, seed=seed, k=max(limit * 2, limit + 50)):
        if e.name and not _namesakes(store, domain, e):
            found.append(EntityRef(e.id, english.display_name(e.name) or e.name))
            if len(found) >= limit:
                break
    return found


def _labels(store: Store) -> dict[str, str]:
    return {p.id: p.label for p in store.predicates() if p.label}


def _in_domain(entity: Entity, domain: DomainSpec) -> bool:
    if entity.is_cvt or not entity.name:
        return False
    return domain.kind != "type" or domain.value in entity.types


def _namesakes(store: Store, domain: DomainSpec, entity: Entity) -> list[Entity]:
    if not entity.name:
        return []
    return [e for e in store.find_by_name(entity.name)
            if e.id != entity.id and _in_domain(e, domain)]


def _linked(store: Store, one: str, other: str, labels: Mapping[str, str]) -> bool:
    """Whether ``one``'s pool holds knowledge whose object is ``other``."""
    return any(k.object_id == other for k in knowledge_pool(store, one, labels=labels))


def _disambiguated(store: Store, domain: DomainSpec, a: Entity, b: Entity,
                   link: tuple[Knowledge, ...], labels: Mapping[str, str]) -> EntityPair | None:
    ref_a = EntityRef(a.id, english.display_name(a.name) or a.id)
    ref_b = EntityRef(b.id, english.display_name(b.name) or b.id)
    relation = link[0].relation
    display: list[tuple[str, str]] = []
    for entity, ref, other in ((a, ref_a, ref_b), (b, ref_b, ref_a)):
        namesakes = _namesakes(store, domain, entity)
        if not namesakes:
            continue
        if any(_linked(store, n.id, other.id, labels) or _linked(store, other.id, n.id, labels)
               for n in namesakes):
            return None
        if entity is b:
            display.append((ref.id, f"{ref.name} ({relation} of {other.name})"))
        else:
            back = [k for k in knowledge_pool(store, other.id, labels=labels)
                    if k.object_id == ref.id and is_citable(k)]
            text = (f"{ref.name} ({back[0].relation} of {other.name})" if back
                    else f"{ref.name} (whose {relation} is {other.name})")
            display.append((ref.id, text))
    return EntityPair(ref_a, ref_b, link, tuple(display))
