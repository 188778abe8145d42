"""Failure reasons grouped into kinds (extension.outputs.failure_kinds)."""

from __future__ import annotations

from extension.outputs.failure_kinds import describe_kind, failure_kind, group_failures


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
