"""Template question text for sampled seed queries (:func:`template_question`).

Each hop of a seed query (a plain edge or an n-ary fact through a CVT) is asked or
described with the relation phrases of :mod:`extension.text.relation_phrases`, so seed
questions and the verbalized samples word relations alike ("What is the birthplace of
Douglas Adams?", "Which entity was born in Honolulu and was educated at Columbia
University?").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral

import networkx as nx

from extension.query_graph import (
    QueryEdge,
    predicate_domain,
)
from extension.text import english
from extension.text.relation_phrases import PhraseTable

_HopKind = TypingLiteral["forward", "backward", "cvt_forward", "cvt_backward", "cvt_roles"]


@dataclass(frozen=True, slots=True)
class _TextHop:
    """One contracted hop read from its known (subject) side toward the unknown:

    * ``forward`` ``E -p-> ?``; ``backward`` ``? -p-> E``;
    * ``cvt_forward`` ``E -p-> cvt -role-> ?`` (E owns the n-ary fact);
    * ``cvt_backward`` ``? -p-> cvt -role-> E`` (the unknown owns it);
    * ``cvt_roles`` ``cvt -role-> E`` and ``cvt -other-> ?`` (two roles of one fact).

    ``noun`` names the CVT's type ("performance", from the role predicate's Freebase
    domain; ``None`` for Wikidata statement nodes)."""

    kind: _HopKind
    predicate: str
    role: str | None = None
    other: str | None = None
    noun: str | None = None


def template_question(shape: str, edges: Sequence[QueryEdge], names: Mapping[str, str],
                      phrases: Mapping[str, str] | None = None, *, answer: str = "?a",
                      cvt_nodes: Collection[str] = ()) -> str:
    """A template question for a seed query of ``shape`` (single, path or tree).

    ``edges`` are the query graph's edges (no qualifiers), ``answer`` its answer
    variable and ``cvt_nodes`` its CVT variables, each contracted with the two edges
    around it into one hop; ``names`` give the subject entities' names (else the id is
    shown). ``phrases`` are relation phrases read "Subject <phrase> Object" (a
    :class:`extension.text.relation_phrases.PhraseTable`, or overrides of the shipped table; see
    :func:`extension.text.relation_phrases.relation_phrase`): their inverse readings and "has the
    X" nouns make the questions. Per CAQA's three shapes:

    * single: "What directed Titanic?", "What is the place of birth of Douglas Adams?",
      "What was born in Honolulu?", "Al Pacino gave a performance with what film?";
    * path: the single question about the entity the first hop describes: "What is the
      country of origin of the film of the performance that Al Pacino gave?";
    * tree: "Which entity <clause 1> and <clause 2>?" ("Which entity was born in
      Honolulu and was educated at Columbia University?").

    Raises ``ValueError`` when the edges do not form ``shape`` or a CVT hop has both
    edges pointing into the CVT.
    """
    table = phrases if isinstance(phrases, PhraseTable) else PhraseTable(overrides=phrases)
    branches = _text_branches(edges, answer, frozenset(cvt_nodes))
    lengths = sorted(len(hops) for _, hops in branches)
    expected = {"single": [1], "path": [2], "tree": [1, 1]}.get(shape)
    if expected is None or lengths != expected:
        raise ValueError(f"edges do not form a {shape} query: branch lengths {lengths}")
    if shape == "tree":
        clauses = [_clause(hop, names.get(s, s), table) for s, (hop,) in branches]
        return english.capitalized(f"which entity {clauses[0]} and {clauses[1]}?")
    subject, hops = branches[0]
    known = names.get(subject, subject)
    for hop in hops[:-1]:
        known = _describe(hop, known, table)
    return english.capitalized(_ask(hops[-1], known, table))


def _noun_of(predicate: str, table: PhraseTable) -> str | None:
    """The noun X of a "has [the] X" phrase (the relation read as an attribute)."""
    return table.role(predicate) if table[predicate].startswith("has ") else None


def _ask(hop: _TextHop, known: str, table: PhraseTable) -> str:
    """The question for the unknown end of ``hop`` from the ``known`` one."""
    phrase = table[hop.predicate]
    if hop.kind == "forward":
        inverse, noun = table.inverse(hop.predicate), _noun_of(hop.predicate, table)
        if inverse:
            return f"what {inverse} {known}?"
        if noun:
            return f"what is the {noun} of {known}?"
        return _wh_question(phrase, known) or f"{known} {phrase} what?"
    if hop.kind == "backward":
        return f"what {phrase} {known}?"
    if hop.kind == "cvt_backward":
        return f"what {_clause(hop, known, table)}?"
    if hop.kind == "cvt_forward" and hop.noun is not None \
            and _noun_of(hop.predicate, table) is None:
        return f"{known} {phrase} {english.article(hop.noun)} with what {table.role(str(hop.role))}?"
    return f"what is {_describe(hop, known, table)}?"


_WH_PHRASE = re.compile(r"(was|were|is|are) (\w+) (on|at)")
_WH_WORDS = {"on": "when", "at": "where"}


def _wh_question(phrase: str, known: str) -> str | None:
    """A when/where question for a passive phrase ending in "on" (a date) or "at" (a
    place): "was born on" -> "when was Hayao Miyazaki born?", "was educated at" ->
    "where was Douglas Adams educated?"; ``None`` for other phrases. ("in" is left
    alone: "was released in" takes a year as often as a country.)"""
    match = _WH_PHRASE.fullmatch(phrase)
    if match is None:
        return None
    aux, verb, preposition = match.groups()
    return f"{_WH_WORDS[preposition]} {aux} {known} {verb}?"


def _describe(hop: _TextHop, known: str, table: PhraseTable) -> str:
    """A noun phrase for the unknown end of ``hop`` (a path's intermediate entity)."""
    phrase = table[hop.predicate]
    if hop.kind == "forward":
        inverse, noun = table.inverse(hop.predicate), _noun_of(hop.predicate, table)
        if inverse:
            return f"the one that {inverse} {known}"
        if noun:
            return f"the {noun} of {known}"
        return f"the one that {known} {phrase}"
    if hop.kind in ("backward", "cvt_backward"):
        return f"the one that {_clause(hop, known, table)}"
    role = table.role(str(hop.role))
    if hop.kind == "cvt_roles":
        return f"the {table.role(str(hop.other))} of the {hop.noun or 'fact'} with {role} {known}"
    attribute = _noun_of(hop.predicate, table)
    if attribute is not None:   # "has the runtime" through a film cut: "the runtime of X"
        return f"the {role} of {known}" if attribute == role else \
            f"the {role} of the {attribute} of {known}"
    if hop.noun is None:   # a Wikidata statement: the qualifier of a fact
        return f"the {role} of the fact that {known} {phrase} something"
    return f"the {role} of the {hop.noun} that {known} {phrase}"


def _clause(hop: _TextHop, known: str, table: PhraseTable) -> str:
    """What the unknown end of ``hop`` does, after "Which entity …" / "the one that …"."""
    phrase = table[hop.predicate]
    if hop.kind == "backward":
        return f"{phrase} {known}"
    if hop.kind == "cvt_backward":
        return f"{phrase} {english.article(hop.noun) if hop.noun else 'something'} with " \
               f"{table.role(str(hop.role))} {known}"
    if hop.kind == "forward":
        inverse, noun = table.inverse(hop.predicate), _noun_of(hop.predicate, table)
        if inverse:
            return f"{inverse} {known}"
        if noun:
            return f"is the {noun} of {known}"
        return f"is the one that {known} {phrase}"
    return f"is {_describe(hop, known, table)}"


def _text_branches(edges: Sequence[QueryEdge], answer: str, cvts: frozenset[str]
                   ) -> list[tuple[str, list[_TextHop]]]:
    """Per subject constant (in edge order): its contracted hops toward ``answer``."""
    graph = nx.MultiGraph()
    for e in edges:
        graph.add_edge(e.source, e.target, edge=e)
    if answer not in graph:
        raise ValueError(f"the answer {answer} is on no edge")
    subjects = list(dict.fromkeys(n for e in edges for n in (e.source, e.target)
                                  if not n.startswith("?")))
    branches = []
    for subject in subjects:
        if not nx.has_path(graph, subject, answer):
            raise ValueError(f"{subject} is not connected to {answer}")
        nodes = nx.shortest_path(graph, subject, answer)
        hops: list[_TextHop] = []
        i = 0
        while i < len(nodes) - 1:
            start, nxt = nodes[i], nodes[i + 1]
            if nxt in cvts and i + 2 < len(nodes):
                hops.append(_cvt_text_hop(_edge(graph, start, nxt), _edge(graph, nxt, nodes[i + 2]),
                                          nxt))
                i += 2
            else:
                e = _edge(graph, start, nxt)
                hops.append(_TextHop("forward" if e.source == start else "backward", e.predicate))
                i += 1
        branches.append((subject, hops))
    return branches


def _edge(graph: nx.MultiGraph, a: str, b: str) -> QueryEdge:
    data = graph.get_edge_data(a, b)
    edge: QueryEdge = next(iter(data.values()))["edge"]
    return edge


def _cvt_text_hop(near: QueryEdge, far: QueryEdge, cvt: str) -> _TextHop:
    """The hop known–``cvt``–unknown (``near`` at the known end, ``far`` at the other).
    A Wikidata statement's main value (the same predicate into and out of the node)
    reads as the plain fact."""
    near_out, far_out = near.source == cvt, far.source == cvt
    if not near_out and not far_out:
        raise ValueError(f"CVT {cvt}: both edges point into it; no reading for that hop")
    outgoing = far if far_out else near
    domain = predicate_domain(outgoing.predicate)
    noun = domain.rpartition(".")[2].replace("_", " ") if domain else None
    if near_out and far_out:
        return _TextHop("cvt_roles", near.predicate, role=near.predicate,
                        other=far.predicate, noun=noun)
    if far_out:   # known -near-> cvt -far-> unknown
        if near.predicate == far.predicate:
            return _TextHop("forward", near.predicate)
        return _TextHop("cvt_forward", near.predicate, role=far.predicate, noun=noun)
    if near.predicate == far.predicate:   # unknown -far-> cvt -near-> known
        return _TextHop("backward", far.predicate)
    return _TextHop("cvt_backward", far.predicate, role=near.predicate, noun=noun)
