"""The KaLMA entry's JSON layout: written, read back, and refused with the place at fault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma.entry import (
    EntityRef,
    KalmaEntry,
    Knowledge,
    entries_file,
    knowledge_key,
    normalized_text,
    read_entries,
)
from kalma.errors import KalmaError

BIRTH = Knowledge("Q212657", "Artemisia Gentileschi", "place of birth", "Rome", "Q220", "P19")
FATHER = Knowledge("Q212657", "Artemisia Gentileschi", "father", "Orazio Gentileschi", "Q367360", "P22")
WORK = Knowledge("Q367360", "Orazio Gentileschi", "work location", "Rome", "Q220", "P937")


def entry(**changes: object) -> KalmaEntry:
    base = KalmaEntry(id="kalma-00001", question_general="Who was Artemisia Gentileschi?",
                      question_specific="Where was Artemisia Gentileschi born, and who was her father?",
                      paragraph="Artemisia Gentileschi was born in Rome.",
                      entities=(EntityRef("Q212657", "Artemisia Gentileschi"),),
                      minimum_knowledge_set=(BIRTH, FATHER), knowledge_pool=(BIRTH, FATHER, WORK),
                      seed=7)
    return KalmaEntry(**{**{f: getattr(base, f) for f in base.__dataclass_fields__}, **changes})  # type: ignore[arg-type]


def test_an_entry_survives_its_json_line() -> None:
    e = entry(generation={"method": "template", "alpha": 0.5})
    assert KalmaEntry.from_json(json.loads(e.to_line()), "x") == e
    assert e.to_json()["minimum_knowledge_set"][0]["triple"] == ["Q212657", "place of birth", "Rome"]


def test_the_incompetence_variant_moves_knowledge_from_the_pool_to_absent() -> None:
    v = entry().with_absent([FATHER])
    assert v.incompetence == 1 and v.absent_knowledge == (FATHER,)
    assert FATHER not in v.knowledge_pool and BIRTH in v.knowledge_pool
    assert v.minimum_knowledge_set == (BIRTH, FATHER)  # recall is still over the whole set (§4.4)


def test_citation_keys_forgive_case_spacing_and_a_final_stop_but_not_the_id() -> None:
    assert normalized_text("  Place  of Birth ") == "place of birth"
    assert knowledge_key("Q212657", "Place of birth", "Rome.") == BIRTH.key()
    assert knowledge_key("q212657", "place of birth", "Rome") != BIRTH.key()
    assert BIRTH.citation_text() == "[Q212657, place of birth: Rome]"


def test_a_bare_triple_reads_as_knowledge() -> None:
    k = Knowledge.from_json(["Q85907", "occupation", "biologist"], "x")
    assert k.triple() == ["Q85907", "occupation", "biologist"] and k.object_id is None


@pytest.mark.parametrize(("doc", "says"), [
    ([], "expected a JSON object"),
    ({"id": "a", "question_general": "q"}, "'question_specific'"),
    ({"id": "a", "question_general": "q", "question_specific": "q", "seed": "7"}, "'seed'"),
    ({"id": "a", "question_general": "q", "question_specific": "q",
      "minimum_knowledge_set": [["Q1", "p"]]}, "minimum_knowledge_set[0]: a triple must be 3"),
    ({"id": "a", "question_general": "q", "question_specific": "q", "format": "other/9"}, "entry format"),
    ({"id": "a", "question_general": "q", "question_specific": "q", "incompetence": -1}, "incompetence"),
])
def test_a_bad_entry_is_refused_naming_the_field(doc: object, says: str) -> None:
    with pytest.raises(KalmaError, match=None) as info:
        KalmaEntry.from_json(doc, "entries.jsonl:3")
    assert str(info.value).startswith("entries.jsonl:3") and says in str(info.value)


def test_reading_a_file_names_the_bad_line_and_refuses_a_repeated_id(tmp_path: Path) -> None:
    path = tmp_path / "entries.jsonl"
    path.write_text(entry().to_line() + "\n" + "{not json\n", encoding="utf-8")
    with pytest.raises(KalmaError, match=r"entries.jsonl:3: not JSON"):
        list(read_entries(path))
    path.write_text(entry().to_line() * 2, encoding="utf-8")
    with pytest.raises(KalmaError, match=r"entries.jsonl:2: entry id 'kalma-00001' repeats"):
        list(read_entries(path))
    path.write_text(entry().to_line(), encoding="utf-8")
    assert [e.id for e in read_entries(tmp_path)] == ["kalma-00001"]  # the directory holding it
    assert entries_file(tmp_path) == path
    with pytest.raises(KalmaError, match="no entries.jsonl"):
        entries_file(tmp_path / "sub" if (tmp_path / "sub").mkdir() is None else tmp_path)
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(KalmaError, match="not UTF-8"):
        list(read_entries(path))
