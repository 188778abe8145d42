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
"Which religion practised in Indonesia does Ron Paul follow?", not "Which religion is
practised in Indonesia and is the religion of Ron Paul?" (rated 3 of 5, the noun said
twice).

CAQA §4.4 asks q̃ and ã to read naturally (Appendix A, Tables 10-11).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from extension.verbalize import english
from extension.verbalize.logical_form import Constraint
from extension.verbalize.realise_words import PREPOSITIONS, is_passive

__all__ = ["narrowed_object_question", "shared_held_question", "shared_held_statement"]

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
    """"Which religion practised in Indonesia does Ron Paul follow?" from the verb
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
        if found:
            return f"Which {found.group(1)} {' '.join(words[1:])} {found.group(2)} {found.group(3)}"
    return None
