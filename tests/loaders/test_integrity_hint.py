"""A truncated compressed input (issue 18, smaller defects) is refused with the command
that tests its compression: ``gzip -t``, ``bzip2 -t`` or ``zstd -t`` (the hint used to
say ``gzip -t`` whatever the file), by every reader: the Python line reader (``load
triples``, ``load wikidata``), the vectorised reader (``load freebase``, ``load rdf``
.nt) and rdflib's input (``load rdf`` .ttl). A truncated ``.zst`` used to load half its
lines without a word through the Python reader."""

from __future__ import annotations

import bz2
import gzip
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from kgstore import open_store
from loaders.errors import InputFileError
from loaders.freebase import load_freebase
from loaders.rdf import load_rdf
from loaders.triples import load_triples
from loaders.wikidata import load_wikidata

FB = "http://rdf.freebase.com/ns/"
LINES = "".join(f"<{FB}m.{i}>\t<{FB}film.film.genre>\t<{FB}m.g{i % 7}>\t.\n"
                for i in range(60_000)).encode()
TTL = b"@prefix ex: <http://ex.org/> .\n" + b"".join(
    b"ex:a%d ex:p ex:b%d .\n" % (i, i) for i in range(60_000))
COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress, "bz2": bz2.compress,
    "zst": lambda data: zstandard.ZstdCompressor().compress(data),
}
TEST = {"gz": "gzip -t", "bz2": "bzip2 -t", "zst": "zstd -t"}
LOADERS = {
    "triples": (load_triples, "nt", LINES),
    "wikidata": (load_wikidata, "nt",
                 LINES.replace(FB.encode(), b"http://www.wikidata.org/entity/")),
    "freebase": (load_freebase, "nt", LINES),
    "rdf-nt": (load_rdf, "nt", LINES),
    "rdf-ttl": (load_rdf, "ttl", TTL),
}


@pytest.mark.parametrize("suffix", ["gz", "bz2", "zst"])
@pytest.mark.parametrize("loader", list(LOADERS))
def test_truncated_file_names_its_test_command(tmp_path: Path, loader: str, suffix: str) -> None:
    load, ext, data = LOADERS[loader]
    packed = COMPRESS[suffix](data)
    path = tmp_path / f"cut.{ext}.{suffix}"
    path.write_bytes(packed[: len(packed) // 2])
    with open_store(tmp_path / "store", create=True) as store:
        with pytest.raises(InputFileError) as info:
            load(store, [path])
        assert store.sources() == [] and store.stats().facts == 0
    message = str(info.value)
    assert "truncated or corrupt" in message
    assert f"`{TEST[suffix]} {path}`" in message
    assert all(other not in message for other in TEST.values() if other != TEST[suffix])
