"""Subgraph edits of CAQA §4.3 and their verification, as pure functions.

From the supporting subgraph ``G`` of an extended query (the **supportive**
attribution) three edits make the other categories:

* **partially supportive** ``G_In``: a path loses one triple
  (:func:`delete_triple_edit`); a tree or a union loses the whole path connecting one
  subject entity to the answer (:func:`delete_path_edit`). Verified: the extended
  query over ``G_In`` alone no longer derives every answer. §4.3 deletes nothing for
  single-triple queries; kgbench's "single" queries may still have a ``G`` of several
  triples (a CVT's n-ary fact, several answers), and those lose one triple too
  (:func:`delete_triple_edit`; see :func:`extension.core.samples._partial`).
* **contradictory** ``G_C``: every answer is replaced by a non-answer that fills the
  same role (:func:`replace_answers_edit`, chosen by
  :mod:`extension.core.contradiction`). Verified: ``G_C`` derives none of the replaced
  answers and every replacement, and its changed facts are false in the store.
* **irrelevant** ``G_Ir``: a structurally similar subgraph sharing only the subject
  entity (found by :func:`extension.core.candidates.similar_subgraph`). Verified by
  :func:`verify_irrelevant`: isomorphic pattern, no shared relation or entity but
  the subject, no answer derived.

Fine-grained support (:func:`sub_facts`): each triple of the original ``G`` is
``supported`` when it is still present after the edit.

Derivation on a subgraph uses :func:`kgstore.patterns.match_facts` (in memory).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import networkx as nx

from extension.core.grounding import compile_query
from extension.core.query_graph import QueryGraph
from kgstore.models import Fact, Object
from kgstore.patterns import Binding, match_facts


def derived_answers(disjuncts: Sequence[QueryGraph], facts: Iterable[Fact]) -> set[Object]:
    """Answers the (union of) ``disjuncts`` derive from ``facts`` alone. Class
    constraints are not checked: a subgraph carries facts, not entity types."""
    fact_list = list(facts)
    answers: set[Object] = set()
    for d in disjuncts:
        query = compile_query(d, classes=False, limit=None)
        answers.update(b[d.answer.removeprefix("?")] for b in match_facts(query, fact_list))
    return answers


def delete_triple_edit(facts: Sequence[Fact], disjuncts: Sequence[QueryGraph],
                       answers: set[Object], rng: random.Random,
                       allowed: Callable[[Fact], bool] | None = None,
                       ) -> tuple[list[Fact], Fact] | None:
    """Partial support for a path: remove one triple of ``G`` (seeded) among those whose
    removal loses at least one answer (:func:`losing_facts`) and that ``allowed``
    accepts. ``None`` when no single triple does that."""
    losing = [f for f in losing_facts(facts, disjuncts, answers) if allowed is None or allowed(f)]
    if not losing:
        return None
    deleted = rng.choice(sorted(losing, key=_fact_key))
    return [f for f in facts if f != deleted], deleted


def losing_facts(facts: Sequence[Fact], disjuncts: Sequence[QueryGraph],
                 answers: set[Object]) -> list[Fact]:
    """The facts of ``facts`` (in order) without which the ``disjuncts`` no longer
    derive every one of ``answers``: those that every derivation of some answer uses.

    A derivation over ``facts`` without ``f`` is a derivation over ``facts`` that does
    not use ``f``, so one match over ``facts`` answers for every ``f`` (rather than one
    match per removed fact). An answer with no derivation at all is lost whichever fact
    goes."""
    fact_list = list(facts)
    uses: dict[Object, list[frozenset[Fact]]] = {a: [] for a in answers}
    for d in disjuncts:
        query = compile_query(d, classes=False, limit=None)
        answer = d.answer.removeprefix("?")
        for b in match_facts(query, fact_list):
            if b[answer] in uses:
                uses[b[answer]].append(frozenset(query.instantiate(b)))
    if any(not derivations for derivations in uses.values()):
        return fact_list
    return [f for f in fact_list
            if any(all(f in used for used in derivations) for derivations in uses.values())]


def branch_edges(graph: QueryGraph, subject: str) -> list[int]:
    """Indexes of the edges on the path from ``subject`` to the answer, with the
    edges hanging off CVT variables on that path (their qualifiers): the "whole path
    connecting one subject entity to the answer"."""
    g = nx.Graph()
    for e in graph.edges:
        g.add_edge(e.source, e.target)
    path = nx.shortest_path(g, subject, graph.answer)
    on_path = set(path)
    cvts = {n.id for n in graph.nodes if n.is_cvt and n.id in on_path}
    chosen = []
    for i, e in enumerate(graph.edges):
        ends = {e.source, e.target}
        if ends <= on_path and _adjacent(path, e.source, e.target):
            chosen.append(i)
        elif ends & cvts and not (ends - cvts) & (on_path - cvts):
            chosen.append(i)   # a qualifier edge of a CVT on the path
    return chosen


def _adjacent(path: list[str], a: str, b: str) -> bool:
    return any({path[i], path[i + 1]} == {a, b} for i in range(len(path) - 1))


def instantiated_facts(graph: QueryGraph, solutions: Iterable[Binding],
                       edge_indexes: Iterable[int]) -> set[Fact]:
    """The facts that the chosen edges of ``graph`` become under ``solutions``."""
    query = compile_query(graph, classes=False, limit=None)
    indexes = list(edge_indexes)
    out: set[Fact] = set()
    for b in solutions:
        facts = query.instantiate(b)
        out.update(facts[i] for i in indexes)
    return out


def delete_path_edit(facts: Sequence[Fact], graph: QueryGraph, solutions: Sequence[Binding],
                     subject: str) -> tuple[list[Fact], list[Fact]]:
    """Partial support for a tree or a union: remove every fact of the branch from
    ``subject`` to the answer in ``graph`` (the disjunct holding ``subject``)."""
    drop = instantiated_facts(graph, solutions, branch_edges(graph, subject))
    return [f for f in facts if f not in drop], [f for f in facts if f in drop]


def replace_answer_edit(facts: Sequence[Fact], answer: Object, replacement: Object) -> list[Fact]:
    """Contradictory: every occurrence of ``answer`` in ``G`` replaced by ``replacement``."""
    return replace_answers_edit(facts, {answer: replacement})


def replace_answers_edit(facts: Sequence[Fact], replacements: Mapping[Object, Object]
                         ) -> list[Fact]:
    """Contradictory (CAQA §4.3: "replacing the answer entity in G with a non-answer
    entity of the same type"): every occurrence of each answer in ``replacements``
    replaced by its own replacement.

    kgbench replaces **every** answer of a question with several: a citation that
    still states one of them supports that answer, and a reader sees "Nolan directed
    Batman Begins. Nolan directed Jaws." as support, not contradiction. Only a union
    query under ``--caqa-strict`` replaces one answer, as §4.3 says for unions."""
    def sub(value: Object) -> Object:
        return replacements.get(value, value)

    out = []
    for f in facts:
        subject = sub(f.subject)
        if not isinstance(subject, str):
            raise ValueError("a literal answer cannot be a fact's subject")
        out.append(Fact(subject, f.predicate, sub(f.object)))
    return out


def fact_pattern(facts: Iterable[Fact]) -> nx.MultiGraph:
    """The unlabelled shape of a fact list: nodes marked entity/literal, edges
    undirected (the structure compared by :func:`verify_irrelevant`; direction is a
    matter of which of a relation's two Freebase names is used)."""
    g = nx.MultiGraph()
    for f in facts:
        o = f.object_key
        g.add_node(f.subject, literal=False)
        g.add_node(o, literal=f.is_literal)
        g.add_edge(f.subject, o)
    return g


def verify_irrelevant(original: Sequence[Fact], candidate: Sequence[Fact], subject: str,
                      disjuncts: Sequence[QueryGraph], answers: set[Object],
                      template: Sequence[Fact], *, any_leaf_kind: bool = False) -> str | None:
    """Why ``candidate`` is not a valid irrelevant subgraph for ``original`` (``None``
    when it is): it must be isomorphic to ``template`` (one solution's facts of the
    original) with ``subject`` in the same place, share no relation and no entity with
    ``original`` other than ``subject``, and derive none of ``answers``.

    ``any_leaf_kind``: a literal may stand where the template has an entity and the
    other way round (the wider search of
    :func:`extension.core.candidates.irrelevant_subgraph`); literals are leaves, so the
    shape still matches node for node."""
    patterns = fact_pattern(template), fact_pattern(candidate)
    for pattern in patterns:   # the subject keeps its place in the shape
        if subject in pattern:
            pattern.nodes[subject]["root"] = True

    def same_kind(a: dict[str, bool], b: dict[str, bool]) -> bool:
        return a.get("root") == b.get("root") and (any_leaf_kind or a["literal"] == b["literal"])

    if not nx.is_isomorphic(*patterns, node_match=same_kind):
        return "not structurally similar"
    if {f.predicate for f in original} & {f.predicate for f in candidate}:
        return "shares a relation"
    nodes = ({f.subject for f in original} | {f.object_key for f in original}) - {subject}
    if nodes & ({f.subject for f in candidate} | {f.object_key for f in candidate}):
        return "shares an entity besides the subject"
    if derived_answers(disjuncts, candidate) & answers:
        return "derives an answer"
    return None


def name_words(name: str) -> set[str]:
    """The content words of a name as a reader matches them: lower case, at least four
    letters, cut to their first five ("Presidential" and "President" meet)."""
    return {w[:5] for w in re.findall(r"[^\W\d_]+", name.lower()) if len(w) >= 4}


def echoes_an_answer(candidate_names: Iterable[str], answer_names: Iterable[str]) -> str | None:
    """The first name of an irrelevant candidate that shares a content word with an
    answer's name (:func:`name_words`), or None. A citation naming "President" beside
    the answer "Presidential system" hints at it, and blind readers took it for
    partially supportive, so an irrelevant citation must not echo an answer."""
    wanted = set().union(*(name_words(a) for a in answer_names))
    for name in candidate_names:
        if name_words(name) & wanted:
            return name
    return None


def echoes_a_role(candidate_roles: Iterable[str], question_roles: Iterable[str]) -> str | None:
    """The first role noun of an irrelevant candidate's facts at its anchor that shares a
    content word (:func:`name_words`) with a role noun of the question's facts there
    ("executive producer" beside "producer", "actor" beside "dubbing actor"), or None.
    Blind round 41: a reader took "Inglourious Basterds was executive produced by Bob
    Weinstein" for part of an answer about "the films produced by Bob Weinstein", and
    "Evangelion stars Megumi Hayashibara" for its dubbing actor."""
    wanted = set().union(*(name_words(r) for r in question_roles))
    for role in candidate_roles:
        if name_words(role) & wanted:
            return role
    return None


def sub_facts(original: Sequence[Fact], edited: Iterable[Fact]) -> list[tuple[Fact, bool]]:
    """Each triple of the original ``G`` with ``supported`` = still in the edit."""
    kept = set(edited)
    return [(f, f in kept) for f in original]


def _fact_key(f: Fact) -> tuple[str, str, str]:
    return (f.subject, f.predicate, f.object_key)
