"""A store killed while it is being created, and a refused ``store copy`` (issue 32,
items 7 and 13), through the real CLI.

Before the fix, ``kill -9`` between the engine's first write and the marker file left
a folder that neither a rerun nor ``--force`` recovered (``load triples``, ``store
copy``: "exists and is not a kgbench store"); and ``store copy SRC DST`` refused with
"already holds a store" after it had opened DST to write, which rewrote
``DST/graph.lbdb``. Now the marker ("creating") is written before anything else and the
next create starts again; a DST that holds a store is looked at read-only.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kgstore.backends.ladybug import LadybugStore
from kgstore.backends.ladybug.schema import DB_FILE, MARKER
from kgstore.errors import StoreLockedError
from tests.kgbench.test_cli import assert_clean_error, run, run_json, write_inputs

KILL_IN_CREATION = """
import os, signal, sys
from kgstore.backends.ladybug.store import LadybugStore
create = LadybugStore._create_schema
when = sys.argv[1]
def killing_create(self):
    if when == "after":
        create(self)
    os.kill(os.getpid(), signal.SIGKILL)
LadybugStore._create_schema = killing_create
from kgbench.cli import main
main(sys.argv[2:])
"""
"""Runs the CLI with a SIGKILL while the store is created: once the engine has made
its database file, before (or right after) the schema is written."""


def killed_in_creation(when: str, *args: str | Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    proc = subprocess.run([sys.executable, "-c", KILL_IN_CREATION, when, *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("creation-src")
    facts, names = write_inputs(directory)
    store = directory / "store"
    assert run("load", "triples", facts, "--names", names, "--store", store).returncode == 0
    return store


def files_of(directory: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``directory``: its digest and modification time (ns)."""
    return {str(p.relative_to(directory)): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                            p.stat().st_mtime_ns)
            for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("recover", ["rerun", "--force"])
def test_load_killed_while_creating_the_store_recovers(tmp_path: Path, when: str,
                                                       recover: str) -> None:
    facts, names = write_inputs(tmp_path)
    store = tmp_path / "store"
    command = ["load", "triples", facts, "--names", names, "--store", store]
    killed_in_creation(when, *command)
    assert (store / DB_FILE).exists()
    assert json.loads((store / MARKER).read_text())["creating"] is True

    reader = run("stats", "--store", store)
    assert_clean_error(reader)
    assert "its creation was interrupted" in reader.stderr and "rerun the load" in reader.stderr

    again = run(*command, *(["--force"] if recover == "--force" else []))
    assert again.returncode == 0, again.stderr
    stats = run_json("stats", "--store", store)
    assert stats["facts"] == 4 and "creating" not in json.loads((store / MARKER).read_text())


def test_store_copy_killed_while_creating_dst_recovers(source: Path, tmp_path: Path) -> None:
    destination = tmp_path / "copy"
    killed_in_creation("after", "store", "copy", source, destination)
    doc = run_json("store", "copy", source, destination)
    assert doc["verified"] is True and doc["counts"]["facts"] == 4


def test_a_store_being_created_by_another_process_is_left_alone(tmp_path: Path) -> None:
    """A creating marker whose lock is held: another process is creating the store
    now, so it is neither cleared nor created again."""
    store = tmp_path / "store"
    store.mkdir()
    marker = store / MARKER
    marker.write_text(json.dumps({"backend": "ladybug", "schema_version": 1, "creating": True}))
    (store / "in-progress").write_text("the creator's file\n")
    with marker.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(StoreLockedError, match="being created by another process"):
            LadybugStore(store, create=True)
        assert (store / "in-progress").exists()
    LadybugStore(store, create=True).close()   # the lock let go: an interrupted creation
    assert not (store / "in-progress").exists()
    assert "creating" not in json.loads(marker.read_text())


def test_a_refused_store_copy_leaves_dst_untouched(source: Path, tmp_path: Path) -> None:
    facts, names = write_inputs(tmp_path)
    destination = tmp_path / "dst"
    assert run("load", "triples", facts, "--store", destination).returncode == 0
    before = files_of(destination)
    proc = run("store", "copy", source, destination)
    assert_clean_error(proc)
    assert "already holds a store; pass --force" in proc.stderr
    assert files_of(destination) == before
