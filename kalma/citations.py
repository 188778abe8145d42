"""A system's cited answer, read into sentences and citations (KaLMA §3, App. D Table 13).

BioKaLMA's answers cite knowledge-graph triples in brackets after the text they support:
``born in Rome [Q212657, place of birth: Rome]``. One bracket holds one entity id and one
or more ``relation: value`` parts, each a citation of that entity
(``[Q367360, name: Orazio Gentileschi, occupation: painter]`` is two citations); a part
without a relation right after the id is the entity's name, which cites nothing
(``[Q212657, Artemisia Gentileschi, depicted by: Artemisia]`` is one citation). ``[NA]``
anywhere in a sentence marks it as needing knowledge the graph did not give (§4.4).

The reading rules, so that one answer is always read the same way:

* **Brackets** are matched with nesting. A bracket group that contains another bracket,
  is never closed, is empty, or does not read as ``[ID, relation: value, ...]`` is an
  *unparsed citation* (counted once per group, never an error). An unclosed ``[`` counts
  once and the text after it is read on, so later citations still count.
* **The [NA] mark** is the bracket ``[NA]`` exactly (spaces inside allowed): the token
  the paper's prompt teaches. ``[na]``, ``[N/A]`` or ``[NA`` are unparsed citations.
* **The id** is the first comma-separated part: one token without spaces, colons or
  brackets (a Wikidata QID, a Freebase MID). Anything else first makes the group
  unparsed.
* **Parts** are split at a comma only where the text after it starts a new
  ``relation:`` (a label: starts with a letter, at most 60 letters, digits, spaces and
  ``_ - ' ( ) / .``, then a colon). So values keep their own commas (``Washington, D.C.``)
  and colons (a time ``12:30``, ``Category:Stephen Crane``): the relation is the text
  before a part's *first* colon, the value everything after it. A value that itself
  holds ``, Label: ...`` is split there: a documented limit.
* **Parts without a relation** right after the id are the subject's name (ignored);
  one after a ``relation: value`` part continues that value (it had a comma). A group
  with an id and no ``relation: value`` part, or a part with an empty relation or value,
  is unparsed: §4.2 counts a citation only when it is "complete with all three parts".
* **Sentences** end at ``.``, ``!`` or ``?`` followed by a space and not a lower-case
  letter, except after a single initial (``J. R. R. Tolkien``) or a common abbreviation
  (``Dr.``, ``St.``); never inside a bracket. Brackets right after a sentence's end
  (``... Rome. [Q212657, place of birth: Rome]``) belong to that sentence. A sentence's
  ``text`` is what it says without its brackets: the NLI premise of §4.3 and §4.4.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kalma.entry import knowledge_key
from kalma.errors import KalmaError
from scoring.errors import ScoringError
from scoring.evaluate.jsonl import iter_json_objects

__all__ = ["AnswerSentence", "Citation", "ParsedAnswer", "parse_citation_group",
           "parse_output", "read_answers", "split_sentences"]

NA_MARK = "NA"
_ID = re.compile(r"[^\s:,\[\]]+")
_LABEL = re.compile(r"\s*[^\W\d_][\w\s'()/.\-]{0,59}:")
_PART_SPLIT = re.compile(r",\s*")
_BRACKET = re.compile(r"[\[\]]")
_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "vs", "etc",
                            "e.g", "i.e", "no", "mt", "ft", "gen", "col", "lt", "sgt",
                            "rev", "fr", "co", "inc", "ltd", "jan", "feb", "aug", "sept",
                            "oct", "nov", "dec"})


@dataclass(frozen=True, slots=True)
class Citation:
    """One cited triple ``[subject_id, relation: value]``."""

    subject_id: str
    relation: str
    value: str

    def key(self) -> tuple[str, str, str]:
        """The key a knowledge triple must share to be this citation (§4.2)."""
        return knowledge_key(self.subject_id, self.relation, self.value)


@dataclass(frozen=True, slots=True)
class AnswerSentence:
    """One sentence of an answer: its text without brackets, what it cites, and whether
    it carries ``[NA]``."""

    text: str
    citations: tuple[Citation, ...]
    na: bool


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """A system's answer to one entry. ``unparsed``: citations that could not be read
    (they still count as citations, neither correct nor precise: §4.2). ``line``: the
    answers file's line (0 when built in code). ``output``: the text it was read from
    (what ``--protocol released`` reads, :mod:`kalma.released`)."""

    id: str
    sentences: tuple[AnswerSentence, ...]
    unparsed: int
    line: int = 0
    output: str | None = None
    """The answer's text as given (``{"id", "output"}``), ``None`` when pre-parsed."""

    def citations(self) -> list[Citation]:
        return [c for s in self.sentences for c in s.citations]

    def text(self) -> str:
        """The answer's text without its brackets (what G-Eval reads)."""
        return " ".join(s.text for s in self.sentences if s.text)


# -- one bracket group ----------------------------------------------------------------


def parse_citation_group(content: str) -> tuple[list[Citation], int] | None:
    """The citations in one bracket's ``content`` and the parts that could not be read,
    or ``None`` for ``[NA]``. A group that is not a citation at all counts as one
    unparsed citation: ``([], 1)``."""
    if content.strip() == NA_MARK:
        return None
    if "[" in content or "]" in content:
        return [], 1
    head, _, rest = content.partition(",")
    subject = head.strip()
    if not _ID.fullmatch(subject):
        return [], 1
    parts = _split_parts(rest)
    citations: list[Citation] = []
    unparsed = 0
    for part in parts:
        relation, colon, value = part.partition(":")
        if not colon:
            continue   # the subject's name (_split_parts merged any later bare part)
        relation, value = relation.strip(), value.strip()
        if relation and value:
            citations.append(Citation(subject, relation, value))
        else:
            unparsed += 1
    if not citations and not unparsed:
        return [], 1   # an id and no `relation: value`: an incomplete citation
    return citations, unparsed


def _split_parts(rest: str) -> list[str]:
    """``rest`` cut at the commas where a new ``relation:`` starts; a part without a
    relation after a ``relation: value`` part is glued back to that value."""
    if not rest.strip():
        return []
    parts: list[str] = []
    for piece in _PART_SPLIT.split(rest):
        if not piece.strip():
            continue   # ", ," : nothing there
        if parts and _LABEL.match(piece) is None:
            parts[-1] = parts[-1] + ", " + piece   # a value's (or a name's) own comma
        else:
            parts.append(piece)
    return [p for p in (p.strip() for p in parts) if p]


# -- the whole text -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Bracket:
    content: str | None   # None: a group that never closed or holds another bracket


def _closing_brackets(text: str) -> dict[int, int]:
    """``{offset of a [: offset of the ] that closes it}`` for every closed bracket,
    matched with nesting in one pass (a ``]`` with no open bracket is plain text)."""
    opened: list[int] = []
    closing: dict[int, int] = {}
    for match in _BRACKET.finditer(text):
        if match.group() == "[":
            opened.append(match.start())
        elif opened:
            closing[opened.pop()] = match.start()
    return closing


def _segments(text: str) -> Iterator[str | _Bracket]:
    """``text`` as plain-text runs and bracket groups, brackets matched with nesting.
    Linear in the text's length, however deep the nesting: each bracket's match is
    found once (:func:`_closing_brackets`), and the text after an unclosed ``[`` is
    read on from the next character."""
    closing = _closing_brackets(text)
    start = 0
    i = text.find("[")
    while i != -1:
        if start < i:
            yield text[start:i]
        j = closing.get(i)
        if j is None:   # never closed: counted once, the rest read on
            yield _Bracket(None)
            start = i + 1
        else:
            content = text[i + 1:j]
            yield _Bracket(None if "[" in content else content)
            start = j + 1
        i = text.find("[", start)
    if start < len(text):
        yield text[start:]


_END = re.compile(r"[.!?]+[\"'”’)]*(?=\s)")


_NEXT_CHARACTER = re.compile(r"\s*(\S)")


def _word_before(run: str, end: int) -> str:
    """The word (letters, digits, ``_`` and dots) that ends at ``end``, trailing dots
    removed: ``Dr`` of ``Dr.``, ``e.g`` of ``e.g.``."""
    start = end
    while start > 0 and (run[start - 1] == "." or run[start - 1].isalnum()
                         or run[start - 1] == "_"):
        start -= 1
    return run[start:end].rstrip(".")


def _sentence_ends(run: str) -> list[int]:
    """Offsets just past each sentence end in a plain-text run. Linear in the run's
    length: the text after an end and the word before it are looked at in place."""
    ends = []
    for match in _END.finditer(run):
        after = _NEXT_CHARACTER.match(run, match.end())
        if after is not None and after.group(1).islower():
            continue
        token = _word_before(run, match.start()).casefold()
        if run[match.start()] == "." and (token in _ABBREVIATIONS
                                          or (len(token) == 1 and token.isalpha())):
            continue
        ends.append(match.end())
    return ends


@dataclass
class _Building:
    text: list[str]
    citations: list[Citation]
    na: bool = False

    def has_text(self) -> bool:
        return any(t.strip() for t in self.text)

    def done(self) -> AnswerSentence:
        return AnswerSentence(_clean_text("".join(self.text)), tuple(self.citations), self.na)


_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")


def _clean_text(text: str) -> str:
    """Whitespace made single and none left before punctuation (where a removed
    bracket stood: ``in Rome [Q1, ...].`` reads ``in Rome.``)."""
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(text.split()))


def parse_output(text: str) -> tuple[list[AnswerSentence], int]:
    """An answer's text as sentences with their citations, and the number of unparsed
    citations (the module's rules). Never raises on any string."""
    sentences: list[_Building] = []
    current = _Building([], [])
    unparsed = 0
    for segment in _segments(text):
        if isinstance(segment, _Bracket):
            # Brackets after a sentence's end, before any new text, belong to it.
            target = current if current.has_text() or not sentences else sentences[-1]
            if segment.content is None:
                unparsed += 1
                continue
            read = parse_citation_group(segment.content)
            if read is None:
                target.na = True
                continue
            target.citations.extend(read[0])
            unparsed += read[1]
            continue
        last = 0
        for end in _sentence_ends(segment):
            current.text.append(segment[last:end])
            last = end
            if current.has_text():
                sentences.append(current)
                current = _Building([], [])
        current.text.append(segment[last:])
    if current.has_text() or current.citations or current.na:
        sentences.append(current)
    return [s.done() for s in sentences], unparsed


def split_sentences(text: str) -> list[str]:
    """The sentence texts of :func:`parse_output` (brackets removed)."""
    return [s.text for s in parse_output(text)[0]]


# -- answers files ----------------------------------------------------------------------

_ANSWER_HINT = ('each line must be {"id": ENTRY_ID, "output": TEXT} or {"id": ENTRY_ID, '
                '"sentences": [{"text": ..., "citations": [[qid, relation, value], ...], '
                '"na": false}, ...]}')


def read_answers(path: Path) -> dict[str, ParsedAnswer]:
    """The answers of a JSONL file by entry id, each line ``{"id", "output"}`` (text
    with BioKaLMA citations, read by :func:`parse_output`) or the pre-parsed
    ``{"id", "sentences": [{"text", "citations": [[qid, relation, value], ...], "na"}]}``.
    In the pre-parsed form a citation that is a list of strings but not three non-empty
    ones is an unparsed citation (incomplete, §4.2); any other shape, a line that is not
    JSON, a missing id or a repeated id raises :class:`KalmaError` naming ``file:line``.
    Lines are read by :func:`scoring.evaluate.jsonl.iter_json_objects` (blank lines
    skipped; binary files, over-long lines and non-objects refused)."""
    answers: dict[str, ParsedAnswer] = {}
    try:
        for number, doc in iter_json_objects(path, "answers", _ANSWER_HINT):
            answer = _answer(doc, f"{path}:{number}", number)
            if answer.id in answers:
                raise KalmaError(f"{path}:{number}: answer id {answer.id!r} repeats line "
                                 f"{answers[answer.id].line}", "give one answer per entry")
            answers[answer.id] = answer
    except ScoringError as exc:  # the line reader's refusals, as this package's error
        raise KalmaError(str(exc), exc.hint or _ANSWER_HINT) from None
    return answers


def _answer(doc: Any, where: str, number: int) -> ParsedAnswer:
    if not isinstance(doc, Mapping):
        raise KalmaError(f"{where}: expected a JSON object, got {type(doc).__name__}",
                         _ANSWER_HINT)
    answer_id = doc.get("id")
    if not isinstance(answer_id, str) or not answer_id.strip():
        raise KalmaError(f"{where}: the answer needs a non-empty string \"id\" (the entry's id)",
                         _ANSWER_HINT)
    has_output, has_sentences = "output" in doc, "sentences" in doc
    if has_output == has_sentences:
        raise KalmaError(f"{where}: give exactly one of \"output\" and \"sentences\"",
                         _ANSWER_HINT)
    if has_output:
        output = doc["output"]
        if not isinstance(output, str):
            raise KalmaError(f"{where}: \"output\" must be a string (the answer's text)",
                             _ANSWER_HINT)
        sentences, unparsed = parse_output(output)
        return ParsedAnswer(answer_id, tuple(sentences), unparsed, number, output)
    items = doc["sentences"]
    if not isinstance(items, list):
        raise KalmaError(f"{where}: \"sentences\" must be a list", _ANSWER_HINT)
    read: list[AnswerSentence] = []
    unparsed = 0
    for i, item in enumerate(items):
        sentence, bad = _sentence(item, f"{where} sentences[{i}]")
        read.append(sentence)
        unparsed += bad
    return ParsedAnswer(answer_id, tuple(read), unparsed, number)


def _sentence(item: Any, where: str) -> tuple[AnswerSentence, int]:
    if not isinstance(item, Mapping) or not isinstance(item.get("text"), str):
        raise KalmaError(f"{where}: a sentence must be an object with a string \"text\"",
                         _ANSWER_HINT)
    na = item.get("na", False)
    if not isinstance(na, bool):
        raise KalmaError(f"{where}: \"na\" must be true or false", _ANSWER_HINT)
    raw = item.get("citations", [])
    if not isinstance(raw, list):
        raise KalmaError(f"{where}: \"citations\" must be a list of [qid, relation, value]",
                         _ANSWER_HINT)
    citations: list[Citation] = []
    unparsed = 0
    for j, cited in enumerate(raw):
        if not (isinstance(cited, list) and all(isinstance(x, str) for x in cited)):
            raise KalmaError(f"{where} citations[{j}]: a citation must be a list of strings "
                             "[qid, relation, value]", _ANSWER_HINT)
        if len(cited) == 3 and all(x.strip() for x in cited):
            citations.append(Citation(*(x.strip() for x in cited)))
        else:
            unparsed += 1
    return AnswerSentence(_clean_text(item["text"]), tuple(citations), na), unparsed
