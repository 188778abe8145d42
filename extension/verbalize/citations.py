"""Citation text: the subgraph split into the parts of CAQA Table 3, and each hop as a sentence.

:func:`citation_parts` splits the (edited) subgraph into the parts of Table 3 (Hu et
al., *CAQA*, §4.4): *single* one, *union* one per union branch, *intersection* one per
branch, *concatenation* one per hop. A hop is one plain fact, or every fact through one
CVT (mediator) node, which :func:`hop_sentence` folds into one sentence with the CVT's
non-CVT ends ("The Godfather features a performance with actor Al Pacino and character
Michael Corleone.").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from extension.core.samples import StructuredSample, Triple
from extension.verbalize import english
from extension.verbalize.descriptions import GENRE_MEDIUM, genre_kind
from extension.verbalize.fact_readings import education_clause, played_clause
from extension.verbalize.literals import render_literal, with_unit
from extension.verbalize.realise_words import PLACE_NOUNS, is_passive
from extension.verbalize.relation_phrases import (
    PhraseTable,
    _local_name,
    _property_words,
    as_table,
    folded_key,
    has_noun,
    type_noun,
)


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
    shown = english.mention(t.s_name) or t.s
    # a group that speaks or lives somewhere is its people ("spoken by Russian
    # Americans"); the group a person belongs to keeps its name
    people = t.p.startswith("people.ethnicity.") and t.p != "people.ethnicity.people"
    return english.people_name(shown) if people else shown


def _object_text(t: Triple, table: PhraseTable) -> str:
    if t.literal:
        return with_unit(render_literal(t.o, t.datatype, t.lang), table.unit(t.p))
    return english.mention(t.o_name) or t.o


def fact_clause(t: Triple, table: PhraseTable) -> str:
    """``t`` as a clause a person writes (no full stop); a film in a genre that is a
    common noun as a kind of film ("Jaws is an adventure film", :func:`genre_kind`)."""
    clause = _fact_clause(t, table)
    found = _IN_GENRE.fullmatch(clause) if t.p in GENRE_MEDIUM else None
    kind = genre_kind(found.group(2), GENRE_MEDIUM[t.p]) if found else None
    return f"{found.group(1)} is {kind}" if found and kind else clause

_IN_GENRE = re.compile(r"(.+) is in the genre (.+)")
_READ_FROM_OBJECT = frozenset({("is the subject of", "is about"),
                               ("is performed by", "is known for")})
"""(phrase, inverse) of relations a person states from their object."""


def _fact_clause(t: Triple, table: PhraseTable) -> str:
    if played := played_clause(t):
        return played
    if (table[t.p], table.inverse(t.p)) in _READ_FROM_OBJECT:
        # "District 9 is about South Africa", not "South Africa is the subject of
        # District 9" (blind round 50); "Kelly Clarkson is known for country", not
        # "Country is performed by Kelly Clarkson" (round 64: 3)
        return f"{_object_text(t, table)} {table.inverse(t.p)} {_subject_text(t)}"
    reverse = None if t.literal else table.partner(t.p)
    if reverse is not None and not _CONTAINER.match(table[reverse]):
        # Said from the other end, by the frame of its reverse property: "Newton is in
        # the time zone Eastern Time Zone", not "Eastern Time Zone is the time zone of
        # Newton" (both true; the first is how a person states it).
        t = Triple(s=t.o, p=reverse, o=t.s, s_name=t.o_name, o_name=t.s_name)
    elif reverse is None and not t.literal and _CONTAINER.match(table[t.p]) \
            and (inverse := table.inverse(t.p)):
        # A container read from what it holds: "Minnesota is located in the United
        # States of America", "Wanted is in the genre Action Film", not "… contains
        # Minnesota", "Action Film includes the film Wanted" (template style to readers
        # of blind round 6).
        other = _object_text(t, table)
        return f"{other} {english.phrase_before(inverse, _subject_text(t))} {_subject_text(t)}"
    back = None if t.literal or reverse is not None else table.reverse(t.p)
    if back and _OF_PHRASE.fullmatch(table[t.p]) and _HAS_PHRASE.fullmatch(table[back]):
        # "Barack Obama works as a lawyer", not "Lawyer is the profession of Barack Obama"
        t = Triple(s=t.o, p=back, o=t.s, s_name=t.o_name, o_name=t.s_name)
    other = _object_text(t, table)
    attribute = _HAS_PHRASE.fullmatch(table[t.p])
    inverse = None if t.literal else table.inverse(t.p)
    if inverse and is_passive(inverse) and re.match(r"ha[sd] ", table[t.p]) \
            and not t.p.startswith("people.ethnicity."):
        # "Arabic is spoken in Egypt", "Hook was nominated for the Academy Award for
        # Best Sound", not "Egypt has Arabic as a spoken language", "… had the nominee
        # Hook" (blind round 33: 3 in 13 ratings); an ethnic group keeps its own frame
        # ("Armenians have Persian as a spoken language": its name is singular)
        return f"{other} {inverse} {_subject_text(t)}"
    if attribute and t.literal:   # "The population of X is …", "X has 4 children."
        if count := english.counted(attribute.group(1), other):
            return f"{_subject_text(t)} has {count}"
        return f"the {attribute.group(1)} of {_subject_text(t)} is {other}"
    if attribute:   # "Egypt has Arabic as a spoken language"
        return f"{_subject_text(t)} " \
               f"{english.attribute_phrase(attribute.group(1), [other], _group(t))}"
    phrase = _dated_phrase(t, table)
    if phrase == "had a crew member in the role of" and not t.literal \
            and not other.endswith("s") and (   # not "a special effects" (round 39: 2)
            english.PLAIN_NOUN.fullmatch(other) or english.TITLED_KIND.fullmatch(other)):
        # "Star Trek had an animator on its crew", not "… had a crew member in the role
        # of Animator" (blind round 32: 3 in five of six ratings)
        return f"{_subject_text(t)} had {english.article(other.lower())} on its crew"
    if _group(t):   # "Korean people are found in Japan" (round 43: "… is found", 3)
        phrase = english.agree(phrase, True)
    return f"{_subject_text(t)} {english.phrase_before(phrase, other)} {other}"


def _group(t: Triple) -> bool:
    """Whether ``t``'s subject is a people named in the plural ("Armenians", "Irish
    people"): "Armenians have Russian as a spoken language"."""
    name = _subject_text(t)
    return t.p.startswith("people.ethnicity.") and (name.endswith("s") or name.endswith(" people"))


_HAS_PHRASE = re.compile(r"has the ((?:[\w-]+ )*(?!(?:of|by|in|for|to|with|from|on|at)$)[\w-]+)")
"""A "has the <noun>" frame whose noun does not end in a preposition."""
_OF_PHRASE = re.compile(r"(?:is|was) the [\w -]+ of")


_CONTAINER = re.compile(r"(?:partially )?contains$|includes\b")
"""Phrases of a relation from a container to what it holds."""


def _dated_phrase(t: Triple, table: PhraseTable) -> str:
    """``t``'s phrase, "on" made "in" before a year or a month ("was born in 1952")."""
    phrase = table[t.p]
    if t.literal and phrase.endswith(" on") and t.datatype and \
            t.datatype.endswith(("gYear", "gYearMonth")):
        phrase = phrase[:-3] + " in"
    return phrase


def _role(the: str, role: str, value: str) -> str:
    """A mediator's role and its value ("actor Al Pacino", "the runtime 201 minutes");
    a value with its own "the" stands alone ("the United Kingdom", not "the country the
    United Kingdom")."""
    if the and value.startswith("the "):
        return value
    return f"{the}{role} {value}"


def exhaustive_sentence(triples: Sequence[Triple], table: PhraseTable, *,
                        inverse: bool = False) -> str:
    """One sentence stating ``triples`` (one subject, one predicate) as all the values
    the subject has for the predicate: "Egypt's only form of government is Monarchy.",
    "Jamaica's only spoken languages are Spanish and French." for a "has the X" phrase,
    else "German is spoken in Chile only." The citation of an exhaustive contradiction
    (:func:`extension.core.contradiction.exhaustive_slot`): without "only", "Spanish is
    spoken in Jamaica" would sit beside the answer's language instead of denying it.
    ``inverse``: the facts are read from their object, by the relation's inverse
    phrase ("Rob Minkoff directed The Shawshank Redemption" as "The Shawshank
    Redemption was directed by Rob Minkoff only")."""
    first = triples[0]
    phrase = table.inverse(first.p) if inverse else None
    held = _HELD.fullmatch(phrase) if phrase else None
    if phrase and held:   # "Massachusetts' only time zone is Central Time Zone."
        return _owner_sentence(_object_text(first, table), held.group(1),
                               [_subject_text(t) for t in triples])
    if phrase:
        subjects = english.join([_subject_text(t) for t in triples])
        forward = table[first.p]
        if _OF_PHRASE.fullmatch(phrase) and re.match(r"(?:was|were) \w+ (?:in|on|at)$", forward):
            # "Only A and B were born in Kansas City.", not "Kansas City is the
            # birthplace only of A and B" (blind round 59: 3 from both readers)
            return english.sentence(f"Only {subjects} "
                                    f"{english.agree(forward, len(triples) > 1)} "
                                    f"{_object_text(first, table)}")
        return _only_sentence(_object_text(first, table), phrase, subjects, len(triples))
    subject = _subject_text(first)
    objects = english.join([_object_text(t, table) for t in triples])
    own = table[first.p]
    noun = has_noun(own)
    ending = _HELD.fullmatch(own)
    if noun is None and ending and ending.group(1).rpartition(" ")[2] not in PLACE_NOUNS:
        noun = ending.group(1)   # "Kansas's only time zone is …", "… only religion is …"
    # a place: "Scotland is only in the United Kingdom", not "Scotland's only country is
    # the United Kingdom" (blind round 30: 3 of 5)
    if noun is None and not first.literal and table.kind(first.p) == "person":
        # "Jaws' only director is Steven Spielberg", "Toy Story's only composer is Randy
        # Newman", not "… was directed only by …", "… has music only by …" (blind round
        # 22 rated those 3: stilted)
        noun = table.noun(first.p)
    if noun is None and not first.literal and re.fullmatch(r"is an? \w+ of", own):
        # "Robin Wright's only country of citizenship is the United Kingdom", not "…
        # is a citizen only of …" (blind round 25 rated it 3 in 18 ratings)
        noun = table.noun(first.p)
    if noun is None:
        phrase = _dated_phrase(first, table)
        if ending:   # "is only in the United Kingdom", not "is in the country the …"
            phrase = phrase.partition(" the ")[0]
        return _only_sentence(subject, phrase, objects, len(triples),
                              language=table.noun(first.p) == "language")
    return _owner_sentence(subject, noun, [_object_text(t, table) for t in triples],
                           people=first.p.startswith("people.ethnicity."))


_HELD = re.compile(r"(?:is in|follows|plays|performs in) the ((?:[\w ]+ )?(?!(?:of|by|in|at|on|"
                   r"for|to|with|from|into)$)\w+)")
"""A phrase whose object is one of the subject's things of a kind ("is in the time zone",
"follows the religion"): stated whole as "<subject>'s only <kind> is …"."""


def _owner_sentence(subject: str, noun: str, objects: Sequence[str], *,
                    people: bool = False) -> str:
    """"Egypt's only form of government is Monarchy.", "Jamaica's only spoken languages
    are Spanish and French."; ``people``: the subject is an ethnic group, whose language
    is spoken by it ("Armenian is the only language spoken by Armenians", not "spoken in
    Armenians": blind rounds 42-43)."""
    many = len(objects) > 1
    kinds = english.kind_values(noun, objects)
    if kinds and noun == "profession":   # "John Hurt works as an actor and has no other …"
        comma = "," if len(kinds) > 1 else ""
        return english.sentence(english.sentence_start(
            f"{subject} works as {english.join(kinds)}{comma} and has no other profession"))
    if clause := _ONLY_CLAUSES.get(noun):
        # "The United Kingdom is the only country Robin Wright is a citizen of.", "Irish
        # is the only language spoken in Ireland." (blind round 34: "X's only country
        # of citizenship is Y", "… only spoken language …" and "works only as" rated 3
        # in 24 ratings, "stilted")
        head = english.plural(clause[0]) if many else clause[0]
        tail = clause[1].replace("spoken in", "spoken by") if people else clause[1]
        return english.sentence(english.sentence_start(
            f"{english.join(list(objects))} {'are' if many else 'is'} the only {head} "
            f"{tail.format(subject)}"))
    objects = kinds or objects   # "Egypt's only form of government is a monarchy."
    noun = english.plural(noun) if many else noun
    return english.sentence(english.sentence_start(
        f"{english.possessive(subject)} only {noun} {'are' if many else 'is'} {english.join(list(objects))}"))


_ONLY_CLAUSES = {"country of citizenship": ("country", "{} is a citizen of"),
                 "spoken language": ("language", "spoken in {}")}
"""Nouns whose whole slot reads as "<value> is the only <head> <clause>"."""

_PREPOSITIONS = frozenset({"of", "by", "in", "at", "on", "for", "to", "with", "from", "into"})


def _only_sentence(subject: str, phrase: str, objects: str, count: int, *,
                   language: bool = False) -> str:
    """"<subject> <phrase> <objects>" said as all there is (:func:`_only`); a place's
    teams by where they are based: "The only team based in Japan is the Japan national
    football team." ("Japan is home only to …" was rated 3 by both readers of round
    30); a language as the idiom says it: "Iris is in English only"."""
    if phrase == "is in" and language:   # "Iris is in English only" (round 32: "is only
        # in English" rated 3; a place keeps "Scotland is only in the United Kingdom")
        return english.sentence(english.sentence_start(f"{subject} is in {objects} only"))
    if phrase == "is the home of":
        teams, be = ("teams", "are") if count > 1 else ("team", "is")
        return english.sentence(f"The only {teams} based in {subject} {be} {objects}")
    return english.sentence(english.sentence_start(f"{subject} {_only(phrase, objects)}"))


def _only(phrase: str, objects: str) -> str:
    """``phrase`` and its ``objects`` with "only" where a writer puts it: before the
    phrase's last preposition ("is a citizen only of the United Kingdom", "was directed
    only by Rob Minkoff"), after a lone verb ("speaks only English"); else at the end.
    Readers of blind rounds 5-6 found a trailing "only" odd ("directed Chinatown only")."""
    words = phrase.split()
    if len(words) >= 2 and words[-1] in _PREPOSITIONS:
        return f"{' '.join(words[:-1])} only {words[-1]} {objects}"
    if len(words) == 1 and english.base_form(words[0]) is not None:
        return f"{phrase} only {objects}"
    return f"{phrase} {objects} only"


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
            return english.id_words(hint)   # "regular tv appearance": "regular TV …"
        found = (type_noun(t.p) for t in self.triples if t.s == cvt)
        noun = next((n for n in found if n), None)
        if noun is None:   # only facts into it: the property that points at it names it
            into = [t.p for t in self.triples if not t.literal and t.o == cvt]
            words = [_property_words(_local_name(p).rpartition(".")[2]) for p in into]
            noun = next((english.id_words(english.singular(w)) for w in words if w), None)
        return noun or "record"

    def roles(self, cvt: str, skip: Collection[int], the: str = "") -> list[str]:
        """``role value`` for each fact of ``cvt`` except those in ``skip`` (by id);
        ``the`` before each role ("has the film X and the runtime 201 minutes")."""
        roles = []
        for t in self.triples:
            if id(t) in skip:
                continue
            if t.s == cvt:
                if not t.literal and t.o in self.cvts:
                    if t.o not in self.done:
                        roles.append(f"{the}{self.table.role(t.p)} {self.nested(t.o)}")
                else:
                    roles.append(_role(the, self.table.role(t.p), _object_text(t, self.table)))
            elif not t.literal and t.o == cvt and t.s not in self.cvts:
                roles.append(_role(the, type_noun(t.p) or self.table.role(t.p),
                                   _subject_text(t)))
        return roles

    def nested(self, cvt: str) -> str:
        self.done.add(cvt)
        roles = self.roles(cvt, ())
        noun = english.article(self.noun(cvt))
        return f"{noun} with {english.join(roles)}" if roles else noun

    def folded(self, cvt: str) -> str | None:
        """A hop of one role read as the folded relation FB15k-237 names it, when a
        table has its frame ("The Grudge was released in New Zealand", not "… has a
        film regional release date with film release region New Zealand"), or None.
        The role may point into the mediator, as a store with Freebase's reverse facts
        keeps it (an award's ``nominees`` beside the nominee's ``award_nominations``):
        it is then read from the mediator by its reverse property ("James Franco was
        nominated for the MTV Movie Award for Best Comedic Performance", not "… has an
        award nomination with award …")."""
        outgoing = [t for t in self.triples if t.s == cvt and (t.literal or t.o not in self.cvts)]
        incoming = [t for t in self.triples if not t.literal and t.o == cvt
                    and t.s not in self.cvts]
        pairs: list[tuple[Triple, Triple]] = []
        if len(outgoing) == 1 and len(incoming) == 1:
            pairs.append((incoming[0], outgoing[0]))
        elif not outgoing and len(incoming) == 2:
            for anchor, other in (incoming, incoming[::-1]):
                back = self.table.reverse(other.p)
                if back is not None:
                    pairs.append((anchor, Triple(s=cvt, p=back, o=other.s,
                                                 o_name=other.s_name)))
        elif not incoming and len(outgoing) == 2:
            # Nothing points into the mediator (a store with the facts of one direction
            # only): one role read back by its reverse property anchors it ("Clark
            # Gable was married to Carole Lombard", not "A marriage has the spouse Clark
            # Gable and the spouse Carole Lombard").
            for first, role in (outgoing, outgoing[::-1]):
                back = None if first.literal else self.table.reverse(first.p)
                if back is not None:
                    pairs.append((Triple(s=first.o, p=back, o=cvt, s_name=first.o_name), role))
        for anchor, role in pairs:
            key = folded_key(anchor.p, role.p)
            if self.table.curated(key):
                return fact_clause(role.model_copy(update={
                    "s": anchor.s, "p": key, "s_name": anchor.s_name}), self.table)
        return None

    def clause(self, cvt: str) -> str:
        self.done.add(cvt)
        anchor = next((t for t in self.triples if not t.literal and t.o == cvt
                       and t.s not in self.cvts), None)
        if anchor is None:   # "A film cut has the film X and the runtime 201 minutes."
            roles = self.roles(cvt, (), the="the ")
            if len(roles) == 2 and (folded := self.folded(cvt)) is not None:
                return folded
            head = english.capitalized(english.article(self.noun(cvt)))
            return f"{head} has {english.join(roles)}" if roles else f"{head} is linked to another entry"
        if anchor.p == "people.person.education":
            held = [t for t in self.triples if t.s == cvt]
            found = {t.p: _object_text(t, self.table) for t in held}
            if len(found) == len(held) and (
                    studied := education_clause(_subject_text(anchor), found)):
                return studied
        # A Wikidata statement node repeats the statement's property for its main value.
        main = next((t for t in self.triples if t.s == cvt and t.p == anchor.p
                     and (t.literal or t.o not in self.cvts)), None)
        roles = self.roles(cvt, {id(anchor), id(main)})
        phrase = self.table[anchor.p]
        if main is not None:
            clause = f"{_subject_text(anchor)} {phrase} {_object_text(main, self.table)}"
            return f"{clause}, with {english.join(roles)}" if roles else clause
        if len(roles) == 1 and (folded := self.folded(cvt)) is not None:
            return folded
        verb = "has" if phrase.startswith("has ") else phrase
        clause = f"{_subject_text(anchor)} {verb} {english.article(self.noun(cvt))}"
        return f"{clause} with {english.join(roles)}" if roles else clause


def _one_way(triples: Sequence[Triple], cvts: Collection[str]) -> Sequence[Triple]:
    """A mediator that joins two entities in one role each way (A and B each an
    ``award_nominee`` of one nomination: A -> m -> B and B -> m -> A) as its one way A
    -> m -> B, which says it all: "Columbia Pictures shared a nomination with
    Metro-Goldwyn-Mayer.", not "Columbia Pictures has an award nomination with award
    nominee Metro-Goldwyn-Mayer, nominee Metro-Goldwyn-Mayer and award nominee Columbia
    Pictures." (blind round 63: 2). Other hops as they are."""
    mediators = {n for t in triples for n in ((t.s,) if t.literal else (t.s, t.o)) if n in cvts}
    if len(triples) != 4 or len(mediators) != 1 or any(t.literal for t in triples):
        return triples
    m = next(iter(mediators))
    into = [t for t in triples if t.o == m and t.s != m]
    out = [t for t in triples if t.s == m and t.o != m]
    if len(into) != 2 or len(out) != 2 or len({t.p for t in into}) != 1 \
            or len({t.p for t in out}) != 1 or {t.s for t in into} != {t.o for t in out} \
            or len({t.s for t in into}) != 2:
        return triples
    return [into[0], next(t for t in out if t.o != into[0].s)]


def hop_text(triples: Sequence[Triple], cvts: Collection[str], table: PhraseTable,
              type_hints: Mapping[str, str] | None = None) -> str:
    triples = _one_way(triples, cvts)
    fold = _Fold(triples, cvts, table, type_hints)
    inner = {t.o for t in triples if not t.literal and t.s in cvts and t.o in cvts and t.o != t.s}
    clauses: list[str] = []
    for t in triples:
        ends = (t.s,) if t.literal else (t.s, t.o)
        touched = [n for n in ends if n in cvts]
        if not touched:
            clauses.append(fact_clause(t, table))
        for cvt in touched:
            if cvt not in fold.done and cvt not in inner:
                clauses.append(fold.clause(cvt))
    for t in triples:   # CVTs only other CVTs point at, in a cycle: read on their own
        for cvt in ((t.s,) if t.literal else (t.s, t.o)):
            if cvt in cvts and cvt not in fold.done:
                clauses.append(fold.clause(cvt))
    return english.sentence(english.sentence_start("; ".join(clauses)))


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
    return hop_text(triples, cvts, as_table(phrases))


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
    return [[triples[i] for hop in part for i in hop] for part in part_hops(sample)]


def part_hops(sample: StructuredSample) -> list[list[list[int]]]:
    """The parts of :func:`citation_parts` as hops of subgraph indices. An irrelevant
    sample's parts are then merged or split to as many as its supportive sample has
    (:func:`_like_supportive`): its subgraph comes from a walk elsewhere in the graph,
    and a reader must not tell the label from the number of citations."""
    parts = _natural_part_hops(sample)
    if sample.label == "irrelevant" and sample.original_subgraph:
        supportive = sample.model_copy(update={
            "subgraph": sample.original_subgraph, "label": "supportive",
            "edit": sample.edit.model_copy(update={
                "kind": "none", "replaced": None, "replacement": None, "replacements": ()})})
        parts = _like_supportive(parts, len(_natural_part_hops(supportive)))
    return parts


def _like_supportive(parts: list[list[list[int]]], wanted: int) -> list[list[list[int]]]:
    """``parts`` brought to ``wanted`` parts where the hops allow it: surplus parts join
    the last kept one (in order, so each citation still reads as connected sentences);
    too few parts are split, the part with most hops giving up its last hop, until each
    part is one hop. Every hop stays in exactly one part, in the same order."""
    if wanted < 1:
        return parts
    parts = [list(p) for p in parts]
    if len(parts) > wanted:
        merged = [hop for part in parts[wanted - 1:] for hop in part]
        parts = [*parts[:wanted - 1], merged]
    while len(parts) < wanted:
        widest = max(range(len(parts)), key=lambda i: (len(parts[i]), -i))
        if len(parts[widest]) < 2:
            break
        last = parts[widest].pop()
        parts.insert(widest + 1, [last])
    return parts


def _natural_part_hops(sample: StructuredSample) -> list[list[list[int]]]:
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
    # A contradictory edit may replace several answers (``edit.replacements``): each
    # replacement stands where its answer stood, so every one is a hub of the branches.
    replacements = [r.replacement for r in sample.edit.replacements]
    if sample.edit.replacement is not None:
        replacements.append(sample.edit.replacement)
    answers.update(r.id for r in replacements if r.id)
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


def cvt_type_hints(triples: Sequence[Triple], cvts: Collection[str]) -> dict[str, str]:
    """CVT -> its type noun, from the Freebase ids of its outgoing facts (so a CVT whose
    outgoing facts an edit deleted still reads "a marriage")."""
    hints: dict[str, str] = {}
    for t in triples:
        if t.s in cvts and t.s not in hints and (noun := type_noun(t.p)):
            hints[t.s] = noun
    return hints


def cvt_anchors(triples: Sequence[Triple], cvts: Collection[str]) -> dict[str, Triple]:
    """CVT -> the first fact pointing at it from a non-CVT node."""
    anchors: dict[str, Triple] = {}
    for t in triples:
        if not t.literal and t.o in cvts and t.s not in cvts:
            anchors.setdefault(t.o, t)
    return anchors


def sub_fact_hop(t: Triple, cvts: Collection[str], anchors: Mapping[str, Triple]
                  ) -> list[Triple]:
    """What a sub-fact's sentence verbalizes: the fact itself, and for a fact leaving a
    CVT also the fact anchoring that CVT ("The Godfather features a performance with
    actor Al Pacino."), since "a performance has actor Al Pacino" alone says nothing
    checkable."""
    anchor = anchors.get(t.s) if t.s in cvts else None
    if anchor is None or (anchor.s, anchor.p, anchor.o) == (t.s, t.p, t.o):
        return [t]
    return [anchor, t]


__all__ = ["citation_parts", "hop_sentence"]
