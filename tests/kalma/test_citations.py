"""Reading cited answers: BioKaLMA's citation shapes, [NA], sentences, hostile text, and
answers files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kalma.citations import Citation, parse_output, read_answers, split_sentences
from kalma.errors import KalmaError
from tests.external import external_path


def cites(text: str) -> list[tuple[str, str, str]]:
    sentences, _ = parse_output(text)
    return [(c.subject_id, c.relation, c.value) for s in sentences for c in s.citations]


def test_one_citation_and_its_sentence() -> None:
    sentences, unparsed = parse_output("She was born in Rome [Q212657, place of birth: Rome].")
    assert unparsed == 0
    assert [s.text for s in sentences] == ["She was born in Rome."]
    assert sentences[0].citations == (Citation("Q212657", "place of birth", "Rome"),)
    assert not sentences[0].na


def test_several_relations_in_one_bracket_are_several_citations() -> None:
    assert cites("Painter [Q367360, name: Orazio Gentileschi, occupation: painter].") == [
        ("Q367360", "name", "Orazio Gentileschi"), ("Q367360", "occupation", "painter")]


def test_a_bare_name_part_cites_nothing() -> None:
    assert cites("Film [Q212657, Artemisia Gentileschi, depicted by: Artemisia].") == [
        ("Q212657", "depicted by", "Artemisia")]


def test_several_brackets_in_a_sentence_and_brackets_after_its_end() -> None:
    text = ("Child of Orazio [Q212657, father: Orazio Gentileschi] [Q367360, occupation: "
            "painter]. [Q367360, movement: mannerism] Next sentence here.")
    sentences, unparsed = parse_output(text)
    assert unparsed == 0
    assert [s.text for s in sentences] == ["Child of Orazio.", "Next sentence here."]
    assert [c.relation for c in sentences[0].citations] == ["father", "occupation", "movement"]
    assert sentences[1].citations == ()


def test_values_keep_their_commas_and_colons() -> None:
    text = ("X [Q1, described by source: Great Soviet Encyclopedia (1969–1978), time: 12:30, "
            "place: Washington, D.C., topic's main category: Category:Stephen Crane].")
    assert cites(text) == [("Q1", "described by source", "Great Soviet Encyclopedia (1969–1978)"),
                           ("Q1", "time", "12:30"), ("Q1", "place", "Washington, D.C."),
                           ("Q1", "topic's main category", "Category:Stephen Crane")]


def test_na_anywhere_in_a_sentence_marks_it() -> None:
    sentences, unparsed = parse_output(
        "Born on July 8, 1596 [NA] in Rome [Q212657, place of birth: Rome]. "
        "A Baroque painter [NA]. [NA] Mid text stays plain.")
    assert unparsed == 0
    assert [s.na for s in sentences] == [True, True, False]
    assert sentences[0].text == "Born on July 8, 1596 in Rome."
    assert len(sentences[0].citations) == 1


def test_sentence_ends_skip_initials_abbreviations_and_lower_case() -> None:
    assert split_sentences("J. R. R. Tolkien met Dr. Smith in St. Louis. then e.g. this. "
                           "Last one!") == [
        "J. R. R. Tolkien met Dr. Smith in St. Louis. then e.g. this.", "Last one!"]


@pytest.mark.parametrize(("text", "unparsed", "kept"), [
    ("A [Q1, x: [y]] b.", 1, []),                           # nested brackets: one group
    ("A [Q1, place of birth: Rome", 1, []),                 # never closed
    ("A [] b.", 1, []),                                     # empty
    ("A [NA b.", 1, []),                                    # [NA unclosed
    ("A [na] b.", 1, []),                                   # not the [NA] token
    ("A [Rome is nice] b.", 1, []),                         # first part is not an id
    ("A [Q1] b.", 1, []),                                   # an id and no relation
    ("A [Q1, Artemisia] b.", 1, []),                        # a name and no relation
    ("A [Q1, place of birth: , father: Orazio] b.", 1, [("Q1", "father", "Orazio")]),
    ("A [Q1, : Rome] b.", 1, []),                           # no relation
    ("A ]] [[ [Q1, a: b] ] b.", 2, []),     # an unclosed [, then a nested group
    ("A [Q1, a: b [Q2, c: d] e.", 1, [("Q2", "c", "d")]),   # unclosed, the rest read on
])
def test_hostile_brackets_are_counted_never_raised(
        text: str, unparsed: int, kept: list[tuple[str, str, str]]) -> None:
    sentences, counted = parse_output(text)
    assert counted == unparsed
    assert [(c.subject_id, c.relation, c.value) for s in sentences for c in s.citations] == kept
    assert not any(s.na for s in sentences)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"[]NA,: Q1.x!?\n", "[NA]", "[Q5, r: v]", ", r: "]),
                max_size=40).map("".join) | st.text(max_size=60))
def test_any_text_parses_without_raising(text: str) -> None:
    sentences, unparsed = parse_output(text)
    assert unparsed >= 0
    assert all(isinstance(s.text, str) for s in sentences)


# -- answers files -----------------------------------------------------------------------


def write_lines(path: Path, *lines: object) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines), encoding="utf-8")
    return path


def test_read_answers_in_both_forms(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "a.jsonl",
        {"id": "e1", "output": "Born in Rome [Q1, place of birth: Rome]. Painter [NA]."},
        "",
        {"id": "e2", "sentences": [
            {"text": "Born in Rome.", "citations": [["Q1", "place of birth", "Rome"],
                                                    ["Q1", "", "x"], ["Q1", "a"]]},
            {"text": "Painter.", "na": True}]})
    answers = read_answers(path)
    assert set(answers) == {"e1", "e2"}
    one, two = answers["e1"], answers["e2"]
    assert one.line == 1 and two.line == 3
    assert one.citations() == two.citations() == [Citation("Q1", "place of birth", "Rome")]
    assert (one.unparsed, two.unparsed) == (0, 2)
    assert [s.na for s in one.sentences] == [s.na for s in two.sentences] == [False, True]
    assert one.text() == two.text() == "Born in Rome. Painter."


@pytest.mark.parametrize(("line", "says"), [
    ("{not json", "not JSON"),
    ('["e1", "text"]', "a JSON list where an object belongs"),
    ('{"output": "x"}', 'non-empty string "id"'),
    ('{"id": "e1"}', 'exactly one of "output" and "sentences"'),
    ('{"id": "e1", "output": 3}', '"output" must be a string'),
    ('{"id": "e1", "sentences": [{"text": "x", "citations": [3]}]}', "list of strings"),
    ('{"id": "e1", "sentences": [{"text": "x", "na": "yes"}]}', '"na" must be true or false'),
])
def test_a_bad_answer_line_names_file_and_line(tmp_path: Path, line: str, says: str) -> None:
    path = write_lines(tmp_path / "a.jsonl", {"id": "e0", "output": "fine."}, line)
    with pytest.raises(KalmaError, match=rf"a\.jsonl:2\b.*{says}") as caught:
        read_answers(path)
    assert caught.value.hint


def test_a_repeated_answer_id_is_refused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "a.jsonl", {"id": "e1", "output": "x."},
                       {"id": "e1", "output": "y."})
    with pytest.raises(KalmaError, match=r"a\.jsonl:2: answer id 'e1' repeats line 1"):
        read_answers(path)


@pytest.mark.parametrize(("content", "says"), [
    (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "not UTF-8"),
    (b'{"id": "e1", "output": "' + b"x" * (1 << 20) + b'"}', "longer than"),
])
def test_an_answers_file_that_is_not_jsonl_is_one_clear_error(tmp_path: Path, content: bytes,
                                                              says: str) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(content)
    with pytest.raises(KalmaError, match=rf"a\.jsonl:1: .*{says}"):
        read_answers(path)


def test_biokalma_demonstration_answer_reads_as_the_paper_writes_it() -> None:
    """BioKaLMA's own demonstration answer (prompt_answer_question_complex_prompt.json):
    every citation read, [NA] on the last sentence."""
    question, answer, _graph = json.loads(external_path(
        "attribution", "biokalma", "prompt_answer_question_complex_prompt.json").read_text())
    sentences, unparsed = parse_output(answer)
    assert unparsed == 0
    assert len(sentences) == 6
    assert sum(len(s.citations) for s in sentences) == 10
    assert [s.na for s in sentences] == [False] * 5 + [True]
    assert Citation("Q212657", "depicted by", "Artemisia") in sentences[1].citations
