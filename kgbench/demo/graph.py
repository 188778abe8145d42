"""The demo KG's triples from its fact tables (:mod:`kgbench.demo.facts`): MIDs
allocated in table order, CVTs for performances, cuts, marriages and education, the
schema lines real Freebase carries, and the N-Triples lines in the dump's layout.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from kgbench.demo.facts.films import FILMS, Film
from kgbench.demo.facts.people import EDUCATION, MARRIAGES, PEOPLE, PERSONS, Person
from kgbench.demo.facts.places import (
    CAPITALS,
    CITIES,
    COUNTRIES,
    PLACES,
    REGIONS,
    UNIVERSITIES,
    Place,
)
from kgbench.demo.facts.terms import (
    ALIAS,
    DESCRIPTION,
    MEDIATOR,
    NAME,
    NS,
    TOPIC_TYPE,
    TYPE,
    XSD,
    Literal,
    Term,
    Triple,
    text,
    when,
)
from kgbench.demo.facts.vocabulary import (
    MEDIATOR_TYPES,
    PROFESSIONS,
    PROPERTY_LABELS,
    ROLES,
    TYPE_LABELS,
    VOCABULARIES,
)

MID_PREFIX = "m.0kgb"
MID_WIDTH = 3  # 36**3 ids: far more than the demo needs, and a fixed width keeps sort order = age
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def mid_for(index: int) -> str:
    """The ``index``-th demo MID: ``m.0kgb`` + fixed-width base-36 counter (1 -> m.0kgb001)."""
    digits = ""
    for _ in range(MID_WIDTH):
        index, rest = divmod(index, 36)
        digits = _BASE36[rest] + digits
    if index:
        raise OverflowError("demo MID range exhausted")
    return MID_PREFIX + digits


class GraphBuilder:
    """Collects triples and hands out MIDs for table keys and anonymous CVT nodes."""

    def __init__(self) -> None:
        self.mids: dict[str, str] = {}
        self.triples: set[Triple] = set()
        self._count = 0

    def mint(self) -> str:
        """A fresh MID, not bound to any key (used for CVT nodes)."""
        self._count += 1
        return mid_for(self._count)

    def allocate(self, key: str) -> str:
        """Bind a fresh MID to ``key``; keys must be unique across all tables."""
        if key in self.mids:
            raise ValueError(f"duplicate key {key!r}")
        self.mids[key] = self.mint()
        return self.mids[key]

    def mid(self, key: str) -> str:
        """The MID of ``key``; a KeyError here means a table refers to a missing row."""
        return self.mids[key]

    def add(self, subject: str, predicate: str, obj: Term) -> None:
        """Record one triple (duplicates collapse: triples are a set)."""
        self.triples.add((subject, predicate, obj))

    def link(self, subject: str, predicate: str, obj: str, inverse: str | None = None) -> None:
        """Entity-to-entity fact, plus its reverse property as real Freebase stores both."""
        self.add(subject, predicate, obj)
        if inverse:
            self.add(obj, inverse, subject)

    def topic(self, key: str, name: str, types: Iterable[str], aliases: Iterable[str] = (),
              description: str | None = None) -> str:
        """Name, types, aliases and description of the named entity ``key``; returns its MID."""
        mid = self.mid(key)
        self.add(mid, NAME, text(name))
        for type_id in (TOPIC_TYPE, *types):
            self.add(mid, TYPE, type_id)
        for alias in aliases:
            self.add(mid, ALIAS, text(alias))
        if description:
            self.add(mid, DESCRIPTION, text(description))
        return mid

    def cvt(self, cvt_type: str) -> str:
        """A new nameless mediator node of ``cvt_type``; returns its MID."""
        mid = self.mint()
        self.add(mid, TYPE, cvt_type)
        return mid


def split_cast(cast: str) -> list[tuple[str, str]]:
    """``"a=Char A; b=Char B"`` -> ``[("a", "Char A"), ("b", "Char B")]``."""
    pairs = []
    for item in filter(None, (part.strip() for part in cast.split(";"))):
        actor, _, character = item.partition("=")
        pairs.append((actor.strip(), character.strip()))
    return pairs


def character_key(name: str) -> str:
    """Characters are keyed by name: the same name across films (sequels, remakes,
    Danny Ocean in both heist films) is the same character, as in Freebase."""
    return f"character:{name}"


def _allocate_all(g: GraphBuilder) -> None:
    """Give every named entity its MID up front, so facts may refer forward
    (a prequel listed later, a capital listed after its country)."""
    for row in (*COUNTRIES, *REGIONS, *CITIES, *UNIVERSITIES):
        g.allocate(row.key)
    for prefix, table, _ in VOCABULARIES:
        for key in table:
            g.allocate(f"{prefix}:{key}")
    for person in PEOPLE:
        g.allocate(person.key)
    for film in FILMS:
        g.allocate(film.key)
    for film in FILMS:
        for _, character in split_cast(film.cast):
            if character_key(character) not in g.mids:
                g.allocate(character_key(character))


def _vocabulary(g: GraphBuilder) -> None:
    """Genders, professions, genres, languages and degrees: small named entity sets."""
    for prefix, table, type_id in VOCABULARIES:
        for key, name in table.items():
            g.topic(f"{prefix}:{key}", name, [type_id])


def sentence(words: str) -> str:
    """End ``words`` with a full stop unless it already ends with one ("Washington, D.C.")."""
    return words if words.endswith(".") else words + "."


def _ancestry(key: str) -> list[str]:
    """Names of the places containing ``key``, innermost first."""
    names = []
    parent = PLACES[key].parent
    while parent is not None:
        names.append(PLACES[parent].name)
        parent = PLACES[parent].parent
    return names


def _place_description(row: Place, kind: str) -> str:
    """E.g. "City in Texas, United States of America." or "Country whose capital is Paris."."""
    within = _ancestry(row.key)
    if within:
        return sentence(f"{kind} in {', '.join(within)}")
    return sentence(f"{kind} whose capital is {PLACES[CAPITALS[row.key]].name}")


def _places(g: GraphBuilder) -> None:
    """Countries, regions, cities and universities, with containment both ways and capitals."""
    kinds = (
        (COUNTRIES, ("location.location", "location.country"), "Country"),
        (REGIONS, ("location.location", "location.administrative_division"),
         "Administrative division"),
        (CITIES, ("location.location", "location.citytown"), "City"),
        (UNIVERSITIES, ("location.location", "education.educational_institution",
                        "education.university"), "University"),
    )
    for table, types, kind in kinds:
        for row in table:
            mid = g.topic(row.key, row.name, types, row.aliases, _place_description(row, kind))
            if row.parent is not None:
                g.link(mid, "location.location.containedby", g.mid(row.parent),
                       "location.location.contains")
    for country, capital in CAPITALS.items():
        g.add(g.mid(country), "location.country.capital", g.mid(capital))


def _film_roles() -> dict[str, list[str]]:
    """Person key -> the film roles (ROLES keys) the film tables give them, in ROLES order."""
    found: dict[str, set[str]] = defaultdict(set)
    for film in FILMS:
        for person in film.directors.split():
            found[person].add("director")
        for person, _ in split_cast(film.cast):
            found[person].add("actor")
        for person in film.music.split():
            found[person].add("composer")
    return {person: [role for role in ROLES if role in roles] for person, roles in found.items()}


def _person_description(person: Person, professions: Sequence[str]) -> str:
    """E.g. "Film director, screenwriter and film producer born 1939-04-07 in Detroit."."""
    labels = [PROFESSIONS[p] for p in professions]
    labels = [labels[0]] + [label.lower() for label in labels[1:]] if labels else ["Person"]
    what = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
    born = f" born {person.born}" if person.born else ""
    where = ""
    if person.birthplace:
        where = f" in {PLACES[person.birthplace].name}"
        born = born or " born"
    return sentence(f"{what}{born}{where}")


def _people(g: GraphBuilder) -> None:
    """People: name, types implied by their film roles, birth, nationality, gender, professions."""
    roles = _film_roles()
    for person in PEOPLE:
        own_roles = roles.get(person.key, [])
        extra = [p for p in person.extra.split() if p not in own_roles]
        professions = [*own_roles, *extra]
        types = ["people.person", *(t for role in own_roles for t in ROLES[role])]
        mid = g.topic(person.key, person.name, types, person.aliases,
                      _person_description(person, professions))
        g.link(mid, "people.person.gender", g.mid(f"gender:{person.gender}"))
        for profession in professions:
            g.link(mid, "people.person.profession", g.mid(f"profession:{profession}"))
        for country in person.nationality.split():
            g.link(mid, "people.person.nationality", g.mid(country))
        if person.born:
            g.add(mid, "people.person.date_of_birth", when(person.born))
        if person.birthplace:
            g.link(mid, "people.person.place_of_birth", g.mid(person.birthplace),
                   "location.location.people_born_here")


def _film_description(film: Film) -> str:
    """E.g. "1972 film directed by Francis Ford Coppola."."""
    directors = " and ".join(PERSONS[key].name for key in film.directors.split())
    return sentence(f"{film.released[:4]} film directed by {directors}")


def _performances(g: GraphBuilder, film: Film, film_mid: str) -> None:
    """One film.performance CVT per cast line, linked to film, actor and character."""
    for actor, character in split_cast(film.cast):
        perf = g.cvt("film.performance")
        g.link(film_mid, "film.film.starring", perf, "film.performance.film")
        g.link(g.mid(actor), "film.actor.film", perf, "film.performance.actor")
        g.link(g.mid(character_key(character)), "film.film_character.portrayed_in_films", perf,
               "film.performance.character")


def _characters(g: GraphBuilder) -> None:
    """Every character named in a cast list, typed film.film_character."""
    for film in FILMS:
        for _, character in split_cast(film.cast):
            # topic() is idempotent (triples are a set), so repeated characters are fine.
            g.topic(character_key(character), character, ["film.film_character"])


def _films(g: GraphBuilder) -> None:
    """Films with their direct facts, performance CVTs and runtime (film.film_cut) CVTs."""
    for film in FILMS:
        mid = g.topic(film.key, film.name, ["film.film"], film.aliases, _film_description(film))
        g.add(mid, "film.film.initial_release_date", when(film.released))
        for director in film.directors.split():
            g.link(mid, "film.film.directed_by", g.mid(director), "film.director.film")
        for composer in film.music.split():
            g.link(mid, "film.film.music", g.mid(composer), "film.music_contributor.film")
        for genre in film.genres.split():
            g.link(mid, "film.film.genre", g.mid(f"genre:{genre}"),
                   "film.film_genre.films_in_this_genre")
        for country in film.countries.split():
            g.link(mid, "film.film.country", g.mid(country))
        for language in film.languages.split():
            g.link(mid, "film.film.language", g.mid(f"language:{language}"))
        if film.prequel:
            g.link(mid, "film.film.prequel", g.mid(film.prequel), "film.film.sequel")
        _performances(g, film, mid)
        if film.runtime is not None:
            # Freebase keeps runtimes on a film_cut CVT (a film can have several cuts).
            cut = g.cvt("film.film_cut")
            g.link(mid, "film.film.runtime", cut, "film.film_cut.film")
            g.add(cut, "film.film_cut.runtime", Literal(f"{film.runtime:.1f}", datatype="float"))


def _marriages(g: GraphBuilder) -> None:
    """people.marriage CVTs: both spouses point to it and it points back to both."""
    for first, second, since in MARRIAGES:
        marriage = g.cvt("people.marriage")
        for spouse in (first, second):
            g.link(g.mid(spouse), "people.person.spouse_s", marriage, "people.marriage.spouse")
        g.add(marriage, "people.marriage.from", when(since))


def _education(g: GraphBuilder) -> None:
    """education.education CVTs linking a student, an institution and maybe a degree."""
    for student, institution, degree in EDUCATION:
        edu = g.cvt("education.education")
        g.link(g.mid(student), "people.person.education", edu, "education.education.student")
        g.link(g.mid(institution), "education.educational_institution.students_graduates", edu,
               "education.education.institution")
        if degree:
            g.link(edu, "education.education.degree", g.mid(f"degree:{degree}"))


def _schema(g: GraphBuilder) -> None:
    """Names and kinds of every property and type used, plus the mediator flags.

    Fails with a KeyError if a property or type lacks a label in the tables
    above, so the schema can never silently fall behind the data.
    """
    properties = {p for _, p, _ in g.triples} | {NAME, TYPE, MEDIATOR}
    types = {o for _, p, o in g.triples if p == TYPE and isinstance(o, str)}
    types |= {"type.type", "type.property"}
    for prop in properties:
        g.add(prop, NAME, text(PROPERTY_LABELS[prop]))
        g.add(prop, TYPE, "type.property")
    for type_id in types:
        g.add(type_id, NAME, text(TYPE_LABELS[type_id]))
        g.add(type_id, TYPE, "type.type")
    for type_id in MEDIATOR_TYPES:
        g.add(type_id, MEDIATOR, Literal("true"))


def build_graph() -> GraphBuilder:
    """Assemble the whole demo graph from the tables; returns the filled builder."""
    g = GraphBuilder()
    _allocate_all(g)
    _vocabulary(g)
    _places(g)
    _people(g)
    _characters(g)
    _films(g)
    _marriages(g)
    _education(g)
    _schema(g)
    return g


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(value: str) -> str:
    """Escape a literal's lexical form per N-Triples (backslash, quote, line breaks, tab)."""
    return "".join(_ESCAPES.get(char, char) for char in value)


def serialize_term(term: Term) -> str:
    """``<ns:id>`` for ids, ``"v"@lang`` / ``"v"^^<xsd:T>`` / ``"v"`` for literals."""
    if isinstance(term, Literal):
        body = f'"{escape(term.value)}"'
        if term.lang:
            return f"{body}@{term.lang}"
        if term.datatype:
            return f"{body}^^<{XSD}{term.datatype}>"
        return body
    return f"<{NS}{term}>"


# Within a subject: label-ish lines first (as a reader would want), then the rest.
_PREDICATE_RANK = {NAME: 0, ALIAS: 1, TYPE: 2, DESCRIPTION: 3}


def _subject_order(subject: str) -> tuple[int, str]:
    """Schema ids (properties, types) first, then MIDs in allocation order."""
    return (1 if subject.startswith(MID_PREFIX) else 0, subject)


def ntriples_lines(triples: Iterable[Triple]) -> list[str]:
    """Freebase-dump lines (``s\\tp\\to\\t.``), grouped by subject, in a fixed order."""
    by_subject: dict[str, list[tuple[str, Term]]] = defaultdict(list)
    for subject, predicate, obj in triples:
        by_subject[subject].append((predicate, obj))
    lines = []
    for subject in sorted(by_subject, key=_subject_order):
        facts = sorted(
            (_PREDICATE_RANK.get(p, 9), p, serialize_term(o)) for p, o in by_subject[subject]
        )
        lines += [f"{serialize_term(subject)}\t{serialize_term(p)}\t{o}\t." for _, p, o in facts]
    return lines
