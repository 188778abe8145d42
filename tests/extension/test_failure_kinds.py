"""Failure reasons grouped into kinds (extension.outputs.failure_kinds)."""

from __future__ import annotations

from extension.outputs.failure_kinds import (
    describe_kind,
    failure_kind,
    group_failures,
    mentioned_ids,
    what_to_do,
)


def test_kinds_of_reasons() -> None:
    assert failure_kind("unknown_predicate: predicates not in the store: a.b.c, d.e") == \
        "unknown_predicate"
    assert failure_kind("no_match: no answers") == "no_match"
    assert failure_kind("unsupported: literal_comparison") == "unsupported: literal_comparison"
    assert failure_kind("no non-answer entity shares a type with m.0abc") == \
        failure_kind("no non-answer entity shares a type with m.06cx9") == \
        "no non-answer entity shares a type with …"
    assert failure_kind("answer Q42 is not in the store") == "answer … is not in the store"
    assert failure_kind('no other "1999"^^xsd:gYear value of P569') == \
        "no other …^^xsd:gYear value of …"
    assert failure_kind("") == "(no reason given)"


def test_kinds_say_what_they_mean() -> None:
    assert describe_kind("unknown_predicate") == \
        "a predicate of the question's query is not in the store"
    assert describe_kind("unsupported: cycle").startswith("question form not supported: ")
    assert describe_kind("no non-answer entity shares a type with …") == \
        "no non-answer entity shares a type with …"


def test_grouping_counts_and_keeps_the_first_example() -> None:
    failures = [
        {"qid": "a", "stage": "parse", "reason": "unsupported: cycle"},
        {"qid": "b", "stage": "ground_original", "reason": "unknown_predicate: not in the store: x"},
        {"qid": "c", "stage": "ground_original", "reason": "unknown_predicate: not in the store: y"},
        {"qid": "d", "stage": "contradictory", "reason": "unknown_predicate: not in the store: z"},
    ]
    kinds = group_failures(failures)
    assert [(k.stage, k.kind, k.count, k.example_qid) for k in kinds] == [
        ("ground_original", "unknown_predicate", 2, "b"),
        ("parse", "unsupported: cycle", 1, "a"),
        ("contradictory", "unknown_predicate", 1, "d")]
    assert kinds[0].to_json()["example"] == {"qid": "b", "reason": "unknown_predicate: not in the store: x"}
    capped = group_failures(failures, most=1)
    assert [(k.stage, k.kind, k.count) for k in capped] == [
        ("ground_original", "unknown_predicate", 2),
        ("parse", "(other kinds: 1)", 1), ("contradictory", "(other kinds: 1)", 1)]


def test_a_prose_reason_is_of_the_kind_said_before_its_details() -> None:
    # issue 38: contradictory reasons were cut at 120 characters inside a word ("on an n")
    one = ("no slot of the answer holds one value, so a replacement would not contradict it: "
           "education.education.institution on an n-ary fact the question does not pin")
    other = ("no slot of the answer holds one value, so a replacement would not contradict "
             "it: people.marriage.spouse (0.00); no constraint of the query sits in a slot")
    assert failure_kind(one) == failure_kind(other) == \
        "no slot of the answer holds one value, so a replacement would not contradict it"
    assert failure_kind("no rule of shape 'path' applies: intersection_way1: none") == \
        "no rule of shape … applies"
    long = "word " * 40
    kind = failure_kind(long)
    assert kind.endswith(" …") and len(kind) <= 122 and "wor …" not in kind


def test_the_ids_a_reason_names() -> None:
    assert mentioned_ids("unknown_predicate: predicates not in the store: a.b.c, d.e.f") == \
        ["a.b.c", "d.e.f"]
    assert mentioned_ids("unknown_entity: entities not in the store: m.01, m.02") == \
        ["m.01", "m.02"]
    assert mentioned_ids("no slot holds one value: people.marriage.spouse (0.00), "
                         "film.film.starring on an n-ary fact, people.marriage.spouse") == \
        ["people.marriage.spouse", "film.film.starring"]
    assert mentioned_ids("no other value of P569 for Q42") == ["P569"]


def test_kinds_count_the_ids_most_often_named_and_say_what_to_do() -> None:
    failures = [{"qid": str(i), "stage": "ground_original",
                 "reason": f"unknown_predicate: predicates not in the store: a.b.c{extra}"}
                for i, extra in enumerate(["", ", d.e.f", ", d.e.f", ""])]
    failures.append({"qid": "p", "stage": "parse", "reason": "unsupported: cycle"})
    failures.append({"qid": "c", "stage": "contradictory", "reason": "no slot: x.y.z"})
    kinds = group_failures(failures)
    first = kinds[0].to_json()
    assert first["mentions"] == [{"id": "a.b.c", "count": 4}, {"id": "d.e.f", "count": 2}]
    assert "store lacks these predicates" in first["what_to_do"]
    assert "--domain" in first["what_to_do"]
    by_stage = {k.stage: k.to_json()["what_to_do"] for k in kinds}
    assert by_stage["parse"].startswith("skipped")
    assert "contradictory edit" in by_stage["contradictory"]
    assert what_to_do("somewhere", "something new") == \
        "failures.jsonl gives each question's reason"
