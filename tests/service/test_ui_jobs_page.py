"""The Jobs page in headless Chromium at 1024 and 1366 px (issue 38): every job kind
the API runs has its form, with pickers of the files and directories under ``--data``
and a name for the output; a new-domain job started from the page writes to that name,
its report opens in a tab of its own (inline, not a download) and fits the window, and
the jobs table never runs under the job's files. Screenshots go to
``$KGBENCH_TEST_ARTIFACTS/ui`` (see :mod:`tests.service.test_ui_browser`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from playwright.sync_api import Page as BrowserPage

from kgbench.service.jobs.specs import KINDS
from tests.service.conftest import Server
from tests.service.test_ui_browser import CHROMIUM, Page
from tests.service.ui_support import BENCH, QUESTIONS

WIDTHS = [1024, 1366]
FORMS = {
    "generate-questions": ["Questions file (relative to the server's --data directory)",
                           "Questions at most", "Output name (a new directory under --data)"],
    "generate-domain": ["Domain (a type of the store, e.g. people.person or Q5)",
                        "Seed questions", "Output name (a new directory under --data)"],
    "score": ["Benchmark directory", "NLI model directory (exported)",
              "Causal LM directory (exported)"],
    "evaluate": ["Benchmark directory", "Predictions file ({\"id\", \"label\"} per line)",
                 "or an exported model directory", "or an LLM endpoint (OpenAI-compatible)",
                 "Output name (a new directory under --data)"],
    "kalma": ["Domain (a type of the store)", "Entries",
              "Knowledge removed for [NA] variants (e.g. 1,2)",
              "Output name (a new directory under --data)"],
    "parse": ["Questions file", "Also use the store's CVT types",
              "Output name (a new directory under --data)"],
}
"""Each form of the page (the value of "Kind of job") and labels it must show."""

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def ui(request: pytest.FixtureRequest, browser: Browser, ui_server: Server,
       artifacts: Path) -> Iterator[Page]:
    """A fresh page at each of :data:`WIDTHS` (the UI tests of issue 38 use it)."""
    page = Page(browser, ui_server, artifacts, width=request.param)
    yield page
    page.close()


def page_fits(page: BrowserPage) -> None:
    """Nothing wider than the window (no sideways scrolling)."""
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, (width, inner)


def boxes_apart(page: BrowserPage, first: str, second: str) -> None:
    a, b = page.locator(first).bounding_box(), page.locator(second).bounding_box()
    assert a and b
    apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
             or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
    assert apart, (first, a, second, b)


def test_every_job_kind_has_its_form_with_pickers(ui: Page) -> None:
    page = ui.open("#/jobs")
    kinds = page.get_by_label("Kind of job")
    expect(kinds).to_be_visible()
    options = kinds.locator("option").all()
    assert [o.get_attribute("value") for o in options] == list(FORMS)
    assert {o.get_attribute("data-kind") for o in options} == set(KINDS)   # every kind
    for value, labels in FORMS.items():
        kinds.select_option(value)
        for label in labels:
            expect(page.get_by_label(label, exact=True)).to_be_visible()
        page_fits(page)
        ui.shot(f"20-job-form-{value}-{ui.width}.png")
    kinds.select_option("generate-questions")
    questions = page.get_by_label(FORMS["generate-questions"][0], exact=True)
    choices = page.locator(f"#{questions.get_attribute('list')} option")
    assert QUESTIONS in [o.get_attribute("value") for o in choices.all()]
    kinds.select_option("score")
    bench = page.get_by_label("Benchmark directory", exact=True)
    dirs = [o.get_attribute("value")
            for o in page.locator(f"#{bench.get_attribute('list')} option").all()]
    assert BENCH in dirs and not [d for d in dirs if d == "jobs" or d.startswith("jobs/")]


SUBMITTED = {
    "score": ({"Benchmark directory": BENCH, "NLI model directory (exported)": "models/none"},
              "nothing at 'models/none'"),
    "evaluate": ({"Benchmark directory": BENCH,
                  "Predictions file ({\"id\", \"label\"} per line)": QUESTIONS,
                  "Output name (a new directory under --data)": "evaluations/{width}"},
                 None),
    "kalma": ({"Domain (a type of the store)": "people.person", "Entries": "2",
               "Output name (a new directory under --data)": "kalma/{width}"}, None),
    "parse": ({"Questions file": QUESTIONS,
               "Output name (a new directory under --data)": "parsed/{width}"}, None),
}
"""Forms whose parameters the server takes: a job starts (``None``), or, score's model
being missing, the server answers for that path, past the parameters' checks."""


def test_the_other_forms_send_parameters_the_server_takes(ui: Page) -> None:
    page = ui.open("#/jobs")
    for value, (fields, answer) in SUBMITTED.items():
        page.get_by_label("Kind of job").select_option(value)
        for label, text in fields.items():
            page.get_by_label(label, exact=True).fill(text.format(width=ui.width))
        page.get_by_role("button", name="Start").click()
        if answer is None:   # started: the page shows the job
            expect(page).to_have_url(re.compile(r"#/jobs\?id=[\w-]+$"))
            kind = page.get_by_label("Kind of job").locator("option:checked")
            expect(page.locator("#job-detail h2")).to_contain_text(
                f"({kind.get_attribute('data-kind')})")
            ui.shot(f"23-job-form-sent-{value}-{ui.width}.png")
            job = page.url.rsplit("=", 1)[1]   # stop it: the one job slot is for the next test
            page.request.post(f"{ui.server.url}/api/jobs/{job}/cancel")
            page.goto(f"{ui.server.url}/#/jobs")
        else:
            expect(page.locator("#job-form").get_by_role("alert")).to_contain_text(answer)
            ui.shot(f"23-job-form-sent-{value}-{ui.width}.png")


@pytest.mark.slow
def test_a_domain_job_from_the_page_writes_to_its_named_output(ui: Page) -> None:
    out = f"benchmarks/from-the-ui-{ui.width}"
    page = ui.open("#/jobs")
    page.get_by_label("Kind of job").select_option("generate-domain")
    page.get_by_label(FORMS["generate-domain"][0], exact=True).fill("people.person")
    page.get_by_label("Seed questions", exact=True).fill("4")
    page.get_by_label("Output name (a new directory under --data)", exact=True).fill(out)
    page.get_by_role("button", name="Start").click()
    detail = page.locator("#job-detail")
    expect(detail.locator(".state")).to_have_text("succeeded", timeout=120_000)
    expect(detail).to_contain_text(f"output: {out}")
    expect(page.get_by_label("Kind of job")).to_have_value("generate-domain")   # kept
    files = page.locator("#job-files")
    expect(files.get_by_role("link", name="samples.jsonl")).to_be_visible()
    browse = page.get_by_role("link", name="Browse its samples")
    expect(browse).to_be_visible()
    row = page.locator("#job-list tbody tr").first
    expect(row).to_contain_text(out)
    # the jobs table runs under neither the files nor the links (it once did)
    for other in ("#job-detail", "#job-files", "#job-links", "#job-form"):
        boxes_apart(page, "#job-list-box", other)
    page_fits(page)
    ui.shot(f"21-domain-job-succeeded-{ui.width}.png")
    # the report opens in a tab of its own, as a page (not a download), and fits it
    link = files.get_by_role("link", name="report.html")
    assert link.get_attribute("download") is None and link.get_attribute("target") == "_blank"
    downloads: list[object] = []
    page.on("download", lambda download: downloads.append(download))
    with page.expect_popup() as opened:
        link.click()
    report = opened.value
    report.set_viewport_size({"width": ui.width, "height": 768})
    report.wait_for_load_state()
    assert re.search(r"/api/jobs/[\w-]+/files/report\.html$", report.url)
    expect(report.locator("h1")).to_have_text("kgbench benchmark report")
    expect(report.locator("#failures")).to_be_visible()
    page_fits(report)
    report.screenshot(path=str(ui.artifacts / f"22-job-report-{ui.width}.png"))
    assert not downloads
    report.close()
    browse.click()
    expect(page.locator("#sample-count")).to_contain_text("samples")
    expect(page.locator("h1")).to_have_text(f"Benchmark {out}")
