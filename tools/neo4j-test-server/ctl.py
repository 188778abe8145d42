"""Start and stop the throwaway Neo4j 5 test server (``make neo4j-up`` / ``make neo4j-down``).

Why a script rather than Makefile shell: "up" must be idempotent and must not report success
until a real Bolt login and query work, which needs the official driver from the project venv;
"down" must stop only the process it started (by the pid it recorded), never by name.

State lives in one folder (``--state``, default ``.neo4j-test`` at the repository root, ignored
by git): ``server.pid`` (written at spawn), ``ready`` (written by the Java launcher once the
password is set and Bolt listens), ``jvm`` (its ``--jvm`` options' name), ``server.log`` (the
JVM's output) and ``data/`` (the DBMS home, with Neo4j's own ``logs/debug.log``). The data is thrown away by "down" and by every fresh
"up": the server is for tests, never for keeping a KG.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import neo4j

MAIN_CLASS = "kgbench.neo4j.TestServer"
JVM_OPTIONS = {
    # The tests': C1 only starts in ~11 s instead of ~19 s on 2 cores, and test queries
    # are small; a 1 GB heap (and the launcher's 256 MB page cache) leaves the 24 GB
    # machine to the tests.
    "test": ["-Xms256m", "-Xmx1g", "-XX:TieredStopAtLevel=1"],
    # A server's, for benchmarks of its throughput (bench/neo4j_import_bench.py): the
    # JVM's default tiered JIT, as `neo4j console` runs it (C2 compiles the hot paths:
    # an online import's server CPU per fact fell by 40-45%, once warm), and a fixed
    # 3 GB heap (Neo4j's advice: initial = max; the 1 GB heap's young collections
    # paused 3 s of a 20 s import, against 0.5 s), and a 1 GB page cache (a 1M-fact
    # store with its indexes is 0.5 GB: a server caches its store; the tests' 256 MB
    # does not). Still below what Neo4j's memory recommendation gives a 24 GB machine.
    # Like Neo4j's own launcher: the page cache's direct buffer access (without it Neo4j
    # warns of a slower fallback) and final fields trusted by the JIT.
    "server": ["-Xms3g", "-Xmx3g", "-Dkgbench.pagecache.mb=1024",
               "--add-opens=java.base/java.nio=ALL-UNNAMED",
               "-XX:+UnlockExperimentalVMOptions", "-XX:+TrustFinalNonStaticFields"],
}
"""The server JVM's options, by ``--jvm``."""
HOST = "127.0.0.1"
USER = "neo4j"


def _alive(pid: int) -> bool:
    """Whether ``pid`` is our launcher: alive *and* running the main class (pids get reused)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return MAIN_CLASS.encode() in cmdline


def _recorded_pid(state: Path) -> int | None:
    try:
        return int((state / "server.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _bolt_answers(uri: str, password: str) -> str | None:
    """The server's agent string when a login and a query succeed over Bolt, else None."""
    try:
        with neo4j.GraphDatabase.driver(uri, auth=(USER, password), connection_timeout=5) as driver:
            with driver.session() as session:
                session.run("RETURN 1").consume()
            return driver.get_server_info().agent
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError):
        return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _log_tail(state: Path, lines: int = 30) -> str:
    try:
        text = (state / "server.log").read_text(errors="replace")
    except OSError:
        return "(no server.log)"
    return "\n".join(text.splitlines()[-lines:])


def up(state: Path, classpath: Path, java: Path, port: int, password: str, timeout: float,
       jvm: str = "test") -> int:
    uri = f"bolt://{HOST}:{port}"
    pid = _recorded_pid(state)
    if pid is not None and _alive(pid):
        if (state / "ready").exists() or _wait_ready(state, lambda: _alive(pid), timeout):
            agent = _bolt_answers(uri, password)
            if agent:
                running = _read(state / "jvm") or "test"
                print(f"neo4j test server already up (pid {pid}, {agent}, JVM options "
                      f"{running!r}{'' if running == jvm else f', not {jvm!r}: make neo4j-down first'})")
                print(uri)
                return 0
        print(f"neo4j test server pid {pid} runs but Bolt does not answer on {uri}: "
              f"run `make neo4j-down` then `make neo4j-up`; log {state / 'server.log'}:\n"
              f"{_log_tail(state)}", file=sys.stderr)
        return 1
    if _bolt_answers(uri, password) or _port_taken(port):
        print(f"port {port} on {HOST} is taken by a process this script did not start: stop it, "
              f"or pick another port with NEO4J_PORT=...", file=sys.stderr)
        return 1
    if not java.is_file():
        print(f"{java} not found: Neo4j 5.26 needs JDK 17 (apt-get install openjdk-17-jdk-headless, "
              f"or set JDK17=...)", file=sys.stderr)
        return 1

    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    jars = classpath.read_text().strip()
    classes = classpath.parent / "classes"
    env = dict(os.environ, KGBENCH_NEO4J_PASSWORD=password)
    started = time.monotonic()
    with open(state / "server.log", "wb") as log:
        proc = subprocess.Popen(
            [str(java), *JVM_OPTIONS[jvm],
             # C1's default code cache (48 MB) filled after ~17 min of the test suite's
             # queries and the JVM stopped compiling ("CodeCache is full"): every query
             # then ran interpreted, many times slower.
             "-XX:ReservedCodeCacheSize=256m",
             "-cp", f"{classes}{os.pathsep}{jars}", MAIN_CLASS,
             str(state / "data"), str(port), str(state / "ready")],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=env, start_new_session=True,  # outlives make; Ctrl-C in the shell does not reach it
        )
    (state / "server.pid").write_text(f"{proc.pid}\n")
    (state / "jvm").write_text(f"{jvm}\n")
    # poll(), not _alive(): until the child has exec'd java its cmdline is still Python's.
    if not _wait_ready(state, lambda: proc.poll() is None, timeout):
        _stop_child(state, proc)
        print(f"neo4j test server did not become ready within {timeout:.0f} s; "
              f"log {state / 'server.log'}:\n{_log_tail(state)}", file=sys.stderr)
        return 1
    agent = _bolt_answers(uri, password)
    if not agent:
        _stop_child(state, proc)
        print(f"neo4j test server started but a Bolt login on {uri} failed; "
              f"log {state / 'server.log'}:\n{_log_tail(state)}", file=sys.stderr)
        return 1
    print(f"neo4j test server up in {time.monotonic() - started:.1f} s (pid {proc.pid}, {agent}, "
          f"JVM options {jvm!r}, log {state / 'server.log'})")
    print(uri)
    return 0


def _port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1)
        return sock.connect_ex((HOST, port)) == 0


def _wait_ready(state: Path, running: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (state / "ready").exists():
            return True
        if not running():
            return False
        time.sleep(0.25)
    return False


def _stop(state: Path, pid: int, grace: float = 60.0) -> None:
    """SIGTERM (Neo4j checkpoints and closes Bolt, ~12 s), then SIGKILL past ``grace``."""
    if _alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            while _alive(pid):
                time.sleep(0.1)
    shutil.rmtree(state, ignore_errors=True)


def _stop_child(state: Path, proc: subprocess.Popen[bytes], grace: float = 60.0) -> None:
    """Stop a server this run spawned, even before it has exec'd java; keep its log."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    (state / "server.pid").unlink(missing_ok=True)


def down(state: Path) -> int:
    pid = _recorded_pid(state)
    if pid is None or not _alive(pid):
        shutil.rmtree(state, ignore_errors=True)
        print("neo4j test server is not running")
        return 0
    _stop(state, pid)
    print(f"neo4j test server stopped (pid {pid})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("up", "down"))
    parser.add_argument("--state", type=Path, default=Path(".neo4j-test"))
    parser.add_argument("--classpath", type=Path,
                        default=Path(__file__).parent / "target" / "classpath.txt")
    parser.add_argument("--java", type=Path,
                        default=Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java"))
    parser.add_argument("--port", type=int, default=7687)
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--jvm", choices=sorted(JVM_OPTIONS), default="test",
                        help="the JVM's options: the tests' (fast start) or a server's "
                        "(for benchmarks)")
    args = parser.parse_args()
    state = args.state.resolve()
    if args.action == "down":
        return down(state)
    auth = os.environ.get("KGBENCH_NEO4J_AUTH", f"{USER}/kgbench-dev")
    user, _, password = auth.partition("/")
    if user != USER or not password:
        print(f"KGBENCH_NEO4J_AUTH must be {USER}/PASSWORD for the test server", file=sys.stderr)
        return 2
    return up(state, args.classpath.resolve(), args.java, args.port, password, args.timeout,
              args.jvm)


if __name__ == "__main__":
    sys.exit(main())
