"""Tests for the demo knowledge graph shipped in ``kgbench/demo/data``.

The files are parsed here with a small regex (deliberately not with the
project's N-Triples loader, so these tests pin the file format independently)
and checked for the Freebase dump layout, size, CVT conventions, shared names,
question correctness and byte-for-byte reproducibility.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from kgbench.demo import DEMO_DIR, DEMO_KG, DEMO_QUESTIONS
from kgbench.demo.build_demo_kg import build
from kgbench.demo.facts.terms import Literal
from kgbench.demo.graph import escape
from kgbench.demo.question_set import evaluate

NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"

# <subject>\t<predicate>\t<object>\t.  -- the exact official Freebase dump layout.
LINE_RE = re.compile(r"^<([^<>\s]+)>\t<([^<>\s]+)>\t(.+)\t\.$")
IRI_RE = re.compile(r"^<([^<>\s]+)>$")
LITERAL_RE = re.compile(r'^"((?:[^"\\]|\\.)*)"(?:@([a-z]+(?:-[A-Za-z0-9]+)*)|\^\^<([^<>\s]+)>)?$')
MID_RE = re.compile(r"^m\.0kgb[0-9a-z]+$")
SCHEMA_ID_RE = re.compile(r"^[a-z_]+(\.[a-z0-9_]+)+$")

NAME = "type.object.name"
TYPE = "type.object.type"
ALIAS = "common.topic.alias"
DESCRIPTION = "common.topic.description"
LABEL_PREDICATES = {NAME, TYPE, ALIAS, DESCRIPTION}
CVT_TYPES = {"film.performance", "people.marriage", "education.education", "film.film_cut"}

# Names the builder deliberately gives to several entities (see build_demo_kg).
SHARED_NAMES = ["Titanic", "Psycho", "Scarface", "Paris", "Birmingham", "Cambridge", "Perth",
                "John Williams"]

Triple = tuple[str, str, "str | Literal"]


def local(iri: str) -> str:
    """Strip the Freebase namespace; fail on any IRI outside it."""
    assert iri.startswith(NS), iri
    return iri[len(NS):]


def parse_object(text: str) -> str | Literal:
    """A Freebase id (str) for an IRI, a builder Literal for a literal."""
    iri = IRI_RE.match(text)
    if iri:
        return local(iri.group(1))
    lit = LITERAL_RE.match(text)
    assert lit, f"bad object {text!r}"
    value = re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r", "t": "\t"}.get(m[1], m[1]), lit[1])
    datatype = lit[3]
    if datatype is not None:
        assert datatype.startswith(XSD), datatype
        datatype = datatype[len(XSD):]
    return Literal(value, lit[2], datatype)


def parse_lines(lines: list[str]) -> list[Triple]:
    triples = []
    for line in lines:
        match = LINE_RE.match(line)
        assert match, f"not a Freebase dump line: {line!r}"
        triples.append((local(match[1]), local(match[2]), parse_object(match[3])))
    return triples


@pytest.fixture(scope="module")
def lines() -> list[str]:
    with gzip.open(DEMO_KG, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


@pytest.fixture(scope="module")
def triples(lines: list[str]) -> list[Triple]:
    return parse_lines(lines)


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    return [json.loads(line) for line in DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines()]


def objects_by_subject(triples: list[Triple], predicate: str) -> dict[str, list]:
    found: dict[str, list] = defaultdict(list)
    for s, p, o in triples:
        if p == predicate:
            found[s].append(o)
    return found


def names_by_subject(triples: list[Triple]) -> dict[str, str]:
    """Subject -> its type.object.name text (every name must be an English literal)."""
    names = {}
    for s, p, o in triples:
        if p == NAME:
            assert isinstance(o, Literal) and o.lang == "en", (s, o)
            names[s] = o.value
    return names


def cvt_mids(triples: list[Triple]) -> set[str]:
    return {s for s, p, o in triples if p == TYPE and o in CVT_TYPES}


def test_paths_point_into_the_package() -> None:
    assert DEMO_KG.parent == DEMO_DIR and DEMO_QUESTIONS.parent == DEMO_DIR
    assert DEMO_KG.name == "films.nt.gz" and DEMO_QUESTIONS.name == "questions.jsonl"


def test_gzip_header_is_reproducible() -> None:
    header = DEMO_KG.read_bytes()[:10]
    assert header[:2] == b"\x1f\x8b"
    assert header[4:8] == b"\x00\x00\x00\x00", "gzip mtime must be 0"
    assert header[3] & 0x08 == 0, "no file name stored in the gzip header"


def test_every_line_is_a_freebase_dump_line(triples: list[Triple]) -> None:
    for s, p, o in triples:
        assert MID_RE.match(s) or SCHEMA_ID_RE.match(s), s
        assert SCHEMA_ID_RE.match(p), p
        if isinstance(o, str):
            assert MID_RE.match(o) or SCHEMA_ID_RE.match(o), o
        else:
            assert o.lang == "en" or o.datatype in {"date", "gYear", "float", None}, o


def test_size(triples: list[Triple]) -> None:
    facts = [t for t in triples if MID_RE.match(t[0]) and t[1] not in LABEL_PREDICATES]
    assert len(triples) >= 2000
    assert len(facts) >= 1200
    people = {s for s, p, o in triples if p == TYPE and o == "people.person"}
    films = {s for s, p, o in triples if p == TYPE and o == "film.film"}
    assert len(people) >= 150 and 60 <= len(films) <= 100


def test_lines_are_grouped_by_subject_without_duplicates(lines: list[str]) -> None:
    assert len(lines) == len(set(lines))
    seen: set[str] = set()
    previous = None
    for line in lines:
        subject = line.split("\t", 1)[0]
        if subject != previous:
            assert subject not in seen, f"{subject} appears in two groups"
            seen.add(subject)
            previous = subject


@pytest.mark.parametrize("type_id", ["people.person", "film.film", "location.location"])
def test_topics_have_a_name_and_types(triples: list[Triple], type_id: str) -> None:
    names = objects_by_subject(triples, NAME)
    types = objects_by_subject(triples, TYPE)
    members = [s for s, t in types.items() if type_id in t]
    assert members
    for mid in members:
        assert len(names[mid]) == 1 and names[mid][0].lang == "en", mid


def test_cvt_nodes_are_nameless_and_typed(triples: list[Triple]) -> None:
    names = objects_by_subject(triples, NAME)
    mediators = {s for s, p, o in triples if p == "freebase.type_hints.mediator"}
    assert mediators == CVT_TYPES
    assert all(o == Literal("true") for s, p, o in triples if p == "freebase.type_hints.mediator")
    cvts = cvt_mids(triples)
    assert len(cvts) > 300
    assert not cvts & set(names)


def test_performance_cvts_are_complete(triples: list[Triple]) -> None:
    facts = defaultdict(set)
    for s, p, _ in triples:
        facts[s].add(p)
    performances = {s for s, p, o in triples if p == TYPE and o == "film.performance"}
    wanted = {"film.performance.actor", "film.performance.character", "film.performance.film"}
    assert all(wanted <= facts[mid] for mid in performances)


@pytest.mark.parametrize(
    ("forward", "inverse"),
    [
        ("film.film.directed_by", "film.director.film"),
        ("film.film.starring", "film.performance.film"),
        ("film.actor.film", "film.performance.actor"),
        ("location.location.containedby", "location.location.contains"),
        ("film.film.prequel", "film.film.sequel"),
        ("people.person.education", "education.education.student"),
    ],
)
def test_inverse_properties_agree(triples: list[Triple], forward: str, inverse: str) -> None:
    there = {(s, o) for s, p, o in triples if p == forward}
    back = {(o, s) for s, p, o in triples if p == inverse}
    assert there and there == back


def test_marriages_link_both_spouses(triples: list[Triple]) -> None:
    spouses = objects_by_subject(triples, "people.marriage.spouse")
    marriages = {s for s, p, o in triples if p == TYPE and o == "people.marriage"}
    assert marriages and all(len(spouses[m]) == 2 for m in marriages)


def test_every_predicate_and_type_has_a_label(triples: list[Triple]) -> None:
    names = objects_by_subject(triples, NAME)
    used = {p for _, p, _ in triples} | {o for _, p, o in triples if p == TYPE}
    assert {u for u in used if u not in names} == set()


def test_shared_names_share_a_relation(triples: list[Triple]) -> None:
    """Each curated homonym group has >= 2 entities that have a predicate in common."""
    cvts = cvt_mids(triples)
    by_name: dict[str, set[str]] = defaultdict(set)
    for s, name in names_by_subject(triples).items():
        if MID_RE.match(s) and s not in cvts:
            by_name[name].add(s)
    predicates = defaultdict(set)
    for s, p, _ in triples:
        if p not in LABEL_PREDICATES:
            predicates[s].add(p)
    for name in SHARED_NAMES:
        members = by_name[name]
        assert len(members) >= 2, name
        assert set.intersection(*(predicates[m] for m in members)), name


def test_aliases(triples: list[Triple]) -> None:
    names = names_by_subject(triples)
    alias_of = {o.value: names[s] for s, p, o in triples if p == ALIAS and isinstance(o, Literal)}
    assert len({s for s, p, _ in triples if p == ALIAS}) >= 50
    assert alias_of["NYC"] == "New York City"
    assert alias_of["Godfather II"] == "The Godfather Part II"


def test_literals_are_escaped(lines: list[str], triples: list[Triple]) -> None:
    assert escape('say "hi" \\ bye') == 'say \\"hi\\" \\\\ bye'
    assert any('\\"Scottie\\"' in line for line in lines)
    names = set(names_by_subject(triples).values())
    assert 'John "Scottie" Ferguson' in names and "Amélie" in names


def test_dates_are_well_formed(triples: list[Triple]) -> None:
    shapes = {"date": r"\d{4}-\d{2}-\d{2}", "gYear": r"\d{4}", "float": r"\d+\.\d"}
    for _, _, o in triples:
        if isinstance(o, Literal) and o.datatype:
            assert re.fullmatch(shapes[o.datatype], o.value), o


def test_question_records(questions: list[dict]) -> None:
    assert 10 <= len(questions) <= 15
    assert [q["id"] for q in questions] == [f"demo-{i:03d}" for i in range(1, len(questions) + 1)]
    keys = ["id", "question", "answers", "answer_names", "sparql", "topic_entities", "shape"]
    for q in questions:
        assert list(q) == keys
        assert q["answers"] and len(q["answers"]) == len(q["answer_names"])
        assert q["sparql"].startswith("PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x\n")
    assert {q["shape"] for q in questions} == {"single", "path", "tree"}
    assert any(not MID_RE.match(a) for q in questions for a in q["answers"]), "a literal answer"
    assert any("?y ns:film.performance." in q["sparql"] for q in questions), "a CVT question"


def sparql_patterns(sparql: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Triple patterns and ``FILTER (?x != ns:m)`` exclusions of a WebQSP query."""
    def term(t: str) -> str:
        return t if t.startswith("?") else t.removeprefix("ns:")

    patterns, exclude = [], []
    for line in sparql.splitlines():
        if match := re.fullmatch(r"FILTER \(\?x != ns:(\S+)\)", line):
            exclude.append(match[1])
        elif match := re.fullmatch(r"(\S+) (\S+) (\S+) \.", line):
            patterns.append((term(match[1]), term(match[2]), term(match[3])))
    return patterns, exclude


def test_question_answers_follow_from_the_file(questions: list[dict], triples: list[Triple]) -> None:
    """Re-run every question's SPARQL over the triples parsed back from the file."""
    names = names_by_subject(triples)
    subjects = {s for s, _, _ in triples}
    for q in questions:
        patterns, exclude = sparql_patterns(q["sparql"])
        assert patterns, q["id"]
        answers = evaluate(patterns, triples, exclude)
        values = [a.value if isinstance(a, Literal) else a for a in answers]
        assert values == q["answers"], q["id"]
        assert [names.get(a, a) for a in values] == q["answer_names"], q["id"]
        assert all(t in subjects for t in q["topic_entities"]), q["id"]


def test_known_answers(questions: list[dict]) -> None:
    """Spot checks against facts any film fan knows."""
    by_id = {q["id"]: q for q in questions}
    assert by_id["demo-001"]["answer_names"] == ["Francis Ford Coppola"]
    assert by_id["demo-002"]["answer_names"] == ["Al Pacino"]
    assert by_id["demo-008"]["answers"] == ["2010-07-16"]


def test_rebuild_is_byte_identical(tmp_path: Path) -> None:
    """The builder reproduces the shipped files.

    The questions file is compared byte for byte; for the KG the gzip payload
    is compared byte for byte and two fresh builds must give identical
    compressed bytes (the shipped compressed bytes could differ only under a
    different zlib build, which is not the builder's doing).
    """
    first, second = tmp_path / "a", tmp_path / "b"
    kg_a, questions_a = build(first)
    kg_b, _ = build(second)
    assert questions_a.read_bytes() == DEMO_QUESTIONS.read_bytes()
    assert gzip.decompress(kg_a.read_bytes()) == gzip.decompress(DEMO_KG.read_bytes())
    assert kg_a.read_bytes() == kg_b.read_bytes()
    assert kg_a.read_bytes()[:10] == DEMO_KG.read_bytes()[:10]
