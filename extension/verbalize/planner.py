"""What a question may ask: the planner's rules for new constraints (issue 34, item 2).

A person asks "Which films did Ron Howard direct that star Tom Hanks?", not "Which film
has a release date with the film release distribution medium DVD, had crew in the role
Visual Effects Supervisor and was released in Paraguay?". The extension engine (CAQA
§4.2, Table 4) and the seed sampler draw constraints from the KG; this module says which
of them a question may carry:

* **at most** :data:`MAX_CONSTRAINTS` constants in one question (CAQA's own examples,
  Appendix A Table 10, have two);
* **selective constants only**: a constant that more than :data:`HUB_SHARE` of a
  relation's facts point at (with at least :data:`HUB_MIN_FACTS` of them) narrows
  nothing a reader cares about — hubs such as Male, Marriage, January, DVD, English,
  United States of America (:func:`hub_share`);
* **descriptions that identify**: an entity the question describes by one relation
  from a named one ("the person born in Cincinnati", "the actor of Beowulf") is refused
  when most entities on the named side of that relation have several such partners
  (:func:`fits_several`): the store may keep one actor of Beowulf, but a reader knows
  there are others; blind round 30 rated "the person who died in Berlin" 3, round 31
  "one of the people born in Honolulu" 3 (21 items);
* **descriptions a reader pictures**: not "the language of Collateral"
  (:func:`vague_description`), not "the place where Pueblo is located"
  (:func:`some_place_where`);
* **no answer the question's own words tell**: the profession of "the actors of X"
  (:func:`asks_what_it_names`);
* **no bookkeeping attributes**: a relation whose frame marks its object as
  ``bookkeeping`` (a gender, the currency of a stored amount, a release medium, a film
  crew role, the type of a union; :meth:`PhraseTable.askable`) is never a new
  constraint.

Pure rules over counts the caller reads from the store, so the engine's check
(:mod:`extension.verbalize.question_check`) and the seed sampler share them.
"""

from __future__ import annotations

import re

from extension.verbalize.demonyms import is_country_or_language
from extension.verbalize.logical_form import Form
from extension.verbalize.relation_phrases import PhraseTable
from kgstore.store import Store

MAX_CONSTRAINTS = 2
"""Most constants one question names (a union's namesakes count as one)."""

HUB_SHARE = 0.10
"""Largest share of a relation's facts that may point at one constant used as a
constraint. FB15k-237: Male holds ~70% of ``people.person.gender``, English about half of
``film.film.language``, Drama ~15% of ``film.film.genre``; a director's films or a
city's natives hold well under 1%."""

HUB_MIN_FACTS = 5
"""A constant is never a hub over fewer facts than this: in a small store (a relation
with four facts gives every value a quarter of them) shares say nothing."""


HUB_MAX_LINKS = 2_000
"""A constant linked by more facts of a relation than this is a hub on any KG (the read
stops there: on a 100M-fact store 10% of a relation could be millions of facts)."""


MEASURED_FACTS = 30
"""Fewest facts of a relation whose measured functionality :func:`fits_several` trusts:
the Wikidata sample store's five citizenship facts (four people with one country, one
with two) say nothing of how many countries a person has."""


def fits_several(share_with_one: float, facts: int) -> bool:
    """Whether a description by a relation read from one end fits several entities for
    a reader: fewer than :data:`~extension.core.functionality.FUNCTIONAL_SHARE` of the
    entities on that end have one partner over it (``share_with_one``: the measured
    functionality that way), over at least :data:`MEASURED_FACTS` ``facts``. A film's
    actors (0.57 on FB15k-237), a city's natives (0.77), a director's films (0.82) fit
    several; a film's director (1.00), a person's birthplace (1.00) or country (0.97)
    one."""
    from extension.core.functionality import FUNCTIONAL_SHARE

    return facts >= MEASURED_FACTS and share_with_one < FUNCTIONAL_SHARE


VAGUE_NOUNS = frozenset({"language", "release region"})
"""Frame nouns that describe nothing a reader pictures when they name an entity by its
owner: "the language of Collateral", "the language of Gina Gershon" (blind round 33:
3 in 14 of 16 ratings); the language itself ("English") reads better, and a question
that needs the hop asks something else. A film's release regions are dozens of
countries nobody asks about as a group: "Who went on holiday to the regions where
Wreck-It Ralph was released?", "What awarded medals to the regions where Green Lantern
was released?" (blind rounds 38-43: 2 and 3)."""


def vague_description(table: PhraseTable, predicate: str) -> str | None:
    """Why describing an entity as ``predicate``'s object by its subject ("the
    <noun> of X") tells a reader nothing they picture, or None."""
    noun = table.noun(predicate)
    if noun in VAGUE_NOUNS:
        return f"'the {noun} of …' describes nothing a reader pictures"
    return None


GENRE_MEMBERS = frozenset({("film.film.genre", False), ("film.film_genre.films_in_this_genre", True),
                           ("media_common.netflix_genre.titles", True),
                           ("tv.tv_genre.programs", True)})
"""``(relation, read forward)`` pairs that go from a genre to its works."""


def names_a_class(predicate: str, forward: bool) -> bool:
    """Whether following ``predicate`` (``forward`` from its subject, else from its
    object) from an entity reaches the members of a class, not a few things a reader
    could list: a genre's works ("Which languages are the spy films in?", "Which awards
    were the melodrama works nominated for?": blind rounds 48-51, 3 from both readers,
    however few the store holds)."""
    return (predicate, forward) in GENRE_MEMBERS


_NETFLIX_TAG = re.compile(r"\b(?:[Ww]hich|the) (\w+) (that )?includes? the titles?\b")


def netflix_tag_description(text: str) -> str | None:
    """Why ``text`` describes an entity by a Netflix tag, or None. Netflix lists titles
    under countries and languages as well as genres: "Which country includes the title
    Agora" (blind round 40: 2) asks for a country by a tag, and "the genre that includes
    the title The Orphanage" is a language asked where it is spoken (round 44: 2). A
    genre asked by its titles stays: "Which genre includes the title Agora?"."""
    titled = re.search(r"\bincludes? the titles?\b", text)
    if titled is not None and _NOT_A_GENRE.search(text):   # "Which genre is an official
        return f"{titled.group(0)!r} asks a language or country by a Netflix tag"   # language …"
    listed = _LISTED_UNDER.search(text)
    if listed is not None and is_country_or_language(listed.group(1)):
        # "Which film features Kristen Stewart and is listed on Netflix under the United
        # Kingdom?" (blind rounds 57-62: 3 from four readers)
        return f"{listed.group(0)!r} constrains a film by a Netflix tag that is a country or language"
    found = _NETFLIX_TAG.search(text)
    if found is None or (found.group(1) in ("genre", "genres") and not found.group(2)):
        return None
    return f"{found.group(0)!r} describes an entity by a Netflix tag"


_LISTED_UNDER = re.compile(r"listed on Netflix under (?:the )?(.+?)(?= and |[?.,]|$)")


_NOT_A_GENRE = re.compile(r"\b(?:languages?|countr(?:y|ies)|spoken|citizens?)\b")
"""Words that say a Netflix tag is a language or a country: "Which genre is an official
language of Taiwan and includes the title Crouching Tiger, Hidden Dragon?" (blind round
52: 2 and 3)."""


_LINK_WORD = r"(?:of|in|by|for|to|at|on|from|with|as|where|who|that|which|whose|and|or)\b"
_NOUN_BEFORE_DESCRIPTION = re.compile(
    rf"\bthe (?!{_LINK_WORD})[a-z]+(?: (?!{_LINK_WORD})[a-z]+)? "
    r"the [a-z]+ (?:who|that|whose|where|of|in|by)\b")


def noun_before_description(text: str) -> str | None:
    """Why ``text`` puts a relation's own noun before a description of its object, or
    None: "Which film had the crew member the person who composed …?", "Which genres
    include the title the films that feature Tim Curry?" (blind round 45: 2 from both
    readers). "the place where the director of Jaws was born" is a description, not
    this."""
    found = _NOUN_BEFORE_DESCRIPTION.search(text)
    return None if found is None else f"{found.group(0)!r} names a noun before a description"


_SOME_PLACE_WHERE = re.compile(
    r"\bthe places? (?:where .+? (?:is|are) located\b|that contains? "
    r"|that (?:is|are) (?:partially )?located in )")
"""Also a seed question's wording before the engine reads it ("the place that contains
Pueblo")."""


def some_place_where(text: str) -> str | None:
    """Why ``text`` describes a place only as where another lies, or None: Pueblo lies in
    Colorado, the United States and North America, so "What is the time zone of the
    place where Pueblo is located?" and "Which team is based in the place where Siena is
    located?" point nowhere a reader can tell (blind rounds 40-51: 3 in 14 of 20
    ratings); nor does "the place that is partially located in Ohio" (round 54: 2 from
    both readers). "the country where Kokomo is located" names which."""
    found = _SOME_PLACE_WHERE.search(text)
    return None if found is None else f"{found.group(0)!r} does not say which place"


_PROFESSION_VERBS = {"composer": "composed", "director": "directed", "film director": "directed",
                     "producer": "produced", "film producer": "produced",
                     "screenwriter": "wrote", "writer": "wrote", "actor": "appeared in",
                     "editor": "edited", "film editor": "edited"}
_AS_PROFESSION = r"(?:works? as an?|ha(?:s|ve) the profession)"
_RESTATED_PROFESSION = re.compile(
    "|".join(rf"\b{re.escape(verb)}\b.*\b{_AS_PROFESSION} {re.escape(noun)}\b"
             rf"|\b{_AS_PROFESSION} {re.escape(noun)}\b.*\b{re.escape(verb)}\b"
             for noun, verb in _PROFESSION_VERBS.items()), re.IGNORECASE)
"""A profession said by the frame ("works as a composer") or by the relation's record
wording a seed question has before the engine reads it ("has the profession
Composer")."""


def restated_profession(text: str) -> str | None:
    """Why ``text`` asks for a profession its own verb implies, or None: whoever composed
    a film's music is a composer ("Who composed the music for Ocean's Eleven and works as
    a composer?", blind rounds 40 and 47: 3 from both readers)."""
    found = _RESTATED_PROFESSION.search(text)
    return None if found is None else f"{found.group(0)!r} says again what its other verb says"


def too_many_constraints(form: Form, union: bool = False) -> str | None:
    """Why the question of ``form`` names too many constants, or None."""
    count = len(form.constants())
    if union:
        count = max(1, count - 1)
    if count > MAX_CONSTRAINTS:
        return f"the question would name {count} constants (at most {MAX_CONSTRAINTS})"
    return None


def hub_share(linked: int, predicate_facts: int) -> float:
    """The share of a relation's facts that point at one constant: ``linked`` facts of
    ``predicate_facts``."""
    return linked / predicate_facts if predicate_facts > 0 else 1.0


def is_hub(linked: int, predicate_facts: int, *, share: float = HUB_SHARE,
           min_facts: int = HUB_MIN_FACTS) -> bool:
    """Whether a constant linked by ``linked`` of the relation's ``predicate_facts``
    facts is a hub (:data:`HUB_SHARE`, :data:`HUB_MIN_FACTS`, :data:`HUB_MAX_LINKS`)."""
    return linked > HUB_MAX_LINKS or (
        linked >= min_facts and hub_share(linked, predicate_facts) > share)


class HubCounter:
    """Hub tests of one store: fact counts per predicate read once, each constant's
    links counted with one read of at most ``share × count + 1`` facts (past that it is
    a hub whatever the rest), never more than :data:`HUB_MAX_LINKS` + 1. The counts are
    kept, so a report can say how many facts a hub holds (:meth:`linked`)."""

    def __init__(self, store: Store, *, share: float = HUB_SHARE,
                 min_facts: int = HUB_MIN_FACTS) -> None:
        self.store = store
        self.share = share
        self.min_facts = min_facts
        self.counts = {p.id: p.count for p in store.predicates()}
        self._linked: dict[tuple[str, str, bool], int] = {}

    def linked(self, entity: str, predicate: str, *, entity_is_subject: bool
               ) -> tuple[int, int]:
        """``(facts of predicate at entity on its side, read no further than the
        threshold; facts of predicate)``."""
        total = self.counts.get(predicate, 0)
        key = (entity, predicate, entity_is_subject)
        if key not in self._linked:
            cap = min(max(self.min_facts, int(self.share * total) + 1), HUB_MAX_LINKS) + 1
            read = self.store.facts_out if entity_is_subject else self.store.facts_in
            self._linked[key] = len(read(entity, predicate=predicate, limit=cap))
        return self._linked[key], total

    def hub(self, entity: str, predicate: str, *, entity_is_subject: bool) -> bool:
        """Whether ``entity`` is a hub of ``predicate`` on its side: as the object
        (``entity_is_subject`` False: the facts ``(x, predicate, entity)``) or as the
        subject (``(entity, predicate, x)``)."""
        linked, total = self.linked(entity, predicate, entity_is_subject=entity_is_subject)
        return is_hub(linked, total, share=self.share, min_facts=self.min_facts)


def asks_what_it_names(form: Form, table: PhraseTable) -> str | None:
    """Why the question's answer is told by its own wording, or None: the profession of
    an entity the question names by a person's role ("What is the profession of the
    actors of Paris, Texas?" -- "They work as actors": both blind readers of round 24
    rated three such answers 3, "tautological")."""
    for c in form.constraints.get(form.answer, []):
        if c.var_is_subject or not form.is_variable(c.other) \
                or table.noun(c.predicate) != "profession":
            continue
        for d in form.constraints.get(c.other, []):
            if d.predicate != c.predicate and not d.var_is_subject \
                    and table.kind(d.predicate) == "person" and table.noun(d.predicate):
                return (f"the question asks the profession of the {table.noun(d.predicate)} "
                        "it names")
    return None


def unaskable(table: PhraseTable, predicate: str) -> str | None:
    """Why ``predicate`` may not be a new constraint, or None."""
    if not table.readable(predicate):
        return f"relation {predicate} has no readable phrase ({table[predicate]!r})"
    if not table.askable(predicate):
        return f"relation {predicate} is bookkeeping ({table[predicate]!r})"
    return None


__all__ = ["GENRE_MEMBERS", "HUB_MAX_LINKS", "names_a_class", "HUB_MIN_FACTS", "HUB_SHARE", "MAX_CONSTRAINTS", "MEASURED_FACTS",
           "VAGUE_NOUNS", "HubCounter", "asks_what_it_names", "netflix_tag_description", "noun_before_description", "restated_profession", "some_place_where", "fits_several", "vague_description", "hub_share", "is_hub", "too_many_constraints", "unaskable"]
