"""How functional each predicate is in a store, measured from its facts.

A contradictory sample (CAQA §4.3) replaces an answer by another entity. That only
contradicts the answer when the answer's slot holds one value: "The Godfather was
directed by Ridley Scott" contradicts "… by Francis Ford Coppola" because a film has
one director, but "Roberto Rossellini has the profession Screenwriter" does not
contradict "… the profession Film director": people have several professions, and the
new fact may well be true. Which slots hold one value is a property of the data, so it
is measured here rather than listed by hand (a list would not cover every KG).

The **functionality** of a predicate is the share of its subjects that have exactly one
object over it; its **inverse functionality** the share of its objects that have exactly
one subject. Both are estimated from a seeded sample of the predicate's facts
(:meth:`~kgstore.Store.sample_facts`) whose subjects (objects) are then read in full
(:meth:`~kgstore.Store.facts_many`). Sampling facts draws an end with ``c`` facts ``c``
times as often as one with a single fact, so each sampled end is weighted by ``1/c``
(an inverse-probability estimate of the share of *ends*, not of facts).

Measures are cached per store object and predicate: one measure costs one scan of the
predicate's facts, and a run asks about the same few predicates again and again. The
sample's seed is fixed (not the run's ``--seed``), so a store gives the same table in
every run and in every worker process.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from kgstore.store import Store

FUNCTIONAL_SHARE = 0.9
"""A slot holds one value when at least this share of the predicate's subjects (for the
object slot) or objects (for the subject slot) have exactly one fact over it. Measured on
the FB15k-237 dev+test slice (38,001 facts): ``people.person.gender`` 1.00,
``people.person.place_of_birth`` 1.00 pass, ``people.person.profession`` 0.81 and
``film.film.genre`` 0.69 do not. A sparse slice makes some many-valued relations look
functional (``film.director.film`` 0.91, ``people.person.nationality`` 0.98): the
measure can only know the store it is given."""
SAMPLE_FACTS = 200
"""Facts sampled per predicate: enough for a share within a few points."""
SAMPLE_SEED = 0
_READ_LIMIT = 20_000
"""Most facts read for the sampled ends of one predicate; a measure that hits it counts
the ends read so far (hubs are the ends it leaves out, and they are not functional)."""


@dataclass(frozen=True, slots=True)
class Functionality:
    """``forward``: share of subjects with one object; ``inverse``: share of objects
    with one subject (``0.0`` for a predicate without facts)."""

    forward: float
    inverse: float

    def single_valued(self, *, answer_is_object: bool) -> bool:
        """Whether the slot an answer fills holds one value: the object slot when
        ``answer_is_object`` (``(s, p, answer)``: ``s`` has one ``p``), else the
        subject slot (``(answer, p, o)``: ``o`` is the ``p`` of one subject)."""
        share = self.forward if answer_is_object else self.inverse
        return share >= FUNCTIONAL_SHARE


_CACHE: weakref.WeakKeyDictionary[Store, dict[str, Functionality]] = weakref.WeakKeyDictionary()


def functionality(store: Store, predicate: str) -> Functionality:
    """The measured :class:`Functionality` of ``predicate`` in ``store`` (cached)."""
    table = _CACHE.setdefault(store, {})
    found = table.get(predicate)
    if found is None:
        found = table[predicate] = _measure(store, predicate)
    return found


def _measure(store: Store, predicate: str) -> Functionality:
    facts = store.sample_facts(SAMPLE_FACTS, seed=SAMPLE_SEED, predicate=predicate)
    subjects = sorted({f.subject for f in facts})
    objects = sorted({f.object for f in facts if isinstance(f.object, str)})
    forward = _share_single(store, subjects, predicate, outgoing=True)
    inverse = _share_single(store, objects, predicate, outgoing=False) if objects else 0.0
    return Functionality(forward=forward, inverse=inverse)


def _share_single(store: Store, ends: list[str], predicate: str, *, outgoing: bool) -> float:
    """Weighted share of ``ends`` with exactly one ``predicate`` fact on that side."""
    if not ends:
        return 0.0
    found, _ = store.facts_many(ends, predicate=predicate, outgoing=outgoing,
                                limit=_READ_LIMIT)
    single = total = 0.0
    for end in ends:
        facts = found.get(end)
        if not facts:
            continue   # beyond the read limit: left out of the estimate
        weight = 1.0 / len(facts)
        total += weight
        if len(facts) == 1:
            single += weight
    return single / total if total else 0.0
