"""The web UI: three HTML pages and the static files they load, served by the same
process as the API, with no build step (plain ES modules; cytoscape and Swagger UI
vendored under ``static/vendor``).

``/`` is a single-page app with hash routes (``#/search``, ``#/entity?id=``,
``#/cypher``, ``#/jobs``, ``#/bench``, ``#/sample?bench=&id=``); ``/login`` takes the
token; ``/api/docs`` is the API reference (Swagger UI over ``/api/openapi.json``, from
this server: the lab machines have no internet for a CDN). The pages hold no inline script or style, so the strict Content-Security-Policy
the security middleware sends (``default-src 'self'``) applies unchanged, and every
text from the API is inserted as text by the scripts, never as markup.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["STATIC_DIR", "router"]

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The UI's files, shipped as package data (``pyproject.toml``)."""

router = APIRouter(include_in_schema=False)
router.mount("/static", StaticFiles(directory=STATIC_DIR, follow_symlink=False), name="static")


def _page(name: str) -> FileResponse:
    # no-cache: the page is revalidated (ETag) so a new version's script list is seen
    return FileResponse(STATIC_DIR / name, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})


@router.get("/")
def app_page() -> FileResponse:
    """The single-page app."""
    return _page("index.html")


@router.get("/login")
def login_page() -> FileResponse:
    """The page that takes the server's token (``POST /api/session``)."""
    return _page("login.html")


@router.get("/api/docs")
def docs_page() -> FileResponse:
    """The API reference: the vendored Swagger UI over ``/api/openapi.json``."""
    return _page("docs.html")
