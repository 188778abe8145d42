"""Freebase's layout rebuilt from FB15k-237-style triples (issue 34, item 3).

FB15k-237 (Toutanova & Chen, 2015) writes an n-ary Freebase fact as one relation path
through its mediator (CVT) node: ``/film/actor/film./film/performance/film`` joins the
actor to the film over the performance node, ``/people/person/spouse_s./people/
marriage/type_of_union`` a person to the kind of marriage. Read as one edge, such a
relation is neither a Freebase predicate (WebQSP's two-step chains ``film.actor.film``
+ ``film.performance.film`` find nothing) nor readable ("History has an education with
the student Ellen Barkin"). FB15k-237 also dropped one of every pair of inverse
relations, while Freebase stores a property with a reverse property in both directions
(``film.director.film`` and ``film.film.directed_by``), so a query written the other way
round finds nothing either. :class:`Unfolder` undoes both while a TSV file stages
(:func:`loaders.triples.stage_tsv`):

* **A mediator per folded fact.** ``(h, a..b, t)`` becomes ``h -a-> m -b-> t`` with a
  new CVT ``m`` of the mediator type (``b``'s type, ``film.performance``), which the
  store also records as a mediator type. CVT rules, single-hop counting (a hop through a
  CVT counts once) and WebQSP's chains then work as on Freebase.
* **Marked derived.** ``m`` exists in no source: its id is :data:`MEDIATOR_PREFIX` plus
  a hash of the folded fact, and it has the type :data:`UNFOLDED_MEDIATOR_TYPE` beside
  its mediator type (``kgbench cypher "MATCH (e:Entity) WHERE 'kgbench.unfolded_mediator'
  IN e.types RETURN count(e)"``). The same folded fact gives the same ``m`` in every
  file and load, so loading a file again adds nothing.
* **Mediator identity: one per folded fact, never shared.** Two folded facts with the
  same first hop (``spouse_s./people/marriage/type_of_union`` and ``spouse_s./people/
  marriage/spouse`` of one person) get two mediators, though Freebase may hold them on
  one marriage: FB15k-237 does not say which facts shared a mediator (a person married
  twice has two marriages, an actor one performance per film), and joining them could
  state what no source does (one marriage's spouse with another's type of union). The
  price: a query that pins one mediator by two of its facts ("whom did X marry, in a
  union of type Marriage") finds no mediator holding both, as on a store missing one of
  the facts.
* **Reverse facts.** A fact whose predicate has a Freebase reverse property in
  ``freebase_reverse_properties.tsv`` (curated from the Freebase schema for FB15k-237's
  predicates) is also staged the other way round, mediator facts included: ``m
  -film.performance.actor-> h`` and ``t -film.film.starring-> m``.

Unfolding is on by default (``kgbench load triples --no-unfold`` keeps the file as it
is); reverse facts are asked for (``--reverse-properties``), as they double the facts
of a file and change what a store built before holds. The load report counts both
(``unfolded_facts``, ``reverse_facts``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources

from kgstore.staging import StageWriter

__all__ = ["MEDIATOR_PREFIX", "UNFOLDED_MEDIATOR_TYPE", "Unfolder", "folded_parts",
           "freebase_reverse_properties", "mediator_id"]

MEDIATOR_PREFIX = "_:unfolded_"
"""Start of the id of a mediator made by unfolding (a blank-node-like id: the node has
no identity in any source)."""
UNFOLDED_MEDIATOR_TYPE = "kgbench.unfolded_mediator"
"""The type marking a mediator made by unfolding, beside its Freebase mediator type."""
REVERSE_TABLE = "freebase_reverse_properties.tsv"

_JOINT = ".."   # where loaders.tsv.freebase_id leaves FB15k-237's "./" joint
_PROPERTY = re.compile(r"[^.\s]+(?:\.[^.\s]+){2,}\Z")   # domain.type.property


def folded_parts(relation: str) -> tuple[str, str] | None:
    """``(first, second)`` predicate of a folded relation id
    (``film.actor.film..film.performance.film``), or None for a plain one."""
    first, joint, second = relation.partition(_JOINT)
    if not joint or not _PROPERTY.match(first) or not _PROPERTY.match(second):
        return None
    return first, second


def mediator_id(head: str, relation: str, tail: str) -> str:
    """The id of the mediator of the folded fact ``(head, relation, tail)``: the same
    fact always gives the same id, different facts different ones."""
    digest = hashlib.sha256(f"{head}\t{relation}\t{tail}".encode()).hexdigest()
    return MEDIATOR_PREFIX + digest[:24]


@cache
def freebase_reverse_properties() -> Mapping[str, str]:
    """Property -> its reverse property, both ways, from :data:`REVERSE_TABLE`."""
    text = resources.files("loaders").joinpath(REVERSE_TABLE).read_text(encoding="utf-8")
    reverse: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        forward, sep, back = line.partition("\t")
        if not sep or not forward or not back or forward in reverse or back in reverse:
            raise ValueError(f"{REVERSE_TABLE}:{lineno}: expected a new "
                             f"'property<TAB>reverse' pair, found {line!r}")
        reverse[forward], reverse[back] = back, forward
    return reverse


class Unfolder:
    """Stages FB15k-237-style facts into ``writer`` in Freebase's layout (see the
    module docstring): ``unfold`` folded relations into mediators, add the facts of the
    ``reverse`` property mapping (None: none). ``counts`` tallies what it added."""

    def __init__(self, writer: StageWriter, *, unfold: bool = True,
                 reverse: Mapping[str, str] | None = None) -> None:
        self.writer = writer
        self.unfold = unfold
        self.reverse = reverse or {}
        self._mediator_types: set[str] = set()
        self.counts = {"unfolded_facts": 0, "reverse_facts": 0}

    def add(self, head: str, relation: str, tail: str) -> None:
        """Stage the fact ``(head, relation, tail)``."""
        parts = folded_parts(relation) if self.unfold else None
        if parts is None:
            self._fact(head, relation, tail)
            return
        first, second = parts
        mediator = mediator_id(head, relation, tail)
        kind = second.rsplit(".", 1)[0]
        self.writer.add_entity(mediator, types=(kind, UNFOLDED_MEDIATOR_TYPE), is_cvt=True)
        if kind not in self._mediator_types:
            self._mediator_types.add(kind)
            self.writer.add_cvt_type(kind)
        self._fact(head, first, mediator)
        self._fact(mediator, second, tail)
        self.counts["unfolded_facts"] += 1

    def _fact(self, subject: str, predicate: str, obj: str) -> None:
        self.writer.add_fact(subject, predicate, obj)
        back = self.reverse.get(predicate)
        if back is not None:
            self.writer.add_fact(obj, back, subject)
            self.counts["reverse_facts"] += 1
