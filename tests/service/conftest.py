"""Fixtures of the service tests: a real ``kgbench serve`` in a subprocess on a free
loopback port, over a real store (the demo KG, embedded or in the Neo4j test
database), and an HTTP client for it.

* ``demo_store_path`` (session): the demo KG in an embedded store, this worker's copy of
  one built once per run (with ``demo_data_dir``: ``service_demo``).
* ``neo4j_demo_location`` (session): the demo KG in the Neo4j test database; only
  tests marked ``neo4j`` may use it (it empties that database first).
* ``start_server(store, data_dir, *, token=None, host="127.0.0.1", extra_args=())``:
  starts a server (stopped at the end of the test) and returns a :class:`Server`.
* ``demo_server`` (session): a server over ``demo_store_path`` whose data directory
  holds the demo benchmark at ``benchmarks/demo/``; read-only tests share it.
* ``api``: an ``httpx.Client`` for ``demo_server``.
* ``token_server`` (session): a loopback server with the token :data:`TOKEN`.
* ``ui_server``, ``artifacts`` (session), ``browser`` (module): the UI tests' server,
  screenshot folder and Chromium (:mod:`tests.service.ui_support`).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests import neo4j_server
from tests.shared_builds import build_once, copy_tree, shared_root

if TYPE_CHECKING:
    from playwright.sync_api import Browser

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve_command(store: str, data_dir: Path, port: int, *, host: str = "127.0.0.1",
                  token: str | None = None, extra_args: Sequence[str] = ()) -> list[str]:
    """The ``kgbench serve`` command line of a test server."""
    cmd = [sys.executable, "-m", "kgbench.cli", "serve", "--store", store, "--data",
           str(data_dir), "--host", host, "--port", str(port), *extra_args]
    if token is not None:
        cmd += ["--token", token]
    return cmd


def server_env() -> dict[str, str]:
    """The environment of a server: this checkout first on the path, no token from
    the caller's environment, a small buffer pool (several readers each have one)."""
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("KGBENCH_BUFFER_POOL_MB", "256")
    return env


@dataclass
class Server:
    """A running ``kgbench serve``: its ``url`` (always on 127.0.0.1), process, data
    directory and token."""

    store: str
    data_dir: Path
    token: str | None
    host: str
    extra_args: tuple[str, ...]
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None
    log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, *, token: str | None = None, timeout: float = 30.0) -> httpx.Client:
        """A client for this server; with ``token``, it sends it as a Bearer header."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, timeout=timeout, headers=headers)

    def start(self) -> None:
        cmd = serve_command(self.store, self.data_dir, self.port, host=self.host,
                            token=self.token, extra_args=self.extra_args)
        self.log_path = self.data_dir.parent / f"serve-{self.port}.log"
        log = self.log_path.open("a", encoding="utf-8")
        self.process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True,
                                        env=server_env(), cwd=str(ROOT))
        log.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"kgbench serve exited {self.process.returncode}:\n"
                                     f"{self.log()}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1.0,
                             headers=headers).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"kgbench serve did not answer within {START_TIMEOUT_S} s:\n"
                             f"{self.log()}")

    def log(self) -> str:
        """What the server printed so far."""
        return self.log_path.read_text(encoding="utf-8") if self.log_path else ""

    def stop(self) -> int | None:
        """Stop the server (SIGINT, then kill); its exit status."""
        proc = self.process
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.process = None
        return proc.returncode

    def restart(self) -> None:
        """Stop and start again with the same arguments (the same port while it is
        free, else a new one)."""
        self.stop()
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.1", self.port))
        except OSError:
            self.port = free_port()
        self.start()


StartServer = Callable[..., Server]


def _launch(store: str, data_dir: Path, token: str | None, host: str,
            extra_args: Sequence[str]) -> Server:
    server = Server(store=store, data_dir=Path(data_dir), token=token, host=host,
                    extra_args=tuple(extra_args))
    server.start()
    return server


@pytest.fixture
def start_server() -> Iterator[StartServer]:
    """Start ``kgbench serve`` processes; all are stopped when the test ends."""
    started: list[Server] = []

    def start(store: str, data_dir: Path, *, token: str | None = None,
              host: str = "127.0.0.1", extra_args: Sequence[str] = ()) -> Server:
        server = _launch(store, data_dir, token, host, extra_args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def service_demo(shared_demo_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This worker's copy of the demo store (``store``) and of a data directory holding
    the demo benchmark generated from it (``data/benchmarks/demo``): built once per test
    run for every xdist worker (:mod:`tests.shared_builds`), then copied, as each worker
    built its own before (a generate job writes its seed's type samples into the store,
    and the server writes under its data directory: each worker has its own)."""
    from kgbench.demo.tour import generate_demo_benchmark

    def build(work: Path) -> None:
        store = copy_tree(shared_demo_store, work / "store")
        generate_demo_benchmark(str(store), work / "data" / "benchmarks" / "demo")

    shared = build_once(shared_root(tmp_path_factory, "service") / "demo", build)
    own = tmp_path_factory.mktemp("service-demo")
    copy_tree(shared / "store", own / "store")
    copy_tree(shared / "data", own / "data")
    return own


@pytest.fixture(scope="session")
def demo_store_path(service_demo: Path) -> str:
    """The demo KG in an embedded store (this worker's; do not modify)."""
    return str(service_demo / "store")


@pytest.fixture(scope="session")
def neo4j_demo_location(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo KG in the Neo4j test database (use from ``neo4j``-marked tests only)."""
    if not neo4j_server.URI:
        pytest.skip(neo4j_server.SKIP_REASON)
    from kgbench.demo.tour import build_demo_store

    previous = os.environ.get("KGBENCH_NEO4J_WORK")
    os.environ["KGBENCH_NEO4J_WORK"] = str(tmp_path_factory.mktemp("neo4j-work"))
    try:
        neo4j_server.wipe()
        build_demo_store(neo4j_server.URI)
    finally:
        if previous is None:
            os.environ.pop("KGBENCH_NEO4J_WORK", None)
        else:
            os.environ["KGBENCH_NEO4J_WORK"] = previous
    yield neo4j_server.URI


@pytest.fixture(scope="session")
def demo_data_dir(service_demo: Path) -> Path:
    """A data directory holding the demo benchmark at ``benchmarks/demo/`` (as
    ``kgbench generate`` writes it; do not modify)."""
    return service_demo / "data"


@pytest.fixture(scope="session")
def demo_server(demo_store_path: str, demo_data_dir: Path) -> Iterator[Server]:
    """A server over the demo store and data directory, shared by read-only tests."""
    server = _launch(demo_store_path, demo_data_dir, None, "127.0.0.1", ())
    yield server
    server.stop()


TOKEN = "s3cret-token-for-tests"
"""The token of ``token_server``."""


@pytest.fixture(scope="session")
def token_server(demo_store_path: str, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[Server]:
    """A loopback server with the token :data:`TOKEN` over the demo store, its data
    directory holding the demo questions; the token tests of the API, the jobs and the
    login page share it (jobs may run in it: none of them reads another's)."""
    from tests.service.jobs_support import job_data_dir

    data = job_data_dir(tmp_path_factory.mktemp("token-server") / "data")
    server = _launch(demo_store_path, data, TOKEN, "127.0.0.1", ())
    yield server
    server.stop()


@pytest.fixture
def api(demo_server: Server) -> Iterator[httpx.Client]:
    """An HTTP client for ``demo_server``."""
    with demo_server.client() as client:
        yield client


# -- the UI tests' (tests.service.ui_support) ---------------------------------------------

@pytest.fixture(scope="session")
def ui_server(tmp_path_factory: pytest.TempPathFactory, demo_data_dir: Path) -> Iterator[Server]:
    """The UI tests' server (:mod:`tests.service.ui_support`): its store built once per
    test run and copied (its jobs write into it), its data directory this worker's."""
    from tests.service.ui_support import build_ui_store, ui_data_dir

    shared = build_once(shared_root(tmp_path_factory, "service") / "ui-store", build_ui_store)
    root = tmp_path_factory.mktemp("ui-server")
    store = copy_tree(shared / "store", root / "store")
    server = _launch(str(store), ui_data_dir(root, demo_data_dir), None, "127.0.0.1", ())
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium, one per UI test module (each test opens a fresh context:
    :class:`tests.service.test_ui_browser.Page`). Not one per session: while Playwright's
    synchronous API is open, its event loop counts as running, and a later test's
    ``asyncio.run`` in the same process fails."""
    from playwright.sync_api import expect, sync_playwright

    from tests.service.ui_support import CHROMIUM, CHROMIUM_ARGS, STEP_TIMEOUT_MS

    # expect()'s own default is 5 s, apart from the page's: a CI run with two test
    # processes, the Neo4j tests and their server on two cores took longer than that for
    # a Cypher answer the page shows in 0.1 s on a quiet machine.
    expect.set_options(timeout=STEP_TIMEOUT_MS)

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the UI tests' screenshots go: ``$KGBENCH_TEST_ARTIFACTS/ui``, else a
    temporary folder."""
    where = os.environ.get("KGBENCH_TEST_ARTIFACTS")
    path = Path(where) / "ui" if where else tmp_path_factory.mktemp("ui-artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path
