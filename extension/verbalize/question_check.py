"""Whether an extended query can be asked as one question that needs its new
constraint (issue 19, items 2 and 9): the extension engine calls the check that
:func:`question_check` returns for every candidate and tries the next one when it
refuses, so no sample carries a vacuous or ambiguous q̃.

A candidate is refused when:

* its q̃, realised from the extended query's logical form
  (:func:`~extension.verbalize.realise.realise_question`), cannot be written (a relation
  without a frame that reads as English, a union's namesakes nothing tells apart);
* the planner's rules refuse it (:mod:`extension.verbalize.planner`): more than two
  constants, a new relation that is bookkeeping, a new constant that is a hub;
* a way-1 description does not pin the entity it replaces in the store ("the person
  whose profession is Composer": the new entity has more than one neighbour over the
  new relation, on that side), or not for a reader ("the person who died in Berlin":
  the relation has several on that side for most entities,
  :func:`~extension.verbalize.planner.fits_several`);
* its q̃ doubles a word ("… Saint Lucia is located located?");
* a new constant is named by a name other entities of the store share ("the language
  of Madagascar", the film, beside the country): the question's text could not pin it
  (a noun before it, "the film Madagascar", would not pin a second film of that name).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from extension.core.functionality import functionality
from extension.verbalize import english
from extension.verbalize.extended_question import Unphrasable
from extension.verbalize.logical_form import logical_form
from extension.verbalize.planner import (
    HubCounter,
    asks_what_it_names,
    fits_several,
    netflix_tag_description,
    noun_before_description,
    restated_profession,
    some_place_where,
    too_many_constraints,
    unaskable,
    vague_description,
)
from extension.verbalize.quality import doubled_words
from extension.verbalize.realise import realise_question
from extension.verbalize.relation_phrases import as_table, store_phrase_table
from kgstore.models import normalize_name

if TYPE_CHECKING:
    from extension.core.extend import ExtendedQuery
    from extension.core.query_graph import QueryEdge
    from kgstore.store import Store

QuestionCheck = Callable[["ExtendedQuery"], "str | None"]
"""An extended query -> why its question cannot be asked, or None when it can."""


def question_check(store: Store, question: str,
                   phrases: Mapping[str, str] | None = None) -> QuestionCheck:
    """The check for one original ``question`` (see the module docstring); its
    refusals read "question: <why>"."""
    table = as_table(phrases) if phrases is not None else store_phrase_table(store)
    hubs = _hub_counter(store)

    def check(query: ExtendedQuery) -> str | None:
        names = _names(store, query)
        graph = query.disjuncts[0].model_dump(mode="json") if query.disjuncts \
            else query.original.model_dump(mode="json")
        if query.rule != "none":
            for edge in query.added:
                why = unaskable(table, edge.predicate)
                if why:
                    return f"question: {why}"
        try:
            form = logical_form(graph)
        except Unphrasable as e:
            return f"question: {e}"
        too_many = too_many_constraints(form, union=query.rule == "union")
        if told := asks_what_it_names(form, table):
            return f"question: {told}"
        if too_many and query.rule != "none":
            return f"question: {too_many}"
        text = realise_question(graph, [e.model_dump() for e in query.added], names, table,
                                rule=query.rule, union_subjects=query.union_subjects)
        if text is None:
            return "question: its logical form cannot be realised as an English question"
        if doubled := doubled_words(text, names.values()):
            # "Where is the place where Saint Lucia is located located?" (blind round 35)
            return f"question: its text doubles a word ({doubled[0]!r})"
        if repeated := _REPEATED_NOUN.search(text):
            # "the distributor of the distributors of The Black Dahlia" (round 36: 2)
            return f"question: it describes {repeated.group(0)!r} by itself"
        if tagged := restated_profession(text) or netflix_tag_description(text) \
                or noun_before_description(text) or some_place_where(text):
            return f"question: {tagged}"
        if text.startswith("Where ") and " where " in text:
            # "Where are the regions where Coriolanus was released located?"
            return "question: it asks where of a place it names by where"
        # The new constants' records, names and facts, which the tests below read, in
        # one go where each read is a round trip (Neo4j).
        store.read_ahead([_new_constant(edge) for edge in query.added], names=True)
        for edge in query.added:
            entity_is_subject = not edge.source.startswith("?")
            entity = _new_constant(edge)
            if query.rule == "intersection_way1":
                read = store.facts_out if entity_is_subject else store.facts_in
                if len(read(entity, predicate=edge.predicate, limit=2)) > 1:
                    return (f"question: the new hop from {names.get(entity, entity)!r} "
                            "describes more than the entity it replaces")
                if entity_is_subject and (vague := vague_description(table, edge.predicate)):
                    return f"question: {vague}"
                ends = functionality(store, edge.predicate)
                if fits_several(ends.forward if entity_is_subject else ends.inverse,
                                hubs.counts.get(edge.predicate, 0)):
                    return (f"question: a reader takes the new hop from "
                            f"{names.get(entity, entity)!r} to fit several entities "
                            f"({edge.predicate} has several on that side)")
            elif hubs.hub(entity, edge.predicate, entity_is_subject=entity_is_subject):
                return (f"question: {names.get(entity, entity)!r} is a hub of "
                        f"{edge.predicate}: it narrows nothing a reader asks about")
            if _shared_name(store, entity, names.get(entity)):
                return (f"question: other entities are named {names.get(entity)!r} and "
                        "nothing in the question tells them apart")
        return None

    return check


_REPEATED_NOUN = re.compile(r"\bthe (\w+) (?:of|in) (?:one of )?the \1s?\b")



def _new_constant(edge: QueryEdge) -> str:
    """The entity an added edge brings into the query (its end that is no variable)."""
    return edge.target if edge.source.startswith("?") else edge.source


_HUBS: weakref.WeakKeyDictionary[Store, HubCounter] = weakref.WeakKeyDictionary()


def _hub_counter(store: Store) -> HubCounter:
    counter = _HUBS.get(store)
    if counter is None:
        counter = _HUBS[store] = HubCounter(store)
    return counter


def _names(store: Store, query: ExtendedQuery) -> dict[str, str]:
    """Display names of the query constants (query nodes, else the store)."""
    names: dict[str, str] = {}
    missing: list[str] = []
    for graph in (query.original, *query.disjuncts):
        for node in graph.nodes:
            if node.kind != "entity" or node.id in names:
                continue
            if node.name:
                names[node.id] = english.display_name(node.name) or node.name
            else:
                missing.append(node.id)
    for id, entity in store.entities(missing).items():
        if entity.name:
            names[id] = english.display_name(entity.name) or entity.name
    return names


def _shared_name(store: Store, entity: str, name: str | None) -> bool:
    """Whether another named, non-CVT entity of the store has ``entity``'s name as the
    text shows it (aliases aside; :func:`english.display_name` on both sides)."""
    stored = store.entity(entity)
    raw = stored.name if stored is not None and stored.name else name
    if not raw:
        return False

    def key(n: str) -> str:
        return normalize_name(english.display_name(n) or n)

    wanted = key(raw)
    return any(o.id != entity and not o.is_cvt and o.name and key(o.name) == wanted
               for o in store.find_by_name(raw, limit=10))


__all__ = ["QuestionCheck", "question_check"]
