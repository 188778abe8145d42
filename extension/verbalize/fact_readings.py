"""Sentences a person writes for particular relations, where the relation's frame reads
like a record: a player and what they play, a Freebase education.

* "Ringo Starr plays the double bass", "Wolfgang Amadeus Mozart plays the piano",
  "David Beckham plays football", not "Ringo Starr plays the instrument Double bass" or
  "Piano is played by Wolfgang Amadeus Mozart" (blind rounds 40-43 rated those 3);
* "Francis Ford Coppola studied at Hofstra University, earning a Bachelor of Arts", not
  "… received an education with institution Hofstra University and degree Bachelor of
  Arts" (blind round 44: 2-3).

:mod:`extension.verbalize.citations` uses them before the frames' general reading.
"""

from __future__ import annotations

from collections.abc import Mapping

from extension.core.samples import Triple
from extension.verbalize import english
from extension.verbalize.name_forms import COMMON_PLAYED

__all__ = ["education_clause", "played_clause"]

_PLAYED = {"music.group_member.instruments_played": ("player", "the "),
           "music.instrument.instrumentalists": ("thing", "the "),
           "sports.sport.pro_athletes..sports.pro_sports_played.athlete": ("thing", "")}
"""Relations of a player and what they play, by the side the player is on, and the
article the played thing takes ("plays the guitar", "plays football")."""


def played_clause(t: Triple) -> str | None:
    """A player and an instrument or sport whose name is a plain noun, said from the
    player ("Ringo Starr plays the guitar"); None for other facts."""
    side = _PLAYED.get(t.p)
    if side is None or t.literal:
        return None
    player, thing = (t.s_name, t.o_name) if side[0] == "player" else (t.o_name, t.s_name)
    if not player or not thing or not english.PLAIN_NOUN.fullmatch(thing):
        return None
    if thing.split(" ")[0].lower() in COMMON_PLAYED:
        thing = thing[0].lower() + thing[1:]
    return f"{english.mention(player)} plays {side[1]}{thing}"


_EDUCATION_ROLES = ("education.education.institution", "education.education.degree",
                    "education.education.major_field_of_study")


def education_clause(student: str, roles: Mapping[str, str]) -> str | None:
    """"Francis Ford Coppola studied at Hofstra University, earning a Bachelor of Arts
    in Theatre" for a ``student`` and an education's roles (predicate -> the value's
    text): its institution, degree and major; None for one with other roles or no
    institution."""
    if set(roles) - set(_EDUCATION_ROLES) or _EDUCATION_ROLES[0] not in roles:
        return None
    institution, degree, major = (roles.get(p) for p in _EDUCATION_ROLES)
    clause = f"{student} studied at {institution}"
    if degree:
        clause += f", earning {english.article(degree)}"
    if major:
        clause += f" in {major}" if degree else f", majoring in {major}"
    return clause
