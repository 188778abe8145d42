"""The CAQA prompts (Hu et al., *CAQA*, Appendix A, Tables 9–11) as chat messages: a
citation per part of the subgraph (:func:`citation_messages`), the extended question q̃
(:func:`question_messages`) and the answer statement ã (:func:`answer_messages`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from extension.core.query_graph import QueryEdge, QueryGraph
from extension.core.samples import AnswerEntity, StructuredSample, Triple
from extension.verbalize.literals import render_literal
from llm.chat import ChatMessage

CITATION_PROMPT = """\
Your task is to write the passage of a citation: a short text that states the facts of \
a subgraph of a knowledge graph.

The subgraph is given as triples, one per line, written as (subject, relation, object).

Rules:
1. State the fact of every triple, and nothing else: add no facts, background or \
opinions of your own, and do not mention the triples, the graph or a question.
2. Mention every named entity exactly as it is written in the triples.
3. A node in square brackets, such as [performance 1], is an unnamed record that links \
the facts around it (a film performance, a marriage, an education): do not mention it; \
state its facts together in one clause.
4. Write fluent English, in one paragraph.

Triples:
{triples}

Output only the passage."""
"""Subgraph -> citation, following CAQA Appendix A, Table 9 (the prompt that turns one
part of the subgraph into a citation): an instruction, the triples as
``(subject, relation, object)`` lines with entity names and readable relations, and
"output only the text". ``{triples}`` is filled by :func:`citation_messages`."""

QUESTION_PROMPT = """\
Your task is to extend a question with the constraints added to its query.

A query is given as triples, one per line, written as (subject, relation, object). \
Names starting with "?" are unknown entities; {answer} is the one the question asks for.

Original question: {question}
Original query:
{original}

Extended query{alternatives}:
{extended}

Added constraints:
{added}

Rules:
1. Write the question whose answer is {answer} in the extended query: keep the wording of \
the original question where you can and phrase every added constraint naturally.
2. Mention every named entity of the added constraints exactly as it is written.
3. An entity of the original query that is an unknown ("?") in the extended query must \
not be named: describe it by its constraints instead.
4. Never write a name starting with "?", and do not reveal the answer.
5. Write one question, ending with a question mark.

Output only the extended question."""
"""Question extension, following CAQA Appendix A, Table 10 (the prompt that rewrites the
original question q into the extended question q̃ of the extended query): the original
question and query, the extended query and the constraints the rule added, as
``(subject, relation, object)`` lines, and "output only the question". Filled by
:func:`question_messages`."""

ANSWER_PROMPT = """\
Your task is to turn a question and its answers into one statement.

Question: {question}
Answers: {answers}

Rules:
1. Write one declarative sentence that answers the question with the given answers, \
mentioning every answer exactly as it is written.
2. State every condition of the question in the sentence, with the answers filled in \
("The film that Steven Spielberg directed and John Williams scored was Jaws."). Never quote the question.
3. If the answers end with "(and others: …)", say the answers include them: the list is \
not complete.
4. Add no information that is not in the question or the answers.

Output only the statement."""
"""Answer statement, following CAQA Appendix A, Table 11 (the prompt that states the
extended question's answers as a sentence ã): the question, the answers separated by
``"; "`` and "output only the statement". Filled by :func:`answer_messages`."""


def triple_lines(triples: Sequence[Triple], cvt_nodes: Collection[str],
                 phrases: Mapping[str, str]) -> list[str]:
    """``triples`` as prompt lines ``(subject, relation, object)``: entities by name
    (their id where they have none), literals rendered (:func:`extension.verbalize.literals.
    render_literal`), relations by ``phrases[predicate]`` (a
    :class:`extension.verbalize.relation_phrases.PhraseTable`: "was directed by"), and each CVT
    (mediator) node as a numbered bracketed record named by its Freebase type
    ("[performance 1]", else "[record 1]"), as :data:`CITATION_PROMPT` explains."""
    labels = _record_labels(triples, cvt_nodes)

    def node(id: str, name: str | None) -> str:
        return labels.get(id) or name or id

    lines = []
    for t in triples:
        obj = (render_literal(t.o, t.datatype, t.lang) if t.literal else node(t.o, t.o_name))
        lines.append(f"({node(t.s, t.s_name)}, {phrases[t.p]}, {obj})")
    return lines


def _record_labels(triples: Sequence[Triple], cvt_nodes: Collection[str]) -> dict[str, str]:
    cvts = frozenset(cvt_nodes)
    labels: dict[str, str] = {}
    for t in triples:
        for end in (t.s,) if t.literal else (t.s, t.o):
            if end in cvts and end not in labels:
                noun = next((_freebase_type_noun(u.p) for u in triples if u.s == end
                             and _freebase_type_noun(u.p)), None) or "record"
                labels[end] = f"[{noun} {len(labels) + 1}]"
    return labels


def _freebase_type_noun(predicate: str) -> str | None:
    """``film.performance.actor`` -> "performance" (the type a Freebase property belongs
    to); None for other ids."""
    parts = predicate.strip("<>").rpartition("/")[2].split(".")
    if len(parts) < 3:
        return None
    return parts[-2].replace("_", " ").strip() or None


def citation_messages(triples: Sequence[Triple], cvt_nodes: Collection[str],
                      phrases: Mapping[str, str]) -> list[ChatMessage]:
    """The chat request for one citation part: :data:`CITATION_PROMPT` over
    :func:`triple_lines` of ``triples``."""
    lines = "\n".join(triple_lines(triples, cvt_nodes, phrases))
    return [ChatMessage("user", CITATION_PROMPT.format(triples=lines))]


def question_messages(sample: StructuredSample, phrases: Mapping[str, str]) -> list[ChatMessage]:
    """The chat request for the extended question q̃ of ``sample``:
    :data:`QUESTION_PROMPT` over the original question, the original and extended
    query graphs (``sample.query``) and the added edges, with entities named from the
    sample (:func:`sample_names`). A union's disjuncts are listed as alternatives."""
    names = sample_names(sample)
    original = QueryGraph.model_validate(sample.query.original)
    extended = [QueryGraph.model_validate(d) for d in sample.query.extended] or [original]

    def label(graph: QueryGraph, id: str) -> str:
        if id.startswith("?"):
            return id
        n = graph.node(id)
        if n.kind == "literal":
            return render_literal(n.value or id, n.datatype, n.lang)
        return names.get(id) or n.name or id

    def lines(graph: QueryGraph, edges: Sequence[QueryEdge]) -> list[str]:
        return [f"({label(graph, e.source)}, {phrases[e.predicate]}, {label(graph, e.target)})"
                for e in edges]

    if len(extended) == 1:
        extended_text = "\n".join(lines(extended[0], extended[0].edges))
        alternatives = ""
    else:
        extended_text = "\n".join(
            f"Alternative {i}:\n" + "\n".join(lines(g, g.edges))
            for i, g in enumerate(extended, 1))
        alternatives = f" ({original.answer} may satisfy any one of these alternatives)"
    added_edges = [QueryEdge.model_validate(e) for e in sample.query.added]
    added = "\n".join(lines(extended[0], added_edges)) if added_edges else (
        "(none: the alternatives are entities that share a name)" if len(extended) > 1
        else "(none)")
    prompt = QUESTION_PROMPT.format(
        answer=original.answer, question=sample.source.question,
        original="\n".join(lines(original, original.edges)), alternatives=alternatives,
        extended=extended_text, added=added)
    return [ChatMessage("user", prompt)]


def answer_messages(question: str, answers: Sequence[AnswerEntity],
                    capped: bool = False) -> list[ChatMessage]:
    """The chat request for the answer statement ã of ``question``:
    :data:`ANSWER_PROMPT` with the answers' texts (:func:`answer_text`) joined by
    ``"; "``; when ``capped`` (more answers exist than listed) the list says so."""
    texts = "; ".join(answer_text(a) for a in answers)
    if capped:
        texts += " (and others: these are some of the answers)"
    return [ChatMessage("user", ANSWER_PROMPT.format(question=question, answers=texts))]


def answer_text(answer: AnswerEntity) -> str:
    """An answer as the prompt and the statement write it: a literal rendered, an
    entity by name (its id where it has none)."""
    if answer.value is not None:
        return render_literal(answer.value, answer.datatype, answer.lang)
    return answer.name or answer.id or ""


def sample_names(sample: StructuredSample) -> dict[str, str]:
    """Entity id -> display name from everything in ``sample`` that names one: the
    triples of both subgraphs, the answers and the query graphs' nodes."""
    names: dict[str, str] = {}
    for t in (*sample.original_subgraph, *sample.subgraph):
        if t.s_name:
            names.setdefault(t.s, t.s_name)
        if t.o_name and not t.literal:
            names.setdefault(t.o, t.o_name)
    for a in sample.answer_entities:
        if a.id and a.name:
            names.setdefault(a.id, a.name)
    for graph in (sample.query.original, *sample.query.extended):
        for n in (graph.get("nodes", ()) if isinstance(graph, Mapping) else ()):
            if isinstance(n, Mapping) and n.get("name") and n.get("value"):
                names.setdefault(str(n["value"]), str(n["name"]))
    return names
