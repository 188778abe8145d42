"""Names of predicates from the data: ``kgbench load ... --predicate-names FILE``.

A relation's frames (issue 34, "a lexicon from the data") start from what the data
calls it, not from its id. This module reads those names from a file and gives them to
the predicates a store holds, as labels and aliases
(:class:`~kgstore.models.Predicate`). Three layouts, told apart by the first data line
(:func:`sniff_layout`):

``text``
    ``relation<TAB>text`` lines, FB15k-237's ``relation2text.txt`` (``/film/film/genre``
    becomes ``film.film.genre`` as in :func:`loaders.tsv.freebase_id`).
``json``
    one JSON object per line: Wikidata property records ``{"id": "P19", "label":
    "place of birth", "aliases": ["birthplace", ...]}`` (the property list,
    ``DERIVED_wikidata_properties_en.jsonl``), or entities of the Wikidata JSON dump
    (``labels`` / ``aliases`` by language; the dump's ``[``, ``]`` and line-ending
    commas are fine).
``ntriples``
    N-Triples, e.g. a Freebase dump or its schema part: the ``type.object.name`` /
    ``rdfs:label`` (label) and ``common.topic.alias`` / ``skos:altLabel`` (aliases) of
    subjects that are predicates, ids made as the triple loaders make them.

What is kept (each the subject of a count in the load report):

* only names of predicates the store holds when the file is read (``dropped_unknown_
  predicate`` otherwise): a property list names 13,865 Wikidata properties, and a
  predicate without facts would make grounding take a question's missing predicate
  for a known one. So give the file with the load that brings the facts, or after it;
* names in the chosen languages (``--lang``, first preference wins; untagged texts
  always count), else ``dropped_lang``;
* not a text that only spells out its relation's id (``dropped_spelled_id``): every
  line of FB15k-237's ``relation2text.txt`` does ("music artist origin" for
  ``/music/artist/origin``), and the id's last part reads better than the whole path.

A label replaces the predicate's stored one; aliases join the stored ones. The file is
recorded as a loaded source (format ``predicate-names``) like any other input and
staged, imported and resumed by :func:`loaders.pipeline.run_load`; hostile input gets
the same answers as every loader: a missing file, a directory, a binary or
mostly-malformed file, over-long lines.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgstore.staging import StageWriter
from kgstore.store import ProgressCallback, Store
from loaders.errors import FORMAT_CHECK_LINES, NotFormatError, ParseReport
from loaders.ntriples import NTriplesSyntaxError, parse_line_raw
from loaders.pipeline import (
    FORMAT_LABELS,
    FREEBASE_NS,
    Input,
    LoadOptions,
    LoadReport,
    Stager,
    add_import_reports,
    check_readable,
    run_load,
)
from loaders.sources import LineSyntaxError, iter_records, open_text
from loaders.tsv import freebase_id

__all__ = ["FORMAT", "LAYOUTS", "PredicateNames", "add_predicate_names", "check_predicate_names",
           "load_predicate_names", "sniff_layout", "spells_id"]

FORMAT = "predicate-names"
"""The format name of a predicate names file in load reports and source records."""
TEXT, JSON, NTRIPLES = "text", "json", "ntriples"
LAYOUTS = (TEXT, JSON, NTRIPLES)
STAGE_VERSION = 1
_SNIFF_LINES = 1000
"""Lines read at most to find the first data line (blank, comment and undecodable
lines are passed over)."""

_RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
_LABEL_PREDICATES = frozenset({FREEBASE_NS + "type.object.name", _RDFS_LABEL})
_ALIAS_PREDICATES = frozenset({FREEBASE_NS + "common.topic.alias", _SKOS_ALT})
# Cheap test before the N-Triples parser: the local names every name predicate ends with.
_NAME_MARKS = ("object.name>", "#label>", "topic.alias>", "#altLabel>")
_WORD = re.compile(r"[^\W_]+")


class NamesSyntaxError(LineSyntaxError):
    """A line of a predicate names file has the wrong shape; ``reason`` says how."""


@dataclass(slots=True)
class PredicateNames:
    """The names read for one predicate: labels by language (``""``: untagged) in the
    order met, and aliases."""

    labels: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, None] = field(default_factory=dict)   # ordered set

    def label(self, langs: tuple[str, ...] | None) -> str | None:
        """The label in the first of ``langs`` that has one, else an untagged one, else
        (``langs`` None: any language) the first met."""
        for lang in (*(langs or ()), ""):
            if lang in self.labels:
                return self.labels[lang]
        return next(iter(self.labels.values()), None) if langs is None else None


def spells_id(predicate: str, text: str) -> bool:
    """Whether ``text`` only spells out ``predicate``'s id: the same words in the same
    order, ignoring case and punctuation ("film actor film. film performance film" for
    ``film.actor.film..film.performance.film``)."""
    return _WORD.findall(text.lower()) == _WORD.findall(predicate.lower())


# -- layouts ------------------------------------------------------------------------------
def sniff_layout(path: str | Path) -> str:
    """The layout of ``path`` (:data:`LAYOUTS`) from its first data line; raises
    :class:`~loaders.errors.NotFormatError` (one line, nothing loaded) when that line is
    none of them, or the file holds no readable line."""
    with open_text(path) as src:
        for lineno, line in src.numbered(on_error=lambda n, r: None):
            text = line.strip()
            if not text or text.startswith("#") or text in ("[", "]"):
                if lineno >= _SNIFF_LINES:
                    break
                continue
            if text.startswith("{"):
                return JSON
            if text.startswith(("<", "_:")):
                return NTRIPLES
            if "\t" in text:
                return TEXT
            raise _not_names(path, f"line {lineno} is neither relation<TAB>text, a JSON "
                                   "object nor an N-Triples line")
    raise _not_names(path, "it holds no readable line")


def _not_names(path: str | Path, detail: str) -> NotFormatError:
    return NotFormatError(
        path, f"not a predicate names file: {detail}. --predicate-names takes "
        "relation<TAB>text lines (FB15k-237's relation2text.txt), Wikidata property JSON "
        "lines or N-Triples naming properties (a Freebase dump); nothing was loaded")


Record = tuple[str, str, str | None, tuple[str, ...]]
"""``(predicate id, language or "", label or None, aliases)`` from one line."""


def _text_line(line: str) -> Record | None:
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    relation, sep, name = text.partition("\t")
    if not sep:
        raise NamesSyntaxError("expected 'relation<TAB>text', found no tab")
    relation, name = relation.strip(), " ".join(name.split())
    if not relation or not name:
        raise NamesSyntaxError(f"empty {'relation' if not relation else 'text'} field")
    return freebase_id(relation), "", name, ()


def _json_line(langs: tuple[str, ...] | None) -> Callable[[str], Record | None]:
    def parse(line: str) -> Record | None:
        text = line.strip()
        if not text or text in ("[", "]") or text.startswith("#"):
            return None
        try:
            obj = json.loads(text.removesuffix(","))
        except (ValueError, RecursionError) as exc:
            raise NamesSyntaxError(f"not a JSON object ({str(exc)[:80]})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or not obj["id"]:
            raise NamesSyntaxError("expected a JSON object with a string \"id\"")
        if isinstance(obj.get("labels"), dict):   # an entity of the Wikidata JSON dump
            return _dump_entity(obj, langs)
        label, aliases = obj.get("label"), obj.get("aliases") or []
        if label is not None and not isinstance(label, str):
            raise NamesSyntaxError("\"label\" is not a string")
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise NamesSyntaxError("\"aliases\" is not a list of strings")
        return obj["id"], "", label, tuple(aliases)
    return parse


def _dump_entity(obj: dict[str, Any], langs: tuple[str, ...] | None) -> Record:
    """Label and aliases of a Wikidata dump entity in the first of ``langs`` that has a
    label (``langs`` None: English, else any)."""
    labels = {k: v.get("value") for k, v in obj["labels"].items()
              if isinstance(v, dict) and isinstance(v.get("value"), str)}
    order = [*(langs or ("en",)), *sorted(labels)] if langs is None else list(langs)
    lang = next((x for x in order if x in labels), None)
    if lang is None:
        return obj["id"], "?", None, ()
    raw = obj.get("aliases")
    found = raw.get(lang, []) if isinstance(raw, dict) else []
    aliases = tuple(a["value"] for a in found if isinstance(a, dict)
                    and isinstance(a.get("value"), str))
    return obj["id"], lang, labels[lang], aliases


def _ntriples_line(options: LoadOptions) -> Callable[[str], Record | None]:
    namespaces = sorted(options.namespaces.items(), key=lambda kv: len(kv[0]), reverse=True)

    def iri_id(iri: str) -> str:
        for prefix, replacement in namespaces:
            if iri.startswith(prefix) and len(iri) > len(prefix):
                return replacement + iri[len(prefix):]
        return iri

    def parse(line: str) -> Record | None:
        text = line.lstrip()
        if not text or text.startswith("#"):
            return None
        if not text.startswith(("<", "_:")):
            raise NamesSyntaxError("not an N-Triples line (a line starts with <IRI> or _:)")
        if not any(mark in line for mark in _NAME_MARKS):
            return None   # a fact of a dump: not a name, and not worth parsing
        try:
            raw = parse_line_raw(line)
        except NTriplesSyntaxError as exc:
            raise NamesSyntaxError(exc.reason) from None
        if raw is None:
            return None
        subject, _, predicate, _, _, string, _, lang = raw
        if subject is None or string is None:
            return None
        if predicate in _LABEL_PREDICATES:
            return iri_id(subject), (lang or "").lower(), string, ()
        if predicate in _ALIAS_PREDICATES:
            return iri_id(subject), (lang or "").lower(), None, (string,)
        return None
    return parse


def _parser(layout: str, options: LoadOptions) -> Callable[[str], Record | None]:
    """The line parser of ``layout``."""
    if layout == TEXT:
        return _text_line
    if layout == JSON:
        return _json_line(options.langs)
    return _ntriples_line(options)


# -- staging ------------------------------------------------------------------------------
def names_stager(known: Collection[str]) -> Stager:
    """The stager (:class:`loaders.pipeline.Stager`) of predicate names files that
    keeps the names of ``known`` predicates only (see the module docstring). Its
    ``stage_version`` depends on ``known``, so a kept stage made for other predicates
    is not reused."""
    wanted = frozenset(known)
    digest = hashlib.sha256("\n".join(sorted(wanted)).encode()).hexdigest()[:16]

    def stage_predicate_names(path: Path, writer: StageWriter, report: ParseReport, *,
                              options: LoadOptions, strict: bool = False,
                              progress: ProgressCallback | None = None) -> dict[str, int]:
        parse = _parser(sniff_layout(path), options)
        names: dict[str, PredicateNames] = {}
        counts = dict.fromkeys(("dropped_unknown_predicate", "dropped_lang",
                                "dropped_spelled_id"), 0)
        for pid, lang, label, aliases in iter_records(path, parse, strict=strict,
                                                      report=report, progress=progress):
            if pid not in wanted:
                counts["dropped_unknown_predicate"] += 1
                continue
            if lang and options.langs is not None and lang not in options.langs:
                counts["dropped_lang"] += 1
                continue
            entry = names.setdefault(pid, PredicateNames())
            if label is not None:
                if spells_id(pid, label):
                    counts["dropped_spelled_id"] += 1
                else:
                    entry.labels.setdefault(lang, label)
            for alias in aliases:
                if not spells_id(pid, alias):
                    entry.aliases[alias] = None
        labelled = aliased = 0
        for pid in sorted(names):
            label = names[pid].label(options.langs)
            kept = [a for a in names[pid].aliases if a != label]
            if label is None and not kept:
                continue
            writer.add_predicate(pid, label, kept)
            labelled += label is not None
            aliased += len(kept)
        return {**counts, "predicate_labels": labelled, "predicate_aliases": aliased}

    setattr(stage_predicate_names, "stage_version", f"{STAGE_VERSION}:{digest}")  # noqa: B010
    setattr(stage_predicate_names, "nameless_is_cvt", False)  # noqa: B010
    return stage_predicate_names


# -- loading ------------------------------------------------------------------------------
def check_predicate_names(path: Path, options: LoadOptions | None = None) -> None:
    """Refuse, before any load starts, a names file that is missing, unreadable, of no
    known layout or mostly malformed in its first lines (:data:`~loaders.errors.
    FORMAT_CHECK_LINES`; :class:`~loaders.errors.InputFileError` /
    :class:`~loaders.errors.NotFormatError`, one line each): the names are read after
    the facts, and a file refused then would leave the facts loaded."""
    check_readable(path)
    parse = _parser(sniff_layout(path), options or LoadOptions())
    report = ParseReport(expected=FORMAT_LABELS[FORMAT])
    with open_text(path) as src:
        for lineno, line in src.numbered(lambda n, r: report.add_malformed(path, n, r)):
            if lineno > FORMAT_CHECK_LINES:
                break
            try:
                parse(line)
            except LineSyntaxError as exc:
                report.add_malformed(path, lineno, exc.reason)
        report.lines = min(src.lines_read, FORMAT_CHECK_LINES)
    report.check_format(path)


def load_predicate_names(store: Store, path: Path, *, options: LoadOptions | None = None,
                         strict: bool = False, progress: ProgressCallback | None = None
                         ) -> LoadReport:
    """Give the predicates ``store`` holds the names in ``path`` (see the module
    docstring); the report has one file of format :data:`FORMAT`."""
    known = [p.id for p in store.predicates()]
    return run_load(store, [Input(Path(path), FORMAT)],
                    stager_for_format={FORMAT: names_stager(known)},
                    options=options or LoadOptions(), strict=strict, progress=progress)


def add_predicate_names(report: LoadReport, store: Store, path: Path | None, *,
                        options: LoadOptions | None = None, strict: bool = False,
                        progress: ProgressCallback | None = None) -> LoadReport:
    """``report`` of a load into ``store`` with the names of ``path`` loaded after it
    (its file appended, its store changes added); ``report`` itself when ``path`` is
    None. What every ``kgbench load`` command runs for ``--predicate-names``."""
    if path is None:
        return report
    names = load_predicate_names(store, path, options=options, strict=strict,
                                 progress=progress)
    merged = LoadReport(files=[*report.files, *names.files], top_n=report.top_n,
                        seconds=round(report.seconds + names.seconds, 3))
    for part in (report.import_report, names.import_report):
        add_import_reports(merged.import_report, part)
    return merged
