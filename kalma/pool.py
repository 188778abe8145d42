"""The knowledge pool of an entity (KaLMA App. A.2): its one-hop subgraph as BioKaLMA's
entity dicts hold it, one :class:`~kalma.entry.Knowledge` per fact, with the relation's
label a system cites ("place of birth") and the object's name or value.

Facts through a CVT (a Freebase marriage, a Wikidata statement node with qualifiers) are
flattened onto the entity, since a citation names the entity, a relation and a value,
never a mediator node: ``person -spouse_s-> marriage -spouse-> B`` is
``[person, "spouse", B]`` and ``marriage -from-> 1990`` is
``[person, "spouse start date", "1990"]`` (see :func:`cvt_relation_label`). Bookkeeping
predicates (names, aliases, types, descriptions, keys:
:func:`extension.core.vocabulary.is_bookkeeping_predicate`) make no knowledge: the entity's
name is its ``subject_name``, not a triple.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from extension.core.vocabulary import is_bookkeeping_predicate
from extension.verbalize import english
from extension.verbalize.literals import render_literal
from extension.verbalize.relation_phrases import PhraseTable, is_readable, load_relation_phrases
from kalma.entry import Knowledge
from kgstore.models import Entity, Fact, Literal, Predicate
from kgstore.store import Store

__all__ = ["cvt_relation_label", "is_citable", "knowledge_pool", "object_text", "relation_label",
           "segment_label"]

_ID_ONLY = re.compile(r"^[PQL]\d+$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PHRASE_HEADS = ("has the ", "has an ", "has a ", "has ", "is the ", "is an ", "is a ",
                 "is ", "was ", "were ")


def relation_label(predicate: Predicate | str, store_label: str | None) -> str:
    """The relation's label as a reader sees it and a system cites it (BioKaLMA's
    "place of birth").

    * A Freebase id (``domain.type.property``): its property segment as words, the
      plural marker ``_s`` dropped (``people.person.place_of_birth`` -> "place of
      birth", ``people.person.spouse_s`` -> "spouse"); the store's Freebase labels
      ("Spouse (or domestic partner)", "Country of nationality") are longer than what
      a citation should repeat. Where the segment only repeats the domain
      (``film.director.film``) the curated relation phrase without its verb
      ("directed"), else the store's label ("film music credits"), says more and is
      used. A FB15k-237 path through a mediator (``a.b.c..d.e.f``)
      joins its two segments ("spouse type of union").
    * Otherwise the store's label (Wikidata ``P19`` labelled "Place of birth" ->
      "place of birth"; acronyms such as "ISBN" kept).
    * Without a label, the curated relation phrase of :mod:`extension.verbalize.relation_phrases`
      without its verb ("has the occupation" -> "occupation", "was born in" -> "born
      in"), else the id's words (``birthPlace`` -> "birth place"), else the id itself
      (``P1050``): an unlabelled Wikidata property has no readable name, and
      :func:`is_citable` keeps such knowledge out of generated text.
    """
    pid = predicate.id if isinstance(predicate, Predicate) else predicate
    if store_label is None and isinstance(predicate, Predicate):
        store_label = predicate.label
    local = _local_name(pid)
    if "." in local and not _ID_ONLY.match(local):
        outer, sep, inner = local.partition("..")
        if sep and inner:
            return f"{_segment_words(outer)} {_segment_words(inner)}"
        parts = outer.split(".")
        if len(parts) == 3 and parts[0] == parts[2]:
            # film.director.film: the segment repeats the domain and says nothing of
            # the relation; the curated phrase ("directed") or the label does.
            phrase = _curated_label(local)
            if phrase:
                return phrase
            if store_label and is_readable(store_label):
                return " ".join(store_label.split()).lower()
        return _segment_words(outer)
    if store_label and store_label.strip():
        words = " ".join(store_label.split())
        return words if len(words) > 1 and words[1].isupper() else words[:1].lower() + words[1:]
    phrase = _curated_label(pid) or _curated_label(local)
    if phrase:
        return phrase
    if _ID_ONLY.match(local) or not any(c.isalpha() for c in local):
        return pid
    return " ".join(_CAMEL.sub(" ", local).replace("_", " ").split()).lower() or pid


def cvt_relation_label(outer: str, inner: str, inner_role: str | None = None) -> str:
    """The label of a fact reached through a CVT: the outer relation's label when the
    CVT's fact repeats it (a marriage's ``spouse`` under ``spouse_s``, a Wikidata
    statement's main value under its property), else ``"<outer> <inner role>"``
    ("spouse start date", "film character", "education institution") — kgbench's
    rule, so that two values of one CVT keep apart and each reads as what it is of
    the entity. ``inner_role`` is the inner predicate's role noun where one is known
    (:meth:`PhraseTable.role`: ``people.marriage.from`` -> "start date")."""
    role = inner_role if inner_role and is_readable(inner_role) else inner
    if english.singular(inner) == english.singular(outer) or role == outer:
        return outer
    return f"{outer} {role}"


def object_text(obj: str | Literal, entities: Mapping[str, Entity]) -> tuple[str, str | None]:
    """``(text, entity id or None)`` for a fact's object: an entity's name (its id when
    it has none), or a literal as a reader writes it (:func:`render_literal`:
    "24 March 1972"), which is also what the entry's text says, so a citation can copy
    it from either."""
    if isinstance(obj, Literal):
        return render_literal(obj.value, obj.datatype, obj.lang), None
    found = entities.get(obj)
    name = english.display_name(found.name) if found is not None else None
    return (name or obj), obj


def is_citable(k: Knowledge) -> bool:
    """Whether a piece of knowledge can go into generated text: its relation reads as
    English and its object is a value or a named entity (not a bare id such as an
    unlabelled Wikidata ``P1050`` or a placeholder ``Q10860654``). Other knowledge stays
    in the pool: a system may cite it, but no question asks for it."""
    if not is_readable(k.relation) or not k.object.strip():
        return False
    if k.object_id is not None:
        return k.object != k.object_id and is_readable(k.object)
    return True


def knowledge_pool(store: Store, entity_id: str, *, labels: Mapping[str, str],
                   limit: int = 200) -> list[Knowledge]:
    """The one-hop subgraph of ``entity_id`` (App. A.2 "knowledge pool"): its outgoing
    facts, bookkeeping dropped, facts through a CVT flattened (the CVT's fact back to
    the entity itself left out; ``via`` = the CVT, ``predicate`` = ``p1/p2``).
    ``labels``: predicate id -> the store's label (:meth:`Store.predicates`). At most
    ``limit`` facts of the entity are read, and at most ``limit`` pieces returned, in a
    deterministic order (relation, object, predicate, via), duplicates by
    :meth:`Knowledge.key` dropped."""
    entity = store.entity(entity_id)
    if entity is None:
        return []
    subject_name = english.display_name(entity.name) or entity_id
    facts = [f for f in store.facts_out(entity_id, limit=limit)
             if not is_bookkeeping_predicate(f.predicate)]
    ends = store.entities([f.object for f in facts if isinstance(f.object, str)])
    cvt_types = store.cvt_types()
    table = _phrase_table(tuple(sorted(labels.items())))
    inner_facts: dict[str, list[Fact]] = {}
    for f in facts:
        end = ends.get(f.object) if isinstance(f.object, str) else None
        if end is not None and _is_cvt(end, cvt_types) and end.id not in inner_facts:
            inner_facts[end.id] = [g for g in store.facts_out(end.id, limit=limit)
                                   if not is_bookkeeping_predicate(g.predicate)
                                   and g.object != entity_id]
    inner_ends = store.entities([g.object for gs in inner_facts.values() for g in gs
                                 if isinstance(g.object, str) and g.object not in ends])
    names = {**ends, **inner_ends}

    pool: dict[tuple[str, str, str], Knowledge] = {}
    for f in facts:
        if isinstance(f.object, str) and f.object in inner_facts:
            # Through a CVT the outer predicate only leads to the node: its own words
            # ("film" of film.actor.film, not the label "film performances") head the
            # labels of the node's values.
            outer = (segment_label(f.predicate) if _is_freebase(f.predicate)
                     else relation_label(f.predicate, labels.get(f.predicate)))
            for g in inner_facts[f.object]:
                inner = relation_label(g.predicate, labels.get(g.predicate))
                text, oid = object_text(g.object, names)
                k = Knowledge(entity_id, subject_name,
                              cvt_relation_label(outer, inner, table.role(g.predicate)),
                              text, oid, f"{f.predicate}/{g.predicate}", f.object)
                pool.setdefault(k.key(), k)
            continue
        text, oid = object_text(f.object, names)
        k = Knowledge(entity_id, subject_name, relation_label(f.predicate, labels.get(f.predicate)),
                      text, oid, f.predicate)
        pool.setdefault(k.key(), k)
    ordered = sorted(pool.values(), key=lambda k: (k.relation, k.object, k.predicate or "",
                                                   k.via or ""))
    return ordered[:limit]


def _is_cvt(entity: Entity, cvt_types: frozenset[str]) -> bool:
    return entity.is_cvt or any(t in cvt_types for t in entity.types)


def _is_freebase(predicate: str) -> bool:
    local = _local_name(predicate)
    return "." in local and not _ID_ONLY.match(local)


def _local_name(predicate: str) -> str:
    """``<http://…/ns/people.person.spouse_s>`` -> ``people.person.spouse_s``,
    ``http://www.wikidata.org/prop/direct/P19`` -> ``P19``."""
    local = predicate.strip("<>")
    for sep in ("/", "#"):
        local = local.rpartition(sep)[2] or local
    if ":" in local and not local.startswith("http"):
        local = local.rpartition(":")[2] or local
    return local


def _curated_label(predicate: str) -> str | None:
    """The curated relation phrase of ``predicate`` without its leading verb ("has the
    occupation" -> "occupation", "was born in" -> "born in"), or None."""
    phrase = _curated_phrases().get(predicate)
    if not phrase:
        return None
    for head in _PHRASE_HEADS:
        if phrase.startswith(head) and len(phrase) > len(head):
            return phrase[len(head):]
    return phrase


def segment_label(predicate: str) -> str:
    """A Freebase predicate's property segment as words (``film.actor.film`` ->
    "film"): what heads the labels of a CVT's values, since the outer predicate only
    leads to the node."""
    return _segment_words(_local_name(predicate))


def _segment_words(dotted: str) -> str:
    segment = dotted.rpartition(".")[2]
    if segment.endswith("_s"):
        segment = segment[:-2]
    return " ".join(segment.replace("_", " ").split()) or dotted


@cache
def _curated_phrases() -> Mapping[str, str]:
    return load_relation_phrases()


@cache
def _phrase_table(labels: tuple[tuple[str, str], ...]) -> PhraseTable:
    return PhraseTable(dict(labels))
