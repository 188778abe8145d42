"""The shipped JSON Schema of an entry line: it describes exactly what
KalmaEntry.to_json writes (generated and imported entries validate) and refuses a
broken line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma.entry import EntityRef, KalmaEntry, Knowledge
from kalma.schema import entry_schema, iter_entry_violations


def _entry() -> KalmaEntry:
    link = Knowledge("m.01", "Uma Thurman", "spouse", "Ethan Hawke", "m.02",
                     "people.person.spouse_s/people.marriage.spouse", "m.0cvt")
    born = Knowledge("m.01", "Uma Thurman", "place of birth", "Boston", "m.03",
                     "people.person.place_of_birth")
    full = KalmaEntry(id="kalma-00000", question_general="Who are Uma Thurman and Ethan Hawke?",
                      question_specific="Whom did Uma Thurman marry, and where was she born?",
                      paragraph="Uma Thurman's spouse is Ethan Hawke.",
                      entities=(EntityRef("m.01", "Uma Thurman"), EntityRef("m.02", "Ethan Hawke")),
                      minimum_knowledge_set=(link, born), knowledge_pool=(link, born), seed=1,
                      generation={"method": "template", "alpha": 0.5, "coherence": "none",
                                  "iterations": [{"added": born.triple()}]})
    return full


def _violations(tmp_path: Path, docs: list[object]) -> list[str]:
    path = tmp_path / "entries.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), "utf-8")
    return [str(v) for v in iter_entry_violations(path)]


def test_entries_validate(tmp_path: Path) -> None:
    full = _entry()
    variant = full.with_absent(full.minimum_knowledge_set[1:])
    imported = KalmaEntry(id="biokalma-0000", question_general="Who was Ada?",
                          question_specific="What did Ada write?", paragraph="",
                          entities=(EntityRef("Q1", "Ada"),), minimum_knowledge_set=(),
                          knowledge_pool=(Knowledge("Q1", "Ada", "occupation", "writer"),),
                          seed=None, generation={"source": "biokalma", "lost": ["paragraph"]})
    assert _violations(tmp_path, [e.to_json() for e in (full, variant, imported)]) == []
    # The schema names every field the entry writes, and requires them all.
    assert set(entry_schema()["required"]) == set(full.to_json()) == set(entry_schema()["properties"])


@pytest.mark.parametrize(("break_it", "where"), [
    (lambda d: d.pop("question_specific"), "<root>"),
    (lambda d: d.update(incompetence=-1), "incompetence"),
    (lambda d: d.update(format="kgbench-kalma-entry/0"), "format"),
    (lambda d: d["minimum_knowledge_set"][0].update(triple=["m.01", "spouse"]),
     "minimum_knowledge_set/0/triple"),
    (lambda d: d["knowledge_pool"][1]["object"].update(name=""), "knowledge_pool/1/object/name"),
    (lambda d: d["entities"].append({"id": "m.09"}), "entities/2"),
    (lambda d: d.update(seed="1"), "seed"),
    (lambda d: d.update(extra=True), "<root>"),
])
def test_a_broken_entry_does_not_validate(tmp_path: Path, break_it, where: str) -> None:  # type: ignore[no-untyped-def]
    doc = _entry().to_json()
    break_it(doc)
    found = _violations(tmp_path, [_entry().to_json(), doc])
    assert found and all(v.startswith("line 2: ") for v in found)
    assert any(v.startswith(f"line 2: {where}:") for v in found), found


def test_a_line_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "entries.jsonl"
    path.write_text("{not json\n", "utf-8")
    (violation,) = iter_entry_violations(path)
    assert violation.line == 1 and "not JSON" in violation.message
