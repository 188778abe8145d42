"""``kgbench serve``: an HTTP API and a web UI over a store and a data directory.

A thin shell over the same functions as the command line (:mod:`kgstore.lookup`, the
:class:`~kgstore.store.Store` methods, the generate/score pipelines): FastAPI routes
turn requests into calls and records into JSON. Others use :func:`create_app` and
:class:`ServiceSettings`.
"""

from __future__ import annotations

from kgbench.service.app import create_app
from kgbench.service.settings import ServiceSettings, SettingsError, is_loopback

__all__ = ["ServiceSettings", "SettingsError", "create_app", "is_loopback"]
