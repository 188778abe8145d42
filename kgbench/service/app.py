"""``create_app``: the FastAPI application of ``kgbench serve``.

The lifespan opens the shared resources on ``app.state`` (``settings``, ``stores``: the
:class:`~kgbench.service.storepool.StorePool`; ``cypher``: the
:class:`~kgbench.service.cypher_workers.CypherWorkers`; ``jobs``: the job manager) and
closes them at shutdown. The routers are included explicitly, one line each; the security
middleware wraps everything (:mod:`kgbench.service.security`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig

from kgbench.service import choices, reads, samples, session, ui
from kgbench.service.cypher_workers import CypherWorkers
from kgbench.service.errors import install_error_handlers
from kgbench.service.jobs import routes as jobs_routes
from kgbench.service.jobs.manager import JobManager
from kgbench.service.readpath import ReadPath
from kgbench.service.security import SecurityMiddleware
from kgbench.service.settings import ServiceSettings
from kgbench.service.storepool import StorePool

__all__ = ["API_TITLE", "create_app"]

API_TITLE = "kgbench"
NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}
"""FastAPI's OpenTelemetry bridge, off: ``kgbench serve`` configures no provider, and
with the bridge on, every request asked the global providers whether one had been
configured since (a few microseconds of an entity page's ~0.1 ms on the event loop)."""


def create_app(settings: ServiceSettings) -> FastAPI:
    """The app for ``settings`` (checked: a non-loopback bind needs a token)."""
    settings.check()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            app.state.stores = stack.enter_context(StorePool(settings.store, settings.readers))
            app.state.cypher = await stack.enter_async_context(CypherWorkers(
                settings.store, settings.cypher_workers,
                memory_mb=settings.cypher_memory_mb).running())
            # ---- shared resources of other parts (one line each) -------------------
            app.state.jobs = stack.enter_context(JobManager(settings).running())
            # ---- end -----------------------------------------------------------------
            yield

    app = FastAPI(title=API_TITLE, version=reads.VERSION, debug=False, lifespan=lifespan,
                  telemetry=NO_TELEMETRY,
                  docs_url=None, redoc_url=None, openapi_url="/api/openapi.json",   # docs: ui.py
                  description="Explore a knowledge graph, run kgbench jobs and review "
                  "benchmark samples. Errors are {\"error\": {\"status\", \"message\", "
                  "\"hint\"}}.")
    app.state.settings = settings
    install_error_handlers(app)
    app.include_router(reads.router)
    app.include_router(session.router)
    # ---- routers of other parts (one line each) --------------------------------------
    app.include_router(jobs_routes.router)
    app.include_router(samples.router)
    app.include_router(choices.router)
    app.include_router(ui.router)
    # ---- end -------------------------------------------------------------------------
    # inside the security middleware: the read routes' short way past FastAPI's routing
    app.add_middleware(ReadPath, fastapi=app, routes=reads.router.routes)
    app.add_middleware(SecurityMiddleware, settings=settings)
    return app
