"""The CAQA extension rules (extension.core.rules) as pure functions on hand-built query graphs.

Each rule is checked against the exact graph it must produce (nodes, edges,
``not_equal``), Table 4's result shapes and complexities for every (rule, shape),
and the seeded rule order (a permutation drawn from the RNG, uniform over draws).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from extension.core.query_graph import (
    Comparison,
    QueryEdge,
    QueryGraph,
    QueryNode,
    build_query_graph,
)
from extension.core.rules import (
    RULES_BY_SHAPE,
    Hop,
    add_branch,
    complexity_of,
    fresh_variable,
    prepend_hop,
    replace_constant,
    result_shape,
    rule_order,
    seeded_sample,
    union_disjuncts,
)

# (e0, r0, ?a): "who directed Alpha?"
SINGLE = build_query_graph([("m.alpha", "film.film.directed_by", "?a")], answer="a",
                           names={"m.alpha": "Alpha"})
# e0 -r1-> ?x -r2-> ?a: "where was the director of Alpha born?"
PATH = build_query_graph([("m.alpha", "film.film.directed_by", "?x"),
                          ("?x", "people.person.place_of_birth", "?a")],
                         answer="a", names={"m.alpha": "Alpha"})
# (e1, r1, ?a) ∧ (e2, r2, ?a): "which film did Dee direct with music by Ann?"
TREE = build_query_graph([("m.dee", "film.director.film", "?a"),
                          ("?a", "film.film.music", "m.ann")], answer="a",
                         names={"m.dee": "Dee", "m.ann": "Ann"})


def revalidated(graph: QueryGraph) -> QueryGraph:
    """The graph through the validators (``model_copy`` skips them)."""
    return QueryGraph.model_validate(graph.model_dump())


def node(id: str, kind: str, **kw: object) -> QueryNode:
    value = None if id.startswith("?") else id
    return QueryNode(id=id, kind=kind, value=value, **kw)  # type: ignore[arg-type]


def edge(s: str, p: str, o: str) -> QueryEdge:
    return QueryEdge(source=s, predicate=p, target=o)


# -- rule_order -----------------------------------------------------------------------


@pytest.mark.parametrize("shape", sorted(RULES_BY_SHAPE))
def test_rule_order_is_a_seeded_permutation(shape: str) -> None:
    order = rule_order(shape, random.Random(7))
    assert sorted(order) == sorted(RULES_BY_SHAPE[shape])
    assert len(order) == len(set(order))
    assert rule_order(shape, random.Random(7)) == order
    orders = {tuple(rule_order(shape, random.Random(seed))) for seed in range(50)}
    assert len(orders) > 1   # the seed matters


def test_rule_orders_for_single_and_path() -> None:
    assert set(RULES_BY_SHAPE["single"]) == {"union", "intersection_way1",
                                              "intersection_way2", "none"}
    assert set(RULES_BY_SHAPE["path"]) == set(RULES_BY_SHAPE["tree"]) == {
        "intersection_way1", "intersection_way2"}


@pytest.mark.parametrize("shape", sorted(RULES_BY_SHAPE))
def test_drawn_rule_is_uniform(shape: str) -> None:
    rng = random.Random(2024)
    draws = 4000
    firsts = Counter(rule_order(shape, rng)[0] for _ in range(draws))
    expected = draws / len(RULES_BY_SHAPE[shape])
    assert set(firsts) == set(RULES_BY_SHAPE[shape])
    for rule, count in firsts.items():
        # about 5 standard deviations of a binomial count at these sizes
        assert abs(count - expected) < 5 * (expected ** 0.5), (rule, count, expected)
    # every position, not only the first, is uniform
    lasts = Counter(rule_order(shape, rng)[-1] for _ in range(draws))
    assert all(abs(c - expected) < 5 * expected ** 0.5 for c in lasts.values())


def test_rule_order_consumes_the_rng_it_is_given() -> None:
    rng = random.Random(1)
    first = [tuple(rule_order("single", rng)) for _ in range(20)]
    assert len(set(first)) > 1   # successive draws from one RNG differ


@pytest.mark.parametrize("shape", ["unsupported", "union", ""])
def test_rule_order_rejects_unknown_shapes(shape: str) -> None:
    with pytest.raises(ValueError, match="no extension rules"):
        rule_order(shape, random.Random(0))


# -- Table 4: result shape and complexity ---------------------------------------------

TABLE_4 = [
    # (rule, input shape) -> (result shape, complexity)
    ("none", "single", "single", "single"),
    ("union", "single", "single", "union"),
    ("intersection_way1", "single", "path", "concatenation"),
    ("intersection_way2", "single", "tree", "intersection"),
    ("intersection_way1", "path", "path", "concatenation"),
    ("intersection_way2", "path", "tree", "intersection"),
    ("intersection_way1", "tree", "tree", "intersection"),
    ("intersection_way2", "tree", "tree", "intersection"),
]


@pytest.mark.parametrize(("rule", "shape", "out_shape", "complexity"), TABLE_4)
def test_table_4(rule: str, shape: str, out_shape: str, complexity: str) -> None:
    assert result_shape(rule, shape) == out_shape  # type: ignore[arg-type]
    assert complexity_of(rule, out_shape) == complexity  # type: ignore[arg-type]


def test_table_4_covers_every_allowed_rule() -> None:
    assert {(r, s) for r, s, _, _ in TABLE_4} == {
        (r, s) for s, rules in RULES_BY_SHAPE.items() for r in rules}


@pytest.mark.parametrize(("shape", "complexity"), [
    ("single", "single"), ("path", "concatenation"), ("tree", "intersection")])
def test_complexity_follows_the_shape_except_for_union(shape: str, complexity: str) -> None:
    assert complexity_of("none", shape) == complexity  # type: ignore[arg-type]
    assert complexity_of("union", shape) == "union"  # type: ignore[arg-type]


# -- Hop and fresh variables ------------------------------------------------------------


def test_hop_edge_direction() -> None:
    assert Hop(entity="e1", predicate="r").edge("?v") == edge("e1", "r", "?v")
    assert Hop(entity="e1", predicate="r", entity_is_subject=False).edge("?v") == \
        edge("?v", "r", "e1")


def test_fresh_variable_skips_used_ids() -> None:
    assert fresh_variable(SINGLE) == "?v1"
    g = build_query_graph([("m.x", "r", "?v1"), ("?v1", "s", "?v2"), ("?v2", "t", "?a")],
                          answer="a")
    assert fresh_variable(g) == "?v3"
    assert fresh_variable(g, "w") == "?w1"


# -- intersection way 1: prepend a hop ---------------------------------------------------


def test_prepend_hop_on_single_gives_the_exact_path() -> None:
    hop = Hop(entity="m.beta", predicate="film.film.sequel", name="Beta")
    got = revalidated(prepend_hop(SINGLE, "m.alpha", hop))
    assert got.nodes == (
        node("?v1", "variable", name="Alpha"),
        node("?a", "answer"),
        node("m.beta", "entity", name="Beta"),
    )
    assert got.edges == (edge("m.beta", "film.film.sequel", "?v1"),
                         edge("?v1", "film.film.directed_by", "?a"))
    assert got.not_equal == (("?a", "m.beta"),)
    assert got.answer == "?a"
    assert got.entity_ids() == ["m.beta"]   # the old subject is no constant any more


def test_prepend_hop_with_the_entity_as_object() -> None:
    hop = Hop(entity="m.beta", predicate="film.film.prequel", entity_is_subject=False)
    got = revalidated(prepend_hop(SINGLE, "m.alpha", hop))
    assert got.edges[0] == edge("?v1", "film.film.prequel", "m.beta")
    assert got.node("m.beta").name is None


def test_prepend_hop_on_a_path_keeps_existing_variables() -> None:
    hop = Hop(entity="m.beta", predicate="film.film.sequel")
    got = revalidated(prepend_hop(PATH, "m.alpha", hop))
    assert [n.id for n in got.nodes] == ["?v1", "?x", "?a", "m.beta"]
    assert got.edges == (edge("m.beta", "film.film.sequel", "?v1"),
                         edge("?v1", "film.film.directed_by", "?x"),
                         edge("?x", "people.person.place_of_birth", "?a"))


def test_prepend_hop_on_one_tree_branch() -> None:
    hop = Hop(entity="m.oscar", predicate="award.award.winner", name="Oscar")
    got = revalidated(prepend_hop(TREE, "m.ann", hop))
    assert {n.id for n in got.nodes} == {"m.dee", "?a", "?v1", "m.oscar"}
    assert got.edges == (edge("m.oscar", "award.award.winner", "?v1"),
                         edge("m.dee", "film.director.film", "?a"),
                         edge("?a", "film.film.music", "?v1"))
    assert got.node("?v1").name == "Ann"
    assert got.not_equal == (("?a", "m.oscar"),)


def test_prepend_hop_keeps_existing_not_equal_and_renames_it() -> None:
    g = build_query_graph([("m.alpha", "r", "?a")], answer="a",
                          not_equal=[("?a", "m.alpha")])
    got = revalidated(prepend_hop(g, "m.alpha", Hop(entity="m.b", predicate="s")))
    assert got.not_equal == (("?a", "?v1"), ("?a", "m.b"))


def test_prepend_hop_at_a_variable_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a constant subject"):
        prepend_hop(PATH, "?x", Hop(entity="m.beta", predicate="r"))


@pytest.mark.parametrize("entity", ["m.alpha", "?a"])
def test_prepend_hop_with_an_entity_already_in_the_query(entity: str) -> None:
    with pytest.raises(ValueError, match="already in the query"):
        prepend_hop(SINGLE, "m.alpha", Hop(entity=entity, predicate="r"))


def test_prepend_hop_does_not_change_the_input() -> None:
    before = SINGLE.model_dump()
    prepend_hop(SINGLE, "m.alpha", Hop(entity="m.beta", predicate="r"))
    assert SINGLE.model_dump() == before


# -- intersection way 2: add a branch -----------------------------------------------------


def test_add_branch_on_single_gives_the_exact_tree() -> None:
    hop = Hop(entity="m.ann", predicate="music.composer.film", name="Ann")
    got = revalidated(add_branch(SINGLE, hop))
    assert got.nodes == (node("m.alpha", "entity", name="Alpha"), node("?a", "answer"),
                         node("m.ann", "entity", name="Ann"))
    assert got.edges == (edge("m.alpha", "film.film.directed_by", "?a"),
                         edge("m.ann", "music.composer.film", "?a"))
    assert got.not_equal == ()


def test_add_branch_with_the_answer_as_subject() -> None:
    hop = Hop(entity="m.usa", predicate="people.person.nationality", entity_is_subject=False)
    got = revalidated(add_branch(PATH, hop))
    assert got.edges[-1] == edge("?a", "people.person.nationality", "m.usa")
    assert got.edges[:-1] == PATH.edges


def test_add_branch_to_a_tree() -> None:
    got = revalidated(add_branch(TREE, Hop(entity="m.usa", predicate="r", entity_is_subject=False)))
    assert got.entity_ids() == ["m.dee", "m.ann", "m.usa"]
    assert len(got.edges) == 3


def test_add_branch_with_an_entity_already_in_the_query() -> None:
    with pytest.raises(ValueError, match="already in the query"):
        add_branch(TREE, Hop(entity="m.ann", predicate="r"))


# -- union ---------------------------------------------------------------------------------


def test_union_disjuncts_replace_the_subject() -> None:
    alt = [QueryNode(id="m.alpha2", kind="entity", value="m.alpha2", name="Alpha"),
           QueryNode(id="m.alpha3", kind="entity", value="m.alpha3", name="Alpha")]
    disjuncts = union_disjuncts(SINGLE, "m.alpha", alt)
    assert disjuncts[0] is SINGLE
    assert len(disjuncts) == 3
    for d, a in zip(disjuncts[1:], alt, strict=True):
        d = revalidated(d)
        assert d.nodes == (a, node("?a", "answer"))
        assert d.edges == (edge(a.id, "film.film.directed_by", "?a"),)
        assert d.answer == "?a"


def test_union_needs_an_alternative() -> None:
    with pytest.raises(ValueError, match="at least one"):
        union_disjuncts(SINGLE, "m.alpha", [])


# -- replace_constant ------------------------------------------------------------------------


def test_replace_constant_follows_edges_and_not_equal() -> None:
    g = build_query_graph([("m.a", "r", "?x"), ("?x", "s", "?a")], answer="a",
                          not_equal=[("?a", "m.a")])
    new = QueryNode(id="m.b", kind="entity", value="m.b", name="B")
    got = revalidated(replace_constant(g, "m.a", new))
    assert got.nodes[0] == new
    assert got.edges == (edge("m.b", "r", "?x"), edge("?x", "s", "?a"))
    assert got.not_equal == (("?a", "m.b"),)


def test_replace_constant_follows_comparisons() -> None:
    g = build_query_graph([("m.a", "r", "?a")], answer="a", comparisons=[
        Comparison(node="?a", op="<", other="m.a"), Comparison(node="m.a", op=">", value="1")])
    got = revalidated(replace_constant(g, "m.a", QueryNode(id="m.b", kind="entity", value="m.b")))
    assert [(c.node, c.other) for c in got.comparisons] == [("?a", "m.b"), ("m.b", None)]


def test_replace_constant_errors() -> None:
    new = QueryNode(id="?a", kind="variable")
    with pytest.raises(ValueError, match="already a node"):
        replace_constant(SINGLE, "m.alpha", new)
    with pytest.raises(ValueError, match="is a variable"):
        replace_constant(PATH, "?x", QueryNode(id="?y", kind="variable"))
    with pytest.raises(KeyError):
        replace_constant(SINGLE, "m.nowhere", QueryNode(id="m.b", kind="entity", value="m.b"))


# -- seeded_sample ---------------------------------------------------------------------------


def test_seeded_sample_depends_on_values_not_order() -> None:
    items = [f"e{i}" for i in range(10)]
    a = seeded_sample(items, 4, random.Random(3))
    b = seeded_sample(list(reversed(items)), 4, random.Random(3))
    assert a == b and len(a) == 4 and set(a) <= set(items)
    assert sorted(seeded_sample(items, 50, random.Random(3))) == sorted(items)
    assert seeded_sample([], 3, random.Random(0)) == []
