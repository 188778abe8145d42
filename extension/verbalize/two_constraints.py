"""Two constraints on the answer said as one, as a person would.

Two named subjects that share a value of an "is in the <noun>" relation: "Which time
zone are both Colorado and Wyoming in?" and "Both Colorado and Wyoming are in the
Mountain Time Zone.", "Which genre are both Heat and Ronin in?" and "Both Heat and Ronin
are in the genre Crime Fiction.".

The general form read the shared value through its noun, "What is the time zone of both
Colorado and Wyoming?" and "The genre of both Heat and Ronin is Crime Fiction.": blind
rounds 18-23 rated those questions 4.2 (time zone) and 3.8 (genre) of 5, against 4.5
for the whole sample. Relations read "performs in the genre" and the like stay in that
form: their present tense is wrong for subjects no longer alive, which the text cannot
tell.

The answer as what a named subject's relation reaches, narrowed by a passive participle:
"Which of the religions practised in Indonesia does Ron Paul follow?", not "Which
religion is practised in Indonesia and is the religion of Ron Paul?" (rated 3 of 5, the
noun said twice).

An answer that one constraint reaches by a verb and the other describes, stated from
the verb's subject: "The director of Jaws was born in Cincinnati, which is located in
Ohio.", not "Cincinnati, which is located in Ohio, is the birthplace of the director of
Jaws." (blind round 30: "clause order unnatural", "passive and roundabout").

An answer one constraint makes a kind of thing is asked as that kind: "Which
Italian-speaking country contains Rosario?", "Which English-speaking country is Donnie
Yen a citizen of?", "Which action film features Nicole Kidman?", not "Which country has
Italian as a spoken language and contains Rosario?" (blind rounds 42-49: 3 from both
readers, 20 items) or "Which film features Nicole Kidman and is in the genre Action
Film?" (rounds 50-51: 3, five items a round).

CAQA §4.4 asks q̃ and ã to read naturally (Appendix A, Tables 10-11).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from extension.verbalize import english
from extension.verbalize.descriptions import genre_kind
from extension.verbalize.logical_form import Constraint
from extension.verbalize.realise_words import PLACE_NOUNS, PREPOSITIONS, is_passive
from extension.verbalize.relation_phrases import PhraseTable

__all__ = ["narrowed_object_question", "object_answer_statement", "shared_held_question",
           "answer_kind", "kind_modified_question", "kind_modified_statement", "shared_held_statement"]

Phrase = Callable[[str], str]
"""predicate -> its phrase "S <phrase> O" (raises Unphrasable when it has none)."""
Ref = Callable[[str, Constraint], str]
"""constant -> how the text names it ("the United States of America")."""


def _held_pair(cs: Sequence[Constraint], phrase: Phrase, is_variable: Callable[[str], bool]
               ) -> tuple[str, str, str] | None:
    """(predicate, its phrase, the noun after "is in the") when ``cs`` are two
    constraints over one such relation from two different named subjects to the
    answer; None otherwise."""
    if len(cs) != 2:
        return None
    a, b = cs
    ends = {_from_named_subject(c) for c in cs}
    if len(ends) != 1 or None in ends or a.qualifiers or b.qualifiers or a.other == b.other \
            or is_variable(a.other) or is_variable(b.other):
        return None
    predicate = str(ends.pop())
    text = phrase(predicate)
    if text == "is known for" and predicate in _KNOWN_FOR:
        return predicate, text, _KNOWN_FOR[predicate]
    held = re.fullmatch(r"is in the ([\w ]+)", text)
    if not held or held.group(1).rpartition(" ")[2] in PREPOSITIONS:
        return None
    return predicate, text, held.group(1)


def _from_named_subject(c: Constraint) -> str | None:
    """The relation of ``c`` read from its named end to the answer: its own predicate,
    or its Freebase reverse property's where the answer is its subject ("Jazz is
    performed by Miles Davis" is Miles Davis's ``music.artist.genre``); None without."""
    if not c.var_is_subject:
        return c.predicate
    return PhraseTable.reverse(c.predicate)


_KNOWN_FOR = {"music.artist.genre": "genre"}
"""Relations read "is known for" and the noun of what they reach: "Which genre are both
John Lennon and Jimmy Page known for?", not "What is the genre of both John Lennon and
Jimmy Page?" (blind round 63: 3 from both readers, four items)."""


def _subjects(cs: Sequence[Constraint], ref: Ref) -> str:
    return "both " + english.join([ref(c.other, c) for c in cs])


def shared_held_question(cs: Sequence[Constraint], phrase: Phrase, ref: Ref,
                         is_variable: Callable[[str], bool], plural: bool) -> str | None:
    """"Which time zone are both Colorado and Wyoming in?" ("Which genres …" for
    ``plural`` answers); None where :func:`_held_pair` does not apply."""
    pair = _held_pair(cs, phrase, is_variable)
    if pair is None:
        return None
    noun = english.plural(pair[2]) if plural else pair[2]
    ending = "known for" if pair[1] == "is known for" else "in"
    return english.capitalized(f"which {noun} are {_subjects(cs, ref)} {ending}?")


def shared_held_statement(cs: Sequence[Constraint], phrase: Phrase, ref: Ref,
                          is_variable: Callable[[str], bool], answers: Sequence[str]
                          ) -> str | None:
    """"Both Colorado and Wyoming are in the Mountain Time Zone.", "Both Heat and Ronin
    are in the genres Crime Fiction and Thriller."; None where :func:`_held_pair` does
    not apply."""
    pair = _held_pair(cs, phrase, is_variable)
    if pair is None or not answers:
        return None
    listed = english.join(list(answers))
    text = pair[1]
    if len(answers) > 1 and text != "is known for":   # "are in the genres A and B"
        text = f"is in the {english.plural(pair[2])}"
    text = english.agree(english.phrase_before(text, listed), True)
    return english.sentence(english.capitalized(f"{_subjects(cs, ref)} {text} {listed}"))


def narrowed_object_question(cs: Sequence[Constraint], vps: Sequence[str],
                             ask: Callable[[Constraint], str | None],
                             is_variable: Callable[[str], bool]) -> str | None:
    """"Which of the religions practised in Indonesia does Ron Paul follow?" from the verb
    phrases ``vps`` of ``cs`` ("is practised in Indonesia", "is the religion of Ron
    Paul") and ``ask`` (a constraint -> the question asking its object: "Which religion
    does Ron Paul follow?"); None where one phrase is not "is the <noun> of <name>" or
    the other not a passive participle and its preposition."""
    if len(cs) != 2 or len(vps) != 2:
        return None
    for c, vp, other in ((cs[0], vps[0], vps[1]), (cs[1], vps[1], vps[0])):
        if c.var_is_subject or c.qualifiers or is_variable(c.other):
            continue
        if not re.fullmatch(r"(?:is|are) the [\w ]+ of .+", vp):
            # "is spoken by John Milton" beside "is spoken in Greece": "Which of the
            # languages spoken in Greece does John Milton speak?" (rounds 57-62 rated
            # "… is spoken in Greece and is spoken by John Milton?" 3 from four readers)
            if re.fullmatch(r"(?:is|are) \w+ by .+", vp) and is_passive(" ".join(vp.split(" ")[:3])) \
                    and (narrowed := _narrowed_by_participle(other, ask(c))):
                return narrowed
            continue
        words = other.split(" ")
        if len(words) < 4 or not is_passive(" ".join(["is", *words[1:3]])):
            if modified := _modified_object_question(other, ask(c)) or _owned_question(vp, other):
                return modified
            continue
        if narrowed := _narrowed_by_participle(other, ask(c)):
            return narrowed
    return None


def _narrowed_by_participle(other: str, asked: str | None) -> str | None:
    """"Which of the religions practised in Indonesia does Ron Paul follow?" from the
    answer's passive ``other`` ("is practised in Indonesia") and the question ``asked``
    of the named subject's relation ("Which religion does Ron Paul follow?"): its verb
    after the subject, not a stranded preposition ("Which language spoken in Egypt is
    The Insider in?", round 26: 3). Round 40 rated "Which religion practised in
    Argentina does Marc Anthony follow?" 3 in 4 of 4 ratings, hence "Which of the …"."""
    words = other.split(" ")
    if len(words) < 4 or not is_passive(" ".join(["is", *words[1:3]])):
        return None
    found = re.fullmatch(r"Which ([\w ]+?) (does|do|did) (.+)", asked or "")
    if found is None:
        return None
    return (f"Which of the {english.plural(found.group(1))} {' '.join(words[1:])} "
            f"{found.group(2)} {found.group(3)}")


def _modified_object_question(other: str, asked: str | None) -> str | None:
    """"Which country in Europe is Rafael Nadal a citizen of?", "Which country that
    contains Atlanta is Mathieu Kassovitz a citizen of?" from the answer's own verb
    phrase ``other`` and the question ``asked`` of the other constraint ("Which country
    is Rafael Nadal a citizen of?"), not "Which country contains Atlanta and is the
    country Mathieu Kassovitz is a citizen of?" (blind rounds 42-47: 3 from both
    readers). None where ``other`` says what the answer is or has ("is the home of",
    "has …"), or ``asked`` is no "Which <noun> <verb> …" question."""
    found = re.fullmatch(r"Which ([\w ]+?) (is|are|was|were|does|do|did) (.+)", asked or "")
    if found is None or re.match(r"(?:is|are|was|were) the |ha(?:s|ve|d) |(?:is|are) an? "
                                 r"|includes? the titles?\b", other):
        # nor a Netflix tag: "Which genre that includes the title Indiana Jones and the
        # Temple of Doom is Iron Man 3 in?" (blind round 64: 2 from both readers)
        return None
    placed = re.fullmatch(r"(?:is|are) ((?:located )?in .+)", other)
    modifier = placed.group(1) if placed else f"that {other}"
    return f"Which {found.group(1)} {modifier} {found.group(2)} {found.group(3)}"


_PLACE_ROLE = re.compile(r".*(?:place|home|location|headquarters|origin|region|city|country)$")


def _owned_question(vp: str, other: str) -> str | None:
    """"Which profession of Abraham Lincoln has Jurist as a specialization?" from ``vp``
    "is the profession of Abraham Lincoln" and the answer's own ``other`` "has Jurist
    as a specialization", not "Which profession has Jurist as a specialization and is
    the profession of Abraham Lincoln?" (blind rounds 48-50: 3 from both readers). None
    for a place's role ("the birthplace of X") or another ``other``."""
    owned = re.fullmatch(r"(?:is|are) the ([\w ]+?) of (.+)", vp)
    if owned is None or not re.match(r"ha(?:s|ve) ", other) \
            or _PLACE_ROLE.fullmatch(owned.group(1)) \
            or owned.group(1).rpartition(" ")[2] in PLACE_NOUNS:
        return None
    return f"Which {owned.group(1)} of {owned.group(2)} {other}?"


_ROUNDABOUT = re.compile(r"(?:is|are|was|were) the [\w ]+ of |has .+ as an? |(?:was|were) \w+ by "
                         r"|(?:is|are) spoken by ")
"""The answer's side of a relation read through a noun or a passive ("is the birthplace
of X", "has Arabic as a spoken language", "was attended by X", "is spoken by X"): said
from X instead ("John Milton speaks Greek, which is spoken in Greece").
An active reading ("stars Leonardo DiCaprio", "has music by James Horner", "influenced
Michael Jackson") keeps the answer first, as the question asks."""


def object_answer_statement(cs: Sequence[Constraint], vps: Sequence[str],
                            reading: Callable[[Constraint], str | None], ref: Ref,
                            several: Callable[[str], bool], listed: str, who: str
                            ) -> str | None:
    """"The director of Jaws was born in Cincinnati, which is located in Ohio." for the
    two constraints ``cs`` on one answer (``listed``) with verb phrases ``vps`` (the
    answer as their subject, in ``cs``' order): one reaching the answer by a verb
    ("was born in", "studied at") that reads roundabout from the answer
    (:data:`_ROUNDABOUT`), the other the answer's own ("is located in Ohio");
    ``who``: "who" or "which" for the answer; ``several``: whether a subject reads as
    many ("The actors of Heat were born in …"); ``reading``: a constraint's phrase from
    its other end to the answer (a reverse property's inverse: "was born in" for "is the
    birthplace of"), None without one. None otherwise."""
    if len(cs) != 2 or len(vps) != 2:
        return None
    for i, c in enumerate(cs):
        own = reading(c) or ""
        verb = own.partition(" ")[0]
        if not own or c.qualifiers \
                or own.startswith("includes") or not _ROUNDABOUT.match(vps[i]) \
                or not (is_passive(own) or own.startswith("was born ") or own == "is known for"
                        or english.base_form(verb) is not None):
            continue
        # "Ron Paul follows Protestantism", not "follows the religion Protestantism"
        head = verb if re.fullmatch(r"\w+ the [\w ]+", own) and \
            own.rpartition(" ")[2] not in PREPOSITIONS else english.phrase_before(own, listed)
        head = english.agree(head, several(c.other))
        return english.sentence(english.sentence_start(
            f"{ref(c.other, c)} {head} {listed}, {who} {vps[1 - i]}"))
    return None


_COPULAR = re.compile(r"is (?:the |[A-Z][\w.' -]*?'s? )")
"""A verb phrase that says what its subject is: "is the birthplace of X", "is Albert
Einstein's home country"."""


def copular_question(wh: str, vps: list[str], plural: bool,
                     which: Callable[[], str]) -> str | tuple[str, list[str]]:
    """The question, or its ``(wh, vps)`` put in order, for verb phrases of which the
    first says what the answer is ("is the birthplace of X"). Not "What is the
    birthplace of X and is …", whose second "is" has no subject a reader can find:
    two such phrases alone read "What is both the birthplace of X and the place where Y
    died?" (blind rounds 39-40 rated "What is the birthplace of X and the place of death
    of Y?" 3: "both" says the answer is one thing that is each); other verb phrases
    first: "What contains Atlanta and is the country Plato is a citizen of?", asked by
    the answer's noun from ``which()`` when it has one ("Which place contains …")."""
    copular = [vp for vp in vps if _COPULAR.match(vp)]
    others = [vp for vp in vps if not _COPULAR.match(vp)]
    if not others and len(copular) == 2 and not plural:
        return english.capitalized(f"{wh} is both {copular[0][3:]} and {copular[1][3:]}?")
    if not others:
        return wh, [copular[0], *(vp[3:] for vp in copular[1:])]
    if wh == "what" and (asked := which()).startswith("which "):
        wh = asked
    return wh, [*others, copular[0], *(vp[3:] for vp in copular[1:])]


_SPOKEN_IN = {"location.country.languages_spoken": True,
              "language.human_language.countries_spoken_in": False}
"""Relations between a country and a language spoken there -> whether the country is
their subject."""
_IN_GENRE = {"film.film.genre": True, "film.film_genre.films_in_this_genre": False}
"""Relations between a film and its genre -> whether the film is their subject."""
_LANGUAGE_NAME = re.compile(r"[A-Z][\w']+(?: [A-Z][\w']+)?")


def answer_kind(c: Constraint, name: str) -> str | None:
    """The kind of thing the answer is that constraint ``c`` (to the constant named
    ``name``) makes it, as a noun phrase without article: "Italian-speaking country" (a
    language spoken there), "action film", "comedy" (a film's genre that is a common
    noun: :func:`~extension.verbalize.descriptions.genre_kind`); else None."""
    if _SPOKEN_IN.get(c.predicate) is c.var_is_subject and _LANGUAGE_NAME.fullmatch(name):
        return f"{name}-speaking country"
    if _IN_GENRE.get(c.predicate) is c.var_is_subject and (kind := genre_kind(name)):
        return kind.partition(" ")[2]
    return None


def _kind_pair(cs: Sequence[Constraint], name: Callable[[str], str],
               is_variable: Callable[[str], bool]) -> tuple[str, Constraint] | None:
    """``(the answer's kind, the other constraint)`` where one of the two constraints
    ``cs`` makes the answer a kind of thing (:func:`answer_kind`) and the other, of
    another relation, names a constant; else None."""
    if len(cs) != 2 or any(c.qualifiers for c in cs):
        return None
    for kinded, other in ((cs[0], cs[1]), (cs[1], cs[0])):
        if is_variable(kinded.other) or is_variable(other.other) \
                or other.predicate in _SPOKEN_IN or other.predicate in _IN_GENRE:
            continue
        if kind := answer_kind(kinded, name(kinded.other)):
            return kind, other
    return None


def _own_phrase(other: Constraint, verb_phrase: Callable[[Constraint], str]) -> str | None:
    """The other constraint read from the answer where it says what the answer does or
    where it lies ("contains Rosario", "features Nicole Kidman", "is in North America",
    not "is a country in …"); None where it reads better from its other end ("is the
    country of citizenship of …", "is a filming location of …", "was directed by …")."""
    own = re.sub(r"^(is|are) (?:an? )?(?:country|countries) in ", r"\1 in ", verb_phrase(other))
    said = other.var_is_subject or re.match(r"(?:is|are) in ", own) \
        or not re.match(r"(?:is|are|was|were|ha[sd]|have) ", own)
    return own if said else None


def _plural_kind(kind: str) -> str:
    head, of, rest = kind.partition(" of ")   # "comedies of manners"
    return f"{english.plural(head)}{of}{rest}"


def kind_modified_question(cs: Sequence[Constraint], name: Callable[[str], str],
                           ask: Callable[[Constraint], str | None],
                           verb_phrase: Callable[[Constraint], str],
                           is_variable: Callable[[str], bool], plural: bool) -> str | None:
    """"Which Italian-speaking country contains Rosario?", "Which action film features
    Nicole Kidman?" for two constraints ``cs`` on the answer, one making it a kind of
    thing (:func:`_kind_pair`): the other by its ``verb_phrase`` from the answer
    (:func:`_own_phrase`), else asked as ``ask`` asks it ("Which country is Donnie Yen
    a citizen of?", "Which film did Martin Scorsese direct?", "Where was Domino
    filmed?") with the kind for its noun. ``name``: a constant's text. None where
    neither fits."""
    pair = _kind_pair(cs, name, is_variable)
    if pair is None:
        return None
    kind, other = pair
    shown = _plural_kind(kind) if plural else kind
    if own := _own_phrase(other, verb_phrase):
        return english.capitalized(f"which {shown} {own}?")
    asked = ask(other) or ""
    noun = kind.rpartition(" ")[2] if "-speaking" in kind else "film"
    if found := re.fullmatch(rf"(?:Which (?:{noun}|{english.plural(noun)}|place|places) "
                             r"|Where )(.+)", asked):
        lead = "Which" if asked.startswith("Which") else "In which"
        return f"{lead} {shown} {found.group(1)}"
    return None


def kind_modified_statement(cs: Sequence[Constraint], name: Callable[[str], str],
                            verb_phrase: Callable[[Constraint], str],
                            reading: Callable[[Constraint], str], ref: Ref,
                            is_variable: Callable[[str], bool], answers: Sequence[str]
                            ) -> str | None:
    """ã of :func:`kind_modified_question`: "Argentina is an Italian-speaking country
    that contains Rosario.", "Egypt is an Arabic-speaking country in the Eastern European
    Time Zone.", "Days of Thunder is an action film that features Nicole Kidman.",
    "Donnie Yen is a citizen of Hong Kong, an English-speaking country." (not "Italian
    is spoken in Argentina, which contains Rosario.", "Days of Thunder, which is in the
    genre Action Film, features Nicole Kidman.": rated 3 beside the questions they
    answer, blind rounds 46-51). ``verb_phrase``: a constraint read from the answer,
    agreeing with ``answers``; ``reading``: its phrase from its other end."""
    pair = _kind_pair(cs, name, is_variable)
    if pair is None:
        return None
    kind, other = pair
    many = len(answers) > 1
    listed = english.join(list(answers))
    if own := _own_phrase(other, verb_phrase):
        placed = re.fullmatch(r"(?:is|are) (in .+)", own)
        tail = placed.group(1) if placed else f"that {own}"
        shown = f"are {_plural_kind(kind)}" if many else f"is {english.article(kind)}"
        return english.sentence(english.capitalized(f"{listed} {shown} {tail}"))
    if reading(other).startswith(("is the ", "was the ", "has ", "includes ")):
        return None
    subject = ref(other.other, other)
    return english.sentence(english.capitalized(
        f"{subject} {english.phrase_before(reading(other), listed)} {listed}, "
        + (f"{'both' if len(answers) == 2 else 'all'} {_plural_kind(kind)}" if many
           else english.article(kind))))
