"""KGQA questions -> parsed questions: query graph, shape and gold answers.

Input is a :class:`loaders.kgqa.KGQAQuestion` (any dataset's reader output); output a
:class:`ParsedQuestion`, the record ``kgbench questions parse`` writes one per line.

Each logical form becomes a :class:`~extension.core.query_graph.QueryGraph`:

* SPARQL (WebQSP, JSONL ``sparql``) via :func:`extension.inputs.sparql.sparql_to_graph`;
* GrailQA ``graph_query`` via :func:`graph_query_to_graph`, cross-checked against
  the record's ``sparql_query`` (the result says whether the two agree);
* JSONL ``triples`` with ``?vars`` via :func:`triples_to_graph`.

The parse kept for a question is the first supported one among its parses, else the
first (the issue's rule; WebQSP lists several parses for ~9% of its questions).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from typing import Literal as TypingLiteral

from pydantic import BaseModel, ConfigDict, Field

from extension.core.query_graph import (
    Comparison,
    Function,
    OrderBy,
    QueryGraph,
    Term,
    build_query_graph,
    known_mediator_types,
)
from extension.core.rules import Rule
from extension.core.shapes import Classification, Shape, classify, unsupported
from extension.inputs.sparql import XSD, SparqlError, sparql_to_graph
from kgstore.models import Literal, short_datatype
from loaders.kgqa import GoldAnswer, KGQAQuestion, LogicalForm

CrossCheck = TypingLiteral["agree", "differ", "sparql_failed", "not_checked"]


class Answer(BaseModel):
    """A gold answer: an entity id or a literal value."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: TypingLiteral["entity", "value"]
    value: str
    name: str | None = None
    datatype: str | None = None


class ParseAttempt(BaseModel):
    """How one of a question's logical forms fared."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    parse_id: str
    shape: Shape
    reason: str | None = None


class ParsedQuestion(BaseModel):
    """One question with its chosen logical form as a query graph and its CAQA shape.

    ``reason``/``reason_detail`` explain an ``unsupported`` shape; ``topic_entities``
    are the subject entities of the shape (the dataset's annotation when the query
    cannot be classified); ``qualifiers`` the constants attached to CVTs; ``hops`` the
    longest branch in hops (CVT hops count once). ``cross_check`` reports GrailQA's
    graph_query vs sparql_query comparison.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    dataset: str
    question: str
    shape: Shape
    reason: str | None = None
    reason_detail: str | None = None
    parse_id: str | None = None
    query: QueryGraph | None = None
    topic_entities: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()
    hops: int = 0
    answers: tuple[Answer, ...] = ()
    parses: tuple[ParseAttempt, ...] = ()
    cross_check: CrossCheck = "not_checked"
    cross_check_detail: str | None = None
    rule: Rule | None = Field(default=None, exclude_if=lambda rule: rule is None)
    """The extension rule to try first: a ``--domain`` seed question's, drawn for its
    complexity (:mod:`extension.inputs.complexity_mix`); None (left out of the JSON):
    drawn as CAQA §4.2 says."""


def parse_question(question: KGQAQuestion, *, cvt_types: frozenset[str] | None = None
                   ) -> ParsedQuestion:
    """Convert and classify every logical form of ``question``; keep the first
    supported one, else the first. ``cvt_types`` defaults to
    :func:`~extension.core.query_graph.known_mediator_types`."""
    types = known_mediator_types() if cvt_types is None else cvt_types
    attempts: list[tuple[LogicalForm, QueryGraph | None, Classification, CrossCheck, str | None]] = []
    for form in question.parses:
        graph, result, check, detail = _convert(form, types)
        attempts.append((form, graph, result, check, detail))
        if result.supported:
            break
    if not attempts:
        result = unsupported("no_logical_form")
        return ParsedQuestion(id=question.id, dataset=question.dataset,
                              question=question.question, shape=result.shape,
                              reason=result.reason, reason_detail=result.detail)
    chosen = next((a for a in attempts if a[2].supported), attempts[0])
    form, graph, result, check, detail = chosen
    topic = result.subjects or tuple(e for e, _ in form.topic_entities)
    return ParsedQuestion(
        id=question.id, dataset=question.dataset, question=question.question,
        shape=result.shape, reason=result.reason, reason_detail=result.detail,
        parse_id=form.id, query=graph, topic_entities=topic, qualifiers=result.qualifiers,
        hops=result.hops, answers=tuple(_answer(a) for a in form.answers),
        parses=tuple(ParseAttempt(parse_id=f.id, shape=r.shape, reason=r.reason)
                     for f, _, r, _, _ in attempts),
        cross_check=check, cross_check_detail=detail,
    )


def _answer(gold: GoldAnswer) -> Answer:
    kind: TypingLiteral["entity", "value"] = "entity" if gold.kind == "entity" else "value"
    return Answer(kind=kind, value=gold.value, name=gold.name, datatype=gold.datatype)


def _names(form: LogicalForm) -> dict[str, str]:
    names = {e: n for e, n in form.topic_entities if n}
    for c in form.constraints:
        if c.get("ArgumentType") == "Entity" and c.get("EntityName"):
            names.setdefault(str(c.get("Argument")), str(c["EntityName"]))
    return names


def _convert(form: LogicalForm, cvt_types: frozenset[str]
             ) -> tuple[QueryGraph | None, Classification, CrossCheck, str | None]:
    names = _names(form)
    topics = [e for e, _ in form.topic_entities]
    check: CrossCheck = "not_checked"
    detail = None
    try:
        if form.graph_query is not None:
            graph = graph_query_to_graph(form.graph_query, function=form.function,
                                         cvt_types=cvt_types)
            if form.sparql:
                check, detail = cross_check(graph, form.sparql, cvt_types)
        elif form.sparql:
            graph = sparql_to_graph(form.sparql, cvt_types=cvt_types, names=names)
        elif form.triples is not None:
            graph = triples_to_graph(form.triples, cvt_types=cvt_types, names=names)
        else:
            return None, unsupported("no_logical_form"), check, detail
    except SparqlError as exc:
        return None, unsupported(exc.code, exc.message), check, detail
    except (ValueError, KeyError, TypeError) as exc:
        return None, unsupported("invalid_logical_form", str(exc)), check, detail
    return graph, classify(graph, topics), check, detail


# -- GrailQA graph_query ----------------------------------------------------------------

_COMPARATIVES = {"<", "<=", ">", ">="}


def graph_query_to_graph(graph_query: dict[str, Any], *, function: str = "none",
                         cvt_types: frozenset[str] = frozenset()) -> QueryGraph:
    """The query graph of a GrailQA ``graph_query`` ``{nodes, edges}``.

    Class nodes become variables ``?x{nid}`` (the names GrailQA's own ``sparql_query``
    uses) with their class as a class constraint; the ``question_node`` is the answer;
    entity nodes are constants; literal nodes are constants, except under a function
    (``argmax``/``argmin``: the literal is the ordered variable; comparatives: the
    literal is the compared value). Raises ``ValueError``/``KeyError`` on a malformed
    graph query.
    """
    nodes = {int(n["nid"]): n for n in graph_query["nodes"]}
    answer = next((f"?x{nid}" for nid, n in nodes.items() if n.get("question_node") == 1), None)
    if answer is None:
        raise ValueError("graph_query has no question_node")
    terms: dict[int, Term] = {}
    triples: list[tuple[Term, str, Term]] = []
    comparisons: list[Comparison] = []
    order = None
    graph_function: Function = "none"
    names = {}
    for nid, n in nodes.items():
        kind = n["node_type"]
        node_function = n.get("function", "none")
        if kind == "class" or (kind == "literal" and node_function != "none"):
            var = f"?x{nid}"
            terms[nid] = var
            if kind == "class":
                triples.append((var, "type.object.type", str(n["class"])))
            if node_function == "count":
                graph_function = "count"
            elif node_function in ("argmax", "argmin"):
                graph_function = node_function
                order = OrderBy(node=var, descending=node_function == "argmax", limit=1)
            elif node_function in _COMPARATIVES:
                graph_function = node_function
                lit = grailqa_literal(str(n["id"]))
                comparisons.append(Comparison(node=var, op=node_function, value=lit.value,
                                              datatype=lit.datatype))
        elif kind == "entity":
            terms[nid] = str(n["id"])
            if n.get("friendly_name"):
                names[str(n["id"])] = str(n["friendly_name"])
        elif kind == "literal":
            terms[nid] = grailqa_literal(str(n["id"]))
        else:
            raise ValueError(f"unknown GrailQA node_type {kind!r}")
    for e in graph_query["edges"]:
        triples.append((terms[int(e["start"])], str(e["relation"]), terms[int(e["end"])]))
    if function == "count":
        graph_function = "count"
    graph = build_query_graph(triples, answer=answer, names=names, cvt_types=cvt_types,
                              function=graph_function)
    return graph.model_copy(update={"comparisons": tuple(comparisons), "order": order})


def grailqa_literal(text: str) -> Literal:
    """``1990^^http://www.w3.org/2001/XMLSchema#gYear`` -> Literal("1990", "xsd:gYear")."""
    value, sep, datatype = text.partition("^^")
    value = value.strip('"')
    return Literal(value, short_datatype(datatype) if sep else None)


def graph_signature(graph: QueryGraph) -> tuple[Any, ...]:
    """What :func:`cross_check` compares: edges (literals written out), answer and
    class constraints."""
    label = {n.id: str(n.literal()) if n.kind == "literal" else n.id for n in graph.nodes}
    return (
        sorted((label[e.source], e.predicate, label[e.target]) for e in graph.edges),
        graph.answer,
        sorted((n.id, n.classes) for n in graph.nodes if n.classes),
    )


def cross_check(graph: QueryGraph, sparql: str, cvt_types: frozenset[str]
                ) -> tuple[CrossCheck, str | None]:
    """Compare a graph_query's graph with the same record's SPARQL (GrailQA)."""
    try:
        other = sparql_to_graph(sparql, cvt_types=cvt_types)
    except SparqlError as exc:
        return "sparql_failed", exc.message
    mine, theirs = graph_signature(graph), graph_signature(other)
    if graph.function in ("argmax", "argmin", "count") or graph.comparisons:
        # GrailQA writes superlatives as a MIN/MAX subquery repeating the pattern under
        # other variable names; only the set of predicates is comparable.
        mine_p, theirs_p = {e.predicate for e in graph.edges}, {e.predicate for e in other.edges}
        if mine_p == theirs_p:
            return "agree", None
        return "differ", f"predicates: graph_query {sorted(mine_p)}, sparql_query {sorted(theirs_p)}"
    if mine == theirs:
        return "agree", None
    parts = [f"{name}: graph_query {a}, sparql_query {b}"
             for name, a, b in zip(("edges", "answer", "classes"), mine, theirs, strict=True)
             if a != b]
    return "differ", "; ".join(parts)


# -- JSONL triples -------------------------------------------------------------------------

_LITERAL_TERM = re.compile(r'^"(?P<value>.*)"(?:@(?P<lang>[A-Za-z0-9\-]+)|\^\^<?(?P<dt>[^>]+)>?)?\Z',
                           re.DOTALL)
ANSWER_VARIABLES = ("?a", "?x", "?answer")
"""Which variable of a JSONL ``triples`` query is the answer, in order of preference."""


def triples_to_graph(triples: Iterable[tuple[str, str, str]], *, answer: str | None = None,
                     cvt_types: frozenset[str] = frozenset(),
                     names: dict[str, str] | None = None) -> QueryGraph:
    """The query graph of JSONL ``triples`` ``[[s, p, o], …]``.

    Terms starting with ``?`` are variables; ``"text"``, ``"text"@en`` and
    ``"v"^^xsd:int`` are literals; anything else is an entity or predicate id. The
    answer is ``answer`` or the first of :data:`ANSWER_VARIABLES` present.
    """
    parsed: list[tuple[Term, str, Term]] = []
    for s, p, o in triples:
        parsed.append((_jsonl_term(s), p, _jsonl_term(o)))
    variables = {t for tr in parsed for t in (tr[0], tr[2]) if isinstance(t, str) and t.startswith("?")}
    if answer is None:
        answer = next((v for v in ANSWER_VARIABLES if v in variables), None)
        if answer is None:
            raise ValueError(f"no answer variable: use one of {', '.join(ANSWER_VARIABLES)}")
    return build_query_graph(parsed, answer=answer, cvt_types=cvt_types, names=names)


def _jsonl_term(text: str) -> Term:
    m = _LITERAL_TERM.match(text)
    if m is None:
        return text
    dt = m.group("dt")
    if dt and dt.startswith("xsd:"):
        dt = XSD + dt[4:]
    return Literal(m.group("value"), short_datatype(dt) if dt else None, m.group("lang"))
