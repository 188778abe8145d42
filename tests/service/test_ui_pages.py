"""Pages of the web UI in headless Chromium at 1024 and 1366 px (issue 38): the Cypher
page's examples come from the served store and its node results are drawn and linked;
a benchmark's report opens from the Benchmarks page and fits the window, long
failure reasons included; "Log in" is not offered on a loopback server without a
token; the entity page's predicate filter matches part of a name in any case.
Screenshots go to ``$KGBENCH_TEST_ARTIFACTS/ui`` (see :mod:`tests.service.test_ui_browser`)."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Route, expect

from tests.service import test_ui_jobs_page
from tests.service.test_ui_browser import CHROMIUM, Page
from tests.service.test_ui_jobs_page import page_fits
from tests.service.ui_support import BENCH, COPPOLA

ui = test_ui_jobs_page.ui   # a fresh page at 1024 and at 1366 px

TITANIC = "m.0kgb0gs"
LONG_REPORT = "benchmarks/long-reasons"
"""A benchmark whose report has failure reasons with ids of hundreds of characters."""

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")


def test_cypher_examples_are_the_stores_and_nodes_are_drawn_and_linked(ui: Page) -> None:
    page = ui.open("#/cypher")
    examples = page.locator("#cypher-examples button")
    expect(examples.first).to_be_visible()
    served = page.request.get(f"{ui.server.url}/api/cypher/examples").json()["examples"]
    assert examples.all_inner_texts() == [e["title"] for e in served]   # this store's
    assert len(served) == 5
    query = page.get_by_label("Cypher (read-only: MATCH … RETURN)")
    expect(query).to_have_value(re.compile(r"RETURN a, r, b"))   # the first example
    page.get_by_role("button", name=re.compile(r"^The facts around .*, drawn as a graph$")).click()
    expect(page.locator("#cypher-summary")).to_contain_text("rows")
    panel = page.locator("#cypher-graph .graph-panel")
    expect(panel).to_have_attribute("data-edges", re.compile(r"^[1-9]\d*$"))
    assert page.locator("#cypher-result th").all_inner_texts() == ["e", "r", "x"]
    body = page.locator("#cypher-result tbody")
    assert "null" not in body.inner_text() and "_LABEL" not in body.inner_text()
    first = body.locator("tr").first
    entity = first.locator("td").first.get_by_role("link")
    expect(entity).to_have_attribute("href", re.compile(r"^#/entity\?id=m\.\w+$"))
    expect(first.locator("td.pred")).to_have_text(re.compile(r"^(—\S+→|←\S+—)$"))
    page_fits(page)
    ui.shot(f"30-cypher-graph-{ui.width}.png")
    entity.click()
    expect(page.locator("#entity-name")).not_to_be_empty()


def test_cypher_answers_the_demo_query_with_links_and_no_borrowed_columns(ui: Page) -> None:
    page = ui.open("#/cypher")
    query = page.get_by_label("Cypher (read-only: MATCH … RETURN)")
    query.fill(f"MATCH (a:Entity)-[f:Fact]->(b) WHERE a.id = '{COPPOLA}' RETURN a, f, b LIMIT 8")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#cypher-result tbody tr")).to_have_count(8)
    assert page.locator("#cypher-result th").all_inner_texts() == ["a", "f", "b"]
    expect(page.locator("#cypher-result tbody a[href^='#/entity?id=']").first).to_be_visible()
    expect(page.locator("#cypher-graph .graph-panel")).to_have_attribute(
        "data-edges", re.compile(r"^[1-9]"))
    ui.shot(f"31-cypher-demo-query-{ui.width}.png")


def test_the_examples_arriving_late_do_not_move_the_run_button(ui: Page) -> None:
    # A CI run clicked "Run" just as the examples arrived above the form: the button
    # moved 31 px down under the click, and no query ran.
    held: list[Route] = []
    ui.page.route("**/api/cypher/examples", lambda route: held.append(route))
    page = ui.open("#/cypher")
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_visible()
    before = run.bounding_box()
    while not held:   # the page asked for them
        page.wait_for_timeout(20)
    assert page.locator("#cypher-examples button").count() == 0
    held[0].continue_()
    expect(page.locator("#cypher-examples button").first).to_be_visible()
    assert run.bounding_box() == before


def _long_report(data_dir: Path) -> None:
    """The demo benchmark with a report whose failures name ids of 300 characters."""
    from extension.outputs.report import write_report

    target = data_dir / LONG_REPORT
    if target.exists():
        return
    shutil.copytree(data_dir / BENCH, target)
    stats = json.loads((target / "stats.json").read_text("utf-8"))
    long_id = "m." + "0" * 300
    stats["failures_by_kind"] = [{
        "stage": "ground_original", "kind": "unknown_entity", "count": 3,
        "meaning": "an entity of the question's query is not in the store",
        "mentions": [{"id": long_id, "count": 3}], "what_to_do": "load more of the KG",
        "example": {"qid": "q" * 200, "reason": "unknown_entity: entities not in the store: "
                    + ",".join([long_id] * 3)}}]
    write_report(target, target / "samples.jsonl", stats)


def test_a_report_opens_from_the_benchmarks_page_and_fits_the_window(ui: Page) -> None:
    _long_report(ui.server.data_dir)
    page = ui.open("#/bench")
    row = page.locator("#bench-list tr").filter(has_text=LONG_REPORT)
    link = row.get_by_role("link", name="report.html")
    assert link.get_attribute("target") == "_blank" and link.get_attribute("download") is None
    with page.expect_popup() as opened:
        link.click()
    report = opened.value
    report.set_viewport_size({"width": ui.width, "height": 768})
    report.wait_for_load_state()
    expect(report.locator("table.failure-kinds")).to_be_visible()
    page_fits(report)
    example = report.locator("table.failure-kinds td.example").first
    box = example.bounding_box()
    assert box and box["x"] + box["width"] <= ui.width
    assert box["width"] >= 200   # readable, not squeezed to a sliver
    # styled (its own inline styles run under its policy): the summary is a grid
    assert report.locator("dl.summary").evaluate("e => getComputedStyle(e).display") == "grid"
    example.scroll_into_view_if_needed()
    report.screenshot(path=str(ui.artifacts / f"32-report-long-reasons-{ui.width}.png"))
    report.close()


def test_a_benchmark_downloads_in_an_export_format(ui: Page) -> None:
    # Issue 38's journey, generate then export then evaluate, had no export in the UI.
    page = ui.open(f"#/bench?name={BENCH}")
    page.get_by_label("Export as").select_option("caqa")
    page.get_by_label("Export split").select_option("test")
    with page.expect_download() as got:
        page.get_by_role("link", name="Download").click()
    download = got.value
    assert download.suggested_filename == "benchmarks-demo-caqa-test.csv"
    with open(download.path(), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    test_split = page.request.get(f"{ui.server.url}/api/samples",
                                  params={"bench": BENCH, "split": "test"}).json()["total"]
    assert len(rows) == test_split > 0
    assert list(rows[0]) == ["query", "answer", "reference", "label", "id"]   # ids to join by
    assert {r["label"] for r in rows} <= {"Support", "Missing", "Contradictory", "Irrelevant"}
    page_fits(page)
    ui.shot(f"35-bench-export-{ui.width}.png")


def test_log_in_is_not_offered_without_a_token(ui: Page) -> None:
    page = ui.open("#/search")
    expect(page.locator("#server-info")).to_contain_text("ladybug")   # health has answered
    expect(page.get_by_role("link", name="Log in")).to_have_count(0)
    expect(page.locator("#nav-login")).to_be_hidden()
    ui.shot(f"33-no-log-in-{ui.width}.png")


def test_the_predicate_filter_matches_part_of_a_name(ui: Page) -> None:
    page = ui.open(f"#/entity?id={TITANIC}")
    out = page.locator("section.fact-block").first
    expect(out.locator("td.pred").first).to_be_visible()
    out.get_by_label("Predicate").fill("GENRE")
    out.get_by_role("button", name="Filter").click()
    predicates = out.locator("td.pred")
    expect(predicates.first).to_have_text("film.film.genre")
    assert set(predicates.all_inner_texts()) == {"film.film.genre"}
    assert predicates.count() >= 2
    page_fits(page)
    ui.shot(f"34-entity-filter-{ui.width}.png")


def test_search_finds_words_and_says_when_nothing_matches(ui: Page) -> None:
    # Issue 38: the autocomplete found only names that start with the text ("coppola"
    # found nothing), typing a name with no match showed nothing at all, and Enter then
    # told a UI user to "try a shorter prefix with /api/search".
    page = ui.open()
    box = page.get_by_role("combobox", name="Find an entity")
    box.press_sequentially("coppola", delay=20)
    options = page.get_by_role("option")
    expect(options.first).to_contain_text("Francis Ford Coppola")   # the best connected
    expect(options.filter(has_text="Sofia Coppola")).to_have_count(1)
    status = page.get_by_role("status")
    expect(status).to_be_hidden()
    page_fits(page)
    ui.shot(f"40-search-word-{ui.width}.png")
    box.fill("")
    box.press_sequentially("saldana", delay=20)   # no accent typed: Zoe Saldaña
    expect(options.first).to_contain_text("Zoe Saldaña")
    box.fill("")
    box.press_sequentially("qqxzv", delay=20)
    expect(status).to_have_text(re.compile(r"No entity name or alias holds “qqxzv”"))
    expect(page.get_by_role("listbox")).to_be_hidden()
    page_fits(page)
    ui.shot(f"41-search-nothing-{ui.width}.png")
    box.press("Enter")
    results = page.locator(".results")
    expect(results).to_contain_text("No entity name or alias holds “qqxzv”")
    assert "/api/" not in results.inner_text() and "prefix" not in results.inner_text()
    expect(page.get_by_role("alert")).to_have_count(0)
