"""A ``--store`` that cannot be a store directory is one line, exit 1, never a
traceback: a regular file (or a path below one) for every command that opens a store,
and, for a user who is not root, a folder they may not write (load, demo) or read (the
read commands). A read command on a file does not tell the user to load data into it
(``load data first (`kgbench load triples FILE --store afile`)``), which only failed
the same way."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kgbench.test_cli import CLI, TIMEOUT, assert_clean_error, run

NTRIPLES = "<http://x.org/a> <http://x.org/p> <http://x.org/b> .\n"
NOBODY = 65534

COMMANDS = {
    "load triples": ["load", "triples", "{nt}"],
    "load triples --force": ["load", "triples", "{nt}", "--force"],
    "load rdf": ["load", "rdf", "{nt}"],
    "demo": ["demo"],
    "demo --no-fresh": ["demo", "--no-fresh"],
    "stats": ["stats"],
    "entity": ["entity", "a"],
    "search": ["search", "a"],
    "cypher": ["cypher", "RETURN 1"],
}
WRITERS = ("load triples", "load triples --force", "load rdf", "demo")


def command(name: str, nt: Path, store: str) -> list[str]:
    return [arg.replace("{nt}", str(nt)) for arg in COMMANDS[name]] + ["--store", store]


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert_clean_error(proc, 1)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    assert "hint:" not in proc.stderr and "load data first" not in proc.stderr, proc.stderr
    return errors[0]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_store_that_is_a_file_is_one_line(name: str, tmp_path: Path) -> None:
    nt = tmp_path / "t.nt"
    nt.write_text(NTRIPLES, encoding="utf-8")
    (tmp_path / "afile").write_text("not a store\n", encoding="utf-8")
    line = one_error_line(run(*command(name, nt, "afile"), cwd=tmp_path))
    assert line == ("Error: --store afile is a file, not a store directory; choose a "
                    "directory (a new one is created by `kgbench load`)")
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "not a store\n"


@pytest.mark.parametrize("name", ["load triples", "demo", "stats"])
def test_a_store_below_a_file_is_one_line(name: str, tmp_path: Path) -> None:
    nt = tmp_path / "t.nt"
    nt.write_text(NTRIPLES, encoding="utf-8")
    (tmp_path / "afile").write_text("", encoding="utf-8")
    line = one_error_line(run(*command(name, nt, "afile/s"), cwd=tmp_path))
    assert line == ("Error: --store afile/s lies below afile, which is a file, not a "
                    "directory; choose another --store")


def unprivileged() -> list[str]:
    """The prefix that runs a command as a user the file modes apply to (root ignores
    them): none when the tests run as such a user, else ``setpriv`` to ``nobody``."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot test file permissions")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def run_unprivileged(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    env.update({"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1",
                "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    return subprocess.run([*unprivileged(), *CLI, *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=cwd, env=env, timeout=TIMEOUT, check=False)


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the unprivileged user can enter (pytest's own tmp_path is root's,
    mode 700), removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="kgbench-perm-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        for path in (root, *root.rglob("*")):
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(root)


@pytest.mark.parametrize("name", WRITERS)
def test_a_store_in_a_folder_nobody_may_write_is_one_line(name: str, shared_dir: Path) -> None:
    nt = shared_dir / "t.nt"
    nt.write_text(NTRIPLES, encoding="utf-8")
    nt.chmod(0o644)
    (shared_dir / "ro").mkdir(mode=0o555)
    (shared_dir / "ro").chmod(0o555)
    line = one_error_line(run_unprivileged(*command(name, nt, "ro/s"), cwd=shared_dir))
    assert line == ("Error: cannot create the store at ro/s: permission denied; choose a "
                    "writable --store")
    assert not (shared_dir / "ro" / "s").exists()


@pytest.fixture
def root_owned_store(shared_dir: Path) -> Path:
    nt = shared_dir / "t.nt"
    nt.write_text(NTRIPLES, encoding="utf-8")
    proc = run("load", "triples", nt, "--store", shared_dir / "s")
    assert proc.returncode == 0, proc.stderr
    return shared_dir / "s"


def test_a_store_this_user_may_not_write_is_one_line(root_owned_store: Path) -> None:
    if os.geteuid() == 0:
        root_owned_store.chmod(0o755)   # others may read, not write
    else:
        root_owned_store.chmod(0o555)
        for file in root_owned_store.iterdir():
            file.chmod(0o444)
    cwd = root_owned_store.parent
    line = one_error_line(run_unprivileged("load", "triples", "t.nt", "--store", "s", cwd=cwd))
    assert line == "Error: cannot write the store at s: permission denied; choose a writable --store"
    line = one_error_line(run_unprivileged("load", "triples", "t.nt", "--force", "--store", "s",
                                           cwd=cwd))
    assert line == ("Error: cannot remove the store at s: permission denied; choose a "
                    "writable --store")
    proc = run_unprivileged("stats", "--store", "s", cwd=cwd)   # reading is allowed
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", ["stats", "entity", "cypher", "load triples", "demo --no-fresh"])
def test_a_store_this_user_may_not_read_is_one_line(name: str, root_owned_store: Path) -> None:
    root_owned_store.chmod(0o700)
    if os.geteuid() != 0:
        root_owned_store.chmod(0o000)
    cwd = root_owned_store.parent
    line = one_error_line(run_unprivileged(*command(name, cwd / "t.nt", "s"), cwd=cwd))
    assert line == ("Error: cannot read the store at s: permission denied; choose a store "
                    "you may read, or ask its owner for read access")
