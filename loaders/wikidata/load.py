"""Stage Wikidata dumps: the JSON entity dump and the truthy N-Triples dump.

:data:`STAGERS` are the stagers behind ``kgbench load wikidata``, by the format
:func:`~loaders.sniff.wikidata_format` tells from the file name (``.json``/``.jsonl``/
``.ndjson`` -> JSON, ``.nt`` -> truthy N-Triples, each optionally ``.gz``/``.bz2``/
``.zst``; any other name is recognised from its content):
:func:`~loaders.wikidata.json_dump.stage_wikidata_json` (the mapping:
:mod:`loaders.wikidata.json_mapper`) and
:func:`~loaders.wikidata.truthy.stage_wikidata_ntriples`. Both follow
the stager contract of :mod:`loaders.pipeline`: they stream one file into a
:class:`~kgstore.staging.StageWriter`, count lines and malformed lines in a
:class:`~loaders.errors.ParseReport`, and return extra counts (``dropped_<reason>``,
``by_predicate:<P>``, what was mapped). The stage is imported with
``nameless_is_cvt=False``: an item without a label in the chosen languages is an item,
not a mediator; statement nodes say ``is_cvt=True`` themselves.

:func:`load_wikidata` (what the CLI calls) checks every file (:func:`check_wikidata`)
before staging any, then runs :func:`loaders.pipeline.run_load` with :data:`STAGERS`
(resumable, idempotent). :func:`~loaders.sniff.guess_loader` and
:func:`~loaders.sniff.wrong_loader_message` tell which ``kgbench load`` subcommand a
file needs. Bad input: corrupt or truncated
compressed data raises :class:`~loaders.errors.InputFileError` naming the file and the
byte offset where reading stopped; malformed lines (invalid JSON or UTF-8, an entity
without an id or with an unexpected structure) are counted with their line numbers, or
under ``strict`` raise :class:`~loaders.errors.MalformedInputError` (``file:line``).

Both stagers apply ``options.keep_predicates``/``drop_predicates`` (see
:class:`~loaders.predicate_filter.PredicateFilter`) to fact predicates (for JSON: statement and
qualifier properties; a dropped ``P31`` gives no types either), counted as
``dropped_option``. ``report.triples`` counts the facts staged (JSON) or the valid
N-Triples lines (truthy dump, as for every N-Triples stager).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kgstore.store import ProgressCallback, Store
from loaders import pipeline
from loaders.errors import UnsupportedFormatError
from loaders.sniff import (
    JSON,
    NTRIPLES,
    _data_lines,
    json_layout,
    wikidata_format,
)
from loaders.wikidata.json_dump import stage_wikidata_json
from loaders.wikidata.truthy import refuse_freebase, stage_wikidata_ntriples

__all__ = ["STAGERS", "check_wikidata", "load_wikidata"]


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
    refuse_freebase(p)
    return fmt


def load_wikidata(
    store: Store,
    paths: Sequence[str | Path],
    *,
    options: pipeline.LoadOptions | None = None,
    strict: bool = False,
    progress: ProgressCallback | None = None,
) -> pipeline.LoadReport:
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
    plan = [pipeline.Input(path, check_wikidata(path))
            for path in pipeline.readable_inputs(paths)]
    return pipeline.run_load(store, plan, stager_for_format=STAGERS,
                             options=options or pipeline.LoadOptions(), strict=strict,
                             progress=progress)


STAGE_VERSION = 1
"""Bumped when the mapping changes, so a kept stage from an older mapping is not reused."""

for _stager in (stage_wikidata_json, stage_wikidata_ntriples):
    # Items without a label in the chosen languages are items, not mediators; the
    # statement nodes are staged with is_cvt=True.
    setattr(_stager, "nameless_is_cvt", False)  # noqa: B010
    setattr(_stager, "stage_version", STAGE_VERSION)  # noqa: B010

STAGERS: dict[str, pipeline.Stager] = {JSON: stage_wikidata_json, NTRIPLES: stage_wikidata_ntriples}
"""Format name (:func:`wikidata_format`, recorded in the source record) -> stager."""
