"""Which predicates relate entities and which only name, type, describe or key them.

The extension rules (:mod:`extension.core.candidates`) and the new-domain seed sampler
(:mod:`extension.inputs.seed_sampler`) both ask about relations only: a question "which entity is an
instance of human and ...", or one about an entity's Freebase key, is no test of
attribution. The loaders map most such predicates to entity fields (names, aliases,
types, descriptions), but they remain facts where a load kept them (Wikidata ``P31``
statements, a generic RDF load, a filter override).
"""

from __future__ import annotations

from kgstore.models import Literal
from loaders.pipeline import FREEBASE_NS
from loaders.triples import ROLE_PREDICATES

# Ids of predicates that name, type or describe rather than relate (the loaders map
# most of them to entity fields; they still show up as facts when a load kept them).
_BOOKKEEPING_IRIS = ROLE_PREDICATES | {
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://www.w3.org/2000/01/rdf-schema#comment",
    "http://schema.org/name", "https://schema.org/name",
    "http://xmlns.com/foaf/0.1/name",
}
BOOKKEEPING_PREDICATES: frozenset[str] = frozenset(
    _BOOKKEEPING_IRIS | {p.removeprefix(FREEBASE_NS) for p in _BOOKKEEPING_IRIS} | {
        "type.object.key", "type.object.id",
        # Wikidata: instance of / subclass of (the types), name and alias properties,
        # Wikimedia maintenance links.
        "P31", "P279", "P1559", "P1477", "P2561", "P1705", "P1813", "P1449", "P373", "P910",
    })
"""Predicate ids never asked about: names, aliases, types, descriptions, keys."""
BOOKKEEPING_PREFIXES: tuple[str, ...] = (
    "type.", "freebase.", "common.topic.", "common.document.", "kg.", "dataworld.", "user.")
"""Freebase namespaces of schema, keys and topic bookkeeping."""


def is_bookkeeping_predicate(predicate: str) -> bool:
    """Whether ``predicate`` names, types or describes entities, or is schema or key
    bookkeeping (:data:`BOOKKEEPING_PREDICATES`, :data:`BOOKKEEPING_PREFIXES`): such
    facts make no question."""
    return predicate in BOOKKEEPING_PREDICATES or predicate.startswith(BOOKKEEPING_PREFIXES)


def is_answerable_literal(value: Literal) -> bool:
    """Whether a literal makes a question's answer or a cited fact: typed XSD values
    (dates, numbers, booleans) and English text (``en``, ``en-GB``) do; text tagged with
    another language (Wikidata's demonyms and official names in every language: blind
    round 20 rated "Algeria is home to people called אלג'יראית" 2), plain strings
    (identifiers, URLs, file names), ``xsd:string``/``xsd:anyURI`` and other datatypes
    (coordinates) do not."""
    if value.lang:
        lang = value.lang.lower()
        return lang == "en" or lang.startswith("en-")
    return bool(value.datatype and value.datatype.startswith("xsd:")
                and value.datatype not in ("xsd:string", "xsd:anyURI"))


CONTAINMENT_PREDICATES: frozenset[str] = frozenset({
    "location.location.containedby", "location.location.contains",
    "location.location.partially_containedby", "location.location.partially_contains",
    "location.administrative_division.country", "location.country.administrative_divisions",
    "base.locations.countries.continent", "base.locations.continents.countries_within",
    "base.biblioness.bibs_location.country", "base.biblioness.bibs_location.state",
    # Wikidata: located in the administrative territorial entity, country, continent,
    # located in / on physical feature, contains administrative territorial entity
    "P131", "P17", "P30", "P706", "P150",
})
"""Predicates that place a place inside another ("Cincinnati is located in Ohio"): a
fact a reader tends to supply from what they know."""
CONTAINER_FIRST_PREDICATES: frozenset[str] = frozenset({
    "location.location.contains", "location.location.partially_contains",
    "location.country.administrative_divisions", "base.locations.continents.countries_within",
    "P150",
})
"""The containment predicates whose subject is the larger place ("Ohio contains
Cincinnati")."""


def is_containment_predicate(predicate: str) -> bool:
    """Whether ``predicate`` (full IRI or local id) is one of
    :data:`CONTAINMENT_PREDICATES`."""
    return _in(predicate, CONTAINMENT_PREDICATES)


def is_container_first(predicate: str) -> bool:
    """Whether ``predicate`` places its object inside its subject
    (:data:`CONTAINER_FIRST_PREDICATES`)."""
    return _in(predicate, CONTAINER_FIRST_PREDICATES)


def _in(predicate: str, ids: frozenset[str]) -> bool:
    local = predicate.strip("<>").rpartition("/")[2].rpartition("#")[2]
    return local in ids or predicate in ids
