"""The read routes' short way through the server: ``GET /api/entity``, ``/api/search``
and the other reads that answer a :class:`~kgbench.service.jsonbody.JsonBody`, served
without FastAPI's per-request routing and dependency solving.

For an entity page, FastAPI's machinery around the route (matching the path against
every route, solving the :class:`~kgbench.service.deps.Reader` dependency field by
field, the exit stacks and wrappers of each request) cost the event loop more than the
route's own work, and with one client the page came at a fifth of the rate of the store
calls it makes (``bench/service_bench.py``).

:class:`ReadPath` sits inside the security middleware (every request still passes its
checks and gets its headers) and in front of FastAPI's router. A ``GET`` to one of these
routes has its query validated in one step against a model made from the route's own
parameter declarations (:func:`query_model`: the same types, constraints, defaults and
aliases FastAPI validates and the OpenAPI schema shows), and the route's function is
called as FastAPI would call it. Anything else goes on to FastAPI unchanged: another
method or path, a query that the model refuses (FastAPI validates it again and answers
its usual 422), an app with dependency overrides. An error the route raises gets the
app's own answer to it (:mod:`kgbench.service.errors`), so every request is answered as
FastAPI answers it.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError, create_model
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from kgbench.service import deps
from kgbench.service.jsonbody import JsonBody
from kgbench.service.protocol import alone

__all__ = ["ReadPath", "direct_routes", "query_model"]

_SEQUENCES = (list, tuple, set, frozenset)


@dataclass(frozen=True, slots=True)
class DirectRoute:
    """A route :class:`ReadPath` serves: its function, the name it takes the
    :class:`~kgbench.service.deps.Reader` under, and its query's model and fields."""

    endpoint: Any
    reader_param: str
    model: type[BaseModel]
    fields: tuple[tuple[str, str, bool], ...]
    """(name, alias, whether repeated: ``?x=a&x=b``) of each query parameter."""

    def query_values(self, query_string: bytes) -> dict[str, Any] | None:
        """The route's arguments from ``query_string`` (the parameters it declares;
        others are ignored, as FastAPI ignores them), or ``None`` when the model refuses
        them. A missing parameter takes its default; of one given twice, the last wins."""
        # As Starlette's QueryParams parses it, without building one.
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
        last = dict(pairs)
        given: dict[str, Any] = {}
        for _, alias, repeated in self.fields:
            if repeated:
                values = [value for key, value in pairs if key == alias]
                if values:
                    given[alias] = values
            elif alias in last:
                given[alias] = last[alias]
        try:
            model = self.model.model_validate(given)
        except ValidationError:
            return None
        return {name: getattr(model, name) for name, _, _ in self.fields}


def query_model(route: APIRoute) -> type[BaseModel]:
    """One model of ``route``'s query parameters, each field as the route declares it
    (its ``Query(...)``: type, constraints, default, alias)."""
    fields: dict[str, Any] = {
        param.name: (param.field_info.annotation, copy.copy(param.field_info))
        for param in route.dependant.query_params}
    return create_model(f"{route.name}_query", **fields)


def _direct(route: Any) -> DirectRoute | None:
    """``route`` as a :class:`DirectRoute` when it qualifies: a ``GET`` at a fixed path,
    an ``async`` function whose only inputs are query parameters and one
    :func:`~kgbench.service.deps.reader`, and that answers a :class:`JsonBody` (which
    goes out as it is: no response model to apply)."""
    if not isinstance(route, APIRoute) or route.methods != {"GET"} or \
            route.param_convertors or route.dependencies or \
            not inspect.iscoroutinefunction(route.endpoint):
        return None
    dependant = route.dependant
    if dependant.path_params or dependant.header_params or dependant.cookie_params or \
            dependant.body_params or len(dependant.dependencies) != 1:
        return None
    (dependency,) = dependant.dependencies
    if dependency.call is not deps.reader or dependency.name is None or \
            typing.get_type_hints(route.endpoint).get("return") is not JsonBody:
        return None
    fields = tuple(
        (param.name, param.alias,
         typing.get_origin(param.field_info.annotation) in _SEQUENCES)
        for param in dependant.query_params)
    return DirectRoute(route.endpoint, dependency.name, query_model(route), fields)


def direct_routes(routes: Iterable[Any]) -> dict[str, DirectRoute]:
    """The routes among ``routes`` that :class:`ReadPath` serves, by path."""
    return {route.path: found for route in routes
            if (found := _direct(route)) is not None}


class ReadPath:
    """The qualifying routes among ``routes`` (included in ``fastapi`` at their own
    paths), served directly (the module docstring); everything else goes on to ``app``."""

    def __init__(self, app: ASGIApp, fastapi: FastAPI, routes: Iterable[Any]) -> None:
        self.app = app
        self.fastapi = fastapi
        self.direct = direct_routes(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = self.direct.get(scope["path"]) if scope["type"] == "http" and \
            scope["method"] == "GET" else None
        values = None if route is None or self.fastapi.dependency_overrides else \
            route.query_values(scope["query_string"])
        if values is None:
            await self.app(scope, receive, send)
            return
        assert route is not None
        state = self.fastapi.state
        values[route.reader_param] = deps.Reader(state.stores, state.settings.query_timeout_s,
                                                 alone(scope))
        try:
            response = await route.endpoint(**values)
        except Exception as exc:
            response = await self._answer(scope, exc)
        await response(scope, receive, send)

    async def _answer(self, scope: Scope, exc: Exception) -> Response:
        """The app's answer to ``exc``: its handler for the nearest class. An error that
        only the catch-all handles goes up to the server-error middleware, which answers
        and logs it as it does for every route."""
        for cls in type(exc).__mro__:
            if cls is Exception:
                break
            handler = self.fastapi.exception_handlers.get(cls)
            if handler is not None:   # ours are all coroutines (kgbench.service.errors)
                answer = handler(Request(scope), exc)
                return await answer if inspect.isawaitable(answer) else answer
        raise exc
