"""What the UI tests share (``test_ui_*``): the server they drive, over the demo KG plus
an entity named like an HTML tag, whose data directory holds the demo benchmark, the
demo questions and two benchmarks that link out of it; and Chromium.

The fixtures ``ui_server``, ``artifacts`` and ``browser`` are in
``tests/service/conftest.py``, built from what is here: one server per worker for every
UI test module (a session fixture imported into each module by name was one per
module), one browser per module. Jobs write into the server's data directory, so it is
not the shared ``demo_server``.
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

from kgbench.demo import DEMO_KG, DEMO_QUESTIONS
from loaders.into_store import load_into_store
from loaders.triples import load_triples

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
CHROMIUM = Path("/usr/bin/chromium")
STEP_TIMEOUT_MS = 15_000
"""How long a UI test waits for one step (a page action or an ``expect``)."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def _hostile_triples(path: Path) -> Path:
    """An entity named like an HTML tag that directed The Godfather (so it appears in
    the neighbourhood of the film and of Coppola's films)."""
    path.write_text(
        f'<{FREEBASE}{HOSTILE_ID}> <{FREEBASE}type.object.name> "{HOSTILE_NAME}"@en .\n'
        f"<{FREEBASE}{HOSTILE_ID}> <{FREEBASE}type.object.type> <{FREEBASE}film.director> .\n"
        f"<{FREEBASE}{GODFATHER}> <{FREEBASE}film.film.directed_by> <{FREEBASE}{HOSTILE_ID}> .\n",
        encoding="utf-8")
    return path


def ui_data_dir(root: Path, demo_data_dir: Path) -> Path:
    """``root/data``: the server's data directory (see the module docstring)."""
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


def build_ui_store(work: Path) -> None:
    """``work/store``: the demo KG and the hostile entity (``work/hostile.nt``) loaded."""
    work.mkdir(parents=True)
    files = [DEMO_KG, _hostile_triples(work / "hostile.nt")]
    load_into_store(str(work / "store"), files,
                    lambda store, progress: load_triples(store, files, progress=progress),
                    force=True)
