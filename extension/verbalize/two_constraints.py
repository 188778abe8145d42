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

CAQA §4.4 asks q̃ and ã to read naturally (Appendix A, Tables 10-11).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from extension.verbalize import english
from extension.verbalize.logical_form import Constraint
from extension.verbalize.realise_words import PREPOSITIONS, is_passive

__all__ = ["narrowed_object_question", "object_answer_statement", "shared_held_question",
           "shared_held_statement"]

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
    if a.predicate != b.predicate or a.var_is_subject or b.var_is_subject \
            or a.qualifiers or b.qualifiers or a.other == b.other \
            or is_variable(a.other) or is_variable(b.other):
        return None
    text = phrase(a.predicate)
    held = re.fullmatch(r"is in the ([\w ]+)", text)
    if not held or held.group(1).rpartition(" ")[2] in PREPOSITIONS:
        return None
    return a.predicate, text, held.group(1)


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
    return english.capitalized(f"which {noun} are {_subjects(cs, ref)} in?")


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
    if len(answers) > 1:   # "are in the genres A and B"
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
        if c.var_is_subject or c.qualifiers or is_variable(c.other) \
                or not re.fullmatch(r"(?:is|are) the [\w ]+ of .+", vp):
            continue
        words = other.split(" ")
        if len(words) < 4 or not is_passive(" ".join(["is", *words[1:3]])):
            continue
        # with its verb after the subject ("does Ron Paul follow"), not a stranded
        # preposition: "Which language spoken in Egypt is The Insider in?" (round 26: 3)
        found = re.fullmatch(r"Which ([\w ]+?) (does|do|did) (.+)", ask(c) or "")
        if found:   # "Which of the religions …": round 40 rated "Which religion practised
            # in Argentina does Marc Anthony follow?" 3 in 4 of 4 ratings
            return (f"Which of the {english.plural(found.group(1))} {' '.join(words[1:])} "
                    f"{found.group(2)} {found.group(3)}")
    return None


_ROUNDABOUT = re.compile(r"(?:is|are|was|were) the [\w ]+ of |has .+ as an? |(?:was|were) \w+ by ")
"""The answer's side of a relation read through a noun or a passive ("is the birthplace
of X", "has Arabic as a spoken language", "was attended by X"): said from X instead.
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
                or not (is_passive(own) or own.startswith("was born ")
                        or english.base_form(verb) is not None):
            continue
        # "Ron Paul follows Protestantism", not "follows the religion Protestantism"
        head = verb if re.fullmatch(r"\w+ the [\w ]+", own) and \
            own.rpartition(" ")[2] not in PREPOSITIONS else english.phrase_before(own, listed)
        head = english.agree(head, several(c.other))
        return english.sentence(english.sentence_start(
            f"{ref(c.other, c)} {head} {listed}, {who} {vps[1 - i]}"))
    return None


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
    copular = [vp for vp in vps if vp.startswith("is the ")]
    others = [vp for vp in vps if not vp.startswith("is the ")]
    if not others and len(copular) == 2 and not plural:
        return english.capitalized(f"{wh} is both {copular[0][3:]} and {copular[1][3:]}?")
    if not others:
        return wh, [copular[0], *(vp[3:] for vp in copular[1:])]
    if wh == "what" and (asked := which()).startswith("which "):
        wh = asked
    return wh, [*others, copular[0], *(vp[3:] for vp in copular[1:])]
