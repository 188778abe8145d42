"""Relation phrases: how a predicate reads between its subject and object.

:func:`relation_phrase` and :class:`PhraseTable` take, in order, a user override, the
curated table (``extension/data/relation_phrases.tsv``, :func:`load_relation_phrases`),
the predicate's label in the store (Wikidata ``P57`` -> "director"), else words made
from its id (``film.film.directed_by`` -> "was directed by"). The seed questions and
every verbalizer word relations through here, so they word them alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path

PHRASES_RESOURCE = "relation_phrases.tsv"
"""The shipped relation-phrase table, in ``extension/data``."""

INVERSE_PREFIX = "^"
"""A table key ``^predicate`` holds the inverse reading, "Object <phrase> Subject"."""


def load_relation_phrases(path: Path | None = None) -> dict[str, str]:
    """The relation-phrase table: the shipped one (``extension/data/relation_phrases.tsv``,
    read once and cached) with the entries of the user file ``path`` replacing or adding
    to it. Format (both files): ``predicate<TAB>phrase`` per line, ``^predicate`` for the
    inverse reading, ``#`` comments and blank lines ignored. Returns a new dict (callers
    may change it). Raises :class:`ValueError` naming ``file:line`` for a malformed line
    and :class:`OSError` for an unreadable file."""
    table = dict(_shipped_phrases())
    if path is not None:
        table.update(_parse_phrases(Path(path).read_text(encoding="utf-8"), str(path)))
    return table


@cache
def _shipped_phrases() -> Mapping[str, str]:
    text = resources.files("extension").joinpath("data", PHRASES_RESOURCE).read_text("utf-8")
    return _parse_phrases(text, PHRASES_RESOURCE)


def _parse_phrases(text: str, source: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, tab, phrase = line.partition("\t")
        key, phrase = key.strip(), " ".join(phrase.split())
        if not tab or not key or not phrase:
            raise ValueError(f"{source}:{number}: expected 'predicate<TAB>phrase', got {line!r}")
        table[key] = phrase
    return table


def relation_phrase(predicate: str, label: str | None = None,
                    overrides: Mapping[str, str] | None = None) -> str:
    """The phrase that makes "Subject <phrase> Object." a sentence for ``predicate``.

    Looked up, in order: ``overrides`` (by full id, then local name), the shipped table
    (:func:`load_relation_phrases`), then derived from ``label`` (a store label such as
    Wikidata's "director" -> "has director") or from the id itself (Freebase
    ``film.film.directed_by`` -> "was directed by", ``…initial_release_date`` -> "has
    initial release date", camelCase ``birthPlace`` -> "has birth place").
    """
    for table in (overrides, _shipped_phrases()):
        if table:
            phrase = _lookup(table, predicate)
            if phrase:
                return phrase
    return _phrase_from_words(_predicate_words(predicate, label))


class PhraseTable(Mapping[str, str]):
    """Predicate -> relation phrase, computed on first use and cached: what the
    verbalizer and the ``phrases`` argument of :func:`hop_sentence` and
    :func:`extended_question` use. ``labels`` are store labels (predicate -> label);
    ``overrides`` take precedence over the shipped table (see :func:`relation_phrase`).
    ``table[p]`` answers every predicate; iteration and ``len`` cover those asked so far."""

    def __init__(self, labels: Mapping[str, str] | None = None,
                 overrides: Mapping[str, str] | None = None) -> None:
        self.labels: dict[str, str] = dict(labels or {})
        self.overrides: dict[str, str] = dict(overrides or {})
        self._phrases: dict[str, str] = {}
        self._inverse: dict[str, str | None] = {}
        self._roles: dict[str, str] = {}

    def __getitem__(self, predicate: str) -> str:
        phrase = self._phrases.get(predicate)
        if phrase is None:
            phrase = relation_phrase(predicate, self.labels.get(predicate), self.overrides)
            self._phrases[predicate] = phrase
        return phrase

    def __iter__(self) -> Iterator[str]:
        return iter(self._phrases)

    def __len__(self) -> int:
        return len(self._phrases)

    def inverse(self, predicate: str) -> str | None:
        """The curated inverse phrase ("Object <phrase> Subject"), or None."""
        if predicate not in self._inverse:
            found = None
            for table in (self.overrides, _shipped_phrases()):
                found = found or _lookup(table, INVERSE_PREFIX + predicate,
                                         INVERSE_PREFIX + _local_name(predicate))
            self._inverse[predicate] = found
        return self._inverse[predicate]

    def role(self, predicate: str) -> str:
        """The role name of a CVT's outgoing ``predicate`` ("actor", "start date"): the
        noun of a "has the X" phrase, else the predicate's words."""
        role = self._roles.get(predicate)
        if role is None:
            noun = has_noun(self[predicate])
            role = noun or _predicate_words(predicate, self.labels.get(predicate))
            self._roles[predicate] = role
        return role


def _lookup(table: Mapping[str, str], key: str, local: str | None = None) -> str | None:
    found = table.get(key)
    if found is None:
        local = _local_name(key) if local is None else local
        if local != key:
            found = table.get(local)
    return found


def _local_name(predicate: str) -> str:
    """``<http://…/ns/film.film.directed_by>`` / ``ns:film.film.directed_by`` ->
    ``film.film.directed_by``; ``wdt:P57`` -> ``P57``."""
    local = predicate.strip("<>")
    for sep in ("/", "#", ":"):
        local = local.rpartition(sep)[2] or local
    return local


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_VERB_STARTS = frozenset({"has", "have", "had", "is", "are", "was", "were", "contains",
                          "includes", "uses", "owns", "shares", "follows", "precedes",
                          "replaces"})
_PREPOSITIONS = frozenset({"of", "by", "in", "at", "on", "for", "to", "with", "from", "as",
                           "after", "into", "under", "about", "upon", "through", "within",
                           "near", "via"})


@cache
def _predicate_words(predicate: str, label: str | None) -> str:
    """The words a predicate's phrase is made of: its label, else its id's last part."""
    if label and label.strip():
        words = " ".join(label.split())
        # "Place of birth" -> "place of birth", but keep "ISBN", "IMDb ID"
        if len(words) > 1 and not words[1].isupper():
            words = words[0].lower() + words[1:]
        return words
    local = _local_name(predicate)
    if "." in local:   # Freebase domain.type.property: the property names the relation
        local = local.rpartition(".")[2]
        if local.endswith("_s"):   # Freebase's plural marker: spouse_s, adjoin_s
            local = local[:-2]
    elif any(c.islower() for c in local):   # camelCase "birthPlace"; keep ids like "P57"
        local = _CAMEL.sub(" ", local).lower()
    return " ".join(local.replace("_", " ").split()) or predicate


def _phrase_from_words(words: str) -> str:
    """"directed by" -> "was directed by", "capital of" -> "is capital of", "contains"
    -> "contains", anything else ("estimated budget": an adjective, as no preposition
    follows) -> "has <words>"."""
    if not words:
        return "is related to"
    first, _, rest = words.partition(" ")
    if first in _VERB_STARTS:
        return words
    if first.endswith("ed") and rest.partition(" ")[0] in _PREPOSITIONS:
        return f"was {words}"   # a past participle: "directed by", "educated at"
    if words.endswith(" of"):
        return f"is {words}"
    return f"has {words}"


def has_noun(phrase: str) -> str | None:
    """"has the sequel" -> "sequel" (the noun of a "has" phrase), else None."""
    if not phrase.startswith("has "):
        return None
    noun = phrase[4:]
    for article in ("the ", "a ", "an "):
        if noun.startswith(article):
            noun = noun[len(article):]
            break
    if not noun or noun.rpartition(" ")[2] in _PREPOSITIONS or noun.startswith("its "):
        return None
    return noun


@cache
def type_noun(predicate: str) -> str | None:
    """The subject's type named by a Freebase id: ``film.film.sequel`` -> "film",
    ``film.film_character.portrayed_in_films`` -> "film character"; None for other ids
    and for the catch-all types ``common.topic`` and ``type.object``."""
    parts = _local_name(predicate).split(".")
    if len(parts) < 3:
        return None
    noun = parts[-2].replace("_", " ").strip()
    return None if not noun or noun in ("topic", "object") else noun


@cache
def _default_table() -> PhraseTable:
    return PhraseTable()


def as_table(phrases: Mapping[str, str] | None) -> PhraseTable:
    if isinstance(phrases, PhraseTable):
        return phrases
    if phrases is None:
        return _default_table()
    return PhraseTable(overrides=phrases)


__all__ = ["PhraseTable", "load_relation_phrases", "relation_phrase"]
