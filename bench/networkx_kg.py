"""The in-memory baseline of the store benchmarks: a networkx ``MultiDiGraph`` (+ a
name dict) built from a stage, read through an adapter (``entities`` + ``adjacency``,
in LadybugStore's order) so that :func:`kgstore.algorithms.subgraph.neighborhood` walks
it with the same caps and CVT hop rules as a store.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kgstore.enginepaths import duckdb_read_path
from kgstore.models import Entity, Fact, Literal, normalize_name
from kgstore.staging import read_manifest, staged_parts
from loaders.pipeline import sql_str


def _name_keys(values: pa.Array | pa.ChunkedArray) -> list[str | None]:
    """normalize_name over an Arrow string array (None stays None)."""
    try:
        from kgstore.models import normalize_names  # vectorised, where available
    except ImportError:
        return [None if v is None else normalize_name(v) for v in values.to_pylist()]
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    return normalize_names(arr).to_pylist()


class NetworkxKG:
    """The same graph in a networkx MultiDiGraph (edge key = predicate) plus a dict
    name -> ids, with the Store methods the benchmark times (same semantics)."""

    def __init__(self, stage: Path) -> None:
        import duckdb
        import networkx as nx

        db = duckdb.connect()
        db.execute("SET preserve_insertion_order = true")
        manifest = read_manifest(stage)

        def glob(table: str) -> str:
            """The listed parts of ``table``, as quoted literals (paths are not SQL)."""
            files = [sql_str(duckdb_read_path(f)) for f in staged_parts(stage, manifest, table)]
            return f"read_parquet([{', '.join(files)}])"

        cvt_types = [r[0] for r in db.execute(f"SELECT DISTINCT type FROM {glob('cvt_types')}").fetchall()]
        # Entity rows merged exactly as import_stage merges them (first name by seq,
        # union of aliases/types, CVT by type), then facts deduplicated.
        db.execute(
            "CREATE TABLE ents AS SELECT id, "
            "arg_min(name, seq) FILTER (WHERE name IS NOT NULL) AS name, "
            "list_sort(list_distinct(flatten(list(aliases)))) AS aliases, "
            "list_sort(list_distinct(flatten(list(types)))) AS types, "
            "coalesce(bool_or(is_cvt), false) AS is_cvt, "
            "arg_min(description, seq) FILTER (WHERE description IS NOT NULL) AS description "
            f"FROM {glob('entities')} GROUP BY id ORDER BY id"
        )
        db.execute("UPDATE ents SET is_cvt = true WHERE list_has_any(types, ?::VARCHAR[])",
                   [cvt_types])
        ents = db.sql("SELECT * FROM ents ORDER BY id").to_arrow_table()
        db.execute("CREATE TABLE eidx AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::BIGINT "
                   "AS i FROM ents")
        lits = db.sql(f"SELECT DISTINCT ON (id) id, value, datatype, lang FROM {glob('literals')} "
                          "ORDER BY id").to_arrow_table()
        db.execute("CREATE TABLE lidx AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::BIGINT AS i "
                   f"FROM (SELECT DISTINCT id FROM {glob('literals')})")
        facts = db.sql(
            "SELECT s.i AS s, f.predicate AS p, coalesce(eo.i, lo.i) AS o, f.object_kind = 'L' AS lit "
            f"FROM (SELECT DISTINCT subject, predicate, object, object_kind FROM {glob('facts')}) f "
            "JOIN eidx s ON s.id = f.subject "
            "LEFT JOIN eidx eo ON f.object_kind = 'E' AND eo.id = f.object "
            "LEFT JOIN lidx lo ON f.object_kind = 'L' AND lo.id = f.object "
            # a pseudo-random adjacency order, like the store's (COPY of a hashed
            # DISTINCT); sorted input would make capped walks from different hubs
            # keep the same low-id neighbours
            "ORDER BY hash(f.subject, f.predicate, f.object)"
        ).to_arrow_table()
        db.close()

        ids: list[str] = ents["id"].to_pylist()
        self._literals: dict[str, Literal] = {}
        lit_ids: list[str] = lits["id"].to_pylist()
        for key, value, dt, lang in zip(lit_ids, lits["value"].to_pylist(),
                                        lits["datatype"].to_pylist(), lits["lang"].to_pylist(),
                                        strict=True):
            self._literals[key] = Literal(value, dt, lang)
        g = nx.MultiDiGraph()
        names = ents["name"].to_pylist()
        aliases = ents["aliases"].to_pylist()
        types = ents["types"].to_pylist()
        is_cvt = ents["is_cvt"].to_pylist()
        descs = ents["description"].to_pylist()
        # Name keys: the library's vectorised normaliser where it has one (the import
        # uses it too), else the scalar one.
        name_keys, alias_keys = _name_keys(ents["name"]), _name_keys(pc.list_flatten(ents["aliases"]))
        alias_off = ents["aliases"].combine_chunks().offsets.to_pylist()
        alias_off = [o - alias_off[0] for o in alias_off]
        interned: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = {}
        for i, eid in enumerate(ids):
            al = tuple(interned.setdefault(a, a) for a in aliases[i])
            ty = tuple(interned.setdefault(t, t) for t in types[i])
            g.add_node(eid, name=names[i], is_cvt=bool(is_cvt[i]), aliases=al, types=ty,
                       description=descs[i])
            keys = set(alias_keys[alias_off[i]:alias_off[i + 1]])
            keys.add(name_keys[i])
            for k in keys:
                if k:
                    self.by_name.setdefault(k, []).append(eid)
        for lst in self.by_name.values():
            lst.sort()
        for key in lit_ids:
            g.add_node(key, literal=self._literals[key])
        preds = [interned.setdefault(p, p) for p in facts["p"].to_pylist()]
        subj = facts["s"].to_numpy()
        objs = facts["o"].to_numpy()
        lit = facts["lit"].to_numpy(zero_copy_only=False)
        empty: dict[str, Any] = {}
        g.add_edges_from(
            (ids[s], lit_ids[o] if lt else ids[o], p, empty)
            for s, p, o, lt in zip(subj.tolist(), preds, objs.tolist(), lit.tolist(), strict=True)
        )
        self.g = g
        self.n_facts = facts.num_rows

    # -- the Store methods the benchmark uses -------------------------------------------
    def entity(self, id: str) -> Entity | None:
        attrs = self.g._node.get(id)
        if attrs is None or "literal" in attrs:
            return None
        return Entity(id, attrs["name"], attrs["aliases"], attrs["types"], attrs["is_cvt"],
                      attrs["description"])

    def entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        found: dict[str, Entity] = {}
        for id in dict.fromkeys(ids):
            e = self.entity(id)
            if e is not None:
                found[id] = e
        return found

    def find_by_name(self, name: str, *, limit: int = 50) -> list[Entity]:
        out = []
        for id in self.by_name.get(normalize_name(name), ())[:limit]:
            e = self.entity(id)
            if e is not None:
                out.append(e)
        return out

    # Adjacency in the order LadybugStore reads it: facts to entities, facts from
    # entities (each up to limit + 1), then facts to literals if there is room.
    def _out_entities(self, id: str, n: int) -> list[Fact]:
        out: list[Fact] = []
        for v, keydict in self.g._succ[id].items():
            if v in self._literals:
                continue
            for key in keydict:
                out.append(Fact(id, key, v))
                if len(out) >= n:
                    return out
        return out

    def _out_literals(self, id: str, n: int) -> list[Fact]:
        out: list[Fact] = []
        for v, keydict in self.g._succ[id].items():
            lit = self._literals.get(v)
            if lit is None:
                continue
            for key in keydict:
                out.append(Fact(id, key, lit))
                if len(out) >= n:
                    return out
        return out

    def _in(self, id: str, n: int) -> list[Fact]:
        out: list[Fact] = []
        for u, keydict in self.g._pred[id].items():
            for key in keydict:
                out.append(Fact(u, key, id))
                if len(out) >= n:
                    return out
        return out

    def facts_around(self, id: str, *, limit: int) -> tuple[list[Fact], bool]:
        """``Store.facts_around``: up to ``limit`` facts out of and into ``id`` and
        whether more exist."""
        if id not in self.g._succ or "literal" in self.g._node[id]:
            return [], False
        facts = self._out_entities(id, limit + 1) + self._in(id, limit + 1)
        if len(facts) <= limit:
            facts += self._out_literals(id, limit + 1 - len(facts))
        return facts[:limit], len(facts) > limit

    def adjacency(self, id: str, *, limit: int) -> Any:
        """``Store.adjacency``: :meth:`facts_around` plus the entities at the other
        ends of the kept facts (what :func:`kgstore.algorithms.subgraph.neighborhood` walks on)."""
        from kgstore.models import Adjacency

        facts, more = self.facts_around(id, limit=limit)
        others = [f.subject if f.subject != id else f.object_key for f in facts
                  if not (f.subject == id and f.is_literal)]
        return Adjacency(facts=facts, entities=self.entities(others), truncated=more)

    def neighborhood(self, ids: str | Iterable[str], *, hops: int = 1, **caps: Any) -> Any:
        from kgstore.algorithms import subgraph

        return subgraph.neighborhood(self, ids, hops=hops, **caps)  # type: ignore[arg-type]
