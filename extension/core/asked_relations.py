"""What people ask about: how often each Freebase relation occurs in the logical forms of
real questions (issue 34, item 2), as a prior for the relations and constraints the
``--domain`` seed sampler and the extension engine draw.

WebQSP (Yih et al., 2016: 4,737 questions people typed into a search engine, each with
its inferential chain and constraints) and GrailQA (Gu et al., 2021: crowd-written
questions over the Freebase schema, each with its query graph) say which relations
people ask about: a film's director, a person's birthplace, a country's currency —
seldom a film's release medium or the type of a union. :func:`count_asked_relations`
counts them from the datasets' own JSON files; ``asked_relations.tsv`` beside this module
holds those counts (relation ids and numbers only, no text of the datasets), computed by
``tools/asked_relations.py`` from WebQSP train + test and the GrailQA dev sample under
``KGBENCH_EXTERNAL_DATA`` (README "Generate a benchmark"). A hop through a mediator is
counted under its FB15k-237 folded id too (``film.film.starring..film.performance.actor``).

:func:`asked_weight` turns a count into a weight that multiplies the drawing weight a
relation already has (1 for a relation nobody asked about, ``1 + log(1 + count)``
otherwise): a prior, not a filter — unasked relations are still drawn, less often. The
extension engine draws its way-2 constraints by it; its way-1 descriptions stay uniform
(the most asked relations seldom pin an entity).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

ASKED_RESOURCE = "asked_relations.tsv"
"""The shipped counts, beside this module: ``relation<TAB>count`` per line."""


def count_asked_relations(webqsp: Iterable[Mapping[str, Any]] = (),
                          grailqa: Iterable[Mapping[str, Any]] = ()) -> Counter[str]:
    """Relation id -> how many questions' logical forms use it. ``webqsp``: WebQSP
    question records (``Parses[].InferentialChain``, ``Parses[].Constraints[].NodePredicate``;
    each adjacent pair of a chain also as its folded id ``a..b``); ``grailqa``: GrailQA
    records (``graph_query.edges[].relation``). A relation counts once per question."""
    counts: Counter[str] = Counter()
    for q in webqsp:
        used: set[str] = set()
        for parse in q.get("Parses") or ():
            chain = [str(p) for p in parse.get("InferentialChain") or () if p]
            used.update(chain)
            used.update(f"{a}..{b}" for a, b in zip(chain, chain[1:], strict=False))
            used.update(str(c["NodePredicate"]) for c in parse.get("Constraints") or ()
                        if c.get("NodePredicate"))
        counts.update(used)
    for q in grailqa:
        edges = (q.get("graph_query") or {}).get("edges") or ()
        counts.update({str(e["relation"]) for e in edges if e.get("relation")})
    return counts


def read_datasets(webqsp_files: Iterable[Path], grailqa_files: Iterable[Path]) -> Counter[str]:
    """:func:`count_asked_relations` over the users' own WebQSP (``{"Questions": […]}``)
    and GrailQA (a JSON list) files."""
    import json

    webqsp = [q for f in webqsp_files
              for q in json.loads(Path(f).read_text("utf-8"))["Questions"]]
    grailqa = [q for f in grailqa_files for q in json.loads(Path(f).read_text("utf-8"))]
    return count_asked_relations(webqsp, grailqa)


def format_table(counts: Mapping[str, int], sources: str) -> str:
    """The TSV of ``counts`` (most asked first, ties by id), with a header naming the
    ``sources`` it was counted from."""
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    header = ("# Relations of real questions' logical forms and how many questions use each "
              "(extension/core/asked_relations.py).\n"
              f"# Counted by tools/asked_relations.py from {sources}.\n")
    return header + "".join(f"{r}\t{n}\n" for r, n in rows)


@cache
def asked_counts() -> Mapping[str, int]:
    """The shipped counts (:data:`ASKED_RESOURCE`), read once."""
    text = resources.files("extension.core").joinpath(ASKED_RESOURCE).read_text("utf-8")
    counts: dict[str, int] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            relation, _, n = line.partition("\t")
            counts[relation] = int(n)
    return counts


def _local(predicate: str) -> str:
    local = predicate.strip("<>")
    for sep in ("/", "#", ":"):
        local = local.rpartition(sep)[2] or local
    return local


@cache
def asked_weight(predicate: str) -> float:
    """``1 + log(1 + count)`` of ``predicate`` (full id or local name) in
    :func:`asked_counts`; 1 for a relation no question asked about."""
    return 1.0 + math.log1p(asked_counts().get(_local(predicate), 0))


__all__ = ["ASKED_RESOURCE", "asked_counts", "asked_weight", "count_asked_relations",
           "format_table", "read_datasets"]
