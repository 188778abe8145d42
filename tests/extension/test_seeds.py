"""New-domain seed questions (extension.inputs.seed_sampler, extension.verbalize.seed_questions) on real stores.

* a Wikidata-shaped store: a small JSON dump of humans (Q5) with places, countries,
  universities and works, written here and loaded through ``loaders.wikidata`` with
  qualifiers, so ``educated at`` statements with a start time become statement nodes;
* the Freebase-format demo KG (films, people, CVTs), loaded with ``load_freebase``;
* a hand-built store with one rare and one frequent relation (specificity);
* the real Wikidata sample entities when ``KGBENCH_EXTERNAL_DATA`` is set.

Every question drawn is checked against the issue's conditions (:func:`check_question`):
its graph classifies as its shape with its topic entities, it grounds to a non-empty
answer set of at most ``max_answers`` that equals its gold answers, no answer is one of
its subjects, no bookkeeping predicate is asked about, and its text names its subjects.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from extension.core.grounding import Grounder
from extension.core.query_graph import QueryEdge
from extension.core.samples import structured_samples
from extension.core.shapes import classify
from extension.core.vocabulary import is_answerable_literal, is_bookkeeping_predicate
from extension.inputs.domain_spec import DomainSpec, parse_domain_spec
from extension.inputs.questions import ParsedQuestion
from extension.inputs.seed_sampler import FAILURE_REASONS, SeedSample, sample_seed_questions
from extension.inputs.seed_walk import predicate_specificity
from extension.verbalize.extended_question import Unphrasable
from extension.verbalize.seed_questions import template_question
from kgstore import Entity, Fact, Literal, Store, open_store
from loaders.wikidata import STATEMENT_TYPE
from tests.external import EXTERNAL
from tests.loaders.test_wikidata import dump_text, entity, item, snak, stmt, time, write
from tests.loaders.test_wikidata import load as load_wikidata

# -- the Wikidata-shaped dump ------------------------------------------------------------

PROPERTIES = {
    "P19": "place of birth", "P27": "country of citizenship", "P106": "occupation",
    "P569": "date of birth", "P21": "sex or gender", "P69": "educated at", "P17": "country",
    "P36": "capital", "P31": "instance of", "P800": "notable work", "P50": "author",
    "P580": "start time", "P1559": "name in native language", "P214": "VIAF ID",
}
CLASSES = {"Q5": "human", "Q515": "city", "Q6256": "country", "Q3918": "university",
           "Q7725634": "literary work", "Q28640": "profession", "Q48264": "gender"}
COUNTRIES = {"Q145": ("United Kingdom", "Q84"), "Q30": ("United States", "Q61"),
             "Q142": ("France", "Q90")}
CITIES = {"Q84": ("London", "Q145"), "Q350": ("Cambridge", "Q145"),
          "Q60": ("New York City", "Q30"), "Q61": ("Washington, D.C.", "Q30"),
          "Q90": ("Paris", "Q142"), "Q456": ("Lyon", "Q142")}
UNIVERSITIES = {"Q35794": ("University of Cambridge", "Q145"),
                "Q49088": ("Columbia University", "Q30"), "Q209842": ("Sorbonne", "Q142")}
OCCUPATIONS = {"Q36180": "writer", "Q82594": "computer scientist",
               "Q1622272": "university teacher", "Q33999": "actor"}
GENDERS = {"Q6581097": "male", "Q6581072": "female"}
HUMANS = ["Douglas Adams", "Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie",
          "Simone de Beauvoir", "Toni Morrison", "Richard Feynman", "Virginia Woolf",
          "Jean-Paul Sartre", "Meryl Streep", "Emma Watson"]
WORKS = {"Q25338": "The Hitchhiker's Guide to the Galaxy", "Q1000001": "Beloved",
         "Q1000002": "Mrs Dalloway"}
AUTHORS = {"Q25338": 0, "Q1000001": 6, "Q1000002": 8}   # work -> index of its author
BOOKKEEPING_USED = {"P31", "P1559"}


def human_id(i: int) -> str:
    return "Q42" if i == 0 else f"Q90000{i:02d}"


def humans() -> list[dict[str, Any]]:
    """Twelve humans, every relation spread over them deterministically; half of the
    ``educated at`` statements carry a start time (statement nodes with qualifiers)."""
    out = []
    countries, universities, occupations = list(COUNTRIES), list(UNIVERSITIES), list(OCCUPATIONS)
    cities_of = {k: [c for c, (_, country) in CITIES.items() if country == k] for k in COUNTRIES}
    for i, name in enumerate(HUMANS):
        qid = human_id(i)
        country = countries[i % 3]
        birthplace = cities_of[country][(i // 3) % 2]
        university = universities[(i + 1) % 3]
        education = item("P69", university)
        claims = [
            stmt(item("P31", "Q5")), stmt(item("P21", list(GENDERS)[i % 2])),
            stmt(item("P27", country)), stmt(item("P19", birthplace)),
            stmt(item("P106", occupations[i % 4])),
            stmt(time("P569", f"+19{20 + i:02d}-0{1 + i % 9}-1{i % 10}T00:00:00Z", 11)),
            stmt(education, sid=f"{qid}$EDU",
                 qualifiers=[time("P580", f"+19{40 + i:02d}-00-00T00:00:00Z", 9)])
            if i % 2 == 0 else stmt(education),
            stmt(snak("P1559", "monolingualtext", {"text": name, "language": "en"})),
            stmt(snak("P214", "string", f"1000{i}", "external-id")),
        ]
        for work, author in AUTHORS.items():
            if author == i:
                claims.append(stmt(item("P800", work)))
        out.append(entity(qid, labels={"en": name}, claims=claims))
    return out


def wikidata_entities() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        entity(p, labels={"en": label}, datatype="wikibase-item")
        for p, label in PROPERTIES.items()]
    out += [entity(q, labels={"en": label}) for q, label in CLASSES.items()]
    for q, (name, capital) in COUNTRIES.items():
        out.append(entity(q, labels={"en": name}, claims=[
            stmt(item("P31", "Q6256")), stmt(item("P36", capital))]))
    for q, (name, country) in CITIES.items():
        out.append(entity(q, labels={"en": name}, claims=[
            stmt(item("P31", "Q515")), stmt(item("P17", country))]))
    for q, (name, country) in UNIVERSITIES.items():
        out.append(entity(q, labels={"en": name}, claims=[
            stmt(item("P31", "Q3918")), stmt(item("P17", country))]))
    out += [entity(q, labels={"en": name}, claims=[stmt(item("P31", "Q28640"))])
            for q, name in OCCUPATIONS.items()]
    out += [entity(q, labels={"en": name}, claims=[stmt(item("P31", "Q48264"))])
            for q, name in GENDERS.items()]
    out += [entity(q, labels={"en": name}, claims=[
        stmt(item("P31", "Q7725634")), stmt(item("P50", human_id(AUTHORS[q])))])
        for q, name in WORKS.items()]
    return out + humans()


@pytest.fixture(scope="module")
def wikidata(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The Wikidata-shaped store, shared by the module: do not modify."""
    root = tmp_path_factory.mktemp("seeds-wikidata")
    dump = write(root / "humans.json", dump_text(wikidata_entities()))
    with open_store(root / "store", create=True) as s:
        load_wikidata(s, dump, strict=True, qualifiers=True)
        yield s


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The Freebase-format demo KG, shared by the module: do not modify."""
    from kgbench.demo import DEMO_KG
    from loaders.freebase import load_freebase

    with open_store(tmp_path_factory.mktemp("seeds-demo") / "store", create=True) as s:
        load_freebase(s, [DEMO_KG])
        yield s


@pytest.fixture(scope="module")
def humans_sample(wikidata: Store) -> SeedSample:
    return sample_seed_questions(wikidata, "Q5", 12, seed=3)


@pytest.fixture(scope="module")
def people_sample(demo: Store) -> SeedSample:
    return sample_seed_questions(demo, "people.person", 30, seed=5)


@pytest.fixture(scope="module")
def film_sample(demo: Store) -> SeedSample:
    return sample_seed_questions(demo, "film.", 24, seed=2)


# -- checks shared by the tests ----------------------------------------------------------

def answer_values(q: ParsedQuestion) -> set[str]:
    return {a.value for a in q.answers}


def check_question(store: Store, q: ParsedQuestion, *, max_answers: int = 50) -> None:
    """The conditions every seed question must meet (see the module docstring)."""
    assert q.query is not None and q.shape in ("single", "path", "tree")
    assert q.id.startswith(f"{q.dataset}-{q.shape}-") and len(q.id.rsplit("-", 1)[1]) == 6
    c = classify(q.query, q.topic_entities)
    assert c.shape == q.shape, (q.id, c)
    assert c.subjects == q.topic_entities and c.hops == q.hops
    assert q.hops == (2 if q.shape == "path" else 1)
    assert len(q.topic_entities) == (2 if q.shape == "tree" else 1)
    assert len(set(q.topic_entities)) == len(q.topic_entities)
    grounding = Grounder(store).ground(q.query)
    assert grounding.outcome == "answered", (q.id, grounding.detail)
    assert 1 <= len(grounding.answers) <= max_answers and not grounding.truncated
    got = {a.value if isinstance(a, Literal) else a for a in grounding.answers}
    assert got == answer_values(q)
    assert not set(q.topic_entities) & got
    assert not any(is_bookkeeping_predicate(p) for p in q.query.predicates())
    for s in q.topic_entities:
        e = store.entity(s)
        assert e is not None and e.name and not e.is_cvt
        assert e.name in q.question
    assert q.question.endswith("?") and q.question[0].isupper()
    for a in grounding.answers:
        if isinstance(a, Literal):
            assert is_answerable_literal(a), (q.id, a)


def first_edges(q: ParsedQuestion) -> list[QueryEdge]:
    """The edges at the question's subject (single, path) or at its answer (tree):
    where the domain entity stood."""
    assert q.query is not None
    ends = {q.query.answer} if q.shape == "tree" else set(q.topic_entities)
    return [e for e in q.query.edges if e.source in ends or e.target in ends]


def dumped(sample: SeedSample) -> list[str]:
    return [q.model_dump_json() for q in sample.questions]


# -- domain specs ---------------------------------------------------------------------------

def test_parse_domain_spec_on_both_stores(wikidata: Store, demo: Store) -> None:
    assert parse_domain_spec("Q5", wikidata) == DomainSpec("type", "Q5")
    assert parse_domain_spec(" Q515 ", wikidata) == DomainSpec("type", "Q515")
    assert parse_domain_spec("P69", wikidata) == DomainSpec("predicate_prefix", "P69")
    assert parse_domain_spec("people.person", demo) == DomainSpec("type", "people.person")
    assert parse_domain_spec("film.", demo) == DomainSpec("predicate_prefix", "film.")
    assert parse_domain_spec("film", demo) == DomainSpec("predicate_prefix", "film.")
    assert parse_domain_spec("film.performance", demo) == DomainSpec(
        "predicate_prefix", "film.performance.")   # a CVT type: no named instances


def test_domain_spec_matches_predicates() -> None:
    prefix = DomainSpec("predicate_prefix", "film.")
    assert prefix.matches_predicate("film.film.directed_by")
    assert not prefix.matches_predicate("people.person.nationality")
    exact = DomainSpec("predicate_prefix", "P19")
    assert exact.matches_predicate("P19") and not exact.matches_predicate("P190")
    assert DomainSpec("type", "Q5").matches_predicate("P19")


@pytest.mark.parametrize("spec", ["Q99999", "people.nobody", "", "   "])
def test_a_spec_matching_nothing_says_what_was_expected(demo: Store, spec: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_domain_spec(spec, demo)
    message = str(err.value)
    assert "expected a type" in message and "predicate prefix" in message
    assert "people.person" in message and "film." in message   # this store's examples


def test_bad_spec_error_names_wikidata_types(wikidata: Store) -> None:
    with pytest.raises(ValueError, match=r"Q5 \(human\)"):
        parse_domain_spec("Q99999", wikidata)
    with pytest.raises(ValueError, match="no predicate of the store starts with 'zz.'"):
        parse_domain_spec("zz.", wikidata)
    with pytest.raises(ValueError, match="Q99999"):
        sample_seed_questions(wikidata, "Q99999", 3, seed=0)


def test_bad_arguments(wikidata: Store) -> None:
    with pytest.raises(ValueError, match="n must be"):
        sample_seed_questions(wikidata, "Q5", -1, seed=0)
    with pytest.raises(ValueError, match="shapes"):
        sample_seed_questions(wikidata, "Q5", 3, seed=0, shapes=("single", "star"))  # type: ignore[arg-type]
    empty = sample_seed_questions(wikidata, "Q5", 0, seed=0)
    assert empty.questions == [] and all(r.requested == 0 for r in empty.shapes)


# -- predicates --------------------------------------------------------------------------------

def test_bookkeeping_predicates_and_answerable_literals() -> None:
    for p in ("type.object.name", "type.object.type", "common.topic.alias",
              "common.topic.description", "freebase.type_hints.mediator", "P31", "P1559",
              "http://www.w3.org/2000/01/rdf-schema#label", "type.type.instance"):
        assert is_bookkeeping_predicate(p), p
    for p in ("film.film.directed_by", "people.person.place_of_birth", "P19", "P69"):
        assert not is_bookkeeping_predicate(p), p
    assert is_answerable_literal(Literal("1952-03-11", "xsd:date"))
    assert is_answerable_literal(Literal("42", "xsd:decimal"))
    assert is_answerable_literal(Literal("Douglas Adams", lang="en"))
    assert is_answerable_literal(Literal("Belizean", lang="en-GB"))
    # text in another language is no answer nor a cited fact for English readers
    assert not is_answerable_literal(Literal("בליזאי", lang="he"))
    assert not is_answerable_literal(Literal("beliceño", lang="es"))
    assert not is_answerable_literal(Literal("113230702"))            # an identifier
    assert not is_answerable_literal(Literal("x", "xsd:string"))
    assert not is_answerable_literal(Literal("Point(1 2)", "http://www.opengis.net/ont/geosparql#wktLiteral"))


def test_specificity_is_an_idf_over_fact_counts(wikidata: Store) -> None:
    spec = predicate_specificity(wikidata)
    counts = {p.id: p.count for p in wikidata.predicates()}
    total = sum(counts.values())
    assert spec["P800"] == pytest.approx(math.log(total / counts["P800"]))
    assert spec["P800"] > spec["P21"]   # 3 notable works vs 12 genders
    assert counts["P31"] > 0 and "P31" not in spec and "P1559" not in spec
    assert set(spec) == {p for p, c in counts.items() if c and not is_bookkeeping_predicate(p)}


RARE, COMMON, TYPE, LONELY = "x.thing.rare", "x.thing.common", "x.thing", "x.lonely"


@pytest.fixture(scope="module")
def two_relations(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """20 things, each with one rare and one common relation (the common predicate is
    also carried by 400 other facts): specificity should pick the rare one. And 100
    lonely things without any fact."""
    things = [Entity(f"t{i}", f"Thing {i}", types=(TYPE,)) for i in range(20)]
    things += [Entity(f"l{i}", f"Lonely {i}", types=(LONELY,)) for i in range(100)]
    others = [Entity(f"o{i}", f"Other {i}") for i in range(60)]
    facts = [Fact(f"t{i}", RARE, f"o{i}") for i in range(20)]
    facts += [Fact(f"t{i}", COMMON, f"o{20 + i}") for i in range(20)]
    facts += [Fact(f"o{i}", COMMON, f"o{(i * 7 + j) % 60}") for i in range(40) for j in range(1, 11)]
    with open_store(tmp_path_factory.mktemp("seeds-two") / "store", create=True) as s:
        s.ingest([*things, *others], facts)
        yield s


def test_rare_predicates_are_preferred(two_relations: Store) -> None:
    spec = predicate_specificity(two_relations)
    assert spec[RARE] > 3 * spec[COMMON]
    sample = sample_seed_questions(two_relations, TYPE, 20, seed=1, shapes=("single",))
    assert len(sample.questions) == 20
    used = Counter(q.query.edges[0].predicate for q in sample.questions if q.query)
    # a uniform choice would use each about 10 times
    assert used[RARE] >= 17, used
    for q in sample.questions:
        check_question(two_relations, q)


def test_attempts_stop_at_the_cap(two_relations: Store) -> None:
    """A domain larger than the attempt cap (``max(64, 40 n)`` entities) where nothing
    works: the sample grows once (32 -> 64) and stops there."""
    sample = sample_seed_questions(two_relations, LONELY, 1, seed=0)
    single = sample.shapes[0]
    assert (single.requested, single.produced, single.attempts) == (1, 0, 64)
    assert single.shortfall == "attempt_limit"
    assert single.failures == {"no_relations": 64}
    assert sample.domain_entities == 64 and sample.shortfalls() == {"single": 1}
    with pytest.raises(ValueError, match="max_answers"):
        sample_seed_questions(two_relations, TYPE, 3, seed=0, max_answers=0)


# -- the Wikidata-shaped store -----------------------------------------------------------------------

def test_humans_all_three_shapes(wikidata: Store, humans_sample: SeedSample) -> None:
    sample = humans_sample
    assert sample.spec == DomainSpec("type", "Q5")
    assert {r.shape: r.produced for r in sample.shapes} == {"single": 4, "path": 4, "tree": 4}
    assert sample.shortfalls() == {}
    assert [q.id for q in sample.questions if q.shape == "path"] == [
        f"domain-path-{k:06d}" for k in range(4)]
    for q in sample.questions:
        check_question(wikidata, q)


def test_humans_start_from_humans(wikidata: Store, humans_sample: SeedSample) -> None:
    human_ids = {human_id(i) for i in range(len(HUMANS))}
    for q in humans_sample.questions:
        if q.shape == "tree":
            # asked the other way round: the human is among the answers
            assert answer_values(q) & human_ids, q
        else:
            assert q.topic_entities[0] in human_ids, q


def test_questions_read_with_relation_phrases(humans_sample: SeedSample) -> None:
    """Property ids never show: the shipped table or the store's property labels
    (``P19`` -> "was born in", ``P800`` -> "notable work") phrase them."""
    words = ("born", "birthplace", "citizen", "occupation", "gender", "educated", "notable work", "start time",
             "country", "capital", "written", "wrote")
    for q in humans_sample.questions:
        assert q.query is not None
        assert any(w in q.question for w in words), q.question
        assert not any(p in q.question.split() for p in PROPERTIES), q.question


def test_a_path_names_its_middle_entity_by_type_and_no_question_has_a_placeholder(
        wikidata: Store) -> None:
    """The middle entity of a path is named by the type its bound entities share ("the
    university that educated Marie Curie", not "the one that …"), and a question that
    would still need a placeholder ("at something", "which entity") is refused as
    unreadable_text rather than kept."""
    from extension.verbalize.quality import placeholder_words

    sample = sample_seed_questions(wikidata, "P69", 9, seed=4)
    paths = [q.question for q in sample.questions if q.shape == "path"]
    assert paths and all(q.startswith("The university that educated") for q in paths), paths
    for q in sample.questions:
        assert not placeholder_words(q.question), q.question
    assert sum(r.failures.get("unreadable_text", 0) for r in sample.shapes) > 0


def test_statement_nodes_are_cvt_hops(wikidata: Store) -> None:
    """Paths through ``educated at`` statements with qualifiers: the statement node is a
    CVT variable (classed ``wikibase.statement``), so the path has 2 hops, not 3."""
    sample = sample_seed_questions(wikidata, "P69", 9, seed=4)
    assert sample.spec == DomainSpec("predicate_prefix", "P69")
    through = [q for q in sample.questions
               if q.query and any(n.is_cvt for n in q.query.nodes)]
    assert any(q.shape == "path" for q in through)
    for q in through:
        assert q.query is not None
        cvt = next(n for n in q.query.nodes if n.is_cvt)
        assert cvt.classes == (STATEMENT_TYPE,)
        check_question(wikidata, q)
    for q in sample.questions:
        assert any(e.predicate == "P69" for e in first_edges(q)), q


def test_type_domain_of_other_entities(wikidata: Store) -> None:
    sample = sample_seed_questions(wikidata, "Q515", 6, seed=0)
    cities = set(CITIES)
    assert sample.questions
    for q in sample.questions:
        check_question(wikidata, q)
        if q.shape != "tree":
            assert q.topic_entities[0] in cities


# -- the Freebase-format demo store --------------------------------------------------------------------

def test_people_all_three_shapes(demo: Store, people_sample: SeedSample) -> None:
    assert {r.shape: r.produced for r in people_sample.shapes} == {
        "single": 10, "path": 10, "tree": 10}
    persons = 0
    for q in people_sample.questions:
        check_question(demo, q)
        if q.shape != "tree":
            e = demo.entity(q.topic_entities[0])
            assert e is not None and "people.person" in e.types
            persons += 1
    assert persons == 20


def test_paths_go_through_cvts_where_the_store_has_them(people_sample: SeedSample) -> None:
    paths = [q for q in people_sample.questions if q.shape == "path"]
    report = next(r for r in people_sample.shapes if r.shape == "path")
    through = [q for q in paths if q.query and any(n.is_cvt for n in q.query.nodes)]
    # at least 2 of 10 (a path into a performance and back out of one is refused, and
    # so is one through the one performance the store keeps of an actor: "one of the
    # films that feature X", blind round 31)
    assert report.via_cvt == len(through) >= 2
    for q in through:
        assert q.query is not None
        cvts = sum(n.is_cvt for n in q.query.nodes)
        assert len(q.query.edges) == 2 + cvts and q.hops == 2   # each CVT hop counts once


def test_predicate_prefix_domain(demo: Store, film_sample: SeedSample) -> None:
    assert film_sample.spec == DomainSpec("predicate_prefix", "film.")
    assert len(film_sample.questions) == 24
    for q in film_sample.questions:
        check_question(demo, q)
        at_start = first_edges(q)
        if q.shape == "tree":
            assert any(e.predicate.startswith("film.") for e in at_start), q
        else:
            assert at_start[0].predicate.startswith("film."), q
    # subjects of film.performance.* facts are CVTs: passed over, not attempted
    assert film_sample.unnamed_entities > 0


def test_same_seed_same_questions_other_seed_others(demo: Store, people_sample: SeedSample
                                                    ) -> None:
    again = sample_seed_questions(demo, "people.person", 30, seed=5)
    assert dumped(again) == dumped(people_sample)
    assert again.shapes == people_sample.shapes
    other = sample_seed_questions(demo, "people.person", 30, seed=6)
    assert dumped(other) != dumped(people_sample)
    prefix_again = sample_seed_questions(demo, DomainSpec("predicate_prefix", "film."), 24,
                                         seed=2)
    assert dumped(prefix_again) == dumped(sample_seed_questions(demo, "film.", 24, seed=2))


def test_answer_cap(demo: Store) -> None:
    sample = sample_seed_questions(demo, "film.film", 12, seed=1, max_answers=2)
    assert sample.questions
    for q in sample.questions:
        check_question(demo, q, max_answers=2)


def test_cvt_that_names_the_subject_again_gets_a_filter(demo: Store) -> None:
    """A marriage CVT names both spouses: asking for the spouse excludes the subject
    itself (as WebQSP's ``FILTER(?x != ns:m.…)`` does); asking for the date needs not."""
    sample = sample_seed_questions(demo, "people.person.spouse_s", 8, seed=0,
                                   shapes=("single",))
    assert len(sample.questions) == 8
    roles: Counter[str] = Counter()
    for q in sample.questions:
        assert q.query is not None
        role = q.query.edges[1].predicate
        roles[role] += 1
        expected = (("?a", q.topic_entities[0]),) if role == "people.marriage.spouse" else ()
        assert q.query.not_equal == expected
        check_question(demo, q)
    assert roles["people.marriage.spouse"] >= 1


def test_shapes_subset_and_shortfall_reasons(demo: Store) -> None:
    trees = sample_seed_questions(demo, "film.film", 3, seed=0, shapes=("tree",))
    assert [q.id for q in trees.questions] == [f"domain-tree-{k:06d}" for k in range(3)]
    # two genders in the whole KG: every shape runs out of domain entities
    small = sample_seed_questions(demo, "people.gender", 30, seed=0)
    assert small.domain_entities == 2
    for r in small.shapes:
        assert r.requested == 10 and r.produced <= 2 and r.attempts == 2
        assert r.shortfall == "domain_exhausted"
        assert sum(r.failures.values()) == r.attempts - r.produced
    assert small.shortfalls() == {r.shape: 10 - r.produced for r in small.shapes}


def test_seed_questions_run_through_the_sample_pipeline(
        wikidata: Store, demo: Store, humans_sample: SeedSample, people_sample: SeedSample
        ) -> None:
    """New-domain questions feed :func:`structured_samples` as parsed KGQA ones do:
    each grounds as the supportive sample (a few Freebase paths find no rule to extend
    them, as for any question)."""
    # (issue 34: a tree already names two constants, so way 2 may add no third; a tree
    # whose every way-1 hop is refused too finds no rule, as any question may; round
    # 51: nor does one whose only extension describes "the place where X is located")
    for store, sample, least in ((wikidata, humans_sample, 10), (demo, people_sample, 21)):
        grounder = Grounder(store)
        supported = 0
        for q in sample.questions:
            samples, failures = structured_samples(store, grounder, q, seed=0)
            labels = {x.label for x in samples}
            supported += "supportive" in labels
            assert samples or failures
            for x in samples:
                assert x.source.qid == q.id and x.source.question == q.question
        assert supported >= least


# -- template questions ----------------------------------------------------------------------

def edge(s: str, p: str, o: str) -> QueryEdge:
    return QueryEdge(source=s, predicate=p, target=o)


NAMES = {"e0": "Douglas Adams", "e1": "Honolulu", "e2": "Columbia University", "f": "Titanic"}
# Made-up ids (not in the shipped table), so only these phrases apply; ``^p`` is the
# inverse reading, ``t.performance.*`` makes the CVT noun "performance"; two-part ids
# name no type, so their questions ask "what" / "which entity".
PHRASES = {"tp.birth": "was born in", "^tp.birth": "is the birthplace of",
           "tp.country": "has the country", "tp.edu": "was educated at",
           "tp.born_on": "was born on",
           "tf.produced": "was produced in", "ta.acted": "gave",
           "t.performance.film": "has the film", "t.performance.actor": "has the actor",
           "tf.starring": "features", "tf.cut": "has the runtime",
           "t.film_cut.runtime": "has the runtime", "W1": "was educated at",
           "W2": "has the start time"}


@pytest.mark.parametrize(("edges", "text"), [
    ([edge("e0", "tp.birth", "?a")], "What is the birthplace of Douglas Adams?"),
    ([edge("e0", "tp.country", "?a")], "What is the country of Douglas Adams?"),
    ([edge("f", "tf.produced", "?a")], "Titanic was produced in what?"),
    ([edge("?a", "tp.birth", "e1")], "What was born in Honolulu?"),
    # passive phrases ending in "on" (dates) and "at" (places) ask when / where
    ([edge("e0", "tp.born_on", "?a")], "When was Douglas Adams born?"),
    ([edge("e0", "tp.edu", "?a")], "Where was Douglas Adams educated?"),
])
def test_template_single(edges: list[QueryEdge], text: str) -> None:
    assert template_question("single", edges, NAMES, PHRASES) == text


def test_template_path_and_tree() -> None:
    path = [edge("e0", "tp.birth", "?v"), edge("?v", "tp.country", "?a")]
    assert template_question("path", path, NAMES, PHRASES) == \
        "What is the country of the birthplace of Douglas Adams?"
    backward = [edge("?v", "tp.birth", "e1"), edge("?v", "tp.edu", "?a")]
    assert template_question("path", backward, NAMES, PHRASES) == \
        "Where was the one that was born in Honolulu educated?"
    tree = [edge("?a", "tp.birth", "e1"), edge("?a", "tp.edu", "e2")]
    assert template_question("tree", tree, NAMES, PHRASES) == \
        "Which entity was born in Honolulu and was educated at Columbia University?"


@pytest.mark.parametrize(("shape", "edges", "text"), [
    ("single", [edge("e0", "ta.acted", "?c"), edge("?c", "t.performance.film", "?a")],
     "Douglas Adams gave a performance with what film?"),
    ("tree", [edge("?a", "tf.starring", "?c"), edge("?c", "t.performance.actor", "e0"),
              edge("?a", "tp.birth", "e1")],
     "Which entity features a performance with actor Douglas Adams and was born in Honolulu?"),
    ("single", [edge("?c", "t.performance.actor", "e0"), edge("?c", "t.performance.film", "?a")],
     "What is the film of the performance with actor Douglas Adams?"),
    ("single", [edge("f", "tf.cut", "?c"), edge("?c", "t.film_cut.runtime", "?a")],
     "What is the runtime of Titanic?"),
    # Wikidata statement nodes: the main value reads as the fact, a qualifier as its own
    ("single", [edge("e0", "W1", "?c"), edge("?c", "W1", "?a")],
     "Where was Douglas Adams educated?"),
    ("single", [edge("e0", "W1", "?c"), edge("?c", "W2", "?a")],
     "What is the start time of the fact that Douglas Adams was educated at something?"),
])
def test_template_cvt_hops(shape: str, edges: list[QueryEdge], text: str) -> None:
    assert template_question(shape, edges, NAMES, PHRASES, cvt_nodes={"?c"}) == text


def test_template_fallbacks_and_errors() -> None:
    # no phrase given: derived from the id
    assert template_question("single", [edge("Q1", "tp.height", "?a")], {"Q1": "Ada"}, {}) == \
        "What is the height of Ada?"
    with pytest.raises(ValueError, match="path"):
        template_question("path", [edge("e0", "tp.birth", "?a")], NAMES, PHRASES)
    with pytest.raises(ValueError, match="tree"):
        template_question("tree", [edge("e0", "tp.birth", "?v"), edge("?v", "tp.country", "?a")],
                          NAMES, PHRASES)
    with pytest.raises(ValueError, match="both edges point into it"):
        template_question("single", [edge("e0", "ta.acted", "?c"), edge("?a", "tf.starring", "?c")],
                          NAMES, PHRASES, cvt_nodes={"?c"})


# Issue 19, item 8: one natural English question, a readable noun for what is asked and
# for a path's intermediate, no id ever. Real Freebase ids (their types give the nouns)
# with hand phrases, so the test does not depend on the shipped phrase table.
FB_PHRASES = {"film.film.release_region": "was released in", "film.film.language": "is in",
              "film.film.nominated_for": "was nominated for",
              "film.film.directed_by": "was directed by",
              "people.person.place_of_birth": "was born in",
              "people.person.nationality": "has the country of citizenship",
              "^people.person.nationality": "is the country of citizenship of",
              "location.country.adjoins": "shares a border with",
              "influence.influence_node.influencer": "has the influencer",
              "influence.influence_node.influenced": "has the influenced person"}
FB_NAMES = {"es": "Spain", "en": "English", "bafta": "BAFTA Award for Best Actor in a "
            "Supporting Role", "den": "Denver", "e0": "Douglas Adams"}


def test_template_tree_is_one_question_with_a_noun() -> None:
    """Was: "Which entity has film release region Spain and is in English Language, the
    one that …": the noun from the relations, three constraints coordinated."""
    tree = [edge("?a", "film.film.release_region", "es"), edge("?a", "film.film.language", "en"),
            edge("?a", "film.film.nominated_for", "bafta")]
    assert template_question("tree", tree, FB_NAMES, FB_PHRASES) == \
        "Which film was released in Spain, is in English and was nominated for the BAFTA " \
        "Award for Best Actor in a Supporting Role?"
    # the store's type of the answers wins; a person is asked with "who"
    born = [edge("?a", "people.person.place_of_birth", "den"),
            edge("?a", "film.film.directed_by", "e0")]
    assert template_question("tree", born, FB_NAMES, FB_PHRASES,
                             nouns={"?a": "person"}).startswith("Who was born in Denver and ")


def test_template_path_names_the_intermediate() -> None:
    """Was: "What was directed by the one that was born in Denver?", "What shares a
    border with the one that is the country of citizenship of …"."""
    directed = [edge("?v", "people.person.place_of_birth", "den"),
                edge("?a", "film.film.directed_by", "?v")]
    assert template_question("path", directed, FB_NAMES, FB_PHRASES) == \
        "Which film was directed by the person who was born in Denver?"
    border = [edge("e0", "people.person.nationality", "?v"),
              edge("?a", "location.country.adjoins", "?v")]
    assert template_question("path", border, FB_NAMES, FB_PHRASES) == \
        "Which country shares a border with the country of citizenship of Douglas Adams?"


def test_template_never_names_a_mediator_type() -> None:
    """Was: "… of the influence node with influencer Douglas Adams?"."""
    influence = [edge("?c", "influence.influence_node.influencer", "e0"),
                 edge("?c", "influence.influence_node.influenced", "?a")]
    text = template_question("single", influence, FB_NAMES, FB_PHRASES, cvt_nodes={"?c"})
    assert "node" not in text and text.endswith("with influencer Douglas Adams?"), text


def test_template_refuses_ids() -> None:
    """Was: "What is the P551 of London?" (P551 has had a frame since; an unlabelled id stands in), "What is the birthplace of Q42?"."""
    with pytest.raises(Unphrasable, match="P9551"):
        template_question("single", [edge("Q84", "P9551", "?a")], {"Q84": "London"}, {})
    with pytest.raises(Unphrasable, match="Q42"):
        template_question("single", [edge("Q42", "tp.birth", "?a")], {}, PHRASES)
    with pytest.raises(Unphrasable, match="m.0abc"):
        template_question("single", [edge("e0", "tp.birth", "?a")], {"e0": "m.0abc"}, PHRASES)


def test_sampler_refuses_unreadable_relations(tmp_path: Path) -> None:
    """A relation the store gives no label and whose id has no words: the seed is refused
    with the reason ``unreadable_text`` (the old text was "What is the P9999 of Thing 0?")."""
    things = [Entity(f"t{i}", f"Thing {i}", types=("x.odd",)) for i in range(5)]
    others = [Entity(f"o{i}", f"Other {i}") for i in range(5)]
    with open_store(tmp_path / "store", create=True) as s:
        s.ingest([*things, *others], [Fact(f"t{i}", "P9999", f"o{i}") for i in range(5)])
        sample = sample_seed_questions(s, "x.odd", 2, seed=0, shapes=("single",))
    assert sample.questions == []
    assert set(sample.shapes[0].failures) == {"unreadable_text"}
    assert "unreadable_text" in FAILURE_REASONS


def test_sampled_questions_ask_by_type_and_show_no_id(demo: Store, film_sample: SeedSample,
                                                      people_sample: SeedSample) -> None:
    texts = [q.question for q in (*film_sample.questions, *people_sample.questions)]
    assert not [t for t in texts if re.search(r"\b(?:[PQ]\d+|m\.[0-9a-z_]+)\b", t)]
    assert not [t for t in texts if "the one that is" in t or t.startswith("Which entity")], texts
    assert any(t.startswith("Who ") for t in texts)
    assert any(t.startswith("Which film ") for t in texts)


# -- real Wikidata sample entities ------------------------------------------------------------------

@pytest.mark.external
def test_real_wikidata_humans(tmp_path: Path) -> None:
    if not EXTERNAL:
        pytest.skip("KGBENCH_EXTERNAL_DATA is not set")
    folder = Path(EXTERNAL, "wikidata")
    files = [folder / "wikibase-dump-filter_entities_first50lines.json",
             folder / "qwikidata_wd_Q42.json"]
    if not all(f.exists() for f in files):
        pytest.skip(f"the Wikidata sample entities are not in {folder}")
    with open_store(tmp_path / "store", create=True) as s:
        load_wikidata(s, *files, qualifiers=True)
        sample = sample_seed_questions(s, "Q5", 9, seed=0)
        humans_in_dump = {"Q23", "Q185", "Q255", "Q306", "Q42"}
        report = {r.shape: r for r in sample.shapes}
        assert report["single"].produced == 3
        assert sample.domain_entities == len(humans_in_dump)
        for q in sample.questions:
            check_question(s, q)
            if q.shape == "tree":
                assert answer_values(q) & humans_in_dump
            else:
                assert q.topic_entities[0] in humans_in_dump
        for r in sample.shapes:
            if r.produced < r.requested:
                # most places and works the humans link to are not in the sample
                assert r.shortfall == "domain_exhausted" and r.failures


def test_a_path_through_one_kind_of_n_ary_fact_twice_is_refused() -> None:
    """Issue 19: "The character of the performance that the film … features was
    portrayed in a performance with what actor?" restates one performance."""
    from extension.inputs.seed_walk import _Hop, same_kind_of_fact

    into = _Hop("m.film", "m.char", "film.film.starring", True, via="m.c1",
                exit="film.performance.character")
    back = _Hop("m.char", "m.actor", "film.film_character.portrayed_in_films", True,
                via="m.c2", exit="film.performance.actor")
    onward = _Hop("m.actor", "m.city", "people.person.place_of_birth", True)
    award = _Hop("m.char", "m.award", "award.award_winner.awards_won", True, via="m.w1",
                 exit="award.award_honor.award")
    assert same_kind_of_fact(into, back)
    assert not same_kind_of_fact(into, onward) and not same_kind_of_fact(into, award)


def test_sampled_questions_say_city_not_citytown(people_sample: SeedSample) -> None:
    """Blind reading: "Which citytown contains the institution …?"."""
    from extension.verbalize.english import type_word

    assert type_word("citytown") == "city" and type_word("film") == "film"
    texts = [q.question for q in people_sample.questions]
    assert not any("citytown" in t.lower() for t in texts), texts


def test_template_shows_names_without_the_locale_suffix() -> None:
    """Blind reading: "… is in the genre Comedy-GB …" in a seed question (FB15k-237's
    entity2text.txt suffix)."""
    names = {**NAMES, "e0": "Douglas Adams-GB"}
    assert template_question("single", [edge("e0", "tp.birth", "?a")], names, PHRASES) == \
        "What is the birthplace of Douglas Adams?"


def test_a_tree_constraint_read_only_as_a_copula_from_its_object_is_refused() -> None:
    """"Which actor … and is what Voice Actor is the profession of?" (blind round 24
    rated it 1 of 5): a relation whose phrase from its subject is "is the … of" has no
    clause for the answer as its object; the seed is refused, not asked so."""
    phrases = {**PHRASES, "tp.profession_of": "is the profession of"}
    tree = [edge("?a", "tp.birth", "e1"), edge("e0", "tp.profession_of", "?a")]
    with pytest.raises(Unphrasable, match="reads from its object only"):
        template_question("tree", tree, NAMES, phrases)


def test_a_seed_asks_for_english_text_only(tmp_path: Path) -> None:
    """Wikidata keeps a demonym in every language: "Belize is home to people called
    белизы, بليزيون, … and Belizean" (blind round 25 rated it 2). A seed query asks for
    English text, as WebQSP's ``langMatches(lang(?x), 'en')`` does."""
    countries = [Entity(f"c{i}", f"Country {i}", types=("Q6256",)) for i in range(6)]
    facts = [Fact(f"c{i}", "P1549", Literal(text, lang=lang))
             for i in range(6) for text, lang in ((f"Countrian {i}", "en"), (f"белизы {i}", "ru"),
                                                  (f"beliceño {i}", "es"))]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(countries, facts)
        sample = sample_seed_questions(store, "Q6256", 4, seed=0, shapes=("single",))
    assert sample.questions
    for q in sample.questions:
        assert answer_values(q) == {f"Countrian {q.topic_entities[0][1:]}"}, answer_values(q)


def test_a_path_through_the_one_native_the_store_keeps_is_refused(tmp_path: Path) -> None:
    """Blind round 31 rated "one of the people born in Honolulu" 3 in 21 items: the
    store keeps one native of a city, a reader knows a city has many. A city whose
    natives the store keeps several of is asked about them ("the people born in City
    1"); the city with one is refused with its reason."""
    born, job = "people.person.place_of_birth", "people.person.profession"
    city_type = "location.citytown"
    cities = [Entity(f"m.c{i}", f"City {i}", types=(city_type,)) for i in range(10)]
    cities.append(Entity("m.cin", "Cincinnati", types=(city_type,)))
    people = [Entity(f"m.p{i}", f"Person {i}") for i in range(41)]
    jobs = [Entity(f"m.j{i}", f"Profession {i}") for i in range(41)]
    facts = [Fact(f"m.p{i}", born, f"m.c{i % 10}") for i in range(40)]
    facts += [Fact("m.p40", born, "m.cin")]
    facts += [Fact(f"m.p{i}", job, f"m.j{i}") for i in range(41)]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*cities, *people, *jobs], facts)
        sample = sample_seed_questions(store, city_type, 11, seed=0, shapes=("path",))
    subjects = {s for q in sample.questions for s in q.topic_entities}
    assert "m.cin" not in subjects
    assert len(subjects) == 10, sorted(subjects)
    assert sample.shapes[0].failures.get("description_fits_several", 0) >= 1, \
        sample.shapes[0].failures
    assert all("one of" not in q.question for q in sample.questions)


def test_a_path_through_a_films_release_regions_is_refused(tmp_path: Path) -> None:
    """Blind rounds 38-43 rated "Who went on holiday to the regions where Wreck-It Ralph
    was released?" and "What awarded medals to the regions where Green Lantern was
    released?" 2-3: a film's release regions (a CVT hop) are dozens of countries nobody
    asks about as a group. The films here have no other path: none is drawn."""
    release, region = "film.film.release_date_s", "film.film_regional_release_date.film_release_region"
    language = "location.country.official_language"
    cvt_type, film_type = "film.film_regional_release_date", "film.film"
    films = [Entity(f"m.f{i}", f"Film {i}", types=(film_type,)) for i in range(8)]
    countries = [Entity(f"m.k{i}", f"Country {i}", types=("location.country",)) for i in range(6)]
    languages = [Entity(f"m.l{i}", f"Language {i}") for i in range(6)]
    cvts = [Entity(f"m.r{i}_{j}", None, types=(cvt_type,), is_cvt=True)
            for i in range(8) for j in range(3)]
    facts = [Fact(f"m.f{i}", release, f"m.r{i}_{j}") for i in range(8) for j in range(3)]
    facts += [Fact(f"m.r{i}_{j}", region, f"m.k{(i + j) % 6}") for i in range(8) for j in range(3)]
    facts += [Fact(f"m.k{i}", language, f"m.l{i}") for i in range(6)]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*films, *countries, *languages, *cvts], facts,
                     cvt_types=(cvt_type,))
        sample = sample_seed_questions(store, film_type, 8, seed=0, shapes=("path",))
    assert all("release" not in q.question for q in sample.questions), \
        [q.question for q in sample.questions]
    assert sample.shapes[0].failures.get("vague_description", 0) >= 1, sample.shapes[0].failures


def test_a_path_from_a_class_of_many_is_refused(tmp_path: Path) -> None:
    """Blind round 48 rated "Which awards were the horror works nominated for?" and
    "What were the mystery films distributed by?" 3 from both readers: a description
    that links its subject to more entities than a question may have answers names a
    class, not a few. A company of twelve films (more than ``max_answers``) starts no
    path; one of three does. A genre's films start none however few (round 51: "Which
    languages are the spy films in?", five films, 3 from both readers)."""
    company_type, film_type, genre_type = "film.production_company", "film.film", "film.film_genre"
    companies = [Entity("m.big", "Big Pictures", types=(company_type,)),
                 Entity("m.small", "Small Pictures", types=(company_type,))]
    genres = [Entity("m.spy", "Spy", types=(genre_type,))]
    films = [Entity(f"m.f{i}", f"Film {i}", types=(film_type,)) for i in range(15)]
    people = [Entity(f"m.d{i}", f"Director {i}", types=("people.person",)) for i in range(15)]
    produced = "film.production_company.films"
    facts = [Fact("m.big" if i < 12 else "m.small", produced, f"m.f{i}") for i in range(15)]
    facts += [Fact(f"m.f{i}", "film.film.genre", "m.spy") for i in range(12, 15)]
    # two directors made the twelve: the answers would be few, the films still a class
    facts += [Fact(f"m.f{i}", "film.film.directed_by", f"m.d{i % 2 if i < 12 else i}")
              for i in range(15)]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*companies, *genres, *films, *people], facts)
        sample = sample_seed_questions(store, company_type, 2, seed=0, shapes=("path",),
                                       max_answers=5)
        by_genre = sample_seed_questions(store, genre_type, 1, seed=0, shapes=("path",),
                                         max_answers=5)
    subjects = {s for q in sample.questions for s in q.topic_entities}
    assert subjects == {"m.small"}, [q.question for q in sample.questions]
    assert sample.shapes[0].failures.get("broad_description", 0) >= 1, \
        sample.shapes[0].failures
    assert not by_genre.questions, [q.question for q in by_genre.questions]
    assert by_genre.shapes[0].failures.get("broad_description", 0) >= 1, \
        by_genre.shapes[0].failures


def test_a_path_through_the_place_where_a_city_lies_is_refused(tmp_path: Path) -> None:
    """"What is the time zone of the place where Pueblo is located?" (blind rounds
    40-51: 3 in 14 of 20 ratings): with no type to say which place, no path is drawn
    through where a city lies."""
    city_type = "location.citytown"
    cities = [Entity(f"m.c{i}", f"City {i}", types=(city_type,)) for i in range(6)]
    states = [Entity(f"m.s{i}", f"State {i}") for i in range(3)]
    zones = [Entity(f"m.z{i}", f"Zone {i}") for i in range(3)]
    facts = [Fact(f"m.c{i}", "location.location.containedby", f"m.s{i % 3}") for i in range(6)]
    facts += [Fact(f"m.s{i}", "location.location.time_zones", f"m.z{i}") for i in range(3)]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest([*cities, *states, *zones], facts)
        sample = sample_seed_questions(store, city_type, 4, seed=0, shapes=("path",))
    assert all("the place where" not in q.question for q in sample.questions), \
        [q.question for q in sample.questions]
    assert sample.shapes[0].failures.get("unreadable_text", 0) >= 1, sample.shapes[0].failures
