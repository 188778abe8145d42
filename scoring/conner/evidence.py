"""Evidence from a KG store for CONNER's factuality (Eq. 1) and open validity (Eq. 8):
the store is the "expert knowledge base" of §3.3, read instead of a retriever.

For a query, :class:`KgEvidence` finds the entities it names and writes their facts as
sentences:

1. **Entities** (:func:`query_entities`): the query's words are scanned left to right;
   at each word the longest n-gram (up to :data:`MAX_NGRAM` words) whose text
   :meth:`Store.find_by_name` resolves (name or alias, case and spacing ignored) is
   taken and the scan goes on after it; otherwise the scan moves one word on. N-grams
   made only of :data:`COMMON_WORDS` ("who", "the", "film") and n-grams shorter than
   :data:`MIN_CHARS` characters are never looked up, so "Who directed Alien?" finds
   the film and not an entity named "Who". A name several entities share gives each of
   them (by id, at most :data:`PER_NAME`, CVTs never); entities in the order the query
   names them, each once, at most ``max_entities``. Deterministic: the same query and
   store always give the same entities.
2. **Sentences** (:meth:`KgEvidence.sentences`): each entity's outgoing facts in
   (predicate, object) order, bookkeeping predicates left out
   (:func:`extension.core.vocabulary.is_bookkeeping_predicate`), as
   :func:`extension.verbalize.citations.hop_sentence` writes a citation: "S <relation
   phrase> O." with the store's relation phrases
   (:func:`extension.verbalize.relation_phrases.store_phrase_table`), and the facts through a
   CVT node folded into one sentence ("Ann Lee has a marriage with spouse Bob Lee and
   from 1990."). At most ``facts_per_entity`` sentences per entity.

Every sentence of every found entity is evidence for every sentence of the knowledge
(the paper retrieves per sentence; a KG neighbourhood is small enough to check whole).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from extension.core.samples import Triple
from extension.core.vocabulary import is_bookkeeping_predicate
from extension.verbalize.citations import hop_sentence
from extension.verbalize.relation_phrases import store_phrase_table
from kgstore.models import Entity, Fact, Literal
from kgstore.store import Store

__all__ = ["COMMON_WORDS", "MAX_NGRAM", "MIN_CHARS", "PER_NAME", "KgEvidence",
           "query_entities", "query_words"]

MAX_NGRAM = 6
"""Longest n-gram of query words looked up as a name."""
MIN_CHARS = 3
"""Shortest n-gram (in characters, spaces included) looked up: "a", "of", "US" are
more often words than names."""
PER_NAME = 3
"""Entities kept for one name several entities share (lowest ids first)."""
FACTS_READ = 500
"""Facts read per entity before sorting (a hub's first ``FACTS_READ`` facts)."""

COMMON_WORDS: frozenset[str] = frozenset("""
a an the of in on at to for from by with about as into over under after before between
and or but nor not no is are was were be been being am do does did has have had having
will would shall should can could may might must it its it's this that these those there
here who whom whose which what when where why how whats what's who's wheres where's
i me my we us our you your he him his she her they them their one ones some any all
each every other another many much more most few less least very so than then too also
just only own same such both either neither if else tell name give list show find
film films movie movies book books song songs person people man woman city country
place year years day date time first last new old born died made did
""".split())
"""Words never looked up alone or in n-grams made only of them: function words,
question words and very common nouns of queries (compared lowercased)."""

_WORD = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*\.?", re.UNICODE)


def query_words(query: str) -> list[str]:
    """The words of ``query``: letters and digits, with inner apostrophes, hyphens and
    periods kept ("O'Neil", "Jay-Z", "U.S."); other punctuation dropped."""
    return _WORD.findall(query)


def _worth_looking_up(words: Sequence[str]) -> bool:
    text = " ".join(words)
    if len(text) < MIN_CHARS:
        return False
    return not all(w.lower().rstrip(".") in COMMON_WORDS for w in words)


def query_entities(store: Store, query: str, *, max_entities: int = 5) -> list[Entity]:
    """The entities ``query`` names (see the module docstring, step 1)."""
    words = query_words(query)
    found: dict[str, Entity] = {}
    i = 0
    while i < len(words) and len(found) < max_entities:
        taken = 0
        for n in range(min(MAX_NGRAM, len(words) - i), 0, -1):
            gram = words[i:i + n]
            if not _worth_looking_up(gram):
                continue
            entities = _named(store, " ".join(gram))
            if not entities and gram[-1].endswith("."):
                # "... by Tolkien." : the sentence's period is no part of the name.
                entities = _named(store, " ".join([*gram[:-1], gram[-1].rstrip(".")]))
            if entities:
                for e in entities:
                    if len(found) < max_entities:
                        found.setdefault(e.id, e)
                taken = n
                break
        i += taken or 1
    return list(found.values())


def _named(store: Store, name: str) -> list[Entity]:
    entities = [e for e in store.find_by_name(name, limit=50) if not e.is_cvt]
    return sorted(entities, key=lambda e: e.id)[:PER_NAME]


class KgEvidence:
    """Evidence sentences from ``store`` for queries (see the module docstring); the
    sentences of a query are computed once (systems answering the same queries share
    them)."""

    def __init__(self, store: Store, *, facts_per_entity: int = 20,
                 max_entities: int = 5) -> None:
        self.store = store
        self.facts_per_entity = facts_per_entity
        self.max_entities = max_entities
        self.phrases = store_phrase_table(store)
        self._cache: dict[str, tuple[str, ...]] = {}

    def for_query(self, query: str) -> tuple[str, ...]:
        """The evidence sentences of ``query``: every found entity's, in order."""
        cached = self._cache.get(query)
        if cached is None:
            sentences: dict[str, None] = {}
            for entity in query_entities(self.store, query, max_entities=self.max_entities):
                for sentence in self.sentences(entity):
                    sentences.setdefault(sentence, None)
            cached = self._cache[query] = tuple(sentences)
        return cached

    def sentences(self, entity: Entity) -> list[str]:
        """Up to ``facts_per_entity`` sentences of ``entity``'s outgoing facts, one per
        plain fact or CVT (see the module docstring, step 2)."""
        facts = sorted((f for f in self.store.facts_out(entity.id, limit=FACTS_READ)
                        if not is_bookkeeping_predicate(f.predicate)), key=_order)
        ends = self.store.entities(f.object for f in facts if isinstance(f.object, str))
        names = {entity.id: entity.name, **{k: e.name for k, e in ends.items()}}
        out: list[str] = []
        for fact in facts:
            if len(out) >= self.facts_per_entity:
                break
            end = ends.get(fact.object) if isinstance(fact.object, str) else None
            hop = [self._triple(fact, names)]
            cvts: frozenset[str] = frozenset()
            if end is not None and end.is_cvt:
                hop += self._cvt_facts(end.id, entity.id, names)
                cvts = frozenset({end.id})
            elif isinstance(fact.object, str) and not names.get(fact.object):
                continue   # an entity known by its id only: no readable sentence
            out.append(hop_sentence(hop, cvts, self.phrases))
        return out

    def _cvt_facts(self, cvt: str, subject: str, names: dict[str, str | None]) -> list[Triple]:
        """The CVT's facts, except those back to ``subject`` (its own role is the fact
        that led here)."""
        facts = sorted((f for f in self.store.facts_out(cvt, limit=FACTS_READ)
                        if f.object != subject and not is_bookkeeping_predicate(f.predicate)),
                       key=_order)
        missing = [f.object for f in facts if isinstance(f.object, str) and f.object not in names]
        names.update({k: e.name for k, e in self.store.entities(missing).items()})
        return [self._triple(f, names) for f in facts
                if not isinstance(f.object, str) or names.get(f.object)]

    @staticmethod
    def _triple(fact: Fact, names: dict[str, str | None]) -> Triple:
        if isinstance(fact.object, Literal):
            return Triple(s=fact.subject, p=fact.predicate, o=fact.object.value,
                          s_name=names.get(fact.subject), datatype=fact.object.datatype,
                          lang=fact.object.lang, literal=True)
        return Triple(s=fact.subject, p=fact.predicate, o=fact.object,
                      s_name=names.get(fact.subject), o_name=names.get(fact.object))


def _order(fact: Fact) -> tuple[str, str]:
    obj = fact.object
    return fact.predicate, obj.value if isinstance(obj, Literal) else obj
