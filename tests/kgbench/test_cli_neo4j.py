"""The CLI against a real Neo4j 5 (``make neo4j-up``), with hostile input and hostile
events: wrong or missing credentials, credentials in the URI, a database that is not a
kgbench store or holds another schema version, a database that does not exist (one line
each, no traceback, nothing written, no password echoed); a load killed with SIGKILL
part-way through its facts or its hub index, then run again; and a server that goes away
during a load and comes back (its own throwaway server: it is stopped on purpose)."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import neo4j_server
from tests.kgbench.test_cli import assert_clean_error, run
from tests.neo4j_server import SKIP_REASON, URI, URI_ENV, content, requires_neo4j, run_query

pytestmark = [pytest.mark.neo4j, requires_neo4j]

ROOT = Path(__file__).resolve().parents[2]
CTL = ROOT / "tools" / "neo4j-test-server" / "ctl.py"
CLASSPATH = ROOT / "tools" / "neo4j-test-server" / "target" / "classpath.txt"


def one_error(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, stderr
    return errors[0]


@pytest.fixture
def db(tmp_path: Path) -> str:
    """The test database, emptied."""
    neo4j_server.wipe()
    assert URI is not None
    return URI


def small_kg(directory: Path) -> Path:
    facts = directory / "facts.tsv"
    facts.write_text("/m/01\t/film/film/directed_by\t/m/02\n/m/03\t/film/film/genre\t/m/04\n",
                     encoding="utf-8")
    return facts


# -- bad input: one line, nothing written ---------------------------------------------------

SECRET = "Wr0ng-Secret-pw"


@pytest.mark.parametrize("auth, says", [
    (f"neo4j/{SECRET}", "Neo4j refused user 'neo4j' with the password from KGBENCH_NEO4J_AUTH"),
    ("", "no Neo4j credentials: set KGBENCH_NEO4J_AUTH=user/password"),
    (f"neo4j{SECRET}", "KGBENCH_NEO4J_AUTH must be user/password (e.g. neo4j/secret); it is "
                       "set but has no '/' between a user and a password"),
    (f"/{SECRET}", "it is set but has an empty user"),
    ("neo4j/", "it is set but has an empty password"),
    ("none", "Neo4j wants a login but KGBENCH_NEO4J_AUTH=none sends none"),
])
@pytest.mark.parametrize("command", ["load", "stats"])
def test_bad_credentials_are_one_line_that_never_shows_the_password(
        db: str, tmp_path: Path, auth: str, says: str, command: str) -> None:
    facts = small_kg(tmp_path)
    args = ["load", "triples", facts] if command == "load" else ["stats"]
    proc = run(*args, "--store", db, cwd=tmp_path,
               env={"KGBENCH_NEO4J_AUTH": auth, "NEO4J_AUTH": ""})
    assert_clean_error(proc)
    assert says in one_error(proc.stderr)
    assert SECRET not in proc.stdout + proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]
    assert run_query("MATCH (n) RETURN count(n)") == [[0]]


def test_credentials_in_the_uri_are_refused_and_not_echoed(db: str, tmp_path: Path) -> None:
    facts = small_kg(tmp_path)
    uri = db.replace("://", f"://neo4j:{SECRET}@")
    proc = run("load", "triples", facts, "--store", uri, cwd=tmp_path)
    assert_clean_error(proc)
    assert "put no credentials in a store location" in one_error(proc.stderr)
    assert SECRET not in proc.stdout + proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]
    assert run_query("MATCH (n) RETURN count(n)") == [[0]]


def test_a_database_that_is_not_a_kgbench_store_is_left_alone(db: str, tmp_path: Path) -> None:
    run_query("CREATE (:Person {name: 'Alice'})-[:KNOWS]->(:Person {name: 'Bob'})")
    before = content()
    facts = small_kg(tmp_path)
    for args in (["load", "triples", facts], ["load", "triples", facts, "--force"]):
        proc = run(*args, "--store", db, cwd=tmp_path)
        assert_clean_error(proc)
        assert "holds data that is not a kgbench store (nodes labelled ['Person'])" in \
            one_error(proc.stderr)
    for args in (["stats"], ["entity", "m.01"], ["cypher", "MATCH (n) RETURN n"]):
        proc = run(*args, "--store", db, cwd=tmp_path)
        assert_clean_error(proc)
        assert one_error(proc.stderr).startswith(f"Error: no kgbench store in {db}")
    assert content() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]


def test_a_store_of_another_schema_version_is_refused_by_every_command(
        db: str, tmp_path: Path) -> None:
    facts = small_kg(tmp_path)
    work = {"KGBENCH_NEO4J_WORK": str(tmp_path / "work")}
    assert run("load", "triples", facts, "--store", db, cwd=tmp_path, env=work).returncode == 0
    run_query("MATCH (m:Meta {key: 'schema_version'}) SET m.value = '999'")
    before = content()
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "who?", "answers": ["m.02"]}\n')
    for args in (["stats"], ["entity", "m.01"], ["search", "x"], ["cypher", "RETURN 1"],
                 ["load", "triples", facts], ["load", "triples", facts, "--force"],
                 ["generate", "--questions", questions, "--out", tmp_path / "bench"]):
        proc = run(*args, "--store", db, cwd=tmp_path, env=work)
        assert_clean_error(proc)
        assert one_error(proc.stderr) == (
            f"Error: {db} holds a kgbench store of schema version 999, this kgbench reads "
            "version 1; load the data into another database or use the kgbench release "
            "that wrote it"), args
    assert content() == before
    assert not (tmp_path / "bench").exists()


@pytest.mark.parametrize("command", ["load", "stats"])
def test_a_database_that_does_not_exist_is_one_line(db: str, tmp_path: Path,
                                                    command: str) -> None:
    facts = small_kg(tmp_path)
    uri = f"{db}/nosuchdb"
    args = ["load", "triples", facts] if command == "load" else ["stats"]
    proc = run(*args, "--store", uri, cwd=tmp_path)
    assert_clean_error(proc)
    assert one_error(proc.stderr).startswith(
        f"Error: {uri}: the server has no database 'nosuchdb'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.tsv"]


# -- kill -9 and a server that goes away, then a rerun -----------------------------------------

HUBS = 24


def synthetic_kg(directory: Path, facts: int, seed: int = 3) -> list[Path]:
    """``facts`` random facts between 6,000 entities (a third named), 15% of them into
    one of :data:`HUBS` hub entities, and a names file."""
    rnd = random.Random(seed)
    triples = directory / "facts.tsv"
    with triples.open("w", encoding="utf-8") as out:
        for _ in range(facts):
            obj = f"/m/hub{rnd.randrange(HUBS)}" if rnd.random() < 0.15 else \
                f"/m/e{rnd.randrange(6000)}"
            out.write(f"/m/e{rnd.randrange(6000)}\t/p/rel{rnd.randrange(12)}\t{obj}\n")
    names = directory / "names.tsv"
    names.write_text("".join(f"/m/e{i}\tEntity {i}\n" for i in range(0, 6000, 3)) +
                     "".join(f"/m/hub{i}\tHub {i}\n" for i in range(HUBS)), encoding="utf-8")
    return [triples, names]


def load_args(files: list[Path], uri: str) -> list[str]:
    return [*map(str, [sys.executable, "-m", "kgbench.cli", "load", "triples", files[0],
                       "--names", files[1]]), "--store", uri]


def cli_env(tmp_path: Path, work: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    env.update({"KGBENCH_NEO4J_WORK": str(tmp_path / work), "KGBENCH_HUB_MIN_DEGREE": "50",
                "NO_COLOR": "1", "COLUMNS": "200"})
    return env


def empty(uri: str) -> None:
    if uri == URI:
        neo4j_server.wipe()
    else:   # a throwaway server's small KG: one transaction
        run_query("MATCH (n) DETACH DELETE n", uri=uri)


def clean_import(files: list[Path], uri: str, tmp_path: Path) -> dict[str, list[tuple[object, ...]]]:
    empty(uri)
    proc = subprocess.run(load_args(files, uri), env=cli_env(tmp_path, "clean-work"),
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    return content(uri)


@dataclass(frozen=True)
class CleanLoad:
    """The synthetic KG's files and what an uninterrupted load of them writes, its
    facts and hubs counted."""

    files: list[Path]
    content: dict[str, list[tuple[object, ...]]]
    facts: int
    hubs: int


@pytest.fixture(scope="module")
def clean_load(tmp_path_factory: pytest.TempPathFactory) -> CleanLoad:
    """One clean load of :data:`FACTS` synthetic facts for the module's interrupted loads
    to equal (what a load writes names its files, so they all load the same files; and
    it is the same on any server, the throwaway one included)."""
    assert URI is not None
    directory = tmp_path_factory.mktemp("synthetic-kg")
    files = synthetic_kg(directory, FACTS)
    clean = clean_import(files, URI, directory)
    return CleanLoad(files, clean, count("MATCH ()-[f:Fact]->() RETURN count(f)", URI),
                     count("MATCH (h:Hub) RETURN count(h)", URI))


def count(query: str, uri: str) -> int:
    return int(run_query(query, uri=uri)[0][0])  # type: ignore[call-overload]


def start_until(args: list[str], env: dict[str, str], ready: Callable[[], bool],
                timeout: float = 300) -> subprocess.Popen[str]:
    """Start ``args``; return once ``ready()`` holds while it still runs (fails if it
    ended first: the moment to interrupt it was missed)."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, f"finished before the moment to stop it: {proc.stderr!r}"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return proc


FACTS = 30_000


@pytest.mark.slow
@pytest.mark.parametrize("step", ["facts", "hubs"])
def test_a_load_killed_during_its_import_then_rerun_equals_a_clean_load(
        clean_load: CleanLoad, db: str, tmp_path: Path, step: str) -> None:
    files, clean, total, hubs = (clean_load.files, clean_load.content, clean_load.facts,
                                 clean_load.hubs)
    assert total > 0 and hubs >= HUBS // 2

    env = cli_env(tmp_path, "work")

    def facts_begun() -> bool:
        return 0 < count("MATCH ()-[f:Fact]->() RETURN count(f)", db) < total

    def hubs_begun() -> bool:
        return count("MATCH (k:InSlot) RETURN count(k)", db) > 0

    proc = start_until(load_args(files, db), env, facts_begun if step == "facts" else hubs_begun)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    if step == "hubs":   # stopped inside the hub index, not after it
        assert count("MATCH (h:Hub) RETURN count(h)", db) < hubs
    assert content() != clean

    again = subprocess.run(load_args(files, db), env=env, capture_output=True, text=True,
                           timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    assert content() == clean


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[[str], None]]:
    """A throwaway Neo4j on a free loopback port (never the shared test server: this one
    is stopped on purpose); yields ``ctl(action)`` ("up", "down": data kept) and stops it
    at the end."""
    if not CLASSPATH.is_file():
        if URI:
            pytest.fail(f"{URI_ENV} is set but {CLASSPATH} is missing: `make neo4j-up` builds it")
        pytest.skip(SKIP_REASON)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    state = tmp_path / "server"

    def ctl(action: str) -> None:
        args = [sys.executable, str(CTL), action, "--state", str(state)]
        if action == "up":
            args += ["--port", str(port), "--classpath", str(CLASSPATH)]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False,
                              env={**os.environ, "KGBENCH_NEO4J_AUTH": neo4j_server.auth()[0]
                                   + "/" + neo4j_server.auth()[1]})
        assert proc.returncode == 0, proc.stdout + proc.stderr

    ctl.uri = f"bolt://127.0.0.1:{port}"  # type: ignore[attr-defined]
    ctl("up")
    try:
        yield ctl
    finally:
        subprocess.run([sys.executable, str(CTL), "down", "--state", str(state)],
                       capture_output=True, timeout=300, check=False)


@pytest.mark.slow
def test_a_server_that_goes_away_during_a_load_is_one_line_and_the_rerun_finishes(
        clean_load: CleanLoad, tmp_path: Path, own_server: Callable[[str], None]) -> None:
    uri: str = own_server.uri  # type: ignore[attr-defined]
    files, clean, total = clean_load.files, clean_load.content, clean_load.facts
    assert run_query("MATCH (n) RETURN count(n)", uri=uri) == [[0]]

    env = cli_env(tmp_path, "work")
    proc = start_until(load_args(files, uri), env, lambda: 0 < count(
        "MATCH ()-[f:Fact]->() RETURN count(f)", uri) < total)
    own_server("down")
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    line = one_error(stderr)
    assert line.startswith(f"Error: {uri}: cannot reach Neo4j"), stderr
    assert "rerunning the command resumes" in line

    own_server("up")
    again = subprocess.run(load_args(files, uri), env=env, capture_output=True, text=True,
                           timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    assert content(uri) == clean
