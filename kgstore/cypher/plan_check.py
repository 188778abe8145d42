"""The engine-side check of a passthrough query: its plan may only read.

The read-only guard (:mod:`kgstore.cypher.guard`) decides on the query's text, so it
is only as good as its reading of the engine's grammar (issue 32: Neo4j decodes
``\\uXXXX`` escapes before it lexes, the guard did not, and ``LOAD CSV``, ``SHOW
USERS`` and ``CALL dbms.listConfig()`` ran). This second check asks the engine itself:
before a query runs, the store ``EXPLAIN``\\ s it in the same read transaction (the engine
plans, nothing runs) and accepts the plan only if every operator in it is on an
allow-list of read operators, and every procedure or table function it calls is one of
the catalogue the guard allows (:data:`~kgstore.cypher.guard.CATALOGUE`). It fails
closed: an operator the list does not name (a new engine version's, ``LoadCSV``,
``Create``, ``SetProperty``, ``ShowUsers``, ``AdministrationCommand``, ``COPY_TO``,
``INSTALL_EXTENSION``, ...) refuses the query, and so does a plan the check cannot
read.

* **Neo4j** returns the plan as a tree of operators (``ResultSummary.plan``); operator
  names carry the database (``Filter@neo4j``), and a ``ProcedureCall`` names the
  procedure in its details (``db.labels() :: (label :: STRING)``). The names are
  Neo4j 5.26's (``LogicalPlan2PlanDescription``).
* **LadybugDB** returns the physical plan as one text drawing of boxes, one per
  operator, titled ``NAME[id]`` with ids 0..n-1; a ``TABLE_FUNCTION_CALL`` box names
  its function (``Function: SHOW_TABLES``; ``READ_FTABLE`` is the engine's own scan of
  an intermediate result). The check reads every title and function line, and refuses
  a drawing in which an id of 0..n-1 is missing (text in the query that draws a box
  of its own adds a name, which can only refuse the query, and hides none). The
  names are LadybugDB 0.22's (``PhysicalOperatorType``,
  ``processor/operator/physical_operator.h``).

Neither engine's plan names the functions inside expressions; those are the guard's
(built-ins only on Neo4j; file readers refused on LadybugDB).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from kgstore.cypher.guard import CATALOGUE
from kgstore.errors import QueryError, ReadOnlyQueryError

__all__ = ["LADYBUG_READ_OPERATORS", "LADYBUG_READ_TABLE_FUNCTIONS", "NEO4J_READ_OPERATORS",
           "NEO4J_READ_PROCEDURES", "explain_ladybug", "explain_neo4j",
           "ladybug_plan_refusal", "neo4j_plan_refusal"]

NEO4J_READ_OPERATORS = frozenset({
    # leaves: scans, seeks and counts
    "AllNodesScan", "PartitionedAllNodesScan", "Argument", "ArgumentTracker",
    "NodeByLabelScan", "PartitionedNodeByLabelScan", "UnionNodeByLabelsScan",
    "PartitionedUnionNodeByLabelsScan", "IntersectionNodeByLabelsScan",
    "PartitionedIntersectionNodeByLabelsScan", "SubtractionNodeByLabelsScan",
    "PartitionedSubtractionNodeByLabelsScan", "NodeByIdSeek", "NodeByElementIdSeek",
    "NodeIndexScan", "PartitionedNodeIndexScan", "NodeIndexContainsScan",
    "NodeIndexEndsWithScan", "MultiNodeIndexSeek",
    "DirectedAllRelationshipsScan", "UndirectedAllRelationshipsScan",
    "PartitionedDirectedAllRelationshipsScan", "PartitionedUndirectedAllRelationshipsScan",
    "DirectedRelationshipTypeScan", "UndirectedRelationshipTypeScan",
    "PartitionedDirectedRelationshipTypeScan", "PartitionedUndirectedRelationshipTypeScan",
    "DirectedUnionRelationshipTypesScan", "UndirectedUnionRelationshipTypesScan",
    "PartitionedDirectedUnionRelationshipTypesScan",
    "PartitionedUndirectedUnionRelationshipTypesScan",
    "DirectedRelationshipIndexScan", "UndirectedRelationshipIndexScan",
    "PartitionedDirectedRelationshipIndexScan", "PartitionedUndirectedRelationshipIndexScan",
    "DirectedRelationshipIndexContainsScan", "UndirectedRelationshipIndexContainsScan",
    "DirectedRelationshipIndexEndsWithScan", "UndirectedRelationshipIndexEndsWithScan",
    "DirectedRelationshipByIdSeek", "UndirectedRelationshipByIdSeek",
    "DirectedRelationshipByElementIdSeek", "UndirectedRelationshipByElementIdSeek",
    "NodeCountFromCountStore", "RelationshipCountFromCountStore",
    # expanding, joining, filtering, projecting, ordering
    "Expand(All)", "Expand(Into)", "OptionalExpand(All)", "OptionalExpand(Into)",
    "VarLengthExpand(All)", "VarLengthExpand(Into)", "VarLengthExpand(Pruning)",
    "VarLengthExpand(Pruning,BFS,All)", "VarLengthExpand(Pruning,BFS,Into)",
    "ShortestPath", "StatefulShortestPath(All)", "StatefulShortestPath(Into)",
    "Repeat(Trail)", "Repeat(Walk)", "BidirectionalRepeat(Trail)", "PathPropagatingBFS",
    "NullifyMetadata", "ProjectEndpoints", "TriadicBuild", "TriadicFilter",
    "TriadicSelection", "Apply", "SemiApply", "AntiSemiApply", "SelectOrSemiApply",
    "SelectOrAntiSemiApply", "LetSemiApply", "LetAntiSemiApply", "LetSelectOrSemiApply",
    "LetSelectOrAntiSemiApply", "ConditionalApply", "AntiConditionalApply", "RollUpApply",
    "Anti", "Optional", "CartesianProduct", "NodeHashJoin", "ValueHashJoin",
    "NodeLeftOuterHashJoin", "NodeRightOuterHashJoin", "Filter", "Limit",
    "ExhaustiveLimit", "Skip", "Sort", "PartialSort", "Top", "Top1WithTies", "PartialTop",
    "Union", "OrderedUnion", "Unwind", "PartitionedUnwind", "Projection", "Distinct",
    "OrderedDistinct", "EagerAggregation", "OrderedAggregation", "Eager", "CacheProperties",
    "PreserveOrder", "EmptyResult", "ProduceResults",
    # checked further: only the catalogue's procedures
    "ProcedureCall",
})
"""Neo4j 5.26's read operators (index seeks match :data:`_NEO4J_INDEX_SEEK` besides)."""
_NEO4J_INDEX_SEEK = re.compile(
    r"(Partitioned)?(Directed|Undirected)?(Node|Relationship)(Unique)?IndexSeek(ByRange)?")
NEO4J_READ_PROCEDURES = frozenset(c.split("(")[0] for c in CATALOGUE["neo4j"])
"""The procedures a Neo4j plan may call: the guard's catalogue."""

LADYBUG_READ_OPERATORS = frozenset({
    "AGGREGATE", "AGGREGATE_FINALIZE", "AGGREGATE_SCAN", "CROSS_PRODUCT", "EMPTY_RESULT",
    "FILTER", "FLATTEN", "HASH_JOIN_BUILD", "HASH_JOIN_PROBE", "INTERSECT_BUILD",
    "INTERSECT", "LIMIT", "MULTIPLICITY_REDUCER", "PATH_PROPERTY_PROBE",
    "PRIMARY_KEY_SCAN_NODE_TABLE", "PROJECTION", "RECURSIVE_EXTEND", "RESULT_COLLECTOR",
    "SCAN_NODE_TABLE", "SCAN_REL_TABLE", "SEMI_MASKER", "SKIP", "TOP_K", "TOP_K_SCAN",
    "ORDER_BY", "ORDER_BY_MERGE", "ORDER_BY_SCAN", "UNION_ALL_SCAN", "UNWIND",
    "UNWIND_DEDUP", "DUMMY_SINK", "DUMMY_SIMPLE_SINK", "QUERY_PRIMARY_KEY_LOOKUP",
    "COUNT_REL_TABLE", "PACKED_EXTEND", "PACKED_FILTERED_COUNT", "REACHABLE_COUNT",
    "REL_DEGREE_TABLE",
    # checked further: only the functions below
    "TABLE_FUNCTION_CALL",
})
"""LadybugDB 0.22's read operators."""
LADYBUG_READ_TABLE_FUNCTIONS = frozenset(
    {"READ_FTABLE"} | {c.split("(")[0].upper() for c in CATALOGUE["ladybug"]})
"""The table functions a LadybugDB plan may call: the engine's scan of an intermediate
result, and the guard's catalogue."""

_WHY = ("only plans made of read operators run here (the engine's plan is checked as "
        "well as the query's text)")


def _refused(what: str) -> ReadOnlyQueryError:
    return ReadOnlyQueryError(
        f"the engine plans this query with {what}, which the read-only check does not "
        f"allow: {_WHY}; the cypher command runs one read-only query of MATCH, WHERE, "
        "WITH, UNWIND, RETURN and the catalogue calls")


# -- Neo4j ----------------------------------------------------------------------------------


def _neo4j_operators(plan: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield plan
    for child in plan.get("children") or ():
        yield from _neo4j_operators(child)


def neo4j_plan_refusal(plan: Mapping[str, Any] | None) -> str | None:
    """What in a Neo4j plan (``ResultSummary.plan``) is not a read of the catalogue,
    named for a message (```LoadCSV```, ```ProcedureCall` of dbms.listConfig``), or
    None when all of it is."""
    if not plan:
        return "no plan it could read"
    for op in _neo4j_operators(plan):
        name = str(op.get("operatorType", "")).split("@")[0]
        if name not in NEO4J_READ_OPERATORS and not _NEO4J_INDEX_SEEK.fullmatch(name):
            return f"`{name or 'an unnamed operator'}`"
        if name == "ProcedureCall":
            details = str((op.get("args") or {}).get("Details", ""))
            procedure = details.split("(")[0].strip()
            if procedure not in NEO4J_READ_PROCEDURES:
                return f"`ProcedureCall` of {procedure or 'an unnamed procedure'}"
    return None


def explain_neo4j(tx: Any, query: str, params: Mapping[str, Any]) -> None:
    """``EXPLAIN`` ``query`` in the read transaction ``tx`` (a driver transaction) and
    raise :class:`~kgstore.errors.ReadOnlyQueryError` unless its plan only reads."""
    what = neo4j_plan_refusal(tx.run("EXPLAIN " + query, params).consume().plan)
    if what is not None:
        raise _refused(what)


# -- LadybugDB ------------------------------------------------------------------------------

_BOX_TITLE = re.compile(r"│\s*([A-Z][A-Z0-9_]*)\[(\d+)\]\s*│")
_TABLE_FUNCTION = re.compile(r"Function: ([A-Za-z0-9_]+)")


def ladybug_plan_refusal(drawing: str) -> str | None:
    """What in a LadybugDB plan (the text ``EXPLAIN`` returns) is not a read of the
    catalogue (```COPY_TO```, ```TABLE_FUNCTION_CALL` of READ_CSV_PARALLEL``), or None
    when all of it is (see the module docstring)."""
    boxes = _BOX_TITLE.findall(drawing)
    ids = {int(i) for _, i in boxes}   # a subplan two operators share is drawn twice
    if "Physical Plan" not in drawing or not boxes or ids != set(range(len(ids))):
        return "a plan the check cannot read"
    for name, _ in boxes:
        if name not in LADYBUG_READ_OPERATORS:
            return f"`{name}`"
    functions = _TABLE_FUNCTION.findall(drawing)
    calls = sum(name == "TABLE_FUNCTION_CALL" for name, _ in boxes)
    for function in functions:
        if function.upper() not in LADYBUG_READ_TABLE_FUNCTIONS:
            return f"`TABLE_FUNCTION_CALL` of {function}"
    if len(functions) != calls:
        return "a table function call the check cannot name"
    return None


def explain_ladybug(conn: Any, query: str, params: Mapping[str, Any]) -> None:
    """``EXPLAIN`` ``query`` on ``conn`` (a LadybugDB connection, in the caller's read
    transaction) and raise :class:`~kgstore.errors.ReadOnlyQueryError` unless its plan
    only reads; :class:`~kgstore.errors.QueryError` for several statements (the guard
    lets one through, so only a gap in it gets here). The engine's own errors (syntax,
    unknown names) propagate as its ``RuntimeError``."""
    result = conn.execute("EXPLAIN " + query, dict(params))
    if isinstance(result, list):
        for part in result:
            part.close()
        raise QueryError(f"the query holds {len(result)} statements; the cypher command "
                         "runs one read-only query at a time")
    try:
        rows = result.get_all()
    finally:
        result.close()
    drawing = rows[0][0] if len(rows) == 1 and rows[0] and isinstance(rows[0][0], str) else ""
    what = ladybug_plan_refusal(drawing)
    if what is not None:
        raise _refused(what)
