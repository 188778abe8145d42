"""The web UI in headless Chromium (Debian's ``/usr/bin/chromium`` driven by Playwright)
against a real ``kgbench serve``: search an entity, open it, expand a node of its graph,
run a Cypher query (and see a write refused), start a small generate job and watch it
finish, open a benchmark sample with its edited triples highlighted, and an entity
named like an HTML tag shown as text. Each step asserts on what the page shows and
saves a screenshot to ``$KGBENCH_TEST_ARTIFACTS`` (default: a tmp dir). With
``KGBENCH_UI_SCREENSHOT=docs/ui.png`` one more step writes the README's screenshot
there (an entity page with its graph expanded once).

The server's store is the demo KG plus one hostile entity; its data directory holds
the demo benchmark and the demo questions (the job's input). One browser serves every
test; each test gets a fresh page and fails on any script error or CSP violation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect
from playwright.sync_api import Page as BrowserPage

from tests.service.conftest import TOKEN, Server
from tests.service.ui_support import (
    CHROMIUM,
    COPPOLA,
    HOSTILE_NAME,
    QUESTIONS,
    SPIELBERG,
    STEP_TIMEOUT_MS,
)

EDUCATION = "m.0kgb0zq"   # a CVT: Spielberg's people.person.education

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium "
                                "(/usr/bin/chromium; `make test` installs it)")


class Page:
    """A fresh page on the UI that records script errors and CSP violations."""

    def __init__(self, browser: Browser, server: Server, artifacts: Path, *,
                 width: int = 1366) -> None:
        self.width = width
        self.context = browser.new_context(viewport={"width": width, "height": 768})
        self.page = self.context.new_page()
        self.page.set_default_timeout(STEP_TIMEOUT_MS)
        self.server = server
        self.artifacts = artifacts
        self.problems: list[str] = []
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        # a refused request (the Cypher write) is logged by the browser; it is expected
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.problems.append(f"console: {message.text}")

    def open(self, hash_route: str = "") -> BrowserPage:
        self.page.goto(f"{self.server.url}/{hash_route}")
        return self.page

    def shot(self, name: str) -> Path:
        path = self.artifacts / name
        self.page.screenshot(path=str(path))
        return path

    def close(self) -> None:
        self.context.close()
        assert not self.problems, self.problems


@pytest.fixture
def ui(browser: Browser, ui_server: Server, artifacts: Path) -> Iterator[Page]:
    page = Page(browser, ui_server, artifacts)
    yield page
    page.close()


def node_count(page: BrowserPage) -> int:
    return int(page.locator(".graph-panel").get_attribute("data-nodes") or 0)


def test_search_with_autocomplete_then_open_the_entity(ui: Page) -> None:
    page = ui.open()
    box = page.get_by_role("combobox", name="Find an entity")
    box.press_sequentially("godfa", delay=20)
    option = page.get_by_role("option").filter(has_text="The Godfather").first
    expect(option).to_be_visible()
    ui.shot("01-search-autocomplete.png")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", re.compile(r"suggest-\d+-0"))
    box.press("Enter")
    expect(page.locator("#entity-name")).to_have_text(re.compile("The Godfather"))
    facts = page.locator("table.facts").first
    expect(facts.locator("td.pred").filter(has_text="film.film.directed_by").first).to_be_visible()
    expect(facts.get_by_role("link", name="Francis Ford Coppola")).to_be_visible()
    ui.shot("02-entity-facts.png")


def test_a_cvt_object_is_shown_by_its_type(ui: Page) -> None:
    page = ui.open(f"#/entity?id={SPIELBERG}")
    row = page.locator("table.facts").first.locator("tr").filter(has_text="people.person.education")
    link = row.get_by_role("link", name="CVT · education.education")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", f"#/entity?id={EDUCATION}")
    ui.shot("02b-entity-cvt-fact.png")
    link.click()
    expect(page.locator("#entity-name")).to_have_text(f"CVT · education.education ({EDUCATION})")


def test_the_api_reference_works_offline(ui: Page) -> None:
    # Swagger UI from this server under the strict CSP: no request leaves it (the lab
    # machines have no internet), no CSP violation (Page fails on any console error).
    elsewhere: list[str] = []
    ui.page.on("request", lambda r: None if r.url.startswith((ui.server.url, "data:"))
               else elsewhere.append(r.url))
    page = ui.open("api/docs")
    expect(page.locator('.opblock-summary-path[data-path="/api/entity"]')).to_be_visible()
    expect(page.locator('.opblock-summary-path[data-path="/api/benchmarks/table"]')
           ).to_be_visible()
    ui.shot("13-api-docs.png")
    assert not elsewhere


def test_expand_a_node_of_the_graph_with_the_keyboard(ui: Page) -> None:
    page = ui.open(f"#/entity?id={COPPOLA}")
    panel = page.locator(".graph-panel")
    expect(panel).to_have_attribute("data-nodes", re.compile(r"^[1-9]\d*$"))
    before = node_count(page)
    expect(page.locator(".graph-status")).to_contain_text(f"{before} nodes")
    page.locator(".node-list-box summary").press("Enter")
    expand = page.get_by_role("button", name="Expand: The Godfather", exact=True)
    expand.focus()
    expand.press("Enter")
    # (polled from Python: a wait_for_function string would be an eval the page's CSP refuses)
    expect(page.locator(".graph-panel")).not_to_have_attribute("data-nodes", str(before))
    after = node_count(page)
    assert after > before
    expect(page.locator(".graph-status")).to_contain_text(f"{after} nodes")
    # the hostile director is drawn as a node of The Godfather, its name as text
    expect(page.get_by_role("button", name=f"Expand: {HOSTILE_NAME}")).to_have_count(1)
    ui.shot("03-graph-expanded.png")


def test_cypher_rows_and_a_refused_write(ui: Page) -> None:
    page = ui.open("#/cypher")
    query = page.get_by_label("Cypher (read-only: MATCH … RETURN)")
    query.fill("MATCH (f:Entity)-[r:Fact]->(d:Entity) WHERE r.predicate = 'film.film.directed_by' "
               "RETURN f.name AS film, d.name AS director ORDER BY film LIMIT 5")
    page.get_by_role("button", name="Run", exact=True).click()
    rows = page.locator("#cypher-result table.rows tbody tr")
    expect(rows).to_have_count(5)
    expect(page.locator("#cypher-result th").first).to_have_text("film")
    expect(page.locator("#cypher-graph")).to_have_count(0)   # names only: nothing to draw
    expect(page.locator("#cypher-summary")).to_contain_text("5 rows")
    ui.shot("04-cypher-rows.png")
    query.fill("MATCH (e:Entity) SET e.name = 'x' RETURN e")
    query.press("Control+Enter")
    alert = page.get_by_role("alert")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text(re.compile("read-only|not allowed|refused|write", re.I))
    ui.shot("05-cypher-write-refused.png")


@pytest.mark.slow
def test_start_a_generate_job_and_watch_it_finish(ui: Page) -> None:
    page = ui.open("#/jobs")
    page.get_by_label("Questions file (relative to the server's --data directory)").fill(
        QUESTIONS)
    page.get_by_label("Questions at most").fill("1")
    page.get_by_text("Other parameters", exact=True).click()   # a fold of the form
    page.get_by_label("Other parameters (JSON object, optional)").fill('{"report": false}')
    page.get_by_role("button", name="Start").click()
    detail = page.locator("#job-detail")
    expect(detail).to_contain_text("Job ")
    expect(detail.locator("progress")).to_be_visible()
    ui.shot("06-job-running.png")
    expect(detail.locator(".state")).to_have_text("succeeded", timeout=90_000)
    expect(page.locator("#job-files").get_by_role("link", name="samples.jsonl")).to_be_visible()
    expect(page.locator("#job-progress-text")).to_contain_text(re.compile(r"\d"))
    ui.shot("07-job-succeeded.png")
    page.get_by_role("link", name="Browse its samples").click()
    expect(page.locator("#sample-count")).to_contain_text("samples")


def test_open_a_sample_with_its_edit_highlighted(ui: Page) -> None:
    page = ui.open("#/bench")
    page.get_by_role("link", name="benchmarks/demo").click()
    expect(page.locator("#caqa-table")).to_contain_text("CAQA")
    expect(page.locator("#label-table")).to_contain_text("supportive")
    page.get_by_label("Label").select_option("contradictory")
    expect(page.locator("#sample-count")).to_contain_text("samples")
    ui.shot("08-benchmark-browser.png")
    page.locator("ol.samples a").first.click()
    expect(page.locator("#sample-label")).to_have_text("contradictory")
    expect(page.locator("#sample-question")).not_to_be_empty()
    expect(page.locator("#sample-citations li").first).to_be_visible()
    panel = page.locator(".graph-panel")
    expect(panel).to_have_attribute("data-highlighted", re.compile(r"^[1-9]\d*$"))
    expect(page.locator("#edge-summary")).to_contain_text(re.compile(r"[1-9]\d* added"))
    ui.shot("09-sample-highlighted.png")


def test_an_entity_named_like_html_is_shown_as_text(ui: Page) -> None:
    page = ui.open()
    box = page.get_by_role("combobox", name="Find an entity")
    box.press_sequentially("<img", delay=20)
    option = page.get_by_role("option").filter(has_text=HOSTILE_NAME)
    expect(option).to_be_visible()
    option.click()
    expect(page.locator("#entity-name")).to_have_text(HOSTILE_NAME)
    assert page.locator("main img").count() == 0
    assert page.evaluate("document.body.dataset.pwned") is None
    ui.shot("10-hostile-name-as-text.png")


@pytest.mark.slow
def test_login_page_sets_the_token_for_jobs(browser: Browser, token_server: Server,
                                            artifacts: Path) -> None:
    # A server with a token: reads are open on loopback, jobs are not.
    ui = Page(browser, token_server, artifacts)
    try:
        page = ui.open("#/jobs")
        expect(page.get_by_role("navigation").get_by_role("link", name="Log in")
               ).to_be_visible()   # a token to give
        questions = page.get_by_label("Questions file (relative to the server's --data directory)")
        questions.fill("missing.jsonl")
        page.get_by_role("button", name="Start").click()
        # the job list says so as well: reading jobs needs the token too
        form_alert = page.locator("form").get_by_role("alert")
        expect(form_alert).to_contain_text("needs the server's token")
        expect(page.get_by_role("alert")).to_have_count(2)
        ui.shot("11-job-needs-token.png")
        form_alert.get_by_role("link", name="Log in").click()
        expect(page).to_have_url(re.compile(r"/login\?next="))
        page.get_by_label("Token").fill("wrong")
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("alert")).to_contain_text("token")
        page.get_by_label("Token").fill(TOKEN)
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("link", name="Continue").click()
        expect(page).to_have_url(re.compile(r"#/jobs$"))
        questions.fill("missing.jsonl")
        page.get_by_role("button", name="Start").click()
        # authorised now: the job is refused for its input, not for the token
        expect(page.locator("form").get_by_role("alert")).to_contain_text("missing.jsonl")
        ui.shot("12-job-after-login.png")
    finally:
        ui.close()
