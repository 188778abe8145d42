"""Classify query graphs as single / path / tree, following CAQA.

Reference: Hu et al., *Benchmarking Large Language Models in Complex Question
Answering Attribution using Knowledge Graphs* (CAQA), §4.1 and Appendix B. The three
logical-query shapes the extension rules take as input are

* **single** ``(e0, r0, ?a)``;
* **path** ``[e0, r0, ?v1, …, r_{n-1}, ?a]`` with at most 2 hops;
* **tree** ``∧(e_i, r_i, ?a)`` with at most two subject entities converging on ``?a``.

Hops are counted on the graph with CVT (mediator) variables contracted, as CAQA does
for Freebase: a CVT and the edges around it are one n-ary fact, so
``(Harper Lee, person.education, ?cvt), (?cvt, education.institution, ?a)`` is one hop
and the query is **single**. Constants that hang off a CVT beside the hop's two ends
(``?cvt film.performance.character Michael Corleone`` in "who played Michael
Corleone in The Godfather?") are *qualifiers* of that n-ary fact, not further subject
entities: the hop runs from the topic entity (the dataset's topic entity when it is on
the CVT, else the CVT's first constant in edge order) to the variable. Edge
direction does not matter for the shape (Freebase stores most relations in both
directions).

Class constraints (``type.object.type``) and ``!=`` filters are constraints, not
structure. Everything else is ``unsupported`` with a reason code (:data:`REASONS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal as TypingLiteral

import networkx as nx

from extension.core.query_graph import QueryGraph

Shape = TypingLiteral["single", "path", "tree", "unsupported"]

MAX_PATH_HOPS = 2
MAX_TREE_SUBJECTS = 2
MAX_SPARQL_NESTING = 16
"""Deepest nesting of brackets (``(``, ``{``, ``[``, counted together) a SPARQL query
may have (:mod:`extension.inputs.sparql`); deeper is ``sparql_too_deep``. Three times the
deepest WebQSP or GrailQA query, well inside what rdflib's recursive parser can take."""

REASONS: dict[str, str] = {
    "function_count": "counting question (COUNT)",
    "function_superlative": "superlative (argmax/argmin, ORDER BY … LIMIT)",
    "function_comparative": "comparative (<, <=, >, >= against a literal)",
    "literal_comparison": "literal comparison in a FILTER (time or value constraint)",
    "no_topic_entity": "no entity constant to start from",
    "literal_subject": "a literal constant is one of the query's subjects",
    "too_many_hops": f"more than {MAX_PATH_HOPS} hops from the topic entity to the answer",
    "too_many_subjects": f"more than {MAX_TREE_SUBJECTS} subject entities converge on the answer",
    "long_tree_branch": "a tree branch is longer than one hop",
    "intermediate_constraint": "an intermediate node carries a further branch",
    "cycle": "the query graph has a cycle (or two relations between the same nodes)",
    "disconnected": "the query graph is not connected",
    "dangling_variable": "a variable other than the answer is a leaf",
    "cvt_joins_variables": "a CVT node joins more than two variables",
    "inner_constant": "a constant sits inside a path rather than at its end",
    "answer_is_cvt": "the answer variable is a CVT node",
    "unsupported_sparql": "SPARQL the query-graph model cannot express",
    "sparql_syntax": "the SPARQL text does not parse",
    "sparql_too_deep": f"the SPARQL nests brackets more than {MAX_SPARQL_NESTING} deep "
                       "(rdflib's parser would run out of stack)",
    "no_logical_form": "the question has no logical query",
    "invalid_logical_form": "the logical form is malformed",
}
"""Reason code -> what it means. Codes are stable keys for coverage tables."""


@dataclass(frozen=True, slots=True)
class Hop:
    """One hop of the contracted graph: ``ends`` are two non-CVT nodes; ``via`` the CVT
    variable it passes (``None`` for a direct edge); ``qualifiers`` the constants hanging
    off that CVT."""

    ends: tuple[str, str]
    via: str | None = None
    qualifiers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Classification:
    """The shape of a query graph.

    ``subjects`` are the subject (topic) entities the branches start from; ``branches``
    lists, per subject, the node ids from the subject to the answer on the contracted
    graph; ``hops`` is the longest branch's hop count; ``qualifiers`` the constants
    attached to CVTs. ``reason``/``detail`` are set when ``shape`` is ``unsupported``.
    """

    shape: Shape
    reason: str | None = None
    detail: str | None = None
    subjects: tuple[str, ...] = ()
    branches: tuple[tuple[str, ...], ...] = ()
    hops: int = 0
    qualifiers: tuple[str, ...] = ()
    hop_list: tuple[Hop, ...] = field(default=(), repr=False)

    @property
    def supported(self) -> bool:
        return self.shape != "unsupported"


def unsupported(reason: str, detail: str | None = None) -> Classification:
    """An ``unsupported`` classification; ``reason`` must be a key of :data:`REASONS`."""
    if reason not in REASONS:
        raise ValueError(f"unknown reason code {reason!r}")
    return Classification(shape="unsupported", reason=reason, detail=detail or REASONS[reason])


def contract_cvts(graph: QueryGraph, topic_entities: Sequence[str] = ()) -> list[Hop] | Classification:
    """The hops of ``graph`` with CVT variables contracted (see the module docstring),
    or an ``unsupported`` classification when a CVT cannot be read as one n-ary fact."""
    cvts = {n.id for n in graph.nodes if n.is_cvt}
    hops: list[Hop] = []
    for e in graph.edges:
        if e.source not in cvts and e.target not in cvts:
            hops.append(Hop((e.source, e.target)))
    for cvt in sorted(cvts, key=[n.id for n in graph.nodes].index):
        # Neighbours in edge order (networkx's undirected view iterates a set, whose
        # order changes with the hash seed: the topic choice below must not).
        around = list(dict.fromkeys(
            e.target if e.source == cvt else e.source
            for e in graph.edges if cvt in (e.source, e.target)))
        if any(n in cvts for n in around):
            # Two CVTs in a row: contracting both gives one hyper-hop with no clear
            # direction; reported as a chain of CVTs joining variables.
            return unsupported("cvt_joins_variables", f"CVT {cvt} is joined to another CVT")
        variables = [n for n in around if graph.node(n).is_variable]
        constants = [n for n in around if not graph.node(n).is_variable]
        if len(variables) > 2:
            return unsupported("cvt_joins_variables", f"CVT {cvt} joins {variables}")
        if len(variables) == 2:
            ends = (variables[0], variables[1])
            qualifiers = tuple(constants)
        elif len(variables) == 1 and constants:
            topic = next((c for c in topic_entities if c in constants), constants[0])
            ends = (topic, variables[0])
            qualifiers = tuple(c for c in constants if c != topic)
        else:
            return unsupported("dangling_variable", f"CVT {cvt} leads nowhere")
        hops.append(Hop(ends, cvt, qualifiers))
    return hops


def classify(graph: QueryGraph, topic_entities: Sequence[str] = ()) -> Classification:
    """The CAQA shape of ``graph`` (see the module docstring).

    ``topic_entities`` (dataset annotations, e.g. WebQSP's ``TopicEntityMid``) only
    decide which constant on a CVT is the subject and which are qualifiers.
    """
    if graph.function == "count":
        return unsupported("function_count")
    if graph.function in ("argmax", "argmin") or graph.order is not None:
        return unsupported("function_superlative")
    if graph.function != "none":
        return unsupported("function_comparative", f"comparative {graph.function!r}")
    if graph.comparisons:
        c = graph.comparisons[0]
        return unsupported("literal_comparison",
                           f"{c.node}{' ' + c.predicate if c.predicate else ''} {c.op} "
                           f"{c.value if c.other is None else c.other}")
    if graph.node(graph.answer).is_cvt:
        return unsupported("answer_is_cvt")
    # Constants that only a constraint mentions (``FILTER(?x != ns:m.…)`` naming an
    # entity the patterns do not) are no part of the structure.
    on_edges = {end for e in graph.edges for end in (e.source, e.target)}
    if not any(n.kind == "entity" and n.id in on_edges for n in graph.nodes):
        return unsupported("no_topic_entity")

    contracted = contract_cvts(graph, topic_entities)
    if isinstance(contracted, Classification):
        return contracted
    qualifiers = tuple(q for h in contracted for q in h.qualifiers)
    h = nx.MultiGraph()
    h.add_nodes_from(n.id for n in graph.nodes if not n.is_cvt and n.id not in qualifiers
                     and (n.is_variable or n.id in on_edges))
    for hop in contracted:
        h.add_edge(*hop.ends)
    if not nx.is_connected(h):
        return unsupported("disconnected")
    if h.number_of_edges() != h.number_of_nodes() - 1:
        return unsupported("cycle")

    answer = graph.answer
    leaves = [n for n in h.nodes if h.degree(n) == 1 and n != answer]
    for leaf in leaves:
        if graph.node(leaf).is_variable:
            return unsupported("dangling_variable", f"variable {leaf} is a leaf")
    for n in h.nodes:
        node = graph.node(n)
        if not node.is_variable and h.degree(n) > 1:
            return unsupported("inner_constant", f"constant {n} has {h.degree(n)} neighbours")
    if any(graph.node(n).kind == "literal" for n in leaves):
        lit = next(n for n in leaves if graph.node(n).kind == "literal")
        return unsupported("literal_subject", f"literal {graph.node(lit).value!r}")

    branches = tuple(tuple(nx.shortest_path(h, leaf, answer)) for leaf in leaves)
    for n in h.nodes:
        if n != answer and graph.node(n).is_variable and h.degree(n) > 2:
            return unsupported("intermediate_constraint",
                               f"variable {n} has {h.degree(n)} neighbours")
    subjects = tuple(leaves)
    hops = max(len(b) - 1 for b in branches)
    result = dict(subjects=subjects, branches=branches, hops=hops, qualifiers=qualifiers,
                  hop_list=tuple(contracted))
    if len(subjects) == 1:
        if hops > MAX_PATH_HOPS:
            return unsupported("too_many_hops", f"{hops} hops")
        return Classification(shape="single" if hops == 1 else "path", **result)  # type: ignore[arg-type]
    if len(subjects) > MAX_TREE_SUBJECTS:
        return unsupported("too_many_subjects", f"{len(subjects)} subject entities")
    if hops > 1:
        return unsupported("long_tree_branch", f"a branch of {hops} hops")
    return Classification(shape="tree", **result)  # type: ignore[arg-type]
