"""CONNER input records (reading, refusals naming file:line), the sentence splitter, the
helpfulness baselines and the coherent label, and evidence from a small KG store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgstore import Entity, Fact, Literal, Predicate, Store, open_store
from scoring.conner.evidence import KgEvidence, query_entities, query_words
from scoring.conner.records import ConnerRecord, read_records, split_sentences
from scoring.conner.run import coherent_index, helpfulness_baselines
from scoring.errors import ScoringError


def write(path: Path, *lines: object) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines), encoding="utf-8")
    return path


def test_read_records(tmp_path: Path) -> None:
    path = write(tmp_path / "sys.jsonl",
                 {"id": "a", "query": "q1", "knowledge": "K one.", "answer": "x",
                  "gold_answer": "y", "evidence": ["e1", " ", "e2"], "extra": 1},
                 "",
                 {"id": 7, "query": "q2", "knowledge": "K two.", "answer": None})
    assert read_records(path) == [
        ConnerRecord("a", "q1", "K one.", answer="x", gold_answer="y", evidence=("e1", "e2")),
        ConnerRecord("7", "q2", "K two.")]


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", r"sys.jsonl:2: not JSON"),
    ("[1, 2]", r"sys.jsonl:2: a JSON list, not an object"),
    ({"query": "q", "knowledge": "k"}, r"sys.jsonl:2: \"id\" missing"),
    ({"id": "b", "knowledge": "k"}, r"sys.jsonl:2: \"query\" missing"),
    ({"id": "b", "query": "q", "knowledge": "  "}, r"sys.jsonl:2: \"knowledge\" is empty"),
    ({"id": "b", "query": "q", "knowledge": "k", "answer": 3},
     r"sys.jsonl:2: \"answer\" a int, not a string"),
    ({"id": "b", "query": "q", "knowledge": "k", "evidence": "one text"},
     r"sys.jsonl:2: \"evidence\" must be a list of strings"),
    ({"id": "a", "query": "q", "knowledge": "k"}, r"sys.jsonl:2: id 'a' already used on line 1"),
])
def test_bad_lines_name_file_and_line(tmp_path: Path, line: object, message: str) -> None:
    path = write(tmp_path / "sys.jsonl", {"id": "a", "query": "q", "knowledge": "k"}, line)
    with pytest.raises(ScoringError, match=message) as caught:
        read_records(path)
    assert caught.value.hint


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(ScoringError, match="no such file"):
        read_records(tmp_path / "none.jsonl")
    with pytest.raises(ScoringError, match="no records"):
        read_records(write(tmp_path / "empty.jsonl", ""))


@pytest.mark.parametrize(("text", "sentences"), [
    ("The Hobbit is a novel by J. R. R. Tolkien. It was published in 1937.",
     ["The Hobbit is a novel by J. R. R. Tolkien.", "It was published in 1937."]),
    ("Dr. Smith moved to the U.S. in 1990. Pi is 3.14! Really? Yes.",
     ["Dr. Smith moved to the U.S. in 1990.", "Pi is 3.14!", "Really?", "Yes."]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("Approx. three came, e.g. Ann. The end.", ["Approx. three came, e.g. Ann.", "The end."]),
    ("It costs $2.50 per kg.  Prices rose in Jan. 2020 at Acme Inc. Today too.",
     ["It costs $2.50 per kg.", "Prices rose in Jan. 2020 at Acme Inc. Today too."]),
    ("One.\n\nTwo without an end\nthree", ["One.", "Two without an end three"]),
    ("No end mark", ["No end mark"]),
    ("  ", []),
])
def test_split_sentences(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_helpfulness_baselines_are_seeded_other_records() -> None:
    records = [ConnerRecord(f"r{i}", "q", f"knowledge {i}", answer="a") for i in range(8)]
    records.append(ConnerRecord("same", "q", "knowledge 0", answer="a"))   # r0's knowledge
    records.append(ConnerRecord("no-answer", "q", "knowledge 9"))
    drawn = helpfulness_baselines(records, 3, seed=1)
    for j, picks in enumerate(drawn[:8]):
        assert len(picks) == 3 == len(set(picks)) and j not in picks
    assert 8 not in drawn[0] and 0 not in drawn[8]      # the same knowledge is no baseline
    assert drawn[9] == ()
    assert helpfulness_baselines(records, 3, seed=1) == drawn
    assert helpfulness_baselines(records, 3, seed=2) != drawn
    # A record's draw depends on its id and the seed, not on the other records' order.
    reordered = helpfulness_baselines(records[::-1], 3, seed=1)
    ids = [r.id for r in records]
    back = [r.id for r in records[::-1]]
    assert {ids[i] for i in drawn[3]} == {back[i] for i in reordered[len(records) - 4]}
    assert helpfulness_baselines(records[:1], 3, seed=0) == [()]


def test_coherent_label() -> None:
    assert coherent_index(("incoherent", "Coherent"), None) == 1
    assert coherent_index(("LABEL_0", "LABEL_1"), None) == 1
    assert coherent_index(("a", "b", "c"), "C") == 2
    assert coherent_index(("a", "b", "c"), "0") == 0
    with pytest.raises(ScoringError, match="no label named 'coherent'"):
        coherent_index(("a", "b", "c"), None)
    with pytest.raises(ScoringError, match="0=a, 1=b"):
        coherent_index(("a", "b"), "z")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """People and a film; Ann's marriage is a CVT; "Who" and "Film" are entities too."""
    s = open_store(str(tmp_path_factory.mktemp("conner-kg") / "kg"), create=True)
    s.ingest(
        [Entity("m.ann", "Ann Lee", aliases=("Annie Lee",)), Entity("m.bob", "Bob Lee"),
         Entity("m.road", "The Long Road"), Entity("m.paris", "Paris"),
         Entity("m.paris2", "Paris"), Entity("m.mar", None, types=("people.marriage",)),
         Entity("m.who", "Who"), Entity("m.film", "Film"), Entity("m.anon")],
        [Fact("m.road", "film.film.directed_by", "m.ann"),
         Fact("m.road", "film.film.initial_release_date", Literal("1999", "xsd:gYear")),
         Fact("m.road", "type.object.name", Literal("The Long Road")),
         Fact("m.road", "film.film.country", "m.anon"),
         Fact("m.ann", "people.person.spouse_s", "m.mar"),
         Fact("m.mar", "people.marriage.spouse", "m.ann"),
         Fact("m.mar", "people.marriage.spouse", "m.bob"),
         Fact("m.mar", "people.marriage.from", Literal("1990", "xsd:gYear")),
         Fact("m.ann", "people.person.place_of_birth", "m.paris")],
        predicates=[Predicate("film.film.directed_by", "directed by")],
        cvt_types=("people.marriage",))
    yield s
    s.close()


def test_query_entities_longest_names_first(store: Store) -> None:
    assert query_words("Who's Jay-Z? U.S. films, 1999!") == ["Who's", "Jay-Z", "U.S.", "films",
                                                             "1999"]
    # "The Long Road" beats "Long"; "Who" and "film" are common words, never names.
    assert [e.id for e in query_entities(store, "Who directed the film The Long Road?")] \
        == ["m.road"]
    assert [e.id for e in query_entities(store, "who married annie lee")] == ["m.ann"]
    # A shared name gives every entity that has it, by id; the order is the query's.
    assert [e.id for e in query_entities(store, "Was Ann Lee born in Paris.")] \
        == ["m.ann", "m.paris", "m.paris2"]
    assert [e.id for e in query_entities(store, "Ann Lee in Paris", max_entities=2)] \
        == ["m.ann", "m.paris"]
    assert query_entities(store, "nothing known here") == []


def test_kg_evidence_sentences(store: Store) -> None:
    evidence = KgEvidence(store)
    assert evidence.for_query("Who directed The Long Road?") == (
        "The Long Road was directed by Ann Lee.", "The Long Road was released in 1999.")
    ann = evidence.for_query("Who is Ann Lee married to?")
    # The CVT is one sentence with the spouse and the date, never the CVT's id.
    assert ann == ("Ann Lee was born in Paris.",
                   "Ann Lee had a marriage with start date 1990 and spouse Bob Lee.")
    assert KgEvidence(store, facts_per_entity=1).for_query("Ann Lee") == ann[:1]
    assert evidence.for_query("nothing known here") == ()
