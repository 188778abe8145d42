"""The web UI's paths page in headless Chromium at 1024 and 1366 px (issue 38: the API
and the CLI find paths between two entities, the UI had no way to). Reached from the
nav and from an entity page; two boxes with the search page's autocomplete, a maximum
length and predicates to leave out; each path listed once, hop by hop (a step through a
CVT is one hop), its entities linked to their pages, all drawn as one graph. What the
page lists is what ``GET /api/paths`` answers. Screenshots go to
``$KGBENCH_TEST_ARTIFACTS/ui`` (see :mod:`tests.service.test_ui_browser`)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.service import test_ui_jobs_page
from tests.service.test_ui_browser import CHROMIUM, Page
from tests.service.test_ui_jobs_page import page_fits
from tests.service.ui_support import COPPOLA, HOSTILE_ID, HOSTILE_NAME

ui = test_ui_jobs_page.ui   # a fresh page at 1024 and at 1366 px

AL_PACINO = "m.0kgb0ag"
SOFIA_COPPOLA = "m.0kgb0ao"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")


def served_paths(ui: Page, source: str, target: str, max_length: int,
                 exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    query = urlencode({"source": source, "target": target, "max_length": max_length,
                       "limit": 20, "exclude_predicate": list(exclude)}, doseq=True)
    answer = ui.page.request.get(f"{ui.server.url}/api/paths?{query}")
    assert answer.ok, answer.text()
    doc: dict[str, Any] = answer.json()
    return doc


def listed_like_the_api(ui: Page, doc: dict[str, Any]) -> list[str]:
    """The page lists the API's paths in its order, each once, hop by hop, with a link
    per node; returns the items' texts."""
    items = ui.page.locator("#paths-list > li")
    expect(items).to_have_count(len(doc["paths"]))
    texts = items.all_inner_texts()
    assert len(set(texts)) == len(texts), texts   # no path twice
    for item, path in zip(items.all(), doc["paths"], strict=True):
        assert item.get_attribute("data-length") == str(path["length"])
        assert item.locator(".hop").count() == path["length"]   # a CVT step is one hop
        hrefs = item.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        assert hrefs == [f"#/entity?id={node}" for node in path["nodes"]]
        assert ("through a hub" in item.inner_text()) == path["through_hub"]
    return texts


def test_paths_between_two_entities_from_the_nav(ui: Page) -> None:
    page = ui.open()
    page.get_by_role("navigation", name="Pages").get_by_role("link", name="Paths").click()
    expect(page).to_have_title("Paths · kgbench")
    expect(page.locator("nav a[data-nav=paths]")).to_have_attribute("aria-current", "page")
    source = page.get_by_role("combobox", name="From")
    expect(source).to_be_focused()
    source.press_sequentially("pacino", delay=20)
    page.get_by_role("option").filter(has_text="Al Pacino").click()
    target = page.get_by_role("combobox", name="To")
    target.press_sequentially("coppola", delay=20)
    expect(page.get_by_role("option").first).to_contain_text("Francis Ford Coppola")
    target.press("ArrowDown")
    target.press("Enter")   # picks the suggestion
    expect(target).to_have_value("Francis Ford Coppola")
    page.get_by_label("Hops at most").select_option("3")
    page.get_by_role("button", name="Find paths").click()
    expect(page).to_have_url(re.compile(rf"#/paths\?source={AL_PACINO}&target={COPPOLA}&max=3"))

    doc = served_paths(ui, AL_PACINO, COPPOLA, 3)
    assert len(doc["paths"]) == 20 and any(p["through_hub"] for p in doc["paths"])
    texts = listed_like_the_api(ui, doc)
    expect(page.locator("#paths-summary")).to_contain_text(
        "20 paths between Al Pacino and Francis Ford Coppola")
    # Pacino's role in a film is a mediator: named by its type, one hop with the film
    first = page.locator("#paths-list > li").first
    expect(first.locator(".hop").first).to_contain_text("CVT · film.performance")
    links = first.get_by_role("link").all_inner_texts()   # names, never bare ids
    assert links[1] == "CVT · film.performance" and not any(re.match(r"m\.0", t) for t in links)
    expect(first.locator(".s-id")).to_have_text(f" {doc['paths'][0]['nodes'][1]}")   # told apart
    hubs = [p["through_hub"] for p in doc["paths"]]
    assert hubs == sorted(hubs)   # paths through a hub last

    panel = page.locator("#paths-graph .graph-panel")
    nodes = {n for p in doc["paths"] for n in p["nodes"]}
    facts = {(f["subject"], f["predicate"], f["object"]) for p in doc["paths"] for f in p["facts"]}
    expect(panel).to_have_attribute("data-nodes", str(len(nodes)))
    expect(panel).to_have_attribute("data-edges", str(len(facts)))
    first.hover()   # pointing at a path marks its edges in the graph
    expect(panel).to_have_attribute("data-marked", str(len(doc["paths"][0]["facts"])))
    page_fits(page)
    ui.shot(f"50-paths-{ui.width}.png")

    page.get_by_label("Leave out predicates").fill("people.person.*")
    page.get_by_role("button", name="Find paths").click()
    expect(page).to_have_url(re.compile(r"exclude=people\.person\.\*"))
    fewer = served_paths(ui, AL_PACINO, COPPOLA, 3, ("people.person.*",))
    assert 0 < len(fewer["paths"]) < len(doc["paths"])
    texts = listed_like_the_api(ui, fewer)
    assert not any("people.person." in text for text in texts)
    page_fits(page)
    ui.shot(f"51-paths-excluded-{ui.width}.png")

    page.locator("#paths-list > li").first.get_by_role("link", name="The Godfather Part III").click()
    expect(page.locator("#entity-name")).to_have_text("The Godfather Part III")


def test_paths_from_an_entity_page_by_name_and_nothing_found(ui: Page) -> None:
    page = ui.open(f"#/entity?id={AL_PACINO}")
    page.get_by_role("link", name="Paths from here to another entity").click()
    source = page.get_by_role("combobox", name="From")
    expect(source).to_have_value("Al Pacino")
    target = page.get_by_role("combobox", name="To")
    expect(target).to_be_focused()
    target.fill("Sofia Coppola")
    target.press("Enter")   # no suggestion chosen: the name is sent as typed
    expect(page).to_have_url(re.compile(rf"source={AL_PACINO}&target=Sofia"))
    listed_like_the_api(ui, served_paths(ui, AL_PACINO, SOFIA_COPPOLA, 2))
    expect(target).to_have_value("Sofia Coppola")
    page.get_by_label("Hops at most").select_option("1")
    page.get_by_role("button", name="Find paths").click()
    assert served_paths(ui, AL_PACINO, SOFIA_COPPOLA, 1)["paths"] == []
    expect(page.locator("#paths-summary")).to_have_text(re.compile(
        r"^No path of at most 1 hop between Al Pacino and Sofia Coppola\."))
    page_fits(page)

    target.fill("qqxzv")
    target.press("Enter")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("no entity with id or name 'qqxzv'")
    expect(alert).to_contain_text("pick an entity from the suggestions")
    assert "/api/" not in alert.inner_text()   # no API route shown to a UI user
    ui.shot(f"52-paths-not-found-{ui.width}.png")


def test_a_name_like_html_on_a_path_is_text(ui: Page) -> None:
    page = ui.open(f"#/paths?source={AL_PACINO}&target={HOSTILE_ID}&max=2")
    items = page.locator("#paths-list > li")
    expect(items.first.get_by_role("link", name=HOSTILE_NAME)).to_be_visible()
    expect(page.get_by_role("combobox", name="To")).to_have_value(HOSTILE_NAME)
    assert page.evaluate("document.body.dataset.pwned") is None
    assert page.locator("#paths-list img").count() == 0
