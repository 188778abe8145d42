"""The Wikidata JSON dump's entities as staged rows (this runs in worker processes:
:mod:`loaders.wikidata.json_dump`).

JSON dump
---------
Accepted layouts (sniffed from the first lines, see :func:`loaders.sniff.json_layout`):

* the dump: ``[`` on the first line, one entity per line ending with ``,``, ``]`` on
  the last line (a missing ``]`` is fine: dumps cut with ``head`` lack it);
* JSON Lines: one entity (or ``{"entities": {...}}``) per line;
* one JSON document (pretty-printed, e.g. ``Special:EntityData/Q42.json``): an entity,
  ``{"entities": {"Q42": {...}, ...}}`` or a list of entities; read whole, so it is
  limited to
:data:`~loaders.wikidata.json_dump.MAX_DOCUMENT_CHARS`.

Mapping of one entity (``type`` ``item`` -> ``Q…``, ``property`` -> ``P…``):

========================================  =================================================
JSON                                      stage
========================================  =================================================
``labels``                                name: the label of the first language of
                                          ``langs`` that has one (then ``mul``, Wikidata's
                                          "all languages" label); labels of the other
                                          chosen languages become aliases
``aliases``                               aliases in every chosen language (and ``mul``)
``descriptions``                          description: first chosen language that has one
property labels                           ``add_predicate(P…, name)`` (and the entity row)
``claims``                                truthy facts: per property, deprecated statements
                                          are dropped, and where preferred ones exist only
                                          those are kept (``dropped_deprecated``,
                                          ``dropped_not_best_rank``)
mainsnak ``somevalue``/``novalue``        dropped (``dropped_somevalue``/``_novalue``)
``wikibase-entityid`` value (item,        fact ``(Q…, P…, <id>)`` to the entity
property, lexeme, form, sense)
``time``                                  literal without the leading ``+``; the datatype
                                          follows the precision: >= 12 (hour..second)
                                          ``xsd:dateTime`` (``1952-03-11T00:00:00Z``),
                                          11 ``xsd:date`` (``1952-03-11``), 10
                                          ``xsd:gYearMonth`` (``1952-03``), <= 9 (year,
                                          decade, century...) ``xsd:gYear`` (``1952``,
                                          ``-0500``). The calendar model is ignored.
``quantity``                              ``amount`` without ``+`` as ``xsd:decimal``; the
                                          unit is ignored (``quantity_unit_ignored``)
``string`` (string, external-id, url,     plain literal
commonsMedia, math, geo-shape...)
``monolingualtext``                       literal with its language tag, kept in every
                                          language (it is a value, not a label)
``globecoordinate``                       WKT literal ``Point(<lon> <lat>)`` with datatype
                                          ``http://www.opengis.net/ont/geosparql#wktLiteral``
                                          as the Wikidata RDF/truthy dumps write it (a
                                          globe other than Earth is prefixed with its IRI)
other value types                         dropped (``dropped_unsupported_value``)
``P31`` (instance of) values              also the entity's types
lexemes (``L…``), media-info, others      dropped (``dropped_lexeme``,
                                          ``dropped_other_entity``)
========================================  =================================================

With ``options.qualifiers``, a kept statement that has qualifiers becomes a statement
node, as Freebase mediates n-ary facts with CVTs::

    (Q42, P69, Q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2)     item -> statement node
    (Q42-0E9C...,  P69, Q691283)                              the main value
    (Q42-0E9C...,  P580, "1971"^^xsd:gYear)                   one fact per qualifier value

The node id is the statement id with ``$`` replaced by ``-`` (what the Wikidata RDF
dump calls ``wds:Q42-0E9C...``; a statement without an id gets ``<item>-<sha1 of its
JSON>``); the node is staged with ``is_cvt=True`` and type ``wikibase.statement`` (a
CVT type). There is then no direct fact ``(Q42, P69, Q691283)``: as with Freebase CVTs,
the value is one hop further. Statements without qualifiers stay direct facts.
Qualifier ``somevalue``/``novalue`` snaks are dropped (``dropped_qualifier_somevalue``
...). References are never loaded.

Labels, aliases and descriptions in languages not chosen are counted as
``dropped_lang`` (one per language entry). ``mul`` ("default for all languages") is
always accepted, after the chosen languages; with ``langs=None`` every language is
accepted and the first label in the file wins.

"""

from __future__ import annotations

import gc
import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import orjson  # 2x faster than json on the real dump head

from loaders.pipeline import (
    DROPPED_PREFIX,
    PREDICATE_PREFIX,
    LoadOptions,
    PredicateFilter,
)

STATEMENT_TYPE = "wikibase.statement"
"""Type (and CVT type) of the statement nodes made with ``options.qualifiers``."""
MUL = "mul"
"""Wikidata's language code for labels valid in every language."""
WKT_LITERAL = "http://www.opengis.net/ont/geosparql#wktLiteral"
_EARTH = "http://www.wikidata.org/entity/Q2"
_REASON_CHARS = 160
# -- JSON: the mapping (runs in worker processes) ----------------------------------------
_Batch = tuple[int, str]
"""Lines handed to a worker: the first one's number and all of them joined with LF."""
_BatchResult = tuple[
    list[tuple[Any, ...]],  # entity rows: id, name, aliases, types, is_cvt, description
    list[str],  # entity facts, flattened: s, p, o, s, p, o, ...
    list[str | None],  # literal facts, flattened: s, p, value, datatype, lang, ...
    list[tuple[str, str]],  # predicate labels
    dict[str, int],  # counts
    list[tuple[int, str]],  # malformed: line, reason
]


def _loads(text: str) -> Any:
    try:
        return orjson.loads(text)
    except ValueError:
        # e.g. lone surrogates, which json accepts; json also gives the better message
        return json.loads(text)


def _obj(value: Any) -> dict[str, Any]:
    """A JSON object, or ``{}`` (dumps write an empty object as ``[]``)."""
    return value if isinstance(value, dict) else {}


def _short(text: str) -> str:
    return text if len(text) <= _REASON_CHARS else text[:_REASON_CHARS] + "..."


def _entities_of(value: Any) -> Iterator[Any]:
    """The entities held by one parsed JSON value: itself, the values of an
    ``{"entities": {...}}`` wrapper, or the items of a list."""
    if isinstance(value, dict):
        if "id" not in value and isinstance(value.get("entities"), dict):
            yield from value["entities"].values()
        else:
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from _entities_of(item)
    else:
        yield value


def _time(v: dict[str, Any]) -> tuple[str, str]:
    text: str = v["time"]
    precision = v.get("precision", 11)
    sign = ""
    if text[0] in "+-":
        sign, text = ("-" if text[0] == "-" else ""), text[1:]
    date, _, clock = text.partition("T")
    year, month, day = date.split("-")
    if precision >= 12:
        return f"{sign}{date}T{clock}", "xsd:dateTime"
    if precision == 11 and day != "00" and month != "00":
        return f"{sign}{date}", "xsd:date"
    if precision >= 10 and month != "00":
        return f"{sign}{year}-{month}", "xsd:gYearMonth"
    return f"{sign}{year}", "xsd:gYear"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


_ENTITY_PREFIX = {"item": "Q", "property": "P", "lexeme": "L"}


class _JsonMapper:
    """Maps lines of a Wikidata JSON dump to compact rows (see :data:`_BatchResult`).

    ``langs`` is the language priority list (``None``: every language, first label
    found wins); ``mul`` is appended unless present. ``rules`` are the
    :class:`~loaders.predicate_filter.PredicateFilter` rules applied to statement and
    qualifier properties (plain tuples, so they travel to worker processes).
    """

    def __init__(self, langs: Sequence[str] | None, qualifiers: bool,
                 rules: Sequence[tuple[str, str]] = ()) -> None:
        if langs is None:
            self.langs: tuple[str, ...] | None = None
        else:
            order = [lang.lower() for lang in langs]
            self.langs = tuple(dict.fromkeys([*order, MUL]))
        self.qualifiers = qualifiers
        self.filter = PredicateFilter(rules) if rules else None
        self._reset()

    @classmethod
    def settings(cls, options: LoadOptions) -> tuple[Any, ...]:
        """The constructor arguments for ``options`` (picklable)."""
        return (None if options.langs is None else list(options.langs), options.qualifiers,
                PredicateFilter.for_options(options).rules)

    def _reset(self) -> None:
        self.entities: list[tuple[Any, ...]] = []
        self.efacts: list[str] = []
        self.lfacts: list[str | None] = []
        self.preds: list[tuple[str, str]] = []
        self.counts: Counter[str] = Counter()
        self.malformed: list[tuple[int, str]] = []

    def take(self) -> _BatchResult:
        """The rows mapped since the last call (and a fresh start)."""
        counts = self.counts
        used = Counter(self.efacts[1::3])
        used.update(self.lfacts[1::5])  # type: ignore[arg-type]
        for p, n in used.items():
            counts[PREDICATE_PREFIX + p] += n
        out = (self.entities, self.efacts, self.lfacts, self.preds, dict(counts),
               self.malformed)
        self._reset()
        return out

    def map_batch(self, batch: _Batch) -> _BatchResult:
        """Map a batch: ``(first line number, the lines joined with LF)``."""
        first, joined = batch
        # Parsing makes millions of short-lived containers and no reference cycles:
        # the cyclic GC would only walk them (about 40% of the parse time).
        enabled = gc.isenabled()
        gc.disable()
        try:
            for lineno, text in enumerate(joined.split("\n"), first):
                self.map_line(lineno, text)
        finally:
            if enabled:
                gc.enable()
        return self.take()

    def map_line(self, lineno: int, text: str) -> None:
        """One dump line: ``[``, ``]``, blank, or an entity with an optional ``,``."""
        text = text.strip()
        if not text or text == "[" or text == "]":
            return
        if text[-1] == ",":
            text = text[:-1]
        try:
            value = _loads(text)
        except json.JSONDecodeError as exc:
            self.malformed.append((lineno, _short(f"invalid JSON: {exc.msg} at column "
                                                  f"{exc.colno}")))
            return
        except ValueError as exc:
            self.malformed.append((lineno, _short(f"invalid JSON: {exc}")))
            return
        self.map_value(lineno, value)

    def map_value(self, lineno: int, value: Any) -> None:
        for entity in _entities_of(value):
            self.map_entity(lineno, entity)

    def map_entity(self, lineno: int, e: Any) -> None:
        if not isinstance(e, dict):
            self.malformed.append((lineno, f"expected an entity object, found "
                                           f"{type(e).__name__}"))
            return
        eid = e.get("id")
        if not isinstance(eid, str) or not eid:
            self.malformed.append((lineno, 'entity without an "id"'))
            return
        etype = e.get("type") or {"Q": "item", "P": "property", "L": "lexeme"}.get(eid[0])
        if etype not in ("item", "property"):
            self.counts["dropped_lexeme" if etype == "lexeme" else "dropped_other_entity"] += 1
            return
        sizes = (len(self.entities), len(self.efacts), len(self.lfacts), len(self.preds))
        local: Counter[str] = Counter()
        try:
            self._map_entity(e, eid, etype == "property", local)
        except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:
            # Undo the rows of the half-mapped entity: the line counts as malformed.
            del self.entities[sizes[0]:], self.efacts[sizes[1]:], self.lfacts[sizes[2]:]
            del self.preds[sizes[3]:]
            self.malformed.append((lineno, _short(
                f"entity {eid}: unexpected structure ({type(exc).__name__}: {exc})")))
            return
        self.counts.update(local)

    def _texts(self, e: dict[str, Any], local: Counter[str]) -> tuple[
        str | None, list[str], str | None
    ]:
        labels = _obj(e.get("labels"))
        descriptions = _obj(e.get("descriptions"))
        aliases = _obj(e.get("aliases"))
        langs = self.langs
        if langs is None:
            names = [v["value"] for v in labels.values()]
            alias_values = [a["value"] for values in aliases.values() for a in values]
            descs = [v["value"] for v in descriptions.values()]
        else:
            names = [labels[lang]["value"] for lang in langs if lang in labels]
            alias_values = [a["value"] for lang in langs for a in aliases.get(lang, ())]
            descs = [descriptions[lang]["value"] for lang in langs if lang in descriptions]
            kept = len(names) + len(descs) + sum(1 for lang in langs if lang in aliases)
            skipped = len(labels) + len(descriptions) + len(aliases) - kept
            if skipped:
                local[DROPPED_PREFIX + "lang"] += skipped
        name = names[0] if names else None
        all_aliases = list(dict.fromkeys(a for a in [*names[1:], *alias_values] if a != name))
        if name is not None:
            local["names"] += 1
        if descs:
            local["descriptions"] += 1
        local["aliases"] += len(all_aliases)
        return name, all_aliases, descs[0] if descs else None

    def _map_entity(self, e: dict[str, Any], eid: str, is_property: bool,
                    local: Counter[str]) -> None:
        name, aliases, description = self._texts(e, local)
        types: list[str] = []
        for pid, statements in _obj(e.get("claims")).items():
            preferred, normal = [], []
            for st in statements:
                rank = st.get("rank")
                if rank == "preferred":
                    preferred.append(st)
                elif rank == "deprecated":
                    local["dropped_deprecated"] += 1
                else:
                    normal.append(st)
            if preferred and normal:
                local["dropped_not_best_rank"] += len(normal)
            for st in preferred or normal:
                self._statement(eid, pid, st, types, local)
        if types:
            local["types"] += len(types)
        self.entities.append((eid, name, aliases, types, False, description))
        local["properties" if is_property else "items"] += 1
        if is_property and name is not None:
            self.preds.append((eid, name))
            local["predicate_labels"] += 1

    def _statement(self, eid: str, pid: str, st: dict[str, Any], types: list[str],
                   local: Counter[str]) -> None:
        snak = st["mainsnak"]
        prop = snak.get("property") or pid
        flt = self.filter
        if flt is not None:
            reason = flt.reason(prop)
            if reason is not None:
                local[DROPPED_PREFIX + reason] += 1
                return
        value = self._value(snak, local, "")
        if value is None:
            return
        qualifiers = _obj(st.get("qualifiers")) if self.qualifiers else None
        if qualifiers:
            sid = st.get("id")
            if isinstance(sid, str) and sid:
                node = sid.replace("$", "-", 1)
            else:
                blob = json.dumps(st, sort_keys=True).encode()
                node = f"{eid}-{hashlib.sha1(blob, usedforsecurity=False).hexdigest()[:24]}"
            self.entities.append((node, None, [], [STATEMENT_TYPE], True, None))
            local["statement_nodes"] += 1
            self.efacts += (eid, prop, node)
            self._add(node, prop, value)
            for qprop, snaks in qualifiers.items():
                for q in snaks:
                    qp = q.get("property") or qprop
                    reason = flt.reason(qp) if flt is not None else None
                    if reason is not None:
                        local[DROPPED_PREFIX + reason] += 1
                        continue
                    qvalue = self._value(q, local, "qualifier_")
                    if qvalue is not None:
                        self._add(node, qp, qvalue)
                        local["qualifier_facts"] += 1
        else:
            self._add(eid, prop, value)
        if prop == "P31" and isinstance(value, str):
            types.append(value)

    def _add(self, s: str, p: str, value: str | tuple[str, str | None, str | None]) -> None:
        if isinstance(value, str):
            self.efacts += (s, p, value)
        else:
            self.lfacts += (s, p, *value)

    @staticmethod
    def _value(snak: dict[str, Any], local: Counter[str], role: str
               ) -> str | tuple[str, str | None, str | None] | None:
        """A snak's value: an entity id, ``(value, datatype, lang)``, or None (dropped
        and counted under ``dropped_<role><reason>``)."""
        snaktype = snak.get("snaktype")
        if snaktype != "value":
            reason = snaktype if snaktype in ("somevalue", "novalue") else "other_snaktype"
            local[f"dropped_{role}{reason}"] += 1
            return None
        dv = snak["datavalue"]
        kind = dv.get("type")
        v = dv["value"]
        if kind == "wikibase-entityid":
            id_ = v.get("id")
            if not id_:
                id_ = _ENTITY_PREFIX[v["entity-type"]] + str(v["numeric-id"])
            return str(id_)
        if kind == "string":
            return (str(v), None, None)
        if kind == "time":
            value, datatype = _time(v)
            return (value, datatype, None)
        if kind == "quantity":
            amount = str(v["amount"])
            if v.get("unit", "1") != "1":
                local["quantity_unit_ignored"] += 1
            return (amount[1:] if amount[:1] == "+" else amount, "xsd:decimal", None)
        if kind == "monolingualtext":
            return (str(v["text"]), None, str(v["language"]).lower())
        if kind == "globecoordinate":
            point = f"Point({_number(v['longitude'])} {_number(v['latitude'])})"
            globe = v.get("globe") or _EARTH
            if globe != _EARTH:
                point = f"<{globe}> {point}"
            return (point, WKT_LITERAL, None)
        local[f"dropped_{role}unsupported_value"] += 1
        return None
