"""Wikidata dumps into a store: the JSON entity dump (:mod:`~loaders.wikidata.json_dump`,
mapped by :mod:`~loaders.wikidata.json_mapper`) and the truthy N-Triples dump
(:mod:`~loaders.wikidata.truthy`), behind ``kgbench load wikidata``
(:mod:`~loaders.wikidata.load`). Which format a file is: :mod:`loaders.sniff`.
What other modules may use is named here.
"""

from __future__ import annotations

from loaders.sniff import JSON, NTRIPLES, json_layout, wikidata_format
from loaders.wikidata.json_dump import (
    MAX_DOCUMENT_CHARS,
    PARALLEL_MIN_BYTES,
    stage_wikidata_json,
)
from loaders.wikidata.json_mapper import STATEMENT_TYPE, WKT_LITERAL
from loaders.wikidata.load import STAGERS, check_wikidata, load_wikidata
from loaders.wikidata.truthy import WikidataTripleMapper, stage_wikidata_ntriples

__all__ = ["JSON", "MAX_DOCUMENT_CHARS", "NTRIPLES", "PARALLEL_MIN_BYTES", "STAGERS",
           "STATEMENT_TYPE", "WKT_LITERAL", "WikidataTripleMapper", "check_wikidata",
           "json_layout", "load_wikidata", "stage_wikidata_json",
           "stage_wikidata_ntriples", "wikidata_format"]
