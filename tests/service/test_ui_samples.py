"""The benchmark browser's API (``/api/benchmarks``, ``/api/benchmarks/table``,
``/api/samples``, ``/api/sample``) and the UI's pages, against a real ``kgbench serve``
over the demo store and the demo benchmark: filters, paging, search, one sample's graph
with its edit highlighted, the CAQA table, hostile ``bench=`` names (``..``, absolute,
encoded dots, symlinks out of ``--data``), and the pages' security properties (CSP, no
inline script, no HTML insertion of data in the scripts)."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from extension.outputs.caqa_table5 import compare_with_caqa, counts_of_stats
from extension.outputs.sample_schema import BenchmarkSample
from kgbench.service.graphjson import edge_id
from kgbench.service.samples import CONTEXT_MAX
from kgbench.service.security import CONTENT_SECURITY_POLICY
from kgbench.service.ui import STATIC_DIR
from tests.kgbench.test_cli import run
from tests.service.conftest import Server
from tests.service.ui_support import BENCH, BROKEN, LINKED_DIR, LINKED_FILE


@pytest.fixture
def api(ui_server: Server) -> Iterator[httpx.Client]:
    """A client of the UI tests' server (this module's ``api``, not ``demo_server``'s:
    its data directory also holds benchmarks that link out of it)."""
    with ui_server.client() as client:
        yield client


@pytest.fixture(scope="module")
def demo_samples(demo_data_dir: Path) -> list[BenchmarkSample]:
    lines = (demo_data_dir / BENCH / "samples.jsonl").read_bytes().splitlines()
    return [BenchmarkSample.model_validate_json(line) for line in lines if line.strip()]


def assert_error(response: httpx.Response, status: int) -> str:
    """The response is the JSON error shape with ``status``; its message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    message: str = body["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in response.text
    return message


def test_lists_the_demo_benchmark(api: httpx.Client, demo_data_dir: Path) -> None:
    stats = json.loads((demo_data_dir / BENCH / "stats.json").read_text())
    found = [b for b in api.get("/api/benchmarks").json()["benchmarks"] if b["name"] == BENCH]
    assert len(found) == 1
    assert found[0]["samples"] == stats["samples"]
    assert found[0]["source"] == stats["source"]["file"]


def test_filters_and_pages(api: httpx.Client, demo_samples: list[BenchmarkSample]) -> None:
    everything = api.get("/api/samples", params={"bench": BENCH, "limit": 500}).json()
    assert everything["total"] == len(demo_samples)
    assert [s["id"] for s in everything["samples"]] == [s.id for s in demo_samples]
    pages: list[str] = []
    for offset in range(0, len(demo_samples), 7):
        page = api.get("/api/samples", params={"bench": BENCH, "offset": offset,
                                               "limit": 7}).json()
        assert page["offset"] == offset and page["limit"] == 7
        pages += [s["id"] for s in page["samples"]]
    assert pages == [s.id for s in demo_samples]
    got = api.get("/api/samples", params={"bench": BENCH, "label": "partially_supportive",
                                          "complexity": "intersection", "split": "train"}).json()
    want = [s.id for s in demo_samples if (s.label, s.complexity, s.split)
            == ("partially_supportive", "intersection", "train")]
    assert got["total"] == len(want) > 0 and [s["id"] for s in got["samples"]] == want
    first = got["samples"][0]
    assert set(first) == {"id", "label", "complexity", "split", "question", "answer", "edit"}


def test_text_search_looks_in_citations(api: httpx.Client,
                                        demo_samples: list[BenchmarkSample]) -> None:
    target = next(s for s in demo_samples if s.citations[-1].text not in s.question + s.answer)
    phrase = target.citations[-1].text[:30].upper()
    got = api.get("/api/samples", params={"bench": BENCH, "q": phrase}).json()
    assert target.id in [s["id"] for s in got["samples"]]
    assert api.get("/api/samples", params={"bench": BENCH, "q": "zzqx nothing"}).json()[
        "total"] == 0


@pytest.mark.parametrize("params, field", [
    ({"label": "supported"}, "label"), ({"complexity": "hard"}, "complexity"),
    ({"split": "dev"}, "split"), ({"offset": -1}, "offset"), ({"limit": 0}, "limit"),
    ({"limit": 501}, "limit"), ({"q": "x" * 201}, "q")])
def test_bad_filters_are_a_422_naming_the_field(api: httpx.Client, params: dict[str, Any],
                                                field: str) -> None:
    message = assert_error(api.get("/api/samples", params={"bench": BENCH, **params}), 422)
    assert field in message


def test_a_sample_with_its_edit_highlighted(api: httpx.Client,
                                            demo_samples: list[BenchmarkSample]) -> None:
    partial = next(s for s in demo_samples if s.edit.kind == "delete_path")
    doc = api.get("/api/sample", params={"bench": BENCH, "id": partial.id}).json()
    assert BenchmarkSample.model_validate(doc["sample"]) == partial   # the whole sample
    deleted = {edge_id(t.fact()) for t in partial.edit.deleted}
    assert set(doc["removed"]) == deleted and doc["added"] == []
    edges = {e["id"]: e for e in doc["graph"]["edges"]}
    assert {e for e, edge in edges.items() if edge["highlight"]} == deleted
    assert {edge_id(t.fact()) for t in partial.subgraph} <= edges.keys()
    contradictory = next(s for s in demo_samples if s.edit.kind == "replace_answer")
    doc = api.get("/api/sample", params={"bench": BENCH, "id": contradictory.id}).json()
    assert doc["added"] and doc["removed"]
    highlighted = {e["id"] for e in doc["graph"]["edges"] if e["highlight"]}
    assert highlighted == set(doc["added"]) | set(doc["removed"])
    kinds = {n["id"]: n["kind"] for n in doc["graph"]["nodes"]}
    assert all(kinds[c] == "cvt" for c in contradictory.cvt_nodes if c in kinds)


def test_a_small_sample_gets_store_context(api: httpx.Client,
                                           demo_samples: list[BenchmarkSample]) -> None:
    small = next(s for s in demo_samples if s.edit.kind == "none" and len(s.subgraph) <= 2)
    doc = api.get("/api/sample", params={"bench": BENCH, "id": small.id}).json()
    assert doc["context"], "a two-fact sample is drawn with the facts around it"
    edges = {e["id"]: e for e in doc["graph"]["edges"]}
    assert not any(edges[c]["highlight"] for c in doc["context"])
    assert len(doc["context"]) <= CONTEXT_MAX
    assert {edge_id(t.fact()) for t in small.subgraph}.isdisjoint(doc["context"])


def test_unknown_sample_or_benchmark(api: httpx.Client) -> None:
    assert "no sample" in assert_error(
        api.get("/api/sample", params={"bench": BENCH, "id": "nope:supportive"}), 404)
    assert_error(api.get("/api/samples", params={"bench": "benchmarks/none"}), 404)
    assert "not a benchmark" in assert_error(
        api.get("/api/samples", params={"bench": "benchmarks"}), 404)
    assert_error(api.get("/api/samples"), 422)                  # bench is required


def test_a_damaged_samples_file_is_a_409(api: httpx.Client) -> None:
    for path in ("/api/samples", "/api/benchmarks/table", "/api/sample"):
        message = assert_error(api.get(path, params={"bench": BROKEN, "id": "x"}), 409)
        assert message.startswith(f"{BROKEN}: cannot read its samples")


def test_the_table_beside_caqa(api: httpx.Client, demo_data_dir: Path) -> None:
    stats = json.loads((demo_data_dir / BENCH / "stats.json").read_text())
    doc = api.get("/api/benchmarks/table", params={"bench": BENCH}).json()
    assert doc["by_split"] == stats["by_split"]
    assert doc["caqa"] == compare_with_caqa(counts_of_stats(stats)).to_json()
    assert doc["total"] == stats["samples"]
    assert set(doc) == {"bench", "total", "labels", "complexities", "splits", "by_split", "caqa"}
    # OpenAPI describes the answer (what the UI's table reads), not an untyped object
    schema = api.get("/api/openapi.json").json()
    answer = schema["paths"]["/api/benchmarks/table"]["get"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/BenchmarkTable"}
    described = schema["components"]["schemas"]
    assert set(described["BenchmarkTable"]["required"]) == set(doc)
    assert set(described["CaqaComparison"]["required"]) == set(doc["caqa"])


ESCAPES = ["../", "..", "../../etc", "/etc", "/tmp", "%2e%2e", "%2e%2e/%2e%2e/etc",
           "benchmarks/%2e%2e/%2e%2e", "%252e%252e", "..%2fetc", "benchmarks\\..\\..",
           "benchmarks/demo/../../..", "~", "a\x00b", "C:/Windows"]


@pytest.mark.parametrize("bench", ESCAPES)
def test_bench_names_cannot_leave_data(api: httpx.Client, bench: str) -> None:
    for path in ("/api/samples", "/api/benchmarks/table", "/api/sample", "/api/benchmarks/export"):
        response = api.get(path, params={"bench": bench, "id": "x", "to": "caqa"})
        assert 400 <= response.status_code < 500, (path, bench, response.text)
        assert_error(response, response.status_code)


@pytest.mark.parametrize("fmt,split", [("caqa", "all"), ("attrscore", "test"),
                                       ("alce", "train"), ("jsonl", "all")])
def test_export_downloads_what_kgbench_export_writes(api: httpx.Client, demo_data_dir: Path,
                                                     tmp_path: Path, fmt: str, split: str) -> None:
    # Issue 38's journey (generate in the UI, then export, then evaluate) had no export
    # in the UI: the download is the CLI's file, byte for byte.
    response = api.get("/api/benchmarks/export", params={"bench": BENCH, "to": fmt,
                                                         "split": split})
    assert response.status_code == 200, response.text
    suffix = {"caqa": "csv", "attrscore": "csv", "alce": "json", "jsonl": "jsonl"}[fmt]
    name = f"benchmarks-demo-{fmt}{'' if split == 'all' else f'-{split}'}.{suffix}"
    assert response.headers["content-disposition"] == f'attachment; filename="{name}"'
    cli_out = tmp_path / f"cli.{suffix}"
    proc = run("export", demo_data_dir / BENCH, "--to", fmt, "--split", split, "--out", cli_out)
    assert proc.returncode == 0, proc.stderr
    assert response.content == cli_out.read_bytes()


def test_export_of_a_gzipped_benchmark(api: httpx.Client, ui_server: Server) -> None:
    packed = ui_server.data_dir / "gzipped-export"
    packed.mkdir(exist_ok=True)
    plain = ui_server.data_dir / BENCH
    shutil.copy(plain / "stats.json", packed / "stats.json")
    (packed / "samples.jsonl.gz").write_bytes(gzip.compress((plain / "samples.jsonl").read_bytes()))
    exported = [api.get("/api/benchmarks/export", params={"bench": bench, "to": "jsonl"})
                for bench in (BENCH, packed.name)]
    assert [r.status_code for r in exported] == [200, 200]
    assert exported[0].content == exported[1].content
    assert not list(packed.glob("*.jsonl"))   # unpacked elsewhere, not beside it


def test_export_refuses_what_it_cannot_read(api: httpx.Client) -> None:
    message = assert_error(api.get("/api/benchmarks/export", params={"bench": BROKEN,
                                                                     "to": "caqa"}), 409)
    assert message.startswith(f"{BROKEN}: cannot read its samples")
    assert_error(api.get("/api/benchmarks/export", params={"bench": BENCH, "to": "html"}), 422)
    assert_error(api.get("/api/benchmarks/export", params={"bench": BENCH, "to": "caqa",
                                                           "split": "dev"}), 422)


def test_symlinks_out_of_data_are_not_listed_or_read(api: httpx.Client) -> None:
    names = [b["name"] for b in api.get("/api/benchmarks").json()["benchmarks"]]
    assert BENCH in names and LINKED_DIR not in names and LINKED_FILE not in names
    for bench in (LINKED_DIR, LINKED_FILE, f"{LINKED_DIR}/../{BENCH}"):
        for path in ("/api/samples", "/api/benchmarks/table", "/api/sample",
                     "/api/benchmarks/export"):
            message = assert_error(api.get(path, params={"bench": bench, "id": "x",
                                                         "to": "caqa"}), 400)
            assert "outside" in message or ".." in message


def test_pages_are_served_with_a_strict_policy_and_no_inline_script(api: httpx.Client) -> None:
    for page in ("/", "/login", "/api/docs"):
        response = api.get(page)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        html = response.text
        # every asset from this server (the API docs too: no CDN on an offline machine)
        assert not re.search(r'(?:src|href)="(?:[a-z]+:)?//', html, re.I), page
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
        assert scripts and all('src="/static/' in attrs and not body.strip()
                               for attrs, body in scripts)
        assert not re.search(r"\son[a-z]+\s*=", html)               # no inline handlers
        assert "<style" not in html and " style=" not in html
        for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
            asset = api.get(src)
            assert asset.status_code == 200, src
    js = api.get("/static/js/main.js")
    assert js.headers["content-type"].startswith("text/javascript")
    vendor = api.get("/static/vendor/cytoscape/cytoscape.esm.min.js")
    assert vendor.status_code == 200 and b"3.35.0" in vendor.content
    swagger = api.get("/static/vendor/swagger-ui/swagger-ui-bundle.js")
    assert swagger.status_code == 200 and swagger.headers["content-type"].startswith(
        "text/javascript")
    assert_error(api.get("/static/../ui.py"), 404)
    assert_error(api.get("/static/nope.js"), 404)


def test_no_script_inserts_html() -> None:
    # Data from the API enters the page as text only; a script that builds markup from
    # strings would be the way an entity named "<img onerror=...>" ran.
    scripts = sorted((STATIC_DIR / "js").glob("*.js"))
    assert scripts
    for script in scripts:
        text = script.read_text("utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                     "eval(", "new Function"):
            assert sink not in text, f"{script.name} uses {sink}"
