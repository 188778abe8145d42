"""Entity search by words and parts of names: what ``kgbench search``, ``kgbench
entity NAME``, ``GET /api/search`` and the web UI's autocomplete find, the same on
every backend.

**What matches.** A name or alias and the query are *folded* (:func:`fold_texts`):
accents dropped (``Saldaña`` → ``saldana``), lower-cased, apostrophes and dots joined
(``O'Brien`` → ``obrien``, ``U.S.`` → ``us``), every other run of non-letters and
non-digits a single space. A folded name then matches in one of three ways
(:data:`MATCH_KINDS`, :func:`match_kind`), best first:

* ``exact``: it is the query (``obama`` finds an entity named ``Obama``);
* ``word``: a word of it starts with the query (``obama``, ``barack ob`` and ``bar``
  find ``Barack Obama``);
* ``substring``: it holds the query anywhere (``bam`` finds ``Barack Obama``).

Only named, non-CVT entities are found (as before, a mediator has no name to show),
each once, with the best way any of its names and aliases matches. **Ranking**: by
that way, then by degree (the facts touching the entity, in and out: a person means
the well-connected ``Paris`` more often than a village of that name), then by id.

**Where it is computed.** The embedded store keeps :class:`EntitySearchIndex` in Arrow
files beside its database (LadybugDB's full-text extension is not in the ``ladybug``
wheel and its ``INSTALL`` downloads it, which a machine without a network cannot; its
hash indexes serve no range or substring). The Neo4j store keeps the folded keys on its
``Name`` nodes with a range and a text index (:mod:`kgstore.backends.neo4j.queries`).
Both fold with :func:`fold_texts`, so they match the same way.

The Arrow index: the keys (folded names and aliases) sorted, so an exact key is a
binary search; every word of every key sorted, so a word start is a range of it; and
the suffixes of every distinct word sorted, so a substring inside a word is a range of
those. A query of several words is anchored on one of its words and the candidates'
keys are checked whole. 5M facts (1M entities): see ``bench/store_bench.py`` (op
``search``) and README's Performance section.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import time
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kgstore.models import Entity

__all__ = ["INDEX_POINTER", "MATCH_KINDS", "EntitySearchIndex", "SearchHit", "fold",
           "fold_texts", "match_kind", "read_index", "write_index"]

MATCH_KINDS = ("exact", "word", "substring")
"""How a name matched a query, best first (the rank's first key)."""

INDEX_POINTER = "search-index.json"
"""The embedded store's file naming its current search index folder (written last, by
an atomic rename: a reader sees the old index or the new one, never half of one)."""
_INDEX_PREFIX = "search-index-"
_INDEX_VERSION = 1
_TABLES = ("entities", "keys", "words", "vocab", "suffixes")
_SUFFIX_CHARS = 16
"""Suffixes of a word are kept to this many characters: a longer query word is looked
up by its first ones and the candidates are checked whole."""
_TOP = "\U0010ffff"   # after every character: ``w + _TOP`` bounds the keys starting w

# Letters that keep their own code point under NFKD (no combining mark to drop).
_LETTERS = (("ß", "ss"), ("ø", "o"), ("ł", "l"), ("đ", "d"), ("æ", "ae"), ("œ", "oe"),
            ("ı", "i"), ("þ", "th"))


def fold_texts(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Search keys of an Arrow string array (see the module docstring): NFKD, combining
    marks dropped, lower-cased, a few letters spelled out (``ß`` → ``ss``, ``ø`` →
    ``o``), apostrophes and dots removed, other runs of non-letters and non-digits one
    space, trimmed. The one definition both backends' indexes and every query use."""
    # Accents and the letters spelled out: only rows that are not ASCII have any (most
    # names of most KGs are ASCII: the passes over them cost a third of a build).
    text = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    other = pc.invert(pc.fill_null(pc.string_is_ascii(text), True))
    if pc.any(other).as_py():
        part = pc.filter(text, other)
        part = pc.utf8_normalize(part, form="NFKD")
        part = pc.replace_substring_regex(part, pattern=r"\p{M}+", replacement="")
        part = pc.utf8_lower(part)
        for letter, spelled in _LETTERS:
            part = pc.replace_substring(part, pattern=letter, replacement=spelled)
        text = pc.replace_with_mask(text, other, part)
    text = pc.utf8_lower(text)
    text = pc.replace_substring_regex(text, pattern=r"['’.]+", replacement="")
    text = pc.replace_substring_regex(text, pattern=r"[^\p{L}\p{N}]+", replacement=" ")
    return pc.utf8_trim(text, characters=" ")


_SPELLED = {ord(letter): spelled for letter, spelled in _LETTERS}
_JOINED = re.compile(r"['’.]+")


def fold(text: str) -> str:
    """The search key of one text: :func:`fold_texts` in plain Python, for a query
    (40 times faster than a one-row Arrow call, which compiles its regular expressions
    each time). ``tests/kgstore/test_search_index.py`` checks that both give the same
    key for every character Python's Unicode tables know (newer ones may differ)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c.lower() for c in text if not unicodedata.category(c).startswith("M"))
    text = _JOINED.sub("", text.translate(_SPELLED))
    return _words(text)


def _words(text: str) -> str:
    """The runs of letters and digits of ``text`` (``str.isalnum``: ``\\p{L}`` or
    ``\\p{N}``, what :func:`fold_texts` keeps), joined by one space."""
    out: list[str] = []
    word: list[str] = []
    for c in text:
        if c.isalnum():
            word.append(c)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return " ".join(out)


def match_kind(key: str, query: str) -> int | None:
    """How the folded name ``key`` matches the folded ``query``: an index of
    :data:`MATCH_KINDS`, or ``None``. The definition every index answers by."""
    if not query:
        return None
    if key == query:
        return 0
    if key.startswith(query) or f" {query}" in key:
        return 1
    return 2 if query in key else None


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One entity a search found: how its best name matched (:data:`MATCH_KINDS`)
    and its degree (facts in and out), the two keys it was ranked by."""

    entity: Entity
    match: str
    facts: int


def _prefix_range(sorted_values: pa.Array, low: str, high: str) -> tuple[int, int]:
    """Rows ``[start, stop)`` of ``sorted_values`` that are ``>= low`` and ``< high``."""
    class Keys(Sequence[str]):
        def __len__(self) -> int:
            return len(sorted_values)

        def __getitem__(self, i: Any) -> Any:
            return sorted_values[i].as_py()

    keys = Keys()
    return bisect.bisect_left(keys, low), bisect.bisect_left(keys, high)


def _sorted_unique(table: pa.Table) -> pa.Table:
    """``table`` sorted by all its columns, without repeated rows."""
    table = table.sort_by([(name, "ascending") for name in table.column_names])
    if table.num_rows < 2:
        return table
    repeated = None
    for name in table.column_names:
        column = table.column(name).combine_chunks()
        same = pc.equal(column.slice(1), column.slice(0, len(column) - 1))
        repeated = same if repeated is None else pc.and_(repeated, same)
    assert repeated is not None
    return table.filter(pa.concat_arrays([pa.array([True]), pc.invert(repeated)]))


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of ``range(s, s + c)`` for each start and count."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return shift + np.arange(total, dtype=np.int64)


class EntitySearchIndex:
    """The searchable names of a store's named, non-CVT entities as sorted Arrow
    arrays (see the module docstring); :meth:`search` answers in milliseconds.

    ``entities``: ``id`` (sorted) and ``degree``; ``keys``: ``key`` (sorted, a folded
    name or alias) and ``entity`` (its row); ``words``: ``word`` (sorted) and ``key``
    (the row of the key it is a word of); ``vocab``: each distinct word's ``first``
    row and ``count`` in ``words``; ``suffixes``: ``suffix`` (sorted, from the second
    character of a distinct word on) and ``word`` (its ``vocab`` row)."""

    def __init__(self, tables: dict[str, pa.Table]) -> None:
        self.tables = tables
        self.ids = tables["entities"].column("id").combine_chunks()
        self.degrees = tables["entities"].column("degree").to_numpy()
        self.keys = tables["keys"].column("key").combine_chunks()
        self.key_entity = tables["keys"].column("entity").to_numpy()
        self.words = tables["words"].column("word").combine_chunks()
        self.word_key = tables["words"].column("key").to_numpy()
        self.vocab_first = tables["vocab"].column("first").to_numpy()
        self.vocab_count = tables["vocab"].column("count").to_numpy()
        self.suffixes = tables["suffixes"].column("suffix").combine_chunks()
        self.suffix_word = tables["suffixes"].column("word").to_numpy()
        self._top_degree = int(self.degrees.max(initial=0))

    # -- building ---------------------------------------------------------------------
    @classmethod
    def build(cls, entities: pa.Table) -> EntitySearchIndex:
        """The index of ``entities``: columns ``id``, ``name``, ``aliases`` (list of
        strings) and ``degree``, one row per named, non-CVT entity."""
        entities = entities.sort_by("id")
        n = entities.num_rows
        rows = pa.array(np.arange(n, dtype=np.int32))
        aliases = entities.column("aliases").combine_chunks()
        names = pa.concat_arrays([entities.column("name").combine_chunks().cast(pa.string()),
                                  pc.list_flatten(aliases).cast(pa.string())])
        owners = pa.concat_arrays([rows, pc.take(rows, pc.list_parent_indices(aliases))])
        keys = pa.table({"key": fold_texts(names), "entity": owners})
        keys = keys.filter(pc.fill_null(pc.not_equal(keys.column("key"), ""), False))
        keys = _sorted_unique(keys)
        key_rows = pa.array(np.arange(keys.num_rows, dtype=np.int32))
        split = pc.split_pattern(keys.column("key").combine_chunks(), pattern=" ")
        words = pa.table({"word": pc.list_flatten(split),
                          "key": pc.take(key_rows, pc.list_parent_indices(split))})
        words = _sorted_unique(words)
        distinct = pc.value_counts(words.column("word").combine_chunks())
        counts = distinct.field("counts").to_numpy().astype(np.int64)
        vocab = pa.table({"first": pa.array(np.cumsum(counts) - counts, pa.int64()),
                          "count": pa.array(counts, pa.int64())})
        suffix_text: list[str] = []
        suffix_word: list[int] = []
        for i, word in enumerate(distinct.field("values").to_pylist()):
            for start in range(1, len(word)):
                suffix_text.append(word[start:start + _SUFFIX_CHARS])
                suffix_word.append(i)
        suffixes = pa.table({"suffix": pa.array(suffix_text, pa.string()),
                             "word": pa.array(suffix_word, pa.int32())}).sort_by("suffix")
        return cls({"entities": entities.select(["id", "degree"]).cast(
                        pa.schema([("id", pa.string()), ("degree", pa.int64())])),
                    "keys": keys, "words": words, "vocab": vocab, "suffixes": suffixes})

    # -- searching --------------------------------------------------------------------
    def search(self, query: str, limit: int) -> list[tuple[str, int, int]]:
        """``(entity id, match kind, degree)`` of the best ``limit`` entities for the
        folded ``query`` (:func:`match_kind`), ranked as the module docstring says."""
        if not query or limit <= 0:
            return []
        words = query.split(" ")
        taken = np.zeros(len(self.ids), dtype=bool)
        found: list[tuple[int, int]] = []   # (entity row, kind)

        def add(entity_rows: np.ndarray, kind: int) -> None:
            want = limit - len(found)
            if want <= 0 or not len(entity_rows):
                return
            # The rows with the smallest rank keys first: an entity's rows share its
            # key, so they hold the best entities whole; enough of them not taken yet
            # are the answer, without sorting out the duplicates of all of them.
            head = min(len(entity_rows), 8 * limit)
            if head < len(entity_rows):
                keys = self._order_keys(entity_rows)
                part = entity_rows[np.argpartition(keys, head - 1)[:head]]
                fresh = np.unique(part)
                fresh = fresh[~taken[fresh]]
                if len(fresh) < want:
                    fresh = np.unique(entity_rows)
                    fresh = fresh[~taken[fresh]]
            else:
                fresh = np.unique(entity_rows)
                fresh = fresh[~taken[fresh]]
            best = self._best(fresh, want)
            taken[best] = True
            found.extend((int(row), kind) for row in best)

        if len(words) == 1:
            # Exact keys are one range of the sorted keys; every word starting with the
            # query another (the keys are folded: nothing sorts between w and w + NUL).
            add(self.key_entity[slice(*_prefix_range(self.keys, query, query + "\0"))], 0)
            add(self.key_entity[self.word_key[slice(*_prefix_range(
                self.words, query, query + _TOP))]], 1)
            if len(found) == limit or len(query) <= _SUFFIX_CHARS:
                if len(found) < limit:   # every candidate holds the query
                    add(self.key_entity[self._keys_containing(query)], 2)
                return self._rows(found)
        else:
            # Keys holding the query at a word start hold its first word whole.
            candidates = self.word_key[slice(*_prefix_range(self.words, words[0],
                                                            words[0] + " "))]
            kinds = self._kinds(candidates, query)
            add(self.key_entity[candidates[kinds == 0]], 0)
            add(self.key_entity[candidates[kinds == 1]], 1)
        if len(found) < limit:
            candidates = np.unique(self._keys_containing(max(words, key=len)))
            add(self.key_entity[candidates[self._kinds(candidates, query) <= 2]], 2)
        return self._rows(found)

    def _rows(self, found: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
        return [(self.ids[row].as_py(), kind, int(self.degrees[row])) for row, kind in found]

    def _kinds(self, key_rows: np.ndarray, query: str) -> np.ndarray:
        """:func:`match_kind` of each key (3: none)."""
        if not len(key_rows):
            return np.zeros(0, dtype=np.int8)
        keys = pc.take(self.keys, pa.array(key_rows))
        exact = pc.equal(keys, query).to_numpy(zero_copy_only=False)
        word = pc.or_(pc.starts_with(keys, query),
                      pc.match_substring(keys, f" {query}")).to_numpy(zero_copy_only=False)
        inside = pc.match_substring(keys, query).to_numpy(zero_copy_only=False)
        return np.where(exact, 0, np.where(word, 1, np.where(inside, 2, 3))).astype(np.int8)

    def _keys_containing(self, word: str) -> np.ndarray:
        """Rows of the keys with a word that holds ``word`` (cut to the suffixes'
        length: then a superset), a key once per such word."""
        part = word[:_SUFFIX_CHARS]
        start, stop = _prefix_range(self.suffixes, part, part + _TOP)
        vocab_rows = np.unique(self.suffix_word[start:stop])
        word_rows = _ranges(self.vocab_first[vocab_rows], self.vocab_count[vocab_rows])
        prefixed = np.arange(*_prefix_range(self.words, part, part + _TOP), dtype=np.int64)
        return self.word_key[np.concatenate([word_rows, prefixed])]

    def _order_keys(self, rows: np.ndarray) -> np.ndarray:
        """Rank keys of entity rows: more facts first, then the smaller id (rows are
        in id order)."""
        return (self._top_degree - self.degrees[rows]) * len(self.ids) + rows

    def _best(self, rows: np.ndarray, want: int) -> np.ndarray:
        """The ``want`` entity rows of ``rows`` (distinct) with the most facts (then
        the smaller id), in that order."""
        if want <= 0 or not len(rows):
            return rows[:0]
        order_key = self._order_keys(rows)
        if len(rows) > want:
            keep = np.argpartition(order_key, want - 1)[:want]
            rows, order_key = rows[keep], order_key[keep]
        return rows[np.argsort(order_key, kind="stable")]

    # -- files ------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name in _TABLES:
            table = self.tables[name].combine_chunks()
            with pa.OSFile(str(folder / f"{name}.arrow"), "wb") as sink, \
                    pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)

    @classmethod
    def load(cls, folder: Path) -> EntitySearchIndex:
        """Memory-maps the files :meth:`save` wrote (nothing is read until searched)."""
        tables = {}
        for name in _TABLES:
            source = pa.memory_map(str(folder / f"{name}.arrow"), "r")
            tables[name] = pa.ipc.open_file(source).read_all()
        return cls(tables)

    def __len__(self) -> int:
        return len(self.ids)


def read_index(store_dir: Path, generation: str) -> EntitySearchIndex | None:
    """The search index saved in ``store_dir`` for the store's ``generation``; ``None``
    when there is none, or it was built for another generation (the store changed
    since, e.g. an import was killed before it rebuilt the index)."""
    try:
        pointer = json.loads((store_dir / INDEX_POINTER).read_text())
        if pointer.get("version") != _INDEX_VERSION or pointer.get("generation") != generation:
            return None
        return EntitySearchIndex.load(store_dir / str(pointer["dir"]))
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return None


def write_index(store_dir: Path, index: EntitySearchIndex, generation: str) -> None:
    """Save ``index`` for ``generation`` in ``store_dir`` and make it the current one;
    earlier ones are removed (a reader that mapped one keeps reading it)."""
    folder = store_dir / f"{_INDEX_PREFIX}{uuid.uuid4().hex}"
    index.save(folder)
    pointer = {"version": _INDEX_VERSION, "dir": folder.name, "generation": generation,
               "entities": len(index), "built_at": time.time()}
    part = store_dir / f".{INDEX_POINTER}.{uuid.uuid4().hex}"
    part.write_text(json.dumps(pointer))
    os.replace(part, store_dir / INDEX_POINTER)
    for old in store_dir.glob(f"{_INDEX_PREFIX}*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)
