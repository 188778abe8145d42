"""Pattern queries without a database: validation, instantiation, result helpers."""

from __future__ import annotations

from typing import get_args

import pytest

from kgstore import (
    Fact,
    HasType,
    IsCvt,
    IsEntity,
    Literal,
    MatchResult,
    NotEqual,
    NotIn,
    PatternQuery,
    TriplePattern,
    Var,
)
from kgstore.patterns import Constraint, EntityConstraint, ValueConstraint, match_facts

A, B, C, P = Var("a"), Var("b"), Var("c"), Var("p")


@pytest.mark.parametrize("name", ["a", "?a", "cvt1", "_x", "A_b_9", "x" * 64, "?" + "y" * 64])
def test_var_accepts_identifiers(name: str) -> None:
    v = Var(name)
    assert v.name == name.removeprefix("?")
    assert str(v) == "?" + v.name


@pytest.mark.parametrize(
    "name", ["", "?", "1a", "a-b", "a b", "a.b", "??a", "x" * 65, "a)", "é", "a\n", "$a"]
)
def test_var_rejects_non_identifiers(name: str) -> None:
    with pytest.raises(ValueError, match="invalid variable name"):
        Var(name)


def test_var_question_mark_is_dropped() -> None:
    assert Var("?a") == Var("a")
    assert hash(Var("?a")) == hash(Var("a"))
    assert len({Var("a"), Var("?a"), Var("b")}) == 2


def test_triple_pattern_variables() -> None:
    assert TriplePattern(A, P, B).variables() == [A, P, B]
    assert TriplePattern("m.1", "p", Literal("x")).variables() == []
    assert TriplePattern("m.1", P, A).variables() == [P, A]


def test_query_variables_in_first_appearance_order() -> None:
    q = PatternQuery((TriplePattern(B, "p", A), TriplePattern(A, P, C), TriplePattern(C, "q", B)))
    assert q.variables() == [B, A, P, C]
    assert q.selected() == [B, A, P, C]
    assert q.predicate_variables() == {"p"}
    assert q.subject_variables() == {"a", "b", "c"}
    q2 = PatternQuery((TriplePattern(B, "p", A),), select=(A,))
    assert q2.selected() == [A]
    assert q2.subject_variables() == {"b"}


def test_query_needs_a_pattern() -> None:
    with pytest.raises(ValueError, match="at least one"):
        PatternQuery(())


@pytest.mark.parametrize(
    "constraint",
    [NotEqual(Var("z"), "m.1"), NotIn(Var("z"), ("m.1",)), HasType(Var("z"), "t"),
     IsCvt(Var("z")), IsEntity(Var("z"))],
)
def test_constraint_on_unknown_variable(constraint: object) -> None:
    with pytest.raises(ValueError, match=r"\?z"):
        PatternQuery((TriplePattern(A, "p", B),), (constraint,))  # type: ignore[arg-type]


def test_not_equal_with_unknown_variable_value() -> None:
    with pytest.raises(ValueError, match=r"\?z"):
        PatternQuery((TriplePattern(A, "p", B),), (NotEqual(A, Var("z")),))
    # A known one is fine.
    PatternQuery((TriplePattern(A, "p", B),), (NotEqual(A, B),))


def test_select_unknown_variable() -> None:
    with pytest.raises(ValueError, match=r"\?z"):
        PatternQuery((TriplePattern(A, "p", B),), select=(Var("z"),))


@pytest.mark.parametrize("limit", [0, -1])
def test_limit_must_be_positive(limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        PatternQuery((TriplePattern(A, "p", B),), limit=limit)
    assert PatternQuery((TriplePattern(A, "p", B),), limit=1).limit == 1


@pytest.mark.parametrize(
    "patterns",
    [
        (TriplePattern(A, P, B), TriplePattern(P, "q", C)),  # predicate var as subject
        (TriplePattern(A, P, B), TriplePattern(C, "q", P)),  # ... as object
        (TriplePattern(A, A, B),),                            # same pattern
    ],
)
def test_predicate_variable_used_as_node(patterns: tuple[TriplePattern, ...]) -> None:
    with pytest.raises(ValueError, match="both as predicate and node"):
        PatternQuery(patterns)


@pytest.mark.parametrize("constraint", [HasType(P, "t"), IsCvt(P), IsEntity(P, False)])
def test_node_constraint_on_predicate_variable(constraint: object) -> None:
    # Type/CVT/entity tests apply to nodes; a predicate variable binds a predicate id.
    with pytest.raises(ValueError, match=r"\?p"):
        PatternQuery((TriplePattern(A, P, B),), (constraint,))  # type: ignore[arg-type]


def test_every_constraint_is_decided_by_values_or_by_the_entity_record() -> None:
    # Matching by expansion (kgstore.algorithms.expansion) drops rows early by the first
    # kind and reads entity records only for the second: every kind must be one of them.
    values, entity = set(get_args(ValueConstraint)), set(get_args(EntityConstraint))
    assert values | entity == set(get_args(Constraint))
    assert not values & entity


def test_value_constraints_on_predicate_variable_are_fine() -> None:
    # Unlike the node constraints above, a predicate variable's value may be filtered.
    q = PatternQuery((TriplePattern(A, P, B),), (NotEqual(P, "x"), NotIn(P, ("y", "z"))))
    facts = [Fact("m.a", p, "m.b") for p in ("w", "x", "y", "z")]
    assert match_facts(q, facts) == [{"a": "m.a", "p": "w", "b": "m.b"}]


def test_instantiate() -> None:
    lit = Literal("1972", "xsd:gYear")
    q = PatternQuery((TriplePattern(A, "film.starring", C), TriplePattern(C, P, B),
                      TriplePattern(A, "released", lit)))
    facts = q.instantiate({"a": "m.film", "c": "m.cvt", "p": "perf.actor", "b": "m.actor"})
    assert facts == [Fact("m.film", "film.starring", "m.cvt"),
                     Fact("m.cvt", "perf.actor", "m.actor"),
                     Fact("m.film", "released", lit)]
    # Literal bindings become literal objects.
    q2 = PatternQuery((TriplePattern(A, "p", B),))
    (fact,) = q2.instantiate({"a": "m.1", "b": lit})
    assert fact.is_literal and fact.object == lit


def test_instantiate_needs_every_variable() -> None:
    q = PatternQuery((TriplePattern(A, "p", B),), select=(A,))
    with pytest.raises(KeyError, match=r"\?b"):
        q.instantiate({"a": "m.1"})


def test_instantiate_rejects_literal_subject_or_predicate() -> None:
    q = PatternQuery((TriplePattern(A, P, B),))
    with pytest.raises(ValueError, match="literal"):
        q.instantiate({"a": Literal("x"), "p": "p", "b": "m.1"})
    with pytest.raises(ValueError, match="literal"):
        q.instantiate({"a": "m.1", "p": Literal("x"), "b": "m.1"})


def test_match_result_values() -> None:
    lit = Literal("5", "xsd:integer")
    res = MatchResult(
        variables=["a", "b"],
        bindings=[{"a": "m.2", "b": lit}, {"a": "m.1", "b": lit}, {"a": "m.2", "b": "m.3"},
                  {"a": "m.1", "b": Literal("5", "xsd:integer")}],
    )
    assert res.values("a") == ["m.2", "m.1"]  # distinct, in solution order
    assert res.values("?a") == ["m.2", "m.1"]
    assert res.values(Var("b")) == [lit, "m.3"]
    assert res.truncated is False
    with pytest.raises(KeyError):
        res.values("c")
    assert MatchResult(variables=["a"]).values("a") == []


def test_match_result_values_keeps_literals_apart_from_same_text() -> None:
    res = MatchResult(["o"], [{"o": Literal("5")}, {"o": Literal("5", "xsd:integer")},
                              {"o": Literal("5", lang="en")}, {"o": "5"}])
    assert res.values("o") == [Literal("5"), Literal("5", "xsd:integer"),
                               Literal("5", lang="en"), "5"]
