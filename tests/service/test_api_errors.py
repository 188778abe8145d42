"""What the app answers when a route fails or runs too long, in-process on the real app
(the real store pool over the demo store): a bug is a fixed 500 line, never a
traceback; a read past the wall-clock bound is a 504 and its store handle is not lent
again until the read ends; a pool with every handle out answers 503."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from kgbench.service import ServiceSettings, create_app
from kgbench.service.deps import ReaderDep, StorePoolDep
from kgbench.service.errors import INTERNAL_ERROR
from kgbench.service.storepool import StorePool
from kgstore import Store


@pytest.fixture(scope="module")
def app(demo_store_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    settings = ServiceSettings(store=demo_store_path, data_dir=tmp_path_factory.mktemp("d"),
                               query_timeout_s=0.2, readers=2)
    application = create_app(settings)
    release = threading.Event()
    application.state.release = release

    @application.get("/test/bug")
    def bug() -> None:
        raise RuntimeError("secret internals /etc/passwd")

    @application.get("/test/slow")
    async def slow(reader: ReaderDep) -> dict[str, bool]:
        def wait(store: Store) -> bool:
            return release.wait(10)
        return {"done": await reader.run(wait)}

    @application.get("/test/idle")
    def idle(pool: StorePoolDep) -> dict[str, int]:
        return {"idle": pool.idle}

    yield application


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def test_a_bug_is_a_fixed_500_line(client: TestClient) -> None:
    reply = client.get("/test/bug")
    assert reply.status_code == 500
    assert reply.json() == {"error": {"status": 500, "message": INTERNAL_ERROR, "hint": None}}
    assert "secret" not in reply.text and "Traceback" not in reply.text


def test_a_read_past_the_bound_is_504_and_keeps_its_handle(client: TestClient,
                                                           app: FastAPI) -> None:
    release: threading.Event = app.state.release
    release.clear()
    started = time.monotonic()
    reply = client.get("/test/slow")
    assert reply.status_code == 504 and "time limit" in reply.json()["error"]["message"]
    assert time.monotonic() - started < 5
    assert client.get("/test/idle").json() == {"idle": 1}   # still lent to the slow read
    release.set()
    deadline = time.monotonic() + 5
    while client.get("/test/idle").json() != {"idle": 2} and time.monotonic() < deadline:
        time.sleep(0.02)
    assert client.get("/test/idle").json() == {"idle": 2}


def test_a_pool_with_every_handle_out_is_busy(demo_store_path: str, tmp_path: Path) -> None:
    from kgbench.service.errors import ApiError

    with StorePool(demo_store_path, 1, wait_s=0.05) as pool, pool.checkout():
        with pytest.raises(ApiError) as caught, pool.checkout():
            pass
        assert caught.value.status == 503 and "busy" in caught.value.message


def test_a_returned_handle_goes_to_the_thread_waiting_longest(demo_store_path: str) -> None:
    """The thread that returns a handle and asks again at once queues behind a thread
    already waiting (with a plain queue it took the handle back first, and under load
    waiters starved into 503s)."""
    order: list[str] = []
    with StorePool(demo_store_path, 1, wait_s=5) as pool:
        holding = pool.checkout()
        holding.__enter__()

        def waiter() -> None:
            with pool.checkout():
                order.append("waiter")

        thread = threading.Thread(target=waiter)
        thread.start()
        deadline = time.monotonic() + 5
        while not pool._waiters and time.monotonic() < deadline:
            time.sleep(0.005)
        holding.__exit__(None, None, None)
        with pool.checkout():
            order.append("returner")
        thread.join(5)
    assert order == ["waiter", "returner"]
