"""Typed readers for KGQA question sets: WebQuestionsSP, GrailQA and generic JSONL.

Each reader yields :class:`KGQAQuestion` records (plain frozen dataclasses, no
dependency on the query-graph model) holding the question text, its gold answers and
its logical forms as given (SPARQL text, GrailQA graph query, JSONL triple patterns).

- :func:`read_webqsp`: the official WebQSP JSON ``{"Questions": [...]}`` (or a bare
  list of questions); every parse is kept, in order.
- :func:`read_grailqa`: GrailQA JSON (a list, as released) or JSONL; one parse each.
- :func:`read_kgqa_jsonl`: one ``{"id", "question", "answers", "sparql" | "triples"}``
  object per line; one parse each.
- :func:`read_questions` dispatches on a format name, or on
  :func:`detect_question_format` when none is given.

Files may be plain, .gz, .bz2 or .zst (see :func:`loaders.sources.open_text`). A file
that cannot be used at all raises :class:`InputFileError`. A malformed record (missing
id or question, a field of the wrong type, a bad JSONL line) is skipped and reported as
a :class:`ReadIssue` in the caller's ``issues`` list, so the rest is still read; with
``strict=True`` the first one raises :class:`MalformedRecordError` instead. Readers are
generators: nothing is opened before the first record is asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loaders.errors import InputFileError, MalformedInputError, MalformedRecordError
from loaders.sources import open_text

FORMATS = ("webqsp", "grailqa", "jsonl")
"""The question formats :func:`read_questions` accepts."""

GRAILQA_FUNCTIONS = ("none", "count", "argmax", "argmin", "<=", ">=", "<", ">")
"""The values GrailQA's ``function`` field takes."""

_WEBQSP_EXPECTED = 'WebQSP JSON ({"Questions": [...]}) or a JSON list of WebQSP questions'
_GRAILQA_EXPECTED = "GrailQA JSON (a list of questions) or JSONL (one question per line)"
_JSONL_EXPECTED = "JSONL: one JSON object per line"
_WEBQSP_KEYS = re.compile(r'"(?:Questions|QuestionId|RawQuestion|Parses)"\s*:')
_GRAILQA_KEYS = re.compile(r'"(?:qid|s_expression|graph_query|sparql_query)"\s*:')
_SNIFF_CHARS = 1 << 16


# -- records ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GoldAnswer:
    """One gold answer: an entity (``kind="entity"``, ``value`` its KG id, e.g. ``m.0abc``)
    or a literal (``kind="value"``, ``value`` its lexical form, ``datatype`` its datatype
    IRI when the dataset gives one). ``name`` is the dataset's label, if any."""

    kind: str
    value: str
    name: str | None
    datatype: str | None = None


@dataclass(frozen=True, slots=True)
class LogicalForm:
    """One parse (logical query) of a question, with the fields as the dataset gives them.

    ``id`` is the WebQSP ParseId, the GrailQA qid or the JSONL record id. ``sparql`` is
    the SPARQL text as given (WebQSP ``Sparql`` may start ``#MANUAL SPARQL`` and is
    ``None`` in the partial files). ``graph_query`` is GrailQA's ``{nodes, edges}``;
    ``triples`` the JSONL ``[s, p, o]`` patterns with ``?vars``. ``topic_entities`` are
    ``(id, name)`` pairs. ``function`` is GrailQA's (``"none"`` elsewhere). The WebQSP
    ``inferential_chain`` (may be ``None``), ``constraints``, ``time`` and ``order`` and the
    GrailQA ``s_expression`` are kept verbatim.
    """

    id: str
    sparql: str | None
    graph_query: dict[str, Any] | None = field(default=None, hash=False)
    triples: tuple[tuple[str, str, str], ...] | None = None
    topic_entities: tuple[tuple[str, str | None], ...] = ()
    answers: tuple[GoldAnswer, ...] = ()
    function: str = "none"
    inferential_chain: tuple[str, ...] | None = None
    constraints: tuple[dict[str, Any], ...] = field(default=(), hash=False)
    time: dict[str, Any] | None = field(default=None, hash=False)
    order: dict[str, Any] | None = field(default=None, hash=False)
    s_expression: str | None = None


@dataclass(frozen=True, slots=True)
class KGQAQuestion:
    """One question: ``id``, its text, the ``dataset`` it came from (``"webqsp"``,
    ``"grailqa"`` or ``"jsonl"``), its ``parses`` (WebQSP: all, in order; GrailQA and
    JSONL: exactly one) and ``extra``: the record's fields that have no typed place
    (WebQSP ProcessedQuestion; GrailQA level, domains, num_node, num_edge; unknown keys)."""

    id: str
    question: str
    dataset: str
    parses: tuple[LogicalForm, ...]
    extra: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class ReadIssue:
    """A malformed record that a lenient read skipped: the file, the ``record`` (question
    id when known, else ``#<1-based index>`` or ``line <n>``) and the reason."""

    path: str
    record: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.record}: {self.reason}"


# -- public readers ---------------------------------------------------------------------------
def read_webqsp(path: str | Path, *, strict: bool = False,
                issues: list[ReadIssue] | None = None) -> Iterator[KGQAQuestion]:
    """The questions of a WebQSP JSON file (``{"Questions": [...]}`` or a bare list), in
    file order, each with all its parses. See the module docstring for errors."""
    sink = _Sink(path, strict, issues)
    questions = _webqsp_questions(path, _load_json(path, _WEBQSP_EXPECTED))
    yield from _build_all(_numbered(questions), _webqsp_question, "QuestionId", sink)


def read_grailqa(path: str | Path, *, strict: bool = False,
                 issues: list[ReadIssue] | None = None) -> Iterator[KGQAQuestion]:
    """The questions of a GrailQA file: a JSON list (as released) or JSONL. Topic
    entities come from ``topic_entity`` (added by ToG) when it is non-empty, else from
    the graph query's entity nodes. See the module docstring for errors."""
    sink = _Sink(path, strict, issues)
    if _head(path, 1) == "{":
        records = _jsonl_objects(path, sink, _GRAILQA_EXPECTED)
    else:
        data = _load_json(path, _GRAILQA_EXPECTED)
        if not isinstance(data, list):
            raise InputFileError(path, f"holds {_json_type(data)}; expected {_GRAILQA_EXPECTED}")
        records = _numbered(data)
    yield from _build_all(records, _grailqa_question, "qid", sink)


def read_kgqa_jsonl(path: str | Path, *, strict: bool = False,
                    issues: list[ReadIssue] | None = None) -> Iterator[KGQAQuestion]:
    """The questions of a generic JSONL file, one object per line (blank lines skipped):
    ``id``, ``question``, optional ``answers`` (a string is an entity id; an object
    ``{"value", "kind": "entity"|"value", "name"?, "datatype"?}`` is explicit),
    ``answer_names`` (parallel to answers), ``sparql``, ``triples`` ([[s, p, o], ...])
    and ``topic_entities`` (ids or [id, name] pairs). Other keys go to ``extra``."""
    sink = _Sink(path, strict, issues)
    yield from _build_all(_jsonl_objects(path, sink, _JSONL_EXPECTED), _jsonl_question, "id",
                          sink)


_READERS: dict[str, Callable[..., Iterator[KGQAQuestion]]] = {
    "webqsp": read_webqsp, "grailqa": read_grailqa, "jsonl": read_kgqa_jsonl,
}


def read_questions(path: str | Path, format: str | None = None, *, strict: bool = False,
                   issues: list[ReadIssue] | None = None) -> Iterator[KGQAQuestion]:
    """The questions of ``path`` read as ``format`` (one of :data:`FORMATS`), or as
    :func:`detect_question_format` says when ``format`` is ``None``. An unknown format
    name raises ``ValueError``."""
    name = format.lower() if format is not None else detect_question_format(path)
    reader = _READERS.get(name)
    if reader is None:
        raise ValueError(f"unknown question format {format!r}; expected one of "
                         f"{', '.join(FORMATS)}")
    return reader(path, strict=strict, issues=issues)


def detect_question_format(path: str | Path) -> str:
    """``"webqsp"``, ``"grailqa"`` or ``"jsonl"`` for ``path``, judged from the key names
    at the start of its (decompressed) content: WebQSP's ``Questions``/``QuestionId``/
    ``Parses``, GrailQA's ``qid``/``s_expression``/``graph_query``, else JSONL when it
    starts with an object. Raises :class:`InputFileError` when it cannot tell."""
    head = _head(path, _SNIFF_CHARS)
    start = head.lstrip()[:1]
    if not start or start not in "[{":
        # Undecodable lines are skipped when sniffing: a binary or UTF-16 file would
        # look empty, or start with whatever byte decodes first.
        not_text = _not_text(path)
        if not_text:
            raise InputFileError(path, f"{not_text}; expected a WebQSP, GrailQA or JSONL "
                                       "question file")
    if not start:
        raise InputFileError(path, "is empty; expected a WebQSP, GrailQA or JSONL question file")
    if start not in "[{":
        raise InputFileError(path, f"starts with {start!r}, so it is neither JSON nor JSONL; "
                                   "expected a WebQSP, GrailQA or JSONL question file")
    if _WEBQSP_KEYS.search(head):
        return "webqsp"
    if _GRAILQA_KEYS.search(head):
        return "grailqa"
    if start == "{":
        return "jsonl"
    raise InputFileError(path, "is a JSON list whose records are neither WebQSP (QuestionId, "
                               "Parses) nor GrailQA (qid, s_expression); give the format "
                               "explicitly (webqsp, grailqa or jsonl)")


# -- files ------------------------------------------------------------------------------------
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _not_text(path: str | Path) -> str | None:
    """Why ``path`` (decompressed) is not UTF-8 text, judged from its first
    :data:`_SNIFF_CHARS` bytes, with the byte offset; ``None`` when they are text."""
    with open_text(path) as src:
        data = src.read_bytes(_SNIFF_CHARS)
    if data.startswith(_UTF16_BOMS):
        return "is not UTF-8 text: it starts with a UTF-16 byte-order mark; save it as UTF-8"
    nul = data.find(b"\0")
    if nul >= 0:
        return f"is binary, not UTF-8 text (a NUL byte at byte offset {nul:,})"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason != "unexpected end of data" or exc.end < len(data):  # not a cut character
            return (f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at byte offset "
                    f"{exc.start:,} is not UTF-8)")
    return None


class _BadRecord(ValueError):
    """Raised by the record builders; the reader adds the file and the record name."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class _Sink:
    """Where malformed records go: raised (strict), appended to ``issues``, or dropped."""

    def __init__(self, path: str | Path, strict: bool, issues: list[ReadIssue] | None) -> None:
        self.path = str(path)
        self.strict = strict
        self.issues = issues

    def report(self, record: str, reason: str) -> None:
        if self.strict:
            raise MalformedRecordError(self.path, record, reason)
        if self.issues is not None:
            self.issues.append(ReadIssue(self.path, record, reason))


def _head(path: str | Path, limit: int) -> str:
    """The first lines of ``path`` (decompressed, undecodable lines skipped), read until
    they hold ``limit`` non-blank characters or the file ends, joined by newlines;
    with ``limit=1`` that is the first non-blank character."""
    parts: list[str] = []
    seen = 0
    with open_text(path) as src:
        for _, text in src.numbered(lambda _n, _r: None):
            stripped = text.strip()
            if limit == 1 and stripped:
                return stripped[0]
            parts.append(text)
            seen += len(stripped)
            if seen >= limit:
                break
    return "\n".join(parts)


def _load_json(path: str | Path, expected: str) -> Any:
    """The JSON value that the whole of ``path`` holds (any compression); a file that
    is empty, not UTF-8 or not JSON raises :class:`InputFileError` naming ``expected``."""
    try:
        with open_text(path) as src:
            text = "\n".join(src)
    except MalformedInputError as exc:
        raise InputFileError(path, f"line {exc.line}: {exc.reason}; expected UTF-8 "
                                   f"{expected}") from None
    if not text.strip():
        raise InputFileError(path, f"is empty; expected {expected}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(path, f"is not valid JSON ({exc.msg} at line {exc.lineno}, "
                                   f"column {exc.colno}); expected {expected}") from None
    except RecursionError:
        raise InputFileError(path, "holds JSON nested too deeply to read (Python's recursion "
                                   f"limit); expected {expected}") from None


def _webqsp_questions(path: str | Path, data: Any) -> list[Any]:
    """The question list of a loaded WebQSP file (top-level object or bare list)."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("Questions"), list):
        return data["Questions"]
    what = "an object without a 'Questions' list" if isinstance(data, dict) else _json_type(data)
    raise InputFileError(path, f"holds {what}; expected {_WEBQSP_EXPECTED}")


def _numbered(records: list[Any]) -> Iterator[tuple[str, Any]]:
    """``("#<n>", record)`` for the records of a JSON list (1-based)."""
    for n, record in enumerate(records, 1):
        yield f"#{n}", record


def _jsonl_objects(path: str | Path, sink: _Sink, expected: str) -> Iterator[tuple[str, Any]]:
    """``("line <n>", object)`` for each line of ``path`` holding a JSON object; blank
    lines are skipped, other lines reported to ``sink``. When no line holds an object the
    file is not JSONL at all: :class:`InputFileError` (nothing is reported then)."""
    held: list[tuple[str, str]] = []  # problems before the first object: is this JSONL?
    found = False

    def bad(lineno: int, reason: str) -> None:
        if found:
            sink.report(f"line {lineno}", reason)
        else:
            held.append((f"line {lineno}", reason))

    with open_text(path) as src:
        for lineno, text in src.numbered(bad):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                bad(lineno, f"not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            except RecursionError:
                bad(lineno, "JSON nested too deeply to read (Python's recursion limit)")
                continue
            if not isinstance(obj, dict):
                bad(lineno, f"holds {_json_type(obj)}, not a JSON object")
                continue
            if not found:
                found = True
                for record, reason in held:
                    sink.report(record, reason)
            yield f"line {lineno}", obj
    if held and not found:
        record, reason = held[0]
        raise InputFileError(path, f"no line holds a JSON object ({record}: {reason}); "
                                   f"expected {expected}")


def _build_all(records: Iterable[tuple[str, Any]], build: Callable[[dict[str, Any]], KGQAQuestion],
               id_key: str, sink: _Sink) -> Iterator[KGQAQuestion]:
    """``build`` each ``(position, record)``; a malformed one goes to ``sink`` under its id
    (``position`` appended to the reason) or, without a usable id, under ``position``."""
    for position, record in records:
        try:
            if not isinstance(record, dict):
                raise _BadRecord(f"a question must be a JSON object, not {_json_type(record)}")
            question = build(record)
        except _BadRecord as exc:
            rid = _id_text(record.get(id_key)) if isinstance(record, dict) else None
            if rid is None:
                sink.report(position, exc.reason)
            else:
                sink.report(rid, f"{exc.reason} (at {position})")
            continue
        yield question


# -- field checks -----------------------------------------------------------------------------
_TYPE_NAMES: dict[type, str] = {str: "a string", list: "a list", dict: "an object"}


def _json_type(value: Any) -> str:
    """How ``value`` reads in JSON terms: ``"null"``, ``"a number"``, ``"an object"``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _at(where: str, message: str) -> str:
    """``message`` prefixed with the place inside the record (``"parse #2: ..."``)."""
    return f"{where}: {message}" if where else message


def _optional(obj: dict[str, Any], key: str, kind: type, where: str = "") -> Any:
    """``obj[key]`` when it is a ``kind`` (str, list or dict), ``None`` when missing or
    null; any other value raises :class:`_BadRecord`."""
    value = obj.get(key)
    if value is None or isinstance(value, kind):
        return value
    raise _BadRecord(_at(where, f"'{key}' must be {_TYPE_NAMES[kind]} or null, "
                                f"not {_json_type(value)}"))


def _id_text(value: Any) -> str | None:
    """A record id as text: a non-blank string, or an integer (GrailQA qids); else None."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _record_id(obj: dict[str, Any], key: str) -> str:
    """The record's id ``obj[key]`` as text; missing or of the wrong type raises."""
    value = obj.get(key)
    rid = _id_text(value)
    if rid is None:
        problem = ("missing" if value is None else "empty" if isinstance(value, str)
                   else _json_type(value))
        raise _BadRecord(f"'{key}' is {problem}; it must be a non-empty string or an integer")
    return rid


def _question_text(obj: dict[str, Any], *keys: str) -> str:
    """The first non-blank string among ``obj[key]`` for ``keys``; none raises."""
    for key in keys:
        text = _optional(obj, key, str)
        if text is not None and text.strip():
            return text
    raise _BadRecord(f"no question text: {' and '.join(repr(k) for k in keys)} "
                     "missing or empty")


def _scalar_text(value: Any, what: str) -> str:
    """An answer value as text: a string, or a number written as JSON writes it."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    raise _BadRecord(f"{what} must be a string, not {_json_type(value)}")


def _name(value: Any, what: str) -> str | None:
    """An optional label: a string or null."""
    if value is None or isinstance(value, str):
        return value
    raise _BadRecord(f"{what} must be a string or null, not {_json_type(value)}")


def _strings(obj: dict[str, Any], key: str, where: str = "") -> tuple[str, ...] | None:
    """``obj[key]`` as a tuple of strings, ``None`` when missing or null."""
    items = _optional(obj, key, list, where)
    if items is not None and not all(isinstance(item, str) for item in items):
        raise _BadRecord(_at(where, f"'{key}' must be a list of strings"))
    return None if items is None else tuple(items)


def _objects(obj: dict[str, Any], key: str, where: str = "") -> list[dict[str, Any]]:
    """``obj[key]`` as a list of objects, empty when missing or null."""
    items = _optional(obj, key, list, where) or []
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise _BadRecord(_at(where, f"'{key}' #{n} must be an object, "
                                        f"not {_json_type(item)}"))
    return items


def _extra(obj: dict[str, Any], typed: frozenset[str]) -> dict[str, Any]:
    """The record's fields that have no typed place, verbatim."""
    return {key: value for key, value in obj.items() if key not in typed}


_ANSWER_KINDS = {"Entity": "entity", "Value": "value"}


def _typed_answer(answer: dict[str, Any], keys: tuple[str, str, str], where: str) -> GoldAnswer:
    """A WebQSP/GrailQA answer object: ``keys`` name its type ("Entity"/"Value"),
    argument and entity-name fields. A value ``lex^^datatype-IRI`` is split."""
    type_key, arg_key, name_key = keys
    given = answer.get(type_key)
    kind = _ANSWER_KINDS.get(given) if isinstance(given, str) else None
    if kind is None:
        raise _BadRecord(f"{where}: '{type_key}' must be 'Entity' or 'Value', not {given!r}")
    value = _scalar_text(answer.get(arg_key), f"{where}: '{arg_key}'")
    name = _name(answer.get(name_key), f"{where}: '{name_key}'")
    lexical, sep, datatype = value.rpartition("^^")
    if kind == "value" and sep and ":" in datatype:
        return GoldAnswer(kind, lexical, name, datatype)
    return GoldAnswer(kind, value, name)


# -- WebQSP -----------------------------------------------------------------------------------
_WEBQSP_ANSWER_KEYS = ("AnswerType", "AnswerArgument", "EntityName")
_WEBQSP_FIELDS = frozenset({"QuestionId", "RawQuestion", "Parses"})


def _webqsp_question(obj: dict[str, Any]) -> KGQAQuestion:
    """One WebQSP question object (RawQuestion, else ProcessedQuestion, is the text)."""
    qid = _record_id(obj, "QuestionId")
    text = _question_text(obj, "RawQuestion", "ProcessedQuestion")
    parses = obj.get("Parses")
    if not isinstance(parses, list):
        raise _BadRecord(f"'Parses' must be a list, not {_json_type(parses)}")
    forms = tuple(_webqsp_parse(parse, qid, n) for n, parse in enumerate(parses, 1))
    return KGQAQuestion(qid, text, "webqsp", forms, _extra(obj, _WEBQSP_FIELDS))


def _webqsp_parse(parse: Any, qid: str, n: int) -> LogicalForm:
    """Parse ``n`` (1-based) of question ``qid``; a missing ParseId becomes ``{qid}.P{n-1}``."""
    where = f"parse #{n}"
    if not isinstance(parse, dict):
        raise _BadRecord(f"{where} must be an object, not {_json_type(parse)}")
    mid = _optional(parse, "TopicEntityMid", str, where)
    name = _name(parse.get("TopicEntityName"), f"{where}: 'TopicEntityName'")
    answers = _objects(parse, "Answers", where)
    return LogicalForm(
        id=_optional(parse, "ParseId", str, where) or f"{qid}.P{n - 1}",
        sparql=_optional(parse, "Sparql", str, where),
        topic_entities=((mid.strip(), name),) if mid and mid.strip() else (),
        answers=tuple(_typed_answer(a, _WEBQSP_ANSWER_KEYS, f"{where} answer #{k}")
                      for k, a in enumerate(answers, 1)),
        inferential_chain=_strings(parse, "InferentialChain", where),
        constraints=tuple(_objects(parse, "Constraints", where)),
        time=_optional(parse, "Time", dict, where),
        order=_optional(parse, "Order", dict, where),
    )


# -- GrailQA ----------------------------------------------------------------------------------
_GRAILQA_ANSWER_KEYS = ("answer_type", "answer_argument", "entity_name")
_GRAILQA_FIELDS = frozenset({"qid", "question", "answer", "function", "graph_query",
                             "sparql_query", "s_expression", "topic_entity"})


def _grailqa_question(obj: dict[str, Any]) -> KGQAQuestion:
    """One GrailQA record (qid may be an integer: it becomes text)."""
    qid = _record_id(obj, "qid")
    text = _question_text(obj, "question")
    function = _optional(obj, "function", str) or "none"
    if function not in GRAILQA_FUNCTIONS:
        raise _BadRecord(f"'function' is {function!r}, not one of {', '.join(GRAILQA_FUNCTIONS)}")
    graph = _graph_query(obj)
    form = LogicalForm(
        id=qid,
        sparql=_optional(obj, "sparql_query", str),
        graph_query=graph,
        topic_entities=_grailqa_topics(obj, graph),
        answers=tuple(_typed_answer(a, _GRAILQA_ANSWER_KEYS, f"answer #{k}")
                      for k, a in enumerate(_objects(obj, "answer"), 1)),
        function=function,
        s_expression=_optional(obj, "s_expression", str),
    )
    return KGQAQuestion(qid, text, "grailqa", (form,), _extra(obj, _GRAILQA_FIELDS))


def _graph_query(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The ``graph_query`` object, checked to hold lists of node and edge objects."""
    graph = _optional(obj, "graph_query", dict)
    if graph is not None:
        for key in ("nodes", "edges"):
            if not isinstance(graph.get(key), list):
                raise _BadRecord(f"'graph_query' needs a '{key}' list")
            _objects(graph, key, "graph_query")
    return graph


def _grailqa_topics(obj: dict[str, Any],
                    graph: dict[str, Any] | None) -> tuple[tuple[str, str | None], ...]:
    """``(mid, name)`` pairs: the non-empty ``topic_entity`` mapping, else the graph
    query's ``entity`` nodes (id, friendly_name) in node order, without repeats."""
    mapping = _optional(obj, "topic_entity", dict)
    if mapping:
        return tuple((mid, _name(name, f"'topic_entity' {mid!r}"))
                     for mid, name in mapping.items())
    topics: dict[str, str | None] = {}
    for node in (graph or {}).get("nodes", ()):
        if node.get("node_type") == "entity":
            mid = _scalar_text(node.get("id"), "'graph_query' entity node 'id'")
            topics.setdefault(mid, _name(node.get("friendly_name"),
                                         "'graph_query' entity node 'friendly_name'"))
    return tuple(topics.items())


# -- generic JSONL ----------------------------------------------------------------------------
_JSONL_FIELDS = frozenset({"id", "question", "answers", "answer_names", "sparql", "triples",
                           "topic_entities"})


def _jsonl_question(obj: dict[str, Any]) -> KGQAQuestion:
    """One generic JSONL record."""
    rid = _record_id(obj, "id")
    text = _question_text(obj, "question")
    form = LogicalForm(
        id=rid,
        sparql=_optional(obj, "sparql", str),
        triples=_triples(obj),
        topic_entities=_jsonl_topics(obj),
        answers=_jsonl_answers(obj),
    )
    return KGQAQuestion(rid, text, "jsonl", (form,), _extra(obj, _JSONL_FIELDS))


def _jsonl_answers(obj: dict[str, Any]) -> tuple[GoldAnswer, ...]:
    """``answers`` (strings are entity ids; objects say their kind) named by the parallel
    ``answer_names`` when the answer object gives no name."""
    answers = _optional(obj, "answers", list) or []
    names = _optional(obj, "answer_names", list)
    if names is not None and len(names) != len(answers):
        raise _BadRecord(f"'answer_names' has {len(names)} names for {len(answers)} answers")
    result = []
    for n, answer in enumerate(answers, 1):
        name = _name(names[n - 1], f"'answer_names' #{n}") if names is not None else None
        result.append(_jsonl_answer(answer, name, f"answer #{n}"))
    return tuple(result)


def _jsonl_answer(answer: Any, name: str | None, where: str) -> GoldAnswer:
    """A JSONL answer: a string (an entity id) or ``{"value", "kind", "name"?, "datatype"?}``."""
    if isinstance(answer, str):
        return GoldAnswer("entity", answer, name)
    if not isinstance(answer, dict):
        raise _BadRecord(f"{where} must be a string (an entity id) or an object, "
                         f"not {_json_type(answer)}")
    kind = answer.get("kind")
    if kind not in ("entity", "value"):
        raise _BadRecord(f"{where}: 'kind' must be 'entity' or 'value', not {kind!r}")
    return GoldAnswer(kind, _scalar_text(answer.get("value"), f"{where}: 'value'"),
                      _name(answer.get("name"), f"{where}: 'name'") or name,
                      _name(answer.get("datatype"), f"{where}: 'datatype'"))


def _triples(obj: dict[str, Any]) -> tuple[tuple[str, str, str], ...] | None:
    """``triples`` as ``(s, p, o)`` string tuples, ``None`` when missing or null."""
    triples = _optional(obj, "triples", list)
    if triples is None:
        return None
    for n, triple in enumerate(triples, 1):
        if not (isinstance(triple, list) and len(triple) == 3
                and all(isinstance(term, str) for term in triple)):
            raise _BadRecord(f"triple #{n} must be a list of 3 strings [s, p, o], "
                             f"not {json.dumps(triple)[:80]}")
    return tuple((s, p, o) for s, p, o in triples)


def _jsonl_topics(obj: dict[str, Any]) -> tuple[tuple[str, str | None], ...]:
    """``topic_entities`` as ``(id, name)`` pairs: each item an id or an ``[id, name]`` pair."""
    topics: list[tuple[str, str | None]] = []
    for n, item in enumerate(_optional(obj, "topic_entities", list) or [], 1):
        if isinstance(item, str):
            topics.append((item, None))
        elif (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
              and (item[1] is None or isinstance(item[1], str))):
            topics.append((item[0], item[1]))
        else:
            raise _BadRecord(f"'topic_entities' #{n} must be an id or an [id, name] pair, "
                             f"not {json.dumps(item)[:80]}")
    return tuple(topics)
