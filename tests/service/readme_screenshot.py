"""The README's screenshot of the web UI (``make readme-screenshot``; not part of the test
suite: pytest collects ``test_*.py`` files, and this one is named on the command line).
It drives the same server and browser as :mod:`tests.service.test_ui_browser`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from playwright.sync_api import expect

from tests.service.test_ui_browser import Page, node_count, ui  # noqa: F401  (ui: a fixture)
from tests.service.ui_support import SPIELBERG


def test_readme_screenshot(ui: Page) -> None:  # noqa: F811  (ui: the fixture imported above)
    # Steven Spielberg with Jaws expanded: far from the hostile test entity.
    page = ui.open(f"#/entity?id={SPIELBERG}")
    expect(page.locator(".graph-panel")).to_have_attribute("data-nodes", re.compile(r"^[1-9]"))
    before = node_count(page)
    page.locator(".node-list-box summary").click()
    page.get_by_role("button", name="Expand: Jaws", exact=True).click()
    # (polled from Python: a wait_for_function string would be an eval the page's CSP refuses)
    expect(page.locator(".graph-panel")).not_to_have_attribute("data-nodes", str(before))
    page.locator(".node-list-box summary").click()   # fold the list again for the picture
    page.mouse.click(5, 760)                          # no focus ring in the picture
    page.evaluate("window.scrollTo(0, 0)")
    target = Path(os.environ.get("KGBENCH_UI_SCREENSHOT", "docs/ui.png"))
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target))
    assert target.stat().st_size < 300_000
