"""q̃ of a finished sample: :func:`~extension.verbalize.extended_question.extended_question`
with the names, nouns and union namesakes read back from a
:class:`~extension.core.samples.StructuredSample` (its triples, answers and query).

Apart from :mod:`extension.verbalize.extended_question` because that module is what the
extension engine asks while it builds samples (through
:mod:`extension.verbalize.question_check`): it must not import the samples it helps make.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from extension.core.samples import StructuredSample
from extension.verbalize import english
from extension.verbalize.answers import constant_names
from extension.verbalize.extended_question import extended_question, question_nouns
from extension.verbalize.logical_form import Fanout, one_of_bindings, several_bindings
from extension.verbalize.realise import realise_question
from extension.verbalize.relation_phrases import PhraseTable, as_table


def question_names(sample: StructuredSample) -> dict[str, str]:
    """The display names :func:`extended_question` needs: the first subject (union) or
    the ends of the added edges, and for ``intersection_way1`` the prepended variable ->
    the name of the old subject it stands for. From the sample's triples, answers and
    query constants; an id without a name is left out (shown as the id)."""
    query = sample.query
    if query.rule == "none":
        return {}
    wanted: dict[str, list[str]] = {}   # entity id -> the keys to give its name
    if query.rule == "union":
        for s in query.subjects[:1]:
            wanted.setdefault(s, []).append(s)
    for edge in query.added:
        source, target = str(edge["source"]), str(edge["target"])
        other = target if source.startswith("?") else source
        wanted.setdefault(other, []).append(other)
    old = _old_subject(query.original, query.extended) \
        if query.rule == "intersection_way1" and query.added else None
    if old:
        for edge in query.added:
            source = str(edge["source"])
            var = source if source.startswith("?") else str(edge["target"])
            wanted.setdefault(old, []).append(var)
    names: dict[str, str] = {}
    for row in query.union_subjects:
        row = row if isinstance(row, Mapping) else row.model_dump()
        if row.get("fact_object") and row.get("fact_object_name"):
            names[str(row["fact_object"])] = str(row["fact_object_name"])

    def give(id: str, name: str | None) -> None:
        if name and id in wanted:
            for key in wanted.pop(id):
                names[key] = english.display_name(name) or name

    for t in (*sample.original_subgraph, *sample.subgraph):
        if not wanted:
            return names
        give(t.s, t.s_name)
        give(t.o, t.o_name)
    for a in sample.answer_entities:
        if a.id:
            give(a.id, a.name)
    for graph in (*query.extended, query.original):
        for node in _json_nodes(graph):
            name = node.get("name")
            give(str(node.get("id")), name if isinstance(name, str) else None)
    return names


def _json_nodes(graph: object) -> list[dict[str, object]]:
    nodes = graph.get("nodes", []) if isinstance(graph, Mapping) else []
    return [n for n in nodes if isinstance(n, dict)]


def sample_question(sample: StructuredSample, phrases: Mapping[str, str] | None,
                    fanout: Fanout | None = None) -> str:
    """q̃ of a structured sample, realised from its extended query's logical form
    (:func:`realised_question`); a form that cannot be realised (a file written before
    the engine checked it) gets :func:`extended_question` with the sample's names,
    nouns and union namesakes."""
    table = as_table(phrases)
    realised = realised_question(sample, table, fanout)
    if realised is not None:
        return realised
    query = sample.query
    names = question_names(sample)
    old = _old_subject(query.original, query.extended)
    edges = _json_edges(query.original)
    nouns = question_nouns(edges, [dict(e) for e in query.added], old)
    return extended_question(cased_question(sample), query.added, names, phrases, query.rule,
                             subjects=query.subjects, union_subjects=query.union_subjects,
                             nouns=nouns)


def cased_question(sample: StructuredSample) -> str:
    """The source question as a sentence: its first letter upper-case and the names
    of its constants as the KG writes them (WebQSP lower-cases everything: "where do
    the appalachian mountains run through?" reads "Where do the Appalachian Mountains
    run through?")."""
    text = sample.source.question.strip()
    for name in sorted(set(constant_names(sample).values()), key=len, reverse=True):
        if len(name) > 2 and name != name.lower():
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", name, text, flags=re.IGNORECASE)
    return english.capitalized(text)


def realised_question(sample: StructuredSample, table: PhraseTable,
                      fanout: Fanout | None = None) -> str | None:
    """q̃ from the extended query (CAQA §4.4; issue 34: rewritten from the logical form,
    never appended to q, which stays in ``source.question``): the original query's
    constraints first, then the one the rule added. None when it cannot be realised."""
    query = sample.query
    graph = (query.extended or (query.original,))[0]
    names = constant_names(sample)
    many = len(sample.answer_entities) > 1 or sample.answers_capped
    facts = sample.original_subgraph
    return realise_question(graph, query.added, names, table, rule=query.rule,
                            union_subjects=query.union_subjects, plural=many,
                            several=several_bindings(graph, facts, fanout),
                            one_of=one_of_bindings(graph, facts, fanout))


def _old_subject(original: object, extended: Sequence[object]) -> str | None:
    """The way-1 subject the new hop replaced: the original's entity the extended query
    no longer has (None for other rules)."""
    if not extended:
        return None
    kept = {n.get("id") for n in _json_nodes(extended[0])}
    old = [str(n["id"]) for n in _json_nodes(original)
           if n.get("kind") == "entity" and n.get("id") not in kept]
    return old[0] if old else None


def _json_edges(graph: object) -> list[dict[str, object]]:
    edges = graph.get("edges", []) if isinstance(graph, Mapping) else []
    return [e for e in edges if isinstance(e, dict)]


__all__ = ["question_names", "sample_question"]
