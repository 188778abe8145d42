"""The login page sends the browser back only to a page of this server (issue 32, item
10), in headless Chromium against a real ``kgbench serve`` with a token.

Before the fix ``/login?next=/%09/evil.example/`` (also ``%0a``, ``%0d``) passed the
page's check (it starts with one ``/``), and the browser, which drops tabs and newlines
from a URL, followed "Continue" to ``//evil.example/``: another origin. Now ``next`` is
resolved as the browser resolves it and kept only when it stays on this origin.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser

from tests.service.conftest import TOKEN, Server
from tests.service.test_ui_browser import CHROMIUM, Page

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium "
                                "(/usr/bin/chromium; `make test` installs it)")


def continue_link(browser: Browser, server: Server, artifacts: Path,
                  query: str) -> str:
    """Log in on ``/login?QUERY`` and return where "Continue" leads (resolved)."""
    ui = Page(browser, server, artifacts)
    try:
        page = ui.page
        page.goto(f"{server.url}/login?{query}")
        page.get_by_label("Token").fill(TOKEN)
        page.get_by_role("button", name="Log in").click()
        link = page.get_by_role("link", name="Continue")
        return str(link.evaluate("a => a.href"))
    finally:
        ui.close()


@pytest.mark.parametrize("target", [
    "/%09/evil.example/", "/%0a/evil.example/", "/%0d/evil.example/", "/%09%0a/evil.example/",
    "//evil.example/", "/%5Cevil.example/", "/\\evil.example/", "https://evil.example/",
    "/a/..//evil.example/", "javascript:alert(1)", "/%2F/evil.example/",
])
def test_next_never_leaves_this_server(browser: Browser, token_server: Server,
                                       artifacts: Path, target: str) -> None:
    href = continue_link(browser, token_server, artifacts, f"next={target}")
    parts, ours = urlsplit(href), urlsplit(token_server.url)
    assert (parts.scheme, parts.netloc) == (ours.scheme, ours.netloc), href
    assert not parts.path.startswith("//"), href


def test_next_keeps_a_page_of_this_server(browser: Browser, token_server: Server,
                                          artifacts: Path) -> None:
    href = continue_link(browser, token_server, artifacts, "next=%2F%23%2Fjobs")
    assert href == f"{token_server.url}/#/jobs"
