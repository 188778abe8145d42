"""``kgbench serve``: an HTTP API and a web UI over a store and a data directory.

A thin shell over the same functions as the command line (:mod:`kgstore.lookup`, the
:class:`~kgstore.store.Store` methods, the generate/score pipelines): FastAPI routes
turn requests into calls and records into JSON. Others use :func:`create_app` and
:class:`ServiceSettings`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgbench.service.settings import ServiceSettings, SettingsError, is_loopback

if TYPE_CHECKING:
    from kgbench.service.app import create_app

__all__ = ["ServiceSettings", "SettingsError", "create_app", "is_loopback"]


def __getattr__(name: str) -> Any:
    # The app (FastAPI, the routers, the pipelines they call) is imported on first
    # use, so that `kgbench serve` checks its options without paying for it.
    if name == "create_app":
        from kgbench.service.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
