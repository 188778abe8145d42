"""The read answers the routes encode themselves (:mod:`kgbench.service.jsonbody`): the
same JSON their response models would dump, the records written as ``--json`` writes
them, and no hop through FastAPI's thread pool before the store read."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from kgbench.service import create_app
from kgbench.service.jsonbody import encode
from kgbench.service.models import (
    EntityPage,
    FactPage,
    LookupResult,
    NeighborhoodResult,
    PathsResult,
    PredicateList,
    SearchResult,
    StatsModel,
)
from kgbench.service.settings import ServiceSettings
from kgstore import Entity, Fact, Literal, Subgraph
from kgstore.models import json_ready

TITANIC = "m.0kgb0gs"
SPIELBERG = "m.0kgb086"
SCHOOL = "m.0kgb06p"

READS: list[tuple[str, dict[str, Any], type[BaseModel]]] = [
    ("/api/stats", {"top": 5}, StatsModel),
    ("/api/predicates", {"limit": 7}, PredicateList),
    ("/api/search", {"prefix": "ti"}, SearchResult),
    ("/api/entity", {"id": SPIELBERG, "limit": 1000}, EntityPage),
    ("/api/lookup", {"q": "titanic"}, LookupResult),
    ("/api/facts", {"id": TITANIC, "direction": "out"}, FactPage),
    ("/api/neighborhood", {"id": TITANIC, "hops": 2}, NeighborhoodResult),
    ("/api/paths", {"source": SPIELBERG, "target": SCHOOL}, PathsResult),
]


@pytest.mark.parametrize(("path", "params", "model"), READS,
                         ids=[path for path, _, _ in READS])
def test_a_read_answer_is_what_its_response_model_dumps(
        api: httpx.Client, path: str, params: dict[str, Any], model: type[BaseModel]) -> None:
    reply = api.get(path, params=params)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "application/json"
    body = reply.json()
    # What FastAPI sent when these routes returned dicts: validated, then dumped with
    # the fields the records give (SAME_AS_CLI).
    assert model.model_validate_json(reply.content).model_dump(
        mode="json", exclude_unset=True) == body


def test_literals_keep_the_command_line_shape(api: httpx.Client) -> None:
    facts = api.get("/api/facts", params={"id": TITANIC, "limit": 1000}).json()["facts"]
    literals = [f["object"] for f in facts if isinstance(f["object"], dict)]
    assert literals and all(set(o) <= {"value", "datatype", "lang"} for o in literals)
    assert all(None not in o.values() for o in literals)   # no "lang": null


@pytest.fixture
def app_client(demo_store_path: str, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(ServiceSettings(store=demo_store_path, data_dir=tmp_path,
                                     cypher_workers=1))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def test_a_read_takes_no_thread_pool_hop_besides_its_store_read(
        app_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """FastAPI runs a plain-function dependency in its thread pool: a thread hop per
    request, which on a busy machine waits for a core. The reads' dependencies are
    coroutines; the store read itself runs on the pool's own threads."""
    import fastapi.dependencies.utils as fastapi_deps

    hops: list[str] = []
    real = fastapi_deps.run_in_threadpool

    async def counted(func: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(func, "__qualname__", repr(func)))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(fastapi_deps, "run_in_threadpool", counted)
    for path, params, _ in READS:
        assert app_client.get(path, params=params).status_code == 200
    assert hops == []


def test_encode_writes_records_as_json_ready_does() -> None:
    doc = {
        "entity": Entity("m.1", "One", aliases=("Uno",), types=("t.a",)),
        "facts": [Fact("m.1", "p.lit", Literal("1997", "xsd:gYear")),
                  Fact("m.1", "p.lang", Literal("Titanic", lang="en")),
                  Fact("m.1", "p.plain", Literal("x")), Fact("m.1", "p.ent", "m.2")],
        "sub": Subgraph(entities={"m.2": Entity("m.2", None, is_cvt=True)},
                        hops={"m.2": 1}, truncated=True),
        "numbers": [1, 2.5, math.nan, math.inf, True, None],
        "when": dt.date(2020, 1, 2), "tuple": ("a", "b"),
    }
    assert json.loads(encode(doc)) == json_ready(doc)
    assert json.loads(encode(doc))["facts"][2]["object"] == {"value": "x"}


def test_a_string_that_is_not_unicode_is_escaped_not_an_error() -> None:
    doc = {"entity": Entity("m.\ud800", "bad \udfff name")}
    text = encode(doc).decode("ascii")
    assert json.loads(text) == json_ready(doc)
