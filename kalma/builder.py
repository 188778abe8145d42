"""Building one KaLMA entry from a store (§2.2, App. A): the entities it is about
(:mod:`kalma.pairs`), their knowledge pools (:mod:`kalma.pool`), the evolutionary
selection of the minimum knowledge set by App. A.3 Eq. 1 (:mod:`kalma.evolve`), and the
paragraph and questions, templated (:mod:`kalma.templates`) or written by an LLM with
kgbench's own prompts or the user's (:mod:`kalma.prompts`).

No files here: :mod:`kalma.generate` runs the builder over chunks and writes them. An
entry depends only on the store, the :class:`BuildConfig` and its start (a pair or an
entity), never on which chunk builds it; the choices are deterministic (Eq. 1's argmax,
ties broken by knowledge key), so no random draw is needed beyond the seeded order of
:meth:`KalmaBuilder.seeds`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from extension.inputs.domain_spec import DomainSpec
from extension.verbalize.relation_phrases import PhraseTable
from kalma.entry import EntityRef, KalmaEntry, Knowledge
from kalma.errors import KalmaError
from kalma.evolve import DEFAULT_ALPHA, best_index, coherence, selection_scores, specificity
from kalma.pairs import SINGLE_HINT, EntityPair, find_connected_pairs, single_entities
from kalma.pool import is_citable, knowledge_pool
from kalma.prompts import GenerationPrompts, QuestionWriter
from kalma.templates import (
    general_question,
    knowledge_sentence,
    qualifier_anchor,
    specific_question,
)
from kgstore.store import Store
from llm.client import ChatClient
from scoring.runtime import CausalLM

__all__ = ["BuildConfig", "BuildSkip", "KalmaBuilder", "MIN_KNOWLEDGE", "Step"]

MIN_KNOWLEDGE = 2
"""Fewest pieces of knowledge an entry's minimum knowledge set may have: one fact makes
no evolution, and the conscious-incompetence variants (§4.4) need some left."""

SEED_SURPLUS = 3
""":meth:`KalmaBuilder.seeds` returns up to ``SEED_SURPLUS·n + 20`` starts, so that
skipped ones can be made up for."""


@dataclass(frozen=True)
class BuildConfig:
    """How entries are built. ``iterations``: pieces of knowledge added (the paper
    uses five, App. A.3; iteration 1 is the link of a pair, which may hold more than
    one fact); ``alpha``: Eq. 1's α (kgbench's default 0.5: the paper gives none);
    ``single``: entries about one entity instead of a connected pair; ``pool_limit``:
    most facts read per entity; ``id_prefix``: entry ids are ``<prefix>-<index:05d>``."""

    domain: DomainSpec
    n: int
    seed: int
    iterations: int = 5
    alpha: float = DEFAULT_ALPHA
    single: bool = False
    pool_limit: int = 200
    id_prefix: str = "kalma"

    def __post_init__(self) -> None:
        if self.n < 1:
            raise KalmaError(f"--n must be at least 1, got {self.n}")
        if self.iterations < MIN_KNOWLEDGE:
            raise KalmaError(f"--iterations must be at least {MIN_KNOWLEDGE}, got {self.iterations}")
        if not 0.0 <= self.alpha <= 1.0:
            raise KalmaError(f"--alpha must be between 0 and 1, got {self.alpha}")
        if self.pool_limit < 1:
            raise KalmaError(f"pool_limit must be at least 1, got {self.pool_limit}")

    def fingerprint(self) -> dict[str, Any]:
        """What decides the entries (for a resumable run's manifest): every field, the
        domain as its kind and value."""
        doc = asdict(self)
        doc["domain"] = {"kind": self.domain.kind, "value": self.domain.value}
        return doc


@dataclass(frozen=True)
class Step:
    """One iteration's Eq. 1 terms, per candidate, and the ``index`` of the one added."""

    index: int
    sentences: list[str]
    specificities: list[float]
    coherences: list[float] | None
    scores: list[float]


@dataclass(frozen=True)
class BuildSkip:
    """A start that gives no entry, and why ("pool has 1 usable fact")."""

    start: str
    reason: str


class KalmaBuilder:
    """Builds entries from ``store`` (see the module docstring). ``lm``: the causal-LM
    scorer for Eq. 1's coherence (without it, specificity alone); ``client``: an LLM
    chat client for the paragraph and questions (App. D Tables 9–12; without it,
    templates), asked with ``prompts`` (default: kgbench's own)."""

    def __init__(self, store: Store, config: BuildConfig, *, lm: CausalLM | None = None,
                 client: ChatClient | None = None,
                 prompts: GenerationPrompts | None = None) -> None:
        self.store = store
        self.config = config
        self.lm = lm
        self.client = client
        predicates = store.predicates()
        self.labels: dict[str, str] = {p.id: p.label for p in predicates if p.label}
        self.counts: dict[str, int] = {p.id: p.count for p in predicates if p.count > 0}
        self.total = sum(self.counts.values())
        self.table = PhraseTable(self.labels)
        self.writer = QuestionWriter(client, prompts) if client is not None else None
        self.ambiguous = 0
        """Pairs :meth:`seeds` left out because a name could not be told apart."""

    # -- starts -----------------------------------------------------------------------
    def seeds(self) -> list[EntityPair | EntityRef]:
        """What entries start from, in the seeded order: connected pairs, or entities
        with ``config.single``; up to ``SEED_SURPLUS·n + 20`` of them, so that the
        caller can make up for skipped ones (entry ``index`` i is built from the i-th
        start it uses). Raises :class:`KalmaError` when there is none (for pairs: the
        hint suggests ``--single``)."""
        limit = SEED_SURPLUS * self.config.n + 20
        domain, seed = self.config.domain, self.config.seed
        if self.config.single:
            found = single_entities(self.store, domain, seed=seed, limit=limit)
            if not found:
                raise KalmaError(f"no named entity of {domain} with an unambiguous name in "
                                 "the store", "check --domain")
            return list(found)
        search = find_connected_pairs(self.store, domain, seed=seed, limit=limit,
                                      labels=self.labels)
        self.ambiguous = search.ambiguous
        if not search.pairs:
            extra = (f"; {search.ambiguous} left out because a namesake could not be told "
                     "apart" if search.ambiguous else "")
            raise KalmaError(f"no connected pair of {domain} in the store ({search.scanned} "
                             f"entities of the domain looked at, none linked to another "
                             f"directly or through one CVT{extra})", SINGLE_HINT)
        return list(search.pairs)

    # -- one entry --------------------------------------------------------------------
    def pool(self, entity_id: str) -> list[Knowledge]:
        return knowledge_pool(self.store, entity_id, labels=self.labels,
                              limit=self.config.pool_limit)

    def build(self, start: EntityPair | EntityRef, index: int) -> KalmaEntry | BuildSkip:
        """The entry ``<id_prefix>-<index:05d>`` from ``start``, or a
        :class:`BuildSkip` saying why there is none."""
        if isinstance(start, EntityPair):
            entities: tuple[EntityRef, ...] = (start.a, start.b)
            pools = [self.pool(start.a.id), self.pool(start.b.id)]
            names = dict(start.display)
            first: list[Knowledge] = list(start.link)
            start_id = start.id
        else:
            entities = (start,)
            pools = [self.pool(start.id)]
            names = {}
            first = []
            start_id = start.id
        knowledge_pool_all = _merged(pools)
        between = {e.id for e in entities}
        candidates = [k for k in knowledge_pool_all if is_citable(k) and k.predicate
                      and k.predicate not in UNASKED_PREDICATES and self._count(k) > 0
                      and not (len(entities) > 1 and k.object_id in between)]
        anchors = {k.key(): a for k in knowledge_pool_all
                   if (a := qualifier_anchor(k, knowledge_pool_all)) is not None}
        if not first:
            # The first fact is no CVT qualifier: its anchor would not be in the set.
            firsts = [k for k in candidates if k.key() not in anchors]
            if not firsts:
                return BuildSkip(start_id, "pool has no usable fact")
            specs = [self._specificity(k) for k in firsts]
            first = [firsts[best_index(specs, [k.key() for k in firsts])]]
        if len(first) + len(candidates) < MIN_KNOWLEDGE:
            return BuildSkip(start_id, f"pool has {len(first) + len(candidates)} usable fact"
                             f"{'' if len(first) + len(candidates) == 1 else 's'}")
        several = _several(knowledge_pool_all)
        chosen = list(first)
        used = {_fact_id(k) for k in chosen}
        sentences = [self._sentence(k, several, anchors) for k in chosen]
        record: list[dict[str, Any]] = [{"added": [k.triple() for k in chosen],
                                         "specificity": [self._specificity(k) for k in chosen],
                                         "coherence": None, "score": None}]
        paragraph = " ".join(sentences)
        if self.writer is not None:
            paragraph = self.writer.annotate(paragraph, chosen, pools)
        for _ in range(1, self.config.iterations):
            # A CVT's qualifier (a marriage's start date, a role's character) only after
            # its anchor (that spouse, that film): alone it does not say which marriage.
            told = {k.via for k in chosen if k.via and k.key() not in anchors}
            left = [k for k in candidates if _fact_id(k) not in used
                    and (k.key() not in anchors or k.via in told)]
            if not left:
                break
            step = self.choose(paragraph, left, several, anchors)
            i = step.index
            k = left[i]
            chosen.append(k)
            used.add(_fact_id(k))
            record.append({"added": k.triple(), "specificity": step.specificities[i],
                           "coherence": None if step.coherences is None else step.coherences[i],
                           "score": step.scores[i]})
            if self.writer is not None:
                paragraph = self.writer.extend(paragraph, k, step.sentences[i])
            else:
                paragraph = f"{paragraph} {step.sentences[i]}"
        if len(chosen) < MIN_KNOWLEDGE:
            return BuildSkip(start_id, f"pool has {len(chosen)} usable fact")
        several_keys = frozenset((k.subject_id, k.relation) for k in chosen
                                 if (k.subject_id, k.relation) in several)
        partial = _partial(chosen, knowledge_pool_all)
        if self.writer is not None:
            q_general, q_specific = self.writer.questions(
                paragraph, general_question(entities, chosen, names),
                specific_question(chosen, names, several_keys, partial=partial,
                                  anchors=anchors))
        else:
            q_general = general_question(entities, chosen, names)
            q_specific = specific_question(chosen, names, several_keys, partial=partial,
                                           anchors=anchors)
        generation: dict[str, Any] = {
            "method": "llm" if self.writer is not None else "template",
            "alpha": self.config.alpha,
            "coherence": "perplexity" if self.lm is not None else "none",
            "start": start_id, "single": not isinstance(start, EntityPair),
            "iterations": record}
        if self.writer is not None:
            generation["fallbacks"] = self.writer.take_fallbacks()
        return KalmaEntry(id=f"{self.config.id_prefix}-{index:05d}",
                          question_general=q_general, question_specific=q_specific,
                          paragraph=paragraph, entities=entities,
                          minimum_knowledge_set=tuple(chosen),
                          knowledge_pool=tuple(knowledge_pool_all), seed=self.config.seed,
                          generation=generation)

    # -- Eq. 1 ------------------------------------------------------------------------
    def choose(self, paragraph: str, candidates: Sequence[Knowledge],
               several: frozenset[tuple[str, str]] = frozenset(),
               anchors: Mapping[tuple[str, str, str], Knowledge] | None = None) -> Step:
        """One iteration of App. A.3: every candidate's templated sentence, its
        specificity and (with a causal LM) coherence, its Eq. 1 score, and the index of
        the one added (the argmax, ties by key). ``anchors``: a CVT qualifier's anchor
        by fact (:func:`~kalma.templates.qualifier_anchor`), named in its sentence."""
        sentences = [self._sentence(k, several, anchors) for k in candidates]
        specs = [self._specificity(k) for k in candidates]
        cohs = self._coherence(paragraph, sentences)
        scores = selection_scores(specs, cohs, self.config.alpha)
        return Step(best_index(scores, [k.key() for k in candidates]), sentences, specs,
                    cohs, scores)

    def _count(self, k: Knowledge) -> int:
        """Count_r: facts with the predicate that carries the value (the last of
        ``p1/p2``)."""
        return self.counts.get((k.predicate or "").rpartition("/")[2], 0)

    def _specificity(self, k: Knowledge) -> float:
        return specificity(self._count(k), self.total)

    def _coherence(self, paragraph: str, sentences: Sequence[str]) -> list[float] | None:
        """Eq. 1's coherence of each candidate: the perplexity of the paragraph so far
        followed by its templated sentence, one batch over the candidates."""
        if self.lm is None:
            return None
        perplexities = self.lm.perplexity([f"{paragraph} {s}" for s in sentences])
        return coherence([p if not math.isnan(p) else math.inf for p in perplexities])

    def _sentence(self, k: Knowledge, several: frozenset[tuple[str, str]] = frozenset(),
                  anchors: Mapping[tuple[str, str, str], Knowledge] | None = None) -> str:
        return knowledge_sentence(k, self.table, several=(k.subject_id, k.relation) in several,
                                  anchor=(anchors or {}).get(k.key()))


def _merged(pools: Sequence[Sequence[Knowledge]]) -> list[Knowledge]:
    """Both entities' pools, the first entity's first, duplicates by key dropped."""
    seen: dict[tuple[str, str, str], Knowledge] = {}
    for pool in pools:
        for k in pool:
            seen.setdefault(k.key(), k)
    return list(seen.values())


def _several(pool: Sequence[Knowledge]) -> frozenset[tuple[str, str]]:
    """(subject, relation) pairs with more than one value in the pool."""
    counts: dict[tuple[str, str], int] = {}
    for k in pool:
        counts[(k.subject_id, k.relation)] = counts.get((k.subject_id, k.relation), 0) + 1
    return frozenset(key for key, n in counts.items() if n > 1)


UNASKED_PREDICATES = frozenset({"people.person.gender", "P21"})
"""Relations kept in the pool but never put into a question (kgbench's choice): a
person's gender, one of a handful of values that the name mostly tells. Blind readers
of generated entries flagged "What are Paul Simon's place of birth, date of birth and
gender?" as a question nobody asks."""


def _partial(chosen: Sequence[Knowledge], pool: Sequence[Knowledge]
             ) -> dict[tuple[str, str], tuple[int, bool]]:
    """(subject id, relation) -> (how many of its values the set holds, whether others
    are in the set from the other side), where the pool has more values than the set
    covers: the question then asks for that many, not for all. A value the set states
    from the other side (the pair's marriage, read from the other spouse) is covered."""
    stated = {k.statement() for k in chosen}
    keys = {k.key() for k in chosen}
    took = Counter((k.subject_id, k.relation) for k in chosen)
    had = Counter((p.subject_id, p.relation) for p in pool
                  if p.key() in keys or p.statement() not in stated)
    covered = {(p.subject_id, p.relation) for p in pool
               if p.key() not in keys and p.statement() in stated}
    return {key: (n, key in covered) for key, n in took.items() if n < had[key]}


def _fact_id(k: Knowledge) -> tuple[str, ...]:
    """What makes two pieces of knowledge the same fact: a CVT's value reached from
    either of its people (the start date of a marriage) is one fact."""
    if k.via:
        return ("via", k.via, (k.predicate or "").rpartition("/")[2], k.object)
    return k.key()
