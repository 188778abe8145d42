"""Wikidata dumps (JSON and truthy N-Triples) into a store: see
:mod:`loaders.wikidata.load`. What other modules may use is named here."""

from __future__ import annotations

from loaders.wikidata.load import (
    JSON,
    LOADERS,
    MAX_DOCUMENT_CHARS,
    NTRIPLES,
    PARALLEL_MIN_BYTES,
    STAGERS,
    STATEMENT_TYPE,
    WKT_LITERAL,
    WikidataTripleMapper,
    check_wikidata,
    guess_loader,
    json_layout,
    load_wikidata,
    stage_wikidata,
    stage_wikidata_json,
    stage_wikidata_ntriples,
    wikidata_format,
    wrong_loader_message,
)

__all__ = ["JSON", "LOADERS", "MAX_DOCUMENT_CHARS", "NTRIPLES", "PARALLEL_MIN_BYTES", "STAGERS",
           "STATEMENT_TYPE", "WKT_LITERAL", "WikidataTripleMapper", "check_wikidata",
           "guess_loader", "json_layout", "load_wikidata", "stage_wikidata",
           "stage_wikidata_json", "stage_wikidata_ntriples", "wikidata_format",
           "wrong_loader_message"]
