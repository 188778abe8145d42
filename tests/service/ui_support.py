"""What the UI tests share (``test_ui_samples``, ``test_ui_browser``): one server per
session over the demo KG plus an entity named like an HTML tag, whose data directory
holds the demo benchmark, the demo questions and two benchmarks that link out of it.

Import the fixtures by name into a test module (``from tests.service.ui_support import
ui_server``); being session-scoped, the server starts once for both modules. Jobs write
into its data directory, so it is not the shared ``demo_server``.
"""

from __future__ import annotations

import gzip
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgbench.demo import DEMO_KG, DEMO_QUESTIONS
from loaders.into_store import load_into_store
from loaders.triples import load_triples
from tests.service.conftest import Server, _launch

FREEBASE = "http://rdf.freebase.com/ns/"
BENCH = "benchmarks/demo"
"""The demo benchmark's name in the data directory."""
LINKED_DIR = "linked-dir"
"""A benchmark directory that is a symlink out of the data directory."""
LINKED_FILE = "linked-file"
"""A directory inside whose samples.jsonl is a symlink out of the data directory."""
BROKEN = "broken"
"""A benchmark whose samples.jsonl.gz is cut short."""
QUESTIONS = "questions.jsonl"
"""The demo questions, for a generate job."""
HOSTILE_NAME = "<img src=x onerror=document.body.dataset.pwned=1>"
HOSTILE_ID = "m.0xss01"
GODFATHER = "m.0kgb0gd"
COPPOLA = "m.0kgb085"
SPIELBERG = "m.0kgb086"


def _hostile_triples(path: Path) -> Path:
    """An entity named like an HTML tag that directed The Godfather (so it appears in
    the neighbourhood of the film and of Coppola's films)."""
    path.write_text(
        f'<{FREEBASE}{HOSTILE_ID}> <{FREEBASE}type.object.name> "{HOSTILE_NAME}"@en .\n'
        f"<{FREEBASE}{HOSTILE_ID}> <{FREEBASE}type.object.type> <{FREEBASE}film.director> .\n"
        f"<{FREEBASE}{GODFATHER}> <{FREEBASE}film.film.directed_by> <{FREEBASE}{HOSTILE_ID}> .\n",
        encoding="utf-8")
    return path


def _data_dir(root: Path, demo_data_dir: Path) -> Path:
    data = root / "data"
    shutil.copytree(demo_data_dir / BENCH, data / BENCH)
    shutil.copy(DEMO_QUESTIONS, data / QUESTIONS)
    outside = root / "outside" / "bench"
    shutil.copytree(demo_data_dir / BENCH, outside)
    os.symlink(outside, data / LINKED_DIR)
    (data / LINKED_FILE).mkdir()
    shutil.copy(outside / "stats.json", data / LINKED_FILE / "stats.json")
    os.symlink(outside / "samples.jsonl", data / LINKED_FILE / "samples.jsonl")
    (data / BROKEN).mkdir()
    shutil.copy(outside / "stats.json", data / BROKEN / "stats.json")
    whole = gzip.compress((outside / "samples.jsonl").read_bytes())
    (data / BROKEN / "samples.jsonl.gz").write_bytes(whole[:len(whole) // 2])
    return data


@pytest.fixture(scope="session")
def ui_server(tmp_path_factory: pytest.TempPathFactory, demo_data_dir: Path) -> Iterator[Server]:
    """The UI tests' server (see the module docstring)."""
    root = tmp_path_factory.mktemp("ui-server")
    files = [DEMO_KG, _hostile_triples(root / "hostile.nt")]
    store_path = str(root / "store")
    load_into_store(store_path, files,
                    lambda store, progress: load_triples(store, files, progress=progress),
                    force=True)
    server = _launch(store_path, _data_dir(root, demo_data_dir), None, "127.0.0.1", ())
    yield server
    server.stop()
