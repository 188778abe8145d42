"""Stage Wikidata dumps: the JSON entity dump and the truthy N-Triples dump.

:func:`stage_wikidata` is the stager behind ``kgbench load wikidata``: it looks at the
file name (``.json``/``.jsonl``/``.ndjson`` -> JSON, ``.nt`` -> truthy N-Triples, each
optionally ``.gz``/``.bz2``/``.zst``; any other name is recognised from its content)
and calls :func:`stage_wikidata_json` or :func:`stage_wikidata_ntriples`. Both follow
the stager contract of :mod:`loaders.pipeline`: they stream one file into a
:class:`~kgstore.staging.StageWriter`, count lines and malformed lines in a
:class:`~loaders.errors.ParseReport`, and return extra counts (``dropped_<reason>``,
``by_predicate:<P>``, what was mapped). The stage is imported with
``nameless_is_cvt=False``: an item without a label in the chosen languages is an item,
not a mediator; statement nodes say ``is_cvt=True`` themselves.

:func:`load_wikidata` (what the CLI calls) checks every file (:func:`check_wikidata`)
before staging any, then runs :func:`loaders.pipeline.run_load` with :data:`STAGERS`
(resumable, idempotent). :func:`guess_loader` and :func:`wrong_loader_message` tell
which ``kgbench load`` subcommand a file needs. Bad input: corrupt or truncated
compressed data raises :class:`~loaders.errors.InputFileError` naming the file and the
byte offset where reading stopped; malformed lines (invalid JSON or UTF-8, an entity
without an id or with an unexpected structure) are counted with their line numbers, or
under ``strict`` raise :class:`~loaders.errors.MalformedInputError` (``file:line``).

JSON dump
---------
Accepted layouts (sniffed from the first lines, see :func:`json_layout`):

* the dump: ``[`` on the first line, one entity per line ending with ``,``, ``]`` on
  the last line (a missing ``]`` is fine: dumps cut with ``head`` lack it);
* JSON Lines: one entity (or ``{"entities": {...}}``) per line;
* one JSON document (pretty-printed, e.g. ``Special:EntityData/Q42.json``): an entity,
  ``{"entities": {"Q42": {...}, ...}}`` or a list of entities; read whole, so it is
  limited to :data:`MAX_DOCUMENT_CHARS`.

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

Work is split over processes: the main process reads and decompresses the file and
writes the stage, worker processes (``workers``, default: one per CPU, at most 4, for
files of :data:`PARALLEL_MIN_BYTES` or more) parse batches of lines into compact row
lists (``fork`` on Linux, see :func:`_pool_context`). At most ``2 * workers + 1``
batches (of :data:`BATCH_CHARS`) are in flight, so memory stays flat. ``orjson`` is
used for parsing when it is installed (about twice as fast as :mod:`json`; not a
dependency).

Truthy N-Triples
----------------
:class:`WikidataTripleMapper` extends :class:`~loaders.triples.TripleMapper`:
``wdt:P…`` triples become facts with predicate ``P…`` (``wd:Q…`` -> ``Q…``; a blank
node or ``.well-known/genid`` object, i.e. "some value", is dropped); ``wdt:P31``
objects are also types; ``rdfs:label``/``schema:description`` pick the first chosen
language like the JSON mapping (labels of other chosen languages become aliases; the
dump writes an entity's triples together, which is what the choice relies on);
``skos:altLabel`` gives aliases; property labels label predicates. As in the JSON
mapping, ``xsd:decimal`` values lose a leading ``+``, and an object IRI that is no
Wikidata entity becomes a plain literal: a Commons file IRI its file name
(commonsMedia), a Commons data IRI its page name (geo-shape, tabular-data), any other
IRI (url) itself. Everything else (``p:``, ``ps:``, ``pq:``, ``wikibase:``,
``schema:version``, ``rdf:type``, sitelinks...) is dropped by the format's default
predicate filter (:data:`DEFAULT_NT_FILTER`) and counted by namespace
(``dropped_predicate_<prefix>``); with ``options.default_filter=False`` such triples
are kept as facts (ids: their full IRIs). The truthy dump has no qualifiers;
``options.qualifiers`` does not apply to it.

Both stagers apply ``options.keep_predicates``/``drop_predicates`` (see
:class:`~loaders.pipeline.PredicateFilter`) to fact predicates (for JSON: statement and
qualifier properties; a dropped ``P31`` gives no types either), counted as
``dropped_option``. ``report.triples`` counts the facts staged (JSON) or the valid
N-Triples lines (truthy dump, as for every N-Triples stager).
"""

from __future__ import annotations

import gc
import hashlib
import json
import multiprocessing
import multiprocessing.context
import os
import re
import sys
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson  # 2x faster than json on the real dump head

from kgstore.models import XSD, Literal
from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback, Store
from loaders.errors import (
    InputFileError,
    MalformedInputError,
    ParseReport,
    UnsupportedFormatError,
)
from loaders.ntriples import RawTriple, iter_raw_triples, parse_line_raw
from loaders.pipeline import (
    DEFAULT_NAMESPACES,
    DROPPED_PREFIX,
    PREDICATE_PREFIX,
    Input,
    LoadOptions,
    LoadReport,
    PredicateFilter,
    Stager,
    check_readable,
    run_load,
)
from loaders.sources import TextSource, data_name, open_text, reading_error
from loaders.triples import TripleMapper
from loaders.tsv import parse_triple_line

__all__ = [
    "JSON", "LOADERS", "STAGERS", "check_wikidata", "load_wikidata", "MAX_DOCUMENT_CHARS", "NTRIPLES", "PARALLEL_MIN_BYTES",
    "STATEMENT_TYPE", "WikidataTripleMapper", "guess_loader", "json_layout",
    "stage_wikidata", "stage_wikidata_json", "stage_wikidata_ntriples",
    "wikidata_format", "wrong_loader_message",
]

JSON, NTRIPLES = "wikidata-json", "wikidata-ntriples"
"""The two formats :func:`stage_wikidata` reads (see :func:`wikidata_format`)."""

STATEMENT_TYPE = "wikibase.statement"
"""Type (and CVT type) of the statement nodes made with ``options.qualifiers``."""

PARALLEL_MIN_BYTES = 8 << 20
"""Files smaller than this (on disk) are parsed in the main process: starting worker
processes costs more than it saves."""

MAX_DOCUMENT_CHARS = 256 << 20
"""Largest single JSON document (not one-entity-per-line) read as a whole."""

BATCH_CHARS = 4 << 20
"""Characters of input per batch handed to a worker."""

BATCH_LINES = 2_000
"""Lines per batch at most (many small entities)."""

MUL = "mul"
"""Wikidata's language code for labels valid in every language."""

WKT_LITERAL = "http://www.opengis.net/ont/geosparql#wktLiteral"
_EARTH = "http://www.wikidata.org/entity/Q2"
_XSD_DECIMAL = XSD + "decimal"
_JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson")
_RDF_EXTENSIONS = (".ttl", ".n3", ".trig", ".nq", ".rdf", ".owl", ".xml", ".jsonld")
_WIKIDATA_PROPERTY = re.compile(r"P[1-9][0-9]*\Z")
_REASON_CHARS = 160

LOADERS = ("wikidata", "freebase", "triples", "rdf", "unknown")
"""What :func:`guess_loader` answers: ``kgbench load <loader>`` subcommands, or unknown."""


# -- format detection --------------------------------------------------------------------
def _data_lines(path: str | Path, limit: int) -> Iterator[str]:
    """Up to ``limit`` non-blank, non-comment lines (stripped) from the start of a file;
    lines that are not UTF-8 are skipped."""
    with open_text(path) as src:
        n = 0
        for _, line in src.numbered(on_error=lambda n, r: None):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            yield text
            n += 1
            if n >= limit:
                return


def guess_loader(path: str | Path) -> str:
    """Which ``kgbench load`` subcommand fits ``path``, from its name and first lines:

    * ``"wikidata"``: JSON (a first line starting with ``[`` or ``{``), or N-Triples
      with ``http://www.wikidata.org/`` IRIs;
    * ``"freebase"``: N-Triples with ``http://rdf.freebase.com/`` IRIs;
    * ``"triples"``: other N-Triples, or tab-separated triples;
    * ``"rdf"``: Turtle, RDF/XML and other RDF syntaxes (by extension, or a first line
      starting with ``@prefix``/``PREFIX``/``@base``);
    * ``"unknown"``: none of these (an empty file, another format).

    Raises :class:`InputFileError` when the file cannot be read.
    """
    if Path(data_name(path)).suffix in _RDF_EXTENSIONS:
        return "rdf"
    verdict = "unknown"
    for i, text in enumerate(_data_lines(path, 50)):
        if i == 0:
            if text[0] in "[{":
                return "wikidata"
            if text.startswith(("@prefix", "@base", "PREFIX", "BASE", "prefix ")):
                return "rdf"
        if "http://rdf.freebase.com/" in text:
            return "freebase"
        if "http://www.wikidata.org/" in text and text.startswith("<"):
            return "wikidata"
        if verdict == "unknown":
            verdict = _triple_kind(text)
    return verdict


def _triple_kind(text: str) -> str:
    for parse in (parse_line_raw, parse_triple_line):
        try:
            if parse(text) is not None:
                return "triples"
        except ValueError:
            continue
    return "unknown"


_LOADER_WORDS = {
    "wikidata": "a Wikidata dump (JSON or truthy N-Triples)",
    "freebase": "a Freebase N-Triples dump",
    "triples": "triples (N-Triples or tab-separated)",
    "rdf": "RDF in another syntax (Turtle, RDF/XML...)",
}


def wrong_loader_message(path: str | Path, loader: str) -> str | None:
    """A message for a file given to ``kgbench load <loader>`` that another loader
    should read (``None`` when ``loader`` fits or the content is not recognised).

    ``"triples"`` accepts what ``"freebase"`` and ``"wikidata"`` N-Triples are, since
    ``load triples`` reads any N-Triples; JSON given to it is refused.
    """
    guess = guess_loader(path)
    if guess in ("unknown", loader):
        return None
    if loader == "triples" and guess in ("freebase", "triples"):
        return None
    if loader == "triples" and guess == "wikidata" and wikidata_format(path, sniff=True) != JSON:
        return None
    if loader == "wikidata" and guess == "triples":
        return None  # generic N-Triples may still hold wd:/wdt: further down
    return (f"this looks like {_LOADER_WORDS[guess]}, not what `kgbench load {loader}` "
            f"reads; use `kgbench load {guess} {path}`")


def wikidata_format(path: str | Path, *, sniff: bool = True) -> str:
    """:data:`JSON` or :data:`NTRIPLES` for a Wikidata dump file: by extension
    (``.json``/``.jsonl``/``.ndjson`` or ``.nt``, compressed or not), else (``sniff``)
    by its first line: ``[``/``{`` is JSON, ``<`` N-Triples. Raises
    :class:`UnsupportedFormatError` naming the right loader otherwise."""
    ext = Path(data_name(path)).suffix
    if ext in _JSON_EXTENSIONS:
        return JSON
    if ext == ".nt":
        return NTRIPLES
    if sniff:
        for text in _data_lines(path, 1):
            if text[0] in "[{":
                return JSON
            if text[0] in "<_":
                return NTRIPLES
    guess = guess_loader(path) if sniff else "unknown"
    hint = (f"it looks like {_LOADER_WORDS[guess]}: use `kgbench load {guess}`"
            if guess not in ("unknown", "wikidata") else
            "use .json/.json.gz/.json.bz2 for the JSON dump or .nt/.nt.gz/.nt.bz2 for "
            "the truthy N-Triples dump")
    raise UnsupportedFormatError(path, f"not a Wikidata dump (JSON or N-Triples); {hint}")


def json_layout(path: str | Path) -> str:
    """``"lines"`` (the dump: ``[`` then one entity per line; or JSON Lines) or
    ``"document"`` (one JSON value spread over lines) for a JSON file.

    Raises :class:`UnsupportedFormatError` when the file does not start like JSON."""
    first = None
    for text in _data_lines(path, 2):
        if first is None:
            first = text
            if text == "[":
                continue
            if text[0] not in "[{":
                guess = guess_loader(path)
                hint = ("it is N-Triples: name it .nt (or .nt.gz...) to load it as the "
                        "truthy dump" if guess == "wikidata" else
                        f"it looks like {_LOADER_WORDS[guess]}: use `kgbench load {guess}`"
                        if guess != "unknown" else "a Wikidata JSON dump starts with '[' or '{'")
                raise UnsupportedFormatError(path, f"is not JSON; {hint}")
        if text == "]":
            return "lines"
        try:
            json.loads(text[:-1] if text.endswith(",") else text)
        except ValueError:
            return "document"
        return "lines"
    return "lines"


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
    :class:`~loaders.pipeline.PredicateFilter` rules applied to statement and
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


_worker_mapper: _JsonMapper | None = None


def _init_worker(*settings: Any) -> None:
    global _worker_mapper
    _worker_mapper = _JsonMapper(*settings)


def _map_in_worker(batch: _Batch) -> _BatchResult:
    assert _worker_mapper is not None, "pool started without _init_worker"
    return _worker_mapper.map_batch(batch)


# -- JSON: the stager (main process) -----------------------------------------------------
class _StageSink:
    """Applies batch results to the stage in input order and keeps the totals."""

    def __init__(self, path: Path, writer: StageWriter, report: ParseReport,
                 strict: bool) -> None:
        self.path, self.writer, self.report, self.strict = path, writer, report, strict
        self.counts: Counter[str] = Counter()

    def apply(self, result: _BatchResult, bad_utf8: list[tuple[int, str]]) -> None:
        entities, efacts, lfacts, preds, counts, malformed = result
        if bad_utf8:
            malformed = sorted([*bad_utf8, *malformed])
        if malformed:
            if self.strict:
                raise MalformedInputError(self.path, *malformed[0])
            for lineno, reason in malformed:
                self.report.add_malformed(self.path, lineno, reason)
        w = self.writer
        add_entity, add_fact, add_predicate = w.add_entity, w.add_fact, w.add_predicate
        for row in entities:
            add_entity(*row)
        for s, p, o in zip(efacts[0::3], efacts[1::3], efacts[2::3], strict=True):
            add_fact(s, p, o)
        it = iter(lfacts)
        for ls, lp, value, datatype, lang in zip(it, it, it, it, it, strict=True):
            add_fact(ls, lp, Literal(value, datatype, lang))  # type: ignore[arg-type]
        for pid, label in preds:
            add_predicate(pid, label)
        n_e, n_l = len(efacts) // 3, len(lfacts) // 5
        self.report.triples += n_e + n_l
        self.counts.update(counts)
        self.counts["entity_facts"] += n_e
        self.counts["literal_facts"] += n_l


def _auto_workers(path: Path) -> int:
    try:
        size = path.stat().st_size
    except OSError:
        return 0
    if size < PARALLEL_MIN_BYTES:
        return 0
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else (os.cpu_count() or 1)))


def _pool_context() -> multiprocessing.context.BaseContext:
    """``fork`` on Linux: workers start at once and never re-import the caller's main
    module (``spawn`` would, and fail in a script without a ``__main__`` guard). The
    workers only run the pure-Python mapping, so the fork is safe even when the parent
    holds native threads (stores). ``spawn`` elsewhere."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")  # pragma: no cover - not Linux


def _batches(src: TextSource, bad_utf8: list[tuple[int, str]]) -> Iterator[_Batch]:
    """Lines of ``src`` grouped into batches of about :data:`BATCH_CHARS` (one string
    per batch pickles faster than many); a line that is not UTF-8 goes to ``bad_utf8``
    (the caller takes them with each batch) and is blank in its batch."""
    lines: list[str] = []
    size = 0
    first = 1

    def bad(lineno: int, reason: str) -> None:
        bad_utf8.append((lineno, reason))
        lines.append("")

    try:
        for lineno, text in src.numbered(bad):
            lines.append(text)
            size += len(text)
            if size >= BATCH_CHARS or len(lines) >= BATCH_LINES:
                yield first, "\n".join(lines)
                first, size = lineno + 1, 0
                lines.clear()
    except InputFileError as exc:
        raise reading_error(src, exc) from exc
    if lines:
        yield first, "\n".join(lines)


def stage_wikidata_json(
    path: Path,
    writer: StageWriter,
    report: ParseReport,
    *,
    options: LoadOptions,
    strict: bool = False,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
) -> dict[str, int]:
    """Stage a Wikidata JSON dump (see the module docstring for layouts and mapping).

    ``workers``: worker processes (0: parse in this process; ``None``: one per CPU for
    files of :data:`PARALLEL_MIN_BYTES` or more, else 0). Malformed lines (invalid JSON
    or UTF-8, an entity without an id or with an unexpected structure) are counted in
    ``report`` with their line numbers, or with ``strict`` raise
    :class:`MalformedInputError` (``path:line: reason``) at the first. Corrupt or
    truncated compressed data raises :class:`InputFileError` naming the byte offset.
    Returns the extra counts.
    """
    path = Path(path)
    layout = json_layout(path)
    sink = _StageSink(path, writer, report, strict)
    label = f"parsing {path.name}"
    if layout == "document":
        _stage_document(path, sink, options, progress, label)
    else:
        n = _auto_workers(path) if workers is None else workers
        with open_text(path) as src:
            try:
                _stage_lines(src, sink, options, progress, label, n)
            finally:
                report.lines = src.lines_read
            if progress is not None:
                progress(label, src.size, src.size)
    return dict(sink.counts)


def _stage_lines(src: TextSource, sink: _StageSink, options: LoadOptions,
                 progress: ProgressCallback | None, label: str, workers: int) -> None:
    bad_utf8: list[tuple[int, str]] = []

    def tick() -> None:
        sink.report.lines = src.lines_read
        if progress is not None:
            progress(label, src.position, src.size)

    def take_bad() -> list[tuple[int, str]]:
        taken = bad_utf8[:]
        bad_utf8.clear()
        return taken

    settings = _JsonMapper.settings(options)
    if workers <= 0:
        mapper = _JsonMapper(*settings)
        for batch in _batches(src, bad_utf8):
            sink.apply(mapper.map_batch(batch), take_bad())
            tick()
        return
    ctx = _pool_context()
    pending: deque[tuple[AsyncResult[_BatchResult], list[tuple[int, str]]]] = deque()
    with ctx.Pool(workers, initializer=_init_worker, initargs=settings) as pool:
        for batch in _batches(src, bad_utf8):
            pending.append((pool.apply_async(_map_in_worker, (batch,)), take_bad()))
            while len(pending) > 2 * workers:
                result, bad = pending.popleft()
                sink.apply(result.get(), bad)
                tick()
        while pending:
            result, bad = pending.popleft()
            sink.apply(result.get(), bad)
            tick()


def _stage_document(path: Path, sink: _StageSink, options: LoadOptions,
                    progress: ProgressCallback | None, label: str) -> None:
    """A file holding one JSON value over many lines: read whole, then mapped."""
    parts: list[str] = []
    chars = 0
    bad: list[tuple[int, str]] = []
    with open_text(path) as src:
        try:
            for text in _lines_of(src, bad):
                parts.append(text)
                chars += len(text) + 1
                if chars > MAX_DOCUMENT_CHARS:
                    break
        finally:
            sink.report.lines = src.lines_read
    if chars > MAX_DOCUMENT_CHARS:
        raise InputFileError(
            path, f"is one JSON document of more than {MAX_DOCUMENT_CHARS >> 20} MB; write "
            "one entity per line instead (the dump layout, or `jq -c '.[]'` for a list), "
            "then load that")
    mapper = _JsonMapper(*_JsonMapper.settings(options))
    if not bad:
        try:
            value = _loads("\n".join(parts))
        except json.JSONDecodeError as exc:
            mapper.malformed.append((exc.lineno, _short(
                f"invalid JSON: {exc.msg} (column {exc.colno})")))
        except ValueError as exc:
            mapper.malformed.append((1, _short(f"invalid JSON: {exc}")))
        else:
            mapper.map_value(1, value)
    sink.apply(mapper.take(), bad)
    if progress is not None:
        size = path.stat().st_size
        progress(label, size, size)


def _lines_of(src: TextSource, bad_utf8: list[tuple[int, str]]) -> Iterator[str]:
    """The text of ``src``'s lines; undecodable lines go to ``bad_utf8``; unreadable
    data raises :class:`InputFileError` with the byte offset."""
    try:
        for _, text in src.numbered(lambda n, r: bad_utf8.append((n, r))):
            yield text
    except InputFileError as exc:
        raise reading_error(src, exc) from exc


# -- truthy N-Triples --------------------------------------------------------------------
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
_RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
_DESCRIPTIONS = frozenset({"http://schema.org/description", "https://schema.org/description"})
_GENID = "http://www.wikidata.org/.well-known/genid/"
_WDT_P31 = WDT + "P31"

DEFAULT_NT_FILTER: tuple[tuple[str, str], ...] = (
    ("http://www.wikidata.org/prop/direct-normalized/*", "predicate_wdtn"),
    ("http://www.wikidata.org/prop/statement/*", "predicate_ps"),
    ("http://www.wikidata.org/prop/qualifier/*", "predicate_pq"),
    ("http://www.wikidata.org/prop/reference/*", "predicate_pr"),
    ("http://www.wikidata.org/prop/novalue/*", "predicate_wdno"),
    ("http://www.wikidata.org/prop/*", "predicate_p"),
    ("http://wikiba.se/ontology#*", "predicate_wikibase"),
    ("http://schema.org/*", "predicate_schema"),
    ("https://schema.org/*", "predicate_schema"),
    ("http://www.w3.org/2004/02/skos/core#*", "predicate_skos"),
    ("http://www.w3.org/1999/02/22-rdf-syntax-ns#*", "predicate_rdf"),
    ("http://www.w3.org/2000/01/rdf-schema#*", "predicate_rdfs"),
    ("http://www.w3.org/2002/07/owl#*", "predicate_owl"),
    ("http://www.w3.org/ns/prov#*", "predicate_prov"),
    ("http://*", "predicate_other"),
    ("https://*", "predicate_other"),
)
"""Format defaults of the truthy N-Triples stager (:class:`~loaders.pipeline.
PredicateFilter` rules over predicate ids): everything but ``wdt:`` facts (ids
``P…``) and the label/alias/description predicates is dropped, by namespace.
``default_filter=False`` keeps such triples as facts."""

_FACT, _LABEL, _DESCRIPTION, _ALIAS, _DROP = range(5)
_COMMONS_FILE = "http://commons.wikimedia.org/wiki/Special:FilePath/"
_COMMONS_DATA = "http://commons.wikimedia.org/data/main/"


def _iri_value(iri: str) -> str:
    """The JSON dump's value for a ``wdt:`` object IRI that is no Wikidata entity: the
    file name of a Commons file (commonsMedia), the page of Commons data (geo-shape,
    tabular-data), else the IRI itself (url)."""
    if iri.startswith(_COMMONS_FILE):
        return unquote(iri[len(_COMMONS_FILE):])
    if iri.startswith(_COMMONS_DATA):
        return unquote(iri[len(_COMMONS_DATA):])
    return iri


class WikidataTripleMapper(TripleMapper):
    """:class:`~loaders.triples.TripleMapper` for the truthy dump (module docstring):
    keeps ``wdt:`` facts, labels, aliases and descriptions, drops what ``filter``
    drops (default: :data:`DEFAULT_NT_FILTER`), counted in :attr:`dropped`. Call
    :meth:`finish` after the last triple."""

    def __init__(
        self,
        writer: StageWriter,
        *,
        namespaces: dict[str, str] | None = None,
        langs: Iterable[str] | None = ("en",),
        bnode_scope: str = "",
        filter: PredicateFilter | None = None,
    ) -> None:
        order = None if langs is None else list(dict.fromkeys(
            [*(lang.lower() for lang in langs), MUL]))
        super().__init__(writer, namespaces={**DEFAULT_NAMESPACES, **(namespaces or {})},
                         langs=order, bnode_scope=bnode_scope)
        self.filter = PredicateFilter(DEFAULT_NT_FILTER) if filter is None else filter
        self._rank = {} if order is None else {lang: i for i, lang in enumerate(order)}
        self._kinds: dict[str, tuple[int, str]] = {}  # predicate IRI -> (kind, id/reason)
        self.dropped: Counter[str] = Counter()
        self.by_predicate: Counter[str] = Counter()
        self._subject: str | None = None
        self._labels: dict[str | None, str] = {}
        self._descriptions: dict[str | None, str] = {}

    def _kind(self, p: str) -> tuple[int, str]:
        if p == _RDFS_LABEL:
            kind = (_LABEL, "")
        elif p in _DESCRIPTIONS:
            kind = (_DESCRIPTION, "")
        elif p == _SKOS_ALT:
            kind = (_ALIAS, "")
        else:
            pid = self.iri_id(p)
            reason = self.filter.reason(pid)
            kind = (_FACT, pid) if reason is None else (_DROP, DROPPED_PREFIX + reason)
        if len(self._kinds) < 100_000:
            self._kinds[p] = kind
        return kind

    def add(self, raw: RawTriple) -> None:
        s_iri, _, p, o_iri, o_bnode, string, datatype, lang = raw
        kind, what = self._kinds.get(p) or self._kind(p)
        if kind == _DROP:
            self.dropped[what] += 1
            return
        if s_iri is not None and s_iri != self._subject:
            self._flush()
            self._subject = s_iri
        if kind == _FACT:
            if p.startswith(WDT):
                if o_bnode is not None or (o_iri is not None and o_iri.startswith(_GENID)):
                    self.dropped["dropped_somevalue"] += 1
                    return
                if p == _WDT_P31 and o_iri is not None and s_iri is not None:
                    self.writer.add_entity(self.iri_id(s_iri), types=(self.iri_id(o_iri),))
                    self._counts["types"] += 1
                if datatype == _XSD_DECIMAL and string is not None and string[:1] == "+":
                    raw = (*raw[:5], string[1:], datatype, lang)
                elif o_iri is not None and self.iri_id(o_iri) == o_iri:
                    raw = (*raw[:3], None, None, _iri_value(o_iri), None, None)
            super().add(raw)
            self.by_predicate[what] += 1
            return
        if kind == _ALIAS:
            super().add(raw)
            return
        if string is None or s_iri is None:
            self.dropped["dropped_label_not_literal"] += 1
            return
        if not self._accept_lang(lang):
            return
        texts = self._labels if kind == _LABEL else self._descriptions
        texts.setdefault(None if lang is None else lang.lower(), string)

    def _best(self, texts: dict[str | None, str]) -> list[str]:
        """Texts by language priority (chosen order, then untagged; all: as found)."""
        if not self._rank:
            return list(texts.values())
        last = len(self._rank)
        ordered = sorted(texts.items(), key=lambda kv: self._rank.get(kv[0] or "", last))
        return [text for _, text in ordered]

    def _flush(self) -> None:
        """Stage the buffered labels and descriptions of the current subject."""
        if self._subject is None or not (self._labels or self._descriptions):
            self._labels.clear()
            self._descriptions.clear()
            return
        s = self.iri_id(self._subject)
        names = self._best(self._labels)
        descriptions = self._best(self._descriptions)
        name = names[0] if names else None
        aliases = list(dict.fromkeys(a for a in names[1:] if a != name))
        self.writer.add_entity(s, name=name, aliases=aliases,
                               description=descriptions[0] if descriptions else None)
        counts = self._counts
        if name is not None:
            counts["names"] += 1
            if self.looks_like_predicate(s):
                self.writer.add_predicate(s, name)
                counts["predicate_labels"] += 1
        counts["aliases"] += len(aliases)
        if descriptions:
            counts["descriptions"] += 1
        self._labels.clear()
        self._descriptions.clear()

    def finish(self) -> None:
        """Stage what is still buffered (call once, after the last triple)."""
        self._flush()
        self._subject = None

    @property
    def all_counts(self) -> dict[str, int]:
        """Mapped counts, ``dropped_<reason>`` and ``by_predicate:<P>``."""
        out = {k: v for k, v in self.counts.items() if v}
        skipped = out.pop("skipped_lang", 0)
        if skipped:
            out[DROPPED_PREFIX + "lang"] = skipped
        out.update(self.dropped)
        out.update({PREDICATE_PREFIX + p: n for p, n in self.by_predicate.items()})
        return out


def stage_wikidata_ntriples(
    path: Path,
    writer: StageWriter,
    report: ParseReport,
    *,
    options: LoadOptions,
    strict: bool = False,
    progress: ProgressCallback | None = None,
) -> dict[str, int]:
    """Stage a Wikidata truthy N-Triples dump (see :class:`WikidataTripleMapper`).

    Malformed lines follow :func:`loaders.ntriples.iter_raw_triples` (counted, or
    :class:`MalformedInputError` with ``strict``); corrupt compressed data raises
    :class:`InputFileError` naming the byte offset. A Freebase dump is refused with a
    pointer to ``kgbench load freebase``."""
    path = Path(path)
    _refuse_freebase(path)
    mapper = WikidataTripleMapper(
        writer, namespaces=options.namespaces, langs=options.langs,
        bnode_scope=options.bnode_scope,
        filter=PredicateFilter.for_options(options, DEFAULT_NT_FILTER))
    for raw in iter_raw_triples(path, strict=strict, report=report, progress=progress):
        mapper.add(raw)
    mapper.finish()
    return mapper.all_counts


def _refuse_freebase(path: Path) -> None:
    if guess_loader(path) == "freebase":
        raise UnsupportedFormatError(
            path, f"this looks like a Freebase dump; use `kgbench load freebase {path}`")


# -- entry points ------------------------------------------------------------------------
def check_wikidata(path: str | Path) -> str:
    """The format (:data:`JSON` or :data:`NTRIPLES`) of a Wikidata dump file, checked
    from its name and first lines; :class:`UnsupportedFormatError` naming the loader to
    use for anything else (a Freebase dump, Turtle, TSV, not JSON...)."""
    p = Path(path)
    fmt = wikidata_format(p)
    if fmt == JSON:
        json_layout(p)  # raises for content that is not JSON
        return fmt
    for text in _data_lines(p, 1):
        if text[0] in "[{":
            raise UnsupportedFormatError(
                p, "is JSON, not N-Triples: name it .json (or .json.gz...) to load it as "
                "the JSON dump")
    _refuse_freebase(p)
    return fmt


def load_wikidata(
    store: Store,
    paths: Sequence[str | Path],
    *,
    options: LoadOptions | None = None,
    strict: bool = False,
    progress: ProgressCallback | None = None,
) -> LoadReport:
    """Load Wikidata dump files (JSON and/or truthy N-Triples) into ``store``.

    Every file is checked first (readable, a Wikidata dump: :func:`check_wikidata`),
    then staged (:data:`STAGERS`), then imported by :func:`loaders.pipeline.run_load`;
    a failure before the imports (missing file, wrong format, corrupt compressed data,
    a malformed line under ``strict``) leaves the store unchanged, and running the same
    load again resumes (complete stages are reused, imports are idempotent).
    ``options``: languages, ``qualifiers`` (statement nodes; note that
    :class:`~loaders.pipeline.LoadOptions` defaults to ``True``), predicate filters,
    report size.
    """
    inputs = [Path(p) for p in dict.fromkeys(Path(p) for p in paths)]
    for path in inputs:
        check_readable(path)
    plan = [Input(path, check_wikidata(path)) for path in inputs]
    return run_load(store, plan, stager_for_format=STAGERS, options=options or LoadOptions(),
                    strict=strict, progress=progress)


def stage_wikidata(
    path: Path,
    writer: StageWriter,
    report: ParseReport,
    *,
    options: LoadOptions,
    strict: bool = False,
    progress: ProgressCallback | None = None,
) -> dict[str, int]:
    """Stage a Wikidata dump, JSON or truthy N-Triples (:func:`wikidata_format`)."""
    stager = STAGERS[wikidata_format(path)]
    return stager(path, writer, report, options=options, strict=strict, progress=progress)


STAGE_VERSION = 1
"""Bumped when the mapping changes, so a kept stage from an older mapping is not reused."""

for _stager in (stage_wikidata, stage_wikidata_json, stage_wikidata_ntriples):
    # Items without a label in the chosen languages are items, not mediators; the
    # statement nodes are staged with is_cvt=True.
    setattr(_stager, "nameless_is_cvt", False)  # noqa: B010
    setattr(_stager, "stage_version", STAGE_VERSION)  # noqa: B010

STAGERS: dict[str, Stager] = {JSON: stage_wikidata_json, NTRIPLES: stage_wikidata_ntriples}
"""Format name (:func:`wikidata_format`, recorded in the source record) -> stager."""
