"""The terms of the demo KG: the Freebase namespace and the predicates every entity
has, literals (plain text or a date typed by its precision) and triples.
"""

from __future__ import annotations

from typing import NamedTuple

NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
NAME = "type.object.name"
TYPE = "type.object.type"
ALIAS = "common.topic.alias"
DESCRIPTION = "common.topic.description"
MEDIATOR = "freebase.type_hints.mediator"
TOPIC_TYPE = "common.topic"


class Literal(NamedTuple):
    """An RDF literal: ``value`` with either a language tag or an XSD datatype.

    ``datatype`` is the local name in the XSD namespace (``"date"``, ``"gYear"``,
    ``"float"``); a literal with neither tag nor datatype is a plain string, as
    in Freebase's ``"true"`` mediator flags.
    """

    value: str
    lang: str | None = None
    datatype: str | None = None


# An object is either a Freebase id (a MID or a schema id such as
# "film.film") or a Literal; subjects and predicates are always ids.
Term = str | Literal
Triple = tuple[str, str, Term]


def text(value: str) -> Literal:
    """English text literal, the form Freebase uses for names and aliases."""
    return Literal(value, lang="en")


def when(value: str) -> Literal:
    """Date literal: ``YYYY`` becomes ``xsd:gYear``, ``YYYY-MM-DD`` ``xsd:date``.

    Freebase stores a bare year whenever the exact day is unknown; the tables
    use that instead of inventing a day.
    """
    if len(value) == 4:
        return Literal(value, datatype="gYear")
    if len(value) == 10:
        return Literal(value, datatype="date")
    raise ValueError(f"unsupported date {value!r}")
