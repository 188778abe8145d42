"""Relation phrases: how a predicate reads between its subject and object.

:func:`relation_phrase` and :class:`PhraseTable` take, in order, a user override, the
curated table (``extension/verbalize/relation_phrases.tsv``, :func:`load_relation_phrases`),
the predicate's label in the store (Wikidata ``P57`` -> "director"), else words made
from its id (``film.film.directed_by`` -> "was directed by"). The seed questions and
every verbalizer word relations through here, so they word them alike. The words of a
label or id become a phrase by grammar, not by a list of known predicates (see
:func:`_phrase_from_words`); a predicate whose only name is an id (a Wikidata ``P646``
without a label) has no readable phrase (:func:`is_readable`), and a fact with it is not
put into a citation.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

from extension.verbalize import english
from kgstore.store import Store
from loaders.unfold import freebase_reverse_properties

PHRASES_RESOURCE = "relation_phrases.tsv"
"""The shipped relation-phrase table, beside this module."""

INVERSE_PREFIX = "^"
"""A table key ``^predicate`` holds the inverse reading, "Object <phrase> Subject"."""


def load_relation_phrases(path: Path | None = None) -> dict[str, str]:
    """The relation-phrase table: the shipped one (``extension/verbalize/relation_phrases.tsv``,
    read once and cached) with the entries of the user file ``path`` replacing or adding
    to it. Format (both files): ``predicate<TAB>phrase[<TAB>noun<TAB>kind[<TAB>unit]]`` per line, ``^predicate`` for the
    inverse reading, ``#`` comments and blank lines ignored. Returns a new dict (callers
    may change it). Raises :class:`ValueError` naming ``file:line`` for a malformed line
    and :class:`OSError` for an unreadable file."""
    table = dict(_shipped_phrases())
    if path is not None:
        table.update(_parse_phrases(Path(path).read_text(encoding="utf-8"), str(path)))
    return table


def load_relation_frames(path: Path) -> dict[str, FrameColumns]:
    """The optional frame columns (noun, kind) of the user phrase file ``path`` (format
    of :func:`load_relation_phrases`), for :class:`PhraseTable`'s ``frames``."""
    return _parse_table(Path(path).read_text(encoding="utf-8"), str(path))[1]


@cache
def _shipped_phrases() -> Mapping[str, str]:
    return _shipped()[0]


@cache
def _shipped_frames() -> Mapping[str, FrameColumns]:
    return _shipped()[1]


@cache
def _shipped() -> tuple[dict[str, str], dict[str, FrameColumns]]:
    text = resources.files("extension.verbalize").joinpath(PHRASES_RESOURCE).read_text("utf-8")
    return _parse_table(text, PHRASES_RESOURCE)


def _parse_phrases(text: str, source: str) -> dict[str, str]:
    return _parse_table(text, source)[0]


KINDS = frozenset({"person", "place", "date", "number", "thing", "bookkeeping"})
"""What a relation's object is (the table's fourth column): the question word a
question about it takes (who, where, when, how many, what), or ``bookkeeping``: a
value nobody asks about, never a new constraint of a question."""

BOOKKEEPING_ROLES = frozenset({
    "measurement_unit.dated_money_value.currency", "measurement_unit.dated_integer.source",
    "measurement_unit.dated_money_value.source", "measurement_unit.dated_float.source",
    "measurement_unit.dated_percentage.source"})
"""Roles of Freebase's measurement mediators that record how an amount is stored (its
currency, its source), whatever amount they belong to: a question about them, "What
is the currency of the rent50 2 of Boston?", is no question a person asks (a blind
reader rated one 1 of 5), so a relation ending in one is bookkeeping."""

FrameColumns = tuple["str | None", "str | None", "str | None"]
"""A table row's optional ``noun`` (None for ``-`` or absent), ``kind`` and ``unit`` (the
unit a number of the relation is stored in, "minutes" for a film's runtime)."""


def _parse_table(text: str, source: str) -> tuple[dict[str, str], dict[str, FrameColumns]]:
    """Phrases and the optional frame columns (``noun``, ``kind``) of a table's rows."""
    table: dict[str, str] = {}
    frames: dict[str, FrameColumns] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, tab, rest = line.partition("\t")
        columns = [" ".join(c.split()) for c in rest.split("\t")]
        key, phrase = key.strip(), columns[0]
        if not tab or not key or not phrase or len(columns) > 4:
            raise ValueError(f"{source}:{number}: expected 'predicate<TAB>phrase"
                             f"[<TAB>noun<TAB>kind[<TAB>unit]]', got {line!r}")
        table[key] = phrase
        if len(columns) > 1:
            noun = columns[1] if columns[1] not in ("", "-") else None
            kind = columns[2] if len(columns) > 2 and columns[2] else None
            if kind is not None and kind not in KINDS:
                raise ValueError(f"{source}:{number}: kind {kind!r} is not one of "
                                 f"{', '.join(sorted(KINDS))}")
            unit = columns[3] if len(columns) > 3 and columns[3] else None
            if unit is not None and kind != "number":
                raise ValueError(f"{source}:{number}: a unit ({unit!r}) needs the kind "
                                 "number")
            frames[key] = (noun, kind, unit)
    return table, frames


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
    if not (label and label.strip()):
        mediated = _mediated_phrase(_local_name(predicate))
        if mediated is not None:
            return mediated
    return _phrase_from_words(_predicate_words(predicate, label))


class PhraseTable(Mapping[str, str]):
    """Predicate -> relation phrase, computed on first use and cached: what the
    verbalizer and the ``phrases`` argument of :func:`hop_sentence` and
    :func:`extended_question` use. ``labels`` are store labels (predicate -> label);
    ``overrides`` take precedence over the shipped table (see :func:`relation_phrase`).
    ``table[p]`` answers every predicate; iteration and ``len`` cover those asked so far."""

    def __init__(self, labels: Mapping[str, str] | None = None,
                 overrides: Mapping[str, str] | None = None,
                 frames: Mapping[str, FrameColumns] | None = None) -> None:
        self.labels: dict[str, str] = dict(labels or {})
        self.overrides: dict[str, str] = dict(overrides or {})
        self.frames: dict[str, FrameColumns] = dict(frames or {})
        self._phrases: dict[str, str] = {}
        self._inverse: dict[str, str | None] = {}
        self._roles: dict[str, str] = {}
        self._columns: dict[str, FrameColumns | None] = {}
        self._partners: dict[str, str | None] = {}

    def __getitem__(self, predicate: str) -> str:
        phrase = self._phrases.get(predicate)
        if phrase is None:
            phrase = self._partner_phrase(predicate) or relation_phrase(
                predicate, self.labels.get(predicate), self.overrides)
            self._phrases[predicate] = phrase
        return phrase

    def partner(self, predicate: str) -> str | None:
        """The Freebase reverse property of ``predicate`` whose frame reads its facts
        turned around, when ``predicate`` has no phrase of its own in a table and the
        reverse has one. A store loaded with ``--reverse-properties`` holds both
        directions of such a fact; the one Freebase names from the other end reads
        badly by its own words ("Eastern Time Zone has the locations in this time zone
        Newton", "Republic has the Gambia": rated 2 of 5 by blind readers), while its
        reverse has a curated frame ("Newton is in the time zone Eastern Time Zone")."""
        if predicate not in self._partners:
            found = None
            if not self._own_phrase(predicate):
                reverse = self.reverse(predicate)
                if reverse is not None and self._own_phrase(reverse):
                    found = reverse
            self._partners[predicate] = found
        return self._partners[predicate]

    @staticmethod
    def reverse(predicate: str) -> str | None:
        """``predicate``'s Freebase reverse property (``film.film.directed_by`` ->
        ``film.director.film``), or None; of a folded relation ``a..b`` (a hop through a
        mediator), the fold of the reverses read from the other end, ``rev(b)..rev(a)``."""
        reverses = freebase_reverse_properties()
        outer, sep, role = _local_name(predicate).partition("..")
        if not sep:
            return reverses.get(outer)
        back_outer, back_role = reverses.get(role), reverses.get(outer)
        return f"{back_outer}..{back_role}" if back_outer and back_role else None

    def _own_phrase(self, predicate: str) -> bool:
        return any(table and _lookup(table, predicate) for table in
                   (self.overrides, _shipped_phrases()))

    def _partner_phrase(self, predicate: str) -> str | None:
        """"Object <phrase> Subject" of the partner (:meth:`partner`): its inverse
        phrase, else "is the <noun> of"; None without a partner."""
        reverse = self.partner(predicate)
        if reverse is None:
            return None
        inverse = self._own_inverse(reverse)
        if inverse:
            return inverse
        noun = self.noun(reverse)
        return f"is the {noun} of" if noun else None

    def __iter__(self) -> Iterator[str]:
        return iter(self._phrases)

    def __len__(self) -> int:
        return len(self._phrases)

    def readable(self, predicate: str) -> bool:
        """Whether ``predicate``'s phrase reads as English (:func:`is_readable`)."""
        return is_readable(self[predicate])

    def inverse(self, predicate: str) -> str | None:
        """The curated inverse phrase ("Object <phrase> Subject"), or None; for a
        predicate read by its partner (:meth:`partner`), the partner's own phrase."""
        if predicate not in self._inverse:
            found = self._own_inverse(predicate)
            if found is None and (reverse := self.partner(predicate)) is not None:
                found = self[reverse]
            self._inverse[predicate] = found
        return self._inverse[predicate]

    def _own_inverse(self, predicate: str) -> str | None:
        found = None
        for table in (self.overrides, _shipped_phrases()):
            found = found or _lookup(table, INVERSE_PREFIX + predicate,
                                     INVERSE_PREFIX + _local_name(predicate))
        return found

    def _frame_columns(self, predicate: str) -> FrameColumns | None:
        """The table's noun and kind of ``predicate``: a user table's, else the shipped
        one's unless a user phrase replaced the shipped phrase (its noun may no longer
        fit)."""
        if predicate not in self._columns:
            found = _lookup(self.frames, predicate) if self.frames else None
            reverse = self.partner(predicate) if found is None else None
            if reverse is not None:
                # No noun names the partner's subject as our subject's attribute; a
                # bookkeeping relation stays one read the other way round.
                found = (None, "bookkeeping" if self.kind(reverse) == "bookkeeping"
                         else None, None)
            elif found is None:
                shipped = _lookup(_shipped_frames(), predicate)
                if shipped is not None and self[predicate] == _lookup(_shipped_phrases(),
                                                                      predicate):
                    found = shipped
            self._columns[predicate] = found
        return self._columns[predicate]

    def curated(self, predicate: str) -> bool:
        """Whether ``predicate``'s phrase comes from a table (a user's or the shipped
        one), its own or its partner's (:meth:`partner`), rather than from the words of
        its label or id."""
        return self._own_phrase(predicate) or self.partner(predicate) is not None

    def noun(self, predicate: str) -> str | None:
        """The noun naming the object as the subject's attribute ("director" for
        ``film.film.directed_by``: "the director of Jaws"): the table's noun column,
        else the noun of a "has the X" phrase (:func:`has_noun`); None when the
        relation reads only as a verb ("contains")."""
        columns = self._frame_columns(predicate)
        if columns is not None:
            return columns[0]
        return has_noun(self[predicate])

    def kind(self, predicate: str) -> str:
        """What the object of ``predicate`` is (:data:`KINDS`): the table's kind column,
        else "place" for a phrase ending in "born in", "died in", "located in" …,
        "date" for one ending in "on", else "thing"."""
        columns = self._frame_columns(predicate)
        if columns is not None and columns[1]:
            return columns[1]
        if _local_name(predicate).rpartition("..")[2] in BOOKKEEPING_ROLES:
            return "bookkeeping"
        phrase = self[predicate]
        if phrase.endswith(" on") and phrase.startswith(("was ", "were ", "died", "started",
                                                          "ended")):
            return "date"
        if phrase.endswith((" born in", " died in", " located in", " buried in",
                            " based in", " headquarters in")):
            return "place"
        return "thing"

    def unit(self, predicate: str) -> str | None:
        """The unit a number of ``predicate`` is stored in, as the table's fifth column
        gives it ("minutes" for ``film.film_cut.runtime``), or None."""
        columns = self._frame_columns(predicate)
        return columns[2] if columns is not None else None

    def askable(self, predicate: str) -> bool:
        """Whether a question may ask about ``predicate`` or constrain by it: its phrase
        is readable and its object is no bookkeeping value (:data:`KINDS`)."""
        return self.readable(predicate) and self.kind(predicate) != "bookkeeping"

    def role(self, predicate: str) -> str:
        """The role name of a CVT's outgoing ``predicate`` ("actor", "start date"): the
        noun of a "has the X" phrase, else the predicate's words."""
        role = self._roles.get(predicate)
        if role is None:
            noun = self.noun(predicate)
            role = noun or _predicate_words(predicate, self.labels.get(predicate))
            self._roles[predicate] = role
        return role


_V = TypeVar("_V")


def _lookup(table: Mapping[str, _V], key: str, local: str | None = None) -> _V | None:
    found = table.get(key)
    if found is None:
        local = _local_name(key) if local is None else local
        if local != key:
            found = table.get(local)
    return found


def folded_key(outer: str, role: str) -> str:
    """The FB15k-237 id of a hop through a mediator: ``outer..role`` (local names), the
    key of the hop's frame in a phrase table ("is a member of" for a politician's party
    tenure and its party)."""
    return f"{_local_name(outer)}..{_local_name(role)}"


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


_IRREGULAR_PARTICIPLES = frozenset({
    "born", "written", "made", "known", "held", "given", "built", "taken", "shown", "drawn",
    "won", "sung", "done", "seen", "led", "set", "run", "sold", "told", "found", "brought",
    "bought", "taught", "fought", "sent", "kept", "left", "met", "paid", "heard", "spoken",
    "chosen", "broken", "driven", "eaten", "grown", "thrown", "begun", "struck", "bound",
    "played", "buried", "hit", "shot", "put", "read", "worn", "spun", "split"})
"""Past participles that do not end in "-ed": "born in" reads "was born in"."""


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
        local = _property_words(local.rpartition(".")[2])
    elif any(c.islower() for c in local):   # camelCase "birthPlace"; keep ids like "P57"
        local = _CAMEL.sub(" ", local).lower()
    return " ".join(local.replace("_", " ").split()) or predicate


def _property_words(segment: str) -> str:
    """A Freebase property segment as words: "spouse_s" -> "spouse" (Freebase's plural
    marker), "directed_by" -> "directed by"."""
    if segment.endswith("_s"):
        segment = segment[:-2]
    return english.id_words(" ".join(segment.replace("_", " ").split()))


def _phrase_from_words(words: str) -> str:
    """A phrase from a predicate's words, by their grammar: a verb stays as it is
    ("contains"); a past participle before a preposition is passive ("directed by" ->
    "was directed by", "born in" -> "was born in"); a noun ending in "of" is what the
    subject is ("member of" -> "is a member of"); any other noun is what the subject has
    ("profession" -> "has the profession", "place of birth" -> "has the place of
    birth")."""
    if not words:
        return "is related to"
    first, _, rest = words.partition(" ")
    if first in _VERB_STARTS:
        return words
    last = words.rpartition(" ")[2]
    participle = first.endswith("ed") or first in _IRREGULAR_PARTICIPLES
    if participle and rest and (rest.partition(" ")[0] in _PREPOSITIONS
                                or last in _PREPOSITIONS):
        return f"was {words}"   # "directed by", "educated at", "nominated for"
    if words.endswith(" of"):
        return f"is {english.article(words)}"
    if last in _PREPOSITIONS:
        return f"has {words}"   # "music by", "film art direction by": no article
    return f"has the {words}"


def _mediated_phrase(local: str) -> str | None:
    """A FB15k-237 path through a mediator (CVT), ``d.t.p..d.cvt_type.role``, read
    through the mediator's type: "people.person.spouse_s..people.marriage.type_of_union"
    -> "has a marriage with the type of union", "award.award_nomination.nominated_for"
    as the role -> "has an award nomination for". None for any other id."""
    first, sep, second = local.partition("..")
    parts = second.split(".")
    if not sep or len(parts) < 3 or first.count(".") < 2:
        return None
    cvt_type = english.id_words(parts[-2].replace("_", " ").strip())
    role = _property_words(parts[-1])
    role = _TIME_ROLES.get(role, role)   # "with the start date", not "with the from"
    if not cvt_type or not role:
        return None
    if _bookkeeping_type(cvt_type):
        # "has a dated money value with the currency" says nothing a reader can use;
        # the outer property does: "has a net worth with the currency".
        outer = _property_words(re.sub(r"_s$", "", first.rpartition(".")[2]))
        noun = english.singular(outer) if outer else ""
        last = noun.rpartition(" ")[2]
        if noun and last not in _PREPOSITIONS and not last.endswith("ed") and \
                noun != english.singular(role):   # not "has a sibling with the sibling"
            cvt_type = noun
        else:   # "film film distributor relationship" -> "film distributor relationship"
            cvt_type = re.sub(r"\b(\w+) \1\b", r"\1", cvt_type)
    head = f"has {english.article(cvt_type)}"
    role_first, _, role_rest = role.partition(" ")
    role_last = role.rpartition(" ")[2]
    if role_last in _PREPOSITIONS and (role_first.endswith("ed")
                                       or role_first in _IRREGULAR_PARTICIPLES):
        return f"{head} {role_last}"   # "nominated for" -> "has an award nomination for"
    if role_first in _VERB_STARTS:
        return f"{head} that {role}"
    return f"{head} with the {role}"


_TIME_ROLES = {"from": "start date", "to": "end date", "start": "start date", "end": "end date"}
"""Mediator roles named by a preposition (``people.marriage.from``) and the noun a
phrase names them by."""


def _bookkeeping_type(cvt_type: str) -> bool:
    """A mediator type named for how Freebase stores a value, not for what it is
    ("dated money value", "dated integer", "film film distributor relationship",
    "phone sandbox", "film regional release date")."""
    words = cvt_type.split()
    return (len(words) != len(set(words)) or words[0] in ("dated", "adjusted")
            or words[-1] in ("relationship", "sandbox", "value")
            or cvt_type == "film regional release date")


def has_noun(phrase: str) -> str | None:
    """"has the sequel" -> "sequel" (the noun of a "has" phrase), else None."""
    if not phrase.startswith("has "):
        return None
    noun = phrase[4:]
    if noun.startswith(("a ", "an ")) and " with the " in noun:
        noun = noun.partition(" with the ")[2]   # a mediated path: its role
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
    ``film.film_character.portrayed_in_films`` -> "film character",
    ``film.film_film_distributor_relationship.film`` -> "film distributor relationship"
    (a repeated word once); None for other ids
    and for the catch-all types ``common.topic`` and ``type.object``."""
    parts = _local_name(predicate).partition("..")[0].split(".")
    if len(parts) < 3:
        return None
    # "film_film_distributor_relationship": Freebase repeats its domain word; read once
    noun = re.sub(r"\b(\w+) \1\b", r"\1", parts[-2].replace("_", " ").strip())
    return None if not noun or noun in ("topic", "object") else english.type_word(noun)


_ID_LIKE = re.compile(r"\b(?:[PQLM]\d+|[mg]\.[0-9a-z_]+)\b|_|\w\.\w+\.\w|^/m/|^\d+$")
"""What no reader can read: a Wikidata id (P57, Q42), a Freebase MID (m.0abc), an
underscore, a dotted path (film.film.directed_by), a bare number."""


def is_readable(text: str | None) -> bool:
    """Whether ``text`` (a relation phrase or an entity's display name) reads as English:
    not empty and without an id, MID, underscore or dotted path (:data:`_ID_LIKE`)."""
    return bool(text and text.strip()) and _ID_LIKE.search(text or "") is None


_STORE_TABLES: weakref.WeakKeyDictionary[Store, PhraseTable] = weakref.WeakKeyDictionary()


def store_phrase_table(store: Store) -> PhraseTable:
    """The phrase table of ``store``'s predicate labels (Wikidata ``P57`` -> "director"),
    read once per store: what the checks made before any text is written (is this
    relation readable?) consult."""
    table = _STORE_TABLES.get(store)
    if table is None:
        table = _STORE_TABLES[store] = PhraseTable(
            {p.id: p.label for p in store.predicates() if p.label})
    return table


@cache
def _default_table() -> PhraseTable:
    return PhraseTable()


def as_table(phrases: Mapping[str, str] | None) -> PhraseTable:
    if isinstance(phrases, PhraseTable):
        return phrases
    if phrases is None:
        return _default_table()
    return PhraseTable(overrides=phrases)


__all__ = ["PhraseTable", "is_readable", "load_relation_phrases", "relation_phrase"]
