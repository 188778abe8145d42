"""bench/service_bench.py at tiny scale: a real ``kgbench serve`` subprocess, the load
from a second process, the same reads in-process, a record with both and their ratio."""

from __future__ import annotations

import json

import pytest

from tests.bench import load_bench
from tests.neo4j_server import URI, requires_neo4j, wipe

TINY = ["--entities", "1500", "--facts", "6000", "--ids", "100", "--seconds", "0.3",
        "--warmup", "0.1", "--repeats", "1", "--clients", "1,4"]


def _check_record(record: dict, out, backends: list[str]) -> None:
    lines = (out / "service_bench.jsonl").read_text().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == json.loads(json.dumps(record, sort_keys=True))
    assert record["params"]["backends"] == backends
    assert record["machine"]["cores"] and "loadavg_1m_start" in record["cpu"]
    for backend in backends:
        b = record["backends"][backend]
        # The server and the in-process calls read the same KG.
        assert b["same_answers"] == {"entity": "20/20", "neighborhood_2hop": "20/20"}
        assert set(b["results"]) == {"entity", "neighborhood_2hop"}
        for op, by_clients in b["results"].items():
            assert set(by_clients) == {"1", "4"}
            for clients, cell in by_clients.items():
                for mode in ("http", "inproc", "floor", "fastapi_floor"):
                    m = cell[mode]
                    assert m["errors"] == 0, (backend, op, clients, mode, cell["runs"])
                    assert m["rps"] > 0 and 0 < m["p50_ms"] <= m["p99_ms"]
                    assert m["cpu_us_per_request"] > 0
                assert cell["overhead_p50"] > 0 and cell["overhead_rps"] > 0
                # The bare server answered with the route's answer for the last id.
                assert cell["floor_body_bytes"] > 100
                assert cell["runs"]["floor"][0]["statuses"] == \
                    {"200": cell["runs"]["floor"][0]["requests"]}
                assert cell["http_vs_inproc"] == pytest.approx(
                    cell["http"]["rps"] / cell["inproc"]["rps"], abs=1e-3)
                assert cell["runs"]["fastapi_floor"][0]["statuses"] == \
                    {"200": cell["runs"]["fastapi_floor"][0]["requests"]}
                if clients == "1":
                    assert 0 < cell["ceiling"] < 1 and 0 < cell["fastapi_ceiling"] < 1
                else:
                    assert cell["ceiling"] is None and cell["fastapi_ceiling"] is None
                run = cell["runs"]["http"][0]
                assert run["statuses"] == {"200": run["requests"]}
                assert run["client_cpu_s"] > 0
                assert run["loop"] == record["params"]["client_loop"] == "uvloop"
                per_request = run["cpu_us_per_request"]
                assert per_request["server"] > 0 and per_request["client"] > 0
                assert per_request["total"] == pytest.approx(
                    per_request["server"] + per_request["client"], abs=0.2)


@pytest.mark.slow
def test_service_bench_measures_http_and_in_process_on_the_embedded_store(tmp_path):
    bench = load_bench("service_bench")
    out = tmp_path / "out"
    record = bench.main([*TINY, "--backends", "embedded", "--out", str(out),
                         "--work", str(tmp_path / "work")])
    _check_record(record, out, ["embedded"])


@requires_neo4j
@pytest.mark.neo4j
@pytest.mark.slow
def test_service_bench_measures_the_neo4j_backend_too(tmp_path):
    wipe()
    bench = load_bench("service_bench")
    out = tmp_path / "out"
    record = bench.main([*TINY, "--backends", "neo4j", "--neo4j-uri", URI, "--out", str(out),
                         "--work", str(tmp_path / "work")])
    assert record["neo4j_load"]["reused"] is False
    _check_record(record, out, ["neo4j"])


def test_the_ceiling_is_the_in_process_time_over_it_plus_the_transport_round_trip():
    bench = load_bench("service_bench")
    # 200 us of store calls and a 100 us round trip: at most 2/3 of the in-process rate
    assert bench.ceiling(5000.0, 10_000.0) == pytest.approx(0.667, abs=1e-3)
    assert bench.ceiling(5000.0, 0.0) is None


def test_the_bare_server_answers_any_request_with_its_body():
    import asyncio

    app = load_bench("bare_server").bare_app(b'{"a": 1}')
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app({"type": "http", "method": "GET", "path": "/api/entity"}, None, send))
    assert sent[0]["status"] == 200 and (b"content-length", b"8") in sent[0]["headers"]
    assert sent[1]["body"] == b'{"a": 1}'


def test_the_fastapi_floor_answers_a_get_with_its_body():
    from fastapi.testclient import TestClient

    app = load_bench("bare_server").fastapi_app(b'{"a": 1}')
    with TestClient(app) as client:
        answer = client.get("/api/neighborhood", params={"id": "m.1", "hops": 2})
    assert answer.status_code == 200 and answer.content == b'{"a": 1}'


def test_every_client_sends_every_id_from_its_own_start():
    load = load_bench("service_load")
    ids = [f"m.{i}" for i in range(10)]
    starts = [load.client_ids(ids, c, 4, 3)[0] for c in range(4)]
    assert starts == ["m.3", "m.5", "m.8", "m.0"]
    assert all(sorted(load.client_ids(ids, c, 4, 3)) == sorted(ids) for c in range(4))


def test_bad_options_are_one_usage_error():
    bench = load_bench("service_bench")
    for argv in (["--backends", "mysql"], ["--clients", "0"], ["--ops", "cypher"]):
        with pytest.raises(SystemExit) as exc:
            bench.parse_args(argv)
        assert exc.value.code == 2


def test_a_keep_alive_connection_the_server_closed_is_reopened_once():
    """uvicorn closes a connection idle for 5 s (between the warm-up and the timed
    part, while the slowest client finishes): the next GET goes on a new connection
    instead of counting as an error. A peer that answers one request per connection
    and then closes it silently shows it without waiting 5 s."""
    import asyncio

    load = load_bench("service_load")
    accepted = []

    async def one_answer(reader, writer):
        accepted.append(1)
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    async def main():
        server = await asyncio.start_server(one_answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        conn = load.HttpConnection("127.0.0.1", port)
        try:
            first = await conn.get("/a")
            await asyncio.sleep(0.05)   # the peer has closed it by now
            second = await conn.get("/b")
        finally:
            await conn.close()
            server.close()
            await server.wait_closed()
        return first, second

    assert asyncio.run(main()) == ((200, b"ok"), (200, b"ok"))
    assert len(accepted) == 2
