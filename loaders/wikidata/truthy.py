"""Staging Wikidata's truthy N-Triples dump.

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

"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

from kgstore.models import XSD
from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback
from loaders.errors import (
    ParseReport,
    UnsupportedFormatError,
)
from loaders.ntriples import RawTriple, iter_raw_triples
from loaders.pipeline import (
    DEFAULT_NAMESPACES,
    DROPPED_PREFIX,
    PREDICATE_PREFIX,
    LoadOptions,
    PredicateFilter,
)
from loaders.sniff import guess_loader
from loaders.triples import TripleMapper
from loaders.wikidata.json_mapper import MUL

_XSD_DECIMAL = XSD + "decimal"
_WIKIDATA_PROPERTY = re.compile(r"P[1-9][0-9]*\Z")
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
    refuse_freebase(path)
    mapper = WikidataTripleMapper(
        writer, namespaces=options.namespaces, langs=options.langs,
        bnode_scope=options.bnode_scope,
        filter=PredicateFilter.for_options(options, DEFAULT_NT_FILTER))
    for raw in iter_raw_triples(path, strict=strict, report=report, progress=progress):
        mapper.add(raw)
    mapper.finish()
    return mapper.all_counts


def refuse_freebase(path: Path) -> None:
    if guess_loader(path) == "freebase":
        raise UnsupportedFormatError(
            path, f"this looks like a Freebase dump; use `kgbench load freebase {path}`")
