"""The demo's WebQSP-style questions: each a triple pattern over the demo KG whose
answers are computed by evaluating it over the generated triples (correct by
construction), written with its SPARQL.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from kgbench.demo.facts.terms import NAME, Literal, Term, Triple
from kgbench.demo.graph import GraphBuilder, character_key


class Question(NamedTuple):
    """A question and its SPARQL as triple patterns.

    Pattern terms are entity keys, predicate ids or variables (``?x`` is the
    answer, ``?y``/``?z`` CVT or path nodes).  ``exclude_topic`` adds WebQSP's
    ``FILTER (?x != ns:<topic>)`` so a spouse question does not answer itself.
    """

    qid: str
    text: str
    shape: str
    patterns: tuple[tuple[str, str, str], ...]
    exclude_topic: str | None = None


QUESTIONS: list[Question] = [
    Question("demo-001", "who directed the godfather?", "single",
             (("godfather", "film.film.directed_by", "?x"),)),
    Question("demo-002", "who played michael corleone in the godfather?", "single",
             (("godfather", "film.film.starring", "?y"),
              ("?y", "film.performance.character", character_key("Michael Corleone")),
              ("?y", "film.performance.actor", "?x"))),
    Question("demo-003", "where did steven spielberg go to college?", "single",
             (("spielberg", "people.person.education", "?y"),
              ("?y", "education.education.institution", "?x"))),
    Question("demo-004", "who composed the music for the 1997 film titanic?", "single",
             (("titanic_1997", "film.film.music", "?x"),)),
    Question("demo-005", "where was the director of jaws born?", "path",
             (("jaws", "film.film.directed_by", "?y"),
              ("?y", "people.person.place_of_birth", "?x"))),
    Question("demo-006", "which films directed by steven spielberg had music by john williams?",
             "tree",
             (("?x", "film.film.directed_by", "spielberg"),
              ("?x", "film.film.music", "john_williams"))),
    Question("demo-007", "which films starring tom hanks were directed by steven spielberg?",
             "tree",
             (("?x", "film.film.directed_by", "spielberg"),
              ("?x", "film.film.starring", "?y"),
              ("?y", "film.performance.actor", "hanks"))),
    Question("demo-008", "when was inception released?", "single",
             (("inception", "film.film.initial_release_date", "?x"),)),
    Question("demo-009", "which state was francis ford coppola born in?", "path",
             (("coppola", "people.person.place_of_birth", "?y"),
              ("?y", "location.location.containedby", "?x"))),
    Question("demo-010", "who was alfred hitchcock married to?", "single",
             (("hitchcock", "people.person.spouse_s", "?y"),
              ("?y", "people.marriage.spouse", "?x")),
             exclude_topic="hitchcock"),
    Question("demo-011", "what university did the director of the dark knight go to?", "path",
             (("dark_knight", "film.film.directed_by", "?y"),
              ("?y", "people.person.education", "?z"),
              ("?z", "education.education.institution", "?x"))),
    Question("demo-012", "which movies did robert de niro and al pacino both star in?", "tree",
             (("?x", "film.film.starring", "?y"),
              ("?y", "film.performance.actor", "deniro"),
              ("?x", "film.film.starring", "?z"),
              ("?z", "film.performance.actor", "pacino"))),
    Question("demo-013", "what films has christopher nolan directed?", "single",
             (("nolan", "film.director.film", "?x"),)),
    Question("demo-014", "who composed the music for the sequel to star wars?", "path",
             (("star_wars", "film.film.sequel", "?y"),
              ("?y", "film.film.music", "?x"))),
    Question("demo-015", "where was the classical guitarist john williams born?", "single",
             (("john_williams_guitarist", "people.person.place_of_birth", "?x"),)),
]
Pattern = tuple[Term, str, Term]


def is_var(term: Term) -> bool:
    return isinstance(term, str) and term.startswith("?")


def _bind(term: Term, value: Term, binding: dict[str, Term]) -> dict[str, Term] | None:
    """Extend ``binding`` so ``term`` matches ``value``; None when it cannot."""
    if not is_var(term):
        return binding if term == value else None
    assert isinstance(term, str)
    bound = binding.get(term)
    if bound is None:
        return {**binding, term: value}
    return binding if bound == value else None


def _solve(patterns: Sequence[Pattern], index: Mapping[str, list[tuple[str, Term]]],
           binding: dict[str, Term]) -> Iterator[dict[str, Term]]:
    """Backtracking join: every binding satisfying all ``patterns`` (predicates are constants)."""
    if not patterns:
        yield binding
        return
    (subject, predicate, obj), rest = patterns[0], patterns[1:]
    for s, o in index.get(predicate, ()):
        step = _bind(subject, s, binding)
        step = _bind(obj, o, step) if step is not None else None
        if step is not None:
            yield from _solve(rest, index, step)


def evaluate(patterns: Sequence[Pattern], triples: Iterable[Triple],
             exclude: Iterable[Term] = ()) -> list[Term]:
    """Distinct values of ``?x`` over ``triples``, minus ``exclude``, in a stable order.

    Terms are MIDs / schema ids (str) or Literals, exactly as in the graph; the
    test suite feeds this the triples parsed back from the written file.
    """
    index: dict[str, list[tuple[str, Term]]] = defaultdict(list)
    for s, p, o in triples:
        index[p].append((s, o))
    answers = {b["?x"] for b in _solve(patterns, index, {})} - set(exclude)
    return sorted(answers, key=_term_order)


def _term_order(term: Term) -> tuple[bool, str]:
    """Sort key putting ids (by MID) before literals (by value)."""
    return (True, term.value) if isinstance(term, Literal) else (False, term)


def to_sparql(patterns: Sequence[Pattern], exclude: Sequence[str] = ()) -> str:
    """WebQSP-style SPARQL text for MID-resolved ``patterns``."""
    def term(t: Term) -> str:
        assert isinstance(t, str), "constants in questions are ids"
        return t if is_var(t) else f"ns:{t}"

    lines = ["PREFIX ns: <http://rdf.freebase.com/ns/>", "SELECT DISTINCT ?x", "WHERE {"]
    lines += [f"FILTER (?x != ns:{mid})" for mid in exclude]
    lines += [f"{term(s)} {term(p)} {term(o)} ." for s, p, o in patterns]
    lines.append("}")
    return "\n".join(lines)


def _resolve(g: GraphBuilder, question: Question) -> list[Pattern]:
    """Replace entity keys by MIDs (predicates and variables stay as they are)."""
    def entity(t: str) -> str:
        return t if is_var(t) else g.mid(t)

    return [(entity(s), p, entity(o)) for s, p, o in question.patterns]


def question_record(g: GraphBuilder, question: Question) -> dict[str, object]:
    """The JSON object for one question, answers computed over ``g``'s triples."""
    patterns = _resolve(g, question)
    exclude = [g.mid(question.exclude_topic)] if question.exclude_topic else []
    answers = evaluate(patterns, g.triples, exclude)
    if not answers:
        raise ValueError(f"{question.qid} has no answer in the demo graph")
    names = {s: o.value for s, p, o in g.triples if p == NAME and isinstance(o, Literal)}
    topics = [t for s, _, o in patterns for t in (s, o) if not is_var(t)]
    return {
        "id": question.qid,
        "question": question.text,
        "answers": [a.value if isinstance(a, Literal) else a for a in answers],
        "answer_names": [a.value if isinstance(a, Literal) else names[a] for a in answers],
        "sparql": to_sparql(patterns, exclude),
        "topic_entities": list(dict.fromkeys(str(t) for t in topics)),
        "shape": question.shape,
    }
