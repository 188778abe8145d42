"""The ``Store`` interface every backend implements (embedded LadybugDB, Neo4j).

Everything above ``kgstore`` (loaders, extension, scoring, the app) talks to a graph
through this class and the typed records of :mod:`kgstore.models`; the Cypher each
backend needs stays in its ``queries.py``. Backends implement the abstract primitives
and a few hooks (``_read_entities``, ``_read_adjacency``, ``_scan``, ``_meta``); the
reads built on them are implemented here once: the read-only caches of entities and
neighbourhoods (:mod:`kgstore.readcache`), pattern matching (index nested-loop joins,
:mod:`kgstore.algorithms.expansion`, else one compiled query,
:mod:`kgstore.cypher.compile`), and the subgraph operations (k-hop neighbourhood,
paths, :mod:`kgstore.algorithms.subgraph`), so every backend answers them the same.

Transactions: each method runs in its own transaction (read methods in a read-only one
where the backend has them); bulk import is idempotent rather than one huge transaction,
so an interrupted import is finished by running it again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, ClassVar

from kgstore import predicate_stats as _predicate_stats
from kgstore import type_samples as _type_samples
from kgstore.algorithms import subgraph as _subgraph
from kgstore.algorithms.expansion import EXPANSION_LIMIT, match_by_expansion, match_with_fallback
from kgstore.cypher.compile import DIALECTS, compile_match, match_result
from kgstore.errors import QueryTimeoutError, StoreError

# Re-exported: the importers and the loaders know the report as the Store's.
from kgstore.import_report import IMPORT_STEPS as IMPORT_STEPS
from kgstore.import_report import ImportReport as ImportReport
from kgstore.import_report import ImportSteps as ImportSteps
from kgstore.models import (
    ENTITY_DETAILS,
    Adjacency,
    Entity,
    EntityDetail,
    Fact,
    Predicate,
    SourceRecord,
    StoreStats,
)
from kgstore.patterns import Binding, MatchResult, PatternQuery
from kgstore.predicate_stats import PredicateStats
from kgstore.readcache import (
    ADJACENCY_CACHE_FACTS,
    ENTITY_CACHE_RECORDS,
    EXPANSION_CACHE_ROWS,
    Lru,
    adjacency_prefix,
)
from kgstore.search_index import SearchHit
from kgstore.staging import StageWriter, read_manifest

if TYPE_CHECKING:
    import pyarrow as pa

    from kgstore.cypher.guard import Dialect

SCHEMA_VERSION = 1
"""Bumped whenever the stored layout changes incompatibly; stores record theirs."""

ProgressCallback = Callable[[str, int, int | None], None]
"""``progress(step_description, done, total_or_None)`` — called by long operations."""


def window_count(around: Adjacency, id: str, predicate: str, *, outgoing: bool) -> int | None:
    """The ``predicate`` facts of neighbourhood ``around`` (of ``id``) with ``id`` as
    subject (``outgoing``) or object; None when ``around`` is cut short
    (:meth:`Store.slot_count`)."""
    if around.truncated:
        return None
    if outgoing:
        return sum(1 for f in around.facts if f.predicate == predicate and f.subject == id)
    return sum(1 for f in around.facts if f.predicate == predicate and f.object == id)


@dataclass(slots=True)
class CypherResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = False
    """True where the query had more rows than ``max_rows`` and only those are here."""


class Store(ABC):
    """A knowledge-graph store. Use as a context manager or call :meth:`close`."""

    backend: ClassVar[str]
    dialect: ClassVar[Dialect]
    """The Cypher this store speaks (:data:`kgstore.cypher.guard.Dialect`): what a user's
    query is checked against (``kgbench cypher``, ``POST /api/cypher``) and how a
    pattern query is compiled. Code above ``kgstore`` asks this, never the location."""
    sampling: ClassVar[ModuleType]
    """Hook: the backend's seeded sampling orders, a module with ``sample_entities``,
    ``sample_facts`` and ``type_sample_heads`` taking the store first (the same orders
    on every backend: a seed draws the same sample wherever the KG is stored)."""
    read_only: bool = False
    round_trip_reads: ClassVar[bool] = False
    """Whether every read costs a network round trip (Neo4j): reading several things
    in one go (:meth:`read_ahead`, all predicate samples at once) pays."""
    _deadline: float | None = None
    _deadline_s: float = 0.0
    # What a read-only store keeps of its reads (see _open_read_caches).
    _adjacency_cache: Lru
    _expansion_cache: Lru
    _entity_cache: Lru

    # -- lifecycle ------------------------------------------------------------------
    @property
    @abstractmethod
    def location(self) -> str:
        """Where the store lives (a directory or a Bolt URI)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.close()
            return
        # Closing after a failure (a full disk, an interrupt) must not replace that
        # error with one of its own (the same full disk meeting close's last write).
        try:
            self.close()
        except Exception:   # noqa: BLE001 - the error in flight is the one to report
            pass

    def _open_read_caches(self) -> None:
        """Empty caches of the reads a store opened read-only keeps (entity records,
        neighbourhoods, single-predicate expansions, predicate statistics and samples;
        :mod:`kgstore.readcache`): it cannot change while it is open, and graph walks
        and the extension engine come back to the same hubs question after question."""
        self._adjacency_cache = Lru(ADJACENCY_CACHE_FACTS)
        self._expansion_cache = Lru(EXPANSION_CACHE_ROWS)
        self._entity_cache = Lru(ENTITY_CACHE_RECORDS)
        self._kept_predicates: list[Predicate] = []
        self._kept_predicate_stats: list[dict[str, PredicateStats] | None] = []
        self._kept_samples: dict[str, list[Fact]] = {}
        self._kept_type_samples: dict[int, _type_samples.TypeSamples | None] = {}

    def _clear_read_caches(self) -> None:
        self._adjacency_cache.clear()
        self._expansion_cache.clear()
        self._entity_cache.clear()
        self._kept_predicates.clear()
        self._kept_predicate_stats.clear()
        self._kept_samples.clear()
        self._kept_type_samples.clear()

    # -- time limits ----------------------------------------------------------------
    @contextlib.contextmanager
    def deadline(self, timeout_s: float) -> Iterator[None]:
        """Reads in the block stop with :class:`QueryTimeoutError` once ``timeout_s``
        has passed: the engine stops a statement still running then (Neo4j: the read
        transaction's timeout; the embedded engine: an interrupt,
        :mod:`kgstore.backends.ladybug.interrupter`), and none starts after it. So a server thread that gave up on a read also frees
        the handle soon (the engine stops the work), instead of leaving it busy for as
        long as the read would have run. One handle, one thread: not for sharing."""
        previous = self._deadline, self._deadline_s
        self._deadline, self._deadline_s = time.monotonic() + timeout_s, timeout_s
        try:
            yield
        finally:
            self._deadline, self._deadline_s = previous

    def _time_left(self) -> float | None:
        """Seconds the current :meth:`deadline` leaves (``None``: no deadline);
        :class:`QueryTimeoutError` once it has passed."""
        if self._deadline is None:
            return None
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise QueryTimeoutError(self._deadline_s)
        return left

    # -- metadata -------------------------------------------------------------------
    @abstractmethod
    def stats(self) -> StoreStats: ...

    def cvt_types(self) -> frozenset[str]:
        """Types whose instances are CVT/mediator nodes, as recorded by the loaders
        (Freebase ``freebase.type_hints.mediator``); empty when none were recorded."""
        return frozenset(json.loads(self._meta("cvt_types") or "[]"))

    @abstractmethod
    def _meta(self, key: str) -> str | None:
        """Hook: the value of the store's ``Meta`` row ``key``, ``None`` when absent."""

    def _meta_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The values of the ``Meta`` rows ``keys`` that exist (backends may read them
        in one query)."""
        found = {k: self._meta(k) for k in keys}
        return {k: v for k, v in found.items() if v is not None}

    @abstractmethod
    def _write_meta(self, values: dict[str, str]) -> None:
        """Hook: set the ``Meta`` rows ``values`` (key: value), in one transaction."""

    @abstractmethod
    def sources(self) -> list[SourceRecord]:
        """Inputs loaded so far, oldest first (``status`` 'loading' = interrupted)."""

    @abstractmethod
    def record_source(self, source: SourceRecord) -> None:
        """Insert or replace the record of one source (keyed by file + checksum)."""

    def staging_dir(self) -> Path | None:
        """The folder where the loaders stage this store's inputs and keep a stage
        between runs (a re-run after a failed import reuses it), or ``None``: the
        backend keeps no stages, so each load stages into a temporary folder that is
        removed after it. Whatever is staged here is the backend's to clean up."""
        return None

    # -- ingest ---------------------------------------------------------------------
    def import_stage(
        self,
        stage_dir: str | Path,
        *,
        nameless_is_cvt: bool = False,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        """Merge a complete staged directory (:mod:`kgstore.staging`) into the store.

        Upsert semantics: entities merge with stored ones (name/description: the new
        non-null value wins; aliases/types: union; a replaced name becomes an alias),
        facts already stored are skipped, endpoints without an entity row become
        placeholder entities. Importing the
        same stage twice changes nothing the second time. ``nameless_is_cvt`` marks
        entities without a name that are the subject of a fact as CVTs.
        """
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only; cannot import")
        return self._import_stage(Path(stage_dir), read_manifest(stage_dir), nameless_is_cvt,
                                  progress)

    @abstractmethod
    def _import_stage(self, stage: Path, manifest: dict[str, Any], nameless_is_cvt: bool,
                      progress: ProgressCallback | None) -> ImportReport:
        """Hook: merge the complete stage ``stage`` (its ``manifest`` read) into the
        store opened for writing (see :meth:`import_stage`)."""

    def ingest(
        self,
        entities: Iterable[Entity] = (),
        facts: Iterable[Fact] = (),
        *,
        predicates: Iterable[Predicate] = (),
        cvt_types: Iterable[str] = (),
        nameless_is_cvt: bool = False,
    ) -> ImportReport:
        """Stage records from in-memory iterables and import them (the same fast path
        the loaders use). Idempotent: ingesting the same records twice adds nothing.
        ``cvt_types`` are mediator types: their instances become CVTs."""
        with tempfile.TemporaryDirectory(prefix="kgbench-stage-") as tmp:
            with StageWriter(Path(tmp) / "stage") as writer:
                for e in entities:
                    writer.add_entity_record(e)
                for f in facts:
                    writer.add_fact_record(f)
                for p in predicates:
                    writer.add_predicate(p.id, p.label, p.aliases)
                for t in cvt_types:
                    writer.add_cvt_type(t)
            return self.import_stage(writer.dir, nameless_is_cvt=nameless_is_cvt)

    # -- entity lookups -------------------------------------------------------------
    def entity(self, id: str) -> Entity | None:
        return self.entities([id]).get(id)

    def entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        """The stored entities among ``ids`` (missing ids are left out), as fresh
        records. A read-only store keeps the records it read (and the ids it did not
        find): the same hubs and answers come back question after question."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Entity | None] = {}
        missing = []
        for id in wanted:
            kept = self._entity_cache.get(id) if self.read_only else None
            if kept is None:
                missing.append(id)
            else:
                found[id] = kept[0]
        if missing:
            read = self._read_entities(missing)
            for id in missing:
                found[id] = read.get(id)
                if self.read_only:
                    self._entity_cache.put(id, (found[id],), 1)
        return {id: dataclasses.replace(e) for id in wanted if (e := found[id]) is not None}

    @abstractmethod
    def _read_entities(self, ids: list[str]) -> dict[str, Entity]:
        """Hook: the stored entities among ``ids`` (distinct, at least one), read from
        the engine in as few queries as it allows."""

    @abstractmethod
    def find_by_name(self, name: str, *, limit: int = 50) -> list[Entity]:
        """Entities whose name or an alias equals ``name`` ignoring case and extra
        whitespace (:func:`kgstore.models.normalize_name`), sorted by id."""

    @abstractmethod
    def search(self, text: str, *, limit: int = 20) -> list[SearchHit]:
        """Named, non-CVT entities whose name or an alias matches ``text`` exactly, by
        the start of a word or as a substring, accents and case ignored, the best
        ``limit`` of them: by how they match, then by degree (facts in and out), then
        by id (the rules: :mod:`kgstore.search_index`)."""

    def prepare_search(self, progress: ProgressCallback | None = None) -> bool:
        """Make :meth:`search` ready: a store whose search index is missing (written
        before there was one) builds it here, once, reporting to ``progress``; whether
        it did. Searching without this builds it too, silently."""
        return False

    @abstractmethod
    def generation(self) -> str:
        """A token that changes whenever a writer has changed the store: a holder of
        read-only handles (the server) compares it before reads and reopens them when
        it changed. Cheap, and safe to call on a handle another thread is using."""

    def predicates(self, *, limit: int | None = None) -> list[Predicate]:
        """Predicates with their fact counts, most frequent first. A read-only store
        reads them once: the extension engine asks once per question (300 rows: 5 ms a
        question embedded on 5M facts, a round trip on Neo4j)."""
        if not self.read_only:
            return self._read_predicates(None if limit is None else max(limit, 0))
        if not self._kept_predicates:
            self._kept_predicates.extend(self._read_predicates(None))
        return [dataclasses.replace(p) for p in
                self._kept_predicates[:None if limit is None else max(limit, 0)]]

    @abstractmethod
    def _read_predicates(self, limit: int | None) -> list[Predicate]:
        """Hook: :meth:`predicates` read from the engine (``limit`` at least 0)."""

    @abstractmethod
    def predicate_ends(self) -> dict[str, tuple[int, int, int, int]]:
        """For every predicate, in one pass over the facts: ``(subjects, subjects with
        exactly one fact over it, entity objects, entity objects with exactly one fact
        over it)`` — how functional the predicate is, in both directions. Scans every
        fact: :meth:`predicate_stats` reads the same numbers as every import keeps them."""

    # -- predicate statistics (kgstore.predicate_stats) -------------------------------
    def predicate_stats(self) -> dict[str, PredicateStats] | None:
        """Every predicate's statistics as the imports keep them
        (:mod:`kgstore.predicate_stats`; their :meth:`~PredicateStats.ends` are
        :meth:`predicate_ends`'s), or ``None`` when the store has none to trust (loaded
        before they were kept, or an import was interrupted):
        :meth:`refresh_predicate_stats` computes them. A read-only store reads them once."""
        if self.read_only and self._kept_predicate_stats:
            return self._kept_predicate_stats[0]
        found = _predicate_stats.stored(self)
        if self.read_only:
            self._kept_predicate_stats.append(found)
        return found

    def predicate_sample(self, predicate: str) -> list[Fact]:
        """``predicate``'s kept sample: :data:`~kgstore.predicate_stats.SAMPLE_FACTS`
        facts, exactly :meth:`sample_facts` with seed
        :data:`~kgstore.predicate_stats.SAMPLE_SEED` (which scans the facts: 0.47 s
        on 5M facts), read from the store when it keeps statistics, else sampled. A
        read-only store keeps what it read."""
        return _predicate_stats.sample_of(self, predicate)

    def refresh_predicate_stats(self, progress: ProgressCallback | None = None) -> int:
        """Compute every predicate's statistics from all the facts and keep them (for a
        store without them, see :meth:`predicate_stats`); returns the predicates with
        facts. Reads every fact once (5M embedded facts: about half a minute)."""
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only; open it writable "
                             "to keep predicate statistics")
        return _predicate_stats.refresh(self, progress)

    def keep_type_samples(self, seed: int, progress: ProgressCallback | None = None) -> bool:
        """Keep every type's start of its :meth:`sample_entities` order for ``seed``
        (named, non-CVT entities; :mod:`kgstore.type_samples`), so that runs with that
        seed draw typed samples without scanning; whether they were computed now (not
        kept already). Scans the entities once."""
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only; open it writable "
                             "to keep type samples")
        if progress:
            progress(f"type samples: seed {seed}", 0, 1)
        computed = _type_samples.keep(self, seed)
        if progress:
            progress(f"type samples: seed {seed}", 1, 1)
        return computed

    def _kept_type_sample(self, k: int, seed: int, type_id: str | None, named_only: bool,
                          include_cvt: bool) -> list[str] | None:
        """The ids of :meth:`sample_entities`'s answer where a read-only store keeps
        them for ``seed`` (:meth:`keep_type_samples`), else ``None``."""
        if not self.read_only or type_id is None or not named_only or include_cvt:
            return None
        if seed not in self._kept_type_samples:
            self._kept_type_samples[seed] = _type_samples.kept(self, seed)
        samples = self._kept_type_samples[seed]
        return None if samples is None else samples.sample(type_id, k)

    def _type_sample_heads(self, seed: int) -> tuple[dict[str, list[str]], set[str]]:
        """Every type's head of named, non-CVT members for ``seed`` and the small
        types kept whole (:mod:`kgstore.type_samples`)."""
        return self.sampling.type_sample_heads(self, seed)

    def _fact_rows(self) -> Iterator[pa.Table]:
        """Hook: every fact as :data:`~kgstore.predicate_stats.FACT_SCHEMA` rows, in
        batches (for :meth:`refresh_predicate_stats`); backends may read faster."""
        return _predicate_stats.fact_batches(self.iter_facts(batch=50_000))

    @abstractmethod
    def _predicate_degrees(self, ids: Sequence[str], *, outgoing: bool
                           ) -> list[tuple[str, str, int]]:
        """Hook: ``(id, predicate, n)`` for each entity of ``ids`` and each predicate of
        its facts out (``outgoing``) or in (from entities), ``n`` facts of it: what an
        import's new facts changed of the predicates' ends
        (:class:`~kgstore.predicate_stats.StatsUpkeep`)."""

    @abstractmethod
    def type_counts(self) -> dict[str, int]:
        """Entities per type (``Entity.types``), for every type in the store: how
        specific a type is (the fewer members, the more specific)."""

    # -- facts ----------------------------------------------------------------------
    @abstractmethod
    def facts_out(self, id: str, *, predicate: str | None = None, limit: int = 100) -> list[Fact]:
        """Facts whose subject is ``id`` (objects may be literals), optionally one predicate."""

    @abstractmethod
    def facts_in(self, id: str, *, predicate: str | None = None, limit: int = 100) -> list[Fact]:
        """Facts whose object is the entity ``id``."""

    def facts_many(self, ids: Sequence[str], *, predicate: str, outgoing: bool, limit: int,
                   literals: bool = True) -> tuple[dict[str, list[Fact]], bool]:
        """The ``predicate`` facts out of (``outgoing``) or into each entity of ``ids``,
        at most ``limit`` in all: ``{id: facts}`` (``[]`` for an id without any), and a
        flag that says more exist, in which case the lists are incomplete.
        ``literals=False`` leaves out facts with literal objects (a caller that needs an
        entity at the other end saves the read). The facts of one id come in no
        particular order.

        Index nested-loop joins (:mod:`kgstore.algorithms.expansion`) expand every node of a
        frontier this way; this default asks once per id, backends override it with one
        query per batch."""
        found: dict[str, list[Fact]] = {}
        left = limit
        for id in dict.fromkeys(ids):
            read = self.facts_out if outgoing else self.facts_in
            facts = read(id, predicate=predicate, limit=left + 1)
            if len(facts) > left:
                # Literal objects count here even when left out: a backend may list
                # them first, so the entity facts beyond them are unknown.
                return found, True
            if not literals:
                facts = [f for f in facts if not f.is_literal]
            found[id] = facts
            left -= len(facts)
        return found, False

    def facts_around(self, id: str, *, limit: int) -> tuple[list[Fact], bool]:
        """Up to ``limit`` facts out of and into ``id``; the flag says more exist."""
        adjacency = self.adjacency(id, limit=limit)
        return adjacency.facts, adjacency.truncated

    def linked_entities(self, id: str, predicate: str, *, outgoing: bool,
                        limit: int) -> tuple[list[Entity], bool]:
        """The entities ``id`` links to over ``predicate``: ``e`` with a fact ``(id,
        predicate, e)`` when ``outgoing``, else ``(e, predicate, id)``, in the order of
        :meth:`facts_out` / :meth:`facts_in`, at most ``limit`` (literal objects left
        out), and a flag that says more may exist. The records may leave out aliases and
        descriptions, as ``adjacency(detail="lean")`` does. One relation of a
        node, where :meth:`adjacency` reads all of them: siblings of an answer (the
        other films of its director) cost one read."""
        read = self.facts_out if outgoing else self.facts_in
        facts = read(id, predicate=predicate, limit=limit + 1)
        ends = [f.object_key if outgoing else f.subject for f in facts[:limit] if not f.is_literal]
        records = self.entities(ends)
        # Literal objects count towards the read: entity facts may lie beyond them.
        return [records[e] for e in ends if e in records], len(facts) > limit

    def adjacency(self, id: str, *, limit: int, detail: EntityDetail = "full") -> Adjacency:
        """Up to ``limit`` facts out of and into ``id`` (entity objects out, then facts
        in, then literal objects out: a window is a prefix of that order), the entities
        at their other ends, and whether more facts exist.

        The graph walks of :mod:`kgstore.algorithms.subgraph` call this once per visited
        node. ``detail`` (:data:`~kgstore.models.EntityDetail`) lets a backend read
        less of each neighbour's record for callers that need no more and read many
        neighbourhoods: ``"lean"`` leaves aliases and descriptions out (on a hub most
        of the read), ``"brief"`` types too (half of what is left).

        A read-only store keeps neighbourhoods (least recently used out first): graph
        walks come back to the same hubs again and again (41% of the reads of the
        extension benchmark's 300 questions repeat one). A kept read at a richer
        detail answers a poorer one, and a kept read of a larger window (or of the
        whole neighbourhood) a smaller one. Callers get fresh lists and dicts; the
        Entity records are shared."""
        kept = self._kept_adjacency(id, limit, detail)
        if kept is not None:
            return kept
        result = self._read_adjacency(id, limit, detail)
        if self.read_only:
            kept = self._adjacency_cache.get((id, detail))
            if kept is None or kept[1] < limit:   # a copy: callers' edits stay theirs
                self._adjacency_cache.put((id, detail), (adjacency_prefix(result, limit), limit),
                                          len(result.facts) + 1)
        return result

    def _kept_adjacency(self, id: str, limit: int, detail: EntityDetail) -> Adjacency | None:
        """What :meth:`adjacency` answers from the reads a read-only store keeps, or
        None when it has to read."""
        if not self.read_only:
            return None
        for level in ENTITY_DETAILS[:ENTITY_DETAILS.index(detail) + 1]:
            kept = self._adjacency_cache.get((id, level))
            if kept is not None and (kept[1] >= limit or not kept[0].truncated):
                return adjacency_prefix(kept[0], limit)
        return None

    def slot_count(self, id: str, predicate: str, *, outgoing: bool, window: int) -> int | None:
        """How many ``predicate`` facts have ``id`` as their subject (``outgoing``) or
        object, counted in ``id``'s neighbourhood of ``window`` facts as
        :meth:`adjacency` reads it (:func:`window_count`: a fact from ``id`` to itself
        is there twice, once each way); None when the neighbourhood holds more than
        ``window`` facts, so that a caller's answer does not hang on what a hub's
        window happens to hold. How many directors a film has in the store, whether
        Egypt's official language is the only one kept. Backends may count without
        reading the neighbourhood's records; the answer is the same."""
        return window_count(self.adjacency(id, limit=window, detail="brief"), id, predicate,
                            outgoing=outgoing)

    @abstractmethod
    def _read_adjacency(self, id: str, limit: int, detail: EntityDetail) -> Adjacency:
        """Hook: :meth:`adjacency` read from the engine (nothing kept)."""

    def read_ahead(self, ids: Iterable[str], *, names: bool = False) -> None:
        """A hint: the caller is about to read around ``ids`` (their records,
        neighbourhoods, single predicates of them; with ``names``, the entities that
        share their names). A backend whose every read is a network round trip
        (:attr:`round_trip_reads`: Neo4j) reads them now, together, and keeps them
        while it is open read-only, so that the reads of one question cost a few round
        trips instead of one each; results are the same either way. Embedded reads are
        local: nothing to do."""
        return None

    @contextlib.contextmanager
    def read_transaction(self) -> Iterator[None]:
        """A block whose reads may share one read transaction: a backend whose every
        read is a network round trip (:attr:`round_trip_reads`: Neo4j) opens one at the
        block's first read, when the store is open read-only, instead of a transaction
        (and its commit) per read, and keeps it for the blocks that follow until it is
        a few seconds old or the store closes
        (:mod:`kgstore.backends.neo4j.shared_reads`); results are the same either way.
        Blocks nest. One handle, one thread, as for every read.
        Embedded reads are local: nothing to do."""
        yield

    # -- subgraphs (backend-neutral: the functions of kgstore.algorithms.subgraph, whose
    # first parameter is the store, are the methods; signatures and docs live there) --
    neighborhood = _subgraph.neighborhood
    paths = _subgraph.paths

    # -- pattern matching -----------------------------------------------------------
    def match(self, query: PatternQuery, *,
              seeds: Sequence[Binding] | None = None) -> MatchResult:
        """All solutions of a triple-pattern query (see :mod:`kgstore.patterns`).

        ``seeds`` restricts them to those that extend one of these partial solutions,
        as SPARQL's ``VALUES`` block does (:func:`kgstore.patterns.seeded_solutions`
        says exactly what comes back): every seed binds the same variables of the
        query, else ``ValueError``. The join starts from the seeds where it can, so a
        few known nodes do not cost a match of the whole query.

        One-hop expansions joined in Python beat one multi-MATCH query by 100x on
        large embedded stores (see :mod:`kgstore.algorithms.expansion`), and a single
        pattern read as one expansion beats the compiled query's DISTINCT ... ORDER BY
        (0.3 against 3 ms on 5M facts); a query that does not suit expansion runs as
        one compiled query (:func:`kgstore.cypher.compile.compile_match`)."""
        return match_with_fallback(self, query, seeds, self._compiled_match)

    def try_match(self, query: PatternQuery, *, seeds: Sequence[Binding],
                  exists: Callable[[Binding], bool] | None = None) -> MatchResult | None:
        """:meth:`match` with ``seeds``, or ``None`` where the join is declined as too
        costly (a hub with more facts than :attr:`expansion_limit` on the way): for
        callers that can do without the answer rather than wait for it.

        ``exists`` asks only whether a solution passing it exists (SPARQL ``ASK``; it is
        given every variable of a solution, selected or not): the result then holds one
        such solution, whichever is found first, or none."""
        return match_by_expansion(self, query, seeds=seeds, exists=exists)

    @property
    def expansion_limit(self) -> int:
        """Most facts of one node over one predicate that :meth:`try_match` reads
        before it declines; a caller reading such facts itself reads no more."""
        return EXPANSION_LIMIT

    def _compiled_match(self, query: PatternQuery) -> MatchResult:
        """The solutions of ``query`` from one compiled Cypher query."""
        cypher, params, columns = compile_match(query, DIALECTS[self.dialect])
        return match_result(query, columns, self._scan(cypher, params))

    @abstractmethod
    def _scan(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        """Hook: the rows of one read query of this backend's Cypher that may read
        whole tables (a compiled match)."""

    # -- sampling (the backend's orders: :attr:`sampling`) ------------------------------
    def sample_entities(
        self, k: int, *, seed: int, type_id: str | None = None, named_only: bool = True,
        include_cvt: bool = False,
    ) -> list[Entity]:
        """A reproducible sample of ``k`` entities (same seed + same store -> same
        sample), optionally of one type."""
        return self.sampling.sample_entities(self, k, seed=seed, type_id=type_id,
                                             named_only=named_only, include_cvt=include_cvt)

    def sample_facts(self, k: int, *, seed: int, predicate: str | None = None) -> list[Fact]:
        """A reproducible sample of ``k`` facts, optionally of one predicate."""
        return self.sampling.sample_facts(self, k, seed=seed, predicate=predicate)

    # -- whole-store scans (copy between backends, offline export, checksums) ----------
    @abstractmethod
    def iter_entities(self, *, batch: int = 10_000) -> Iterator[list[Entity]]:
        """Every entity of the store (placeholders and CVTs too), in batches of at most
        ``batch``, in id order (the engine's string order). For whole-store copies and
        exports, not for lookups: a backend may hold a read open while the caller
        consumes the batches."""

    @abstractmethod
    def iter_facts(self, *, batch: int = 10_000) -> Iterator[list[Fact]]:
        """Every fact of the store (literal objects with their value, datatype and
        language), in batches of at most ``batch``, ordered by subject id, predicate and
        object key. See :meth:`iter_entities`."""

    # -- power users ----------------------------------------------------------------
    @abstractmethod
    def cypher(self, query: str, params: dict[str, Any] | None = None, *,
               max_rows: int | None = None, timeout_s: float | None = None) -> CypherResult:
        """Run one read-only Cypher query (what that allows:
        :mod:`kgstore.cypher.guard`). Anything else raises
        :class:`~kgstore.errors.ReadOnlyQueryError` and runs nothing.

        ``params`` must give every ``$name`` the query uses, with values the backend can
        take (:mod:`kgstore.cypher.params`), else :class:`~kgstore.errors.QueryParameterError`.
        Whoever runs users' queries (the CLI, a service) bounds them: at most
        ``max_rows`` rows are returned (``truncated`` says whether there were more; the
        rest are never turned into Python objects), and a query still running after
        ``timeout_s`` seconds is stopped with :class:`~kgstore.errors.QueryTimeoutError`.
        ``None``: no bound (the library's own callers)."""
