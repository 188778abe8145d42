"""The answer statement ã (:func:`answer_statement`): the answers with every constraint of
the extended query, as one declarative sentence.

CAQA's ã (Hu et al., Appendix A, Table 11) restates the question as a sentence with the
answer filled in ("Who directed Jaws?" becomes "Jaws was directed by Steven Spielberg.").
Here the sentence is built from the extended
query graph itself, not from the question's text: the answer node is described by each
of its edges, an intermediate variable by its own edges ("the film whose sequel is The
Godfather Part II"), a CVT (mediator) by its roles, never by an id. So the statement
repeats no typo of the question, and it depends only on the query and its answers — the
same for the four samples (labels) of a question, so it gives no label away.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from extension.core.samples import AnswerEntity, StructuredSample
from extension.verbalize import english
from extension.verbalize.descriptions import GENRE_MEDIUM, genre_kind
from extension.verbalize.literals import render_literal
from extension.verbalize.logical_form import Fanout, one_of_bindings, several_bindings
from extension.verbalize.realise import realise_statement
from extension.verbalize.realise_words import dated_phrase
from extension.verbalize.relation_phrases import PhraseTable, as_table, has_noun, type_noun

Edge = tuple[str, str, str]
"""(source, predicate, target) of a query-graph edge."""


def answer_statement(sample: StructuredSample, phrases: Mapping[str, str] | None = None,
                     fanout: Fanout | None = None) -> str:
    """The answer statement ã of ``sample`` (CAQA §4.4, Table 11): "The director of the
    film whose sequel is The Godfather Part II is Francis Ford Coppola.", "The films
    that were directed by Christopher Nolan are Inception, Interstellar and Memento.";
    when the answers were capped (``sample.answers_capped``) "… include …", so a
    partial list never reads as complete. Built from the extended query (the original
    one for rule ``none``) and the answers only — never from the question text or the
    (edited) subgraph. ``phrases`` as in :func:`extension.verbalize.citations.hop_sentence`."""
    query = sample.query
    graphs = [g for g in (query.extended or (query.original,)) if _edges(g)]
    names = constant_names(sample)
    table = as_table(phrases)
    texts = [answer_text(a) for a in sample.answer_entities]
    plural = len(texts) > 1 or sample.answers_capped
    realised = realised_statement(sample, table, names, texts, fanout)
    if realised is not None:
        medium = _asked_genre_medium(sample)
        return genre_statement(realised, texts, medium) if medium else realised
    if len(graphs) == 1:   # "Inception was released on 16 July 2010."
        fact = _Describer(graphs[0], names, table, plural).as_fact()
        if fact is not None and texts:
            fact, listed = dated_phrase(fact, texts, sample.answers_capped)   # "… in 1960"
            if sample.answers_capped:
                listed = f"answers including {listed}"
            return english.sentence(english.capitalized(f"{fact} {listed}"))
    descriptions = list(dict.fromkeys(
        _Describer(g, names, table, plural).answer() for g in graphs)) or ["the answer"]
    subject = " or ".join(descriptions)
    if not texts:
        return english.sentence(english.capitalized(f"{subject} is not known"))
    if sample.answers_capped:
        verb = "include"
    else:
        verb = "are" if plural else "is"
    return english.sentence(english.capitalized(f"{subject} {verb} {english.join(texts)}"))


def _asked_genre_medium(sample: StructuredSample) -> str | None:
    """"film" or "series" where the answers are genres of films or of programmes (each
    relation that ends at the answer is one: :data:`GENRE_MEDIUM`), else None."""
    query = sample.query
    graph = (query.extended or (query.original,))[0]
    answer = graph.get("answer") if isinstance(graph, Mapping) else None
    media = {GENRE_MEDIUM.get(p) for s, p, o in _edges(graph) if answer in (s, o)}
    return next(iter(media)) if len(media) == 1 else None


_IN_GENRES = re.compile(r"(?P<subject>.+) (?P<verb>is|are) in the genres? (?P<listed>.+)\.")


def genre_statement(text: str, genres: Sequence[str], medium: str = "film") -> str:
    """"Midnight Cowboy is a drama.", "Heat is a crime fiction film and a thriller.",
    "Both 2 Fast 2 Furious and Superman III are thrillers." for a statement that says
    its films are "in the genre" of genres named as common nouns
    (:func:`~extension.verbalize.descriptions.genre_kind`), as the citations say them;
    ``text`` as it is otherwise. Blind rounds rated "Midnight Cowboy is in the genre
    Drama" 3-4 ("raw labels")."""
    found = _IN_GENRES.fullmatch(text)
    kinds = [genre_kind(g, medium) for g in genres]
    if found is None or found.group("listed") != english.join(list(genres)) \
            or not all(kinds):
        return text
    if found.group("verb") == "are":
        if len(kinds) > 1:
            return text   # "are in the genres A and B": each film need not be both
        shown = english.plural(str(kinds[0]).partition(" ")[2])
    else:
        shown = english.join([str(k) for k in kinds])
    return f"{found.group('subject')} {found.group('verb')} {shown}."




def realised_statement(sample: StructuredSample, table: PhraseTable, names: Mapping[str, str],
                       texts: Sequence[str], fanout: Fanout | None = None) -> str | None:
    """ã realised from the extended query's logical form
    (:func:`~extension.verbalize.realise.realise_statement`); None when it cannot be
    (the caller then describes the query as before)."""
    query = sample.query
    graph = (query.extended or (query.original,))[0]
    return realise_statement(graph, query.added, names, table, texts, rule=query.rule,
                             union_subjects=query.union_subjects,
                             capped=sample.answers_capped,
                             several=several_bindings(graph, sample.original_subgraph, fanout),
                             one_of=one_of_bindings(graph, sample.original_subgraph, fanout))


def answer_text(a: AnswerEntity) -> str:
    """An answer as the statement names it: a literal rendered, an entity by name (its
    id where there is none)."""
    if a.value is not None:
        return render_literal(a.value, a.datatype, a.lang)
    return english.mention(a.name) or a.id or ""


def _edges(graph: Any) -> list[Edge]:
    edges = graph.get("edges", []) if isinstance(graph, Mapping) else []
    return [(str(e["source"]), str(e["predicate"]), str(e["target"])) for e in edges
            if isinstance(e, Mapping) and {"source", "predicate", "target"} <= e.keys()]


def constant_names(sample: StructuredSample) -> dict[str, str]:
    """Display names of the query's constants: from the unedited subgraph (the same for
    every label), the answers and the query nodes."""
    names: dict[str, str] = {}
    for t in sample.original_subgraph:
        if t.s_name:
            names.setdefault(t.s, english.mention(t.s_name) or t.s)
        if t.o_name and not t.literal:
            names.setdefault(t.o, english.mention(t.o_name) or t.o)
    for a in sample.answer_entities:
        if a.id and a.name:
            names.setdefault(a.id, answer_text(a))
    return names


class _Describer:
    """Noun phrases for the nodes of one query graph, each edge read once."""

    def __init__(self, graph: Mapping[str, Any], names: Mapping[str, str],
                 table: PhraseTable, plural: bool = False) -> None:
        self.edges = _edges(graph)
        self.plural = plural
        self.table = table
        self.names = dict(names)
        self.nodes: dict[str, Mapping[str, Any]] = {}
        for node in graph.get("nodes", []):
            if isinstance(node, Mapping) and "id" in node:
                self.nodes[str(node["id"])] = node
                if isinstance(node.get("name"), str) and node["name"]:
                    self.names.setdefault(str(node["id"]),
                                          english.mention(node["name"]) or node["name"])
        self.root = str(graph.get("answer") or "?x")
        self.used: set[int] = set()

    def answer(self) -> str:
        return self.describe(self.root)

    def as_fact(self) -> str | None:
        """"<subject> <phrase>" when the answer node's only edge is ``(S, p, ?x)`` with
        a non-CVT subject S and a predicate that has no noun ("was directed by"), so the
        statement is that fact with the answers filled in; else None."""
        mine = [i for i, (s, _, o) in enumerate(self.edges) if self.root in (s, o)]
        if len(mine) != 1:
            return None
        s, p, o = self.edges[mine[0]]
        if o != self.root or s == o or self.is_cvt(s) or has_noun(self.table[p]):
            return None
        self.used.add(mine[0])
        return f"{self.ref(s)} {self.table[p]}"

    def is_variable(self, node: str) -> bool:
        kind = self.nodes.get(node, {}).get("kind")
        return kind in ("variable", "answer") or (kind is None and node.startswith("?"))

    def is_cvt(self, node: str) -> bool:
        return bool(self.nodes.get(node, {}).get("is_cvt"))

    def ref(self, node: str) -> str:
        """A node as the object of a phrase: a constant by name or value, a variable by
        its description."""
        if self.is_variable(node):
            return self.describe(node)
        info = self.nodes.get(node, {})
        if info.get("kind") == "literal":
            value = info.get("value")
            return render_literal(str(value if value is not None else node),
                                  info.get("datatype"), info.get("lang"))
        return self.names.get(node, node)

    def describe(self, var: str) -> str:
        """The variable ``var`` by its edges not read yet: a head noun ("the director of
        The Godfather", "the actor in the performance with …", "the film") and one
        relative clause per further edge, joined by "and"."""
        mine = [i for i, (s, _, o) in enumerate(self.edges)
                if i not in self.used and var in (s, o)]
        self.used.update(mine)
        if self.is_cvt(var):
            return self.describe_cvt(var, mine)
        many = self.plural and var == self.root
        head = None
        for i in mine:   # "the <noun> of <subject>" reads best as the head
            s, p, o = self.edges[i]
            if o == var and s != var:
                noun = self.table.role(p) if self.is_cvt(s) else has_noun(self.table[p])
                if noun:
                    joiner = "in" if self.is_cvt(s) else "of"
                    mine.remove(i)
                    noun = english.plural(noun) if many else english.singular(noun)
                    head = f"the {noun} {joiner} {self.ref(s)}"
                    break
        if head is None:
            kinds = (type_noun(p) for s, p, _ in (self.edges[i] for i in mine) if s == var)
            noun = next((k for k in kinds if k), "one")
            head = f"the {english.plural(noun) if many else english.singular(noun)}"
        clauses = [self.clause(var, self.edges[i]) for i in mine]
        if many:
            clauses = [english.plural_clause(c) for c in clauses]
        return f"{head} {' and '.join(clauses)}" if clauses else head

    def clause(self, var: str, edge: Edge) -> str:
        s, p, o = edge
        phrase = self.table[p]
        noun = has_noun(phrase)
        if s == var:
            target = self.describe_cvt(o, article="a") if self.is_cvt(o) else self.ref(o)
            return f"whose {noun} is {target}" if noun else f"that {phrase} {target}"
        if self.is_cvt(s):   # the variable fills a role of a mediator
            return f"that is the {self.table.role(p)} in {self.ref(s)}"
        inverse = self.table.inverse(p)
        if inverse:
            return f"that {inverse} {self.ref(s)}"
        if noun:
            return f"that is the {noun} of {self.ref(s)}"
        return f"that {self.ref(s)} {phrase}"

    def describe_cvt(self, cvt: str, mine: Sequence[int] | None = None,
                     article: str = "the") -> str:
        """A mediator by its ends, as the citations read it: "the performance of The
        Godfather with character Michael Corleone" — the entities pointing at it after
        "of", its own roles after "with"."""
        if mine is None:
            mine = [i for i, (s, _, o) in enumerate(self.edges)
                    if i not in self.used and cvt in (s, o)]
            self.used.update(mine)
        nouns = (type_noun(p) for s, p, _ in self.edges if s == cvt)
        noun = next((n for n in nouns if n), None) or "entry"
        owners, roles = [], []
        for i in mine:
            s, p, o = self.edges[i]
            if s == cvt:
                roles.append(f"{self.table.role(p)} {self.ref(o)}")
            else:
                owners.append(self.ref(s))
        text = f"{article} {noun}"
        if owners:
            text += f" of {english.join(owners)}"
        return f"{text} with {english.join(roles)}" if roles else text


__all__ = ["answer_statement", "answer_text"]
