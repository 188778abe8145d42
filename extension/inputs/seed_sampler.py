"""New-domain seed questions sampled from the KG itself (issue 6, "New domains").

``kgbench generate --domain SPEC`` needs no KGQA dataset: :func:`sample_seed_questions`
draws seed queries of the three CAQA logical-query shapes (Hu et al., *CAQA*, §4.1 and
Appendix B; :mod:`extension.core.shapes`) from the store, starting from entities that match
a :class:`~extension.inputs.domain_spec.DomainSpec`, writes a template question for each
(:func:`~extension.verbalize.seed_questions.template_question`)
and returns :class:`~extension.inputs.questions.ParsedQuestion` records, the same records a
parsed KGQA dataset gives, so the rest of the pipeline
(:func:`extension.core.samples.structured_samples`) runs unchanged.

Shapes, built around a domain entity ``d`` (``h`` is a hop: one edge in either
direction, or an n-ary fact through a CVT / Wikidata statement node, which
:func:`~extension.core.shapes.classify` contracts to one hop):

* **single** ``d —h→ ?a`` ("What is the birthplace of Douglas Adams?", "Al Pacino
  gave a performance with what film?");
* **path** ``d —h0→ ?v —h1→ ?a`` with ``?v`` a named, non-CVT entity. Where the
  store has CVTs the path goes through one whenever the entity's relations allow
  (``d -r0-> ?c -r1-> ?v`` is one hop after contraction, so it takes the second hop
  ``?v —h1→ ?a`` to make a path);
* **tree** two relations of ``d`` to distinct named entities ``x1``, ``x2``, asked the
  other way round: ``x1 —h1→ ?a ←h2— x2`` ("Who was born in Honolulu and was
  educated at Columbia University?"); ``d`` is among the answers.

Question text comes from :func:`~extension.verbalize.seed_questions.template_question` with
the relation phrases of :mod:`extension.verbalize.relation_phrases` (shipped table, the store's predicate labels, user
overrides), so seed questions and the verbalized samples word relations alike. The
answer is asked by its most specific readable type that every answer has
(:meth:`~extension.inputs.seed_walk.SeedWalk.answer_noun`); a seed whose text would show an id is refused
(``unreadable_text``).

Relations are drawn favouring *specific* predicates, rare over frequent ones
(:func:`~extension.inputs.seed_walk.predicate_specificity`, an IDF over the store's fact counts): the idea of
BioKaLMA's knowledge specificity (Li et al., 2023, *Towards Verifiable Generation: A
Benchmark for Knowledge-aware Language Model Attribution*, §3), which builds its
questions from the Wikidata facts that few people share rather than from gender or
nationality; times a prior of what people ask (:func:`~extension.core.asked_relations.asked_weight`:
how many WebQSP and GrailQA questions use the relation). Names, aliases, types, descriptions and other bookkeeping predicates are
never asked about (:func:`~extension.core.vocabulary.is_bookkeeping_predicate`), nor literals that are
identifiers, URLs or file names (plain strings).

Every question is grounded with :class:`~extension.core.grounding.Grounder` before it is
kept: it has answers, at most ``max_answers`` (CAQA's extension engine caps answer
sets the same way), none of them one of its own subject entities or an entity
without a name (a placeholder for an object outside the loaded data), and
:func:`~extension.core.shapes.classify` gives the intended shape (its subjects and hop count
fill the record). Shapes are balanced (``n/3`` each); a shape that falls short says
why (:data:`FAILURE_REASONS`, :class:`ShapeReport`).

Reproducible byte for byte: the domain sample is the store's seeded hash order
(:meth:`~kgstore.store.Store.sample_entities` / :meth:`~kgstore.store.Store.sample_facts`),
every choice for an entity comes from ``random.Random(f"{seed}:{shape}:{entity}")``
and every candidate list is sorted before drawing. Cost: one or a few sampling scans
for the whole run, then a handful of primary-key lookups per attempt (adjacency of
the entity, of a CVT or intermediate, one grounding) — no scan per question.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from extension.defaults import DEFAULT_MAX_ANSWERS
from extension.inputs.domain_spec import DomainSpec, parse_domain_spec
from extension.inputs.questions import ParsedQuestion
from extension.inputs.seed_walk import SeedShape, SeedWalk
from kgstore.store import Store

SEED_SHAPES: tuple[SeedShape, ...] = ("single", "path", "tree")

FAILURE_REASONS: dict[str, str] = {
    "no_relations": "no usable relation (names, types, identifiers and bookkeeping left out)",
    "no_onward_hop": "path: no usable relation onward from the intermediate entity",
    "no_second_subject": "tree: fewer than two relations to distinct named entities",
    "no_answers": "the query has no answers in the store",
    "too_many_answers": "the query has more answers than the cap",
    "answer_is_topic": "an answer is one of the question's own subject entities",
    "unnamed_answer": "an answer is an entity without a name (e.g. not in the loaded data)",
    "duplicate": "the same query was drawn before",
    "shape_mismatch": "the query graph classifies as another shape",
    "unreadable_text": "a subject or relation has no readable name, or no type of the "
                       "store names a variable, so the question would show an id or a "
                       "placeholder ('the one that', 'which entity')",
    "hub_constant": "tree: a constant most of the relation's facts point at (Male, "
                    "English, United States of America): it narrows nothing",
    "same_fact_twice": "path: both hops go through n-ary facts of one kind (the "
                       "character of a film's performance, then that character's "
                       "performances), so the question restates one fact",
    "description_fits_several": "path: the store has one intermediate entity where a "
                                "reader expects several (one actor of a film, one native "
                                "of a city), so its description would pin nobody",
    "vague_description": "path: the intermediate entity would be named by a noun that "
                         "describes nothing a reader pictures ('the language of "
                         "Collateral')",
    "broad_description": "path: the intermediate entities would be described by a "
                         "relation that links the subject to more of them than a "
                         "question may have answers (a genre's films: 'Who starred in "
                         "the musical films?') or that reaches a genre's works, a "
                         "class rather than a few a reader could list",
    "domain_exhausted": "every entity of the domain was tried",
    "attempt_limit": "the attempt cap was reached before the requested count",
}
"""Reason code -> meaning, for failed attempts and shape shortfalls (stable keys)."""


# -- informative predicates ------------------------------------------------------------


# -- the result ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ShapeReport:
    """How one shape fared: ``requested`` and ``produced`` questions, ``attempts``
    (domain entities tried), ``via_cvt`` (produced questions through a CVT),
    ``failures`` (reason code -> failed attempts, :data:`FAILURE_REASONS`) and, when
    ``produced < requested``, ``shortfall`` (``domain_exhausted`` or ``attempt_limit``)."""

    shape: SeedShape
    requested: int
    produced: int
    attempts: int
    via_cvt: int
    failures: dict[str, int] = field(default_factory=dict)
    shortfall: str | None = None


@dataclass(frozen=True, slots=True)
class SeedSample:
    """The seed questions of one domain: ``questions`` (ids
    ``{dataset}-{shape}-{k:06d}``, in the order drawn) and a :class:`ShapeReport` per
    requested shape; ``domain_entities`` is how many domain entities were sampled and
    ``unnamed_entities`` how many of them were passed over for having no name (or
    being CVTs: a predicate prefix's facts may start at one)."""

    spec: DomainSpec
    questions: list[ParsedQuestion]
    shapes: tuple[ShapeReport, ...]
    domain_entities: int
    unnamed_entities: int = 0

    def shortfalls(self) -> dict[str, int]:
        """Shape -> questions missing from its requested count (short shapes only)."""
        return {r.shape: r.requested - r.produced for r in self.shapes
                if r.produced < r.requested}


def sample_seed_questions(store: Store, spec: DomainSpec | str, n: int, *, seed: int,
                          shapes: Sequence[SeedShape] = SEED_SHAPES, dataset: str = "domain",
                          max_answers: int = DEFAULT_MAX_ANSWERS,
                          phrases: Mapping[str, str] | None = None,
                          counts: Mapping[SeedShape, int] | None = None) -> SeedSample:
    """``n`` seed questions of the domain ``spec`` (a :class:`DomainSpec` or a SPEC
    string for :func:`parse_domain_spec`), balanced over ``shapes`` (``n // len(shapes)``
    each, the remainder to the first shapes; ``counts`` gives each shape's number
    instead), as :class:`ParsedQuestion` records ready
    for :func:`extension.core.samples.structured_samples`. ``phrases`` override the shipped
    relation phrases of the question text (:func:`extension.verbalize.relation_phrases.load_relation_phrases`
    reads a user file); the store's predicate labels (Wikidata property labels) name
    the rest.

    Domain entities are tried in the store's seeded sample order, each shape walking
    the sample on its own, so one entity may seed a single, a path and a tree question;
    the sample grows (4x per step, at most ``40 n`` entities) while a shape is short.
    See the module docstring for the shapes, the relation choice and the checks every
    question passes. Same store, spec, ``n`` and ``seed`` -> the same questions, byte for
    byte. Raises ``ValueError`` for a bad spec (see :func:`parse_domain_spec`), a
    negative ``n``, ``max_answers`` below 1 or an unknown shape.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if max_answers < 1:
        raise ValueError(f"max_answers must be >= 1, got {max_answers}")
    unknown = [s for s in shapes if s not in SEED_SHAPES]
    if unknown or not shapes or len(set(shapes)) != len(shapes):
        raise ValueError(f"shapes must be distinct values of {', '.join(SEED_SHAPES)}; "
                         f"got {list(shapes)}")
    domain = spec if isinstance(spec, DomainSpec) else parse_domain_spec(spec, store)
    requested = {s: n // len(shapes) + (1 if i < n % len(shapes) else 0)
                 for i, s in enumerate(shapes)} if counts is None else \
        {s: counts.get(s, 0) for s in shapes}
    sampler = SeedWalk(store, domain, seed=seed, dataset=dataset, max_answers=max_answers,
                       phrases=phrases)
    cap = max(64, 40 * n)
    size = min(max(32, 4 * n), cap)
    pool, exhausted = sampler.pool(size)
    known = set(pool)
    cursor = dict.fromkeys(shapes, 0)
    produced = dict.fromkeys(shapes, 0)
    attempts = dict.fromkeys(shapes, 0)
    unnamed: set[str] = set()
    via_cvt = dict.fromkeys(shapes, 0)
    failures: dict[str, Counter[str]] = {s: Counter() for s in shapes}
    shortfall: dict[str, str] = {}
    questions: list[ParsedQuestion] = []
    active = [s for s in shapes if requested[s] > 0]
    while active:
        for shape in list(active):
            if produced[shape] >= requested[shape]:
                active.remove(shape)
                continue
            if cursor[shape] >= len(pool):
                if exhausted or size >= cap:
                    shortfall[shape] = "domain_exhausted" if exhausted else "attempt_limit"
                    active.remove(shape)
                    continue
                size = min(size * 4, cap)
                grown, exhausted = sampler.pool(size)
                pool += [i for i in grown if i not in known]
                known.update(grown)
                continue
            entity = pool[cursor[shape]]
            cursor[shape] += 1
            if not sampler.is_seed(entity):
                unnamed.add(entity)
                continue
            attempts[shape] += 1
            outcome = sampler.attempt(shape, entity,
                                      f"{dataset}-{shape}-{produced[shape]:06d}")
            if outcome.question is None:
                failures[shape][outcome.reason] += 1
                continue
            questions.append(outcome.question)
            produced[shape] += 1
            query = outcome.question.query
            via_cvt[shape] += query is not None and any(node.is_cvt for node in query.nodes)
    reports = tuple(
        ShapeReport(shape=s, requested=requested[s], produced=produced[s], attempts=attempts[s],
                    via_cvt=via_cvt[s], failures=dict(sorted(failures[s].items())),
                    shortfall=shortfall.get(s) if produced[s] < requested[s] else None)
        for s in shapes)
    return SeedSample(spec=domain, questions=questions, shapes=reports,
                      domain_entities=len(pool), unnamed_entities=len(unnamed))


# -- sampling -----------------------------------------------------------------------------------


