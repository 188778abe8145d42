"""How functional each predicate is in a store, measured from its facts.

A contradictory sample (CAQA §4.3) replaces an answer by another entity. That only
contradicts the answer when the answer's slot holds one value: "The Godfather was
directed by Ridley Scott" contradicts "… by Francis Ford Coppola" because a film has
one director, but "Roberto Rossellini has the profession Screenwriter" does not
contradict "… the profession Film director": people have several professions, and the
new fact may well be true. Which slots hold one value is a property of the data, so it
is measured here rather than listed by hand (a list would not cover every KG).

The **functionality** of a predicate is the share of its subjects that have exactly one
object over it; its **inverse functionality** the share of its (entity) objects that
have exactly one subject. Both are counted exactly by every import and kept in the
store (:meth:`~kgstore.Store.predicate_stats`, :mod:`kgstore.predicate_stats`), so a
run reads them in one lookup; a store without them (loaded before they were kept, and
not refreshed since: ``kgbench store predicate-stats``) is measured on first use by
:meth:`~kgstore.Store.predicate_ends` (two grouped scans of the facts: 8 s on a 5M-fact
store, in every process), with the same numbers.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from kgstore.models import Fact
from kgstore.store import Store

FUNCTIONAL_SHARE = 0.9
"""A slot holds one value when at least this share of the predicate's subjects (for the
object slot) or objects (for the subject slot) have exactly one fact over it. Measured on
the FB15k-237 dev+test slice (38,001 facts): ``people.person.gender`` 1.00,
``people.person.place_of_birth`` 1.00 pass, ``people.person.profession`` 0.81 and
``film.film.genre`` 0.69 do not. A sparse slice makes some many-valued relations look
functional (``film.director.film`` 0.91, ``people.person.nationality`` 0.98): the
measure can only know the store it is given."""


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
_SAMPLES: weakref.WeakKeyDictionary[Store, dict[str, list[Fact]]] = weakref.WeakKeyDictionary()


def predicate_sample(store: Store, predicate: str) -> list[Fact]:
    """The store's fixed sample of ``predicate``'s facts
    (:meth:`~kgstore.Store.predicate_sample`: kept by the imports, else sampled once),
    read once per store: the contradictory edit's same-role replacements
    (:func:`extension.core.candidates.role_replacements`) draw from it, and a run comes
    back to the same predicates question after question."""
    table = _SAMPLES.setdefault(store, {})
    found = table.get(predicate)
    if found is None:
        found = table[predicate] = store.predicate_sample(predicate)
    return found


def functionality(store: Store, predicate: str) -> Functionality:
    """The measured :class:`Functionality` of ``predicate`` in ``store`` (every
    predicate's, read on first use and cached per store: the kept statistics, else
    one pass over the facts)."""
    table = _CACHE.get(store)
    if table is None:
        kept = store.predicate_stats()
        ends = ({p: s.ends() for p, s in kept.items()} if kept is not None
                else store.predicate_ends())
        table = _CACHE[store] = {
            p: Functionality(forward=single / subjects if subjects else 0.0,
                             inverse=single_o / objects if objects else 0.0)
            for p, (subjects, single, objects, single_o) in ends.items()}
    return table.get(predicate, Functionality(forward=0.0, inverse=0.0))
