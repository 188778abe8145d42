"""How the server sends a file that a run wrote (a job's output, a benchmark's
report): an HTML page (``report.html``) opens in the browser, anything else downloads.

A generated page carries its own inline styles and SVG, which the UI's policy
(``default-src 'self'``) would refuse; it is sent under a policy of its own instead,
:data:`PAGE_POLICY`: sandboxed (no script runs, the page has no origin, so it cannot
read the API or the session cookie), inline styles and ``data:`` images only, nothing
fetched. The security middleware keeps a policy a route has set.
"""

from __future__ import annotations

from pathlib import Path

from fastapi.responses import FileResponse

__all__ = ["PAGE_POLICY", "file_response"]

PAGE_POLICY = ("sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
               "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_PAGES = (".html", ".htm")


def file_response(path: Path) -> FileResponse:
    """``path`` as a response: a page shown inline (``text/html``, :data:`PAGE_POLICY`),
    any other file as a download under its name."""
    if path.suffix.lower() in _PAGES:
        return FileResponse(path, media_type="text/html; charset=utf-8", filename=path.name,
                            content_disposition_type="inline",
                            headers={"Content-Security-Policy": PAGE_POLICY})
    return FileResponse(path, filename=path.name)
