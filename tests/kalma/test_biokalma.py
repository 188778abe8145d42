"""BioKaLMA's own files: the real dataset read (1,085 entries with their knowledge) and
written back byte for byte, our entries exported to its layout (and what is lost), and
hostile files refused in one line naming the file and record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma.biokalma import (
    GENERAL_FILE,
    SPECIFIC_FILE,
    biokalma_files,
    read_biokalma,
    write_biokalma,
)
from kalma.entry import EntityRef, KalmaEntry, Knowledge, read_entries
from kalma.errors import KalmaError
from tests.external import external_path


def test_real_dataset_reads_and_round_trips(tmp_path: Path) -> None:
    folder = external_path("attribution", "biokalma")
    general, specific = biokalma_files(folder)
    entries = read_biokalma(general, specific)
    assert len(entries) == 1085
    assert sum(len(e.entities) for e in entries) == 1247
    assert sum(len(e.knowledge_pool) for e in entries) == 21304   # non-empty values
    raw_general = json.loads(general.read_text("utf-8"))
    raw_specific = json.loads(specific.read_text("utf-8"))
    first = entries[0]
    assert first.id == "biokalma-0000" and first.entities == (EntityRef("Q206534", "Stephen Crane"),)
    assert first.question_general == raw_general[0][0] and first.question_specific == raw_specific[0][0]
    assert Knowledge("Q206534", "Stephen Crane", "place of birth", "Newark") in first.knowledge_pool
    assert ["Q206534", "date_of_birth", "1871-11-01"] in [k.triple() for k in first.knowledge_pool]
    prefixed = next(i for i, r in enumerate(raw_general) if r[0].startswith("question: "))
    assert entries[prefixed].question_general == raw_general[prefixed][0].removeprefix("question: ")
    assert all(not e.minimum_knowledge_set and e.generation["source"] == "biokalma"
               and "lost" in e.generation for e in entries)
    # Through our own entries file, back to BioKaLMA's layout: the same bytes.
    (tmp_path / "entries.jsonl").write_text("".join(e.to_line() for e in entries), "utf-8")
    again = list(read_entries(tmp_path / "entries.jsonl"))
    written = write_biokalma(again, tmp_path / "out")
    assert written.entries == 1085 and written.lost == {}
    assert written.general.read_bytes() == general.read_bytes()
    assert written.specific.read_bytes() == specific.read_bytes()
    reread = read_biokalma(written.general, written.specific)
    assert [(e.question_general, e.question_specific) for e in reread] == \
        [(e.question_general, e.question_specific) for e in entries]
    assert [r[1] for r in json.loads(written.general.read_text("utf-8"))] == [r[1] for r in raw_general]


def _entry() -> KalmaEntry:
    k = [Knowledge("Q1", "Ada", "occupation", "writer", "Q36180", "P106"),
         Knowledge("Q1", "Ada", "occupation", "poet", "Q49757", "P106"),
         Knowledge("Q1", "Ada", "date_of_birth", "1815-12-10"),
         Knowledge("Q2", "Bob", "spouse", "Ada", "Q1", "P26"),
         Knowledge("Q9", "Cat", "sibling", "Bob", "Q2", "P3373")]
    return KalmaEntry(id="kalma-00000", question_general="Who were Ada and Bob?",
                      question_specific="What was Ada's occupation?", paragraph="Ada was a writer.",
                      entities=(EntityRef("Q1", "Ada"), EntityRef("Q2", "Bob")),
                      minimum_knowledge_set=(k[0],), knowledge_pool=tuple(k), seed=3)


def test_export_layout_and_losses(tmp_path: Path) -> None:
    written = write_biokalma([_entry()], tmp_path)
    assert (written.general.name, written.specific.name) == (GENERAL_FILE, SPECIFIC_FILE)
    (general,) = json.loads(written.general.read_text("utf-8"))
    (specific,) = json.loads(written.specific.read_text("utf-8"))
    assert general[0] == "Who were Ada and Bob?" and specific[0] == "What was Ada's occupation?"
    ada, bob = general[1]
    # BioKaLMA's key order: relations, name, the two dates (empty when unknown), qid.
    assert list(ada.items()) == [("occupation", "writer"), ("name", "Ada"),
                                 ("date_of_birth", "1815-12-10"), ("date_of_death", ""),
                                 ("qid", "Q1")]
    assert bob == {"spouse": "Ada", "name": "Bob", "date_of_birth": "", "date_of_death": "",
                   "qid": "Q2"}
    assert specific[1] == general[1]
    lost = dict(written.lost)
    assert lost.pop("values beyond the first of a relation (one value per key)") == 1
    assert lost.pop("object ids (values are names)") == 2
    assert lost.pop("knowledge about other subjects than the entry's entities") == 1
    assert lost == {"minimum knowledge sets": 1, "paragraphs": 1}
    back = read_biokalma(written.general, written.specific)[0]
    assert back.question_general == _entry().question_general
    assert [k.triple() for k in back.knowledge_pool] == [
        ["Q1", "occupation", "writer"], ["Q1", "date_of_birth", "1815-12-10"], ["Q2", "spouse", "Ada"]]


GOOD = [["question: Who was Ada?", [{"occupation": "writer", "name": "Ada", "qid": "Q1"}]]]


@pytest.mark.parametrize(("general", "specific", "message"), [
    ("[[\"q\", [", GOOD, r"general.json: not JSON \(.*line 1"),
    ({"q": 1}, GOOD, "general.json: expected a JSON list"),
    ([["Who?"]], GOOD, r"general.json record 1: expected \[question, \[entity dict"),
    ([["", []]], GOOD, "general.json record 1: the question must be a non-empty string"),
    ([["Who?", ["Ada"]]], GOOD, "general.json record 1 entity 1: expected an object"),
    ([["Who?", [{"qid": "Q1", "born": 1815}]]], GOOD, "record 1 entity 1: the value of 'born'"),
    ([["Who?", [{"name": "Ada"}]]], GOOD, "record 1 entity 1: no 'qid'"),
    (GOOD * 2, GOOD, "general.json holds 2 records but .*specific.json holds 1"),
    (GOOD, [["Which?", [{"name": "Ada", "qid": "Q2"}]]],
     "specific.json record 1: its entity dicts differ from those of .*general.json record 1"),
])
def test_hostile_files(tmp_path: Path, general: object, specific: object, message: str) -> None:
    paths = []
    for name, doc in (("general.json", general), ("specific.json", specific)):
        path = tmp_path / name
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), "utf-8")
        paths.append(path)
    with pytest.raises(KalmaError, match=message) as info:
        read_biokalma(*paths)
    assert "\n" not in str(info.value)


def test_the_well_formed_record_of_the_hostile_cases_reads(tmp_path: Path) -> None:
    paths = [tmp_path / "general.json", tmp_path / "specific.json"]
    for path in paths:
        path.write_text(json.dumps(GOOD), "utf-8")
    (entry,) = read_biokalma(*paths)
    assert entry.question_general == "Who was Ada?"
    assert entry.generation["general_prefix"] == "question: "
