"""The sentences of one citation joined as a writer joins them (CAQA §4.4: citations read
naturally; blind rounds 24-32 rated a citation number that holds a second sentence, or
repeats one subject and verb, 3 of 5):

* sentences that differ only in their last name: "Christopher Nolan directed Inception
  and Interstellar." (:func:`shared_subject_sentences`);
* sentences that differ only in their subject: "Akira Kurosawa and Hayao Miyazaki were
  born in Tokyo." (:func:`shared_tail_sentences`);
* two sentences about one subject: "Janeane Garofalo works as a screenwriter and a
  comedian." (:func:`one_subject_sentences`);
* a sentence about the name another ends with: "Michael Clarke Duncan was born in
  Chicago, which is the birthplace of Billy Zane.", "Star Wars' only sequel is The Empire
  Strikes Back, whose only composer is John Williams." (:func:`chained_sentences`).

The verbalizer applies them in that order to each citation's sentences
(:class:`~extension.verbalize.verbalizer.TemplateVerbalizer`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from extension.verbalize import english
from extension.verbalize.realise_words import PREPOSITIONS

__all__ = ["chained_sentences", "one_subject_sentences", "shared_subject_sentences",
           "shared_tail_sentences"]


_NOUN_TAIL = re.compile(r"(.* the) (\w+(?: \w+){0,2})")


def shared_subject_sentences(texts: Sequence[str], names: Collection[str]) -> list[str]:
    """``texts`` (one citation's sentences) with runs of sentences that differ only in
    their last name said once: "Christopher Nolan directed Inception. Christopher Nolan
    directed Interstellar." -> "Christopher Nolan directed Inception and Interstellar.",
    "… features the character Roger Thornhill. … features the character Eve Kendall." ->
    "… features the characters Roger Thornhill and Eve Kendall." (blind round 24's sheet
    repeated one subject and verb four times in a citation). Only a tail that is one of
    ``names`` (the display names of the citation's facts) is merged: "played Jules
    Winnfield in Pulp Fiction" stays a sentence of its own."""
    out: list[str] = []
    run: list[tuple[str, str]] = []   # (head, name) of the sentences being merged
    role = ""   # the run's " as a team" after each name, if any
    longest_first = sorted(names, key=lambda n: (-len(n), n))

    def flush() -> None:
        if len(run) == 1:
            out.append(f"{run[0][0]} {run[0][1]}{role}.")
        elif run:
            head = run[0][0]
            tail = _NOUN_TAIL.fullmatch(head)
            if tail and tail.group(2).rpartition(" ")[2] not in PREPOSITIONS:
                head = f"{tail.group(1)} {english.plural(tail.group(2))}"
            roles = f" as {english.plural(re.sub(r'^ as an? ', '', role))}" \
                if role else ""   # "has A and B as teams"
            out.append(f"{head} {english.join([name for _, name in run])}{roles}.")
        run.clear()

    for text in texts:
        # "The National Football League has the Arizona Cardinals as a team." (round 63
        # rated "has X as a team and has Y as a team" 3 from both readers)
        as_role = _AS_ROLE.fullmatch(text)
        core, suffix = (f"{as_role.group(1)}.", f" {as_role.group(2)}") if as_role else (text, "")
        found = next(((core[:-len(name) - 2], name) for name in longest_first
                      if core.endswith(f" {name}.") and len(core) > len(name) + 2
                      and " only " not in f" {core} "), None)
        if found is None or not found[0]:
            flush()
            out.append(text)
            continue
        if run and (run[0][0] != found[0] or role != suffix):
            flush()
        role = suffix
        if found[1] not in (name for _, name in run):
            run.append(found)
    flush()
    return out


_AS_ROLE = re.compile(r"(.+) (as an? [a-z][\w ]*)\.")


def shared_tail_sentences(texts: Sequence[str], names: Collection[str]) -> list[str]:
    """``texts`` with runs of sentences in a row that differ only in their subject, a
    name of ``names``, said once: "Akira Kurosawa was born in Tokyo. Hayao Miyazaki was
    born in Tokyo." -> "Akira Kurosawa and Hayao Miyazaki were born in Tokyo." (blind
    round 32 rated a citation number with a second sentence 3 in 22 ratings: "two facts
    under one number"). Left alone: a possessive ("X's only country …"), a singular
    noun after the verb ("is a country in …", "works as an actor": its plural is not
    the verb's), a sentence that already joins with "and"."""
    out: list[str] = []
    subjects = sorted(names, key=lambda n: (-len(n), n))

    def split(text: str) -> tuple[str, str] | None:
        name = next((n for n in subjects if _starts_with(text, n)
                     or _starts_with(f"{text[:len(n)]} {text[len(n):]}", n)
                     and text[len(n):len(n) + 1] == "'"), None)
        if name is None or " and " in text:
            return None
        owned = _OWN_ONLY.fullmatch(text[len(name):])
        if owned:   # "'s only director is Steven Spielberg" -> "\0director\0Steven …"
            return name, f"\0{owned.group(1)}\0{owned.group(2)}"
        if _SINGULAR_AFTER.search(text[len(name):]):
            return None
        return name, text[len(name) + 1:-1]

    i = 0
    while i < len(texts):
        head = split(texts[i])
        run = [head] if head else []
        j = i + 1
        while head and j < len(texts) and (other := split(texts[j])) and other[1] == head[1] \
                and other[0] not in (n for n, _ in run):
            run.append(other)
            j += 1
        if len(run) < 2:
            out.append(texts[i])
            i += 1
            continue
        subjects_text = english.join([n for n, _ in run])
        if head and head[1].startswith("\0"):
            # "Steven Spielberg is the only director of both Jaws and Duel."
            _, noun, value = head[1].split("\0")
            both = "both " if len(run) == 2 else ""
            text = f"{value} is the only {noun} of {both}{subjects_text}"
        else:
            text = f"{subjects_text} {english.agree(head[1], True) if head else ''}"
        out.append(english.sentence(english.sentence_start(text)))
        i = j
    return out


_OWN_ONLY = re.compile(r"'s? only ([\w ]+?) is (.+)\.")
_SINGULAR_AFTER = re.compile(r"^'|\b(?:is|was|as|works as) an? ")


def one_subject_sentences(texts: Sequence[str], names: Collection[str]) -> list[str]:
    """``texts`` with two sentences in a row about one subject said as one: "Janeane
    Garofalo works as a screenwriter. Janeane Garofalo works as a comedian." -> "Janeane
    Garofalo works as a screenwriter and a comedian.", "Tony Blair works as a lawyer.
    Tony Blair belongs to …" -> "Tony Blair works as a lawyer and belongs to …". Blind
    rounds 27-29 rated a citation number with a second sentence 3 ("unnumbered joined
    fact"). A subject is one of ``names`` that starts both sentences; a sentence that
    already joins with "and" is left alone (no "A and B and C")."""
    out = list(texts)
    subjects = sorted(names, key=lambda n: (-len(n), n))
    i = 0
    while i + 1 < len(out):
        first, second = out[i], out[i + 1]
        subject = next((n for n in subjects if _starts_with(first, n)), None)
        if subject != next((n for n in subjects if _starts_with(second, n)), None):
            subject = None   # "Princeton University …" is not about Princeton
        if subject is None or " and " in first or " and " in second:
            i += 1
            continue
        one, two = first[len(subject) + 1:-1], second[len(subject) + 1:-1]
        a, b = one.split(" "), two.split(" ")
        if len(a) > 2 and len(b) > 2 and a[:2] == b[:2] and a[1] in PREPOSITIONS \
                and (a[2] == b[2] or a[2] != "the") and " only" not in f" {one} {two}":
            # not "is in the genre Adventure Film and French only" (round 36: 2)
            joined = f"{one} and {' '.join(b[2:])}"   # "works as a screenwriter and a comedian"
        elif len(a) > 1 and len(b) > 1 and a[0] == b[0] and a[0] not in _COPULAS:
            joined = f"{one} and {' '.join(b[1:])}"   # "played A and B"
        else:
            joined = f"{one} and {two}"
        out[i:i + 2] = [f"{first[:len(subject)]} {joined}."]
        i += 1
    return out


_COPULAS = frozenset({"is", "are", "was", "were", "has", "have", "had"})


def _starts_with(text: str, name: str) -> bool:
    """Whether ``text`` starts with ``name`` and a space (its first letter in either
    case: a sentence capitalises "the")."""
    return len(text) > len(name) + 1 and text[len(name)] == " " \
        and text[:1].lower() == name[:1].lower() and text[1:len(name)] == name[1:]


def chained_sentences(texts: Sequence[str], names: Collection[str],
                      people: Collection[str] = ()) -> list[str]:
    """``texts`` with a sentence that starts with the name the one before ends with said
    as a clause of it: "Michael Clarke Duncan was born in Chicago. Chicago is the
    birthplace of Billy Zane." -> "Michael Clarke Duncan was born in Chicago, which is
    the birthplace of Billy Zane."; "… is The Empire Strikes Back. The Empire Strikes
    Back's only composer is John Williams." -> "…, whose only composer is John
    Williams."; the other way round: "Iowa is located in the United States of America.
    Cedar Rapids is located in Iowa." -> "Cedar Rapids is located in Iowa, which is
    located in the United States of America." ("who" after one of ``people``). Blind
    round 53: both readers rated a citation number holding a second sentence 3
    ("unnumbered stray sentence", five items). One clause a sentence: a sentence that
    already has one stays."""
    out = list(texts)
    ordered = sorted(names, key=lambda n: (-len(n), n))
    i = 0
    while i + 1 < len(out):
        first, second = out[i], out[i + 1]
        joined = None if _has_clause(first) or _has_clause(second) else (
            _chained(first, second, ordered, people)
            or _chained_back(first, second, ordered, people))
        if joined is not None:
            out[i:i + 2] = [joined]
        i += 1
    return out


def _chained(first: str, second: str, names: Sequence[str], people: Collection[str]
             ) -> str | None:
    """``second`` as a clause on the name ``first`` ends with, or None."""
    for name in (n for n in names if first.endswith(f" {n}.")):
        if not (second[:1].lower() == name[:1].lower() and second[1:len(name)] == name[1:]):
            continue
        rest = second[len(name):]
        if mark := next((m for m in ("'s ", "' ") if rest.startswith(m)), None):
            return f"{first[:-1]}, whose {rest[len(mark):]}"   # "…, whose only composer is …"
        if rest.startswith(" "):
            return f"{first[:-1]}, {'who' if name in people else 'which'}{rest}"
    return None


def _chained_back(first: str, second: str, names: Sequence[str], people: Collection[str]
                  ) -> str | None:
    """``first`` as a clause on the name ``second`` ends with, where ``first`` starts
    with it, or None."""
    for name in (n for n in names if second.endswith(f" {n}.") and _starts_with(first, n)):
        return f"{second[:-1]}, {'who' if name in people else 'which'} {first[len(name) + 1:]}"
    return None


def _has_clause(text: str) -> bool:
    return re.search(r", (?:who|which|whose) ", text) is not None
