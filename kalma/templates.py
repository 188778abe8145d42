"""Templated text of a KaLMA entry: one sentence per piece of knowledge, and the general
and specific questions, for generation without an LLM (and as the fallback when an LLM
reply is unusable).

App. A.3 turns each piece of knowledge into a simple sentence with one of three
templates, chosen by the part of speech of the relation, and shows the noun one
("X's place of birth is Y"). kgbench's three, by the relation label's part of speech
(:func:`relation_pos`):

* a noun ("place of birth", "spouse"): "A's place of birth is Rome." — several values
  of one relation read "A's films include Cast Away.";
* a verb phrase ("born in", "directed by", "died on"): the relation phrase of
  :mod:`extension.verbalize.relation_phrases` between the names, "A was born in Rome.";
* anything else — a noun with its preposition ("member of", "music by"): "A is a
  member of X." / "A has music by X." — and a value of a CVT (a marriage's start
  date), which :func:`extension.verbalize.citations.hop_sentence` reads through the CVT:
  "A had a marriage with start date 1988."

A CVT's qualifier whose anchor is known (:func:`qualifier_anchor`: the marriage's
spouse for its start date) names it, since a person may have several marriages: "The
start date of A's marriage to B is 1988." The builder adds a qualifier only after its
anchor's CVT is in the minimum knowledge set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal as TypingLiteral

from extension.core.samples import Triple
from extension.verbalize import english
from extension.verbalize.citations import hop_sentence
from extension.verbalize.relation_phrases import PhraseTable, is_readable, type_noun
from kalma.entry import EntityRef, Knowledge

__all__ = ["RelationPos", "general_question", "knowledge_sentence", "possessive",
           "qualifier_anchor", "relation_pos", "specific_question"]

RelationPos = TypingLiteral["noun", "verb", "other"]

_PREPOSITIONS = frozenset({"of", "by", "in", "at", "on", "for", "to", "with", "from", "as",
                           "after", "into", "under", "about", "upon", "through", "within",
                           "near", "via"})
_VERBS = frozenset({"has", "have", "had", "is", "are", "was", "were", "contains", "includes",
                    "uses", "owns", "shares", "follows", "precedes", "replaces", "gave",
                    "directed", "composed", "wrote", "played", "died", "lived", "worked",
                    "studied", "founded", "married", "won"})
_PARTICIPLES = frozenset({"born", "written", "made", "known", "held", "given", "built",
                          "taken", "shown", "drawn", "won", "led", "sold", "found", "taught",
                          "spoken", "chosen", "buried", "played", "employed", "educated",
                          "directed", "produced", "located", "married", "nominated",
                          "awarded", "influenced", "signed", "named", "affiliated"})
_THEMES = {"born": "birth", "died": "death", "married": "marriage", "educated": "education",
           "buried": "burial", "employed": "employment", "spouse": "marriage",
           "performance": "film role", "place of birth": "birthplace",
           "date of birth": "birth", "place of death": "death", "date of death": "death",
           "directed": "films", "gave": "film role"}
"""Nouns for the general question's theme where a label's head is a verb ("born in" ->
"birth") or names something other than the matter ("spouse" -> "marriage")."""
_UNCOUNTED = frozenset({"marriage", "education", "birth", "death", "burial", "employment",
                        "films", "nationality", "gender"})
"""Themes that stay singular after "their" (two people's marriage is one)."""


def relation_pos(label: str) -> RelationPos:
    """The part of speech a relation label reads as: ``verb`` when it starts with a
    verb or a participle before a preposition ("born in", "directed by", "died on",
    "contains"), ``other`` for a noun that ends in a preposition ("member of", "music
    by"), else ``noun`` ("place of birth", "spouse start date")."""
    words = label.split()
    if not words:
        return "other"
    first, last = words[0], words[-1]
    if first in _VERBS or (first in _PARTICIPLES and len(words) > 1):
        return "verb"
    if first.endswith("ed") and len(words) > 1 and words[1] in _PREPOSITIONS:
        return "verb"
    if last in _PREPOSITIONS:
        return "other"
    return "noun"


def possessive(name: str) -> str:
    """``Tom Hanks`` -> "Tom Hanks'", ``Rita Wilson`` -> "Rita Wilson's"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _verb_phrase(k: Knowledge, table: PhraseTable) -> str:
    """The verb phrase of a ``verb`` relation: the store's relation phrase where it is
    made of the label's words ("was born in" for "born in"), else the label, passive
    for a participle ("directed by" -> "was directed by")."""
    phrase = table[k.predicate] if k.predicate and not k.via else ""
    if phrase and is_readable(phrase) and phrase.endswith(k.relation):
        return phrase
    first = k.relation.split()[0]
    if first in _PARTICIPLES and first not in _VERBS or (
            first.endswith("ed") and first not in _VERBS):
        return f"was {k.relation}"
    return k.relation


_PARTNER_PREPOSITIONS = {"marriage": "to", "education": "at", "film role": "in",
                         "employment": "at", "membership": "of"}
"""How a CVT's theme meets its anchor: "marriage to Ethan Hawke", "education at
Harvard University", "film role in Pulp Fiction"; "with" for any other theme."""


def qualifier_anchor(k: Knowledge, pool: Sequence[Knowledge]) -> Knowledge | None:
    """The anchor of a CVT's qualifier: the fact of the same subject through the same
    CVT whose label is the qualifier's label without its last words — "spouse: Ethan
    Hawke" for "spouse start date: 1998", "film: Pulp Fiction" for "film character:
    Mia Wallace". ``None`` for a fact that is no CVT's qualifier (or whose CVT has no
    such anchor, as an education's institution and degree)."""
    if not k.via:
        return None
    for other in pool:
        if (other.via == k.via and other.subject_id == k.subject_id
                and k.relation.startswith(other.relation + " ")):
            return other
    return None


def knowledge_sentence(k: Knowledge, table: PhraseTable, *, several: bool = False,
                       subject: str | None = None, anchor: Knowledge | None = None) -> str:
    """The templated sentence of one piece of knowledge (see the module docstring).
    ``several``: the subject has other values of this relation ("A's films include
    X."); ``subject``: the name to use (default ``k.subject_name``); ``anchor``: for a
    CVT's qualifier, its :func:`qualifier_anchor`, named so that a reader knows which
    marriage or role the value belongs to ("The start date of Uma Thurman's marriage to
    Ethan Hawke is 1998." rather than "Uma Thurman had a marriage with start date
    1998.", which for a person married three times says nothing checkable)."""
    name = subject or k.subject_name
    if anchor is not None and k.relation.startswith(anchor.relation + " "):
        role = k.relation.removeprefix(anchor.relation + " ")
        theme = _theme(k) or anchor.relation
        preposition = _PARTNER_PREPOSITIONS.get(theme, "with")
        return english.sentence(f"The {role} of {possessive(name)} {theme} {preposition} "
                                f"{anchor.object} is {k.object}")
    if k.via and k.object_id is None and k.predicate and "/" in k.predicate:
        outer, _, inner = k.predicate.partition("/")
        triples = [Triple(s=k.subject_id, p=outer, o=k.via, s_name=name),
                   Triple(s=k.via, p=inner, o=k.object, literal=True)]
        text = hop_sentence(triples, {k.via}, table)
        if is_readable(text):
            return text
    pos = relation_pos(k.relation)
    if pos == "verb":
        return english.sentence(f"{name} {_verb_phrase(k, table)} {k.object}")
    if pos == "other":
        if k.relation.endswith(" of"):
            return english.sentence(f"{name} is {english.article(k.relation)} {k.object}")
        return english.sentence(f"{name} has {k.relation} {k.object}")
    if several:
        return english.sentence(f"{possessive(name)} {english.plural(k.relation)} include "
                                f"{k.object}")
    return english.sentence(f"{possessive(name)} {k.relation} is {k.object}")


def _theme(k: Knowledge) -> str | None:
    """What a piece of knowledge is about, as a noun for the general question: the
    CVT's type for a value of one ("marriage", "performance"), else the label's head
    noun, else a noun for its verb ("born in" -> "birth")."""
    if k.via and k.predicate and "/" in k.predicate:
        noun = type_noun(k.predicate.partition("/")[2])
        if noun:
            return _THEMES.get(noun, noun)
    first = k.relation.split()[0] if k.relation.split() else ""
    for word in (k.relation, first):
        if word in _THEMES:
            return _THEMES[word]
    if relation_pos(k.relation) == "noun" and is_readable(k.relation):
        return k.relation
    return None


def general_question(entities: Sequence[EntityRef], knowledge: Sequence[Knowledge],
                     names: dict[str, str] | None = None) -> str:
    """The general question (§2.2: "concise and natural"): who the people are, and the
    themes of the knowledge (at most three): "Who are Tom Hanks and Rita Wilson, and
    what do we know about their marriage, education and professions?". ``names``:
    entity id -> the text that names it (a disambiguated name)."""
    shown = [(names or {}).get(e.id, e.name) for e in entities]
    themes: list[str] = []
    for k in knowledge:
        theme = _theme(k)
        if theme and theme not in themes:
            themes.append(theme)
    themes = [t if len(shown) < 2 or t in _UNCOUNTED else english.plural(t)
              for t in themes[:3]]
    who = f"Who are {english.join(shown)}" if len(shown) > 1 else f"Who is {shown[0]}"
    owner = "their" if len(shown) > 1 else possessive(shown[0])
    if not themes:
        return f"{who}, and how are they connected?" if len(shown) > 1 else f"{who}?"
    return f"{who}, and what do we know about {owner} {english.join(themes)}?"


def _clause(k: Knowledge, name: str) -> str:
    """An indirect question for a verb relation: "when Douglas Adams was born",
    "where Tom Hanks was born", "what Tom Hanks was educated at"."""
    words = k.relation.split()
    last = words[-1]
    phrase = _verb_phrase(k, PhraseTable())
    if last in ("on",) or (last in ("in", "at") and k.object_id is None):
        return f"when {name} {phrase.removesuffix(' ' + last)}"
    if last in ("in", "at") and words[0] in ("born", "died", "buried", "located", "lived"):
        return f"where {name} {phrase.removesuffix(' ' + last)}"
    return f"what {name} {phrase}"


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(n: int) -> str:
    return _NUMBERS[n] if n < len(_NUMBERS) else str(n)


def specific_question(knowledge: Sequence[Knowledge], names: dict[str, str] | None = None,
                      several: frozenset[tuple[str, str]] = frozenset(), *,
                      partial: Mapping[tuple[str, str], tuple[int, bool]] | None = None,
                      anchors: Mapping[tuple[str, str, str], Knowledge] | None = None) -> str:
    """The specific question (§2.2: "a tighter bond to the minimum knowledge set"): it
    names every relation of ``knowledge`` with its subject, nouns as "Tom Hanks'
    spouse and professions", verbs as indirect questions ("when Douglas Adams was
    born"). ``several``: (subject id, relation) pairs with several values (plural).

    It asks for exactly the set, so that every piece is needed and none is missing:
    ``partial`` gives the number of values asked for where the set holds fewer than the
    subject has, and whether the set names others from the other side ("two of
    Christopher Nolan's films", "three things Alfred Hitchcock directed", "two other
    spouses of James Cameron" — not "Christopher Nolan's films", which the set does not
    complete), and
    a CVT qualifier with its anchor in ``anchors`` is asked as "the start date of George
    Lucas' marriage to Marcia Lucas" (not "George Lucas' spouse start dates")."""
    nouns: dict[str, list[str]] = {}
    clauses: list[str] = []
    extra: list[str] = []
    for k in knowledge:
        name = (names or {}).get(k.subject_id, k.subject_name)
        anchor = (anchors or {}).get(k.key())
        asked, others = (partial or {}).get((k.subject_id, k.relation), (None, False))
        if anchor is not None and k.relation.startswith(anchor.relation + " "):
            role = k.relation.removeprefix(anchor.relation + " ")
            theme = _theme(k) or anchor.relation
            phrase = (f"the {role} of {possessive(name)} {theme} "
                      f"{_PARTNER_PREPOSITIONS.get(theme, 'with')} {anchor.object}")
            if phrase not in extra:
                extra.append(phrase)
            continue
        if relation_pos(k.relation) == "verb":
            clause = _clause(k, name)
            if asked is not None and clause.startswith("what "):
                clause = (f"{_count(asked)} {'other ' if others else ''}"
                          f"{'thing' if asked == 1 else 'things'} "
                          f"{clause.removeprefix('what ')}")
            if clause not in clauses:
                clauses.append(clause)
            continue
        if asked is not None:
            noun = k.relation if asked == 1 else english.plural(k.relation)
            phrase = (f"{_count(asked)} other {noun} of {name}" if others
                      else f"{_count(asked)} of {possessive(name)} {english.plural(k.relation)}")
            if phrase not in extra:
                extra.append(phrase)
            continue
        label = (english.plural(k.relation) if (k.subject_id, k.relation) in several
                 else k.relation)
        labels = nouns.setdefault(name, [])
        if label not in labels:
            labels.append(label)
    # A disambiguated name ends in its parenthesis: "the spouse of Anne Hathaway (spouse
    # of William Shakespeare)" reads, "…Shakespeare)'s spouse" does not.
    parts = [f"the {english.join(labels)} of {name}" if name.endswith(")")
             else f"{possessive(name)} {english.join(labels)}" for name, labels in nouns.items()]
    parts += extra
    if not clauses:
        return f"What are {english.join(parts)}?"
    if not parts:
        return f"Can you tell me {english.join(clauses)}?"
    return f"Can you tell me {', '.join(parts)}, and {english.join(clauses)}?"
