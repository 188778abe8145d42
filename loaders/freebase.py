"""Load the Freebase RDF dump (``kgbench load freebase``).

The official dump (``freebase-rdf-latest.gz``, 3.1 billion lines, 425 GB uncompressed)
is tab-separated N-Triples::

    <http://rdf.freebase.com/ns/m.0abc>\\t<http://rdf.freebase.com/ns/film.film.directed_by>\\t<http://rdf.freebase.com/ns/m.0xyz>\\t.

:func:`load_freebase` streams each file (plain, ``.gz``, ``.bz2``, ``.zst``) through
:class:`~loaders.vectorized.VectorStager` (decompression in a background thread, DuckDB
SQL on every core for parsing, filtering and mapping, Parquet stages) and imports the
stages with :func:`loaders.pipeline.run_load` (resumable, idempotent, one source record
per file). Lines the SQL path does not fully understand (``\\u`` escapes, blank nodes,
odd spacing, malformed lines) go through the W3C N-Triples parser, so what is stored
and what is reported as malformed is what :mod:`loaders.ntriples` says.

Mapping (as :class:`~loaders.triples.TripleMapper`; ``m.0abc`` ids):

==================================================  =====================================
predicate                                           becomes
==================================================  =====================================
``type.object.name`` (``rdfs:label``)               entity name; the first ``--lang`` that
                                                    has one wins; also the label of a
                                                    predicate (``domain.type.property``)
``common.topic.alias``                              alias (chosen languages)
``type.object.type``                                entity type
``common.topic.description``                        description (first chosen language)
``freebase.type_hints.mediator "true"``             the subject is a CVT (mediator) type
anything else, object an entity                     fact between entities
anything else, object a literal                     literal fact (dates, numbers, strings;
                                                    ``xsd:`` datatypes shortened)
==================================================  =====================================

CVT detection: entities having a type declared a mediator become CVTs. When no file of
a load declares mediator types (a slice of the dump without its schema), the fallback
applies: nameless subjects of facts are CVTs (``--nameless-cvt`` / ``--no-nameless-cvt``,
i.e. ``LoadOptions.nameless_is_cvt``, force either rule).

Default filter (:data:`FREEBASE_FILTER`, first matching rule wins; ``--keep PRED`` and
``--drop PRED`` patterns come before it, ``*`` wildcards allowed; ``--no-default-filter``
turns it off). Dropped lines are counted by reason:

=================  ====================================================================
reason             predicates
=================  ====================================================================
(kept)             ``type.object.name``, ``type.object.type``,
                   ``freebase.type_hints.mediator``
``keys``           ``type.object.key`` (Wikipedia/namespace lookup keys)
``notable_for``    ``common.notable_for.*``, ``common.topic.notable_for``,
                   ``common.topic.notable_types`` (derived "notable for" records and their
                   ``display_name`` strings in every language)
``reverse_types``  ``type.type.instance`` (the reverse of ``type.object.type``, which the
                   dump also has; ``--keep type.type.instance`` for a dump slice without it)
``schema``         ``type.*`` (the type system: ``type.property.*``, ``type.type.*``,
                   ``type.object.permission``...), ``rdf:type``, ``rdfs:domain``,
                   ``rdfs:range``, ``owl:*``
``bookkeeping``    ``freebase.*``, ``dataworld.*``, ``kg.*``
``media``          ``common.topic.image``, ``common.image.*``, ``common.topic.article``,
                   ``common.document.*``
``webpages``       ``common.topic.webpage``, ``common.webpage.*``,
                   ``common.topic.topic_equivalent_webpage``
``user_domains``   ``user.*`` (user-contributed domains; ``base.*`` is kept)
``lang``           names, aliases, descriptions and any other language-tagged literal in a
                   language not chosen with ``--lang`` (default ``en``)
``option``         a ``--drop`` pattern
=================  ====================================================================

A file that is not a Freebase dump is refused before anything is read into the store,
with the loader to use instead (:func:`check_freebase`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from kgstore.store import ProgressCallback, Store
from loaders.errors import UnsupportedFormatError
from loaders.ntriples import NTriplesSyntaxError, parse_line_raw
from loaders.pipeline import (
    FREEBASE_NS,
    KEEP,
    Input,
    LoadOptions,
    LoadReport,
    readable_inputs,
    run_load,
)
from loaders.sources import data_name
from loaders.tsv import TsvSyntaxError, parse_triple_line
from loaders.vectorized import RegexSyntax, TabSyntax, VectorStager, head_lines

FORMAT = "freebase"
STAGE_VERSION = 1
"""Bumped when the Freebase mapping changes (kept stages of older versions are redone)."""

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_OWL = "http://www.w3.org/2002/07/owl#"

FREEBASE_FILTER: tuple[tuple[str, str], ...] = (
    ("type.object.name", KEEP),
    ("type.object.type", KEEP),
    ("freebase.type_hints.mediator", KEEP),
    ("type.object.key", "keys"),
    ("common.notable_for.*", "notable_for"),
    ("common.topic.notable_for", "notable_for"),
    ("common.topic.notable_types", "notable_for"),
    ("type.type.instance", "reverse_types"),
    ("type.*", "schema"),
    (_RDF + "type", "schema"),
    (_RDFS + "domain", "schema"),
    (_RDFS + "range", "schema"),
    (_OWL + "*", "schema"),
    ("freebase.*", "bookkeeping"),
    ("dataworld.*", "bookkeeping"),
    ("kg.*", "bookkeeping"),
    ("common.topic.image", "media"),
    ("common.image.*", "media"),
    ("common.topic.article", "media"),
    ("common.document.*", "media"),
    ("common.topic.webpage", "webpages"),
    ("common.webpage.*", "webpages"),
    ("common.topic.topic_equivalent_webpage", "webpages"),
    ("user.*", "user_domains"),
)
"""The default filter: ``(pattern, reason)`` rules, first match wins (see the module
docstring); reason ``""`` keeps."""

stage_freebase = VectorStager(TabSyntax(), fallback_syntax=RegexSyntax(),
                              default_filter=FREEBASE_FILTER,
                              drop_foreign_literals=True, stage_version=STAGE_VERSION,
                              nameless_is_cvt="auto")
"""The Freebase stager (:class:`~loaders.pipeline.Stager`): tab-separated lines (the
official dump) by DuckDB's CSV reader and string functions; a file with other spacing
(a re-serialised dump) by the whole-line regular expression of :class:`RegexSyntax`."""


def load_freebase(
    store: Store,
    paths: Sequence[str | Path],
    *,
    options: LoadOptions | None = None,
    strict: bool = False,
    progress: ProgressCallback | None = None,
) -> LoadReport:
    """Load Freebase dump files into ``store`` (see the module docstring).

    Every file is checked first (readable, looks like a Freebase dump:
    :func:`check_freebase`), then staged, then imported; a failure before the imports
    (missing file, wrong format, corrupt compressed data, a malformed line under
    ``strict``) leaves the store unchanged. Re-running after an interruption resumes
    (complete stages are reused, imports are idempotent). ``options``: languages,
    namespaces, ``keep_predicates``/``drop_predicates`` (see :data:`FREEBASE_FILTER`),
    CVT rule, report size.
    """
    inputs = readable_inputs(paths)
    for path in inputs:
        check_freebase(path)
    return run_load(store, [Input(p, FORMAT) for p in inputs],
                    stager_for_format={FORMAT: stage_freebase},
                    options=options or LoadOptions(), strict=strict, progress=progress)


# -- format check ------------------------------------------------------------------------
_RDF_SUFFIXES = {".ttl": "Turtle", ".n3": "N3", ".trig": "TriG", ".nq": "N-Quads",
                 ".rdf": "RDF/XML", ".owl": "RDF/XML", ".xml": "RDF/XML", ".jsonld": "JSON-LD"}


def check_freebase(path: str | Path) -> None:
    """Raise :class:`UnsupportedFormatError` (saying which loader fits) unless the first
    lines of ``path`` look like the Freebase dump: N-Triples with
    ``http://rdf.freebase.com/`` IRIs. An empty file passes."""
    p = Path(path)
    suffix = Path(data_name(p)).suffix
    if suffix in _RDF_SUFFIXES:
        raise UnsupportedFormatError(
            p, f"{_RDF_SUFFIXES[suffix]} is not the Freebase dump format (N-Triples); use "
            f"`kgbench load rdf {p}`")
    try:
        lines = head_lines(p, 50)
    except UnicodeDecodeError:
        raise UnsupportedFormatError(
            p, "is not text (or not UTF-8): not a Freebase N-Triples dump; check the file "
            "and its compression (.gz, .bz2, .zst or plain)") from None
    data = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not data:
        return
    if any(f"<{FREEBASE_NS}" in ln or "<http://rdf.freebase.com/" in ln for ln in data):
        return
    verdict = _guess(data)
    raise UnsupportedFormatError(p, f"does not look like a Freebase dump ({verdict})")


def _guess(data: list[str]) -> str:
    first = data[0]
    if first.startswith(("[", "{")):
        if first in ("[", "{") or _json_like(first):
            return "it is JSON, like the Wikidata JSON dump: use `kgbench load wikidata`"
    if first.startswith(("@prefix", "@base", "PREFIX", "BASE", "prefix ", "base ")):
        return "it is Turtle: use `kgbench load rdf`"
    if first.startswith("<?xml") or first.startswith("<rdf:RDF"):
        return "it is RDF/XML: use `kgbench load rdf`"
    nt = tsv = 0
    wikidata = False
    for ln in data:
        try:
            if parse_line_raw(ln) is not None:
                nt += 1
                wikidata = wikidata or "http://www.wikidata.org/" in ln
                continue
        except NTriplesSyntaxError:
            pass
        try:
            if parse_triple_line(ln) is not None:
                tsv += 1
        except TsvSyntaxError:
            pass
    if nt and wikidata:
        return "it is Wikidata N-Triples: use `kgbench load wikidata`"
    if nt >= tsv and nt:
        return ("N-Triples without Freebase IRIs: use `kgbench load rdf` (or `kgbench load "
                "triples`)")
    if tsv:
        return ("tab-separated triples (FB15k-237 style): use `kgbench load triples`")
    return ("no N-Triples lines with http://rdf.freebase.com/ IRIs at the start; the dump "
            "is `freebase-rdf-latest.gz` from Google's Freebase data dumps")


def _json_like(line: str) -> bool:
    try:
        json.loads(line.rstrip(","))
    except ValueError:
        return line.startswith(('{"', '[{"'))
    return True


__all__ = ["FORMAT", "FREEBASE_FILTER", "check_freebase", "load_freebase", "stage_freebase"]
