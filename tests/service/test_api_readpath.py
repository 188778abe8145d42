"""The read routes' short way past FastAPI's routing (:mod:`kgbench.service.readpath`):
which routes take it, that they do, and that every answer, errors included, is the one
FastAPI gives for the same request."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kgbench.service import create_app, deps, reads
from kgbench.service.readpath import direct_routes
from kgbench.service.settings import ServiceSettings
from tests.service.test_api_json import READS, SCHOOL, SPIELBERG, TITANIC


@pytest.fixture(scope="module")
def app_client(demo_store_path: str, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[TestClient]:
    app = create_app(ServiceSettings(store=demo_store_path,
                                     data_dir=tmp_path_factory.mktemp("readpath"),
                                     cypher_workers=1))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def test_the_get_reads_that_answer_json_bodies_take_the_short_way() -> None:
    assert sorted(direct_routes(reads.router.routes)) == sorted(
        ["/api/stats", "/api/predicates", "/api/search", "/api/entity", "/api/lookup",
         "/api/facts", "/api/neighborhood", "/api/paths"])


def test_a_read_skips_fastapi_routing_and_dependency_solving(
        app_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """FastAPI's per-request work around a route cost the event loop more than an
    entity page's own work; the reads go around it, the other routes still through."""
    import fastapi.routing

    solved: list[str] = []
    real = fastapi.routing.solve_dependencies

    async def counted(*args: Any, **kwargs: Any) -> Any:
        solved.append(kwargs["request"].url.path)
        return await real(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    for path, params, _ in READS:
        assert app_client.get(path, params=params).status_code == 200
    assert solved == []
    assert app_client.get("/api/health").status_code == 200
    assert solved == ["/api/health"]


# Requests whose answers the two ways must agree on: answers, the route's own errors
# (404, 400 ambiguous, 422 raised by the route), queries FastAPI refuses (422 in its
# words), and queries at the edges of what its validation accepts.
SAME_ANSWERS: list[tuple[str, dict[str, Any] | list[tuple[str, str]]]] = [
    *((path, params) for path, params, _ in READS),
    ("/api/entity", {"id": TITANIC}),
    ("/api/entity", {"id": "m.nothing-here"}),
    ("/api/entity", {"id": TITANIC, "limit": "0"}),
    ("/api/entity", {"id": TITANIC, "limit": "1001"}),
    ("/api/entity", {"id": TITANIC, "limit": " 7"}),
    ("/api/entity", {"id": TITANIC, "limit": "+3"}),
    ("/api/entity", {"id": TITANIC, "limit": "2.0"}),
    ("/api/entity", {"id": TITANIC, "limit": "two"}),
    ("/api/entity", {"id": ""}),
    ("/api/entity", {"limit": "3"}),
    ("/api/entity", {"id": "x" * 2049}),
    ("/api/entity", [("id", "m.nothing-here"), ("id", TITANIC), ("limit", "2")]),
    ("/api/entity", {"id": TITANIC, "unknown": "ignored"}),
    ("/api/entity", {"id": "Ti\u0000tanic \U0001f600"}),
    ("/api/search", {"q": "titanic", "limit": "3"}),
    ("/api/search", {}),
    ("/api/search", {"q": ""}),
    ("/api/lookup", {"q": "no such thing anywhere"}),
    ("/api/facts", {"id": TITANIC, "direction": "in", "predicate": "film"}),
    ("/api/facts", {"id": TITANIC, "direction": "sideways"}),
    ("/api/facts", {"id": TITANIC, "match": "exact", "predicate": "film", "offset": "1"}),
    ("/api/neighborhood", {"id": "Titanic", "hops": "1"}),
    ("/api/neighborhood", {"id": TITANIC, "hops": "4"}),
    ("/api/neighborhood", {"id": TITANIC, "hops": "true"}),
    ("/api/paths", [("source", SPIELBERG), ("target", SCHOOL),
                    ("exclude_predicate", "film.*"), ("exclude_predicate", "common.*")]),
    ("/api/paths", {"source": SPIELBERG}),
    ("/api/stats", {"top": "-1"}),
]


def test_the_short_way_answers_as_fastapi_does(app_client: TestClient) -> None:
    """Each request twice: the short way, then through FastAPI (which a dependency
    override forces: an overridden dependency must be honoured, so the short way steps
    aside); status, headers and body bytes alike."""
    app = app_client.app
    assert not app.dependency_overrides   # type: ignore[attr-defined]
    short = [app_client.get(path, params=params) for path, params in SAME_ANSWERS]
    app.dependency_overrides[deps.reader] = deps.reader   # type: ignore[attr-defined]
    try:
        full = [app_client.get(path, params=params) for path, params in SAME_ANSWERS]
    finally:
        app.dependency_overrides.clear()   # type: ignore[attr-defined]
    statuses = {reply.status_code for reply in short}
    assert {200, 400, 404, 422} <= statuses
    for (path, params), a, b in zip(SAME_ANSWERS, short, full, strict=True):
        assert (a.status_code, a.headers.multi_items(), a.content) == \
            (b.status_code, b.headers.multi_items(), b.content), (path, params)


def test_a_route_that_is_not_a_plain_json_read_is_left_to_fastapi() -> None:
    from fastapi import APIRouter

    router = APIRouter()

    @router.get("/plain")
    async def plain(reader: deps.ReaderDep) -> dict[str, Any]:   # no JsonBody: a model
        return {}

    @router.get("/thing/{name}")
    async def named(reader: deps.ReaderDep, name: str) -> reads.JsonBody:
        raise AssertionError

    @router.get("/settings")
    async def with_settings(reader: deps.ReaderDep, conf: deps.SettingsDep) -> reads.JsonBody:
        raise AssertionError

    @router.get("/sync")
    def sync(reader: deps.ReaderDep) -> reads.JsonBody:
        raise AssertionError

    @router.get("/fine")
    async def fine(reader: deps.ReaderDep, q: str = "x") -> reads.JsonBody:
        raise AssertionError

    assert list(direct_routes(router.routes)) == ["/fine"]


def test_the_query_model_is_the_routes_declaration(tmp_path: Path) -> None:
    route = direct_routes(reads.router.routes)["/api/paths"]
    assert route.query_values(b"source=a&target=b&exclude_predicate=x&exclude_predicate=y"
                              b"&limit=5&limit=6&other=1") == {
        "source": "a", "target": "b", "max_length": 3, "limit": 6,
        "exclude_predicate": ["x", "y"]}
    assert route.query_values(b"source=a&target=b")["exclude_predicate"] == []
    assert route.query_values(b"source=a&target=b&max_length=4") is None   # le=3
    assert route.query_values(b"target=b") is None
