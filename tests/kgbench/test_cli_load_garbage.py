"""Random bytes given to ``kgbench load`` (issue 18, item 12): refused as "not a <format>
file" in one line, with a non-zero exit, before anything is written: a new store is not
created, an existing one is unchanged (no source recorded, no stage left behind).

The real CLI runs in a subprocess (as test_cli.py); the garbage is 1 MB of seeded random
bytes, as in the issue.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from kgstore import open_store
from tests.kgbench.test_cli import run, write_inputs


def garbage(path: Path, *, prefix: bytes = b"") -> Path:
    path.write_bytes(prefix + random.Random(18).randbytes(1 << 20))
    return path


def snapshot(store_dir: Path) -> tuple[Any, ...]:
    with open_store(store_dir, read_only=True) as store:
        st = store.stats()
        sources = [(s.file, s.status, s.counts) for s in store.sources()]
        return st.entities, st.literals, st.facts, st.predicates, sources


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the small TSV + names inputs of test_cli.py."""
    root = tmp_path_factory.mktemp("garbage")
    facts, names = write_inputs(root)
    store = root / "store"
    proc = run("load", "triples", facts, "--names", names, "--store", store)
    assert proc.returncode == 0, proc.stderr
    return store


CASES = [
    ("triples", "random.tsv", b"", "not a tab-separated triples file"),
    ("triples", "random.nt", b"", "not an N-Triples file"),
    ("wikidata", "random.nt", b"", "not a Wikidata N-Triples file"),
    ("wikidata", "random.json", b"[\n", "not a Wikidata JSON file"),
    ("rdf", "random.nt", b"", "not an N-Triples file"),
    ("rdf", "random.ttl", b"", "not a Turtle file"),
]


def assert_one_line_refusal(proc: Any, path: Path, expected: str) -> None:
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    (error,) = errors
    assert error.startswith(f"Error: {path}: {expected}: ")
    assert "nothing was loaded" in error
    # Nothing but the progress display and that line on stderr.
    others = [ln for ln in proc.stderr.splitlines()
              if ln.strip() and not ln.startswith("Error:") and "parsing" not in ln]
    assert others == [], proc.stderr


@pytest.mark.parametrize("command, name, prefix, expected", CASES)
def test_random_bytes_are_refused_and_leave_no_store(tmp_path: Path, command: str, name: str,
                                                     prefix: bytes, expected: str) -> None:
    path = garbage(tmp_path / name, prefix=prefix)
    store = tmp_path / "store"
    proc = run("load", command, path, "--store", store)
    assert_one_line_refusal(proc, path, expected)
    assert not store.exists()


@pytest.mark.parametrize("command, name, prefix, expected", CASES)
def test_random_bytes_leave_an_existing_store_unchanged(tmp_path: Path, loaded: Path,
                                                        command: str, name: str, prefix: bytes,
                                                        expected: str) -> None:
    store = tmp_path / "store"
    shutil.copytree(loaded, store)
    before = snapshot(store)
    path = garbage(tmp_path / name, prefix=prefix)
    proc = run("load", command, path, "--store", store)
    assert_one_line_refusal(proc, path, expected)
    assert snapshot(store) == before
    assert not (store / "staging").exists()
