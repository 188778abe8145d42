"""The word lists and phrase patterns :mod:`extension.verbalize.realise` reads frames
with: which participles have an irregular past, which type nouns name people or places,
which heads name nothing alone, and the shapes of phrases (passive, placing, relative)
that decide how a question or statement is built. Kept apart from the realiser so the
rules read as data."""

from __future__ import annotations

import re

from extension.verbalize import english

IRREGULAR_PAST = {"written": "wrote", "drawn": "drew", "sung": "sang", "given": "gave",
                  "taken": "took", "shown": "showed", "chosen": "chose", "driven": "drove",
                  "spoken": "spoke", "won": "won", "made": "made", "held": "held",
                  "built": "built", "led": "led", "sold": "sold", "founded": "founded",
                  "shot": "shot", "told": "told", "found": "found", "sent": "sent"}
"""Participles whose simple past differs or is not "-ed": "was written by" -> "wrote"."""
PERSON_NOUNS = frozenset({"person", "human", "people", "composer", "actor", "director",
                          "writer", "producer", "author", "musician", "artist", "singer"})
"""Type nouns of people: a question that cannot name them asks "who"."""
OBJECT_TYPES = frozenset({"film", "country", "location", "person", "book", "city", "team",
                          "language", "genre", "award", "album", "song", "company",
                          "organization", "university", "school", "character", "actor",
                          "series", "program", "sport", "instrument", "religion", "olympic"})
"""Last parts of Freebase ids that name the object's type (``film.actor.film``)."""


def object_type(last_part: str, *, head_only: bool = False) -> str | None:
    """The type noun the last part of a Freebase relation id names for its object:
    ``film`` (``film.actor.film``); ``head_only``: its plural head followed by how the
    objects relate (``countries_spoken_in``: "country", ``people_born_here``: "person";
    WebQSP on FB15k-237, with no type facts, asked "What has Persian as a spoken
    language and contains Basra?"), a last resort after the frame's noun ("political
    party" before ``organizations_founded``). None otherwise (``film_release_region``
    names a region)."""
    last = english.singular(last_part.replace("_", " "))
    if not head_only:
        return english.type_word(last) if last in OBJECT_TYPES else None
    head = last_part.partition("_")[0]
    one = english.singular(head)
    return english.type_word(one) if one != head and one in OBJECT_TYPES else None
GENERIC_NOUNS = frozenset({"location", "place", "topic", "thing", "entity", "object",
                           "subject", "book subject", "ranked item"})
"""Type nouns that say less than another relation's would ("location" for
``location.location.contains`` beside "country" for ``location.country.…``; a film's
subject is a war, a person or a place; a "ranked item" is a film or a book)."""
PLACE_NOUNS = frozenset({"place", "country", "city", "state", "region", "continent", "county",
                         "town", "village", "island", "province", "territory", "nation",
                         "district", "area", "university", "school", "college", "venue",
                         "stadium", "building", "location", "sea", "ocean", "river",
                         "mountain", "lake", "division"})
"""Nouns that name a kind of place; a place answer otherwise named by its role
("birthplace", "filming location") is asked "which place"."""
NO_NOUN_ALONE = frozenset({"cause", "form", "date", "number", "kind", "type", "part",
                           "name", "rate", "means", "mode", "place"})
"""Heads of "<head> of <noun>" frame nouns that name nothing alone: "What did Brittany
Murphy die of?", not "Which cause did she die of?"."""
QUALIFIER_WORDS = {"character": "as", "from": "from", "to": "until", "start_date": "from",
                   "end_date": "until"}
"""A mediator role (its id's last part) read as a preposition before its value: "starred
in The Godfather as Michael Corleone", "was married to X from 1926"."""
PREPOSITIONS = frozenset({"in", "on", "at", "by", "for", "from", "to", "into", "of", "with",
                          "as", "about"})
"""Words a phrase may end in before its object ("composed the music for")."""



YEARS = re.compile(r"(?:(?:January|February|March|April|May|June|July|August|September|"
                   r"October|November|December) )?-?\d{1,4}(?: BC)?")
"""A rendered year or month and year ("1960", "March 1952"): "in", not "on", before it
(not a name that ends in a number: "aired on Channel 4")."""


def dated_phrase(phrase: str, listed: list[str], capped: bool = False) -> tuple[str, str]:
    """A phrase ending in "on" and the dates it lists, each with its preposition: "was
    released in 1960", "on 9 December 1983", and for a list of both "were released in
    1932 and on 9 December 1983" (blind round 57: "released on 1932", 4); other phrases
    as they are, the list joined. ``capped``: "answers including" leads the list, and
    no preposition may follow it, so a mixed list keeps "on"."""
    years = [bool(YEARS.fullmatch(a)) for a in listed]
    if not phrase.endswith(" on") or not any(years) or (not all(years) and capped):
        return phrase, english.join(listed)
    if all(years):
        return phrase[:-3] + " in", english.join(listed)
    return phrase[:-3], english.join([f"{'in' if y else 'on'} {a}"
                                      for a, y in zip(listed, years, strict=True)])


PLACED = re.compile(r"(was|is) (born|buried|located|based|founded|filmed|released|produced|"
                    r"studied|taught) (in|on|at)")
"""An inverse phrase that places its subject: a question about the place or date asks
"where"/"when" with it."""


def without_asked_noun(wh: str, vp: str) -> str:
    """``vp`` without the noun a "which <noun>" question already asks: "Which countries
    are in Europe?", not "Which countries are countries in Europe?"."""
    if not wh.startswith("which "):
        return vp
    noun = wh[6:]
    nouns = f"{re.escape(noun)}|{re.escape(english.singular(noun))}"
    return re.sub(rf"^(is|are|was|were) (?:an? )?(?:{nouns})(?= (?:in|of|on)\b)", r"\1", vp)


def is_passive(phrase: str) -> bool:
    """Whether ``phrase`` is a passive verb and its preposition ("is spoken in", "was
    won by"): a question asks its subject with it ("Which language is spoken in …")."""
    found = re.fullmatch(r"(?:is|was) (\w+) (?:in|by|at|on|to|from|for)", phrase)
    return found is not None and (found.group(1).endswith(("ed", "en"))
                                  or found.group(1) in IRREGULAR_PAST)


RELATIVE = re.compile(r"\b(?:that|who|whose|which|where)\b|\b\w+ed by\b|\b(?:born|located|based) in\b"
                      r"| (?:of|in|for|to|with|at|on)$")
"""A description with a clause or participle after its noun ("the film that features X",
"the films directed by X", "the country Plato is a citizen of")."""


def agent_of(noun: str, clause: str) -> bool:
    """Whether ``noun`` names the doer of the clause's verb ("director" / "directed
    The Godfather", "composer" / "composed the music for"): the first five letters of
    the noun's last word start one of the clause's first two words."""
    stem = noun.rpartition(" ")[2][:5]
    return len(stem) == 5 and any(w.startswith(stem) for w in clause.split()[:2])
