"""The hand-made film KG the store tests share, and helpers to compare stores.

Small on purpose, but it has what the store must get right: a CVT (``film.performance``)
between films, actors and characters; literals of several datatypes (one date given
with a full XSD IRI, a language tag in upper case, a literal two entities share); two
entities named "Paris"; aliases with odd case and whitespace; a fact endpoint without an
entity row (placeholder); a hub (``m.usa``) and one entity three hops from the films.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgstore import Entity, Fact, Literal, Predicate, Store

XSD = "http://www.w3.org/2001/XMLSchema#"


@dataclass
class KG:
    entities: list[Entity]
    facts: list[Fact]
    predicates: list[Predicate] = field(default_factory=list)

    def load(self, store: Store) -> None:
        store.ingest(self.entities, self.facts, predicates=self.predicates)

    @property
    def entity_ids(self) -> set[str]:
        """Entity rows plus fact endpoints (placeholders)."""
        ids = {e.id for e in self.entities}
        for f in self.facts:
            ids.add(f.subject)
            if not f.is_literal:
                ids.add(f.object_key)
        return ids

    @property
    def literals(self) -> set[Literal]:
        return {f.object for f in self.facts if isinstance(f.object, Literal)}


# Literals of several datatypes (the date one with a full XSD IRI, which the store
# keeps in short form), language tags in odd case, a literal two entities share.
RELEASE_1972 = Literal("1972-03-24", XSD + "date")
RUNTIME_175 = Literal("175", "xsd:integer")
RATING = Literal("9.2", "xsd:double")
LABEL_DE = Literal("Der Pate", lang="DE")
TAGLINE = Literal("An offer you can't refuse.")
RELEASE_1974 = Literal("1974-12-12", "xsd:date")
LABEL_DE_2 = Literal("Der Pate – Teil II", lang="de")
PARIS_EN = Literal("Paris", lang="en")

FILM_ENTITIES = [
    Entity("m.godfather", "The Godfather", aliases=("  the GODFATHER  ", "Il Padrino"),
           types=("film.film",), description="1972 crime film"),
    Entity("m.godfather2", "The Godfather Part II", types=("film.film",)),
    Entity("m.coppola", "Francis Ford Coppola", aliases=("FRANCIS   COPPOLA",),
           types=("people.person", "film.director")),
    Entity("m.brando", "Marlon Brando", types=("people.person", "film.actor")),
    Entity("m.pacino", "Al Pacino", aliases=("Alfredo James Pacino",),
           types=("people.person", "film.actor")),
    Entity("m.vito", "Vito Corleone", types=("film.film_character",)),
    Entity("m.michael", "Michael Corleone", types=("film.film_character",)),
    Entity("m.perf1", types=("film.performance",), is_cvt=True),
    Entity("m.perf2", types=("film.performance",), is_cvt=True),
    Entity("m.perf3", types=("film.performance",), is_cvt=True),
    Entity("m.usa", "United States of America", aliases=("USA", "  U.S.  "),
           types=("location.country",)),
    Entity("m.paris_fr", "Paris", types=("location.citytown",), description="capital of France"),
    Entity("m.paris_tx", "Paris", aliases=("Paris,   TEXAS",), types=("location.citytown",)),
    Entity("m.france", "France", types=("location.country",)),
    Entity("m.nyc", "New York City", types=("location.citytown",)),
    # m.nino_rota has no entity row: it becomes a placeholder.
]

DIRECTED_BY = "film.film.directed_by"
STARRING = "film.film.starring"
ACTOR = "film.performance.actor"
CHARACTER = "film.performance.character"
NATIONALITY = "people.person.nationality"
CONTAINEDBY = "location.location.containedby"
RELEASE = "film.film.initial_release_date"

FILM_FACTS = [
    Fact("m.godfather", DIRECTED_BY, "m.coppola"),
    Fact("m.godfather2", DIRECTED_BY, "m.coppola"),
    Fact("m.godfather", STARRING, "m.perf1"),
    Fact("m.perf1", ACTOR, "m.brando"),
    Fact("m.perf1", CHARACTER, "m.vito"),
    Fact("m.godfather", STARRING, "m.perf2"),
    Fact("m.perf2", ACTOR, "m.pacino"),
    Fact("m.perf2", CHARACTER, "m.michael"),
    Fact("m.godfather2", STARRING, "m.perf3"),
    Fact("m.perf3", ACTOR, "m.pacino"),
    Fact("m.perf3", CHARACTER, "m.michael"),
    Fact("m.godfather", RELEASE, RELEASE_1972),
    Fact("m.godfather", "film.film.runtime", RUNTIME_175),
    Fact("m.godfather", "film.film.rating", RATING),
    Fact("m.godfather", "rdfs:label", LABEL_DE),
    Fact("m.godfather", "common.topic.tagline", TAGLINE),
    Fact("m.godfather", "film.film.country", "m.usa"),
    Fact("m.godfather", "film.film.music", "m.nino_rota"),
    Fact("m.godfather2", RELEASE, RELEASE_1974),
    Fact("m.godfather2", "rdfs:label", LABEL_DE_2),
    Fact("m.godfather2", "film.film.featured_film_locations", "m.nyc"),
    Fact("m.coppola", NATIONALITY, "m.usa"),
    Fact("m.brando", NATIONALITY, "m.usa"),
    Fact("m.pacino", NATIONALITY, "m.usa"),
    Fact("m.paris_fr", CONTAINEDBY, "m.france"),
    Fact("m.paris_tx", CONTAINEDBY, "m.usa"),
    Fact("m.paris_fr", "rdfs:label", PARIS_EN),
    Fact("m.paris_tx", "rdfs:label", PARIS_EN),
]

FILM_PREDICATES = [
    Predicate(DIRECTED_BY, "directed by", aliases=("director", "film director")),
    Predicate(STARRING, "starring"),
]


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def fact_key(f: Fact) -> tuple[str, str, str]:
    return (f.subject, f.predicate, f.object_key)


def snapshot(store: Store) -> dict[str, object]:
    """Everything observable through the Store interface, for before/after equality."""
    stats = store.stats()
    everything = stats.entities + 1
    entities = store.sample_entities(everything, seed=0, named_only=False, include_cvt=True)
    facts = store.sample_facts(stats.facts + 1, seed=0)
    return {
        "counts": (stats.entities, stats.cvt_entities, stats.literals, stats.facts,
                   stats.entity_facts, stats.literal_facts, stats.predicates),
        "entities": sorted(
            ((e.id, e.name, tuple(sorted(e.aliases)), tuple(sorted(e.types)), e.is_cvt,
              e.description) for e in entities),
            key=repr,
        ),
        "facts": sorted(facts, key=fact_key),
        "predicates": store.predicates(),
        "sources": stats.sources,
    }
