"""Which loader reads a file, from its name and first lines: the ``kgbench load``
subcommand that fits (:func:`guess_loader`), the message for a file given to the wrong
one (:func:`wrong_loader_message`), and the two Wikidata dump formats and JSON layouts
(:func:`wikidata_format`, :func:`json_layout`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from loaders.errors import (
    UnsupportedFormatError,
)
from loaders.ntriples import parse_line_raw
from loaders.sources import data_name, open_text
from loaders.tsv import parse_triple_line

JSON, NTRIPLES = "wikidata-json", "wikidata-ntriples"
"""The two formats of a Wikidata dump (see :func:`wikidata_format`), keys of
:data:`loaders.wikidata.STAGERS`."""
_JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson")
_RDF_EXTENSIONS = (".ttl", ".n3", ".trig", ".nq", ".rdf", ".owl", ".xml", ".jsonld")
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
