"""A served store that ``kgbench load`` changes: the running server answers from the new
contents (issue 38: it kept serving what the store held when it started, so a new
entity was missing from ``/api/search`` and ``/api/stats`` showed one source fewer
than ``kgbench stats``). A real server, real loads through the command line, on both
backends."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests import neo4j_server
from tests.service.conftest import ROOT, StartServer, server_env

FIRST = "/m/01\t/film/film/directed_by\t/m/02\n/m/03\t/people/person/nationality\t/m/04\n"
FIRST_NAMES = "/m/01\tAlpha Film\n/m/02\tDana Director\n/m/03\tSam Star\n/m/04\tFreedonia\n"
SECOND = "/m/05\t/film/film/directed_by\t/m/02\n"
SECOND_NAMES = "/m/05\tZebra Crossing Story\n"
WAIT_S = 10.0


def load(store: str, directory: Path, facts: str, names: str, tag: str) -> None:
    (directory / f"{tag}.tsv").write_text(facts, encoding="utf-8")
    (directory / f"{tag}-names.tsv").write_text(names, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "kgbench.cli", "load", "triples", str(directory / f"{tag}.tsv"),
         "--names", str(directory / f"{tag}-names.tsv"), "--store", store],
        capture_output=True, text=True, env=server_env(), cwd=str(ROOT), timeout=300)
    assert proc.returncode == 0, proc.stderr


def search_ids(client: httpx.Client, text: str) -> list[str]:
    answer = client.get("/api/search", params={"q": text})
    assert answer.status_code == 200, answer.text
    return [e["id"] for e in answer.json()["entities"]]


def cypher_names(client: httpx.Client) -> list[str]:
    answer = client.post("/api/cypher", json={
        "query": "MATCH (e:Entity) WHERE e.name IS NOT NULL RETURN e.name AS name "
                 "ORDER BY name"})
    assert answer.status_code == 200, answer.text
    return [row[0] for row in answer.json()["rows"]]


def check_reload(store: str, tmp_path: Path, start_server: StartServer) -> None:
    load(store, tmp_path, FIRST, FIRST_NAMES, "first")
    data = tmp_path / "data"
    data.mkdir()
    server = start_server(store, data)
    with server.client() as client:
        assert search_ids(client, "zebra") == []
        assert len(client.get("/api/stats").json()["sources"]) == 2
        assert "Zebra Crossing Story" not in cypher_names(client)

        load(store, tmp_path, SECOND, SECOND_NAMES, "second")

        deadline = time.monotonic() + WAIT_S
        while search_ids(client, "zebra") != ["m.05"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert search_ids(client, "zebra") == ["m.05"]
        assert search_ids(client, "crossing sto") == ["m.05"]
        stats = client.get("/api/stats").json()
        assert len(stats["sources"]) == 4 and stats["facts"] == 3
        page = client.get("/api/entity", params={"id": "m.02"}).json()
        assert {f["subject"] for f in page["facts_in"]} == {"m.01", "m.05"}
        assert "Zebra Crossing Story" in cypher_names(client)   # the Cypher workers too
    assert "reopened its" in server.log()


@pytest.mark.slow
def test_server_serves_what_a_load_added(tmp_path: Path, start_server: StartServer) -> None:
    check_reload(str(tmp_path / "store"), tmp_path, start_server)


@pytest.mark.neo4j
def test_neo4j_server_serves_what_a_load_added(tmp_path: Path, start_server: StartServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if not neo4j_server.URI:
        pytest.skip(neo4j_server.SKIP_REASON)
    neo4j_server.wipe()
    monkeypatch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path / "neo4j-work"))
    check_reload(neo4j_server.URI, tmp_path, start_server)
