"""The login page sends the browser back only to a page of this server (issue 32, item
10), in headless Chromium against a real ``kgbench serve`` with a token.

Before the fix ``/login?next=/%09/evil.example/`` (also ``%0a``, ``%0d``) passed the
page's check (it starts with one ``/``), and the browser, which drops tabs and newlines
from a URL, followed "Continue" to ``//evil.example/``: another origin. Now ``next`` is
resolved as the browser resolves it and kept only when it stays on this origin.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser

from tests.service.conftest import Server, _launch
from tests.service.test_ui_browser import CHROMIUM, Page, artifacts, browser  # noqa: F401

TOKEN = "t0ken-for-the-redirect"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium "
                                "(/usr/bin/chromium; `make test` installs it)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, demo_store_path: str) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("login-data")
    running = _launch(demo_store_path, data, TOKEN, "127.0.0.1", ())
    yield running
    running.stop()


def continue_link(browser: Browser, server: Server, artifacts: Path,  # noqa: F811
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
def test_next_never_leaves_this_server(browser: Browser, server: Server,  # noqa: F811
                                       artifacts: Path, target: str) -> None:  # noqa: F811
    href = continue_link(browser, server, artifacts, f"next={target}")
    parts, ours = urlsplit(href), urlsplit(server.url)
    assert (parts.scheme, parts.netloc) == (ours.scheme, ours.netloc), href
    assert not parts.path.startswith("//"), href


def test_next_keeps_a_page_of_this_server(browser: Browser, server: Server,  # noqa: F811
                                          artifacts: Path) -> None:  # noqa: F811
    href = continue_link(browser, server, artifacts, "next=%2F%23%2Fjobs")
    assert href == f"{server.url}/#/jobs"
