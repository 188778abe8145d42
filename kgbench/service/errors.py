"""Every error the API answers, in one shape: ``{"error": {"status": int, "message":
str, "hint": str | null}}``, with a one-line message that says what to do.

Handlers turn our :class:`ApiError`, FastAPI's validation errors (422, naming the
field), HTTP errors (404, 405, ...), the store's errors (a refused or failed query is
the client's 400, a timeout 504, a store that cannot answer 503), a full disk (507,
"no space left on device", logged once a minute at most) and anything else (500, a
fixed message: the traceback goes to the server's log, never into a body).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from kgbench.service.quiet_log import RateLimitedLog
from kgstore.diskspace import is_disk_full
from kgstore.errors import (
    QueryError,
    QueryTimeoutError,
    ReadOnlyQueryError,
    StoreError,
)

__all__ = ["ERROR_RESPONSES", "INTERNAL_ERROR", "ApiError", "ErrorBody", "error_body",
           "error_response", "install_error_handlers"]

INTERNAL_ERROR = "internal error (logged by the server)"
log = logging.getLogger("kgbench.service")
quiet = RateLimitedLog(log)
NO_SPACE = "no space left on device on the server"


class ErrorDetail(BaseModel):
    status: int
    message: str
    hint: str | None = None


class ErrorBody(BaseModel):
    """Every error's body."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": what} for status, what in (
        (400, "Refused: an invalid or write query, a bad path, an ambiguous name"),
        (401, "The server's token is needed"),
        (404, "Nothing found"),
        (413, "The request body is over the limit"),
        (422, "A parameter is missing or invalid"),
        (507, "No space left on the server's disk"),
        (503, "The server or the store is busy or unavailable"),
        (504, "The request ran past its time limit"))}
"""The error responses every route may give, for the OpenAPI description
(``APIRouter(responses=ERROR_RESPONSES)``)."""


class ApiError(Exception):
    """An error to answer as is: ``status`` (4xx/5xx), a one-line ``message`` and an
    optional ``hint`` (what to do)."""

    def __init__(self, status: int, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.hint = hint


MAX_MESSAGE_CHARS = 500


def error_body(status: int, message: str, hint: str | None = None) -> dict[str, Any]:
    """The JSON body of an error (one line of message)."""
    line = " ".join(message.split()) or "error"
    if len(line) > MAX_MESSAGE_CHARS:   # a message may quote the request: never echo 100 kB
        line = line[:MAX_MESSAGE_CHARS] + " …"
    return {"error": {"status": status, "message": line, "hint": hint}}


def error_response(status: int, message: str, hint: str | None = None,
                   headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, message, hint), status_code=status,
                        headers=dict(headers) if headers else None)


def _field(loc: Any) -> str:
    """``query.limit``-style name of a validation error's location."""
    return ".".join(str(p) for p in loc) or "request"


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.hint)


JSON_BODY_HINT = "send one JSON object with Content-Type: application/json"


def _body_error(first: Mapping[str, Any]) -> str | None:
    """The message for a body that is not a JSON object at all (pydantic's words name
    a character offset, or a dictionary, which a caller does not think in)."""
    loc = tuple(first.get("loc", ()))
    if not loc or loc[0] != "body":
        return None
    kind = first.get("type")
    if kind == "json_invalid":
        at = f" at character {loc[1]}" if len(loc) > 1 else ""
        reason = (first.get("ctx") or {}).get("error") or "malformed"
        return f"the body is not valid JSON{at} ({reason})"
    if len(loc) == 1 and kind in ("model_attributes_type", "dict_type", "missing"):
        return "the body must be a JSON object"
    return None


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    body = _body_error(first)
    if body is not None:
        return error_response(422, body, JSON_BODY_HINT)
    where = _field(first.get("loc", ()))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return error_response(422, f"{where}: {first.get('msg', 'invalid value')}{more}",
                          "see /api/docs for the parameters this endpoint takes")


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    message = exc.detail if isinstance(exc.detail, str) else "request refused"
    if exc.status_code == 404 and message == "Not Found":
        message = f"no such endpoint: {request.url.path}"
    hint = None
    if exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    if exc.status_code == 400 and "parsing the body" in message:
        message, hint = "the body could not be read as JSON (UTF-8)", JSON_BODY_HINT
    return error_response(exc.status_code, message, hint, headers=exc.headers)


def store_error_status(exc: StoreError) -> int:
    """The HTTP status of a store error: a refused or failed query is the client's
    (400), a timeout 504, anything else means the store cannot answer now (503)."""
    if isinstance(exc, QueryTimeoutError):
        return 504
    if isinstance(exc, (ReadOnlyQueryError, QueryError)):
        return 400
    return 503


async def _store_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StoreError)
    status = store_error_status(exc)
    hint = None
    message = str(exc)
    if isinstance(exc, ReadOnlyQueryError):
        hint = "only read queries run here: MATCH ... RETURN"
    elif isinstance(exc, QueryError) and status == 400 and \
            not message.lower().startswith(("invalid", "the query")):
        message = f"the query failed: {message}"   # as kgbench cypher says it
    if status == 503:
        log.warning("store error on %s: %s", request.url.path, exc)
    return error_response(status, message, hint)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    if is_disk_full(exc):
        quiet.warning("no space", f"{NO_SPACE} ({request.method} {request.url.path}: {exc})")
        return error_response(507, NO_SPACE, "free space on the device holding --data, "
                              "then retry")
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, INTERNAL_ERROR)


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error of ``app`` in the one JSON shape."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(StoreError, _store_error)
    app.add_exception_handler(Exception, _internal_error)
