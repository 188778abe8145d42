"""Load generic RDF (``kgbench load rdf``): N-Triples at dump scale, other syntaxes via rdflib.

Formats, by extension (after an optional ``.gz``/``.bz2``/``.zst``):

=====================================  ==================================================
extension                              how it is read
=====================================  ==================================================
``.nt`` (or no extension, N-Triples    streamed by :func:`loaders.vectorized.
content)                               stage_ntriples_vectorized`: DuckDB for the common
                                       lines, the W3C-conformant :mod:`loaders.ntriples`
                                       parser for the rest (escapes, blank nodes, odd
                                       spacing, malformed lines). Any size; memory flat.
``.ttl`` Turtle, ``.n3`` N3,           parsed whole by rdflib (``Graph.parse``), then
``.rdf``/``.owl``/``.xml`` RDF/XML,    mapped like N-Triples. The file must fit in memory:
``.jsonld`` JSON-LD                    files above ``max_memory_file`` decompressed bytes
                                       (default :data:`MAX_MEMORY_FILE`) are refused with
                                       a hint to convert them to N-Triples first.
``.trig`` TriG, ``.nq`` N-Quads        rdflib ``Dataset``; the **graph name is ignored**
                                       (every quad becomes the triple ``s p o``; the same
                                       triple in several graphs is one fact).
=====================================  ==================================================

Mapping: :class:`~loaders.triples.TripleMapper` for every format (rdflib terms are
converted to the parser's :data:`~loaders.ntriples.RawTriple`): ``rdfs:label`` /
``type.object.name`` are names, ``skos:altLabel`` aliases, ``rdf:type`` types,
``schema:description`` descriptions, everything else a fact (see :mod:`loaders.triples`).
Names, aliases and descriptions are kept in the ``langs`` of the options (default
``en``) or untagged. rdflib is run with literal normalisation off, so lexical forms are
stored as written (``"01"^^xsd:integer`` stays ``01``), as the N-Triples path does.
N3 statements that are not RDF (literal or formula subjects, variables) are dropped
and counted as ``dropped_not_rdf``.

Ids: an IRI starting with a namespace of the map becomes ``prefix:local`` (``local``
alone when the prefix is empty); the longest matching namespace wins; other IRIs keep
their full text. The default map (:data:`RDF_NAMESPACES`):

==============================================  ===========
namespace                                       id prefix
==============================================  ===========
``http://rdf.freebase.com/ns/``                 (none): ``m.0abc``, ``film.film.genre``
``http://www.wikidata.org/entity/``             (none): ``Q42``
``http://www.wikidata.org/prop/direct/``        (none): ``P31``
``http://www.wikidata.org/entity/statement/``   ``wds:``
``http://www.wikidata.org/prop/``               ``p:``
``http://www.wikidata.org/prop/statement/``     ``ps:``
``http://www.wikidata.org/prop/qualifier/``     ``pq:``
``http://www.w3.org/1999/02/22-rdf-syntax-ns#`` ``rdf:``
``http://www.w3.org/2000/01/rdf-schema#``       ``rdfs:``
``http://www.w3.org/2004/02/skos/core#``        ``skos:``
``http://schema.org/``, ``https://schema.org/`` ``schema:``
``http://www.w3.org/2002/07/owl#``              ``owl:``
==============================================  ===========

``--ns PREFIX=IRI`` (:func:`parse_ns`) and ``--ns-file FILE`` (:func:`read_ns_file`:
a JSON object ``{"prefix": "iri"}`` or ``prefix<TAB>iri`` lines) add to or override
it; ``--ns =IRI`` maps to bare local names.

Errors: N-Triples malformed lines are counted (or raise under ``strict``) line by line.
An rdflib syntax error raises :class:`~loaders.errors.MalformedInputError` with the
file, the line when rdflib reports one (``0`` when it does not) and rdflib's message
under ``strict``; otherwise it is counted as one malformed "line", the triples parsed
before the error are kept and the rest of that file is skipped (Turtle and XML
parsers cannot resynchronise).
"""

from __future__ import annotations

import bz2
import contextlib
import json
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback, Store
from loaders.errors import InputFileError, MalformedInputError, ParseReport, UnsupportedFormatError
from loaders.ntriples import RawTriple
from loaders.pipeline import (
    DEFAULT_NAMESPACES,
    DROPPED_PREFIX,
    PREDICATE_PREFIX,
    Input,
    LoadOptions,
    LoadReport,
    PredicateFilter,
    readable_inputs,
    run_load,
)
from loaders.sources import (
    DECOMPRESSION_ERRORS,
    compression_of,
    data_name,
    gzip_reader,
    integrity_hint,
    zstd_reader,
)
from loaders.triples import RDF_NS, RDFS_NS, SKOS_NS, TripleMapper
from loaders.vectorized import head_lines, stage_ntriples_vectorized

__all__ = [
    "FORMATS", "MAX_MEMORY_FILE", "RDF_NAMESPACES", "detect_rdf_format", "load_rdf",
    "parse_ns", "rdf_options", "read_ns_file", "stage_rdf", "stage_rdflib",
]

RDF_NAMESPACES: dict[str, str] = {
    **DEFAULT_NAMESPACES,
    "http://www.wikidata.org/entity/statement/": "wds:",
    "http://www.wikidata.org/prop/": "p:",
    "http://www.wikidata.org/prop/statement/": "ps:",
    "http://www.wikidata.org/prop/qualifier/": "pq:",
    RDF_NS: "rdf:",
    RDFS_NS: "rdfs:",
    SKOS_NS: "skos:",
    "http://schema.org/": "schema:",
    "https://schema.org/": "schema:",
    "http://www.w3.org/2002/07/owl#": "owl:",
}
"""The default namespace map of ``load rdf`` (IRI prefix -> id prefix)."""

MAX_MEMORY_FILE = 256 << 20
"""Largest (decompressed) file rdflib is asked to parse in memory, in bytes."""

STAGE_VERSION = 1
"""Bumped when the rdflib mapping changes (kept stages of older versions are redone)."""

NTRIPLES = "ntriples"
FORMATS: dict[str, str] = {
    ".nt": NTRIPLES, ".ttl": "turtle", ".n3": "n3", ".rdf": "xml", ".owl": "xml",
    ".xml": "xml", ".jsonld": "json-ld", ".trig": "trig", ".nq": "nquads",
}
"""Extension -> format name (rdflib's parser name, ``ntriples`` for our streaming path)."""
_QUADS = frozenset({"trig", "nquads"})
_NAMES = {"turtle": "Turtle", "n3": "N3", "xml": "RDF/XML", "json-ld": "JSON-LD",
          "trig": "TriG", "nquads": "N-Quads"}


# -- namespaces --------------------------------------------------------------------------
def parse_ns(spec: str) -> tuple[str, str]:
    """``"PREFIX=IRI"`` -> ``(IRI, "PREFIX:")`` (``"=IRI"`` -> ``(IRI, "")``).

    Raises :class:`ValueError` with a usage hint for anything else."""
    prefix, sep, iri = spec.partition("=")
    prefix, iri = prefix.strip(), iri.strip()
    if not sep or not iri:
        raise ValueError(f"{spec!r}: expected PREFIX=IRI, e.g. fb=http://rdf.freebase.com/ns/")
    return _ns_entry(prefix, iri, spec)


def _ns_entry(prefix: str, iri: str, where: str) -> tuple[str, str]:
    if not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", iri):
        raise ValueError(f"{where}: {iri!r} is not an absolute IRI")
    if prefix and not re.fullmatch(r"[A-Za-z_][\w.\-]*", prefix):
        raise ValueError(f"{where}: {prefix!r} is not a valid prefix (letters, digits, _ . -)")
    return iri, f"{prefix}:" if prefix else ""


def read_ns_file(path: str | Path) -> dict[str, str]:
    """A namespace file as ``{IRI: id prefix}``: a JSON object ``{"prefix": "IRI"}``
    (``""`` for bare local names), or ``prefix<TAB>IRI`` lines (``#`` comments and
    blank lines ignored). Raises :class:`InputFileError` for unreadable or bad files."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(p, f"cannot read the namespace file ({exc})") from None
    out: dict[str, str] = {}
    try:
        if text.lstrip().startswith("{"):
            try:
                doc = json.loads(text)
            except ValueError as exc:
                raise ValueError(f"not valid JSON ({exc})") from None
            if not isinstance(doc, dict) or not all(isinstance(v, str) for v in doc.values()):
                raise ValueError('expected a JSON object {"prefix": "IRI", ...}')
            for prefix, iri in doc.items():
                k, v = _ns_entry(prefix.strip(), iri.strip(), f"prefix {prefix!r}")
                out[k] = v
            return out
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            prefix, sep, iri = line.partition("\t")
            if not sep:
                raise ValueError(f"line {n}: expected prefix<TAB>IRI")
            k, v = _ns_entry(prefix.strip(), iri.strip(), f"line {n}")
            out[k] = v
    except ValueError as exc:
        raise InputFileError(p, f"bad namespace file: {exc}") from None
    return out


def rdf_options(options: LoadOptions | None = None,
                namespaces: Mapping[str, str] | None = None) -> LoadOptions:
    """``options`` with the effective ``load rdf`` namespace map: :data:`RDF_NAMESPACES`,
    then the options' own map, then ``namespaces`` (later entries win)."""
    opts = options or LoadOptions()
    merged = {**RDF_NAMESPACES, **opts.namespaces, **(namespaces or {})}
    return LoadOptions(**{**_fields(opts), "namespaces": merged})


def _fields(opts: LoadOptions) -> dict[str, Any]:
    from dataclasses import fields
    return {f.name: getattr(opts, f.name) for f in fields(opts)}


# -- format detection --------------------------------------------------------------------
def detect_rdf_format(path: str | Path) -> str:
    """The format of ``path`` (see :data:`FORMATS`) from its extension after a
    compression suffix; an extension-less file is sniffed (Turtle directives,
    ``<?xml``/``<rdf:RDF``, JSON, else N-Triples). Raises
    :class:`UnsupportedFormatError` for other extensions."""
    p = Path(path)
    ext = Path(data_name(p)).suffix
    if ext in FORMATS:
        return FORMATS[ext]
    if ext == "":
        return _sniff(p)
    known = ", ".join(sorted(FORMATS))
    raise UnsupportedFormatError(
        p, f"unknown RDF extension {ext!r}: use one of {known} (optionally .gz/.bz2/.zst)")


def _sniff(path: Path) -> str:
    try:
        lines = head_lines(path, 20)
    except UnicodeDecodeError:
        raise UnsupportedFormatError(path, "is not UTF-8 text: not an RDF file") from None
    data = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    first = data[0] if data else ""
    if first.startswith(("<?xml", "<rdf:RDF")):
        return "xml"
    if first.startswith(("{", "[")):
        return "json-ld"
    if re.match(r"(@prefix|@base|PREFIX\s|BASE\s)", first, re.IGNORECASE):
        return "turtle"
    return NTRIPLES


# -- rdflib formats ----------------------------------------------------------------------
def _read_limited(path: Path, limit: int) -> bytes:
    """The decompressed bytes of ``path``; :class:`UnsupportedFormatError` beyond ``limit``."""
    with open(path, "rb") as fh:
        compression = compression_of(path, fh.read(16))
        fh.seek(0)
        stream: Any
        if compression == "gzip":
            stream = gzip_reader(fh)
        elif compression == "bz2":
            stream = bz2.BZ2File(fh, mode="rb")
        elif compression == "zstd":
            stream = zstd_reader(fh)
        else:
            stream = fh
        try:
            data = stream.read(limit + 1)
        except DECOMPRESSION_ERRORS as exc:
            raise InputFileError(path, f"cannot read {compression} data ({exc}); the file may "
                                       "be truncated or corrupt: "
                                       f"{integrity_hint(path, compression)}") from exc
    if len(data) > limit:
        raise UnsupportedFormatError(
            path, f"is larger than {limit / 2**20:,.0f} MiB (--max-memory-file), too big to "
            "parse in memory with rdflib; convert it to N-Triples, which streams at any "
            f"size: `rapper -i guess -o ntriples {path} > file.nt` or `riot --output="
            f"ntriples {path} > file.nt`, then `kgbench load rdf file.nt` (or raise "
            "--max-memory-file)")
    return data


@contextlib.contextmanager
def _lexical_literals() -> Iterator[None]:
    """rdflib with literal normalisation off (lexical forms kept as written)."""
    import rdflib

    before = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        yield
    finally:
        rdflib.NORMALIZE_LITERALS = before


def _error_location(exc: BaseException) -> tuple[int, str]:
    """``(line, message)`` of an rdflib parse error (line 0: not reported)."""
    why = getattr(exc, "_why", None)
    if why is not None and isinstance(getattr(exc, "lines", None), int):  # notation3.BadSyntax
        return int(exc.lines) + 1, f"bad syntax ({why})"  # type: ignore[attr-defined]
    get_line = getattr(exc, "getLineNumber", None)  # xml.sax.SAXParseException
    if callable(get_line):
        line = get_line()
        msg = exc.getMessage() if hasattr(exc, "getMessage") else str(exc)
        col = exc.getColumnNumber() if hasattr(exc, "getColumnNumber") else None
        where = f"column {col}: " if isinstance(col, int) and col >= 0 else ""
        return (line if isinstance(line, int) and line > 0 else 0), f"{where}{msg}"
    lineno = getattr(exc, "lineno", None)  # json.JSONDecodeError, SyntaxError
    msg = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    first = str(msg).strip().splitlines()
    text = " ".join(part.strip() for part in first[:3])
    return (lineno if isinstance(lineno, int) and lineno > 0 else 0), text


def _raw_triples(triples: Iterable[tuple[Any, ...]], dropped: dict[str, int]
                 ) -> Iterator[RawTriple]:
    """rdflib ``(s, p, o[, g])`` -> :data:`RawTriple` (non-RDF statements counted)."""
    from rdflib.term import BNode, URIRef
    from rdflib.term import Literal as RLiteral

    for t in triples:
        s, p, o = t[0], t[1], t[2]
        if type(p) is not URIRef and not isinstance(p, URIRef):
            dropped["not_rdf"] += 1
            continue
        if isinstance(s, URIRef):
            s_iri, s_bnode = str(s), None
        elif isinstance(s, BNode):
            s_iri, s_bnode = None, str(s)
        else:
            dropped["not_rdf"] += 1
            continue
        if isinstance(o, URIRef):
            yield (s_iri, s_bnode, str(p), str(o), None, None, None, None)
        elif isinstance(o, BNode):
            yield (s_iri, s_bnode, str(p), None, str(o), None, None, None)
        elif isinstance(o, RLiteral):
            lang = o.language
            datatype = None if lang else (str(o.datatype) if o.datatype is not None else None)
            yield (s_iri, s_bnode, str(p), None, None, str(o), datatype, lang)
        else:
            dropped["not_rdf"] += 1


def stage_rdflib(path: Path, writer: StageWriter, report: ParseReport, *,
                 options: LoadOptions, strict: bool = False,
                 progress: ProgressCallback | None = None, format: str | None = None,
                 max_memory_file: int = MAX_MEMORY_FILE) -> dict[str, int]:
    """Stager for the rdflib formats (see the module docstring): parse the whole file
    with rdflib, then map its triples with :class:`~loaders.triples.TripleMapper`."""
    import rdflib

    fmt = format or detect_rdf_format(path)
    data = _read_limited(path, max_memory_file)
    label = f"parsing {path.name}"
    size = len(data)
    if progress is not None:
        progress(label, 0, size)
    report.lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    dropped = {"not_rdf": 0}
    graph: Any = rdflib.Dataset() if fmt in _QUADS else rdflib.Graph()
    failure: str | None = None
    with _lexical_literals(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # rdflib's own internals
        try:
            graph.parse(data=data, format=fmt, publicID=path.resolve().as_uri())
        except Exception as exc:  # rdflib raises many kinds: syntax, SAX, JSON, ValueError
            line, reason = _error_location(exc)
            reason = f"{_NAMES.get(fmt, fmt)} syntax error: {reason}"
            if strict:
                raise MalformedInputError(path, line, reason) from exc
            report.add_malformed(path, line, reason)
            failure = f"line {line}: {reason}" if line else reason
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        triples = list(graph.quads((None, None, None, None))) if fmt in _QUADS else graph
    del data
    if failure is not None and len(triples) == 0:
        # rdflib stops at the first error: nothing before it parsed, so the file is not
        # this format at all (random bytes, another syntax), not a file with a bad line.
        report.expected = report.expected or _NAMES.get(fmt, fmt)
        raise report.not_format(path, report.lines, f"{failure}, before any triple")
    mapper = TripleMapper(writer, namespaces=options.namespaces, langs=options.langs,
                          bnode_scope=options.bnode_scope)
    filt = PredicateFilter.for_options(options)
    by_predicate: dict[str, int] = {}
    n = 0
    for raw in _raw_triples(triples, dropped):
        n += 1
        pid = mapper.iri_id(raw[2])
        why = filt.reason(pid) if filt.rules else None
        if why is not None:
            dropped[why] = dropped.get(why, 0) + 1
            continue
        by_predicate[pid] = by_predicate.get(pid, 0) + 1
        mapper.add(raw)
    report.triples = n
    if progress is not None:
        progress(label, size, size)
    return {**mapper.counts, **{DROPPED_PREFIX + k: v for k, v in dropped.items()},
            **{PREDICATE_PREFIX + k: v for k, v in by_predicate.items()}}


def stage_rdf(path: Path, writer: StageWriter, report: ParseReport, *,
              options: LoadOptions, strict: bool = False,
              progress: ProgressCallback | None = None) -> dict[str, int]:
    """The ``load rdf`` stager (:class:`~loaders.pipeline.Stager`): N-Triples through
    the vectorised streaming path, every other format through :func:`stage_rdflib`."""
    fmt = detect_rdf_format(path)
    if fmt == NTRIPLES:
        return stage_ntriples_vectorized(path, writer, report, options=options, strict=strict,
                                         progress=progress)
    return stage_rdflib(path, writer, report, options=options, strict=strict,
                        progress=progress, format=fmt)


setattr(stage_rdf, "stage_version", STAGE_VERSION)  # noqa: B010
setattr(stage_rdf, "nameless_is_cvt", True)  # noqa: B010 - as TripleMapper / load triples


class _SizedRdf:
    """:func:`stage_rdf` with another ``max_memory_file`` (what :func:`load_rdf` uses)."""

    stage_version = STAGE_VERSION
    nameless_is_cvt = True

    def __init__(self, max_memory_file: int) -> None:
        self.max_memory_file = max_memory_file

    def __call__(self, path: Path, writer: StageWriter, report: ParseReport, *,
                 options: LoadOptions, strict: bool = False,
                 progress: ProgressCallback | None = None) -> dict[str, int]:
        fmt = detect_rdf_format(path)
        if fmt == NTRIPLES:
            return stage_rdf(path, writer, report, options=options, strict=strict,
                             progress=progress)
        return stage_rdflib(path, writer, report, options=options, strict=strict,
                            progress=progress, format=fmt,
                            max_memory_file=self.max_memory_file)


# -- loading -----------------------------------------------------------------------------
def load_rdf(
    store: Store,
    paths: Sequence[str | Path],
    *,
    options: LoadOptions | None = None,
    namespaces: Mapping[str, str] | None = None,
    strict: bool = False,
    progress: ProgressCallback | None = None,
    max_memory_file: int = MAX_MEMORY_FILE,
) -> LoadReport:
    """Load RDF files (any mix of the formats in the module docstring) into ``store``.

    ``options``: languages, predicate keep/drop patterns, report size; its namespace
    map is merged over :data:`RDF_NAMESPACES`, and ``namespaces`` (``{IRI: prefix}``,
    e.g. from :func:`parse_ns`/:func:`read_ns_file`) over that. Every file's format is
    checked and every rdflib file's size is checked before anything is staged; a
    failure before the imports (missing file, unknown format, a file too large for
    rdflib, a syntax error under ``strict``) leaves the store unchanged. Re-running
    after an interruption resumes (:func:`loaders.pipeline.run_load`).
    """
    plan = []
    for p in readable_inputs(paths):
        fmt = detect_rdf_format(p)
        if fmt != NTRIPLES and p.stat().st_size > max_memory_file:
            _read_limited(p, max_memory_file)  # raises the "convert it" error
        plan.append(Input(p, fmt))
    stager = _SizedRdf(max_memory_file)
    return run_load(store, plan, stager_for_format=lambda _fmt: stager,
                    options=rdf_options(options, namespaces), strict=strict,
                    progress=progress)
