"""Domain specs for ``kgbench generate --domain SPEC``: which entities a new-domain run
starts from (:class:`DomainSpec`, :func:`parse_domain_spec`), checked against the
store's predicates and types so that a typo fails with the prefixes the store knows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from extension.core.vocabulary import is_bookkeeping_predicate
from kgstore.store import Store

_PREFIX_ENDINGS = (".", "/", "#", ":")


@dataclass(frozen=True, slots=True)
class DomainSpec:
    """Which entities seed questions start from: instances of a type (``kind="type"``,
    ``value`` a type id such as ``Q5`` or ``people.person``), or subjects of facts whose
    predicate matches ``value`` (``kind="predicate_prefix"``: a namespace ending in
    ``.``, ``/``, ``#`` or ``:`` such as ``film.``, or one whole predicate id)."""

    kind: TypingLiteral["type", "predicate_prefix"]
    value: str

    def matches_predicate(self, predicate: str) -> bool:
        """Whether ``predicate`` is in a ``predicate_prefix`` domain (always true for a
        type domain, which restricts entities, not relations)."""
        if self.kind == "type":
            return True
        return predicate == self.value or (self.value.endswith(_PREFIX_ENDINGS)
                                           and predicate.startswith(self.value))

    def __str__(self) -> str:
        return f"{'type' if self.kind == 'type' else 'predicates'} {self.value}"


def known_predicate_prefixes(predicates: Sequence[str]) -> dict[str, str]:
    """Every dotted prefix of the given predicate ids, written with its trailing dot:
    ``film.film.directed_by`` gives ``film`` and ``film.film`` -> ``film.`` and
    ``film.film.``; ids without dots (Wikidata ``P57``) give none."""
    prefixes: dict[str, str] = {}
    for p in predicates:
        parts = p.split(".")
        for i in range(1, len(parts)):
            head = ".".join(parts[:i])
            prefixes.setdefault(head, head + ".")
    return prefixes


def parse_domain_spec(spec: str, store: Store) -> DomainSpec:
    """Parse ``kgbench generate --domain SPEC`` against ``store``.

    In order: a SPEC ending in ``.``/``/``/``#``/``:`` is a predicate prefix; a SPEC
    that named, non-CVT entities of the store have as a type is a type (``Q5``,
    ``people.person``); a dotted prefix of the store's predicate ids (``film``,
    ``film.film``) is a predicate prefix (normalised to end in ``.``), and so is a whole
    predicate id. Raises ``ValueError`` saying what was expected, with a few of the
    store's common types and predicate prefixes, when nothing matches.
    """
    text = spec.strip()
    if not text:
        raise ValueError(_spec_error(store, "an empty domain spec"))
    predicates = [p.id for p in store.predicates()]
    if text.endswith(_PREFIX_ENDINGS):
        domain = DomainSpec("predicate_prefix", text)
        if any(domain.matches_predicate(p) for p in predicates):
            return domain
        raise ValueError(_spec_error(store, f"no predicate of the store starts with {text!r}"))
    if store.sample_entities(1, seed=0, type_id=text):
        return DomainSpec("type", text)
    prefix = known_predicate_prefixes(predicates).get(text)
    if prefix is not None:
        return DomainSpec("predicate_prefix", prefix)
    if text in predicates:
        return DomainSpec("predicate_prefix", text)
    raise ValueError(_spec_error(
        store, f"{text!r} is neither a type of named entities in the store nor a "
        "predicate prefix"))


def _spec_error(store: Store, problem: str) -> str:
    """The message of a domain spec that matches nothing: the problem, what a spec
    looks like, and examples from this store."""
    sample = store.sample_entities(500, seed=0)
    types = [t for t, _ in Counter(t for e in sample for t in e.types).most_common(8)]
    type_names = store.entities(types) if types else {}
    shown = [f"{t} ({type_names[t].name})" if t in type_names and type_names[t].name else t
             for t in types]
    counts: Counter[str] = Counter()
    for p in store.predicates():
        if p.count and "." in p.id and not is_bookkeeping_predicate(p.id):
            counts[p.id.split(".")[0] + "."] += p.count
    prefixes = [p for p, _ in counts.most_common(8)]
    return (f"{problem}; expected a type (e.g. Q5, people.person) or a predicate prefix "
            "ending in '.' (e.g. film.). Common types here: "
            f"{', '.join(shown) or 'none'}; predicate prefixes: {', '.join(prefixes) or 'none'}")
