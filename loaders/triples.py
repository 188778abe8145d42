"""Load triple files (N-Triples, TSV, names) into a store, Freebase-style.

:func:`load_triples` is what ``kgbench load triples`` calls. It works in two phases:

1. *parse* every input file (a names file given with ``names=`` first) into its own
   :class:`~kgstore.staging.StageWriter` stage, ``<store>/staging/<file>-<hash>`` for a
   local store, else a temporary directory; N-Triples are mapped by
   :class:`TripleMapper`, a TSV line is one fact, a names line one named entity;
2. *import* the stages in order: for each, record a ``status="loading"`` source record
   (file, SHA-256, format), ``store.import_stage(stage, nameless_is_cvt=<N-Triples?>)``,
   record it again with ``status="complete"`` and its counts, delete the stage.

Nothing is written to the store until every file has parsed, so a malformed line in
strict mode, or an unreadable file, leaves the store unchanged. The names file is
imported first so entities have their names when facts arrive.

Resuming: when a later step fails (another file does not parse, or an import fails),
the complete stages already in the store directory are kept; running a load again
reuses a stage whose file content and settings match (no re-parsing;
``FileReport.reused_stage``) and the idempotent import finishes the job.

Mapping conventions (N-Triples), see :class:`TripleMapper`:

=================================================  ======================================
predicate                                          becomes
=================================================  ======================================
``type.object.name``, ``rdfs:label``               entity name (+ predicate label, below)
``common.topic.alias``, ``skos:altLabel``          entity alias
``type.object.type``, ``rdf:type``                 entity type (object id)
``type.type.instance``                             type of the *object* (the inverse form)
``common.topic.description``, schema:description   entity description
``freebase.type_hints.mediator "true"``            the subject is a CVT (mediator) type
anything else                                      a fact ``(subject, predicate, object)``
=================================================  ======================================

Names, aliases and descriptions are kept only for the languages in ``langs`` (default
English) or without a language tag; other languages are dropped (counted as
``skipped_lang``). A name/alias/type/description triple whose object has the wrong kind
(an IRI name, a literal type) is kept as an ordinary fact instead.

Predicate labels: the store makes a Predicate node for every staged label, so a label
is staged only when its subject is a predicate: an id already used as a predicate in
this file, a Freebase property id (``domain.type.property``: two or more dots, not an
``m.``/``g.`` MID) or a Wikidata property id (``P57``). A label for another kind of
predicate that appears before the predicate is first used is not seen as one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from kgstore.models import XSD, Literal
from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback, Store
from loaders.errors import ParseReport, UnsupportedFormatError
from loaders.ntriples import RawTriple, iter_raw_triples, parse_line_raw
from loaders.pipeline import (
    DEFAULT_NAMESPACES,
    FREEBASE_NS,
    FileReport,
    Input,
    LoadOptions,
    LoadReport,
    Stager,
    readable_inputs,
    run_load,
)
from loaders.sources import data_name, open_text
from loaders.tsv import iter_names, iter_tsv_triples, parse_triple_line
from loaders.unfold import Unfolder, freebase_reverse_properties

__all__ = [
    "DEFAULT_NAMESPACES", "FREEBASE_NS", "FileReport", "LoadReport", "STAGERS", "TripleMapper",
    "detect_format", "load_triples", "stage_names", "stage_ntriples", "stage_tsv",
]

RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_NS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS_NS = "http://www.w3.org/2004/02/skos/core#"

NAME_PREDICATES = frozenset({FREEBASE_NS + "type.object.name", RDFS_NS + "label"})
ALIAS_PREDICATES = frozenset({FREEBASE_NS + "common.topic.alias", SKOS_NS + "altLabel"})
TYPE_PREDICATES = frozenset({FREEBASE_NS + "type.object.type", RDF_NS + "type"})
INSTANCE_PREDICATES = frozenset({FREEBASE_NS + "type.type.instance"})
DESCRIPTION_PREDICATES = frozenset({
    FREEBASE_NS + "common.topic.description",
    "http://schema.org/description", "https://schema.org/description",
})
MEDIATOR_PREDICATES = frozenset({FREEBASE_NS + "freebase.type_hints.mediator"})

# Roles of predicates; FACT means "store the triple as a fact".
FACT, NAME, ALIAS, TYPE, INSTANCE, DESCRIPTION, MEDIATOR = range(7)
_ROLES: dict[str, int] = {
    **{p: NAME for p in NAME_PREDICATES},
    **{p: ALIAS for p in ALIAS_PREDICATES},
    **{p: TYPE for p in TYPE_PREDICATES},
    **{p: INSTANCE for p in INSTANCE_PREDICATES},
    **{p: DESCRIPTION for p in DESCRIPTION_PREDICATES},
    **{p: MEDIATOR for p in MEDIATOR_PREDICATES},
}
ROLE_PREDICATES: frozenset[str] = frozenset(_ROLES)
"""Predicate IRIs the loaders turn into entity fields (names, aliases, types,
descriptions) or CVT hints rather than facts."""

_XSD_STRING = XSD + "string"
_WIKIDATA_PROPERTY = re.compile(r"P[1-9][0-9]*\Z")
_TRUE = frozenset({"true", "1"})

NTRIPLES, TSV, NAMES = "ntriples", "tsv", "names"
_EXTENSIONS = {".nt": NTRIPLES, ".tsv": TSV, ".txt": TSV}
_NOT_SUPPORTED = {
    ".ttl": "Turtle", ".n3": "N3", ".trig": "TriG", ".nq": "N-Quads", ".rdf": "RDF/XML",
    ".owl": "RDF/XML", ".xml": "RDF/XML", ".jsonld": "JSON-LD",
}
STAGE_VERSION = 2
"""Bumped when the mapping changes, so a kept stage from an older loader is not reused
(2: TSV facts unfolded into Freebase's layout, :mod:`loaders.unfold`)."""


# -- format detection --------------------------------------------------------------------
def detect_format(path: str | Path) -> str:
    """``"ntriples"`` or ``"tsv"`` for ``path``, from its extension after removing a
    compression suffix: ``.nt`` -> N-Triples; ``.tsv``/``.txt`` -> TSV.

    A file with no extension at all (the Freebase dump is ``freebase-rdf-latest.gz``)
    is recognised from its first data line. Raises :class:`UnsupportedFormatError` for
    other extensions (saying how to convert RDF syntaxes) and undetectable content.
    """
    p = Path(path)
    ext = Path(data_name(p)).suffix
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if ext in _NOT_SUPPORTED:
        raise UnsupportedFormatError(
            p, f"{_NOT_SUPPORTED[ext]} is not supported; convert it to N-Triples first "
            "(e.g. `riot --output=ntriples FILE > FILE.nt`, or rdflib) and load the .nt file"
        )
    if ext == "":
        sniffed = _sniff(p)
        if sniffed is not None:
            return sniffed
    raise UnsupportedFormatError(
        p, f"cannot tell the format from the extension {ext or '(none)'!r}: use .nt for "
        "N-Triples or .tsv/.txt for tab-separated triples (optionally .gz/.bz2/.zst)"
    )


def _sniff(path: Path) -> str | None:
    """Format of an extension-less file from its first non-blank, non-comment line."""
    with open_text(path) as src:
        for _, line in src.numbered(on_error=lambda n, r: None):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            for fmt, parse in ((NTRIPLES, parse_line_raw), (TSV, parse_triple_line)):
                try:
                    if parse(line) is not None:
                        return fmt
                except ValueError:  # NTriplesSyntaxError / TsvSyntaxError
                    continue
            return None
    return None


# -- mapping -----------------------------------------------------------------------------
class TripleMapper:
    """Turns parsed N-Triples (:data:`~loaders.ntriples.RawTriple`) into stage records.

    ``namespaces`` maps IRI prefixes to replacements (longest prefix wins; an IRI
    matching none keeps its full text as id). ``langs`` are the accepted language tags
    for names, aliases and descriptions (lower-case, exact match; untagged literals
    are always accepted; ``None`` accepts every language). Blank node ``_:b1`` becomes
    ``_:<bnode_scope>_b1`` so labels from different files never collide. ``counts``
    tallies what was staged.
    """

    def __init__(
        self,
        writer: StageWriter,
        *,
        namespaces: dict[str, str] | None = None,
        langs: Iterable[str] | None = ("en",),
        bnode_scope: str = "",
    ) -> None:
        self.writer = writer
        ns = DEFAULT_NAMESPACES if namespaces is None else namespaces
        self._ns = sorted(ns.items(), key=lambda kv: len(kv[0]), reverse=True)
        self._ns_prefixes = tuple(prefix for prefix, _ in self._ns)
        # Prefixes no longer prefix extends: when one matched, it is the longest match.
        self._final = {p for p in ns if not any(q != p and q.startswith(p) for q in ns)}
        # The last final prefix matched: dump lines mostly share one namespace, so one
        # startswith usually settles an IRI. "\x00" matches no IRI.
        self._hot, self._hot_len, self._hot_repl = "\x00", 1, ""
        self.langs = None if langs is None else frozenset(lang.lower() for lang in langs)
        self._bnode = f"_:{bnode_scope}_" if bnode_scope else "_:"
        self._predicates: dict[str, tuple[int, str]] = {}  # IRI -> (role, id)
        self.predicates_used: set[str] = set()
        self._facts = 0
        self._counts = dict.fromkeys(
            ("names", "aliases", "types", "descriptions", "cvt_types", "predicate_labels",
             "skipped_lang"), 0)

    @property
    def counts(self) -> dict[str, int]:
        """Records staged so far: facts, names, aliases, types, descriptions, cvt_types,
        predicate_labels, and skipped_lang (texts dropped for their language)."""
        return {"facts": self._facts, **self._counts}

    def iri_id(self, iri: str) -> str:
        """The id of an IRI: namespace prefix replaced, else the IRI itself."""
        if iri.startswith(self._hot) and len(iri) > self._hot_len:
            return self._hot_repl + iri[self._hot_len:]
        if iri.startswith(self._ns_prefixes):
            for prefix, replacement in self._ns:
                if iri.startswith(prefix) and len(iri) > len(prefix):
                    if prefix in self._final:
                        self._hot, self._hot_len, self._hot_repl = prefix, len(prefix), replacement
                    return replacement + iri[len(prefix):]
        return iri

    def _predicate(self, iri: str) -> tuple[int, str]:
        # Few distinct predicates exist, so this cache stays small.
        entry = self._predicates[iri] = (_ROLES.get(iri, FACT), self.iri_id(iri))
        return entry

    def _accept_lang(self, lang: str | None) -> bool:
        if lang is None or self.langs is None or lang.lower() in self.langs:
            return True
        self._counts["skipped_lang"] += 1
        return False

    def looks_like_predicate(self, id: str) -> bool:
        """Whether a name on entity ``id`` should also label predicate ``id``."""
        if id in self.predicates_used:
            return True
        if id.count(".") >= 2 and not id.startswith(("m.", "g.")):
            return True  # Freebase property: domain.type.property
        return _WIKIDATA_PROPERTY.match(id) is not None

    def add(self, raw: RawTriple) -> None:
        """Stage one triple according to the conventions in the module docstring."""
        s_iri, s_bnode, p, o_iri, o_bnode, string, datatype, lang = raw
        s = self.iri_id(s_iri) if s_iri is not None else self._bnode + (s_bnode or "")
        role, pid = self._predicates.get(p) or self._predicate(p)
        if role == FACT:
            self._add_fact(s, pid, o_iri, o_bnode, string, datatype, lang)
            return
        w, counts = self.writer, self._counts
        if string is not None:
            if role == NAME:
                if self._accept_lang(lang):
                    w.add_entity(s, name=string)
                    counts["names"] += 1
                    if self.looks_like_predicate(s):
                        w.add_predicate(s, string)
                        counts["predicate_labels"] += 1
                return
            if role == ALIAS:
                if self._accept_lang(lang):
                    w.add_entity(s, aliases=(string,))
                    counts["aliases"] += 1
                return
            if role == DESCRIPTION:
                if self._accept_lang(lang):
                    w.add_entity(s, description=string)
                    counts["descriptions"] += 1
                return
            if role == MEDIATOR:
                if string.strip().lower() in _TRUE:
                    w.add_cvt_type(s)
                    counts["cvt_types"] += 1
                return
        elif o_iri is not None:
            if role == TYPE:
                w.add_entity(s, types=(self.iri_id(o_iri),))
                counts["types"] += 1
                return
            if role == INSTANCE:
                w.add_entity(self.iri_id(o_iri), types=(s,))
                counts["types"] += 1
                return
        # A special predicate with an object of the wrong kind: keep it as a fact.
        self._add_fact(s, pid, o_iri, o_bnode, string, datatype, lang)

    def _add_fact(self, s: str, pid: str, o_iri: str | None, o_bnode: str | None,
                  string: str | None, datatype: str | None, lang: str | None) -> None:
        self.predicates_used.add(pid)
        self._facts += 1
        if o_iri is not None:
            self.writer.add_fact(s, pid, self.iri_id(o_iri))
        elif string is not None:
            if datatype == _XSD_STRING:
                datatype = None  # RDF 1.1: "x" and "x"^^xsd:string are the same literal
            self.writer.add_fact(s, pid, Literal(string, datatype, lang))
        else:
            self.writer.add_fact(s, pid, self._bnode + (o_bnode or ""))


# -- stagers ----------------------------------------------------------------------------
def stage_ntriples(path: Path, writer: StageWriter, report: ParseReport, *,
                   options: LoadOptions, strict: bool = False,
                   progress: ProgressCallback | None = None) -> dict[str, int]:
    """Stager (:mod:`loaders.pipeline`) of N-Triples files: :class:`TripleMapper`."""
    mapper = TripleMapper(writer, namespaces=options.namespaces, langs=options.langs,
                          bnode_scope=options.bnode_scope)
    add = mapper.add
    for raw in iter_raw_triples(path, strict=strict, report=report, progress=progress):
        add(raw)
    return dict(mapper.counts)


def stage_tsv(path: Path, writer: StageWriter, report: ParseReport, *,
              options: LoadOptions, strict: bool = False,
              progress: ProgressCallback | None = None) -> dict[str, int]:
    """Stager of tab-separated triples: one fact per line, in Freebase's layout where
    the options say so (:class:`loaders.unfold.Unfolder`)."""
    reverse = freebase_reverse_properties() if options.reverse_properties else None
    unfolder = Unfolder(writer, unfold=options.unfold, reverse=reverse)
    add = unfolder.add
    for head, relation, tail in iter_tsv_triples(path, strict=strict, report=report,
                                                 progress=progress):
        add(head, relation, tail)
    return {"facts": report.triples, **unfolder.counts}


def stage_names(path: Path, writer: StageWriter, report: ParseReport, *,
                options: LoadOptions, strict: bool = False,
                progress: ProgressCallback | None = None) -> dict[str, int]:
    """Stager of ``id<TAB>name`` files: one named entity per line."""
    add_entity = writer.add_entity
    for id_, name in iter_names(path, strict=strict, report=report, progress=progress):
        add_entity(id_, name=name)
    return {"names": report.triples}


for _stager, _nameless in ((stage_ntriples, True), (stage_tsv, False), (stage_names, False)):
    # N-Triples: nameless subjects of facts are CVTs (Freebase convention); TSV: no.
    setattr(_stager, "nameless_is_cvt", _nameless)  # noqa: B010
    setattr(_stager, "stage_version", STAGE_VERSION)  # noqa: B010

STAGERS: dict[str, Stager] = {NTRIPLES: stage_ntriples, TSV: stage_tsv, NAMES: stage_names}


# -- loading -----------------------------------------------------------------------------
def load_triples(
    store: Store,
    paths: list[Path],
    *,
    names: Path | None = None,
    strict: bool = False,
    progress: ProgressCallback | None = None,
    namespaces: dict[str, str] | None = None,
    langs: Iterable[str] | None = ("en",),
    format: str | None = None,
    unfold: bool = True,
    reverse_properties: bool = False,
) -> LoadReport:
    """Load triple files (and optionally a names file) into ``store``; see the module
    docstring for the steps, the mapping and resuming. ``unfold`` and
    ``reverse_properties`` rebuild Freebase's layout from TSV files in FB15k-237's
    (:mod:`loaders.unfold`).

    ``paths``: N-Triples (``.nt``) or TSV (``.tsv``/``.txt``) files, plain or
    ``.gz``/``.bz2``/``.zst``; ``format`` (``"ntriples"``/``"tsv"``) overrides the
    extension for all of them. ``namespaces`` extends :data:`DEFAULT_NAMESPACES` (map a
    prefix to itself to keep such IRIs whole). ``langs``: see :class:`TripleMapper`.
    ``strict``: stop at the first malformed line with :class:`MalformedInputError`;
    otherwise malformed lines are counted and skipped. ``progress(step, done, total)``
    is called while parsing (bytes of the file) and importing (steps).

    All files are parsed before anything is imported, so a file that fails to parse
    (strict mode, corrupt data) raises with the store unchanged. Raises
    :class:`InputFileError` / :class:`UnsupportedFormatError` for unusable files
    before reading any. This is :func:`loaders.pipeline.run_load` with the stagers of
    :data:`STAGERS`.
    """
    if format is not None and format not in (NTRIPLES, TSV):
        raise UnsupportedFormatError(", ".join(map(str, paths)),
                                     f"unknown format {format!r}: use 'ntriples' or 'tsv'")
    plan = [Input(p, NAMES) for p in readable_inputs([names] if names is not None else [])]
    plan += [Input(p, format or detect_format(p)) for p in readable_inputs(paths)]
    options = LoadOptions(langs=None if langs is None else tuple(langs), unfold=unfold,
                          reverse_properties=reverse_properties).with_namespaces(namespaces)
    return run_load(store, plan, stager_for_format=STAGERS, options=options, strict=strict,
                    progress=progress)
