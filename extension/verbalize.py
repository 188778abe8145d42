"""Template verbalization: structured samples -> citations, q̃ and ã in plain English.

Reference: Hu et al., *Benchmarking Large Language Models in Complex Question Answering
Attribution using Knowledge Graphs* (CAQA), §4.4 (turning the structured question,
answer and subgraph into natural language) and Table 3 (how many citations each
complexity has). CAQA writes the text with an LLM; this module is the deterministic
default backend (an LLM one, :mod:`extension.llm`, implements the same
:class:`Verbalizer` protocol):

* **citations** — :func:`citation_parts` splits the (edited) subgraph into the parts of
  Table 3: *single* one, *union* one per union branch, *intersection* one per branch,
  *concatenation* one per hop. A hop is one plain fact, or every fact through one CVT
  (mediator) node, which :func:`hop_sentence` folds into one sentence with the CVT's
  non-CVT ends ("The Godfather features a performance with actor Al Pacino and
  character Michael Corleone.");
* **relation phrases** — :func:`relation_phrase`: a curated table
  (``extension/data/relation_phrases.tsv``, :func:`load_relation_phrases`, users
  override it with their own file), else the predicate's label in the store (Wikidata
  ``P57`` -> "director"), else its id (``film.film.directed_by`` -> "was directed by");
* **literals** — :func:`render_literal`: ``"1972-03-24"^^xsd:date`` -> "24 March 1972",
  ``1234567`` -> "1,234,567";
* **questions** — :func:`extended_question` composes q̃ from q and the edge the
  extension rule added (CAQA Table 4); :func:`answer_statement` makes ã.

Every function is pure and deterministic; :class:`TemplateVerbalizer` caches the
phrase of each predicate, so a sample costs tens of microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from extension.samples import AnswerEntity, StructuredSample, Triple

if TYPE_CHECKING:
    from kgstore.store import Store

PHRASES_RESOURCE = "relation_phrases.tsv"
"""The shipped relation-phrase table, in ``extension/data``."""

INVERSE_PREFIX = "^"
"""A table key ``^predicate`` holds the inverse reading, "Object <phrase> Subject"."""


# ---------------------------------------------------------------------------
# Results and protocol


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation: its ``text`` and the ``triples`` (of the sample's subgraph) it
    verbalizes — one part of CAQA Table 3 (see :func:`citation_parts`)."""

    text: str
    triples: tuple[Triple, ...]


@dataclass(frozen=True, slots=True)
class Verbalization:
    """The text of one sample (CAQA §4.4): the extended question q̃ (the original
    question when the rule is ``none``), the answer statement ã, one citation per part
    of the subgraph, one sentence per sub-fact (same order as ``sample.sub_facts``), the
    backend that wrote it (``"template"`` or ``"llm:<model>"``) and, for a backend that
    fell back to templates for some parts, which parts and why."""

    question_extended: str
    answer: str
    citations: tuple[Citation, ...]
    sub_fact_texts: tuple[str, ...]
    backend: str
    fallbacks: tuple[str, ...] = ()


class Verbalizer(Protocol):
    """Anything that turns a structured sample into its text (template or LLM)."""

    name: str

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample``."""
        ...


# ---------------------------------------------------------------------------
# The relation-phrase table


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
            noun = _has_noun(self[predicate])
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


def _has_noun(phrase: str) -> str | None:
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
def _type_noun(predicate: str) -> str | None:
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


def _as_table(phrases: Mapping[str, str] | None) -> PhraseTable:
    if isinstance(phrases, PhraseTable):
        return phrases
    if phrases is None:
        return _default_table()
    return PhraseTable(overrides=phrases)


# ---------------------------------------------------------------------------
# Literals

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_INTEGER_TYPES = frozenset({
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort",
    "unsignedByte"})
_DECIMAL_TYPES = frozenset({"decimal", "double", "float"})
_ZONE = r"(Z|[+-]\d{2}:\d{2})?"
_DATE = re.compile(r"([+-]?)(\d+)-(\d{2})-(\d{2})" + _ZONE)
_DATE_TIME = re.compile(r"([+-]?)(\d+)-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
                        + _ZONE)
_YEAR_MONTH = re.compile(r"([+-]?)(\d+)-(\d{2})" + _ZONE)
_YEAR = re.compile(r"([+-]?)(\d+)" + _ZONE)
_MONTH_DAY = re.compile(r"--(\d{2})-(\d{2})" + _ZONE)
_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?" + _ZONE)


def render_literal(value: str, datatype: str | None, lang: str | None = None) -> str:
    """A literal as a person writes it. ``datatype`` is an XSD type, short
    (``xsd:date``) or full IRI; ``lang`` tags plain text, which is returned as is.

    * ``date`` "1972-03-24" -> "24 March 1972"; ``gYearMonth`` "1972-03" -> "March
      1972"; ``gYear`` "-0044" -> "44 BC"; ``gMonthDay`` "--03-24" -> "24 March";
      ``dateTime`` "1972-03-24T00:00:00Z" -> "24 March 1972" (midnight is Wikidata's
      "no time of day"), else "24 March 1972, 14:30 UTC"; Wikidata's "+1952-00-00"
      (month/day 0: year precision) -> "1952";
    * integers with thousands separators ("1,234,567"); ``decimal``/``double``/``float``
      without trailing zeros or exponent ("194.0" -> "194", "1.5E3" -> "1,500");
    * ``boolean`` -> "yes"/"no";
    * anything else, or a value that does not parse as its type, unchanged.
    """
    del lang   # a language tag does not change how the text reads
    if not datatype:
        return value
    kind = datatype.rpartition("#")[2].removeprefix("xsd:")
    text = value.strip()
    rendered: str | None
    if kind == "date":
        rendered = _render_date(_DATE.fullmatch(text))
    elif kind == "dateTime":
        rendered = _render_date_time(_DATE_TIME.fullmatch(text))
    elif kind == "gYearMonth":
        m = _YEAR_MONTH.fullmatch(text)
        rendered = m and _render_ymd(m.group(1), m.group(2), m.group(3), "00")
    elif kind == "gYear":
        m = _YEAR.fullmatch(text)
        rendered = m and _render_year(m.group(1), m.group(2))
    elif kind == "gMonthDay":
        m = _MONTH_DAY.fullmatch(text)
        rendered = m and _render_month_day(int(m.group(1)), int(m.group(2)))
    elif kind == "time":
        m = _TIME.fullmatch(text)
        rendered = m and _render_clock(m.group(1), m.group(2), m.group(3), m.group(4))
    elif kind in _INTEGER_TYPES:
        rendered = _render_integer(text)
    elif kind in _DECIMAL_TYPES:
        rendered = _render_decimal(text)
    elif kind == "boolean":
        rendered = {"true": "yes", "1": "yes", "false": "no", "0": "no"}.get(text.lower())
    else:
        rendered = None
    return rendered or value


def _render_year(sign: str, digits: str) -> str:
    year = int(digits)
    if sign == "-" or (year == 0 and len(digits) >= 4):
        # Wikidata writes 44 BC as -0044; XSD 1.1's year 0000 is 1 BC
        return f"{year or 1} BC"
    return str(year)


def _render_month_day(month: int, day: int) -> str | None:
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    return f"{day} {_MONTHS[month - 1]}"


def _render_ymd(sign: str, year: str, month: str, day: str) -> str | None:
    y, mo, d = _render_year(sign, year), int(month), int(day)
    if mo == 0:   # Wikidata year precision: "1952-00-00"
        return y if d == 0 else None
    if not 1 <= mo <= 12:
        return None
    if d == 0:
        return f"{_MONTHS[mo - 1]} {y}"
    day_month = _render_month_day(mo, d)
    return day_month and f"{day_month} {y}"


def _render_date(m: re.Match[str] | None) -> str | None:
    return m and _render_ymd(m.group(1), m.group(2), m.group(3), m.group(4))


def _render_clock(hours: str, minutes: str, seconds: str | None, zone: str | None) -> str | None:
    if int(hours) > 24 or int(minutes) > 59 or (seconds and int(seconds) > 60):
        return None
    clock = f"{hours}:{minutes}" + (f":{seconds}" if seconds and seconds != "00" else "")
    if zone:
        clock += " UTC" if zone == "Z" else f" UTC{zone}"
    return clock


def _render_date_time(m: re.Match[str] | None) -> str | None:
    if m is None:
        return None
    date = _render_ymd(m.group(1), m.group(2), m.group(3), m.group(4))
    hours, minutes, seconds, zone = m.group(5, 6, 7, 8)
    if date is None:
        return None
    if hours == "00" and minutes == "00" and seconds in (None, "00"):
        return date
    clock = _render_clock(hours, minutes, seconds, zone)
    return clock and f"{date}, {clock}"


def _render_integer(text: str) -> str | None:
    try:
        return f"{int(text):,}"
    except ValueError:
        return None


def _render_decimal(text: str) -> str | None:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    rendered = format(number, ",f")
    if "." in rendered:
        rendered = rendered.rstrip("0").rstrip(".")
    return "0" if rendered == "-0" else rendered


# ---------------------------------------------------------------------------
# Hops and sentences


def _hops(triples: Sequence[Triple], cvts: Collection[str]) -> list[list[int]]:
    """The hops of ``triples`` as lists of indices: a triple without a CVT end is a hop
    of its own; all triples through one CVT node (and CVTs linked to it) are one hop.
    Hops are ordered by their first triple, indices ascending."""
    group_of: dict[str, int] = {}    # CVT node -> group id
    parent: list[int] = []           # union-find over group ids
    members: list[list[int]] = []

    def find(g: int) -> int:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    for i, t in enumerate(triples):
        keys = [n for n in ((t.s,) if t.literal else (t.s, t.o)) if n in cvts]
        roots = sorted({find(group_of[k]) for k in keys if k in group_of})
        if roots:
            g = roots[0]
            for other in roots[1:]:    # a triple linking two CVTs joins their hops
                parent[other] = g
                members[g].extend(members[other])
                members[other] = []
        else:
            g = len(parent)
            parent.append(g)
            members.append([])
        members[g].append(i)
        for k in keys:
            group_of.setdefault(k, g)
    hops = [sorted(m) for g, m in enumerate(members) if m and parent[g] == g]
    hops.sort(key=lambda h: h[0])
    return hops


def _ends(triples: Sequence[Triple], hop: Sequence[int], cvts: Collection[str]) -> list[str]:
    """The non-CVT entity nodes of a hop (literals are values, never shared nodes)."""
    ends: dict[str, None] = {}
    for i in hop:
        t = triples[i]
        if t.s not in cvts:
            ends[t.s] = None
        if not t.literal and t.o not in cvts:
            ends[t.o] = None
    return list(ends)


def _subject_text(t: Triple) -> str:
    return t.s_name or t.s


def _object_text(t: Triple) -> str:
    return render_literal(t.o, t.datatype, t.lang) if t.literal else (t.o_name or t.o)


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _fact_clause(t: Triple, table: PhraseTable) -> str:
    phrase = table[t.p]
    if t.literal and phrase.endswith(" on") and t.datatype and \
            t.datatype.endswith(("gYear", "gYearMonth")):
        phrase = phrase[:-3] + " in"   # "was born on 1952" -> "was born in 1952"
    return f"{_subject_text(t)} {phrase} {_object_text(t)}"


class _Fold:
    """The facts of one hop through CVT nodes, read as clauses (see :func:`hop_sentence`).
    Each CVT is read once; a CVT that another CVT of the hop points at is read inside
    that one's clause ("… an employment tenure with role a job role with title Actor")."""

    def __init__(self, triples: Sequence[Triple], cvts: Collection[str], table: PhraseTable,
                 type_hints: Mapping[str, str] | None) -> None:
        self.triples, self.cvts, self.table = triples, cvts, table
        self.type_hints = type_hints or {}
        self.done: set[str] = set()

    def noun(self, cvt: str) -> str:
        hint = self.type_hints.get(cvt)
        if hint:
            return hint
        found = (_type_noun(t.p) for t in self.triples if t.s == cvt)
        return next((n for n in found if n), None) or "entry"

    def roles(self, cvt: str, skip: Collection[int]) -> list[str]:
        """``role value`` for each fact of ``cvt`` except those in ``skip`` (by id)."""
        roles = []
        for t in self.triples:
            if id(t) in skip:
                continue
            if t.s == cvt:
                if not t.literal and t.o in self.cvts:
                    if t.o not in self.done:
                        roles.append(f"{self.table.role(t.p)} {self.nested(t.o)}")
                else:
                    roles.append(f"{self.table.role(t.p)} {_object_text(t)}")
            elif not t.literal and t.o == cvt and t.s not in self.cvts:
                roles.append(f"{_type_noun(t.p) or self.table.role(t.p)} {_subject_text(t)}")
        return roles

    def nested(self, cvt: str) -> str:
        self.done.add(cvt)
        roles = self.roles(cvt, ())
        noun = _article(self.noun(cvt))
        return f"{noun} with {_join(roles)}" if roles else noun

    def clause(self, cvt: str) -> str:
        self.done.add(cvt)
        anchor = next((t for t in self.triples if not t.literal and t.o == cvt
                       and t.s not in self.cvts), None)
        if anchor is None:
            roles = self.roles(cvt, ())
            head = _article(self.noun(cvt)).capitalize()
            return f"{head} has {_join(roles)}" if roles else f"{head} is linked to another entry"
        # A Wikidata statement node repeats the statement's property for its main value.
        main = next((t for t in self.triples if t.s == cvt and t.p == anchor.p
                     and (t.literal or t.o not in self.cvts)), None)
        roles = self.roles(cvt, {id(anchor), id(main)})
        phrase = self.table[anchor.p]
        if main is not None:
            clause = f"{_subject_text(anchor)} {phrase} {_object_text(main)}"
            return f"{clause}, with {_join(roles)}" if roles else clause
        verb = "has" if phrase.startswith("has ") else phrase
        clause = f"{_subject_text(anchor)} {verb} {_article(self.noun(cvt))}"
        return f"{clause} with {_join(roles)}" if roles else clause


def _hop_text(triples: Sequence[Triple], cvts: Collection[str], table: PhraseTable,
              type_hints: Mapping[str, str] | None = None) -> str:
    fold = _Fold(triples, cvts, table, type_hints)
    inner = {t.o for t in triples if not t.literal and t.s in cvts and t.o in cvts and t.o != t.s}
    clauses: list[str] = []
    for t in triples:
        ends = (t.s,) if t.literal else (t.s, t.o)
        touched = [n for n in ends if n in cvts]
        if not touched:
            clauses.append(_fact_clause(t, table))
        for cvt in touched:
            if cvt not in fold.done and cvt not in inner:
                clauses.append(fold.clause(cvt))
    for t in triples:   # CVTs only other CVTs point at, in a cycle: read on their own
        for cvt in ((t.s,) if t.literal else (t.s, t.o)):
            if cvt in cvts and cvt not in fold.done:
                clauses.append(fold.clause(cvt))
    return _sentence("; ".join(clauses))


def hop_sentence(triples: Sequence[Triple], cvt_nodes: Collection[str],
                 phrases: Mapping[str, str] | None = None) -> str:
    """One sentence for one hop (CAQA §4.4): a plain fact "S <phrase> O." with entity
    names (ids only where there is no name) and rendered literals; or the facts through
    a CVT node folded with its non-CVT ends: "S <verb> a <CVT type> with <role> <value>
    and <role> <value>." ("The Godfather features a performance with actor Al Pacino
    and character Michael Corleone."); a Wikidata statement node, whose main value
    repeats the statement's property, reads "S <phrase> <value>, with <qualifier>
    <value>". CVT ids never appear. ``phrases``: predicate -> phrase overrides or a
    :class:`PhraseTable` (default: the shipped table)."""
    cvts = cvt_nodes if isinstance(cvt_nodes, (set, frozenset, dict)) else frozenset(cvt_nodes)
    return _hop_text(triples, cvts, _as_table(phrases))


# ---------------------------------------------------------------------------
# Citation parts (CAQA Table 3)


def citation_parts(sample: StructuredSample) -> list[list[Triple]]:
    """``sample.subgraph`` split into the citation parts of CAQA Table 3: *single* ->
    one part; *concatenation* -> one part per hop, from the subject entity on;
    *intersection* and *union* -> one part per branch, i.e. the hops that connect one
    subject entity to the answer node(s), in the order of ``query.subjects``. A hop is
    one plain fact or all facts through one CVT node. Works on edited subgraphs: hops
    no subject reaches (a partial or irrelevant sample) form further parts, one per
    connected piece; without answer nodes (irrelevant samples) the node most hops meet
    at stands in for the answer. Every triple is in exactly one part; the order is
    deterministic."""
    triples = sample.subgraph
    return [[triples[i] for hop in part for i in hop] for part in _part_hops(sample)]


def _part_hops(sample: StructuredSample) -> list[list[list[int]]]:
    """The parts of :func:`citation_parts` as hops of subgraph indices."""
    triples = sample.subgraph
    if not triples:
        return []
    cvts = frozenset(sample.cvt_nodes)
    hops = _hops(triples, cvts)
    if sample.complexity == "single":
        return [hops]
    ends = [_ends(triples, h, cvts) for h in hops]
    incident: dict[str, list[int]] = {}
    for h, nodes in enumerate(ends):
        for n in nodes:
            incident.setdefault(n, []).append(h)
    subjects = [s for s in dict.fromkeys(sample.query.subjects) if s in incident]
    if sample.complexity == "concatenation":
        found = _spread(subjects, incident, ends, blocked=frozenset())
        order = sorted(range(len(hops)),
                       key=lambda h: (found[h][1] if h in found else len(hops), hops[h][0]))
        return [[hops[h]] for h in order]
    answers = {a.id for a in sample.answer_entities if a.id}
    if sample.edit.replacement is not None and sample.edit.replacement.id:
        answers.add(sample.edit.replacement.id)
    hubs = frozenset(a for a in answers if a in incident) or _guess_hub(incident, subjects)
    found = _spread(subjects, incident, ends, blocked=hubs)
    parts: list[list[list[int]]] = [[] for _ in subjects]
    for h, (branch, _) in sorted(found.items(), key=lambda item: (item[1][1], hops[item[0]][0])):
        parts[branch].append(hops[h])
    parts = [p for p in parts if p]
    rest = [h for h in range(len(hops)) if h not in found]
    parts.extend([[hops[h] for h in piece] for piece in _pieces(rest, ends, incident, hubs)])
    return parts


def _spread(subjects: Sequence[str], incident: Mapping[str, list[int]],
            ends: Sequence[Sequence[str]], blocked: frozenset[str]) -> dict[int, tuple[int, int]]:
    """Breadth-first from all subjects at once: hop -> (index of the subject that
    reached it first, distance in hops). Ties go to the earlier subject; ``blocked``
    nodes (the answers) are reached but not passed through, so branches stay apart."""
    found: dict[int, tuple[int, int]] = {}
    seen = set(subjects)
    frontier = list(enumerate(subjects))
    distance = 0
    while frontier:
        following: list[tuple[int, str]] = []
        for branch, node in frontier:
            for h in incident.get(node, ()):
                if h in found:
                    continue
                found[h] = (branch, distance)
                for n in ends[h]:
                    if n not in seen and n not in blocked:
                        seen.add(n)
                        following.append((branch, n))
        frontier = following
        distance += 1
    return found


def _guess_hub(incident: Mapping[str, list[int]], subjects: Sequence[str]) -> frozenset[str]:
    """Where the branches of a subgraph without answer nodes meet: the non-subject node
    on most hops (at least two; the first such in subgraph order on ties)."""
    best, most = None, 1
    for node, hs in incident.items():   # insertion order = subgraph order
        if len(hs) > most and node not in subjects:
            best, most = node, len(hs)
    return frozenset({best}) if best is not None else frozenset()


def _pieces(hops: Sequence[int], ends: Sequence[Sequence[str]],
            incident: Mapping[str, list[int]], blocked: frozenset[str]) -> list[list[int]]:
    """``hops`` grouped into connected pieces (joined through non-blocked nodes),
    ordered by their first hop."""
    todo = set(hops)
    pieces: list[list[int]] = []
    for start in hops:
        if start not in todo:
            continue
        todo.discard(start)
        piece, stack = [start], [start]
        while stack:
            for n in ends[stack.pop()]:
                if n in blocked:
                    continue
                for h in incident[n]:
                    if h in todo:
                        todo.discard(h)
                        piece.append(h)
                        stack.append(h)
        pieces.append(sorted(piece))
    return pieces


# ---------------------------------------------------------------------------
# Questions and answers


def extended_question(question: str, added: Sequence[Mapping[str, str]],
                      names: Mapping[str, str], phrases: Mapping[str, str] | None,
                      rule: str, *, subjects: Sequence[str] = ()) -> str:
    """The extended question q̃ of CAQA Table 4, composed from the original ``question``
    and the edges the rule ``added`` (``{source, predicate, target}``, one end a query
    variable such as ``?v1`` or ``?x``):

    * ``none`` -> ``question`` unchanged;
    * ``union`` -> q with the same-name ``subjects`` spelt out: "…, for each of the 2
      entities named John Williams?";
    * ``intersection_way1`` (``(e1, rn, ?v)`` prepended, ?v the old subject e0): e0's
      mention in q becomes a description of ?v — "who directed the godfather?" ->
      "who directed the film whose sequel is The Godfather Part II?"; when q does not
      spell e0's name, the description is appended ("…, where <e0> is the film whose
      …?");
    * ``intersection_way2`` (``(e1, rn, ?a)`` on the answer) -> "<q>, the person who is
      a citizen of United States of America?".

    ``names`` maps ids to display names and may map a variable to the name of the
    entity it stands for (way 1: ``?v1`` -> e0's name); ``phrases`` as in
    :func:`hop_sentence`. Raises :class:`ValueError` for an unknown rule."""
    if rule == "none":
        return question
    if rule == "union":
        if not subjects:
            return question
        name = names.get(subjects[0], subjects[0])
        return f"{_stem(question)}, for each of the {len(subjects)} entities named {name}?"
    if rule not in ("intersection_way1", "intersection_way2"):
        raise ValueError(f"unknown extension rule {rule!r}")
    table = _as_table(phrases)
    text = question
    for edge in added:
        source, predicate, target = edge["source"], edge["predicate"], edge["target"]
        var_is_subject = source.startswith("?")
        var, other = (source, target) if var_is_subject else (target, source)
        description = _description(var_is_subject, predicate, names.get(other, other), table)
        if rule == "intersection_way2":
            text = f"{_stem(text)}, {description}?"
            continue
        old = names.get(var)
        span = _mention(text, old) if old else None
        if span is not None:
            start, end = span
            text = f"{text[:start]}{description}{text[end:]}"
        elif old:
            text = f"{_stem(text)}, where {old} is {description}?"
        else:
            text = f"{_stem(text)}, for {description}?"
    return text


def _stem(text: str) -> str:
    return text.strip().rstrip("?").rstrip()


def _description(var_is_subject: bool, predicate: str, other: str, table: PhraseTable) -> str:
    """A noun phrase for a variable by its one edge to ``other``."""
    phrase = table[predicate]
    noun = _has_noun(phrase)
    if var_is_subject:
        kind = _type_noun(predicate) or "one"
        if noun:
            return f"the {kind} whose {noun} is {other}"
        return f"the {kind} {'who' if kind == 'person' else 'that'} {phrase} {other}"
    inverse = table.inverse(predicate)
    if inverse:
        return f"the one that {inverse} {other}"
    if noun:
        return f"the {noun} of {other}"
    return f"the one that {other} {phrase}"


def _mention(text: str, name: str) -> tuple[int, int] | None:
    """Where ``name`` occurs in ``text`` as whole words (ignoring case), with a "the "
    before it included; tries the name without its own leading "The " too."""
    lowered = text.lower()
    candidates = [name.lower()]
    if candidates[0].startswith("the "):
        candidates.append(candidates[0][4:])
    for wanted in candidates:
        start = lowered.find(wanted) if wanted else -1
        while start >= 0:
            end = start + len(wanted)
            if (start == 0 or not lowered[start - 1].isalnum()) and \
                    (end == len(lowered) or not lowered[end].isalnum()):
                if lowered[:start].endswith("the ") and not wanted.startswith("the "):
                    start -= 4
                return start, end
            start = lowered.find(wanted, start + 1)
    return None


def answer_statement(question: str, answers: Sequence[AnswerEntity]) -> str:
    """The answer statement ã (CAQA §4.4): ``question`` and its answers as one
    declarative sentence — 'The answer to "who directed the godfather?" is Francis Ford
    Coppola.', 'The answers to "…" are A, B and C.'. Entities by name (their id where
    there is none), literal values rendered (:func:`render_literal`)."""
    texts = [_answer_text(a) for a in answers]
    if not texts:
        return f'The question "{question}" has no answer.'
    if len(texts) == 1:
        return _sentence(f'The answer to "{question}" is {texts[0]}')
    return _sentence(f'The answers to "{question}" are {_join(texts)}')


def _answer_text(a: AnswerEntity) -> str:
    if a.value is not None:
        return render_literal(a.value, a.datatype, a.lang)
    return a.name or a.id or ""


# ---------------------------------------------------------------------------
# The template verbalizer


class TemplateVerbalizer:
    """The deterministic template backend of :class:`Verbalizer` (``name`` "template"):
    citations by :func:`citation_parts` and :func:`hop_sentence`, q̃ by
    :func:`extended_question`, ã by :func:`answer_statement`. ``predicate_labels``
    (predicate -> store label) name predicates the phrase table does not cover;
    ``overrides`` (predicate -> phrase) take precedence over the shipped table."""

    name: str = "template"

    def __init__(self, predicate_labels: Mapping[str, str] | None = None,
                 overrides: Mapping[str, str] | None = None) -> None:
        self.phrases = PhraseTable(predicate_labels, overrides)

    @classmethod
    def from_store(cls, store: Store, overrides_file: Path | None = None) -> TemplateVerbalizer:
        """A verbalizer with the predicate labels of ``store`` (``store.predicates()``,
        e.g. Wikidata ``P57`` -> "director") and, if given, the user phrase file
        ``overrides_file`` (format of :func:`load_relation_phrases`)."""
        labels = {p.id: p.label for p in store.predicates() if p.label}
        overrides = load_relation_phrases(overrides_file) if overrides_file is not None else None
        return cls(labels, overrides)

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample`` (see :class:`Verbalization`)."""
        cvts = frozenset(sample.cvt_nodes)
        table = self.phrases
        context = (*sample.original_subgraph, *sample.subgraph)
        hints = _cvt_type_hints(context, cvts)
        # A plain fact reads the same in a citation and as a sub-fact: render it once.
        facts: dict[tuple[str, str, str, str | None], str] = {}

        def text_of(hop: Sequence[Triple]) -> str:
            if len(hop) == 1 and (t := hop[0]).s not in cvts and (t.literal or t.o not in cvts):
                key = (t.s, t.p, t.o, t.datatype)
                found = facts.get(key)
                if found is None:
                    found = facts[key] = _sentence(_fact_clause(t, table))
                return found
            return _hop_text(hop, cvts, table, hints)

        triples = sample.subgraph
        citations = []
        for part in _part_hops(sample):
            part_triples = [[triples[i] for i in hop] for hop in part]
            citations.append(Citation(text=" ".join(text_of(hop) for hop in part_triples),
                                      triples=tuple(t for hop in part_triples for t in hop)))
        anchors = _cvt_anchors(context, cvts)
        sub_fact_texts = tuple(text_of(_sub_fact_hop(s.triple, cvts, anchors))
                               for s in sample.sub_facts)
        question = extended_question(sample.source.question, sample.query.added,
                                     _question_names(sample), table, sample.query.rule,
                                     subjects=sample.query.subjects)
        return Verbalization(question_extended=question,
                             answer=answer_statement(question, sample.answer_entities),
                             citations=tuple(citations), sub_fact_texts=sub_fact_texts,
                             backend=self.name)


def _cvt_type_hints(triples: Sequence[Triple], cvts: Collection[str]) -> dict[str, str]:
    """CVT -> its type noun, from the Freebase ids of its outgoing facts (so a CVT whose
    outgoing facts an edit deleted still reads "a marriage")."""
    hints: dict[str, str] = {}
    for t in triples:
        if t.s in cvts and t.s not in hints and (noun := _type_noun(t.p)):
            hints[t.s] = noun
    return hints


def _cvt_anchors(triples: Sequence[Triple], cvts: Collection[str]) -> dict[str, Triple]:
    """CVT -> the first fact pointing at it from a non-CVT node."""
    anchors: dict[str, Triple] = {}
    for t in triples:
        if not t.literal and t.o in cvts and t.s not in cvts:
            anchors.setdefault(t.o, t)
    return anchors


def _sub_fact_hop(t: Triple, cvts: Collection[str], anchors: Mapping[str, Triple]
                  ) -> list[Triple]:
    """What a sub-fact's sentence verbalizes: the fact itself, and for a fact leaving a
    CVT also the fact anchoring that CVT ("The Godfather features a performance with
    actor Al Pacino."), since "a performance has actor Al Pacino" alone says nothing
    checkable."""
    anchor = anchors.get(t.s) if t.s in cvts else None
    if anchor is None or (anchor.s, anchor.p, anchor.o) == (t.s, t.p, t.o):
        return [t]
    return [anchor, t]


def _question_names(sample: StructuredSample) -> dict[str, str]:
    """The display names :func:`extended_question` needs: the first subject (union) or
    the ends of the added edges, and for ``intersection_way1`` the prepended variable ->
    the name of the old subject it stands for. From the sample's triples, answers and
    query constants; an id without a name is left out (shown as the id)."""
    query = sample.query
    if query.rule == "none":
        return {}
    wanted: dict[str, list[str]] = {}   # entity id -> the keys to give its name
    if query.rule == "union":
        for s in query.subjects[:1]:
            wanted.setdefault(s, []).append(s)
    for edge in query.added:
        source, target = str(edge["source"]), str(edge["target"])
        other = target if source.startswith("?") else source
        wanted.setdefault(other, []).append(other)
    if query.rule == "intersection_way1" and query.extended and query.added:
        extended_ids = {n.get("id") for n in _json_nodes(query.extended[0])}
        old = [str(n["id"]) for n in _json_nodes(query.original)
               if n.get("kind") == "entity" and n.get("id") not in extended_ids]
        if old:
            for edge in query.added:
                source = str(edge["source"])
                var = source if source.startswith("?") else str(edge["target"])
                wanted.setdefault(old[0], []).append(var)
    names: dict[str, str] = {}

    def give(id: str, name: str | None) -> None:
        if name and id in wanted:
            for key in wanted.pop(id):
                names[key] = name

    for t in (*sample.original_subgraph, *sample.subgraph):
        if not wanted:
            return names
        give(t.s, t.s_name)
        give(t.o, t.o_name)
    for a in sample.answer_entities:
        if a.id:
            give(a.id, a.name)
    for graph in (*query.extended, query.original):
        for node in _json_nodes(graph):
            name = node.get("name")
            give(str(node.get("id")), name if isinstance(name, str) else None)
    return names


def _json_nodes(graph: object) -> list[dict[str, object]]:
    nodes = graph.get("nodes", []) if isinstance(graph, Mapping) else []
    return [n for n in nodes if isinstance(n, dict)]


__all__ = [
    "Citation", "PhraseTable", "TemplateVerbalizer", "Verbalization", "Verbalizer",
    "answer_statement", "citation_parts", "extended_question", "hop_sentence",
    "load_relation_phrases", "relation_phrase", "render_literal",
]
